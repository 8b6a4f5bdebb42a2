#!/bin/sh
# Checks binaries of `make cross` against what the target's base system
# provides, as mk/abi/TARGET.tsv records it:
#   mk/cross-abi.sh TARGET BINARY...
# Each binary must name the system's ELF interpreter (PT_INTERP), carry
# the system's ABI note with a version no newer than the oldest release
# the TSV names, and need (DT_NEEDED) only libraries the TSV lists, major
# version included.  One line on stderr per thing out of place, exit 1 if
# there was any; exit 2 for a usage error or a target without a TSV.
# Needs readelf (binutils) and od; the targets are little-endian.
set -eu

say() { printf 'cross-abi: %s\n' "$*" >&2; }
[ $# -ge 2 ] || { say "usage: mk/cross-abi.sh TARGET BINARY..."; exit 2; }
target=$1
shift
tsv=${CROSS_ABI_DIR:-$(dirname "$0")/abi}/$target.tsv
[ -r "$tsv" ] || { say "no $tsv: nothing is known of $target's base system"; exit 2; }
command -v readelf >/dev/null 2>&1 || { say "readelf not found (install binutils)"; exit 2; }

# field KEY [N] : field N (default 2) of the TSV's KEY lines, one a line.
field() { awk -F'\t' -v k="$1" -v n="${2:-2}" '$1 == k { print $n }' "$tsv"; }
interp=$(field interp)
needed=$(field needed)
oldest=$(field oldest)
if [ -z "$interp" ] || [ -z "$needed" ] || [ -z "$oldest" ]; then
  say "$tsv lacks an interp, needed or oldest line"
  exit 2
fi
have=$(printf '%s\n' "$needed" | tr '\n' ' ')

# note_word FILE SECTION OWNER TYPE : the first 32-bit word of the
# description of FILE's note OWNER/TYPE in SECTION; nothing if none.
note_word() {
  # shellcheck disable=SC2046 # offset and size, two words
  set -- "$1" "$3" "$4" $(readelf -SW "$1" 2>/dev/null |
    awk -v s="$2" '{ for (i = 1; i + 4 <= NF; i++) if ($i == s) { print $(i + 3), $(i + 4); exit } }')
  [ $# -eq 5 ] || return 0
  od -An -v -tu1 -j "$(printf '%d' "0x$4")" -N "$(printf '%d' "0x$5")" "$1" | awk -v owner="$2" -v type="$3" '
    function u32(o) { return b[o] + b[o + 1] * 256 + b[o + 2] * 65536 + b[o + 3] * 16777216 }
    { for (i = 1; i <= NF; i++) b[n++] = $i }
    END {
      p = 0
      while (p + 12 <= n) {
        namesz = u32(p); descsz = u32(p + 4); t = u32(p + 8); p += 12
        name = ""
        for (i = 0; i < namesz && b[p + i] != 0; i++) name = name sprintf("%c", b[p + i])
        p += int((namesz + 3) / 4) * 4
        if (name == owner && t == type && descsz >= 4) { print u32(p); exit }
        p += int((descsz + 3) / 4) * 4
      }
    }'
}

bad=0
for bin in "$@"; do
  problem() { say "$bin: $*"; bad=1; }
  if ! readelf -h "$bin" >/dev/null 2>&1; then
    problem "not an ELF file"
    continue
  fi
  got=$(readelf -lW "$bin" | sed -n 's/.*\[Requesting program interpreter: \(.*\)\]$/\1/p')
  [ "$got" = "$interp" ] || problem "interpreter ${got:-(none)}, but $target's is $interp"
  for lib in $(readelf -dW "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
    printf '%s\n' "$needed" | grep -qxF -- "$lib" ||
      problem "needs $lib, which $target $oldest's base system does not have (it has: ${have% })"
  done
  # note SECTION OWNER TYPE MAX: the ABI note and the newest version it may claim.
  while IFS="$(printf '\t')" read -r section owner type max; do
    [ -n "$section" ] || continue
    word=$(note_word "$bin" "$section" "$owner" "$type")
    if [ -z "$word" ]; then
      problem "no $owner note of type $type in $section"
    elif [ "$word" -gt "$max" ]; then
      problem "its $owner note asks for version $word, newer than $max ($target $oldest)"
    fi
  done <<EOF
$(awk -F'\t' '$1 == "note" { print $2 "\t" $3 "\t" $4 "\t" $5 }' "$tsv")
EOF
done
exit $bad
