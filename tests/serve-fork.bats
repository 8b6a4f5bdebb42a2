#!/usr/bin/env bats
# The process-per-connection server: httpd -1 on one connection (fd 0 in,
# fd 1 out, the log on fd 2), and the serve-cold-fork / serve-warm-fork
# phases, tcpserver forking httpd -1 for each connection of the replay.
# Each @test runs in its own subshell: exports there are meant to be local.
# shellcheck disable=SC2030,SC2031
load helpers

setup() {
  T=$BATS_TEST_TMPDIR
  export RESULTS=$T/results HOST=testhost VARIANT=v1 SHOOTOUT_ROOT=$ROOT HARNESS_BIN=$BIN
  unset RUN_ID TARGET DATASET SEED SOURCE FLUSH TRIALS PORT TRIAL SERVE_PROCS SERVE_MODES TCPSERVER FORKLAT
  TMPFS=''
  mkdir -p "$T/root/sub"
  printf 'hello\n' >"$T/root/a.txt"
  head -c 200000 /dev/urandom >"$T/root/sub/big.bin"
  printf 'secret\n' >"$T/outside.txt"
}

teardown() {
  # Whatever a failed test left running names $T in its arguments.
  if pkill -TERM -f -- "$T/" 2>/dev/null; then
    POLL_STEP=0.1 poll_until 5 no_process "$T/" || true
    pkill -KILL -f -- "$T/" 2>/dev/null || true
  fi
  if [ -n "$TMPFS" ] && mountpoint -q "$TMPFS"; then umount "$TMPFS" || umount -l "$TMPFS"; fi
}

