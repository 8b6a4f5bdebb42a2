#!/usr/bin/env bats
# make plots / report / compare on the committed example run and on crafted
# fixtures (tests/fixtures/plots/: base and new differ in one metric within
# the noise of the trials and in two beyond it).
load helpers

setup() {
  require_cmd gnuplot python3
  cd "$ROOT" || return 1
  OUT=$BATS_TEST_TMPDIR/out
}

# yrange FILE.gp : the "set yrange [...]" of a generated chart instance.
yrange() {
  grep -o 'set yrange \[[^]]*\]' "$1" | head -1
}

@test "plots: the example renders valid PNG and SVG files" {
  run make --no-print-directory plots RUN=example OUT="$OUT"
  [ "$status" -eq 0 ]
  [[ $output == *"charts (PNG and SVG) of example in $OUT/"* ]]
  n=0
  for f in "$OUT"/*.png; do
    [ "$(head -c 4 "$f" | od -An -tx1 | tr -d ' ')" = 89504e47 ] || { echo "not a PNG: $f"; false; }
    [ -s "${f%.png}.svg" ] || { echo "no SVG beside $f"; false; }
    n=$((n + 1))
  done
  [ "$n" -ge 12 ]
  for f in "$OUT"/*.svg; do
    grep -q '<svg' "$f" && tail -c 20 "$f" | grep -q '</svg>' || { echo "not an SVG: $f"; false; }
  done
  # the per-phase charts, the side-by-side charts and the time series
  for c in untar untar2 serve-cold-1 serve-warm-32 net-4 delete serve-cold-vs-warm series-untar; do
    [ -s "$OUT/$c.png" ] || { echo "missing $c.png"; false; }
  done
}

@test "plots: every chart's gnuplot script runs with exit 0 and nothing on stderr" {
  make --no-print-directory plots RUN=example OUT="$OUT" >/dev/null
  for gp in "$OUT"/*.gp; do
    err=$(cd "$OUT" && gnuplot "$(basename "$gp")" 2>&1 >/dev/null) || { echo "$gp failed: $err"; false; }
    [ -z "$err" ] || { echo "$gp: $err"; false; }
  done
}

@test "plots: related charts share one vertical scale" {
  make --no-print-directory plots RUN=example OUT="$OUT" >/dev/null
  [ -n "$(yrange "$OUT/untar.gp")" ]
  [ "$(yrange "$OUT/untar.gp")" = "$(yrange "$OUT/untar2.gp")" ]
  [ "$(yrange "$OUT/serve-cold-1.gp")" = "$(yrange "$OUT/serve-cold-32.gp")" ]
  [ "$(yrange "$OUT/serve-warm-1.gp")" = "$(yrange "$OUT/serve-warm-32.gp")" ]
  [ "$(yrange "$OUT/net-1.gp")" = "$(yrange "$OUT/net-4.gp")" ]
  # cold and warm differ (thousands vs tens), and the side-by-side panels use each scale
  [ "$(yrange "$OUT/serve-cold-1.gp")" != "$(yrange "$OUT/serve-warm-1.gp")" ]
  grep -qF "$(yrange "$OUT/serve-cold-1.gp")" "$OUT/serve-cold-vs-warm.gp"
  grep -qF "$(yrange "$OUT/serve-warm-1.gp")" "$OUT/serve-cold-vs-warm.gp"
  # the scale holds the highest trial of every chart sharing it
  top=$(yrange "$OUT/untar.gp" | sed 's/.*:\(.*\)\]/\1/')
  max=$(awk 'FNR > 1 && $4 + 0 > m { m = $4 + 0 } END { print m }' "$OUT/untar.dat" "$OUT/untar2.dat")
  awk -v t="$top" -v m="$max" 'BEGIN { exit !(t >= m) }'
  # times are shown as minutes:seconds
  grep -q '"40:00" 2400' "$OUT/untar.gp"
}

@test "report: references every figure that exists and none that does not" {
  run make --no-print-directory report RUN=example OUT="$OUT"
  [ "$status" -eq 0 ]
  [[ $output == *"$OUT/index.html"* ]]
  refs=$(grep -oE '(src|href)="[^"#]+\.(png|svg)"' "$OUT/index.html" | sed 's/.*="//; s/"$//' | sort -u)
  [ -n "$refs" ]
  for r in $refs; do [ -f "$OUT/$r" ] || { echo "references missing $r"; false; }; done
  for f in "$OUT"/*.png "$OUT"/*.svg; do
    echo "$refs" | grep -qxF "$(basename "$f")" || { echo "not referenced: $f"; false; }
  done
  # no JavaScript; the metadata, the numbers and the failed variant are there
  [ "$(grep -ci "<script" "$OUT/index.html")" -eq 0 ]
  grep -q 'illustrative example data, not a measurement' "$OUT/index.html"
  grep -q '6.1.0-18-amd64' "$OUT/index.html"
  grep -q 'noatime,data=writeback' "$OUT/index.html"
  grep -q 'Notes on failed variants' "$OUT/index.html"
  grep -q 'ufs-softupdates</b>: untar trial 2 failed: dltar: .*No space left on device' "$OUT/index.html"
  grep -q '| linux-box / ext4 | 32:' "$OUT/summary.md"
}

@test "plots: several runs in one chart, named by run" {
  run make --no-print-directory plots RUN="example $ROOT/tests/fixtures/plots/base" OUT="$OUT"
  [ "$status" -eq 0 ]
  grep -q 'base / testhost' "$OUT/untar.gp"
  grep -q 'example / linux-box' "$OUT/untar.gp"
}

@test "compare: flags a within-noise difference and real ones" {
  run make --no-print-directory compare RESULTS=tests/fixtures/plots BASE=base NEW=new OUT="$OUT"
  [ "$status" -eq 0 ]
  grep -q '^| testhost | ext4 | untar | wall_s | .* | -0.5% | within noise |$' "$OUT/compare.md"
  grep -q '^| testhost | ext4 | serve-cold-1 | rps | .* | +48.8% | real, better |$' "$OUT/compare.md"
  grep -q '^| testhost | ext4 | delete | wall_s | .* | +90.9% | real, worse |$' "$OUT/compare.md"
  grep -q 'within noise' "$OUT/compare.html"
  [ "$(head -c 4 "$OUT/compare.png" | od -An -tx1 | tr -d ' ')" = 89504e47 ]
  grep -q '<svg' "$OUT/compare.svg"
}

@test "plots: a bad RUN name is one line on stderr and a non-zero exit" {
  run python3 plots/plots.py plots --out "$OUT" nosuch-run
  [ "$status" -ne 0 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ $output == "plots: no run 'nosuch-run' under results/ (runs: "* ]]
  run make --no-print-directory plots RUN=../etc OUT="$OUT"
  [ "$status" -ne 0 ]
  run make --no-print-directory compare BASE=example
  [ "$status" -ne 0 ]
  [[ $output == *"compare wants BASE=run1 NEW=run2"* ]]
}

@test "example run: meta.json has every key of the contract and says it is an example" {
  for m in results/example/*/*/meta.json; do
    python3 - "$m" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
keys = "run_id host os os_version kernel arch cpu cpus mem_kb fs mkfs_opts mount_opts device target dataset seed flush tools git_commit start_time variant virt".split()
missing = [k for k in keys if k not in m]
assert not missing, (sys.argv[1], missing)
assert isinstance(m["tools"], dict)
assert m["note"] == "illustrative example data, not a measurement"
PY
  done
  [ "$(du -sk results/example | cut -f1)" -lt 1024 ]
}
