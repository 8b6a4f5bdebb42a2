# shellcheck shell=sh
# harness/lib.sh: sourced by every phase script.  It knows where the current
# run's results live and how to append records in DESIGN.md's format:
#   results/<run-id>/<host>/<variant>/{meta.json,records.tsv,series/<phase>-<trial>.tsv}
# The harness issue owns this file; phase scripts use only the functions below.
#
# Environment (all optional):
#   RESULTS  results root (default: <checkout>/results)
#   RUN_ID   the run (default: the current run, see run_id)
#   HOST     host name in the results (default: hostname -s)
#   VARIANT  variant name (default: "default")

SHOOTOUT_ROOT=${SHOOTOUT_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
RESULTS=${RESULTS:-$SHOOTOUT_ROOT/results}
HOST=${HOST:-$(hostname -s 2>/dev/null || echo localhost)}
VARIANT=${VARIANT:-default}

# die MESSAGE : one line on stderr naming the script, exit 1.
die() {
  printf '%s: %s\n' "$(basename "$0")" "$*" >&2
  exit 1
}

# run_id : the run this phase belongs to.  RUN_ID wins; otherwise the run that
# results/.current names; otherwise a new one (UTC time + host), made current.
run_id() {
  if [ -n "${RUN_ID:-}" ]; then
    printf '%s\n' "$RUN_ID"
  elif [ -s "$RESULTS/.current" ]; then
    cat "$RESULTS/.current"
  else
    mkdir -p "$RESULTS"
    RUN_ID=$(date -u +%Y%m%dT%H%M%SZ)-$HOST
    printf '%s\n' "$RUN_ID" >"$RESULTS/.current"
    printf '%s\n' "$RUN_ID"
  fi
}

# run_dir : results/<run>/<host>/<variant>, created with its records header.
run_dir() {
  d=$RESULTS/$(run_id)/$HOST/$VARIANT
  mkdir -p "$d/series"
  [ -s "$d/records.tsv" ] || printf 'phase\ttrial\tmetric\tvalue\tunit\n' >"$d/records.tsv"
  printf '%s\n' "$d"
}

# record PHASE TRIAL METRIC VALUE UNIT : append one measurement.
record() {
  [ $# -eq 5 ] || die "record: want PHASE TRIAL METRIC VALUE UNIT, got: $*"
  printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" >>"$(run_dir)/records.tsv"
}

# record_stats PHASE TRIAL FILE : append every "metric value unit" line of a
# tool's --stats FILE as records of PHASE/TRIAL.
record_stats() {
  [ -r "$3" ] || die "record_stats: no stats file $3"
  awk -F '\t' -v p="$1" -v t="$2" 'NF >= 3 { printf "%s\t%s\t%s\t%s\t%s\n", p, t, $1, $2, $3 }' \
    "$3" >>"$(run_dir)/records.tsv"
}

# next_trial PHASE : 1 + the highest trial recorded for PHASE in this run.
next_trial() {
  awk -F '\t' -v p="$1" 'NR > 1 && $1 == p && $2 + 0 > max { max = $2 + 0 } END { print max + 1 }' \
    "$(run_dir)/records.tsv"
}

# series_file PHASE TRIAL : where the per-second series of that phase goes.
series_file() {
  printf '%s/series/%s-%s.tsv\n' "$(run_dir)" "$1" "$2"
}
