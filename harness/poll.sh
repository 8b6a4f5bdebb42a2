# shellcheck shell=bash
# harness/poll.sh: bounded waits and free ports, the one copy the harness
# (through common.sh), the tests (tests/helpers.bash, tests/bench/*.sh) and
# the VM lab (playbooks/lab/guests.sh) source.  Bash (EPOCHREALTIME, RANDOM,
# /dev/tcp); it defines functions only.
#
#   poll_until SECONDS CMD...  run CMD until it succeeds (returns 0) or
#                              SECONDS (whole or decimal) of wall time have
#                              passed since the first try (returns 1); CMD runs
#                              at least once, then every POLL_STEP seconds
#                              (default 0.05).  A condition that should stop
#                              the wait early (the process it waits for died)
#                              succeeds too, and the caller looks again.
#   free_port                  a TCP port nobody listens on at 127.0.0.1: a
#                              random one from 20000 to 31999 (below the usual
#                              ephemeral range, so that no outgoing connection
#                              takes it meanwhile), else one the kernel picks
#   free_port_at ADDR          the same, nobody listening at ADDR either (::1
#                              for a server on IPv6: another process's
#                              listener there is not seen at 127.0.0.1)
#   port_busy PORT [ADDR]      something listens on ADDR (127.0.0.1):PORT
#   pid_gone PID|-PGID         no such process (or process group) is left

poll_until() {
  local limit=$1 whole frac end now
  shift
  case $limit in *.*) whole=${limit%%.*} frac=${limit#*.} ;; *) whole=$limit frac='' ;; esac
  frac=${frac}000000
  now=${EPOCHREALTIME/[.,]/}
  end=$((now + 10#${whole:-0} * 1000000 + 10#${frac:0:6}))
  until "$@"; do
    now=${EPOCHREALTIME/[.,]/}
    [ "$now" -lt "$end" ] || return 1
    sleep "${POLL_STEP:-0.05}"
  done
}

free_port() {
  free_port_at 127.0.0.1
}

free_port_at() {
  local p
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    p=$((20000 + (RANDOM * 32768 + RANDOM) % 12000))
    if ! port_busy "$p" && { [ "$1" = 127.0.0.1 ] || ! port_busy "$p" "$1"; }; then
      printf '%s\n' "$p"
      return 0
    fi
  done
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

port_busy() {
  (exec 3<>"/dev/tcp/${2:-127.0.0.1}/$1") 2>/dev/null
}

pid_gone() {
  ! kill -0 -- "$1" 2>/dev/null
}
