# shellcheck shell=bash disable=SC2034
# harness/common/turns.sh: a phase that takes turns with the phases of the
# other variants under harness/rounds.sh, the rounds coordinator
# (docs/harness.md#rounds).  Inert unless ROUNDS_UP and ROUNDS_DOWN are set
# (the coordinator's two FIFOs for this phase; ROUNDS_PID its pid): without
# them every phase runs its figures as it always did.
#
# Before each turn the phase writes one line to ROUNDS_UP,
#   ready NAME:METRIC [NAME:METRIC...] [sliceable]
# the figure group it wants a turn of (serve: a mode's cold and warm
# figure, or with slices its cold figure, then its warm one; net: one
# figure); "sliceable": a group of one figure whose trial can be taken in
# slices (turn_sliced), and reads one line from ROUNDS_DOWN:
#   go R                  run one trial of each figure of the group, each
#                         recording "round R"
#   slice R K N           (a sliceable group, STEADY_SLICES=N above 1) run
#                         slice K of N of round R's trial: slice 1 starts
#                         the trial and its first steady slice, slice N
#                         ends it (slice_turn, harness/common/slices.sh)
#   next WHY [HW...]      the group is done: WHY (precise, trial_cap,
#                         time_cap, single) and the half-width of each figure
#                         of the group, in the order of the ready line ("-":
#                         none) become its precision records; the phase goes
#                         on to its next group, or ends.
# Both ends open the FIFOs read-write, so that no open blocks; a phase
# waiting for its turn sleeps in a read, and looks every 5 s whether the
# coordinator is still there.

# The last answer: the round of a go or slice (and the slice, K of N: 1 of
# 1 for a go); the WHY and half-widths of a next.
TURN_ROUND='' TURN_SLICE=1 TURN_SLICES=1 TURN_WHY='' TURN_HALFWIDTHS=()

# turn_active : this phase runs under harness/rounds.sh.
turn_active() {
  [ -n "${ROUNDS_UP:-}" ] && [ -n "${ROUNDS_DOWN:-}" ]
}

# turn_sliced : this phase's one-figure groups of a steady window (warm
# serve, net) take their trials in slices: under harness/rounds.sh with
# STEADY_SLICES above 1 and a steady window (MIN_MEASURE_S), the replay on
# this host (REPLAY_FROM: over ssh, no gate), and a profile, if any, that
# can be switched off between slices (os_profile_control).
turn_sliced() {
  turn_active && [ "$STEADY_SLICES" -gt 1 ] 2>/dev/null && [ -z "$REPLAY_FROM" ] || return 1
  awk -v s="$MIN_MEASURE_S" 'BEGIN { exit !(s > 0) }' || return 1
  [ "${PROFILE:-0}" != 1 ] || { os_profile_slices && os_profile_control; } 2>/dev/null
}

# turn_ready [-s] NAME... : ask for a turn of the figure group NAME...
# (their headline metrics, precision_metric; -s: sliceable) and wait for
# the answer: status 0 on "go R" or "slice R K N" (TURN_ROUND, TURN_SLICE,
# TURN_SLICES), 1 on "next" (TURN_WHY, TURN_HALFWIDTHS).  The wait is part
# of CUR_PHASE's trial CUR_TRIAL (the caller moved there): an interrupt
# while waiting fails that trial, not the one before.
turn_ready() {
  local n spec='' line='' part='' fd rc sliceable=''
  [ "$1" != -s ] || { sliceable=' sliceable'; shift; }
  for n in "$@"; do spec+=" $n:$(precision_metric "$n")"; done
  spec+=$sliceable
  { printf 'ready%s\n' "$spec" 1<>"$ROUNDS_UP"; } 2>/dev/null ||
    harness_die "cannot write to the rounds coordinator's FIFO $ROUNDS_UP"
  exec {fd}<>"$ROUNDS_DOWN" || harness_die "cannot open the rounds coordinator's FIFO $ROUNDS_DOWN"
  while :; do
    rc=0
    # a read that times out keeps what it had of a line: the rest follows
    read -r -t 5 -u "$fd" line || rc=$?
    part+=$line line=''
    [ "$rc" != 0 ] || break
    if [ "$rc" -le 128 ] || { [ -n "${ROUNDS_PID:-}" ] && ! kill -0 "$ROUNDS_PID" 2>/dev/null; }; then
      exec {fd}>&-
      harness_die "the rounds coordinator (pid ${ROUNDS_PID:-?}) is gone: $1 got no turn"
    fi
  done
  exec {fd}>&-
  turn_parse "$part" "$#"
}

# turn_parse LINE FIGURES : the coordinator's answer, checked; status 0 for
# go, 1 for next.
turn_parse() {
  local words w
  read -r -a words <<<"$1"
  case ${words[0]:-}:${#words[@]} in
    go:2)
      case ${words[1]} in '' | *[!0-9]*) ;; *) TURN_ROUND=${words[1]} TURN_SLICE=1 TURN_SLICES=1; return 0 ;; esac ;;
    slice:4)
      if [[ "${words[*]:1}" =~ ^[1-9][0-9]*\ [1-9][0-9]*\ [1-9][0-9]*$ ]] && [ "${words[2]}" -le "${words[3]}" ]; then
        TURN_ROUND=${words[1]} TURN_SLICE=${words[2]} TURN_SLICES=${words[3]}
        return 0
      fi
      ;;
    next:*)
      TURN_WHY=${words[1]:-} TURN_HALFWIDTHS=("${words[@]:2}")
      case $TURN_WHY in precise | trial_cap | time_cap | single) ;; *) TURN_WHY='' ;; esac
      for w in "${TURN_HALFWIDTHS[@]}"; do [[ $w =~ ^(-|[0-9]+(\.[0-9]+)?)$ ]] || TURN_WHY=''; done
      [ "${#TURN_HALFWIDTHS[@]}" -le "$2" ] || TURN_WHY=''
      [ -z "$TURN_WHY" ] || return 1
      ;;
  esac
  harness_die "the rounds coordinator said '$1': want 'go ROUND', 'slice ROUND K N' or 'next WHY [HALFWIDTH...]'"
}

# turn_record NAME TRIAL : NAME's trial TRIAL ran in round TURN_ROUND.
turn_record() {
  record "$1" "$2" round "$TURN_ROUND" count
}

# turn_end NAME TRIAL INDEX : the group is done: NAME's last trial TRIAL
# records why (the coordinator's WHY) and the half-width the coordinator
# told for the group's INDEXth figure (from 0).
turn_end() {
  PREC_STOP=$TURN_WHY PREC_HALFWIDTH=${TURN_HALFWIDTHS[$3]:--}
  precision_records "$1" "$2"
}
