#!/usr/bin/env bats
# The reference pages against the tools: every tool has docs/TOOL.1, and the
# options its -h names are exactly those of the man page's OPTIONS section
# (both ways); every man page renders without a groff warning; every relative
# link of README.md and docs/*.md names a file that exists.  (Anchors into
# docs/formats.md are checked by docs-formats.bats.)
load helpers

# The tools the Makefile builds (BINS += NAME in the make fragments).
tools() {
  grep -rhoE '^BINS \+= [a-z]+' "$ROOT"/*/*.mk "$ROOT/Makefile" 2>/dev/null |
    awk '{ print $3 }' | sort -u
}

# opts : the options named in standard input, one a line, once: those that
# begin a line and those that follow them (an option column such as
# "-T SECS, --request-timeout SECS" or "-h, --help / --version", up to the
# first word that is neither an option nor an upper-case argument), and those
# right after "[" or "|" (a synopsis).  An option in prose ("(sh -c)") is not
# one.
opts() {
  perl -ne '
    if (/^\s*-/) {
      for my $w (split " ") {
        (my $t = $w) =~ s/[,\/]$//;
        next if $t eq "" or $t eq "/" or $t eq "|";
        if ($t =~ /^--?[A-Za-z0-9][A-Za-z0-9-]*$/) { print "$t\n"; next }
        last unless $t =~ /^[A-Z][A-Z0-9_.:|]*\]?\.*$/;
      }
    }
    print "$1\n" while /[[|]\s*(--?[A-Za-z0-9][A-Za-z0-9-]*)/g;' | sort -u
}

# man_opts PAGE : the options of the tags (the line after each .TP) of the
# OPTIONS section of PAGE.
man_opts() {
  awk '/^\.SH/ { on = ($0 ~ /^\.SH "?OPTIONS"?$/); next }
       on && tag { print; tag = 0; next }
       on && /^\.TP/ { tag = 1 }' "$1" | sed -E 's/\\f[BIRP]//g; s/\\-/-/g' | opts
}

@test "docs: the Makefile's tools are known to this test" {
  run tools
  [ "$status" -eq 0 ]
  [ "${#lines[@]}" -ge 7 ] || { echo "found only: ${lines[*]}"; return 1; }
}

@test "docs/TOOL.1: every tool has a man page, and its OPTIONS name exactly the options of TOOL -h" {
  local t bad='' only_h only_man
  for t in $(tools); do
    [ -f "$ROOT/docs/$t.1" ] || { bad="$bad"$'\n'"$t: no docs/$t.1"; continue; }
    [ -x "$BIN/$t" ] || { bad="$bad"$'\n'"$t: no $BIN/$t (make all)"; continue; }
    only_h=$(comm -23 <("$BIN/$t" -h 2>&1 | opts) <(man_opts "$ROOT/docs/$t.1") | tr '\n' ' ')
    only_man=$(comm -13 <("$BIN/$t" -h 2>&1 | opts) <(man_opts "$ROOT/docs/$t.1") | tr '\n' ' ')
    [ -z "$only_h" ] || bad="$bad"$'\n'"$t: in $t -h but not in docs/$t.1 OPTIONS: $only_h"
    [ -z "$only_man" ] || bad="$bad"$'\n'"$t: in docs/$t.1 OPTIONS but not in $t -h: $only_man"
  done
  [ -z "$bad" ] || { echo "man pages and -h disagree:$bad"; return 1; }
}

@test "docs/*.1: every man page renders with groff -man -ww without a warning" {
  command -v groff >/dev/null || skip "no groff (Debian: apt-get install groff-base)"
  local f out bad=''
  for f in "$ROOT"/docs/*.1; do
    out=$(groff -man -ww -z "$f" 2>&1) || bad="$bad"$'\n'"${f#"$ROOT"/}: groff failed"
    [ -z "$out" ] || bad="$bad"$'\n'"${f#"$ROOT"/}: $out"
    grep -q '^\.SH "\?EXIT STATUS"\?$' "$f" || bad="$bad"$'\n'"${f#"$ROOT"/}: no EXIT STATUS section"
  done
  [ -z "$bad" ] || { echo "man pages:$bad"; return 1; }
}

# slugs FILE : the anchors of FILE's headings, as GitHub makes them (lower
# case, punctuation but - and _ dropped, spaces as -).
slugs() {
  grep -E '^#{1,6} ' "$1" | sed -E 's/^#+ //' | tr '[:upper:]' '[:lower:]' | sed -E 's/[^a-z0-9 _-]//g; s/ /-/g'
}

@test "README.md and docs/*.md: every relative link names an existing file and heading; the README links every docs page" {
  local f l target file anchor bad='' p
  for f in "$ROOT/README.md" "$ROOT"/docs/*.md; do
    while IFS= read -r l; do
      target=${l#](}
      target=${target%)}
      case $target in http://* | https://* | mailto:*) continue ;; esac
      file=${target%%#*}
      anchor=''
      [ "$file" = "$target" ] || anchor=${target#*#}
      if [ -z "$file" ]; then file=$f; else file=$(dirname "$f")/$file; fi
      [ -e "$file" ] || { bad="$bad"$'\n'"${f#"$ROOT"/}: $l names no file"; continue; }
      # Anchors into docs/formats.md: docs-formats.bats.
      case $anchor,$file in '',* | *,*/formats.md) continue ;; esac
      slugs "$file" | grep -qxF "$anchor" || bad="$bad"$'\n'"${f#"$ROOT"/}: $l names no heading"
    done < <(grep -oE '\]\([^) ]+\)' "$f")
  done
  for p in "$ROOT"/docs/*.md "$ROOT"/docs/*.1; do
    p=${p#"$ROOT"/}
    grep -qF "]($p" "$ROOT/README.md" || bad="$bad"$'\n'"README.md: no link to $p"
  done
  [ -z "$bad" ] || { echo "links:$bad"; return 1; }
}
