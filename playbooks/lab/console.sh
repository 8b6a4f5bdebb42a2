#!/usr/bin/env bash
# Reads a lab guest's serial console (every boot's kernel log, one file).
#   console.sh panics CONSOLE   one line per kernel panic, tab-separated:
#                               boot (1 = the first boot in the file), the
#                               boot's first oops line, the panic line
#   console.sh boots CONSOLE    how many boots the file holds
#   console.sh why CONSOLE      one line on a guest that stopped answering:
#                               the last boot's panic (with its first oops
#                               line) or that it hung without one
# A boot starts at the kernel's "Linux version" banner; an oops line is the
# first report of trouble in that boot (Oops:, BUG:, general protection
# fault, kernel BUG at, a panic with no oops before it).  The console's
# timestamps ("[   26.1] ") are left out of the lines printed.
set -eu

console_die() { printf 'lab console: %s\n' "$*" >&2; exit 2; }

# panics FILE [oops] : the tab-separated lines described above; with oops,
# also a line "boot<TAB>oops line<TAB>-" for the last boot's oops that no
# panic followed (yet).
panics() {
  awk -v open="${2:-}" '
    { sub(/\r$/, ""); line = $0; sub(/^\[ *[0-9]+\.[0-9]+\] /, "", line) }
    line ~ /^Linux version / { boot++; oops = ""; next }
    oops == "" && line ~ /^(Oops: |BUG: |general protection fault|kernel BUG at|Internal error: )/ { oops = line }
    line ~ /^Kernel panic - not syncing/ {
      printf "%d\t%s\t%s\n", boot, (oops == "" ? line : oops), line
      oops = ""
    }
    END { if (open != "" && oops != "") printf "%d\t%s\t-\n", boot, oops }' "$1"
}

boots() {
  grep -c 'Linux version ' "$1" || true
}

# why FILE : panic or hang, for a guest that did not answer.
why() {
  local n last p
  n=$(boots "$1")
  p=$(panics "$1" oops | awk -F '\t' -v n="$n" '$1 == n' | tail -n 1)
  if [ -n "$p" ]; then
    if [ "$(cut -f3 <<<"$p")" = - ]; then
      printf 'kernel oops in boot %s, no panic: %s\n' "$n" "$(cut -f2 <<<"$p")"
    else
      printf 'kernel panic in boot %s: %s\n' "$n" "$(cut -f2 <<<"$p")"
    fi
    return
  fi
  last=$(tr -d '\r' <"$1" | sed 's/^\[ *[0-9]*\.[0-9]*\] //' | grep -v '^[[:space:]]*$' | tail -n 1)
  if [ "$n" -eq 0 ]; then
    printf 'no kernel banner on the console (last line: %s)\n' "${last:-none}"
  else
    printf 'hung without a kernel panic in boot %s (last console line: %s)\n' "$n" "${last:-none}"
  fi
}

[ $# -eq 2 ] || console_die "usage: console.sh panics|boots|why CONSOLE"
[ -r "$2" ] || console_die "cannot read $2"
case $1 in
  panics) panics "$2" ;;
  boots) boots "$2" ;;
  why) why "$2" ;;
  *) console_die "usage: console.sh panics|boots|why CONSOLE" ;;
esac
