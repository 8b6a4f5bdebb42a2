#!/usr/bin/env bash
# harness/phase-iozone.sh: IOzone's automatic sweep (iozone -a), with IOzone
# itself where it is installed, else emulated with fio and bin/stdiorw.
#
# IOZONE_ENGINE=iozone (the default where `iozone` is on PATH: Debian's
# iozone3, from the non-free component, which `make deps` adds): one
#   iozone -a -n MIN -g MAX -y RECMIN -q RECMAX [-z] -j STRIDE [-e] [-c] [-o]
#          [-I] -i 0 -i ... -R -b raw/iozone-<trial>/iozone.xls -f FILE
# in TARGET/micro/iozone/ (the page cache emptied with FLUSH once, before
# it: IOzone runs its cells back to back), and with IOZONE_THREADS=N one
#   iozone -t N -s TPUT_SIZE -r TPUT_REC ... -F FILE.0 ... FILE.N-1
# Their output is kept as raw/iozone-<trial>/iozone.out (and tput.out, the
# -b spreadsheets beside them) and harness/iozone2records turns it into
# records: <test>.fs<K>k.rs<K>k.kBps as IOzone prints them; for -t the
# children's sum (<test>.t<N>.fs<K>k.rs<K>k.kBps), .parent_kBps, .min_kBps,
# .max_kBps, .avg_kBps and .min_xfer_kB.
#
# IOZONE_ENGINE=emulated (the default without iozone, said on stderr): for
# every file size and record size, fio does IOzone's tests in IOzone's order
# on one file (those of the -i groups IOZONE_TESTS names, write and rewrite
# always, as IOzone runs them): write (new file), rewrite, read, reread, random read, random
# write, backward read (from the last record to the first, replayed from a
# fio iolog), record rewrite, stride read (IOzone's order of records,
# replayed likewise); then bin/stdiorw does IOzone's stdio tests on the same
# file: fwrite (in place, as IOzone), frewrite, fread, freread, in records
# of the record size through a stdio buffer of that size.  Like IOzone the
# I/O is buffered, synchronous (pread/pwrite) and the page cache is kept
# between the tests of a cell (it is emptied with FLUSH before each cell).
# Rates are kilobytes of 1024 B a second over the time in the I/O calls,
# microseconds.
#
# Both record engine (iozone or emulated, text), emulated (bool),
# iozone_version (text, the real one), cells, flush; and IOzone's -R
# spreadsheet made of the records (report.csv, see below) in the run's
# raw/iozone-<trial>/.
#
# Environment (see docs/micro.md):
#   TARGET ALLOW_NONMOUNT FLUSH RUN_ID RESULTS HOST VARIANT   as for every phase
#   IOZONE_ENGINE   iozone or emulated (default: iozone when installed)
#   IOZONE_MIN=64k IOZONE_MAX=<2x RAM> IOZONE_RECMIN=4k IOZONE_RECMAX=16m
#   IOZONE_TESTS    comma-separated subset of: write rewrite read reread randread
#                   randwrite bkwdread recrewrite strideread fwrite frewrite
#                   fread freread (default: all); the real IOzone also
#                   randmix pwrite repwrite pread repread pwritev repwritev
#                   preadv repreadv (its tests 8-12: IOzone 3.489 reports
#                   them in the throughput test only)
#   IOZONE_FLUSH=1  include the final fsync in the write tests' time (iozone
#                   -e): emulated, each write test ends its own fio run and
#                   the fsync after it is timed by fio2records --fsync
#   IOZONE_CLOSE=1 IOZONE_SYNC=1 IOZONE_DIRECT=1   iozone -c, -o, -I (the
#                   real IOzone only)
#   IOZONE_FULL=1   small records on large files too (iozone -z); otherwise,
#                   as iozone -a, files above 32 MB get records of 64 KB and up
#   IOZONE_STRIDE=17  stride read distance in records (iozone -j)
#   IOZONE_THREADS=N  IOzone's throughput test (iozone -t N) after the sweep:
#                   N children at once, each on its own file of
#                   IOZONE_TPUT_SIZE (512k) in records of IOZONE_TPUT_REC
#                   (4k); emulated: write rewrite read reread randread
#                   randwrite (fio, numjobs=N), then fwrite frewrite fread
#                   freread (stdiorw -t N, N processes); records
#                   <test>.t<N>.fs<K>k.rs<K>k.kBps, the children's rates
#                   summed ("Children see throughput"; emulated, the final
#                   fsync is not counted there)
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
# IOzone's tests 8-12, which only IOzone itself runs
REAL_TESTS="randmix pwrite repwrite pread repread pwritev repwritev preadv repreadv"
WRITE_TESTS=" write rewrite randwrite recrewrite "

