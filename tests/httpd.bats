#!/usr/bin/env bats
# Black-box tests of bin/httpd: curl and a raw-socket client on loopback.
# PORT and PID are set by the tests for teardown, on purpose:
# shellcheck disable=SC2030,SC2031
load helpers

RAW="python3 $BATS_TEST_DIRNAME/fixtures/rawhttp.py"
LOGLOAD="python3 $BATS_TEST_DIRNAME/fixtures/httpd/logload.py"
TOEOF="python3 $BATS_TEST_DIRNAME/fixtures/httpd/toeof.py"

setup() {
  require_cmd curl python3
  T=$(mktemp -d "${BATS_TMPDIR:-/tmp}/httpd-test.XXXXXX")
  W=$T/www
  mkdir -p "$W/sub" "$W/empty" "$W/deep/er"
  printf 'hello world\n' >"$W/small.txt"
  printf '<p>index</p>\n' >"$W/sub/index.html"
  printf 'deep\n' >"$W/deep/er/f.css"
  head -c 3000000 /dev/urandom >"$W/big.bin"
  printf 'SENTINEL-OUTSIDE-ROOT\n' >"$T/secret.txt"
  ln -s ../secret.txt "$W/out-link"
  ln -s small.txt "$W/in-link"
  PID=
  READER=
}

teardown() {
  # the stalled log reader first: with it gone a blocked write fails
  if [ -n "${READER:-}" ]; then kill "$READER" 2>/dev/null || true; fi
  if [ -n "${PID:-}" ] && kill -0 "$PID" 2>/dev/null; then
    kill -TERM "$PID" 2>/dev/null || true
    wait_for_exit "$PID" 10 || kill -KILL "$PID" 2>/dev/null || true
  fi
  rm -rf "$T"
}

# start_httpd ARGS... : bin/httpd (HTTPD_BIN/httpd) -r $W on a free port,
# logs in $T.
start_httpd() {
  PORT=$(free_port)
  "${HTTPD_BIN:-$BIN}/httpd" -r "$W" -p "$PORT" "$@" >"$T/access.log" 2>"$T/err.log" </dev/null 3>&- &
  PID=$!
  wait_for_port "$PORT"
}

# wait_for_line FILE REGEX [SECONDS] : until a line of FILE matches REGEX.
wait_for_line() {
  poll_until "${3:-10}" grep -Eq "$2" "$1" 2>/dev/null ||
    { echo "no line matching $2 in $1" >&2; return 1; }
}

# children_are N : httpd ($PID) has N children.
children_are() {
  [ "$(pgrep -c -P "$PID")" -eq "$1" ]
}

# reports_at_least N : httpd printed its counters (SIGUSR1) N times.
reports_at_least() {
  [ "$(grep -c '^httpd: connections' "$T/err.log")" -ge "$1" ]
}

# established_at_least N : N connections to $PORT are established.
established_at_least() {
  [ "$(ss -Htn state established "( sport = :$PORT )" | wc -l)" -ge "$1" ]
}

status_of() { # status_of URL [curl args]
  local url=$1
  shift
  curl -s -o /dev/null -w '%{http_code}' "$@" "$url"
}

@test "httpd: -h prints usage, --version its version" {
  run "$BIN/httpd" -h
  [ "$status" -eq 0 ]
  [[ "$output" == usage:* ]]
  run "$BIN/httpd" --version
  [ "$status" -eq 0 ]
  [[ "$output" == "httpd "* ]]
}

@test "httpd: missing ROOT, bad flags and an occupied port are one-line errors" {
  run "$BIN/httpd" -r "$T/nope" -p "$(free_port)"
  [ "$status" -ne 0 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ "$output" == *nope* ]]
  run "$BIN/httpd" -p 80
  [ "$status" -ne 0 ]
  [[ "$output" == *"-r ROOT"* ]]
  run "$BIN/httpd" -r "$W" -m splice
  [ "$status" -ne 0 ]
  [ "${#lines[@]}" -eq 1 ]
  run "$BIN/httpd" -r "$W" -i not-an-ip
  [ "$status" -ne 0 ]
  [ "${#lines[@]}" -eq 1 ]
  start_httpd -q
  run "$BIN/httpd" -r "$W" -p "$PORT"
  [ "$status" -ne 0 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ "$output" == *"in use"* ]]
  # -N --reuseport: sockets with SO_REUSEPORT could share a port; a busy
  # one is still refused
  kill "$PID"
  wait_for_exit "$PID"
  start_httpd -q -N 2 --reuseport
  run timeout 5 "$BIN/httpd" -q -r "$W" -p "$PORT" -N 2 --reuseport
  [ "$status" -ne 0 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ "$output" == *"in use"* ]]
  run "$BIN/httpd" -1 -r "$W" --reuseport
  [ "$status" -ne 0 ]
  [ "$output" = "httpd: -1 serves the connection on fd 0 and 1: no -i, -p, -N or --reuseport" ]
}

