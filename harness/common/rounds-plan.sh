# shellcheck shell=bash disable=SC2034
# harness/common/rounds-plan.sh: what harness/rounds.sh decides, apart from
# running the phases: the SPECs and the run they go to, the order of each
# round (seeded, recorded in RUN/HOST/rounds.tsv), where a group's rounds
# start, and its stopping rule (docs/harness.md#rounds).  Sourced by
# harness/rounds.sh after lib.sh and common/settings.sh.

# shellcheck source=SCRIPTDIR/precision.sh
. "$SHOOTOUT_ROOT/harness/common/precision.sh"

# The variants, in SPEC order: the name, the SPEC file, and its KEY=VALUE
# lines (SPEC_ENV from SPEC_FROM, SPEC_COUNT of them).
VARIANTS=() SPEC_FILES=() SPEC_ENV=() SPEC_FROM=() SPEC_COUNT=()
# The run made here (nothing else written in it: plan_unmake_run), and
# what .current named before.
MADE_RUN='' WAS_CURRENT=''
# plan_judge's verdict: why the group stops, each figure's half-width ("-":
# none), and a line saying so.
JUDGE_WHY='' JUDGE_HW=() JUDGE_NOTE=''

# plan_refuse MESSAGE : one line, exit 2 (nothing started or written yet).
plan_refuse() {
  settings_refuse "$@"
}

# plan_get I KEY : KEY of variant I: its SPEC's line, else this environment's.
plan_get() {
  local k
  for k in "${SPEC_ENV[@]:${SPEC_FROM[$1]}:${SPEC_COUNT[$1]}}"; do
    [ "${k%%=*}" != "$2" ] || { printf '%s\n' "${k#*=}"; return 0; }
  done
  printf '%s\n' "${!2-}"
}

# plan_read_spec FILE : FILE's KEY=VALUE lines appended to SPEC_ENV, or a
# refusal naming the line.
plan_read_spec() {
  local f=$1 line n=0 keys=' ' key
  { [ -f "$f" ] && [ -r "$f" ]; } || plan_refuse "SPEC $f: no such file (want one file per variant, KEY=VALUE lines)"
  while IFS= read -r line || [ -n "$line" ]; do
    n=$((n + 1))
    [ -n "$line" ] || continue
    [[ $line =~ ^[A-Z_][A-Z0-9_]*= ]] ||
      plan_refuse "$f:$n: want KEY=VALUE (KEY of capitals, digits and _, like TARGET=/mnt/ext4), not '${line:0:60}'"
    key=${line%%=*}
    case $key in ROUNDS_UP | ROUNDS_DOWN | ROUNDS_PID | SHOOTOUT_ROOT)
      plan_refuse "$f:$n: $key is harness/rounds.sh's own, not a SPEC's" ;;
    esac
    case $keys in *" $key "*) plan_refuse "$f:$n: $key is given twice" ;; esac
    keys+="$key "
    SPEC_ENV+=("$line")
  done <"$f"
}

# plan_check_spec I : variant I's settings pass the checks every phase makes
# (settings_check), here, before any phase starts.
plan_check_spec() {
  local out
  out=$(
    for kv in "${SPEC_ENV[@]:${SPEC_FROM[$1]}:${SPEC_COUNT[$1]}}"; do export "${kv%%=*}=${kv#*=}"; done
    settings_check harness micro 2>&1
  ) || plan_refuse "${SPEC_FILES[$1]}: ${out#rounds.sh: }"
}

# plan_same KEY DEFAULT : KEY is the same for every variant (DEFAULT when
# unset); prints it.
plan_same() {
  local i v first=''
  for i in "${!SPEC_FILES[@]}"; do
    v=$(plan_get "$i" "$1")
    v=${v:-$2}
    [ "$i" != 0 ] || first=$v
    [ "$v" = "$first" ] ||
      plan_refuse "$1 differs: '$first' in ${SPEC_FILES[0]}, '$v' in ${SPEC_FILES[i]} (the variants of one call share one run and one stopping rule)"
  done
  printf '%s\n' "$first"
}

