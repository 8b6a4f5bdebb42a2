# shellcheck shell=sh disable=SC2034
# harness/os/openbsd.sh: the OpenBSD adapter (see harness/os/README.md).
# Mounts from `mount`, the boot time and CPU ticks from sysctl
# kern.boottime and kern.cp_time, memory size from sysctl hw.physmem,
# disk totals from `iostat -D -I`.  POSIX sh.

OS_NAME=OpenBSD
# shellcheck source=harness/os/bsd.sh
. "$SHOOTOUT_ROOT/harness/os/bsd.sh"

# os_parse_memory < `sysctl hw.physmem` : "TOTAL_KB -1 -1 -1": OpenBSD's
# buffer cache is not counted in a form sysctl prints.
os_parse_memory() {
  os_parse_sysctl hw.physmem | awk '{ printf "%.0f -1 -1 -1\n", $1 < 0 ? -1 : $1 / 1024 }'
}
os_memory() {
  sysctl hw.physmem 2>/dev/null | os_parse_memory
}

# os_parse_disk DISK < `iostat -D -I DISK` : "-1 -1 IO_MS" (see netbsd.sh).
os_parse_disk() {
  awk 'NF >= 3 && $1 ~ /^[0-9.]+$/ && $2 ~ /^[0-9.]+$/ && $3 ~ /^[0-9.]+$/ { ms = $3 * 1000; f = 1 }
    END { if (f) printf "-1 -1 %.0f\n", ms; else print -1, -1, 0 }'
}
os_disk() {
  iostat -D -I "$1" 2>/dev/null | os_parse_disk "$1"
}

# OpenBSD has no O_DIRECT.
os_direct_ok() {
  return 1
}

os_virt() {
  echo unknown
}

# Block-device latency: btrace(8) has no io provider, no request start and
# completion to time: absent, and said so (meta.json blklat_absent).
os_blklat_probe() {
  echo "OpenBSD: btrace has no block I/O probes"
  return 1
}
os_blklat_run() {
  return 1
}
