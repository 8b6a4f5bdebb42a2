#!/usr/bin/env bats
# bin/replay against nginx, bin/httpd (when built) and misbehaving servers
# of our own (tests/fixtures/badserver.py), all on loopback.
load helpers
# shellcheck source=tests/fixtures/nginx.sh
source "$BATS_TEST_DIRNAME/fixtures/nginx.sh"

setup() {
  T=$(mktemp -d "${BATS_TMPDIR:-/tmp}/replay.XXXXXX")
  chmod 755 "$T"
  PIDS=()
}

teardown() {
  local p
  for p in "${PIDS[@]}"; do
    kill "$p" 2>/dev/null || true
    wait_for_exit "$p" 10 || kill -9 "$p" 2>/dev/null || true
  done
  rm -rf "$T"
}

# A small dataset: files of several sizes, their manifest, a request list.
make_site() {
  mkdir -p "$T/www/img/0a" "$T/www/thumbs"
  python3 - "$T" <<'EOF'
import os, sys, zlib
t = sys.argv[1]
files = []
for i in range(40):
    sub = "img/0a" if i % 2 else "thumbs"
    size = [0, 1, 999, 11000, 70000, 300000][i % 6] + i
    data = bytes((i * 7 + j) % 251 for j in range(size))
    path = f"{sub}/{i}.jpg"
    with open(os.path.join(t, "www", path), "wb") as f:
        f.write(data)
    files.append((path, size, zlib.crc32(data)))
with open(os.path.join(t, "manifest.tsv"), "w") as f:
    f.write("# path size crc32\n")
    for p, s, c in files:
        f.write(f"{p}\t{s}\t{c:08x}\n")
with open(os.path.join(t, "requests.txt"), "w") as f:
    for k in range(400):
        f.write("/" + files[(k * 13) % len(files)][0] + "\n")
total = sum(files[(k * 13) % len(files)][1] for k in range(400))
with open(os.path.join(t, "total"), "w") as f:
    f.write(str(total))
EOF
  chmod -R a+rX "$T/www"
}

start_nginx() {
  require_cmd /usr/sbin/nginx
  PORT=$(free_port)
  nginx_conf "$T/nginx" "$PORT" "$T/www" "listen [::1]:$PORT;"
  /usr/sbin/nginx -p "$T/nginx" -c "$T/nginx/nginx.conf" 3>&- &
  PIDS+=($!)
  wait_for_port "$PORT" 10
}

# start_bad MODE [ARGS...]: the fixture server on a free port.
start_bad() {
  PORT=$(free_port)
  rm -f "$T/ready"
  python3 "$ROOT/tests/fixtures/badserver.py" --port "$PORT" --ready "$T/ready" --mode "$@" 3>&- &
  PIDS+=($!)
  wait_for_file "$T/ready" 10
}

# start_hostile MODE: tests/fixtures/replay/hostile.py on a free port.
start_hostile() {
  PORT=$(free_port)
  rm -f "$T/ready"
  python3 "$ROOT/tests/fixtures/replay/hostile.py" --port "$PORT" --ready "$T/ready" --mode "$1" 3>&- &
  PIDS+=($!)
  wait_for_file "$T/ready" 10
}

# failed_sum FILE: the failed_* metrics added up.
failed_sum() {
  awk -F'\t' '$1 ~ /^failed_/ { s += $2 } END { print s + 0 }' "$1"
}

# deadline_case MODE [OPTION VALUE]: replay -T 2 (or the option given)
# against hostile.py MODE ends in time, both requests failed as "deadline
# exceeded".
deadline_case() {
  local mode=$1 t0 opt
  shift
  opt=("$@")
  [ ${#opt[@]} -gt 0 ] || opt=(-T 2)
  start_hostile "$mode"
  t0=$SECONDS
  # -t 5 never fires: every mode sends something at least every 0.5 s
  run timeout 20 "$BIN/replay" -c 2 -t 5 "${opt[@]}" -U /x -n 2 --stats "$T/s.tsv" "127.0.0.1:$PORT"
  echo "$mode: $output"
  [ "$status" -eq 1 ]
  [ $((SECONDS - t0)) -le 6 ]
  [ "$(metric failed "$T/s.tsv")" -eq 2 ]
  [ "$(metric failed_deadline "$T/s.tsv")" -eq 2 ]
  [ "$(metric retries "$T/s.tsv")" -eq 0 ]
  [[ "$output" == *"0 ok, 2 failed"* ]]
  [[ "$output" == *"failed    2 deadline exceeded"* ]]
  [[ "$output" == *"replay: GET /x: deadline exceeded: no full response within 2 s"* ]]
}

metric() { # metric NAME FILE
  awk -F'\t' -v m="$1" '$1 == m { print $2 }' "$2"
}

# approx A B : A and B agree to 0.1% (a rate and its count over its seconds).
approx() {
  awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.001 * (b < 0 ? -b : b) + 1e-9) }'
}

