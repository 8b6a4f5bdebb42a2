#!/usr/bin/env bash
# harness/phase-iozone.sh: IOzone's automatic sweep (iozone -a) done with fio.
#
# For every file size from IOZONE_MIN to IOZONE_MAX and every record size from
# IOZONE_RECMIN to IOZONE_RECMAX (capped at the file size), powers of two, fio
# does IOzone's tests in IOzone's order on one file in TARGET/micro/iozone/:
# write (new file), rewrite, read, reread, random read, random write, backward
# read, record rewrite, stride read; then bin/stdiorw does IOzone's stdio
# tests on the same file: fwrite (new file), frewrite, fread, freread, in
# records of the record size through a stdio buffer of that size.  Like
# IOzone the I/O is buffered, synchronous (pread/pwrite) and the page cache
# is kept between the tests of a cell (it is emptied with FLUSH before each
# cell).  Records, phase
# "iozone": <test>.fs<K>k.rs<K>k.kBps (kilobytes of 1024 B a second over the
# time in the I/O calls, microseconds), cells, flush; and IOzone's -R
# spreadsheet (report.csv, see below) in the run's raw/iozone-<trial>/.
#
# Environment (see docs/micro.md):
#   TARGET ALLOW_NONMOUNT FLUSH RUN_ID RESULTS HOST VARIANT   as for every phase
#   IOZONE_MIN=64k IOZONE_MAX=<2x RAM> IOZONE_RECMIN=4k IOZONE_RECMAX=16m
#   IOZONE_TESTS    comma-separated subset of: write rewrite read reread randread
#                   randwrite bkwdread recrewrite strideread fwrite frewrite
#                   fread freread (default: all)
#   IOZONE_FLUSH=1  include the final fsync in the write tests' time (iozone
#                   -e): each write test ends its own fio run and the fsync
#                   after it is timed by fio2records --fsync
#   IOZONE_FULL=1   small records on large files too (iozone -z); otherwise,
#                   as iozone -a, files above 32 MB get records of 64 KB and up
#   IOZONE_STRIDE=17  stride read distance in records (iozone -j)
#   IOZONE_THREADS=N  IOzone's throughput test (iozone -t N) after the sweep:
#                   N children at once, each on its own file of
#                   IOZONE_TPUT_SIZE (512k) in records of IOZONE_TPUT_REC
#                   (4k), write rewrite read reread randread randwrite
#                   (fio, numjobs=N), then fwrite frewrite fread freread
#                   (stdiorw -t N, N processes); records
#                   <test>.t<N>.fs<K>k.rs<K>k.kBps, the children's rates
#                   summed ("Children see throughput"); the final fsync is
#                   not counted there
set -eu
SHOOTOUT_ROOT=${SHOOTOUT_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=SCRIPTDIR/lib.sh
. "$SHOOTOUT_ROOT/harness/lib.sh"
# shellcheck source=SCRIPTDIR/common.sh
. "$SHOOTOUT_ROOT/harness/common.sh"
# shellcheck source=SCRIPTDIR/micro-lib.sh
. "$SHOOTOUT_ROOT/harness/micro-lib.sh"

FIO_TESTS="write rewrite read reread randread randwrite bkwdread recrewrite strideread"
# the fio tests of the throughput test (iozone -t runs these six)
TPUT_FIO_TESTS="write rewrite read reread randread randwrite"
STDIO_TESTS="fwrite frewrite fread freread"
ALL_TESTS="$FIO_TESTS $STDIO_TESTS"
WRITE_TESTS=" write rewrite randwrite recrewrite "
micro_begin iozone
command -v fio >/dev/null || harness_die "fio is not installed (make deps)"
[ -x "$HARNESS_BIN/stdiorw" ] || harness_die "$HARNESS_BIN/stdiorw is not built (make)"
fsmin=$(to_bytes "${IOZONE_MIN:-64k}")
fsmax=$(to_bytes "${IOZONE_MAX:-$(($(mem_bytes) * 2))}")
rsmin=$(to_bytes "${IOZONE_RECMIN:-4k}")
rsmax=$(to_bytes "${IOZONE_RECMAX:-16m}")
stride=${IOZONE_STRIDE:-17}
flush=${IOZONE_FLUSH:-0}
tests=$(printf '%s\n' "${IOZONE_TESTS:-$ALL_TESTS}" | tr ',' ' ')
for t in $tests; do
  case " $ALL_TESTS " in *" $t "*) ;; *) harness_die "IOZONE_TESTS: unknown test $t (want: $ALL_TESTS)" ;; esac
