#!/usr/bin/env bash
# harness/fork-server.sh STATS CMD... : the process-per-connection server of
# the serve-*-fork phases.  Runs CMD (tcpserver, which forks bin/httpd -1
# for each connection) until SIGTERM, SIGINT or SIGHUP, passes the signal
# on, waits for it, and then writes to STATS the CPU time of CMD and of
# every process it forked and reaped: this shell's children's getrusage, as
# bash's `times` shows it.  So it is tcpserver's accepts and forks plus
# every httpd -1's exec and serving, the cost of the whole model; a child
# still running (not yet reaped) when CMD stops is not counted.  STATS gets
# "user_s sys_s wall_s" as metric/value/unit lines, the way httpd --stats
# writes them, for harness/common/proof.sh's proof_record_cpu.  Exits with CMD's
# status, 0 when a signal stopped it.
set -eu
[ $# -ge 2 ] || { echo "usage: fork-server.sh STATS CMD..." >&2; exit 2; }
stats=$1
shift
t0=$EPOCHREALTIME
stopped=0
"$@" &
pid=$!
trap 'stopped=1; kill -TERM "$pid" 2>/dev/null || true' TERM INT HUP
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
mv "$stats.tmp" "$stats"
rm -f "$stats.times"
[ "$stopped" = 1 ] && exit 0
exit "$rc"