# slices_gate_files IN-TEXT : replay --slices 3 with a gate of two regular
# files, the gate-in one holding IN-TEXT; its gate-out file is $T/gate-out.
slices_gate_files() {
  printf '%b' "$1" >"$T/gate-in"
  : >"$T/gate-out"
  run timeout 60 "$BIN/replay" -c 2 -u "$T/requests.txt" --min-time 0.3 --slices 3 \
    --gate-in "$T/gate-in" --gate-out "$T/gate-out" --stats "$T/s.tsv" "127.0.0.1:$PORT"
  echo "$output"
}

@test "replay: -h, --version, usage errors exit 2" {
  run "$BIN/replay" -h
  [ "$status" -eq 0 ]
  [[ "$output" == *"usage: replay"* ]]
  run "$BIN/replay" --version
  [ "$status" -eq 0 ]
  [[ "$output" == "replay "* ]]
  run "$BIN/replay" -c 0 -U / -n 1 127.0.0.1:1
  [ "$status" -eq 2 ]
  [[ "$output" == *"bad value for -c"* ]]
  run "$BIN/replay" -U / 127.0.0.1:1
  [ "$status" -eq 2 ]
  [[ "$output" == *"-n COUNT"* ]]
  run "$BIN/replay" -U / -n 1 localhost
  [ "$status" -eq 2 ]
  printf '/ok\nno-slash\n' >"$T/bad.txt"
  run "$BIN/replay" -u "$T/bad.txt" 127.0.0.1:1
  [ "$status" -eq 2 ]
  [[ "$output" == *"line 2"* ]]
}

@test "replay: a NUL in a -u line is refused by line; -n 0 is refused alike with -u and -U" {
  printf '/ok\n\n/a\0b\n' >"$T/nul.txt"
  run "$BIN/replay" -u "$T/nul.txt" 127.0.0.1:1
  [ "$status" -eq 2 ]
  [ "$output" = "replay: $T/nul.txt: line 3: NUL byte in URL path" ]
  printf '/ok\n' >"$T/one.txt"
  local want="replay: bad value for -n: 0 (at least 1; -u without -n replays the whole list)"
  run "$BIN/replay" -U /a -n 0 127.0.0.1:1
  [ "$status" -eq 2 ]
  [ "$output" = "$want" ]
  run "$BIN/replay" -u "$T/one.txt" -n 0 127.0.0.1:1
  [ "$status" -eq 2 ]
  [ "$output" = "$want" ]
}

@test "replay: every request of a list succeeds against nginx and bytes match the manifest" {
  make_site
  start_nginx
  run "$BIN/replay" -c 8 -k 10 -u "$T/requests.txt" -M "$T/manifest.tsv" \
    --stats "$T/stats.tsv" --series "$T/series.tsv" "127.0.0.1:$PORT"
  echo "$output"
  [ "$status" -eq 0 ]
  [ "$(metric requests "$T/stats.tsv")" -eq 400 ]
  [ "$(metric failed "$T/stats.tsv")" -eq 0 ]
  [ "$(metric resets "$T/stats.tsv")" -eq 0 ]
  [ "$(metric bytes "$T/stats.tsv")" -eq "$(cat "$T/total")" ]
  [ "$(metric connections "$T/stats.tsv")" -ge 40 ]
  for m in requests failed resets retries timeouts bytes wall_s rps mbps lat_p50_ms lat_p99_ms lat_min_ms lat_p90_ms lat_max_ms connections; do
    grep -q "^$m	" "$T/stats.tsv" || { echo "missing metric $m"; return 1; }
  done
  [[ "$output" == *"latency   min"*"p99"* ]]
  [ "$(awk '$2 == "requests" { s += $3 } END { print s }' "$T/series.tsv")" -eq 400 ]
}

