#!/usr/bin/env bats
# shellcheck disable=SC2154 # bats sets $stderr (run --separate-stderr)
# make compare decides as the report does (plots/compare.py, docs/results.md):
# its comparisons corrected together (Benjamini-Hochberg, ranking.adjust), so
# that two identical runs of many phases name no change by chance; the paired
# test over the rounds where both sides ran in the same ones (two variants of
# one blocked run, RUN:VARIANT), Welch's across runs; each says which.
# Synthetic runs of known answers: tests/fixtures/plots/mkaa.py.
load helpers
bats_require_minimum_version 1.5.0

setup() {
  require_cmd python3 gnuplot
  cd "$ROOT" || return 1
  # plots.mk's python: Debian's, which sees python3-scipy (pyenv's may not)
  PY=python3
  [ ! -x /usr/bin/python3 ] || PY=/usr/bin/python3
  "$PY" -c 'import scipy' 2>/dev/null || skip "needs python3-scipy (make deps): make compare's p values"
  RES=$BATS_TEST_TMPDIR/res
  OUT=$BATS_TEST_TMPDIR/out
}

# compare_runs BASE NEW : make compare of two runs under RES into OUT
compare_runs() {
  run make --no-print-directory compare RESULTS="$RES" BASE="$1" NEW="$2" OUT="$OUT"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
}

# tsv_rows PY-EXPR : the rows of compare.tsv (dicts r) for which PY-EXPR holds, one a line:
# variant phase metric verdict test change ci_low ci_high p p_adjusted
tsv_rows() {
  "$PY" - "$OUT/compare.tsv" "$1" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1]), delimiter="\t"):
    if eval(sys.argv[2]):
        print("|".join(r[k] for k in ("variant", "phase", "metric", "verdict", "test", "change_pct", "ci_low_pct",
                                      "ci_high_pct", "p", "p_adjusted")))
PY
}

@test "compare: two identical runs of 36 comparisons name no change after the correction, where a test on its own would" {
  # six identical ext4 variants, six phases each, twice (seeds 3 and 4): no change is real
  for s in 3:base 4:new; do
    "$PY" tests/fixtures/plots/mkaa.py "$RES" "${s#*:}" --variants A,B,C,D,E,F --trials 5 --seed "${s%%:*}"
  done
  compare_runs base new
  # on its own at 95%, some change would be called significant (the fixture's point)
  [ "$(tsv_rows 'float(r["p"]) < 0.05' | wc -l)" -ge 1 ]
  # corrected: none; those demoted say why
  [ -z "$(tsv_rows 'r["verdict"].startswith("significant")')" ]
  [ "$(tsv_rows 'float(r["p"]) < 0.05' | grep -c '|not significant after correcting for 36 comparisons|')" -eq \
    "$(tsv_rows 'float(r["p"]) < 0.05' | wc -l)" ]
  [ -z "$(tsv_rows 'float(r["p_adjusted"]) <= 0.05')" ]
  # one line says the correction, one the tests used, in compare.md and compare.html
  grep -qx 'A change is called significant at a 5% false discovery rate over the 36 comparisons of base vs new (Benjamini-Hochberg); each interval is its comparison'"'"'s own 95% interval.' "$OUT/compare.md"
  grep -qx "Tests: Welch's t-test in 36 of the 36 comparisons." "$OUT/compare.md"
  grep -q '<p>A change is called significant at a 5% false discovery rate over the 36 comparisons of base vs new' "$OUT/compare.html"
  run grep -c '<tr class="real">' "$OUT/compare.html"
  [ "$output" -eq 0 ]
  # the chart: every bar grey (colour 3), none green or red
  [ "$(awk 'NR > 1 && $3 != 3' "$OUT/compare.dat" | wc -l)" -eq 0 ]
  grep -q 'not significant after correcting for 36 comparisons' "$OUT/compare.dat"
}

