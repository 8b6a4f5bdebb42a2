#!/bin/sh
# harness/phase-postmark.sh: PostMark (Debian's postmark, the real program) in
# TARGET/micro/postmark/, with the published configurations 1,000 files /
# 50,000 transactions, 20,000 / 50,000 and 20,000 / 100,000, everything else
# at PostMark's defaults (500 B to 9.77 KB, seed 42, biases 5, 512 B blocks,
# buffered I/O).  Records, phase "postmark": n<FILES>.t<TRANS>.<metric> (see
# harness/postmark2records -h), plus .wall_s timed by us (PostMark's own clock
# counts whole seconds).
#
# Environment (see README, "Micro-benchmarks"):
#   TARGET ALLOW_NONMOUNT RUN_ID RESULTS HOST VARIANT   as for every phase
#   POSTMARK_CONFIGS       "FILES/TRANSACTIONS ..." (default the published three)
#   POSTMARK_FILES, POSTMARK_TRANSACTIONS   run only FILES/TRANSACTIONS
#                          (the one not given takes PostMark's default, 500)
#   POSTMARK_PROCS=N       N instances at once, each in its own subdirectory:
#                          records of each (.p1. ...) and of all (summed)
#   POSTMARK_SEED=42 POSTMARK_SIZE="500 10000" POSTMARK_BLOCK=512 POSTMARK_BUFFERING=true
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=harness/micro-lib.sh
. "$SHOOTOUT_ROOT/harness/micro-lib.sh"

command -v postmark >/dev/null || die "postmark is not installed (make deps)"
configs=${POSTMARK_CONFIGS:-"1000/50000 20000/50000 20000/100000"}
if [ -n "${POSTMARK_FILES:-}${POSTMARK_TRANSACTIONS:-}" ]; then
  configs=${POSTMARK_FILES:-500}/${POSTMARK_TRANSACTIONS:-500}
fi
procs=${POSTMARK_PROCS:-1}
seed=${POSTMARK_SEED:-42}
block=${POSTMARK_BLOCK:-512}
buffering=${POSTMARK_BUFFERING:-true}
sizes=${POSTMARK_SIZE:-"500 10000"}
isnum() { case $1 in '' | *[!0-9]*) return 1 ;; esac; }
for c in $configs; do
  if ! isnum "${c%/*}" || ! isnum "${c#*/}" || [ "${c%/*}" -le 1 ] || [ "${c#*/}" -le 1 ]; then
    die "POSTMARK_CONFIGS: want FILES/TRANSACTIONS above 1, got $c"
  fi
done
for v in "$procs" "$seed" "$block" $sizes; do isnum "$v" || die "not a whole number: $v"; done
[ "$procs" -ge 1 ] || die "POSTMARK_PROCS must be 1 or more"
case $buffering in true | false) ;; *) die "POSTMARK_BUFFERING: true or false, got $buffering" ;; esac

micro_begin postmark
trial=$(next_trial postmark)
raw=$(run_dir)/raw/postmark-$trial
mkdir -p "$raw"

for c in $configs; do
  files=${c%/*} trans=${c#*/}
  prefix=n$files.t$trans
  i=1
  while [ "$i" -le "$procs" ]; do
    mkdir -p "$MICRO_DIR/p$i"
    {
      printf 'set location %s\n' "$MICRO_DIR/p$i"
      printf 'set number %s\nset transactions %s\nset size %s\n' "$files" "$trans" "$sizes"
      printf 'set seed %s\nset read %s\nset write %s\nset buffering %s\n' "$seed" "$block" "$block" "$buffering"
      printf 'set bias read 5\nset bias create 5\nset report verbose\nshow\nrun\nquit\n'
    } >"$raw/$prefix.p$i.cfg"
    i=$((i + 1))
  done
  micro_flush
  printf '%s: %s files, %s transactions, %s instance(s)\n' "$(basename "$0")" "$files" "$trans" "$procs" >&2
  t0=$(os_now)
  pids=
  i=1
  while [ "$i" -le "$procs" ]; do
    # PostMark reads the commands of a file named on its command line.
    (cd "$MICRO_DIR/p$i" && exec postmark "$raw/$prefix.p$i.cfg") >"$raw/$prefix.p$i.out" 2>&1 &
    pids="$pids $!"
    i=$((i + 1))
  done
  failed=0
  for p in $pids; do wait "$p" || failed=1; done
  t1=$(os_now)
  [ "$failed" = 0 ] || die "postmark failed (see $raw/$prefix.p*.out)"
  reports=
  i=1
  while [ "$i" -le "$procs" ]; do
    reports="$reports $raw/$prefix.p$i.out"
    i=$((i + 1))
  done
  # shellcheck disable=SC2086 # one argument a report
  "$SHOOTOUT_ROOT/harness/postmark2records" "$prefix" $reports >"$raw/$prefix.stats"
  awk -v t0="$t0" -v t1="$t1" -v p="$prefix" 'BEGIN { printf "%s.wall_s\t%.3f\ts\n", p, t1 - t0 }' >>"$raw/$prefix.stats"
  record_stats postmark "$trial" "$raw/$prefix.stats"
done
