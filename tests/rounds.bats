#!/usr/bin/env bats
# shellcheck disable=SC2154 # bats sets $stderr (run --separate-stderr)
# harness/rounds.sh (docs/harness.md#rounds): the serve and net figures of
# several variants taken in rounds, one variant measuring at a time, in a
# seeded shuffled order (rounds.tsv), every trial recording its round; the
# stopping rule (PRECISION=0, precise, the caps), round numbers that go on
# in a second call, a SPEC refused in one line with nothing written, a
# variant that fails alone, an interrupt that leaves nothing running, and
# profiles that hold each variant's own turns.  Root: the targets are
# directories on a tmpfs of this file's (ALLOW_NONMOUNT=1), each holding
# the tiny dataset extracted once.  The statistics (plots/stats.py blocked)
# are mostly a stand-in here that keeps its input and says what the test
# wants (tests/stats.bats tests the real one); the net test ends with the
# real one.
bats_require_minimum_version 1.5.0
load helpers

setup_file() {
  require_root
  require_tools
  require_cmd python3 jq
  local F=$BATS_FILE_TMPDIR v
  mkdir -p "$F/tmpfs"
  mount -t tmpfs -o size=256m tmpfs "$F/tmpfs"
  # t1-t3 the method's state before serve; t4 without the update tarball
  for v in 1 2 3 4; do
    mkdir -p "$F/tmpfs/t$v"
    env RESULTS="$F/prep" HOST=prep VARIANT="v$v" SHOOTOUT_ROOT="$ROOT" HARNESS_BIN="$BIN" TARGET="$F/tmpfs/t$v" \
      ALLOW_NONMOUNT=1 DATASET=tiny DATASETS_OUT="$F/ds" FLUSH=none PRECISION=0 PHASES="untar$([ "$v" = 4 ] || echo ' untar2')" \
      "$ROOT/harness/shootout.sh" >"$F/prep-v$v.log" 2>&1 || { cat "$F/prep-v$v.log" >&2; return 1; }
  done
}

teardown_file() {
  local F=$BATS_FILE_TMPDIR
  stop_leftovers "$F/tmpfs"
  if mountpoint -q "$F/tmpfs"; then umount "$F/tmpfs" || umount -l "$F/tmpfs"; fi
}

setup() {
  require_root
  T=$BATS_TEST_TMPDIR F=$BATS_FILE_TMPDIR
  [ -d "$F/tmpfs/t1/data" ] || skip "the targets were not made (setup_file)"
  export RESULTS=$T/results HOST=testhost SHOOTOUT_ROOT=$ROOT HARNESS_BIN=$BIN DISTURBED_PCT=1000
  unset RUN_ID TARGET VARIANT DATASET SEED SOURCE FLUSH TRIALS PORT TRIAL PROFILE BLKLAT ROUNDS_SEED
  mkdir -p "$T/tmp"
  stub no
}

teardown() {
  ours_stop
  stop_leftovers "$T/"
  # a failed test shows the end of each phase log (a phase that died, e.g.
  # "cannot write meta.json: see LOG", says why only there)
  [ -n "${BATS_TEST_COMPLETED:-}" ] || tail -n 15 "$RESULTS"/*/*/*/logs/*.log 2>/dev/null || true
}

# spec NAME VARIANT TARGET [KEY=VALUE...] : $T/NAME.spec, a variant of one
# small serve mode (and net figure) on the tiny dataset.
spec() {
  local f=$T/$1.spec v=$2 t=$3
  shift 3
  printf '%s\n' "VARIANT=$v" "TARGET=$t" ALLOW_NONMOUNT=1 DATASET=tiny "DATASETS_OUT=$F/ds" FLUSH=none \
    SERVE_MODES=1 REPLAY_COUNT=200 NET_PROCS=1 NET_SIZE=1000 NET_COUNT=200 "$@" >"$f"
}

# stub ENOUGH : the statistics' stand-in says enough=ENOUGH (halfwidth 7.5)
# and keeps each FILE it is given as $T/stats/N.
stub() {
  mkdir -p "$T/stats"
  cat >"$T/stub" <<EOF
#!/bin/sh
[ "\$1 \$2" = "blocked --target" ] || { echo "stub: want blocked --target P FILE, not \$*" >&2; exit 2; }
cp "\$4" "$T/stats/\$(ls "$T/stats" | wc -l)"
echo "rounds=0 variants=0 df=0 halfwidth_pct=7.5 mde_pct=9.9 enough=$1"
EOF
  chmod +x "$T/stub"
  export ROUNDS_STATS=$T/stub
}

# rounds ARGS... : harness/rounds.sh, its private files under $T/tmp.
rounds() {
  run --separate-stderr env TMPDIR="$T/tmp" "$ROOT/harness/rounds.sh" "$@"
  printf 'status %s\nstdout:\n%s\nstderr:\n%s\n' "$status" "$output" "$stderr"
}

# rounds_bg CAP PHASE SPEC... : harness/rounds.sh in the background ($pid;
# job control on, so that it takes SIGINT), PRECISION=50 (the stand-in never
# says enough), CAP rounds, no time cap, its output in $T/out and $T/err;
# back once round 2 has begun.
rounds_bg() {
  local cap=$1
  shift
  set -m
  PRECISION=50 PRECISION_MAX_TRIALS=$cap PRECISION_MAX_S=600 env TMPDIR="$T/tmp" "$ROOT/harness/rounds.sh" "$@" \
    >"$T/out" 2>"$T/err" &
  pid=$!
  set +m
  poll_until 60 has_round 2
}

# rounds_end : until rounds_bg's rounds.sh has ended (150 s), its exit
# status in $rc, its output shown.
rounds_end() {
  wait_for_exit "$pid" 150
  rc=0
  wait "$pid" || rc=$?
  cat "$T/out" "$T/err"
}

# rec VARIANT NAME METRIC : TRIAL<TAB>VALUE of each trial of NAME with METRIC.
rec() {
  awk -F '\t' -v p="$2" -v m="$3" '$1 == p && $3 == m { print $2 "\t" $4 }' "$(the_run)/$1/records.tsv"
}

# has_round R : the run's rounds.tsv has begun round R of serve-cold-1.
has_round() {
  [ -s "$RESULTS/.current" ] && grep -q "^serve-cold-1"$'\t'"$1"$'\t' "$(the_run)/rounds.tsv" 2>/dev/null
}

the_run() {
  printf '%s/%s/%s\n' "$RESULTS" "$(cat "$RESULTS/.current")" "$HOST"
}

# ours : the pids of the processes this test's harness started (they all
# have TMPDIR=$T/tmp in their environment).
ours() {
  grep -lsxzF "TMPDIR=$T/tmp" /proc/[0-9]*/environ 2>/dev/null | awk -F/ '{ print $3 }' || :
}
ours_stop() {
  local p
  for p in $(ours); do kill -TERM "$p" 2>/dev/null || :; done
  POLL_STEP=0.1 poll_until 10 test -z "$(ours)" || for p in $(ours); do kill -KILL "$p" 2>/dev/null || :; done
}

