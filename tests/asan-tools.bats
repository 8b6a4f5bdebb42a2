#!/usr/bin/env bats
# The tools themselves (not only their C unit tests) under ASan+UBSan, on
# hostile input: build/asan/bin/ (make asan-bins) runs hostile archives,
# bad profiles, a hostile server and malformed requests.  Each test asserts
# what a user sees (the exit status, one error line) and that no sanitizer
# report reached stderr.  Leak checking is off: a tool that exits on an
# error leaves its memory to the kernel on purpose.
# PORT and PID are set by the tests for teardown, on purpose:
# shellcheck disable=SC2030,SC2031
load helpers

ASAN_BIN=$ROOT/build/asan/bin
FIX=$BATS_TEST_DIRNAME/fixtures/asan
export ASAN_OPTIONS=halt_on_error=1:abort_on_error=0:detect_leaks=0:exitcode=86
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=87

setup() {
  require_cmd python3
  local b
  for b in dltar mkdataset replay httpd rmtree; do
    [ -x "$ASAN_BIN/$b" ] || { echo "$ASAN_BIN/$b missing: run 'make asan-bins'" >&2; return 1; }
  done
  T=$(mktemp -d "${BATS_TMPDIR:-/tmp}/asan-tools.XXXXXX")
  PID=
}

teardown() {
  if [ -n "${PID:-}" ] && kill -0 "$PID" 2>/dev/null; then
    kill -TERM "$PID" 2>/dev/null || true
    wait_for_exit "$PID" 10 || kill -KILL "$PID" 2>/dev/null || true
  fi
  rm -rf "$T"
}

# san TOOL ARGS... : run build/asan/bin/TOOL, stdout to $T/out, stderr to
# $T/err, its exit status in $status.
san() {
  local tool=$1
  shift
  status=0
  "$ASAN_BIN/$tool" "$@" >"$T/out" 2>"$T/err" </dev/null 3>&- || status=$?
}

# no_sanitizer_report [FILE] : no ASan/UBSan report in FILE ($T/err).
no_sanitizer_report() {
  local f=${1:-$T/err}
  if grep -qE 'runtime error|AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer' "$f"; then
    echo "sanitizer report in $f:" >&2
    cat "$f" >&2
    return 1
  fi
}

# one_line_error TOOL STATUS : exited STATUS with one "TOOL: ..." line on
# stderr, and no sanitizer report.
one_line_error() {
  no_sanitizer_report
  [ "$status" -eq "$2" ] || { echo "exit $status, want $2; stderr:" >&2; cat "$T/err" >&2; return 1; }
  [ "$(wc -l <"$T/err")" -eq 1 ] || { echo "want one line on stderr:" >&2; cat "$T/err" >&2; return 1; }
  grep -q "^$1: " "$T/err"
}

# no_control_bytes FILE... : nothing outside printable ASCII but newlines.
no_control_bytes() {
  if LC_ALL=C grep -qP '[^\x20-\x7e\n]' "$@"; then
    echo "raw control bytes in:" >&2
    od -c "$@" | head -20 >&2
    return 1
  fi
}

@test "dltar under ASan+UBSan: hostile archives are refused with one line, nothing lands outside" {
  mkdir "$T/x" "$T/outside"
  python3 "$FIX/mkarchives.py" "$T" "$T/outside"
  for a in dotdot.tar absolute.tar symlink-escape.tar; do
    san dltar -C "$T/x" "$T/$a"
    one_line_error dltar 1
    grep -q 'refused' "$T/err"
  done
  san dltar -C "$T/x" "$T/truncated.tar.gz"
  one_line_error dltar 1
  grep -q 'truncated' "$T/err"
  [ -z "$(ls -A "$T/outside")" ]
  san dltar -C "$T/x" "$T/good.tar.gz"
  no_sanitizer_report
  [ "$status" -eq 0 ]
  [ "$(cat "$T/x/d/b.txt")" = b ]
}

