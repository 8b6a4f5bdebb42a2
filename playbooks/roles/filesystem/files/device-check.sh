#!/bin/sh
# device-check.sh DEVICE : may the shootout wipe DEVICE?  Prints one line and
# exits 0 ("ok: ...") or 1 ("refused: DEVICE <why>").  Refuses a device that
# does not exist, is not a disk, is mounted (itself or any partition, LVM or
# md member on it), holds the root filesystem, is swap, or is in a ZFS pool.
# Linux (lsblk, findmnt, /proc/swaps), FreeBSD, NetBSD, OpenBSD (mount,
# swapctl, zpool).  The shootout's filesystem role runs it before any mkfs.
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

linux() {
  real=$(readlink -f "$dev")
  [ -b "$real" ] || refuse "is not a block device"
  root=$(findmnt -n -o MAJ:MIN / 2>/dev/null || true)
  # The device and everything on it: partitions, LVM volumes, md arrays.
  list=$(lsblk -nrpo NAME,MAJ:MIN,MOUNTPOINT "$real") || refuse "cannot be listed by lsblk"
  printf '%s\n' "$list" | {
    while read -r name majmin mnt; do
      if [ "$mnt" = / ] || [ "$majmin" = "$root" ]; then
        refuse "holds the root filesystem ($name)"
      fi
      [ "$mnt" != "[SWAP]" ] || refuse "is swap ($name)"
      [ -z "$mnt" ] || refuse "is mounted ($name on $(printf '%b' "$mnt"))"
      if awk -v n="$name" 'NR > 1 && $1 == n { f = 1 } END { exit !f }' /proc/swaps; then
        refuse "is swap ($name)"
      fi
      if findmnt -rn -S "$name" >/dev/null 2>&1; then
        refuse "is mounted ($name on $(findmnt -rn -o TARGET -S "$name" | head -n 1))"
      fi
    done
  } || exit 1
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
