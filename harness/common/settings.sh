# shellcheck shell=bash disable=SC2034
# harness/common/settings.sh: the harness's settings get their defaults from
# the one list of them, harness/settings.tsv (NAME, DEFAULT, GROUPS, MEANING;
# its header says the conventions).

# settings_defaults : every setting of the group harness whose DEFAULT is a
# value (not a computed one, in parentheses) gets it when it is unset or
# empty, as ${NAME:=DEFAULT} would; ${OTHER} in a value is OTHER's value (a
# setting above it, or SHOOTOUT_ROOT).  Also HARNESS, the harness's folder.
settings_defaults() {
  local line name def groups ref
  while IFS= read -r line || [ -n "$line" ]; do
    case $line in [A-Z]*) ;; *) continue ;; esac
    name=${line%%$'\t'*} line=${line#*$'\t'}
    def=${line%%$'\t'*} line=${line#*$'\t'}
    groups=${line%%$'\t'*}
    case ,$groups, in *,harness,*) ;; *) continue ;; esac
    case $def in '('*) continue ;; esac
    [ -z "${!name:-}" ] || continue
    while [[ $def =~ \$\{([A-Za-z_][A-Za-z0-9_]*)\} ]]; do
      ref=${BASH_REMATCH[1]}
      def=${def//"${BASH_REMATCH[0]}"/"${!ref:-}"}
    done
    printf -v "$name" '%s' "$def"
  done <"$SHOOTOUT_ROOT/harness/settings.tsv"
  HARNESS=$SHOOTOUT_ROOT/harness
  export SHOOTOUT_ROOT RESULTS HOST VARIANT
}

# settings_check [GROUP...] : every setting of those groups (harness and micro
# by default) that is set is one line (no control character) and passes its
# CHECK, the fifth column of harness/settings.tsv (empty: any line of text).
# Values reach the tools only as arguments, paths, records and YAML, never as
# code; the checks keep a name to one path component, a boolean to 0 or 1,
# a choice to its words.  The first that fails is refused (settings_refuse)
# before anything is written.
settings_check() {
  local want=" ${*:-harness micro} " name check v
  while read -r name check; do
    [ -n "${!name+set}" ] || continue
    v=${!name}
    case $v in *[[:cntrl:]]*)
      settings_refuse "$name holds a control character (a newline, a tab...): a setting is one line of text" ;;
    esac
    if [ -z "$v" ] || [ -z "$check" ]; then continue; fi
    settings_valid "$check" "$v" || settings_refuse "$name=$v: $(settings_want "$check")"
  done < <(awk -F '\t' -v want="$want" '$1 ~ /^[A-Z]/ { n = split($3, g, ",")
    for (i = 1; i <= n; i++) if (index(want, " " g[i] " ") && !seen[$1]++) print $1, $5 }' \
    "$SHOOTOUT_ROOT/harness/settings.tsv")
  settings_unknown "$want"
}

