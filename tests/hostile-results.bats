#!/usr/bin/env bats
# Result trees from elsewhere are data, never code (issue 42, the input side;
# docs/results.md#results-from-elsewhere): a tiny synthetic run made hostile
# one way per test, drawn with make report / make export as tests/plots.bats
# does.  None of them may run a command, write outside OUT, read outside the
# run, block, or end in a traceback; a bad value is one warning naming the
# input file and line, and the rest is drawn.
# shellcheck disable=SC2016 # backquotes and $ in single quotes: the hostile input as written
load helpers

setup() {
  require_cmd gnuplot python3
  cd "$ROOT" || return 1
  T=$BATS_TEST_TMPDIR
  RES=$T/res
  OUT=$T/out
}

# tiny_run : $RES/r, one host h with the variants ext4 and xfs: three trials
# of untar (wall_s) and a budget, a series of untar, a latency histogram of
# serve-cold-1 and a kernel profile of untar.
tiny_run() {
  local v d t w
  for v in ext4 xfs; do
    d=$RES/r/h/$v
    mkdir -p "$d/series" "$d/latency" "$d/profiles"
    printf '{"os": "debian", "os_version": "12", "kernel": "6.1.0", "fs": "%s"}\n' "$v" >"$d/meta.json"
    {
      printf 'phase\ttrial\tmetric\tvalue\tunit\n'
      for t in 1 2 3; do
        w=$([ "$v" = ext4 ] && echo "3.$t" || echo "5.$t")
        printf 'untar\t%s\twall_s\t%s\ts\nuntar\t%s\tstatus\t0\texit\n' "$t" "$w" "$t"
        printf "untar\t$t\tbudget_%s\t%s\t%s\n" wall_s "$w" s cpus 2 count user_s 1 s sys_s 2 s idle_s 3 s
      done
    } >"$d/records.tsv"
    printf '0.0\ttool_bytes\t0\n1.0\ttool_bytes\t1000000\n2.0\ttool_bytes\t3000000\n' >"$d/series/untar-1.tsv"
    printf 'blk_ns\t8:0\t4096\t10\nblk_ns\t8:0\t8192\t5\n' >"$d/latency/serve-cold-1-1.tsv"
    printf 'tar;vfs_write_[k] 5\nidle;do_idle_[k] 3\n' >"$d/profiles/untar-1.folded"
  done
}

# report [DIR] : make report of run r into DIR (default OUT).
report() {
  run make --no-print-directory report RESULTS="$RES" RUN=r OUT="${1:-$OUT}"
}

# warnings : the warning and error lines of the last run.
warnings() {
  grep -E '^plots: ' <<<"$output" | grep -v '^plots: report of ' || true
}

# one_line_about WHAT : the last run printed no traceback and exactly one
# warning or error line, which names WHAT.
one_line_about() {
  [[ $output != *Traceback* ]] || { echo "$output"; false; }
  [ "$(warnings | wc -l)" -eq 1 ] || { echo "not one line: $output"; false; }
  [[ $(warnings) == *"$1"* ]] || { echo "does not name $1: $output"; false; }
}

