#!/usr/bin/env bats
# Proof that the tools are not what is measured (issue 19): bin/resident,
# the records tool_cpu_share and resident_pct of a shootout, the cold check
# that fails a phase whose flush did not flush, and the report's spread and
# verdicts of the time budget.
# shellcheck disable=SC2030,SC2031
load helpers

setup() {
  T=$BATS_TEST_TMPDIR
  export RESULTS=$T/results HOST=testhost VARIANT=v1 SHOOTOUT_ROOT=$ROOT HARNESS_BIN=$BIN
  unset RUN_ID TARGET DATASET SEED SOURCE FLUSH TRIALS PORT TRIAL
  HOLDER='' TMPFS=''
}

teardown() {
  if [ -n "$HOLDER" ]; then
    kill "$HOLDER" 2>/dev/null || true
    wait_for_exit "$HOLDER" 10 || true
  fi
  if pkill -TERM -f -- "$T/" 2>/dev/null; then
    POLL_STEP=0.1 poll_until 5 no_process "$T/" || true
    pkill -KILL -f -- "$T/" 2>/dev/null || true
  fi
  if [ -n "$TMPFS" ] && mountpoint -q "$TMPFS"; then umount "$TMPFS" || umount -l "$TMPFS"; fi
}

# hold FILE... : a background process maps the files and locks them in
# memory (mlockall), so that no flush can push them out, until it is killed;
# returns when they are locked.
hold() {
  printf '%s\n' "$@" >"$T/held.list"
  python3 -c '
import ctypes, mmap, os, sys, time
maps = []
for path in open(sys.argv[1]).read().split("\n"):
    if path and os.path.getsize(path) > 0:
        with open(path, "rb") as f:
            maps.append(mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ))
if ctypes.CDLL(None, use_errno=True).mlockall(1) != 0:
    sys.exit("mlockall: %s" % os.strerror(ctypes.get_errno()))
open(sys.argv[2], "w").write("locked\n")
while True:
    time.sleep(60)
' "$T/held.list" "$T/held.ok" 3>&- &
  HOLDER=$!
  wait_for_file "$T/held.ok" 20
}

# pct OUTPUT : resident_pct of resident's output.
pct() {
  printf '%s\n' "$1" | awk -F '\t' '$1 == "resident_pct" { print $2 }'
}

records_of() {
  awk -F '\t' -v p="$2" -v m="$3" '$1 == p && $3 == m { print $4 }' "$1/records.tsv"
}

the_run() {
  find "$RESULTS" -mindepth 3 -maxdepth 3 -type d -path "*/$HOST/$VARIANT"
}

require_tools() {
  local t
  for t in mkdataset dltar httpd replay rmtree; do
    [ -x "$BIN/$t" ] || skip "bin/$t is not built"
  done
}

# ---- bin/resident ----------------------------------------------------------

@test "resident: -h, and a bad option or a missing directory is one line and a non-zero exit" {
  run "$BIN/resident" -h
  [ "$status" -eq 0 ]
  [[ $output == "usage: resident [-n N] [-s SEED] [DIR]"* ]]
  run "$BIN/resident" -n 0 "$T"
  [ "$status" -eq 2 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ $output == "resident: -n wants a number above 0, not '0'" ]]
  run "$BIN/resident" "$T/nosuch"
  [ "$status" -eq 1 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ $output == "resident: cannot open directory $T/nosuch: No such file or directory" ]]
  run "$BIN/resident" "$T"
  [ "$status" -eq 1 ]
  [[ $output == "resident: no regular file to look at" ]]
}

@test "resident: files in the page cache read 100%, after drop_caches 0%; -n samples, stdin lists" {
  require_root
  mkdir -p "$T/d/sub"
  for i in 1 2 3 4 5 6; do head -c $((i * 50000)) /dev/urandom >"$T/d/sub/f$i"; done
  : >"$T/d/empty"
  head -c 1000 /dev/urandom >"$T/d/.hidden"
  # Locked in memory: another process's drop_caches cannot race this check.
  hold "$T"/d/sub/f*
  run "$BIN/resident" "$T/d"
  [ "$status" -eq 0 ]
  echo "$output"
  [ "$(pct "$output")" = 100.00 ]
  [[ $output == *$'files\t7\tcount'* ]]
  [[ $output == *$'pages\t'"$(( (50000 + 4095) / 4096 + (100000 + 4095) / 4096 + (150000 + 4095) / 4096 + (200000 + 4095) / 4096 + (250000 + 4095) / 4096 + (300000 + 4095) / 4096 ))"$'\tcount'* ]]
  run "$BIN/resident" -n 3 -s 5 "$T/d"
  [[ $output == *$'files\t3\tcount'* ]]
  kill "$HOLDER"
  wait_for_exit "$HOLDER" 10
  HOLDER=''
  sync
  echo 3 >/proc/sys/vm/drop_caches
  run bash -c 'printf "%s\n" "$1"/sub/f* | "$2" -' _ "$T/d" "$BIN/resident"
  [ "$status" -eq 0 ]
  [[ $output == *$'files\t6\tcount'* ]]
  [ "$(pct "$output")" = 0.00 ]
}

