#!/usr/bin/env bats
# bin/dltar: formats against GNU tar and bsdtar, stdin and HTTP sources,
# hostile and broken archives, a full disk.
load helpers

# A tree with long names (>100 and >255), UTF-8 names, symlinks, hard links,
# empty files and directories, odd modes and sizes around the block size.
make_tree() {
  local s=$1 long
  long=$(printf 'n%.0s' $(seq 1 120))
  mkdir -p "$s/a/b/c" "$s/empty" "$s/$long/$long" "$s/ro" "$s/private" "$s/ünïcødé dir"
  echo hello >"$s/a/b/c/hello.txt"
  : >"$s/a/empty-file"
  head -c 511 /dev/urandom >"$s/a/b/511"
  head -c 512 /dev/urandom >"$s/a/b/512"
  head -c 513 /dev/urandom >"$s/a/b/513"
  head -c 1300000 /dev/urandom >"$s/a/big.bin"
  echo deep >"$s/$long/$long/$long.txt"
  echo utf >"$s/ünïcødé dir/日本語-ファイル.txt"
  printf 'x%.0s' $(seq 1 200) >"$s/$(printf 'f%.0s' $(seq 1 200))"
  ln -s b/c/hello.txt "$s/a/link-to-hello"
  ln -s ../a "$s/empty/up-link"
  ln -s does-not-exist "$s/a/dangling"
  ln "$s/a/b/c/hello.txt" "$s/a/hard-hello"
  ln "$s/a/big.bin" "$s/$long/big-hard"
  echo secret >"$s/private/key"
  echo x >"$s/ro/file"
  chmod 600 "$s/private/key"
  chmod 700 "$s/private"
  chmod 755 "$s/a/b/c/hello.txt"
  chmod 555 "$s/ro"
  find "$s" -mindepth 1 -exec touch -h -d @1500000000 {} +
  touch -d @1600000000.123456789 "$s/a/b/512"
  touch -h -d @1400000000 "$s/a/link-to-hello"
  touch -d @1300000000 "$s/ro" "$s/a/b"
}

# One line per entry: path type mode mtime link-target links size.
sig() {
  (cd "$1" && find . -mindepth 1 -printf '%P|%y|%m|%T@|%l|%n|%s\n' | LC_ALL=C sort)
}

setup_file() {
  local d=$BATS_FILE_TMPDIR
  make_tree "$d/src"
  tar --format=gnu -czf "$d/gnu.tgz" -C "$d/src" .
  tar --format=pax -czf "$d/pax.tgz" -C "$d/src" .
  bsdtar -czf "$d/bsd.tgz" -C "$d/src" .
  tar --format=gnu -cf "$d/plain.tar" -C "$d/src" .
}

setup() {
  T=$BATS_TEST_TMPDIR
  PIDS=()
}

teardown() {
  local p
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  if [ -n "${MNT:-}" ]; then umount "$MNT" 2>/dev/null || true; fi
}

# same_as_tar ARCHIVE: dltar and GNU tar extract the same tree.
same_as_tar() {
  mkdir "$T/ours" "$T/ref"
  run "$BIN/dltar" -C "$T/ours" "$1"
  [ "$status" -eq 0 ] || { echo "$output"; return 1; }
  tar -xzf "$1" -C "$T/ref"
  diff -r --no-dereference "$T/ours" "$T/ref"
  diff <(sig "$T/ours") <(sig "$T/ref")
}

start() { # start CMD... : run a server in the background, remember its pid
  "$@" >/dev/null 2>&1 3>&- &
  PIDS+=($!)
}

# hostile CASE PATTERN: extracting CASE fails with one line matching PATTERN
# and nothing outside DIR changes.
hostile() {
  mkdir -p "$T/arch" "$T/sentinel" "$T/dir"
  echo untouched >"$T/sentinel/target"
  "$ROOT/tests/fixtures/mkhostile.py" "$T/arch" "$T/sentinel"
  ln -s ../sentinel "$T/dir/pre"
  local before after
  before=$(cd "$T" && find . -path ./dir -prune -o -printf '%p %s %T@\n' | sort)
  run "$BIN/dltar" -C "$T/dir" "$T/arch/$1"
  after=$(cd "$T" && find . -path ./dir -prune -o -printf '%p %s %T@\n' | sort)
  echo "$output"
  [ "$status" -ne 0 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ "$output" == dltar:*$2* ]]
  [ "$before" = "$after" ]
  [ "$(cat "$T/sentinel/target")" = untouched ]
}

