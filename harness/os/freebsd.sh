# shellcheck shell=sh disable=SC2034
# harness/os/freebsd.sh: the FreeBSD adapter (see harness/os/README.md).
# Mounts from `mount -p`, the boot time and CPU ticks from sysctl
# kern.boottime and kern.cp_time, memory from sysctl, disk counters from
# devstat through `iostat -x -I`.  POSIX sh, sourced by harness/os.sh.

OS_NAME=FreeBSD
# shellcheck source=harness/os/bsd.sh
. "$SHOOTOUT_ROOT/harness/os/bsd.sh"

os_mount_table() {
  mount -p
}

# os_parse_mount DIR < `mount -p` ("SOURCE MOUNTPOINT FSTYPE OPTIONS DUMP
# PASS", fstab(5) lines, blanks in names as \040).
os_parse_mount() {
  awk -v dir="$1" "$OS_AWK_MOUNT_LIB"'
    NF >= 4 && $1 !~ /^#/ {
      mp = unesc($2)
      if (!under(dir, mp) || length(mp) < best) next
      best = length(mp)
      line = mp "\t" $3 "\t" $4 "\t" $4 "\t" unesc($1) "\t-"
    }
    END { if (line != "") print line; else exit 1 }'
}

# os_parse_memory < `sysctl hw.physmem hw.pagesize vm.stats.vm.v_inactive_count
# vfs.runningbufspace` : "TOTAL_KB CACHED_KB DIRTY_KB WRITEBACK_KB".  The
# nearest FreeBSD has: cached = inactive pages (mostly clean file data),
# writeback = buffer I/O in flight; dirty is not counted (-1).
os_parse_memory() {
  os_parse_sysctl hw.physmem hw.pagesize vm.stats.vm.v_inactive_count vfs.runningbufspace |
    awk '{ v[NR] = $1 } END { printf "%.0f %.0f -1 %.0f\n", v[1] < 0 ? -1 : v[1] / 1024,
      (v[2] < 0 || v[3] < 0) ? -1 : v[2] * v[3] / 1024, v[4] < 0 ? -1 : v[4] / 1024 }'
}
os_memory() {
  sysctl hw.physmem hw.pagesize vm.stats.vm.v_inactive_count vfs.runningbufspace 2>/dev/null | os_parse_memory
}

# os_parse_disk DISK < `iostat -x -I DISK` ("device r/i w/i kr/i kw/i qlen
# tsvc_t/i sb/i": totals since boot) : "SECTORS_READ SECTORS_WRITTEN IO_MS"
# (512-byte sectors; sb/i, the seconds busy, as ms).
os_parse_disk() {
  awk -v d="$1" '$1 == d && NF >= 8 { printf "%.0f %.0f %.0f\n", $4 * 2, $5 * 2, $8 * 1000; f = 1; exit }
    END { if (!f) print 0, 0, 0 }'
}
os_disk() {
  iostat -x -I "$1" 2>/dev/null | os_parse_disk "$1"
}

os_direct_ok() {
  dd if=/dev/zero of="$1/.direct-probe" bs=4096 count=1 oflag=direct 2>/dev/null
  set -- $? "$1"
  rm -f "$2/.direct-probe"
  return "$1"
}

os_virt() {
  sysctl -n kern.vm_guest 2>/dev/null
}
