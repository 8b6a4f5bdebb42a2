# shellcheck shell=sh disable=SC2034
# harness/os/bsd.sh: what the FreeBSD, NetBSD and OpenBSD adapters share
# (sourced by each of them; POSIX sh).  Each adapter then defines
# os_memory/os_parse_memory, os_disk and os_parse_disk its own way;
# os_mount_table and os_parse_mount here read `mount` (NetBSD, OpenBSD),
# and FreeBSD's adapter replaces them with `mount -p`.

os_mount_of() {
  os_mount_table | os_parse_mount "$1"
}

os_is_mountpoint() {
  [ "$(os_mount_of "$1" | awk -F '\t' '{ print $1 }')" = "$1" ]
}

os_remount_prepare() {
  OS_BACKING=
}

# os_mount FSTYPE OPTIONS SOURCE DIR ("defaults": no -o at all).
os_mount() {
  OS_SOURCE=$3
  if [ "$2" = defaults ] || [ -z "$2" ]; then
    mount -t "$1" "$3" "$4" 2>/dev/null
  else
    mount -t "$1" -o "$2" "$3" "$4" 2>/dev/null
  fi
}

os_umount() {
  umount "$1"
}

os_drop_caches() {
  OS_ERR="FLUSH=drop needs Linux's drop_caches, which $OS_NAME does not have: use FLUSH=remount or FLUSH=prime"
  return 1
}

os_write_zeros() {
  dd if=/dev/zero of="$1" bs=1048576 count="$2" 2>/dev/null
}

# os_parse_boot_id < `sysctl -n kern.boottime` : the boot time in seconds
# (FreeBSD: "{ sec = N, usec = U } DATE"; NetBSD, OpenBSD: "N").
os_parse_boot_id() {
  awk 'match($0, /sec = [0-9]+/) { print substr($0, RSTART + 6, RLENGTH - 6); f = 1; exit }
    $1 ~ /^[0-9]+$/ { print $1; f = 1; exit } END { exit !f }'
}
os_boot_id() {
  sysctl -n kern.boottime | os_parse_boot_id
}

# os_parse_cpu < `sysctl -n kern.cp_time` : "TOTAL IDLE -1": every number
# of the line summed, the last one is idle (FreeBSD "u n s i idle", NetBSD
# "user = u, nice = n, ... idle = i", OpenBSD "u,n,s,spin,intr,idle");
# the BSDs do not count I/O wait.
os_parse_cpu() {
  awk '{ gsub(/[^0-9]+/, " "); n = split($0, v, " "); if (n < 4) exit 1
    for (i = 1; i <= n; i++) t += v[i]; printf "%.0f %.0f -1\n", t, v[n]; exit }'
}
os_cpu() {
  sysctl -n kern.cp_time | os_parse_cpu
}

# os_parse_df < `df -k -i DIR` : "BLOCKS FREE AVAIL BSIZE FILES FFREE".
# The columns are "Filesystem BLOCKS Used Avail Capacity iused ifree %iused
# Mounted on" on the three systems (NetBSD: "iUsed iAvail %iCap"), the block
# size in the header ("1K-blocks", "1024-blocks", "512-blocks" with -P);
# without -i there are no inode columns (FILES 0).  A long device name puts
# the numbers on the next line.  Over the reserve Avail is negative: 0.
os_parse_df() {
  awk 'NR == 1 { bs = $2; sub(/-blocks$/, "", bs); if (bs == "1K") bs = 1024; next }
    NF == 1 { dev = $1; next }
    { if (dev != "") { $0 = dev " " $0; dev = "" }
      if (bs !~ /^[0-9]+$/ || bs == 0) exit
      a = $4 < 0 ? 0 : $4
      fi = NF >= 9 ? $6 + $7 : 0; ff = NF >= 9 ? $7 : 0
      printf "%.0f %.0f %.0f %d %.0f %.0f\n", $2, $2 - $3, a, bs, fi, ff; f = 1; exit }
    END { exit !f }'
}
os_fs_space() {
  df -k -i "$1" | os_parse_df
}

# os_parse_sysctl NAME... < `sysctl NAME...` : the values, in that order,
# one a line (-1 for a name that is missing); takes FreeBSD's "name: v",
# NetBSD's "name = v" and OpenBSD's "name=v".
os_parse_sysctl() {
  awk -v names="$*" '{ k = $0; sub(/ *[:=].*/, "", k); v = $0; sub(/^[^:=]*[:=] */, "", v); val[k] = v }
    END { n = split(names, a, " "); for (i = 1; i <= n; i++) print ((a[i] in val) ? val[a[i]] : -1) }'
}