# oneconn MODE REQUESTS-PYTHON-LITERAL : runs httpd -1 -r $T/root on a
# socketpair (MODE socket) or a pair of pipes (MODE pipe), sends the
# requests, closes its side, and prints each response's status line and
# body length and sha1, then "exit N" and the log lines (requests the server
# no longer reads, after it ended the connection, are not sent).  The client waits
# at most 10 s for everything.
oneconn() {
  python3 - "$BIN/httpd" "$T/root" "$1" "$2" <<'EOF'
import ast, hashlib, os, socket, subprocess, sys
httpd, root, mode, reqs = sys.argv[1], sys.argv[2], sys.argv[3], ast.literal_eval(sys.argv[4])
if mode == "socket":
    ours, theirs = socket.socketpair()
    ours.settimeout(10)
    p = subprocess.Popen([httpd, "-1", "-r", root], stdin=theirs, stdout=theirs, stderr=subprocess.PIPE)
    theirs.close()
    try:
        for r in reqs:
            ours.sendall(r)
        ours.shutdown(socket.SHUT_WR)
    except (BrokenPipeError, ConnectionResetError):
        pass  # the server ended the connection (as after a 400): read what it sent
    data = b""
    while True:
        d = ours.recv(65536)
        if not d:
            break
        data += d
    err = p.stderr.read()
else:
    p = subprocess.Popen([httpd, "-1", "-r", root], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    data, err = p.communicate(b"".join(reqs), timeout=10)
rc = p.wait(timeout=10)
while data:
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    n = 0
    for l in lines[1:]:
        k, _, v = l.partition(b":")
        if k.lower() == b"content-length":
            n = int(v)
    body, data = rest[:n], rest[n:]
    print(lines[0].decode(), len(body), hashlib.sha1(body).hexdigest())
print("exit", rc)
sys.stdout.write(err.decode())
EOF
}

sha() {
  sha1sum "$1" | cut -d' ' -f1
}

@test "httpd -1 answers two keep-alive requests on a socket (sendfile) and on pipes (read/write), logs them on fd 2, exits 0 at EOF" {
  [ -x "$BIN/httpd" ] || skip "bin/httpd is not built"
  reqs='[b"GET /sub/big.bin HTTP/1.1\r\nHost: x\r\n\r\n", b"GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\n"]'
  export TCPREMOTEIP=192.0.2.7 TCPREMOTEPORT=4711
  for mode in socket pipe; do
    run oneconn "$mode" "$reqs"
    echo "$mode: $output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "HTTP/1.1 200 OK 200000 $(sha "$T/root/sub/big.bin")" ]
    [ "${lines[1]}" = "HTTP/1.1 200 OK 6 $(sha "$T/root/a.txt")" ]
    [ "${lines[2]}" = "exit 0" ]
    [[ ${lines[3]} == "192.0.2.7 - - ["*'] "GET /sub/big.bin HTTP/1.1" 200 200000' ]]
    [[ ${lines[4]} == "192.0.2.7 - - ["*'] "GET /a.txt HTTP/1.1" 200 6' ]]
    [ "${#lines[@]}" -eq 5 ]
  done
}

@test "httpd -1 refuses a path out of ROOT and keeps the connection; a malformed request is answered 400 and ends it" {
  [ -x "$BIN/httpd" ] || skip "bin/httpd is not built"
  reqs='[b"GET /../outside.txt HTTP/1.1\r\nHost: x\r\n\r\n", b"GET /%2e%2e/outside.txt HTTP/1.1\r\nHost: x\r\n\r\n", b"GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\n", b"BAD\x01 REQUEST\r\n\r\n", b"GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\n"]'
  unset TCPREMOTEIP
  run oneconn socket "$reqs"
  echo "$output"
  [ "$status" -eq 0 ]
  [[ ${lines[0]} == "HTTP/1.1 403 Forbidden "* ]]
  [[ ${lines[1]} == "HTTP/1.1 403 Forbidden "* ]]
  [ "${lines[2]}" = "HTTP/1.1 200 OK 6 $(sha "$T/root/a.txt")" ]
  [[ ${lines[3]} == "HTTP/1.1 400 Bad Request "* ]]
  # Nothing after the 400: the connection is over, and httpd with it.
  [ "${lines[4]}" = "exit 0" ]
  [[ $output != *secret* ]]
  # No TCPREMOTEIP and a socketpair has no address: the peer is "-"; the bad
  # request line is shown escaped.
  [[ ${lines[5]} == '- - - ['*'] "GET /../outside.txt HTTP/1.1" 403 '* ]]
  [[ ${lines[8]} == '- - - ['*'] "-" 400 '* ]]
}

@test "httpd -1 is in -h; with -p, -N, --reuseport or -i it is refused in one line" {
  [ -x "$BIN/httpd" ] || skip "bin/httpd is not built"
  run "$BIN/httpd" -h
  [[ $output == *"httpd -1 -r ROOT"* ]]
  [[ $output == *"-1         one connection"* ]]
  for o in "-p 8000" "-N 2" "--reuseport" "-i 127.0.0.1"; do
    # shellcheck disable=SC2086 # option and value as two words
    run "$BIN/httpd" -1 -r "$T/root" $o
    [ "$status" -eq 2 ]
    [ "$output" = "httpd: -1 serves the connection on fd 0 and 1: no -i, -p, -N or --reuseport" ]
  done
}

# require_tools : the tools the phases run, the tiny profile.
require_tools() {
  local t
  for t in mkdataset dltar httpd replay resident; do
    [ -x "$BIN/$t" ] || skip "bin/$t is not built"
  done
}

# records_of RUNDIR PHASE METRIC : the values of METRIC of PHASE.
records_of() {
  awk -F '\t' -v p="$2" -v m="$3" '$1 == p && $3 == m { print $4 }' "$1/records.tsv"
}

# tiny_on_tmpfs : a tmpfs at $TMPFS with the tiny dataset untarred into it.
tiny_on_tmpfs() {
  require_root
  require_tools
  TMPFS=$T/tmpfs
  mkdir -p "$TMPFS"
  mount -t tmpfs -o size=128m tmpfs "$TMPFS"
  export TARGET=$TMPFS DATASET=tiny FLUSH=none
  "$ROOT/harness/phase-untar.sh"
  "$ROOT/harness/phase-untar2.sh"
  d=$RESULTS/$(cat "$RESULTS/.current")/$HOST/$VARIANT
}

@test "serve-cold-fork and serve-warm-fork: tcpserver forks httpd -1 per connection, the tiny dataset served with 0 failures, no process left" {
  require_cmd tcpserver
  tiny_on_tmpfs
  run make -C "$ROOT" -s phase-serve TARGET="$TMPFS" DATASET=tiny FLUSH=none SERVE_MODES="1 fork" REPLAY_CONC=20 REPLAY_COUNT=600 FORKLAT=1
  echo "$output"
  [ "$status" -eq 0 ]
  [ ! -e "$d/failures.tsv" ]
  for p in serve-cold-fork serve-warm-fork serve-cold-1 serve-warm-1; do
    [ "$(records_of "$d" "$p" status)" = 0 ] || { echo "$p: no status 0"; false; }
    [ "$(records_of "$d" "$p" requests)" -eq 600 ]
    [ "$(records_of "$d" "$p" failed)" -eq 0 ]
    [ "$(records_of "$d" "$p" conc)" -eq 20 ]
    awk -v v="$(records_of "$d" "$p" rps)" 'BEGIN { exit !(v > 0) }'
    # The server's CPU: for fork, tcpserver's and every httpd -1's.
    awk -v v="$(records_of "$d" "$p" cpu_share_httpd)" 'BEGIN { exit !(v > 0) }'
  done
  [ -n "$(records_of "$d" serve-cold-fork resident_pct)" ]
  # FORKLAT=1: every httpd -1's open and first-byte times, summed: one per request.
  [ "$(jq -r .forklat "$d/meta.json")" = on ]
  for p in serve-cold-fork serve-warm-fork; do
    for h in httpd_open_ns httpd_ttfb_ns; do
      [ "$(awk -F '\t' -v h="$h" '$1 == h { s += $4 } END { print s + 0 }' "$d/latency/$p-1.tsv")" -eq 600 ] ||
        { echo "$p: $h does not count 600 requests"; false; }
    done
  done
  # tcpserver and every httpd -1 name the tree under $T: none is left.
  run pgrep -af -- "$T/"
  [ "$status" -eq 1 ] || { echo "left behind: $output"; false; }
}

# The fork mode's appended histograms cost it 4.4% of its requests/s
# (docs/latency.md): off by default, FORKLAT=1 turns them on.
@test "FORKLAT unset: the fork phases run without httpd histograms and meta.json says forklat off; FORKLAT=2 is refused in one line" {
  require_cmd tcpserver jq
  tiny_on_tmpfs
  run make -C "$ROOT" -s phase-serve TARGET="$TMPFS" DATASET=tiny FLUSH=none SERVE_MODES="1 fork" REPLAY_CONC=10 REPLAY_COUNT=100
  echo "$output"
  [ "$status" -eq 0 ]
  for p in serve-cold-fork serve-warm-fork; do
    [ "$(records_of "$d" "$p" requests)" -eq 100 ]
    [ "$(records_of "$d" "$p" failed)" -eq 0 ]
    [ ! -e "$d/latency/$p-1.tsv" ] || { echo "$p has httpd histograms with FORKLAT unset"; cat "$d/latency/$p-1.tsv"; false; }
  done
  # the -N server's own histograms are not the fork mode's: they stay
  [ "$(awk -F '\t' '$1 == "httpd_open_ns" { s += $4 } END { print s + 0 }' "$d/latency/serve-cold-1-1.tsv")" -eq 100 ]
  [ "$(jq -r .forklat "$d/meta.json")" = off ]
  run env SERVE_MODES=fork FORKLAT=2 "$ROOT/harness/phase-serve.sh"
  [ "$status" -eq 2 ]
  [ "$output" = "phase-serve.sh: FORKLAT=2: want 0 or 1" ]
  [ "$(records_of "$d" serve-cold-fork requests)" -eq 100 ] # no trial written
}

@test "without tcpserver the fork phases are skipped with the reason, the others run; a bad mode is one line" {
  tiny_on_tmpfs
  run env SERVE_MODES="1 fork" REPLAY_CONC=10 REPLAY_COUNT=100 TCPSERVER="$T/no-such-tcpserver" "$ROOT/harness/phase-serve.sh"
  echo "$output"
  [ "$status" -eq 0 ]
  [ ! -e "$d/failures.tsv" ]
  for p in serve-cold-1 serve-warm-1; do
    [ "$(records_of "$d" "$p" status)" = 0 ] || { echo "$p: no status 0"; false; }
  done
  for p in serve-cold-fork serve-warm-fork; do
    [ "$(records_of "$d" "$p" status)" = skipped ]
    [ "$(records_of "$d" "$p" skip_reason)" = "no $T/no-such-tcpserver: install ucspi-tcp (Debian: apt-get install ucspi-tcp) for the process-per-connection server" ]
    [ -z "$(records_of "$d" "$p" requests)" ]
  done
  [[ $output == *"serve-cold-fork: skipped, no $T/no-such-tcpserver: install ucspi-tcp"* ]]
  # A mode that is neither a number nor fork: one line.
  run env SERVE_MODES="1 threads" "$ROOT/harness/phase-serve.sh"
  [ "$status" -ne 0 ]
  [ "$output" = "phase-serve.sh: SERVE_MODES='1 threads': want numbers of processes and fork, like '1 32 fork'" ]
}

# httpd_spy : HARNESS_BIN with our tools and an httpd that notes its
# arguments (one line a start in $T/httpd-args) before it becomes bin/httpd.
httpd_spy() {
  local t
  mkdir -p "$T/spybin"
  for t in "$BIN"/*; do ln -sf "$t" "$T/spybin/"; done
  rm -f "$T/spybin/httpd"
  printf '#!/bin/bash\nprintf "%%s\\n" "$*" >>"%s"\nexec "%s" "$@"\n' "$T/httpd-args" "$BIN/httpd" >"$T/spybin/httpd"
  chmod +x "$T/spybin/httpd"
  export HARNESS_BIN=$T/spybin
}

# The serve phase's httpd -N shares one listening socket among its
# processes, as the method's 32 servers did; SERVE_REUSEPORT=1 asks for a
# socket each (httpd --reuseport), and meta.json says which.
@test "phase-serve: httpd -N shares one socket by default; SERVE_REUSEPORT=1 passes --reuseport; meta.json serve_socket says which" {
  require_cmd jq
  tiny_on_tmpfs
  httpd_spy
  run env SERVE_MODES=4 REPLAY_CONC=10 REPLAY_COUNT=100 "$ROOT/harness/phase-serve.sh"
  echo "$output"
  [ "$status" -eq 0 ]
  cat "$T/httpd-args"
  [ "$(grep -c -- '-N 4 ' "$T/httpd-args")" -eq 2 ] # cold and warm
  [ "$(grep -c -- --reuseport "$T/httpd-args")" -eq 0 ]
  [ "$(jq -r .serve_socket "$d/meta.json")" = shared ]
  rm "$T/httpd-args"
  run env SERVE_REUSEPORT=1 RUN_ID=reuse SERVE_MODES=4 REPLAY_CONC=10 REPLAY_COUNT=100 "$ROOT/harness/phase-serve.sh"
  echo "$output"
  [ "$status" -eq 0 ]
  cat "$T/httpd-args"
  [ "$(grep -c -- '-N 4 --reuseport ' "$T/httpd-args")" -eq 2 ]
  [ "$(jq -r .serve_socket "$RESULTS/reuse/$HOST/$VARIANT/meta.json")" = reuseport ]
  [ "$(records_of "$RESULTS/reuse/$HOST/$VARIANT" serve-warm-4 failed)" -eq 0 ]
  run env SERVE_REUSEPORT=yes "$ROOT/harness/phase-serve.sh"
  [ "$status" -eq 2 ]
  [ "$output" = "phase-serve.sh: SERVE_REUSEPORT=yes: want 0 or 1" ]
}