@test "-h, --version and bad usage" {
  run "$BIN/dltar" -h
  [ "$status" -eq 0 ]
  [[ "$output" == usage:* ]]
  run "$BIN/dltar" --version
  [ "$status" -eq 0 ]
  [[ "$output" == "dltar "[0-9]* ]]
  run "$BIN/dltar"
  [ "$status" -eq 2 ]
  run "$BIN/dltar" --bogus x
  [ "$status" -eq 2 ]
  run "$BIN/dltar" -C "$T/nope" "$BATS_FILE_TMPDIR/gnu.tgz"
  [ "$status" -ne 0 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ "$output" == *"$T/nope"* ]]
}

@test "GNU tar --format=gnu archive: same tree as GNU tar extracts" {
  same_as_tar "$BATS_FILE_TMPDIR/gnu.tgz"
}

@test "GNU tar --format=pax archive: same tree, nanosecond mtime kept" {
  same_as_tar "$BATS_FILE_TMPDIR/pax.tgz"
  [ "$(stat -c %y "$T/ours/a/b/512")" = "$(stat -c %y "$BATS_FILE_TMPDIR/src/a/b/512")" ]
}

@test "bsdtar archive: same content as GNU tar, same metadata as bsdtar" {
  local a=$BATS_FILE_TMPDIR/bsd.tgz
  mkdir "$T/ours" "$T/gnu" "$T/bsd"
  run "$BIN/dltar" -C "$T/ours" "$a"
  [ "$status" -eq 0 ]
  tar -xzf "$a" -C "$T/gnu"
  bsdtar -xzf "$a" -C "$T/bsd"
  diff -r --no-dereference "$T/ours" "$T/gnu"
  # GNU tar loses directory mtimes when bsdtar puts a hard link after its directory
  diff <(sig "$T/ours" | grep -v '|d|') <(sig "$T/gnu" | grep -v '|d|')
  diff <(sig "$T/ours") <(sig "$T/bsd")
  # bsdtar's default format keeps whole seconds only
  diff <(sig "$T/ours") <(sig "$BATS_FILE_TMPDIR/src" | sed 's/\.[0-9]*|/.0000000000|/')
}

@test "uncompressed tar from standard input; summary, --stats and --series" {
  mkdir "$T/ours"
  run "$BIN/dltar" -C "$T/ours" --stats "$T/stats.tsv" --series "$T/series.tsv" - <"$BATS_FILE_TMPDIR/plain.tar"
  [ "$status" -eq 0 ]
  [ "${#lines[@]}" -eq 1 ]
  echo "$output"
  [[ "$output" =~ ^dltar:\ 11\ files,\ 9\ dirs,\ 5\ links,\ [0-9]+\ bytes\ in\ [0-9.]+\ s ]]
  diff -r --no-dereference "$T/ours" "$BATS_FILE_TMPDIR/src"
  local m
  for m in files dirs bytes wall_s user_s sys_s; do
    grep -qP "^$m\t[0-9.e+-]+\t\S+$" "$T/stats.tsv"
  done
  grep -qP '^files\t11\tfiles$' "$T/stats.tsv"
  grep -qP '\ttool_bytes\t[0-9]' "$T/series.tsv"
  grep -qP '\ttool_files\t11$' "$T/series.tsv"
}

@test "uncompressed tar file; an empty file is a truncated archive" {
  mkdir "$T/ours"
  run "$BIN/dltar" -C "$T/ours" "$BATS_FILE_TMPDIR/plain.tar"
  [ "$status" -eq 0 ]
  # --format=gnu keeps whole seconds only
  diff <(sig "$T/ours") <(sig "$BATS_FILE_TMPDIR/src" | sed 's/\.[0-9]*|/.0000000000|/')
  : >"$T/empty.tar"
  run "$BIN/dltar" -C "$T/ours" "$T/empty.tar"
  [ "$status" -eq 1 ]
  [[ "$output" == *"truncated archive (no end-of-archive marker)" ]]
}