# replay_clock : HARNESS_BIN=$T/bin, the tools of bin/ with a replay that
# notes "VARIANT start|end EPOCHREALTIME" in $T/windows around each replay
# that measures (--stats).
replay_clock() {
  local t
  mkdir -p "$T/bin"
  for t in "$BIN"/*; do ln -s "$t" "$T/bin/"; done
  rm "$T/bin/replay"
  cat >"$T/bin/replay" <<EOF
#!/usr/bin/env bash
case " \$* " in *" --stats "*) ;; *) exec "$BIN/replay" "\$@" ;; esac
printf '%s\tstart\t%s\n' "\$VARIANT" "\$EPOCHREALTIME" >>"$T/windows"
"$BIN/replay" "\$@"
rc=\$?
printf '%s\tend\t%s\n' "\$VARIANT" "\$EPOCHREALTIME" >>"$T/windows"
exit \$rc
EOF
  chmod +x "$T/bin/replay"
  export HARNESS_BIN=$T/bin
}

@test "rounds: three variants take turns, one at a time, in a seeded shuffled order; every trial records its round; the trial cap stops at 3 rounds; a second call goes on at round 4" {
  spec a v1 "$F/tmpfs/t1"
  spec b v2 "$F/tmpfs/t2"
  spec c v3 "$F/tmpfs/t3"
  replay_clock
  PRECISION=50 PRECISION_MAX_TRIALS=3 PRECISION_MAX_S=600 ROUNDS_SEED=s1 rounds serve "$T/a.spec" "$T/b.spec" "$T/c.spec"
  [ "$status" -eq 0 ]
  d=$(the_run)
  # one line per variant on stdout, in SPEC order
  [ "$(cut -f 1,2 <<<"$output" | tr '\t\n' ': ')" = "v1:ok v2:ok v3:ok " ]
  [[ $(sed -n 1p <<<"$output") == "v1"$'\t'"ok"$'\t'"serve: done in "*"cold-1 "*" req/s (3 trials, trial cap), warm-1 "* ]]
  # every figure of every variant: trials 1-3 in rounds 1-3, cold and warm alike
  for v in v1 v2 v3; do
    for n in serve-cold-1 serve-warm-1; do
      [ "$(rec "$v" "$n" round | tr '\t\n' ': ')" = "1:1 2:2 3:3 " ]
      [ "$(rec "$v" "$n" status | tr '\t\n' ': ')" = "1:0 2:0 3:0 " ]
      [ "$(rec "$v" "$n" precision_stop)" = "3"$'\t'"trial_cap" ]
      [ "$(rec "$v" "$n" precision_halfwidth_pct)" = "3"$'\t'"7.5" ]
    done
  done
  # rounds.tsv: each round every variant once, in the order Python's
  # random.Random(seed).shuffle gives their sorted names
  [ "$(head -n 1 "$d/rounds.tsv")" = "$(printf 'group\tround\tposition\tvariant\tseed')" ]
  [ "$(wc -l <"$d/rounds.tsv")" -eq 10 ]
  for r in 1 2 3; do
    seed=s1-testhost-serve-cold-1-$r
    want=$(python3 -c 'import random, sys; v = sorted(sys.argv[2:]); random.Random(sys.argv[1]).shuffle(v); print(" ".join(v))' "$seed" v1 v2 v3)
    [ "$(awk -F '\t' -v r="$r" '$2 == r { print $4 }' "$d/rounds.tsv" | tr '\n' ' ')" = "$want " ]
    [ "$(awk -F '\t' -v r="$r" '$2 == r { print $1, $3, $5 }' "$d/rounds.tsv" | tr '\n' ' ')" = \
      "serve-cold-1 1 $seed serve-cold-1 2 $seed serve-cold-1 3 $seed " ]
    # the turns ran in that order: the progress lines say so
    for v in $want; do
      grep -qx "rounds: serve-cold-1 round $r: $v ([123] of 3)" <<<"$stderr"
    done
  done
  grep -qx 'rounds: serve-cold-1 stops after round 3: 3 rounds in the run (PRECISION_MAX_TRIALS=3)' <<<"$stderr"
  # only one variant measures at a time: no two replays of different
  # variants overlap (18 replays: 3 variants x 3 rounds x cold and warm)
  [ "$(grep -c start "$T/windows")" -eq 18 ]
  awk -F '\t' '$2 == "start" { s[NR] = $3; v[NR] = $1 } $2 == "end" { for (i in s) if (v[i] == $1 && !(i in e)) { e[i] = $3; break } }
    END { for (i in s) for (j in s) if (i != j && v[i] != v[j] && s[i] < e[j] && s[j] < e[i]) { print "overlap: " v[i] " " v[j]; bad = 1 }
      exit bad }' "$T/windows"
  # the statistics got each figure's round-recorded values of every variant
  # after rounds 2 and 3 (not after 1: fewer than 2 rounds say nothing)
  files=("$T"/stats/*)
  [ "${#files[@]}" -eq 4 ]
  [ "$(cut -f 1,2 "$T/stats/2" | tr '\t\n' ': ')" = "v1:1 v2:1 v3:1 v1:2 v2:2 v3:2 v1:3 v2:3 v3:3 " ]
  awk -F '\t' 'NF != 3 || $3 !~ /^[0-9.e+]+$/ { exit 1 }' "$T/stats/2"
  # each variant's phase output kept with its results
  grep -q '^serve: done in' "$d/v2/logs/rounds-serve.log"
  # a second call (the second cycle) goes on at round 4; PRECISION=0: one round
  PRECISION=0 ROUNDS_SEED=s1 rounds serve "$T/a.spec" "$T/b.spec" "$T/c.spec"
  [ "$status" -eq 0 ]
  for v in v1 v2 v3; do
    [ "$(rec "$v" serve-cold-1 round | tail -n 1 | tr '\t' :)" = 4:4 ]
    [ "$(rec "$v" serve-warm-1 precision_stop | tail -n 1 | tr '\t' :)" = 4:single ]
  done
  [ "$(awk -F '\t' '$2 == 4' "$d/rounds.tsv" | wc -l)" -eq 3 ]
  [ "$(wc -l <"$d/rounds.tsv")" -eq 13 ]
  grep -qx 'rounds: serve-cold-1 stops after round 4: one round (PRECISION=0)' <<<"$stderr"
}

@test "rounds: net, one figure a turn: precise after two rounds (never one); a time cap stops after the first" {
  spec a v1 "$F/tmpfs/t1"
  spec b v2 "$F/tmpfs/t2"
  stub yes
  PRECISION=50 PRECISION_MAX_TRIALS=10 PRECISION_MAX_S=600 rounds net "$T/a.spec" "$T/b.spec"
  [ "$status" -eq 0 ]
  for v in v1 v2; do
    for n in net-1 net-1-v6; do
      [ -z "$(rec "$v" "$n" skip_reason)" ] || continue # a host without IPv6
      [ "$(rec "$v" "$n" round | tr '\t\n' ': ')" = "1:1 2:2 " ]
      [ "$(rec "$v" "$n" precision_stop)" = "2"$'\t'"precise" ]
      [ "$(rec "$v" "$n" precision_halfwidth_pct)" = "2"$'\t'"7.5" ]
    done
  done
  grep -qx 'rounds: net-1 stops after round 2: precise (half-width 7.5 % of a difference, within PRECISION=50)' <<<"$stderr"
  # the net phase leaves the tree's mark as it was: serve still finds untar2 done
  grep -qxF 'update.tar.gz extracted (phase untar2)' "$F/tmpfs/t1/data/.shootout-owned"
  # never precise, a time cap no round fits in twice: one round
  stub no
  PRECISION=50 PRECISION_MAX_TRIALS=10 PRECISION_MAX_S=0.001 rounds net "$T/a.spec" "$T/b.spec"
  [ "$status" -eq 0 ]
  [ "$(rec v1 net-1 round | tail -n 1 | tr '\t' :)" = 3:3 ]
  [ "$(rec v1 net-1 precision_stop | tail -n 1 | tr '\t' :)" = 3:time_cap ]
  grep -q '^rounds: net-1 stops after round 3: another round would pass 0.002 s (PRECISION_MAX_S=0.001 x 2 variants x 1 figures)$' <<<"$stderr"
  # the real statistics (plots/stats.py blocked), a target two rounds or a
  # few meet (two rounds are 1 degree of freedom: under load, with these
  # 0.1 s replays, v1 and v2 can differ by 50% from one round to the next,
  # and the half-width of 2 rounds can pass even 100000%)
  [ -f "$ROOT/plots/stats.py" ] || skip "no plots/stats.py"
  unset ROUNDS_STATS
  rm -rf "$RESULTS"
  PRECISION=100000 PRECISION_MAX_TRIALS=10 PRECISION_MAX_S=600 NET_PROCS=1 rounds net "$T/a.spec" "$T/b.spec"
  [ "$status" -eq 0 ]
  [[ $(rec v2 net-1 precision_stop | tr '\t' :) =~ ^([2-9]|10):precise$ ]]
  [[ $(rec v2 net-1 precision_halfwidth_pct) =~ ^([2-9]|10)$'\t'[0-9]+(\.[0-9]+)?$ ]]
}

# tools_cpu_own VARIANT NAME : each trial's replay CPU in the proof is its
# own replay's (every trial had the last one's: one --stats file a figure),
# and the one server process's share, over the trial's time (first pass and
# steady window), is about a core at most (over the first pass alone it
# was 4-11 cores).
tools_cpu_own() {
  [ "$(rec "$1" "$2" sys_s | wc -l)" -eq 2 ]
  join -t $'\t' <(rec "$1" "$2" sys_s) <(rec "$1" "$2" budget_sys_s_replay) |
    awk -F '\t' '{ if (sprintf("%.3f", $2) != $3) { print "trial " $1 ": replay sys_s " $2 ", budget_sys_s_replay " $3; bad = 1 } } END { exit bad }'
  [ "$(rec "$1" "$2" cpu_share_httpd | wc -l)" -eq 2 ]
  rec "$1" "$2" cpu_share_httpd | awk -F '\t' '{ if ($2 > 1.5) { print "trial " $1 ": cpu_share_httpd " $2; bad = 1 } } END { exit bad }'
}

# slice_orders GROUP ROUND SLICES : each slice's order in rounds.tsv, one
# line a slice ("K v2 v1"); want_orders SEED-PREFIX SLICES VARIANT... : the
# orders random.Random(PREFIX-K).shuffle gives.
slice_orders() {
  awk -F '\t' -v g="$1" -v r="$2" '$1 == g && $2 == r { k = $5; sub(/.*-/, "", k); o[k] = o[k] " " $4; n[k]++; p[k] = p[k] " " $3 }
    END { for (k = 1; k <= '"$3"'; k++) print k o[k] }' "$(the_run)/rounds.tsv"
}
want_orders() {
  python3 -c 'import random, sys
for k in range(1, int(sys.argv[2]) + 1):
    v = sorted(sys.argv[3:]); random.Random("%s-%d" % (sys.argv[1], k)).shuffle(v); print(k, " ".join(v))' "$@"
}

@test "rounds: slices: each warm serve and net trial taken in STEADY_SLICES slices, the variants in turn, a shuffled order each slice; cold trials whole" {
  spec a v1 "$F/tmpfs/t1"
  spec b v2 "$F/tmpfs/t2"
  MIN_MEASURE_S=0.4 STEADY_SLICES=4 PRECISION=50 PRECISION_MAX_TRIALS=2 PRECISION_MAX_S=600 ROUNDS_SEED=s2 \
    rounds net "$T/a.spec" "$T/b.spec"
  [ "$status" -eq 0 ]
  d=$(the_run)
  for v in v1 v2; do
    [ "$(rec "$v" net-1 round | tr '\t\n' ': ')" = "1:1 2:2 " ]
    [ "$(rec "$v" net-1 status | tr '\t\n' ': ')" = "1:0 2:0 " ]
    # one replay a trial, its steady window in 4 slices, the pauses in no figure
    [ "$(rec "$v" net-1 steady_slices | tr '\t\n' ': ')" = "1:4 2:4 " ]
    rec "$v" net-1 steady_s | awk -F '\t' '{ if ($2 < 0.4 || $2 > 1.2) { print "steady_s " $2; bad = 1 } } END { exit bad }'
    grep -q -- '--slices 4 --gate-in ' "$d/$v/logs/net-1-1.log"
    # the method's first pass in the figure's first trial only: the repeat
    # measures its window alone
    [ "$(rec "$v" net-1 first_requests | tr '\t\n' ': ')" = "1:200 " ]
    [ "$(rec "$v" net-1 rps | cut -f 1)" = 1 ]
    [ "$(rec "$v" net-1 steady_rps | cut -f 1 | tr '\n' ' ')" = "1 2 " ]
    [ "$(grep -c -- '--no-first-pass' "$d/$v/logs/net-1-1.log")" = 0 ]
    grep -q -- '--no-first-pass' "$d/$v/logs/net-1-2.log"
    tools_cpu_own "$v" net-1
    # its per-second series: a sample at the end of each slice (the sampler
    # pauses while the other variant measures), none left unpaused
    [ "$(grep -c $'\tcpu_busy_pct\t' "$d/$v/series/net-1-2.tsv")" -ge 4 ]
    ! grep -q 'sampler: did not pause' "$d/$v/logs/net-1-2.log"
  done
  grep -qx 'rounds: net-1 round 1: 4 slices of each of 2 variants, in turn' <<<"$stderr"
  grep -qx 'rounds: net-1 stops after round 2: 2 rounds in the run (PRECISION_MAX_TRIALS=2)' <<<"$stderr"
  # rounds.tsv: each slice every variant once, positions on through the round
  for r in 1 2; do
    [ "$(slice_orders net-1 "$r" 4)" = "$(want_orders "s2-testhost-net-1-$r" 4 v1 v2)" ]
    [ "$(awk -F '\t' -v r="$r" '$1 == "net-1" && $2 == r { printf "%s ", $3 }' "$d/rounds.tsv")" = "1 2 3 4 5 6 7 8 " ]
  done
  # serve: the cold figure whole, a turn each; then, the cache warmed
  # again, the warm one in slices
  rm -rf "$RESULTS"
  MIN_MEASURE_S=0.4 STEADY_SLICES=4 PRECISION=50 PRECISION_MAX_TRIALS=2 PRECISION_MAX_S=600 ROUNDS_SEED=s2 \
    rounds serve "$T/a.spec" "$T/b.spec"
  [ "$status" -eq 0 ]
  d=$(the_run)
  [[ $(sed -n 1p <<<"$output") == "v1"$'\t'"ok"$'\t'"serve: done in "*"cold-1 "*" req/s (2 trials, trial cap), warm-1 "*" req/s (2 trials, trial cap)" ]]
  for v in v1 v2; do
    [ "$(rec "$v" serve-cold-1 round | tr '\t\n' ': ')" = "1:1 2:2 " ]
    [ -z "$(rec "$v" serve-cold-1 steady_slices)" ]
    [ "$(rec "$v" serve-warm-1 round | tr '\t\n' ': ')" = "1:1 2:2 " ]
    [ "$(rec "$v" serve-warm-1 steady_slices | tr '\t\n' ': ')" = "1:4 2:4 " ]
    [ "$(rec "$v" serve-warm-1 status | tr '\t\n' ': ')" = "1:0 2:0 " ]
    [ "$(rec "$v" serve-warm-1 failed | tr '\t\n' ': ')" = "1:0 2:0 " ]
    [ "$(rec "$v" serve-warm-1 first_requests | tr '\t\n' ': ')" = "1:200 " ]
    [ "$(rec "$v" serve-warm-1 steady_rps | cut -f 1 | tr '\n' ' ')" = "1 2 " ]
    grep -q 'warming the cache for the warm trials in slices' "$d/$v/logs/serve-warm-1-1.log"
    # the prime is no trial's: its server's requests are not in trial 1's histograms
    [ "$(awk -F '\t' '$1 == "httpd_ttfb_ns" { s += $4 } END { print s + 0 }' "$d/$v/latency/serve-warm-1-1.tsv")" = \
      "$(rec "$v" serve-warm-1 requests | awk -F '\t' '$1 == 1 { print $2 }')" ]
    tools_cpu_own "$v" serve-warm-1
  done
  [ "$(awk -F '\t' '$1 == "serve-cold-1" && $2 == 1' "$d/rounds.tsv" | wc -l)" -eq 2 ]
  [ "$(slice_orders serve-warm-1 2 4)" = "$(want_orders s2-testhost-serve-warm-1-2 4 v1 v2)" ]
  grep -qx 'rounds: serve-cold-1 round 1: v[12] (1 of 2)' <<<"$stderr"
  grep -qx 'rounds: serve-warm-1 round 2: 4 slices of each of 2 variants, in turn' <<<"$stderr"
  # each warm trial in slices begins with its dataset still in the page
  # cache, counted; a dataset the others' turns pushed out fails the variant
  for v in v1 v2; do
    [ "$(rec "$v" serve-warm-1 resident_pct | tr '\t\n' ': ')" = "1:100.00 2:100.00 " ]
    [ "$(rec "$v" serve-warm-1 resident_files | cut -f 2 | sort -u)" -gt 0 ]
  done
  mkdir -p "$T/bin"
  find "$BIN" -maxdepth 1 -type f -exec cp {} "$T/bin/" \;
  # v2's counts: its two cold proofs real, then as if evicted
  # shellcheck disable=SC2016 # the stand-in's own $p, expanded when it runs
  printf '%s\n' '#!/bin/sh' 'p=$(cat)' \
    "case \$p in *'/t2/data/'*) ;; *) printf '%s\\n' \"\$p\" | '$BIN/resident' \"\$@\"; exit ;; esac" \
    "n=\$(cat '$T/counted' 2>/dev/null || echo 0); echo \$((n + 1)) >'$T/counted'" \
    "[ \"\$n\" -ge 2 ] || { printf '%s\\n' \"\$p\" | '$BIN/resident' \"\$@\"; exit; }" \
    "printf 'files\\t57\\nresident_pct\\t42.00\\n'" >"$T/bin/resident"
  chmod +x "$T/bin/resident"
  rm -rf "$RESULTS"
  HARNESS_BIN=$T/bin MIN_MEASURE_S=0.4 STEADY_SLICES=4 PRECISION=50 PRECISION_MAX_TRIALS=2 PRECISION_MAX_S=600 \
    rounds serve "$T/a.spec" "$T/b.spec"
  [ "$status" -eq 1 ]
  [ "$(cut -f 1,2 <<<"$output" | tr '\t\n' ': ')" = "v1:ok v2:failed " ]
  [ "$(rec v2 serve-warm-1 resident_pct | tr '\t' :)" = 1:42.00 ]
  [ -z "$(rec v2 serve-warm-1 rps)" ]
  grep -q "serve-warm-1"$'\t'"1"$'\t'".*only 42.00% (under RESIDENT_WARM_MIN=90) of the pages of 57 files the warm replay asks for are in the page cache before its trial in slices: the variants' datasets do not all fit in memory at once (use STEADY_SLICES=1" "$(the_run)/v2/failures.tsv"
  [ "$(rec v1 serve-warm-1 status | tr '\t\n' ': ')" = "1:0 2:0 " ]
  # slices too short, or too many: refused, nothing started
  rm -rf "$RESULTS"
  MIN_MEASURE_S=0.2 STEADY_SLICES=4 rounds net "$T/a.spec" "$T/b.spec"
  [ "$status" -eq 2 ]
  [ "$stderr" = "rounds.sh: STEADY_SLICES=4 cuts MIN_MEASURE_S=0.2 into slices under 0.1 s: want fewer slices or a longer window" ]
  STEADY_SLICES=65 rounds net "$T/a.spec" "$T/b.spec"
  [ "$status" -eq 2 ]
  [ "$stderr" = "rounds.sh: STEADY_SLICES=65: want 1 (a whole trial a turn) to 64 slices" ]
  [ ! -e "$RESULTS" ]
}

@test "rounds: a SPEC (or a COMMAND after --) that is not right: one line, exit 2, nothing started, no run written" {
  spec a v1 "$F/tmpfs/t1"
  spec b v2 "$F/tmpfs/t2"
  printf 'TARGET=%s\nthis is no setting\n' "$F/tmpfs/t3" >"$T/words.spec"
  printf 'TARGET=%s\ntarget=x\n' "$F/tmpfs/t3" >"$T/lower.spec"
  printf 'TARGET=%s\nVARIANT=v3\nTARGET=y\n' "$F/tmpfs/t3" >"$T/twice.spec"
  spec same v1 "$F/tmpfs/t3"
  spec shared v3 "$F/tmpfs/t1"
  spec typo v3 "$F/tmpfs/t3" REPLAY_CONUT=5
  printf 'TARGET=%s\nVARIANT=v3\nFLUSH=reboot\n' "$F/tmpfs/t3" >"$T/reboot.spec"
  spec prec v3 "$F/tmpfs/t3" PRECISION=3
  spec own v3 "$F/tmpfs/t3" ROUNDS_UP=/tmp/x
  local cases=(
    "serve $T/a.spec $T/nosuch.spec|rounds.sh: SPEC $T/nosuch.spec: no such file (want one file per variant, KEY=VALUE lines)"
    "serve $T/a.spec $T/words.spec|rounds.sh: $T/words.spec:2: want KEY=VALUE (KEY of capitals, digits and _, like TARGET=/mnt/ext4), not 'this is no setting'"
    "serve $T/lower.spec|rounds.sh: $T/lower.spec:2: want KEY=VALUE (KEY of capitals, digits and _, like TARGET=/mnt/ext4), not 'target=x'"
    "serve $T/twice.spec|rounds.sh: $T/twice.spec:3: TARGET is given twice"
    "serve $T/a.spec $T/same.spec|rounds.sh: VARIANT=v1 in both $T/a.spec and $T/same.spec: each SPEC is a variant of its own"
    "serve $T/a.spec $T/shared.spec|rounds.sh: TARGET=$F/tmpfs/t1 in both $T/a.spec and $T/shared.spec: each variant measures its own"
    "serve $T/a.spec $T/typo.spec|rounds.sh: $T/typo.spec: unknown setting REPLAY_CONUT (did you mean REPLAY_COUNT?)"
    "serve $T/a.spec $T/reboot.spec|rounds.sh: $T/reboot.spec: FLUSH=reboot cannot take turns (a reboot stops every variant): use drop or remount"
    "net $T/a.spec $T/prec.spec|rounds.sh: PRECISION differs: '0' in $T/a.spec, '3' in $T/prec.spec (the variants of one call share one run and one stopping rule)"
    "net $T/own.spec|rounds.sh: $T/own.spec:12: ROUNDS_UP is harness/rounds.sh's own, not a SPEC's"
    "untar $T/a.spec|rounds.sh: PHASE 'untar': want serve or net"
    "serve|rounds.sh: usage: harness/rounds.sh serve|net SPEC... (-h for help)"
    "serve $T/a.spec --|rounds.sh: nothing after --: want the command that runs a variant's phase, e.g. make -C DIR phase-serve"
    "serve -- make|rounds.sh: usage: harness/rounds.sh serve|net SPEC... [-- COMMAND...] (-h for help)"
  )
  for c in "${cases[@]}"; do
    read -r -a args <<<"${c%%|*}"
    PRECISION=0 rounds "${args[@]}"
    [ "$status" -eq 2 ]
    [ -z "$output" ]
    [ "$stderr" = "${c#*|}" ]
    [ ! -e "$RESULTS" ]
    [ -z "$(ls -A "$T/tmp")" ]
  done
  # -h: the usage, on stdout
  rounds -h
  [ "$status" -eq 0 ]
  [[ $output == "usage: harness/rounds.sh PHASE SPEC..."* ]]
}

@test "rounds: a variant whose TARGET is wrong fails alone, one that dies in the middle is out, the others go on" {
  spec a v1 "$F/tmpfs/t1"
  spec b v2 "$F/tmpfs/t2"
  spec c v3 "$T/nosuch"
  # without the update tarball: refused, not untar2 measured while the others start
  spec d v4 "$F/tmpfs/t4"
  PRECISION=0 rounds serve "$T/a.spec" "$T/c.spec" "$T/b.spec" "$T/d.spec"
  [ "$status" -eq 1 ]
  [ "$(cut -f 1,2 <<<"$output" | tr '\t\n' ': ')" = "v1:ok v3:refused v2:ok v4:refused " ]
  [ "$(sed -n 2p <<<"$output")" = "v3"$'\t'"refused"$'\t'"serve-cold-1: TARGET=$T/nosuch is not a directory: mount the filesystem under test there first" ]
  [ "$(sed -n 4p <<<"$output")" = "v4"$'\t'"refused"$'\t'"phase-serve.sh: $F/tmpfs/t4/data holds the first tarball only (the request list names files of the update tarball): run phase-untar2 before harness/rounds.sh" ]
  grep -qx 'rounds: v3 is out: its phase ended before its first turn (exit 2)' <<<"$stderr"
  [ ! -e "$(the_run)/v3" ] && [ ! -e "$(the_run)/v4" ]
  [ "$(rec v1 serve-warm-1 round | tr '\t' :)" = 1:1 ]
  # v2's phase killed outright in round 2 or 3: v1 goes on alone to the trial cap
  rm -rf "$RESULTS"
  rounds_bg 6 serve "$T/a.spec" "$T/b.spec"
  # v2's phase script itself: of the processes running it (its subshells,
  # e.g. a watcher, run it too), the one whose parent does not
  v2=$(for p in $(ours); do
    tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx VARIANT=v2 && grep -q phase-serve "/proc/$p/cmdline" 2>/dev/null && echo "$p"
  done || :)
  v2=$(for p in $v2; do
    grep -qx "$(awk '$1 == "PPid:" { print $2 }' "/proc/$p/status" 2>/dev/null)" <<<"$v2" || echo "$p"
  done || :)
  echo "v2's phase: $v2"
  [ -n "$v2" ] && [ "$(wc -w <<<"$v2")" = 1 ]
  kill -KILL "$v2"
  rounds_end
  [ "$rc" -eq 1 ]
  [ "$(cut -f 1,2 "$T/out" | tr '\t\n' ': ')" = "v1:ok v2:failed " ]
  # why: its exit status, or, killed while its server ran, its watcher's
  # line stopping that server (which one depends on the moment of the kill)
  why=$(sed -n 2p "$T/out" | cut -f 3)
  [[ $why == "exit 137 (killed by SIGKILL)" || $why == "harness: stopping -"*" left running by a phase that is gone (pid $v2)" ]] ||
    { echo "v2's reason: $why"; false; }
  grep -q '^rounds: v2 is out: its phase ended in round [23] of serve-cold-1 (exit 137' "$T/err"
  grep -qx 'rounds: serve-cold-1 stops after round 6: 6 rounds in the run (PRECISION_MAX_TRIALS=6)' "$T/err"
  [ "$(rec v1 serve-cold-1 round | cut -f 2 | tr '\n' ' ')" = "1 2 3 4 5 6 " ]
  [ "$(awk -F '\t' 'NR > 1 && $2 >= 4 { print $4 }' "$(the_run)/rounds.tsv" | sort -u)" = v1 ]
}

@test "rounds: SIGINT stops every phase: exit 130, each variant interrupted, no process or FIFO left" {
  spec a v1 "$F/tmpfs/t1"
  spec b v2 "$F/tmpfs/t2"
  rounds_bg 100 serve "$T/a.spec" "$T/b.spec"
  [ "$(ours | wc -l)" -ge 3 ]
  kill -INT "$pid"
  rounds_end
  [ "$rc" -eq 130 ]
  [ "$(cut -f 1,2 "$T/out" | tr '\t\n' ': ')" = "v1:interrupted v2:interrupted " ]
  grep -qx 'rounds: interrupted by SIGINT: stopping every phase' "$T/err"
  [ -z "$(ours)" ]
  [ -z "$(ls -A "$T/tmp")" ]
  # the trial each phase was in (or waiting for) failed, interrupted
  for v in v1 v2; do grep -q 'interrupted by SIGTERM' "$(the_run)/$v/failures.tsv"; done
}

# samples_inside WINDOWS : every sample of the perf script kept beside the
# phase's WINDOWS file ($T/script-*) lies in the span one of its windows had
# the sampler on (from the enable sent to the disable answered: fields 4 and
# 5), 50 ms either side: perf sampled nothing between its windows.
samples_inside() {
  awk '/[0-9]+\.[0-9]+: *$/ { t = $NF; sub(/:$/, "", t); print t }' "$T/script-${1##*/windows-}" >"$1.times"
  [ -s "$1.times" ]
  awk -F '\t' 'NR == FNR { a[NR] = $4; b[NR] = $5; k = NR; next }
    { ok = 0; for (i = 1; i <= k; i++) if ($1 >= a[i] - 0.05 && $1 <= b[i] + 0.05) ok = 1; if (!ok) bad++ }
    END { if (bad) print bad " of " FNR " samples outside the windows"; exit bad > 0 }' "$1" "$1.times"
}

