#!/usr/bin/env bash
# harness/phase-postmark.sh: PostMark (Debian's postmark, the real program) in
# TARGET/micro/postmark/, with the published configurations 1,000 files /
# 50,000 transactions, 20,000 / 50,000 and 20,000 / 100,000, everything else
# at PostMark's defaults (500 B to 9.77 KB, seed 42, biases 5, 512 B blocks,
# buffered I/O).  Records, phase "postmark": n<FILES>.t<TRANS>.<metric> (see
# harness/postmark2records -h), plus .wall_s timed by us (PostMark's own clock
# counts whole seconds).  PostMark's output is line-buffered (stdbuf) and each
# line stamped with the time it came: the steps' times and tps_wall, the
# transactions' rate, from our clock beside PostMark's whole-second ones.
#
# Environment (see docs/micro.md):
#   TARGET ALLOW_NONMOUNT FLUSH RUN_ID RESULTS HOST VARIANT   as for every phase
#   POSTMARK_CONFIGS       "FILES/TRANSACTIONS ..." (default the published three)
#   POSTMARK_FILES, POSTMARK_TRANSACTIONS   run only FILES/TRANSACTIONS
#                          (the one not given takes PostMark's default, 500)
#   POSTMARK_PROCS=N       N instances at once, each in its own subdirectory:
#                          records of each (.p1. ...) and of all (summed)
#   POSTMARK_SEED=42 POSTMARK_SIZE="500 10000" POSTMARK_BUFFERING=true
#   POSTMARK_BLOCK=512     read and write block size (set read, set write);
#   POSTMARK_READ, POSTMARK_WRITE   each on its own
#   POSTMARK_BIAS_READ=5   read/append mix of the transactions (set bias
#                          read: 0-10, 10 = reads only; -1 = reads and
#                          appends off)
#   POSTMARK_BIAS_CREATE=5 create/delete mix (set bias create, likewise)
#   POSTMARK_SUBDIRS=0     subdirectories the files are spread over (set
#                          subdirectories; 0: none, PostMark's default)
set -eu
SHOOTOUT_ROOT=${SHOOTOUT_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=SCRIPTDIR/lib.sh
. "$SHOOTOUT_ROOT/harness/lib.sh"
# shellcheck source=SCRIPTDIR/common.sh
. "$SHOOTOUT_ROOT/harness/common.sh"
# shellcheck source=SCRIPTDIR/micro-lib.sh
. "$SHOOTOUT_ROOT/harness/micro-lib.sh"

micro_begin postmark
command -v postmark >/dev/null || harness_die "postmark is not installed (make deps)"
command -v stdbuf >/dev/null || harness_die "stdbuf is missing (coreutils): it keeps PostMark's lines timed as they come"
configs=${POSTMARK_CONFIGS:-"1000/50000 20000/50000 20000/100000"}
if [ -n "${POSTMARK_FILES:-}${POSTMARK_TRANSACTIONS:-}" ]; then
  configs=${POSTMARK_FILES:-500}/${POSTMARK_TRANSACTIONS:-500}
fi
procs=${POSTMARK_PROCS:-1}
seed=${POSTMARK_SEED:-42}
block=${POSTMARK_BLOCK:-512}
rblock=${POSTMARK_READ:-$block}
wblock=${POSTMARK_WRITE:-$block}
bread=${POSTMARK_BIAS_READ:-5}
bcreate=${POSTMARK_BIAS_CREATE:-5}
buffering=${POSTMARK_BUFFERING:-true}
subdirs=${POSTMARK_SUBDIRS:-0}
sizes=${POSTMARK_SIZE:-"500 10000"}
isnum() { case $1 in '' | *[!0-9]*) return 1 ;; esac; }
for c in $configs; do
  if ! isnum "${c%/*}" || ! isnum "${c#*/}" || [ "${c%/*}" -le 1 ] || [ "${c#*/}" -le 1 ]; then
    harness_die "POSTMARK_CONFIGS: want FILES/TRANSACTIONS above 1, got $c"
  fi
done
for v in "$procs" "$seed" "$rblock" "$wblock" "$subdirs" $sizes; do isnum "$v" || harness_die "not a whole number: $v"; done
[ "$procs" -ge 1 ] || harness_die "POSTMARK_PROCS must be 1 or more"

for c in $configs; do
  files=${c%/*} trans=${c#*/}
  prefix=n$files.t$trans
  for ((i = 1; i <= procs; i++)); do
    mkdir -p "$MICRO_DIR/p$i"
    {
      printf 'set location %s\n' "$MICRO_DIR/p$i"
      printf 'set number %s\nset transactions %s\nset size %s\n' "$files" "$trans" "$sizes"
      [ "$subdirs" -eq 0 ] || printf 'set subdirectories %s\n' "$subdirs"
      printf 'set seed %s\nset read %s\nset write %s\nset buffering %s\n' "$seed" "$rblock" "$wblock" "$buffering"
      printf 'set bias read %s\nset bias create %s\nset report verbose\nshow\nrun\nquit\n' "$bread" "$bcreate"
    } >"$RAW/$prefix.p$i.cfg"
  done
  micro_flush
  harness_say "$files files, $trans transactions, $procs instance(s)"
  t0=$(time_now)
  pids=()
  for ((i = 1; i <= procs; i++)); do
    # PostMark reads the commands of a file named on its command line.  Its
    # lines, each with the time it came (postmark2records -h): PostMark
    # prints "Performing transactions...Done" as they end.
    # shellcheck disable=SC2016 # the inner shell's arguments
    proc_start pid bash -c 'cd "$1" || exit 1
      set -o pipefail
      stdbuf -oL postmark "$2" 2>&1 | while IFS= read -r l || [ -n "$l" ]; do
        printf "%s\t%s\n" "$EPOCHREALTIME" "$l"
      done >"$3"' postmark "$MICRO_DIR/p$i" "$RAW/$prefix.p$i.cfg" "$RAW/$prefix.p$i.out"
    pids+=("$pid")
  done
  failed=0
  for p in "${pids[@]}"; do wait "$p" || failed=1; done
  wall=$(time_since "$t0")
  GROUPS_RUNNING=()
  [ "$failed" = 0 ] || harness_die "postmark failed: $(tail -n 1 "$RAW/$prefix.p1.out" | cut -f 2-) (see $RAW/$prefix.p*.out)"
  run_into "$RAW/$prefix.stats" postmark2records "$HARNESS/postmark2records" -t "$trans" "$prefix" "$RAW/$prefix".p*.out
  printf '%s.wall_s\t%s\ts\n' "$prefix" "$wall" >>"$RAW/$prefix.stats"
  record_stats postmark "$CUR_TRIAL" "$RAW/$prefix.stats"
done
record postmark "$CUR_TRIAL" bias_read "$bread" count
record postmark "$CUR_TRIAL" bias_create "$bcreate" count
record postmark "$CUR_TRIAL" read_block_B "$rblock" B
record postmark "$CUR_TRIAL" write_block_B "$wblock" B
record postmark "$CUR_TRIAL" subdirs "$subdirs" count
phase_end postmark
