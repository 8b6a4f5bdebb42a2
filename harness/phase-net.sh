#!/bin/bash
# harness/phase-net.sh : the network-stack test: one ~11 KB file (NET_SIZE
# bytes, default 11264) fetched NET_COUNT times (default 50000) over NET_CONC
# connections (50) with NET_KEEPALIVE requests each (10), with NET_PROCS
# server processes (default "1 4").  Records net-PROCS: replay's figures
# (rps, mbps, ...), status.  The file lives in TARGET/data/.net while the
# phase runs.
set -eu
SHOOTOUT_ROOT=${SHOOTOUT_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=SCRIPTDIR/lib.sh
. "$SHOOTOUT_ROOT/harness/lib.sh"
# shellcheck source=SCRIPTDIR/common.sh
. "$SHOOTOUT_ROOT/harness/common.sh"

NET_PROCS=${NET_PROCS:-1 4}
NET_COUNT=${NET_COUNT:-50000}
NET_CONC=${NET_CONC:-50}
NET_KEEPALIVE=${NET_KEEPALIVE:-10}
NET_SIZE=${NET_SIZE:-11264}
names=()
for p in $NET_PROCS; do
  case $p in '' | *[!0-9]* | 0) die "NET_PROCS='$NET_PROCS': want numbers of processes like '1 4'" ;; esac
  names+=("net-$p")
done
[ ${#names[@]} -gt 0 ] || die "NET_PROCS is empty: want numbers of processes like '1 4'"
case $NET_COUNT$NET_SIZE in *[!0-9]*) die "NET_COUNT and NET_SIZE want numbers" ;; esac
phase_begin "${names[0]}" "${names[@]}"
check_nofile $((NET_CONC + 256))
check_port
preflight_done
need_tool httpd replay
made_data=0
[ -d "$DATA" ] || made_data=1
claim_data
serve_addr

netdir=$DATA/.net
net_cleanup() {
  rm -rf "$netdir"
  [ "$made_data" = 0 ] || { rm -f "$DATA/.shootout-owned"; rmdir "$DATA"; }
}
PHASE_CLEANUP+=" net_cleanup"
mkdir -p "$netdir"
head -c "$NET_SIZE" /dev/urandom >"$netdir/file.jpg"
SAMPLER_TOTAL=$NET_COUNT
for p in $NET_PROCS; do
  CUR_PHASE=net-$p
  start_httpd "$netdir" "$p" "$BIND_ADDR"
  say "replay /file.jpg $NET_COUNT times, $NET_CONC connections, $NET_KEEPALIVE per connection, httpd -N $p"
  replay_run "$CUR_PHASE" "$CONNECT_ADDR:$HTTPD_PORT" -c "$NET_CONC" -k "$NET_KEEPALIVE" -U /file.jpg -n "$NET_COUNT"
  stop_group "$HTTPD_GROUP"
  record_stats "$CUR_PHASE" "$CUR_TRIAL" "$WORK/$CUR_PHASE.stats"
  record "$CUR_PHASE" "$CUR_TRIAL" status 0 exit
  say "$(stat_value "$WORK/$CUR_PHASE.stats" mbps) MB/s, $(stat_value "$WORK/$CUR_PHASE.stats" rps) req/s"
done
PHASE_CLEANUP=''
net_cleanup
note_boot_id
PHASE_DONE=1
