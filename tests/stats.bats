#!/usr/bin/env bats
# shellcheck disable=SC2154 # bats sets $stderr (run --separate-stderr)
# plots/stats.py, the one module of the statistics (docs/results.md): its unit
# tests (tests/stats_test.py) with scipy and without it (a host under test),
# and the command line the harness's stopping rule calls.
load helpers
bats_require_minimum_version 1.5.0

setup() {
  require_cmd python3
  cd "$ROOT" || return 1
  # plots.mk's python: Debian's, which sees python3-scipy (pyenv's may not)
  PY=python3
  OUT=$BATS_TEST_TMPDIR/out
  [ ! -x /usr/bin/python3 ] || PY=/usr/bin/python3
}

# unit_tests FILE : FILE's unit tests (unittest) pass with scipy, none skipped
unit_tests() {
  "$PY" -c 'import scipy' 2>/dev/null || skip "needs python3-scipy (make deps)"
  run "$PY" "$1"
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output == *OK* ]]
  [[ $output != *skipped* ]]
}

@test "stats: unit tests with scipy" {
  unit_tests tests/stats_test.py
}

@test "stats: unit tests with the standard library alone (scipy blocked)" {
  run "$PY" tests/stats_test.py --no-scipy
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output == *OK* ]]
}

@test "stats: ranking's correction over a report's comparisons: unit tests (tests/ranking_test.py)" {
  unit_tests tests/ranking_test.py
}

@test "stats: precision prints one line, exit 0; enough when the half-width is within the target" {
  run "$PY" plots/stats.py precision --target 3 99 100 101
  [ "$status" -eq 0 ]
  [ "$output" = "halfwidth_pct=2.48 n=3 enough=yes" ]
  run "$PY" plots/stats.py precision --target 2 99 100 101
  [ "$status" -eq 0 ]
  [ "$output" = "halfwidth_pct=2.48 n=3 enough=no" ]
  # a 90% interval is narrower
  run "$PY" plots/stats.py precision --target 2 --conf 0.9 99 100 101
  [ "$output" = "halfwidth_pct=1.69 n=3 enough=yes" ]
  # one trial: no interval
  run "$PY" plots/stats.py precision --target 2 100
  [ "$status" -eq 0 ]
  [ "$output" = "halfwidth_pct=inf n=1 enough=no" ]
  # the same line without scipy (a host under test)
  run "$PY" -S plots/stats.py precision --target 3 99 100 101
  [ "$output" = "halfwidth_pct=2.48 n=3 enough=yes" ]
  # and it never imports scipy (most of a second a trial): its t quantiles are its own
  run "$PY" -c 'import sys; sys.path.insert(0, "plots"); import stats
stats.main(["precision", "--target", "2", "99", "100", "101", "100.5", "99.2", "100.1"])
print("scipy" in sys.modules)'
  [ "$output" = "$(printf 'halfwidth_pct=0.80 n=6 enough=yes\nFalse')" ]
}

@test "stats: precision refuses bad input in one line on stderr, exit 2" {
  for args in "--target 2 1 x" "--target 0 1 2" "1 2 3" "--target 2 --conf 2 1 2" "--target 2 1 inf" "--tagret 2 1"; do
    # shellcheck disable=SC2086 # the words are the arguments
    run --separate-stderr "$PY" plots/stats.py precision $args
    [ "$status" -eq 2 ] || { echo "$args: exit $status"; false; }
    [ -z "$output" ] || { echo "$args: stdout $output"; false; }
    [ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ] || { echo "$args: $stderr"; false; }
    [[ $stderr == "stats.py: "* ]]
  done
  run --separate-stderr "$PY" plots/stats.py
  [ "$status" -eq 2 ]
  [[ $stderr == *"usage: stats.py precision --target PCT"* ]]
}

@test "stats: blocked prints one line of the rounds, exit 0; a round one variant missed counts; inf without a residual" {
  # three variants, three rounds (A twice in round 3: its cell is the mean of the logs)
  printf 'A\t1\t100\nB\t1\t102\nC\t1\t99\nA\t2\t115\nB\t2\t116\nC\t2\t113\nA\t3\t90\nB\t3\t91.5\nC\t3\t89\nA\t3\t91\n' \
    >"$BATS_TEST_TMPDIR/r.tsv"
  run "$PY" plots/stats.py blocked --target 2 "$BATS_TEST_TMPDIR/r.tsv"
  [ "$status" -eq 0 ]
  [ "$output" = "rounds=3 variants=3 df=4 halfwidth_pct=0.69 mde_pct=0.92 enough=yes" ]
  run "$PY" plots/stats.py blocked --target 0.5 "$BATS_TEST_TMPDIR/r.tsv"
  [ "$output" = "rounds=3 variants=3 df=4 halfwidth_pct=0.69 mde_pct=0.92 enough=no" ]
  # the same without scipy (a host under test), and never importing it
  run "$PY" -S plots/stats.py blocked --target 2 "$BATS_TEST_TMPDIR/r.tsv"
  [ "$output" = "rounds=3 variants=3 df=4 halfwidth_pct=0.69 mde_pct=0.92 enough=yes" ]
  run "$PY" -c 'import sys; sys.path.insert(0, "plots"); import stats
stats.main(["blocked", "--target", "2", sys.argv[1]]); print("scipy" in sys.modules)' "$BATS_TEST_TMPDIR/r.tsv"
  [ "$output" = "$(printf 'rounds=3 variants=3 df=4 halfwidth_pct=0.69 mde_pct=0.92 enough=yes\nFalse')" ]
  # C's trial of round 3 missing: the round still counts for A and B (before: the 2 complete rounds alone, df 2, 1.74%)
  grep -v '^C.3.' "$BATS_TEST_TMPDIR/r.tsv" >"$BATS_TEST_TMPDIR/miss.tsv"
  run "$PY" plots/stats.py blocked --target 2 "$BATS_TEST_TMPDIR/miss.tsv"
  [ "$status" -eq 0 ]
  [ "$output" = "rounds=3 variants=3 df=3 halfwidth_pct=1.06 mde_pct=1.38 enough=yes" ]
  run "$PY" -S plots/stats.py blocked --target 2 "$BATS_TEST_TMPDIR/miss.tsv"
  [ "$output" = "rounds=3 variants=3 df=3 halfwidth_pct=1.06 mde_pct=1.38 enough=yes" ]
  # C only in round 2, alone: one round with 2 variants, and C tied to none: no interval yet
  printf 'A\t1\t100\nB\t1\t102\nC\t2\t99\n' >"$BATS_TEST_TMPDIR/one.tsv"
  run "$PY" plots/stats.py blocked --target 50 "$BATS_TEST_TMPDIR/one.tsv"
  [ "$status" -eq 0 ]
  [ "$output" = "rounds=1 variants=3 df=0 halfwidth_pct=inf mde_pct=inf enough=no" ]
}