@test "replay: list from stdin, pipelined, one request per connection" {
  make_site
  start_nginx
  run "$BIN/replay" -c 4 -k 1000 -P 8 -u - -M "$T/manifest.tsv" "127.0.0.1:$PORT" <"$T/requests.txt"
  [ "$status" -eq 0 ]
  [[ "$output" == *"400 done, 400 ok, 0 failed"* ]]
  run "$BIN/replay" -c 4 -k 1 -u "$T/requests.txt" --stats "$T/s1.tsv" "127.0.0.1:$PORT"
  [ "$status" -eq 0 ]
  [ "$(metric connections "$T/s1.tsv")" -ge 400 ]
}

@test "replay: -u LIST -n N replays only the first N paths" {
  make_site
  start_nginx
  run "$BIN/replay" -c 4 -k 10 -u "$T/requests.txt" -n 37 -M "$T/manifest.tsv" --stats "$T/s.tsv" "127.0.0.1:$PORT"
  echo "$output"
  [ "$status" -eq 0 ]
  [ "$(metric requests "$T/s.tsv")" -eq 37 ]
  # the bytes of exactly the first 37 lines
  want=$(head -n 37 "$T/requests.txt" | while read -r u; do stat -c %s "$T/www$u"; done | awk '{ s += $1 } END { print s }')
  [ "$(metric bytes "$T/s.tsv")" -eq "$want" ]
  # more than the list holds: the whole list, once
  run "$BIN/replay" -c 4 -u "$T/requests.txt" -n 100000 --stats "$T/all.tsv" "127.0.0.1:$PORT"
  [ "$status" -eq 0 ]
  [ "$(metric requests "$T/all.tsv")" -eq 400 ]
}

@test "replay: a wrong size in the manifest and a missing file are failures" {
  make_site
  start_nginx
  sed -i 's#^\(thumbs/0.jpg\)\t[0-9]*#\1\t12345#' "$T/manifest.tsv"
  printf '/thumbs/0.jpg\n/img/0a/1.jpg\n/nothing-here\n' >"$T/three.txt"
  run "$BIN/replay" -c 2 -u "$T/three.txt" -M "$T/manifest.tsv" --stats "$T/s.tsv" "127.0.0.1:$PORT"
  echo "$output"
  [ "$status" -eq 1 ]
  [ "$(metric failed "$T/s.tsv")" -eq 2 ]
  [ "$(metric failed_size "$T/s.tsv")" -eq 1 ]
  [[ "$output" == *"1 size differs from manifest"* ]]
  [[ "$output" == *"status    404: 1"* ]]
}

@test "replay: memory follows the requests replayed, not the manifest's size" {
  make_site
  start_nginx
  # the 40 real files among 600,000 lines of a dataset's manifest
  awk 'BEGIN { for (i = 0; i < 600000; i++) printf "img/%02x/%d.jpg\t%d\t0\n", i % 256, i + 1000, i }' >"$T/big.tsv"
  cat "$T/manifest.tsv" >>"$T/big.tsv"
  run "$BIN/replay" -c 4 -u "$T/requests.txt" -n 20 -M "$T/big.tsv" --stats "$T/s.tsv" "127.0.0.1:$PORT"
  echo "$output"
  [ "$status" -eq 0 ]
  [ "$(metric ok "$T/s.tsv")" -eq 20 ]
  echo "maxrss_kb $(metric maxrss_kb "$T/s.tsv")"
  [ "$(metric maxrss_kb "$T/s.tsv")" -lt 12000 ]
  # -U PATH: only that path is looked up
  run "$BIN/replay" -c 2 -U /img/0a/1.jpg -n 5 -M "$T/big.tsv" "127.0.0.1:$PORT"
  [ "$status" -eq 0 ]
}

@test "replay: -U PATH -n COUNT over IPv6 [::1] and by host name" {
  make_site
  start_nginx
  run "$BIN/replay" -c 5 -k 100 -U /img/0a/3.jpg -n 500 --stats "$T/s.tsv" "[::1]:$PORT"
  echo "$output"
  [ "$status" -eq 0 ]
  [ "$(metric requests "$T/s.tsv")" -eq 500 ]
  [ "$(metric bytes "$T/s.tsv")" -eq $((500 * 11003)) ]
  run "$BIN/replay" -c 2 -U /img/0a/3.jpg -n 10 "localhost:$PORT"
  [ "$status" -eq 0 ]
}

