#!/usr/bin/env bats
# Figures measured long enough, repeated until precise within a budget, and
# a busy machine seen (docs/harness.md#precision): the steady window of
# warm replays and the net test (MIN_MEASURE_S), the stopping rule and its
# caps (PRECISION, PRECISION_MAX_TRIALS, PRECISION_MAX_S), the disturbed
# flag (DISTURBED_PCT), the extra cycles of untar, untar2 and delete, and
# the measured share of a run.  On tmpfs with the tiny dataset (root: a
# mount); the tiny settings keep each test to seconds.
# shellcheck disable=SC2030,SC2031 # d: each test's own, set by net or the_run
load helpers

setup() {
  T=$BATS_TEST_TMPDIR
  export RESULTS=$T/results HOST=testhost VARIANT=v1 SHOOTOUT_ROOT=$ROOT HARNESS_BIN=$BIN
  unset RUN_ID TARGET DATASET SEED SOURCE FLUSH TRIALS PORT TRIAL
  TMPFS='' HOGS=()
}

teardown() {
  local p
  for p in "${HOGS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${HOGS[@]}"; do wait_for_exit "$p" 10 || kill -KILL "$p" 2>/dev/null || true; done
  if pkill -TERM -f -- "$T/" 2>/dev/null; then
    POLL_STEP=0.1 poll_until 5 no_process "$T/" || true
    pkill -KILL -f -- "$T/" 2>/dev/null || true
  fi
  if [ -n "$TMPFS" ] && mountpoint -q "$TMPFS"; then umount "$TMPFS" || umount -l "$TMPFS"; fi
}

need() {
  require_root
  for t in dltar httpd replay rmtree resident mkdataset; do
    [ -x "$BIN/$t" ] || skip "bin/$t not built (make)"
  done
  require_cmd jq python3
  [ -f "$ROOT/plots/stats.py" ] || skip "no plots/stats.py (the stopping rule's statistics)"
  TMPFS=$T/tmpfs
  mkdir -p "$TMPFS"
  mount -t tmpfs -o size=256m tmpfs "$TMPFS"
}

# rec DIR NAME METRIC [TRIAL] : the values of METRIC of record NAME (of TRIAL).
rec() {
  awk -F '\t' -v p="$2" -v m="$3" -v t="${4:-}" '$1 == p && $3 == m && (t == "" || $2 == t) { print $4 }' "$1/records.tsv"
}

the_run() {
  printf '%s/%s/%s/%s\n' "$RESULTS" "$(cat "$RESULTS/.current")" "$HOST" "$VARIANT"
}

# net ARGS... : make phase-net of one server process, a small file, the
# figure never disturbed unless the test says so.
net() {
  run make -C "$ROOT" -s phase-net TARGET="$TMPFS" NET_PROCS=1 NET_SIZE=1000 NET_COUNT=200 \
    DISTURBED_PCT=1000 MIN_MEASURE_S=0 "$@"
  echo "$output"
  [ "$status" -eq 0 ]
  d=$(the_run)
}

@test "precision: a warm replay and the net test run a steady window of MIN_MEASURE_S; the first pass keeps its figures; cold stays one pass" {
  need
  run make -C "$ROOT" -s shootout TARGET="$TMPFS" DATASET=tiny FLUSH=none PHASES="untar untar2 serve net delete" \
    SERVE_MODES=1 NET_PROCS=1 NET_COUNT=300 MIN_MEASURE_S=0.5 PRECISION=0
  echo "$output"
  [ "$status" -eq 0 ]
  d=$(the_run)
  cat "$d/records.tsv" >&2
  # the window: at least MIN_MEASURE_S, within the measured time of the trial
  awk -v s="$(rec "$d" serve-warm-1 steady_s)" 'BEGIN { exit !(s >= 0.5 && s < 10) }'
  awk -v s="$(rec "$d" net-1 steady_s)" 'BEGIN { exit !(s >= 0.5 && s < 10) }'
  awk -v w="$(rec "$d" serve-warm-1 budget_wall_s)" 'BEGIN { exit !(w >= 0.5) }'
  [ "$(rec "$d" serve-warm-1 passes)" -ge 2 ]
  [ "$(rec "$d" serve-warm-1 steady_requests)" -gt 0 ]
  [ -n "$(rec "$d" serve-warm-1 steady_rps)" ]
  [ -n "$(rec "$d" net-1 steady_mbps)" ]
  # the method's first pass: the whole list once (as many requests as the cold
  # replay), its rate that of the first pass alone
  [ "$(rec "$d" serve-warm-1 first_requests)" -eq "$(rec "$d" serve-cold-1 requests)" ]
  [ "$(rec "$d" serve-warm-1 requests)" -gt "$(rec "$d" serve-warm-1 first_requests)" ]
  awk -v r="$(rec "$d" serve-warm-1 rps)" -v w="$(rec "$d" serve-warm-1 wall_s)" -v n="$(rec "$d" serve-warm-1 first_requests)" \
    'BEGIN { x = r * w - n; exit !(x < 1 && x > -1) }'
  [ "$(rec "$d" net-1 first_requests)" -eq 300 ]
  # cold: one pass, never a second over warmed files
  [ -z "$(rec "$d" serve-cold-1 steady_s)" ]
  [ -z "$(rec "$d" serve-cold-1 passes)" ]
  [ "$(rec "$d" serve-cold-1 status)" = 0 ]
}

