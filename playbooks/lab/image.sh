#!/usr/bin/env bash
# image.sh [OS] : builds (once) the VM lab's guest image of OS (a name of
# os.tsv next to this script, default debian12) and prints the directory that
# holds it (image.sh --path OS: only prints it, built or not):
#   base.raw   ext4 root filesystem of a Debian minbase system (OS's suite)
#   vmlinuz, initrd.img   Debian's kernel and initramfs, booted by qemu -kernel
#   lab_key, lab_key.pub  the lab's SSH key (root login by key only)
# The image is cached under LAB_CACHE in a directory OS-<hash> named by the
# hash of this script and OS's line of os.tsv, so each OS's image is rebuilt
# only when its own spec changes.
set -eu

LAB_CACHE=${LAB_CACHE:-/var/cache/shootout-lab}
LAB_MIRROR=${LAB_MIRROR:-http://deb.debian.org/debian}
LAB_OS_TABLE=${LAB_OS_TABLE:-$(dirname "$0")/os.tsv}
path_only=0
[ "${1:-}" != --path ] || { path_only=1; shift; }
os=${1:-debian12}
# minbase, plus what a shootout host needs: ssh and python3 for Ansible, the
# build dependencies of the tools, the filesystems' tools, make + jq for the
# harness, tcpserver (ucspi-tcp) for the fork serve mode and perf (linux-perf) for
# the kernel profile of each phase (PROFILE=1), bpftrace for the block-latency
# histograms (docs/latency.md).  The guests have no way out (qemu user networking with
# restrict=on), so everything the playbooks would install is here already.
# dbus: `shutdown -r 0` (Ansible's reboot) schedules the reboot through logind.
LAB_PACKAGES=systemd-sysv,udev,kmod,initramfs-tools,dbus,openssh-server,\
python3,iproute2,procps,util-linux,sudo,make,gcc,libc6-dev,libowfat-dev,zlib1g-dev,jq,\
e2fsprogs,xfsprogs,btrfs-progs,f2fs-tools,jfsutils,curl,ca-certificates,psmisc,ucspi-tcp,linux-perf,bpftrace
LAB_ROOT_SIZE=${LAB_ROOT_SIZE:-4G}

lab_die() { printf 'lab image: %s\n' "$*" >&2; exit 1; }

case $os in '' | *[!a-z0-9]*) lab_die "'$os' is not an OS name of $LAB_OS_TABLE" ;; esac
row=$(awk -F '\t' -v os="$os" '$1 == os && NF >= 4' "$LAB_OS_TABLE" 2>/dev/null) ||
  lab_die "cannot read $LAB_OS_TABLE"
[ -n "$row" ] || lab_die "no OS '$os' in $LAB_OS_TABLE (there: $(awk -F '\t' '!/^#/ && NF { printf "%s%s", s, $1; s = ", " }' "$LAB_OS_TABLE"))"
IFS=$'\t' read -r _ LAB_SUITE kernel extra <<<"$row"
LAB_PACKAGES=$kernel,$LAB_PACKAGES
[ "$extra" = - ] || LAB_PACKAGES=$LAB_PACKAGES,$extra

spec=$({ cat "$0"; printf '%s\n' "$row"; } | sha256sum | cut -c1-12)
dir=$LAB_CACHE/$os-$spec
[ "$path_only" = 0 ] || { printf '%s\n' "$dir"; exit 0; }

[ "$(id -u)" -eq 0 ] || lab_die "needs root (debootstrap, mkfs); run as root"
for c in debootstrap mkfs.ext4 ssh-keygen sha256sum; do
  command -v "$c" >/dev/null || lab_die "missing $c (run 'make deps')"
done
if [ -s "$dir/base.raw" ] && [ -s "$dir/vmlinuz" ] && [ -s "$dir/lab_key" ]; then
  printf '%s\n' "$dir"
  exit 0
fi

