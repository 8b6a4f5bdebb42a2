#!/usr/bin/env bash
# How much of a demo variant's wall time is measurement (issue 40): one
# variant as `make demo` runs it (ext4 on a loop device of an image in
# IMG_DIR, DATASET, FLUSH=drop, the demo's PROFILE=1 BLKLAT=1 FORKLAT=1 and
# its TRIALS), through `make shootout`, which records in meta.json
# measured_s (the phases' measured windows), run_wall_s and measured_share,
# the one over the other (docs/formats.md#metajson).  Prints them and where
# the rest went per phase (each phase's wall time from its log against its
# measured windows), with the goal: a share over 60%.
#   env: DATASET (small) SIZE (4G, the image) IMG_DIR (/var/tmp, as the demo)
#        TRIALS (the demo's) PROFILE BLKLAT FORKLAT (1, as the demo)
set -eu
cd "$(dirname "$0")/../.."
DATASET=${DATASET:-small} SIZE=${SIZE:-4G} IMG_DIR=${IMG_DIR:-/var/tmp}
PROFILE=${PROFILE:-1} BLKLAT=${BLKLAT:-1} FORKLAT=${FORKLAT:-1}
# The demo's default number of cycles (playbooks/demo.sh).
# shellcheck disable=SC2016 # a pattern of demo.sh's text
TRIALS=${TRIALS:-$(sed -n 's/^trials=\${TRIALS:-\([0-9]*\)}$/\1/p' playbooks/demo.sh)}
GOAL=0.6
# The bench's knobs are its own (given to make shootout by name below).
export -n DATASET SIZE IMG_DIR TRIALS PROFILE BLKLAT FORKLAT
[ "$(id -u)" = 0 ] || { echo "share bench: needs root (a loop device, a mount, drop_caches)" >&2; exit 2; }
for c in mkfs.ext4 losetup jq; do
  command -v "$c" >/dev/null 2>&1 || { echo "share bench: needs $c (make deps)" >&2; exit 2; }
done

# shellcheck source=tests/bench/ext4-loop.bash
. tests/bench/ext4-loop.bash
ext4_loop share-bench "$IMG_DIR" "$SIZE"
results=$tmp/results
echo "share bench: one demo variant (ext4 on $loop, dataset $DATASET, TRIALS=$TRIALS PROFILE=$PROFILE" \
  "BLKLAT=$BLKLAT FORKLAT=$FORKLAT) through make shootout; logs in $tmp until the end"
t0=$EPOCHREALTIME
if ! make -s shootout TARGET="$mnt" RUN_ID=share VARIANT=ext4 RESULTS="$results" DATASET="$DATASET" FLUSH=drop \
  TRIALS="$TRIALS" PROFILE="$PROFILE" BLKLAT="$BLKLAT" FORKLAT="$FORKLAT" >"$tmp/log" 2>&1; then
  tail -n 20 "$tmp/log" >&2
  echo "share bench: the shootout failed" >&2
  exit 1
fi
wall=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
dir=$(echo "$results"/share/*/ext4)
meta=$dir/meta.json

# Per phase: its measured windows (budget_wall_s, sync_budget_wall_s, as
# measured_s counts them) against the time its logs span.
printf '%-14s %8s %8s\n' phase measured trials
awk -F '\t' '$1 != "flush" && ($3 == "budget_wall_s" || $3 == "sync_budget_wall_s") { s[$1] += $4; if (!seen[$1 FS $2]++) n[$1]++ }
  END { for (p in s) printf "%-14s %7.1fs %8d\n", p, s[p], n[p] }' "$dir/records.tsv" | sort
share=$(jq -r '.measured_share // empty' "$meta")
if [ -z "$share" ]; then
  echo "share bench: meta.json has no measured_share (a harness from before issue 40): make shootout took $wall s"
  exit 1
fi
jq -r '"measured \(.measured_s) s of \(.run_wall_s) s: measured_share \(.measured_share)"' "$meta"
verdict=MISSED
awk -v s="$share" -v g="$GOAL" 'BEGIN { exit !(s > g) }' && verdict=met
echo "goal: measured_share over $GOAL: $verdict (make shootout took $wall s in all, the dataset's making included)"