# plan_specs SPEC... : read and check every SPEC; VARIANTS, RESULTS, RUN_ID,
# HOST and the stopping rule's settings are set.  Refused, one line and
# exit 2: a file that is not KEY=VALUE lines, a setting a phase would
# refuse, two SPECs of one VARIANT or TARGET, a run or rule they do not
# share, FLUSH=reboot.
plan_specs() {
  local f i j v t targets=()
  for f in "$@"; do
    SPEC_FROM+=("${#SPEC_ENV[@]}")
    plan_read_spec "$f"
    SPEC_COUNT+=($((${#SPEC_ENV[@]} - SPEC_FROM[-1])))
    SPEC_FILES+=("$f")
  done
  for i in "${!SPEC_FILES[@]}"; do
    plan_check_spec "$i"
    v=$(plan_get "$i" VARIANT) t=$(plan_get "$i" TARGET)
    v=${v:-default}
    [ "$(plan_get "$i" FLUSH)" != reboot ] ||
      plan_refuse "${SPEC_FILES[i]}: FLUSH=reboot cannot take turns (a reboot stops every variant): use drop or remount"
    for j in "${!VARIANTS[@]}"; do
      [ "${VARIANTS[j]}" != "$v" ] || plan_refuse "VARIANT=$v in both ${SPEC_FILES[j]} and ${SPEC_FILES[i]}: each SPEC is a variant of its own"
      [ -z "$t" ] || [ "${targets[j]}" != "$t" ] || plan_refuse "TARGET=$t in both ${SPEC_FILES[j]} and ${SPEC_FILES[i]}: each variant measures its own"
    done
    VARIANTS+=("$v") targets+=("$t")
  done
  RESULTS=$(plan_same RESULTS "$SHOOTOUT_ROOT/results")
  case $RESULTS in /*) ;; *) RESULTS=$PWD/$RESULTS ;; esac
  HOST=$(plan_same HOST "$HOST")
  RUN_ID=$(plan_same RUN_ID '')
  precision_settings
  PRECISION=$(plan_same PRECISION "$PRECISION")
  PRECISION_MAX_TRIALS=$(plan_same PRECISION_MAX_TRIALS "$PRECISION_MAX_TRIALS")
  PRECISION_MAX_S=$(plan_same PRECISION_MAX_S "$PRECISION_MAX_S")
  # slices: the phases decide on them from these, the coordinator cuts them
  STEADY_SLICES=$(plan_same STEADY_SLICES "$STEADY_SLICES")
  MIN_MEASURE_S=$(plan_same MIN_MEASURE_S "$MIN_MEASURE_S")
  export STEADY_SLICES MIN_MEASURE_S
  { [ "$STEADY_SLICES" -ge 1 ] && [ "$STEADY_SLICES" -le 64 ]; } ||
    plan_refuse "STEADY_SLICES=$STEADY_SLICES: want 1 (a whole trial a turn) to 64 slices"
  awk -v s="$MIN_MEASURE_S" -v n="$STEADY_SLICES" 'BEGIN { exit !(n == 1 || s == 0 || s / n >= 0.1) }' ||
    plan_refuse "STEADY_SLICES=$STEADY_SLICES cuts MIN_MEASURE_S=$MIN_MEASURE_S into slices under 0.1 s: want fewer slices or a longer window"
}

# plan_make_run : RUN_ID is the run (the current one, or a new one made
# here); ROUNDS_SEED defaults to it.
plan_make_run() {
  if [ -z "$RUN_ID" ]; then
    if [ -s "$RESULTS/.current" ]; then
      RUN_ID=$(cat "$RESULTS/.current")
    else
      WAS_CURRENT=''
      RUN_ID=$(new_run) || exit 1
      MADE_RUN=$RUN_ID
    fi
  fi
  lib_name_or_die RUN_ID "$RUN_ID"
  ROUNDS_SEED=${ROUNDS_SEED:-$RUN_ID}
}

# plan_unmake_run : a run made here that no phase wrote to goes again (every
# variant refused), and .current with it.
plan_unmake_run() {
  [ -n "$MADE_RUN" ] || return 0
  rmdir "$RESULTS/$MADE_RUN/$HOST" "$RESULTS/$MADE_RUN" 2>/dev/null || return 0
  [ "$(cat "$RESULTS/.current" 2>/dev/null)" != "$MADE_RUN" ] || rm -f "$RESULTS/.current"
}

# plan_last_round GROUP : the highest round of GROUP so far in the run: its
# first name's round records in the variants' records.tsv, or rounds.tsv.
plan_last_round() {
  local i files=() f
  for i in "${!VARIANTS[@]}"; do
    f=$RESULTS/$RUN_ID/$HOST/${VARIANTS[i]}/records.tsv
    [ ! -f "$f" ] || files+=("$f")
  done
  f=$RESULTS/$RUN_ID/$HOST/rounds.tsv
  [ ! -f "$f" ] || files+=("$f")
  [ ${#files[@]} -gt 0 ] || { echo 0; return 0; }
  awk -F '\t' -v g="$1" '
    FILENAME ~ /rounds\.tsv$/ { if ($1 == g && $2 ~ /^[0-9]+$/ && $2 + 0 > m) m = $2 + 0; next }
    $1 == g && $3 == "round" && $4 ~ /^[0-9]+$/ && $4 + 0 > m { m = $4 + 0 }
    END { print m + 0 }' "${files[@]}"
}

# plan_shuffle SEED I... : the variants I (indices), one a line, in the
# order of the round: Python's random.Random(SEED).shuffle of their names
# sorted (so the order depends on the seed and the names only).
plan_shuffle() {
  local seed=$1 i names=() name
  shift
  for i in "$@"; do names+=("${VARIANTS[i]}"); done
  python3 -c 'import random, sys
v = sorted(sys.argv[2:])
random.Random(sys.argv[1]).shuffle(v)
print("\n".join(v))' "$seed" "${names[@]}" | while IFS= read -r name; do
    for i in "$@"; do [ "${VARIANTS[i]}" != "$name" ] || echo "$i"; done
  done
}

# plan_shuffle_slices SEED K I... : the orders of K slices of a round, one
# line each ("I I ..."), slice k's by plan_shuffle's rule with the seed
# SEED-k: one python3 for the round (a slice is a fraction of a second; a
# python3 start is 30-100 ms).
plan_shuffle_slices() {
  local seed=$1 k=$2 i names=()
  shift 2
  for i in "$@"; do names+=("$i:${VARIANTS[i]}"); done
  python3 -c 'import random, sys
seed, k = sys.argv[1], int(sys.argv[2])
by_name = dict(reversed(a.split(":", 1)) for a in sys.argv[3:])
for s in range(1, k + 1):
    v = sorted(by_name)
    random.Random("%s-%d" % (seed, s)).shuffle(v)
    print(" ".join(by_name[n] for n in v))' "$seed" "$k" "${names[@]}"
}

# plan_note_round GROUP ROUND SLICE I... : the round's order appended to
# RUN/HOST/rounds.tsv (header first): group round position variant seed.
# SLICE 0: a round of one turn each; K: slice K of a round in slices, whose
# positions go on from the slices before, its seed GROUP-ROUND-K.
plan_note_round() {
  local g=$1 r=$2 k=$3 f lines='' pos=0 i seed
  shift 3
  f=$RESULTS/$RUN_ID/$HOST/rounds.tsv
  mkdir -p "${f%/*}"
  [ -s "$f" ] || printf 'group\tround\tposition\tvariant\tseed\n' >"$f"
  seed=$ROUNDS_SEED-$HOST-$g-$r
  if [ "$k" != 0 ]; then
    seed+=-$k
    pos=$(awk -F '\t' -v g="$g" -v r="$r" '$1 == g && $2 == r { n++ } END { print n + 0 }' "$f")
  fi
  for i in "$@"; do
    pos=$((pos + 1))
    lines+=${lines:+$'\n'}$(printf '%s\t%s\t%s\t%s\t%s' "$g" "$r" "$pos" "${VARIANTS[i]}" "$seed")
  done
  lib_append "$f" "$lines" || harness_die "$LIB_ERR"
}

# plan_values NAME I... : "variant<TAB>round<TAB>value" of NAME's trials
# with a round in each variant I's records (its own headline metric, from
# its ready line), by precision_values' rule (status 0, not disturbed).
plan_values() {
  local n=$1 i m f line
  shift
  for i in "$@"; do
    m=''
    for f in ${FIGS[i]}; do [ "${f%%:*}" != "$n" ] || m=${f#*:}; done
    [ -n "$m" ] || continue
    precision_values -r "$n" "$m" "$RESULTS/$RUN_ID/$HOST/${VARIANTS[i]}/records.tsv" |
      while IFS= read -r line; do printf '%s\t%s\n' "${VARIANTS[i]}" "$line"; done
  done | sort -t "$(printf '\t')" -k2,2n -k1,1
}

# plan_stats ARGS... : the statistics, plots/stats.py ARGS (ROUNDS_STATS, a
# command, instead: the tests' stub).
plan_stats() {
  local cmd=(python3 "$SHOOTOUT_ROOT/plots/stats.py")
  [ -z "${ROUNDS_STATS:-}" ] || read -r -a cmd <<<"$ROUNDS_STATS"
  "${cmd[@]}" "$@"
}

# plan_judge GROUP ROUND T0 LAST I... : after ROUND, whether GROUP stops
# (status 0; JUDGE_WHY, JUDGE_HW, JUDGE_NOTE): PRECISION=0 after one round
# (single); every figure's blocked half-width within PRECISION after two
# rounds at least (precise); PRECISION_MAX_TRIALS rounds in the run
# (trial_cap); another round, as long as the LAST, would end past
# PRECISION_MAX_S x the variants I x the group's figures since T0
# (time_cap).
plan_judge() {
  local g=$1 r=$2 t0=$3 last=$4 names=() n f out hw enough=yes cap
  shift 4
  for f in ${FIGS[$1]}; do names+=("${f%%:*}"); done
  JUDGE_WHY='' JUDGE_HW=() JUDGE_NOTE=''
  if [ "$PRECISION" = 0 ]; then
    JUDGE_WHY=single JUDGE_NOTE="one round (PRECISION=0)"
    for n in "${names[@]}"; do JUDGE_HW+=(-); done
    return 0
  fi
  for n in "${names[@]}"; do
    hw=-
    if [ "$r" -ge 2 ]; then
      f=$TMP/values-$n.tsv
      plan_values "$n" "$@" >"$f"
      if out=$(plan_stats blocked --target "$PRECISION" "$f" 2>&1); then
        [[ $out =~ halfwidth_pct=([0-9]+(\.[0-9]+)?)( |$) ]] && hw=${BASH_REMATCH[1]}
        case " $out " in *" enough=yes "*) ;; *) enough=no ;; esac
      else
        printf 'rounds: plots/stats.py blocked failed on %s: %s\n' "$n" "$(printf '%s\n' "$out" | tail -n 1)" >&2
        enough=no
      fi
    else
      enough=no
    fi
    JUDGE_HW+=("$hw")
  done
  if [ "$enough" = yes ]; then
    JUDGE_WHY=precise JUDGE_NOTE="precise (half-width ${JUDGE_HW[*]} % of a difference, within PRECISION=$PRECISION)"
  elif [ "$r" -ge "$PRECISION_MAX_TRIALS" ]; then
    JUDGE_WHY=trial_cap JUDGE_NOTE="$r rounds in the run (PRECISION_MAX_TRIALS=$PRECISION_MAX_TRIALS)"
  else
    # each figure of the group has its PRECISION_MAX_S a variant, as it has
    # outside rounds (serve's cold and warm figure share a turn)
    cap=$(awk -v s="$PRECISION_MAX_S" -v n="$#" -v k="${#names[@]}" 'BEGIN { print s * n * k }')
    awk -v a="$t0" -v b="$EPOCHREALTIME" -v l="$last" -v cap="$cap" 'BEGIN { exit !(b - a + l > cap) }' || return 1
    JUDGE_WHY=time_cap
    JUDGE_NOTE="another round would pass ${cap} s (PRECISION_MAX_S=$PRECISION_MAX_S x $# variants x ${#names[@]} figures)"
  fi
}
