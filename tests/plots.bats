#!/usr/bin/env bats
# make plots / report / compare on the committed example run (a real `make
# demo` run, see results/example/README.md) and on crafted fixtures (tests/fixtures/plots/: base and new differ in one metric within
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

# xrange FILE.gp : the "set xrange [...]" of a generated bar chart (horizontal bars).
xrange() {
  grep -o 'set xrange \[[^]]*\]' "$1" | head -1
}

@test "plots: each phase's chart on a scale fitted to it; side-by-side panels on one scale" {
  make --no-print-directory plots RUN=example OUT="$OUT" >/dev/null
  # untar's 3-8.5 s and untar2's 0.04-0.29 s each fill their own chart
  # (the sync after untar2 was drawn on untar's 0-5 s scale before)
  [ "$(xrange "$OUT/untar.gp")" = 'set xrange [0:12]' ]
  [ "$(xrange "$OUT/untar2.gp")" = 'set xrange [0:0.4]' ]
  grep -q '^set xtics 0, 2$' "$OUT/untar.gp"
  # every bar chart: its scale holds its highest bar and its reference lines
  # (tmpfs), with room for the labels, at most twice over
  for c in untar untar-sync untar2 untar2-sync serve-cold-1 serve-cold-32 serve-warm-1 serve-warm-32 \
    serve-cold-fork serve-warm-fork net-1 net-4 delete; do
    gp=$OUT/$c.gp
    top=$(xrange "$gp" | sed 's/.*:\(.*\)\]/\1/')
    max=$({
      awk 'NR > 1 { print $2; print $4 }' "${gp%.gp}.dat"
      sed -n 's/^array ref_x = \[\(.*\)\]$/\1/p' "$gp" | tr ',' '\n'
    } | sort -g | tail -1)
    awk -v t="$top" -v m="$max" 'BEGIN { exit !(t >= m && t <= 2.2 * m) }' || { echo "$gp: scale $top for $max"; false; }
  done
  # cold and warm side by side, meant to be compared: one scale for both panels
  [ "$(grep -o 'set yrange \[[^]]*\]' "$OUT/serve-cold-vs-warm.gp" | sort -u | wc -l)" -eq 1 ]
  [ "$(grep -o 'set yrange \[[^]]*\]' "$OUT/serve-cold-vs-warm.gp" | wc -l)" -eq 2 ]
  # times from 5 minutes on are shown as minutes:seconds (a crafted run:
  # one untar of 2,000 s)
  cmp_side "$BATS_TEST_TMPDIR/res" long untar:2000
  make --no-print-directory plots RESULTS="$BATS_TEST_TMPDIR/res" RUN=long OUT="$OUT/long" >/dev/null
  grep -q "'40:00' 2400" "$OUT/long/untar.gp"
}