mkdir -p "$LAB_CACHE"
work=$(mktemp -d "$LAB_CACHE/build.XXXXXX")
# A build stopped while debootstrap had /proc (or more) mounted in the new
# root leaves those mounts behind: unmount them, and never let rm cross into
# a mount, so nothing outside the build directory can go.
cleanup() {
  local m
  awk -v w="$work/" 'index($2, w) == 1 { print $2 }' /proc/mounts | sort -r | while read -r m; do
    umount -l "$m" || true
  done
  rm -rf --one-file-system "$work"
}
trap cleanup EXIT
root=$work/rootfs

echo "lab image: $os: debootstrap $LAB_SUITE into $root (a few minutes)" >&2
if ! debootstrap --variant=minbase --include="$LAB_PACKAGES" "$LAB_SUITE" "$root" "$LAB_MIRROR" \
  >"$work/debootstrap.log" 2>&1; then
  tail -5 "$work/debootstrap.log" >&2
  lab_die "debootstrap failed (log above)"
fi

echo lab > "$root/etc/hostname"
printf '/dev/vda / ext4 rw,errors=remount-ro 0 1\n' >"$root/etc/fstab"
# Network: qemu user mode always hands out 10.0.2.15; a static address via
# systemd-networkd comes up at once (ifupdown + DHCP cost ~30 s per boot
# under TCG).
cat >"$root/etc/systemd/network/10-eth0.network" <<'NET'
[Match]
Name=eth0

[Network]
Address=10.0.2.15/24
Gateway=10.0.2.2
NET
systemctl --root="$root" enable systemd-networkd.service >"$work/systemctl.log" 2>&1 ||
  { cat "$work/systemctl.log" >&2; lab_die "cannot enable systemd-networkd"; }
# A guest's hostname comes from the kernel command line (lab.hostname=NAME).
cat >"$root/etc/rc.local" <<'RC'
#!/bin/sh
name=$(sed -n 's/.*lab\.hostname=\([^ ]*\).*/\1/p' /proc/cmdline)
[ -n "$name" ] && hostname "$name" && echo "$name" >/etc/hostname
exit 0
RC
chmod +x "$root/etc/rc.local"
ssh-keygen -q -t ed25519 -N '' -C shootout-lab -f "$work/lab_key"
install -d -m 700 "$root/root/.ssh"
install -m 600 "$work/lab_key.pub" "$root/root/.ssh/authorized_keys"
# Nothing runs behind a benchmark's back: no timers (apt-daily, fstrim,
# e2scrub), no module-loading units nobody needs.
rm -f "$root"/etc/systemd/system/timers.target.wants/*.timer
for u in modprobe@fuse modprobe@efi_pstore modprobe@dm_mod modprobe@configfs; do
  ln -sf /dev/null "$root/etc/systemd/system/$u.service"
done
# A small initramfs with just the virtio disk drivers: under TCG every
# module the initramfs loads costs boot time.
echo MODULES=list >"$root/etc/initramfs-tools/conf.d/lab.conf"
printf '%s\n' virtio_pci virtio_blk ext4 >>"$root/etc/initramfs-tools/modules"
chroot "$root" update-initramfs -u -k all >"$work/initramfs.log" 2>&1 ||
  { tail -5 "$work/initramfs.log" >&2; lab_die "update-initramfs failed (log above)"; }

cp "$root"/boot/vmlinuz-* "$work/vmlinuz"
cp "$root"/boot/initrd.img-* "$work/initrd.img"
truncate -s "$LAB_ROOT_SIZE" "$work/base.raw"
mkfs.ext4 -q -F -L labroot -d "$root" "$work/base.raw"
rm -rf "$root"

mv "$work" "$dir"
trap - EXIT
# Older images (an earlier spec) go, unless a guest still runs from one.
for old in "$LAB_CACHE/$os"-*; do
  if [ "$old" != "$dir" ] && [ -d "$old" ] && ! pgrep -f "qemu-system.*$old/" >/dev/null 2>&1; then
    rm -rf "$old"
  fi
done
printf '%s\n' "$dir"
