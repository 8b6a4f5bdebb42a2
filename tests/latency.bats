#!/usr/bin/env bats
# Latency distributions (docs/latency.md): httpd's per-request histograms
# in its --stats, the block tracer's output parsed into latency/*.tsv
# (real outputs in tests/fixtures/latency/), a phase traced on a loop ext4
# and one run untraced with the reason in meta.json, and the report's CDF
# charts.
# shellcheck disable=SC2030,SC2031
load helpers

FIX=$ROOT/tests/fixtures/latency

setup() {
  T=$BATS_TEST_TMPDIR
  export RESULTS=$T/results HOST=testhost VARIANT=v1 SHOOTOUT_ROOT=$ROOT HARNESS_BIN=$BIN
  unset RUN_ID TARGET DATASET SEED SOURCE FLUSH TRIALS PORT TRIAL BLKLAT FORKLAT
  MNT='' LOOP='' PID=''
}

teardown() {
  if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then
    kill -TERM "$PID" 2>/dev/null || true
    wait_for_exit "$PID" 10 || kill -KILL "$PID" 2>/dev/null || true
  fi
  loop_cleanup
}

# blk FUNCTION ARGS... : a harness/blklat.sh function in a fresh bash.
blk() {
  bash -c '. "$SHOOTOUT_ROOT/harness/blklat.sh"; "$@"' blk "$@"
}

# stat_of FILE METRIC : the value of METRIC in a --stats file.
stat_of() {
  awk -F '\t' -v m="$2" '$1 == m { print $2 }' "$1"
}

# bucket_sum FILE NAME : the sum of the NAME.bK lines.
bucket_sum() {
  awk -F '\t' -v n="$2" 'index($1, n ".b") == 1 { s += $2 } END { print s + 0 }' "$1"
}

# httpd_replay PROCS N : httpd -N PROCS serves $T/www, replay asks N
# requests of one file (10 a connection), httpd stops and writes $T/httpd.stats.
httpd_replay() {
  mkdir -p "$T/www"
  head -c 20000 /dev/urandom >"$T/www/f.bin"
  local port
  port=$(free_port)
  "$BIN/httpd" -q -N "$1" -r "$T/www" -i 127.0.0.1 -p "$port" --stats "$T/httpd.stats" </dev/null 3>&- &
  PID=$!
  wait_for_port "$port"
  "$BIN/replay" -c 4 -k 10 -U /f.bin -n "$2" --stats "$T/replay.stats" "127.0.0.1:$port" >/dev/null
  kill -TERM "$PID"
  wait_for_exit "$PID"
  PID=''
  wait_for_file "$T/httpd.stats"
}

@test "httpd --stats: one open time and one first-byte time per request served, in log2 buckets that add up (-N 1 and -N 3)" {
  for procs in 1 3; do
    rm -f "$T/httpd.stats"
    httpd_replay "$procs" 300
    [ "$(stat_of "$T/replay.stats" failed)" = 0 ]
    [ "$(stat_of "$T/httpd.stats" requests)" = 300 ]
    [ "$(stat_of "$T/httpd.stats" lat_open_ns.n)" = 300 ]
    [ "$(stat_of "$T/httpd.stats" lat_ttfb_ns.n)" = 300 ]
    [ "$(bucket_sum "$T/httpd.stats" lat_open_ns)" = 300 ]
    [ "$(bucket_sum "$T/httpd.stats" lat_ttfb_ns)" = 300 ]
  done
  # an open takes well under a second and more than 1 ns: no bucket 0, none at 2^30 ns and up
  [ "$(grep -Ec '^lat_(open|ttfb)_ns\.b(0|3[0-9])	' "$T/httpd.stats")" -eq 0 ]
}

