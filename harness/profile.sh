#!/usr/bin/env bash
# shellcheck shell=bash
# harness/profile.sh: the kernel profile of a phase (docs/profile.md).
# Sourced by harness/common.sh; sampler_start and sampler_stop call
# profile_start and profile_stop around each record name's main part (the
# span of its time budget), and profile_save once the per-second sampler
# has stopped too.  While it runs, the OS
# adapter's sampler (os_profile_record: Linux perf, FreeBSD and NetBSD
# DTrace, OpenBSD btrace) takes the on-CPU stacks of every CPU, kernel and
# user, PROFILE_HZ times a second; at the end they are folded into
# profiles/NAME-TRIAL.folded of the run directory ("ROOT;OUTER;...;INNER
# COUNT" lines, docs/formats.md).  PROFILE=0, or a host where the sampler
# cannot run (os_profile_check says why), runs the phase as without it;
# meta.json's "profile" says once which sampler ran or why none did.
#
# Where the adapter's samples carry the wall clock (os_profile_slices:
# Linux perf), one sampler runs for the whole phase: profile_stop notes
# each part's window (WORK/profile-windows.tsv) and profile_end, at the
# phase's exit, folds each window's samples into its file (perf took a
# second or more to start and stop, for each trial of a figure repeated
# until precise).  Elsewhere a sampler runs for each part.
#
# Under harness/rounds.sh the other variants' phases measure between this
# one's turns: the phase's one sampler then starts with its events off and
# is switched on for each window only (os_profile_control: perf --control),
# so that each variant's profile holds its own turns; where it cannot be
# switched, a sampler runs for each part, as on the BSDs.  With the
# switchable sampler a figure is sampled in its first PROFILE_ROUNDS rounds
# of the call only (default 1; all: every round): the sampler on costs the
# figures it runs with (a bench: serve-cold 10.6% lower), and the rounds
# after are measured without it.
#
# Run as a command, `harness/profile.sh record RAW HZ [CTL ACK]` execs the
# sampler (what profile_start starts in a process group of its own).

PROFILE_GROUP='' PROFILE_RAW='' PROFILE_NAME='' PROFILE_T0='' PROFILE_T1='' PROFILE_DONE=0 PROFILE_NOTED=0
# when the switchable sampler was last told to start sampling
PROFILE_SWITCHED=''
PROFILE_SLICED=0 PROFILE_CTL='' PROFILE_ACK=''
# PROFILE_TRIAL: the current trial is sampled (profile_wanted); PROFILE_ON:
# the switchable sampler's events are on now; PROFILE_ROUND0: each record
# name's first round in this call.
PROFILE_TRIAL=1 PROFILE_ON=0
declare -gA PROFILE_ROUND0=()

# profile_wanted : status 0 when NAME's current trial is sampled: always,
# but under harness/rounds.sh with a switchable sampler only in the first
# PROFILE_ROUNDS rounds the record name PROFILE_NAME has in this call.
profile_wanted() {
  local first
  turn_active && [ -n "$TURN_ROUND" ] && [ "${PROFILE_ROUNDS:-1}" != all ] || return 0
  first=${PROFILE_ROUND0[$PROFILE_NAME]:-}
  [ -n "$first" ] || { first=$TURN_ROUND; PROFILE_ROUND0[$PROFILE_NAME]=$first; }
  [ "$TURN_ROUND" -lt $((first + ${PROFILE_ROUNDS:-1})) ]
}
PROFILE_HZ=99

# profile_start NAME : sample while NAME (trial CUR_TRIAL) runs.
profile_start() {
  local why
  PROFILE_NAME=$1
  if [ "${PROFILE:-0}" != 1 ]; then
    profile_note "off (PROFILE=$PROFILE)"
    return 0
  fi
  # the phase's sampler runs already: a new window, if this trial is sampled
  if [ -n "$PROFILE_GROUP" ] && [ "$PROFILE_SLICED" = 1 ]; then
    PROFILE_TRIAL=1
    profile_wanted || PROFILE_TRIAL=0
    profile_window_on
    return 0
  fi
  if ! why=$(os_profile_check 2>&1); then
    profile_note "absent: ${why:-the sampler cannot run here}"
    return 0
  fi
  PROFILE_RAW=$WORK/profile-$1.raw
  rm -f "$PROFILE_RAW"
  local sliced=0 ctl=()
  ! os_profile_slices 2>/dev/null || sliced=1
  if [ "$sliced" = 1 ] && turn_active; then
    if os_profile_control && mkfifo "$WORK/profile.ctl" "$WORK/profile.ack"; then
      PROFILE_CTL=$WORK/profile.ctl PROFILE_ACK=$WORK/profile.ack
      ctl=("$PROFILE_CTL" "$PROFILE_ACK")
    else
      sliced=0
    fi
  fi
  proc_start PROFILE_GROUP "$HARNESS/profile.sh" record "$PROFILE_RAW" "$PROFILE_HZ" "${ctl[@]}"
  # Until its probes are on (a sampler that dies at once is noted, the
  # phase goes on without it).
  if ! POLL_STEP=0.01 poll_until 60 profile_started "$PROFILE_RAW" "$PROFILE_GROUP" ||
    ! kill -0 "$PROFILE_GROUP" 2>/dev/null; then
    proc_stop "$PROFILE_GROUP"
    PROFILE_GROUP=''
    # meta.json keeps the run's first note only: the log says it of this part
    printf 'profile: the sampler did not start (it ended, or wrote nothing in 60 s): no profile of %s\n' "$1" >>"$PHASE_LOG"
    profile_note "absent: the sampler did not start (see logs/$CUR_PHASE-$CUR_TRIAL.log)"
    return 0
  fi
  PROFILE_SLICED=$sliced PROFILE_TRIAL=1 PROFILE_ON=0
  if [ "$sliced" = 1 ]; then
    profile_wanted || PROFILE_TRIAL=0
    profile_window_on
  fi
  PROFILE_T0=$EPOCHREALTIME
  profile_note "$(os_profile_tool "$PROFILE_HZ")"
  # meta.json's profile is the run's first phase's (untar's, sampled
  # whole); profile_rounds says that the rounds' figures were not
  if [ -n "$PROFILE_CTL" ] && [ "${PROFILE_ROUNDS:-1}" != all ]; then
    phase_meta_set profile_rounds "${PROFILE_ROUNDS:-1}" ||
      printf 'profile: cannot write profile_rounds into %s\n' "$RUN_DIR/meta.json" >>"$PHASE_LOG"
  fi
}