@test "dltar under ASan+UBSan: a server's malformed answers are one-line errors" {
  PORT=$(free_port)
  python3 "$FIX/server.py" "$PORT" "$T/ready" 'HTTP/1.1 200 OK\r\nContent-Length: 12x\r\n\r\nhello' 3>&- &
  PID=$!
  wait_for_file "$T/ready"
  mkdir "$T/x"
  san dltar -C "$T/x" "http://127.0.0.1:$PORT/a.tar"
  one_line_error dltar 1
  kill "$PID"
  wait_for_exit "$PID"
  PORT=$(free_port)
  rm -f "$T/ready"
  python3 "$FIX/server.py" "$PORT" "$T/ready" 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n' 3>&- &
  PID=$!
  wait_for_file "$T/ready"
  san dltar -C "$T/x" "http://127.0.0.1:$PORT/a.tar"
  one_line_error dltar 1
}

# tiny.profile without its update.* lines: qsort was handed NULL (UBSan).
@test "mkdataset under ASan+UBSan: a profile with no update makes a dataset" {
  grep -v '^update\.' "$ROOT/datasets/tiny.profile" >"$T/noupdate.profile"
  san mkdataset -p "$T/noupdate.profile" -o "$T/ds"
  no_sanitizer_report
  [ "$status" -eq 0 ]
  grep -qx 'update_files	0' "$T/ds/dataset.txt"
}

@test "mkdataset under ASan+UBSan: a capture whose log hits nothing makes a dataset" {
  printf 'a.jpg 10\nb/c.jpg 20\n' >"$T/list"
  : >"$T/log"
  san mkdataset -c "$T/list" -a "$T/log" -o "$T/ds"
  no_sanitizer_report
  [ "$status" -eq 0 ]
  grep -qx 'update_files	0' "$T/ds/dataset.txt"
}

@test "mkdataset under ASan+UBSan: bad profiles are one-line errors naming file and line" {
  local bad
  for bad in 'zipf x' 'photos' 'nokey 1' 'photos 1 2' 'requests 99999999999999999999' "$(head -c 600 /dev/zero | tr '\0' 'a')"; do
    { grep -v '^requests' "$ROOT/datasets/tiny.profile"; printf '%s\n' "$bad"; } >"$T/bad.profile"
    san mkdataset -p "$T/bad.profile" -o "$T/ds"
    one_line_error mkdataset 1
    grep -q 'bad.profile:[0-9]*: ' "$T/err"
  done
  : >"$T/empty.profile"
  san mkdataset -p "$T/empty.profile" -o "$T/ds"
  one_line_error mkdataset 1
  grep -q 'missing (required key)' "$T/err"
}

@test "mkdataset: a profile line with a newline-free control byte and ESC prints escaped" {
  printf 'photos 10\nfull.median 1000\nfull.spread 0.5\nthumb.median 100\nthumb.spread 0.5\nrequests 10\nzipf 1\x1b[31m\x07\n' >"$T/ctl.profile"
  san mkdataset -p "$T/ctl.profile" -o "$T/ds"
  one_line_error mkdataset 1
  no_control_bytes "$T/err"
  grep -qF "ctl.profile:7: zipf: want a decimal number from 0 to 3 (got '1\\x1b[31m\\x07')" "$T/err"
}

@test "replay under ASan+UBSan: a hostile server's answers count as failed, no report" {
  local resp
  for resp in 'garbage\r\n\r\n' 'HTTP/1.1 200 OK\r\nContent-Length: -5\r\n\r\n' \
    'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffffffff\r\n' \
    'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort' 'HTTP/1.1 99999 X\r\n\r\n' ''; do
    PORT=$(free_port)
    rm -f "$T/ready"
    python3 "$FIX/server.py" "$PORT" "$T/ready" "$resp" 3>&- &
    PID=$!
    wait_for_file "$T/ready"
    san replay -c 2 -k 1 -r 0 -t 5 -U /x -n 4 "127.0.0.1:$PORT"
    no_sanitizer_report
    no_sanitizer_report "$T/out"
    [ "$status" -eq 1 ] || { echo "response '$resp': exit $status" >&2; cat "$T/out" "$T/err" >&2; return 1; }
    kill "$PID"
    wait_for_exit "$PID"
  done
}

