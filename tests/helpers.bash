# Shared by the bats files: load with `load helpers`.
# shellcheck shell=bash

# The repository: the folder above this file (tests/lab/*.bats load it too).
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The binaries under test; `BIN=build/asan/bin bats ...` runs the sanitizer build.
BIN=${BIN:-$ROOT/bin}
export ROOT BIN
# The harness measures as the method did unless a test asks for more: one
# pass per replay, one trial per figure and cycle (tests/precision.bats
# sets these itself).
export MIN_MEASURE_S=${MIN_MEASURE_S:-0} PRECISION=${PRECISION:-0}

# curl never waits for ever: a server that stops answering fails the test
# that asked, instead of stalling the suite.
curl() {
  command curl --connect-timeout 10 --max-time 120 "$@"
}

# poll_until, free_port, port_busy, pid_gone: the harness's own (harness/poll.sh).
# shellcheck source=harness/poll.sh
. "$ROOT/harness/poll.sh"

# wait_for_port PORT [SECONDS] : until something listens on 127.0.0.1:PORT.
wait_for_port() {
  poll_until "${2:-10}" port_busy "$1" ||
    { echo "nothing listens on port $1 after ${2:-10}s" >&2; return 1; }
}

# lab_deadline : the seconds a lab test file's run may take: what is left of
# make test-lab's one deadline (LAB_TEST_END, set when its files began) or,
# run alone, LAB_TEST_DEADLINE (2700); 60 at least.
lab_deadline() {
  local left=${LAB_TEST_DEADLINE:-2700}
  [ -z "${LAB_TEST_END:-}" ] || left=$((LAB_TEST_END - $(date +%s)))
  [ "$left" -ge 60 ] || left=60
  echo "$left"
}

# wait_for_file FILE [SECONDS] : until FILE exists and is not empty.
wait_for_file() {
  poll_until "${2:-10}" test -s "$1" ||
    { echo "$1 did not appear after ${2:-10}s" >&2; return 1; }
}

# wait_for_exit PID [SECONDS] : until the process is gone.
wait_for_exit() {
  poll_until "${2:-10}" pid_gone "$1" ||
    { echo "process $1 still alive after ${2:-10}s" >&2; return 1; }
}

# no_process REGEX : no process's command line matches REGEX (pgrep -f).
no_process() {
  ! pgrep -f -- "$1" >/dev/null
}

require_root() {
  [ "$(id -u)" -eq 0 ] || skip "needs root (loop devices, mounts)"
}

require_cmd() {
  local c
  for c in "$@"; do
    command -v "$c" >/dev/null 2>&1 || skip "needs $c (run 'make deps')"
  done
}

# require_tools : the tools and the tiny profile a phase of the harness drives
# (a file that needs others defines its own).
require_tools() {
  local t
  for t in mkdataset dltar httpd replay rmtree; do
    [ -x "$BIN/$t" ] || skip "bin/$t is not built (make all)"
  done
  [ -f "$ROOT/datasets/tiny.profile" ] || skip "no datasets/tiny.profile"
}

# stop_leftovers DIR : stop (TERM, then KILL after 5 s) whatever a failed test
# left running with DIR in its arguments.
stop_leftovers() {
  if pkill -TERM -f -- "$1" 2>/dev/null; then
    POLL_STEP=0.1 poll_until 5 no_process "$1" || true
    pkill -KILL -f -- "$1" 2>/dev/null || true
  fi
}

# loop_ext4 [MOUNT-OPTS] : a 256 MiB ext4 in $T/ext4.img on a loop device
# ($LOOP), mounted at $MNT=$T/mnt, its inode tables and journal written at
# mkfs (no lazy init writing in the background while a phase is traced);
# the test's teardown calls loop_cleanup.
loop_ext4() {
  require_root
  require_cmd mkfs.ext4 losetup
  truncate -s 256M "$T/ext4.img"
  mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$T/ext4.img"
  LOOP=$(losetup -f --show "$T/ext4.img") || skip "no free loop device"
  MNT=$T/mnt
  mkdir -p "$MNT"
  mount ${1:+-o "$1"} "$LOOP" "$MNT"
}

# loop_cleanup : what loop_ext4 made, unmounted and detached (MNT and LOOP
# empty: nothing).
loop_cleanup() {
  if [ -n "${MNT:-}" ] && mountpoint -q "$MNT"; then umount "$MNT" || umount -l "$MNT"; fi
  [ -z "${LOOP:-}" ] || losetup -d "$LOOP" 2>/dev/null || true
}

# The lanes' lock: `solo` (tests/lane.bash).
# shellcheck source=tests/lane.bash
. "$ROOT/tests/lane.bash"