# profile_window_on : the switchable sampler's events on for a window of a
# sampled trial (PROFILE_TRIAL).
profile_window_on() {
  [ "$PROFILE_TRIAL" = 1 ] || return 0
  PROFILE_SWITCHED=$EPOCHREALTIME
  profile_switch enable
  PROFILE_ON=1 PROFILE_T0=$EPOCHREALTIME
}

# profile_switch enable|disable : the phase's sampler samples from here on,
# or not, where it was started switchable (PROFILE_CTL); it answers each
# switch once done (10 s, else a line in the phase's log).
profile_switch() {
  local ack=''
  [ -n "$PROFILE_CTL" ] && kill -0 "$PROFILE_GROUP" 2>/dev/null || return 0
  printf '%s\n' "$1" 1<>"$PROFILE_CTL"
  read -r -t 10 ack <>"$PROFILE_ACK" || :
  [ "$ack" = ack ] || printf 'profile: the sampler did not answer "%s" in 10 s\n' "$1" >>"$PHASE_LOG"
}

# profile_pause / profile_resume : between the slices of a trial
# (harness/common/slices.sh, only where the sampler can be switched: a
# window of the same record name and trial ends, and another begins).
profile_pause() {
  [ -n "$PROFILE_GROUP" ] && [ "$PROFILE_SLICED" = 1 ] || return 0
  profile_stop
}
profile_resume() {
  [ -n "$PROFILE_GROUP" ] && [ "$PROFILE_SLICED" = 1 ] || return 0
  profile_window_on
}

# profile_started RAW PID : the sampler has started, or has died.
profile_started() {
  os_profile_started "$1" || ! kill -0 "$2" 2>/dev/null
}

# profile_stop : the sampler ends (SIGINT: every sampler writes out what it
# has then), with the phase's time budget.
profile_stop() {
  local g=$PROFILE_GROUP
  [ -n "$g" ] || return 0
  if [ "$PROFILE_SLICED" = 1 ]; then
    [ "$PROFILE_ON" = 1 ] || return 0
    local t1=$EPOCHREALTIME
    profile_switch disable
    # the window, then the span the sampler was on: from the enable sent
    # to the disable answered (a busy machine answers late)
    printf '%s-%s\t%s\t%s\t%s\t%s\n' "$PROFILE_NAME" "$CUR_TRIAL" "$PROFILE_T0" "$t1" "$PROFILE_SWITCHED" "$EPOCHREALTIME" \
      >>"$WORK/profile-windows.tsv"
    PROFILE_ON=0
    return 0
  fi
  PROFILE_GROUP='' PROFILE_T1=$EPOCHREALTIME
  kill -INT "$g" 2>/dev/null || true
  poll_until 30 pid_gone "$g" ||
    printf 'profile: the sampler of %s did not end within 30 s of its SIGINT: stopped\n' "$PROFILE_NAME" >>"$PHASE_LOG"
  proc_stop "$g"
  PROFILE_DONE=1
}

