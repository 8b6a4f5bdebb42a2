#!/usr/bin/env bats
# playbooks/roles/filesystem/files/device-check.sh, the guard before every
# mkfs, on real loop devices: every device of a mounted multi-device
# filesystem (btrfs RAID1 mounted from its first device), a device that
# device-mapper is built on, a member of an md array, swap, and a device held
# open exclusively by anything at all are refused; a free one passes.  And
# aliases: a device that stores on the same image file or device bytes as a
# mounted one (a second loop device on the image, by any path; loop devices
# stacked on it or under it, at any depth; device-mapper; partitions) is
# refused, and passes again once nothing is mounted.  The device-mapper tests
# skip on a kernel without it (dmsetup create fails); on a kernel with no
# partition table parser, partx -a makes the loop partitions instead.
load helpers

CHK=$ROOT/playbooks/roles/filesystem/files/device-check.sh

setup() {
  require_root
  require_cmd losetup
  T=$BATS_TEST_TMPDIR
  LOOPS=() MNTS=() DMS=() MDS=() SWAPS=() HOLDER=''
}

teardown() {
  local x
  [ -z "$HOLDER" ] || { kill "$HOLDER" 2>/dev/null; wait "$HOLDER" 2>/dev/null || true; }
  for x in "${MNTS[@]}"; do
    if mountpoint -q "$x"; then umount "$x" || umount -l "$x" || true; fi
  done
  for x in "${SWAPS[@]}"; do swapoff "$x" 2>/dev/null || true; done
  for x in "${DMS[@]}"; do dmsetup remove "$x" 2>/dev/null || true; done
  for x in "${MDS[@]}"; do mdadm --stop "$x" >/dev/null 2>&1 || true; done
  # the last one first: a loop device stacked on another goes before it
  for ((x = ${#LOOPS[@]} - 1; x >= 0; x--)); do losetup -d "${LOOPS[x]}" 2>/dev/null || true; done
}

# loop NAME SIZE : a loop device on a new sparse image $T/NAME.img; its path
# is appended to LOOPS and left in L.
loop() {
  local l
  truncate -s "$2" "$T/$1.img"
  l=$(losetup -f --show "$T/$1.img") || skip "no free loop device"
  LOOPS+=("$l")
  L=$l
}

# dm_linear NAME DEV MB : a device-mapper device NAME, linear over the first
# MB MiB of DEV, on DMS.
dm_linear() {
  dmsetup create "$1" --table "0 $(($3 * 2048)) linear $2 0" || skip "device-mapper does not work here"
  DMS+=("$1")
}

# attach LOSETUP-ARGS... : one more loop device (losetup -f --show ARGS), on
# LOOPS and in L.
attach() {
  L=$(losetup -f --show "$@") || skip "no free loop device"
  LOOPS+=("$L")
}

# mounted DEV : a new ext4 on DEV, mounted on $T/m.
mounted() {
  require_cmd mkfs.ext4
  mkfs.ext4 -q -F "$1" >/dev/null
  mkdir -p "$T/m"
  MNTS+=("$T/m")
  mount "$1" "$T/m"
}

# refused_alias DEV ALIAS : device-check refuses DEV as an alias of ALIAS,
# which is mounted on $T/m.
refused_alias() {
  run "$CHK" "$1"
  echo "$output"
  [ "$status" -eq 1 ]
  [[ $output == "refused: $1 is an alias of $2 (both on "*"), which is mounted on $T/m" ]]
}

# may_be_wiped DEV : device-check approves DEV.
may_be_wiped() {
  run "$CHK" "$1"
  echo "$output"
  [ "$status" -eq 0 ]
  [ "$output" = "ok: $1 may be wiped" ]
}

@test "a free loop device may be wiped" {
  loop free 16M
  run "$CHK" "$L"
  [ "$status" -eq 0 ]
  [ "$output" = "ok: $L may be wiped" ]
}

@test "btrfs RAID1 over two loop devices, mounted from the first: both devices are refused" {
  require_cmd mkfs.btrfs
  grep -qw btrfs /proc/filesystems || modprobe btrfs 2>/dev/null || skip "this kernel has no btrfs"
  loop b1 160M
  a=$L
  loop b2 160M
  b=$L
  mkfs.btrfs -q -f -d raid1 -m raid1 "$a" "$b" >/dev/null
  MNTS+=("$T/m")
  mkdir "$T/m"
  btrfs device scan "$b" >/dev/null 2>&1 || true
  mount -t btrfs -o "device=$b" "$a" "$T/m" || skip "cannot mount a two-device btrfs here"
  run "$CHK" "$b"
  echo "$output"
  [ "$status" -eq 1 ]
  [[ $output == "refused: $b is a device of the btrfs "*" mounted on $T/m ($b)" ]]
  run "$CHK" "$a"
  [ "$status" -eq 1 ]
  [[ $output == "refused: $a is mounted ($a on $T/m)" ]]
  umount "$T/m"
  run "$CHK" "$b"
  [ "$status" -eq 0 ]
  [ "$output" = "ok: $b may be wiped" ]
}

@test "a loop device under a device-mapper volume (not mounted) is refused, and free again once it is gone" {
  require_cmd dmsetup
  loop dm 32M
  name=shootout-devcheck-$$
  dm_linear "$name" "$L" 32
  run "$CHK" "$L"
  echo "$output"
  [ "$status" -eq 1 ]
  [[ $output == "refused: $L is in use by dm-"*" ($name) ($L)"* ]]
  dmsetup remove "$name"
  run "$CHK" "$L"
  [ "$status" -eq 0 ]
}

@test "a member of an md RAID1 is refused" {
  require_cmd mdadm
  loop md1 32M
  a=$L
  loop md2 32M
  b=$L
  md=/dev/md/shootout-devcheck-$$
  mdadm --create "$md" --run --level=1 --raid-devices=2 --metadata=1.2 "$a" "$b" >/dev/null 2>&1 ||
    skip "cannot create an md array here"
  MDS+=("$md")
  run "$CHK" "$b"
  echo "$output"
  [ "$status" -eq 1 ]
  [[ $output == "refused: $b is a member of the md array md"* ]]
}

@test "swap on a loop device is refused" {
  require_cmd mkswap swapon
  loop sw 32M
  mkswap -q "$L" >/dev/null 2>&1 || mkswap "$L" >/dev/null
  swapon "$L" 2>/dev/null || skip "swapon is not allowed here"
  SWAPS+=("$L")
  run "$CHK" "$L"
  [ "$status" -eq 1 ]
  [[ $output == "refused: $L is swap ($L)" ]]
}

@test "a device something holds open exclusively is refused, whatever holds it" {
  require_cmd python3
  loop ex 16M
  python3 -c 'import os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_EXCL)
open(sys.argv[2], "w").close()
time.sleep(60)' "$L" "$T/held" 3>&- &
  HOLDER=$!
  wait_for_file_or_exists "$T/held"
  run "$CHK" "$L"
  [ "$status" -eq 1 ]
  [[ $output == "refused: $L is in use: the kernel refuses to open it exclusively"* ]]
}

# wait_for_file_or_exists FILE : until FILE exists (10 s).
wait_for_file_or_exists() {
  poll_until 10 test -e "$1" || { echo "$1 did not appear" >&2; return 1; }
}

@test "a second loop device on the image file of a mounted loop device is refused, and free once it is unmounted" {
  loop img 64M
  a=$L
  mounted "$a"
  attach "$T/img.img"
  refused_alias "$L" "$a"
  [[ $output == *"(both on the image file "*"/img.img)"* ]]
  umount "$T/m"
  may_be_wiped "$L"
}

@test "a read-only loop device stacked on a mounted loop device is refused, at one level and at two" {
  loop img 64M
  a=$L
  mounted "$a"
  attach -r "$a"
  c=$L
  refused_alias "$c" "$a"
  attach -r "$c"
  refused_alias "$L" "$a"
  umount "$T/m"
  may_be_wiped "$L"
}

@test "a loop device under a mounted loop device stacked on it, two levels up, is refused" {
  loop img 64M
  a=$L
  attach "$a"
  attach "$L"
  mounted "$L"
  refused_alias "$a" "$L"
}

@test "the image file of a mounted loop device reached by a symlink or a hard link is refused, also once its name is deleted" {
  loop img 64M
  a=$L
  mounted "$a"
  ln -s img.img "$T/sym.img"
  attach "$T/sym.img"
  sym=$L
  refused_alias "$sym" "$a"
  ln "$T/img.img" "$T/hard.img"
  attach "$T/hard.img"
  refused_alias "$L" "$a"
  [[ $output == *"(both on the image file "*"/hard.img)"* ]]
  rm "$T/img.img" "$T/sym.img"
  refused_alias "$sym" "$a"
  [[ $output == *"(both on the image file "*"/img.img (deleted))"* ]]
}

@test "a loop device on another image than the mounted one may be wiped" {
  loop img 64M
  mounted "$L"
  loop other 16M
  may_be_wiped "$L"
  attach -r "$L"
  may_be_wiped "$L"
}

@test "device-mapper on an alias of a mounted loop device is refused, and so is an alias of a loop device under mounted device-mapper" {
  require_cmd dmsetup
  loop img 64M
  a=$L
  attach "$T/img.img"
  b=$L
  name=shootout-devcheck-$$
  dm_linear "$name" "$b" 64
  mounted "$a"
  refused_alias "/dev/mapper/$name" "$a"
  umount "$T/m"
  dmsetup remove "$name"
  dm_linear "$name" "$a" 64
  mounted "/dev/mapper/$name"
  refused_alias "$b" "/dev/$(basename "$(readlink -f "/dev/mapper/$name")")"
}

@test "a mounted partition of a loop device: the same bytes through another loop device are refused, other bytes not" {
  require_cmd sfdisk partx
  truncate -s 64M "$T/p.img"
  printf 'label: dos\n,16M\n,16M\n' | sfdisk -q "$T/p.img"
  attach -P "$T/p.img"
  a=$L
  partitions "$a"
  mounted "${a}p1"
  run "$CHK" "$a"
  [ "$status" -eq 1 ]
  [ "$output" = "refused: $a is mounted (${a}p1 on $T/m)" ]
  may_be_wiped "${a}p2"
  attach -P "$T/p.img"
  b=$L
  partitions "$b"
  refused_alias "$b" "${a}p1"
  refused_alias "${b}p1" "${a}p1"
  may_be_wiped "${b}p2"
  # partition 1 again, as a loop device at its offset (sfdisk starts it at 1 MiB)
  attach -o $((1024 * 1024)) --sizelimit $((16 * 1024 * 1024)) "$T/p.img"
  refused_alias "$L" "${a}p1"
  attach -o $((17 * 1024 * 1024)) "$T/p.img"
  may_be_wiped "$L"
}

# partitions LOOP : LOOPp1 and LOOPp2 exist: the kernel's own scan (losetup
# -P) or, with no partition table support in the kernel, partx -a.
partitions() {
  [ -b "${1}p2" ] || partx -a "$1" 2>/dev/null ||
    skip "the kernel makes no partitions of a loop device (no partition table support, partx -a failed)"
  poll_until 10 test -b "${1}p2" || skip "no ${1}p2 after partx -a"
}