done
for v in $fsmin $rsmin; do
  if [ "$v" -lt 4096 ] || [ $((v & (v - 1))) -ne 0 ]; then harness_die "sizes must be powers of two from 4k: $v"; fi
done
[ "$fsmin" -le "$fsmax" ] || harness_die "IOZONE_MIN $fsmin is above IOZONE_MAX $fsmax"
[ "$rsmin" -le "$rsmax" ] || harness_die "IOZONE_RECMIN $rsmin is above IOZONE_RECMAX $rsmax"
case $stride in '' | *[!0-9]*) harness_die "IOZONE_STRIDE: not a whole number: $stride" ;; esac
threads=${IOZONE_THREADS:-0}
case $threads in '' | *[!0-9]*) harness_die "IOZONE_THREADS: a number of children, got $threads" ;; esac
tsize=$(to_bytes "${IOZONE_TPUT_SIZE:-512k}")
trec=$(to_bytes "${IOZONE_TPUT_REC:-4k}")
[ "$threads" = 0 ] || [ "$trec" -le "$tsize" ] || harness_die "IOZONE_TPUT_REC $trec is above IOZONE_TPUT_SIZE $tsize"

avail=$(free_bytes "$MICRO_DIR")
[ "$fsmax" -lt "$avail" ] || harness_die "IOZONE_MAX $fsmax does not fit in $TARGET ($avail bytes free)"
[ $((threads * tsize)) -lt "$avail" ] ||
  harness_die "IOZONE_THREADS x IOZONE_TPUT_SIZE ($((threads * tsize)) bytes) does not fit in $TARGET ($avail bytes free)"
data=$MICRO_DIR/iozone.tmp
# The fio options naming the file(s): one file, or one a child (-t).
files="filename=$data"
record iozone "$CUR_TRIAL" flush "$flush" bool

# job NAME : the job of IOzone test NAME (stonewalled) for file size fs,
# record size rs.
job() {
  printf '\n[%s]\nstonewall\n' "$1"
  case $1 in
    write | rewrite) printf 'rw=write\n' ;;
    read | reread) printf 'rw=read\n' ;;
    randread | randwrite) printf 'rw=%s\n' "$1" ;;
    bkwdread) printf 'rw=read:-%s\n' $((rs * 2)) ;;
    recrewrite) printf 'rw=write\nsize=%s\nio_size=%s\n' "$rs" "$fs" ;;
    strideread) printf 'rw=read:%s\nio_size=%s\n' $((rs * (stride - 1))) "$fs" ;;
  esac
}

# segment NAME TEST... : one fio run of TESTS on the cell's file, its
# records (of the tests asked for) appended to the cell's stats; with
# IOZONE_FLUSH=1 a segment that ends in a write test is followed by a timed
# fsync, added to that test's time.
segment() {
  local name=$1 t want='' sync=''
  shift
  {
    printf '[global]\n%s\nsize=%s\nbs=%s\nioengine=psync\ndirect=0\n' "$files" "$fs" "$rs"
    printf 'invalidate=0\nfallocate=none\nrandrepeat=1\nthread\n'
    for t in "$@"; do job "$t"; done
  } >"$RAW/$cell.$name.fio"
  proc_run fio fio --eta=never --output-format=json --output="$RAW/$cell.$name.json" "$RAW/$cell.$name.fio"
  t=${*: -1}
  if [ "$flush" = 1 ] && [[ $WRITE_TESTS == *" $t "* ]]; then
    run_into "$WORK/fsync" fsync "$HARNESS/fio2records" --fsync "$data"
    sync=$t=$(cat "$WORK/fsync")
  fi
  for t in "$@"; do
    case " $tests " in *" $t "*) want=$want${want:+,}$t ;; esac
  done
  [ -n "$want" ] || return 0
  run_into "$WORK/seg.stats" fio2records "$HARNESS/fio2records" --iozone ${sync:+--sync "$sync"} --job "$want" \
    "$RAW/$cell.$name.json" "$cell"
  cat "$WORK/seg.stats" >>"$RAW/$cell.stats"
}