engine=${IOZONE_ENGINE:-}
if [ -z "$engine" ]; then
  engine=emulated
  if command -v iozone >/dev/null; then engine=iozone; else
    printf '%s\n' "phase-iozone: iozone is not installed (make deps: iozone3, from Debian's non-free component): emulating its tests with fio and stdiorw (records: engine emulated)" >&2
  fi
fi
case $engine in
  iozone) command -v iozone >/dev/null ||
    phase_refuse "IOZONE_ENGINE=iozone: iozone is not installed (make deps installs iozone3, from Debian's non-free component)" ;;
  emulated)
    for v in IOZONE_CLOSE IOZONE_SYNC IOZONE_DIRECT; do
      [ "${!v:-0}" = 0 ] || phase_refuse "$v=1 needs IOzone itself (IOZONE_ENGINE=iozone; make deps installs iozone3)"
    done
    ;;
  *) phase_refuse "IOZONE_ENGINE: iozone or emulated, not $engine" ;;
esac
tests=$(printf '%s\n' "${IOZONE_TESTS:-$ALL_TESTS}" | tr ',' ' ')
for t in $tests; do
  case " $ALL_TESTS " in *" $t "*) continue ;; esac
  case " $REAL_TESTS " in
    *" $t "*) [ "$engine" = iozone ] || phase_refuse "IOZONE_TESTS: $t is one of IOzone's own tests (8-12), which the emulation does not run" ;;
    *) phase_refuse "IOZONE_TESTS: unknown test $t (want: $ALL_TESTS $REAL_TESTS)" ;;
  esac
done
fsmin=$(to_bytes "${IOZONE_MIN:-64k}")
fsmax=$(to_bytes "${IOZONE_MAX:-$(($(mem_bytes) * 2))}")
rsmin=$(to_bytes "${IOZONE_RECMIN:-4k}")
rsmax=$(to_bytes "${IOZONE_RECMAX:-16m}")
stride=${IOZONE_STRIDE:-17}
flush=${IOZONE_FLUSH:-0}
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
# The files must fit in TARGET: refused before the phase starts (exit 2,
# nothing written), as the default IOZONE_MAX (2x RAM) is on a small one.
target_guard || harness_die "$TARGET_REFUSAL"
avail=$(free_bytes "$TARGET")
[ "$fsmax" -lt "$avail" ] ||
  phase_refuse "IOZONE_MAX=${IOZONE_MAX:-$((fsmax >> 20))m (2x RAM)}: the largest file does not fit in TARGET=$TARGET ($((avail >> 20)) MiB free): lower IOZONE_MAX"
[ $((threads * tsize)) -lt "$avail" ] ||
  phase_refuse "IOZONE_THREADS x IOZONE_TPUT_SIZE ($((threads * tsize >> 20)) MiB) does not fit in TARGET=$TARGET ($((avail >> 20)) MiB free)"

micro_begin iozone
if [ "$engine" = emulated ]; then
  command -v fio >/dev/null || harness_die "fio is not installed (make deps)"
  [ -x "$HARNESS_BIN/stdiorw" ] || harness_die "$HARNESS_BIN/stdiorw is not built (make)"
fi
data=$MICRO_DIR/iozone.tmp
# The fio options naming the file(s): one file, or one a child (-t).
files="filename=$data"
record iozone "$CUR_TRIAL" flush "$flush" bool
record iozone "$CUR_TRIAL" engine "$engine" text
record iozone "$CUR_TRIAL" emulated "$([ "$engine" = emulated ] && echo 1 || echo 0)" bool

# job NAME : the job of IOzone test NAME (stonewalled) for file size fs,
# record size rs.
job() {
  printf '\n[%s]\nstonewall\n' "$1"
  case $1 in
    write | rewrite) printf 'rw=write\n' ;;
    read | reread) printf 'rw=read\n' ;;
    randread | randwrite) printf 'rw=%s\n' "$1" ;;
    bkwdread | strideread)
      run_into "$WORK/$1.iolog" iozone-iolog "$HARNESS/iozone-iolog" "$1" "$data" $((fs / rs)) "$rs" "$stride"
      printf 'rw=read\nread_iolog=%s\nreplay_no_stall=1\n' "$WORK/$1.iolog"
      ;;
    recrewrite) printf 'rw=write\nsize=%s\nio_size=%s\n' "$rs" "$fs" ;;
  esac
}


