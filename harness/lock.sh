# shellcheck shell=bash disable=SC2034
# harness/lock.sh: the locks that keep two runs apart (sourced, bash; after
# harness/os.sh and harness/poll.sh).  A run holds one on its TARGET and one
# on its results directory RESULTS/RUN/HOST/VARIANT (shootout.sh for the
# whole run, each phase for itself: harness/common/phase.sh); make demo one
# on its work directory (playbooks/demo.sh).  docs/harness.md#locks.
#
# A lock is flock(2) on a file of LOCK_DIR (os_lock_fd), held on a file
# descriptor of the shell: the kernel lets it go when the holder exits,
# SIGKILL included.  The files live neither in TARGET (measured, emptied by
# phase delete, unmounted by FLUSH=remount) nor in RESULTS (it travels to
# other machines), and are named after the path they guard: a remount may
# give TARGET another device, never another path.  Each holds one line,
# "PID<TAB>RUN<TAB>STARTED<TAB>WHAT", for the refusal of a second run.
#
#   lock_take KIND PATH WHAT  lock PATH (KIND: target, variant, demo; WHAT
#                             names it in the refusal).  Returns 0 when this
#                             process holds it, or a process of
#                             SHOOTOUT_LOCKERS (shootout.sh running this
#                             phase) does (SHOOTOUT_LOCK_FDS: the
#                             descriptors, inherited); 1 with LOCK_REFUSAL,
#                             one line naming the holder (pid, run,
#                             start), or LOCK_ERROR when the lock file
#                             cannot be made.
#   lock_target               TARGET's lock (lock_take), with the hint of a
#                             refusal; what a holder that is gone left
#                             running is stopped first (strays_of_lock)
#   lock_variant RUN          the lock of RESULTS/RUN/HOST/VARIANT, likewise
#   lock_note_run RUN         the run id into the line of every lock held
#   lock_release_all          drop every lock held (their files go)
#   lock_file KIND PATH       the lock file of PATH
#   lock_close_fds            close the lock descriptors, ours or
#                             inherited: in a child before it execs a tool
#                             (a tool left running must not keep a lock)

LOCK_FDS=() LOCK_FILES=()

# lock_dir : LOCK_DIR, made when missing: /run/lock/shootout (the BSDs
# /var/run/shootout) for root, a directory of the user's own in TMPDIR for
# others (it must be theirs: nobody else can plant files in it).
lock_dir() {
  if [ "$(id -u)" -eq 0 ]; then
    LOCK_DIR=/run/lock
    [ -d "$LOCK_DIR" ] || LOCK_DIR=/var/run
    LOCK_DIR=$LOCK_DIR/shootout
  else
    LOCK_DIR=${TMPDIR:-/tmp}/shootout-locks-$(id -u)
  fi
  [ -d "$LOCK_DIR" ] || mkdir -m 755 "$LOCK_DIR" 2>/dev/null || :
  if [ ! -d "$LOCK_DIR" ] || [ -L "$LOCK_DIR" ] || [ ! -O "$LOCK_DIR" ]; then
    LOCK_ERROR="cannot make the lock directory $LOCK_DIR (or it is not a directory of user $(id -un))"
    return 1
  fi
}