# profile_save : the samples of the sampler just stopped, folded into
# profiles/NAME-TRIAL.folded.  Samples an idle CPU did not take (Linux's
# cpu-clock timer does not wake a CPU sleeping without a tick) are added as
# "idle;(unsampled) N", N the samples the wall time should have had
# (seconds x HZ x CPUs online) less those taken, so that the shares are of
# the wall time of all CPUs.
profile_save() {
  local dir out cpus
  [ "$PROFILE_DONE" = 1 ] || return 0
  PROFILE_DONE=0
  dir=$RUN_DIR/profiles
  mkdir -p "$dir"
  out=$dir/$PROFILE_NAME-$CUR_TRIAL.folded
  cpus=$(getconf _NPROCESSORS_ONLN 2>/dev/null) || cpus=1
  # A sampler whose output cannot be folded leaves no profile (and a line in
  # the phase's log), not a profile of nothing but idle.  One that took no
  # sample (perf on CPUs that slept all along: a span of milliseconds) gives
  # the profile of an idle machine, and a line in the log.
  if ! os_profile_fold "$PROFILE_RAW" >"$out.tmp" 2>>"$PHASE_LOG"; then
    printf 'profile: no stacks folded from %s: no %s\n' "$PROFILE_RAW" "${out#"$RUN_DIR"/}" >>"$PHASE_LOG"
    rm -f "$out.tmp"
    return 0
  fi
  [ -s "$out.tmp" ] || printf 'profile: no sample taken in %s s: %s is all idle\n' \
    "$(harness_calc "$PROFILE_T1 - $PROFILE_T0")" "${out#"$RUN_DIR"/}" >>"$PHASE_LOG"
  profile_fill_idle "$PROFILE_T0" "$PROFILE_T1" "$PROFILE_HZ" "$cpus" <"$out.tmp" >"$out" &&
    rm -f "$out.tmp" "$PROFILE_RAW"
}

# profile_end : at the phase's exit (phase_on_exit): the phase's sampler
# stops, and each window profile_stop noted is folded into
# profiles/NAME-TRIAL.folded, as profile_save does for a part's own sampler.
profile_end() {
  local g=$PROFILE_GROUP dir cpus all key span out
  [ "$PROFILE_SLICED" = 1 ] && [ -n "$g" ] || return 0
  PROFILE_GROUP=''
  kill -INT "$g" 2>/dev/null || true
  poll_until 30 pid_gone "$g" ||
    printf 'profile: the phase sampler did not end within 30 s of its SIGINT: stopped\n' >>"$PHASE_LOG"
  proc_stop "$g"
  [ -s "$WORK/profile-windows.tsv" ] || return 0
  dir=$RUN_DIR/profiles
  mkdir -p "$dir"
  cpus=$(getconf _NPROCESSORS_ONLN 2>/dev/null) || cpus=1
  all=$WORK/profile-all.folded
  if ! os_profile_fold "$PROFILE_RAW" "$WORK/profile-windows.tsv" >"$all" 2>>"$PHASE_LOG"; then
    while IFS=$'\t' read -r key _; do
      printf 'profile: no stacks folded from %s: no %s\n' "$PROFILE_RAW" "profiles/$key.folded" >>"$PHASE_LOG"
    done <"$WORK/profile-windows.tsv"
    return 0
  fi
  # a trial in slices has a window per slice: one profile of their sum
  while IFS=$'\t' read -r key span; do
    out=$dir/$key.folded
    awk -F '\t' -v k="$key" '$1 == k { print $2 }' "$all" >"$out.tmp"
    [ -s "$out.tmp" ] || printf 'profile: no sample taken in %s s: %s is all idle\n' \
      "$span" "profiles/$key.folded" >>"$PHASE_LOG"
    profile_fill_idle 0 "$span" "$PROFILE_HZ" "$cpus" <"$out.tmp" >"$out" && rm -f "$out.tmp"
  done < <(awk -F '\t' '!($1 in d) { k[++n] = $1 } { d[$1] += $3 - $2 } END { for (i = 1; i <= n; i++) printf "%s\t%.6f\n", k[i], d[k[i]] }' \
    "$WORK/profile-windows.tsv")
  rm -f "$all" "$PROFILE_RAW"
}

# profile_fill_idle T0 T1 HZ CPUS < FOLDED : FOLDED, and the "idle;(unsampled)"
# line of the samples missing from (T1 - T0) x HZ x CPUS.
profile_fill_idle() {
  awk -v t0="$1" -v t1="$2" -v hz="$3" -v cpus="$4" '
    { print; n += $NF }
    END {
      want = int((t1 - t0) * hz * cpus + 0.5)
      if (want > n) print "idle;(unsampled) " want - n
    }'
}

# profile_note TEXT : meta.json's "profile" is TEXT, unless a phase of this
# run has set it already (said once per run directory; looked at once per
# phase, not at each trial's start: PROFILE_NOTED).
profile_note() {
  [ "$PROFILE_NOTED" = 0 ] || return 0
  [ -s "$RUN_DIR/meta.json" ] || return 0
  PROFILE_NOTED=1
  jq -e 'has("profile")' "$RUN_DIR/meta.json" >/dev/null 2>&1 && return 0
  phase_meta_set profile "$1"
}

if [ "${1:-}" = record ] && [ "${BASH_SOURCE[0]}" = "$0" ]; then
  SHOOTOUT_ROOT=${SHOOTOUT_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
  # shellcheck source=harness/os.sh
  . "$SHOOTOUT_ROOT/harness/os.sh"
  os_profile_record "$2" "$3" ${4:+"$4" "$5"}
fi
