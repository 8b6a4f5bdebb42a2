#!/usr/bin/env bats
# bin/mkdataset: determinism, manifest vs tarballs, update order, request
# list, errors, flat memory, capture mode.  Only the tiny profile and small
# test profiles are generated here (the whole file runs in seconds).
load helpers

setup() {
  T=$(mktemp -d "${TMPDIR:-/tmp}/mkdataset-test.XXXXXX")
  FIX=$ROOT/tests/fixtures/capture
}

teardown() {
  if mountpoint -q "$T/small" 2>/dev/null; then umount "$T/small" || umount -l "$T/small"; fi
  rm -rf "$T"
}

# check_dataset DIR : extract both tarballs with GNU tar into DIR.x and
# compare every file's path, size and crc32 (python zlib) with the manifest;
# the manifest lists the layout's files in tar order, then the update's new
# files in tar order; every request is a manifest path.
check_dataset() {
  local d=$1
  mkdir "$d.x"
  tar -xzf "$d/layout.tar.gz" -C "$d.x"
  tar -xzf "$d/update.tar.gz" -C "$d.x"
  tar -tzf "$d/layout.tar.gz" | grep -v '/$' >"$d.layout.list"
  tar -tzf "$d/update.tar.gz" >"$d.update.list"
  python3 - "$d" <<'PY'
import os, sys, zlib, urllib.parse
d = sys.argv[1]
man = [l.rstrip("\n").split("\t") for l in open(d + "/manifest.tsv", encoding="utf-8") if not l.startswith("#")]
paths = [m[0] for m in man]
assert len(set(paths)) == len(paths), "duplicate manifest paths"
tree = {}
for root, dirs, files in os.walk(d + ".x"):
    for f in files:
        p = os.path.join(root, f)
        data = open(p, "rb").read()
        tree[os.path.relpath(p, d + ".x")] = (len(data), "%08x" % (zlib.crc32(data) & 0xffffffff))
assert set(tree) == set(paths), "tree and manifest differ: %r" % (set(tree) ^ set(paths))
for p, size, crc in man:
    assert tree[p] == (int(size), crc), "%s: tree %r, manifest %s %s" % (p, tree[p], size, crc)
layout = open(d + ".layout.list", encoding="utf-8").read().splitlines()
update = open(d + ".update.list", encoding="utf-8").read().splitlines()
new = [p for p in update if p not in set(layout)]
assert paths == layout + new, "manifest order is not layout order then new files"
inman = set(paths)
for r in open(d + "/requests.txt", encoding="utf-8"):
    r = r.rstrip("\n")
    assert r.startswith("/") and urllib.parse.unquote(r[1:]) in inman, "request not in manifest: " + r
PY
}

# first_hit_order DIR : the update's requested files come first, in the
# order requests.txt first hits them; the rest are never requested.
check_update_order() {
  python3 - "$1" <<'PY'
import sys, urllib.parse
d = sys.argv[1]
update = open(d + ".update.list", encoding="utf-8").read().splitlines()
first, seen = [], set()
for r in open(d + "/requests.txt", encoding="utf-8"):
    p = urllib.parse.unquote(r.rstrip("\n")[1:])
    if p not in seen:
        seen.add(p)
        first.append(p)
u = set(update)
hit = [p for p in first if p in u]
assert update[:len(hit)] == hit, "update order is not first-hit order"
assert not (set(update[len(hit):]) & seen), "a requested file comes after the unrequested ones"
print(len(hit), len(update))
PY
}

@test "mkdataset: -h prints usage, --version the version" {
  run "$BIN/mkdataset" -h
  [ "$status" -eq 0 ]
  [[ $output == *"usage: mkdataset -p PROFILE"* ]]
  run "$BIN/mkdataset" --version
  [ "$status" -eq 0 ]
  [[ $output == "mkdataset "[0-9]* ]]
}