@test "rounds: PROFILE=1: one perf per variant, switched on only in its own windows (perf --control) of a figure's first round (PROFILE_ROUNDS=1), each profile of its own turns; all: every round, in slices too" {
  (. "$ROOT/harness/os.sh" && os_profile_check >/dev/null && os_profile_control) ||
    skip "perf cannot sample here, or has no --control"
  spec a v1 "$F/tmpfs/t1" PROFILE=1
  spec b v2 "$F/tmpfs/t2" PROFILE=1
  # perf as the harness runs it, its record command line noted, and what
  # perf script gives the fold kept with the phase's windows
  mkdir -p "$T/fake"
  cat >"$T/fake/perf" <<EOF
#!/usr/bin/env bash
if [ "\$1" = script ]; then
  d=\$(dirname "\$3")
  cp "\$d/profile-windows.tsv" "$T/windows-\${d##*/}"
  "$(command -v perf)" "\$@" | tee "$T/script-\${d##*/}"
  exit "\${PIPESTATUS[0]}"
fi
[ "\$*" = "record -h" ] || echo "\$*" >>"$T/perf-args"
exec "$(command -v perf)" "\$@"
EOF
  chmod +x "$T/fake/perf"
  PATH="$T/fake:$PATH" PRECISION=50 PRECISION_MAX_TRIALS=3 PRECISION_MAX_S=600 rounds serve "$T/a.spec" "$T/b.spec"
  [ "$status" -eq 0 ]
  # one sampler per phase, started with its events off, switched on a FIFO
  [ "$(grep -c '^record ' "$T/perf-args")" -eq 2 ]
  [ "$(grep -c -- '--control fifo:.*-D -1$' "$T/perf-args")" -eq 2 ]
  # by default (PROFILE_ROUNDS=1) the first round's trials alone are
  # sampled, the rounds after measured without the sampler; meta.json says so
  for v in v1 v2; do
    [ "$(rec "$v" serve-cold-1 round | head -n 1 | tr '\t\n' ': ')" = "1:1 " ]
    [ -s "$(the_run)/$v/profiles/serve-cold-1-1.folded" ]
    [ "$(rec "$v" serve-cold-1 round | wc -l)" -ge 2 ]
    for t in $(rec "$v" serve-cold-1 round | cut -f 1 | tail -n +2); do
      [ ! -e "$(the_run)/$v/profiles/serve-cold-1-$t.folded" ]
    done
    [ "$(jq -r .profile_rounds "$(the_run)/$v/meta.json")" = 1 ]
  done
  # every sample of each perf lies in one of its own windows (50 ms either
  # side: the switch's answer), none in the other variant's turns; the
  # windows are all of trial 1
  files=("$T"/windows-*)
  [ "${#files[@]}" -eq 2 ]
  for w in "$T"/windows-*; do
    [ "$(wc -l <"$w")" -eq 2 ]
    [ "$(awk -F '\t' '$1 !~ /-1$/' "$w" | wc -l)" -eq 0 ]
    samples_inside "$w"
  done
  # PROFILE_ROUNDS=all, in slices: every trial sampled, a window a slice,
  # the sampler off between them; one profile a trial, of its slices
  rm -rf "$RESULTS" "$T"/windows-* "$T"/script-*
  PATH="$T/fake:$PATH" PROFILE_ROUNDS=all MIN_MEASURE_S=0.4 STEADY_SLICES=2 PRECISION=50 PRECISION_MAX_TRIALS=2 PRECISION_MAX_S=600 NET_PROCS=1 \
    rounds net "$T/a.spec" "$T/b.spec"
  [ "$status" -eq 0 ]
  for v in v1 v2; do
    [ "$(jq -r '.profile_rounds // "none"' "$(the_run)/$v/meta.json")" = none ]
    for t in 1 2; do [ -s "$(the_run)/$v/profiles/net-1-$t.folded" ]; done
    [ "$(rec "$v" net-1 steady_slices | tr '\t\n' ': ')" = "1:2 2:2 " ]
  done
  files=("$T"/windows-*)
  [ "${#files[@]}" -eq 2 ]
  for w in "$T"/windows-*; do
    # net-1 and net-1-v6 (where the host has IPv6): 2 trials of 2 slices each
    [ "$(awk -F '\t' '$1 == "net-1-1" || $1 == "net-1-2"' "$w" | wc -l)" -eq 4 ]
    samples_inside "$w"
  done
}