# os_setsid CMD... : exec CMD as a session leader (no setsid command on the
# BSDs: python3, which the harness needs anyway, calls setsid(2)).
os_setsid() {
  exec python3 -c 'import os, sys
os.setsid()
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
}

# os_cpus_online : the CPUs, one number a line (0 to hw.ncpu - 1).
os_cpus_online() {
  awk -v n="$(sysctl -n hw.ncpu)" 'BEGIN { for (i = 0; i < n; i++) print i }'
}

# os_cpu_binder : NetBSD and OpenBSD have no command that binds a process
# to CPUs: status 1 (FreeBSD overrides it with cpuset -l).
os_cpu_binder() {
  return 1
}

# os_lock_fd FD : flock(2) of the file open on FD, exclusive, without
# waiting (no flock command on every BSD: python3 calls flock(2); the lock
# belongs to the open file, so it stays with the shell's FD).
os_lock_fd() {
  python3 -c 'import fcntl, sys
try:
    fcntl.flock(int(sys.argv[1]), fcntl.LOCK_EX | fcntl.LOCK_NB)
except OSError:
    sys.exit(1)' "$1"
}

os_now() {
  python3 -c 'import time; print("%.6f" % time.time())'
}

# os_parse_ifconfig < ifconfig : the first inet address that is not loopback.
os_parse_ifconfig() {
  awk '$1 == "inet" && $2 !~ /^127\./ { print $2; exit }'
}
os_host_addr() {
  ifconfig 2>/dev/null | os_parse_ifconfig
}

# os_parse_lo_inet6 < `ifconfig lo0` : it has the IPv6 address ::1
# ("inet6 ::1 prefixlen 128", "inet6 ::1%lo0 ..." on some versions).
os_parse_lo_inet6() {
  awk '$1 == "inet6" && ($2 == "::1" || $2 ~ /^::1%/) { f = 1 } END { exit !f }'
}

# os_has_ipv6 : the host can serve on ::1; otherwise prints why not and
# returns 1.
os_has_ipv6() {
  if ! ifconfig lo0 >/dev/null 2>&1; then
    echo "no loopback interface lo0"
    return 1
  fi
  if ! ifconfig lo0 | os_parse_lo_inet6; then
    echo "no ::1 on lo0 (a kernel without INET6, or IPv6 switched off)"
    return 1
  fi
}

# os_damon_pageout : none (DAMON is Linux's).
os_damon_pageout() {
  echo none
}

# os_page_reporting : none (the BSDs' balloon drivers do not report freed
# pages to the host).
os_page_reporting() {
  echo none
}

# os_cpuinfo : "COUNT<TAB>MODEL".
os_cpuinfo() {
  printf '%s\t%s\n' "$(sysctl -n hw.ncpu)" "$(sysctl -n hw.model)"
}

# os_parse_release < `sysctl kern.ostype kern.osrelease` : "ID<TAB>VERSION
# <TAB>NAME" as meta.json's os, os_version, os_name: freebsd,
# 14.4-RELEASE-p10, FreeBSD 14.4-RELEASE-p10 (NetBSD and OpenBSD have no
# /etc/os-release; FreeBSD's says the same).
os_parse_release() {
  os_parse_sysctl kern.ostype kern.osrelease |
    awk 'NR == 1 { t = $0 } NR == 2 { r = $0 }
      END { if (t == "" || t == "-1") exit 1; if (r == "-1") r = ""; printf "%s\t%s\t%s %s\n", tolower(t), r, t, r }'
}
os_release() {
  sysctl kern.ostype kern.osrelease 2>/dev/null | os_parse_release
}

os_mount_table() {
  mount
}

# os_parse_mount DIR < `mount` (NetBSD, OpenBSD: "SOURCE on MOUNTPOINT
# type FSTYPE (FLAG, FLAG...)") : "MOUNTPOINT FSTYPE OPTIONS VFS-OPTIONS
# SOURCE -"; OPTIONS are the flags, VFS-OPTIONS those of them that mount -o
# takes back.
os_parse_mount() {
  awk -v dir="$1" "$OS_AWK_MOUNT_LIB"'
    {
      on = index($0, " on "); ty = index($0, " type ")
      if (!on || ty < on) next
      src = substr($0, 1, on - 1); mp = substr($0, on + 4, ty - on - 4); rest = substr($0, ty + 6)
      fs = rest; sub(/ .*/, "", fs)
      opts = ""; if (match(rest, /\(.*\)/)) opts = substr(rest, RSTART + 1, RLENGTH - 2)
      gsub(/, /, ",", opts)
      if (!under(dir, mp) || length(mp) < best) next
      best = length(mp)
      n = split(opts, o, ","); vfs = ""
      for (i = 1; i <= n; i++) {
        w = o[i]
        if (w == "read-only") w = "rdonly"; else if (w == "asynchronous") w = "async"; else if (w == "synchronous") w = "sync"
        if (w ~ /^(rdonly|async|sync|noatime|nodev|noexec|nosuid|softdep|log|wxallowed|nodevmtime|nocoredump|symperm)$/)
          vfs = vfs (vfs == "" ? "" : ",") w
      }
      line = mp "\t" fs "\t" opts "\t" (vfs == "" ? "defaults" : vfs) "\t" src "\t-"
    }
    END { if (line != "") print line; else exit 1 }'
}