@test "replay: a server resetting every 5th connection gives exact reset and retry counts" {
  start_bad reset --every 5
  # one request per connection: 24 connections carry 20 requests, 4 are
  # reset; -r 4: which request a reset hits depends on the order the four
  # connections are accepted in, and under load one request can be hit by
  # all four resets (the default 3 retries would then fail it)
  run timeout 30 "$BIN/replay" -c 4 -k 1 -r 4 -U /x -n 20 --stats "$T/s.tsv" "127.0.0.1:$PORT"
  echo "$output"
  [ "$status" -eq 0 ]
  [ "$(metric resets "$T/s.tsv")" -eq 4 ]
  [ "$(metric retries "$T/s.tsv")" -eq 4 ]
  [ "$(metric failed "$T/s.tsv")" -eq 0 ]
  [ "$(metric connections "$T/s.tsv")" -eq 24 ]
}

@test "replay: resets beyond -r RETRIES are failures; keep-alive resets are retried" {
  start_bad reset --every 5
  run timeout 30 "$BIN/replay" -c 4 -k 1 -r 0 -U /x -n 20 --stats "$T/s.tsv" "127.0.0.1:$PORT"
  echo "$output"
  [ "$status" -eq 1 ]
  [ "$(metric resets "$T/s.tsv")" -eq 4 ]
  [ "$(metric retries "$T/s.tsv")" -eq 0 ]
  [ "$(metric failed "$T/s.tsv")" -eq 4 ]
  [[ "$output" == *"4 reset, out of retries"* ]]
  # a fresh server resetting every 3rd connection, 5 requests a connection:
  # 5 + 5 + reset + 5 + 5
  start_bad reset --every 3
  run timeout 30 "$BIN/replay" -c 1 -k 5 -U /x -n 20 --stats "$T/k.tsv" "127.0.0.1:$PORT"
  [ "$status" -eq 0 ]
  [ "$(metric resets "$T/k.tsv")" -eq 1 ]
  [ "$(metric retries "$T/k.tsv")" -eq 1 ]
  [ "$(metric connections "$T/k.tsv")" -eq 5 ]
}

@test "replay: chunked responses are counted by their payload" {
  start_bad chunked --body 5001
  run timeout 30 "$BIN/replay" -c 3 -k 4 -U /x -n 30 --stats "$T/s.tsv" "127.0.0.1:$PORT"
  [ "$status" -eq 0 ]
  [ "$(metric bytes "$T/s.tsv")" -eq $((30 * 5001)) ]
}

@test "replay: a stalling server gives timeouts, not a hang" {
  start_bad stall
  local t0=$SECONDS
  run timeout 20 "$BIN/replay" -c 4 -t 1 -r 1 -U /x -n 4 --stats "$T/s.tsv" "127.0.0.1:$PORT"
  echo "$output"
  [ "$status" -eq 1 ]
  [ $((SECONDS - t0)) -lt 10 ]
  [ "$(metric timeouts "$T/s.tsv")" -eq 8 ]
  [ "$(metric retries "$T/s.tsv")" -eq 4 ]
  [ "$(metric failed "$T/s.tsv")" -eq 4 ]
  [[ "$output" == *"4 timed out, out of retries"* ]]
}

@test "replay: an unreachable port is one clear error" {
  local port
  port=$(free_port)
  run timeout 20 "$BIN/replay" -U / -n 10 "127.0.0.1:$port"
  [ "$status" -eq 1 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ "$output" == "replay: cannot connect to 127.0.0.1:$port: Connection refused" ]]
}

@test "replay: -T deadline: a body without length trickling a byte every 0.5 s" {
  run "$BIN/replay" -h
  [[ "$output" == *"-T SECS, --request-timeout SECS"* ]]
  deadline_case trickle-body
}

@test "replay: -T deadline: an endless fast body without length" {
  deadline_case endless-body --request-timeout 2
}

@test "replay: -T deadline: header bytes trickling a byte every 0.5 s" {
  deadline_case trickle-header
}

