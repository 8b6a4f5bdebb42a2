#!/usr/bin/env bash
# harness/phase-delete.sh : bin/rmtree TARGET/data, then sync, both timed.
# Refuses a TARGET/data without the harness's .shootout-owned mark.  Records
# of phase delete: rmtree's files (the dataset's files: the mark is not
# counted) dirs wall_s (and extras), files_per_s, sync_s, total_s, status.
set -eu
SHOOTOUT_ROOT=${SHOOTOUT_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=SCRIPTDIR/lib.sh
. "$SHOOTOUT_ROOT/harness/lib.sh"
# shellcheck source=SCRIPTDIR/common.sh
. "$SHOOTOUT_ROOT/harness/common.sh"

phase_begin delete
[ -d "$DATA" ] || phase_refuse "$DATA does not exist: nothing to delete (run make phase-untar first)"
target_owned ||
  phase_refuse "$DATA has no .shootout-owned mark: the harness did not make it, so it will not delete it (remove it yourself if it is scratch)"
preflight_writable
preflight_done
proc_need rmtree

total=0
if [ -s "$DATASETS_OUT/$DATASET-$SEED/manifest.tsv" ]; then
  MANIFEST=$DATASETS_OUT/$DATASET-$SEED/manifest.tsv
  data_totals
  total=$DS_FILES
fi
stats=$WORK/rmtree.stats
sampler_start delete -m statfs -F "$total"
harness_say "rmtree $DATA"
proc_run rmtree "$HARNESS_BIN/rmtree" --stats "$stats" "$DATA"
budget_part sync
t0=$(time_now)
proc_run sync sync
sync_s=$(time_since "$t0")
sampler_stop
# rmtree may leave DIR itself; the mark is gone with the tree either way.
[ ! -d "$DATA" ] || rmdir "$DATA" 2>/dev/null || true

# The mark was one of the files rmtree removed: count the dataset only.
awk -F '\t' -v OFS='\t' '$1 == "files" && $2 > 0 { $2 = sprintf("%.0f", $2 - 1) } { print }' "$stats" >"$stats.ds"
record_stats delete "$CUR_TRIAL" "$stats.ds"
time_rates delete "$stats.ds"
record delete "$CUR_TRIAL" sync_s "$sync_s" s
record delete "$CUR_TRIAL" total_s "$(harness_calc "$(stat_value "$stats" wall_s) + $sync_s")" s
files=$(stat_value "$stats.ds" files) wall=$(stat_value "$stats" wall_s)
PHASE_FIGURE="$files files in $(human_s "$wall") + sync $(human_s "$sync_s"), $(human_rate "$files" "$(human_ms_of "$wall")" files)"
phase_end delete
