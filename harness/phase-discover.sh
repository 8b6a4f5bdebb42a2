#!/bin/sh
# harness/phase-discover.sh: bin/fsdisco in TARGET/micro/discover/: the block
# size, direct block pointers, read-ahead extent and page cache available to
# one file, discovered by timing single system calls, each beside what the
# system states.  Records, phase "discover": clock_res_ns clock_step_ns
# syscall_ns block_B block_ratio block_truth_B block_agree direct_pointers
# direct_spike_us direct_median_us direct_truth direct_agree readahead_kB
# readahead_truth_kB readahead_agree cache_MB cache_whole_file cache_truth_MB
# cache_agree (agree: 1 yes, 0 no, -1 not comparable).  The per-offset
# latencies (offset, min, median, each iteration) go to
# results/.../raw/discover-<trial>/<test>.tsv for plots.
#
# Environment (see README, "Micro-benchmarks"):
#   TARGET ALLOW_NONMOUNT RUN_ID RESULTS HOST VARIANT   as for every phase
#   DISCOVER_TESTS="block pointers readahead cache"   DISCOVER_ITERS=5
#   DISCOVER_CACHE_SIZE   the cache test's file (default: RAM)
#   DISCOVER_FLUSH        drop (default; harness/flush.sh drop when present,
#                         needs root), fadvise (only the test file), none
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=harness/micro-lib.sh
. "$SHOOTOUT_ROOT/harness/micro-lib.sh"

case ${BIN:-bin} in
  /*) fsdisco=$BIN/fsdisco ;;
  *) fsdisco=$SHOOTOUT_ROOT/${BIN:-bin}/fsdisco ;;
esac
[ -x "$fsdisco" ] || die "no $fsdisco (run make)"
tests=${DISCOVER_TESTS:-block pointers readahead cache}
iters=${DISCOVER_ITERS:-5}
flush=${DISCOVER_FLUSH:-drop}
case $flush in drop | fadvise | none) ;; *) die "DISCOVER_FLUSH: drop, fadvise or none, got $flush" ;; esac
if [ "$flush" = drop ] && [ "$(id -u)" -ne 0 ]; then
  die "dropping the page cache between iterations needs root (or DISCOVER_FLUSH=fadvise)"
fi

micro_begin discover
trial=$(next_trial discover)
raw=$(run_dir)/raw/discover-$trial
mkdir -p "$raw"
set -- -i "$iters" --out "$raw" --stats "$raw/stats.tsv"
if [ "$flush" = drop ] && [ -x "$SHOOTOUT_ROOT/harness/flush.sh" ]; then
  set -- "$@" --flush-cmd "TARGET='$TARGET' '$SHOOTOUT_ROOT/harness/flush.sh' drop"
else
  set -- "$@" --flush "$flush"
fi
[ -z "${DISCOVER_CACHE_SIZE:-}" ] || set -- "$@" -s "$DISCOVER_CACHE_SIZE"
rc=0
# shellcheck disable=SC2086 # one argument a test
"$fsdisco" "$@" $tests "$MICRO_DIR" >"$raw/report.txt" || rc=$?
cat "$raw/report.txt"
[ ! -s "$raw/stats.tsv" ] || record_stats discover "$trial" "$raw/stats.tsv"
[ "$rc" -eq 0 ] || die "fsdisco failed (exit $rc); the tests it finished are recorded"
