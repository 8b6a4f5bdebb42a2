#!/usr/bin/env bats
# Results other tools read (plots/export.py, docs/formats.md#exports):
# results.csv read back by pandas, results.json by jq, composite.xml checked
# against the Phoronix Test Suite's own schema (tests/fixtures/pts/) by
# xmllint; on the committed example (a real make demo run), a real two-OS lab
# run (tests/fixtures/lab2os) and crafted fixtures (three trials, verdicts).
load helpers

setup() {
  require_cmd python3 jq
  cd "$ROOT" || return 1
  OUT=$BATS_TEST_TMPDIR/out
  # plots.mk's python: Debian's, which sees python3-pandas (pyenv's does not)
  PY=python3
  [ ! -x /usr/bin/python3 ] || PY=/usr/bin/python3
  XSD=$ROOT/tests/fixtures/pts/result-file.xsd
}

teardown() {
  if mountpoint -q "$BATS_TEST_TMPDIR/tmpfs" 2>/dev/null; then
    umount "$BATS_TEST_TMPDIR/tmpfs" || umount -l "$BATS_TEST_TMPDIR/tmpfs"
  fi
}

require_pandas() {
  "$PY" -c 'import pandas' 2>/dev/null || skip "needs python3-pandas (run 'make test-deps')"
}

# record_of VARIANTDIR PHASE METRIC : the value of METRIC of PHASE in records.tsv.
record_of() {
  awk -F '\t' -v p="$2" -v m="$3" '$1 == p && $3 == m { print $4 }' "$1/records.tsv"
}

# pandas_rows CSV : the rows as pandas reads them, "variant phase metric
# trials median min max spread_pct better verdict | note" (NaN where empty).
pandas_rows() {
  "$PY" - "$1" <<'PY'
import sys
import pandas as pd
d = pd.read_csv(sys.argv[1])
for _i, r in d.iterrows():
    print(r.variant, r.phase, r.metric, r.trials, r["median"], r["min"], r["max"], r.spread_pct, r.better,
          r.verdict, "|", r.note)
PY
}

# xpath FILE EXPR : xmllint's answer to an XPath expression.
xpath() {
  xmllint --xpath "$2" "$1"
}

@test "export: make export writes results.csv, results.json and composite.xml of the example, and nothing else" {
  run make --no-print-directory export RUN=example OUT="$OUT"
  [ "$status" -eq 0 ]
  [ "$output" = "plots: results.csv, results.json, composite.xml of example in $OUT/" ]
  [ "$(find "$OUT" -mindepth 1 -printf '%f\n' | sort | tr '\n' ' ')" = "composite.xml results.csv results.json " ]
}

