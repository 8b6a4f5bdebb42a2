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

# os_parse_df < `df -k -i DIR` : "BLOCKS FREE AVAIL BSIZE FILES FFREE" (the
# header "Filesystem 1K-blocks Used Avail Capacity iused ifree %iused Mounted on").
os_parse_df() {
  awk 'NR == 1 { next } NF == 1 { dev = $1; next }
    { if (dev != "") { $0 = dev " " $0; dev = "" }
      a = $4 < 0 ? 0 : $4
      printf "%.0f %.0f %.0f 1024 %.0f %.0f\n", $2, $2 - $3, a, $6 + $7, $7; f = 1; exit }
    END { exit !f }'
}
os_fs_space() {
  df -k -i "$1" | os_parse_df
}

# os_parse_sysctl NAME... < `sysctl NAME...` : the values, in that order,
# one a line (-1 for a name that is missing); takes "name: v" and "name=v".
os_parse_sysctl() {
  awk -v names="$*" '{ k = $0; sub(/[:=].*/, "", k); v = $0; sub(/^[^:=]*[:=] */, "", v); val[k] = v }
    END { n = split(names, a, " "); for (i = 1; i <= n; i++) print ((a[i] in val) ? val[a[i]] : -1) }'
}

# os_setsid CMD... : exec CMD as a session leader (no setsid command on the
# BSDs: python3, which the harness needs anyway, calls setsid(2)).
os_setsid() {
  exec python3 -c 'import os, sys
os.setsid()
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
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

# os_page_reporting : none (the BSDs' balloon drivers do not report freed
# pages to the host).
os_page_reporting() {
  echo none
}

# os_cpuinfo : "COUNT<TAB>MODEL".
os_cpuinfo() {
  printf '%s\t%s\n' "$(sysctl -n hw.ncpu)" "$(sysctl -n hw.model)"
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

# ---- the time budget of a phase: unknown on the BSDs ----------------------
# kern.cp_time (the CPU split) and iostat's busy time (the device) could
# give part of it, but tests/fixtures/os holds no real recorded output of
# those systems (its BSD files were written by hand), so these print
# nothing: the budget of a phase there is its wall time alone, and the
# report gives no verdict (harness/os/README.md).
os_cpu_split() {
  :
}
os_cpu_hz() {
  :
}
os_kthreads() {
  :
}
os_disk_time() {
  :
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

# os_blklat_run DEV OUT : the @blk_ns and @blk_qd quantize() aggregations,
# each after a line "@NAME", written to OUT at SIGTERM.
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
