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
  make -C "$ROOT" -s bsdpaths >/dev/null
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

# The dltar builds every safety test runs: bin/ (Linux: openat2) and
# build/bsdpaths/bin (-DOS_BENEATH_WALK: the walk the BSDs take), made
# by setup_file.
DLTARS=("$BIN" "$ROOT/build/bsdpaths/bin")

# hostile CASE PATTERN: extracting CASE fails with one line matching PATTERN
# and nothing outside DIR changes, with each of DLTARS.
hostile() {
  local before after bin
  for bin in "${DLTARS[@]}"; do
    echo "# $bin/dltar"
    rm -rf "$T/arch" "$T/sentinel" "$T/dir"
    mkdir -p "$T/arch" "$T/sentinel" "$T/dir"
    echo untouched >"$T/sentinel/target"
    "$ROOT/tests/fixtures/mkhostile.py" "$T/arch" "$T/sentinel"
    ln -s ../sentinel "$T/dir/pre"
    before=$(cd "$T" && find . -path ./dir -prune -o -printf '%p %s %T@\n' | sort)
    run "$bin/dltar" -C "$T/dir" "$T/arch/$1"
    after=$(cd "$T" && find . -path ./dir -prune -o -printf '%p %s %T@\n' | sort)
    echo "$output"
    [ "$status" -ne 0 ]
    [ "${#lines[@]}" -eq 1 ]
    [[ "$output" == dltar:*$2* ]]
    [ "$before" = "$after" ]
    [ "$(cat "$T/sentinel/target")" = untouched ]
  done
}

