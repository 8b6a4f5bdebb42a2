# shellcheck shell=sh disable=SC2034
# harness/target-guard.sh: the one check on TARGET that every entry point
# makes before it writes anything: the phases (phase-*.sh, through common.sh's
# target_check or micro-lib.sh's micro_begin), flush.sh and shootout.sh.
# POSIX sh, sourced; it prints nothing and never exits, the caller reports
# the reason (harness_die).
#
#   target_guard        TARGET must be set, be a directory, not be a system
#                       directory (see guard_dir) and be a mount point (or
#                       ALLOW_NONMOUNT=1).  On success TARGET is absolute
#                       with symlinks resolved, and exported; otherwise
#                       TARGET_REFUSAL holds a one-line reason and it
#                       returns 1.
#   guard_dir NAME DIR  DIR (named NAME in the reason) is a directory where
#                       the harness may write: not /, not a system directory
#                       (/bin /boot /dev /etc /home /lib* /media /opt /proc
#                       /root /run /sbin /srv /sys /tmp /usr /var, /var/tmp
#                       ...), nothing below /bin /boot /dev /etc /lib* /proc
#                       /run /sbin /sys /usr.  Sets GUARD_DIR to DIR resolved;
#                       returns 1 with TARGET_REFUSAL otherwise.

# shellcheck source=harness/os.sh
. "$SHOOTOUT_ROOT/harness/os.sh"

guard_dir() {
  TARGET_REFUSAL=
  if [ ! -d "$2" ]; then
    TARGET_REFUSAL="$1=$2 is not a directory: mount the filesystem under test there first"
    return 1
  fi
  GUARD_DIR=$(cd "$2" 2>/dev/null && pwd -P) || {
    TARGET_REFUSAL="$1=$2 cannot be entered (permissions?)"
    return 1
  }
  case $GUARD_DIR in
    /)
      TARGET_REFUSAL="$1=$2 is the root filesystem: mount a filesystem for the test and name its mount point"
      return 1
      ;;
    /bin | /boot | /dev | /etc | /home | /lib | /lib32 | /lib64 | /libx32 | /media | /opt | /proc | \
      /root | /run | /sbin | /srv | /sys | /tmp | /usr | /var | /var/tmp | /var/lib | /var/log | /var/cache | \
      /var/spool | /var/mail | /var/opt | /var/local | /var/backups | /var/www)
      TARGET_REFUSAL="$1=$2 is the system directory $GUARD_DIR: mount a filesystem for the test elsewhere (e.g. /mnt/bench) and name its mount point"
      return 1
      ;;
    /bin/* | /boot/* | /dev/* | /etc/* | /lib/* | /lib32/* | /lib64/* | /libx32/* | /proc/* | /run/* | /sbin/* | \
      /sys/* | /usr/*)
      GUARD_TOP=${GUARD_DIR#/}
      TARGET_REFUSAL="$1=$2 is inside the system directory /${GUARD_TOP%%/*}: mount a filesystem for the test elsewhere (e.g. /mnt/bench) and name its mount point"
      return 1
      ;;
  esac
  return 0
}

target_guard() {
  TARGET_REFUSAL=
  if [ -z "${TARGET:-}" ]; then
    TARGET_REFUSAL="TARGET is not set: name the mounted filesystem under test, e.g. make phase-untar TARGET=/mnt/bench"
    return 1
  fi
  guard_dir TARGET "$TARGET" || return 1
  if [ "${ALLOW_NONMOUNT:-0}" != 1 ] && ! os_is_mountpoint "$GUARD_DIR"; then
    TARGET_REFUSAL="TARGET=$TARGET is not a mount point (set ALLOW_NONMOUNT=1 to use a plain directory): mount the filesystem under test there"
    return 1
  fi
  TARGET=$GUARD_DIR
  export TARGET
}