@test "replay: endless headers and an endless chunk-size line fail with their reason" {
  start_hostile endless-chunk
  run timeout 10 "$BIN/replay" -c 1 -T 5 -U /x -n 2 --stats "$T/c.tsv" "127.0.0.1:$PORT"
  echo "$output"
  [ "$status" -eq 1 ]
  [ "$(metric failed_chunk_line "$T/c.tsv")" -eq 2 ]
  [[ "$output" == *"failed    2 chunk size line too long"* ]]
  start_hostile endless-header
  run timeout 10 "$BIN/replay" -c 1 -T 5 -U /x -n 2 --stats "$T/h.tsv" "127.0.0.1:$PORT"
  echo "$output"
  [ "$status" -eq 1 ]
  [ "$(metric failed_header_size "$T/h.tsv")" -eq 2 ]
  [[ "$output" == *"failed    2 response headers too long"* ]]
}

@test "replay: bytes no request asked for fail their request, one count everywhere" {
  local mode
  for mode in long-body after-204; do
    start_hostile "$mode"
    run timeout 20 "$BIN/replay" -c 1 -k 10 -U /x -n 3 --stats "$T/$mode.tsv" "127.0.0.1:$PORT"
    echo "$mode: $output"
    [ "$status" -eq 1 ]
    [[ "$output" == *"3 done, 0 ok, 3 failed"* ]]
    [[ "$output" == *"failed    3 bytes no request asked for"* ]]
    [ "$(metric failed "$T/$mode.tsv")" -eq 3 ]
    [ "$(metric ok "$T/$mode.tsv")" -eq 0 ]
    [ "$(metric failed_unrequested "$T/$mode.tsv")" -eq 3 ]
    [ "$(failed_sum "$T/$mode.tsv")" -eq 3 ]
  done
}

@test "replay: reason phrases and URLs are printed escaped, one message a line" {
  start_hostile reason
  printf '/caf\xc3\xa9\n' >"$T/list.txt"
  run timeout 20 "$BIN/replay" -c 1 -u "$T/list.txt" "127.0.0.1:$PORT"
  echo "$output"
  [ "$status" -eq 1 ]
  [[ "$output" == *'replay: GET /caf\xc3\xa9: bad status: 404 Not\x1b[31mFound\x07X'* ]]
  [[ "$output" == *"status    404: 1"* ]]
  if grep -q '^replay: forged' <<<"$output"; then return 1; fi
  # a CR that ends no line is refused (as dltar refuses it: one parser)
  start_hostile bare-cr
  run timeout 20 "$BIN/replay" -c 1 -U /x -n 1 "127.0.0.1:$PORT"
  [ "$status" -eq 1 ]
  [[ "$output" == *"malformed response: bare CR in the response head"* ]]
  # a URL list and a -U path with control bytes: refused, shown escaped
  printf '/ok\n/\033[2J\x9bbad\n' >"$T/bad.txt"
  run "$BIN/replay" -u "$T/bad.txt" "127.0.0.1:$PORT"
  [ "$status" -eq 2 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ "$output" == *'line 2'*'/\x1b[2J\x9bbad'* ]]
  run "$BIN/replay" -U "$(printf '/a\nreplay: forged\033[0m')" -n 1 "127.0.0.1:$PORT"
  [ "$status" -eq 2 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ "$output" == *'/a\x0areplay: forged\x1b[0m'* ]]
  run "$BIN/replay" "$(printf -- '-\033')" -U / -n 1 "127.0.0.1:$PORT"
  [ "$status" -eq 2 ]
  [ "$output" = 'replay: unknown option -\x1b (replay -h lists them)' ]
  run "$BIN/replay" -U / -n 1 "$(printf '127.0.0.1:1\033]0;x\007')"
  [ "$status" -eq 2 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ "$output" == *'bad port: 127.0.0.1:1\x1b]0;x\x07'* ]]
}

@test "replay: 1xx interim responses are not final; two different Content-Lengths are refused" {
  start_hostile interim
  run timeout 20 "$BIN/replay" -c 2 -k 3 -U /x -n 6 --stats "$T/i.tsv" "127.0.0.1:$PORT"
  echo "$output"
  [ "$status" -eq 0 ]
  [ "$(metric ok "$T/i.tsv")" -eq 6 ]
  [ "$(metric bytes "$T/i.tsv")" -eq 12 ]
  start_hostile two-lengths
  run timeout 20 "$BIN/replay" -c 1 -U /x -n 2 --stats "$T/l.tsv" "127.0.0.1:$PORT"
  echo "$output"
  [ "$status" -eq 1 ]
  [ "$(metric failed_protocol "$T/l.tsv")" -eq 2 ]
  [[ "$output" == *"malformed response: conflicting Content-Length headers"* ]]
}

