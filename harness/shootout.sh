#!/usr/bin/env bash
# harness/shootout.sh : every phase in order for one variant, in a NEW run
# (unless RUN_ID names one): untar, untar2, flush, serve (which flushes
# before each cold replay), preload (only with PRELOAD=dirs: flush, walk the
# directories, serve once), net, delete.  TRIALS=N repeats the cycle; each
# cycle's records carry the next trial number.  Stops at the first failed
# phase (recorded by the phase) and exits non-zero.  PHASES="untar untar2
# serve net delete iometer iozone postmark discover" runs those phases (any
# of harness/phase-*.sh, flush included) in that order instead.  At the end,
# the run's results.csv, results.json and composite.xml (plots/export.py).
# After the TRIALS cycles, untar, untar2 and delete (those of PHASES, when
# it has untar and delete: the cycle that leaves TARGET as it found it) run
# as more cycles until their figures are precise or a cap is reached
# (PRECISION, PRECISION_MAX_TRIALS, PRECISION_MAX_S: docs/harness.md#precision);
# meta.json gets the measured share of the run's wall time.
# The run holds TARGET's lock and its results directory's (harness/lock.sh):
# a second run on either is refused, one line naming this one, exit 2.  A
# run refused at its first phase leaves no run directory and .current as
# it was.
set -eu
SHOOTOUT_ROOT=${SHOOTOUT_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=SCRIPTDIR/lib.sh
. "$SHOOTOUT_ROOT/harness/lib.sh"
# shellcheck source=SCRIPTDIR/target-guard.sh
. "$SHOOTOUT_ROOT/harness/target-guard.sh"
# shellcheck source=SCRIPTDIR/common/settings.sh
. "$SHOOTOUT_ROOT/harness/common/settings.sh"
# shellcheck source=SCRIPTDIR/common/precision.sh
. "$SHOOTOUT_ROOT/harness/common/precision.sh"
# shellcheck source=SCRIPTDIR/poll.sh
. "$SHOOTOUT_ROOT/harness/poll.sh"
# shellcheck source=SCRIPTDIR/lock.sh
. "$SHOOTOUT_ROOT/harness/lock.sh"
# shellcheck source=SCRIPTDIR/common/strays.sh
. "$SHOOTOUT_ROOT/harness/common/strays.sh"
settings_check harness micro
precision_settings

# shootout_lock : TARGET's lock for the whole run (harness/lock.sh; the
# phases it runs find it held by their parent), before a run is made: a
# second run on TARGET is one line naming this one, exit 2.
shootout_lock() {
  lock_target || settings_refuse "${LOCK_ERROR:-$LOCK_REFUSAL}"
  strays_begin
  strays_reap
}

# shootout_lock_variant : the lock of RESULTS/RUN_ID/HOST/VARIANT (a RUN_ID
# given twice would mix two runs' records).
shootout_lock_variant() {
  lib_names_ok
  lock_variant "$RUN_ID" || settings_refuse "${LOCK_ERROR:-$LOCK_REFUSAL}"
}

# shootout_unmake_run : a run refused at its first phase leaves nothing: the
# run made here goes again if nothing was written in it, and .current names
# what it named before.
shootout_unmake_run() {
  [ -n "$made_run" ] || return 0
  rmdir "$RESULTS/$made_run" 2>/dev/null || return 0
  [ "$(cat "$RESULTS/.current" 2>/dev/null)" = "$made_run" ] || return 0
  if [ -n "$was_current" ]; then
    printf '%s\n' "$was_current" >"$RESULTS/.current.$$" && mv -f "$RESULTS/.current.$$" "$RESULTS/.current"
  else
    rm -f "$RESULTS/.current"
  fi
}

TRIALS=${TRIALS:-1}
FLUSH=${FLUSH:-drop}
PRELOAD=${PRELOAD:-}
case $PRELOAD in
  '') phases='untar untar2 flush serve net delete' ;;
  dirs) phases='untar untar2 flush serve preload net delete' ;;
  *) harness_die "PRELOAD=$PRELOAD: leave it unset, or 'dirs' (walk the directories before one more cold serve)" ;;
esac
if [ -n "${PHASES:-}" ]; then
  for p in $PHASES; do
    f=$p
    case $p in *[!a-z0-9]*) f=/ ;; esac
    [ -x "$SHOOTOUT_ROOT/harness/phase-$f.sh" ] ||
      harness_die "PHASES: no phase '$p' (want names of harness/phase-*.sh: $(cd "$SHOOTOUT_ROOT/harness" &&
        printf '%s\n' phase-*.sh | sed 's/^phase-//; s/\.sh$//' | tr '\n' ' '))"
  done
  phases=$PHASES