@test "compare: two variants of one run in rounds under a drift of +-15%: paired over the rounds, a 10% difference found, with an interval holding it" {
  # A, B, C: 8 rounds of the serve and net phases; B 10% slower; A's last trial disturbed (7 rounds)
  "$PY" tests/fixtures/plots/mkaa.py "$RES" slow --trials 8 --cv 1.5 --drift 15 --rounds --disturb A=1 --faster B=-10
  compare_runs slow:A slow:B
  # the phases in rounds: the paired test, B 10% lower (rates), significant after the correction
  rows=$(tsv_rows 'r["phase"].startswith(("serve", "net"))')
  echo "$rows"
  [ "$(grep -c . <<<"$rows")" -eq 3 ]
  while IFS='|' read -r variant _p _m verdict test change lo hi _pv _pa; do
    [ "$variant" = "A vs B" ]
    [ "$verdict" = "significant, worse" ]
    [ "$test" = "paired t-test over 7 rounds" ]
    awk -v c="$change" -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(lo < -10 && -10 < hi && hi < 0 && c < -5) }'
  done <<<"$rows"
  # the phases without rounds are unpaired (their 8 trials skewed by the drift: Mann-Whitney's), and it says so
  grep -qx "Tests: Mann-Whitney U test in 3 of the 6 comparisons, paired t-test over 7 rounds in 3." "$OUT/compare.md"
  [ "$(tsv_rows 'r["phase"] in ("untar", "delete")' | cut -d'|' -f5 | sort -u)" = "Mann-Whitney U test" ]
  grep -q '^| h1 | A vs B | serve-cold-1 | rps | .* | significant, worse | [0-9.]*% |$' "$OUT/compare.md"
  # what the rounds can tell: under 5%, where the unpaired trials could not
  [ "$(awk -F '\t' '$3 == "net-1" { print ($19 < 5) }' "$OUT/compare.tsv")" = 1 ]
}

@test "compare: runs in rounds compared across runs are unpaired (their rounds are not the same): Welch's test, and it says so" {
  "$PY" tests/fixtures/plots/mkaa.py "$RES" r1 --trials 5 --cv 1.5 --rounds
  "$PY" tests/fixtures/plots/mkaa.py "$RES" r2 --trials 5 --cv 1.5 --rounds --seed 2 --faster B=-10
  compare_runs r1 r2
  grep -qx "Tests: Welch's t-test in 18 of the 18 comparisons." "$OUT/compare.md"
  run grep -c 'paired' "$OUT/compare.tsv"
  [ "$output" -eq 0 ]
  # B 10% slower found in every phase, A and C not
  [ "$(tsv_rows 'r["variant"] == "B" and r["verdict"] == "significant, worse"' | wc -l)" -eq 6 ]
  [ -z "$(tsv_rows 'r["variant"] != "B" and r["verdict"].startswith("significant")')" ]
}

@test "compare: the steady window's length (steady_s, MIN_MEASURE_S's) is no figure: two runs of 2 s and 1 s windows are not 'better'" {
  for s in 3:base 4:new; do
    "$PY" tests/fixtures/plots/mkaa.py "$RES" "${s#*:}" --variants A,B --trials 5 --seed "${s%%:*}"
  done
  local f t
  for f in "$RES"/base/*/*/records.tsv "$RES"/new/*/*/records.tsv; do
    for t in 1 2 3 4 5; do
      case $f in */base/*) printf 'serve-warm-1\t%s\tsteady_s\t2.001\ts\n' "$t" ;; *) printf 'serve-warm-1\t%s\tsteady_s\t1.0%s\ts\n' "$t" "$t" ;; esac
    done >>"$f"
  done
  compare_runs base new
  [ -n "$(tsv_rows 'r["metric"] == "rps"')" ]
  [ -z "$(tsv_rows 'r["metric"] == "steady_s"')" ]
  run grep -c steady_s "$OUT/compare.md"
  [ "$output" -eq 0 ]
}