@test "mkdataset: tiny profile makes the five outputs in well under a second" {
  run "$BIN/mkdataset" -p tiny -o "$T/out/d" --stats "$T/stats"
  [ "$status" -eq 0 ]
  for f in manifest.tsv layout.tar.gz update.tar.gz requests.txt dataset.txt; do [ -s "$T/out/d/$f" ]; done
  [ -z "$(find "$T/out/d" -name '*.tmp')" ]
  grep -qx $'name\ttiny' "$T/out/d/dataset.txt"
  grep -qx $'files\t320' "$T/out/d/dataset.txt"
  grep -qx $'requests\t2000' "$T/out/d/dataset.txt"
  [ "$(wc -l <"$T/out/d/requests.txt")" -eq 2000 ]
  awk -F'\t' '$1 == "wall_s" && $2 < 1 { ok = 1 } END { exit !ok }' "$T/stats"
}

@test "mkdataset: same profile and seed give identical bytes; another seed differs" {
  "$BIN/mkdataset" -p tiny -s 7 -o "$T/a" >/dev/null
  "$BIN/mkdataset" -p tiny -s 7 -o "$T/b" >/dev/null
  "$BIN/mkdataset" -p tiny -s 8 -o "$T/c" >/dev/null
  (cd "$T/a" && sha256sum ./*) >"$T/a.sum"
  (cd "$T/b" && sha256sum ./*) >"$T/b.sum"
  diff "$T/a.sum" "$T/b.sum"
  for f in manifest.tsv layout.tar.gz update.tar.gz requests.txt; do
    run cmp -s "$T/a/$f" "$T/c/$f"
    [ "$status" -ne 0 ]
  done
}

@test "mkdataset: the manifest matches both tarballs extracted by GNU tar (path, size, crc32)" {
  "$BIN/mkdataset" -p tiny -o "$T/d" >/dev/null
  check_dataset "$T/d"
  # gzip: no name, mtime 0, OS Unix, whatever the host
  [ "$(head -c 10 "$T/d/layout.tar.gz" | od -An -tx1 | tr -d ' \n')" = "1f8b0800000000000403" ]
  # content is incompressible, like JPEGs
  size=$(stat -c %s "$T/d/layout.tar.gz")
  raw=$(awk -F'\t' '$1 == "layout_bytes" { print $2 }' "$T/d/dataset.txt")
  [ "$size" -gt "$raw" ]
}

@test "mkdataset: update.tar.gz is in first-hit order of requests.txt, with new and replaced files" {
  "$BIN/mkdataset" -p tiny -o "$T/d" >/dev/null
  check_dataset "$T/d"
  run check_update_order "$T/d"
  [ "$status" -eq 0 ]
  read -r hit total <<<"$output"
  [ "$hit" -gt 5 ]
  [ "$total" -eq "$(awk -F'\t' '$1 == "update_files" { print $2 }' "$T/d/dataset.txt")" ]
  grep -qx $'update_new\t20' "$T/d/dataset.txt"
  [ "$(awk -F'\t' '$1 == "update_replaced" { print $2 }' "$T/d/dataset.txt")" -gt 0 ]
}

@test "mkdataset: requests are skewed: the most popular file gets many hits" {
  "$BIN/mkdataset" -p tiny -o "$T/d" >/dev/null
  top=$(sort "$T/d/requests.txt" | uniq -c | sort -rn | head -1 | awk '{ print $1 }')
  [ "$top" -gt 40 ] # uniform would be ~6 of 2000 over 320 files
}

@test "mkdataset: a bad profile is one line naming file:line and key, exit non-zero" {
  printf 'photos 10\nfull.median 100\nfrobnicate 3\n' >"$T/bad.profile"
  run "$BIN/mkdataset" -p "$T/bad.profile" -o "$T/d"
  [ "$status" -ne 0 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ $output == *"bad.profile:3: frobnicate: unknown key"* ]]
  printf 'photos many\n' >"$T/bad2.profile"
  run "$BIN/mkdataset" -p "$T/bad2.profile" -o "$T/d"
  [ "$status" -ne 0 ]
  [[ $output == *"bad2.profile:1: photos: want a whole number"* ]]
  [ ! -e "$T/d" ]
}

@test "mkdataset: missing profile, unwritable output, bad flags are one-line errors" {
  run "$BIN/mkdataset" -p no-such-profile -o "$T/d"
  [ "$status" -ne 0 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ $output == *"no-such-profile"*"not found"* ]]
  touch "$T/file"
  run "$BIN/mkdataset" -p tiny -o "$T/file/sub"
  [ "$status" -ne 0 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ $output == *"$T/file/sub"* ]]
  run "$BIN/mkdataset" -p tiny
  [ "$status" -ne 0 ]
  [[ $output == *"missing -o DIR"* ]]
  run "$BIN/mkdataset" -p tiny -s x -o "$T/d"
  [ "$status" -ne 0 ]
  [[ $output == *"-s: not a whole number"* ]]
}

@test "mkdataset: a filesystem too small: one line saying how much is missing, before anything is written" {
  require_root
  mkdir -p "$T/small"
  mount -t tmpfs -o size=1m tmpfs "$T/small"
  # tiny: about 1.3 MB of tarballs, manifest and requests
  run "$BIN/mkdataset" -p tiny -o "$T/small/new/d"
  [ "$status" -eq 1 ]
  [ "$(printf '%s\n' "$output" | wc -l)" -eq 1 ]
  [[ $output =~ ^mkdataset:\ .*/small/new/d\ needs\ 1\.[0-9]\ MB,\ its\ filesystem\ has\ 1\.0\ MB\ free:\ 0\.[0-9]\ MB\ missing$ ]]
  [ -z "$(ls -A "$T/small")" ]
  # with room it goes ahead
  umount "$T/small"
  mount -t tmpfs -o size=8m tmpfs "$T/small"
  run "$BIN/mkdataset" -p tiny -o "$T/small/new/d"
  [ "$status" -eq 0 ]
  [ -s "$T/small/new/d/layout.tar.gz" ]
}

