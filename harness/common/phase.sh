# shellcheck shell=bash disable=SC2034
# harness/common/phase.sh: the frame of a phase: its traps and trial,
# meta.json, and its end: status 0, or the failure records (harness_die
# MESSAGE, a tool's exit, a signal) after every child has stopped.

# Where we are: the phase's name and trial, whether it is done and why it
# failed; PHASE_FRAME=1 once phase_begin has installed the traps (then
# harness_die leaves its message to phase_on_exit).
CUR_PHASE='' CUR_TRIAL='' PHASE_DONE=0 FAIL_MSG='' PHASE_FRAME=0 WORK='' PHASE_LOG=''
# Names of functions phase_on_exit calls (after the children have stopped).
PHASE_CLEANUP=''
# What phase_begin made (phase_undo_begin removes it when the phase is refused).
PHASE_NEW=() PHASE_NEW_RUN=''

# phase_on_signal SIG : the phase fails, interrupted (the EXIT trap reports).
# Further signals are ignored from here on, not reset to their default: make
# sends its children a SIGTERM of its own after the one to the whole group,
# and a second one landing before the EXIT trap ran would kill the shell
# with no failure recorded and its children left running.
phase_on_signal() {
  FAIL_MSG="interrupted by SIG$1"
  trap '' INT TERM HUP
  case $1 in INT) exit 130 ;; HUP) exit 129 ;; *) exit 143 ;; esac
}

# phase_on_exit : the EXIT trap: the profile of the phase's parts, stop the
# children, clean up, record the tools' CPU and a failure, remove WORK.
# The failure is recorded first, into the room phase_begin reserved
# (lib_reserve): a full RESULTS still gets it, and the report shows it.
phase_on_exit() {
  local rc=$? full=''
  set +e
  PHASE_EXITING=1
  trap '' INT TERM HUP PIPE
  profile_end
  proc_stop_all
  [ "$rc" -eq 0 ] || [ -n "$FAIL_MSG" ] || full=$(phase_results_full)
  [ -z "${RUN_DIR:-}" ] || lib_unreserve "$RUN_DIR"
  if [ "$rc" -ne 0 ] && [ -n "$CUR_TRIAL" ] && [ "$PHASE_DONE" = 0 ]; then
    FAIL_MSG=${FAIL_MSG:-exit status $rc$full}
    record_failure "$CUR_PHASE" "$CUR_TRIAL" "$FAIL_MSG" ||
      printf '%s: the failure is not recorded: %s\n' "$CUR_PHASE" "$LIB_ERR" >&2
    printf '%s: %s\n' "${CUR_PHASE:-harness}" "$FAIL_MSG" >&2
  elif [ "$rc" -ne 0 ] && [ -n "$FAIL_MSG" ]; then
    printf '%s: %s\n' "${CUR_PHASE:-harness}" "$FAIL_MSG" >&2
  fi
  blklat_end
  for c in $PHASE_CLEANUP; do "$c"; done
  [ -z "$CUR_TRIAL" ] || proof_record_cpu
  [ -z "$WORK" ] || rm -rf "$WORK"
  strays_unwatch
  strays_forget
  lock_release_all
  exit "$rc"
}

# phase_results_full : ": RESULTS is full (...)" when the filesystem of
# RUN_DIR has no room left (a write of the harness's failed there: a log
# line, a series), else nothing.
phase_results_full() {
  local avail
  [ -n "${RUN_DIR:-}" ] || return 0
  read -r _ _ avail _ < <(os_fs_space "$RUN_DIR" 2>/dev/null) || return 0
  [ "${avail:-1}" != 0 ] || printf ': RESULTS is full (no space left on the filesystem of %s)' "$RUN_DIR"
}

# phase_refuse MESSAGE : a check refused the phase before anything was
# measured (TARGET, the dataset, the port, the space, the state of
# TARGET/data, a trial already recorded): "PHASE: MESSAGE" on stderr, exit
# 2, and no trial: nothing appended to records.tsv or failures.tsv (a
# user's mistake is not a failed trial of the variant).  Outside the frame,
# as settings_refuse.
phase_refuse() {
  if [ "${PHASE_FRAME:-0}" != 1 ] || [ "$BASHPID" != "$$" ]; then settings_refuse "$*"; fi
  FAIL_MSG=$* CUR_TRIAL=''
  phase_undo_begin
  exit 2
}

# phase_note_new PATH... : the paths among PATH that do not exist yet, noted
# in PHASE_NEW (what this phase_begin creates, in order).
phase_note_new() {
  local p
  for p in "$@"; do [ -e "$p" ] || PHASE_NEW+=("$p"); done
}

