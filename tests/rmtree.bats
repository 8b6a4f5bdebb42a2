#!/usr/bin/env bats
# bin/rmtree: deep and wide trees, symlinks, mount points, read-only
# subtrees, and the refusals.
load helpers

setup() {
  T=$(mktemp -d "${BATS_TMPDIR:-/tmp}/rmtree.XXXXXX")
  chmod 755 "$T"
  MOUNTS=()
}

teardown() {
  local m
  for m in "${MOUNTS[@]}"; do
    umount "$m" 2>/dev/null || true
  done
  chmod -R u+rwx "$T" 2>/dev/null || true
  rm -rf "$T"
}

# deep_tree DIR LEVELS: a chain of directories whose path is longer than
# PATH_MAX, built relative to the previous level (mkdir -p cannot).
deep_tree() {
  python3 - "$1" "$2" <<'EOF'
import os, sys
top, levels = sys.argv[1], int(sys.argv[2])
os.mkdir(top)
fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
for i in range(levels):
    os.mkdir("dddd", dir_fd=fd)
    if i % 50 == 0:
        os.close(os.open("file", os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=fd))
    nfd = os.open("dddd", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
    os.close(fd)
    fd = nfd
os.close(fd)
EOF
}

# mount_tracked ARGS... TARGET : mount, and unmount TARGET in teardown.
mount_tracked() {
  mount "$@"
  MOUNTS+=("${!#}")
}

metric() { # metric NAME FILE
  awk -F'\t' -v m="$1" '$1 == m { print $2 }' "$2"
}

@test "rmtree: -h, --version, usage errors" {
  run "$BIN/rmtree" -h
  [ "$status" -eq 0 ]
  [[ "$output" == *"usage: rmtree"* ]]
  run "$BIN/rmtree" --version
  [ "$status" -eq 0 ]
  [[ "$output" == "rmtree "* ]]
  run "$BIN/rmtree"
  [ "$status" -eq 2 ]
  run "$BIN/rmtree" "$T/a" "$T/b"
  [ "$status" -eq 2 ]
  run "$BIN/rmtree" "$T/does-not-exist"
  [ "$status" -eq 2 ]
  [[ "$output" == *"cannot open"*"No such file or directory"* ]]
}

@test "rmtree: a tree deeper than PATH_MAX goes, also with few descriptors" {
  deep_tree "$T/deep" 1200   # 6000 characters of path
  run "$BIN/rmtree" --stats "$T/s.tsv" "$T/deep"
  echo "$output"
  [ "$status" -eq 0 ]
  [ ! -e "$T/deep" ]
  [ "$(metric dirs "$T/s.tsv")" -eq 1201 ]
  [ "$(metric files "$T/s.tsv")" -eq 24 ]
  # 32 descriptors: deeper levels are closed and reopened through ".."
  deep_tree "$T/deep2" 1200
  run bash -c 'ulimit -n 32 && exec "$0" "$1"' "$BIN/rmtree" "$T/deep2"
  echo "$output"
  [ "$status" -eq 0 ]
  [ ! -e "$T/deep2" ]
  [[ "$output" == *"24 files, 1201 dirs removed"* ]]
}

@test "rmtree: a directory of 20000 files, with --stats and --series" {
  mkdir -p "$T/huge/sub"
  python3 -c 'import os,sys
d=sys.argv[1]
for i in range(20000):
    os.close(os.open(os.path.join(d, "f%05d" % i), os.O_CREAT | os.O_WRONLY, 0o644))' "$T/huge"
  touch "$T/huge/sub/x"
  run "$BIN/rmtree" --stats "$T/s.tsv" --series "$T/series.tsv" "$T/huge"
  [ "$status" -eq 0 ]
  [ ! -e "$T/huge" ]
  [ "$(metric files "$T/s.tsv")" -eq 20001 ]
  [ "$(metric dirs "$T/s.tsv")" -eq 2 ]
  [ "$(metric errors "$T/s.tsv")" -eq 0 ]
  grep -q '^wall_s	' "$T/s.tsv"
  [ "$(awk '$2 == "files" { s += $3 } END { print s }' "$T/series.tsv")" -eq 20001 ]
}

@test "rmtree: symlinks are removed, never followed; a symlink DIR is refused" {
  mkdir -p "$T/outside/keepdir" "$T/tree/in"
  echo precious >"$T/outside/keep"
  touch "$T/outside/keepdir/also"
  ln -s "$T/outside/keep" "$T/tree/to-file"
  ln -s "$T/outside/keepdir" "$T/tree/in/to-dir"
  ln -s "$T/outside" "$T/tree/in/to-outside"
  ln -s /nonexistent "$T/tree/dangling"
  ln -s "$T/outside" "$T/link-to-outside"
  run "$BIN/rmtree" "$T/link-to-outside"
  [ "$status" -eq 2 ]
  [[ "$output" == *"is a symbolic link, not followed"* ]]
  run "$BIN/rmtree" "$T/tree"
  [ "$status" -eq 0 ]
  [ ! -e "$T/tree" ]
  [ "$(cat "$T/outside/keep")" = precious ]
  [ -e "$T/outside/keepdir/also" ]
  [ -L "$T/link-to-outside" ]
}

@test "rmtree: a filesystem mounted inside is left alone and reported" {
  require_root
  mkdir -p "$T/tree/a/mnt" "$T/tree/b"
  touch "$T/tree/a/f" "$T/tree/b/g"
  mount_tracked -t tmpfs rmtree-test "$T/tree/a/mnt"
  echo keep >"$T/tree/a/mnt/inside"
  run "$BIN/rmtree" "$T/tree"
  echo "$output"
  [ "$status" -eq 1 ]
  [[ "$output" == *"'$T/tree/a/mnt' is a mount point, left alone"* ]]
  [ "$(cat "$T/tree/a/mnt/inside")" = keep ]
  [ ! -e "$T/tree/b" ]
  [ ! -e "$T/tree/a/f" ]
  # asked to cross: the contents go, the mount point itself stays (busy)
  run "$BIN/rmtree" --cross-mounts "$T/tree"
  echo "$output"
  [ "$status" -eq 1 ]
  [ ! -e "$T/tree/a/mnt/inside" ]
  [[ "$output" == *"cannot remove '$T/tree/a/mnt'"* ]]
}

@test "rmtree: a read-only subtree gives one clear line, the rest is deleted" {
  mkdir -p "$T/tree/ro/sub" "$T/tree/ok/deeper"
  touch "$T/tree/ro/a" "$T/tree/ro/b" "$T/tree/ro/c" "$T/tree/ro/sub/x" "$T/tree/ok/deeper/y" "$T/tree/z"
  local -a as_user=()
  if [ "$(id -u)" -eq 0 ]; then
    require_cmd setpriv
    chown -R nobody "$T/tree"
    as_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
  fi
  chmod 555 "$T/tree/ro"
  run "${as_user[@]}" "$BIN/rmtree" "$T/tree"
  echo "$output"
  [ "$status" -eq 1 ]
  [ "$(grep -c 'cannot remove' <<<"$output")" -eq 1 ]
  [[ "$output" == *"'$T/tree/ro/"*"and 3 more entries there: Permission denied"* ]]
  [ ! -e "$T/tree/ok" ]
  [ ! -e "$T/tree/z" ]
  [ ! -e "$T/tree/ro/sub/x" ]
  [ -e "$T/tree/ro/a" ]
}

@test "rmtree: names with a newline and ESC print escaped, one line each" {
  local bad
  bad=$(printf 'ro\n\033[2Jx')
  mkdir -p "$T/tree/$bad"
  touch "$T/tree/$bad/$(printf 'f\n\033[31m')"
  local -a as_user=()
  if [ "$(id -u)" -eq 0 ]; then
    require_cmd setpriv
    chown -R nobody "$T/tree"
    as_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
  fi
  chmod 555 "$T/tree/$bad"
  run "${as_user[@]}" "$BIN/rmtree" "$T/tree"
  echo "$output"
  [ "$status" -eq 1 ]
  [[ "$output" == *"cannot remove '$T/tree/ro\x0a\x1b[2Jx/f\x0a\x1b[31m': Permission denied"* ]]
  [ "$(wc -l <<<"$output")" -eq 2 ] # that line and the summary
  run -1 env LC_ALL=C grep -qP '[^\x20-\x7e]' <<<"$output" # no raw control byte
  # a refused DIR, and one it cannot open, are escaped too
  run "$BIN/rmtree" "$T/tree/$bad/.."
  [ "$status" -eq 2 ]
  [ "$output" = "rmtree: refusing to remove '$T/tree/ro\x0a\x1b[2Jx/..': '.' and '..' are not removed" ]
  run "$BIN/rmtree" "$T/$bad-missing"
  [ "$status" -eq 2 ]
  [ "$output" = "rmtree: cannot open '$T/ro\x0a\x1b[2Jx-missing': No such file or directory" ]
}

@test "rmtree: refuses '.', '..' and the root, also inside a chroot" {
  mkdir -p "$T/w/d"
  run bash -c 'cd "$1/w/d" && "$0" . ; echo "rc=$?"' "$BIN/rmtree" "$T"
  [[ "$output" == *"refusing to remove '.'"*"rc=2"* ]]
  run "$BIN/rmtree" "$T/w/d/.."
  [ "$status" -eq 2 ]
  [ -d "$T/w/d" ]
  require_root
  # In a chroot "/" is our own directory: even a broken check could only
  # hurt the copy of rmtree and its libraries there.
  local r=$T/chroot lib
  mkdir -p "$r"
  cp "$BIN/rmtree" "$r/rmtree"
  for lib in $(ldd "$BIN/rmtree" | grep -o '/[^ ]*'); do
    mkdir -p "$r$(dirname "$lib")"
    cp "$lib" "$r$lib"
  done
  echo marker >"$r/marker"
  run chroot "$r" /rmtree /
  [ "$status" -eq 2 ]
  [[ "$output" == *"refusing to remove '/': it is the root directory"* ]]
  run chroot "$r" /rmtree /.//
  [ "$status" -eq 2 ]
  mkdir -p "$r/sub"
  run chroot "$r" /rmtree /sub/..
  [ "$status" -eq 2 ]
  # the root seen through another path: only device and inode tell
  mount_tracked --bind "$r" "$r/sub"
  run chroot "$r" /rmtree /sub
  [ "$status" -eq 2 ]
  [[ "$output" == *"refusing to remove '/sub': it is the root directory"* ]]
  [ -e "$r/marker" ]
  [ -e "$r/rmtree" ]
}