@test "plots: bars sorted by result, the best on top, each with its difference from the best, memory filesystems a reference line; titles in words" {
  make --no-print-directory plots RUN=example OUT="$OUT" >/dev/null
  # untar (time): ext4 3.0 s best, ext3 8.5 s last at 2.9 times as long;
  # tmpfs (in memory) is not ranked and no bar: a dashed line at its 4.2 s,
  # labelled with its name and figure, keyed as a reference, no box in the legend
  [ "$(awk 'NR > 1 { printf "%s ", $6 }' "$OUT/untar.dat")" = '"ext4" "xfs" "btrfs" "ext2" "ext3" ' ]
  grep -q '^nrefs = 1$' "$OUT/untar.gp"
  grep -q '^array ref_x = \[4.17585\]$' "$OUT/untar.gp"
  grep -q "^set label 'tmpfs 4.2 s' at 4.17585, first " "$OUT/untar.gp"
  grep -q "^array ref_keys = \['tmpfs: in memory, a reference'\]$" "$OUT/untar.gp"
  grep -q "^array fs_names = \['btrfs', 'ext2', 'ext3', 'ext4', '', 'xfs'\]$" "$OUT/untar.gp"
  grep -q '>tmpfs 4.2 s<' "$OUT/untar.svg"
  grep -q '>tmpfs: in memory, a reference<' "$OUT/untar.svg"
  # the cold | warm chart: no tmpfs bar, a dashed line in the warm panel (its cold figure is not flushable)
  grep -qF "'ext4' . \"'\" . ' 4, " "$OUT/serve-cold-vs-warm.gp"
  run grep -qF "'tmpfs' . \"'\" . ' " "$OUT/serve-cold-vs-warm.gp"
  [ "$status" -eq 1 ]
  grep -q "has_refs = 0'" "$OUT/serve-cold-vs-warm.gp"
  grep -q "first [0-9.]* nohead front lw 2 dt 2 .*has_refs = 1'" "$OUT/serve-cold-vs-warm.gp"
  grep -q '>in memory: a reference<' "$OUT/serve-cold-vs-warm.svg"
  grep -q '"3.0 s  best"' "$OUT/untar.dat"
  grep -q '"3.0 s  +2.1%"' "$OUT/untar.dat"
  grep -q '"8.5 s  2.9x"' "$OUT/untar.dat"
  # serve (rate): the highest on top; tmpfs cannot be flushed: below the others, unranked
  [ "$(awk 'NR > 1 { printf "%s ", $6 }' "$OUT/serve-cold-fork.dat")" = '"btrfs" "ext4" "xfs" "ext3" "ext2" "tmpfs" ' ]
  grep -q '"6,208  -4.8%"' "$OUT/serve-cold-fork.dat"
  grep -q '"tmpfs" "not flushable"' "$OUT/serve-cold-fork.dat"
  # no raw metric name as a title; the unit on its own line
  run grep -l "chart_title = '.*: wall_s" "$OUT"/*.gp
  [ "$status" -eq 1 ]
  grep -qF "chart_title = 'flush: the page cache written back and emptied between phases (FLUSH)' . \"\\n\" . 'time, lower is better'" "$OUT/flush.gp"
  # a title as wide as the chart needs (the fork chart's was cut at both ends)
  w=$(sed -n 's/^width = //p' "$OUT/serve-cold-fork.gp")
  t=$(sed -n "s/^chart_title = '\\([^']*\\)'.*/\\1/p" "$OUT/serve-cold-fork.gp")
  [ "$w" -ge $((8 * ${#t})) ]
  [ -s "$OUT/untar-sync.png" ]
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
  # no JavaScript; the metadata and the numbers are there; a measured run
  # carries no note that it is not one, and none of its variants failed
  [ "$(grep -ci "<script" "$OUT/index.html")" -eq 0 ]
  run grep -qi 'illustrative\|not a measurement' "$OUT/index.html"
  [ "$status" -eq 1 ]
  grep -q '6.18.44-fc-v657' "$OUT/index.html"
  grep -q 'rw,noatime,inode64,logbufs=8' "$OUT/index.html"
  grep -q '^| vm / ext4 | 3.0 s (kernel CPU; 1 trial: noise unknown; ' "$OUT/summary.md"
  grep -q 'No variant failed' "$OUT/index.html"
  # a copy of it whose btrfs untar ran out of space: the report notes it
  local r=$BATS_TEST_TMPDIR/res
  mkdir -p "$r"
  cp -r results/example "$r/failed"
  sed -i 's/^untar\t1\tstatus\t0\t/untar\t1\tstatus\t1\t/' "$r/failed/vm/btrfs/records.tsv"
  printf 'untar\t1\terror\tdltar: write: No space left on device\ttext\n' >>"$r/failed/vm/btrfs/records.tsv"
  run make --no-print-directory report RESULTS="$r" RUN=failed OUT="$OUT/failed"
  [ "$status" -eq 0 ]
  grep -q 'Notes on failed variants' "$OUT/failed/index.html"
  grep -q 'btrfs</b>: untar trial 1 failed: dltar: write: No space left on device' "$OUT/failed/index.html"
  run grep -q 'No variant failed' "$OUT/failed/index.html"
  [ "$status" -eq 1 ]
}

@test "plots: runs of other hosts and dates merge into one chart, named by run and host" {
  local r=$BATS_TEST_TMPDIR/res
  mkdir -p "$r"
  cp -r results/example "$r/example"
  cp -r results/example "$r/later"
  mv "$r/later/vm" "$r/later/vm2"
  sed -i 's/"start_time": "2026-11-25/"start_time": "2026-12-01/' "$r"/later/vm2/*/meta.json
  run make --no-print-directory report RESULTS="$r" RUN="example later" OUT="$OUT"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -q '"example / vm / ext4' "$OUT/untar.dat"
  grep -q '"later / vm2 / ext4' "$OUT/untar.dat"
  [ "$(grep -c ' / ext4' "$OUT/untar.dat")" -eq 2 ]
  grep -q '12 variants on 2 hosts from 2 runs' "$OUT/index.html"
}

@test "plots: runs of another dataset, request count or phases are refused with one line, exit 2, nothing written" {
  local r=$BATS_TEST_TMPDIR/res
  mkdir -p "$r"
  cp -r results/example "$r/small"
  cp -r results/example "$r/tiny"
  sed -i 's/"dataset": "small"/"dataset": "tiny"/' "$r"/tiny/vm/*/meta.json
  run python3 plots/plots.py report --results "$r" --out "$OUT" small tiny
  [ "$status" -eq 2 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ $output == "plots: runs small and tiny did not measure the same thing (dataset small against tiny): not merged;"* ]]
  [ ! -e "$OUT" ]
  run make --no-print-directory report RESULTS="$r" RUN="small tiny" OUT="$OUT"
  [ "$status" -eq 2 ]
  [[ $output == *"(dataset small against tiny): not merged; draw each on its own (RUN=small, then RUN=tiny)"* ]]
  [ ! -e "$OUT" ]
  run make --no-print-directory compare RESULTS="$r" BASE=small NEW=tiny OUT="$OUT"
  [ "$status" -eq 2 ]
  [[ $output == *"(dataset small against tiny)"* ]]
  [ ! -e "$OUT" ]
  # the same dataset, another REPLAY_COUNT
  sed -i 's/"dataset": "tiny"/"dataset": "small"/; s/"replay_count": 10000/"replay_count": 2000/' "$r"/tiny/vm/*/meta.json
  run make --no-print-directory plots RESULTS="$r" RUN="small tiny" OUT="$OUT"
  [ "$status" -eq 2 ]
  [[ $output == *"(requests replayed per serve phase 10000 against 2000 (REPLAY_COUNT))"* ]]
  # the same settings, a phase less (PHASES without delete)
  sed -i 's/"replay_count": 2000/"replay_count": 10000/' "$r"/tiny/vm/*/meta.json
  sed -i '/^delete\t/d' "$r"/tiny/vm/*/records.tsv
  run make --no-print-directory report RESULTS="$r" RUN="small tiny" OUT="$OUT"
  [ "$status" -eq 2 ]
  [[ $output == *"(phases: delete only in one of them)"* ]]
  [ ! -e "$OUT" ]
}

@test "compare: each change with its 95% interval, a verdict and what the trials could have told" {
  run make --no-print-directory compare RESULTS=tests/fixtures/plots BASE=base NEW=new OUT="$OUT"
  [ "$status" -eq 0 ]
  grep -q '^| testhost | ext4 | untar | wall_s | .* | -0.4% | -2.5% to +1.7% | not significant | 2.8% |$' "$OUT/compare.md"
  grep -q '^| testhost | ext4 | serve-cold-1 | rps | .* | +48.8% | +41.5% to +56.4% | significant, better | 6.6% |$' "$OUT/compare.md"
  grep -q '^| testhost | ext4 | delete | wall_s | .* | +90.9% | +58.2% to +130.4% | significant, worse | 24.6% |$' "$OUT/compare.md"
  # fsdisco's microsecond figures are timings too (smaller is better)
  grep -q '^| testhost | ext4 | discover | direct_median_us | .* | +98.0% | +90.1% to +106.3% | significant, worse | 5.3% |$' "$OUT/compare.md"
  grep -q '<td>not significant</td>' "$OUT/compare.html"
  [ "$(head -c 4 "$OUT/compare.png" | od -An -tx1 | tr -d ' ')" = 89504e47 ]
  grep -q '<svg' "$OUT/compare.svg"
}

# cmp_side DIR RUN PHASE:VALUES... : a run of h1/ext4 with wall_s of each
# PHASE, one trial per comma-separated value.
cmp_side() {
  local d=$1/$2/h1/ext4 pv t v
  mkdir -p "$d"
  shift 2
  printf 'phase\ttrial\tmetric\tvalue\tunit\n' >"$d/records.tsv"
  for pv in "$@"; do
    t=0
    for v in ${pv#*:}; do
      t=$((t + 1))
      printf '%s\t%s\twall_s\t%s\ts\n' "${pv%%:*}" "$t" "$v" >>"$d/records.tsv"
    done
  done
}

@test "compare: significant only when the 95% interval leaves out 0 (Welch's t-test), from 2 trials a side; one trial cannot tell" {
  local r=$BATS_TEST_TMPDIR/res
  # spread: ranges apart but one wild trial (old min-max rule: real); wide:
  # means 10% apart in noise of +-15%; clear: 10% apart, trials within 1%
  cmp_side "$r" b spread:'100 101 102' wide:'100 85 115' clear:'100 101 99' one:100 two:'100 101'
  cmp_side "$r" n spread:'103 104 150' wide:'90 105 75' clear:'90 91 89' one:50 two:'50 51'
  run make --no-print-directory compare RESULTS="$r" BASE=b NEW=n OUT="$OUT"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -q '^| h1 | ext4 | spread | wall_s | .* | +17.8% | -32.6% to +106.1% | not significant | 69.7% |$' "$OUT/compare.md"
  grep -q '^| h1 | ext4 | wide | wall_s | .* | -10.0% | -37.3% to +29.1% | not significant | 48.3% |$' "$OUT/compare.md"
  grep -q '^| h1 | ext4 | clear | wall_s | .* | -10.0% | -12.1% to -7.8% | significant, better | 3.2% |$' "$OUT/compare.md"
  grep -q '^| h1 | ext4 | one | wall_s | .* | -50.0% | - | cannot tell: 1 trial | - |$' "$OUT/compare.md"
  grep -q '^| h1 | ext4 | two | wall_s | .* | -49.8% | -53.1% to -46.2% | significant, better | 8.1% |$' "$OUT/compare.md"
  # compare.tsv: the interval, the detectable effect and the test after the p, then the p corrected over the page
  [ "$(head -1 "$OUT/compare.tsv" | cut -f14-)" = "$(printf 'change_pct\tverdict\tp\tci_low_pct\tci_high_pct\tmde_pct\ttest\tp_adjusted')" ]
  [ "$(awk -F '\t' '$3 == "clear" { print $17, $18, $19, $20 }' "$OUT/compare.tsv")" = "-12.14 -7.81 3.22 Welch's t-test" ]
  [ "$(awk -F '\t' '$3 == "one" { print $17 "|" $19 }' "$OUT/compare.tsv")" = "|inf" ]
  # the p of the test in compare.tsv, none without one
  [ "$(awk -F '\t' '$3 == "clear" { print ($16 < 0.05) }' "$OUT/compare.tsv")" = 1 ]
  [ "$(awk -F '\t' '$3 == "wide" { print ($16 >= 0.05) }' "$OUT/compare.tsv")" = 1 ]
  [ "$(awk -F '\t' '$3 == "one" { print $16 }' "$OUT/compare.tsv")" = "" ]
  grep -q "Welch's t-test" "$OUT/compare.html"
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

@test "example run: a real demo run, every meta.json with the contract's keys, named after its run, host and variant; small" {
  local run_id=20261125T033448Z-demo n=0 m
  for m in results/example/*/*/meta.json; do
    python3 - "$m" "$run_id" <<'PY'
import json, os, sys
path, run_id = sys.argv[1], sys.argv[2]
m = json.load(open(path))
keys = ("run_id host os os_version os_name kernel arch cpu cpus mem_kb fs mkfs_opts mount_opts device target"
        " dataset seed dataset_info flush tools git_commit start_time variant virt"
        " replay_count replay_conc replay_keepalive preload").split()
missing = [k for k in keys if k not in m]
assert not missing, (path, missing)
assert isinstance(m["tools"], dict) and m["tools"], path
variant_dir = os.path.dirname(path)
assert m["run_id"] == run_id, (path, m["run_id"])
assert m["host"] == os.path.basename(os.path.dirname(variant_dir)), (path, m["host"])
assert m["variant"] == os.path.basename(variant_dir), (path, m["variant"])
assert m["dataset"] == "small" and m["flush"] == "drop", path
assert "note" not in m, (path, m.get("note"))
PY
    n=$((n + 1))
  done
  # the six variants of make demo, each with its records and series
  [ "$n" -eq 6 ]
  for v in btrfs ext2 ext3 ext4 tmpfs xfs; do
    [ -s "results/example/vm/$v/records.tsv" ]
    [ -s "results/example/vm/$v/series/untar-1.tsv" ]
  done
  # its README names the run, the command and the machine
  grep -q "$run_id" results/example/README.md
  grep -q 'make demo' results/example/README.md
  [ "$(du -sk results/example | cut -f1)" -lt 1024 ]
}

# method_run DIR : a run of two variants with the method's extra phases:
# IPv4 and IPv6 net, a second REPLAY_CONC, preloaded directories; the second
# variant's host has no IPv6.
method_run() {
  local a=$1/r1/h1/ext4 b=$1/r1/h1/xfs t p
  mkdir -p "$a" "$b"
  printf '{"run_id":"r1","host":"h1","fs":"ext4","os":"debian","virt":"kvm","page_reporting":"order 9","damon_pageout":"on","replay_count":10000,"replay_conc":"100 20","replay_keepalive":10,"preload":"dirs"}\n' >"$a/meta.json"
  printf '{"run_id":"r1","host":"h1","fs":"xfs","os":"debian","virt":"kvm","page_reporting":"none","replay_count":0,"replay_conc":"100","replay_keepalive":10,"boot_retries":[{"boot":6,"oops":"Oops: int3: 0000 [#1] PREEMPT SMP NOPTI","during":"Flush by reboot (trial 1)"}]}\n' >"$b/meta.json"
  {
    printf 'phase\ttrial\tmetric\tvalue\tunit\n'
    for t in 1 2; do
      for p in net-1:60 net-1-v6:53 net-4:61 net-4-v6:58; do
        printf '%s\t%s\tmbps\t%s\tMB/s\n%s\t%s\tstatus\t0\texit\n' "${p%:*}" "$t" "${p#*:}" "${p%:*}" "$t"
      done
      printf 'serve-cold-1\t%s\trps\t34\treq/s\nserve-cold-1\t%s\tresets\t7000%s\tcount\nserve-cold-1\t%s\tretries\t7100%s\tcount\n' "$t" "$t" "$t" "$t" "$t"
      printf 'serve-cold-1-c20\t%s\trps\t33\treq/s\nserve-cold-1-c20\t%s\tresets\t0\tcount\nserve-cold-1-c20\t%s\tconc\t20\tcount\n' "$t" "$t" "$t"
      printf 'serve-cold-1-c20\t%s\tconnections\t25%s\tcount\n' "$t" "$t"
      printf 'preload-dirs\t%s\twall_s\t260\ts\npreload-dirs\t%s\tdirs\t4097\tcount\n' "$t" "$t"
      printf 'serve-dirwarm-1\t%s\trps\t69\treq/s\nserve-dirwarm-1\t%s\twall_s\t145\ts\n' "$t" "$t"
    done
  } >"$a/records.tsv"
  printf 'phase\ttrial\tmetric\tvalue\tunit\nnet-1\t1\tmbps\t84\tMB/s\nnet-1\t1\tstatus\t0\texit\nnet-1-v6\t1\tstatus\tskipped\texit\nnet-1-v6\t1\tskip_reason\tno IPv6: no ::1 on lo0\ttext\n' >"$b/records.tsv"
}

@test "plots and report: IPv4 against IPv6, REPLAY_CONC and preload phases; resets and retries next to the rates" {
  method_run "$BATS_TEST_TMPDIR/res"
  run make --no-print-directory report RESULTS="$BATS_TEST_TMPDIR/res" RUN=r1 OUT="$OUT"
  echo "$output"
  [ "$status" -eq 0 ]
  for c in net-v4-vs-v6 net-1-v6 net-4-v6 serve-cold-1-c20 serve-dirwarm-1 preload-dirs serve-cold-vs-dirwarm; do
    [ -s "$OUT/$c.png" ] || { echo "missing $c.png"; false; }
  done
  # v4 and v6 side by side on one scale
  [ "$(grep -o 'set yrange \[[^]]*\]' "$OUT/net-v4-vs-v6.gp" | wc -l)" -eq 2 ]
  [ "$(grep -o 'set yrange \[[^]]*\]' "$OUT/net-v4-vs-v6.gp" | sort -u | wc -l)" -eq 1 ]
  grep -q "'IPv4', 'IPv6'" "$OUT/net-v4-vs-v6.gp"
  # the table of replays: rate, resets and retries side by side; the walk's time
  grep -q '^| h1 / ext4 | serve-cold-1 | 2 | 34 req/s | - | - | - | - | 70,002 | 71,002 | - | - | - |  |$' "$OUT/summary.md"
  # concurrency (REPLAY_CONC) and the connections replay opened (median of
  # 251 and 252), each in its own column: before, "connections" showed the 20
  grep -q '^| h1 / ext4 | serve-cold-1-c20 | 2 | 33 req/s | - | - | - | - | 0 | - | - | 20 | 252 |  |$' "$OUT/summary.md"
  grep -q '<th>timeouts</th><th>concurrency</th><th>connections</th>' "$OUT/index.html"
  grep -q '^| h1 / ext4 | preload-dirs | 2 | 4:20 | - | - | 4,097 dirs |' "$OUT/summary.md"
  grep -q '<th>resets</th><th>retries</th>' "$OUT/index.html"
  # a skipped phase is a reason, not a failure
  grep -q '^| h1 / xfs | net-1-v6 | 0 | - | .* | skipped: no IPv6: no ::1 on lo0 |$' "$OUT/summary.md"
  grep -q 'No variant failed' "$OUT/index.html"
  # the run's replay settings
  grep -q 'first 10,000 requests, 100 | 20 connections, 10 per connection, preload dirs' "$OUT/index.html"
  grep -q 'whole request list, 100 connections' "$OUT/index.html"
  # a guest that gives freed memory back to its host says so beside virt
  grep -q '<td>kvm, free page reporting (order 9), DAMON pages out idle memory</td>' "$OUT/index.html"
  # a boot the VM lab retried after a guest kernel panic, likewise
  grep -q '<td>kvm, boot retried after a guest kernel panic</td>' "$OUT/index.html"
}

@test "report of a micro run (real, on tmpfs): Iometer, IOzone, PostMark and fsdisco charts on common scales, tables of all four, compare" {
  # tests/fixtures/plots/micro-tmpfs: a real run of the four micro phases on
  # tmpfs (two variants, two trials; see its README).
  run make --no-print-directory report RESULTS=tests/fixtures/plots RUN=micro-tmpfs OUT="$OUT"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  count() { find "$OUT" -name "$1" | wc -l; }
  # 2 access specs x IOPS, MB/s, mean and p99 latency, CPU%.
  [ "$(count 'iometer-*.png')" -eq 10 ]
  # 9 tests: a heat map and a line at 64 KB records each.
  [ "$(count 'iozone-*.png')" -eq 18 ]
  [ "$(count 'iozone-*-rs64k.png')" -eq 9 ]
  # 2 configurations x 5 fields.
  [ "$(count 'postmark-*.png')" -eq 10 ]
  # fsdisco's block test latencies (the only raw file kept), both variants.
  [ "$(count 'discover-*.png')" -eq 1 ] && grep -q 'nseries = 2' "$OUT/discover-block.gp"
  for f in "$OUT"/iometer-*.png "$OUT"/iozone-*.png "$OUT"/postmark-*.png "$OUT"/discover-*.png; do
    [ "$(head -c 4 "$f" | od -An -tx1 | tr -d ' ')" = 89504e47 ]
    [ -s "${f%.png}.svg" ]
    grep -q "src=\"$(basename "$f")\"" "$OUT/index.html" || { echo "$f not in the report"; return 1; }
  done
  # Both variants in every chart, on one scale: the latency charts share
  # theirs, each heat map one colour range for both panels.
  grep -q "'fixturehost / tmpfs', 'fixturehost / tmpfs-huge'" "$OUT/iometer-workstation-iops.gp"
  [ "$(cat "$OUT"/iometer-*-lat-*.gp | grep -o 'set yrange \[[^]]*\]' | sort -u | wc -l)" -eq 1 ]
  grep -q 'npanels = 2' "$OUT/iozone-write.gp" && grep -q '^cbmax = ' "$OUT/iozone-write.gp"
  # Table rows: 2 variants x (3 + 3 Iometer tests, 9 IOzone tests, 2
  # PostMark configurations, 3 discovered values).
  rows() { sed -n "/<table id=\"micro-$1-table\">/,/<\/table>/p" "$OUT/index.html" | grep -c '<tr class="micro">'; }
  [ "$(rows iometer)" -eq 12 ]
  [ "$(rows iozone)" -eq 18 ]
  # that run's IOzone figures are the emulation's (it predates the engine record)
  grep -q 'IOzone (emulated with fio and stdiorw): kB/s at 64k records' "$OUT/index.html"
  [ "$(rows postmark)" -eq 4 ]
  [ "$(rows discover)" -eq 6 ]
  grep -q '<td>fixturehost / tmpfs</td><td>block size</td><td class="n">4,096 B</td><td class="n">4,096 B</td><td class="n">yes, yes</td>' "$OUT/index.html"
  grep -q '^| fixturehost / tmpfs | 8koltp | 4 | 2 | ' "$OUT/summary.md"
  # make compare lists their rates and times.
  run make --no-print-directory compare RESULTS=tests/fixtures/plots BASE=micro-tmpfs NEW=micro-tmpfs OUT="$OUT/cmp"
  [ "$status" -eq 0 ]
  grep -q '^| fixturehost | tmpfs | iometer | 8koltp.qd4.iops | ' "$OUT/cmp/compare.md"
  grep -q '^| fixturehost | tmpfs-huge | iozone | write.fs256k.rs64k.kBps | ' "$OUT/cmp/compare.md"
  grep -q '^| fixturehost | tmpfs | postmark | n500.t1000.tps | ' "$OUT/cmp/compare.md"
}

@test "report: each figure's verdict from its phase's time budget (device, client, tool, kernel CPU, waiting); a stacked budget chart per phase" {
  # tests/fixtures/plots/budget: one crafted phase for each verdict
  run make --no-print-directory report RESULTS=tests/fixtures/plots/budget RUN=budget-run OUT="$OUT"
  [ "$status" -eq 0 ]
  row=$(grep '^| h1 / ext4 | 10.0 s' "$OUT/summary.md")
  # untar: dltar's own user 0.9 of a core -> tool
  [[ $row == *"| 10.0 s (tool; 1 trial: noise unknown) |"* ]]
  # untar2: 36% of the CPUs, disk 20% -> waiting; its sync: disk busy 95% -> device
  [[ $row == *"| 5.0 s (waiting; 1 trial: noise unknown) | 2.0 s (device; 1 trial: noise unknown) |"* ]]
  # serve-warm-1: CPUs 96% busy, replay 3.8 s against httpd's 2.0 s -> client
  [[ $row == *"| 5,000 (client; 1 trial: noise unknown) |"* ]]
  # net-1: nothing busy -> waiting
  [[ $row == *"| 100 (waiting; 1 trial: noise unknown) |"* ]]
  # delete on ext4 (issue 29): rmtree 0.004 s user, 0.687 s sys in 0.73 s:
  # the kernel's work in its context, not the tool
  [[ $row == *"| 0.73 s (kernel CPU; 1 trial: noise unknown) |"* ]]
  run grep -q 'tool-bound' "$OUT/summary.md" "$OUT/index.html"
  [ "$status" -eq 1 ]
  # in the page: the figure, its verdict a hover (title) or a click (details) away
  grep -q '<details title="kernel CPU; 1 trial: noise unknown"><summary>0.73 s</summary><small><b>kernel CPU</b>; 1 trial: noise unknown</small></details>' "$OUT/index.html"
  # a stacked bar per phase and part, referenced by the report
  for c in budget-untar budget-untar2 budget-untar2-sync budget-serve-warm-1 budget-net-1 budget-delete; do
    [ -s "$OUT/$c.png" ] || { echo "no $c.png"; false; }
    grep -q "src=\"$c.png\"" "$OUT/index.html"
  done
  # delete: rmtree's sys is 47% of both CPUs' time, its user under 1%
  # (columns from the end: tools' user, other user, tools' sys ... idle, device)
  awk 'NR == 2 { exit !($(NF - 8) < 1 && $(NF - 6) > 46 && $(NF - 6) < 48) }' "$OUT/budget-delete.dat"
  # the sync runs no tool: no tool share, and the device is 95% busy
  awk 'NR == 2 { exit !($(NF - 8) == 0 && $(NF - 6) == 0 && $NF == 95.0) }' "$OUT/budget-untar2-sync.dat"
}

# trials_run DIR RUN TRIALS : a run of ext4 on one host with TRIALS cycles of
# untar and serve-cold-1, and three flushes a cycle (the flush phase's own
# records count its runs: trial 1, 2, 3 in a one-cycle run).
trials_run() {
  local d=$1/$2/h1/ext4 t f
  mkdir -p "$d"
  printf '{"run_id":"%s","host":"h1","fs":"ext4","os":"debian"}\n' "$2" >"$d/meta.json"
  {
    printf 'phase\ttrial\tmetric\tvalue\tunit\n'
    for t in $(seq 1 "$3"); do
      printf 'untar\t%s\twall_s\t10%s\ts\nserve-cold-1\t%s\trps\t4%s\treq/s\n' "$t" "$t" "$t" "$t"
      for f in 1 2 3; do printf 'flush\t%s\twall_s\t1.%s\ts\n' "$(((t - 1) * 3 + f))" "$f"; done
    done
  } >"$d/records.tsv"
}

# whiskers SVG : how many black strokes (the whiskers) the chart draws.
whiskers() {
  grep -o "stroke='rgb(  0,   0,   0)'" "$1" | wc -l
}

@test "report of one trial: no whiskers, '1 trial: noise unknown' in charts and tables; three trials: whiskers and spread" {
  trials_run "$BATS_TEST_TMPDIR/res" one 1
  trials_run "$BATS_TEST_TMPDIR/res" three 3
  run make --no-print-directory report RESULTS="$BATS_TEST_TMPDIR/res" RUN=one OUT="$OUT"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ "$(whiskers "$OUT/untar.svg")" -eq 0 ]
  [ "$(whiskers "$OUT/serve-cold-1.svg")" -eq 0 ]
  grep -q "^chart_title = '.*\\n\" \\. '1 trial: noise unknown'\$" "$OUT/untar.gp"
  grep -q '1 trial: noise unknown' "$OUT/untar.svg"
  # no table says means over trials; the flush table counts one trial, not three flushes
  grep -q '<h2 id="summary">All figures (1 trial: noise unknown)</h2>' "$OUT/index.html"
  grep -q '<h2 id="replays">Serve, preload and network phases (1 trial: noise unknown)</h2>' "$OUT/index.html"
  run grep -qi 'means over trials' "$OUT/index.html" "$OUT/summary.md"
  [ "$status" -eq 1 ]
  grep -q '^1 trial: noise unknown (times in minutes' "$OUT/summary.md"
  grep -q '<tr><td>h1 / ext4</td><td>ext4</td><td class="n">1</td>.*<td class="n">1 trial: noise unknown</td>' "$OUT/index.html"
  sed -n '/<caption>flush wall_s/,/<\/table>/p' "$OUT/index.html" | grep -q '<td>ext4</td><td class="n">1</td>'
  [ "$(cut -f5 "$OUT/flush.tsv" | tail -1)" = 1 ]
  grep -q '^| h1 / ext4 | 1:41 (1 trial: noise unknown) | ' "$OUT/summary.md"
  # three trials: whiskers from min to max, the spread in the tables, no label
  run make --no-print-directory report RESULTS="$BATS_TEST_TMPDIR/res" RUN=three OUT="$OUT"
  [ "$status" -eq 0 ]
  [ "$(whiskers "$OUT/untar.svg")" -gt 0 ]
  # (only the explanation of the words has them)
  run grep -qE 'noise unknown|\(1 trial\)' "$OUT/untar.gp" "$OUT/serve-cold-1.gp"
  [ "$status" -eq 1 ]
  run grep -qE '<td[^>]*>[^<]*noise unknown|<small>[^<]*noise unknown|<h2.*noise unknown' "$OUT/index.html"
  [ "$status" -eq 1 ]
  run grep -q '^| h1 / ext4 |.*noise unknown' "$OUT/summary.md"
  [ "$status" -eq 1 ]
  grep -q '<h2 id="summary">All figures (means over trials)</h2>' "$OUT/index.html"
  # the figure with the half-width of its 95% interval: 101, 102, 103 s
  grep -q '^| h1 / ext4 | 1:42 (95% CI ±2.4%; spread 2.0%) | ' "$OUT/summary.md"
}

@test "report: a memory filesystem is a reference line, not a bar; its cold figures say not flushable and leave the cold scale to the others" {
  local r=$BATS_TEST_TMPDIR/res/mem/h1 fs t
  for fs in ext4 tmpfs; do
    mkdir -p "$r/$fs"
    printf '{"run_id":"mem","host":"h1","fs":"%s","os":"debian"}\n' "$fs" >"$r/$fs/meta.json"
  done
  {
    printf 'phase\ttrial\tmetric\tvalue\tunit\n'
    for t in 1 2 3; do printf 'serve-cold-1\t%s\trps\t4%s\treq/s\nserve-cold-1\t%s\tresident_pct\t0.1\t%%\nserve-warm-1\t%s\trps\t500%s\treq/s\n' "$t" "$t" "$t" "$t" "$t"; done
    for t in 1 2 3; do printf 'net-1\t%s\tmbps\t10%s\tMB/s\n' "$t" "$t"; done
  } >"$r/ext4/records.tsv"
  {
    printf 'phase\ttrial\tmetric\tvalue\tunit\n'
    for t in 1 2 3; do printf 'serve-cold-1\t%s\trps\t600%s\treq/s\nserve-cold-1\t%s\tresident_pct\t100\t%%\nserve-warm-1\t%s\trps\t610%s\treq/s\n' "$t" "$t" "$t" "$t" "$t"; done
    for t in 1 2 3; do printf 'net-1\t%s\tmbps\t1000\tMB/s\n' "$t"; done
  } >"$r/tmpfs/records.tsv"
  run make --no-print-directory report RESULTS="$BATS_TEST_TMPDIR/res" RUN=mem OUT="$OUT"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  # ext4's 43 req/s sets the cold scale (tmpfs's 6,000 would have flattened it)
  [ "$(xrange "$OUT/serve-cold-1.gp")" = 'set xrange [0:60]' ]
  grep -q '"tmpfs" "not flushable" 0 ""$' "$OUT/serve-cold-1.dat"
  grep -q 'not flushable' "$OUT/serve-cold-1.svg"
  # tables: the cold figure says so; the warm one is a figure, its row a reference
  grep -q '^| h1 / tmpfs (in memory: a reference) | - | - | - | - | not flushable | - | 6,102 (95% CI ±0.0%; spread 0.0%) | ' "$OUT/summary.md"
  grep -q '<tr><td>h1 / tmpfs (in memory: a reference)</td>' "$OUT/index.html"
  grep -q '<td>h1 / tmpfs</td><td>tmpfs (not flushable)</td>' "$OUT/index.html"
  grep -q '<td>h1 / tmpfs</td><td>tmpfs (in memory: a reference)</td>' "$OUT/index.html"
  grep -q '^| h1 / tmpfs | serve-cold-1 | 3 | 6,002 req/s | - | .* | not flushable |$' "$OUT/summary.md"
  grep -q '^| h1 / tmpfs | serve-warm-1 | 3 | 6,102 req/s | - | .* | in memory: a reference |$' "$OUT/summary.md"
  # the warm chart: ext4's bar alone, tmpfs a dashed line at its 6,102 on the scale
  [ "$(awk 'NR > 1 { printf "%s ", $6 }' "$OUT/serve-warm-1.dat")" = '"ext4" ' ]
  grep -q '^array ref_x = \[6102\]$' "$OUT/serve-warm-1.gp"
  grep -q "^set label 'tmpfs 6,102' at 6102, first " "$OUT/serve-warm-1.gp"
  [ "$(xrange "$OUT/serve-warm-1.gp")" = 'set xrange [0:10000]' ]
  # the cold | warm chart: ext4's bars alone, tmpfs's warm figure a line in the warm panel
  grep -q "set xtics (' . \"'\" . 'ext4' . \"'\" . ' 1)" "$OUT/serve-cold-vs-warm.gp"
  grep -q 'first 6102 to graph 1, first 6102 nohead' "$OUT/serve-cold-vs-warm.gp"
  # a reference far beyond the bars (tmpfs's net at 10 times ext4's) stays
  # off the scale, its figure in the chart's title
  grep -q "^chart_title = .*'in memory, a reference off this scale: tmpfs 1,000'$" "$OUT/net-1.gp"
  grep -q '^nrefs = 0$' "$OUT/net-1.gp"
  [ "$(xrange "$OUT/net-1.gp")" = 'set xrange [0:150]' ]
  # and the first screen leaves it out of the cold ranking, saying why
  grep -q 'not flushable: tmpfs' "$OUT/index.html"
}

@test "report: the first screen names a phase's winner only where the test says so, each difference with its interval, and an overall score" {
  # three trials each: xfs's untar within the noise of ext4's, btrfs's 51% slower beyond it
  local r=$BATS_TEST_TMPDIR/res/noise/h1 fs
  for fs in ext4 xfs btrfs; do
    mkdir -p "$r/$fs"
    printf '{"run_id":"noise","host":"h1","fs":"%s","os":"debian","kernel":"6.1.0","mount_opts":"rw"}\n' "$fs" >"$r/$fs/meta.json"
  done
  printf 'phase\ttrial\tmetric\tvalue\tunit\nuntar\t1\twall_s\t10.0\ts\nuntar\t2\twall_s\t10.5\ts\nuntar\t3\twall_s\t9.8\ts\n' >"$r/ext4/records.tsv"
  printf 'phase\ttrial\tmetric\tvalue\tunit\nuntar\t1\twall_s\t10.1\ts\nuntar\t2\twall_s\t10.4\ts\nuntar\t3\twall_s\t9.9\ts\n' >"$r/xfs/records.tsv"
  printf 'phase\ttrial\tmetric\tvalue\tunit\nuntar\t1\twall_s\t15.0\ts\nuntar\t2\twall_s\t15.5\ts\nuntar\t3\twall_s\t15.2\ts\n' >"$r/btrfs/records.tsv"
  run make --no-print-directory report RESULTS="$BATS_TEST_TMPDIR/res" RUN=noise OUT="$OUT"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  card=$(sed -n '/<div class="card" id="rank-untar">/,/<\/div>/p' "$OUT/index.html")
  # xfs within ext4's noise: ext4 is ahead, but no winner
  [[ $card == *'<span class="verdict">no winner: ext4 ahead, not significantly</span>'* ]]
  [[ $card != *'class="winner"'* ]]
  # best first, each row: name, figure (the mean), mark with its interval; the words on hover
  [ "$(grep -o '<td class="v"[^>]*>[a-z0-9]*</td>' <<<"$card" | sed 's/<[^>]*>//g' | tr '\n' ' ')" = "ext4 xfs btrfs " ]
  [[ $card == *'>10.1 s</td><td class="n mark noise" title="0.3% slower than ext4, 95% CI -6.7% to +7.9%, Welch&#39;s t-test p = 0.9: not significant">+0.3% (not significant)<br><small>-6.7% to +7.9%</small></td>'* ]]
  [[ $card == *'>15.2 s</td><td class="n mark" title="50.8% slower than ext4, 95% CI +39.9% to +62.6%, Welch&#39;s t-test p = 0.00053: significant">+51%<br><small>+39.9% to +62.6%</small></td>'* ]]
  # what the run could see: 3 trials a side, their spread
  [[ $card == *'<p class="out">this run can tell differences of 8.2% or more</p>'* ]]
  # overall: no best overall (ext4 and xfs are tied); btrfs third and last, significantly behind
  grep -q 'No best overall: no variant is significantly ahead of every other.' "$OUT/index.html"
  run grep -q 'Best overall' "$OUT/index.html"
  [ "$status" -eq 1 ]
  grep -q '<td class="n">=1</td><td>xfs</td><td class="n" title="geometric mean of its ratio to the best over 1 phase">100%</td><td class="n noise" title="-0.3% (95% CI -7.4% to +7.2%), not significant">-0.3%<br><small>-7.4% to +7.2%</small></td><td class="n">0</td><td class="n">0</td>' "$OUT/index.html"
  grep -q '<td class="n">3</td><td>btrfs</td><td class="n" title="geometric mean of its ratio to the best over 1 phase">66%</td><td class="n" title="-33.7% (95% CI -38.5% to -28.5%)">-33.7%<br><small>-38.5% to -28.5%</small></td><td class="n">0</td><td class="n">1</td>' "$OUT/index.html"
  grep -q '^| 3 | btrfs | 66% | -33.7% (95% CI -38.5% to -28.5%) | 0 | 1 |$' "$OUT/summary.md"
  # the systems: what is the same once, only the filesystem differs
  grep -q '<tr><th>kernel</th><td>6.1.0</td></tr>' "$OUT/index.html"
  grep -q '<caption>what differs</caption><tr><th>variant</th><th>fs</th></tr>' "$OUT/index.html"
  # the Markdown summary opens with the same
  grep -q '^- \*\*untar: download, gunzip and untar of the first tarball\*\* (time, lower is better): no winner: ext4 ahead, not significantly. ext4 10.1 s (best); xfs 10.1 s (+0.3%, 95% CI -6.7% to +7.9%, not significant); btrfs 15.2 s (+51%, 95% CI +39.9% to +62.6%); this run can tell differences of 8.2% or more$' "$OUT/summary.md"
}
