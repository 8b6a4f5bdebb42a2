#!/usr/bin/env bash
# harness/fork-server.sh [-a EACH] STATS CMD... : the process-per-connection
# server of the serve-*-fork phases.  Runs CMD (tcpserver, which forks
# bin/httpd -1 for each connection) until SIGTERM, SIGINT or SIGHUP, passes
# the signal on, waits for it, and then writes to STATS the CPU time of CMD
# and of every process it forked and reaped: this shell's children's
# getrusage, as bash's `times` shows it.  So it is tcpserver's accepts and
# forks plus every httpd -1's exec and serving, the cost of the whole model.
# Before passing the signal on it lets the connections still being served
# end (CMD's children, pgrep -P; at most 1 s: the client is
# done by then); a child still running after that is not counted.  STATS
# gets "user_s sys_s wall_s" as metric/value/unit lines, the way httpd
# --stats writes them, for harness/common/proof.sh's proof_record_cpu.
# With -a EACH, the file every httpd -1 appended its --stats block to
# (httpd --stats-append EACH): STATS also gets their sum, every line in
# count or B (connections, requests, bytes, errors, ..., the lat_open_ns and
# lat_ttfb_ns histograms), as one httpd -N writes them summed over its
# children.  Exits with CMD's status, 0 when a signal stopped it.
set -eu
usage() {
  echo "usage: fork-server.sh [-a EACH] STATS CMD..." >&2
  exit 2
}
each=''
if [ "${1:-}" = -a ]; then
  [ $# -ge 2 ] || usage
  each=$2
  shift 2
fi
[ $# -ge 2 ] || usage
stats=$1
shift
t0=$EPOCHREALTIME
stopped=0

# shellcheck source=SCRIPTDIR/poll.sh
. "$(dirname "$0")/poll.sh"

# shellcheck disable=SC2317 # called by the trap
# idle : CMD has no child left, no connection is being served (pgrep -P;
# without pgrep, none is waited for).
idle() {
  ! pgrep -P "$pid" >/dev/null 2>&1
}

# shellcheck disable=SC2317 # called by the trap
# on_signal : let the connections being served end (at most 1 second),
# then pass the signal on; later ones are ignored.
on_signal() {
  stopped=1
  trap '' TERM INT HUP
  POLL_STEP=0.02 poll_until 1 idle || true
  kill -TERM "$pid" 2>/dev/null || true
}

"$@" &
pid=$!
trap on_signal TERM INT HUP
rc=0
while :; do
  rc=0
  wait "$pid" || rc=$?
  kill -0 "$pid" 2>/dev/null || break
done
# `times` in this shell (not in a $(...) subshell, whose children are none):
# line 2 is the children's user and system time, like 1m2.345s 0m0.500s.
times >"$stats.times"
awk -v t0="$t0" -v t1="$EPOCHREALTIME" '
  function sec(x,   a) { split(x, a, /[ms]/); return a[1] * 60 + a[2] }
  NR == 2 { printf "user_s\t%.3f\ts\nsys_s\t%.3f\ts\nwall_s\t%.3f\ts\n", sec($1), sec($2), t1 - t0 }
' "$stats.times" >"$stats.tmp"
if [ -n "$each" ] && [ -s "$each" ]; then
  awk -F '\t' '
    NF == 3 && ($3 == "count" || $3 == "B") {
      if (!($1 in sum)) order[++n] = $1
      sum[$1] += $2; unit[$1] = $3
    }
    END { for (i = 1; i <= n; i++) printf "%s\t%.0f\t%s\n", order[i], sum[order[i]], unit[order[i]] }
  ' "$each" >>"$stats.tmp"
fi
mv "$stats.tmp" "$stats"
rm -f "$stats.times"
[ "$stopped" = 1 ] && exit 0
exit "$rc"