@test "stats: blocked refuses a bad line in one line naming the file and line, exit 2" {
  for line in 'A\t0\t100' 'A\t1\t-3' 'A\t1' 'A\t1\tnan' '\t1\t100' 'A\t1\t100\tx'; do
    printf 'A\t1\t100\n%b\n' "$line" >"$BATS_TEST_TMPDIR/bad.tsv"
    run --separate-stderr "$PY" plots/stats.py blocked --target 2 "$BATS_TEST_TMPDIR/bad.tsv"
    [ "$status" -eq 2 ] || { echo "$line: exit $status"; false; }
    [ -z "$output" ]
    [ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ] || { echo "$line: $stderr"; false; }
    [[ $stderr == "stats.py: $BATS_TEST_TMPDIR/bad.tsv:2: "* ]] || { echo "$line: $stderr"; false; }
  done
  run --separate-stderr "$PY" plots/stats.py blocked --target 2 "$BATS_TEST_TMPDIR/absent.tsv"
  [ "$status" -eq 2 ]
  [[ $stderr == "stats.py: $BATS_TEST_TMPDIR/absent.tsv: No such file or directory" ]]
  run --separate-stderr "$PY" plots/stats.py blocked "$BATS_TEST_TMPDIR/absent.tsv"
  [ "$status" -eq 2 ]
  [[ $stderr == *"--target PCT is required"* ]]
}

@test "stats: no import circle in plots/, and the layering reads load, decide, draw" {
  run "$PY" tests/plot_imports.py
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output == *"no import circle, layering kept" ]]
  # the check finds a circle: a copy of plots/ where resultslib imports the budget again
  cp -r plots "$BATS_TEST_TMPDIR/plots"
  printf 'def again():\n    import budget\n    return budget\n' >>"$BATS_TEST_TMPDIR/plots/resultslib.py"
  run "$PY" tests/plot_imports.py "$BATS_TEST_TMPDIR/plots"
  [ "$status" -eq 1 ]
  [[ $output == *"import circle: budget, ranking, resultslib ("*"resultslib -> budget)"* ]]
  [[ $output == *"layering: resultslib.py imports budget (it may import only: readers, stats)"* ]]
}

# aa_run RUN ARGS... : a synthetic run (tests/fixtures/plots/mkaa.py): three
# ext4 variants A, B, C of one distribution (3% spread, 7 trials), a tmpfs
# "mem" five times as fast, A's last 2 trials disturbed and half as fast.
aa_run() {
  local run=$1
  shift
  "$PY" tests/fixtures/plots/mkaa.py "$BATS_TEST_TMPDIR/res" "$run" --trials 7 --memory mem --disturb A=2 "$@"
}

