# shellcheck shell=bash
# harness/micro-lib.sh: what only the micro-benchmark phases (phase-iometer,
# phase-iozone, phase-postmark, phase-discover) share.  Sourced after lib.sh
# and common.sh: those phases run in the frame of every phase (phase_begin,
# phase_end, proc_run, harness_die; the TARGET guard, status, failures.tsv,
# meta.json, logs and signals of common.sh).
#
#   micro_begin PHASE   phase_begin PHASE, then the flush method of the
#                       phase (micro_flush_method) and the scratch directory
#                       $MICRO_DIR = TARGET/micro/PHASE, absolute (marked as ours with
#                       TARGET/micro/.shootout-micro), removed at exit
#   micro_flush         empties the page cache between iterations with
#                       MICRO_FLUSH (see micro_flush_method), outside the
#                       phase's block trace (proof_flush)
#   mem_bytes           physical memory in bytes
#   to_bytes SIZE       "64k", "16m", "2g", "123" -> bytes (fails the phase otherwise)
#   free_bytes DIR      space available to us in DIR's filesystem (os_fs_space)
#   run_into FILE NAME CMD...  CMD's output into FILE (its stderr into the
#                       phase log), interruptibly (as proc_run); a non-zero
#                       exit fails the phase
#   cpu_sample          "TOTAL BUSY" CPU ticks since boot (os_cpu); cpu_pct
#                       A B: the busy share between two samples, in percent

MICRO_MARK=.shootout-micro

micro_begin() {
  # Refused as before the frame, in the script's name ("phase-iometer.sh:
  # TARGET=/ is the root filesystem"); phase_begin checks it again.
  target_guard || harness_die "$TARGET_REFUSAL"
  phase_begin "$1"
  micro_flush_method
  if [ -e "$TARGET/micro" ] && [ ! -e "$TARGET/micro/$MICRO_MARK" ]; then
    harness_die "$TARGET/micro exists and is not ours (no $MICRO_MARK in it): refusing to write there"
  fi
  mkdir -p "$TARGET/micro" || harness_die "cannot create $TARGET/micro"
  : >"$TARGET/micro/$MICRO_MARK"
  MICRO_DIR=$TARGET/micro/$1
  [ ! -e "$MICRO_DIR" ] || rm -rf "$MICRO_DIR"
  mkdir -p "$MICRO_DIR" || harness_die "cannot create $MICRO_DIR"
  # Absolute: a phase that changes directory (PostMark runs in it) still
  # names the same place with a relative TARGET.
  MICRO_DIR=$(cd "$MICRO_DIR" && pwd) || harness_die "cannot enter $MICRO_DIR"
  PHASE_CLEANUP+=" micro_end"
  RAW=$RUN_DIR/raw/$1-$CUR_TRIAL
  mkdir -p "$RAW" || harness_die "cannot create $RAW"
}

micro_end() {
  # A killed tool's own children (fio's jobs) may still write a file or two
  # as they die: the removal is tried again until they are gone (10 s).
  [ -n "${MICRO_DIR:-}" ] && [ -e "$TARGET/micro/$MICRO_MARK" ] &&
    { POLL_STEP=0.1 poll_until 10 micro_rm_dir || harness_say "could not remove $MICRO_DIR"; }
  rmdir "$TARGET/micro" 2>/dev/null || {
    # Only our mark left: the directory is ours to remove.
    [ "$(ls -A "$TARGET/micro" 2>/dev/null)" = "$MICRO_MARK" ] && rm -f "$TARGET/micro/$MICRO_MARK" &&
      rmdir "$TARGET/micro"
  } || true
}

# micro_rm_dir : MICRO_DIR removed, quietly (micro_end tries again).
micro_rm_dir() {
  rm -rf "$MICRO_DIR" 2>/dev/null
  [ ! -e "$MICRO_DIR" ]
}

# micro_flush_method : MICRO_FLUSH, the method micro_flush uses, from FLUSH:
# drop, remount and prime as flush.sh does them; none; reboot (which only
# Ansible can do between phases) drops instead.  drop and remount need
# root: without it the phase says so on stderr and goes on with none.  The
# method used is recorded (flush_method, text), and flush_asked when it
# differs from FLUSH.
micro_flush_method() {
  MICRO_FLUSH=$FLUSH
  case $FLUSH in
    drop | remount | prime | none) ;;
    reboot) MICRO_FLUSH=drop ;;
    *) harness_die "unknown FLUSH=$FLUSH: use drop, remount, prime, none or reboot" ;;
  esac
  if [ "$(id -u)" -ne 0 ] && { [ "$MICRO_FLUSH" = drop ] || [ "$MICRO_FLUSH" = remount ]; }; then
    printf '%s: FLUSH=%s needs root: going on with FLUSH=none (the page cache is kept between iterations)\n' \
      "$CUR_PHASE" "$FLUSH" >&2
    MICRO_FLUSH=none
  fi
  record "$CUR_PHASE" "$CUR_TRIAL" flush_method "$MICRO_FLUSH" text
  [ "$MICRO_FLUSH" = "$FLUSH" ] || record "$CUR_PHASE" "$CUR_TRIAL" flush_asked "$FLUSH" text
}

micro_flush() {
  [ "$MICRO_FLUSH" != none ] || return 0
  proof_flush "$MICRO_FLUSH"
  blklat_switch "$CUR_PHASE"
}

run_into() {
  local file=$1 name=$2
  shift 2
  printf '$ %s > %s\n' "$*" "$file" >>"$PHASE_LOG"
  # interruptibly and in a process group of its own, as proc_run (IOzone
  # itself may run for hours, and signals its group when stopped)
  : >"$file" || harness_die "cannot write $file"
  proc_tool "$file" "$WORK/$name.err" "$@"
  cat "$WORK/$name.err" >>"$PHASE_LOG"
  [ "$TOOL_RC" -eq 0 ] || harness_die "$name exited $TOOL_RC: $(grep -v '^[[:space:]]*$' "$WORK/$name.err" | tail -n 1)"
}

mem_bytes() {
  os_memory | awk '{ printf "%.0f\n", $1 * 1024 }'
}

to_bytes() {
  printf '%s\n' "$1" | awk '
    /^[0-9]+$/ { print $1; next }
    /^[0-9]+[kKmMgGtT]$/ {
      n = substr($1, 1, length($1) - 1); u = tolower(substr($1, length($1)))
      m = u == "k" ? 1024 : u == "m" ? 1048576 : u == "g" ? 1073741824 : 1099511627776
      printf "%.0f\n", n * m; next
    }
    { exit 1 }' || harness_die "not a size: $1 (want a number of bytes, or with k, m, g, t)"
}

free_bytes() {
  os_fs_space "$1" | awk '{ printf "%.0f\n", $3 * $4 }'
}

cpu_sample() {
  os_cpu 2>/dev/null | awk '{ w = $3 < 0 ? 0 : $3; printf "%.0f %.0f\n", $1, $1 - $2 - w }'
}

cpu_pct() {
  awk -v a="$1" -v b="$2" 'BEGIN { split(a, x, " "); split(b, y, " "); t = y[1] - x[1]
    printf "%.1f\n", (t > 0 ? 100 * (y[2] - x[2]) / t : 0) }'
}