@test "a second archive replaces files, never writing through a symlink" {
  mkdir -p "$T/v1/d" "$T/v2/d" "$T/out" "$T/outside"
  echo one >"$T/v1/d/f"
  ln -s ../../outside/x "$T/v1/d/g"
  echo two >"$T/v2/d/f"
  echo three >"$T/v2/d/g"
  tar -czf "$T/1.tgz" -C "$T/v1" d
  tar -czf "$T/2.tgz" -C "$T/v2" d
  run "$BIN/dltar" -C "$T/out" "$T/1.tgz"
  [ "$status" -ne 0 ] # ../../outside leaves DIR: refused
  [[ "$output" == *"d/g: refused"* ]]
  ln -s ../../outside/x "$T/out/d/g"
  run "$BIN/dltar" -C "$T/out" "$T/2.tgz"
  [ "$status" -eq 0 ]
  [ "$(cat "$T/out/d/f")" = two ]
  [ "$(cat "$T/out/d/g")" = three ]
  [ ! -L "$T/out/d/g" ]
  [ -z "$(ls -A "$T/outside")" ]
}

@test "-o restores owners (root only)" {
  require_root
  mkdir -p "$T/src" "$T/plain" "$T/owned"
  echo x >"$T/src/f"
  tar --owner=1234 --group=4321 --numeric-owner -czf "$T/o.tgz" -C "$T/src" f
  "$BIN/dltar" -C "$T/plain" "$T/o.tgz"
  [ "$(stat -c %u:%g "$T/plain/f")" = 0:0 ]
  "$BIN/dltar" -o -C "$T/owned" "$T/o.tgz"
  [ "$(stat -c %u:%g "$T/owned/f")" = 1234:4321 ]
}

@test "http: Content-Length download from python http.server" {
  local port
  port=$(free_port)
  start python3 -m http.server --bind 127.0.0.1 --directory "$BATS_FILE_TMPDIR" "$port"
  wait_for_port "$port"
  mkdir "$T/ours"
  run "$BIN/dltar" -C "$T/ours" "http://127.0.0.1:$port/gnu.tgz"
  [ "$status" -eq 0 ]
  diff -r --no-dereference "$T/ours" "$BATS_FILE_TMPDIR/src"
  mkdir "$T/host"
  run "$BIN/dltar" -C "$T/host" "http://localhost:$port/plain.tar"
  [ "$status" -eq 0 ]
  diff -r --no-dereference "$T/host" "$BATS_FILE_TMPDIR/src"
  run "$BIN/dltar" -C "$T/ours" "http://127.0.0.1:$port/missing.tgz"
  [ "$status" -ne 0 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ "$output" == *"server answered 404"* ]]
}

@test "http: IPv6 literal [::1]" {
  python3 -c 'import socket; socket.socket(socket.AF_INET6).bind(("::1", 0))' 2>/dev/null ||
    skip "no IPv6 loopback"
  local port
  port=$(free_port)
  start python3 -m http.server --bind ::1 --directory "$BATS_FILE_TMPDIR" "$port"
  local i=0
  until (exec 3<>"/dev/tcp/::1/$port") 2>/dev/null; do
    i=$((i + 1)); [ "$i" -lt 200 ]; sleep 0.05
  done
  mkdir "$T/ours"
  run "$BIN/dltar" -C "$T/ours" "http://[::1]:$port/pax.tgz"
  [ "$status" -eq 0 ]
  diff -r --no-dereference "$T/ours" "$BATS_FILE_TMPDIR/src"
}

@test "http: chunked transfer encoding" {
  local port
  port=$(free_port)
  start "$ROOT/tests/fixtures/chunked_server.py" "$port" "$BATS_FILE_TMPDIR/gnu.tgz" chunked
  wait_for_port "$port"
  mkdir "$T/ours"
  run "$BIN/dltar" -C "$T/ours" "http://127.0.0.1:$port/x"
  [ "$status" -eq 0 ]
  diff -r --no-dereference "$T/ours" "$BATS_FILE_TMPDIR/src"
}

