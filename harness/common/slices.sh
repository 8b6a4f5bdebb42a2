# shellcheck shell=bash disable=SC2034
# harness/common/slices.sh: one trial of a steady-window figure (warm
# serve, net) taken in slices under harness/rounds.sh (turn_sliced,
# docs/harness.md#slices): one bin/replay with --slices N and a gate,
# paused between its slices while the other variants take theirs.
#
# The trial's steady window (MIN_MEASURE_S) is cut into the coordinator's N
# slices.  Slice 1 starts the replay (its first pass, the method's figure,
# then the first slice of the window); between slices the replay has
# nothing in flight and no connection open, and waits on its gate (two
# FIFOs in WORK); slice N ends it.  The time budget, the profile and the
# per-second series count the variant's own slices only (budget_pause,
# profile_pause, sampler_pause): the series has a gap where the others
# measured.

# The replay of the trial in slices: its pid (also TOOL_PID, so that an
# interrupt stops it), the gate's FIFOs (held read-write here), its figures.
SLICE_PID='' SLICE_IN_FD='' SLICE_OUT_FD='' SLICE_ARGS=()

# slice_turn NAME ADDR REPLAY-ARGS... : slice TURN_SLICE of TURN_SLICES of
# NAME's trial CUR_TRIAL, the replay's figures into WORK/NAME.{stats,series}
# (as replay_run): slice 1 starts the replay, the others let it go on.
# Status 0 once the replay has ended (after the last slice; TOOL_RC its exit
# status, replay_check done), 1 while it waits for the next slice.
slice_turn() {
  local name=$1 addr=$2
  shift 2
  if [ "$TURN_SLICE" = 1 ]; then
    slice_start "$name" "$addr" "$@"
  else
    [ -n "$SLICE_PID" ] || harness_die "slice $TURN_SLICE of $name's trial $CUR_TRIAL: its replay was never started (slice 1)"
    budget_resume
    profile_resume
    sampler_resume
    printf 'go\n' >&"$SLICE_IN_FD" || harness_die "cannot write to the replay's gate $WORK/gate.in"
  fi
  slice_wait "$name"
}

# slice_start NAME ADDR REPLAY-ARGS... : the gate, the sampler and the
# replay, in a process group of its own (proc_tool's way), in the background.
slice_start() {
  local name=$1 addr=$2 opts=$-
  shift 2
  rm -f "$WORK/gate.in" "$WORK/gate.out"
  mkfifo "$WORK/gate.in" "$WORK/gate.out" || harness_die "cannot make the replay's gate in $WORK"
  exec {SLICE_IN_FD}<>"$WORK/gate.in" {SLICE_OUT_FD}<>"$WORK/gate.out"
  replay_local "$@"
  SLICE_ARGS=("${REPLAY_LOCAL[@]}" --slices "$TURN_SLICES" --gate-in "$WORK/gate.in" --gate-out "$WORK/gate.out"
    --stats "$WORK/$name.stats" --series "$WORK/$name.series" "$addr")
  sampler_start "$name" -s "$WORK/$name.series" -d ${SAMPLER_TOTAL:+-R "$SAMPLER_TOTAL"}
  serve_cpus
  printf '$ %s\n' "${CLIENT_BIND[*]} $HARNESS_BIN/replay ${SLICE_ARGS[*]}" >>"$PHASE_LOG"
  TOOL_RC=0
  set -m
  { lock_close_fds; exec {SLICE_IN_FD}>&- {SLICE_OUT_FD}>&-; exec "${CLIENT_BIND[@]}" "$HARNESS_BIN/replay" "${SLICE_ARGS[@]}"; } \
    </dev/null >>"$PHASE_LOG" 2>"$WORK/replay.err" &
  SLICE_PID=$!
  [[ $opts == *m* ]] || set +m
  TOOL_PID=$SLICE_PID
  strays_note "-$SLICE_PID" "replay ${SLICE_ARGS[*]}"
}

# slice_wait NAME : until the replay says it has paused (status 1: its
# slice is over, nothing in flight; the budget and profile paused) or has
# ended (status 0: its figures checked, the sampler stopped).
slice_wait() {
  local line='' part='' rc
  while :; do
    rc=0
    # a read that times out keeps what it had of a line: the rest follows
    read -r -t 0.25 -u "$SLICE_OUT_FD" line || rc=$?
    part+=$line line=''
    if [ "$rc" = 0 ]; then
      [ "$part" = "paused $TURN_SLICE" ] ||
        harness_die "the replay's gate said '$part' after slice $TURN_SLICE of $TURN_SLICES: want 'paused $TURN_SLICE'"
      profile_pause
      sampler_pause
      budget_pause
      return 1
    fi
    [ "$rc" -gt 128 ] || harness_die "cannot read the replay's gate $WORK/gate.out"
    kill -0 "$SLICE_PID" 2>/dev/null || break
  done
  wait "$SLICE_PID" || TOOL_RC=$?
  TOOL_PID='' SLICE_PID=''
  exec {SLICE_IN_FD}>&- {SLICE_OUT_FD}>&-
  rm -f "$WORK/gate.in" "$WORK/gate.out"
  cat "$WORK/replay.err" >>"$PHASE_LOG"
  CUR_PHASE=$1 proof_note_cpu replay "${SLICE_ARGS[@]}"
  sampler_stop
  if [ "$TOOL_RC" -gt 1 ]; then
    sed 's/^/  /' "$WORK/replay.err" | tail -n 5 >&2
    harness_die "replay exited $TOOL_RC: $(grep -v '^[[:space:]]*$' "$WORK/replay.err" | tail -n 1)"
  fi
  [ "$TURN_SLICE" = "$TURN_SLICES" ] ||
    harness_die "the replay ended after slice $TURN_SLICE of $TURN_SLICES (exit $TOOL_RC): see $PHASE_LOG"
  replay_check "$1"
  return 0
}
