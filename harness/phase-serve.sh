#!/bin/bash
# harness/phase-serve.sh : for PROCS in SERVE_PROCS (default "1 32"): flush
# the cache (FLUSH), check that it is cold (check_cold: resident_pct), start
# bin/httpd -q -N PROCS on TARGET/data, replay the dataset's requests.txt
# (REPLAY_CONC connections, REPLAY_KEEPALIVE requests each, every response
# checked against the manifest) on the cold cache, stop httpd and wait for all
# its processes; then the same on the warm cache (a fresh httpd, so that its
# CPU time is the warm replay's).  Records serve-cold-PROCS and
# serve-warm-PROCS: replay's requests failed resets retries timeouts bytes
# wall_s rps mbps lat_p50_ms lat_p99_ms (and its extras), tool_cpu_share,
# status; serve-cold-PROCS also resident_pct.  REPLAY_FROM=host runs the replay there over ssh.
# FLUSH=reboot: the first PROCS checks the reboot, the others drop the cache.
set -eu
SHOOTOUT_ROOT=${SHOOTOUT_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=SCRIPTDIR/lib.sh
. "$SHOOTOUT_ROOT/harness/lib.sh"
# shellcheck source=SCRIPTDIR/common.sh
. "$SHOOTOUT_ROOT/harness/common.sh"

names=()
for p in $SERVE_PROCS; do
  case $p in '' | *[!0-9]* | 0) die "SERVE_PROCS='$SERVE_PROCS': want numbers of processes like '1 32'" ;; esac
  names+=("serve-cold-$p" "serve-warm-$p")
done
[ ${#names[@]} -gt 0 ] || die "SERVE_PROCS is empty: want numbers of processes like '1 32'"
phase_begin "${names[0]}" "${names[@]}"
ensure_dataset
if ! data_owned || data_empty; then
  fail "$DATA holds no extraction of the harness: run make phase-untar and phase-untar2 first"
fi
case $FLUSH in drop | remount) check_root "FLUSH=$FLUSH" ;; esac
check_nofile $((REPLAY_CONC + 256))
check_port
preflight_done
need_tool httpd replay
serve_addr
SAMPLER_TOTAL=$(grep -c . "$REQUESTS")

method=$FLUSH
for p in $SERVE_PROCS; do
  CUR_PHASE=serve-cold-$p
  say "flush ($method), httpd -N $p"
  run_tool flush "$HARNESS/flush.sh" "$method"
  check_cold "$method"
  [ "$method" != reboot ] || method=drop
  for kind in cold warm; do
    CUR_PHASE=serve-$kind-$p
    start_httpd "$DATA" "$p" "$BIND_ADDR"
    say "replay $SAMPLER_TOTAL requests, $REPLAY_CONC connections, $REPLAY_KEEPALIVE per connection ($kind)"
    replay_run "$CUR_PHASE" "$CONNECT_ADDR:$HTTPD_PORT" -c "$REPLAY_CONC" -k "$REPLAY_KEEPALIVE" \
      -u "@$REQUESTS" -M "@$MANIFEST"
    record_stats "$CUR_PHASE" "$CUR_TRIAL" "$WORK/$CUR_PHASE.stats"
    record "$CUR_PHASE" "$CUR_TRIAL" status 0 exit
    say "$(stat_value "$WORK/$CUR_PHASE.stats" rps) req/s, $(stat_value "$WORK/$CUR_PHASE.stats" failed) failed"
    stop_group "$HTTPD_GROUP"
  done
done
note_boot_id
PHASE_DONE=1
