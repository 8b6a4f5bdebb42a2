#!/usr/bin/env bats
# Every tool of the Makefile's BINS (make bin-list) answers its command line
# alike (lib/usage.c): -h and --help print the usage on stdout and exit 0,
# --version prints "TOOL VERSION", an unknown option or a missing value is
# one line on stderr naming it and exit 2, and so is a missing argument.
# A new tool in BINS is checked here without a word more.  Then the
# options that behave alike where tools share them: --stats - (standard
# output), a URL's scheme, replay's http://HOST:PORT/ target.
load helpers

setup_file() {
  TOOLS=$(make -s -C "$ROOT" bin-list)
  export TOOLS
}

setup() {
  T=$(mktemp -d)
}

teardown() {
  [ -z "${SERVER:-}" ] || { kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; }
  rm -rf "$T"
}

# each TOOL: runs "$@" (a function of the tool's name) for every tool, and
# fails naming the first tool it fails for.
each() {
  local t
  [ -n "$TOOLS" ]
  for t in $TOOLS; do
    "$@" "$t" || { echo "failed for $t" >&2; return 1; }
  done
}

# out_err TOOL ARGS... : runs the tool, stdout into $T/out, stderr into
# $T/err; the status in $rc.
out_err() {
  local t=$1
  shift
  rc=0
  "$BIN/$t" "$@" >"$T/out" 2>"$T/err" </dev/null || rc=$?
}

help_ok() {
  local t=$1 a
  for a in -h --help; do
    out_err "$t" "$a"
    [ "$rc" -eq 0 ] || { echo "$t $a: exit $rc" >&2; return 1; }
    [ ! -s "$T/err" ] || { echo "$t $a: wrote on stderr" >&2; return 1; }
    [[ $(head -n 1 "$T/out") == "usage: $t "* ]] || { echo "$t $a: no usage line" >&2; return 1; }
  done
  # the usage names the shared options themselves
  if ! grep -qE '^ +-h, --help ' "$T/out" || ! grep -qE '^ +--version ' "$T/out"; then
    echo "$t -h: does not list -h, --help and --version" >&2
    return 1
  fi
}

version_ok() {
  out_err "$1" --version
  if [ "$rc" -ne 0 ] || [ -s "$T/err" ] || ! [[ $(head -n 1 "$T/out") =~ ^$1\ [0-9]+\.[0-9]+ ]]; then
    echo "$1 --version: exit $rc, $(head -n 1 "$T/out")" >&2
    return 1
  fi
}

# refused TOOL LINE ARGS... : exit 2, nothing on stdout, exactly LINE on stderr.
refused() {
  local t=$1 want=$2
  shift 2
  out_err "$t" "$@"
  if [ "$rc" -ne 2 ] || [ -s "$T/out" ] || [ "$(cat "$T/err")" != "$want" ]; then
    echo "$t $*: exit $rc, stderr: $(cat "$T/err")" >&2
    echo "  wanted: $want" >&2
    return 1
  fi
}

unknown_ok() {
  local t=$1
  refused "$t" "$t: unknown option --no-such-option ($t -h lists them)" --no-such-option x
  refused "$t" "$t: unknown option -Z ($t -h lists them)" -Z x
  refused "$t" "$t: unknown option --help=x ($t -h lists them)" --help=x x 2>/dev/null ||
    refused "$t" "$t: option --help takes no value ($t -h lists them)" --help=x x
}

# Every tool but resident (which reads the paths on stdin then) needs an
# argument: without any it is a usage error, one line, exit 2.
bare_ok() {
  local t=$1
  [ "$t" != resident ] || return 0
  out_err "$t"
  if [ "$rc" -ne 2 ] || [ -s "$T/out" ] || [ "$(wc -l <"$T/err")" -ne 1 ] || ! grep -q "^$t: " "$T/err"; then
    echo "$t without arguments: exit $rc, stderr: $(cat "$T/err")" >&2
    return 1
  fi
}

@test "tools-cli: BINS lists the tools and each is built" {
  [ "$(echo "$TOOLS" | wc -w)" -ge 8 ]
  for t in $TOOLS; do [ -x "$BIN/$t" ]; done
}

@test "tools-cli: -h and --help print the usage on stdout and exit 0, for every tool" {
  each help_ok
}

