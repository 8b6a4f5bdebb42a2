# shellcheck shell=sh disable=SC2034
# harness/os/netbsd.sh: the NetBSD adapter (see harness/os/README.md).
# Mounts from `mount`, the boot time and CPU ticks from sysctl
# kern.boottime and kern.cp_time, memory from sysctl hw.physmem64 and
# `vmstat -s`, disk totals from `iostat -D -I`.  POSIX sh.

OS_NAME=NetBSD
# shellcheck source=harness/os/bsd.sh
. "$SHOOTOUT_ROOT/harness/os/bsd.sh"

# os_parse_memory < `sysctl hw.physmem64; vmstat -s` : "TOTAL_KB CACHED_KB
# -1 -1": cached = "cached file pages" (UVM's file pages); NetBSD counts
# neither dirty pages nor pages under writeback.
os_parse_memory() {
  awk '/^hw\.physmem64/ { sub(/^[^:=]*[:=] */, ""); t = $1 }
    / bytes per page$/ { p = $1 } / cached file pages$/ { c = $1 }
    END { printf "%.0f %.0f -1 -1\n", t == "" ? -1 : t / 1024, (c == "" || p == "") ? -1 : c * p / 1024 }'
}
os_memory() {
  { sysctl hw.physmem64; vmstat -s; } 2>/dev/null | os_parse_memory
}

# os_parse_disk DISK < `iostat -D -I DISK` (a line of names, "KB xfr time",
# then the running totals) : "-1 -1 IO_MS": NetBSD's -D totals do not tell
# reads from writes, so only the time busy is a figure.
os_parse_disk() {
  awk 'NF >= 3 && $1 ~ /^[0-9.]+$/ && $2 ~ /^[0-9.]+$/ && $3 ~ /^[0-9.]+$/ { ms = $3 * 1000; f = 1 }
    END { if (f) printf "-1 -1 %.0f\n", ms; else print -1, -1, 0 }'
}
os_disk() {
  iostat -D -I "$1" 2>/dev/null | os_parse_disk "$1"
}

os_direct_ok() {
  return 1
}

os_virt() {
  _v=$(sysctl -n machdep.hypervisor 2>/dev/null) || _v=unknown
  printf '%s\n' "${_v:-unknown}"
}
