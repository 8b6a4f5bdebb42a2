# shellcheck shell=bash disable=SC2034
# harness/common/precision.sh: a figure repeated until it is precise, within
# a budget (docs/harness.md#precision).  A figure is a record name's headline
# metric (precision_metric); its trials are those recorded in this run's
# records.tsv with status 0 and not disturbed.  After each trial the
# stopping rule, plots/stats.py precision --target PRECISION VALUES..., says
# whether the 95% confidence interval's half-width is within PRECISION
# percent of the figure; else another trial runs, until PRECISION_MAX_TRIALS
# trials of the name are recorded (disturbed ones too) or the next one would
# end past PRECISION_MAX_S seconds of trying.  PRECISION=0: one trial, as
# the method ran it.  Why it stopped becomes records of the name's last
# trial: precision_trials, precision_stop (precise, trial_cap, time_cap,
# single), precision_halfwidth_pct, precision_disturbed.
# Sourced by common.sh (the phases) and shootout.sh (the cycles of untar,
# untar2 and delete); lib.sh's run_dir and record first.

# The state of the figure being repeated: its first trial's start, the
# last trial's start and length, why it stopped; the last judgement.
PREC_T0='' PREC_TRIAL_T0='' PREC_LAST_S=0 PREC_STOP='' PREC_HALFWIDTH=- PREC_ENOUGH=no

# precision_metric NAME : the headline metric of record name NAME: the
# figure the report ranks by.
precision_metric() {
  case $1 in
    serve-cold-*) echo rps ;;
    serve-warm-*) [ "$MIN_MEASURE_S" = 0 ] && echo rps || echo steady_rps ;;
    net-*) [ "$MIN_MEASURE_S" = 0 ] && echo mbps || echo steady_mbps ;;
    *) echo wall_s ;;
  esac
}

# precision_values [-r] NAME METRIC [RECORDS] : METRIC of NAME, one a line,
# in trial order: the trials with status 0 and not disturbed, the last value
# of each, in RECORDS (a records.tsv; default this run's).  The one rule of
# a figure's trials: the stopping rule's here and in rounds
# (harness/common/rounds-plan.sh).  -r: only the trials that record a round
# (harness/rounds.sh), each as ROUND<TAB>VALUE.
precision_values() {
  local by_round=0
  [ "$1" != -r ] || { by_round=1; shift; }
  awk -F '\t' -v n="$1" -v m="$2" -v r="$by_round" '$1 == n {
      if ($3 == m) v[$2] = $4
      else if ($3 == "status") ok[$2] = ($4 == "0")
      else if ($3 == "disturbed" && $4 == "1") bad[$2] = 1
      else if ($3 == "round") rd[$2] = $4
      if (!($2 in seen)) { seen[$2] = 1; order[++k] = $2 }
    }
    END {
      for (i = 1; i <= k; i++) {
        t = order[i]
        if (ok[t] && !bad[t] && t in v && (!r || t in rd)) print (r ? rd[t] "\t" : "") v[t]
      }
    }' "${3:-$(run_dir)/records.tsv}"
}

# precision_note NAME FIRST LAST : " (N trials, why it stopped)" for a
# phase's end line; nothing for the one trial of PRECISION=0.
precision_note() {
  [ "$PREC_STOP" = single ] || printf ' (%s trials, %s)' "$(($3 - $2 + 1))" "${PREC_STOP//_/ }"
}

