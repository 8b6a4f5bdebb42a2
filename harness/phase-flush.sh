#!/bin/bash
# harness/phase-flush.sh : flush TARGET's cache with FLUSH (drop, remount,
# prime, none; reboot = check that Ansible rebooted the host), see flush.sh.
# Records of phase flush: wall_s, cached_kb_before and cached_kb_after (Cached
# of /proc/meminfo), rebooted (FLUSH=reboot), status.
set -eu
SHOOTOUT_ROOT=${SHOOTOUT_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=SCRIPTDIR/lib.sh
. "$SHOOTOUT_ROOT/harness/lib.sh"
# shellcheck source=SCRIPTDIR/common.sh
. "$SHOOTOUT_ROOT/harness/common.sh"

cached_kb() {
  awk '/^Cached:/ { print $2 }' /proc/meminfo
}

phase_begin flush
case $FLUSH in
  drop | remount | prime | none | reboot) ;;
  *) fail "unknown FLUSH=$FLUSH: use drop, remount, prime, none or reboot" ;;
esac
before=$(cached_kb)
start_sampler flush -m none
say "flush: $FLUSH"
t0=$(now_s)
run_tool flush "$HARNESS/flush.sh" "$FLUSH"
wall=$(since "$t0")
stop_sampler
record flush "$CUR_TRIAL" wall_s "$wall" s
record flush "$CUR_TRIAL" cached_kb_before "$before" KB
record flush "$CUR_TRIAL" cached_kb_after "$(cached_kb)" KB
[ "$FLUSH" != reboot ] || record flush "$CUR_TRIAL" rebooted 1 bool
phase_end flush