fi
case $TRIALS in '' | *[!0-9]* | 0) harness_die "TRIALS=$TRIALS: want a number of cycles (1, 2, ...)" ;; esac
[ "$FLUSH" != reboot ] ||
  harness_die "FLUSH=reboot needs Ansible to reboot between phases: run the playbook, or use FLUSH=drop, remount, prime or none"
# Refused here already (before a run is made) by the guard every phase makes.
target_guard || harness_die "$TARGET_REFUSAL"
trap 'lock_release_all' EXIT
shootout_lock
made_run=''
if [ -z "${RUN_ID:-}" ]; then
  was_current=$(cat "$RESULTS/.current" 2>/dev/null || :)
  RUN_ID=$(new_run)
  made_run=$RUN_ID
fi
export RUN_ID
shootout_lock_variant
start=$EPOCHREALTIME

child=''
trap '[ -z "$child" ] || kill -TERM "$child" 2>/dev/null; wait "$child" 2>/dev/null; exit 143' TERM HUP
trap '[ -z "$child" ] || kill -INT "$child" 2>/dev/null; wait "$child" 2>/dev/null; exit 130' INT

# run_phase PHASE : one phase, stopping the run when it fails.
run_phase() {
  local rc=0
  "$SHOOTOUT_ROOT/harness/phase-$1.sh" &
  child=$!
  wait "$child" || rc=$?
  child=''
  # What the phase started and left running (killed outright, it ran no
  # trap): stopped before the next phase or the end of the run.
  strays_reap
  # exit 2: the phase refused to start (its line said why), no trial recorded
  if [ "$rc" -eq 2 ]; then
    shootout_unmake_run
    exit 2
  fi
  [ "$rc" -eq 0 ] || harness_die "phase $1 failed (exit $rc): see $(run_dir)/failures.tsv"
}

# The first of this run's lines in records.tsv (its header is line 1), for
# the measured share; not made here, so a run refused at its first phase
# leaves no directory.
records=$RESULTS/$RUN_ID/$HOST/$VARIANT/records.tsv
first_line=2
[ ! -s "$records" ] || first_line=$(($(wc -l <"$records") + 1))
for trial in $(seq 1 "$TRIALS"); do
  for phase in $phases; do
    [ -t 2 ] && printf 'shootout: run %s, cycle %s/%s: %s\n' "$RUN_ID" "$trial" "$TRIALS" "$phase" >&2
    run_phase "$phase"
  done
done
# More cycles of untar, untar2 and delete while their figures are not precise.
cycle=()
for phase in $phases; do
  case $phase in untar | untar2 | delete) cycle+=("$phase") ;; esac
done
case " ${cycle[*]} " in
  *" untar "*" delete "*)
    precision_begin
    extra=0
    while precision_more "${cycle[@]}"; do
      extra=$((extra + 1))
      precision_trial_began
      for phase in "${cycle[@]}"; do
        harness_tell shootout "run $RUN_ID, precision cycle $extra: $phase"
        run_phase "$phase"
      done
    done
    for phase in "${cycle[@]}"; do
      precision_end "$phase" "$(($(next_trial "$phase") - 1))"
    done
    ;;
esac
precision_measured_share "$first_line" "$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')" ||
  printf 'shootout: warning: no measured_share in meta.json of run %s\n' "$RUN_ID" >&2
# The run's figures for other tools (docs/formats.md#exports): results.csv,
# results.json and composite.xml beside its hosts, of every host and variant
# it has here so far.  Python's standard library only; the measurements are
# recorded already, so a host that cannot write them gets one line.
export_py=$SHOOTOUT_ROOT/plots/plots.py
if [ -f "$export_py" ] && command -v python3 >/dev/null 2>&1; then
  python3 "$export_py" export --results "$RESULTS" --out "$RESULTS/$RUN_ID" "$RUN_ID" ||
    printf 'shootout: warning: no results.csv, results.json, composite.xml for run %s (make export RESULTS=%s RUN=%s OUT=%s makes them)\n' \
      "$RUN_ID" "$RESULTS" "$RUN_ID" "$RESULTS/$RUN_ID" >&2
else
  printf 'shootout: warning: no python3 or plots/ here: no results.csv, results.json, composite.xml for run %s\n' "$RUN_ID" >&2
fi
# The last line: where the results are, and how to draw them.
draw="make report RUN=$RUN_ID"
[ "$RESULTS" = "$SHOOTOUT_ROOT/results" ] || draw="$draw RESULTS=$RESULTS"
printf 'shootout: run %s done in %s: results in %s; draw them with %s\n' "$RUN_ID" \
  "$(human_s "$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')")" "$(run_dir)" "$draw"