@test "httpd -1 --stats: the histograms count the requests of its one connection" {
  mkdir -p "$T/www"
  printf 'hello\n' >"$T/www/a.txt"
  printf 'GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\nGET /missing HTTP/1.1\r\nHost: x\r\n\r\nGET /a.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' |
    timeout 10 "$BIN/httpd" -1 -q -r "$T/www" --stats "$T/one.stats" >"$T/out" 2>/dev/null
  [ "$(grep -c '^HTTP/1.1 ' "$T/out")" -eq 3 ]
  [ "$(stat_of "$T/one.stats" requests)" = 3 ]
  [ "$(stat_of "$T/one.stats" lat_open_ns.n)" = 3 ] # the 404 looked its name up too
  [ "$(stat_of "$T/one.stats" lat_ttfb_ns.n)" = 3 ]
}

@test "httpd -1 --stats-append: 12 processes at once, each one whole block in one file; refused without -1 or with --stats" {
  mkdir -p "$T/www"
  printf 'hello\n' >"$T/www/a.txt"
  local i pids=()
  for i in $(seq 12); do
    printf 'GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\nGET /a.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' |
      timeout 10 "$BIN/httpd" -1 -q -r "$T/www" --stats-append "$T/each.stats" >/dev/null 2>&1 &
    pids+=($!)
  done
  for i in "${pids[@]}"; do wait "$i"; done
  # every line whole (metric, value, unit), 12 blocks of one connection and two requests
  [ "$(awk -F '\t' 'NF != 3' "$T/each.stats" | wc -l)" -eq 0 ]
  [ "$(grep -c '^connections	1	count$' "$T/each.stats")" -eq 12 ]
  [ "$(awk -F '\t' '$1 == "requests" { s += $2 } END { print s }' "$T/each.stats")" -eq 24 ]
  [ "$(bucket_sum "$T/each.stats" lat_open_ns)" -eq 24 ]
  [ "$(bucket_sum "$T/each.stats" lat_ttfb_ns)" -eq 24 ]
  run "$BIN/httpd" -r "$T/www" --stats-append "$T/x.stats"
  [ "$status" -eq 2 ]
  [ "$output" = "httpd: --stats-append is for -1 (a process per connection); a server writes --stats FILE" ]
  run "$BIN/httpd" -1 -r "$T/www" --stats "$T/x.stats" --stats-append "$T/y.stats"
  [ "$status" -eq 2 ]
  [ "$output" = "httpd: --stats and --stats-append: give one of them, once" ]
  [ ! -e "$T/x.stats" ] && [ ! -e "$T/y.stats" ]
}

@test "blklat_parse: bpftrace 0.17's hist() output of this machine, dev_t as MAJ:MIN, empty buckets dropped" {
  run blk blklat_parse <"$FIX/bpftrace-0.17-linux-6.18.txt"
  [ "$status" -eq 0 ]
  printf '%s\n' "$output"
  [ "$(printf '%s\n' "$output" | grep -c .)" -eq 14 ]
  printf '%s\n' "$output" | grep -qx $'blk_ns\t254:0\t16384\t16'
  printf '%s\n' "$output" | grep -qx $'blk_ns\t254:0\t2097152\t8' # [2M, 4M): 1024-based suffixes
  printf '%s\n' "$output" | grep -qx $'blk_qd\t254:0\t1\t63'      # [1]: the value 1
  [ "$(printf '%s\n' "$output" | awk -F '\t' '$1 == "blk_ns" { s += $4 } END { print s }')" -eq 907 ]
  [ "$(printf '%s\n' "$output" | awk -F '\t' '$1 == "blk_qd" { s += $4 } END { print s }')" -eq 909 ]
  [ "$(printf '%s\n' "$output" | grep -c $'\t0$')" -eq 0 ]
}

@test "blklat_parse: DTrace quantize() output of an io-provider script, keys and negative buckets kept" {
  run blk blklat_parse blk_ns <"$FIX/dtrace-io-quantize.txt"
  [ "$status" -eq 0 ]
  printf '%s\n' "$output"
  printf '%s\n' "$output" | grep -qx $'blk_ns\t7312 dd if=/dev/dsk/c1t1d0s2 of=/dev/null bs=1048576\t0\t1762'
  printf '%s\n' "$output" | grep -qx $'blk_ns\t0 sched\t-524288\t1'
  printf '%s\n' "$output" | grep -qx $'blk_ns\t0 sched\t65536\t2'
  [ "$(printf '%s\n' "$output" | awk -F '\t' '$2 == "0 sched" { s += $4 } END { print s }')" -eq 10 ]
  [ "$(printf '%s\n' "$output" | grep -c .)" -eq 10 ]
}

