#!/usr/bin/env bats
# shellcheck disable=SC2016 # the adapters and the lint get unexpanded text
# The harness's per-OS adapters (harness/os/<os>.sh): each os_parse_*
# function against what that system's command prints (tests/fixtures/os/,
# sources in its README: the BSD files there were written by hand, for what
# no public recording was found; tests/os-bsd-recorded.bats has the recorded
# ones), and the lint that keeps OS-specific calls in the Linux adapter.

ROOT=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
FIX=$ROOT/tests/fixtures/os

load os-on

# ---- Linux ------------------------------------------------------------------

@test "linux: memory from meminfo: total, cached, dirty, writeback in KB" {
  want=$(awk '/^MemTotal:/ { t = $2 } /^Cached:/ { c = $2 } /^Dirty:/ { d = $2 } /^Writeback:/ { w = $2 }
    END { print t, c, d, w }' "$FIX/linux/meminfo")
  [ "$(on linux os_parse_memory <"$FIX/linux/meminfo")" = "$want" ]
  [ "$(printf 'MemTotal: 100 kB\n' | on linux os_parse_memory)" = "100 -1 -1 -1" ]
}

@test "linux: CPU ticks from /proc/stat: total, idle, iowait of the cpu line" {
  [ "$(on linux os_parse_cpu <"$FIX/linux/stat")" = "491767 239387 5397" ]
}

@test "linux: a disk's sectors read, written and ms busy from diskstats; a missing one reads 0" {
  [ "$(on linux os_parse_disk vda <"$FIX/linux/diskstats")" = "20183426 8328312 93564" ]
  [ "$(on linux os_parse_disk loop1 <"$FIX/linux/diskstats")" = "441848 2085770 10072" ]
  [ "$(on linux os_parse_disk sdz <"$FIX/linux/diskstats")" = "0 0 0" ]
  [ "$(on linux os_parse_disk_name 7:1 <"$FIX/linux/diskstats")" = loop1 ]
  [ "$(on linux os_parse_disk_name 0:45 <"$FIX/linux/diskstats")" = none ]
}

@test "linux: the time budget's counters: the CPU split, the kernel's threads, the device's busy and queue time" {
  # cpu  156351 0 79671 239387 5397 0 7589 3372 0 0, two cpuN lines
  [ "$(on linux os_parse_cpu_split <"$FIX/linux/stat")" = "156351 79671 7589 5397 239387 3372 2" ]
  # PF_KTHREAD threads only; a command name with ") " in it does not shift the fields
  [ "$(on linux os_parse_kthreads <"$FIX/linux/proc-pid-stat")" = "2443 62" ]
  [ "$(head -n 3 "$FIX/linux/proc-pid-stat" | on linux os_parse_kthreads)" = "0 0" ]
  [ "$(on linux os_parse_disk_time vda <"$FIX/linux/diskstats")" = "93564 294492" ]
  [ -z "$(on linux os_parse_disk_time sdz <"$FIX/linux/diskstats")" ]
  # the live ones read numbers
  [[ "$(on linux os_cpu_split)" =~ ^[0-9]+( [0-9]+){6}$ ]]
  [[ "$(on linux os_kthreads)" =~ ^[0-9]+\ [0-9]+$ ]]
  [ "$(on linux os_cpu_hz)" -gt 0 ]
}

@test "linux: the mount holding a path, from mountinfo: longest mount point, options merged as findmnt shows them" {
  run on linux os_parse_mount "/mnt/bench one/data/x" <"$FIX/linux/mountinfo"
  [ "$status" -eq 0 ]
  [ "$output" = "$(printf '/mnt/bench one\text4\trw,relatime,stripe=4\trw,relatime\t/dev/loop0\t7:0')" ]
  run on linux os_parse_mount "/mnt/bench one/inner" <"$FIX/linux/mountinfo"
  [ "$output" = "$(printf '/mnt/bench one/inner\txfs\trw,noatime,attr2,inode64\trw,noatime\t/dev/loop1\t7:1')" ]
  run on linux os_parse_mount /mnt/tmpx <"$FIX/linux/mountinfo"
  [ "$(cut -f 1,2 <<<"$output")" = "$(printf '/\text4')" ]
}

@test "linux: the boot id and the CPU facts of meta.json" {
  [ "$(on linux os_parse_boot_id <"$FIX/linux/boot_id")" = "$(cat "$FIX/linux/boot_id")" ]
  run on linux os_parse_cpuinfo <"$FIX/linux/cpuinfo"
  [ "$(cut -f 1 <<<"$output")" = "$(grep -c '^processor' "$FIX/linux/cpuinfo")" ]
  [ -n "$(cut -f 2 <<<"$output")" ]
  # meta.json's os, os_version, os_name
  [ "$(on linux os_release | cut -f 1)" = "$(. /etc/os-release && echo "$ID")" ]
}

@test "linux: free page reporting: a balloon with the feature and its order, paused, or none" {
  sys=$BATS_TEST_TMPDIR/sys
  mkdir -p "$sys/module/page_reporting/parameters" "$sys/bus/virtio/devices/virtio0" \
    "$sys/bus/virtio/devices/virtio3"
  echo 9 >"$sys/module/page_reporting/parameters/page_reporting_order"
  echo 0x0002 >"$sys/bus/virtio/devices/virtio0/device" # a disk, with bit 5 set
  echo 0010011001 >"$sys/bus/virtio/devices/virtio0/features"
  echo 0x0005 >"$sys/bus/virtio/devices/virtio3/device" # the balloon, as this VM's
  echo 0110010100 >"$sys/bus/virtio/devices/virtio3/features"
  [ "$(OS_SYSFS=$sys on linux os_page_reporting)" = "order 9" ]
  echo 11 >"$sys/module/page_reporting/parameters/page_reporting_order"
  [ "$(OS_SYSFS=$sys on linux os_page_reporting)" = paused ]
  echo 0110000100 >"$sys/bus/virtio/devices/virtio3/features" # no reporting
  [ "$(OS_SYSFS=$sys on linux os_page_reporting)" = none ]
  rm -r "$sys/bus/virtio/devices/virtio3"
  echo 9 >"$sys/module/page_reporting/parameters/page_reporting_order"
  [ "$(OS_SYSFS=$sys on linux os_page_reporting)" = none ]
  [ "$(on freebsd os_page_reporting)" = none ]
}

@test "linux: DAMON paging out idle memory: DAMON_RECLAIM, or a running kdamond with a pageout scheme; else none" {
  sys=$BATS_TEST_TMPDIR/sys
  k=$sys/kernel/mm/damon/admin/kdamonds/0
  mkdir -p "$k/contexts/0/schemes/0" "$k/contexts/0/schemes/1" "$sys/module/damon_reclaim/parameters"
  [ "$(OS_SYSFS=$sys on linux os_damon_pageout)" = none ]
  # this VM's: a kdamond on, its scheme paging out
  echo on >"$k/state"
  echo stat >"$k/contexts/0/schemes/0/action"
  [ "$(OS_SYSFS=$sys on linux os_damon_pageout)" = none ]
  echo pageout >"$k/contexts/0/schemes/1/action"
  [ "$(OS_SYSFS=$sys on linux os_damon_pageout)" = on ]
  echo off >"$k/state"
  [ "$(OS_SYSFS=$sys on linux os_damon_pageout)" = none ]
  echo Y >"$sys/module/damon_reclaim/parameters/enabled"
  [ "$(OS_SYSFS=$sys on linux os_damon_pageout)" = on ]
  [ "$(on freebsd os_damon_pageout)" = none ]
}

@test "linux: the live adapter agrees with findmnt and mountpoint on this host" {
  [ "$(uname -s)" = Linux ] || skip "not Linux"
  command -v findmnt >/dev/null || skip "no findmnt"
  read -r fs opts src < <(findmnt -no FSTYPE,OPTIONS,SOURCE -T /)
  [ "$(on linux os_mount_of / | cut -f 2,3,5)" = "$(printf '%s\t%s\t%s' "$fs" "$opts" "${src%%\[*}")" ]
  on linux os_is_mountpoint /
  [ "$(on linux os_boot_id)" = "$(cat /proc/sys/kernel/random/boot_id)" ]
}

# ---- FreeBSD ----------------------------------------------------------------

@test "freebsd: memory from sysctl: physmem, inactive pages as the cache, writeback from runningbufspace" {
  [ "$(on freebsd os_parse_memory <"$FIX/freebsd/sysctl-memory")" = "8335952 1048576 -1 1024" ]
}

@test "freebsd: mount -p: the mount holding a path, blanks decoded, its disk" {
  run on freebsd os_parse_mount "/mnt/bench one/data" <"$FIX/freebsd/mount-p"
  [ "$output" = "$(printf '/mnt/bench one\tufs\trw,noatime\trw,noatime\t/dev/ada1p1\t-')" ]
  run on freebsd os_parse_mount /usr/home/me <"$FIX/freebsd/mount-p"
  [ "$(cut -f 2,5 <<<"$output")" = "$(printf 'zfs\tzroot/usr/home')" ]
  [ "$(echo /dev/ada1p1 | on freebsd os_parse_disk_name)" = ada1 ]
  [ "$(echo /dev/md0 | on freebsd os_parse_disk_name)" = md0 ]
  [ "$(echo zroot/usr/home | on freebsd os_parse_disk_name)" = none ]
}

@test "freebsd: no drop_caches: FLUSH=drop says what to use instead" {
  run on freebsd eval 'os_drop_caches || { echo "$OS_ERR"; exit 1; }'
  [ "$status" -eq 1 ]
  [[ $output == *"FLUSH=remount or FLUSH=prime"* ]]
}

# ---- NetBSD -----------------------------------------------------------------

@test "netbsd: kern.boottime with -n: the seconds" {
  [ "$(on netbsd os_parse_boot_id <"$FIX/netbsd/sysctl-boottime")" = 1716802441 ]
}

@test "netbsd: memory from hw.physmem64 and vmstat -s's cached file pages" {
  [ "$(on netbsd os_parse_memory <"$FIX/netbsd/memory")" = "4194304 524288 -1 -1" ]
}

@test "netbsd: iostat -D -I: the seconds busy; reads and writes are not told apart" {
  [ "$(on netbsd os_parse_disk wd0 <"$FIX/netbsd/iostat-DI")" = "-1 -1 321250" ]
  # the time budget's device: busy ms alone, no summed time in flight
  [ "$(on netbsd os_parse_disk_time wd0 <"$FIX/netbsd/iostat-DI")" = 321250 ]
  [ -z "$(head -n 2 "$FIX/netbsd/iostat-DI" | on netbsd os_parse_disk_time wd0)" ]
}

@test "netbsd: mount: the mount holding a path, flags mount -o takes back" {
  run on netbsd os_parse_mount /mnt/bench/data <"$FIX/netbsd/mount"
  [ "$output" = "$(printf '/mnt/bench\tffs\tlog,noatime,local\tlog,noatime\t/dev/wd1e\t-')" ]
  [ "$(echo /dev/wd1e | on netbsd os_parse_disk_name)" = wd1 ]
  [ "$(on netbsd os_parse_df <"$FIX/netbsd/df-ki")" = "20307196 19072628 17447056 1024 2618686 2608665" ]
}

# ---- OpenBSD ----------------------------------------------------------------

@test "openbsd: kern.boottime with -n: the seconds" {
  [ "$(on openbsd os_parse_boot_id <"$FIX/openbsd/sysctl-boottime")" = 1716802441 ]
}

@test "openbsd: iostat -D -I and mount: seconds busy, the mount, its flags" {
  [ "$(on openbsd os_parse_disk sd0 <"$FIX/openbsd/iostat-DI")" = "-1 -1 45500" ]
  [ "$(on openbsd os_parse_disk_time sd0 <"$FIX/openbsd/iostat-DI")" = 45500 ]
  run on openbsd os_parse_mount /mnt/bench <"$FIX/openbsd/mount"
  [ "$output" = "$(printf '/mnt/bench\tffs\tlocal,noatime,softdep\tnoatime,softdep\t/dev/sd1a\t-')" ]
  run on openbsd os_parse_mount /usr/local <"$FIX/openbsd/mount"
  [ "$(cut -f 1,4 <<<"$output")" = "$(printf '/usr\tnodev,wxallowed')" ]
  # Over the reserve, df shows a negative Avail: nothing is available.
  [ "$(on openbsd os_parse_df <"$FIX/openbsd/df-ki" | cut -d ' ' -f 3)" = 0 ]
}

@test "openbsd: ifconfig lo0: ::1 present means IPv6 can be served" {
  on openbsd os_parse_lo_inet6 <"$FIX/openbsd/ifconfig-lo0"
  run on openbsd os_parse_lo_inet6 < <(grep -v inet6 "$FIX/openbsd/ifconfig-lo0")
  [ "$status" -ne 0 ]
}

@test "every adapter defines the functions the harness calls, and harness/os/README.md lists each" {
  names=$(grep -o '^os_[a-z0-9_]*()' "$ROOT/harness/os/linux.sh" | tr -d '()')
  [ "$(echo "$names" | wc -l)" -gt 20 ]
  for os in freebsd netbsd openbsd; do
    for f in $names; do
      case $f in os_parse_*) continue ;; esac # each reads its own system's output
      on "$os" type "$f" >/dev/null || { echo "$os has no $f"; false; }
    done
  done
  for f in $names; do
    grep -q "\`${f}[\` ,]" "$ROOT/harness/os/README.md" || { echo "README.md lacks $f"; false; }
  done
}

@test "an unknown system is refused with one line naming the adapters" {
  run on SunOS os_boot_id
  [ "$status" -eq 1 ]
  [[ $output == *"no adapter for SunOS"* ]]
}

# ---- the lint ---------------------------------------------------------------

@test "lint: the harness outside harness/os/linux.sh uses no /proc, util-linux or GNU-only call" {
  run "$ROOT/harness/os/lint.sh" "$ROOT"/harness/phase-*.sh "$ROOT"/harness/{sampler,meta,flush,common,micro-lib,poll,target-guard,lib,shootout,rounds,os}.sh "$ROOT"/harness/common/*.sh
  [ "$status" -eq 0 ]
  [ -z "$output" ]
}

@test "lint: each kind of Linux-only call is caught with its file and line" {
  f=$BATS_TEST_TMPDIR/phase-bad.sh
  printf '%s\n' '#!/bin/sh' '# a comment about /proc/meminfo is fine' 'awk 1 /proc/meminfo' 'mountpoint -q "$T"' \
    'stat -f -c %a "$T"' 'find . -name x -printf %f' 'mv -T a b' 'setsid cmd &' 'date +%s.%N' \
    'dd if=/dev/zero of=f status=none' 'hostname -I' 'cat /sys/block/x' 'df -Pk "$T" | awk 1' >"$f"
  run "$ROOT/harness/os/lint.sh" "$f"
  [ "$status" -eq 1 ]
  [ "${#lines[@]}" -eq 11 ]
  [[ ${lines[0]} == "$f:3: reads /proc"* ]]
  [[ ${lines[1]} == "$f:4: util-linux command"* ]]
  [[ ${lines[9]} == "$f:12: reads /sys"* ]]
  [[ ${lines[10]} == "$f:13: df (belongs in the adapters: os_fs_space)"* ]]
}
