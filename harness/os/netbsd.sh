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

os_direct_ok() {
  return 1
}

os_virt() {
  _v=$(sysctl -n machdep.hypervisor 2>/dev/null) || _v=unknown
  printf '%s\n' "${_v:-unknown}"
}