# ---- the harness's records -------------------------------------------------

@test "phases: tool_cpu_share for every tool's phase, resident_pct before each cold serve" {
  require_tools
  mkdir -p "$T/target"
  export TARGET=$T/target ALLOW_NONMOUNT=1 DATASET=tiny FLUSH=none SERVE_PROCS="1 2" NET_PROCS=1 NET_COUNT=100
  for p in untar untar2 serve net delete; do
    run "$ROOT/harness/phase-$p.sh"
    echo "$output"
    [ "$status" -eq 0 ]
    # no shell error on the way (the first tool's CPU note once printed one)
    [[ $output != *"No such file or directory"* ]] || { echo "phase-$p printed an error"; false; }
  done
  d=$(the_run)
  for p in untar untar2 serve-cold-1 serve-warm-1 serve-cold-2 serve-warm-2 net-1 delete; do
    v=$(records_of "$d" "$p" tool_cpu_share)
    [ -n "$v" ] || { echo "no tool_cpu_share for $p"; false; }
    awk -v v="$v" 'BEGIN { exit !(v >= 0 && v < 64) }'
  done
  # the busiest tool is named: httpd and replay in serve, dltar in untar
  [ -n "$(records_of "$d" serve-warm-1 cpu_share_httpd)" ]
  [ -n "$(records_of "$d" serve-warm-1 cpu_share_replay)" ]
  [ -n "$(records_of "$d" untar cpu_share_dltar)" ]
  [ -n "$(records_of "$d" delete cpu_share_rmtree)" ]
  # the server's CPU per request where httpd served: microseconds, not seconds nor nanoseconds
  for p in serve-cold-1 serve-warm-2 net-1; do
    v=$(records_of "$d" "$p" server_cpu_us)
    echo "$p server_cpu_us $v"
    awk -v v="$v" 'BEGIN { exit !(v > 0.5 && v < 100000) }'
  done
  [ -z "$(records_of "$d" untar server_cpu_us)" ]
  # what httpd (-N 2's children too) and replay waited with: Linux's epoll
  if [ "$(uname -s)" = Linux ]; then
    for p in serve-warm-1 serve-cold-2 net-1; do
      [ "$(records_of "$d" "$p" event_mechanism_httpd)" = epoll ] || { echo "$p: httpd's event_mechanism"; false; }
      [ "$(records_of "$d" "$p" event_mechanism)" = epoll ] || { echo "$p: replay's event_mechanism"; false; }
    done
  fi
  # each tool's peak RSS (getrusage), httpd -N 2's from its children too:
  # more than a program's bare minimum, less than 256 MB on the tiny dataset
  for pt in "untar dltar" "serve-warm-1 httpd" "serve-warm-2 httpd" "serve-warm-1 replay" "delete rmtree"; do
    read -r p t <<<"$pt"
    v=$(records_of "$d" "$p" "maxrss_kb_$t")
    [ -n "$v" ] && [ "$v" -gt 500 ] && [ "$v" -lt 262144 ] || { echo "maxrss_kb_$t of $p: '$v'"; false; }
  done
  [ "$(records_of "$d" serve-warm-2 tool_maxrss_kb)" -gt 500 ]
  for p in serve-cold-1 serve-cold-2; do
    [ -n "$(records_of "$d" "$p" resident_pct)" ] || { echo "no resident_pct for $p"; false; }
    [ "$(records_of "$d" "$p" resident_files)" -gt 0 ]
  done
  [ -z "$(records_of "$d" serve-warm-1 resident_pct)" ]
}

# warm_resident PCT : the tools in $T/bin, but a resident whose first N
# counts ($T/warm holds N; $T/counted how many ran) say PCT% of 320 files,
# the next ones the real count; TARGET extracted there (untar, untar2).
warm_resident() {
  mkdir -p "$T/target" "$T/bin"
  find "$BIN" -maxdepth 1 -type f -exec cp {} "$T/bin/" \;
  printf '%s\n' '#!/bin/sh' \
    "n=\$(cat '$T/counted' 2>/dev/null || echo 0); echo \$((n + 1)) >'$T/counted'" \
    "if [ \"\$n\" -lt \"\$(cat '$T/warm')\" ]; then cat >/dev/null; printf 'files\\t320\\nresident_pct\\t$1\\n'; exit 0; fi" \
    "exec '$BIN/resident' \"\$@\"" >"$T/bin/resident"
  chmod +x "$T/bin/resident"
  export TARGET=$T/target ALLOW_NONMOUNT=1 DATASET=tiny SERVE_PROCS=1 HARNESS_BIN=$T/bin
  make -C "$ROOT" -s phase-untar
  make -C "$ROOT" -s phase-untar2
}

