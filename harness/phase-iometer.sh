#!/bin/sh
# harness/phase-iometer.sh: Iometer access specifications run with fio.
#
# Every .icf file of ICF (default: the four standard workloads of
# datasets/iometer/) is translated by harness/icf2fio into one fio job a test
# (access specification x outstanding I/Os) against one test file in
# TARGET/micro/iometer/, run with --output-format=json, and recorded as phase
# "iometer": <spec>.qd<N>.{iops,read_iops,write_iops,mbps,lat_*_ms,errors}.
#
# Environment (see README, "Micro-benchmarks"):
#   TARGET ALLOW_NONMOUNT RUN_ID RESULTS HOST VARIANT   as for every phase
#   ICF             .icf file(s), space-separated (default: the standard four)
#   ICF_RUNTIME     seconds a test, instead of the file's run time
#   ICF_RAMP        ramp-up seconds, instead of the file's
#   ICF_STRICT=1    refuse files with parts we cannot run
#   IOMETER_SIZE    test file size (default: with O_DIRECT 4g, or the file's "Disk
#                   maximum size" when smaller; buffered: 2x RAM + 64m)
#   IOMETER_DIRECT  0 or 1 to force buffered or O_DIRECT (default: probe)
#   IOMETER_ENGINE  fio engine (default: io_uring, else libaio, else psync)
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=harness/micro-lib.sh
. "$SHOOTOUT_ROOT/harness/micro-lib.sh"

command -v fio >/dev/null || die "fio is not installed (make deps)"
ICF=${ICF:-"$SHOOTOUT_ROOT/datasets/iometer/fileserver.icf $SHOOTOUT_ROOT/datasets/iometer/webserver.icf $SHOOTOUT_ROOT/datasets/iometer/workstation.icf $SHOOTOUT_ROOT/datasets/iometer/oltp8k.icf"}
for f in $ICF; do
  [ -r "$f" ] || die "ICF file $f is not readable"
  # Parse everything before touching TARGET: a bad file fails fast.
  "$SHOOTOUT_ROOT/harness/icf2fio" --check ${ICF_STRICT:+--strict} "$f" >/dev/null ||
    die "cannot run $f (see above)"
done

micro_begin iometer
data=$MICRO_DIR/iometer.dat

direct=${IOMETER_DIRECT:-}
if [ -z "$direct" ]; then
  if direct_ok "$MICRO_DIR"; then direct=1; else direct=0; fi
fi
icf_size=
if [ -n "${IOMETER_SIZE:-}" ]; then
  size=$(to_bytes "$IOMETER_SIZE")
elif [ "$direct" = 1 ]; then
  size=$((4 << 30))
  icf_size=--icf-size
else
  size=$(($(mem_bytes) * 2 + (64 << 20)))
fi
avail=$(free_bytes "$MICRO_DIR")
[ "$size" -lt "$avail" ] ||
  die "test file of $size bytes does not fit in $TARGET ($avail bytes free); set IOMETER_SIZE"

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
  [ -n "$engine" ] || die "fio cannot do I/O in $MICRO_DIR with io_uring, libaio or psync"
fi
[ "$engine" != psync ] ||
  printf '%s: engine psync is synchronous: outstanding I/Os above 1 are not kept\n' "$(basename "$0")" >&2

trial=$(next_trial iometer)
raw=$(run_dir)/raw/iometer-$trial
mkdir -p "$raw"
record iometer "$trial" size_bytes "$size" B
record iometer "$trial" direct "$direct" bool
printf '%s: %s bytes, direct=%s, engine %s, trial %s\n' "$(basename "$0")" "$size" "$direct" "$engine" "$trial" >&2

unsupported=0
for f in $ICF; do
  jobs=$raw/$(basename "$f" .icf)
  "$SHOOTOUT_ROOT/harness/icf2fio" --emit "$jobs" --file "$data" --size "$size" $icf_size --direct "$direct" \
    --engine "$engine" ${ICF_RUNTIME:+--runtime "$ICF_RUNTIME"} ${ICF_RAMP:+--ramp "$ICF_RAMP"} \
    "$f" 2>"$jobs.notes" >&2 || { cat "$jobs.notes" >&2; die "icf2fio failed on $f"; }
  cat "$jobs.notes" >&2
  unsupported=$((unsupported + $(grep -c 'note: unsupported' "$jobs.notes" || true)))
  tail -n +2 "$jobs/plan.tsv" | while IFS="$(printf '\t')" read -r job prefix _ _ _; do
    micro_flush
    printf '%s: %s\n' "$(basename "$0")" "$prefix" >&2
    fio --output-format=json --output="$jobs/${job%.fio}.json" "$jobs/$job" >/dev/null ||
      die "fio failed on $jobs/$job"
    "$SHOOTOUT_ROOT/harness/fio2records" "$jobs/${job%.fio}.json" "$prefix" >"$jobs/${job%.fio}.stats"
    record_stats iometer "$trial" "$jobs/${job%.fio}.stats"
  done
done
record iometer "$trial" unsupported "$unsupported" count
rm -f "$data"