@test "blklat_httpd: httpd's bucket lines become httpd_open_ns / httpd_ttfb_ns rows at 2^K ns" {
  run blk blklat_httpd < <(printf 'requests\t7\tcount\nlat_open_ns.n\t7\tcount\nlat_open_ns.b0\t2\tcount\nlat_open_ns.b12\t5\tcount\nlat_ttfb_ns.b20\t7\tcount\n')
  [ "$status" -eq 0 ]
  [ "$output" = $'httpd_open_ns\t-\t0\t2\nhttpd_open_ns\t-\t4096\t5\nhttpd_ttfb_ns\t-\t1048576\t7' ]
}

@test "phase untar and serve on a loop ext4: the loop device's latency and queue depth, and httpd's histograms, per record" {
  require_cmd bpftrace jq
  require_tools
  loop_ext4
  . "$ROOT/harness/os.sh"
  os_blklat_probe "$MNT" >/dev/null || skip "no block tracer here: $(os_blklat_probe "$MNT")"
  run make -C "$ROOT" -s phase-untar phase-serve TARGET="$MNT" DATASET=tiny SERVE_MODES=1 REPLAY_COUNT=100 \
    RUN_ID=traced DATASETS_OUT="$T/ds" BLKLAT=1
  printf '%s\n' "$output"
  [ "$status" -eq 0 ]
  local d=$RESULTS/traced/$HOST/$VARIANT dev
  dev=$(cat "/sys/class/block/${LOOP#/dev/}/dev")
  [ "$(jq -r .blklat "$d/meta.json")" = bpftrace ]
  [ "$(jq -r .blklat_absent "$d/meta.json")" = "" ]
  # untar wrote: its block requests, on the loop device only
  [ "$(awk -F '\t' '$1 == "blk_ns" { s += $4 } END { print s + 0 }' "$d/latency/untar-1.tsv")" -gt 0 ]
  [ "$(awk -F '\t' '$1 ~ /^blk_/ && $2 != "'"$dev"'"' "$d/latency/untar-1.tsv" | wc -l)" -eq 0 ]
  [ "$(awk -F '\t' '$1 == "blk_qd" { s += $4 } END { print s + 0 }' "$d/latency/untar-1.tsv")" -gt 0 ]
  # the cold replay read from the device; each replay's httpd timed its 100 requests
  [ "$(awk -F '\t' '$1 == "blk_ns" { s += $4 } END { print s + 0 }' "$d/latency/serve-cold-1-1.tsv")" -gt 0 ]
  for r in serve-cold-1 serve-warm-1; do
    [ "$(awk -F '\t' '$1 == "httpd_open_ns" { s += $4 } END { print s + 0 }' "$d/latency/$r-1.tsv")" -eq 100 ]
    [ "$(awk -F '\t' '$1 == "httpd_ttfb_ns" { s += $4 } END { print s + 0 }' "$d/latency/$r-1.tsv")" -eq 100 ]
  done
  # this test's tracer is gone (its program names the loop device's number;
  # another test's bpftrace on the machine is not ours)
  no_process "bpftrace -B line.*args->dev == $(( (${dev%%:*} << 20) | ${dev##*:} ))/"
}

@test "os_blklat_run with MARK: cut by the exec of its link blkcut-MARK (sched_process_exec), no syscall tracepoint (it slows every syscall of the machine)" {
  [ -d /sys/kernel/tracing/events/sched/sched_process_exec ] || skip "no sched:sched_process_exec tracepoint here"
  mkdir -p "$T/fake" "$T/w"
  # a stand-in bpftrace: its program kept
  # shellcheck disable=SC2016 # the stand-in's own $4
  printf '#!/bin/sh\nprintf "%%s\\n" "$4" >"%s"\n' "$T/program" >"$T/fake/bpftrace"
  chmod +x "$T/fake/bpftrace"
  (. "$ROOT/harness/os.sh" && PATH="$T/fake:$PATH" os_blklat_run 7:3 "$T/w/raw" 4199999)
  grep -q 'tracepoint:sched:sched_process_exec /comm == "blkcut-4199999"/' "$T/program"
  grep -q 'tracepoint:block:block_rq_issue /args->dev == 7340035/' "$T/program"
  run grep -c syscalls "$T/program"
  [ "$output" = 0 ]
  # the link, 14 characters (a comm holds 15), and the cut runs it
  [ "$(readlink "$T/w/blkcut-4199999")" = /bin/true ]
  (. "$ROOT/harness/os.sh" && os_blklat_cut 4199999 "$T/w/raw")
}