# os_disk_of DIR : the disk under DIR's filesystem: /dev/ada0p2 -> ada0,
# /dev/wd0a -> wd0, /dev/sd1e -> sd1; none when the source is no device.
os_parse_disk_name() {
  awk '{ s = $0; if (s !~ /^\/dev\//) { print "none"; exit }
    sub(/^\/dev\//, "", s)
    if (match(s, /^[a-z]+[0-9]+/)) print substr(s, 1, RLENGTH); else print "none"; exit }'
}
os_disk_of() {
  os_mount_of "$1" 2>/dev/null | awk -F '\t' '{ print $5 }' | os_parse_disk_name
}
# os_physical_disk DISK : DISK (md/vnd images are not traced to their disk).
os_physical_disk() {
  printf '%s\n' "$1"
}

# ---- the time budget of a phase (harness/common/budget.sh) ---------------

# What os_cpu_split asks sysctl for: the CPUs online (FreeBSD has only
# hw.ncpu), and "avg" where kern.cp_time is their mean (OpenBSD).
OS_NCPU=hw.ncpuonline OS_CPTIME=

# os_parse_cpu_split [avg] < `sysctl kern.cp_time NCPU` (NCPU: hw.ncpu on
# FreeBSD, hw.ncpuonline on NetBSD and OpenBSD) : "USER SYS IRQ - IDLE - CPUS"
# in ticks of all CPUs since boot.  kern.cp_time is FreeBSD's "u n s i idle",
# NetBSD's "user = u, nice = n, sys = s, intr = i, idle = d" and OpenBSD's
# "u,n,s,spin,i,idle" (5 states before 6.4): user with nice, sys with
# OpenBSD's spinning on locks, irq.  The BSDs count neither iowait (a CPU
# waiting for the disk is idle) nor steal: "-".  OpenBSD's kern.cp_time is
# the mean of the online CPUs (sys/kern/kern_sysctl.c divides by their
# number): avg multiplies it back.
os_parse_cpu_split() {
  awk -v avg="${1:-}" '
    { k = $0; sub(/[:=].*/, "", k); v = $0; sub(/^[^:=]*[:=]/, "", v); gsub(/^ +| +$/, "", k) }
    k == "kern.cp_time" { gsub(/[^0-9]+/, " ", v); n = split(v, t, " ") }
    k == "hw.ncpuonline" || (k == "hw.ncpu" && cpus == "") { cpus = v + 0 }
    END {
      if ((n != 5 && n != 6) || cpus < 1) exit 1
      m = avg == "avg" ? cpus : 1; o = n - 5
      printf "%.0f %.0f %.0f - %.0f - %d\n", (t[1] + t[2]) * m, (t[3] + (o ? t[4] : 0)) * m, t[4 + o] * m, t[5 + o] * m, cpus
    }'
}
os_cpu_split() {
  sysctl kern.cp_time "$OS_NCPU" 2>/dev/null | os_parse_cpu_split "$OS_CPTIME"
}

# os_parse_clockrate < `sysctl kern.clockrate` : the ticks a second of
# kern.cp_time, stathz (FreeBSD "{ hz = 1000, tick = 1000, profhz = 8128,
# stathz = 127 }", NetBSD and OpenBSD "tick = 10000, tickadj = 40, hz = 100,
# profhz = 100, stathz = 100"); hz where stathz is 0 (no separate
# statistics clock: the kernels then count at hz).
os_parse_clockrate() {
  awk '{ if (match($0, /stathz = [0-9]+/)) s = substr($0, RSTART + 9, RLENGTH - 9) + 0
      if (match($0, /(^|[^a-z])hz = [0-9]+/)) { h = substr($0, RSTART, RLENGTH); sub(/.*= /, "", h) } }
    END { if (s > 0) print s; else if (h + 0 > 0) print h + 0; else exit 1 }'
}
os_cpu_hz() {
  sysctl kern.clockrate 2>/dev/null | os_parse_clockrate
}

