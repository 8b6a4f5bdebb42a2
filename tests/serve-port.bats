#!/usr/bin/env bats
# shellcheck disable=SC2016 # harness_bash's code expands in the harness's bash
# The server's port (harness/poll.sh free_port, harness/common/serve.sh):
# a trial's replay must talk to that trial's httpd. A demo's net-4-v6 trial
# once picked a port another variant's server listened on at ::1 (free_port
# looked at 127.0.0.1 alone), its own httpd could not bind it and exited, the
# port check was answered by the other server, and the replay measured that
# one until it stopped (1378 requests refused).
load helpers

setup() {
  require_cmd python3
  T=$BATS_TEST_TMPDIR
  LISTENER=''
}

teardown() {
  [ -z "$LISTENER" ] || kill "$LISTENER" 2>/dev/null || true
}

# ipv6_or_skip : loopback has ::1 here
ipv6_or_skip() {
  python3 -c 'import socket; s = socket.socket(socket.AF_INET6); s.bind(("::1", 0))' 2>/dev/null ||
    skip "no IPv6 on loopback (::1)"
}

# listen_v6 PORT : a server of another's on [::1]:PORT alone (LISTENER), up
listen_v6() {
  python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_INET6)
s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
s.bind(("::1", int(sys.argv[1])))
s.listen(16)
time.sleep(120)' "$1" &
  LISTENER=$!
  poll_until 10 port_busy "$1" ::1
}

@test "free_port_at: a port a server listens on at ::1 alone is not picked for ::1" {
  ipv6_or_skip
  # (run in this shell, not $( ): a seed then gives the same picks)
  RANDOM=4242
  free_port_at ::1 >"$T/first"
  listen_v6 "$(cat "$T/first")"
  # looking at 127.0.0.1 alone, the seed picks it again: the demo's collision
  RANDOM=4242
  free_port >"$T/v4"
  [ "$(cat "$T/v4")" = "$(cat "$T/first")" ]
  RANDOM=4242
  free_port_at ::1 >"$T/v6"
  echo "busy $(cat "$T/first"), picked $(cat "$T/v6")"
  [ "$(cat "$T/v6")" != "$(cat "$T/first")" ]
  run port_busy "$(cat "$T/v6")" ::1
  [ "$status" -ne 0 ]
}

# harness_bash CODE : CODE in a bash with the harness's functions, as a phase has them
harness_bash() {
  mkdir -p "$T/work"
  SHOOTOUT_ROOT=$ROOT run bash -c '. "$SHOOTOUT_ROOT/harness/lib.sh"; . "$SHOOTOUT_ROOT/harness/common.sh"
    HARNESS_BIN=$BIN WORK=$1 PHASE_LOG=$1/phase.log CUR_PHASE=net-1-v6 CUR_TRIAL=1
    trap proc_stop_all EXIT
    '"$1" _ "$T/work"
}

@test "phase-net: a fixed PORT in use at ::1 alone is refused before any trial (exit 2, one line, no results)" {
  ipv6_or_skip
  require_tools
  local port
  port=$(free_port_at ::1)
  listen_v6 "$port"
  mkdir -p "$T/target"
  RESULTS=$T/results HOST=testhost VARIANT=v1 ALLOW_NONMOUNT=1 \
    run make -C "$ROOT" -s phase-net TARGET="$T/target" NET_PROCS=1 NET_COUNT=100 NET_SIZE=1000 PORT="$port"
  echo "$output"
  [ "$status" -eq 2 ]
  [ "$(grep -c '^preflight: ' <<<"$output")" -eq 1 ]
  [[ $output == *"preflight: port $port is in use at ::1: stop what listens there"* ]]
  # no trial: the IPv4 phase did not run first, nothing was recorded
  [ -z "$(find "$T/results" -name records.tsv 2>/dev/null)" ]
  [ -z "$(ls -A "$T/target")" ]
}

# (a listener that comes after the preflight: serve_httpd looks again)
@test "serve_httpd: a fixed PORT in use at the server's IPv6 address fails in one line, no httpd started" {
  ipv6_or_skip
  local port
  port=$(free_port_at ::1)
  listen_v6 "$port"
  mkdir -p "$T/root"
  PORT=$port harness_bash 'serve_httpd "$1/../root" 1 ::1; echo "up on $HTTPD_PORT"'
  echo "$output"
  [ "$status" -eq 1 ]
  [ "$output" = "_: port $port is in use at ::1: stop what listens there, or leave PORT unset to pick a free one" ]
  [ ! -e "$T/work/phase.log" ] || ! grep -q 'httpd' "$T/work/phase.log"
}

@test "serve_httpd on ::1 with a free port: its own httpd answers, and serve_ran_through sees it running" {
  ipv6_or_skip
  mkdir -p "$T/root"
  echo hello >"$T/root/f"
  harness_bash 'serve_httpd "$1/../root" 1 ::1
    curl -sS -g "http://[::1]:$HTTPD_PORT/f"
    serve_ran_through && echo "ran through"'
  echo "$output"
  [ "$status" -eq 0 ]
  [ "$output" = $'hello\nran through' ]
}

@test "serve_ran_through: an httpd gone before the trial's end fails the phase, naming its port" {
  harness_bash 'sleep 0 & HTTPD_GROUP=$!; wait "$HTTPD_GROUP"; HTTPD_PORT=23456
    serve_ran_through; echo "not reached"'
  echo "$output"
  [ "$status" -eq 1 ]
  [[ $output == "_: httpd (port 23456) was gone before the trial's end: the replay's answers were not its own (see "*"/phase.log)" ]]
}
