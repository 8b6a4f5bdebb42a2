# shellcheck shell=bash disable=SC2034
# harness/common/replay.sh: bin/replay here or on REPLAY_FROM over ssh, and
# its arguments.

# The ssh command line to REPLAY_FROM (SSH, split into words); replay_local's
# arguments.
REPLAY_SSH=() REPLAY_LOCAL=()

# replay_run NAME HOST:PORT REPLAY-ARGS... : bin/replay with --stats and
# --series into WORK/NAME.{stats,series}, here or on REPLAY_FROM over ssh
# (SSH, default "ssh -o BatchMode=yes"; REPLAY_BIN the binary there, default
# this checkout's path).  Files named in the arguments as @FILE are copied to
# the remote host first.  The sampler of NAME runs meanwhile.
replay_run() {
  local name=$1 addr=$2 a args=() rargs=() rdir
  shift 2
  replay_local "$@"
  args=("${REPLAY_LOCAL[@]}")
  if [ -z "$REPLAY_FROM" ]; then
    sampler_start "$name" -s "$WORK/$name.series" -d ${SAMPLER_TOTAL:+-R "$SAMPLER_TOTAL"}
    serve_cpus
    TOOL_OK=1 proc_run replay "${CLIENT_BIND[@]}" "$HARNESS_BIN/replay" "${args[@]}" --stats "$WORK/$name.stats" --series "$WORK/$name.series" "$addr"
    sampler_stop
    replay_check "$name"
    return 0
  fi
  read -r -a REPLAY_SSH <<<"${SSH:-ssh -o BatchMode=yes}"
  if [ -z "${REMOTE_DIR:-}" ]; then
    REMOTE_DIR=$("${REPLAY_SSH[@]}" "$REPLAY_FROM" mktemp -d /tmp/shootout-replay.XXXXXX) ||
      harness_die "cannot reach REPLAY_FROM=$REPLAY_FROM over ssh: check '${REPLAY_SSH[*]} $REPLAY_FROM true' works without a password"
    PHASE_CLEANUP+=" replay_remote_cleanup"
  fi
  # ssh hands the remote shell one command line: every word of it is quoted
  # (%q), REMOTE_DIR (the remote mktemp's answer) and the address too.
  printf -v rdir '%q' "$REMOTE_DIR"
  for a in "$@"; do
    case $a in
      @*)
        [ -e "$WORK/sent-$(basename "$a")" ] ||
          "${REPLAY_SSH[@]}" "$REPLAY_FROM" "cat > $rdir/$(printf '%q' "$(basename "$a")")" <"${a#@}" ||
          harness_die "cannot copy ${a#@} to $REPLAY_FROM:$rdir"
        : >"$WORK/sent-$(basename "$a")"
        rargs+=("$rdir/$(printf '%q' "$(basename "$a")")")
        ;;
      *) rargs+=("$(printf '%q' "$a")") ;;
    esac
  done
  sampler_start "$name" -m none
  TOOL_OK=1 proc_run replay "${REPLAY_SSH[@]}" "$REPLAY_FROM" "$(printf '%q' "${REPLAY_BIN:-$HARNESS_BIN/replay}")" "${rargs[@]}" \
    --stats "$rdir/$name.stats" --series "$rdir/$name.series" "$(printf '%q' "$addr")"
  sampler_stop
  "${REPLAY_SSH[@]}" "$REPLAY_FROM" "cat $rdir/$name.stats" >"$WORK/$name.stats" ||
    harness_die "cannot fetch the replay figures from $REPLAY_FROM:$rdir"
  "${REPLAY_SSH[@]}" "$REPLAY_FROM" "cat $rdir/$name.series" >"$WORK/$name.series" 2>/dev/null || true
  replay_check "$name"
}

# replay_steady_args TRIAL FIRST : the options of a warm serve or net
# replay, its steady window (MIN_MEASURE_S; none with 0), into STEADY_ARGS:
# --min-time, and --no-first-pass unless TRIAL is FIRST, the figure's first
# trial in this phase: the method's first pass is measured there, its
# repeats measure the window alone.
replay_steady_args() {
  STEADY_ARGS=()
  [ "$MIN_MEASURE_S" != 0 ] || return 0
  STEADY_ARGS=(--min-time "$MIN_MEASURE_S")
  [ "$1" = "$2" ] || STEADY_ARGS+=(--no-first-pass)
}