@test "precision: a figure's trials are the last value of each with status 0, not disturbed; -r gives their rounds (rounds.sh's rule)" {
  local f=$BATS_TEST_TMPDIR/records.tsv
  # 1: a value corrected later; 2: failed; 3: disturbed; 4: in round 3; 5: no round; net-1 another figure
  printf '%s\t%s\t%s\t%s\tx\n' phase trial metric value \
    serve-warm-1 1 round 1 serve-warm-1 1 rps 100 serve-warm-1 1 rps 101 serve-warm-1 1 status 0 \
    serve-warm-1 2 round 2 serve-warm-1 2 rps 50 serve-warm-1 2 status 1 \
    serve-warm-1 3 round 2 serve-warm-1 3 rps 60 serve-warm-1 3 disturbed 1 serve-warm-1 3 status 0 \
    serve-warm-1 4 round 3 serve-warm-1 4 rps 102 serve-warm-1 4 disturbed 0 serve-warm-1 4 status 0 \
    serve-warm-1 5 rps 103 serve-warm-1 5 status 0 net-1 1 round 1 net-1 1 rps 7 net-1 1 status 0 >"$f"
  run bash -c '. "$1/harness/common/precision.sh" && precision_values serve-warm-1 rps "$2" && echo -- &&
    precision_values -r serve-warm-1 rps "$2"' _ "$ROOT" "$f"
  [ "$status" -eq 0 ]
  [ "$output" = "$(printf '101\n102\n103\n--\n1\t101\n3\t102')" ]
}

@test "precision: the stopping rule stops at the trial cap, at the time cap, and when precise; each trial has its own records" {
  need
  # never precise: PRECISION_MAX_TRIALS trials
  net PRECISION=0.0001 PRECISION_MAX_TRIALS=3 PRECISION_MAX_S=600
  [ "$(rec "$d" net-1 status | tr '\n' ' ')" = "0 0 0 " ]
  [ "$(rec "$d" net-1 requests | tr '\n' ' ')" = "200 200 200 " ]
  [ "$(awk -F '\t' '$1 == "net-1" && $3 == "status" { print $2 }' "$d/records.tsv" | tr '\n' ' ')" = "1 2 3 " ]
  [ "$(rec "$d" net-1 precision_trials 3)" = 3 ]
  [ "$(rec "$d" net-1 precision_stop 3)" = trial_cap ]
  [ -n "$(rec "$d" net-1 precision_halfwidth_pct 3)" ]
  [ "$(rec "$d" net-1 precision_disturbed 3)" = 0 ]
  [ -z "$(rec "$d" net-1 precision_stop 1)" ]
  for t in 1 2 3; do [ -s "$d/series/net-1-$t.tsv" ] && [ -s "$d/logs/net-1-$t.log" ]; done
  [ "$(rec "$d" net-1 disturbed | tr '\n' ' ')" = "0 0 0 " ]
  [[ $output == *"net-1 "*" req/s (3 trials, trial cap)"* ]]
  # never precise, a time cap of 1 s: it stops there, well before the trial cap
  rm -rf "$RESULTS"
  net PRECISION=0.0001 PRECISION_MAX_TRIALS=100 PRECISION_MAX_S=1
  last=$(awk -F '\t' '$1 == "net-1" && $3 == "precision_stop" { print $2 }' "$d/records.tsv")
  [ "$(rec "$d" net-1 precision_stop)" = time_cap ]
  [ "$last" -ge 1 ] && [ "$last" -lt 100 ]
  # a target any few trials meet: precise before the cap
  rm -rf "$RESULTS"
  net PRECISION=100000 PRECISION_MAX_TRIALS=8 PRECISION_MAX_S=600
  [ "$(rec "$d" net-1 precision_stop)" = precise ]
  [ "$(rec "$d" net-1 precision_trials)" -lt 8 ]
  # PRECISION=0: one trial, as the method ran it
  rm -rf "$RESULTS"
  net PRECISION=0
  [ "$(rec "$d" net-1 status)" = 0 ]
  [ "$(rec "$d" net-1 precision_stop)" = single ]
  [ "$(rec "$d" net-1 precision_trials)" = 1 ]
}

