#!/usr/bin/env bash
# harness/phase-serve.sh : for MODE in SERVE_MODES (default "1 32 fork";
# SERVE_PROCS alone when only that is set) and CONC in REPLAY_CONC (default 100; a list like
# "100 20" runs each): flush the cache (FLUSH), check that it is cold
# (proof_cold: resident_pct), start the server on TARGET/data (a number:
# bin/httpd -q -N MODE; fork: tcpserver -c CONC forking bin/httpd -1 -q for
# each connection), replay the first REPLAY_COUNT (10000; 0 = all) lines of
# the dataset's requests.txt (CONC connections, REPLAY_KEEPALIVE requests
# each, every response checked against the manifest) on the cold cache, stop
# the server and wait for all its processes; then the same on the warm cache
# (a fresh server, so that its CPU time is the warm replay's).  Each record
# name has its own block trace (BLKLAT=1): the flush and its proof are in
# none (proof_flush).
# Records serve-cold-MODE and serve-warm-MODE (for the first CONC;
# serve-cold-MODE-cCONC and serve-warm-MODE-cCONC for the others): replay's
# requests failed resets retries timeouts bytes wall_s rps mbps lat_p50_ms
# lat_p99_ms (and its extras; a warm figure's repeats within the phase
# measure the steady window alone, replay --no-first-pass, without wall_s,
# rps, mbps, lat_*), conc, tool_cpu_share, status; the cold ones
# (and the warm ones in slices) also resident_pct.  Where tcpserver
# (TCPSERVER; Debian: ucspi-tcp) is missing, the fork ones record "status
# skipped" and skip_reason instead.
# REPLAY_FROM=host runs the replay there over ssh.  FLUSH=reboot: the first
# cold replay checks the reboot, the others drop the cache.
# The request list names files of the update tarball: when TARGET/data holds
# the first tarball only, phase untar2 runs first, as its own phase
# (serve_update_first).  A replay with more failed requests than
# REPLAY_MAX_FAILED (0) fails the phase, its figures recorded (replay_verdict).
# Under harness/rounds.sh (ROUNDS_UP set) each mode's cold and warm figures
# are one group of turns with the other variants: a cold trial, then a warm
# one, each turn (serve_rounds, docs/harness.md#rounds).  With slices
# (turn_sliced: STEADY_SLICES above 1 and a steady window) each mode's cold
# figure is a group, a cold trial a turn; then, the cache warmed again
# (serve_prime), each warm figure is a group whose trials are taken in
# slices, a slice a turn (serve_rounds_alone, docs/harness.md#slices).
set -eu
# Before common.sh gives SERVE_PROCS its default: set alone (the setting
# from before SERVE_MODES), it names the modes, without fork.
[ -n "${SERVE_MODES:-}" ] || [ -z "${SERVE_PROCS:-}" ] || SERVE_MODES=$SERVE_PROCS
SHOOTOUT_ROOT=${SHOOTOUT_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=SCRIPTDIR/lib.sh
. "$SHOOTOUT_ROOT/harness/lib.sh"
# shellcheck source=SCRIPTDIR/common.sh
. "$SHOOTOUT_ROOT/harness/common.sh"

# serve_suffix CONC : the record-name suffix of a REPLAY_CONC value: none
# for the first, -cCONC for the others.
serve_suffix() {
  [ "$1" = "${concs[0]}" ] || printf -- '-c%s' "$1"
}

read -r -a concs <<<"$REPLAY_CONC"
[ ${#concs[@]} -gt 0 ] || harness_die "REPLAY_CONC is empty: want numbers of connections like '100' or '100 20'"
maxconc=0 seen=' '
for c in "${concs[@]}"; do
  case $c in *[!0-9]* | 0) harness_die "REPLAY_CONC='$REPLAY_CONC': want numbers of connections like '100' or '100 20'" ;; esac
  case $seen in *" $c "*) harness_die "REPLAY_CONC='$REPLAY_CONC' names $c twice" ;; esac
  seen="$seen$c "
  [ "$c" -le "$maxconc" ] || maxconc=$c
done
SERVE_MODES=${SERVE_MODES:-$SERVE_PROCS fork}
names=()
for p in $SERVE_MODES; do
  case $p in fork) ;; '' | *[!0-9]* | 0) harness_die "SERVE_MODES='$SERVE_MODES': want numbers of processes and fork, like '1 32 fork'" ;; esac
  for c in "${concs[@]}"; do
    names+=("serve-cold-$p$(serve_suffix "$c")" "serve-warm-$p$(serve_suffix "$c")")
  done