@test "export: pandas reads results.csv with the columns, types and values of records.tsv" {
  require_pandas
  make --no-print-directory export RUN=example OUT="$OUT" >/dev/null
  [ "$(head -1 "$OUT/results.csv")" = "run,host,variant,fs,phase,metric,unit,trials,median,min,max,spread_pct,better,verdict,note,estimate,ci_low,ci_high,estimate_method,mde_pct,disturbed,mde_basis,mde_rounds,vs_best,vs_best_pct,vs_best_ci_low,vs_best_ci_high,vs_best_test,vs_best_verdict,estimate_rounds" ]
  run "$PY" -c 'import sys, pandas as pd; d = pd.read_csv(sys.argv[1]); print(len(d), d["median"].dtype, d["trials"].dtype)' "$OUT/results.csv"
  [ "$status" -eq 0 ]
  # one row per variant, phase and numeric metric of the six records.tsv
  want=$(awk -F '\t' 'FNR > 1 && $5 != "text" && $5 != "exit" && $4 + 0 == $4 { k[FILENAME SUBSEP $1 SUBSEP $3] } END { print length(k) }' results/example/vm/*/records.tsv)
  [ "$output" = "$want float64 int64" ]
  rows=$(pandas_rows "$OUT/results.csv")
  # one trial: median = min = max = the record, no spread, the report's verdict
  v=$(record_of results/example/vm/ext4 untar wall_s)
  [ -n "$v" ]
  row=$(grep '^ext4 untar wall_s ' <<<"$rows")
  [[ $row == "ext4 untar wall_s 1 $v $v $v nan lower kernel CPU | 1 trial: noise unknown" ]]
  v=$(record_of results/example/vm/xfs serve-warm-32 rps)
  row=$(grep '^xfs serve-warm-32 rps ' <<<"$rows")
  [[ $row == "xfs serve-warm-32 rps 1 $v $v $v nan higher "* ]]
  # a side figure: no direction, no verdict
  row=$(grep '^ext4 untar files ' <<<"$rows")
  [[ $row == "ext4 untar files 1 $(record_of results/example/vm/ext4 untar files).0 "*" nan nan nan | 1 trial: noise unknown" ]]
  # flush runs three times in a one-cycle run: three values, one trial (cycle), no spread
  [ "$(awk -F '\t' '$1 == "flush" && $3 == "wall_s" { print $4 }' results/example/vm/ext4/records.tsv | sort -n | tr '\n' ' ')" = "0.236 0.359 0.375 " ]
  [[ $(grep '^ext4 flush wall_s ' <<<"$rows") == "ext4 flush wall_s 1 0.359 0.236 0.375 nan lower "*"| 1 trial: noise unknown" ]]
  # tmpfs cannot be flushed: its cold figures say so
  [[ $(grep '^tmpfs serve-cold-1 rps ' <<<"$rows") == *"| not flushable; 1 trial: noise unknown" ]]
}

@test "export: three trials give the median, min, max and spread; verdicts are the report's" {
  require_pandas
  run "$PY" plots/plots.py export --results tests/fixtures/plots --out "$OUT" base
  [ "$status" -eq 0 ]
  rows=$(pandas_rows "$OUT/results.csv")
  # untar 100, 101, 102 s; delete 10, 11, 12 s: spread (max - min) / median;
  # whole numbers, so pandas makes the column int64; no budget, no verdict
  grep -qx 'ext4 untar wall_s 3 101 100 102 1.98 lower nan | nan' <<<"$rows"
  grep -qx 'ext4 delete wall_s 3 11 10 12 18.182 lower nan | nan' <<<"$rows"
  grep -qx 'ext4 serve-cold-1 rps 3 41 40 42 4.878 higher nan | nan' <<<"$rows"
  [ "$(grep -c . <<<"$rows")" -eq 4 ]
  # tests/fixtures/plots/budget: one crafted phase for each verdict (tests/plots.bats)
  "$PY" plots/plots.py export --results tests/fixtures/plots/budget --out "$OUT/b" budget-run >/dev/null
  rows=$(pandas_rows "$OUT/b/results.csv")
  grep -q '^ext4 untar wall_s 1 10.0 .* lower tool | ' <<<"$rows"
  grep -q '^ext4 untar2 wall_s 1 5.0 .* lower waiting | ' <<<"$rows"
  grep -q '^ext4 untar2 sync_s 1 2.0 .* lower device | ' <<<"$rows"
  grep -q '^ext4 serve-warm-1 rps 1 5000.0 .* higher client | ' <<<"$rows"
  grep -q '^ext4 delete wall_s 1 0.73 .* lower kernel CPU | ' <<<"$rows"
}

@test "export: jq reads results.json, the same rows as results.csv" {
  make --no-print-directory export RUN=example OUT="$OUT" >/dev/null
  n=$(jq 'length' "$OUT/results.json")
  [ "$n" -eq "$(($(grep -c . "$OUT/results.csv") - 1))" ]
  v=$(record_of results/example/vm/btrfs delete wall_s)
  run jq -c '.[] | select(.variant == "btrfs" and .phase == "delete" and .metric == "wall_s")
    | [.run, .host, .fs, .unit, .trials, .median, .min, .max, .spread_pct, .better, .verdict]' "$OUT/results.json"
  [ "$status" -eq 0 ]
  # (the report's summary says "1.3 s (tool; 1 trial: noise unknown; ...)")
  [ "$output" = "[\"example\",\"vm\",\"btrfs\",\"s\",1,$v,$v,$v,null,\"lower\",\"tool\"]" ]
  # numbers are JSON numbers, a whole number without ".0"
  [ "$(jq '.[] | select(.variant == "ext4" and .phase == "untar" and .metric == "files") | .median' "$OUT/results.json")" = "$(record_of results/example/vm/ext4 untar files)" ]
  [ "$(jq '[.[] | .median | type] | unique' -c "$OUT/results.json")" = '["number"]' ]
  # the example's 6 filesystems, each with the same phases
  [ "$(jq -r '[.[] | .variant] | unique | join(" ")' "$OUT/results.json")" = "btrfs ext2 ext3 ext4 tmpfs xfs" ]
}

@test "export: composite.xml of the example is a valid PTS result file with the figures and their intervals" {
  require_cmd xmllint
  make --no-print-directory export RUN=example OUT="$OUT" >/dev/null
  run xmllint --noout --schema "$XSD" "$OUT/composite.xml"
  [ "$status" -eq 0 ]
  [ "$(xpath "$OUT/composite.xml" 'count(/PhoronixTestSuite/System)')" = 6 ]
  [ "$(xpath "$OUT/composite.xml" 'string(/PhoronixTestSuite/System[Identifier="vm / xfs"]/Software)')" = \
    "OS: Debian GNU/Linux 12 (bookworm), Kernel: 6.18.44-fc-v657 (x86_64), File-System: xfs, System Layer: docker" ]
  untar='/PhoronixTestSuite/Result[Arguments="untar wall_s"]'
  [ "$(xpath "$OUT/composite.xml" "string($untar/Proportion)")" = LIB ]
  [ "$(xpath "$OUT/composite.xml" "string($untar/Scale)")" = s ]
  v=$(record_of results/example/vm/ext4 untar wall_s)
  [ "$(xpath "$OUT/composite.xml" "string($untar/Data/Entry[Identifier='vm / ext4']/Value)")" = "$v" ]
  [ "$(xpath "$OUT/composite.xml" "string($untar/Data/Entry[Identifier='vm / ext4']/RawString)")" = "$v" ]
  xpath "$OUT/composite.xml" "string($untar/Data/Entry[Identifier='vm / ext4']/JSON)" | jq -e '.verdict == "kernel CPU" and .trials == 1'
  # a rate is higher-is-better; tmpfs's cold figure is left out, and said so
  cold='/PhoronixTestSuite/Result[Arguments="serve-cold-1 rps"]'
  [ "$(xpath "$OUT/composite.xml" "string($cold/Proportion)")" = HIB ]
  [ "$(xpath "$OUT/composite.xml" "count($cold/Data/Entry)")" = 5 ]
  [ "$(xpath "$OUT/composite.xml" "count($cold/Data/Entry[Identifier='vm / tmpfs'])")" = 0 ]
  [[ $(xpath "$OUT/composite.xml" "string($cold/Annotation)") == "Left out: vm / tmpfs: not flushable;"* ]]
  [ "$(xpath "$OUT/composite.xml" 'count(/PhoronixTestSuite/Result[Arguments="serve-warm-1 rps"]/Data/Entry)')" = 6 ]
  # only timings and rates: no budget parts, no CPU seconds, no counts
  [ "$(xpath "$OUT/composite.xml" 'count(/PhoronixTestSuite/Result[contains(Arguments, "budget") or Arguments="untar user_s" or Arguments="untar files"])')" = 0 ]
  # three trials: every one in RawString, min and max in the JSON PTS draws
  "$PY" plots/plots.py export --results tests/fixtures/plots --out "$OUT/b" base >/dev/null
  xmllint --noout --schema "$XSD" "$OUT/b/composite.xml"
  entry='/PhoronixTestSuite/Result[Arguments="delete wall_s"]/Data/Entry'
  [ "$(xpath "$OUT/b/composite.xml" "string($entry/Value)")" = 11 ]
  [ "$(xpath "$OUT/b/composite.xml" "string($entry/RawString)")" = 10:11:12 ]
  xpath "$OUT/b/composite.xml" "string($entry/JSON)" | jq -e '."min-result" == 10 and ."max-result" == 12 and .trials == 3'
  # and the figure's 95% interval (11 +- t(0.975, 2) / sqrt(3)) and what a comparison could detect
  xpath "$OUT/b/composite.xml" "string($entry/JSON)" | jq -e '.median == 11 and (.ci_low * 1000 | round) == 8516 and (.ci_high * 1000 | round) == 13484 and .mde_pct > 0'
}

@test "export: two runs in one composite.xml (the lab's two OSes beside the example), each system named by its run" {
  require_cmd xmllint
  run "$PY" plots/plots.py export --out "$OUT" results/example tests/fixtures/lab2os/lab-2os
  [ "$status" -eq 0 ]
  xmllint --noout --schema "$XSD" "$OUT/composite.xml"
  [ "$(xpath "$OUT/composite.xml" 'count(/PhoronixTestSuite/System)')" = 8 ]
  v=$(record_of tests/fixtures/lab2os/lab-2os/debian13-1/ext4 serve-warm-1 rps)
  [ -n "$v" ]
  [ "$(xpath "$OUT/composite.xml" "string(/PhoronixTestSuite/Result[Arguments='serve-warm-1 rps']/Data/Entry[Identifier='lab-2os / debian13-1 / ext4']/Value)")" = "$v" ]
  [[ $(xpath "$OUT/composite.xml" "string(/PhoronixTestSuite/System[Identifier='lab-2os / debian12-1 / ext4']/Software)") == "OS: Debian GNU/Linux 12 (bookworm), Kernel: 6.1."* ]]
  [ "$(jq -r '[.[] | .run] | unique | join(" ")' "$OUT/results.json")" = "example lab-2os" ]
}

@test "export: an invalid trial and a control character in meta.json: left out, said, and still valid XML" {
  require_cmd xmllint
  local run=$BATS_TEST_TMPDIR/res/r1 d
  mkdir -p "$run"
  cp -r tests/fixtures/lab2os/lab-2os/debian12-1 "$run/"
  d=$run/debian12-1/ext4
  printf 'serve-cold-1\t1\tfailed\t3\tcount\n' >>"$d/records.tsv"
  jq '.cpu = "bad\u0001cpu <&>"' "$d/meta.json" >"$d/m" && mv "$d/m" "$d/meta.json"
  run "$PY" plots/plots.py export --results "$BATS_TEST_TMPDIR/res" --out "$OUT" r1
  [ "$status" -eq 0 ]
  [ "$(jq -c '.[] | select(.phase == "serve-cold-1" and .metric == "rps") | [.trials, .median, .note]' "$OUT/results.json")" = \
    '[0,null,"trial 1 not a valid figure (3 failed requests)"]' ]
  xmllint --noout --schema "$XSD" "$OUT/composite.xml"
  [ "$(xpath "$OUT/composite.xml" 'count(/PhoronixTestSuite/Result[Arguments="serve-cold-1 rps"])')" = 0 ]
  [[ $(xpath "$OUT/composite.xml" 'string(/PhoronixTestSuite/System/Hardware)') == "Processor: bad cpu <&> (2 CPUs)"* ]]
}

@test "export: an unknown run is one line, exit 2, and writes nothing" {
  run make --no-print-directory export RUN=nosuch-run OUT="$OUT"
  [ "$status" -ne 0 ]
  [[ ${lines[0]} == "plots: no run 'nosuch-run' under results/ (runs: "*"example"*")" ]]
  [ ! -e "$OUT" ]
  run "$PY" plots/plots.py export --out "$OUT" nosuch-run
  [ "$status" -eq 2 ]
}

@test "export: a full disk is one line, exit 1, and leaves no half-written file" {
  require_root
  mkdir -p "$BATS_TEST_TMPDIR/tmpfs"
  mount -t tmpfs -o size=64k tmpfs "$BATS_TEST_TMPDIR/tmpfs"
  run "$PY" plots/plots.py export --out "$BATS_TEST_TMPDIR/tmpfs" example
  [ "$status" -eq 1 ]
  [ "$output" = "plots: [Errno 28] No space left on device" ]
  [ -z "$(find "$BATS_TEST_TMPDIR/tmpfs" -mindepth 1)" ]
}

@test "export: make report writes the same three files beside index.html" {
  require_cmd gnuplot
  make --no-print-directory export RUN=example OUT="$OUT/e" >/dev/null
  run make --no-print-directory report RUN=example OUT="$OUT/r"
  [ "$status" -eq 0 ]
  [[ $output == *"results for other tools in $OUT/r/{results.csv,results.json,composite.xml}"* ]]
  [ -s "$OUT/r/index.html" ]
  cmp "$OUT/e/results.csv" "$OUT/r/results.csv"
  cmp "$OUT/e/results.json" "$OUT/r/results.json"
  xmllint --noout --schema "$XSD" "$OUT/r/composite.xml"
}

@test "export: make shootout writes them into the run's directory at its end" {
  require_root
  for t in mkdataset dltar rmtree; do
    [ -x "$BIN/$t" ] || skip "bin/$t is not built (make all)"
  done
  local T=$BATS_TEST_TMPDIR r
  mkdir -p "$T/tmpfs"
  mount -t tmpfs -o size=256m tmpfs "$T/tmpfs"
  # PRECISION=0: one trial of each phase (the stopping rule would repeat them), so one record to compare
  run env RESULTS="$T/results" HOST=h1 VARIANT=v1 PRECISION=0 make -C "$ROOT" -s shootout TARGET="$T/tmpfs" DATASET=tiny \
    PHASES="untar delete" FLUSH=none
  umount "$T/tmpfs"
  [ "$status" -eq 0 ]
  r=$(cat "$T/results/.current")
  [[ $output == *"plots: results.csv, results.json, composite.xml of $r in $T/results/$r/"* ]]
  v=$(record_of "$T/results/$r/h1/v1" untar wall_s)
  [ -n "$v" ]
  [ "$(jq '.[] | select(.phase == "untar" and .metric == "wall_s") | .median' "$T/results/$r/results.json")" = "$v" ]
  grep -q "^$r,h1,v1,tmpfs,untar,wall_s,s,1,$v,$v,$v,,lower," "$T/results/$r/results.csv"
  # the run still reads as one host with one variant
  "$PY" plots/plots.py export --results "$T/results" --out "$T/again" "$r" >/dev/null
  cmp "$T/results/$r/results.csv" "$T/again/results.csv"
}

@test "export: a run in rounds carries the report's detectable effect of the rounds and each figure's paired difference from the best; without rounds, the trials'" {
  require_cmd gnuplot xmllint
  "$PY" -c 'import scipy' 2>/dev/null || skip "needs python3-scipy (make deps): the report's p values"
  # A, B, C in 8 rounds of the serve and net phases under a drift of +-15%, B 10% slower, A's last trial disturbed
  res=$BATS_TEST_TMPDIR/res
  # and the same trials without their round records (mkaa.py draws the same values without --rounds): unblocked
  for r in slow:--rounds plain:; do
    "$PY" tests/fixtures/plots/mkaa.py "$res" "${r%%:*}" --trials 8 --cv 1.5 --drift 15 --disturb A=1 --faster B=-10 ${r#*:}
  done
  cmp <(grep -v $'\tround\t' "$res/slow/h1/B/records.tsv") "$res/plain/h1/B/records.tsv"
  for r in slow plain; do
    run make --no-print-directory report RESULTS="$res" RUN=$r OUT="$OUT/$r"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
  done
  "$PY" - "$OUT" "$res" <<'PY'
import json, re, sys
sys.path.insert(0, "plots")
import resultslib, stats
out, res = sys.argv[1:]
for run in ("slow", "plain"):
    rows = {(r["variant"], r["phase"], r["metric"]): r for r in json.load(open("%s/%s/results.json" % (out, run)))}
    html = open("%s/%s/index.html" % (out, run)).read()
    vs = {v.name: v for v in resultslib.Run(run, "%s/%s" % (res, run)).variants}
    for phase, metric in (("serve-cold-1", "rps"), ("serve-warm-1", "rps"), ("net-1", "mbps"), ("untar", "wall_s")):
        card = re.search(r'<div class="card" id="rank-%s">.*?</div>' % phase, html, re.S).group(0)
        shown = re.search(r"this run can tell differences of ([0-9.]+)% or more( \((\d+) rounds, paired\))?", card)
        for n in "ABC":
            r = rows[(n, phase, metric)]
            if run == "slow" and phase != "untar":
                # the card's figure, from its rounds (8: A's disturbed round 8 still counts for B and C)
                assert (r["mde_basis"], r["mde_rounds"], shown.group(3)) == ("rounds", 8, "8"), (r, shown.group(0))
                assert "%.1f" % r["mde_pct"] == shown.group(1), (r, shown.group(0))
            else:
                # the trials' figure, as before rounds: this variant's trials alone
                e = stats.estimate(vs[n].values(phase, metric))
                assert (r["mde_basis"], r["mde_rounds"], shown.group(2)) == ("trials", None, None), r
                assert r["mde_pct"] == round(stats.mde_pct(e.cv, e.n, e.cv, e.n), 3), r
        # B, 10% slower: significant after the correction, against the best, with the card's interval
        b = rows[("B", phase, metric)]
        assert b["vs_best"] in ("%s/h1/A" % run, "%s/h1/C" % run), b
        best = rows[(b["vs_best"].split("/")[-1], phase, metric)]
        assert (best["vs_best"], best["vs_best_verdict"], best["vs_best_pct"]) == (b["vs_best"], "best", None), best
        assert "%+.1f%% to %+.1f%%" % (b["vs_best_ci_low"], b["vs_best_ci_high"]) in card, (b, card)
        if run == "slow" and phase != "untar":
            # over the rounds both have: 7 against A (its round 8 disturbed), 8 against C
            assert b["vs_best_test"] == "paired t-test over %d rounds" % (7 if b["vs_best"].endswith("A") else 8), b
            assert b["vs_best_verdict"] == "significant", b
            assert b["vs_best_ci_low"] < -10 < b["vs_best_ci_high"] < 0, b
            # the figures in the rounds (their levels): B's ratio to the best's is its difference
            assert abs(b["estimate_rounds"] / best["estimate_rounds"] - 1 - b["vs_best_pct"] / 100) < 1e-4, (b, best)
        else:  # unpaired (Mann-Whitney's where the drift skews a side's 8 trials)
            assert b["vs_best_test"] in ("Welch's t-test", "Mann-Whitney U test"), b
            assert b["estimate_rounds"] is None, b
    # a figure the report does not rank: no comparison, no detectable effect
    r = rows[("A", "untar", "disturbed")]
    assert (r["mde_basis"], r["vs_best"], r["vs_best_pct"], r["vs_best_verdict"]) == ("", "", None, ""), r
PY
  # results.csv has them too; composite.xml's entries say which detectable effect
  grep -Eq '^slow,h1,B,ext4,net-1,mbps,.*,rounds,8,slow/h1/[AC],-[0-9.]+,-[0-9.]+,-[0-9.]+,paired t-test over [78] rounds,significant,[0-9.]+$' \
    "$OUT/slow/results.csv"
  xmllint --noout --schema "$XSD" "$OUT/slow/composite.xml"
  xpath "$OUT/slow/composite.xml" 'string(/PhoronixTestSuite/Result[Arguments="net-1 mbps"]/Data/Entry[Identifier="h1 / B"]/JSON)' |
    jq -e '.mde_basis == "rounds" and .mde_rounds == 8 and (.vs_best_test | startswith("paired t-test over")) and .vs_best_verdict == "significant"'
}

@test "export: docs/formats.md lists every column of results.csv, in order" {
  make --no-print-directory export RUN=example OUT="$OUT" >/dev/null
  # the column table of 'results.csv and results.json' (min and max share a row)
  # shellcheck disable=SC2016 # the backquotes are Markdown's
  doc=$(awk '/^### results.csv and results.json/ { on = 1; next } on && /^#/ { exit }
    on && /^\| `/ { print }' docs/formats.md | grep -o '^| `[^|]*|' | grep -o '`[a-z_]*`' | tr -d '`' | tr '\n' ,)
  [ "$doc" = "$(head -1 "$OUT/results.csv")," ]
}