@test "hostile results: a backquote in meta.json's os and fs, a host, a variant or a phase runs nothing; drawn as written" {
  tiny_run
  local d=$RES/r/h/xfs
  jq '.os = "deb`touch pwned-os`" | .fs = "x^{2}_y@z`touch pwned-fs`"' "$d/meta.json" >"$d/m" && mv "$d/m" "$d/meta.json"
  printf 'p`touch pwned-phase`\t1\twall_s\t1.5\ts\n' >>"$d/records.tsv"
  # quotes side by side (gnuplot 5.4 misreads '' next to a quote), a brace
  mv "$RES/r/h/ext4" "$RES/r/h/v''\`touch pwned-variant\`"
  mv "$RES/r/h" "$RES/r/h}\`touch pwned-host\`"
  report
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ -z "$(find "$T" "$ROOT" -maxdepth 3 -name 'pwned-*' -print -quit)" ] || { find "$T" "$ROOT" -maxdepth 3 -name 'pwned-*'; false; }
  # each drawn literally: the filesystem in the legend (no enhanced-text
  # markup), the phase in its chart's title, host and variant in the series panels
  grep -qF 'x^{2}_y@z`touch pwned-fs`' "$OUT/untar.svg"
  grep -lF 'p`touch pwned-phase`' "$OUT"/*.svg | grep -q .
  grep -qF "h}\`touch pwned-host\` / v''\`touch pwned-variant\`" "$OUT/series-untar.svg"
  # a label of two lines (gnuplot sizes it as enhanced text: the brace) too
  grep -qF "h}\`touch pwned-host\` / v''\`touch pwned-variant\`" "$OUT/budget-untar.svg"
}

@test "hostile results: a phase named ../../victim/records or an absolute path writes nothing outside OUT" {
  tiny_run
  mkdir -p "$T/victim" "$T/abs" "$T/o"
  local o=$T/o/out
  printf 'theirs\n' >"$T/victim/records.tsv"
  printf '../../victim/records\t1\twall_s\t1\ts\n%s/abs/x\t1\twall_s\t2\ts\n' "$T" >>"$RES/r/h/xfs/records.tsv"
  touch "$T/before"
  report "$o"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ "$(cat "$T/victim/records.tsv")" = theirs ]
  [ -z "$(find "$T" -newer "$T/before" -type f -not -path "$o/*" -print)" ] ||
    { find "$T" -newer "$T/before" -type f -not -path "$o/*"; false; }
  # each one a chart of its own in OUT, named apart
  [ "$(find "$o" -name 'victim_records-*.png' | wc -l)" -eq 1 ]
  [ "$(find "$o" -name '*_abs_x-*.png' | wc -l)" -eq 1 ]
}

@test "hostile results: odd numbers, bytes and files give one line naming the input, never a traceback" {
  tiny_run
  local h=$RES/r/h case d want=() line
  # each case its own copy of variant xfs, made hostile one way, all drawn at once
  for case in superscript-trial long-trial huge-bucket latency-bytes folded-count host-bytes surrogate \
    meta-dev-zero records-dev-zero; do
    d=$h/$case
    cp -a "$h/xfs" "$d"
    case $case in
    superscript-trial) printf 'untar\t²\twall_s\t1\ts\n' >>"$d/records.tsv" && want+=("$case/records.tsv:23") ;;
    long-trial) printf 'untar\t%s\twall_s\t1\ts\n' "$(printf '9%.0s' $(seq 5000))" >>"$d/records.tsv" &&
      want+=("$case/records.tsv:23") ;;
    huge-bucket) printf 'blk_ns\t8:0\t1%s\t1\n' "$(printf '0%.0s' $(seq 400))" >>"$d/latency/serve-cold-1-1.tsv" &&
      want+=("$case/latency/serve-cold-1-1.tsv:3") ;;
    latency-bytes) printf 'blk_ns\t8:0\t\xff\xfe\t1\n' >>"$d/latency/serve-cold-1-1.tsv" &&
      want+=("$case/latency/serve-cold-1-1.tsv:3") ;;
    folded-count) printf 'tar;x_[k] ²\n' >>"$d/profiles/untar-1.folded" && want+=("$case/profiles/untar-1.folded:3") ;;
    host-bytes) mkdir "$RES/r/g$(printf '\xff')" && mv "$d" "$RES/r/g$(printf '\xff')/" && want+=('r/g\xff') ;;
    surrogate) printf '{"os": "\\ud800 debian", "fs": "xfs"}\n' >"$d/meta.json" ;;
    meta-dev-zero) ln -sf /dev/zero "$d/meta.json" && want+=("$case/meta.json: a symlink") ;;
    records-dev-zero) ln -sf /dev/zero "$d/records.tsv" && want+=("$case/records.tsv: a symlink") ;;
    esac
  done
  report
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [[ $output != *Traceback* ]] || { echo "$output"; false; }
  # one line per hostile file, naming it (and the line)
  [ "$(warnings | wc -l)" -eq ${#want[@]} ] || { echo "$output"; false; }
  for line in "${want[@]}"; do
    [ "$(warnings | grep -cF "$line")" -eq 1 ] || { echo "not one line naming $line: $output"; false; }
  done
  grep -q '� debian' "$OUT/index.html"
  [ -s "$OUT/untar.png" ] && [ -s "$OUT/latency-serve-1-blk_ns.png" ]
}

@test "hostile results: a symlink out of the run is not read, nor quoted" {
  tiny_run
  local d=$RES/r/h/xfs
  printf 'root:$6$SECRETHASH:19000:0:99999:7:::\n' >"$T/shadow"
  printf '{"os": "SECRET-OS", "fs": "xfs"}\n' >"$T/meta.json"
  ln -sf "$T/shadow" "$d/profiles/untar-1.folded"
  ln -sf "$T/meta.json" "$d/meta.json"
  mkdir -p "$T/elsewhere/v" && cp "$d/records.tsv" "$T/elsewhere/v/" && ln -s "$T/elsewhere" "$RES/r/linked-host"
  report
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [[ $output != *SECRET* ]]
  [ "$(warnings | grep -c 'a symlink, not followed')" -eq 3 ] || { echo "$output"; false; }
  run grep -rl -e SECRET -e linked-host "$OUT"
  [ "$status" -eq 1 ] || { echo "$output"; false; }
}

@test "hostile results: results.csv cells that start with = + - @ are text behind a ', numbers stay numbers" {
  tiny_run
  mv "$RES/r/h/xfs" "$RES/r/h/=HYPERLINK(\"http:x\")"
  mv "$RES/r/h" "$RES/r/+h"
  printf '@SUM(1)\t1\t-m\t-1\tbool\n' >>"$RES/r/+h/ext4/records.tsv"
  run make --no-print-directory export RESULTS="$RES" RUN=r OUT="$OUT"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  python3 - "$OUT/results.csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], encoding="utf-8")))
assert rows, "no rows"
for r in rows:
    for k, x in r.items():
        if k not in ("median", "min", "max", "trials", "spread_pct", "estimate", "ci_low", "ci_high", "mde_pct", "disturbed",
                     "mde_rounds", "vs_best_pct", "vs_best_ci_low", "vs_best_ci_high"):
            assert not x.startswith(("=", "+", "-", "@", "\t", "\r")), (k, x)
assert {r["host"] for r in rows} == {"'+h"}, rows
assert "'=HYPERLINK(\"http:x\")" in {r["variant"] for r in rows}
m = [r for r in rows if r["phase"] == "'@SUM(1)"]
assert m and m[0]["metric"] == "'-m" and m[0]["median"] == "-1" and m[0]["estimate"] == "-1", m
EOF
}

@test "hostile results: one odd value (1e308, t=1e300, garbage, a quote in a name) is skipped with a warning naming its file and line" {
  tiny_run
  local d=$RES/r/h/xfs
  printf 'untar\t4\twall_s\t1e308\ts\n' >>"$d/records.tsv"
  printf '1e300\ttool_bytes\t5\nnot a number here\n' >>"$d/series/untar-1.tsv"
  mv "$RES/r/h" "$RES/r/h\"q"
  report
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [[ $output != *Traceback* ]] && [[ $output != *.gp* ]]
  [ "$(warnings | wc -l)" -eq 2 ] || { echo "$output"; false; }
  warnings | grep -q 'xfs/records.tsv:23: wall_s .1e308. is not a number'
  warnings | grep -q 'xfs/series/untar-1.tsv:4: t_s .1e300. is not a time.*2 lines skipped'
  # the rest drawn: both variants' untar bars, the series, the budget of the host with a quote
  [ "$(grep -c '^[0-9]' "$OUT/untar.dat")" -eq 2 ]
  grep -q '"h\\042q / xfs' "$OUT/budget-untar.dat"
  [ -s "$OUT/series-untar.png" ] && [ -s "$OUT/budget-untar.png" ]
}

@test "hostile results: records.tsv as a FIFO is refused at once, the report goes on" {
  tiny_run
  rm "$RES/r/h/xfs/records.tsv" && mkfifo "$RES/r/h/xfs/records.tsv"
  run timeout 60 make --no-print-directory report RESULTS="$RES" RUN=r OUT="$OUT"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  one_line_about 'xfs/records.tsv: not a regular file'
  [ -s "$OUT/untar.png" ]
}

@test "hostile results: a negative time, rate or count is refused with a warning, not ranked best" {
  tiny_run
  local d=$RES/r/h/xfs
  sed -i 's/\twall_s\t5\.\([0-9]\)\t/\twall_s\t-5.\1\t/' "$d/records.tsv"
  printf 'net-1\t1\tmbps\t-3\tMB/s\nnet-1\t1\tmbps\t3\tMB/s\n' >>"$d/records.tsv"
  report
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  warnings | grep -q 'xfs/records.tsv:2: wall_s -5.1 s cannot be negative; 4 lines skipped'
  [ "$(warnings | wc -l)" -eq 1 ]
  # ext4 wins untar; xfs has no untar figure; the net figure is the positive one
  [ "$(awk 'NR == 2 { print $6 }' "$OUT/untar.dat")" = '"ext4"' ]
  [ "$(awk -F, '$3 == "xfs" && $5 == "untar" && $6 == "wall_s"' "$OUT/results.csv")" = "" ]
  awk -F, '$3 == "ext4" && $5 == "untar" && $6 == "wall_s" { f = $9 == 3.2 } END { exit !f }' "$OUT/results.csv"
  awk -F, '$3 == "xfs" && $5 == "net-1" && $6 == "mbps" { f = $9 == 3 } END { exit !f }' "$OUT/results.csv"
}

@test "hostile results: random trees of hostile pieces fail the readers only with one-line errors (property test)" {
  # in memory where there is some: a tree is made and removed 200 times
  local d=$T/fuzz
  if [ -d /dev/shm ] && [ -w /dev/shm ]; then d=$(mktemp -d /dev/shm/results-reader.XXXXXX); fi
  # the interpreter make report uses (plots/plots.mk), which has scipy
  run "$(command -v /usr/bin/python3 || command -v python3)" tests/fuzz/results_reader.py --seed 42 \
    --iterations 200 --dir "$d"
  [ "$d" = "$T/fuzz" ] || rm -rf "$d"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ "$output" = "200 trees, no crash" ]
}
