#!/bin/bash
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
[ -d "$DATA" ] || fail "$DATA does not exist: nothing to delete (run make phase-untar first)"
data_owned ||
  fail "$DATA has no .shootout-owned mark: the harness did not make it, so it will not delete it (remove it yourself if it is scratch)"
need_tool rmtree

total=0
if [ -s "$DATASETS_OUT/$DATASET-$SEED/manifest.tsv" ]; then
  MANIFEST=$DATASETS_OUT/$DATASET-$SEED/manifest.tsv
  manifest_totals
  total=$DS_FILES
fi
stats=$WORK/rmtree.stats
start_sampler delete -m statfs -F "$total"
say "rmtree $DATA"
run_tool rmtree "$HARNESS_BIN/rmtree" --stats "$stats" "$DATA"
t0=$(now_s)
run_tool sync sync
sync_s=$(since "$t0")
stop_sampler
# rmtree may leave DIR itself; the mark is gone with the tree either way.
[ ! -d "$DATA" ] || rmdir "$DATA" 2>/dev/null || true

# The mark was one of the files rmtree removed: count the dataset only.
awk -F '\t' -v OFS='\t' '$1 == "files" && $2 > 0 { $2 = sprintf("%.0f", $2 - 1) } { print }' "$stats" >"$stats.ds"
record_stats delete "$CUR_TRIAL" "$stats.ds"
record_rates delete "$stats.ds"
record delete "$CUR_TRIAL" sync_s "$sync_s" s
record delete "$CUR_TRIAL" total_s "$(calc "$(stat_value "$stats" wall_s) + $sync_s")" s
phase_end delete
say "done: $(stat_value "$stats.ds" files) files in $(stat_value "$stats" wall_s) s + sync $sync_s s"
