# shellcheck shell=sh disable=SC2034
# harness/os/linux.sh: the Linux adapter (see harness/os/README.md): /proc,
# util-linux (mountpoint, losetup) and GNU coreutils flags live here and
# nowhere else in the harness.  POSIX sh, sourced by harness/os.sh.

OS_NAME=Linux

# ---- mounts --------------------------------------------------------------

os_mount_table() {
  cat /proc/self/mountinfo
}

# os_parse_mount DIR < mountinfo : "MOUNTPOINT FSTYPE OPTIONS VFS-OPTIONS
# SOURCE MAJ:MIN" (tab-separated) of the mount holding the absolute, resolved
# DIR: the longest mount point above it, the last one mounted there.
# OPTIONS are the mount's options followed by its superblock's (as findmnt's
# OPTIONS column); \040 and the like are decoded.
os_parse_mount() {
  awk -v dir="$1" "$OS_AWK_MOUNT_LIB"'
    {
      for (s = 7; s <= NF && $s != "-"; s++) ;
      if (s > NF) next
      mp = unesc($5)
      if (!under(dir, mp) || length(mp) < best) next
      best = length(mp)
      opts = $6; n = split($(s + 3), fo, ",")
      for (i = 1; i <= n; i++)
        if (fo[i] != "rw" && fo[i] != "ro" && index("," opts ",", "," fo[i] ",") == 0) opts = opts "," fo[i]
      line = mp "\t" $(s + 1) "\t" opts "\t" $6 "\t" unesc($(s + 2)) "\t" $3
    }
    END { if (line != "") print line; else exit 1 }'
}

# os_mount_of DIR : os_parse_mount of this system's table.
os_mount_of() {
  os_mount_table | os_parse_mount "$1"
}

# os_is_mountpoint DIR : DIR is a mount point.
os_is_mountpoint() {
  mountpoint -q "$1"
}

