# Shared by the bats files: load with `load helpers`.
# shellcheck shell=bash

ROOT=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
# The binaries under test; `BIN=build/asan/bin bats ...` runs the sanitizer build.
BIN=${BIN:-$ROOT/bin}
export ROOT BIN

# curl never waits for ever: a server that stops answering fails the test
# that asked, instead of stalling the suite.
curl() {
  command curl --connect-timeout 10 --max-time 120 "$@"
}

# wait_for_port PORT [SECONDS] : until something listens on 127.0.0.1:PORT.
wait_for_port() {
  local port=$1 limit=${2:-10} i=0
  while ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
    i=$((i + 1))
    [ "$i" -le $((limit * 20)) ] || { echo "nothing listens on port $port after ${limit}s" >&2; return 1; }
    sleep 0.05
  done
}

# wait_for_file FILE [SECONDS] : until FILE exists and is not empty.
wait_for_file() {
  local file=$1 limit=${2:-10} i=0
  while [ ! -s "$file" ]; do
    i=$((i + 1))
    [ "$i" -le $((limit * 20)) ] || { echo "$file did not appear after ${limit}s" >&2; return 1; }
    sleep 0.05
  done
}

# wait_for_exit PID [SECONDS] : until the process is gone.
wait_for_exit() {
  local pid=$1 limit=${2:-10} i=0
  while kill -0 "$pid" 2>/dev/null; do
    i=$((i + 1))
    [ "$i" -le $((limit * 20)) ] || { echo "process $pid still alive after ${limit}s" >&2; return 1; }
    sleep 0.05
  done
}

# free_port : a TCP port nobody listens on (the kernel picks it).
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
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