@test "mkdataset: memory stays flat: 100k files need no more RSS than 300 (both < 64 MB)" {
  require_cmd /usr/bin/time
  cat >"$T/many.profile" <<'P'
# many small files: memory must not grow with the file count
photos          50000
full.median     100
full.spread     0.3
thumb.median    40
thumb.spread    0.3
thumb.min       8
fanout          256
levels          1
huge.dirs       1
huge.photos     20000
requests        200000
update.replace  0.01
update.new      500
P
  /usr/bin/time -f '%M' -o "$T/rss.tiny" "$BIN/mkdataset" -p tiny -o "$T/a" >/dev/null
  /usr/bin/time -f '%M' -o "$T/rss.many" "$BIN/mkdataset" -p "$T/many.profile" -o "$T/b" >/dev/null
  tiny=$(tail -1 "$T/rss.tiny") many=$(tail -1 "$T/rss.many")
  echo "max RSS: tiny $tiny KB, 100k files $many KB"
  [ "$many" -lt 65536 ]
  [ "$many" -lt $((tiny + 8192)) ]
  grep -qx $'files\t101000' "$T/b/dataset.txt"
}

@test "mkdataset: capture mode on a filesystem too small for its list: one line, nothing written" {
  require_root
  mkdir -p "$T/small"
  mount -t tmpfs -o size=1m tmpfs "$T/small"
  printf 'a.jpg 10\nbig/b.bin 3000000\n' >"$T/big.list"
  run "$BIN/mkdataset" -c "$T/big.list" -a "$FIX/access.log" -o "$T/small/d"
  [ "$status" -eq 1 ]
  [ "$(printf '%s\n' "$output" | wc -l)" -eq 1 ]
  [[ $output =~ ^mkdataset:\ .*/small/d\ needs\ 3\.0\ MB,\ its\ filesystem\ has\ 1\.0\ MB\ free:\ 2\.0\ MB\ missing$ ]]
  [ -z "$(ls -A "$T/small")" ]
}

