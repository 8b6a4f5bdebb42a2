# shellcheck shell=sh disable=SC2034
# harness/os/openbsd.sh: the OpenBSD adapter (see harness/os/README.md).
# Mounts from `mount`, the boot time and CPU ticks from sysctl
# kern.boottime and kern.cp_time, memory size from sysctl hw.physmem,
# disk totals from `iostat -D -I`.  POSIX sh.

OS_NAME=OpenBSD
# shellcheck source=harness/os/bsd.sh
. "$SHOOTOUT_ROOT/harness/os/bsd.sh"

# kern.cp_time is the mean of the online CPUs (os_parse_cpu_split).
OS_CPTIME=avg

# os_parse_memory < `sysctl hw.physmem` : "TOTAL_KB -1 -1 -1": OpenBSD's
# buffer cache is not counted in a form sysctl prints.
os_parse_memory() {
  os_parse_sysctl hw.physmem | awk '{ printf "%.0f -1 -1 -1\n", $1 < 0 ? -1 : $1 / 1024 }'
}
os_memory() {
  sysctl hw.physmem 2>/dev/null | os_parse_memory
}

# OpenBSD has no O_DIRECT.
os_direct_ok() {
  return 1
}

os_virt() {
  echo unknown
}