# replay_local REPLAY-ARGS... : the arguments of a replay on this host
# into REPLAY_LOCAL: a file named @FILE (copied first to a remote client) is
# FILE.
replay_local() {
  local a
  REPLAY_LOCAL=()
  for a in "$@"; do
    case $a in @*) REPLAY_LOCAL+=("${a#@}") ;; *) REPLAY_LOCAL+=("$a") ;; esac
  done
}

# replay_check NAME : replay exits 1 when some requests failed; its figures
# are recorded all the same (replay_verdict then judges them).  No figures,
# or nothing answered: the phase fails.
replay_check() {
  [ "$TOOL_RC" -eq 0 ] && return 0
  local answered
  answered=$(stat_value "$WORK/$1.stats" requests 2>/dev/null)
  [ "${answered:-0}" != 0 ] ||
    harness_die "replay exited $TOOL_RC without answers: $(grep -v '^[[:space:]]*$' "$WORK/replay.err" 2>/dev/null | tail -n 1)"
}

# replay_verdict NAME : after NAME's figures are recorded.  A replay with
# failed requests is not a valid figure: with more than REPLAY_MAX_FAILED
# (default 0) the phase fails, its message (failures.tsv) counting each kind
# of failure (replay's failed_* figures) and naming the first.  Failures
# allowed are a warning, and the allowance a record (failed_allowed) so the
# report can tell.
replay_verdict() {
  local stats=$WORK/$1.stats max=${REPLAY_MAX_FAILED:-0} failed kinds first
  failed=$(stat_value "$stats" failed)
  [ "$max" -eq 0 ] || record "$1" "$CUR_TRIAL" failed_allowed "$max" count
  [ "${failed:-0}" -gt 0 ] || return 0
  if [ "$failed" -le "$max" ]; then
    printf '%s: warning: %s of %s requests failed, allowed by REPLAY_MAX_FAILED=%s (see %s)\n' \
      "$1" "$failed" "$(stat_value "$stats" requests)" "$max" "$PHASE_LOG" >&2
    return 0
  fi
  kinds=$(awk -F '\t' '$1 ~ /^failed_/ { printf "%s%s %s", n++ ? ", " : "", $1, $2 }' "$stats")
  first=$(grep -m 1 '^replay: GET ' "$WORK/replay.err" 2>/dev/null) || true
  harness_die "$failed of $(stat_value "$stats" requests) requests failed (${kinds:-no kind given}), more than REPLAY_MAX_FAILED=$max: not a valid figure${first:+; first: ${first#replay: }}"
}

# replay_list_args : the replay options of a replay of the dataset's request
# list into REPLAY_ARGS: -u @requests.txt -M @manifest.tsv, and -n
# REPLAY_COUNT (its first N lines; 0 = the whole list).  REPLAY_TOTAL is the
# number of requests that makes.
replay_list_args() {
  local lines
  case $REPLAY_COUNT in '' | *[!0-9]*) harness_die "REPLAY_COUNT=$REPLAY_COUNT: want a number of requests (0 = the whole list)" ;; esac
  lines=$(grep -c . "$REQUESTS") || true
  REPLAY_ARGS=(-u "@$REQUESTS" -M "@$MANIFEST")
  REPLAY_TOTAL=$lines
  if [ "$REPLAY_COUNT" -gt 0 ]; then
    REPLAY_ARGS+=(-n "$REPLAY_COUNT")
    [ "$REPLAY_COUNT" -ge "$lines" ] || REPLAY_TOTAL=$REPLAY_COUNT
  fi
}

# replay_remote_cleanup : remove the replay's directory on REPLAY_FROM.
replay_remote_cleanup() {
  "${REPLAY_SSH[@]}" "$REPLAY_FROM" "rm -rf $(printf '%q' "$REMOTE_DIR")" || true
}
