#!/bin/bash
# harness/phase-serve.sh : for PROCS in SERVE_PROCS (default "1 32") and
# CONC in REPLAY_CONC (default 100; a list like "100 20" runs each): flush
# the cache (FLUSH), check that it is cold (check_cold: resident_pct), start
# bin/httpd -q -N PROCS on TARGET/data, replay the first REPLAY_COUNT (10000;
# 0 = all) lines of the dataset's requests.txt (CONC connections,
# REPLAY_KEEPALIVE requests each, every response checked against the
# manifest) on the cold cache, stop httpd and wait for all its processes;
# then the same on the warm cache (a fresh httpd, so that its CPU time is the
# warm replay's).
# Records serve-cold-PROCS and serve-warm-PROCS (for the first CONC;
# serve-cold-PROCS-cCONC and serve-warm-PROCS-cCONC for the others): replay's
# requests failed resets retries timeouts bytes wall_s rps mbps lat_p50_ms
# lat_p99_ms (and its extras), conc, tool_cpu_share, status; the cold ones
# also resident_pct.  REPLAY_FROM=host runs the replay there over ssh.
# FLUSH=reboot: the first cold replay checks the reboot, the others drop the
# cache.
set -eu
SHOOTOUT_ROOT=${SHOOTOUT_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=SCRIPTDIR/lib.sh
. "$SHOOTOUT_ROOT/harness/lib.sh"
# shellcheck source=SCRIPTDIR/common.sh
. "$SHOOTOUT_ROOT/harness/common.sh"

# serve_suffix CONC : the record-name suffix of a REPLAY_CONC value: none
# for the first, -cCONC for the others.
serve_suffix() {
  [ "$1" = "${concs[0]}" ] || printf -- '-c%s' "$1"
}

read -r -a concs <<<"$REPLAY_CONC"
[ ${#concs[@]} -gt 0 ] || die "REPLAY_CONC is empty: want numbers of connections like '100' or '100 20'"
maxconc=0 seen=' '
for c in "${concs[@]}"; do
  case $c in *[!0-9]* | 0) die "REPLAY_CONC='$REPLAY_CONC': want numbers of connections like '100' or '100 20'" ;; esac
  case $seen in *" $c "*) die "REPLAY_CONC='$REPLAY_CONC' names $c twice" ;; esac
  seen="$seen$c "
  [ "$c" -le "$maxconc" ] || maxconc=$c
done
names=()
for p in $SERVE_PROCS; do
  case $p in '' | *[!0-9]* | 0) die "SERVE_PROCS='$SERVE_PROCS': want numbers of processes like '1 32'" ;; esac
  for c in "${concs[@]}"; do
    names+=("serve-cold-$p$(serve_suffix "$c")" "serve-warm-$p$(serve_suffix "$c")")
  done
done
[ ${#names[@]} -gt 0 ] || die "SERVE_PROCS is empty: want numbers of processes like '1 32'"
phase_begin "${names[0]}" "${names[@]}"
serve_prepare "$maxconc"
SAMPLER_TOTAL=$REPLAY_TOTAL

method=$FLUSH
for p in $SERVE_PROCS; do
  for c in "${concs[@]}"; do
    sfx=$(serve_suffix "$c")
    CUR_PHASE=serve-cold-$p$sfx
    say "flush ($method), httpd -N $p"
    run_tool flush "$HARNESS/flush.sh" "$method"
    check_cold "$method"
    [ "$method" != reboot ] || method=drop
    for kind in cold warm; do
      CUR_PHASE=serve-$kind-$p$sfx
      start_httpd "$DATA" "$p" "$BIND_ADDR"
      say "replay $SAMPLER_TOTAL requests, $c connections, $REPLAY_KEEPALIVE per connection ($kind)"
      replay_run "$CUR_PHASE" "$CONNECT_ADDR:$HTTPD_PORT" -c "$c" -k "$REPLAY_KEEPALIVE" "${REPLAY_ARGS[@]}"
      record_stats "$CUR_PHASE" "$CUR_TRIAL" "$WORK/$CUR_PHASE.stats"
      record "$CUR_PHASE" "$CUR_TRIAL" conc "$c" count
      record "$CUR_PHASE" "$CUR_TRIAL" status 0 exit
      say "$(stat_value "$WORK/$CUR_PHASE.stats" rps) req/s, $(stat_value "$WORK/$CUR_PHASE.stats" failed) failed"
      stop_group "$HTTPD_GROUP"
    done
  done
done
note_boot_id
PHASE_DONE=1
