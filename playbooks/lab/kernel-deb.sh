#!/usr/bin/env bash
# kernel-deb.sh IMAGE PACKAGE DIR : a Debian kernel package installed into a
# copy of the image's root disk, for the VM lab's kernels as variants
# (kernel.sh's source deb:).  PACKAGE is a package name with the suite that
# has it (linux-image-6.12.57+deb12-amd64@bookworm-backports, from
# LAB_MIRROR) or the path of a .deb (e.g. what `make bindeb-pkg` built).
# DIR gets, once (a DIR with base.raw is taken as built):
#   base.raw    the image's root disk with the package installed by apt in a
#               chroot (its modules, its initramfs made by the image's own
#               initramfs-tools settings); the sources and lists apt needed
#               are removed again, so the userland is the image's
#   vmlinuz initrd.img config   that kernel's, from /boot
#   release     its uname -r
# Needs root: the copy is loop-mounted in a directory of DIR's own and
# unmounted on every exit.
set -eu

LAB_MIRROR=${LAB_MIRROR:-http://deb.debian.org/debian}
# poll_until
# shellcheck source=harness/poll.sh
. "$(dirname "$0")/../../harness/poll.sh"

deb_die() { printf 'lab kernel deb: %s\n' "$*" >&2; exit 1; }

[ $# -eq 3 ] || deb_die "usage: kernel-deb.sh IMAGE PACKAGE[@SUITE]|FILE.deb DIR"
image=$1 pkg=$2 dir=$3
[ -s "$image/base.raw" ] || deb_die "no image in $image (run playbooks/lab/image.sh)"
if [ -s "$dir/base.raw" ] && [ -s "$dir/vmlinuz" ] && [ -s "$dir/release" ]; then
  printf '%s\n' "$dir"
  exit 0
fi
[ "$(id -u)" -eq 0 ] || deb_die "needs root (the image's copy is loop-mounted); run as root"
suite=
case $pkg in
  /*.deb) [ -r "$pkg" ] || deb_die "cannot read $pkg" ;;
  *@*)
    suite=${pkg#*@} pkg=${pkg%@*}
    case $pkg$suite in *[!a-z0-9.+-]*) deb_die "'$pkg@$suite' is not PACKAGE@SUITE" ;; esac
    ;;
  *) case $pkg in *[!a-z0-9.+-]*) deb_die "'$pkg' is not a package name" ;; esac ;;
esac

mkdir -p "$(dirname "$dir")"
work=$(mktemp -d "$(dirname "$dir")/.build.XXXXXX")
mnt=$work/root
cleanup() {
  local m
  awk -v w="$mnt" '$2 == w || index($2, w "/") == 1 { print $2 }' /proc/mounts | sort -r | while read -r m; do
    umount "$m" 2>/dev/null || umount -l "$m" || true
  done
  rm -rf --one-file-system "$work"
}
trap cleanup EXIT
mkdir -p "$mnt"
echo "lab kernel deb: $pkg${suite:+ ($suite)} into a copy of $(basename "$image") (a few minutes)" >&2
cp --sparse=always "$image/base.raw" "$work/base.raw"
mount -o loop "$work/base.raw" "$mnt"
mount -t proc proc "$mnt/proc"
mount --bind /dev "$mnt/dev"
list=/etc/apt/sources.list.d/lab-kernel.list
log=$work/apt.log
# apt's lists as the image has them: those apt-get update adds go again
ls -A "$mnt/var/lib/apt/lists" >"$work/lists" 2>/dev/null || : >"$work/lists"
if [ -n "$suite" ]; then
  echo "deb $LAB_MIRROR $suite main" >"$mnt$list"
fi
arg=$pkg
case $pkg in /*.deb) cp "$pkg" "$mnt/tmp/kernel.deb"; arg=/tmp/kernel.deb ;; esac
if ! { [ -z "$suite" ] || chroot "$mnt" apt-get update; } >"$log" 2>&1 ||
  ! DEBIAN_FRONTEND=noninteractive chroot "$mnt" apt-get install -y --no-install-recommends "$arg" >>"$log" 2>&1; then
  tail -n 5 "$log" >&2
  deb_die "apt-get could not install $pkg (log above)"
fi
rm -f "$mnt$list" "$mnt/tmp/kernel.deb"
chroot "$mnt" apt-get clean >/dev/null 2>&1 || true
for f in "$mnt"/var/lib/apt/lists/*; do
  [ -e "$f" ] || continue
  grep -qxF "$(basename "$f")" "$work/lists" || rm -rf --one-file-system "$f"
done
# the kernel just installed: the /boot/vmlinuz-* the image did not have
release=$(comm -13 <(debugfs -R 'ls -p /boot' "$image/base.raw" 2>/dev/null | awk -F / '$6 ~ /^vmlinuz-/ { print $6 }' | sort) \
  <(find "$mnt/boot" -maxdepth 1 -name 'vmlinuz-*' -printf '%f\n' | sort) | sed 's/^vmlinuz-//' | tail -n 1)
if [ -z "$release" ] || [ ! -s "$mnt/boot/initrd.img-$release" ]; then
  deb_die "$pkg installed no new kernel with an initramfs in /boot"
fi
cp "$mnt/boot/vmlinuz-$release" "$work/vmlinuz"
cp "$mnt/boot/initrd.img-$release" "$work/initrd.img"
cp "$mnt/boot/config-$release" "$work/config" 2>/dev/null || true
printf '%s\n' "$release" >"$work/release"
# a daemon a package's script started in the chroot would keep it busy:
# those processes (their root is the copy's) are stopped
for p in /proc/[0-9]*; do
  [ "$(readlink "$p/root" 2>/dev/null)" = "$mnt" ] || continue
  printf 'lab kernel deb: stopping %s (%s), started in the chroot\n' "${p#/proc/}" "$(tr '\0' ' ' <"$p/cmdline" 2>/dev/null)" >&2
  kill "${p#/proc/}" 2>/dev/null || true
done
umount "$mnt/dev" "$mnt/proc"
sync -f "$mnt/boot"
# (a system-wide profiler of this machine, perf record -a, may hold a file
# of the copy open for a while: wait for it, up to a minute)
POLL_STEP=2 poll_until 60 umount "$mnt" 2>/dev/null ||
  deb_die "cannot unmount the copy of the image in $mnt: $(fuser -m "$mnt" 2>/dev/null | wc -w) processes use it"
rmdir "$mnt"
rm -f "$log" "$work/lists"
chmod 755 "$work"
rm -rf "$dir"
mv "$work" "$dir"
trap - EXIT
printf '%s\n' "$dir"
