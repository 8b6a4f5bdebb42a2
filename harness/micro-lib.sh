# shellcheck shell=sh
# harness/micro-lib.sh: what the micro-benchmark phases (phase-iometer,
# phase-iozone, phase-postmark, phase-discover) share.  Sourced after lib.sh.
#
#   micro_begin PHASE   checks TARGET (harness/target-guard.sh, the guard of
#                       every phase), makes the phase's scratch directory
#                       $MICRO_DIR = TARGET/micro/PHASE (marked as ours with
#                       TARGET/micro/.shootout-micro) and removes it on exit
#   micro_flush         drops the page cache between iterations
#   mem_bytes           physical memory in bytes
#   to_bytes SIZE       "64k", "16m", "2g", "123" -> bytes
#   direct_ok DIR       exit 0 when DIR's filesystem takes O_DIRECT

MICRO_MARK=.shootout-micro
# shellcheck source=harness/target-guard.sh
. "$SHOOTOUT_ROOT/harness/target-guard.sh"

micro_begin() {
  target_guard || die "$TARGET_REFUSAL"
  if [ -e "$TARGET/micro" ] && [ ! -e "$TARGET/micro/$MICRO_MARK" ]; then
    die "$TARGET/micro exists and is not ours (no $MICRO_MARK in it): refusing to write there"
  fi
  mkdir -p "$TARGET/micro"
  : >"$TARGET/micro/$MICRO_MARK"
  MICRO_DIR=$TARGET/micro/$1
  [ ! -e "$MICRO_DIR" ] || rm -rf "$MICRO_DIR"
  mkdir -p "$MICRO_DIR"
  trap micro_end EXIT
  trap 'exit 130' INT TERM
}

micro_end() {
  [ -n "${MICRO_DIR:-}" ] && [ -e "$TARGET/micro/$MICRO_MARK" ] && rm -rf "$MICRO_DIR"
  rmdir "$TARGET/micro" 2>/dev/null || {
    # Only our mark left: the directory is ours to remove.
    [ "$(ls -A "$TARGET/micro" 2>/dev/null)" = "$MICRO_MARK" ] && rm -f "$TARGET/micro/$MICRO_MARK" &&
      rmdir "$TARGET/micro"
  } || true
}

micro_flush() {
  if [ -x "$SHOOTOUT_ROOT/harness/flush.sh" ]; then
    TARGET=$TARGET "$SHOOTOUT_ROOT/harness/flush.sh" drop
  elif [ "$(id -u)" -eq 0 ]; then
    os_drop_caches
  else
    sync
    [ -n "${MICRO_FLUSH_WARNED:-}" ] ||
      printf '%s: not root: cannot drop the page cache between iterations (results include cache hits)\n' \
        "$(basename "$0")" >&2
    MICRO_FLUSH_WARNED=1
  fi
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
    { exit 1 }' || die "not a size: $1 (want a number of bytes, or with k, m, g, t)"
}

# free_bytes DIR : space available to us in DIR's filesystem.
free_bytes() {
  df -Pk "$1" | awk 'NR == 2 { printf "%.0f\n", $4 * 1024 }'
}

direct_ok() {
  os_direct_ok "$1"
}
