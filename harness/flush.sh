#!/usr/bin/env bash
# harness/flush.sh METHOD : push the dataset out of the page cache of TARGET.
#   drop     sync, then drop the page cache (root; Linux only: its
#            drop_caches, see harness/os/linux.sh)
#   remount  umount TARGET and mount it again with the same source, type and
#            options (root; refused on tmpfs, which would lose its data); if
#            the mount fails the script retries and, failing that, says how
#            to mount it back by hand
#   prime    write PRIME_GB (default twice the RAM) of zeros to a file in
#            PRIME_DIR (default TARGET, never TARGET/data), then delete it
#   none     nothing
#   reboot   Ansible rebooted the host: check that the boot id differs from
#            the one the run's last phase noted (boot_ids.tsv), note it
# Environment: TARGET (a mount point; ALLOW_NONMOUNT=1 for a directory, then
# remount is refused; never / or a system directory: harness/target-guard.sh,
# as for every phase), PRIME_GB, PRIME_DIR, and RESULTS/RUN_ID/HOST/VARIANT
# for reboot.  Prints nothing on success; exit 1 with one line on failure.
set -eu
SHOOTOUT_ROOT=${SHOOTOUT_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=SCRIPTDIR/lib.sh
. "$SHOOTOUT_ROOT/harness/lib.sh"
# shellcheck source=SCRIPTDIR/target-guard.sh
. "$SHOOTOUT_ROOT/harness/target-guard.sh"
# shellcheck source=SCRIPTDIR/common/settings.sh
. "$SHOOTOUT_ROOT/harness/common/settings.sh"
settings_check harness micro

[ $# -eq 1 ] || harness_die "usage: flush.sh drop|remount|prime|none|reboot (env TARGET)"
method=$1
case $method in
  none) exit 0 ;;
  drop | remount | prime | reboot) ;;
  *) harness_die "unknown flush method '$method': use drop, remount, prime, none or reboot" ;;
esac
# The guard of every phase: a mount point (or ALLOW_NONMOUNT=1), never / or a
# system directory.
target_guard || harness_die "$TARGET_REFUSAL"

need_root() {
  [ "$(id -u)" -eq 0 ] || harness_die "FLUSH=$method needs root: run as root (sudo make ...) or use FLUSH=none"
}

drop() {
  need_root
  os_drop_caches || harness_die "$OS_ERR"
}

# mount_back : mount TARGET again as it was (tries the full options, then
# only the generic ones, then none).
src='' fstype='' opts='' vfsopts='' unmounted=0
mount_back() {
  local how
  [ "$unmounted" = 1 ] || return 0
  for how in "$opts" "$vfsopts" defaults; do
    if os_mount "$fstype" "$how" "$src" "$TARGET"; then
      src=$OS_SOURCE unmounted=0
      return 0
    fi
  done
  return 1
}

remount() {
  need_root
  os_is_mountpoint "$TARGET" || harness_die "FLUSH=remount needs TARGET=$TARGET to be a mount point: use FLUSH=drop"
  IFS=$'\t' read -r _ fstype opts vfsopts src _ < <(os_mount_of "$TARGET")
  case $fstype in
    tmpfs | ramfs) harness_die "FLUSH=remount on $fstype would throw the data away: use FLUSH=drop" ;;
  esac
  # A loop device set up by "mount -o loop" goes away on umount: os_mount
  # sets it up again.
  os_remount_prepare "$TARGET" "$src"
  trap 'mount_back || printf "flush.sh: %s is NOT mounted again: %s\n" "$TARGET" "$(printf "%q " mount -t "$fstype" -o "$opts" "$src" "$TARGET")" >&2' EXIT
  trap 'exit 143' TERM INT HUP
  sync
  os_umount "$TARGET" 2>/dev/null ||
    harness_die "umount $TARGET failed (busy?): stop what uses it (fuser -vm $TARGET) or use FLUSH=drop"
  unmounted=1
  mount_back || harness_die "cannot mount $src on $TARGET again (type $fstype, options $opts): mount it by hand"
  trap - EXIT
}

prime() {
  local gb=${PRIME_GB:-} dir=${PRIME_DIR:-$TARGET} mb avail file
  if [ -z "$gb" ]; then
    gb=$(os_memory | awk '{ printf "%.3f", 2 * $1 / 1048576 }')
  fi
  mb=$(awk -v g="$gb" 'BEGIN { if (g !~ /^[0-9]*\.?[0-9]+$/) exit 1; printf "%d", g * 1024 + 0.5 }') ||
    harness_die "PRIME_GB=$gb is not a number of GB"
  guard_dir PRIME_DIR "$dir" || harness_die "$TARGET_REFUSAL"
  dir=$GUARD_DIR
  case $dir/ in
    "$TARGET"/data/*) harness_die "PRIME_DIR=$dir is inside TARGET/data: name another directory" ;;
  esac
  avail=$(os_fs_space "$dir" | awk '{ printf "%d", $3 * $4 / 1048576 }')
  [ "$avail" -gt "$mb" ] ||
    harness_die "$dir has $avail MB free but priming writes $mb MB: set PRIME_DIR to a filesystem with room or lower PRIME_GB"
  file=$dir/.shootout-prime.$$
  trap 'rm -f "$file"' EXIT
  trap 'exit 143' TERM INT HUP
  os_write_zeros "$file" "$mb" 2>&1 || harness_die "writing $mb MB to $file failed"
  rm -f "$file"
  trap - EXIT
}

reboot_check() {
  local now last
  now=$(os_boot_id) || harness_die "cannot read the boot id (harness/os/$OS_ID.sh: os_boot_id)"
  f=$(run_dir)/boot_ids.tsv
  last=$(awk -F '\t' 'END { print $3 }' "$f" 2>/dev/null)
  [ -n "$last" ] ||
    harness_die "FLUSH=reboot: no earlier phase of run $(run_id) noted a boot id, so a reboot cannot be checked: run a phase first"
  [ "$now" != "$last" ] ||
    harness_die "FLUSH=reboot: the boot id is still $now: the host did not reboot since the last phase (reboot it, or use FLUSH=drop)"
}

case $method in
  drop) drop ;;
  remount) remount ;;
  prime) prime ;;
  reboot) reboot_check ;;
esac