@test "httpd: GET serves identical bytes with length, type and dates; HEAD only the head" {
  start_httpd -q
  curl -sf -o "$T/got" "http://127.0.0.1:$PORT/big.bin"
  cmp "$T/got" "$W/big.bin"
  run curl -si "http://127.0.0.1:$PORT/small.txt"
  [[ "$output" == "HTTP/1.1 200 OK"* ]]
  [[ "$output" == *"Content-Length: 12"* ]]
  [[ "$output" == *"Content-Type: text/plain"* ]]
  [[ "$output" == *"Last-Modified: "*GMT* ]]
  [[ "$output" == *"hello world"* ]]
  [ "$(curl -s "http://127.0.0.1:$PORT/deep/er/f.css" -D - -o /dev/null | tr -d '\r' | grep -i '^content-type')" = "Content-Type: text/css" ]
  run curl -sI "http://127.0.0.1:$PORT/small.txt"
  [[ "$output" == *"Content-Length: 12"* ]]
  [[ "$output" != *"hello world"* ]]
  out=$($RAW send "$PORT" 'HEAD /small.txt HTTP/1.0\r\n\r\n')
  [[ "$out" == *"Content-Length: 12"* ]]
  [[ "$out" != *hello* ]]
}

@test "httpd: IPv4 and IPv6 on the default dual-stack socket; -i limits it" {
  start_httpd -q
  [ "$(status_of "http://127.0.0.1:$PORT/small.txt")" = 200 ]
  if curl -s -o /dev/null "http://[::1]:$PORT/small.txt"; then
    [ "$(status_of "http://[::1]:$PORT/small.txt")" = 200 ]
  fi
  kill "$PID"
  wait_for_exit "$PID"
  start_httpd -q -i 127.0.0.1
  [ "$(status_of "http://127.0.0.1:$PORT/small.txt")" = 200 ]
  run curl -s -o /dev/null "http://[::1]:$PORT/small.txt"
  [ "$status" -ne 0 ]
}

@test "httpd: Range gives 206 with Content-Range, past the end 416" {
  start_httpd -q
  run curl -si -r 2-4 "http://127.0.0.1:$PORT/small.txt"
  [[ "$output" == "HTTP/1.1 206"* ]]
  [[ "$output" == *"Content-Range: bytes 2-4/12"* ]]
  [[ "$output" == *$'\r\n\r\nllo' ]]
  [ "$(curl -s -r -6 "http://127.0.0.1:$PORT/small.txt")" = "world" ]
  curl -s -r 1000000- "http://127.0.0.1:$PORT/big.bin" -o "$T/tail"
  tail -c +1000001 "$W/big.bin" | cmp - "$T/tail"
  run curl -si -r 50-60 "http://127.0.0.1:$PORT/small.txt"
  [[ "$output" == "HTTP/1.1 416"* ]]
  [[ "$output" == *"Content-Range: bytes */12"* ]]
}

@test "httpd: If-Modified-Since gives 304 when unchanged, 200 when older" {
  start_httpd -q
  lm=$(curl -sI "http://127.0.0.1:$PORT/small.txt" | tr -d '\r' | sed -n 's/^Last-Modified: //p')
  [ -n "$lm" ]
  run curl -si -H "If-Modified-Since: $lm" "http://127.0.0.1:$PORT/small.txt"
  [[ "$output" == "HTTP/1.1 304"* ]]
  [[ "$output" != *hello* ]]
  [ "$(status_of "http://127.0.0.1:$PORT/small.txt" -H 'If-Modified-Since: Mon, 01 Jan 2001 00:00:00 GMT')" = 200 ]
}

@test "httpd: 404, 405 with Allow, 403 keep the connection; 400, 413, 414, 505 close it" {
  start_httpd -q
  next='GET /small.txt HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n'
  out=$($RAW send "$PORT" "GET /nope HTTP/1.1\r\nHost: t\r\n\r\n$next")
  [[ "$out" == "HTTP/1.1 404 Not Found"* ]]
  [[ "$out" == *"hello world"* ]]
  out=$($RAW send "$PORT" "DELETE /small.txt HTTP/1.1\r\nHost: t\r\n\r\n$next")
  [[ "$out" == "HTTP/1.1 405"* ]]
  [[ "$out" == *"Allow: GET, HEAD"* ]]
  [[ "$out" == *"hello world"* ]]
  out=$($RAW send "$PORT" "GET /out-link HTTP/1.1\r\nHost: t\r\n\r\n$next")
  [[ "$out" == "HTTP/1.1 403"* ]]
  [[ "$out" == *"hello world"* ]]
  for bad in 'GET /small.txt HTTP/1.1\r\n\r\n' 'GARBAGE\r\n\r\n' 'GET /small.txt HTTP/1.1\r\nHost: t\r\nBroken header\r\n\r\n'; do
    out=$($RAW send "$PORT" "$bad$next")
    [[ "$out" == "HTTP/1.1 400"* ]]
    [[ "$out" == *"Connection: close"* ]]
    [[ "$out" != *"hello world"* ]]
  done
  out=$($RAW send "$PORT" "GET /small.txt HTTP/2.0\r\nHost: t\r\n\r\n$next")
  [[ "$out" == "HTTP/1.1 505"* ]]
  [[ "$out" != *"hello world"* ]]
  long=$(head -c 5000 /dev/zero | tr '\0' a)
  out=$($RAW send "$PORT" "GET /$long HTTP/1.1\r\nHost: t\r\n\r\n$next")
  [[ "$out" == "HTTP/1.1 414"* ]]
  [[ "$out" != *"hello world"* ]]
  out=$($RAW send "$PORT" "GET /small.txt HTTP/1.1\r\nHost: t\r\nX-A: $long\r\nX-B: $long\r\n\r\n$next")
  [[ "$out" == "HTTP/1.1 413"* ]]
  [[ "$out" != *"hello world"* ]]
  [ "$(status_of "http://127.0.0.1:$PORT/small.txt" -X POST -d x=1)" = 405 ]
}

@test "httpd: keep-alive reuses the connection; pipelined requests answered in order" {
  start_httpd -q -k 3
  run curl -sv "http://127.0.0.1:$PORT/small.txt" "http://127.0.0.1:$PORT/sub/"
  [[ "$output" == *"Re-using existing connection"* || "$output" == *"Reusing existing"* ]]
  one='GET /small.txt HTTP/1.1\r\nHost: t\r\n\r\n'
  two='GET /deep/er/f.css HTTP/1.1\r\nHost: t\r\n\r\n'
  out=$($RAW send "$PORT" "$one$two")
  [ "$(printf '%s' "$out" | grep -c '^HTTP/1.1 200')" -eq 2 ]
  first=$(printf '%s' "$out" | grep -n 'hello world' | cut -d: -f1)
  second=$(printf '%s' "$out" | grep -n '^deep' | cut -d: -f1)
  [ "$first" -lt "$second" ]
  # -k 3: the third answer says close, a fourth request is not answered
  out=$($RAW send "$PORT" "$one$one$one$one")
  [ "$(printf '%s' "$out" | grep -c '^HTTP/1.1 200')" -eq 3 ]
  [[ "$out" == *"Connection: close"* ]]
  # HTTP/1.0 keep-alive on request
  out=$($RAW send "$PORT" 'GET /small.txt HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /small.txt HTTP/1.0\r\n\r\n')
  [ "$(printf '%s' "$out" | grep -c '^HTTP/1.1 200')" -eq 2 ]
  [[ "$out" == *"Connection: keep-alive"* ]]
}

@test "httpd: no traversal encoding returns a byte from outside ROOT" {
  start_httpd -q
  for p in '/../secret.txt' '/%2e%2e/secret.txt' '/%2E%2E/secret.txt' '/.%2e/secret.txt' \
    '/%2e./secret.txt' '/..%2fsecret.txt' '/%2e%2e%2fsecret.txt' '/sub/../../secret.txt' \
    '/sub/%2e%2e/%2e%2e/secret.txt' '//../secret.txt' '/./../secret.txt' '/..\\secret.txt' \
    '/%5c..%5csecret.txt' '/..%5csecret.txt' '/%00/../secret.txt' '/small.txt%00' \
    '/%252e%252e/secret.txt' '/%c0%ae%c0%ae/secret.txt' '/sub/..%2f..%2fsecret.txt' \
    'http://t/../secret.txt' '/out-link' '/out-link/' '/./out-link' '/%6fut-link' \
    "$T/secret.txt" "/$T/secret.txt" '..' '../secret.txt' '/..' '/../' ; do
    out=$($RAW send "$PORT" "GET $p HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
    [[ "$out" == "HTTP/1.1 "* ]]
    [[ "$out" != "HTTP/1.1 200"* ]] || { echo "200 for $p"; false; }
    [[ "$out" != *SENTINEL* ]] || { echo "leak for $p"; false; }
  done
  [ "$(status_of "http://127.0.0.1:$PORT/in-link")" = 200 ]
}

@test "httpd: a symlink out of ROOT is 403, served with -L" {
  start_httpd -q
  [ "$(status_of "http://127.0.0.1:$PORT/out-link")" = 403 ]
  kill "$PID"
  wait_for_exit "$PID"
  start_httpd -q -L
  [ "$(curl -s "http://127.0.0.1:$PORT/out-link")" = SENTINEL-OUTSIDE-ROOT ]
}

@test "httpd: directories: /dir redirects, /dir/ serves index.html, else 403" {
  start_httpd -q
  run curl -si "http://127.0.0.1:$PORT/sub?x=1"
  [[ "$output" == "HTTP/1.1 301"* ]]
  [[ "$output" == *"Location: /sub/"* ]]
  [ "$(curl -s "http://127.0.0.1:$PORT/sub/")" = "<p>index</p>" ]
  [ "$(curl -sL "http://127.0.0.1:$PORT/sub")" = "<p>index</p>" ]
  [ "$(status_of "http://127.0.0.1:$PORT/empty/")" = 403 ]
  [ "$(status_of "http://127.0.0.1:$PORT/")" = 403 ]
}

@test "httpd: -m mmap serves identical bytes, ranges too" {
  start_httpd -q -m mmap
  curl -sf -o "$T/got" "http://127.0.0.1:$PORT/big.bin"
  cmp "$T/got" "$W/big.bin"
  curl -sf -r 1234567-2345678 -o "$T/part" "http://127.0.0.1:$PORT/big.bin"
  tail -c +1234568 "$W/big.bin" | head -c 1111112 | cmp - "$T/part"
  [ "$(curl -s "http://127.0.0.1:$PORT/small.txt")" = "hello world" ]
}

@test "httpd: a slowloris client is dropped at -t while others are served" {
  start_httpd -q -t 2
  run $RAW slowloris "$PORT"
  echo "$output"
  [ "$status" -eq 0 ]
  [[ "$output" == *"other=200"* ]]
  other=${output##*other_s=}
  dropped=${output%% *}
  dropped=${dropped#dropped_after=}
  awk -v o="$other" -v d="$dropped" 'BEGIN { exit !(o < 1 && d >= 1.5 && d <= 4.5) }'
}

@test "httpd: a slow reader of a big file does not stall a small request" {
  head -c 30000000 /dev/zero >"$W/huge.bin"
  start_httpd -q
  curl -s --limit-rate 2M -o /dev/null "http://127.0.0.1:$PORT/huge.bin" 3>&- &
  slow=$!
  # a faster reader, still capped: unlimited, its 30 MB over loopback can
  # end before the poll below sees it under way
  curl -s --limit-rate 20M -o /dev/null "http://127.0.0.1:$PORT/huge.bin" 3>&- &
  fast=$!
  poll_until 5 established_at_least 2 # both big downloads under way
  t=$(curl -s -o /dev/null -w '%{time_total}' "http://127.0.0.1:$PORT/small.txt")
  kill "$slow" "$fast" 2>/dev/null || true
  wait "$slow" "$fast" 2>/dev/null || true
  awk -v t="$t" 'BEGIN { exit !(t < 0.5) }'
}

# Debian's libowfat 0.32-4 starts io_waituntil2's deferred-close walk at fd
# 0 instead of the list's end: a child whose listening socket is fd 16 (or
# 32, ...) looped there forever, burning a CPU, and the connections the
# kernel handed to its SO_REUSEPORT socket were never accepted.
@test "httpd: -N 32: every child accepts, none spins while idle" {
  start_httpd -q -N 32
  poll_until 5 children_are 32 || true # counted again below, with the requests
  $RAW many "$PORT" 150 /small.txt >"$T/many"
  sort "$T/many" | uniq -c
  [ "$(grep -c '^200$' "$T/many")" -eq 150 ]
  # CPU ticks (utime + stime) of all 32 children, after seconds of mostly idle
  ticks=0
  for k in $(pgrep -P "$PID"); do
    ticks=$((ticks + $(awk '{ print $14 + $15 }' "/proc/$k/stat")))
  done
  echo "children's CPU: $ticks ticks"
  [ "$ticks" -lt 150 ]
}

@test "httpd: -N 4 forks 4 answering children; SIGTERM stops them all" {
  start_httpd -q -N 4
  poll_until 5 children_are 4
  kids=$(pgrep -P "$PID")
  # Each child in turn answers alone, the others stopped: which child wins
  # the shared socket is the scheduler's choice (on a busy machine the first
  # one woken takes every connection), so the test chooses.
  for k in $kids; do
    others=$(echo "$kids" | grep -vx "$k")
    # shellcheck disable=SC2086 # one pid a word
    kill -STOP $others
    $RAW many "$PORT" 18 /small.txt >>"$T/many"
    # shellcheck disable=SC2086
    kill -CONT $others
  done
  [ "$(grep -c '^200$' "$T/many")" -eq 72 ]
  kill -USR1 "$PID"
  wait_for_line "$T/err.log" '^httpd: connections '
  # per-child lines: every child answered its 18
  busy=$(grep '^httpd\[' "$T/err.log" | grep -c ' requests 18 ')
  echo "children that answered: $busy"
  [ "$busy" -eq 4 ]
  grep -Eq '^httpd: connections [0-9]+ requests 72 ' "$T/err.log"
  # a child that dies is replaced
  first=$(echo "$kids" | head -1)
  kill -KILL "$first"
  poll_until 5 pid_gone "$first"
  poll_until 5 children_are 4
  kids=$(pgrep -P "$PID")
  kill -TERM "$PID"
  wait_for_exit "$PID" 10
  for k in $kids; do
    if kill -0 "$k" 2>/dev/null; then echo "child $k still there"; false; fi
  done
  grep -q '^httpd: connections ' "$T/err.log"
}

# all_gone PID... : none of the processes runs any more (a zombie nobody
# has reaped yet counts as gone: it holds no socket).
all_gone() {
  local k st
  for k in "$@"; do
    st=$(ps -o stat= -p "$k") || continue
    case $st in Z*) ;; *) return 1 ;; esac
  done
}

@test "httpd -N 4: kill -9 of the parent ends every child within 3 s and frees the port, also by the pipe alone (no prctl, as on NetBSD and OpenBSD)" {
  make -C "$ROOT" -s bsdpaths >/dev/null # build/bsdpaths/bin: -DOS_PDEATH_PIPE
  for bin in "$BIN" "$ROOT/build/bsdpaths/bin"; do
    PORT=$(free_port)
    "$bin/httpd" -q -r "$W" -p "$PORT" -N 4 >"$T/access.log" 2>"$T/err.log" </dev/null 3>&- &
    PID=$!
    wait_for_port "$PORT"
    poll_until 5 children_are 4
    kids=$(pgrep -P "$PID")
    [ "$(status_of "http://127.0.0.1:$PORT/small.txt")" = 200 ]
    kill -KILL "$PID"
    wait "$PID" || true
    # shellcheck disable=SC2086 # one PID a word
    if ! poll_until 3 all_gone $kids; then
      echo "$bin/httpd: children still running 3 s after the parent's kill -9:"
      ps -o pid=,stat=,args= -p "$(echo $kids | tr ' ' ,)"
      kill -KILL $kids 2>/dev/null || true
      false
    fi
    if port_busy "$PORT"; then echo "$bin/httpd: port $PORT still taken"; false; fi
  done
}

# keepalive_burst PORT N : open N connections to 127.0.0.1:PORT at once, a
# keep-alive GET /small.txt on each, all held open until all are answered;
# prints ok=ANSWERED.
keepalive_burst() {
  python3 -c '
import socket, sys
port, n = int(sys.argv[1]), int(sys.argv[2])
socks = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(n)]
for s in socks:
    s.sendall(b"GET /small.txt HTTP/1.1\r\nHost: t\r\n\r\n")
ok = 0
for s in socks:
    data = b""
    while b"hello world\n" not in data:
        b = s.recv(4096)
        if not b:
            break
        data += b
    ok += data.startswith(b"HTTP/1.1 200 ")
for s in socks:
    s.close()
print("ok=%d" % ok)
' "$@"
}

@test "httpd -N 2 --reuseport: connections spread over both children (a socket each, SO_REUSEPORT)" {
  [ "$(uname -s)" = Linux ] || skip "SO_REUSEPORT balancing is Linux's"
  start_httpd -q -N 2 --reuseport
  for round in 1 2 3; do
    [ "$(keepalive_burst "$PORT" 40)" = ok=40 ]
    kill -USR1 "$PID"
    poll_until 5 reports_at_least "$round"
  done
  cat "$T/err.log"
  # each round's 40 connections: at least 8 on each child (binomial spread:
  # fewer fails about once in 25,000 rounds); one shared socket gave splits
  # like 40/0 and 38/2
  awk '/^httpd\[/ { k++; d = $3 - prev[k % 2]; prev[k % 2] = $3; n++
         print "round " int((k + 1) / 2) " " $1 " " d; if (d < 8) bad++ }
       END { exit !(n == 6 && bad == 0) }' "$T/err.log"
}

# listening PORT : the listening sockets on PORT, one line each (ss).
listening() {
  ss -Htlnp "( sport = :$1 )"
}

# socket_inodes PID... : the distinct inodes of the TCP listening sockets
# those processes hold open, one a line.
socket_inodes() {
  local p f
  for p in "$@"; do
    for f in /proc/"$p"/fd/*; do readlink "$f" 2>/dev/null; done
  done | grep '^socket:' | sort -u
}

# As the method did (32 servers forked after the listening socket was
# opened): the -N children accept on that one socket.  Before, each child
# had a socket of its own (SO_REUSEPORT) with no way to ask for the shared one.
@test "httpd -N 4: the children share one listening socket; --reuseport gives each its own" {
  [ "$(uname -s)" = Linux ] || skip "ss and /proc are Linux's"
  require_cmd ss
  start_httpd -q -N 4 -i 127.0.0.1 --stats "$T/shared.tsv"
  poll_until 5 children_are 4
  listening "$PORT"
  [ "$(listening "$PORT" | wc -l)" -eq 1 ]
  [ "$(listening "$PORT" | grep -o 'pid=' | wc -l)" -eq 5 ] # the parent and its 4 children
  # shellcheck disable=SC2046 # the pids, one word each
  [ "$(socket_inodes $(pgrep -P "$PID") | wc -l)" -eq 1 ]
  kill -TERM "$PID"
  wait_for_exit "$PID"
  grep -q "^listen_sockets	1	count$" "$T/shared.tsv"
  start_httpd -q -N 4 -i 127.0.0.1 --reuseport --stats "$T/reuse.tsv"
  poll_until 5 children_are 4
  listening "$PORT"
  [ "$(listening "$PORT" | wc -l)" -eq 4 ]
  # shellcheck disable=SC2046
  [ "$(socket_inodes $(pgrep -P "$PID") | wc -l)" -eq 4 ]
  for k in $(pgrep -P "$PID"); do [ "$(socket_inodes "$k" | wc -l)" -eq 1 ]; done
  kill -TERM "$PID"
  wait_for_exit "$PID"
  grep -q "^listen_sockets	4	count$" "$T/reuse.tsv"
}

# --stats: what accept(2) said, by errno, summed and per child; the sums
# (60 requests and the probe of start_httpd)
# agree with the children's lines.
@test "httpd -N 4 --stats: accept errors by errno, and each child's connections and EAGAINs" {
  start_httpd -q -N 4 -i 127.0.0.1 --stats "$T/stats.tsv"
  poll_until 5 children_are 4
  $RAW many "$PORT" 60 /small.txt >"$T/many"
  [ "$(grep -c '^200$' "$T/many")" -eq 60 ]
  kill -TERM "$PID"
  wait_for_exit "$PID"
  cat "$T/stats.tsv"
  for m in accept_empty accept_eagain accept_econnaborted accept_eintr accept_emfile accept_enfile \
    accept_enobufs accept_enomem accept_eperm accept_eproto accept_other; do
    grep -Eq "^$m	[0-9]+	count$" "$T/stats.tsv" || { echo "no $m"; return 1; }
  done
  [ "$(grep -c '^child[1-4]\.connections	' "$T/stats.tsv")" -eq 4 ]
  [ "$(grep -c '^child[1-4]\.accept_eagain	' "$T/stats.tsv")" -eq 4 ]
  [ "$(grep -c '^child[1-4]\.accept_empty	' "$T/stats.tsv")" -eq 4 ]
  awk -F'\t' '$1 == "connections" { c = $2 } $1 == "accept_eagain" { e = $2 } $1 == "accept_empty" { z = $2 }
    $1 ~ /\.connections$/ { sc += $2 } $1 ~ /\.accept_eagain$/ { se += $2 } $1 ~ /\.accept_empty$/ { sz += $2 }
    END { exit !(c >= 60 && sc == c && se == e && sz == z && e >= 1 && z <= e) }' "$T/stats.tsv"
}

# --stats event_mechanism: what libowfat waited with, as it chose at run
# time, in httpd (alone and from -N's children) and replay; with epoll_create
# failing (a preloaded stand-in) the same binaries say what they fell back to.
@test "httpd and replay --stats: event_mechanism is what ran (epoll on Linux; sigio without epoll_create)" {
  [ "$(uname -s)" = Linux ] || skip "epoll is Linux's (the BSD binaries' kevent calls: tests/cross-abi.bats)"
  start_httpd -q --stats "$T/one.tsv"
  "$BIN/replay" -c 1 -U /small.txt -n 3 --stats "$T/replay.tsv" "127.0.0.1:$PORT" >/dev/null
  kill -TERM "$PID"
  wait_for_exit "$PID"
  grep -qx "event_mechanism	epoll	text" "$T/one.tsv"
  grep -qx "event_mechanism	epoll	text" "$T/replay.tsv"
  start_httpd -q -N 2 --stats "$T/two.tsv"
  poll_until 5 children_are 2
  kill -TERM "$PID"
  wait_for_exit "$PID"
  grep -qx "event_mechanism	epoll	text" "$T/two.tsv"
  # The choice is libowfat's at run time: without epoll, its next choice.
  ldd "$BIN/replay" | grep -q libowfat || skip "replay links libowfat statically: no epoll_create to take away"
  printf '#include <errno.h>\nint epoll_create(int n) { (void)n; errno = ENOSYS; return -1; }\n' >"$T/noepoll.c"
  cc -shared -fPIC -o "$T/noepoll.so" "$T/noepoll.c"
  start_httpd -q --stats "$T/none.tsv"
  LD_PRELOAD=$T/noepoll.so timeout 20 "$BIN/replay" -c 1 -U /small.txt -n 3 --stats "$T/replay2.tsv" "127.0.0.1:$PORT" >/dev/null
  kill -TERM "$PID"
  wait_for_exit "$PID"
  cat "$T/replay2.tsv"
  grep -qx "event_mechanism	sigio	text" "$T/replay2.tsv"
}

@test "httpd: access log lines, -q silence, counters on SIGUSR1 and at exit, --stats" {
  start_httpd --stats "$T/stats.tsv"
  curl -s -o /dev/null "http://127.0.0.1:$PORT/small.txt"
  curl -s -o /dev/null "http://127.0.0.1:$PORT/nope"
  kill -USR1 "$PID"
  wait_for_line "$T/err.log" '^httpd: connections [0-9]+ requests 2 bytes [0-9]+ errors 1 '
  kill -TERM "$PID"
  wait_for_exit "$PID"
  grep -Eq '^127\.0\.0\.1 - - \[[0-9]{2}/[A-Z][a-z]{2}/[0-9]{4}:[0-9:]{8} \+0000\] "GET /small.txt HTTP/1.1" 200 12$' "$T/access.log"
  grep -q '"GET /nope HTTP/1.1" 404 ' "$T/access.log"
  [ "$(grep -c '^httpd: connections' "$T/err.log")" -eq 2 ]
  grep -q "^requests	2	count$" "$T/stats.tsv"
  grep -q "^errors	1	count$" "$T/stats.tsv"
  start_httpd -q
  curl -s -o /dev/null "http://127.0.0.1:$PORT/small.txt"
  kill -TERM "$PID"
  wait_for_exit "$PID"
  [ ! -s "$T/access.log" ]
}

@test "httpd: connections are capped below the fd limit; extra ones get 503" {
  PORT=$(free_port)
  (ulimit -n 40 && exec "$BIN/httpd" -q -r "$W" -p "$PORT" >"$T/access.log" 2>"$T/err.log" </dev/null) 3>&- &
  PID=$!
  wait_for_port "$PORT"
  run $RAW many "$PORT" 20 /small.txt
  echo "$output"
  ok=$(grep -c '^200$' <<<"$output")
  refused=$(grep -c '^503$' <<<"$output")
  [ "$ok" -ge 5 ]
  [ "$refused" -ge 1 ]
  [ "$((ok + refused))" -eq 20 ]
  [ "$(status_of "http://127.0.0.1:$PORT/small.txt")" = 200 ]
}

# fd_count : httpd's ($PID) open descriptors.
fd_count() {
  find "/proc/$PID/fd" -mindepth 1 -maxdepth 1 | wc -l
}

# fds_are N : httpd ($PID) has N descriptors open and no socket in
# CLOSE-WAIT (the client closed, httpd never did).
fds_are() {
  [ "$(fd_count)" -eq "$1" ] && ! ss -Htanp state close-wait | grep -q "pid=$PID,"
}

# closes_after_big_bodies MODE : under a 20-descriptor limit, downloads of a
# 30 MB file that httpd -m MODE ends by closing the connection itself
# (Connection: close; the -k limit) each reach end of file, and leave no
# descriptor behind.  Debian's libowfat 0.32-4 dropped io_close's deferred
# closes (it queues them on a list io_waituntil2 never walks): 6-50% of
# such connections stayed in CLOSE-WAIT for good, the client never saw the
# end of file, the -t timeout never reaped them, and once the limit was
# reached every client got 503.
closes_after_big_bodies() {
  head -c 30000000 /dev/zero >"$W/huge.bin"
  PORT=$(free_port)
  (ulimit -n 20 && exec "$BIN/httpd" -q -t 5 -k 2 -m "$1" -r "$W" -p "$PORT" \
    >"$T/access.log" 2>"$T/err.log" </dev/null) 3>&- &
  PID=$!
  wait_for_port "$PORT"
  idle=$(fd_count)
  run $TOEOF "$PORT" /huge.bin 24 1 close
  echo "Connection: close: $output"
  [ "$output" = "ok 24" ]
  run $TOEOF "$PORT" /huge.bin 12 2
  echo "-k 2: $output"
  [ "$output" = "ok 12" ]
  poll_until 5 fds_are "$idle" || { ss -tanp | grep "pid=$PID,"; false; }
  [ "$(status_of "http://127.0.0.1:$PORT/small.txt")" = 200 ]
}

@test "httpd: connections it closes after a big body are closed at once (sendfile)" {
  require_cmd ss
  closes_after_big_bodies sendfile
}

@test "httpd: connections it closes after a big body are closed at once (-m mmap)" {
  require_cmd ss
  closes_after_big_bodies mmap
}

@test "httpd: -u drops privileges after binding" {
  require_root
  id nobody >/dev/null 2>&1 || skip "no user nobody"
  chmod 755 "$T"
  start_httpd -q -u nobody
  [ "$(ps -o user= -p "$PID" | tr -d ' ')" = nobody ]
  [ "$(status_of "http://127.0.0.1:$PORT/small.txt")" = 200 ]
  run "$BIN/httpd" -r "$W" -p "$(free_port)" -u no-such-user-here
  [ "$status" -ne 0 ]
  [ "${#lines[@]}" -eq 1 ]
}

@test "httpd: a directory redirect never points off the server (no open redirect)" {
  start_httpd -q
  for t in '//evil.example/../sub' 'http://evil.example/sub' 'https://evil.example//sub' \
    '/%2f%2fevil.example/../sub' '//evil.example/..//sub?next=//evil' '/./sub'; do
    out=$($RAW send "$PORT" "GET $t HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n" | tr -d '\r')
    [[ "$out" == "HTTP/1.1 301"* ]] || { echo "no 301 for $t: $out"; false; }
    loc=$(grep '^Location: ' <<<"$out")
    [ "$loc" = "Location: /sub/" ] || { echo "$t -> $loc"; false; }
  done
  mkdir "$W/a b%" "$W/x?y"
  out=$($RAW send "$PORT" 'GET /a%20b%25 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n' | tr -d '\r')
  [ "$(grep '^Location: ' <<<"$out")" = "Location: /a%20b%25/" ]
  out=$($RAW send "$PORT" 'GET //evil.example/../x%3fy HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n' | tr -d '\r')
  [ "$(grep '^Location: ' <<<"$out")" = "Location: /x%3Fy/" ]
  # following the redirect stays here
  [ "$(curl -sL "http://127.0.0.1:$PORT/a%20b%25" -o /dev/null -w '%{http_code}')" = 403 ]
}

@test "httpd: /dir/ serves an index.html symlink that stays in ROOT, as /dir/index.html does" {
  mkdir "$W/inidx" "$W/outidx"
  ln -s ../small.txt "$W/inidx/index.html"
  ln -s ../../secret.txt "$W/outidx/index.html"
  start_httpd -q
  [ "$(status_of "http://127.0.0.1:$PORT/inidx/index.html")" = 200 ]
  [ "$(status_of "http://127.0.0.1:$PORT/inidx/")" = 200 ]
  [ "$(curl -s "http://127.0.0.1:$PORT/inidx/")" = "hello world" ]
  # one that leaves ROOT is refused either way
  [ "$(status_of "http://127.0.0.1:$PORT/outidx/index.html")" = 403 ]
  [ "$(status_of "http://127.0.0.1:$PORT/outidx/")" = 403 ]
  [[ "$(curl -s "http://127.0.0.1:$PORT/outidx/")" != *SENTINEL* ]]
  [ "$(curl -s "http://127.0.0.1:$PORT/sub/")" = "<p>index</p>" ]
}

@test "httpd: symlinks are followed while they stay in ROOT (through directories, .., chains); loops, absolute and escaping ones are 403; the same with the walk (-DOS_BENEATH_WALK, the BSDs' way)" {
  make -C "$ROOT" -s bsdpaths >/dev/null
  ln -s deep/er "$W/dlink"
  ln -s ../../small.txt "$W/deep/er/up"
  ln -s ../deep/../small.txt "$W/sub/zig"
  ln -s c2 "$W/c1"
  ln -s in-link "$W/c2"
  ln -s loop2 "$W/loop1"
  ln -s loop1 "$W/loop2"
  ln -s "$W/small.txt" "$W/abs"
  ln -s ../.. "$W/sub/esc"
  ln -s sub/esc "$W/e1"
  for HTTPD_BIN in "$BIN" "$ROOT/build/bsdpaths/bin"; do
    echo "# $HTTPD_BIN/httpd"
    start_httpd -q
    [ "$(curl -s "http://127.0.0.1:$PORT/dlink/f.css")" = deep ]
    [ "$(curl -s "http://127.0.0.1:$PORT/dlink/up")" = "hello world" ]
    [ "$(curl -s "http://127.0.0.1:$PORT/sub/zig")" = "hello world" ]
    [ "$(curl -s "http://127.0.0.1:$PORT/c1")" = "hello world" ]
    [ "$(status_of "http://127.0.0.1:$PORT/dlink")" = 301 ]
    for p in /loop1 /loop1/x /abs /sub/esc/secret.txt /e1/secret.txt /sub/esc/www/small.txt; do
      out=$($RAW send "$PORT" "GET $p HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
      [[ "$out" == "HTTP/1.1 403"* ]] || { echo "not 403 for $p: ${out%%$'\r'*}"; false; }
      [[ "$out" != *SENTINEL* ]]
    done
    kill -TERM "$PID"
    wait_for_exit "$PID"
  done
}

@test "httpd: control bytes never reach stderr or the access log raw" {
  run "$BIN/httpd" -r "$T/no"$'\n'"pe"$'\033[31m' -p "$(free_port)"
  [ "$status" -ne 0 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ "$output" == *'no\x0ape\x1b[31m'* ]]
  run "$BIN/httpd" -r "$W" -i $'1.2.3.4\nhttpd: forged'
  [ "$status" -ne 0 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ "$output" != *$'\033'* ]]
  start_httpd
  n=0
  for req in 'GET /\xe2\x80\xa8"x\\y%0a%1b HTTP/1.1\r\nHost: t\r\n\r\n' \
    'GET /a\x1b[2J HTTP/1.1\r\nHost: t\r\n\r\n' \
    'GET /a\n127.0.0.1 - - [01/Jan/2000:00:00:00 +0000] "GET /forged HTTP/1.1" 200 1\r\nHost: t\r\n\r\n' \
    'GET /small.txt HTTP/1.1\r\nHost: t\r\nConnection: close\r\nX-Evil: \x1b]0;owned\x07\r\n\r\n' \
    'G\x1bT /small.txt HTTP/1.1\r\nHost: t\r\n\r\n'; do
    $RAW send "$PORT" "$req" >/dev/null
    n=$((n + 1))
  done
  kill -TERM "$PID"
  wait_for_exit "$PID"
  cat -A "$T/access.log"
  [ "$(wc -l <"$T/access.log")" -eq "$n" ]
  [ "$(cat "$T/access.log" "$T/err.log" | grep -c $'\033')" -eq 0 ]
  [ "$(grep -c forged "$T/access.log")" -eq 0 ]
  [ "$(grep -Evc '^127\.0\.0\.1 - - \[[^]]+\] "([ -~])*" [0-9]{3} ([0-9]+|-)$' "$T/access.log")" -eq 0 ]
  grep -qF '"GET /\xe2\x80\xa8\x22x\\y%0a%1b HTTP/1.1" 400' "$T/access.log"
}

# run_stalled_log STDERR_TOO HTTPD_ARGS... : httpd with its access log in a
# pipe that nobody reads, loaded with 400 requests of ~1 KiB log lines
# (far more than the pipe and the log buffer hold together).
run_stalled_log() {
  local both=$1
  shift
  rm -f "$T/logpipe" "$T/stats.tsv" "$T/err.log"
  mkfifo "$T/logpipe"
  # the reader that never reads: it holds the FIFO open and sleeps
  # shellcheck disable=SC2217
  sleep 60 <"$T/logpipe" 3>&- &
  READER=$!
  PORT=$(free_port)
  if [ "$both" = both ]; then
    "$BIN/httpd" -r "$W" -i 127.0.0.1 -p "$PORT" --stats "$T/stats.tsv" "$@" \
      >"$T/logpipe" 2>&1 </dev/null 3>&- &
  else
    "$BIN/httpd" -r "$W" -i 127.0.0.1 -p "$PORT" --stats "$T/stats.tsv" "$@" \
      >"$T/logpipe" 2>"$T/err.log" </dev/null 3>&- &
  fi
  PID=$!
  wait_for_port "$PORT"
  run $LOGLOAD "$PORT" 400 1000
  echo "load: $output"
  [ "$output" = ok=400 ]
  # a new connection is still answered at once
  [ "$(status_of "http://127.0.0.1:$PORT/small.txt" --max-time 3)" = 200 ]
  local kids t0 k
  kids=$(pgrep -P "$PID" || true)
  [ "$#" -eq 0 ] || [ "$(wc -w <<<"$kids")" -eq 2 ]
  t0=$EPOCHREALTIME
  kill -TERM "$PID"
  wait_for_exit "$PID" 3
  local ms=$(( (${EPOCHREALTIME/./} - ${t0/./}) / 1000 ))
  echo "SIGTERM to exit: $ms ms"
  [ "$ms" -lt 1500 ]
  for k in $kids; do
    if kill -0 "$k" 2>/dev/null; then echo "child $k still there"; false; fi
  done
  grep -Eq '^log_dropped	[1-9][0-9]*	count$' "$T/stats.tsv"
  if [ "$both" != both ]; then
    grep -Eq '^httpd: connections [0-9]+ requests 401 .* log_dropped [1-9][0-9]*$' "$T/err.log"
  fi
  kill "$READER"
  READER=
}

@test "httpd: a stalled access-log reader never freezes serving; SIGTERM ends it at once" {
  run_stalled_log log
}

@test "httpd -N 2: a stalled log reader freezes no child; SIGTERM ends them all at once" {
  run_stalled_log log -N 2
}

@test "httpd: stdout and stderr both in a stalled pipe: still serving, SIGTERM still ends it" {
  run_stalled_log both
}