# os_remount_prepare DIR SOURCE : before umount: note in OS_BACKING the file behind
# a loop device that goes away on umount ("mount -o loop"), so os_mount can
# set it up again.
os_remount_prepare() {
  OS_BACKING=
  case $2 in /dev/loop*) ;; *) return 0 ;; esac
  if [ "$(cat "/sys/block/${2#/dev/}/loop/autoclear" 2>/dev/null)" = 1 ]; then
    OS_BACKING=$(losetup -nO BACK-FILE "$2" | sed 's/ *$//')
  fi
}

# os_mount FSTYPE OPTIONS SOURCE DIR : mount; with OS_BACKING set, SOURCE is
# a new loop device of that file (OS_SOURCE holds the source used).
os_mount() {
  OS_SOURCE=$3
  if [ -n "${OS_BACKING:-}" ]; then
    OS_SOURCE=$(losetup -f --show "$OS_BACKING") || return 1
  fi
  if mount -t "$1" -o "$2" "$OS_SOURCE" "$4" 2>/dev/null; then
    OS_BACKING=
    return 0
  fi
  [ -z "${OS_BACKING:-}" ] || losetup -d "$OS_SOURCE" 2>/dev/null
  return 1
}

os_umount() {
  umount "$1"
}

# ---- caches --------------------------------------------------------------

# os_drop_caches : write back and drop the page cache (root); OS_ERR says
# why not.
os_drop_caches() {
  sync
  echo 3 >/proc/sys/vm/drop_caches 2>/dev/null && return 0
  OS_ERR="cannot write /proc/sys/vm/drop_caches (read-only /proc/sys in a container?): use FLUSH=remount or FLUSH=prime"
  return 1
}

# os_write_zeros FILE MB : MB MiB of zeros into FILE, quietly.
os_write_zeros() {
  dd if=/dev/zero of="$1" bs=1M count="$2" status=none
}

# os_direct_ok DIR : DIR's filesystem takes O_DIRECT writes.
os_direct_ok() {
  dd if=/dev/zero of="$1/.direct-probe" bs=4096 count=1 oflag=direct 2>/dev/null
  set -- $? "$1"
  rm -f "$2/.direct-probe"
  return "$1"
}

# ---- boot, memory, CPU, disk --------------------------------------------

# os_boot_id : a string that changes with every boot.
os_boot_id() {
  os_parse_boot_id </proc/sys/kernel/random/boot_id
}
os_parse_boot_id() {
  awk 'NF { print $1; f = 1; exit } END { exit !f }'
}

# os_parse_memory < /proc/meminfo : "TOTAL_KB CACHED_KB DIRTY_KB
# WRITEBACK_KB" (-1: unknown).
os_parse_memory() {
  awk '{ v[$1] = $2 }
    END { printf "%.0f %.0f %.0f %.0f\n", ("MemTotal:" in v) ? v["MemTotal:"] : -1, ("Cached:" in v) ? v["Cached:"] : -1,
      ("Dirty:" in v) ? v["Dirty:"] : -1, ("Writeback:" in v) ? v["Writeback:"] : -1 }'
}
os_memory() {
  os_parse_memory </proc/meminfo
}

# os_parse_cpu < /proc/stat : "TOTAL IDLE IOWAIT" ticks of all CPUs since
# boot (IOWAIT -1 where the system does not count it).
os_parse_cpu() {
  awk '$1 == "cpu" { printf "%.0f %.0f %.0f\n", $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9, $5, $6; exit }'
}
os_cpu() {
  os_parse_cpu </proc/stat
}

# ---- the time budget of a phase (harness/common/budget.sh) --------------

# os_parse_cpu_split < /proc/stat : "USER SYS IRQ IOWAIT IDLE STEAL CPUS":
# ticks of all CPUs since boot (user with nice and guest, system, irq with
# softirq, iowait, idle, steal) and the CPUs online.
os_parse_cpu_split() {
  awk '$1 == "cpu" { u = $2 + $3; s = $4; i = $7 + $8; w = $6; d = $5; st = $9; f = 1 }
    $1 ~ /^cpu[0-9]/ { n++ }
    END { if (!f) exit 1; printf "%.0f %.0f %.0f %.0f %.0f %.0f %d\n", u, s, i, w, d, st, n }'
}
os_cpu_split() {
  os_parse_cpu_split </proc/stat
}

# os_cpu_hz : the ticks a second of os_cpu_split and os_kthreads.
os_cpu_hz() {
  getconf CLK_TCK
}

# os_parse_kthreads < the lines of /proc/PID/stat : "TICKS COUNT": the user
# + system ticks since they started of the kernel's own threads (flag
# PF_KTHREAD 0x00200000, or a child of kthreadd, pid 2: writeback and
# other kworkers, the journal's threads, ksoftirqd, kswapd) and how many.
# The command name may hold blanks and parentheses: fields count from the
# last ") ".
os_parse_kthreads() {
  awk '{ s = $0; if (!sub(/^.*\) /, "", s)) next; n = split(s, f, " "); if (n < 13) next
      if (int(f[7] / 2097152) % 2 == 1 || f[2] == 2) { t += f[12] + f[13]; c++ } }
    END { printf "%.0f %d\n", t, c }'
}
os_kthreads() {
  # Threads come and go between the glob and the read: missing ones are
  # not an error.
  cat /proc/[0-9]*/stat 2>/dev/null | os_parse_kthreads
}

# os_parse_tree_cpu ROOT < the lines of /proc/PID/stat : the user + system
# ticks of process ROOT and every live process below it, each with its
# reaped children's (cutime + cstime): a child reaped between two readings
# moves from its own line into its parent's, so the difference of two
# readings is the CPU the tree took between them.  Nothing when ROOT is
# not among the lines.
os_parse_tree_cpu() {
  awk -v root="$1" '{ s = $0; if (!sub(/^.*\) /, "", s)) next; n = split(s, f, " "); if (n < 15) next
      pid = $1 + 0; parent[pid] = f[2] + 0; ticks[pid] = f[12] + f[13] + f[14] + f[15] }
    function inside(p,   d) { for (d = 0; p > 1 && d < 64; d++) { if (p == root) return 1; p = parent[p] } return p == root }
    END { if (!(root in ticks)) exit; for (p in ticks) if (inside(p + 0)) t += ticks[p]; printf "%.0f\n", t }'
}
os_tree_cpu() {
  cat /proc/[0-9]*/stat 2>/dev/null | os_parse_tree_cpu "$1"
}

