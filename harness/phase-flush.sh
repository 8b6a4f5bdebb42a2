#!/usr/bin/env bash
# harness/phase-flush.sh : flush TARGET's cache with FLUSH (drop, remount,
# prime, none; reboot = check that Ansible rebooted the host), see flush.sh.
# Records of phase flush: wall_s, cached_kb_before and cached_kb_after (the
# page cache: Cached of Linux's meminfo, or the nearest figure the adapter
# harness/os/<os>.sh has; left out where it has none), rebooted
# (FLUSH=reboot), status.
set -eu
SHOOTOUT_ROOT=${SHOOTOUT_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=SCRIPTDIR/lib.sh
. "$SHOOTOUT_ROOT/harness/lib.sh"
# shellcheck source=SCRIPTDIR/common.sh
. "$SHOOTOUT_ROOT/harness/common.sh"

cached_kb() {
  os_memory | awk '{ print $2 }'
}

phase_begin flush
case $FLUSH in
  drop | remount | prime | none | reboot) ;;
  *) harness_die "unknown FLUSH=$FLUSH: use drop, remount, prime, none or reboot" ;;
esac
before=$(cached_kb) || true
before=${before:--1}
sampler_start flush -m none
harness_say "flush: $FLUSH"
t0=$(time_now)
proc_run flush "$HARNESS/flush.sh" "$FLUSH"
wall=$(time_since "$t0")
sampler_stop
record flush "$CUR_TRIAL" wall_s "$wall" s
after=$(cached_kb) || true
after=${after:--1}
[ "$before" -lt 0 ] || record flush "$CUR_TRIAL" cached_kb_before "$before" KB
[ "$after" -lt 0 ] || record flush "$CUR_TRIAL" cached_kb_after "$after" KB
[ "$FLUSH" != reboot ] || record flush "$CUR_TRIAL" rebooted 1 bool
PHASE_FIGURE="FLUSH=$FLUSH in $(human_s "$wall")"
phase_end flush