@test "a drop that leaves a few pages in the page cache runs once more: the second count is recorded, with reflushed 1" {
  require_tools
  require_root
  # the first count too warm (as a page that a socket buffer held through
  # the drop), the next ones the real count
  echo 1 >"$T/warm"
  warm_resident 4.91
  run make -C "$ROOT" phase-serve FLUSH=drop
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output == *"serve-cold-1: NOTE: 4.91% of the sample still in the page cache after FLUSH=drop: flushing once more"* ]]
  d=$(the_run)
  grep -rq "4.91% of the sample still in the page cache after FLUSH=drop: flushing once more" "$d/logs/"
  [ "$(records_of "$d" serve-cold-1 reflushed)" = 1 ]
  awk -v p="$(records_of "$d" serve-cold-1 resident_pct)" 'BEGIN { exit !(p != "" && p <= 1) }'
  [ "$(records_of "$d" serve-cold-1 status)" = 0 ]
  [ -z "$(records_of "$d" serve-warm-1 reflushed)" ]
}

@test "a drop that leaves pages twice runs twice more: the third count is recorded, with reflushed 2; a third warm count fails the phase" {
  require_tools
  require_root
  echo 2 >"$T/warm"
  warm_resident 3.27
  run make -C "$ROOT" phase-serve FLUSH=drop
  echo "$output"
  [ "$status" -eq 0 ]
  d=$(the_run)
  [ "$(records_of "$d" serve-cold-1 reflushed)" = 2 ]
  awk -v p="$(records_of "$d" serve-cold-1 resident_pct)" 'BEGIN { exit !(p != "" && p <= 1) }'
  rm -f "$T/counted"
  echo 3 >"$T/warm"
  run make -C "$ROOT" phase-serve FLUSH=drop
  echo "$output"
  [ "$status" -ne 0 ]
  [[ $output == *"3.27% of 320 dataset files' pages are still in the page cache after FLUSH=drop"* ]]
}

@test "a requested flush that leaves the dataset in the page cache fails the cold phase; FLUSH=none only records it" {
  require_tools
  require_root
  mkdir -p "$T/target"
  export TARGET=$T/target ALLOW_NONMOUNT=1 DATASET=tiny SERVE_PROCS=1
  make -C "$ROOT" -s phase-untar
  make -C "$ROOT" -s phase-untar2
  mapfile -t files < <(find "$T/target/data" -type f ! -name '.*')
  hold "${files[@]}"
  # drop_caches cannot drop pages that are locked: the flush did not flush.
  run make -C "$ROOT" -s phase-serve FLUSH=drop
  echo "$output"
  [ "$status" -ne 0 ]
  [[ $output == *"serve-cold-1: 100.00% of "*" dataset files' pages are still in the page cache after FLUSH=drop (more than 1%): the flush did not flush, so this phase would not be cold"* ]]
  d=$(the_run)
  [ "$(records_of "$d" serve-cold-1 resident_pct)" = 100.00 ]
  [ "$(records_of "$d" serve-cold-1 status)" = 1 ]
  grep -q 'the flush did not flush' "$d/failures.tsv"
  [ -z "$(records_of "$d" serve-cold-1 rps)" ]
  # FLUSH=none asks for no flush: the figure is recorded, the phase runs.
  run make -C "$ROOT" -s phase-serve FLUSH=none
  echo "$output"
  [ "$status" -eq 0 ]
  [ "$(records_of "$d" serve-cold-1 resident_pct | tail -n 1)" = 100.00 ]
  [ "$(records_of "$d" serve-warm-1 status)" = 0 ]
}

# ---- the report ------------------------------------------------------------

# crafted_run DIR : three trials of untar (a tool_cpu_share that used to be
# flagged tool-bound, no time budget: a run from before it; a noisy and a
# steady figure) in results layout.
crafted_run() {
  local d=$1/crafted/h1/ext4
  mkdir -p "$d"
  printf '{"fs": "ext4", "flush": "drop"}\n' >"$d/meta.json"
  {
    printf 'phase\ttrial\tmetric\tvalue\tunit\n'
    for t in 1 2 3; do
      printf 'untar\t%s\twall_s\t%s\ts\n' "$t" "$((100 + t))"
      printf 'untar\t%s\ttool_cpu_share\t0.8%s\tfraction\n' "$t" "$((2 * t - 2))"
      printf 'untar\t%s\tstatus\t0\texit\n' "$t"
      printf 'serve-cold-1\t%s\trps\t%s\treq/s\n' "$t" "$((1000 + t))"
      printf 'serve-cold-1\t%s\ttool_cpu_share\t0.10\tfraction\n' "$t"
      printf 'serve-cold-1\t%s\tresident_pct\t0.00\t%%\n' "$t"
      printf 'serve-cold-1\t%s\tstatus\t0\texit\n' "$t"
    done
  } >"$d/records.tsv"
}

