#!/usr/bin/env bash
# harness/rounds.sh PHASE SPEC... : the figures of PHASE (serve or net) of
# several variants that coexist on this host, taken in rounds
# (docs/harness.md#rounds): each SPEC file is the environment of one
# variant's phase, a KEY=VALUE line each, the settings `make phase-PHASE`
# would get (TARGET, VARIANT, ...).  Every phase starts at once, and they
# take turns (harness/common/turns.sh): a round is one turn of every variant
# at the current figure group, in a shuffled order (seeded: ROUNDS_SEED,
# default the run id; the order in RUN/HOST/rounds.tsv); only one variant
# measures at a time, the others wait in a read.  After each round the
# stopping rule of the group: one round with PRECISION=0; else the group
# stops when plots/stats.py blocked says every figure of it is precise (2
# rounds at least), when it has PRECISION_MAX_TRIALS rounds in the run, or
# when another round would take its time in this call past PRECISION_MAX_S
# x the variants x the group's figures.  A group its phases call sliceable
# (a steady window: warm serve, net) takes each round in STEADY_SLICES
# slices (default 8; 1: whole trials), a turn per variant and slice, the
# order shuffled for each slice (docs/harness.md#slices).  A variant whose phase ends early is out; the others go
# on.  Round numbers continue across calls (a second cycle).
# Prints a progress line per turn and one when a group stops on stderr, one
# line per variant on stdout at the end ("VARIANT<TAB>ok|failed|refused|
# interrupted<TAB>its phase's last line"), and exits 1 when a variant's
# phase failed.  A SPEC that is not right is one line, exit 2, before
# anything is started or written.
set -eu
SHOOTOUT_ROOT=${SHOOTOUT_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=SCRIPTDIR/lib.sh
. "$SHOOTOUT_ROOT/harness/lib.sh"
# shellcheck source=SCRIPTDIR/poll.sh
. "$SHOOTOUT_ROOT/harness/poll.sh"
# shellcheck source=SCRIPTDIR/os.sh
. "$SHOOTOUT_ROOT/harness/os.sh"
# shellcheck source=SCRIPTDIR/common/settings.sh
. "$SHOOTOUT_ROOT/harness/common/settings.sh"
# shellcheck source=SCRIPTDIR/common/rounds-plan.sh
. "$SHOOTOUT_ROOT/harness/common/rounds-plan.sh"

usage() {
  cat <<'EOF'
usage: harness/rounds.sh PHASE SPEC... [-- COMMAND...]
  PHASE    serve or net: harness/phase-PHASE.sh runs once per SPEC, all at
           once, taking turns: one variant measures at a time
  SPEC     a file per variant: its phase's environment, one KEY=VALUE line
           each (KEY like TARGET or VARIANT, the value verbatim to the end
           of the line; empty lines are skipped), on top of this environment
  COMMAND  what runs each variant's phase, in its SPEC's environment
           (default harness/phase-PHASE.sh; the playbooks give their
           make -C CHECKOUT phase-PHASE, as for every other phase)
Every SPEC names its own VARIANT and TARGET; RESULTS, RUN_ID, HOST and
PRECISION, PRECISION_MAX_TRIALS, PRECISION_MAX_S, STEADY_SLICES and
MIN_MEASURE_S are the same in all (one run, one stopping rule).
STEADY_SLICES (default 8; 1 to 64): the warm serve and net trials are taken
in that many slices of their steady window, the variants' slices in turn.
ROUNDS_SEED (default: the run id) seeds the
shuffles; the order of each round goes to RESULTS/RUN/HOST/rounds.tsv.
Each variant's phase output ends in RESULTS/RUN/HOST/VARIANT/logs/rounds-PHASE.log.
stderr: "rounds: GROUP round R: VARIANT (K of N)" per turn (a round in
slices: one line, "GROUP round R: N slices of each of V variants"), a line when a
group stops and why (also appended to the file ROUNDS_PROGRESS, when set,
as "HOST<TAB>round<TAB>TEXT" lines: make demo's progress); stdout at the end, one line per variant:
VARIANT<TAB>ok|failed|refused|interrupted<TAB>its phase's last line.
Exit 0: every phase ok; 1: one failed or was refused; 2: a bad SPEC (nothing
started, nothing written); 130/143: interrupted (every phase stopped).
EOF
}

case ${1:-} in -h | --help) usage; exit 0 ;; esac
settings_check harness micro
[ $# -ge 2 ] || settings_refuse "usage: harness/rounds.sh serve|net SPEC... (-h for help)"
PHASE=$1
shift
case $PHASE in serve | net) ;; *) settings_refuse "PHASE '$PHASE': want serve or net" ;; esac
# SPEC... [-- COMMAND...]: the specs, then what runs each variant's phase
specs=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do specs+=("$1"); shift; done
PHASE_CMD=("$SHOOTOUT_ROOT/harness/phase-$PHASE.sh")
if [ $# -gt 0 ]; then
  shift
  [ $# -gt 0 ] || settings_refuse "nothing after --: want the command that runs a variant's phase, e.g. make -C DIR phase-$PHASE"
  PHASE_CMD=("$@")
fi
[ ${#specs[@]} -gt 0 ] || settings_refuse "usage: harness/rounds.sh serve|net SPEC... [-- COMMAND...] (-h for help)"
plan_specs "${specs[@]}"

# ---- the run: one round after another ------------------------------------

# The variants (from 0, in SPEC order): their phase's pid, log, exit status
# (empty while it runs), the group it waits for (empty: none), its figures
# ("NAME:METRIC ...") and the FIFO fds.
PIDS=() LOGS=() RCS=() PENDING=() FIGS=() SLICEABLE=() UP_FD=() DOWN_FD=()
GROUP_ORDER=() TMP='' STOPPING=''

# rounds_say TEXT : a progress line on stderr.
rounds_say() {
  printf 'rounds: %s\n' "$*" >&2
  # and to make demo's progress file (the playbook's ROUNDS_PROGRESS)
  [ -z "${ROUNDS_PROGRESS:-}" ] || printf '%s\tround\t%s\n' "$HOST" "$*" >>"$ROUNDS_PROGRESS" 2>/dev/null || :
}

# rounds_start : the FIFOs (held read-write here, so that a line written
# waits for its reader) and every variant's phase, each the leader of a
# session of its own, none holding the others' FIFOs.
rounds_start() {
  local i fd fds=() k
  for i in "${!VARIANTS[@]}"; do
    mkfifo "$TMP/$i.up" "$TMP/$i.down"
    exec {fd}<>"$TMP/$i.up"
    UP_FD[i]=$fd
    exec {fd}<>"$TMP/$i.down"
    DOWN_FD[i]=$fd
    fds+=("${UP_FD[i]}" "${DOWN_FD[i]}")
  done
  for i in "${!VARIANTS[@]}"; do
    LOGS[i]=$TMP/$i.log
    RCS[i]='' PENDING[i]='' FIGS[i]=''
    printf '== harness/rounds.sh %s: %s\n' "$PHASE" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"${LOGS[i]}"
    rounds_exec "$i" "${fds[@]}" </dev/null >>"${LOGS[i]}" 2>&1 &
    PIDS[i]=$!
  done
}

# rounds_exec I FD... : (in the background) become variant I's phase, the
# leader of a session of its own, without the coordinator's FDs.
rounds_exec() {
  local i=$1 k
  shift
  for k in "$@"; do exec {k}>&-; done
  trap - EXIT INT TERM HUP
  unset ROUNDS_STATS
  os_setsid env "${SPEC_ENV[@]:${SPEC_FROM[i]}:${SPEC_COUNT[i]}}" RUN_ID="$RUN_ID" \
    SHOOTOUT_ROOT="$SHOOTOUT_ROOT" ROUNDS_UP="$TMP/$i.up" ROUNDS_DOWN="$TMP/$i.down" ROUNDS_PID=$$ \
    "${PHASE_CMD[@]}"
}

# rounds_receive I : variant I's next line: "ready NAME:METRIC...
# [sliceable]" sets PENDING, FIGS and SLICEABLE; status 1 when its phase has ended instead (RCS).  Looks
# four times a second whether the phase is still there.
rounds_receive() {
  local i=$1 line='' part='' rc words w
  while :; do
    [ -z "$STOPPING" ] || rounds_interrupted
    rc=0
    # a read that times out keeps what it had of a line: the rest follows
    read -r -t 0.25 -u "${UP_FD[i]}" line || rc=$?
    part+=$line line=''
    [ "$rc" != 0 ] || break
    [ "$rc" -gt 128 ] || harness_die "cannot read ${VARIANTS[i]}'s FIFO $TMP/$i.up"
    if ! kill -0 "${PIDS[i]}" 2>/dev/null; then
      read -r -t 0.1 -u "${UP_FD[i]}" line && { part+=$line; break; }
      rounds_ended "$i"
      return 1
    fi
  done
  line=$part
  read -r -a words <<<"$line"
  # a last word "sliceable": the group's trials can be taken in slices
  SLICEABLE[i]=''
  if [ ${#words[@]} -ge 3 ] && [ "${words[-1]}" = sliceable ]; then
    SLICEABLE[i]=1
    unset 'words[-1]'
  fi
  if [ "${words[0]:-}" = ready ] && [ ${#words[@]} -ge 2 ]; then
    for w in "${words[@]:1}"; do
      [[ $w =~ ^[A-Za-z0-9][A-Za-z0-9._+-]*:[a-z0-9_.]+$ ]] || words=()
    done
  fi
  if [ "${words[0]:-}" != ready ] || [ ${#words[@]} -lt 2 ]; then
    rounds_say "${VARIANTS[i]}: its phase said '$line': not 'ready NAME:METRIC...': stopped"
    kill -TERM "${PIDS[i]}" 2>/dev/null || :
    poll_until 120 pid_gone "${PIDS[i]}" || kill -KILL -- "-${PIDS[i]}" 2>/dev/null || :
    rounds_ended "$i"
    return 1
  fi
  FIGS[i]=${words[*]:1}
  PENDING[i]=${words[1]%%:*}
  case " ${GROUP_ORDER[*]} " in *" ${PENDING[i]} "*) ;; *) GROUP_ORDER+=("${PENDING[i]}") ;; esac
}

# rounds_ended I : variant I's phase has ended: its exit status; what it
# left in its session (a watcher's last sleep) has a few seconds to end.
rounds_ended() {
  local rc=0
  PENDING[$1]=''
  [ -z "${RCS[$1]}" ] || return 0
  wait "${PIDS[$1]}" || rc=$?
  RCS[$1]=$rc
  POLL_STEP=0.1 poll_until 5 pid_gone "-${PIDS[$1]}" || :
}

# rounds_send I LINE : LINE to variant I's phase.
rounds_send() {
  printf '%s\n' "$2" >&"${DOWN_FD[$1]}"
}

# rounds_group G : the rounds of group G (the variants waiting for it),
# until its stopping rule says enough.
rounds_group() {
  local g=$1 r i pos members=() order=() t0 tr0 last n
  for i in "${!VARIANTS[@]}"; do [ "${PENDING[i]}" != "$g" ] || members+=("$i"); done
  r=$(($(plan_last_round "$g") + 1))
  t0=$EPOCHREALTIME
  while :; do
    [ -z "$STOPPING" ] || rounds_interrupted
    tr0=$EPOCHREALTIME
    if rounds_sliceable "${members[@]}"; then
      rounds_sliced "$g" "$r" "${members[@]}"
    else
      mapfile -t order < <(plan_shuffle "$ROUNDS_SEED-$HOST-$g-$r" "${members[@]}")
      [ ${#order[@]} -eq ${#members[@]} ] || harness_die "cannot shuffle the variants of $g round $r (python3?)"
      plan_note_round "$g" "$r" 0 "${order[@]}"
      pos=0 n=${#order[@]}
      for i in "${order[@]}"; do
        pos=$((pos + 1))
        rounds_say "$g round $r: ${VARIANTS[i]} ($pos of $n)"
        rounds_turn "$i" "$g" "$r" "go $r"
      done
    fi
    order=("${members[@]}") members=()
    for i in "${order[@]}"; do [ "${PENDING[i]}" != "$g" ] || members+=("$i"); done
    if [ ${#members[@]} -eq 0 ]; then
      rounds_say "$g stops after round $r: no variant left"
      return 0
    fi
    last=$(awk -v a="$tr0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')
    if plan_judge "$g" "$r" "$t0" "$last" "${members[@]}"; then
      rounds_say "$g stops after round $r: $JUDGE_NOTE"
      for i in "${members[@]}"; do
        rounds_send "$i" "next $JUDGE_WHY ${JUDGE_HW[*]}"
        rounds_receive "$i" || [ "${RCS[i]}" = 0 ] ||
          rounds_say "${VARIANTS[i]} is out: its phase failed after $g (exit ${RCS[i]})"
      done
      return 0
    fi
    r=$((r + 1))
  done
}

# rounds_turn I GROUP R LINE : variant I's turn: LINE sent, its next ready
# line (or its end) received and said.
rounds_turn() {
  local i=$1 g=$2 r=$3
  rounds_send "$i" "$4"
  if ! rounds_receive "$i"; then
    rounds_say "${VARIANTS[i]} is out: its phase ended in round $r of $g (exit ${RCS[i]}; see ${VARIANTS[i]}'s logs/rounds-$PHASE.log)"
  elif [ "${PENDING[i]}" != "$g" ]; then
    rounds_say "${VARIANTS[i]} left $g in round $r for ${PENDING[i]}"
  fi
}

# rounds_sliceable I... : the round is taken in slices: STEADY_SLICES above
# 1, and every variant I said its group is sliceable.
rounds_sliceable() {
  local i
  [ "$STEADY_SLICES" -gt 1 ] || return 1
  for i in "$@"; do [ -n "${SLICEABLE[i]}" ] || return 1; done
}

# rounds_sliced GROUP R I... : round R in slices: STEADY_SLICES times a
# turn of each variant still in the group, "slice R K N", in an order
# shuffled for each slice K (seed ROUNDS_SEED-HOST-GROUP-R-K).  A variant
# that leaves in the middle misses the round's later slices.
rounds_sliced() {
  local g=$1 r=$2 k i orders=() order=() inside=' '
  shift 2
  for i in "$@"; do inside+="$i "; done
  rounds_say "$g round $r: $STEADY_SLICES slices of each of $# variants, in turn"
  mapfile -t orders < <(plan_shuffle_slices "$ROUNDS_SEED-$HOST-$g-$r" "$STEADY_SLICES" "$@")
  [ ${#orders[@]} -eq "$STEADY_SLICES" ] || harness_die "cannot shuffle the variants of $g round $r (python3?)"
  for ((k = 1; k <= STEADY_SLICES; k++)); do
    [ -z "$STOPPING" ] || rounds_interrupted
    # the slice's order, less a variant that left the group in this round
    order=()
    for i in ${orders[k - 1]}; do
      case $inside in *" $i "*) order+=("$i") ;; esac
    done
    [ ${#order[@]} -gt 0 ] || break
    plan_note_round "$g" "$r" "$k" "${order[@]}"
    for i in "${order[@]}"; do
      rounds_turn "$i" "$g" "$r" "slice $r $k $STEADY_SLICES"
      [ "${PENDING[i]}" = "$g" ] || inside=${inside/ $i / }
    done
  done
}

# rounds_stop_all : every phase still running gets SIGTERM (its trap stops
# its children and records the interrupted trial; SIGINT it ignores, as a
# background job of a script), KILL to its group after 120 s.
# shellcheck disable=SC2317 # run from the traps
rounds_stop_all() {
  local i
  for i in "${!PIDS[@]}"; do
    [ -n "${RCS[i]}" ] || kill -TERM "${PIDS[i]}" 2>/dev/null || :
  done
  for i in "${!PIDS[@]}"; do
    [ -n "${RCS[i]}" ] && continue
    poll_until 120 pid_gone "-${PIDS[i]}" || kill -KILL -- "-${PIDS[i]}" 2>/dev/null || :
    RCS[i]=interrupted
  done
}

# rounds_report : each variant's line on stdout, its log appended to its
# results (where its phase made them); exit status 0 when all are ok.
rounds_report() {
  local i status line bad=0 dir
  for i in "${!VARIANTS[@]}"; do
    case ${RCS[i]} in
      0) status=ok line=$(grep -E "^$PHASE: done in " "${LOGS[i]}" | tail -n 1) ;;
      2) status=refused bad=1 ;;
      interrupted) status=interrupted bad=1 ;;
      *) status=failed bad=1 ;;
    esac
    [ "$status" = ok ] || line=$(rounds_why "$i")
    printf '%s\t%s\t%s\n' "${VARIANTS[i]}" "$status" "$line"
    dir=$RESULTS/$RUN_ID/$HOST/${VARIANTS[i]}
    if [ -d "$dir/logs" ]; then
      cat "${LOGS[i]}" >>"$dir/logs/rounds-$PHASE.log" ||
        printf 'rounds: cannot append to %s\n' "$dir/logs/rounds-$PHASE.log" >&2
    fi
  done
  return "$bad"
}

# rounds_why I : why variant I's phase did not end well: its last line
# (neither a warning nor its start line), else its exit status.
rounds_why() {
  local rc=${RCS[$1]} line
  # (make's own "make: *** ... Error 1" is no reason, where COMMAND is make)
  line=$(grep -v -E -e '^[[:space:]]*$' -e '^== harness/rounds.sh ' -e '^WARNING: ' -e "^$PHASE: start: " \
    -e '^g?make(\[[0-9]+\])?: ' "${LOGS[$1]}" | tail -n 1)
  if [ -z "$line" ]; then
    line="exit $rc"
    case $rc in 129 | 13[0-9] | 14[0-9] | 15[0-9]) line+=" (killed by SIG$(kill -l "$((rc - 128))"))" ;; esac
  fi
  printf '%s\n' "$line"
}

# rounds_on_exit : whatever ends this script stops the phases first; the FIFOs go.
# shellcheck disable=SC2317 # run from the traps
rounds_on_exit() {
  local rc=$?
  set +e
  trap '' INT TERM HUP
  [ ${#PIDS[@]} -eq 0 ] || rounds_stop_all
  [ -z "$TMP" ] || rm -rf "$TMP"
  plan_unmake_run
  exit "$rc"
}

# rounds_on_signal SIG : stop every phase, say where each stands, exit 128+N.
# rounds_interrupted : after a signal (STOPPING, which the traps set: the
# work is done here, out of the trap, which may have run inside a read's
# timeout): stop every phase, say where each stands, exit 128+N.
rounds_interrupted() {
  trap '' INT TERM HUP
  rounds_say "interrupted by SIG$STOPPING: stopping every phase"
  rounds_stop_all
  rounds_report || :
  PIDS=()
  case $STOPPING in INT) exit 130 ;; HUP) exit 129 ;; *) exit 143 ;; esac
}

plan_make_run
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rounds.XXXXXX") || harness_die "cannot make a temporary directory"
trap rounds_on_exit EXIT
trap 'STOPPING=INT' INT
trap 'STOPPING=TERM' TERM
trap 'STOPPING=HUP' HUP
rounds_start
for i in "${!VARIANTS[@]}"; do
  rounds_receive "$i" || rounds_say "${VARIANTS[i]} is out: its phase ended before its first turn (exit ${RCS[i]})"
done
while :; do
  group=''
  for g in "${GROUP_ORDER[@]}"; do
    case " ${PENDING[*]} " in *" $g "*) group=$g && break ;; esac
  done
  [ -n "$group" ] || break
  rounds_group "$group"
done
for i in "${!VARIANTS[@]}"; do [ -n "${RCS[i]}" ] || rounds_ended "$i"; done
[ -z "$STOPPING" ] || rounds_interrupted
rc=0
rounds_report || rc=1
PIDS=()
exit "$rc"
