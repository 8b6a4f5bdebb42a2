#!/usr/bin/env bash
# harness/phase-untar.sh [untar|untar2] : bin/dltar streams the dataset's
# layout.tar.gz (untar) or update.tar.gz (untar2, on top of the first) from
# SOURCE (default: the dataset served by bin/httpd on loopback) into
# TARGET/data; then sync, timed on its own.  Records of phase untar/untar2:
# dltar's files dirs bytes wall_s user_s sys_s (and its extras), mbps,
# files_per_s, sync_s, total_s, status.  untar2 notes in TARGET/data's mark
# that it ran (target_mark_updated).  Variables: see harness/harness.mk.
set -eu
SHOOTOUT_ROOT=${SHOOTOUT_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=SCRIPTDIR/lib.sh
. "$SHOOTOUT_ROOT/harness/lib.sh"
# shellcheck source=SCRIPTDIR/common.sh
. "$SHOOTOUT_ROOT/harness/common.sh"

name=${1:-untar}
case $name in
  untar) tarball=layout.tar.gz ;;
  untar2) tarball=update.tar.gz ;;
  *) harness_die "usage: phase-untar.sh [untar|untar2]" ;;
esac
PHASE_LABEL=$name
phase_begin "$name"
data_ensure
if [ "$name" = untar ]; then
  if [ -d "$DATA" ] && target_owned && ! target_empty; then
    phase_refuse "$DATA holds an earlier extraction: run make phase-delete TARGET=$TARGET first"
  fi
  preflight_writable
  [ ${#PREFLIGHT_PROBLEMS[@]} -gt 0 ] || target_claim
  preflight_dataset_space
else
  if ! target_owned || target_empty; then
    phase_refuse "$DATA holds no extraction of the harness: run make phase-untar first"
  fi
  preflight_writable
  data_totals
fi
preflight_port
preflight_done
proc_need dltar

# Progress totals: dataset.txt's figures for this tarball when it has them.
files_total=$(data_value "${tarball%%.*}_files")
bytes_total=$(data_value "${tarball%%.*}_bytes")
serve_source_url
stats=$WORK/dltar.stats
sampler_start "$name" -s "$WORK/dltar.series" -F "${files_total:-$DS_FILES}" -B "${bytes_total:-$DS_BYTES}"
harness_say "dltar $SRC_URL/$tarball -> $DATA"
proc_run dltar "$HARNESS_BIN/dltar" --stats "$stats" --series "$WORK/dltar.series" -C "$DATA" "$SRC_URL/$tarball"
budget_part sync
t0=$(time_now)
proc_run sync sync
sync_s=$(time_since "$t0")
sampler_stop
[ -z "${SOURCE_GROUP:-}" ] || proc_stop "$SOURCE_GROUP"

[ "$name" != untar2 ] || target_mark_updated
record_stats "$name" "$CUR_TRIAL" "$stats"
time_rates "$name" "$stats"
record "$name" "$CUR_TRIAL" sync_s "$sync_s" s
record "$name" "$CUR_TRIAL" total_s "$(harness_calc "$(stat_value "$stats" wall_s) + $sync_s")" s
files=$(stat_value "$stats" files) wall=$(stat_value "$stats" wall_s)
PHASE_FIGURE="$files files, $(human_bytes "$(stat_value "$stats" bytes)") in $(human_s "$wall") + sync $(human_s "$sync_s"), $(human_rate "$files" "$(human_ms_of "$wall")" files)"
phase_end "$name"