# phase_undo_begin : a refused phase leaves no run behind: what phase_begin
# created (its log, meta.json, a header-only records.tsv, the empty run
# directories, results/.current when it named a run made just now) goes
# again, newest first.  Only those paths, and directories only when empty.
phase_undo_begin() {
  local i p
  [ -n "$PHASE_LOG" ] && [ "${PHASE_LOG#"$WORK"/}" = "$PHASE_LOG" ] && rm -f "$PHASE_LOG"
  for ((i = ${#PHASE_NEW[@]} - 1; i >= 0; i--)); do
    p=${PHASE_NEW[i]}
    if [ "$p" = "$RESULTS/.current" ]; then
      [ "$(cat "$p" 2>/dev/null)" != "$PHASE_NEW_RUN" ] || rm -f "$p"
    elif [ -d "$p" ]; then
      rmdir "$p" 2>/dev/null || :
    elif [ "${p##*/}" != records.tsv ] || [ "$(wc -l <"$p")" -le 1 ]; then
      rm -f "$p"
    fi
  done
  PHASE_NEW=()
}

# phase_begin NAME [RECORD-NAMES...] : checks TARGET, picks the trial (TRIAL,
# or one more than the highest of RECORD-NAMES, default NAME), installs the
# traps, writes meta.json if this run has none yet.  CUR_PHASE is NAME: the
# record name a failure is filed under (phase scripts move it along).
phase_begin() {
  CUR_PHASE=$1
  shift
  trap phase_on_exit EXIT
  trap 'phase_on_signal INT' INT
  trap 'phase_on_signal TERM' TERM
  trap 'phase_on_signal HUP' HUP
  PHASE_FRAME=1
  cd "$SHOOTOUT_ROOT" || harness_die "cannot cd to $SHOOTOUT_ROOT"
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/shootout-$CUR_PHASE.XXXXXX") || harness_die "cannot make a temporary directory"
  PHASE_LOG=$WORK/early.log
  target_check
  phase_lock_target
  local names=("$@") id
  # What the checks below may leave behind if a later one refuses the phase.
  PHASE_NEW=() PHASE_NEW_RUN=''
  id=${RUN_ID:-$(cat "$RESULTS/.current" 2>/dev/null || :)}
  if [ -z "$id" ]; then
    phase_note_new "$RESULTS/.current"
    id=$(run_id)
    PHASE_NEW_RUN=$id
    PHASE_NEW+=("$RESULTS/$id")
  fi
  phase_lock_variant "$id"
  phase_note_new "$RESULTS/$id" "$RESULTS/$id/$HOST" "$RESULTS/$id/$HOST/$VARIANT" \
    "$RESULTS/$id/$HOST/$VARIANT/series" "$RESULTS/$id/$HOST/$VARIANT/records.tsv" \
    "$RESULTS/$id/$HOST/$VARIANT/logs" "$RESULTS/$id/$HOST/$VARIANT/logs/warnings.log" \
    "$RESULTS/$id/$HOST/$VARIANT/meta.json" "$RESULTS/$id/$HOST/$VARIANT/.reserve"
  [ ${#names[@]} -gt 0 ] || names=("$CUR_PHASE")
  if [ -n "${TRIAL:-}" ]; then
    case $TRIAL in '' | *[!0-9]*) harness_die "TRIAL=$TRIAL is not a number" ;; esac
    [ "$(next_trial "${names[@]}")" -le "$TRIAL" ] ||
      phase_refuse "trial $TRIAL of ${names[0]} is already recorded in run $(run_id): leave TRIAL unset"
    CUR_TRIAL=$TRIAL
  else
    CUR_TRIAL=$(next_trial "${names[@]}")
  fi
  RUN_DIR=$(run_dir)
  printf '%s\n' "$RUN_DIR" >"$WORK/run_dir"
  lib_reserve "$RUN_DIR" ||
    phase_refuse "RESULTS has no room for this phase's records (64 KiB in $RUN_DIR): free some space on its filesystem"
  mkdir -p "$RUN_DIR/logs"
  PHASE_LOG=$RUN_DIR/logs/$CUR_PHASE-$CUR_TRIAL.log
  [ -s "$RUN_DIR/meta.json" ] || "$HARNESS/meta.sh" "$RUN_DIR/meta.json" >>"$PHASE_LOG" 2>&1 ||
    harness_die "cannot write $RUN_DIR/meta.json: see $PHASE_LOG"
  phase_warn_on_target
  phase_start_line
  blklat_begin
}

# phase_lock_target : this phase holds TARGET's lock, or shootout.sh that
# runs it does (harness/lock.sh), or it is refused naming the holder; then
# what a phase gone before left running on TARGET is stopped, and a watcher
# stops what this one starts should it be killed outright
# (harness/common/strays.sh).
phase_lock_target() {
  lock_target || phase_lock_refused
  strays_begin
  strays_reap
  strays_watch
}

# phase_lock_variant RUN : the lock of RESULTS/RUN/HOST/VARIANT, where this
# phase's records go (two runs there would mix their records).
phase_lock_variant() {
  lock_variant "$1" || phase_lock_refused
}

# phase_lock_refused : the lock is another run's: one line, exit 2.
phase_lock_refused() {
  [ -z "$LOCK_ERROR" ] || harness_die "$LOCK_ERROR"
  phase_refuse "$LOCK_REFUSAL"
}

# phase_figure TEXT : add TEXT to the end line's figures (serve: a mode's).
phase_figure() {
  [ -z "$PHASE_FIGURE" ] || PHASE_FIGURE+=', '
  PHASE_FIGURE+=$1
}

# phase_move NAME : the phase goes on under the record name NAME (serve's
# modes): a failure is filed under it, and its commands, their output and
# warnings go to its own log, logs/NAME-TRIAL.log.
phase_move() {
  CUR_PHASE=$1 PHASE_LOG=$RUN_DIR/logs/$1-$CUR_TRIAL.log
}

# phase_start_line / phase_end_line : one line each on stdout, terminal or
# not: "serve: start: run ID, trial N" and "serve: done in 42.1 s: FIGURE"
# (PHASE_FIGURE, which the phase sets: its main figures).  The label is the
# script's name without phase- (PHASE_LABEL when set: untar2).
phase_start_line() {
  PHASE_T0=${EPOCHREALTIME/[.,]/} PHASE_FIGURE=''
  [ -n "${PHASE_LABEL-}" ] || PHASE_LABEL=$(basename "$0" .sh)
  PHASE_LABEL=${PHASE_LABEL#phase-}
  harness_tell "$PHASE_LABEL" "start: run $(run_id), trial $CUR_TRIAL"
}
phase_end_line() {
  local line
  line="done in $(human_ms $(((${EPOCHREALTIME/[.,]/} - PHASE_T0) / 1000)))"
  [ -z "$PHASE_FIGURE" ] || line+=": $PHASE_FIGURE"
  harness_tell "$PHASE_LABEL" "$line"
}

# phase_warn_on_target : the harness's own writes (RESULTS: records, logs,
# series) or the dataset on TARGET's filesystem or disk (meta.json's
# results_on_target, dataset_on_target) disturb what is measured there, a
# read-only phase's above all: a warning in every phase's log, on stderr
# once a run (the first phase that finds it; logs/warnings.log keeps it), or
# a refusal with OFF_TARGET=1.
phase_warn_on_target() {
  local w m
  w=$(jq -r '[(if .results_on_target then "RESULTS (\(.results_shares))" else empty end),
    (if .dataset_on_target then "the dataset (\(.dataset_shares))" else empty end)] | join(" and ")' \
    "$RUN_DIR/meta.json" 2>/dev/null) || return 0
  [ -n "$w" ] || return 0
  m="$w on TARGET's device: the harness's writes land where $TARGET is measured (put RESULTS and DATASETS_OUT on another disk)"
  [ "${OFF_TARGET:-0}" != 1 ] || phase_refuse "$m; OFF_TARGET=1 refuses this"
  printf 'WARNING: %s\n' "$m" >>"$PHASE_LOG"
  ! grep -qxF "WARNING: $m" "$RUN_DIR/logs/warnings.log" 2>/dev/null || return 0
  printf 'WARNING: %s\n' "$m" | tee -a "$RUN_DIR/logs/warnings.log" >&2
}

# phase_warn_atime : a read-only phase on a TARGET mounted without noatime
# writes: the first read of each file after untar rewrites its inode
# (relatime; every read with strictatime), and those writes land in what the
# phase measures.  A warning on stderr and in the phase's log.
phase_warn_atime() {
  local opts m
  IFS=$'\t' read -r _ _ opts _ < <(os_mount_of "$TARGET" 2>/dev/null) || return 0
  case ",$opts," in *,noatime,* | *,ro,* | *,rdonly,* | *,read-only,* | ,,) return 0 ;; esac
  m="$TARGET is mounted without noatime: reading each file the first time rewrites its inode (atime), writes in a read-only phase (mount it with -o noatime, as the playbooks do)"
  printf 'WARNING: %s\n' "$m" | tee -a "$PHASE_LOG" >&2
}

# phase_end [RECORD-NAME] : the phase succeeded: its status record, then
# phase_finish.  phase_finish : note the boot id (for the reboot check of a
# later FLUSH=reboot), the phase is done, its end line.
phase_end() {
  record "${1:-$CUR_PHASE}" "$CUR_TRIAL" status 0 exit
  phase_finish
}
phase_finish() {
  phase_note_boot_id
  PHASE_DONE=1
  phase_end_line
}

# phase_note_boot_id : append "phase trial boot_id" to the run's boot_ids.tsv.
phase_note_boot_id() {
  local b
  b=$(os_boot_id 2>/dev/null) || return 0
  printf '%s\t%s\t%s\n' "$CUR_PHASE" "$CUR_TRIAL" "$b" >>"$RUN_DIR/boot_ids.tsv"
}

# phase_meta_set KEY VALUE : the run's meta.json has the string VALUE at KEY
# (what meta.sh, run at the run's first phase, could not know or had
# otherwise); nothing without a meta.json or when it says so already.
# Fails when the file cannot be rewritten.
phase_meta_set() {
  local m=$RUN_DIR/meta.json
  [ -s "$m" ] || return 0
  [ "$(jq -r --arg k "$1" '.[$k] // empty' "$m")" != "$2" ] || return 0
  jq --arg k "$1" --arg v "$2" '.[$k] = $v' "$m" >"$m.tmp.$$" && mv -f "$m.tmp.$$" "$m"
}
