#!/usr/bin/env bats
# playbooks/roles/filesystem/files/device-check.sh, the guard before every
# mkfs, on real loop devices: every device of a mounted multi-device
# filesystem (btrfs RAID1 mounted from its first device), a device that
# device-mapper is built on, a member of an md array, swap, and a device held
# open exclusively by anything at all are refused; a free one passes.
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
  for x in "${LOOPS[@]}"; do losetup -d "$x" 2>/dev/null || true; done
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

@test "a free loop device may be wiped" {
  loop free 16M
  run "$CHK" "$L"
  [ "$status" -eq 0 ] && [ "$output" = "ok: $L may be wiped" ]
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
  [ "$status" -eq 1 ] && [[ $output == "refused: $a is mounted ($a on $T/m)" ]]
  umount "$T/m"
  run "$CHK" "$b"
  [ "$status" -eq 0 ] && [ "$output" = "ok: $b may be wiped" ]
}

@test "a loop device under a device-mapper volume (not mounted) is refused, and free again once it is gone" {
  require_cmd dmsetup
  loop dm 32M
  name=shootout-devcheck-$$
  dmsetup create "$name" --table "0 $((32 * 2048)) linear $L 0" || skip "device-mapper does not work here"
  DMS+=("$name")
  run "$CHK" "$L"
  echo "$output"
  [ "$status" -eq 1 ] && [[ $output == "refused: $L is in use by dm-"*" ($name) ($L)"* ]]
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
  [ "$status" -eq 1 ] && [[ $output == "refused: $b is a member of the md array md"* ]]
}

@test "swap on a loop device is refused" {
  require_cmd mkswap swapon
  loop sw 32M
  mkswap -q "$L" >/dev/null 2>&1 || mkswap "$L" >/dev/null
  swapon "$L" 2>/dev/null || skip "swapon is not allowed here"
  SWAPS+=("$L")
  run "$CHK" "$L"
  [ "$status" -eq 1 ] && [[ $output == "refused: $L is swap ($L)" ]]
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
  [ "$status" -eq 1 ] && [[ $output == "refused: $L is in use: the kernel refuses to open it exclusively"* ]]
}

# wait_for_file_or_exists FILE : until FILE exists (10 s).
wait_for_file_or_exists() {
  poll_until 10 test -e "$1" || { echo "$1 did not appear" >&2; return 1; }
}