@test "http: a body cut short (chunked or Content-Length) is an error" {
  local port mode
  for mode in cut short; do
    port=$(free_port)
    start "$ROOT/tests/fixtures/chunked_server.py" "$port" "$BATS_FILE_TMPDIR/plain.tar" "$mode"
    wait_for_port "$port"
    mkdir "$T/$mode"
    run "$BIN/dltar" -C "$T/$mode" "http://127.0.0.1:$port/x"
    [ "$status" -ne 0 ]
    [ "${#lines[@]}" -eq 1 ]
    [[ "$output" == *"connection closed"* ]]
  done
}

@test "http: unreachable port and silent server give one clear line" {
  local port
  port=$(free_port)
  run "$BIN/dltar" -C "$T" "http://127.0.0.1:$port/x.tgz"
  [ "$status" -ne 0 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ "$output" == *"cannot connect to 127.0.0.1 port $port: Connection refused"* ]]
  run "$BIN/dltar" -C "$T" "https://127.0.0.1/x.tgz"
  [ "$status" -ne 0 ]
  [[ "$output" == *"https is not supported"* ]]
  port=$(free_port)
  start "$ROOT/tests/fixtures/chunked_server.py" "$port" "$BATS_FILE_TMPDIR/plain.tar" stall
  wait_for_port "$port"
  run timeout 10 "$BIN/dltar" --timeout 0.5 -C "$T" "http://127.0.0.1:$port/x"
  [ "$status" -eq 1 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ "$output" == *"read timeout"* ]]
}

@test "hostile: ../ traversal" { hostile traversal.tar "../sentinel/pwned: refused: '..' in path"; }
@test "hostile: .. inside a path" { hostile dotdot-inside.tar "a/../../sentinel/pwned: refused"; }
@test "hostile: absolute path" { hostile absolute.tar "sentinel/pwned: refused: absolute path"; }
@test "hostile: pax path traversal" { hostile pax-traversal.tar "../sentinel/pwned: refused"; }
@test "hostile: GNU long name traversal" { hostile gnu-longname-traversal.tar "../sentinel/ppp"; }
@test "hostile: symlink escaping, then written through" { hostile symlink-escape.tar "evil: refused: symlink points outside"; }
@test "hostile: absolute symlink, then written through" { hostile symlink-absolute.tar "evil: refused: symlink to an absolute path"; }
@test "hostile: chain of symlinks climbing out" { hostile symlink-chain.tar "evil: refused: symlink target has '..' after a name"; }
@test "hostile: writing through an archive symlink" { hostile symlink-through.tar "via/pwned: refused: path goes through a symlink"; }
@test "hostile: writing through a symlink already in DIR" { hostile preexisting-symlink.tar "pre/pwned: refused: path goes through a symlink"; }
@test "hostile: hard link to outside" { hostile hardlink-escape.tar "h: refused: '..' in path"; }
@test "hostile: hard link to an absolute path" { hostile hardlink-absolute.tar "h: refused: absolute path"; }
@test "broken: truncated file data" { hostile truncated-data.tar.gz "big.bin: truncated archive"; }
@test "broken: missing end-of-archive blocks" { hostile missing-end.tar.gz "no end-of-archive marker"; }
@test "broken: truncated gzip stream" { hostile truncated-gzip.tar.gz "gzip stream truncated"; }
@test "broken: corrupt gzip data" { hostile corrupt.tar.gz "corrupt gzip stream"; }
@test "broken: bad gzip CRC" { hostile bad-crc.tar.gz "corrupt gzip stream: incorrect data check"; }
@test "broken: bad header checksum" { hostile bad-checksum.tar "bad header checksum at offset 1024"; }

@test "full disk: 'No space left on device' naming the file" {
  require_root
  mkdir -p "$T/src" "$T/mnt"
  head -c 3000000 /dev/urandom >"$T/src/too-big.bin"
  tar -czf "$T/big.tgz" -C "$T/src" too-big.bin
  mount -t tmpfs -o size=1m tmpfs "$T/mnt" || skip "cannot mount tmpfs"
  MNT=$T/mnt
  run "$BIN/dltar" -C "$T/mnt" "$T/big.tgz"
  [ "$status" -ne 0 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ "$output" == "dltar: too-big.bin: No space left on device" ]]
}
