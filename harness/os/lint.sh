#!/bin/sh
# harness/os/lint.sh FILE... : the OS-specific calls that belong in
# harness/os/linux.sh and nowhere else: reads of /proc or /sys, util-linux
# commands (mountpoint findmnt losetup lsblk blockdev), GNU-only flags (stat
# -c/-f, find -printf, mv -T, date +%N, dd status=/oflag=), setsid as a
# command, hostname -I, systemd-detect-virt; and df, whose output each
# adapter reads in its own way (os_fs_space).  Comment lines are skipped.
# Prints FILE:LINE: what, and exits 1 if it found any.
set -eu
[ $# -gt 0 ] || { echo "usage: lint.sh FILE..." >&2; exit 2; }
awk '
  FNR == 1 { n = 0 }
  /^[[:space:]]*#/ { next }
  {
    l = $0; sub(/[[:space:]]#[[:space:]].*$/, "", l)
    w = ""
    if (l ~ /\/proc\/[a-z]/) w = "reads /proc"
    else if (l ~ /\/sys\/[a-z]/) w = "reads /sys"
    else if (l ~ /(^|[^a-zA-Z_-])(mountpoint|findmnt|losetup|lsblk|blockdev)([^a-zA-Z_-]|$)/) w = "util-linux command"
    else if (l ~ /(^|[^a-zA-Z_-])stat[[:space:]]+(-L[[:space:]]+)?-[cf]/) w = "GNU stat -c/-f"
    else if (l ~ /(^|[^a-zA-Z_-])find[[:space:]].*-printf/) w = "GNU find -printf"
    else if (l ~ /(^|[^a-zA-Z_-])mv[[:space:]]+(-[a-zA-Z]+[[:space:]]+)*-[a-zA-Z]*T/) w = "GNU mv -T"
    else if (l ~ /(^|[^a-zA-Z_])setsid([[:space:]]|$)/) w = "setsid command"
    else if (l ~ /date[[:space:]][^|;]*%N/) w = "GNU date %N"
    else if (l ~ /(^|[^a-zA-Z_-])dd[[:space:]].*(status=|oflag=|iflag=)/) w = "GNU dd flag"
    else if (l ~ /hostname[[:space:]]+-I/) w = "hostname -I"
    else if (l ~ /systemd-detect-virt/) w = "systemd-detect-virt"
    if (w == "" && l ~ /(^|[^a-zA-Z_-])df[[:space:]]+-/) {
      printf "%s:%d: df (belongs in the adapters: os_fs_space): %s\n", FILENAME, FNR, $0; bad = 1
    }
    if (w != "") { printf "%s:%d: %s (belongs in harness/os/linux.sh): %s\n", FILENAME, FNR, w, $0; bad = 1 }
  }
  END { exit bad }' "$@"