# settings_unknown " GROUP... " : a variable of the environment (make passes
# its command line's there too) that looks like a setting of those groups
# but is not one of harness/settings.tsv is refused, with the nearest name:
# "unknown setting REPLAY_CONUT (did you mean REPLAY_COUNT?)".  It looks
# like one when (1) it starts with a group prefix of those settings (the
# text up to the first _ of a name, when two names share it or the text
# before the _ is itself a name: REPLAY_, SERVE_, NET_, PRIME_, PRELOAD_,
# RESIDENT_, ICF_, IOMETER_, IOZONE_, POSTMARK_, DISCOVER_; LAB_ for the
# lab, DEMO_ for make demo), or (2) it is within 2 edits of a name (1 for a
# name of 4 letters; shorter ones never: PATH, HOME, CI, TERM stay
# ordinary).  Only upper-case names are looked at.
settings_unknown() {
  local bad
  bad=$(awk -F '\t' -v want="$1" "$(cat "$SHOOTOUT_ROOT/harness/common/dist.awk")"'
    $1 ~ /^[A-Z]/ {
      all[$1] = 1
      n = split($3, g, ",")
      for (i = 1; i <= n; i++) if (index(want, " " g[i] " ")) mine[$1] = 1
    }
    END {
      for (s in mine) if ((k = index(s, "_")) > 1) { p = substr(s, 1, k); shared[p]++; if (substr(s, 1, k - 1) in all) shared[p]++ }
      for (v in ENVIRON) {
        if (v !~ /^[A-Z][A-Z0-9_]*$/ || v in all) continue
        near = ""; best = 99
        for (s in mine) {
          d = length(v) - length(s)
          if (d > 2 || d < -2 || bag(v, s) > 2) continue # 3 or more edits apart: not near
          d = dist(v, s)
          if (d < best || (d == best && s < near)) { best = d; near = s } }
        k = index(v, "_"); l = length(v)
        if ((k > 1 && shared[substr(v, 1, k)] >= 2) || (l >= 5 && best <= 2) || (l == 4 && best <= 1)) {
          if (found == "" || v < found) { found = v; hint = best <= 2 ? near : "" }
        }
      }
      if (found != "") print found "\t" hint
    }' "$SHOOTOUT_ROOT/harness/settings.tsv")
  [ -n "$bad" ] || return 0
  if [ -n "${bad#*$'\t'}" ]; then
    settings_refuse "unknown setting ${bad%%$'\t'*} (did you mean ${bad#*$'\t'}?)"
  fi
  settings_refuse "unknown setting ${bad%%$'\t'*} (not one of harness/settings.tsv)"
}

# settings_refuse MESSAGE : one line "SCRIPT: MESSAGE" on stderr, exit 2.
settings_refuse() {
  printf '%s: %s\n' "$(basename "$0")" "$1" >&2
  exit 2
}

# settings_valid CHECK VALUE : VALUE (not empty) is what CHECK allows.
#   bool 0 or 1; count a whole number; decimal a number such as 0.5; size a
#   number of bytes, or with k, m, g or t; name one path component (letters,
#   digits and . _ + -, the first not . + -: never . or .., no /);
#   host a host name or address, not an option; enum:A|B one of those;
#   counts, sizes, names (also comma-separated), enums:A|B a list of them.
settings_valid() {
  local w words
  case $1 in
    bool) [ "$2" = 0 ] || [ "$2" = 1 ] ;;
    count) case $2 in *[!0-9]*) return 1 ;; esac ;;
    decimal) [[ $2 =~ ^[0-9]*\.?[0-9]+$ ]] ;;
    size) [[ $2 =~ ^[0-9]+[kKmMgGtT]?$ ]] ;;
    name) case $2 in [!A-Za-z0-9_]* | *[!A-Za-z0-9._+-]*) return 1 ;; esac ;; # as lib.sh's lib_name
    host) case $2 in -* | *[!]A-Za-z0-9_.:%@[-]*) return 1 ;; esac ;;
    enum:*) case "|${1#enum:}|" in *"|$2|"*) ;; *) return 1 ;; esac ;;
    counts | sizes | names | enums:*)
      # A blank list is left to the script that reads it ("... is empty").
      read -r -a words <<<"${2//,/ }"
      for w in "${words[@]}"; do
        case $1 in
          enums:*) settings_valid "enum:${1#enums:}" "$w" ;;
          *) settings_valid "${1%s}" "$w" ;;
        esac || return 1
      done
      ;;
    *) return 1 ;;
  esac
}

# settings_want CHECK : what CHECK wants, for the refusal.
settings_want() {
  local w
  case $1 in
    bool) echo "want 0 or 1" ;;
    count) echo "want a whole number" ;;
    counts) echo "want whole numbers, separated by blanks" ;;
    decimal) echo "want a number, such as 2 or 0.5" ;;
    size) echo "want a size: bytes, or a number with k, m, g or t (64k, 2g)" ;;
    sizes) echo "want sizes (bytes, or with k, m, g or t), separated by blanks" ;;
    name | names) echo "want a single name (letters, digits and . _ + -, not first): it names a folder, so no /" ;;
    host) echo "want a host name or address (no blanks, not starting with -)" ;;
    enum:*) w=${1#enum:} && echo "want one of: ${w//|/, }" ;;
    enums:*) w=${1#enums:} && echo "want some of: ${w//|/ }" ;;
  esac
}