# wanted TEST... : one of TESTs is in IOZONE_TESTS.
wanted() {
  local t
  for t in "$@"; do
    case " $tests " in *" $t "*) return 0 ;; esac
  done
  return 1
}

# stdio_tests FILE [OPTION...] : IOzone's stdio tests on FILE (with -t N:
# on FILE.0 to FILE.N-1), all four in their order (fwrite makes the file the
# reads need), the records of those asked for appended to the cell's stats;
# IOZONE_FLUSH=1 is stdiorw -e.
stdio_tests() {
  local file=$1 opts=(-n "$cell" -s "$fs" -r "$rs")
  shift
  [ "$flush" = 1 ] && opts+=(-e)
  # shellcheck disable=SC2086 # the tests, one argument each
  run_into "$WORK/stdio.stats" stdiorw "$HARNESS_BIN/stdiorw" "${opts[@]}" "$@" "$file" $STDIO_TESTS
  awk -F '\t' -v want=" $tests " '{ split($1, m, "."); if (index(want, " " m[1] " ")) print }' \
    "$WORK/stdio.stats" >>"$RAW/$cell.stats"
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
    rm -f "$data" "$RAW/$cell.stats"
    micro_flush
    # shellcheck disable=SC2086 # one argument a test
    if ! wanted $FIO_TESTS; then
      : # only stdio tests asked for: fwrite makes the file
    elif [ "$flush" = 1 ]; then
      segment 1 write
      segment 2 rewrite
      segment 3 read reread randread randwrite
      segment 4 bkwdread recrewrite
      segment 5 strideread
    else
      # shellcheck disable=SC2086 # one argument a test
      segment all $FIO_TESTS
    fi
    # shellcheck disable=SC2086 # one argument a test
    wanted $STDIO_TESTS && stdio_tests "$data"
    record_stats iozone "$CUR_TRIAL" "$RAW/$cell.stats"
    cells=$((cells + 1))
    rs=$((rs * 2))
  done
  fs=$((fs * 2))
done
rm -f "$data"
record iozone "$CUR_TRIAL" cells "$cells" count
if [ "$threads" -gt 0 ]; then
  # shellcheck disable=SC2016 # $jobnum is fio's
  files=$(printf 'directory=%s\nfilename_format=iozone.t$jobnum.tmp\nnumjobs=%s' "$MICRO_DIR" "$threads")
  fs=$tsize rs=$trec cell=t$threads.fs$((tsize / 1024))k.rs$((trec / 1024))k flush=0
  tput_tests=''
  for t in $tests; do
    case " $TPUT_FIO_TESTS $STDIO_TESTS " in *" $t "*) tput_tests="$tput_tests$t " ;; esac
  done
  tests=$tput_tests
  rm -f "$RAW/$cell.stats"
  micro_flush
  # shellcheck disable=SC2086 # one argument a test
  if wanted $TPUT_FIO_TESTS; then segment tput $TPUT_FIO_TESTS; fi
  # shellcheck disable=SC2086 # one argument a test
  if wanted $STDIO_TESTS; then stdio_tests "$MICRO_DIR/iozone.stdio" -t "$threads"; fi
  [ ! -s "$RAW/$cell.stats" ] || record_stats iozone "$CUR_TRIAL" "$RAW/$cell.stats"
  rm -f "$MICRO_DIR"/iozone.t*.tmp "$MICRO_DIR"/iozone.stdio.*
  record iozone "$CUR_TRIAL" threads "$threads" count
fi
run_into "$RAW/report.csv" iozone-csv "$HARNESS/fio2records" --iozone-csv "$RAW"
phase_end iozone
harness_say "$cells cells"
