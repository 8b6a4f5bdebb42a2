#!/usr/bin/env bash
# harness/phase-iometer.sh: Iometer access specifications run with fio.
#
# Every .icf file of ICF (default: the four standard workloads of
# datasets/iometer/) is translated by harness/icf2fio into one fio job a test
# (access specification x outstanding I/Os) against one test file in
# TARGET/micro/iometer/, run with --output-format=json, and recorded as phase
# "iometer": <spec>.qd<N>.{iops,mbps,lat_*_ms,errors,cpu_pct} and their
# read_ and write_ parts (fio2records -h); cpu_pct is Iometer's CPU
# utilisation: the busy share of every CPU of the host (os_cpu) while that
# test ran.  Beside the raw fio files of each .icf file, Iometer's results
# file: raw/iometer-<trial>/<icf>/results.csv (harness/iometer2csv), and
# icf2fio's notes (<icf>.notes: what is not run, or run differently, as
# counted by the records unsupported and approximated).
#
# Environment (see docs/micro.md):
#   TARGET ALLOW_NONMOUNT FLUSH RUN_ID RESULTS HOST VARIANT   as for every phase
#   ICF             .icf file(s), space-separated (default: the standard four)
#   ICF_RUNTIME     seconds a test, instead of the file's run time
#   ICF_RAMP        ramp-up seconds, instead of the file's
#   ICF_STRICT=1    refuse files with parts we cannot run
#   IOMETER_SIZE    test file size (default: with O_DIRECT 4g, or the file's "Disk
#                   maximum size" when smaller; buffered: 2x RAM + 64m)
#   IOMETER_DIRECT  0 or 1 to force buffered or O_DIRECT (default: probe)
#   IOMETER_ENGINE  fio engine (default: io_uring, else libaio, else psync)
set -eu
SHOOTOUT_ROOT=${SHOOTOUT_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=SCRIPTDIR/lib.sh
. "$SHOOTOUT_ROOT/harness/lib.sh"
# shellcheck source=SCRIPTDIR/common.sh
. "$SHOOTOUT_ROOT/harness/common.sh"
# shellcheck source=SCRIPTDIR/micro-lib.sh
. "$SHOOTOUT_ROOT/harness/micro-lib.sh"

ICF=${ICF:-"$SHOOTOUT_ROOT/datasets/iometer/fileserver.icf $SHOOTOUT_ROOT/datasets/iometer/webserver.icf $SHOOTOUT_ROOT/datasets/iometer/workstation.icf $SHOOTOUT_ROOT/datasets/iometer/oltp8k.icf"}
strict=()
[ "${ICF_STRICT:-}" != 1 ] || strict=(--strict)
for f in $ICF; do
  [ -r "$f" ] || phase_refuse "ICF file $f is not readable"
  # Parse everything before the phase starts: a bad file is refused (exit
  # 2, nothing written), its notes and icf2fio's line said first.
  if ! err=$("$HARNESS/icf2fio" --check "${strict[@]}" "$f" 2>&1 >/dev/null); then
    printf '%s\n' "$err" | sed '$d' >&2
    phase_refuse "cannot run $f: $(printf '%s\n' "$err" | tail -n 1)"
  fi
done
# The test file must fit in TARGET: refused before the phase starts (exit
# 2, nothing written) when even the smaller of its default sizes does not
# (O_DIRECT's 4 GiB, buffered 2x RAM + 64 MiB: which one, the probe below
# decides), as on a small TARGET.
target_guard || harness_die "$TARGET_REFUSAL"
case ${IOMETER_SIZE:+set}${IOMETER_DIRECT:-} in
  set*) least=$(to_bytes "$IOMETER_SIZE") why="IOMETER_SIZE=$IOMETER_SIZE" ;;
  1) least=$((4 << 30)) why="IOMETER_DIRECT=1: 4 GiB" ;;
  0) least=$(($(mem_bytes) * 2 + (64 << 20))) why="IOMETER_DIRECT=0: 2x RAM + 64 MiB" ;;
  *)
    least=$(($(mem_bytes) * 2 + (64 << 20)))
    [ "$least" -lt $((4 << 30)) ] || least=$((4 << 30))
    why="at least $((least >> 20)) MiB (4 GiB with O_DIRECT, else 2x RAM + 64 MiB)"
    ;;
