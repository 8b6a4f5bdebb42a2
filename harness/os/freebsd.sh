# shellcheck shell=sh disable=SC2034
# harness/os/freebsd.sh: the FreeBSD adapter (see harness/os/README.md).
# Mounts from `mount -p`, the boot time and CPU ticks from sysctl
# kern.boottime and kern.cp_time, memory from sysctl, disk counters from
# devstat through `iostat -x -I`.  POSIX sh, sourced by harness/os.sh.

OS_NAME=FreeBSD
# shellcheck source=harness/os/bsd.sh
. "$SHOOTOUT_ROOT/harness/os/bsd.sh"

# kern.cp_time sums all CPUs; hw.ncpu counts them (no hw.ncpuonline).
OS_NCPU=hw.ncpu

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

# OS_AWK_IOSTAT_XI: awk that reads `iostat -x -I DISK` ("extended device
# statistics", then "device r/i w/i kr/i kw/i qlen tsvc_t/i sb/i": totals
# since boot, from devstat) and sets kr, kw (KB read, written), svc (the
# seconds of all transactions summed: tsvc_t/i) and sb (the seconds busy) of
# DISK (-v d=DISK), found = 1.  Columns are taken by their names: without -I
# the header is the per-second one ("r/s ... ms/t qlen %b") and nothing is
# found.
# shellcheck disable=SC2016 # awk's fields, not the shell's
OS_AWK_IOSTAT_XI='
    $1 == "device" { for (i = 2; i <= NF; i++) col[$i] = i; next }
    $1 == d && ("sb/i" in col) && ("kr/i" in col) {
      kr = $col["kr/i"]; kw = $col["kw/i"]; svc = $col["tsvc_t/i"]; sb = $col["sb/i"]; found = 1; exit
    }'

# os_parse_disk DISK < `iostat -x -I DISK` : "SECTORS_READ SECTORS_WRITTEN
# IO_MS" (512-byte sectors; sb/i as ms); 0 0 0 when DISK is not there.
os_parse_disk() {
  awk -v d="$1" "$OS_AWK_IOSTAT_XI"'
    END { if (found) printf "%.0f %.0f %.0f\n", kr * 2, kw * 2, sb * 1000; else print 0, 0, 0 }'
}
os_disk() {
  iostat -x -I "$1" 2>/dev/null | os_parse_disk "$1"
}

# os_parse_disk_time DISK < `iostat -x -I DISK` : "IO_MS QUEUE_MS": sb/i and
# tsvc_t/i as ms (over a wall time the second is the mean number of
# transactions in flight); nothing when DISK is not there.
os_parse_disk_time() {
  awk -v d="$1" "$OS_AWK_IOSTAT_XI"'
    END { if (found) printf "%.0f %.0f\n", sb * 1000, svc * 1000 }'
}
os_disk_time() {
  iostat -x -I "$1" 2>/dev/null | os_parse_disk_time "$1"
}

os_direct_ok() {
  dd if=/dev/zero of="$1/.direct-probe" bs=4096 count=1 oflag=direct 2>/dev/null
  set -- $? "$1"
  rm -f "$2/.direct-probe"
  return "$1"
}

# os_virt : kern.vm_guest ("none" on hardware, "kvm", "xen", ...); unknown
# where sysctl cannot say (meta.sh runs under set -e: a failing sysctl here
# stopped it without a word).
os_virt() {
  sysctl -n kern.vm_guest 2>/dev/null || echo unknown
}

# os_cpu_binder : the command and option that run a command bound to a list
# of CPUs (cpuset -l takes the same 0,2-3 lists; children inherit it).
os_cpu_binder() {
  echo 'cpuset -l'
}
