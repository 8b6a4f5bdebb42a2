# shellcheck shell=bash disable=SC2034
# harness/common/proc.sh: the tools and children of a phase, each in a
# process group of its own: run in the foreground (interruptibly), or
# started and stopped.

# The groups proc_start started and not yet stopped; the foreground tool.
GROUPS_RUNNING=() TOOL_PID=''

# proc_need TOOL... : bin/TOOL is built.

proc_need() {
  local t
  for t in "$@"; do
    [ -x "$HARNESS_BIN/$t" ] || harness_die "$HARNESS_BIN/$t is missing: run 'make' first"
  done
}

# proc_run NAME CMD... : run CMD in the foreground, interruptibly
# (proc_tool); its output goes to the phase log; a non-zero exit fails the
# phase with its last error line, except the exit statuses listed in TOOL_OK
# (sets TOOL_RC).
proc_run() {
  local name=$1 err
  shift
  err=$WORK/$name.err
  printf '$ %s\n' "$*" >>"$PHASE_LOG"
  proc_tool "$PHASE_LOG" "$err" "$@"
  cat "$err" >>"$PHASE_LOG"
  proof_note_cpu "$name" "$@"
  case " ${TOOL_OK:-} " in *" $TOOL_RC "*) return 0 ;; esac
  if [ "$TOOL_RC" -ne 0 ]; then
    sed 's/^/  /' "$err" | tail -n 5 >&2
    harness_die "$name exited $TOOL_RC: $(grep -v '^[[:space:]]*$' "$err" | tail -n 1)"
  fi
}

# proc_tool OUT ERR CMD... : run CMD in the foreground but interruptibly (in
# the background while the shell waits for it: a signal reaches the phase's
# trap at once, and the trap stops it with proc_stop_all), its output
# appended to OUT, its stderr into ERR, its exit status into TOOL_RC.  It
# runs in a process group of its own: a tool that signals its whole group
# reaches only itself and its children, not the phase and whatever started
# the phase without job control (a script, make run by one, bats).  IOzone
# -t does: its SIGTERM handler signals the children of its test by their
# slots, and until the first test has forked them each slot holds pid 0,
# its whole process group.  The group is bash's job control (set -m, for
# this one job), not os_setsid: no exec more before the tool (2 ms; on the
# BSDs python3's start), which a timed tool (the sync after untar) would
# count.  It holds no lock (lock_close_fds) and is noted for strays_reap.
proc_tool() {
  local out=$1 err=$2 opts=$-
  shift 2
  TOOL_RC=0
  set -m
  { lock_close_fds; exec "$@"; } </dev/null >>"$out" 2>"$err" &
  TOOL_PID=$!
  [[ $opts == *m* ]] || set +m
  strays_note "-$TOOL_PID" "$*"
  wait "$TOOL_PID" || TOOL_RC=$?
  TOOL_PID=''
}

# proc_start VAR CMD... : start CMD in a new session (its own process group,
# so that it and every process it forks can be stopped together); the group
# id goes into VAR.  Its output goes to the phase log (with KEEP_STDERR=1 its
# stderr stays on the terminal, if that is one).  Noted for strays_reap, as
# proc_run.
proc_start() {
  local var=$1
  shift
  if [ "${KEEP_STDERR:-0}" = 1 ] && [ -t 2 ]; then
    { lock_close_fds; os_setsid "$@"; } </dev/null >>"$PHASE_LOG" &
  else
    { lock_close_fds; os_setsid "$@"; } </dev/null >>"$PHASE_LOG" 2>&1 &
  fi
  printf -v "$var" '%s' "$!"
  GROUPS_RUNNING+=("$!")
  strays_note "-$!" "$*"
}

# proc_await_gone PID|-PGID : until no such process is left (bash reaps its
# children as they exit), KILL after 10 s, give up after 20 s.  Cleanup never
# calls `wait PID`: if a signal interrupted an earlier wait, bash may have
# reaped PID without noting it, and `wait PID` then blocks until every other
# child (httpd, the sampler) has exited, which never happens.
proc_await_gone() {
  POLL_STEP=0.01 poll_until 10 pid_gone "$1" && return 0
  kill -KILL -- "$1" 2>/dev/null || true
  poll_until 10 pid_gone "$1"
}


# proc_stop PGID : TERM the group's leader and give it 2 s to finish (the
# sampler takes its last sample), then TERM the whole group and wait until
# every process of it has gone (KILL after 10 s).
proc_stop() {
  local g=$1 i keep=()
  [ -n "$g" ] || return 0
  kill -TERM "$g" 2>/dev/null || true
  # 10 ms steps: a server stops after every trial of every variant's turns
  POLL_STEP=0.01 poll_until 2 pid_gone "$g" || true
  kill -TERM -- "-$g" 2>/dev/null || true
  proc_await_gone "-$g" || harness_say "process group $g did not end even after SIGKILL"
  for i in "${GROUPS_RUNNING[@]}"; do [ "$i" = "$g" ] || keep+=("$i"); done
  GROUPS_RUNNING=("${keep[@]}")
}

# proc_stop_all : the foreground tool's group and every group we started.
proc_stop_all() {
  local g
  if [ -n "$TOOL_PID" ]; then
    proc_stop "$TOOL_PID"
    TOOL_PID=''
  fi
  for g in "${GROUPS_RUNNING[@]}"; do proc_stop "$g"; done
  GROUPS_RUNNING=()
}
