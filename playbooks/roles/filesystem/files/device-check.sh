#!/bin/sh
# device-check.sh DEVICE : may the shootout wipe DEVICE?  Prints one line and
# exits 0 ("ok: ...") or 1 ("refused: DEVICE <why>").  Refuses a device that
# does not exist, is not a disk, is mounted (itself or any partition, LVM or
# md member on it), holds the root filesystem, is swap, or is in a ZFS pool;
# on Linux also a device of a mounted multi-device btrfs (/sys/fs/btrfs: only
# one of its devices shows as mounted), a member of an md array
# (/proc/mdstat), a device anything is built on (holders in sysfs: LVM,
# device-mapper, md, bcache), and, last, any device the kernel will not open
# exclusively (EBUSY: python3).  Linux (lsblk, findmnt, /proc/swaps, sysfs),
# FreeBSD, NetBSD, OpenBSD (mount, swapctl, zpool).  The shootout's
# filesystem role runs it for every device in its guards, and again right
# before each variant's mkfs.
set -eu

dev=${1:-}
refuse() {
  echo "refused: $dev $*"
  exit 1
}

[ -n "$dev" ] || refuse "(no device named)"
case $dev in
  /dev/?*) ;;
  *) refuse "is not a /dev/ path" ;;
esac
[ -e "$dev" ] || refuse "does not exist"
[ -b "$dev" ] || [ -c "$dev" ] || refuse "is not a disk device"

# mounted_on KNAME : where /dev/KNAME is mounted (first mount point), or "".
mounted_on() {
  findmnt -rn -o TARGET -S "/dev/$1" 2>/dev/null | head -n 1
}

# btrfs_of KNAME : "FSID MOUNTPOINT" of the mounted btrfs that KNAME is a
# device of (any of them: a multi-device btrfs is mounted from one device
# only, the others show no mount point anywhere), or nothing.
btrfs_of() {
  for d in /sys/fs/btrfs/*/devices/"$1"; do
    [ -e "$d" ] || continue
    fsdir=${d%/devices/*}
    on=''
    for m in "$fsdir"/devices/*; do
      on=$(mounted_on "${m##*/}")
      [ -z "$on" ] || break
    done
    echo "${fsdir##*/} ${on:-?}"
    return 0
  done
}

# md_of KNAME : the md array (/proc/mdstat) that KNAME is a member of.
md_of() {
  [ -r /proc/mdstat ] || return 0
  awk -v k="$1" '$2 == ":" { for (i = 3; i <= NF; i++) { m = $i; sub(/\[.*/, "", m); if (m == k) { print $1; exit } } }' /proc/mdstat
}

# holders_of KNAME : what holds KNAME (device-mapper/LVM, md, bcache...):
# "dm-0 (vg-lv) md0".
holders_of() {
  for h in /sys/class/block/"$1"/holders/*; do
    [ -e "$h" ] || continue
    n=${h##*/}
    if [ -r "/sys/class/block/$n/dm/name" ]; then
      printf '%s (%s) ' "$n" "$(cat "/sys/class/block/$n/dm/name")"
    else
      printf '%s ' "$n"
    fi
  done
}

# swap_on KNAME : /dev/KNAME is in /proc/swaps (under any of its names).
swap_on() {
  [ -r /proc/swaps ] || return 1
  awk 'NR > 1 { print $1 }' /proc/swaps | while read -r s; do
    [ "$(readlink -f "$s" 2>/dev/null)" != "/dev/$1" ] || exit 3
  done
  [ $? -eq 3 ]
}

# zfs_of KNAME : the ZFS pool with /dev/KNAME as a vdev, if zpool is here.
zfs_of() {
  command -v zpool >/dev/null 2>&1 || return 0
  zpool status -PL 2>/dev/null | awk '$1 ~ /^pool:$/ { p = $2 } $1 ~ /^\// { print p, $1 }' |
    while read -r pool vdev; do
      if [ "$(readlink -f "$vdev" 2>/dev/null)" = "/dev/$1" ]; then
        echo "$pool"
        break
      fi
    done
}

