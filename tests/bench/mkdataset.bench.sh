#!/usr/bin/env bash
# mkdataset throughput against `gzip -1` compressing the very same bytes
# (the uncompressed layout and update tarballs mkdataset made), both writing
# to the same disk.  Prints medians of RUNS runs and the ratios (> 1: faster
# than gzip -1).
#   BENCH_PROFILE=small RUNS=3 tests/bench/mkdataset.bench.sh
set -eu
cd "$(dirname "$0")/../.."
profile=${BENCH_PROFILE:-small}
runs=${RUNS:-3}
[ -x bin/mkdataset ] || make bin/mkdataset >/dev/null
command -v /usr/bin/time >/dev/null || { echo "needs /usr/bin/time (make deps)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/mkdataset-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# timed NAME CMD... : appends "wall cpu" to $work/NAME.times
timed() {
  local name=$1
  shift
  /usr/bin/time -f '%e %U %S' -o "$work/t" "$@"
  awk '{ printf "%s %.3f\n", $1, $2 + $3 }' "$work/t" >>"$work/$name.times"
}

for i in $(seq "$runs"); do
  rm -rf "$work/d"
  timed mkdataset bin/mkdataset -p "$profile" -o "$work/d" >/dev/null
  if [ "$i" -eq 1 ]; then
    gzip -dc "$work/d/layout.tar.gz" >"$work/raw.tar"
    gzip -dc "$work/d/update.tar.gz" >>"$work/raw.tar"
    bytes=$(stat -c %s "$work/raw.tar")
  fi
  # shellcheck disable=SC2016 # expanded by the inner sh
  timed gzip sh -c 'gzip -1 -c "$1" >"$2" && sync "$2"' sh "$work/raw.tar" "$work/raw.tar.gz"
done

mb=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1e6 }')
echo "mkdataset -p $profile vs gzip -1 on the same $mb MB of tar (incompressible content), $runs runs, medians:"
for n in mkdataset gzip; do
  w=$(cut -d' ' -f1 "$work/$n.times" | median)
  c=$(cut -d' ' -f2 "$work/$n.times" | median)
  eval "${n}_w=$w ${n}_c=$c"
  awk -v n="$n" -v w="$w" -v c="$c" -v mb="$mb" \
    'BEGIN { printf "  %-10s wall %7.2f s (%6.1f MB/s)   cpu %7.2f s (%6.1f MB/s)\n", n, w, mb / w, c, mb / c }'
done
# shellcheck disable=SC2154 # set by eval above
awk -v mw="$mkdataset_w" -v mc="$mkdataset_c" -v gw="$gzip_w" -v gc="$gzip_c" \
  'BEGIN { printf "  ratio mkdataset/gzip -1 throughput: wall %.2fx, cpu %.2fx (target >= 1)\n", gw / mw, gc / mc }'
