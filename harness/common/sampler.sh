# shellcheck shell=bash disable=SC2034
# harness/common/sampler.sh: the per-second series of a phase
# (harness/sampler.sh in its own process group).


# sampler_start NAME [SAMPLER-OPTIONS...] : the per-second series of phase
# NAME (trial CUR_TRIAL) while it runs, its time budget (budget_begin) and
# its kernel profile (profile_start, harness/profile.sh); stop them all
# with sampler_stop.
sampler_start() {
  local name=$1 out
  shift
  out=$(series_file "$name" "$CUR_TRIAL")
  SAMPLER_SERIES=$out SAMPLER_ACK=$WORK/sampler.paused
  KEEP_STDERR=1 proc_start SAMPLER_GROUP "$HARNESS/sampler.sh" -o "$out" \
    -t "$TARGET" -p "$$" -L "$name" -A "$SAMPLER_ACK" "$@"
  # Until it has opened its series (then a stop still gets its last
  # sample): a phase of a few milliseconds would stop it while it starts.
  POLL_STEP=0.01 poll_until 5 sampler_wrote "$out" "$SAMPLER_GROUP" || true
  profile_start "$name"
  budget_begin "$name"
}

# sampler_wrote FILE PID : the sampler has made FILE (its series once
# opened, its pause's mark once paused), or has died.
sampler_wrote() {
  [ -e "$1" ] || ! kill -0 "$2" 2>/dev/null
}

# sampler_pause / sampler_resume : the per-second series of a trial in
# slices pauses while the other variants take their turns, and goes on
# (harness/sampler.sh's USR1 and USR2): their slices are no samples of
# this trial's, and a paused sampler takes no CPU from theirs (each read
# /proc and forked a few processes a second: 1.5% of a CPU a variant).
# The pause waits until the sampler has taken the slice's last sample (2 s,
# else a line in the phase's log).  Only a sampler that has opened its
# series: it traps the signals by then.
sampler_pause() {
  sampler_running || return 0
  rm -f "$SAMPLER_ACK"
  kill -USR1 "$SAMPLER_GROUP" 2>/dev/null || return 0
  POLL_STEP=0.005 poll_until 2 sampler_wrote "$SAMPLER_ACK" "$SAMPLER_GROUP" ||
    printf 'sampler: did not pause within 2 s\n' >>"$PHASE_LOG"
  rm -f "$SAMPLER_ACK"
}
sampler_resume() {
  sampler_running || return 0
  kill -USR2 "$SAMPLER_GROUP" 2>/dev/null || :
}
sampler_running() {
  [ -n "${SAMPLER_GROUP:-}" ] && [ -e "${SAMPLER_SERIES:-}" ]
}

# sampler_stop : the budget's part ends (budget_end), the sampler takes its
# last sample and ends.
sampler_stop() {
  budget_end
  profile_stop
  proc_stop "${SAMPLER_GROUP:-}"
  SAMPLER_GROUP=''
  profile_save
}