# exclusive_busy DEV : the kernel refuses DEV an exclusive open (EBUSY): a
# filesystem, array, mapping, pool or swap holds it (or one of its
# partitions).  The last word on Linux, where python3 is there to ask.
exclusive_busy() {
  command -v python3 >/dev/null 2>&1 || return 1
  python3 -c '
import errno, os, sys
try:
    os.close(os.open(sys.argv[1], os.O_RDONLY | os.O_EXCL))
except OSError as e:
    sys.exit(3 if e.errno == errno.EBUSY else 0)' "$1" 2>/dev/null
  [ $? -eq 3 ]
}

linux() {
  real=$(readlink -f "$dev")
  [ -b "$real" ] || refuse "is not a block device"
  root=$(findmnt -n -o MAJ:MIN / 2>/dev/null || true)
  # The device and everything on it: partitions, LVM volumes, md arrays.
  list=$(lsblk -nrpo KNAME,MAJ:MIN,NAME,MOUNTPOINT "$real") || refuse "cannot be listed by lsblk"
  printf '%s\n' "$list" | {
    while read -r kname majmin name mnt; do
      k=${kname#/dev/}
      if [ "$mnt" = / ] || [ "$majmin" = "$root" ]; then
        refuse "holds the root filesystem ($name)"
      fi
      [ "$mnt" != "[SWAP]" ] || refuse "is swap ($name)"
      [ -z "$mnt" ] || refuse "is mounted ($name on $(printf '%b' "$mnt"))"
      ! swap_on "$k" || refuse "is swap ($name)"
      if findmnt -rn -S "$name" >/dev/null 2>&1; then
        refuse "is mounted ($name on $(findmnt -rn -o TARGET -S "$name" | head -n 1))"
      fi
      on=$(mounted_on "$k")
      [ -z "$on" ] || refuse "is mounted ($name on $on)"
      b=$(btrfs_of "$k")
      [ -z "$b" ] || refuse "is a device of the btrfs ${b%% *} mounted on ${b#* } ($name)"
      md=$(md_of "$k")
      [ -z "$md" ] || refuse "is a member of the md array $md ($name)"
      h=$(holders_of "$k")
      [ -z "$h" ] || refuse "is in use by ${h% } ($name): an LVM volume, device-mapper or md device is built on it"
      z=$(zfs_of "$k")
      [ -z "$z" ] || refuse "is in the ZFS pool $z ($name)"
    done
  } || exit 1
  ! exclusive_busy "$real" ||
    refuse "is in use: the kernel refuses to open it exclusively (a filesystem, array, mapping, pool or swap holds it)"
}

bsd() {
  # "DEV on MOUNTPOINT (type, options)" lines; a prefix match also catches
  # partitions and slices (/dev/ada1 -> /dev/ada1p1, /dev/wd1 -> /dev/wd1a).
  mount | while read -r src _on mnt _rest; do
    case $src in
      "$dev"*)
        [ "$mnt" != / ] || refuse "holds the root filesystem ($src)"
        refuse "is mounted ($src on $mnt)"
        ;;
    esac
  done || exit 1
  if command -v swapctl >/dev/null 2>&1; then
    swapctl -l 2>/dev/null | while read -r src _rest; do
      case $src in "$dev"*) refuse "is swap ($src)" ;; esac
    done || exit 1
  fi
  if command -v zpool >/dev/null 2>&1; then
    base=${dev#/dev/}
    zpool status 2>/dev/null | while read -r vdev _rest; do
      case $vdev in "$base"*) refuse "is in a ZFS pool ($vdev)" ;; esac
    done || exit 1
  fi
}

case $(uname -s) in
  Linux) linux ;;
  *BSD) bsd ;;
  *) refuse "on $(uname -s): no device check for this system" ;;
esac
echo "ok: $dev may be wiped"
