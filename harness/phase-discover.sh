#!/usr/bin/env bash
# harness/phase-discover.sh: bin/fsdisco in TARGET/micro/discover/: the block
# size, direct block pointers, read-ahead extent and page cache available to
# one file, discovered by timing single system calls, each beside what the
# system states.  Records, phase "discover": clock_res_ns clock_step_ns
# syscall_ns block_B block_ratio block_truth_B block_agree direct_pointers
# direct_spike_us direct_median_us direct_truth direct_agree readahead_kB
# readahead_truth_kB readahead_agree cache_MB cache_whole_file cache_truth_MB
# cache_agree (agree: 1 yes, 0 no, -1 not comparable), flush_method; with
# DISCOVER_PRIME, prime<K>k.readahead_kB (and _truth_kB, _agree) for each
# priming size.  The per-offset latencies (offset, min, median, each
# iteration) go to results/.../raw/discover-<trial>/<test>.tsv for plots.
#
# Environment (see docs/micro.md):
#   TARGET ALLOW_NONMOUNT FLUSH RUN_ID RESULTS HOST VARIANT   as for every phase
#   DISCOVER_TESTS="block pointers readahead cache"   DISCOVER_ITERS=5
#   DISCOVER_CACHE_SIZE   the cache test's file (default: RAM).  A RAM-sized
#                         file that does not fit in TARGET skips the cache
#                         test (cache_skipped 1 bool, cache_skip_reason TEXT
#                         text; the phase stays valid); a DISCOVER_CACHE_SIZE
#                         that does not fit is refused before the phase starts
#   DISCOVER_FLUSH        how fsdisco empties the cache between iterations:
#                         drop (harness/flush.sh drop, root), remount
#                         (harness/flush.sh remount, root, a mount point
#                         that is not tmpfs: the fsdisco paper's method),
#                         fadvise (only the test file), none; default: drop
#                         when FLUSH drops (or reboots, remounts, primes)
#                         and we are root, fadvise otherwise (said on stderr)
#   DISCOVER_PRIME="512k 1m 4m"  the priming-size sweep: the readahead test
#                         again after an initial read of each size (-I)
#   DISCOVER_PRIME_SERIES="2m 4k 256"  START STEP COUNT: the paper's
#                         decrementing series, COUNT sizes from START down
#                         by STEP (after DISCOVER_PRIME's sizes)
set -eu
SHOOTOUT_ROOT=${SHOOTOUT_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=SCRIPTDIR/lib.sh
. "$SHOOTOUT_ROOT/harness/lib.sh"
# shellcheck source=SCRIPTDIR/common.sh
. "$SHOOTOUT_ROOT/harness/common.sh"
# shellcheck source=SCRIPTDIR/micro-lib.sh
. "$SHOOTOUT_ROOT/harness/micro-lib.sh"

tests=${DISCOVER_TESTS:-block pointers readahead cache}
iters=${DISCOVER_ITERS:-5}
# A cache test file of DISCOVER_CACHE_SIZE must fit in TARGET with a
# sixteenth to spare (fsdisco's rule, its 1 MiB reads a whole number):
# refused before the phase starts, nothing written.
case " $tests " in *" cache "* | *" all "*)
  if [ -n "${DISCOVER_CACHE_SIZE:-}" ]; then
    target_guard || harness_die "$TARGET_REFUSAL"
    want=$(($(to_bytes "$DISCOVER_CACHE_SIZE") / 1048576 * 1048576))
    avail=$(free_bytes "$TARGET")
    [ "$avail" -ge $((want + want / 16)) ] ||
      settings_refuse "DISCOVER_CACHE_SIZE=$DISCOVER_CACHE_SIZE: the cache test's file does not fit in TARGET=$TARGET ($((avail / 1048576)) MiB free): lower DISCOVER_CACHE_SIZE"
  fi
  ;;
esac

# A remount between iterations needs a mount point that keeps its data.
if [ "${DISCOVER_FLUSH:-}" = remount ]; then
  target_guard || harness_die "$TARGET_REFUSAL"
  os_is_mountpoint "$TARGET" ||
    settings_refuse "DISCOVER_FLUSH=remount needs TARGET=$TARGET to be a mount point: use DISCOVER_FLUSH=drop"
  IFS=$'\t' read -r _ fstype _ < <(os_mount_of "$TARGET")
  case $fstype in tmpfs | ramfs)
    settings_refuse "DISCOVER_FLUSH=remount on $fstype would throw the test file away: use DISCOVER_FLUSH=drop" ;;
  esac