# segment NAME TEST... : one fio run of those TESTS whose IOzone test
# (-i) is asked for (as IOzone, which runs only those; nothing when none
# is) on the cell's file, its records (of the tests asked for) appended to
# the cell's stats; with IOZONE_FLUSH=1 a segment that ends in a write test
# is followed by a timed fsync, added to that test's time.
segment() {
  local name=$1 t want='' sync='' run=()
  shift
  for t in "$@"; do
    case " $numbers " in *" $(test_number "$t") "*) run+=("$t") ;; esac
  done
  [ ${#run[@]} -gt 0 ] || return 0
  set -- "${run[@]}"
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

# test_number TEST : IOzone's -i number of TEST.
test_number() {
  case $1 in
    write | rewrite) echo 0 ;; read | reread) echo 1 ;; randread | randwrite) echo 2 ;;
    bkwdread) echo 3 ;; recrewrite) echo 4 ;; strideread) echo 5 ;; fwrite | frewrite) echo 6 ;;
    fread | freread) echo 7 ;; randmix) echo 8 ;; pwrite | repwrite) echo 9 ;; pread | repread) echo 10 ;;
    pwritev | repwritev) echo 11 ;; preadv | repreadv) echo 12 ;;
  esac
}

# test_numbers : IOzone's -i numbers of the tests asked for, 0 first
# (write and rewrite make the file), each once.
test_numbers() {
  local t n seen='0'
  for t in $tests; do
    n=$(test_number "$t")
    case " $seen " in *" $n "*) ;; *) seen="$seen $n" ;; esac
  done
  printf '%s\n' "$seen"
}

# real_iozone NAME ARG... : IOzone itself with ARGs and the options of the
# phase (-e -c -o -I, -j, -R, the -i of each test asked for and -i 0), its
# output into raw/NAME.out, its spreadsheet into raw/NAME.xls; the records
# of the tests asked for appended to the trial.
real_iozone() {
  local name=$1 n flags=(-j "$stride" -R -b "$RAW/$1.xls")
  shift
  [ "$flush" = 1 ] && flags+=(-e)
  [ "${IOZONE_CLOSE:-0}" = 1 ] && flags+=(-c)
  [ "${IOZONE_SYNC:-0}" = 1 ] && flags+=(-o)
  [ "${IOZONE_DIRECT:-0}" = 1 ] && flags+=(-I)
  for n in $numbers; do flags+=(-i "$n"); done
  run_into "$RAW/$name.out" iozone iozone "$@" "${flags[@]}"
  run_into "$WORK/$name.stats" iozone2records "$HARNESS/iozone2records" "$RAW/$name.out"
  awk -F '\t' -v want=" $tests " '{ split($1, m, "."); if (index(want, " " m[1] " ")) print }' \
    "$WORK/$name.stats" >"$RAW/$name.stats"
  [ ! -s "$RAW/$name.stats" ] || record_stats iozone "$CUR_TRIAL" "$RAW/$name.stats"
}

numbers=$(test_numbers)
if [ "$engine" = iozone ]; then
  version=$(iozone -v 2>/dev/null | awk '/Revision:/ { print $3; exit }')
  record iozone "$CUR_TRIAL" iozone_version "${version:-unknown}" text
  micro_flush
  args=(-a -n $((fsmin / 1024))k -g $((fsmax / 1024))k -y $((rsmin / 1024))k -q $((rsmax / 1024))k)
  [ "${IOZONE_FULL:-0}" = 1 ] && args+=(-z)
  real_iozone iozone "${args[@]}" -f "$data"
  cells=$(awk -F '\t' '{ sub(/^[a-z]+\./, "", $1); sub(/\.kBps$/, "", $1); print $1 }' "$RAW/iozone.stats" | sort -u | wc -l)
  record iozone "$CUR_TRIAL" cells "$cells" count
  if [ "$threads" -gt 0 ]; then
    tfiles=()
    for ((n = 0; n < threads; n++)); do tfiles+=("$MICRO_DIR/iozone.t$n.tmp"); done
    micro_flush
    real_iozone tput -t "$threads" -s $((tsize / 1024))k -r $((trec / 1024))k -F "${tfiles[@]}"
    rm -f "${tfiles[@]}"
    record iozone "$CUR_TRIAL" threads "$threads" count
  fi
  rm -f "$data"
  run_into "$RAW/report.csv" iozone-csv "$HARNESS/fio2records" --iozone-csv "$RAW"
  phase_end iozone
  harness_say "$cells cells (IOzone ${version:-unknown})"
  exit 0
fi

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