# lock_file KIND PATH : $LOCK_DIR/KIND-CKSUM-NAME.lock (NAME: PATH's last
# component, for a person looking at the directory).
lock_file() {
  local sum name=${2##*/}
  sum=$(printf '%s' "$2" | cksum | awk '{ print $1 }')
  name=$(printf '%s' "$name" | tr -c 'A-Za-z0-9._+-' '_' | cut -c 1-40)
  printf '%s/%s-%s-%s.lock\n' "$LOCK_DIR" "$1" "$sum" "$name"
}

# lock_same FD FILE : FILE still names the file open on FD (a holder
# removes its lock file as it lets go; where the shell cannot tell, yes).
lock_same() {
  [ ! -e "/dev/fd/$1" ] || [ "/dev/fd/$1" -ef "$2" ]
}

# lock_line FILE : the holder's line, waited for (it writes it just after
# it took the lock, and its run id as soon as it has one).
lock_line() {
  POLL_STEP=0.02 poll_until 2 test -s "$1" || :
  POLL_STEP=0.02 poll_until 1 lock_has_run "$1" || :
  head -n 1 "$1" 2>/dev/null || :
}
lock_has_run() {
  awk -F '\t' 'NR == 1 { exit !($2 != "-") }' "$1" 2>/dev/null
}

lock_take() {
  local kind=$1 path=$2 what=$3 file fd try pid run started
  LOCK_REFUSAL='' LOCK_ERROR=''
  lock_dir || return 1
  file=$(lock_file "$kind" "$path")
  for try in 1 2 3 4 5; do
    if ! exec {fd}>>"$file"; then
      LOCK_ERROR="cannot open the lock file $file"
      return 1
    fi
    if os_lock_fd "$fd"; then
      if lock_same "$fd" "$file"; then
        LOCK_FDS+=("$fd") LOCK_FILES+=("$file")
        lock_write "$file" "${RUN_ID:--}" "$what"
        case " ${SHOOTOUT_LOCKERS:-} " in *" $$ "*) ;; *) SHOOTOUT_LOCKERS="${SHOOTOUT_LOCKERS:+$SHOOTOUT_LOCKERS }$$" ;; esac
        SHOOTOUT_LOCK_FDS="${SHOOTOUT_LOCK_FDS:+$SHOOTOUT_LOCK_FDS }$fd"
        export SHOOTOUT_LOCKERS SHOOTOUT_LOCK_FDS
        return 0
      fi
      exec {fd}>&- # its holder removed it as we took it: the next one
      continue
    fi
    exec {fd}>&-
    IFS=$'\t' read -r pid run started _ <<<"$(lock_line "$file")" || :
    # An ancestor holds it: shootout.sh, for the phases it runs.
    case " ${SHOOTOUT_LOCKERS:-} " in *" ${pid:-none} "*) return 0 ;; esac
    if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null && [ "$try" = 1 ] && [ -n "${LOCK_ON_ORPHAN:-}" ]; then
      # The holder is gone, processes it left hold the lock: stop them.
      "$LOCK_ON_ORPHAN" "$kind" "$path"
      POLL_STEP=0.1 poll_until 5 lock_free "$file" || :
      continue
    fi
    LOCK_REFUSAL="$what is in use by pid ${pid:-?}"
    [ "${run:--}" = - ] || LOCK_REFUSAL+=", run $run"
    LOCK_REFUSAL+=", started ${started:-?}"
    if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
      LOCK_REFUSAL+=" (gone; processes it left hold $file)"
    fi
    return 1
  done
  LOCK_REFUSAL="$what: cannot take the lock $file"
  return 1
}

lock_target() {
  LOCK_ON_ORPHAN=strays_of_lock
  lock_take target "$TARGET" "TARGET=$TARGET" && return 0
  LOCK_REFUSAL+=": wait for it to end, or name another TARGET"
  return 1
}

# (RESULTS resolved: a symbolic link to it is the same directory.)
lock_variant() {
  local r
  r=$(cd "$RESULTS" 2>/dev/null && pwd -P) || r=$RESULTS
  LOCK_ON_ORPHAN=''
  lock_take variant "$r/$1/$HOST/$VARIANT" "RUN_ID=$1 HOST=$HOST VARIANT=$VARIANT ($RESULTS/$1/$HOST/$VARIANT)" || {
    LOCK_REFUSAL+=": wait for it to end, or give this one another VARIANT or RUN_ID"
    return 1
  }
  lock_note_run "$1"
}

# lock_free FILE : nobody holds FILE's lock (taken and let go at once).
lock_free() {
  local fd rc=1
  exec {fd}>>"$1" || return 1
  os_lock_fd "$fd" && rc=0
  exec {fd}>&-
  return "$rc"
}

# lock_write FILE RUN WHAT : the holder's line.
lock_write() {
  printf '%s\t%s\t%s\t%s\n' "$$" "$2" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$3" >"$1"
}

lock_note_run() {
  local i f line
  for i in "${!LOCK_FILES[@]}"; do
    f=${LOCK_FILES[i]}
    line=$(head -n 1 "$f" 2>/dev/null) || continue
    IFS=$'\t' read -r -a line <<<"$line"
    [ ${#line[@]} -ge 4 ] || continue
    printf '%s\t%s\t%s\t%s\n' "${line[0]}" "$1" "${line[2]}" "${line[3]}" >"$f"
  done
}

lock_release_all() {
  local i fd
  for i in "${!LOCK_FDS[@]}"; do
    fd=${LOCK_FDS[i]}
    # Removed while held: a run that opened it meanwhile sees the name
    # gone (lock_same) and opens the next.
    ! lock_same "$fd" "${LOCK_FILES[i]}" || [ ! -e "/dev/fd/$fd" ] || rm -f "${LOCK_FILES[i]}"
    exec {fd}>&-
  done
  LOCK_FDS=() LOCK_FILES=()
}

lock_close_fds() {
  local fd
  for fd in ${SHOOTOUT_LOCK_FDS:-}; do
    case $fd in *[!0-9]*) ;; *) exec {fd}>&- ;; esac
  done
}
