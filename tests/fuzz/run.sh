#!/usr/bin/env bash
# Runs the libFuzzer targets of build/fuzz/ (make fuzz-build), each for
# SECONDS, and speaks TAP: one line per target, ok when it found no crash,
# with the number of inputs it ran in a comment.
#   tests/fuzz/run.sh SECONDS [NAME...]      NAME: tar_header, gunzip_stream, ...
# Seeds come from tests/fuzz/corpus/NAME/ (never written); what the run adds
# stays in build/fuzz/corpus/NAME/, a crashing input in build/fuzz/artifacts/.
set -u
cd "$(dirname "$0")/../.." || exit 2
secs=${1:?usage: tests/fuzz/run.sh SECONDS [NAME...]}
shift
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for f in tests/fuzz/*_fuzz.c; do
    f=${f##*/}
    names+=("${f%_fuzz.c}")
  done
fi
dir=build/fuzz
echo "1..${#names[@]}"
i=0 rc=0
for n in "${names[@]}"; do
  i=$((i + 1))
  if [ -r "$dir/SKIPPED" ]; then
    echo "ok $i - fuzz $n # SKIP $(head -1 "$dir/SKIPPED")"
    continue
  fi
  bin=$dir/${n}_fuzz
  if [ ! -x "$bin" ]; then
    echo "not ok $i - fuzz $n: $bin missing (make fuzz-build)"
    rc=1
    continue
  fi
  mkdir -p "$dir/corpus/$n" "$dir/artifacts"
  log=$dir/$n.log
  # libFuzzer stops itself after -max_total_time; the outer timeout is for
  # an input that hangs past -timeout's own report.
  timeout -k 5 $((secs + 60)) "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$dir/artifacts/$n-" \
    "$dir/corpus/$n" "tests/fuzz/corpus/$n" >"$log" 2>&1
  st=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  if [ "$st" -eq 0 ]; then
    echo "ok $i - fuzz $n: no crash in $secs s"
    echo "# $n: ${execs:-?} executions in $secs s, corpus $(find "$dir/corpus/$n" -type f | wc -l) files"
  else
    echo "not ok $i - fuzz $n: exit $st (crash input in $dir/artifacts/, log $log)"
    grep -m1 -A20 -E 'ERROR: |runtime error|SUMMARY' "$log" | sed 's/^/#   /'
    rc=1
  fi
done
exit $rc