# no_escaping_links DIR: every symlink under DIR resolves inside DIR.
no_escaping_links() {
  local top l r
  top=$(realpath "$1")
  while IFS= read -r -d '' l; do
    r=$(realpath -m "$l")
    case $r in "$top" | "$top"/*) ;; *) echo "escaping link: $l -> $r"; return 1 ;; esac
  done < <(find "$1" -type l -print0)
}

# one_clean_line [N] : $output is N lines (default 1) without any control byte.
one_clean_line() {
  echo "$output"
  [ "${#lines[@]}" -eq "${1:-1}" ]
  [ -z "$(printf '%s' "$output" | tr -d '\n' | LC_ALL=C tr -d '[:print:]')" ]
}

# mkcases : the archives of tests/fixtures/dltar/mkcases.py in $T/cases.
mkcases() {
  mkdir -p "$T/cases"
  "$ROOT/tests/fixtures/dltar/mkcases.py" "$T/cases"
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
  poll_until 10 port_busy "$port" ::1
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
  [ "$status" -eq 2 ]
  [ "$output" = "dltar: unsupported URL scheme https (dltar fetches http:// only)" ]
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
@test "hostile: a hard link whose target lies through a symlink already in DIR, even one staying inside: refused (openat2 RESOLVE_NO_SYMLINKS, and the walk)" {
  python3 -c '
import io, sys, tarfile
with tarfile.open(sys.argv[1], "w") as t:
    i = tarfile.TarInfo("h"); i.type = tarfile.LNKTYPE; i.linkname = "lnk/f"; t.addfile(i)
' "$T/hl-through.tar"
  for bin in "${DLTARS[@]}"; do
    rm -rf "$T/dir"
    mkdir -p "$T/dir/sub"
    echo inside >"$T/dir/sub/f"
    ln -s sub "$T/dir/lnk"
    run "$bin/dltar" -C "$T/dir" "$T/hl-through.tar"
    echo "$bin/dltar: $output"
    [ "$status" -ne 0 ]
    [ "$output" = "dltar: h: refused: path goes through a symlink" ]
    [ ! -e "$T/dir/h" ]
    [ "$(stat -c %h "$T/dir/sub/f")" -eq 1 ]
  done
}

@test "the C tests of the confined lookups pass in the walk's build too (-DOS_BENEATH_WALK: safe_path, http_path)" {
  for t in safe_path http_path; do
    run "$ROOT/build/bsdpaths/tests/${t}_test"
    echo "$output" | grep -v '^ok' || true
    [ "$status" -eq 0 ]
    [[ "$output" != *"not ok"* ]]
    [[ "$output" == *"ENOSYS with -DOS_BENEATH_WALK"* ]] || [ "$t" != safe_path ]
  done
}

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

# Hard links to symlinks, escaped messages, the end of the archive, time
# limits, HTTP interim responses and Content-Length.

@test "hard link to an archive symlink: refused where the copy would point outside DIR" {
  mkcases
  mkdir "$T/x1"
  run "$BIN/dltar" -C "$T/x1" "$T/cases/hl-symlink.tar"
  one_clean_line
  [ "$status" -eq 1 ]
  [[ "$output" == "dltar: esc: refused: hard link to a symlink: symlink points outside the directory" ]]
  [ ! -L "$T/x1/esc" ]
  no_escaping_links "$T/x1"
  # one that stays inside at its new place is extracted (as GNU tar does)
  mkdir "$T/x2"
  run "$BIN/dltar" -C "$T/x2" "$T/cases/hl-deeper.tar"
  [ "$status" -eq 0 ]
  [ "$(readlink "$T/x2/x/y/up2")" = ../f ]
  no_escaping_links "$T/x2"
}

@test "hard link to a symlink, then a failing entry: no escaping link is left" {
  mkcases
  mkdir "$T/x1"
  run "$BIN/dltar" -C "$T/x1" "$T/cases/hl-then-error.tar"
  [ "$status" -eq 1 ]
  no_escaping_links "$T/x1"
  [ -L "$T/x1/x/up" ] # the symlink itself stays inside: it is kept
}

@test "hard link to a symlink already in DIR: refused, nothing escapes" {
  mkcases
  mkdir -p "$T/x1/x/y"
  ln -s ../../outside "$T/x1/x/y/up" # DIR/outside: inside DIR at its depth
  run "$BIN/dltar" -C "$T/x1" "$T/cases/hl-preexisting.tar"
  one_clean_line
  [ "$status" -eq 1 ]
  [[ "$output" == *"esc: refused: hard link to a symlink"* ]]
  no_escaping_links "$T/x1"
}

@test "control bytes in entry names, file names, URLs and reason phrases are escaped" {
  mkcases
  mkdir "$T/x1"
  run "$BIN/dltar" -C "$T/x1" "$T/cases/ctrl-fifo.tar"
  [ "$status" -eq 0 ]
  one_clean_line 2 # the warning and the summary
  [[ "${lines[0]}" == 'dltar: x\x0a\x1b[31mdltar: 99 files, 0 dirs\x1b[0m\x0d\x07: skipped (device or fifo)' ]]
  run "$BIN/dltar" -C "$T/x1" "$T/cases/ctrl-refused.tar"
  [ "$status" -eq 1 ]
  one_clean_line
  run "$BIN/dltar" -C "$T/x1" "$T/no"$'\n\e[2J'"such.tar"
  [ "$status" -eq 1 ]
  one_clean_line
  run "$BIN/dltar" -C "$T/x1" "http://127.0.0.1:1/a"$'\e]0;x\a'"b"
  [ "$status" -eq 1 ]
  one_clean_line
  local port
  port=$(free_port)
  start "$ROOT/tests/fixtures/dltar/hostile_http.py" "$port" "$BATS_FILE_TMPDIR/plain.tar" reason
  wait_for_port "$port"
  run "$BIN/dltar" -C "$T/x1" "http://127.0.0.1:$port/x"
  [ "$status" -eq 1 ]
  one_clean_line
  [[ "$output" == *'server answered 404 Not\x1b[31mFound\x07\x1b]0;pwned\x07' ]]
}

@test "end of archive: /dev/zero is an empty archive, read no further" {
  run timeout 10 "$BIN/dltar" -C "$T" /dev/zero
  [ "$status" -eq 0 ]
  [[ "${lines[0]}" =~ ^dltar:\ /dev/zero:\ ignored\ [0-9]+\ bytes\ after\ the\ end\ of\ the\ archive\ and\ stopped\ reading\ there$ ]]
  [[ "${lines[1]}" == "dltar: 0 files, 0 dirs, 0 links, 0 bytes in "* ]]
}

@test "end of archive: a tar or tar.gz followed by endless zeros ends" {
  local a=$BATS_FILE_TMPDIR/plain.tar
  mkdir "$T/p" "$T/g" "$T/r"
  # shellcheck disable=SC2016 # expanded by the inner bash
  run timeout 20 bash -c '(cat "$1"; cat /dev/zero) | "$BIN/dltar" -C "$2" -' _ "$a" "$T/p"
  [ "$status" -eq 0 ]
  diff -r --no-dereference "$T/p" "$BATS_FILE_TMPDIR/src"
  # one gzip stream holding the tar and the zeros: its end never comes
  # shellcheck disable=SC2016 # expanded by the inner bash
  run timeout 20 bash -c '(cat "$1"; cat /dev/zero) | gzip -1 | "$BIN/dltar" -C "$2" -' _ "$a" "$T/g"
  [ "$status" -eq 0 ]
  [[ "${lines[0]}" == *"bytes after the end of the archive: the gzip stream goes on (its CRC was not checked)" ]]
  diff -r --no-dereference "$T/g" "$BATS_FILE_TMPDIR/src"
  # a gzip file, then zero bytes (a file: dltar sees how many it ignores)
  { cat "$BATS_FILE_TMPDIR/gnu.tgz"; head -c 100000 /dev/zero; } >"$T/z.tgz"
  run timeout 20 "$BIN/dltar" -C "$T/r" "$T/z.tgz"
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "dltar: $T/z.tgz: ignored 100000 bytes after the end of the archive" ]
  # trailing garbage after a plain tar file
  { cat "$a"; echo garbage; } >"$T/g.tar"
  run timeout 20 "$BIN/dltar" -C "$T/r" "$T/g.tar"
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "dltar: $T/g.tar: ignored 8 bytes after the end of the archive" ]
}

@test "end of archive over http: endless zeros, fast or trickling, after the archive" {
  local port mode
  for mode in zeros zeros-slow; do
    port=$(free_port)
    start "$ROOT/tests/fixtures/dltar/hostile_http.py" "$port" "$BATS_FILE_TMPDIR/gnu.tgz" "$mode"
    wait_for_port "$port"
    mkdir "$T/$mode"
    run timeout 20 "$BIN/dltar" -C "$T/$mode" "http://127.0.0.1:$port/x"
    [ "$status" -eq 0 ]
    diff -r --no-dereference "$T/$mode" "$BATS_FILE_TMPDIR/src"
  done
}

@test "--timeout bounds progress: a body trickling a byte every 0.5 s fails" {
  local port t0
  port=$(free_port)
  start "$ROOT/tests/fixtures/dltar/hostile_http.py" "$port" "$BATS_FILE_TMPDIR/plain.tar" trickle
  wait_for_port "$port"
  t0=$SECONDS
  run timeout 20 "$BIN/dltar" --timeout 2 -C "$T" "http://127.0.0.1:$port/x"
  [ "$status" -eq 1 ]
  one_clean_line
  [[ "$output" == *": only "*" bytes in 2 s, less than 64 KiB (too slow, --timeout)" ]]
  [ $((SECONDS - t0)) -le 5 ]
  # the same from a pipe
  # shellcheck disable=SC2016 # expanded by the inner bash
  run timeout 20 bash -c 'python3 -c "
import sys, time
for _ in range(100):
    sys.stdout.buffer.write(b\"\\0\"); sys.stdout.flush(); time.sleep(0.5)
" 2>/dev/null | "$BIN/dltar" --timeout 1 -C "$1" -' _ "$T"
  [ "$status" -eq 1 ]
  one_clean_line
  [[ "$output" == "dltar: standard input: only "*"(too slow, --timeout)" ]]
}

@test "--max-time bounds the whole run; bad values are usage errors" {
  local t0
  t0=$SECONDS
  # shellcheck disable=SC2016 # expanded by the inner bash
  run timeout 20 bash -c '"$ROOT/tests/fixtures/dltar/mkcases.py" --endless 2>/dev/null |
    "$BIN/dltar" --max-time 1 -C "$1" -' _ "$T"
  [ "$status" -eq 1 ]
  one_clean_line
  [ "$output" = "dltar: standard input: not done after 1 s (--max-time)" ]
  [ $((SECONDS - t0)) -le 5 ]
  run "$BIN/dltar" --max-time 0 -C "$T" /dev/null
  [ "$status" -eq 2 ]
  run "$BIN/dltar" --max-time x -C "$T" /dev/null
  [ "$status" -eq 2 ]
}

@test "http: 1xx interim responses are skipped; Content-Length must be one plain number" {
  local port mode
  for mode in continue same-cl; do
    port=$(free_port)
    start "$ROOT/tests/fixtures/dltar/hostile_http.py" "$port" "$BATS_FILE_TMPDIR/gnu.tgz" "$mode"
    wait_for_port "$port"
    mkdir "$T/$mode"
    run "$BIN/dltar" -C "$T/$mode" "http://127.0.0.1:$port/x"
    echo "$output"
    [ "$status" -eq 0 ]
    diff -r --no-dereference "$T/$mode" "$BATS_FILE_TMPDIR/src"
  done
  port=$(free_port)
  start "$ROOT/tests/fixtures/dltar/hostile_http.py" "$port" "$BATS_FILE_TMPDIR/gnu.tgz" two-cl
  wait_for_port "$port"
  run "$BIN/dltar" -C "$T" "http://127.0.0.1:$port/x"
  [ "$status" -eq 1 ]
  one_clean_line
  [[ "$output" == *": malformed response header: conflicting Content-Length headers" ]]
  port=$(free_port)
  start "$ROOT/tests/fixtures/dltar/hostile_http.py" "$port" "$BATS_FILE_TMPDIR/gnu.tgz" plus-cl
  wait_for_port "$port"
  run "$BIN/dltar" -C "$T" "http://127.0.0.1:$port/x"
  [ "$status" -eq 1 ]
  one_clean_line
  [[ "$output" == *": malformed response header: bad Content-Length" ]]
}

# The inflater (ISA-L or zlib, chosen at build time) and the two-thread
# pipeline (--threads 2: inflate in one thread, extract in another).

@test "--version and --stats name the inflater; --threads 1 and 2 extract the same tree" {
  run "$BIN/dltar" --version
  [ "$status" -eq 0 ]
  [[ "${lines[1]}" =~ ^inflater:\ (isal|zlib)$ ]]
  local inf=${lines[1]#inflater: } n
  for n in 1 2; do
    mkdir "$T/t$n"
    run "$BIN/dltar" --threads "$n" --stats "$T/s$n.tsv" -C "$T/t$n" "$BATS_FILE_TMPDIR/pax.tgz"
    [ "$status" -eq 0 ]
    diff -r --no-dereference "$T/t$n" "$BATS_FILE_TMPDIR/src"
    diff <(sig "$T/t$n") <(sig "$BATS_FILE_TMPDIR/src")
    grep -qP "^inflater\t$inf\ttext$" "$T/s$n.tsv"
    grep -qP "^threads\t$n\tthreads$" "$T/s$n.tsv"
  done
  # plain tar: nothing to inflate, one thread
  run "$BIN/dltar" --threads 2 --stats "$T/p.tsv" -C "$T/t2" "$BATS_FILE_TMPDIR/plain.tar"
  [ "$status" -eq 0 ]
  grep -qP '^inflater\tnone\ttext$' "$T/p.tsv"
  grep -qP '^threads\t1\tthreads$' "$T/p.tsv"
  for n in 0 3 x ""; do
    run "$BIN/dltar" --threads "$n" -C "$T" "$BATS_FILE_TMPDIR/pax.tgz"
    [ "$status" -eq 2 ]
    [[ "$output" == "dltar: bad --threads (1 or 2): $n" ]]
  done
  run "$BIN/dltar" -h
  [[ "$output" == *"--threads N"* ]]
}

@test "build: the inflater is zlib when the compiler finds no ISA-L header (cross, static)" {
  # a make rule printing the choice (make, not the shell, expands it)
  local show
  # shellcheck disable=SC2016
  show='dltar-inflater: ; @echo $(DLTAR_INFLATE)'
  # a compiler that preprocesses but sees no ISA-L header, as zig's for a BSD
  run make -s --no-print-directory -C "$ROOT" CC='cc -nostdinc' --eval "$show" dltar-inflater
  [ "$status" -eq 0 ]
  [ "$output" = zlib ]
  run make -s --no-print-directory -C "$ROOT" CC='diet gcc' --eval "$show" dltar-inflater
  [ "$output" = zlib ]
}

# cut FILE OFFSET OUT: OUT is FILE in two gzip members split at OFFSET.
two_members() {
  python3 -c 'import gzip, sys
d = open(sys.argv[1], "rb").read(); k = int(sys.argv[2])
open(sys.argv[3], "wb").write(gzip.compress(d[:k]) + gzip.compress(d[k:]))' "$@"
}

@test "multi-member gzip split inside a header: both thread modes, from a file and a pipe" {
  local a=$BATS_FILE_TMPDIR/plain.tar n
  two_members "$a" 12345 "$T/two.tgz"
  for n in 1 2; do
    mkdir "$T/f$n" "$T/p$n"
    run "$BIN/dltar" --threads "$n" -C "$T/f$n" "$T/two.tgz"
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -eq 1 ]
    diff -r --no-dereference "$T/f$n" "$BATS_FILE_TMPDIR/src"
    run bash -c '"$BIN/dltar" --threads "$1" -C "$2" - <"$3"' _ "$n" "$T/p$n" "$T/two.tgz"
    [ "$status" -eq 0 ]
    diff -r --no-dereference "$T/p$n" "$BATS_FILE_TMPDIR/src"
  done
}

@test "a gzip member after the archive's end is ignored the same way in both thread modes" {
  { cat "$BATS_FILE_TMPDIR/gnu.tgz"; printf 'not a tar at all' | gzip; } >"$T/more.tgz"
  local size n
  size=$(printf 'not a tar at all' | gzip | wc -c)
  for n in 1 2; do
    mkdir "$T/m$n"
    run "$BIN/dltar" --threads "$n" -C "$T/m$n" "$T/more.tgz"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "dltar: $T/more.tgz: ignored $size bytes after the end of the archive" ]
    diff -r --no-dereference "$T/m$n" "$BATS_FILE_TMPDIR/src"
    # from a pipe: the second member is not read beyond what came with the first
    run bash -c '"$BIN/dltar" --threads "$1" -C "$2" - <"$3"' _ "$n" "$T/m$n" "$T/more.tgz"
    [ "$status" -eq 0 ]
    [[ "${lines[0]}" =~ ^dltar:\ standard\ input:\ ignored\ [0-9]+\ bytes\ after\ the\ end\ of\ the\ archive ]]
  done
}

@test "broken gzip in both thread modes: one line, exit 1" {
  mkdir -p "$T/arch" "$T/sentinel" "$T/dir"
  "$ROOT/tests/fixtures/mkhostile.py" "$T/arch" "$T/sentinel"
  local n c
  for n in 1 2; do
    for c in "truncated-gzip.tar.gz:gzip stream truncated" "corrupt.tar.gz:corrupt gzip stream" \
      "bad-crc.tar.gz:corrupt gzip stream: incorrect data check" "truncated-data.tar.gz:big.bin: truncated archive"; do
      run "$BIN/dltar" --threads "$n" -C "$T/dir" "$T/arch/${c%%:*}"
      echo "$n $c: $output"
      [ "$status" -eq 1 ]
      [ "${#lines[@]}" -eq 1 ]
      [[ "$output" == dltar:*"${c#*:}"* ]]
      # the same through a pipe
      run bash -c '"$BIN/dltar" --threads "$1" -C "$2" - <"$3"' _ "$n" "$T/dir" "$T/arch/${c%%:*}"
      [ "$status" -eq 1 ]
      [ "${#lines[@]}" -eq 1 ]
      [[ "$output" == dltar:*"${c#*:}"* ]]
    done
  done
}
