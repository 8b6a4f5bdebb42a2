#!/usr/bin/env bats
# The BSD adapters (harness/os/{bsd,freebsd,netbsd,openbsd}.sh) against
# outputs recorded on real FreeBSD, NetBSD and OpenBSD systems by other public
# projects (tests/fixtures/bsd/, each file's source and licence in its
# README), and the time budget they give (harness/common/budget.sh).  The
# hand-written outputs for what no public recording was found are in
# tests/os-adapter.bats.

ROOT=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
FIX=$ROOT/tests/fixtures/bsd

load os-on

# ---- FreeBSD 14.4 (a gmirror of two disks, UFS) ------------------------------

@test "freebsd 14.4: kern.boottime and kern.cp_time as the sampler reads them" {
  sed -n 's/^kern.boottime: //p' "$FIX/freebsd/14.4-sysctl" >"$BATS_TEST_TMPDIR/bt"
  [ "$(on freebsd os_parse_boot_id <"$BATS_TEST_TMPDIR/bt")" = 1790798684 ]
  # user 12473173 nice 1 sys 3448733 intr 167285 idle 326340387
  [ "$(grep '^kern.cp_time:' "$FIX/freebsd/14.4-sysctl" | on freebsd os_parse_cpu)" = "342429579 326340387 -1" ]
}

@test "freebsd 14.4: the CPU split of the time budget: user+nice, sys, intr, idle of all 4 CPUs; no iowait, no steal" {
  [ "$(on freebsd os_parse_cpu_split <"$FIX/freebsd/14.4-sysctl")" = "12473174 3448733 167285 - 326340387 - 4" ]
  # kern.cp_time sums kern.cp_times (per CPU, read a moment apart in the
  # same call: idle one tick further): the split is of all CPUs
  read -r u s i idle < <(sed -n 's/^kern.cp_times: //p' "$FIX/freebsd/14.4-sysctl" |
    awk '{ for (i = 1; i <= NF; i++) s[(i - 1) % 5] += $i; print s[0] + s[1], s[2], s[3], s[4] }')
  [ "$u $s $i" = "12473174 3448733 167285" ]
  [ $((idle - 326340387)) -le 4 ]
  # no kern.cp_time, or no CPU count: nothing, status 1
  run on freebsd os_parse_cpu_split < <(grep -v '^kern.cp_time:' "$FIX/freebsd/14.4-sysctl")
  [ "$status" -eq 1 ]
  [ -z "$output" ]
  run on freebsd os_parse_cpu_split < <(grep -v '^hw.ncpu' "$FIX/freebsd/14.4-sysctl")
  [ "$status" -eq 1 ]
}

@test "freebsd: the ticks a second are stathz (127), which the 14.4 host's uptime bears out" {
  [ "$(on freebsd os_parse_clockrate <"$FIX/freebsd/12.2-sysctl-clockrate")" = 127 ]
  # 342429579 ticks of 4 CPUs at 127 a second are 7.80 days: booted
  # 2026-09-30 16:04:44 UTC, recorded 2026-10-08.  At hz (1000) it would be
  # under a day.
  up=$(awk 'BEGIN { printf "%d", 342429579 / 4 / 127 }')
  boot=1790798684
  [ $((boot + up)) -ge "$(date -u -d 2026-10-08 +%s)" ]
  [ $((boot + up)) -lt "$(date -u -d 2026-10-09 +%s)" ]
}

@test "freebsd 14.4: memory from sysctl: physmem, inactive pages as the cache; no runningbufspace recorded" {
  cat "$FIX/freebsd/14.4-sysctl" "$FIX/freebsd/14.4-sysctl-vm" >"$BATS_TEST_TMPDIR/mem"
  # 4248858624 / 1024; 253899 pages of 4096 bytes
  [ "$(on freebsd os_parse_memory <"$BATS_TEST_TMPDIR/mem")" = "4149276 1015596 -1 -1" ]
}

@test "freebsd 14.4: mount -p (fields padded to columns): the mount holding a path and its gmirror provider" {
  run on freebsd os_parse_mount /usr/home/me <"$FIX/freebsd/14.4-mount-p"
  [ "$output" = "$(printf '/\tufs\trw\trw\t/dev/mirror/root\t-')" ]
  run on freebsd os_parse_mount /dev/fd/3 <"$FIX/freebsd/14.4-mount-p"
  [ "$(cut -f 1,2,5 <<<"$output")" = "$(printf '/dev/fd\tfdescfs\tfdescfs')" ]
  # gmirror's provider is no disk name of devstat's: the sampler reads none
  [ "$(echo /dev/mirror/root | on freebsd os_parse_disk_name)" = none ]
}