# os_kthreads : nothing.  The BSDs' kernel threads (FreeBSD's [kernel],
# bufdaemon, syncer; NetBSD's and OpenBSD's ioflush, aiodoned, reaper) show
# in ps, but no recorded output of their CPU times is in tests/fixtures/bsd,
# so a phase's budget there has no kthreads_s.
os_kthreads() {
  :
}

# os_tree_cpu ROOT : nothing.  ps shows each process's CPU time, but no
# recorded output of it is in tests/fixtures/bsd: a phase's budget there
# has no outside_cpu_s and no disturbed flag.
os_tree_cpu() {
  :
}

# The disks of NetBSD and OpenBSD (FreeBSD replaces these four): `iostat -D
# -I DISK` prints a line of names, "KB xfr time", then the totals since boot
# (-D alone shows no tty or cpu columns); time is the seconds the disk was
# busy.  -D does not tell reads from writes and sums no time in flight.
# shellcheck disable=SC2016 # awk's fields, not the shell's
OS_AWK_IOSTAT_D='
    NF >= 3 && $1 ~ /^[0-9.]+$/ && $2 ~ /^[0-9.]+$/ && $3 ~ /^[0-9.]+$/ { ms = $3 * 1000; f = 1 }'

# os_parse_disk DISK < `iostat -D -I DISK` : "-1 -1 IO_MS" (-1 -1 0 when
# absent): only the time busy is a figure.
os_parse_disk() {
  awk "$OS_AWK_IOSTAT_D"' END { if (f) printf "-1 -1 %.0f\n", ms; else print -1, -1, 0 }'
}
os_disk() {
  iostat -D -I "$1" 2>/dev/null | os_parse_disk "$1"
}

# os_parse_disk_time DISK < `iostat -D -I DISK` : "IO_MS" alone (no mean
# queue depth); nothing when absent.
os_parse_disk_time() {
  awk "$OS_AWK_IOSTAT_D"' END { if (f) printf "%.0f\n", ms }'
}
os_disk_time() {
  iostat -D -I "$1" 2>/dev/null | os_parse_disk_time "$1"
}

# ---- the kernel profile (harness/profile.sh, docs/profile.md): DTrace ----
# FreeBSD and NetBSD; openbsd.sh replaces these with btrace.

os_profile_tool() {
  echo "dtrace profile-$1 { @[stack(), ustack()] = count(); }"
}

# os_profile_check : root and a DTrace that runs (FreeBSD: kldload
# dtraceall; NetBSD: the dtrace modules), else one line saying why not.
os_profile_check() {
  [ "$(id -u)" = 0 ] || { echo "not root (DTrace needs root)"; return 1; }
  command -v dtrace >/dev/null 2>&1 || { echo "no dtrace command"; return 1; }
  if ! err=$(dtrace -q -n 'BEGIN { exit(0); }' 2>&1 >/dev/null); then
    echo "dtrace does not run: $(printf '%s\n' "$err" | grep -v '^[[:space:]]*$' | tail -n 1)"
    return 1
  fi
}

# os_profile_record RAW HZ : exec DTrace; it prints "started" when its
# probes are on, and the aggregation when SIGINT ends it.
os_profile_record() {
  exec dtrace -q -x ustackframes=100 \
    -n 'BEGIN { printf("started\n"); }' \
    -n "profile-$2 { @[stack(), ustack()] = count(); }" >"$1" 2>&1
}

# os_profile_slices : status 1: the samples carry no wall clock here, a
# sampler runs for each part of a phase.
os_profile_slices() {
  return 1
}

# os_profile_control : status 1: the sampler cannot be switched off and on
# here (a sampler runs for each part of a phase instead).
os_profile_control() {
  return 1
}

os_profile_started() {
  grep -q '^started' "$1" 2>/dev/null
}

os_profile_fold() {
  # The profile probe fires on idle CPUs too: no stack at all is a sampler
  # that did not work (status 1).
  _folded=$(os_parse_profile_dtrace <"$1") && [ -n "$_folded" ] && printf '%s\n' "$_folded"
}