done
[ ${#names[@]} -gt 0 ] || harness_die "SERVE_MODES is empty: want numbers of processes and fork, like '1 32 fork'"
fork_skip=''
command -v "${TCPSERVER:-tcpserver}" >/dev/null 2>&1 ||
  fork_skip="no ${TCPSERVER:-tcpserver}: install ucspi-tcp (Debian: apt-get install ucspi-tcp) for the process-per-connection server"
# CLIENT_CPUS checked before anything is written
serve_cpus
serve_update_first
phase_begin "${names[0]}" "${names[@]}"
phase_warn_atime
serve_prepare "$maxconc"
SAMPLER_TOTAL=$REPLAY_TOTAL

method=$FLUSH
base=$CUR_TRIAL

# serve_once KIND P CONC : one replay of KIND (cold or warm) against a
# fresh server of mode P (so that its CPU time is this replay's), its
# figures recorded as CUR_PHASE's trial CUR_TRIAL; its rate appended to
# RATES (the end line's median).
serve_once() {
  serve_start "$@"
  replay_run "$CUR_PHASE" "$CONNECT_ADDR:$HTTPD_PORT" "${serve_args[@]}"
  serve_figures "$3"
}

# serve_start KIND P CONC : the server of a trial, and its replay's
# arguments (serve_args); serve_figures CONC : after the replay, its
# records, and the server stopped.
serve_start() {
  local kind=$1 p=$2 c=$3 more=()
  if [ "$kind" != cold ]; then
    replay_steady_args "$CUR_TRIAL" "$base"
    more=("${STEADY_ARGS[@]}")
  fi
  blklat_switch "$CUR_PHASE"
  serve_httpd "$DATA" "$p" "$BIND_ADDR"
  harness_say "replay $SAMPLER_TOTAL requests, $c connections, $REPLAY_KEEPALIVE per connection ($kind, trial $CUR_TRIAL)"
  serve_args=(-c "$c" -k "$REPLAY_KEEPALIVE" "${REPLAY_ARGS[@]}" "${more[@]}")
}
serve_figures() {
  local rps
  serve_ran_through
  record_stats "$CUR_PHASE" "$CUR_TRIAL" "$WORK/$CUR_PHASE.stats"
  record "$CUR_PHASE" "$CUR_TRIAL" conc "$1" count
  replay_verdict "$CUR_PHASE"
  record "$CUR_PHASE" "$CUR_TRIAL" status 0 exit
  rps=$(stat_value "$WORK/$CUR_PHASE.stats" "$(precision_metric "$CUR_PHASE")")
  harness_say "$rps req/s, $(stat_value "$WORK/$CUR_PHASE.stats" failed) failed"
  RATES+=("$rps")
  proc_stop "$HTTPD_GROUP"
}

# serve_trial KIND P CONC : one trial of KIND: a cold one is a flush, its
# proof and a replay; a warm one a replay (and its steady window,
# MIN_MEASURE_S) on the cache the cold ones left.
serve_trial() {
  if [ "$1" = cold ]; then
    harness_say "flush ($method), $([ "$2" = fork ] && echo "tcpserver -c $3, httpd -1" || echo "httpd -N $2")"
    proof_flush "$method"
    proof_cold "$method"
    [ "$method" != reboot ] || method=drop
  fi
  serve_once "$@"
}

# serve_rounds P CONC SUFFIX : the cold and warm figures of mode P as turns
# under harness/rounds.sh (harness/common/turns.sh): each turn a cold trial,
# then a warm one on the cache it left, both of one trial number and round.
serve_rounds() {
  local p=$1 c=$2 cold=serve-cold-$1$3 warm=serve-warm-$1$3 t=$base kind rps cold_rates=() warm_rates=()
  while precision_next_trial "$cold" "$t" && turn_ready "$cold" "$warm"; do
    for kind in cold warm; do
      precision_next_trial "serve-$kind-$p$3" "$t"
      turn_record "$CUR_PHASE" "$t"
      RATES=()
      serve_trial "$kind" "$p" "$c"
      if [ "$kind" = cold ]; then cold_rates+=("${RATES[@]}"); else warm_rates+=("${RATES[@]}"); fi
    done
    t=$((t + 1))
  done
  [ "$t" -gt "$base" ] || harness_die "the rounds coordinator ended $cold before its first turn"
  # back to the last trial that ran (the next one was only waited for)
  CUR_TRIAL=$((t - 1))
  phase_move "$warm"
  turn_end "$cold" "$CUR_TRIAL" 0
  turn_end "$warm" "$CUR_TRIAL" 1
  rps=$(printf '%s\n' "${cold_rates[@]}" | precision_median)
  phase_figure "cold-$p$3 ${rps%%.*} req/s$(precision_note "$cold" "$base" $((t - 1)))"
  rps=$(printf '%s\n' "${warm_rates[@]}" | precision_median)
  phase_figure "warm-$p$3 ${rps%%.*} req/s$(precision_note "$warm" "$base" $((t - 1)))"
}

# serve_rounds_alone KIND P CONC SUFFIX : in slices (turn_sliced), the
# KIND (cold or warm) figure of mode P is a group of its own: a cold trial a
# turn; after every mode's cold group, the warm figure's, each trial in
# slices (the other variants' flushes have emptied the cache since this
# variant's cold turns: serve_prime warms it again first).
serve_rounds_alone() {
  local kind=$1 p=$2 c=$3 name=serve-$1-$2$4 t=$base rates=() sliceable=()
  [ "$kind" = cold ] || sliceable=(-s)
  FORK_CONC=$c
  precision_next_trial "$name" "$t"
  while turn_ready "${sliceable[@]}" "$name"; do
    [ "$TURN_SLICE" != 1 ] || turn_record "$name" "$t"
    RATES=()
    if [ "$TURN_SLICES" = 1 ]; then
      serve_trial "$kind" "$p" "$c"
    else
      if [ "$TURN_SLICE" = 1 ]; then
        # the others' turns since the prime left this variant's dataset cached
        [ "$kind" = cold ] || proof_warm
        serve_start "$kind" "$p" "$c"
      fi
      slice_turn "$name" "$CONNECT_ADDR:$HTTPD_PORT" "${serve_args[@]}" || continue
      serve_figures "$c"
    fi
    rates+=("${RATES[@]}")
    t=$((t + 1))
    precision_next_trial "$name" "$t"
  done
  serve_rounds_end "$name" "$t" "$kind-$p$4" "${rates[@]}"
}

# serve_rounds_end NAME NEXT LABEL RATE... : the group of NAME is done after
# its trial NEXT - 1: its precision records and its figure.
serve_rounds_end() {
  local name=$1 t=$2 label=$3 rps
  shift 3
  [ -z "$SLICE_PID" ] || harness_die "the rounds coordinator ended $name in the middle of a trial in slices"
  [ "$t" -gt "$base" ] || harness_die "the rounds coordinator ended $name before its first turn"
  CUR_TRIAL=$((t - 1))
  phase_move "$name"
  turn_end "$name" "$CUR_TRIAL" 0
  rps=$(printf '%s\n' "$@" | precision_median)
  phase_figure "$label ${rps%%.*} req/s$(precision_note "$name" "$base" "$CUR_TRIAL")"
}

# serve_prime : the dataset read once through a server (httpd -N 1, one pass
# of the request list, no figure), so that the warm trials in slices start
# on a warm cache; its output in the log of the first warm figure's trial.
serve_prime() {
  blklat_pause
  printf '# warming the cache for the warm trials in slices: one pass of the request list, no figure\n' >>"$PHASE_LOG"
  harness_say "warming the cache for the warm trials in slices: one pass of the request list, no figure"
  serve_httpd "$DATA" 1 "$BIND_ADDR"
  replay_local "${REPLAY_ARGS[@]}"
  TOOL_OK=1 proc_run replay "${CLIENT_BIND[@]}" "$HARNESS_BIN/replay" -c "$maxconc" -k "$REPLAY_KEEPALIVE" \
    "${REPLAY_LOCAL[@]}" "$CONNECT_ADDR:$HTTPD_PORT"
  proc_stop "$HTTPD_GROUP"
  # no figure: its server's CPU and histograms are no trial's (proof_record_cpu, blklat_end)
  { awk -F '\t' -v f="$HTTPD_STATS" '$3 != f' "$WORK/tool-cpu.tsv" >"$WORK/tool-cpu.tsv.new" &&
    mv -f "$WORK/tool-cpu.tsv.new" "$WORK/tool-cpu.tsv"; } || harness_die "cannot write $WORK/tool-cpu.tsv"
}

sliced=''
! turn_sliced || sliced=1
warm_todo=()
for p in $SERVE_MODES; do
  for c in "${concs[@]}"; do
    sfx=$(serve_suffix "$c")
    CUR_TRIAL=$base
    phase_move "serve-cold-$p$sfx"
    if [ "$p" = fork ] && [ -n "$fork_skip" ]; then
      for kind in cold warm; do
        record "serve-$kind-$p$sfx" "$CUR_TRIAL" status skipped exit
        record "serve-$kind-$p$sfx" "$CUR_TRIAL" skip_reason "$fork_skip" text
        printf '%s: skipped, %s\n' "serve-$kind-$p$sfx" "$fork_skip" >&2
      done
      continue
    fi
    FORK_CONC=$c
    if [ -n "$sliced" ]; then
      serve_rounds_alone cold "$p" "$c" "$sfx"
      warm_todo+=("$p:$c")
      continue
    fi
    if turn_active; then
      serve_rounds "$p" "$c" "$sfx"
      continue
    fi
    # Each figure's trials (harness/common/precision.sh), serve_trial each.
    for kind in cold warm; do
      name=serve-$kind-$p$sfx
      precision_begin
      RATES=()
      for ((t = base; ; t++)); do
        precision_next_trial "$name" "$t"
        precision_trial_began
        serve_trial "$kind" "$p" "$c"
        precision_more "$name" || break
      done
      precision_end "$name" "$t"
      rps=$(printf '%s\n' "${RATES[@]}" | precision_median)
      phase_figure "$kind-$p$sfx ${rps%%.*} req/s$(precision_note "$name" "$base" "$t")"
    done
  done
done
if [ ${#warm_todo[@]} -gt 0 ]; then
  CUR_TRIAL=$base
  phase_move "serve-warm-${warm_todo[0]%%:*}$(serve_suffix "${warm_todo[0]#*:}")"
  serve_prime
  for pc in "${warm_todo[@]}"; do
    serve_rounds_alone warm "${pc%%:*}" "${pc#*:}" "$(serve_suffix "${pc#*:}")"
  done
fi
CUR_TRIAL=$base
phase_finish
