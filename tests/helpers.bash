# Shared by the bats files: load with `load helpers`.
# shellcheck shell=bash

# The repository: the folder above this file (tests/lab/*.bats load it too).
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The binaries under test; `BIN=build/asan/bin bats ...` runs the sanitizer build.
BIN=${BIN:-$ROOT/bin}
export ROOT BIN

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