@test "stats: an A/A run (three identical variants) names no winner in any phase and no best overall" {
  require_cmd gnuplot
  aa_run aa
  run make --no-print-directory report RESULTS="$BATS_TEST_TMPDIR/res" RUN=aa OUT="$OUT"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  # six phases, none with a winner; the verdicts say why
  [ "$(grep -c '<div class="card"' "$OUT/index.html")" -eq 6 ]
  run grep -c 'class="winner"' "$OUT/index.html"
  [ "$output" -eq 0 ]
  [ "$(grep -c '<span class="verdict">no winner: [ABC] ahead, not significantly</span>' "$OUT/index.html")" -eq 6 ]
  grep -q 'No best overall: no variant is significantly ahead of every other.' "$OUT/index.html"
  grep -q '^| 1 | [ABC] | ' "$OUT/summary.md"
  [ "$(grep -c '^| =1 | [ABC] | .*, not significant | 0 | [01] |$' "$OUT/summary.md")" -eq 2 ]
  # the memory filesystem is a reference, not ranked, never "best"
  grep -q 'In memory, not ranked (the memory ceiling, a reference): mem.' "$OUT/index.html"
  run grep -E '^\| [0-9=]+ \| mem ' "$OUT/summary.md"
  [ "$status" -eq 1 ]
  grep -q '<p class="out">reference, in memory (not ranked): mem 102,758</p>' "$OUT/index.html"
  # A's disturbed trials (half as fast) are left out and named; without them A is no worse
  grep -q '<p class="out flag">trials disturbed (machine busy), left out: A 2 of 7</p>' "$OUT/index.html"
  grep -q '10 of 35 phase trials disturbed (machine busy), left out of the figures.' "$OUT/index.html"
  # noisy by its interval, not its spread: A's untar trials range 6.9%, its interval is within 3.5%
  grep -q '^| h1 / A | 10.0 s (95% CI ±3.0%; spread 6.9%; 2 of 7 trials disturbed: machine busy) | ' "$OUT/summary.md"
  [ "$("$PY" -c 'import json, sys
print(*[(r["trials"], r["disturbed"]) for r in json.load(open(sys.argv[1]))
        if (r["variant"], r["phase"], r["metric"]) == ("A", "untar", "wall_s")])' "$OUT/results.json")" = "(5, 2)" ]
  # each phase says what it could have seen
  [ "$(grep -c '<p class="out">this run can tell differences of [0-9.]*% or more</p>' "$OUT/index.html")" -eq 6 ]
}

@test "stats: the A/A run with one variant 10% faster names it, with the right sign and an interval holding 10%" {
  require_cmd gnuplot
  aa_run fast --faster B=10
  run make --no-print-directory report RESULTS="$BATS_TEST_TMPDIR/res" RUN=fast OUT="$OUT"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ "$(grep -c '<span class="verdict">winner <b class="winner">B</b></span>' "$OUT/index.html")" -eq 6 ]
  grep -q 'Best overall: B (6 significant wins; ahead of every other by [0-9.]*% or more over the phases).' "$OUT/index.html"
  # overall: A and C behind B by 1/1.1 - 1 = -9.1% of B's performance, inside each interval
  "$PY" - "$OUT/summary.md" <<'PY'
import re, sys
rows = re.findall(r"^\| [23] \| ([AC]) \| \d+% \| ([-+][\d.]+)% \(95% CI ([-+][\d.]+)% to ([-+][\d.]+)%\) \| 0 \|", open(sys.argv[1]).read(), re.M)
assert len(rows) == 2, rows
for name, rel, lo, hi in rows:
    assert float(lo) < -9.09 < float(hi), (name, rel, lo, hi)
PY
  # make compare of the same variant 10% faster: the sign and an interval holding the 10%
  aa_run base
  run make --no-print-directory compare RESULTS="$BATS_TEST_TMPDIR/res" BASE=base NEW=fast OUT="$OUT/cmp"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  "$PY" - "$OUT/cmp/compare.tsv" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1]), delimiter="\t") if r["variant"] == "B"]
assert len(rows) == 6, rows
for r in rows:
    # rates 10% higher, times 1/1.1 - 1 = -9.1% shorter: both better
    want = 10.0 if r["unit"].endswith("/s") else (1 / 1.1 - 1) * 100
    assert r["verdict"] == "significant, better", r
    assert float(r["ci_low_pct"]) < want < float(r["ci_high_pct"]), r
PY
}

@test "stats: the server's CPU per request has a card beside its serve or net phase, ranked, not in the overall standing" {
  require_cmd gnuplot
  aa_run cpu --faster B=10 --server-cpu
  run make --no-print-directory report RESULTS="$BATS_TEST_TMPDIR/res" RUN=cpu OUT="$OUT"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  # a card each after the rate's, B (10% cheaper a request) the winner of each
  [ "$(grep -c '<div class="card"' "$OUT/index.html")" -eq 9 ]
  grep -o '<div class="card" id="rank-[a-z0-9-]*"' "$OUT/index.html" | sed 's/.*rank-//; s/"$//' | tr '\n' ' ' |
    grep -qx 'untar untar-sync serve-cold-1 serve-cold-1-cpu serve-warm-1 serve-warm-1-cpu net-1 net-1-cpu delete '
  for p in serve-cold-1-cpu serve-warm-1-cpu net-1-cpu; do
    card_of . "$p" | grep -q '<span class="verdict">winner <b class="winner">B</b></span>'
    card_of . "$p" | grep -q 'the server&#39;s CPU per request'
    [ -s "$OUT/$p.png" ]
  done
  # the overall standing counts the six phases once: B's wins are its rates' and times'
  grep -q '4 variants on 1 host, 6 phases ranked' "$OUT/index.html"
  grep -q 'Best overall: B (6 significant wins; ' "$OUT/index.html"
  grep -q 'geometric mean of its ratio to the best over 6 phases' "$OUT/index.html"
  grep -q "The servers' CPU per request (the hypervisor's steal not counted; a card of its own beside each serve and network phase's): this run can tell differences of [0-9.]*% or more (the median)." \
    "$OUT/summary.md"
  # the serve and network table's column; make compare and the exports carry it like any figure
  grep -q '^| h1 / B | serve-warm-1 | 7 | [0-9,]* req/s | - | 2[0-9.]* us | ' "$OUT/summary.md"
  "$PY" - "$OUT/results.json" <<'PY'
import json, sys
rows = [r for r in json.load(open(sys.argv[1])) if r["metric"] == "server_cpu_us"]
assert sorted({(r["phase"], r["unit"]) for r in rows}) == [("net-1", "us"), ("serve-cold-1", "us"), ("serve-warm-1", "us")], rows
PY
}