# os_parse_profile_dtrace < DTrace's printed @[stack(), ustack()] = count() :
# folded stacks (see linux.sh's os_parse_profile_perf).  Each entry is the
# kernel stack, a blank line, the user stack (frames innermost first,
# MODULE`FUNCTION+0xOFFSET or an address), then the count alone on a line;
# an empty stack prints nothing, so an entry of one stack is a kernel
# stack when a blank line follows it, else a user one.  Kernel frames end in
# _[k]; ROOT is "idle" for the idle thread's stacks, else the program (the
# outermost user module that is not a shared library), else "kernel".
os_parse_profile_dtrace() {
  awk '
    function trim(s) { sub(/^[[:space:]]+/, "", s); sub(/[[:space:]]+$/, "", s); return s }
    function frame(s) { sub(/\+0x[0-9a-fA-F]+$/, "", s); gsub(/;/, ":", s); return s }
    function entry(count,   s, i, j, root, fn, prog) {
      # groups: g[1] and g[2] (kernel, user) when two; one alone is the
      # kernel stack if a blank line followed it.
      if (ng == 1 && !blank_after) { for (i = 1; i <= gn[1]; i++) u[i] = gf[1, i]; un = gn[1]; kn = 0 }
      else {
        kn = gn[1]; for (i = 1; i <= kn; i++) k[i] = gf[1, i]
        un = ng >= 2 ? gn[2] : 0; for (i = 1; i <= un; i++) u[i] = gf[2, i]
      }
      root = ""
      for (i = 1; i <= kn; i++) {
        fn = k[i]; sub(/^.*`/, "", fn)
        if (fn ~ /^(sched_idletd|cpu_idle|cpu_idle_.*|acpi_cpu_idle|idle_loop|x86_cpu_idle_.*|idle)$/) root = "idle"
      }
      prog = ""
      for (i = un; i >= 1; i--) {
        fn = u[i]
        if (fn !~ /`/) continue
        sub(/`.*$/, "", fn)
        if (prog == "" && fn !~ /\.so(\.|$)/) prog = fn
        if (first == "") first = fn
      }
      if (root == "") root = prog != "" ? prog : (un > 0 && first != "" ? first : "kernel")
      s = root
      for (i = un; i >= 1; i--) s = s ";" frame(u[i])
      for (i = kn; i >= 1; i--) { j = k[i]; sub(/^[^`]*`/, "", j); s = s ";" frame(j) "_[k]" }
      if (kn + un > 0) c[s] += count
      ng = 0; blank_after = 0; infr = 0; first = ""
      delete gn
    }
    {
      l = trim($0)
      if (l ~ /^[0-9]+$/) { if (ng > 0) entry(l + 0); else { ng = 0; blank_after = 0 }; next }
      if (l == "") { if (infr) { infr = 0; blank_after = 1 }; next }
      if (l ~ /`/ || l ~ /^0x[0-9a-fA-F]+$/) {
        if (!infr) { ng++; gn[ng] = 0; infr = 1; blank_after = 0 }
        gf[ng, ++gn[ng]] = l
        next
      }
      # anything else: a header, "started", a dtrace message
      infr = 0
    }
    END { for (s in c) print s, c[s] }' | LC_ALL=C sort
}

# ---- block-device latency (harness/blklat.sh, docs/latency.md) ------------
# FreeBSD and NetBSD: DTrace's io provider (io:::start, io:::done), every
# disk, keyed by the request's buffer (arg0); the device is not filtered
# (the key names it).  OpenBSD overrides these (openbsd.sh).

os_blklat_probe() {
  command -v dtrace >/dev/null 2>&1 || { echo "no dtrace"; return 1; }
  [ "$(id -u)" = 0 ] || { echo "not root (dtrace needs root)"; return 1; }
  dtrace -l -n 'io:::start' >/dev/null 2>&1 || { echo "no DTrace io provider (kldload dtraceall)"; return 1; }
  echo "dtrace all"
}

# os_blklat_run DEV OUT [MARK] : the @blk_ns and @blk_qd quantize()
# aggregations, each after a line "@NAME", written to OUT at SIGTERM.  No
# cut (MARK is not looked at; os_blklat_cut fails): a tracer for each
# record name and trial.
os_blklat_run() {
  exec dtrace -q -n '
BEGIN { printf("blklat ready\n"); }
io:::start { blk_t[arg0] = timestamp; blk_n++; @blk_qd["all"] = quantize(blk_n); }
io:::done /blk_t[arg0]/ {
  @blk_ns["all"] = quantize(timestamp - blk_t[arg0]);
  blk_t[arg0] = 0; blk_n--;
}
END { printf("@blk_ns\n"); printa(@blk_ns); printf("@blk_qd\n"); printa(@blk_qd); }' >"$2"
}
os_blklat_cut() {
  return 1
}