@test "mkdataset: capture mode: requests are the log's GET 200/304 lines for listed paths" {
  run "$BIN/mkdataset" -c "$FIX/list.txt" -a "$FIX/access.log" -u 0.5 -o "$T/d"
  [ "$status" -eq 0 ]
  long=docs/this-directory-name-is-deliberately-long-to-need-more-than-one-hundred-bytes/and-so-is-this-file-name-that-follows-it-here.txt
  printf '%s\n' /img/a/2.jpg /thumb/a/1.jpg /img/a/2.jpg '/img/b/4%20with%20space.jpg' "/$long" /thumb/a/2.jpg >"$T/want"
  diff "$T/want" "$T/d/requests.txt"
  check_dataset "$T/d"
  # the update: the first ceil(0.5 x 8) distinct hits, in first-hit order
  printf '%s\n' img/a/2.jpg thumb/a/1.jpg 'img/b/4 with space.jpg' "$long" >"$T/want.update"
  diff "$T/want.update" "$T/d.update.list"
  # names and sizes are real, in list order, including a 124-byte name (pax)
  cut -f1,2 "$T/d/manifest.tsv" | grep -v '^#' | tr '\t' ' ' >"$T/got.list"
  grep -v '^#' "$FIX/list.txt" | sed 's|^/||' >"$T/want.list"
  diff "$T/want.list" "$T/got.list"
  grep -qx $'log_skipped\t5' "$T/d/dataset.txt"
}

@test "mkdataset: capture mode is deterministic and rejects a bad list line by file:line" {
  "$BIN/mkdataset" -c "$FIX/list.txt" -a "$FIX/access.log" -o "$T/a" >/dev/null
  "$BIN/mkdataset" -c "$FIX/list.txt" -a "$FIX/access.log" -o "$T/b" >/dev/null
  for f in manifest.tsv layout.tar.gz update.tar.gz requests.txt dataset.txt; do cmp "$T/a/$f" "$T/b/$f"; done
  printf 'a.jpg 10\nb/../c.jpg 5\n' >"$T/bad.list"
  run "$BIN/mkdataset" -c "$T/bad.list" -a "$FIX/access.log" -o "$T/c"
  [ "$status" -ne 0 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ $output == *"bad.list:2: path: '.' or '..' component"* ]]
  printf 'a.jpg 10\na.jpg 11\n' >"$T/dup.list"
  run "$BIN/mkdataset" -c "$T/dup.list" -a "$FIX/access.log" -o "$T/c"
  [ "$status" -ne 0 ]
  [[ $output == *"same path"* ]]
  run "$BIN/mkdataset" -c "$FIX/list.txt" -o "$T/c"
  [ "$status" -ne 0 ]
  [[ $output == *"-a ACCESSLOG"* ]]
}

# capture_refused LIST MESSAGE : mkdataset -c LIST refuses it with exactly
# the one line MESSAGE, exit 1, and leaves no output directory behind.
capture_refused() {
  local out st=0
  out=$("$BIN/mkdataset" -c "$1" -a "$FIX/access.log" -o "$T/out" 2>&1) || st=$?
  echo "$out"
  [ "$st" -eq 1 ]
  [ "$out" = "$2" ]
  [ ! -e "$T/out" ]
}

@test "mkdataset: capture mode: a NUL in a path is refused by file:line, and every line number counts comments and blank lines" {
  printf '# capture\n\nx.jpg 5\na\0b.txt 10\n' >"$T/nul.list"
  capture_refused "$T/nul.list" "mkdataset: $T/nul.list:4: NUL byte in path"
  # a NUL in the size is no size, not a shorter one
  printf 'x.jpg 1\0002\n' >"$T/nulsize.list"
  capture_refused "$T/nulsize.list" "mkdataset: $T/nulsize.list:1: size: not a whole number"
  printf '# list\na.jpg 10\n\nb.jpg 3\na.jpg 11\n' >"$T/dup.list"
  capture_refused "$T/dup.list" "mkdataset: $T/dup.list:5: the same path as $T/dup.list:2"
}