# span_tracer : a stand-in bpftrace in $T/span, for os_blklat_run: ready at
# once; at SIGTERM it prints, as bpftrace's hist() does, one value for its
# span: 1 when a flush started while it ran (a "$ .../flush.sh METHOD" line,
# proc_run's, added to the logs in SPAN_LOGS), 2 when none did.
span_tracer() {
  mkdir -p "$T/span"
  cat >"$T/span/bpftrace" <<'EOF'
#!/bin/sh
flushes() { cat "$SPAN_LOGS"/*.log 2>/dev/null | grep -c '^\$ .*/flush\.sh '; }
f0=$(flushes)
echo "blklat ready"
trap 'if [ "$(flushes)" = "$f0" ]; then v="[2, 4)"; else v="[1]"; fi; printf "@blk_ns[0]:\n%s 1 |@|\n" "$v"; exit 0' TERM
while :; do sleep 0.05; done
EOF
  chmod +x "$T/span/bpftrace"
}

# spans RUN RECORD LO : how many of RECORD's traced spans (trial 1) gave LO.
spans() {
  awk -F '\t' -v lo="$3" '$1 == "blk_ns" && $3 == lo { s += $4 } END { print s + 0 }' \
    "$RESULTS/$1/$HOST/$VARIANT/latency/$2-1.tsv" 2>/dev/null || echo 0
}

@test "a record's block trace is its own work: no flush or cold-cache proof inside any traced span; preload's replay has its own" {
  require_tools
  loop_ext4 noatime
  span_tracer
  . "$ROOT/harness/os.sh"
  PATH="$T/span:$PATH" os_blklat_probe "$MNT" >/dev/null || skip "no block tracer here: $(PATH="$T/span:$PATH" os_blklat_probe "$MNT")"
  # FLUSH=remount: a flush before each cold replay and one in each proof_cold
  run env PATH="$T/span:$PATH" SPAN_LOGS="$RESULTS/own/$HOST/$VARIANT/logs" make -C "$ROOT" -s phase-untar phase-serve phase-preload TARGET="$MNT" \
    DATASET=tiny SERVE_MODES="1 2" REPLAY_COUNT=100 FLUSH=remount RUN_ID=own DATASETS_OUT="$T/ds" BLKLAT=1
  printf '%s\n' "$output"
  [ "$status" -eq 0 ]
  local r
  for r in untar serve-cold-1 serve-warm-1 serve-cold-2 serve-warm-2 preload-dirs serve-dirwarm-1; do
    echo "$r: $(spans own "$r" 2) spans, $(spans own "$r" 1) with a flush in them"
    [ "$(spans own "$r" 2)" -ge 1 ]
    [ "$(spans own "$r" 1)" -eq 0 ]
  done
  no_process "$T/span/bpftrace"
}

@test "absent, not failed: BLKLAT=0 (the default) and a TARGET on no block device run the phase untraced, meta.json says why" {
  require_root
  require_tools
  mkdir -p "$T/tmpfs"
  mount -t tmpfs -o size=64m tmpfs "$T/tmpfs"
  MNT=$T/tmpfs
  run make -C "$ROOT" -s phase-untar TARGET="$MNT" DATASET=tiny RUN_ID=off DATASETS_OUT="$T/ds"
  [ "$status" -eq 0 ]
  [ "$(jq -r .blklat "$RESULTS/off/$HOST/$VARIANT/meta.json")" = off ]
  [ "$(jq -r .blklat_absent "$RESULTS/off/$HOST/$VARIANT/meta.json")" = BLKLAT=0 ]
  [ ! -e "$RESULTS/off/$HOST/$VARIANT/latency/untar-1.tsv" ]
  run make -C "$ROOT" -s phase-delete TARGET="$MNT" DATASET=tiny RUN_ID=tmpfs DATASETS_OUT="$T/ds" BLKLAT=1
  printf '%s\n' "$output"
  [ "$status" -eq 0 ]
  grep -q "^delete	1	status	0	exit" "$RESULTS/tmpfs/$HOST/$VARIANT/records.tsv"
  [ ! -e "$RESULTS/tmpfs/$HOST/$VARIANT/latency/delete-1.tsv" ]
  jq -r .blklat_absent "$RESULTS/tmpfs/$HOST/$VARIANT/meta.json" | grep -Eq 'no block device|no bpftrace|not root|without BPF'
}

@test "absent, not failed: without bpftrace on PATH the probe says so" {
  [ "$(uname -s)" = Linux ] || skip "the Linux adapter"
  mkdir -p "$T/bin"
  local c
  for c in awk cat id mount stat sed grep uname; do ln -s "$(command -v "$c")" "$T/bin/$c"; done
  # shellcheck disable=SC2016 # expanded by the inner shell
  run env PATH="$T/bin" "$BASH" -c '. "$SHOOTOUT_ROOT/harness/os.sh"; os_blklat_probe /'
  [ "$status" -eq 1 ]
  [ "$output" = "no bpftrace (Debian: apt-get install bpftrace)" ]
}

@test "report: a CDF chart per phase and histogram, cold and warm as two lines, PNG and SVG" {
  require_cmd gnuplot python3
  local d=$T/r/run1/h/ext4
  mkdir -p "$d/latency"
  printf '{"host": "h", "fs": "ext4"}\n' >"$d/meta.json"
  printf 'phase\ttrial\tmetric\tvalue\tunit\nserve-cold-1\t1\tstatus\t0\texit\n' >"$d/records.tsv"
  blk blklat_parse <"$FIX/bpftrace-0.17-linux-6.18.txt" >"$d/latency/serve-cold-1-1.tsv"
  printf 'httpd_open_ns\t-\t4096\t90\nhttpd_open_ns\t-\t65536\t10\n' >>"$d/latency/serve-cold-1-1.tsv"
  printf 'httpd_open_ns\t-\t1024\t100\n' >"$d/latency/serve-warm-1-1.tsv"
  mkdir -p "$T/out"
  run python3 -c 'import os, sys; sys.path.insert(0, os.environ["ROOT"] + "/plots")
import latency, resultslib
run = resultslib.load_run(sys.argv[1], "run1")
print("\n".join(latency.html_section([run], sys.argv[2])))' "$T/r" "$T/out"
  printf '%s\n' "$output"
  [ "$status" -eq 0 ]
  for n in latency-serve-1-blk_ns latency-serve-1-blk_qd latency-serve-1-httpd_open_ns; do
    [ -s "$T/out/$n.png" ]
    [ -s "$T/out/$n.svg" ]
    grep -q "<img src=\"$n.png\"" <<<"$output"
  done
  # open: cold 90 % at or below 8192 ns, all at 131072; warm all at 2048 (in µs)
  [ "$(grep -c '^$' "$T/out/latency-serve-1-httpd_open_ns.dat")" -eq 4 ] # two blocks
  grep -qx '8.192 0.900000' "$T/out/latency-serve-1-httpd_open_ns.dat"
  grep -qx '131.072 1.000000' "$T/out/latency-serve-1-httpd_open_ns.dat"
  grep -qx '2.048 1.000000' "$T/out/latency-serve-1-httpd_open_ns.dat"
  grep -q 'h / ext4 warm' "$T/out/latency-serve-1-httpd_open_ns.gp"
  [ ! -e "$T/out/latency-serve-1-httpd_ttfb_ns.png" ] # no data, no chart
}

@test "summary.md: per phase and variant, the requests and p50/p90/p99 of the block and httpd histograms the CDFs draw" {
  require_cmd gnuplot python3
  local d=$T/r/run1/h/ext4
  mkdir -p "$d/latency"
  printf '{"host": "h", "fs": "ext4"}\n' >"$d/meta.json"
  printf 'phase\ttrial\tmetric\tvalue\tunit\nserve-cold-1\t1\tstatus\t0\texit\nserve-warm-1\t1\tstatus\t0\texit\n' >"$d/records.tsv"
  blk blklat_parse <"$FIX/bpftrace-0.17-linux-6.18.txt" >"$d/latency/serve-cold-1-1.tsv"
  printf 'httpd_open_ns\t-\t4096\t90\nhttpd_open_ns\t-\t65536\t10\nhttpd_ttfb_ns\t-\t65536\t1\n' >>"$d/latency/serve-cold-1-1.tsv"
  printf 'httpd_open_ns\t-\t1024\t60\n' >"$d/latency/serve-warm-1-1.tsv"
  printf 'httpd_open_ns\t-\t1024\t40\n' >"$d/latency/serve-warm-1-2.tsv" # a second trial adds up
  run make --no-print-directory -C "$ROOT" report RESULTS="$T/r" RUN=run1 OUT="$T/out"
  printf '%s\n' "$output"
  [ "$status" -eq 0 ]
  cat "$T/out/summary.md"
  # 90 of 100 opens in [4096, 8192) ns, 10 in [65536, 131072): p50 and p90 below 8.19 µs, p99 below 131 µs
  grep -qx '| serve-1 | h / ext4 cold | httpd open + fstat | 100 | < 8.19 µs | < 8.19 µs | < 131 µs |' "$T/out/summary.md"
  grep -qx '| serve-1 | h / ext4 warm | httpd open + fstat | 100 | < 2.05 µs | < 2.05 µs | < 2.05 µs |' "$T/out/summary.md"
  grep -qx '| serve-1 | h / ext4 cold | httpd first byte | 1 | < 131 µs | < 131 µs | < 131 µs |' "$T/out/summary.md"
  # the traced device's 907 requests (the fixture's blk_ns), and no row for the queue depth
  grep -q '^| serve-1 | h / ext4 cold | block request | 907 | < ' "$T/out/summary.md"
  [ "$(grep -c '^| serve-1 | ' "$T/out/summary.md")" -eq 4 ]
}

@test "report: a variant with fork records and forklat off says there are no httpd histograms of the fork serve mode (HTML and summary.md); with forklat on, nothing" {
  require_cmd gnuplot python3
  local v
  for v in off on; do
    mkdir -p "$T/r/run1/h/$v/latency"
    printf '{"host": "h", "fs": "ext4", "forklat": "%s", "blklat": "off", "blklat_absent": ""}\n' "$v" >"$T/r/run1/h/$v/meta.json"
    printf 'phase\ttrial\tmetric\tvalue\tunit\nserve-cold-fork\t1\tstatus\t0\texit\nserve-cold-fork\t1\trequests\t100\tcount\n' >"$T/r/run1/h/$v/records.tsv"
  done
  printf 'httpd_open_ns\t-\t4096\t100\n' >"$T/r/run1/h/on/latency/serve-cold-fork-1.tsv"
  run make --no-print-directory -C "$ROOT" report RESULTS="$T/r" RUN=run1 OUT="$T/out"
  printf '%s\n' "$output"
  [ "$status" -eq 0 ]
  grep -q '<p class="note">h / off: no httpd histograms of the fork serve mode: FORKLAT=0</p>' "$T/out/index.html"
  grep -qx -- '- h / off: no httpd histograms of the fork serve mode: FORKLAT=0' "$T/out/summary.md"
  [ "$(grep -c 'h / on: no httpd histograms' "$T/out/index.html" "$T/out/summary.md" | awk -F: '{ s += $2 } END { print s }')" -eq 0 ]
  grep -qx '| serve-fork | h / on cold | httpd open + fstat | 100 | < 8.19 µs | < 8.19 µs | < 8.19 µs |' "$T/out/summary.md"
}
