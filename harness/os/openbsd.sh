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

# ---- the kernel profile (harness/profile.sh, docs/profile.md): btrace ----

os_profile_tool() {
  echo "btrace profile:hz:$1 { @[kstack] = count(); }"
}

# os_profile_check : root, btrace, and sysctl kern.allowdt=1 (settable only
# at boot, from /etc/sysctl.conf), else one line saying why not.
os_profile_check() {
  [ "$(id -u)" = 0 ] || { echo "not root (btrace needs root)"; return 1; }
  command -v btrace >/dev/null 2>&1 || { echo "no btrace command"; return 1; }
  [ "$(sysctl -n kern.allowdt 2>/dev/null)" = 1 ] ||
    { echo "kern.allowdt is not 1 (put kern.allowdt=1 in /etc/sysctl.conf and reboot)"; return 1; }
}

# os_profile_record RAW HZ : exec btrace; "started" once its probes are on,
# the map when SIGINT ends it.
os_profile_record() {
  exec btrace -e "BEGIN { printf(\"started\\n\"); } profile:hz:$2 { @[kstack] = count(); }" >"$1" 2>&1
}

# os_profile_slices : status 1: the samples carry no wall clock here, a
# sampler runs for each part of a phase.
os_profile_slices() {
  return 1
}

os_profile_started() {
  grep -q '^started' "$1" 2>/dev/null
}

os_profile_fold() {
  # profile:hz fires on idle CPUs too: no stack at all is a sampler that did
  # not work (status 1).
  _folded=$(os_parse_profile_btrace <"$1") && [ -n "$_folded" ] && printf '%s\n' "$_folded"
}

# os_parse_profile_btrace < the printed map of @[kstack] = count() : folded
# stacks (see linux.sh's os_parse_profile_perf).  An entry is "@[", the
# frames innermost first (FUNCTION+OFFSET; btrace ends the stack with a line
# "kernel", bpftrace does not), and "]: COUNT".  Every frame is a kernel
# one (_[k]); ROOT is "idle" for the idle loop's stacks, else "kernel" (a
# kernel stack names no program).
os_parse_profile_btrace() {
  awk '
    /^@\[/ { inmap = 1; n = 0; idle = 0; next }
    inmap && /^\]: / {
      s = idle ? "idle" : "kernel"
      for (i = n; i >= 1; i--) s = s ";" f[i] "_[k]"
      if (n > 0) c[s] += $2
      inmap = 0; next
    }
    inmap {
      l = $0; sub(/^[[:space:]]+/, "", l); sub(/[[:space:]]+$/, "", l)
      if (l == "" || l == "kernel" || l == "userland") next
      sub(/\+(0x[0-9a-fA-F]+|[0-9]+)$/, "", l); gsub(/;/, ":", l)
      if (l ~ /^(sched_idle|cpu_idle_cycle|acpicpu_idle|do_idle|cpu_startup_entry)$/) idle = 1
      f[++n] = l
    }
    END { for (s in c) print s, c[s] }' | LC_ALL=C sort
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
os_blklat_cut() {
  return 1
}