@test "stats: warm serve and net are ranked by their steady window where the replay measured one; a sync by its own disturbed mark" {
  require_cmd gnuplot
  aa_run steady --steady --stop C=trial_cap
  run make --no-print-directory report RESULTS="$BATS_TEST_TMPDIR/res" RUN=steady OUT="$OUT"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  card=$(sed -n '/<div class="card" id="rank-serve-warm-1">/,/<\/div>/p' "$OUT/index.html")
  [[ $card == *'<h3>serve, warm cache, 1 server process, steady window</h3>'* ]]
  # B's figure: the mean of its steady_rps, not of its first pass (20% lower)
  want=$("$PY" -c 'import sys
v = [float(l.split("\t")[3]) for l in open(sys.argv[1]) if l.startswith("serve-warm-1\t") and "\tsteady_rps\t" in l]
print("{:,.0f}".format(sum(v) / len(v)))' "$BATS_TEST_TMPDIR/res/steady/h1/B/records.tsv")
  [[ $card == *">B</td><td class=\"n\" title=\"95% CI"*">$want</td>"* ]]
  grep -q '^| h1 / B | .* | '"$want"' (95% CI ' "$OUT/summary.md"
  grep -q '<h3>network: one 11 KB file over and over, 1 server process, steady window</h3>' "$OUT/index.html"
  # the cold replay has no steady window: its first pass is the figure
  grep -q '<h3>serve, cold cache, 1 server process</h3>' "$OUT/index.html"
  # the cold | warm chart draws the same figures: the warm panel B's steady
  # window (not its first pass), said in the panel's title; the cold panel its one pass
  "$PY" - "$BATS_TEST_TMPDIR/res/steady/h1/B/records.tsv" "$OUT" <<'PY'
import sys
recs = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
def mean(phase, metric):
    v = [float(r[3]) for r in recs if r[0] == phase and r[2] == metric]
    return sum(v) / len(v)
def drawn(panel):
    rows = [l.split() for l in open("%s/serve-cold-vs-warm-%d.dat" % (sys.argv[2], panel)) if not l.startswith("#")]
    return [float(r[1]) for r in rows if r[5] == '"B"']
assert abs(drawn(2)[0] / mean("serve-warm-1", "steady_rps") - 1) < 1e-6, (drawn(2), mean("serve-warm-1", "steady_rps"))
assert abs(drawn(2)[0] / mean("serve-warm-1", "rps") - 1) > 0.05
assert abs(drawn(1)[0] / mean("serve-cold-1", "rps") - 1) < 1e-6, drawn(1)
gp = open(sys.argv[2] + "/serve-cold-vs-warm.gp").read()
assert "'warm cache (steady window)'" in gp and "'cold cache'" in gp, gp
# a panel whose bars are only partly steady windows names those that are
sys.path.insert(0, "plots")
import charts
class Run:
    def values(self, phase, metric):
        return [1.0] if phase != "none" else []
members = [("w1", "steady_rps", "1 process"), ("wf", "rps", "fork"), ("none", "rps", "absent")]
assert charts.steady_note(members, [Run()]) == " (steady window: 1 process)"
assert charts.steady_note(members[:1] + members[2:], [Run()]) == " (steady window)"
assert charts.steady_note(members[1:], [Run()]) == ""
PY
  # the summary's columns say which figure they are: the steady window where
  # measured (warm 32 and the cold replay: none), each cell with that figure's interval
  grep -q '^| host / variant | untar | untar sync | untar2 | untar2 sync | cold 1 | cold 32 | warm 1 (steady) | warm 32 | cold fork | warm fork | net 1 (steady) | net 4 | delete |$' "$OUT/summary.md"
  grep -q '^(steady): the steady window of a replay run for a minimum time' "$OUT/summary.md"
  grep -q '<th>warm 1 (steady)</th>' "$OUT/index.html"
  # the figure's interval and each card's detectable effect are the steady
  # window's (the first pass's, 20% lower and noisier, would differ)
  "$PY" - "$BATS_TEST_TMPDIR/res/steady/h1" "$OUT" <<'PY'
import re, sys
sys.path.insert(0, "plots")
import stats
def vals(v, phase, metric):
    rs = [l.rstrip("\n").split("\t") for l in open("%s/%s/records.tsv" % (sys.argv[1], v))]
    return [float(r[3]) for r in rs if r[0] == phase and r[2] == metric]
md = open(sys.argv[2] + "/summary.md").read()
html = open(sys.argv[2] + "/index.html").read()
for phase, metric, col in (("serve-warm-1", "rps", 7), ("net-1", "mbps", 11)):
    steady, first = (stats.estimate(vals("B", phase, m)) for m in ("steady_" + metric, metric))
    cell = re.search(r"^\| h1 / B \|" + r"[^|\n]*\|" * (col - 1) + r" ([^|\n]*) \|", md, re.M).group(1)
    assert "95%% CI \u00b1%.1f%%" % steady.halfwidth_pct in cell, (cell, steady.halfwidth_pct)
    assert "%.1f" % steady.halfwidth_pct != "%.1f" % first.halfwidth_pct
    sets = [vals(v, phase, "steady_" + metric) for v in "BC"] + [vals("A", phase, "steady_" + metric)[:5]]
    mde, mde_first = stats.mde_of_sets(sets), stats.mde_of_sets([vals(v, phase, metric) for v in "BC"] + [vals("A", phase, metric)[:5]])
    card = re.search(r'<div class="card" id="rank-%s">.*?</div>' % phase, html, re.S).group(0)
    assert stats.mde_text(mde) in card, (card, mde)
    assert "%.1f" % mde != "%.1f" % mde_first, (mde, mde_first)
PY
  # the method's first pass stays a figure of its own: the serve and network
  # table has it beside the steady window (B: no disturbed trial)
  first=$("$PY" -c 'import sys
for m in ("rps", "steady_rps"):
    v = [float(l.split("\t")[3]) for l in open(sys.argv[1]) if l.startswith("serve-warm-1\t") and "\t%s\t" % m in l]
    print("{:,.0f} req/s".format(sum(v) / len(v)), end=" | " if m == "rps" else "\n")' "$BATS_TEST_TMPDIR/res/steady/h1/B/records.tsv")
  grep -qF "| h1 / B | serve-warm-1 | 7 | $first | " "$OUT/summary.md"
  grep -q '^| h1 / B | serve-cold-1 | 7 | [0-9,]* req/s | - | ' "$OUT/summary.md"
  grep -q '<th>first pass (rate or time)</th><th>steady window</th>' "$OUT/index.html"
  # the memory filesystem's warm figure (5 times the disks') is off the
  # chart's scale: no line, its figure in the title; its untar a line
  grep -q "^chart_title = .*'in memory, a reference off this scale: mem [0-9,]*'$" "$OUT/serve-warm-1.gp"
  grep -q '^nrefs = 1$' "$OUT/untar.gp"
  # make compare's chart draws the same headline: the steady window
  aa_run steady2 --steady --seed 2
  run make --no-print-directory compare RESULTS="$BATS_TEST_TMPDIR/res" BASE=steady NEW=steady2 OUT="$OUT/cmp"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -q '"h1 / B  serve-warm-1 steady_rps"' "$OUT/cmp/compare.dat"
  grep -q '"h1 / B  net-1 steady_mbps"' "$OUT/cmp/compare.dat"
  grep -q '"h1 / B  serve-cold-1 rps"' "$OUT/cmp/compare.dat"
  run grep -q '"h1 / B  serve-warm-1 rps"' "$OUT/cmp/compare.dat"
  [ "$status" -eq 1 ]
  # the sync after untar: A's trials marked sync_disturbed are left out and named
  sync=$(sed -n '/<div class="card" id="rank-untar-sync">/,/<\/div>/p' "$OUT/index.html")
  [[ $sync == *'<p class="out flag">trials disturbed (machine busy), left out: A 2 of 7</p>'* ]]
  # C's figures stopped at the harness's trial cap: said beside each headline figure, not beside a side one
  grep -q '^| h1 / C | [0-9.]* s (95% CI ±[0-9.]*%; spread [0-9.]*%; stopped at the trial cap, short of the precision asked) | [0-9.]* s (95% CI ±[0-9.]*%; spread [0-9.]*%) | ' "$OUT/summary.md"
  run grep -q '^| h1 / B .*stopped at' "$OUT/summary.md"
  [ "$status" -eq 1 ]
}

@test "stats: a figure whose every trial was disturbed is kept and says so; exports count them" {
  require_cmd gnuplot
  aa_run busy --disturb B=7
  run make --no-print-directory report RESULTS="$BATS_TEST_TMPDIR/res" RUN=busy OUT="$OUT"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  # B's trials, all disturbed (twice as slow): its figure is theirs, named so beside it and on its cards
  grep -q '^| h1 / B | [0-9.]* s (95% CI ±4.5%: noisy; spread [0-9.]*%; 7 of 7 trials disturbed: machine busy, the figure is theirs) | ' "$OUT/summary.md"
  grep -q '<p class="out flag">trials disturbed (machine busy), every trial (the figure is theirs): B 7 of 7</p>' "$OUT/index.html"
  [ "$("$PY" -c 'import json, sys
print(*[(r["trials"], r["disturbed"], r["note"]) for r in json.load(open(sys.argv[1]))
        if (r["variant"], r["phase"], r["metric"]) == ("B", "delete", "wall_s")])' "$OUT/results.json")" = \
    "(7, 7, '7 of 7 trials disturbed: machine busy, the figure is theirs')" ]
  # beside a variant with 2 of 7 (kept then: B keeps no undisturbed trial), one line a card, grouped
  aa_run mixed --disturb A=2,B=7
  run make --no-print-directory report RESULTS="$BATS_TEST_TMPDIR/res" RUN=mixed OUT="$OUT/mixed"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -q '<p class="out flag">trials disturbed (machine busy), kept (too few undisturbed trials in the phase): A 2 of 7; every trial (the figure is theirs): B 7 of 7</p>' "$OUT/mixed/index.html"
}

@test "stats: a phase in which a variant would keep one undisturbed trial keeps the disturbed ones of every variant, and says so" {
  require_cmd gnuplot
  # A: 6 of 7 trials disturbed (half as fast), B: 1 of 7 (left out, alone,
  # it would set A's one calm trial against B's six)
  aa_run keep --disturb A=6,B=1
  run make --no-print-directory report RESULTS="$BATS_TEST_TMPDIR/res" RUN=keep OUT="$OUT"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  # one line a card, the variants grouped by what became of their disturbed trials
  [ "$(grep -c '<p class="out flag">trials disturbed (machine busy), kept (too few undisturbed trials in the phase): A 6 of 7, B 1 of 7</p>' "$OUT/index.html")" -eq 6 ]
  grep -q '35 of 70 phase trials disturbed (machine busy), kept in the figures: too few undisturbed trials to leave them out.' "$OUT/index.html"
  # every trial in the figures: A's six slow ones make it the slowest, as measured
  [ "$("$PY" -c 'import json, sys
print(*[(r["variant"], r["trials"], r["disturbed"], r["note"]) for r in json.load(open(sys.argv[1]))
        if r["variant"] in ("A", "B") and (r["phase"], r["metric"]) == ("untar", "wall_s")], sep="|")' "$OUT/results.json")" = \
    "('A', 7, 6, '6 of 7 trials disturbed: machine busy, kept: too few undisturbed trials in the phase')|('B', 7, 1, '1 of 7 trials disturbed: machine busy, kept: too few undisturbed trials in the phase')" ]
  # with two undisturbed trials each the disturbed ones are left out, as before
  aa_run leave --disturb A=5,B=1
  run make --no-print-directory report RESULTS="$BATS_TEST_TMPDIR/res" RUN=leave OUT="$OUT/leave"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ "$(grep -c '<p class="out flag">trials disturbed (machine busy), left out: A 5 of 7, B 1 of 7</p>' "$OUT/leave/index.html")" -eq 6 ]
  grep -q '30 of 70 phase trials disturbed (machine busy), left out of the figures.' "$OUT/leave/index.html"
}

@test "stats: noisy is a figure whose 95% interval is wider than the run's precision target (meta.json precision, else 3.5%)" {
  require_cmd gnuplot
  # no precision recorded: 3.5%; A's untar (interval 3.0%, spread 6.9%) is not noisy
  aa_run plain
  run make --no-print-directory report RESULTS="$BATS_TEST_TMPDIR/res" RUN=plain OUT="$OUT/plain"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -q '^| h1 / A | 10.0 s (95% CI ±3.0%; spread 6.9%; ' "$OUT/plain/summary.md"
  # the run repeated its figures to PRECISION=2: the same figure is noisy, in summary.md and the report
  aa_run tight --precision 2
  run make --no-print-directory report RESULTS="$BATS_TEST_TMPDIR/res" RUN=tight OUT="$OUT/tight"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -q '^| h1 / A | 10.0 s (95% CI ±3.0%: noisy; spread 6.9%; ' "$OUT/tight/summary.md"
  grep -q '95% CI ±3.0% <span class="flag">noisy</span>; spread 6.9%' "$OUT/tight/index.html"
  grep -q "marked noisy when wider than the run's precision target (the PRECISION it was repeated to, 3.5% for a run that records none)" "$OUT/tight/summary.md"
  # PRECISION=0 (one trial per figure, no target): 3.5% again
  aa_run single --precision 0
  run make --no-print-directory report RESULTS="$BATS_TEST_TMPDIR/res" RUN=single OUT="$OUT/single"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -q '^| h1 / A | 10.0 s (95% CI ±3.0%; spread 6.9%; ' "$OUT/single/summary.md"
}

# card_of RUN PHASE : the HTML of a report's card of PHASE
card_of() {
  sed -n "/<div class=\"card\" id=\"rank-$2\">/,/<\/div>/p" "$OUT/$1/index.html"
}

@test "stats: an A/A run whose warm serve has a winner by chance at 95% names none after correcting for its 12 comparisons; the card says why" {
  require_cmd gnuplot
  "$PY" -c 'import scipy' 2>/dev/null || skip "needs python3-scipy (make deps): the p values"
  aa_run chance --seed 17
  # the fixture's point: at 95% on its own, B wins the warm serve phase (both comparisons significant)
  "$PY" - "$BATS_TEST_TMPDIR/res" <<'PY'
import sys
sys.path.insert(0, "plots")
import ranking, resultslib
r = ranking.rank(resultslib.load_run(sys.argv[1], "chance").variants, "serve-warm-1", "rps")
assert r["winner"] and r["winner"].v.name == "B", r["verdict"]
PY
  run make --no-print-directory report RESULTS="$BATS_TEST_TMPDIR/res" RUN=chance OUT="$OUT/chance"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  run grep -c 'class="winner"' "$OUT/chance/index.html"
  [ "$output" -eq 0 ]
  grep -q 'No best overall: no variant is significantly ahead of every other.' "$OUT/chance/index.html"
  # said once, in the first line; the card says why it has no winner, each comparison its adjusted p
  grep -q '<p class="lead">.* Winners are named at a 5% false discovery rate over the 12 comparisons of this report (Benjamini-Hochberg); each interval is its comparison&#39;s own 95% interval\.' \
    "$OUT/chance/index.html"
  [ "$(grep -c 'false discovery rate' "$OUT/chance/index.html")" -eq 1 ]
  card_of chance serve-warm-1 | grep -q '<span class="verdict">no winner: B ahead, not significantly after correcting for 12 comparisons</span>'
  [ "$(card_of chance serve-warm-1 | grep -c 'p = 0.0[0-9]*: not significant after correcting for 12 comparisons (Benjamini-Hochberg adjusted p = 0.17)">-4.1% (not significant)<br><small>-[0-9.]*% to -[0-9.]*%</small>')" -eq 2 ]
  # the other phases' verdicts as before
  [ "$(grep -c '<span class="verdict">no winner: [ABC] ahead, not significantly</span>' "$OUT/chance/index.html")" -eq 5 ]
  grep -q '^- \*\*serve, warm cache, 1 server process\*\* ([^)]*): no winner: B ahead, not significantly after correcting for 12 comparisons\. B [0-9,]* (best); C [0-9,]* (-4.1%, 95% CI -[0-9.]*% to -[0-9.]*%, not significant after correcting for 12 comparisons); ' \
    "$OUT/chance/summary.md"
  [ "$(grep -c 'Winners are named at a 5% false discovery rate over the 12 comparisons of this report' "$OUT/chance/summary.md")" -eq 1 ]
  # the chart marks them as the card does
  [ "$(grep -c '"[AC]" "19,6[0-9][0-9]  -4.1% (not significant)"' "$OUT/chance/serve-warm-1.dat")" -eq 2 ]
}

@test "stats: a variant 10% slower is found in every phase after correcting for the run's comparisons" {
  require_cmd gnuplot
  aa_run slower --faster B=-10
  run make --no-print-directory report RESULTS="$BATS_TEST_TMPDIR/res" RUN=slower OUT="$OUT/slower"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -q 'Winners are named at a 5% false discovery rate over the 12 comparisons of this report' "$OUT/slower/summary.md"
  "$PY" - "$OUT/slower/summary.md" <<'PY'
import re, sys
md = open(sys.argv[1]).read()
phases = [l for l in md.splitlines() if l.startswith("- **")]
assert len(phases) == 6, phases
for line in phases:
    rel, tail = re.search(r"; B [\d,.]+ s? ?\(([-+][\d.]+)%, 95% CI [-+][\d.]+% to [-+][\d.]+%([^)]*)\)", line).groups()
    assert tail == "", line  # significant, also after the correction
    assert abs(float(rel)) > 5, line
PY
  # last, significantly behind the best, in all 6 phases
  grep -q '^| 3 | B | [0-9]*% | -[0-9.]*% (95% CI -[0-9.]*% to -[0-9.]*%) | 0 | 6 |$' "$OUT/slower/summary.md"
}

@test "stats: a run of one phase and one comparison is ranked as on its own: no correction, not said" {
  require_cmd gnuplot
  "$PY" -c 'import scipy' 2>/dev/null || skip "needs python3-scipy (make deps): the p values"
  "$PY" tests/fixtures/plots/mkaa.py "$BATS_TEST_TMPDIR/res" one --variants A,B --trials 5 --faster B=3 --seed 16
  for f in "$BATS_TEST_TMPDIR"/res/one/h1/*/records.tsv; do
    grep -E $'^(phase|net-1)\t' "$f" >"$f.new"
    mv "$f.new" "$f"
  done
  run make --no-print-directory report RESULTS="$BATS_TEST_TMPDIR/res" RUN=one OUT="$OUT/one"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ "$(grep -c '<div class="card"' "$OUT/one/index.html")" -eq 1 ]
  # p = 0.033: a winner at 95%, as it stays with one comparison
  card_of one net-1 | grep -q '<span class="verdict">winner <b class="winner">B</b></span>'
  card_of one net-1 | grep -q 'Welch&#39;s t-test p = 0.033: significant"'
  run grep -c 'false discovery\|after correcting' "$OUT/one/index.html" "$OUT/one/summary.md"
  [ "$output" = "$(printf '%s\n' "$OUT/one/index.html:0" "$OUT/one/summary.md:0")" ]
}

# drift_run RUN ARGS... : a synthetic blocked run (mkaa.py --rounds): three
# ext4 variants A, B, C, 8 rounds; the machine's level drifts within +-15%
# from round to round, the trials of a round differ by 1.5%; A's last trial
# disturbed (left out: A has 7 rounds, B and C 8).
drift_run() {
  local run=$1
  shift
  "$PY" tests/fixtures/plots/mkaa.py "$BATS_TEST_TMPDIR/res" "$run" --trials 8 --cv 1.5 --drift 15 --rounds \
    --disturb A=1 "$@"
}

# card_mde RUN PHASE : the detectable effect a report's card of PHASE says, in percent, and its rounds
card_mde() {
  sed -n "/<div class=\"card\" id=\"rank-$2\">/,/<\/div>/p" "$OUT/$1/index.html" |
    sed -n 's/.*this run can tell differences of \([0-9.]*\)% or more\( ([0-9]* rounds, paired)\)\{0,1\}<.*/\1\2/p'
}

@test "stats: an A/A run in rounds under a drift of +-15%: paired, no winner, a detectable effect under 5% where the unpaired one is wide" {
  require_cmd gnuplot
  drift_run drift
  run make --no-print-directory report RESULTS="$BATS_TEST_TMPDIR/res" RUN=drift OUT="$OUT/drift"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  run grep -c 'class="winner"' "$OUT/drift/index.html"
  [ "$output" -eq 0 ]
  grep -q 'No best overall: no variant is significantly ahead of every other.' "$OUT/drift/index.html"
  # the phases run in rounds (serve, net): paired, under 5%, over the 8 rounds
  # (A's disturbed round 8 still counts for B and C)
  for p in serve-cold-1 serve-warm-1 net-1; do
    read -r mde rounds < <(card_mde drift "$p")
    echo "$p: $mde $rounds"
    [ "$rounds" = "(8 rounds, paired)" ]
    awk -v m="$mde" 'BEGIN { exit !(m < 5) }'
    grep -q "^- \*\*[^*]*\*\* ([^)]*): no winner: .* this run can tell differences of $mde% or more (8 rounds, paired)" \
      "$OUT/drift/summary.md"
  done
  grep -q 'title="[0-9.]*% [a-z]* than [ABC], 95% CI [-+0-9.]*% to [-+0-9.]*%, paired t-test over 7 rounds p = ' \
    "$OUT/drift/index.html"
  # the phases without rounds (untar, delete) carry the drift: wide
  for p in untar delete; do
    read -r mde rounds < <(card_mde drift "$p")
    echo "$p: $mde $rounds"
    [ -z "$rounds" ]
    awk -v m="$mde" 'BEGIN { exit !(m > 10) }'
  done
  # the rounds of a variant are its values' (A's disturbed round 8 left out); the trials unpaired would be wide
  "$PY" - "$BATS_TEST_TMPDIR/res/drift" <<'PY'
import sys
sys.path.insert(0, "plots")
import resultslib, stats
run = resultslib.Run("drift", sys.argv[1])
vs = {v.name: v for v in run.variants}
a = vs["A"].values_by_round("net-1", "mbps")
assert sorted(a) == list(range(1, 8)), a
assert [x for k in sorted(a) for x in a[k]] == vs["A"].values("net-1", "mbps")
assert vs["A"].values_by_round("untar", "wall_s") == {}
assert stats.mde_of_sets([vs[n].values("net-1", "mbps") for n in "ABC"]) > 10
PY
}

@test "stats: a variant 10% slower in rounds under the same drift is found, slower, with an interval holding -10%" {
  require_cmd gnuplot
  drift_run slow --faster B=-10
  run make --no-print-directory report RESULTS="$BATS_TEST_TMPDIR/res" RUN=slow OUT="$OUT/slow"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  "$PY" - "$OUT/slow/summary.md" <<'PY'
import re, sys
md = open(sys.argv[1]).read()
for title in ("serve, cold cache, 1 server process", "serve, warm cache, 1 server process",
              "network: one 11 KB file over and over, 1 server process"):
    line = next(l for l in md.splitlines() if l.startswith("- **%s**" % title))
    assert "this run can tell differences of " in line and "% or more (8 rounds, paired)" in line, line
    rel, lo, hi, tail = re.search(r"B [\d,]+ \(([-+][\d.]+)%, 95% CI ([-+][\d.]+)% to ([-+][\d.]+)%([^)]*)\)", line).groups()
    assert tail == "", line  # significant: no "not significant"
    assert float(lo) < -10 < float(hi) < 0, line
PY
  # overall: B significantly behind the first (the paired phases carry it)
  grep -q '^| 3 | B | [0-9]*% | -[0-9.]*% (95% CI -[0-9.]*% to -[0-9.]*%) | 0 | [1-9] |$' "$OUT/slow/summary.md"
}

@test "stats: a run without round records gets today's answers: Welch's test, the trials' detectable effect" {
  require_cmd gnuplot
  drift_run rounds
  # the same trials, their round records removed: an unblocked run
  cp -r "$BATS_TEST_TMPDIR/res/rounds" "$BATS_TEST_TMPDIR/res/plain"
  for f in "$BATS_TEST_TMPDIR"/res/plain/h1/*/records.tsv; do
    grep -v $'\tround\t' "$f" >"$f.new"
    mv "$f.new" "$f"
  done
  for r in rounds plain; do
    run make --no-print-directory report RESULTS="$BATS_TEST_TMPDIR/res" RUN=$r OUT="$OUT/$r"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
  done
  run grep -c 'paired' "$OUT/plain/index.html" "$OUT/plain/summary.md"
  [ "$output" = "$(printf '%s\n' "$OUT/plain/index.html:0" "$OUT/plain/summary.md:0")" ]
  grep -q 'Welch&#39;s t-test p = ' "$OUT/plain/index.html"
  # each card's detectable effect is the trials' (stats.mde_of_sets), as before rounds
  "$PY" - "$BATS_TEST_TMPDIR/res/plain" "$OUT/plain/index.html" <<'PY'
import re, sys
sys.path.insert(0, "plots")
import resultslib, stats
vs = {v.name: v for v in resultslib.Run("plain", sys.argv[1]).variants}
html = open(sys.argv[2]).read()
for phase, metric in (("serve-cold-1", "rps"), ("net-1", "mbps"), ("untar", "wall_s")):
    card = re.search(r'<div class="card" id="rank-%s">.*?</div>' % phase, html, re.S).group(0)
    mde = stats.mde_of_sets([vs[n].values(phase, metric) for n in "ABC"])
    assert '<p class="out">%s</p>' % stats.mde_text(mde) in card, (phase, mde, card)
PY
  # the untar and delete phases ran in no round in either run: their cards are the same
  for p in untar delete; do
    [ "$(card_mde rounds "$p")" = "$(card_mde plain "$p")" ]
  done
  [ "$(card_mde rounds net-1)" != "$(card_mde plain net-1)" ]
  # rounds are blocks of one run: two runs drawn together are not one block (each card unpaired)
  run make --no-print-directory report RESULTS="$BATS_TEST_TMPDIR/res" RUN="rounds plain" OUT="$OUT/both"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  for p in serve-cold-1 net-1; do
    [ -n "$(card_mde both "$p")" ]
    [[ $(card_mde both "$p") != *paired* ]]
  done
}