@test "precision: a trial while a CPU hog ran outside the phase is disturbed and repeated; a quiet threshold records 0" {
  need
  # two busy loops, one per CPU of a 2-CPU host: children of the test, not of the phase
  for _ in 1 2; do
    bash -c 'while :; do :; done' &
    HOGS+=($!)
  done
  # PRECISION=100000 stops at the second or third undisturbed trial: with
  # every trial disturbed it goes on to the trial cap
  net NET_COUNT=2000 MIN_MEASURE_S=0.5 DISTURBED_PCT=5 PRECISION=100000 PRECISION_MAX_TRIALS=4 PRECISION_MAX_S=600
  [ "$(rec "$d" net-1 disturbed | tr '\n' ' ')" = "1 1 1 1 " ]
  awk -v o="$(rec "$d" net-1 budget_outside_cpu_s 1)" 'BEGIN { exit !(o > 0) }'
  [ "$(rec "$d" net-1 precision_stop 4)" = trial_cap ]
  [ "$(rec "$d" net-1 precision_disturbed 4)" = 4 ]
  [ -z "$(rec "$d" net-1 precision_halfwidth_pct 4)" ]
  # the same with a threshold no machine reaches: not disturbed
  rm -rf "$RESULTS"
  net NET_COUNT=2000 DISTURBED_PCT=1000 PRECISION=0
  [ "$(rec "$d" net-1 disturbed)" = 0 ]
  [ -n "$(rec "$d" net-1 budget_outside_cpu_s)" ]
}

# budget NAME TRIAL PREFIX PCT START END : budget_records of two snapshots
# at 100 ticks a second, DISTURBED_PCT PCT (bats run: $status, $output).
budget() {
  run bash -c '. "$1/harness/common/budget.sh"; budget_records "$2" "$3" "$4" 100 "$6" "$7" "$5"' sh "$ROOT" "$@"
}

@test "precision: the outside CPU is the host's user, system and interrupt time less the phase's tree and the kernel's threads" {
  # 2 CPUs, 100 ticks/s, 1 s: the host took 150 ticks of user + system and
  # 5 of interrupts, the kernel threads 10, the phase's tree 100: 45
  # outside, 2 stolen
  a='100.000000|1000 2000 30 40 500 0 2|700||5000'
  b='101.000000|1100 2050 35 41 530 2 2|710||5100'
  budget net-1 2 "" 20 "$a" "$b"
  [ "$status" -eq 0 ]
  [[ $output == *$'net-1\t2\tbudget_outside_cpu_s\t0.45\ts'* ]]
  # 0.47 s of 2 s of CPU is 23.5%: above 20
  [[ $output == *$'net-1\t2\tdisturbed\t1\tflag'* ]]
  budget net-1 2 sync_ 25 "$a" "$b"
  [[ $output == *$'net-1\t2\tsync_disturbed\t0\tflag'* ]]
  # a system that does not count interrupts ("-"): user + system alone
  budget net-1 2 "" 20 "${a/ 30 / - }" "${b/ 35 / - }"
  [[ $output == *$'net-1\t2\tbudget_outside_cpu_s\t0.40\ts'* ]]
  # a short window (0.04 s, 8 ticks of 2 CPUs): 2 ticks outside are 25%,
  # but within the counters' resolution: not disturbed; 3 ticks are
  local short='100.040000|1004 2000 30 40 502 0 2|700||5002'
  budget untar2 1 "" 5 "$a" "$short"
  [[ $output == *$'untar2\t1\tbudget_outside_cpu_s\t0.02\ts'* ]]
  [[ $output == *$'untar2\t1\tdisturbed\t0\tflag'* ]]
  budget untar2 1 "" 5 "$a" "${short/1004 2000/1005 2000}"
  [[ $output == *$'untar2\t1\tdisturbed\t1\tflag'* ]]
  # no tree (a BSD): no outside figure, no flag
  budget net-1 2 "" 20 "${a%|*}|" "${b%|*}|"
  [[ $output != *outside* ]] && [[ $output != *disturbed* ]]
  # the tree: a root, its child and grandchild (a command name with ") " in
  # it), each with its reaped children's ticks; not the process beside it
  stat=$'100 (bash) S 1 100 100 0 -1 0 0 0 0 0 10 5 3 2 20 0 1 0\n'
  stat+=$'101 (httpd) S 100 101 101 0 -1 0 0 0 0 0 40 30 0 0 20 0 1 0\n'
  stat+=$'102 (a) b) S 101 101 101 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0\n'
  stat+=$'200 (yes) R 1 200 200 0 -1 0 0 0 0 0 900 0 0 0 20 0 1 0\n'
  run bash -c '. "$1/harness/os/linux.sh"; os_parse_tree_cpu 100' sh "$ROOT" <<<"$stat"
  [ "$output" = 93 ]
  run bash -c '. "$1/harness/os/linux.sh"; os_parse_tree_cpu 101' sh "$ROOT" <<<"$stat"
  [ "$output" = 73 ]
  run bash -c '. "$1/harness/os/linux.sh"; os_parse_tree_cpu 999' sh "$ROOT" <<<"$stat"
  [ -z "$output" ]
}

