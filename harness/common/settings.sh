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
