#!/bin/sh
# harness/phase-iozone.sh: IOzone's automatic sweep (iozone -a) done with fio.
#
# For every file size from IOZONE_MIN to IOZONE_MAX and every record size from
# IOZONE_RECMIN to IOZONE_RECMAX (capped at the file size), powers of two, one
# fio run does IOzone's tests in IOzone's order on one file in
# TARGET/micro/iozone/: write (new file), rewrite, read, reread, random read,
# random write, backward read, record rewrite, stride read.  Like IOzone the
# I/O is buffered, synchronous (pread/pwrite) and the page cache is kept
# between the tests of a cell (it is dropped before each cell).  Records, phase
# "iozone": <test>.fs<K>k.rs<K>k.kBps (kilobytes of 1024 B a second).
#
# Environment (see README, "Micro-benchmarks"):
#   TARGET ALLOW_NONMOUNT RUN_ID RESULTS HOST VARIANT   as for every phase
#   IOZONE_MIN=64k IOZONE_MAX=<2x RAM> IOZONE_RECMIN=4k IOZONE_RECMAX=16m
#   IOZONE_TESTS    comma-separated subset of: write rewrite read reread randread
#                   randwrite bkwdread recrewrite strideread (default: all)
#   IOZONE_FLUSH=1  include fsync in the write tests' time (iozone -e)
#   IOZONE_FULL=1   small records on large files too (iozone -z); otherwise,
#                   as iozone -a, files above 32 MB get records of 64 KB and up
#   IOZONE_STRIDE=17  stride read distance in records (iozone -j)
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=harness/micro-lib.sh
. "$SHOOTOUT_ROOT/harness/micro-lib.sh"

ALL_TESTS="write rewrite read reread randread randwrite bkwdread recrewrite strideread"
command -v fio >/dev/null || die "fio is not installed (make deps)"
fsmin=$(to_bytes "${IOZONE_MIN:-64k}")
fsmax=$(to_bytes "${IOZONE_MAX:-$(($(mem_bytes) * 2))}")
rsmin=$(to_bytes "${IOZONE_RECMIN:-4k}")
rsmax=$(to_bytes "${IOZONE_RECMAX:-16m}")
stride=${IOZONE_STRIDE:-17}
flush=${IOZONE_FLUSH:-0}
tests=$(printf '%s\n' "${IOZONE_TESTS:-$ALL_TESTS}" | tr ',' ' ')
for t in $tests; do
  case " $ALL_TESTS " in *" $t "*) ;; *) die "IOZONE_TESTS: unknown test $t (want: $ALL_TESTS)" ;; esac
done
for v in $fsmin $rsmin; do
  if [ "$v" -lt 4096 ] || [ $((v & (v - 1))) -ne 0 ]; then die "sizes must be powers of two from 4k: $v"; fi
done
[ "$fsmin" -le "$fsmax" ] || die "IOZONE_MIN $fsmin is above IOZONE_MAX $fsmax"
[ "$rsmin" -le "$rsmax" ] || die "IOZONE_RECMIN $rsmin is above IOZONE_RECMAX $rsmax"
case $stride in '' | *[!0-9]*) die "IOZONE_STRIDE: not a whole number: $stride" ;; esac

joblist=$(printf '%s\n' "$tests" | tr ' ' '\n' | paste -sd, -)
flush_jobs=
[ "$flush" = 1 ] && flush_jobs=write,rewrite,randwrite,recrewrite

micro_begin iozone
avail=$(free_bytes "$MICRO_DIR")
[ "$fsmax" -lt "$avail" ] || die "IOZONE_MAX $fsmax does not fit in $TARGET ($avail bytes free)"
trial=$(next_trial iozone)
raw=$(run_dir)/raw/iozone-$trial
mkdir -p "$raw"
data=$MICRO_DIR/iozone.tmp
record iozone "$trial" flush "$flush" bool

# job NAME RW [EXTRA...] : one stonewalled job of the cell's fio file.
job() {
  n=$1 rw=$2
  shift 2
  printf '\n[%s]\nstonewall\nrw=%s\n' "$n" "$rw"
  for x in "$@"; do printf '%s\n' "$x"; done
}

cells=0
fs=$fsmin
while [ "$fs" -le "$fsmax" ]; do
  rs=$rsmin
  while [ "$rs" -le "$rsmax" ] && [ "$rs" -le "$fs" ]; do
    if [ "${IOZONE_FULL:-0}" != 1 ] && [ "$fs" -gt $((32 << 20)) ] && [ "$rs" -lt $((64 << 10)) ]; then
      rs=$((rs * 2))
      continue
    fi
    cell=fs$((fs / 1024))k.rs$((rs / 1024))k
    sync_opt=
    [ "$flush" = 1 ] && sync_opt=end_fsync=1
    {
      printf '[global]\nfilename=%s\nsize=%s\nbs=%s\nioengine=psync\ndirect=0\n' "$data" "$fs" "$rs"
      printf 'invalidate=0\nfallocate=none\nrandrepeat=1\n'
      job write write $sync_opt
      job rewrite write $sync_opt
      job read read
      job reread read
      job randread randread
      job randwrite randwrite $sync_opt
      job bkwdread "read:-$((rs * 2))"
      job recrewrite write "size=$rs" "io_size=$fs" $sync_opt
      job strideread "read:$((rs * (stride - 1)))" "io_size=$fs"
    } >"$raw/$cell.fio"
    rm -f "$data"
    micro_flush
    fio --eta=never --output-format=json --output="$raw/$cell.json" "$raw/$cell.fio" >/dev/null ||
      die "fio failed on $raw/$cell.fio"
    "$SHOOTOUT_ROOT/harness/fio2records" --iozone --flush-jobs "$flush_jobs" --job "$joblist" \
      "$raw/$cell.json" "$cell" >"$raw/$cell.stats"
    record_stats iozone "$trial" "$raw/$cell.stats"
    cells=$((cells + 1))
    rs=$((rs * 2))
  done
  fs=$((fs * 2))
done
rm -f "$data"
record iozone "$trial" cells "$cells" count
printf '%s: %d cells, trial %s\n' "$(basename "$0")" "$cells" "$trial" >&2
