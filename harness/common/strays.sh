# shellcheck shell=bash
# harness/common/strays.sh: the processes a phase starts, noted where the
# next phase on the same TARGET finds them.  A phase killed with SIGKILL
# runs no trap: its httpd (the dataset server, serve's workers), sampler or
# tool would go on holding PORT and TARGET.  The note, STRAYS_FILE, sits
# beside TARGET's lock file (harness/lock.sh), .procs for .lock; a line a
# process: "ID<TAB>OWNER<TAB>COMMAND", ID a pid or -PGID (a process group),
# OWNER the pid of the phase that started it, COMMAND its command line.
# strays_reap stops what a phase that is gone left running: shootout.sh
# after each phase, phase_begin before a phase starts its own, and the
# phase's watcher (strays_watch) once it is gone; a phase that ends drops
# its lines (strays_forget).

# strays_begin : STRAYS_FILE of TARGET (resolved); none without a lock
# directory.
strays_begin() {
  local f
  STRAYS_FILE=''
  lock_dir || return 0
  f=$(lock_file target "$TARGET")
  STRAYS_FILE=${f%.lock}.procs
}

# strays_note ID COMMAND : ID runs COMMAND (its words, the first 100
# characters: what ps shows of it) for this phase.
strays_note() {
  local c=$2 b
  # a command bound to CPUs (serve_cpus) runs as itself once taskset exec'd it
  for b in "${CLIENT_BIND[*]:-}" "${SERVER_BIND[*]:-}"; do
    [ -z "$b" ] || c=${c#"$b "}
  done
  c=${c:0:100}
  [ -n "${STRAYS_FILE:-}" ] || return 0
  case $c in *[[:cntrl:]]*) return 0 ;; esac
  printf '%s\t%s\t%s\n' "$1" "$$" "$c" >>"$STRAYS_FILE" 2>/dev/null || :
}

# strays_running ID COMMAND : a process of ID (a pid, or -PGID) runs
# COMMAND (in its arguments: a script runs as "bash SCRIPT"), in the process
# table on stdin (pid pgid args).
strays_running() {
  awk -v id="$1" -v cmd="$2" '(id ~ /^-/ ? $2 == substr(id, 2) : $1 == id) && index($0, cmd) { found = 1 }
    END { exit !found }'
}

# strays_alive ID COMMAND : strays_running, in the live process table.
strays_alive() {
  ps -A -ww -o pid= -o pgid= -o args= 2>/dev/null | strays_running "$1" "$2"
}

# strays_reap [OWNER] : stop (TERM, KILL after 5 s) what STRAYS_FILE lists
# for an owner that is gone (or for OWNER), when it still runs its COMMAND
# (an ID used again by something else is left alone).  Without OWNER, the
# lines of live owners are kept and the others go (under TARGET's lock:
# shootout.sh, phase_begin); with it, the file stays as it is.
strays_reap() {
  local f=${STRAYS_FILE:-} id owner cmd keep='' gone=() i table
  [ -n "$f" ] && [ -s "$f" ] || return 0
  table=$(ps -A -ww -o pid= -o pgid= -o args= 2>/dev/null) || return 0
  while IFS=$'\t' read -r id owner cmd; do
    case $id$owner in '' | *[!0-9-]*) continue ;; esac
    if [ -n "${1:-}" ] && [ "$owner" != "$1" ]; then
      continue
    elif [ -z "${1:-}" ] && kill -0 "$owner" 2>/dev/null; then
      keep+=$id$'\t'$owner$'\t'$cmd$'\n'
    elif strays_running "$id" "$cmd" <<<"$table"; then
      printf 'harness: stopping %s (%s), left running by a phase that is gone (pid %s)\n' "$id" "$cmd" "$owner" >&2
      kill -TERM -- "$id" 2>/dev/null || :
      gone+=("$id" "$cmd")
    fi
  done <"$f"
  for ((i = 0; i < ${#gone[@]}; i += 2)); do
    POLL_STEP=0.1 poll_until 5 strays_dead "${gone[i]}" "${gone[i + 1]}" && continue
    kill -KILL -- "${gone[i]}" 2>/dev/null || :
    POLL_STEP=0.1 poll_until 5 strays_dead "${gone[i]}" "${gone[i + 1]}" || :
  done
  [ -z "${1:-}" ] || return 0
  if [ -z "$keep" ]; then
    rm -f "$f"
  else
    printf '%s' "$keep" >"$f.$$" && mv -f "$f.$$" "$f"
  fi
}

# strays_forget : this phase's lines go (it stopped what they name, as it
# ended); the file with them when no other is left.
strays_forget() {
  local f=${STRAYS_FILE:-} keep
  [ -n "$f" ] && [ -s "$f" ] || return 0
  keep=$(awk -F '\t' -v me="$$" '$2 != me' "$f") || return 0
  if [ -z "$keep" ]; then
    rm -f "$f"
  else
    printf '%s\n' "$keep" >"$f.$$" && mv -f "$f.$$" "$f"
  fi
}

# strays_watch : a watcher of this phase (a subshell, holding no lock) that
# stops what the phase noted once the phase is gone: a phase killed outright
# runs no trap.  It also removes what the trap would have: the phase's WORK
# and the reserve of the results directory that WORK/run_dir names
# (phase_begin writes it).  Its lines go to stderr; strays_unwatch (the
# phase's EXIT trap) ends it.
strays_watch() {
  local owner=$$
  [ -n "${STRAYS_FILE:-}" ] || return 0
  (
    lock_close_fds
    trap - EXIT
    while kill -0 "$owner" 2>/dev/null; do sleep 1; done
    strays_reap "$owner"
    [ -z "$WORK" ] || [ ! -d "$WORK" ] || {
      [ ! -s "$WORK/run_dir" ] || lib_unreserve "$(cat "$WORK/run_dir")"
      rm -rf "$WORK"
    }
  ) </dev/null >/dev/null &
  STRAYS_WATCHER=$!
}
strays_unwatch() {
  [ -z "${STRAYS_WATCHER:-}" ] || kill -TERM "$STRAYS_WATCHER" 2>/dev/null || :
  STRAYS_WATCHER=''
}

strays_dead() {
  ! strays_alive "$1" "$2"
}

# strays_of_lock KIND PATH : LOCK_ON_ORPHAN of harness/lock.sh: TARGET
# PATH's lock is held by what a phase that is gone left running: stop it.
strays_of_lock() {
  [ "$1" = target ] || return 0
  local TARGET=$2 STRAYS_FILE
  strays_begin
  strays_reap
}