# precision_median < VALUES : the median of numbers one a line (empty: none).
precision_median() {
  sort -g | awk '{ v[NR] = $1 } END { if (NR) print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# precision_trials NAME : the trials of NAME recorded in this run (any
# status, disturbed or not).
precision_trials() {
  awk -F '\t' -v n="$1" '$1 == n && $3 == "status" && !seen[$2]++ { k++ } END { print k + 0 }' \
    "$(run_dir)/records.tsv"
}

# precision_disturbed NAME : the trials of NAME recorded disturbed.
precision_disturbed() {
  awk -F '\t' -v n="$1" '$1 == n && $3 == "disturbed" && $4 == "1" && !seen[$2]++ { k++ } END { print k + 0 }' \
    "$(run_dir)/records.tsv"
}

# precision_judge NAME : PREC_HALFWIDTH (percent, "-" when it cannot be told)
# and PREC_ENOUGH (yes|no) of NAME's trials, from plots/stats.py.
precision_judge() {
  local out vals
  PREC_HALFWIDTH=- PREC_ENOUGH=no
  # PRECISION=0: one trial a figure and cycle, nothing to judge (a run of
  # several cycles has trials enough for an interval, but no target)
  [ "$PRECISION" != 0 ] || return 0
  mapfile -t vals < <(precision_values "$1" "$(precision_metric "$1")")
  [ ${#vals[@]} -ge 2 ] || return 0
  out=$(python3 "$SHOOTOUT_ROOT/plots/stats.py" precision --target "$PRECISION" "${vals[@]}" 2>&1) ||
    harness_die "plots/stats.py precision failed on the trials of $1 (${vals[*]}): $(printf '%s\n' "$out" | tail -n 1)"
  case " $out " in *" enough=yes "*) PREC_ENOUGH=yes ;; esac
  [[ $out =~ halfwidth_pct=([0-9.]+|inf|nan) ]] && PREC_HALFWIDTH=${BASH_REMATCH[1]}
  return 0
}

# precision_begin NAME... : the trials of those figures begin now (the
# time cap counts from here).
precision_begin() {
  PREC_T0=$EPOCHREALTIME PREC_TRIAL_T0='' PREC_LAST_S=0 PREC_STOP=''
}

# precision_trial_began / precision_more NAME... : a trial starts now; after
# it, another is wanted (0) or not (1: PREC_STOP says why).  All of the
# NAMEs must be precise (the cycles of untar, untar2, delete: one trial
# each); a cap stops them all.
precision_trial_began() {
  PREC_TRIAL_T0=$EPOCHREALTIME
}
precision_more() {
  local n elapsed imprecise=0
  PREC_LAST_S=0
  [ -z "$PREC_TRIAL_T0" ] || PREC_LAST_S=$(awk -v a="$PREC_TRIAL_T0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')
  if [ "$PRECISION" = 0 ]; then PREC_STOP=single; return 1; fi
  for n in "$@"; do
    precision_judge "$n"
    [ "$PREC_ENOUGH" = yes ] || imprecise=1
  done
  if [ "$imprecise" = 0 ]; then PREC_STOP=precise; return 1; fi
  for n in "$@"; do
    if [ "$(precision_trials "$n")" -ge "$PRECISION_MAX_TRIALS" ]; then PREC_STOP=trial_cap; return 1; fi
  done
  # the next trial would end past the cap (it takes about as long as this one)
  elapsed=$(awk -v a="$PREC_T0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')
  if awk -v e="$elapsed" -v l="$PREC_LAST_S" -v cap="$PRECISION_MAX_S" 'BEGIN { exit !(e + l > cap) }'; then
    PREC_STOP=time_cap
    return 1
  fi
  return 0
}

# precision_next_trial NAME TRIAL : the phase goes on as NAME's trial
# TRIAL: the block trace so far belongs to the trial before (blklat_pause),
# and TRIAL has its own log (phase_move), series, budget and records.
precision_next_trial() {
  blklat_pause
  CUR_TRIAL=$2
  phase_move "$1"
}

# precision_end NAME TRIAL : why NAME's trials stopped, as records of its
# last trial TRIAL (the half-width only where two trials or more tell it).
precision_end() {
  precision_judge "$1"
  precision_records "$1" "$2"
}

# precision_records NAME TRIAL : the records precision_end writes, from
# PREC_STOP and PREC_HALFWIDTH (also those of harness/rounds.sh: turn_end).
precision_records() {
  record "$1" "$2" precision_trials "$(precision_trials "$1")" count
  record "$1" "$2" precision_stop "$PREC_STOP" text
  [ "$PREC_HALFWIDTH" = - ] || record "$1" "$2" precision_halfwidth_pct "$PREC_HALFWIDTH" %
  record "$1" "$2" precision_disturbed "$(precision_disturbed "$1")" count
}

# precision_settings : the settings of this file get their defaults from
# harness/settings.tsv where unset (shootout.sh, which runs no
# settings_defaults of its own).
precision_settings() {
  local name def
  while IFS=$'\t' read -r name def; do
    [ -n "${!name:-}" ] || printf -v "$name" '%s' "$def"
  done < <(awk -F '\t' '$1 ~ /^(PRECISION|PRECISION_MAX_TRIALS|PRECISION_MAX_S|MIN_MEASURE_S|STEADY_SLICES)$/ { print $1 "\t" $2 }' \
    "$SHOOTOUT_ROOT/harness/settings.tsv")
}

# precision_measured_share FIRST_LINE WALL_S : meta.json of this variant
# gets measured_s, the sum of the measured windows (every record name's
# budget_wall_s and sync_budget_wall_s from line FIRST_LINE of records.tsv
# on, the flush phase's not: a flush is no figure), run_wall_s (WALL_S: the
# wall time of make shootout) and measured_share, the one over the other.
precision_measured_share() {
  local d m measured
  d=$(run_dir) || return 1
  m=$d/meta.json
  [ -s "$m" ] || return 0
  measured=$(awk -F '\t' -v from="$1" 'NR >= from && $1 != "flush" && ($3 == "budget_wall_s" || $3 == "sync_budget_wall_s") { s += $4 }
    END { printf "%.3f", s }' "$d/records.tsv")
  jq --argjson s "$measured" --argjson w "$2" \
    '.measured_s = $s | .run_wall_s = $w | .measured_share = (if $w > 0 then ($s / $w * 1000 | round) / 1000 else null end)' \
    "$m" >"$m.tmp.$$" && mv -f "$m.tmp.$$" "$m"
}