@test "replay under ASan+UBSan: --slices with a gate of hostile lines is one line and exit 2, go/go ends well" {
  printf 'hello\n' >"$T/a.txt"
  PORT=$(free_port)
  "$ASAN_BIN/httpd" -r "$T" -i 127.0.0.1 -p "$PORT" -q >"$T/hout" 2>"$T/herr" </dev/null 3>&- &
  PID=$!
  wait_for_port "$PORT"
  local gate
  for gate in 'stop\n' '' 'go\n\x1b\xff\x00' "$(head -c 100 /dev/zero | tr '\0' g)\\n" 'go\ngo\n'; do
    printf '%b' "$gate" >"$T/gate-in"
    : >"$T/gate-out"
    san replay -c 2 -k 3 -U /a.txt -n 5 --min-time 0.2 --slices 3 --gate-in "$T/gate-in" --gate-out "$T/gate-out" \
      --stats "$T/s.tsv" "127.0.0.1:$PORT"
    if [ "$gate" = 'go\ngo\n' ]; then
      no_sanitizer_report
      [ "$status" -eq 0 ] || { echo "gate '$gate': exit $status" >&2; cat "$T/out" "$T/err" >&2; return 1; }
      [ "$(cat "$T/gate-out")" = "paused 1
paused 2" ]
      grep -q '^steady_slices	3	count$' "$T/s.tsv"
    else
      one_line_error replay 2
      grep -q '^replay: gate: ' "$T/err"
      no_control_bytes "$T/err"
      [ ! -e "$T/s.tsv" ]
    fi
  done
  kill -TERM "$PID"
  wait_for_exit "$PID" 10
  no_sanitizer_report "$T/herr"
}

@test "httpd under ASan+UBSan: malformed requests get 4xx and leave no report" {
  mkdir -p "$T/www/sub"
  printf 'hello\n' >"$T/www/a.txt"
  PORT=$(free_port)
  "$ASAN_BIN/httpd" -r "$T/www" -i 127.0.0.1 -p "$PORT" -q -t 3 >"$T/hout" 2>"$T/herr" </dev/null 3>&- &
  PID=$!
  wait_for_port "$PORT"
  local raw="python3 $BATS_TEST_DIRNAME/fixtures/rawhttp.py" req out
  for req in 'GET /../../etc/passwd HTTP/1.1\r\nConnection: close\r\n\r\n' \
    'GET /%2e%2e/%2e%2e/x HTTP/1.1\r\nConnection: close\r\n\r\n' \
    'GET /a.txt%00 HTTP/1.1\r\nConnection: close\r\n\r\n' \
    'GET / HTTP/9.9\r\n\r\n' '\x00\x01\x02\xff\r\n\r\n' 'GET /a.txt HTTP/1.1\r\nRange: bytes=-0,99999999999999999999999-1\r\nConnection: close\r\n\r\n' \
    'GET /a.txt HTTP/1.1\r\nIf-Modified-Since: Sun, 99 Zzz 1994 99:99:99 GMT\r\nConnection: close\r\n\r\n' \
    'GET /a.txt HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n' \
    "GET /$(head -c 5000 /dev/zero | tr '\0' a) HTTP/1.1\r\n\r\n"; do
    out=$($raw send "$PORT" "$req")
    [[ $out == HTTP/1.1\ [2-5][0-9][0-9]* ]] || { echo "request '$req': '$out'" >&2; return 1; }
  done
  out=$($raw send "$PORT" 'GET /../../etc/passwd HTTP/1.1\r\nConnection: close\r\n\r\n')
  [[ $out == HTTP/1.1\ 4* ]]
  kill -TERM "$PID"
  wait_for_exit "$PID" 10
  no_sanitizer_report "$T/herr"
}

@test "rmtree under ASan+UBSan: refuses a symlink and '..', removes a hostile tree" {
  mkdir -p "$T/outside" "$T/t/a/b"
  printf keep >"$T/outside/keep"
  ln -s "$T/outside" "$T/t/a/link"
  ln -s "$T/outside" "$T/top-link"
  printf x >"$T/t/a/b/$(printf 'n\nm\033[2J')"
  san rmtree "$T/top-link"
  one_line_error rmtree 2
  san rmtree "$T/t/a/.."
  one_line_error rmtree 2
  mkdir "$T/t/$(printf 'c\n\033[2J')"
  san rmtree "$T/t/$(printf 'c\n\033[2J')/.."
  one_line_error rmtree 2
  no_control_bytes "$T/err"
  san rmtree "$T/t"
  no_sanitizer_report
  [ "$status" -eq 0 ]
  [ ! -e "$T/t" ]
  [ "$(cat "$T/outside/keep")" = keep ]
}
