#!/bin/sh
# device-check.sh DEVICE : may the shootout wipe DEVICE?  Prints one line and
# exits 0 ("ok: ...") or 1 ("refused: DEVICE <why>").  Refuses a device that
# does not exist, is not a disk, is mounted (itself or any partition, LVM or
# md member on it), holds the root filesystem, is swap, or is in a ZFS pool;
# on Linux also a device of a mounted multi-device btrfs (/sys/fs/btrfs: only
# one of its devices shows as mounted), a member of an md array
# (/proc/mdstat), a device anything is built on (holders in sysfs: LVM,
# device-mapper, md, bcache), an alias of a device in any such use (one that
# stores on the same bytes of the same image file or device: a second loop
# device on the image, by whatever path; loop devices stacked on it or under
# it, device-mapper, partitions, at any depth; files compared by device and
# inode, devices by number), and, last, any device the kernel will not open
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

# kname_of PATH : the kernel's name (loop0, dm-1, sda2) of the block device
# node PATH, by its device number.
kname_of() (
  n=$(stat -L -c '%t:%T' "$1") || exit 1
  l=$(readlink "/sys/dev/block/$((0x${n%:*})):$((0x${n#*:}))") || exit 1
  echo "${l##*/}"
)

# devno STDEV : "MAJ:MIN" of a decimal st_dev (stat %d), Linux's encoding.
devno() {
  echo "$((($1 >> 8 & 0xfff) | ($1 >> 32 & ~0xfff))):$((($1 & 0xff) | ($1 >> 12 & ~0xff)))"
}

# extents KNAME START LEN : what bytes [START, START+LEN) of /dev/KNAME are
# stored on, followed down at any depth: "under KNAME" for every device on
# the way, then "ROOT START LEN WHAT" lines.  A partition leads to its disk
# (from its start), a loop device to its backing device or file (from its
# offset; a file is ROOT file:MAJ:MIN:INODE, the inode the kernel has open,
# whatever path, link or bind mount names it, deleted or not), a device built
# on slaves (device-mapper, md, bcache) to the whole of each of them;
# anything else is ROOT dev:MAJ:MIN, itself.
extents() (
  sys=/sys/class/block/$1
  echo "under $1"
  if [ -r "$sys/partition" ]; then
    disk=$(readlink -f "$sys/..")
    extents "${disk##*/}" $(($2 + $(cat "$sys/start") * 512)) "$3"
    exit
  fi
  if [ -r "$sys/loop/backing_file" ]; then
    back=$(cat "$sys/loop/backing_file")
    off=$(($2 + $(cat "$sys/loop/offset")))
    read -r ino bdev <<EOF
$(losetup -n -O BACK-INO,BACK-MAJ:MIN --list "/dev/$1")
EOF
    # A device node: its device, if the path still names the node it opened.
    if [ -b "$back" ] && node=$(stat -L -c '%d %i' "$back") &&
      [ "$(devno "${node% *}") ${node#* }" = "$bdev $ino" ]; then
      extents "$(kname_of "$back")" "$off" "$3"
    else
      echo "file:$bdev:$ino $off $3 the image file $back"
    fi
    exit
  fi
  for s in "$sys"/slaves/*; do
    [ -e "$s" ] || continue
    extents "${s##*/}" 0 $(($(cat "$s/size") * 512))
    slave=1
  done
  [ -n "${slave:-}" ] || echo "dev:$(cat "$sys/dev") $2 $3 /dev/$1"
)

# busy_devices : "KNAME WHY" for every block device mounted or used as swap.
# A mount is known by its source, or by its device number when the source
# names no node (/dev/root).
busy_devices() {
  findmnt -rnv -o MAJ:MIN,SOURCE,TARGET 2>/dev/null | while read -r num src tgt; do
    src=$(printf '%b' "$src")
    if [ -b "$src" ]; then
      k=$(kname_of "$src") || continue
    elif l=$(readlink "/sys/dev/block/$num"); then
      k=${l##*/}
    else
      continue
    fi
    echo "$k is mounted on $(printf '%b' "$tgt")"
  done
  [ -r /proc/swaps ] || return 0
  awk 'NR > 1 { print $1 }' /proc/swaps | while read -r s; do
    if [ -b "$s" ]; then echo "$(kname_of "$s") is swap"; fi
  done
}

# why_busy KNAME BUSY SKIP : why /dev/KNAME is in use ("is mounted on /mnt"),
# or nothing: its line in BUSY (busy_devices), a mounted btrfs it is a device
# of, or a holder that is not named in SKIP (" loop1 dm-0 ").
why_busy() (
  why=$(printf '%s\n' "$2" | awk -v k="$1" '$1 == k { sub(/^[^ ]+ /, ""); print; exit }')
  [ -z "$why" ] || { echo "$why"; exit; }
  b=$(btrfs_of "$1")
  [ -z "$b" ] || { echo "is a device of the btrfs ${b%% *} mounted on ${b#* }"; exit; }
  for h in /sys/class/block/"$1"/holders/*; do
    [ -e "$h" ] || continue
    case $3 in *" ${h##*/} "*) continue ;; esac
    echo "is in use by ${h##*/}"
    exit
  done
)

# aliases KNAME : refuse when another device stores on the same file or
# device bytes as /dev/KNAME (a second loop device on its image, a loop
# device stacked on it or under it, device-mapper, partitions, at any depth)
# and that device is mounted, swap, a device of a mounted btrfs, held by
# something that is not part of KNAME's own stack, or not to be opened
# exclusively.  Paths are never compared: files by device and inode,
# devices by number.
aliases() {
  mine=$(extents "$1" 0 $(($(cat "/sys/class/block/$1/size") * 512))) ||
    refuse "cannot be followed to the storage under it (sysfs, losetup)"
  below=$(printf '%s\n' "$mine" | sed -n 's/^under //p' | tr '\n' ' ')
  busy=$(busy_devices)
  quiet=''
  for sys in /sys/class/block/*; do
    y=${sys##*/}
    [ "$y" != "$1" ] || continue
    why=$(why_busy "$y" "$busy" " $1 $below")
    if [ -z "$why" ]; then
      # Under KNAME and held by nothing else: only KNAME uses it.
      case " $below" in *" $y "*) continue ;; esac
    fi
    shared=$({ printf '%s\n' "$mine" '--'; extents "$y" 0 $(($(cat "$sys/size") * 512)); } 2>/dev/null |
      awk 'BEGIN { n = 0 } $0 == "--" { y = 1; next }
        $1 == "under" { next }
        !y { r[n] = $1; s[n] = $2; e[n] = $2 + $3; w = $0; sub(/^[^ ]+ [^ ]+ [^ ]+ /, "", w); what[n++] = w; next }
        { for (i = 0; i < n; i++) if ($1 == r[i] && $2 < e[i] && s[i] < $2 + $3) { print what[i]; exit } }')
    [ -n "$shared" ] || continue
    [ -z "$why" ] || refuse "is an alias of /dev/$y (both on $shared), which $why"
    quiet="$quiet$y $shared
"
  done
  # The aliases in no use seen above: does anything else hold one?  (Not a
  # disk with partitions: it is held whenever one of them is; they are asked.)
  printf '%s' "$quiet" | while read -r y shared; do
    for p in /sys/class/block/"$y"/"$y"*/partition; do
      [ ! -e "$p" ] || continue 2
    done
    ! exclusive_busy "/dev/$y" ||
      refuse "is an alias of /dev/$y (both on $shared), which the kernel will not open exclusively (something holds it)"
  done || exit 1
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
  k=$(kname_of "$real") || refuse "has no block device number the kernel knows"
  aliases "$k"
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