@test "freebsd: df, in each block size the header names: 1024-blocks, 1K-blocks, 512-blocks (-P)" {
  [ "$(on freebsd os_parse_df <"$FIX/freebsd/14.4-df-k")" = "942033884 564076304 488713596 1024 0 0" ]
  [ "$(on freebsd os_parse_df <"$FIX/freebsd/df")" = "9637788 6324284 5553264 1024 0 0" ]
  # -i: iused 252576 + ifree 790750 inodes
  [ "$(on freebsd os_parse_df <"$FIX/freebsd/df-iP")" = "15411832 10302576 9069632 512 1043326 790750" ]
}

@test "freebsd: iostat -x -I totals: sectors read and written, ms busy; the time budget's busy and in-flight ms" {
  # kr/i 5905908945.5 kw/i 119214504.0 tsvc_t/i 118260.3 sb/i 48234.8
  [ "$(on freebsd os_parse_disk ada0 <"$FIX/freebsd/iostat-Ix")" = "11811817891 238429008 48234800" ]
  [ "$(on freebsd os_parse_disk_time ada0 <"$FIX/freebsd/iostat-Ix")" = "48234800 118260300" ]
  [ "$(on freebsd os_parse_disk ada9 <"$FIX/freebsd/iostat-Ix")" = "0 0 0" ]
  [ -z "$(on freebsd os_parse_disk_time ada9 <"$FIX/freebsd/iostat-Ix")" ]
  # 14.4's iostat -x without -I: per-second columns, no totals: nothing read
  # as a total
  [ "$(on freebsd os_parse_disk ada0 <"$FIX/freebsd/14.4-iostat-x")" = "0 0 0" ]
  [ -z "$(on freebsd os_parse_disk_time ada0 <"$FIX/freebsd/14.4-iostat-x")" ]
}

@test "freebsd: ifconfig: the first address that is not loopback; ::1 on lo0 or not" {
  [ "$(on freebsd os_parse_ifconfig <"$FIX/freebsd/ifconfig")" = 131.252.208.203 ]
  # facter anonymised this one's first two octets
  [ "$(on freebsd os_parse_ifconfig <"$FIX/freebsd/6.0-ifconfig")" = x.x.58.26 ]
  on freebsd os_parse_lo_inet6 <"$FIX/freebsd/ifconfig"
  run on freebsd os_parse_lo_inet6 <"$FIX/freebsd/6.0-ifconfig"
  [ "$status" -ne 0 ]
}

# ---- NetBSD 9.1 -------------------------------------------------------------

@test "netbsd: kern.cp_time's named fields and hw.ncpuonline as the CPU split; stathz from kern.clockrate" {
  cat "$FIX/netbsd/sysctl-cp_time" "$FIX/netbsd/9.1-sysctl" >"$BATS_TEST_TMPDIR/s"
  [ "$(on netbsd os_parse_cpu_split <"$BATS_TEST_TMPDIR/s")" = "2972 1334 1877 - 46354 - 4" ]
  [ "$(on netbsd os_parse_cpu <"$FIX/netbsd/sysctl-cp_time")" = "52537 46354 -1" ]
  [ "$(on netbsd os_parse_clockrate <"$FIX/netbsd/9.1-sysctl")" = 100 ]
  # hw.physmem64 979247104 bytes
  [ "$(on netbsd os_parse_memory <"$FIX/netbsd/9.1-sysctl")" = "956296 -1 -1 -1" ]
}

# ---- OpenBSD 6.8 ------------------------------------------------------------

@test "openbsd: kern.cp_time (6 states, the mean of the CPUs) times hw.ncpuonline; spin counted as sys" {
  cat "$FIX/openbsd/sysctl-cp_time" "$FIX/openbsd/6.8-sysctl" >"$BATS_TEST_TMPDIR/s"
  # user 765981 nice 576 sys 193424 spin 42002 intr 3534 idle 3819889, x 4
  [ "$(on openbsd os_parse_cpu_split avg <"$BATS_TEST_TMPDIR/s")" = "3066228 941704 14136 - 15279556 - 4" ]
  # the adapter asks for that itself (OS_CPTIME=avg); FreeBSD's does not
  [ "$(SHOOTOUT_ROOT=$ROOT SHOOTOUT_OS=openbsd sh -c '. "$SHOOTOUT_ROOT/harness/os.sh"; echo "$OS_NCPU $OS_CPTIME"')" = "hw.ncpuonline avg" ]
  [ "$(SHOOTOUT_ROOT=$ROOT SHOOTOUT_OS=freebsd sh -c '. "$SHOOTOUT_ROOT/harness/os.sh"; echo "$OS_NCPU.$OS_CPTIME"')" = "hw.ncpu." ]
  [ "$(on openbsd os_parse_cpu <"$FIX/openbsd/sysctl-cp_time")" = "4825406 3819889 -1" ]
  [ "$(on openbsd os_parse_clockrate <"$FIX/openbsd/6.8-sysctl")" = 100 ]
  # hw.physmem 957382656 bytes
  [ "$(on openbsd os_parse_memory <"$FIX/openbsd/6.8-sysctl")" = "934944 -1 -1 -1" ]
}