# site_on_httpd : make_site served by bin/httpd on PORT (skipped when it is not built).
site_on_httpd() {
  [ -x "$BIN/httpd" ] || skip "bin/httpd not built"
  make_site
  PORT=$(free_port)
  "$BIN/httpd" -r "$T/www" -i 127.0.0.1 -p "$PORT" -q 3>&- &
  PIDS+=($!)
  wait_for_port "$PORT" 10
}

@test "replay: --min-time keeps the first pass's figures and measures a steady window of its own" {
  site_on_httpd
  run timeout 60 "$BIN/replay" -c 4 -k 10 -u "$T/requests.txt" -M "$T/manifest.tsv" --min-time 0.5 \
    --stats "$T/s.tsv" --series "$T/series.tsv" "127.0.0.1:$PORT"
  echo "$output"
  [ "$status" -eq 0 ]
  # the first pass: the list once, its bytes those of the manifest, rps its own
  [ "$(metric first_requests "$T/s.tsv")" -eq 400 ]
  [ "$(metric first_bytes "$T/s.tsv")" -eq "$(cat "$T/total")" ]
  awk -F'\t' '$1 == "rps" { r = $2 } $1 == "wall_s" { w = $2 } $1 == "first_requests" { n = $2 }
    END { d = r * w - n; exit !(d < 1 && d > -1) }' "$T/s.tsv"
  # the window: at least the time asked for, inside a run that went round the list
  awk -F'\t' '$1 == "steady_s" { exit !($2 >= 0.5 && $2 < 5) }' "$T/s.tsv"
  [ "$(metric passes "$T/s.tsv")" -ge 2 ]
  [ "$(metric steady_requests "$T/s.tsv")" -gt 0 ]
  [ "$(metric requests "$T/s.tsv")" -gt "$(metric steady_requests "$T/s.tsv")" ]
  [ "$(metric requests "$T/s.tsv")" -ge $((400 + $(metric steady_requests "$T/s.tsv"))) ]
  for m in steady_rps steady_mbps steady_lat_p50_ms steady_lat_p99_ms; do
    grep -q "^$m	" "$T/s.tsv" || { echo "missing metric $m"; return 1; }
  done
  [ "$(metric failed "$T/s.tsv")" -eq 0 ]
  [[ "$output" == *"(first pass)"* ]]
  [[ "$output" == *"steady    "*" passes)"* ]]
  # the series counts every request of every pass
  [ "$(awk '$2 == "requests" { s += $3 } END { print s }' "$T/series.tsv")" -eq "$(metric requests "$T/s.tsv")" ]
  # without it: no steady figures, one pass
  run timeout 30 "$BIN/replay" -c 4 -k 10 -u "$T/requests.txt" --stats "$T/one.tsv" "127.0.0.1:$PORT"
  [ "$status" -eq 0 ]
  [ "$(metric requests "$T/one.tsv")" -eq 400 ]
  run grep -c '^steady_' "$T/one.tsv"
  [ "$output" = 0 ]
  run "$BIN/replay" --min-time 0 -U / -n 1 127.0.0.1:1
  [ "$status" -eq 2 ]
  [[ "$output" == *"bad value for --min-time"* ]]
}