esac
avail=$(free_bytes "$TARGET")
[ "$least" -lt "$avail" ] ||
  phase_refuse "the test file ($why) does not fit in TARGET=$TARGET ($((avail >> 20)) MiB free): set IOMETER_SIZE below that"

micro_begin iometer
command -v fio >/dev/null || harness_die "fio is not installed (make deps)"
data=$MICRO_DIR/iometer.dat

direct=${IOMETER_DIRECT:-}
if [ -z "$direct" ]; then
  if os_direct_ok "$MICRO_DIR"; then direct=1; else direct=0; fi
fi
icf_size=()
if [ -n "${IOMETER_SIZE:-}" ]; then
  size=$(to_bytes "$IOMETER_SIZE")
elif [ "$direct" = 1 ]; then
  size=$((4 << 30))
  icf_size=(--icf-size)
else
  size=$(($(mem_bytes) * 2 + (64 << 20)))
fi
avail=$(free_bytes "$MICRO_DIR")
[ "$size" -lt "$avail" ] ||
  harness_die "test file of $size bytes does not fit in $TARGET ($avail bytes free); set IOMETER_SIZE"

engine=${IOMETER_ENGINE:-}
if [ -z "$engine" ]; then
  for e in io_uring libaio psync; do
    if fio --name=probe --filename="$MICRO_DIR/.engine-probe" --size=64k --bs=4k --rw=read \
      --ioengine="$e" --direct="$direct" --output=/dev/null >/dev/null 2>&1; then
      engine=$e
      break
    fi
  done
  rm -f "$MICRO_DIR/.engine-probe"
  [ -n "$engine" ] || harness_die "fio cannot do I/O in $MICRO_DIR with io_uring, libaio or psync"
fi
[ "$engine" != psync ] ||
  printf 'iometer: engine psync is synchronous: outstanding I/Os above 1 are not kept\n' >&2

record iometer "$CUR_TRIAL" size_bytes "$size" B
record iometer "$CUR_TRIAL" direct "$direct" bool
harness_say "$size bytes, direct=$direct, engine $engine"

unsupported=0 approximated=0
for f in $ICF; do
  jobs=$RAW/$(basename "$f" .icf)
  proc_run icf2fio "$HARNESS/icf2fio" --emit "$jobs" --file "$data" --size "$size" "${icf_size[@]}" \
    --direct "$direct" --engine "$engine" ${ICF_RUNTIME:+--runtime "$ICF_RUNTIME"} ${ICF_RAMP:+--ramp "$ICF_RAMP"} "$f"
  cp "$WORK/icf2fio.err" "$jobs.notes"
  cat "$jobs.notes" >&2
  unsupported=$((unsupported + $(grep -c 'note: unsupported' "$jobs.notes" || true)))
  approximated=$((approximated + $(grep -c 'note: approximated' "$jobs.notes" || true)))
  while IFS=$'\t' read -r job prefix _; do
    micro_flush
    harness_say "$prefix"
    c0=$(cpu_sample)
    proc_run fio fio --output-format=json --output="$jobs/${job%.fio}.json" "$jobs/$job"
    c1=$(cpu_sample)
    run_into "$jobs/${job%.fio}.stats" fio2records "$HARNESS/fio2records" "$jobs/${job%.fio}.json" "$prefix"
    [ -z "$c0" ] || [ -z "$c1" ] ||
      printf '%s.cpu_pct\t%s\t%%\n' "$prefix" "$(cpu_pct "$c0" "$c1")" >>"$jobs/${job%.fio}.stats"
    record_stats iometer "$CUR_TRIAL" "$jobs/${job%.fio}.stats"
  done < <(tail -n +2 "$jobs/plan.tsv")
  run_into "$jobs/results.csv" iometer2csv "$HARNESS/iometer2csv" "$jobs/plan.tsv"
done
record iometer "$CUR_TRIAL" unsupported "$unsupported" count
record iometer "$CUR_TRIAL" approximated "$approximated" count
rm -f "$data"
phase_end iometer