@test "mkdataset: capture mode: a path under a listed file is refused naming both lines, in either order and at depth" {
  printf 'a 10\na/b 5\n' >"$T/fd.list"
  capture_refused "$T/fd.list" "mkdataset: $T/fd.list:2: 'a/b' is under 'a', which $T/fd.list:1 lists as a file"
  printf 'a/b 5\n# c\na 10\n' >"$T/df.list"
  capture_refused "$T/df.list" "mkdataset: $T/df.list:1: 'a/b' is under 'a', which $T/df.list:3 lists as a file"
  printf 'x 1\na/b 10\n\na/b/c 5\n' >"$T/deep.list"
  capture_refused "$T/deep.list" "mkdataset: $T/deep.list:4: 'a/b/c' is under 'a/b', which $T/deep.list:2 lists as a file"
  # names that only start alike are no conflict
  printf 'a 1\nab/c 2\na.d/e 3\nb/a 4\n' >"$T/ok.list"
  "$BIN/mkdataset" -c "$T/ok.list" -a "$FIX/access.log" -o "$T/ok" >/dev/null
  check_dataset "$T/ok"
}

# no_tmp_under DIR : no *.tmp file is left anywhere under DIR.
no_tmp_under() {
  local left
  left=$(find "$1" -name '*.tmp')
  [ -z "$left" ] || { echo "left behind: $left"; return 1; }
}

@test "mkdataset: a filesystem that fills up while writing: one ENOSPC line and no .tmp file left" {
  require_root
  mkdir -p "$T/small"
  mount -t tmpfs -o size=1m tmpfs "$T/small"
  # the list alone (800 kB) passes the space check; the update (-u 1: both
  # files again) does not fit
  printf 'f1 400000\nf2 400000\n' >"$T/fill.list"
  printf '1.2.3.4 - - [10/Oct/2006:13:55:36 -0700] "GET /%s HTTP/1.1" 200 10\n' f1 f2 >"$T/fill.log"
  run "$BIN/mkdataset" -c "$T/fill.list" -a "$T/fill.log" -u 1 -o "$T/small/d"
  echo "$output"
  [ "$status" -eq 1 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ $output =~ ^mkdataset:\ writing\ .*/small/d/[a-z.]+\.tmp:\ No\ space\ left\ on\ device$ ]]
  no_tmp_under "$T/small"
  # the space is free again, and the directory it made is gone
  [ -z "$(ls -A "$T/small")" ]
  # an existing output directory stays (only what mkdataset made goes)
  mkdir "$T/small/mine"
  run "$BIN/mkdataset" -c "$T/fill.list" -a "$T/fill.log" -u 1 -o "$T/small/mine"
  [ "$status" -eq 1 ]
  [ -d "$T/small/mine" ]
  no_tmp_under "$T/small"
}

@test "mkdataset: stopped by SIGTERM or SIGHUP, it leaves no .tmp file" {
  local sig pid st
  # (not SIGINT: a background job of a script starts with SIGINT ignored)
  for sig in TERM HUP; do
    # small takes tens of seconds: the signal comes while it writes
    "$BIN/mkdataset" -p small -o "$T/sig-$sig" >/dev/null 2>&1 &
    pid=$!
    wait_for_file "$T/sig-$sig/layout.tar.gz.tmp" 20
    kill -"$sig" "$pid"
    st=0
    wait "$pid" || st=$?
    echo "SIG$sig: exit $st"
    [ "$st" -eq $((128 + $(kill -l "$sig"))) ]
    [ ! -e "$T/sig-$sig" ]
  done
}