@test "replay: --no-first-pass measures the steady window alone: no first pass's figures, the window as with one" {
  site_on_httpd
  run timeout 60 "$BIN/replay" -c 4 -k 10 -u "$T/requests.txt" -M "$T/manifest.tsv" --min-time 0.5 --slices 2 \
    --no-first-pass --stats "$T/s.tsv" "127.0.0.1:$PORT"
  echo "$output"
  [ "$status" -eq 0 ]
  # none of the first pass's figures: a repeat whose first pass was measured before
  for m in wall_s rps mbps lat_p50_ms lat_p99_ms first_requests first_bytes; do
    ! grep -q "^$m	" "$T/s.tsv" || { echo "metric $m written"; return 1; }
  done
  [[ "$output" == *"(no first pass)"* ]]
  [[ "$output" != *"latency   "* ]]
  # the window as with a first pass: at least the time asked for, every request checked
  awk -F'\t' '$1 == "steady_s" { exit !($2 >= 0.5 && $2 < 5) }' "$T/s.tsv"
  [ "$(metric steady_requests "$T/s.tsv")" -gt 0 ]
  [ "$(metric steady_slices "$T/s.tsv")" -eq 2 ]
  [ "$(metric failed "$T/s.tsv")" -eq 0 ]
  [ "$(metric requests "$T/s.tsv")" -gt "$(metric steady_requests "$T/s.tsv")" ]
  # without a window there is nothing to measure
  run "$BIN/replay" --no-first-pass -U / -n 1 127.0.0.1:1
  [ "$status" -eq 2 ]
  [ "$output" = "replay: --no-first-pass needs --min-time SECS (the window measured instead)" ]
}

@test "replay: against bin/httpd too, when it is built" {
  site_on_httpd
  run timeout 30 "$BIN/replay" -c 8 -k 10 -u "$T/requests.txt" -M "$T/manifest.tsv" --stats "$T/s.tsv" "127.0.0.1:$PORT"
  echo "$output"
  [ "$status" -eq 0 ]
  [ "$(metric bytes "$T/s.tsv")" -eq "$(cat "$T/total")" ]
}

@test "replay: --slices 4 takes the steady window as 4 slices, figures over their union" {
  site_on_httpd
  run timeout 60 "$BIN/replay" -c 4 -k 10 -u "$T/requests.txt" -M "$T/manifest.tsv" --min-time 0.8 --slices 4 \
    --stats "$T/s.tsv" "127.0.0.1:$PORT"
  echo "$output"
  [ "$status" -eq 0 ]
  [ "$(metric steady_slices "$T/s.tsv")" -eq 4 ]
  # each slice closes at least 0.2 s after it opened, as replay measures it
  awk -F'\t' '$1 == "steady_s" { exit !($2 >= 0.8 && $2 < 3) }' "$T/s.tsv"
  [ "$(metric steady_requests "$T/s.tsv")" -gt 0 ]
  approx "$(metric steady_rps "$T/s.tsv")" \
    "$(awk -F'\t' '$1 == "steady_requests" { n = $2 } $1 == "steady_s" { s = $2 } END { print n / s }' "$T/s.tsv")"
  [ "$(metric failed "$T/s.tsv")" -eq 0 ]
  [ "$(metric first_requests "$T/s.tsv")" -eq 400 ]
  [ "$(metric requests "$T/s.tsv")" -ge $((400 + $(metric steady_requests "$T/s.tsv"))) ]
  [[ "$output" == *"steady    "*" passes, 4 slices)"* ]]
}

@test "replay: --slices 1 writes the same --stats lines and summary as no --slices" {
  site_on_httpd
  run timeout 60 "$BIN/replay" -c 4 -u "$T/requests.txt" --min-time 0.2 --stats "$T/none.tsv" "127.0.0.1:$PORT"
  [ "$status" -eq 0 ]
  [[ "$output" == *" passes)"* ]]
  run timeout 60 "$BIN/replay" -c 4 -u "$T/requests.txt" --min-time 0.2 --slices 1 --stats "$T/one.tsv" "127.0.0.1:$PORT"
  echo "$output"
  [ "$status" -eq 0 ]
  [[ "$output" != *slices* ]]
  diff <(cut -f1,3 "$T/none.tsv") <(cut -f1,3 "$T/one.tsv")
  [ "$(grep -c '^steady_slices' "$T/one.tsv" || true)" = 0 ]
}