# os_parse_disk_time DISK < /proc/diskstats : "IO_MS QUEUE_MS" of DISK since
# boot: milliseconds with at least one request in flight (io_ticks) and the
# sum over requests of their time in flight (weighted; over a wall time it
# is the mean queue depth); nothing when absent.
os_parse_disk_time() {
  awk -v d="$1" '$3 == d && NF >= 14 { print $13, $14; exit }'
}
os_disk_time() {
  os_parse_disk_time "$1" </proc/diskstats
}

# os_disk_of DIR : the name of the disk holding DIR for os_disk, or none
# (tmpfs, overlay, a network filesystem).
os_disk_of() {
  set -- "$(os_mount_of "$1" 2>/dev/null)"
  _mm=$(printf '%s\n' "$1" | awk -F '\t' '{ print $6 }')
  _src=$(printf '%s\n' "$1" | awk -F '\t' '{ print $5 }')
  if [ -z "$_mm" ] || [ "${_mm%%:*}" = 0 ]; then
    # No device of its own (tmpfs, overlay, btrfs subvolumes): try SOURCE.
    if [ -n "$_src" ] && [ -b "$_src" ]; then
      _mm=$((0x$(stat -L -c %t "$_src"))):$((0x$(stat -L -c %T "$_src")))
    else
      echo none
      return 0
    fi
  fi
  os_parse_disk_name "$_mm" </proc/diskstats
}
# os_physical_disk DISK : the whole disk DISK's writes end up on: a
# partition's disk (vda1 -> vda), a loop device's backing file's disk
# (loop0 -> the disk of the filesystem holding its image); else DISK.
os_physical_disk() {
  _d=$1
  if [ -r "/sys/block/$_d/loop/backing_file" ]; then
    _b=$(cat "/sys/block/$_d/loop/backing_file")
    _d=$(os_disk_of "${_b%/*}/")
  fi
  if [ -e "/sys/class/block/$_d/partition" ]; then
    _p=$(cd "/sys/class/block/$_d/.." 2>/dev/null && pwd -P) && _d=${_p##*/}
  fi
  printf '%s\n' "$_d"
}
# os_parse_disk_name MAJ:MIN < /proc/diskstats : that device's name, or none.
os_parse_disk_name() {
  awk -v mm="$1" 'BEGIN { split(mm, a, ":") }
    $1 == a[1] && $2 == a[2] { print $3; f = 1; exit } END { if (!f) print "none" }'
}

# os_parse_disk DISK < /proc/diskstats : "SECTORS_READ SECTORS_WRITTEN IO_MS"
# of DISK since boot (512-byte sectors; 0 0 0 when absent).
os_parse_disk() {
  awk -v d="$1" '$3 == d { print $6, $10, $13; f = 1; exit } END { if (!f) print 0, 0, 0 }'
}
os_disk() {
  os_parse_disk "$1" </proc/diskstats
}

# ---- filesystem space ----------------------------------------------------

# os_fs_space DIR : "BLOCKS FREE AVAIL BSIZE FILES FFREE" of DIR's
# filesystem (FILES 0 where it does not count inodes).
os_fs_space() {
  stat -f -c '%b %f %a %S %c %d' "$1"
}

# ---- processes, time, network -------------------------------------------

# os_setsid CMD... : exec CMD as the leader of a new session (run it in the
# background: $! is then the process group to stop).
os_setsid() {
  exec setsid "$@"
}

# os_cpus_online : the CPUs online, one number a line (the kernel's list,
# e.g. 0-3,6, expanded).
os_cpus_online() {
  tr ',' '\n' </sys/devices/system/cpu/online |
    awk -F- 'NF == 1 { print $1 } NF == 2 { for (i = $1; i <= $2; i++) print i }'
}

# os_cpu_binder : the command and option that run a command bound to a list
# of CPUs (0,2-3 as sched_setaffinity takes them; children inherit it).
os_cpu_binder() {
  echo 'taskset -c'
}

# os_lock_fd FD : take the lock of the file open on FD (flock(2), exclusive,
# without waiting); status 1 when another open file holds it.
os_lock_fd() {
  flock -n "$1"
}

# os_now : seconds since the epoch, with a fraction.
os_now() {
  date +%s.%N
}

# os_host_addr : this host's first address (for a replay from elsewhere).
os_host_addr() {
  hostname -I 2>/dev/null | awk '{ print $1 }'
}

# os_has_ipv6 : the host can serve on the IPv6 loopback ::1; otherwise
# prints why not (one line) and returns 1.
os_has_ipv6() {
  if [ ! -e /proc/net/if_inet6 ]; then
    echo "the kernel has no IPv6 (no /proc/net/if_inet6)"
    return 1
  fi
  for _c in all lo; do
    if [ "$(cat "/proc/sys/net/ipv6/conf/$_c/disable_ipv6" 2>/dev/null)" = 1 ]; then
      echo "IPv6 is disabled (net.ipv6.conf.$_c.disable_ipv6=1)"
      return 1
    fi
  done
  if ! awk '$1 == "00000000000000000000000000000001" { f = 1 } END { exit !f }' /proc/net/if_inet6; then
    echo "no ::1 on the loopback interface"
    return 1
  fi
}

# ---- meta.json -----------------------------------------------------------

# os_parse_cpuinfo < /proc/cpuinfo : "COUNT<TAB>MODEL".
os_parse_cpuinfo() {
  awk -F ': *' '/^processor/ { n++ } /^model name/ && m == "" { m = $2 } END { printf "%d\t%s\n", n, m }'
}
os_cpuinfo() {
  os_parse_cpuinfo </proc/cpuinfo
}

# os_release : "ID<TAB>VERSION_ID<TAB>PRETTY_NAME" of /etc/os-release (debian,
# 12, Debian GNU/Linux 12 (bookworm)); empty fields where it has none.
os_release() {
  if [ -r /etc/os-release ]; then
    # shellcheck source=/dev/null # the host's file
    (. /etc/os-release && printf '%s\t%s\t%s\n' "${ID:-}" "${VERSION_ID:-}" "${PRETTY_NAME:-}")
  else
    printf '\t\t\n'
  fi
}

# os_virt : the hypervisor, or none.
os_virt() {
  systemd-detect-virt 2>/dev/null || true
}

# os_page_reporting : "order N" when a virtio balloon reports freed
# memory to its host (blocks of 2^N pages; the host drops them and the next
# allocation of that memory faults on the host, in the guest's sys time),
# "paused" when N is above the largest order (nothing is reported), else
# "none".  OS_SYSFS (default /sys) is for tests.
os_page_reporting() {
  sys=${OS_SYSFS:-/sys}
  order=$(cat "$sys/module/page_reporting/parameters/page_reporting_order" 2>/dev/null) || order=''
  reporting=none
  for d in "$sys"/bus/virtio/devices/*; do
    [ "$(cat "$d/device" 2>/dev/null)" = 0x0005 ] || continue # a balloon
    # feature bit 5: VIRTIO_BALLOON_F_REPORTING
    case $(cut -c6 "$d/features" 2>/dev/null) in 1) reporting=on ;; esac
  done
  if [ "$reporting" = none ] || [ -z "$order" ]; then
    echo none
  elif [ "$order" -gt 10 ]; then
    echo paused
  else
    echo "order $order"
  fi
}

# os_damon_pageout : "on" when DAMON pages out memory that has gone unused
# for a while (DAMON_RECLAIM, or a kdamond with a pageout scheme through
# /sys/kernel/mm/damon/admin, as a VM's host agent may set up): page cache
# too, so that a warm cache can lose pages between its uses; else "none".
# OS_SYSFS (default /sys) is for tests.
os_damon_pageout() {
  sys=${OS_SYSFS:-/sys}
  if [ "$(cat "$sys/module/damon_reclaim/parameters/enabled" 2>/dev/null)" = Y ]; then
    echo on
    return 0
  fi
  for k in "$sys"/kernel/mm/damon/admin/kdamonds/*; do
    [ "$(cat "$k/state" 2>/dev/null)" = on ] || continue
    for sc in "$k"/contexts/*/schemes/*; do
      [ "$(cat "$sc/action" 2>/dev/null)" != pageout ] || { echo on; return 0; }
    done
  done
  echo none
}

# ---- the kernel profile (harness/profile.sh, docs/profile.md) ------------

# os_profile_tool HZ : the sampler, as meta.json names it.
os_profile_tool() {
  echo "perf record -a -g -F $1 -e cpu-clock"
}

# os_profile_check : status 0 when perf can sample every CPU's stacks here;
# else one line saying why not (no perf, not root, no perf events).
os_profile_check() {
  command -v perf >/dev/null 2>&1 || { echo "no perf command (Debian: apt-get install linux-perf)"; return 1; }
  [ -r /proc/sys/kernel/perf_event_paranoid ] ||
    { echo "the kernel has no perf events (no /proc/sys/kernel/perf_event_paranoid)"; return 1; }
  paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
  if [ "$(id -u)" != 0 ] && [ "$paranoid" -gt -1 ]; then
    echo "not root (perf record -a needs root, or kernel.perf_event_paranoid=-1; it is $paranoid)"
    return 1
  fi
  # The Debian wrapper /usr/bin/perf fails when no perf matches the kernel;
  # a kernel without the cpu-clock event or with perf events off fails here.
  if ! err=$(perf stat -a -e cpu-clock -x , -- true 2>&1 >/dev/null); then
    echo "perf cannot count cpu-clock on every CPU: $(printf '%s\n' "$err" | grep -v '^[[:space:]]*$' | tail -n 1)"
    return 1
  fi
}

# os_profile_record RAW HZ [CTL ACK] : exec the sampler, writing RAW until
# SIGINT.  Its samples carry the wall clock (-k realtime: EPOCHREALTIME's),
# so that one sampler can run for a whole phase and be cut into its parts
# after (os_profile_slices).  With the FIFOs CTL and ACK it starts with its
# events off and takes "enable" and "disable" from CTL, "ack" on ACK after
# each (os_profile_control).
os_profile_record() {
  if [ -n "${3-}" ]; then
    exec perf record -a -g -F "$2" -e cpu-clock -k realtime -q -o "$1" --control "fifo:$3,$4" -D -1
  fi
  exec perf record -a -g -F "$2" -e cpu-clock -k realtime -q -o "$1"
}

# os_profile_control : status 0 when os_profile_record takes CTL ACK: the
# sampler can be switched off and on (perf record --control, perf 5.9 on).
os_profile_control() {
  perf record -h 2>&1 | grep -q -e '--control'
}

# os_profile_slices : status 0: os_profile_fold RAW WINDOWS cuts one
# sampler's RAW into the parts of a phase.
os_profile_slices() {
  :
}

# os_profile_started RAW : the sampler has started (perf writes RAW's
# header first).
os_profile_started() {
  [ -s "$1" ]
}

# os_profile_fold RAW [WINDOWS] : RAW's samples as folded stacks
# (os_parse_profile_perf); with WINDOWS ("KEY<TAB>T0<TAB>T1[<TAB>...]" lines, wall
# clock seconds), "KEY<TAB>STACK COUNT" lines of the samples inside each.
# Status 1 when perf script cannot read RAW.  None, with status 0: perf took
# no sample (the cpu-clock timer does not wake an idle CPU; a span of a few
# milliseconds).
os_profile_fold() {
  _f=comm,pid,ip,sym,dso
  [ -z "${2-}" ] || _f=time,$_f
  perf script -i "$1" -F "$_f" >"$1.script" 2>/dev/null || { rm -f "$1.script"; return 1; }
  _st=0
  os_parse_profile_perf ${2:+"$2"} <"$1.script" || _st=$?
  rm -f "$1.script"
  return "$_st"
}

# os_parse_profile_perf [WINDOWS] < `perf script -F comm,pid,ip,sym,dso` : folded
# stacks "ROOT;OUTERMOST;...;INNERMOST COUNT", one a distinct stack, sorted;
# with WINDOWS (os_profile_fold's; the script's -F with time first) each
# prefixed "KEY<TAB>" of the window its sample's time is in, samples in none
# dropped.
# ROOT is the command (pid 0, the idle task: "idle"); kernel frames (a dso
# in brackets: [kernel.kallsyms], a module such as [xfs]) end in _[k]; user
# frames are DSO`SYMBOL with the DSO's file name; a run of unnamed frames
# ([unknown]) is one.  A sample is a header line
# "COMM PID" and its frames, innermost first, a tab before each.
os_parse_profile_perf() {
  awk -v wf="${1-}" '
    BEGIN {
      while (wf != "" && (getline line < wf) > 0) { split(line, w, "\t"); nw++; wk[nw] = w[1]; w0[nw] = w[2]; w1[nw] = w[3] }
    }
    function flush(   s, i, k) {
      if (have) {
        s = root; for (i = n; i >= 1; i--) s = s ";" f[i]
        if (wf == "") c[s]++
        else for (k = 1; k <= nw; k++) if (t >= w0[k] + 0 && t <= w1[k] + 0) { c[wk[k] "\t" s]++; break }
      }
      have = 0; n = 0
    }
    /^[[:space:]]*$/ { flush(); next }
    (wf == "" && (/^[^[:space:]]/ || /^ +[^[:space:]]+ +[0-9]+ *$/)) || (wf != "" && /[0-9]+\.[0-9]+: *$/) {
      flush()
      l = $0; sub(/[[:space:]]+$/, "", l)
      # with WINDOWS: "COMM PID TIME:", the time apart
      if (wf != "") { t = l; sub(/^.*[[:space:]]/, "", t); sub(/:$/, "", t); t += 0; sub(/[[:space:]]+[^[:space:]]+$/, "", l) }
      pid = l; sub(/^.*[[:space:]]/, "", pid)
      comm = l; sub(/[[:space:]]+[0-9]+$/, "", comm); sub(/^[[:space:]]+/, "", comm)
      root = pid == "0" ? "idle" : comm
      gsub(/;/, ":", root)
      have = 1; next
    }
    have {
      l = $0; sub(/^[[:space:]]+[0-9a-fA-F]+[[:space:]]+/, "", l)
      dso = ""
      if (match(l, / \([^()]*\)$/)) { dso = substr(l, RSTART + 2, RLENGTH - 3); l = substr(l, 1, RSTART - 1) }
      sub(/\+0x[0-9a-fA-F]+$/, "", l)
      if (dso ~ /^\[/ && dso != "[unknown]" && dso != "[vdso]") l = l "_[k]"
      else { sub(/^.*\//, "", dso); if (dso != "" && dso != "[unknown]") l = dso "`" l }
      gsub(/;/, ":", l)
      # a run of frames perf could not name (a program without frame
      # pointers walks into garbage) is one frame
      if (n > 0 && l == f[n] && l ~ /\[unknown\]$/) next
      f[++n] = l
    }
    END { flush(); for (s in c) print s, c[s] }' | LC_ALL=C sort
}

# ---- block-device latency (harness/blklat.sh, docs/latency.md) ------------

# os_blklat_probe DIR : "TOOL MAJ:MIN" (bpftrace and the device of DIR's
# disk) when the block tracer can run; else one line why not, status 1.
# The tracepoints need tracefs: mounted at /sys/kernel/tracing when it is
# not (root only; bpftrace 0.17 reads the events from there).
os_blklat_probe() {
  command -v bpftrace >/dev/null 2>&1 || { echo "no bpftrace (Debian: apt-get install bpftrace)"; return 1; }
  [ "$(id -u)" = 0 ] || { echo "not root (bpftrace needs root)"; return 1; }
  [ -e /proc/sys/kernel/bpf_stats_enabled ] || { echo "a kernel without BPF (no /proc/sys/kernel/bpf_stats_enabled)"; return 1; }
  if [ ! -d /sys/kernel/tracing/events/block ]; then
    mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
    [ -d /sys/kernel/tracing/events/block ] || { echo "no block tracepoints (/sys/kernel/tracing/events/block)"; return 1; }
  fi
  _d=$(os_disk_of "$1")
  if [ "$_d" = none ] || [ ! -r "/sys/class/block/$_d/dev" ]; then
    echo "TARGET is on no block device"
    return 1
  fi
  echo "bpftrace $(cat "/sys/class/block/$_d/dev")"
}

# os_blklat_run MAJ:MIN OUT : runs the tracer until SIGTERM, then writes to
# OUT the log2 histograms @blk_ns (issue to completion, ns) and @blk_qd
# (requests in flight at each issue) of that device, keyed by its dev_t.
# Tracepoint fields as in Linux 5.x-6.x: dev (dev_t, MAJOR << 20 | MINOR),
# sector.  "blklat ready" is its line once the probes are attached (to
# stdout, line-buffered: bpftrace's -o file is flushed only at its end).
# With MARK (a number above any pid), an exec of OUT's sibling blkcut-MARK
# (a link to true that it makes; os_blklat_cut) prints the histograms so
# far, clears them and writes "blklat cut" after them: one tracer for a
# phase's record names and trials, cut at each.  The cut is an exec, seen
# by sched:sched_process_exec, not a syscall: a probe on a syscall's
# tracepoint sends every syscall of the machine down the kernel's slow
# tracing path (three ext4 variants in rounds served cold 8,449 req/s with
# tracers watching kill, 10,321 with the exec).
os_blklat_run() {
  _dev=$(( (${1%%:*} << 20) | ${1##*:} ))
  _cut='' _cuts=''
  if [ -n "${3-}" ] && [ -d /sys/kernel/tracing/events/sched/sched_process_exec ] &&
    ln -sfn /bin/true "$(dirname "$2")/blkcut-$3"; then
    _cuts='printf("blklat cuts\n");'
    # comm: the link's name (15 characters at most; MARK has 7 digits)
    _cut='
tracepoint:sched:sched_process_exec /comm == "blkcut-'"$3"'"/ {
  print(@blk_ns); print(@blk_qd); clear(@blk_ns); clear(@blk_qd);
  printf("blklat cut\n");
}'
  fi
  exec bpftrace -B line -e '
BEGIN { '"$_cuts"' printf("blklat ready\n"); }'"$_cut"'
tracepoint:block:block_rq_issue /args->dev == '"$_dev"'/ {
  @start[args->sector] = nsecs;
  @inflight = @inflight + 1;
  @blk_qd[args->dev] = hist(@inflight);
}
tracepoint:block:block_rq_complete /args->dev == '"$_dev"' && @start[args->sector]/ {
  @blk_ns[args->dev] = hist(nsecs - @start[args->sector]);
  delete(@start[args->sector]);
  @inflight = @inflight - 1;
}
END { clear(@start); clear(@inflight); }' >"$2"
}

# os_blklat_cut MARK OUT : the tracer started with MARK and OUT prints and
# clears its histograms (the exec of its link, os_blklat_run).
os_blklat_cut() {
  "$(dirname "$2")/blkcut-$1" || :
}
