# shellcheck shell=bash
# ext4_loop NAME IMG_DIR SIZE : a bench's own ext4 on a loop device: tmp (a
# directory of its own), img (a sparse image of SIZE in IMG_DIR), loop (the
# device), mnt (mounted there, noatime); everything undone at exit (a trap
# on EXIT).  For tests/bench/profile.bench.sh and share.bench.sh.
ext4_loop() {
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
  img=$(mktemp "$2/$1.XXXXXX.img")
  mnt=$tmp/mnt loop=''
  trap ext4_loop_cleanup EXIT
  truncate -s "$3" "$img"
  mkfs.ext4 -q -F "$img"
  loop=$(losetup -f --show "$img")
  mkdir -p "$mnt"
  mount -o noatime "$loop" "$mnt"
}

# shellcheck disable=SC2317 # called by the trap
ext4_loop_cleanup() {
  if mountpoint -q "$mnt" 2>/dev/null; then umount "$mnt" || umount -l "$mnt"; fi
  [ -z "$loop" ] || losetup -d "$loop" 2>/dev/null || true
  rm -rf "$tmp" "$img"
}