@test "replay: a gate line other than 'go', or its end, exits 2 with one line and no figures" {
  site_on_httpd
  slices_gate_files 'stop\n'
  [ "$status" -eq 2 ]
  [ "$(cat "$T/gate-out")" = "paused 1" ]
  [ ! -e "$T/s.tsv" ]
  [ "$(grep -c '^replay: ' <<<"$output")" -eq 1 ]
  [[ "$output" == *"replay: gate: read 'stop' from $T/gate-in after slice 1 of 3, expected 'go'"* ]]
  # 'go' once, then the end of the file
  slices_gate_files 'go\n'
  [ "$status" -eq 2 ]
  [ "$(cat "$T/gate-out")" = "paused 1
paused 2" ]
  [ ! -e "$T/s.tsv" ]
  [[ "$output" == *"replay: gate: end of file on $T/gate-in after slice 2 of 3 (expected the line 'go')"* ]]
  # a line without its newline; control bytes are shown escaped
  slices_gate_files 'go\n\x1bx'
  [ "$status" -eq 2 ]
  [[ "$output" == *"after slice 2 of 3, after '\\x1bx' without a newline"* ]]
  # both 'go': the run ends as without a gate
  slices_gate_files 'go\ngo\n'
  [ "$status" -eq 0 ]
  [ "$(metric steady_slices "$T/s.tsv")" -eq 3 ]
}

@test "replay: the gate pauses between slices with no connection open; paused time is in no figure" {
  require_cmd ss
  site_on_httpd
  local gin gout line pid t0 t1 rc=0
  mkfifo "$T/gate-in" "$T/gate-out"
  # held read-write as the harness does: neither open blocks
  exec {gin}<>"$T/gate-in" {gout}<>"$T/gate-out"
  t0=$(date +%s.%N)
  timeout 60 "$BIN/replay" -c 4 -k 10 -u "$T/requests.txt" --min-time 0.6 --slices 3 --gate-in "$T/gate-in" \
    --gate-out "$T/gate-out" --stats "$T/s.tsv" "127.0.0.1:$PORT" >"$T/out" 2>"$T/err" 3>&- &
  pid=$!
  PIDS+=("$pid")
  read -r -t 20 line <&"$gout"
  [ "$line" = "paused 1" ]
  # paused: not a connection to the server, and none while it waits
  [ -z "$(ss -Htn state established "( dport = :$PORT )")" ]
  sleep 2
  [ -z "$(ss -Htn state established "( dport = :$PORT )")" ]
  kill -0 "$pid"
  echo go >&"$gin"
  read -r -t 20 line <&"$gout"
  [ "$line" = "paused 2" ]
  [ -z "$(ss -Htn state established "( dport = :$PORT )")" ]
  sleep 2
  # a line may arrive in parts
  printf g >&"$gin"
  sleep 0.2
  printf 'o\n' >&"$gin"
  wait "$pid" || rc=$?
  t1=$(date +%s.%N)
  exec {gin}>&- {gout}>&-
  cat "$T/out" "$T/err"
  [ "$rc" -eq 0 ]
  [ "$(metric steady_slices "$T/s.tsv")" -eq 3 ]
  [ "$(metric failed "$T/s.tsv")" -eq 0 ]
  # the run took the two pauses (4 s and more); its window is the slices'
  # 0.6 s (with a pause in it, 2.6 s at least)
  awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a > 4) }'
  awk -F'\t' '$1 == "steady_s" { exit !($2 >= 0.6 && $2 < 2.5) }' "$T/s.tsv"
  approx "$(metric steady_rps "$T/s.tsv")" \
    "$(awk -F'\t' '$1 == "steady_requests" { n = $2 } $1 == "steady_s" { s = $2 } END { print n / s }' "$T/s.tsv")"
  grep -q ' passes, 3 slices)$' "$T/out"
}

@test "replay: --slices and the gate options refuse a wrong use with one line" {
  local args
  while IFS='|' read -r args want; do
    # shellcheck disable=SC2086
    run "$BIN/replay" $args -U / -n 1 127.0.0.1:1
    echo "$args: $output"
    [ "$status" -eq 2 ]
    [ "${#lines[@]}" -eq 1 ]
    [[ "$output" == *"$want"* ]]
  done <<'EOF2'
--min-time 1 --slices 0|bad value for --slices: 0
--min-time 1 --slices 1001|bad value for --slices: 1001
--slices 2|--slices needs --min-time SECS
--min-time 1 --slices 2 --gate-in /dev/null|--gate-in and --gate-out go together
--min-time 1 --slices 2 --gate-out /dev/null|--gate-in and --gate-out go together
--min-time 1 --gate-in /dev/null --gate-out /dev/null|need --slices N with N at least 2
--min-time 1 --slices 2 --gate-in /nonexistent/in --gate-out /dev/null|cannot open --gate-in /nonexistent/in
EOF2
}
