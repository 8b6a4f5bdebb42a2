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
  KEEP_STDERR=1 proc_start SAMPLER_GROUP "$HARNESS/sampler.sh" -o "$out" \
    -t "$TARGET" -p "$$" -L "$name" "$@"
  # Until it has opened its series (then a stop still gets its last
  # sample): a phase of a few milliseconds would stop it while it starts.
  POLL_STEP=0.01 poll_until 5 sampler_opened "$out" "$SAMPLER_GROUP" || true
  profile_start "$name"
  budget_begin "$name"
}

# sampler_opened SERIES PID : the sampler has opened SERIES, or has died.
sampler_opened() {
  [ -e "$1" ] || ! kill -0 "$2" 2>/dev/null
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