@test "tools-cli: --version prints TOOL VERSION and exits 0, for every tool" {
  each version_ok
}

@test "tools-cli: an unknown option is one line naming it, exit 2, for every tool" {
  each unknown_ok
}

@test "tools-cli: no arguments is one line and exit 2, for every tool that needs one" {
  each bare_ok
}

@test "tools-cli: an option without its value is one line, exit 2" {
  refused replay "replay: option -c needs a value (replay -h lists them)" -c
  refused replay "replay: option --stats needs a value (replay -h lists them)" --stats
  refused dltar "dltar: option -C needs a value (dltar -h lists them)" -C
  refused rmtree "rmtree: option --series needs a value (rmtree -h lists them)" --series
  refused resident "resident: option -n needs a value (resident -h lists them)" -n
  refused fsdisco "fsdisco: option --stats needs a value (fsdisco -h lists them)" --stats
}

@test "tools-cli: httpd's usage errors exit 2: no -r, a bad value, an argument" {
  refused httpd "httpd: -r ROOT is required (httpd -h lists the options)" -p 8000
  refused httpd "httpd: -p: not a port number: 70000" -r "$T" -p 70000
  refused httpd "httpd: unexpected argument: extra" -r "$T" extra
  refused httpd "httpd: --stats -: with -1, standard output is the connection (give a file)" -1 -r "$T" --stats -
}

@test "tools-cli: dltar names a URL scheme it cannot fetch, exit 2" {
  mkdir "$T/x"
  refused dltar "dltar: unsupported URL scheme htp (dltar fetches http:// only)" -C "$T/x" htp://127.0.0.1/x.tgz
  refused dltar "dltar: unsupported URL scheme ftp (dltar fetches http:// only)" -C "$T/x" ftp://127.0.0.1/x.tgz
  [ -z "$(ls -A "$T/x")" ]
}

start_httpd() {
  mkdir -p "$T/www"
  echo hello >"$T/www/a.txt"
  PORT=$(free_port)
  "$BIN/httpd" -q -r "$T/www" -i 127.0.0.1 -p "$PORT" 3>&- &
  SERVER=$!
  wait_for_port "$PORT"
}

@test "tools-cli: replay takes http://HOST:PORT/ as wrk and ab do; --stats - is stdout" {
  start_httpd
  cd "$T"
  run "$BIN/replay" -c 1 -U /a.txt -n 3 --stats - "http://127.0.0.1:$PORT/"
  [ "$status" -eq 0 ]
  [[ $output == *"3 ok, 0 failed"* ]]
  # the figures follow the summary on stdout, and no file named - is made
  [ "$(printf '%s\n' "$output" | awk -F'\t' '$1 == "requests" { print $2 }')" -eq 3 ]
  [ ! -e "$T/-" ]
  run "$BIN/replay" -c 1 -U /a.txt -n 1 "127.0.0.1:$PORT"
  [ "$status" -eq 0 ]
  refused replay "replay: unsupported URL scheme https (replay speaks http://)" -U /a.txt -n 1 "https://127.0.0.1:$PORT/"
  refused replay "replay: a path in the target: http://127.0.0.1:$PORT/a.txt (the paths come from -u or -U; give http://HOST:PORT/)" \
    -U /a.txt -n 1 "http://127.0.0.1:$PORT/a.txt"
}

@test "tools-cli: --stats - writes the figures on stdout: rmtree, httpd" {
  mkdir -p "$T/tree/d"
  touch "$T/tree/d/f"
  run "$BIN/rmtree" --stats - "$T/tree"
  [ "$status" -eq 0 ]
  [ "$(printf '%s\n' "$output" | awk -F'\t' '$1 == "files" { print $2 }')" -eq 1 ]
  [ ! -e "$T/tree" ]
  [ ! -e ./- ]
  mkdir -p "$T/www"
  PORT=$(free_port)
  "$BIN/httpd" -q -r "$T/www" -i 127.0.0.1 -p "$PORT" --stats - >"$T/stats" 3>&- &
  SERVER=$!
  wait_for_port "$PORT"
  curl -s -o /dev/null "http://127.0.0.1:$PORT/"
  kill -TERM "$SERVER"
  wait "$SERVER"
  SERVER=
  [ "$(awk -F'\t' '$1 == "requests" { print $2 }' "$T/stats")" -ge 1 ]
}