@test "precision: CPU outside the phase is seen during a loopback replay (its network work is the tree's, counted as interrupts)" {
  need
  # an outside process burns 60 ticks (0.6 s) of CPU during a window in
  # which the phase's tree replays over loopback.  The replay's softirq
  # ticks are in the tree's stime and in the host's softirq, not its
  # system time: a host figure without the interrupts read about a quarter
  # of a CPU less (measured: 100-130 ticks in 5 s) and hid the 60 ticks.
  mkdir "$T/www"
  head -c 11000 /dev/zero >"$T/www/f"
  cat >"$T/hog.sh" <<'HOG'
#!/usr/bin/env bash
set -eu
want=$1 said=$2
while :; do
  read -r line </proc/$BASHPID/stat
  # shellcheck disable=SC2086 # the fields after the command name
  set -- ${line##*) }
  [ $((${12} + ${13})) -lt "$want" ] || break
  for _ in {1..2000}; do :; done
done
echo "$$" >"$said"
exec sleep 600
HOG
  chmod +x "$T/hog.sh"
  PORT=$(free_port)
  run bash -c '. "$1/harness/poll.sh"; . "$1/harness/os/linux.sh"; . "$1/harness/common/budget.sh"
    "$2/httpd" -r "$3" -i 127.0.0.1 -p "$4" -q &
    trap "kill $! 2>/dev/null" EXIT
    poll_until 10 port_busy "$4" || exit 9
    a=$(budget_snap)
    # started twice over: its parent gone, it is not of this tree
    ( "$5" 60 "$6" </dev/null >/dev/null 2>&1 & )
    "$2/replay" -c 8 -U /f -n 2000 --min-time 2 "127.0.0.1:$4" >/dev/null || exit 8
    poll_until 30 test -s "$6" || exit 7
    b=$(budget_snap)
    budget_records net-1 1 "" "$(os_cpu_hz)" "$a" "$b" 1000' sh "$ROOT" "$BIN" "$T/www" "$PORT" "$T/hog.sh" "$T/hog.pid"
  [ ! -s "$T/hog.pid" ] || HOGS+=("$(cat "$T/hog.pid")")
  echo "$output"
  [ "$status" -eq 0 ]
  # at least half of the 60 ticks (the counters' noise: 10-40 ticks in 5 s)
  awk -F '\t' '$3 == "budget_outside_cpu_s" { f = 1; exit !($4 >= 0.30) } END { if (!f) exit 1 }' <<<"$output"
}

@test "precision: untar, untar2 and delete repeat as whole cycles, each trial its own records; meta.json has the measured share" {
  need
  run make -C "$ROOT" -s shootout TARGET="$TMPFS" DATASET=tiny FLUSH=none PHASES="untar untar2 delete" \
    PRECISION=0.0001 PRECISION_MAX_TRIALS=2 PRECISION_MAX_S=600 DISTURBED_PCT=1000
  echo "$output"
  [ "$status" -eq 0 ]
  d=$(the_run)
  for p in untar untar2 delete; do
    [ "$(rec "$d" "$p" status | tr '\n' ' ')" = "0 0 " ]
    [ "$(rec "$d" "$p" wall_s | wc -l)" -eq 2 ]
    [ "$(rec "$d" "$p" precision_stop 2)" = trial_cap ]
    [ "$(rec "$d" "$p" precision_trials 2)" = 2 ]
  done
  [ "$(rec "$d" untar files 1)" = "$(rec "$d" untar files 2)" ]
  [[ $output == *"shootout: run "*", precision cycle 1: untar"* ]]
  [ ! -e "$TMPFS/data" ]
  # the measured share of the run's wall time
  jq -e '.measured_share > 0 and .measured_share <= 1 and .run_wall_s >= .measured_s and .measured_s > 0' "$d/meta.json"
}