@test "rounds: a phase whose coordinator answers nonsense, or is gone, fails with one line naming it" {
  spec a v1 "$F/tmpfs/t1"
  mapfile -t kv <"$T/a.spec"
  mkfifo "$T/up" "$T/down"
  exec {up}<>"$T/up" {down}<>"$T/down"
  # phase_net PID : phase-net under a coordinator of pid PID (this test);
  # back with its first line, the ready of its first figure
  phase_net() {
    env "${kv[@]}" TMPDIR="$T/tmp" ROUNDS_UP="$T/up" ROUNDS_DOWN="$T/down" ROUNDS_PID="$1" \
      "$ROOT/harness/phase-net.sh" >"$T/phase.log" 2>&1 &
    pid=$!
    read -r -t 60 -u "$up" line
    [ "$line" = "ready net-1:mbps" ]
  }
  phase_net $$
  echo "go x" >&"$down"
  rc=0
  wait "$pid" || rc=$?
  cat "$T/phase.log"
  [ "$rc" -eq 1 ]
  grep -qx "net-1: the rounds coordinator said 'go x': want 'go ROUND', 'slice ROUND K N' or 'next WHY \[HALFWIDTH...\]'" "$T/phase.log"
  # a coordinator that is gone: the phase does not wait for ever (it looks every 5 s)
  sleep 0 &
  gone=$!
  wait "$gone"
  phase_net "$gone"
  wait_for_exit "$pid" 30
  rc=0
  wait "$pid" || rc=$?
  cat "$T/phase.log"
  [ "$rc" -eq 1 ]
  grep -qx "net-1: the rounds coordinator (pid $gone) is gone: net-1 got no turn" "$T/phase.log"
  exec {up}>&- {down}>&-
}
