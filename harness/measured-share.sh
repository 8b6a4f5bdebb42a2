#!/usr/bin/env bash
# harness/measured-share.sh WALL_S : the measured share of a variant run by
# the playbooks (docs/formats.md#metajson), which run the phases one `make
# phase-NAME` at a time, never `make shootout`: adds WALL_S seconds (one
# trial of the variant, as the control machine timed it) to run_wall_s in
# the variant's meta.json, and sets measured_s (the measured windows of
# every record of the variant in this run) and measured_share from them, as
# make shootout does at its end.  HOST, VARIANT, RUN_ID and RESULTS as the
# phases get them; a variant without meta.json (no phase ran) is left
# alone.  Status 1 and one line when WALL_S is no number or meta.json
# cannot be written.
set -eu
SHOOTOUT_ROOT=${SHOOTOUT_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=SCRIPTDIR/lib.sh
. "$SHOOTOUT_ROOT/harness/lib.sh"
# shellcheck source=SCRIPTDIR/common/precision.sh
. "$SHOOTOUT_ROOT/harness/common/precision.sh"

if [ $# -ne 1 ] || ! [[ $1 =~ ^[0-9]+(\.[0-9]+)?$ ]]; then
  harness_die "usage: measured-share.sh WALL_S (seconds, a number)"
fi
lib_names_ok
[ -n "${RUN_ID:-}" ] || harness_die "RUN_ID is not set: whose measured share?"
meta=$RESULTS/$RUN_ID/$HOST/$VARIANT/meta.json
[ -s "$meta" ] || exit 0
wall=$(jq -r --argjson w "$1" '(.run_wall_s // 0) + $w' "$meta") || harness_die "cannot read $meta"
precision_measured_share 2 "$wall" || harness_die "cannot write the measured share into $meta"