@test "openbsd: mount: the mount holding a path, its flags, those mount -o takes back" {
  run on openbsd os_parse_mount /home/u <"$FIX/openbsd/mount"
  [ "$output" = "$(printf '/home\tffs\tlocal,nodev,nosuid\tnodev,nosuid\t/dev/sd0k\t-')" ]
  run on openbsd os_parse_mount /etc <"$FIX/openbsd/mount"
  [ "$(cut -f 1,4,5 <<<"$output")" = "$(printf '/\tdefaults\t/dev/sd0a')" ]
  run on openbsd os_parse_mount /usr/local <"$FIX/openbsd/6.8-mount"
  [ "$(cut -f 1,3,4 <<<"$output")" = "$(printf '/\tlocal,wxallowed\twxallowed')" ]
  [ "$(echo /dev/sd0k | on openbsd os_parse_disk_name)" = sd0 ]
}

# ---- the time budget from these counters --------------------------------------

# budget START END : the budget records of one part from two budget_snap lines.
budget() {
  bash -c '. "$1/harness/common/budget.sh"; budget_records serve-cold-1 1 "" "$2" "$3" "$4"' sh "$ROOT" "$@"
}

@test "budget: the BSDs' CPU split gives user, sys, irq, idle seconds and no iowait or steal; the verdict reads them" {
  a="100.0|$(on freebsd os_parse_cpu_split <"$FIX/freebsd/14.4-sysctl")||"
  # 2 s later: 254 ticks of sys on one CPU, 762 idle on the other three
  b="102.0|12473174 3448987 167285 - 326341149 - 4||"
  run budget 127 "$a" "$b"
  [ "$status" -eq 0 ]
  [[ $output == *$'budget_cpus\t4\tcount'* ]]
  [[ $output == *$'budget_sys_s\t2.00\ts'* ]]
  [[ $output == *$'budget_idle_s\t6.00\ts'* ]]
  [[ $output != *iowait* ]]
  [[ $output != *steal* ]]
  printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/records.tsv"
  # one CPU of four busy in the kernel: not the CPUs, not the device: waiting
  run python3 -c 'import sys; sys.path.insert(0, sys.argv[1] + "/plots")
import budget
b = {}
for line in open(sys.argv[2]):
    f = line.rstrip("\n").split("\t")
    b[f[2][len("budget_"):]] = float(f[3])
print(budget.verdict(b))' "$ROOT" "$BATS_TEST_TMPDIR/records.tsv"
  [ "$output" = waiting ]
}

@test "budget: FreeBSD's device busy and queue from iostat -x -I; NetBSD's and OpenBSD's busy time alone" {
  d0=$(on freebsd os_parse_disk_time ada0 <"$FIX/freebsd/iostat-Ix")
  # 2 s later, 1.5 s busy, 4.5 s of transactions in flight
  run budget 127 "10.0|||$d0" "12.0|||48236300 118264800"
  [[ $output == *$'budget_device_busy_s\t1.500\ts'* ]]
  [[ $output == *$'budget_device_queue\t2.25\tcount'* ]]
  run budget 100 "10.0|||321250" "12.0|||322750"
  [[ $output == *$'budget_device_busy_s\t1.500\ts'* ]]
  [[ $output != *device_queue* ]]
}

# ---- meta.json's system -------------------------------------------------------

@test "bsd: the system's name and release from kern.ostype and kern.osrelease, in each system's sysctl format" {
  [ "$(on netbsd os_parse_release <"$FIX/netbsd/9.1-sysctl")" = "$(printf 'netbsd\t9.1\tNetBSD 9.1')" ]
  [ "$(on openbsd os_parse_release <"$FIX/openbsd/6.8-sysctl")" = "$(printf 'openbsd\t6.8\tOpenBSD 6.8')" ]
  # NetBSD's "name = value": the name without its blank
  [ "$(on netbsd os_parse_sysctl hw.physmem64 hw.ncpuonline <"$FIX/netbsd/9.1-sysctl" | tr '\n' ' ')" = "979247104 4 " ]
  run on freebsd os_parse_release <"$FIX/freebsd/14.4-sysctl"
  [ "$status" -eq 1 ]
}

# ---- the sources -------------------------------------------------------------

@test "every recorded BSD output has its row in tests/fixtures/bsd/README.md: the public source and the licence" {
  cd "$FIX"
  n=0
  for f in */*; do
    n=$((n + 1))
    awk -F '|' -v f="$f" '
      NF >= 6 { split($2, names, ","); for (i in names) { g = names[i]; gsub(/^ +| +$/, "", g)
        if (g == f && $4 ~ /[a-z]/ && $5 ~ /[A-Za-z]/) found = 1 } }
      END { exit !found }' README.md || { echo "$f: no README row with its source and licence"; false; }
  done
  [ "$n" -ge 17 ]
}