fi
# The paper's decrementing series of priming sizes: START STEP COUNT, whole
# pages (fsdisco reads pages), START - (COUNT - 1) * STEP still above 0.
series=()
if [ -n "${DISCOVER_PRIME_SERIES:-}" ]; then
  read -r -a w <<<"$DISCOVER_PRIME_SERIES"
  want="want START STEP COUNT in whole pages, like \"2m 4k 256\" (the paper's: 2 MiB down by 4 KiB, 256 sizes)"
  [ "${#w[@]}" -eq 3 ] || settings_refuse "DISCOVER_PRIME_SERIES=$DISCOVER_PRIME_SERIES: $want"
  start=$(to_bytes "${w[0]}") step=$(to_bytes "${w[1]}") count=$(to_bytes "${w[2]}")
  if [ $((start % 4096)) -ne 0 ] || [ $((step % 4096)) -ne 0 ] || [ "$step" -eq 0 ] || [ "$count" -eq 0 ] ||
    [ $((start - (count - 1) * step)) -le 0 ]; then
    settings_refuse "DISCOVER_PRIME_SERIES=$DISCOVER_PRIME_SERIES: $want, the last size above 0"
  fi
  for ((k = 0; k < count; k++)); do series+=($((start - k * step))); done
fi

micro_begin discover
proc_need fsdisco
flush=${DISCOVER_FLUSH:-}
if [ -z "$flush" ]; then
  case $MICRO_FLUSH in
    none) flush=fadvise ;;
    *) flush=drop ;;
  esac
fi
if { [ "$flush" = drop ] || [ "$flush" = remount ]; } && [ "$(id -u)" -ne 0 ]; then
  printf 'discover: DISCOVER_FLUSH=%s needs root: going on with fadvise (only the test file leaves the cache)\n' "$flush" >&2
  flush=fadvise
fi
record discover "$CUR_TRIAL" discover_flush "$flush" text
prime=()
for p in ${DISCOVER_PRIME:-}; do prime+=("$(to_bytes "$p")"); done
prime+=("${series[@]}")
[ ${#series[@]} -eq 0 ] || record discover "$CUR_TRIAL" prime_series "${#series[@]}" count

# drop, remount: harness/flush.sh run by fsdisco as a program (no shell),
# with TARGET and ALLOW_NONMOUNT in its environment (target_check exported
# them); fsdisco closes its test file while it runs.
flush_opts=(--flush "$flush")
case $flush in drop | remount) flush_opts=(--flush-cmd "$HARNESS/flush.sh" --flush-arg "$flush") ;; esac
set -- -i "$iters" --out "$RAW" --stats "$RAW/stats.tsv" "${flush_opts[@]}"
[ -z "${DISCOVER_CACHE_SIZE:-}" ] || set -- "$@" -s "$DISCOVER_CACHE_SIZE"
# fsdisco exits 1 when a test failed: the others are still recorded.
# shellcheck disable=SC2086 # one argument a test (settings_check: words of the list)
TOOL_OK=1 proc_run fsdisco "$HARNESS_BIN/fsdisco" "$@" $tests "$MICRO_DIR"
rc=$TOOL_RC
[ ! -s "$RAW/stats.tsv" ] || record_stats discover "$CUR_TRIAL" "$RAW/stats.tsv"
if [ "$(stat_value "$RAW/stats.tsv" cache_skipped 2>/dev/null)" = 1 ]; then
  why="a RAM-sized file of $(stat_value "$RAW/stats.tsv" cache_file_MB) MiB does not fit in the $(stat_value "$RAW/stats.tsv" cache_free_MB) MiB free in TARGET: set DISCOVER_CACHE_SIZE below that to run it"
  record discover "$CUR_TRIAL" cache_skip_reason "$why" text
  printf 'discover: cache test skipped: %s\n' "$why" >&2
fi
for p in "${prime[@]}"; do
  k=prime$((p / 1024))k
  set -- -i "$iters" -I "$p" --out "$RAW/$k" --stats "$RAW/$k.tsv" "${flush_opts[@]}"
  mkdir -p "$RAW/$k"
  TOOL_OK=1 proc_run fsdisco "$HARNESS_BIN/fsdisco" "$@" readahead "$MICRO_DIR"
  [ "$TOOL_RC" -eq 0 ] || rc=$TOOL_RC
  awk -F '\t' -v p="$k." '$1 ~ /^readahead/ { print p $0 }' "$RAW/$k.tsv" >"$RAW/$k.stats"
  record_stats discover "$CUR_TRIAL" "$RAW/$k.stats"
done
[ "$rc" -eq 0 ] || harness_die "fsdisco failed (exit $rc, see $PHASE_LOG); the tests it finished are recorded"
phase_end discover