@test "report: beside each figure its spread over trials; no tool-bound flag, and no verdict without a time budget" {
  require_cmd gnuplot python3
  crafted_run "$T/res"
  run make -C "$ROOT" --no-print-directory report RESULTS="$T/res" RUN=crafted OUT="$T/out"
  echo "$output"
  [ "$status" -eq 0 ]
  # untar: 101..103 s, its 95% interval +-t(0.975, 2) / sqrt(3) / 102 = 2.4%,
  # spread (103 - 101) / 102 = 2.0%; tool_cpu_share 0.82
  # (user + sys) flags nothing: what limited a phase is its budget's verdict
  grep -q '| h1 / ext4 | 1:42 (95% CI ±2.4%; spread 2.0%) |' "$T/out/summary.md"
  # serve-cold-1: 1001..1003 req/s, spread 0.2%
  grep -q '1,002 (95% CI ±0.2%; spread 0.2%; 0.0% resident before)' "$T/out/summary.md"
  run grep -q 'tool-bound' "$T/out/index.html" "$T/out/summary.md"
  [ "$status" -eq 1 ]
  grep -q '<th>spread</th><th>limit</th>' "$T/out/index.html"
  grep -q 'what limited it, from the phase&#x27;s time budget' "$T/out/index.html"
  # a 95% interval wider than 3.5% (a run that records no precision) is marked noisy:
  # 101, 102, 120 s, +-t(0.975, 2) * 10.69 / sqrt(3) / 107.7 = 24.7%; the spread is shown
  sed -i 's/^untar\t3\twall_s\t103/untar\t3\twall_s\t120/' "$T/res/crafted/h1/ext4/records.tsv"
  run make -C "$ROOT" --no-print-directory report RESULTS="$T/res" RUN=crafted OUT="$T/out"
  [ "$status" -eq 0 ]
  grep -q '95% CI ±24.7%: noisy; spread 18.6%' "$T/out/summary.md"
  grep -q '95% CI ±24.7% <span class="flag">noisy</span>; spread 18.6%' "$T/out/index.html"
}

@test "report: fewer than three trials show no spread, two an interval" {
  require_cmd gnuplot python3
  crafted_run "$T/res"
  sed -i '/^[a-z0-9-]*\t3\t/d' "$T/res/crafted/h1/ext4/records.tsv"
  run make -C "$ROOT" --no-print-directory report RESULTS="$T/res" RUN=crafted OUT="$T/out"
  [ "$status" -eq 0 ]
  # 101 and 102 s: +-t(0.975, 1) x 0.71 / sqrt(2) / 101.5 = 6.3%, wider than 3.5%: noisy
  grep -q '| h1 / ext4 | 1:42 (95% CI ±6.3%: noisy; 2 trials: noise unknown) |' "$T/out/summary.md"
  run grep -c 'spread [0-9]' "$T/out/summary.md"
  [ "$output" = 0 ]
}

@test "serve: a TARGET mounted without noatime gets a WARNING (reads write atimes); with noatime none" {
  require_tools
  require_root
  TMPFS=$T/tmpfs
  mkdir -p "$TMPFS"
  mount -t tmpfs -o size=64m,relatime tmpfs "$TMPFS"
  export TARGET=$TMPFS DATASET=tiny FLUSH=none SERVE_PROCS=1 REPLAY_COUNT=50
  "$ROOT/harness/phase-untar.sh" >/dev/null 2>&1
  "$ROOT/harness/phase-untar2.sh" >/dev/null 2>&1
  run "$ROOT/harness/phase-serve.sh"
  echo "$output"
  [[ $output != *"requests failed"* ]]
  [ "$status" -eq 0 ]
  [[ $output == *"WARNING: $TMPFS is mounted without noatime: reading each file the first time rewrites its inode (atime)"* ]]
  grep -q "WARNING: $TMPFS is mounted without noatime" "$(the_run)/logs/serve-cold-1-1.log"
  mount -o remount,noatime "$TMPFS"
  run "$ROOT/harness/phase-serve.sh"
  [ "$status" -eq 0 ]
  [[ $output != *"without noatime"* ]]
}
