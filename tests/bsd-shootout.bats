#!/usr/bin/env bats
# A whole `make shootout DATASET=tiny` through each BSD adapter: on a Linux
# tmpfs, with `uname`, `sysctl`, `mount`, `df`, `ifconfig`, `vmstat` and
# `iostat` answered by tests/fixtures/bsd-host/standin from the outputs
# recorded on real FreeBSD 14.4, NetBSD 9.1 and OpenBSD 6.8 hosts
# (tests/fixtures/bsd/; hand-written ones from tests/fixtures/os/ where
# none was found), so that every phase, the sampler, the time budget,
# meta.json and the report take BSD-shaped input.  The adapter is chosen by
# the stand-in uname, as on a BSD host.  FLUSH=prime (a BSD has no
# drop_caches; remount would lose a tmpfs).
# Each @test runs in its own subshell: exports there are meant to be local.
# shellcheck disable=SC2030,SC2031
load helpers

setup() {
  T=$BATS_TEST_TMPDIR
  export RESULTS=$T/results HOST=bsdhost VARIANT=v1 SHOOTOUT_ROOT=$ROOT HARNESS_BIN=$BIN
  unset RUN_ID TARGET DATASET SEED SOURCE FLUSH TRIALS PORT TRIAL SHOOTOUT_OS
  TMPFS='' MNT='' LOOP=''
}

teardown() {
  stop_leftovers "$T/"
  for m in "$TMPFS" "$MNT"; do
    if [ -n "$m" ] && mountpoint -q "$m"; then umount "$m" || umount -l "$m"; fi
  done
  [ -z "$LOOP" ] || losetup -d "$LOOP" 2>/dev/null || true
}

# records_of RUNDIR PHASE METRIC : the values of METRIC of PHASE.
records_of() {
  awk -F '\t' -v p="$2" -v m="$3" '$1 == p && $3 == m { print $4 }' "$1/records.tsv"
}

# bsd_shootout OS [disk] : make shootout through OS's adapter on a tmpfs
# (or with disk on a loop-mounted ext4); d is its run directory.
bsd_shootout() {
  # a 10 MB prime evicts little of a disk's page cache on this host: the
  # disk runs record resident_pct, but a high one does not fail them
  local t target resmax=1
  require_root
  require_cmd jq
  for t in mkdataset dltar httpd replay rmtree; do
    [ -x "$BIN/$t" ] || skip "bin/$t is not built"
  done
  if [ "${2:-}" = disk ]; then
    require_cmd mkfs.ext4 losetup
    truncate -s 256M "$T/ext4.img"
    mkfs.ext4 -q -F "$T/ext4.img"
    LOOP=$(losetup -f --show "$T/ext4.img") || skip "no free loop device"
    MNT=$T/mnt
    mkdir -p "$MNT"
    mount "$LOOP" "$MNT"
    target=$MNT resmax=100
    export BSD_HOST_DEV=${LOOP#/dev/}
    BSD_HOST_DISK0=$(awk -v d="$BSD_HOST_DEV" '$3 == d' /proc/diskstats)
    export BSD_HOST_DISK0
  else
    TMPFS=$T/tmpfs
    mkdir -p "$TMPFS"
    mount -t tmpfs -o size=256m tmpfs "$TMPFS"
    target=$TMPFS
  fi
  export BSD_HOST_OS=$1 BSD_HOST_TARGET=$target BSD_HOST_LOG=$T/calls
  BSD_HOST_STAT0=$(grep '^cpu ' /proc/stat)
  export BSD_HOST_STAT0
  run env PATH="$ROOT/tests/fixtures/bsd-host/bin:$PATH" make -C "$ROOT" -s shootout TARGET="$target" \
    RESIDENT_MAX="$resmax" \
    DATASET=tiny FLUSH=prime PRIME_GB=0.01 NET_COUNT=500 SERVE_PROCS=1 NET_PROCS=1
  echo "$output"
  [ "$status" -eq 0 ]
  d=$(find "$RESULTS" -mindepth 3 -maxdepth 3 -type d -path "*/$HOST/$VARIANT")
  [ -f "$d/records.tsv" ]
}

# check_bsd_disk DISK : a disk run's device figures: the sampler's io_ms
# and the budget's busy time from the stand-in iostat of DISK.  (meta.json's
# device stays none: it names the mount's source only when that is a block
# device here, and /dev/ada0p2 is not.)
check_bsd_disk() {
  local p
  grep -q "^iostat .*$1\$" "$T/calls"
  grep -q "$(printf '\tio_ms\t')" "$d/series/untar-1.tsv"
  # the cold check looked at the disk's page cache
  [ -n "$(records_of "$d" serve-cold-1 resident_pct)" ]
  for p in untar untar2 delete; do
    [ -n "$(records_of "$d" "$p" budget_device_busy_s)" ] || { echo "$p: no budget_device_busy_s"; false; }
    [ -n "$(records_of "$d" "$p" sync_budget_device_busy_s)" ] || { echo "$p: no sync_budget_device_busy_s"; false; }
  done
}

# check_bsd_run OS-NAME RELEASE FSTYPE : what every forced run must show.
check_bsd_run() {
  local p
  [ ! -e "$d/failures.tsv" ] || { cat "$d/failures.tsv"; false; }
  for p in untar untar2 flush serve-cold-1 serve-warm-1 net-1 delete; do
    [ "$(records_of "$d" "$p" status)" = 0 ] || { echo "$p: no status 0"; false; }
    # the budget's CPU split came from the stand-in's kern.cp_time
    [ "$(records_of "$d" "$p" budget_cpus)" = "$(nproc)" ] || { echo "$p: no budget_cpus"; false; }
    [ -n "$(records_of "$d" "$p" budget_user_s)" ] || { echo "$p: no budget_user_s"; false; }
    [ -z "$(records_of "$d" "$p" budget_iowait_s)" ] || { echo "$p: an iowait the BSDs do not count"; false; }
    [ -z "$(records_of "$d" "$p" budget_steal_s)" ]
  done
  [ "$(jq -r .os_name "$d/meta.json")" = "$1 $2" ]
  [ "$(jq -r .kernel "$d/meta.json")" = "$2" ]
  [ "$(jq -r .fs "$d/meta.json")" = "$3" ]
  # the sampler's CPU figures from kern.cp_time
  grep -q "$(printf '\tcpu_busy_pct\t')" "$d/series/untar-1.tsv"
  # the adapter's commands were the stand-ins', not Linux's
  grep -q '^sysctl .*kern.cp_time' "$T/calls"
  grep -q '^uname -s' "$T/calls"
  # the report names the host's system and release
  run make -C "$ROOT" -s report RESULTS="$RESULTS" OUT="$T/report"
  echo "$output"
  [ "$status" -eq 0 ]
  grep -qi "$1 $2" "$T/report/summary.md"
}

@test "make shootout through the FreeBSD adapter (14.4's recorded sysctl, mount -p, ifconfig): every phase, budget, meta.json, report" {
  bsd_shootout freebsd
  check_bsd_run FreeBSD 14.4-RELEASE-p10 tmpfs
  [ "$(jq -r .device "$d/meta.json")" = none ]
  grep -q '^mount -p' "$T/calls"
  grep -q '^df -k -i' "$T/calls"
  [ "$(jq -r .cpu "$d/meta.json")" = "Intel(R) Atom(TM) CPU D525   @ 1.80GHz" ]
}

@test "make shootout through the NetBSD adapter (9.1's recorded sysctl; mount and vmstat -s hand-written)" {
  bsd_shootout netbsd
  check_bsd_run NetBSD 9.1 tmpfs
  [ "$(jq -r .device "$d/meta.json")" = none ]
  grep -q '^vmstat -s' "$T/calls"
}

@test "make shootout through the OpenBSD adapter (6.8's recorded sysctl, kern.cp_time the mean of the CPUs, an mfs TARGET)" {
  bsd_shootout openbsd
  check_bsd_run OpenBSD 6.8 mfs
  [ "$(jq -r .device "$d/meta.json")" = none ]
}

@test "make shootout through the FreeBSD adapter on a disk: iostat -x -I's sectors, busy and queue in the series and the budget" {
  bsd_shootout freebsd disk
  check_bsd_run FreeBSD 14.4-RELEASE-p10 ufs
  check_bsd_disk ada0
  grep -q "$(printf '\tsectors_written\t')" "$d/series/untar-1.tsv"
  [ -n "$(records_of "$d" untar sync_budget_device_queue)" ]
}

@test "make shootout through the NetBSD and OpenBSD adapters on a disk: iostat -D -I's busy time, no queue depth" {
  bsd_shootout netbsd disk
  check_bsd_run NetBSD 9.1 ffs
  check_bsd_disk wd1
  [ -z "$(awk -F '\t' '$3 ~ /device_queue/' "$d/records.tsv")" ]
  run grep -q "$(printf '\tsectors_written\t')" "$d/series/untar-1.tsv"
  [ "$status" -ne 0 ]
  # the dataset on / (wd0a) is not on TARGET's disk
  [ "$(jq -r .dataset_shares "$d/meta.json")" = "" ]
  stop_leftovers "$T/"
  umount "$MNT"
  losetup -d "$LOOP"
  LOOP='' MNT=''
  rm -rf "$RESULTS" "$T/calls" "$T/report"
  bsd_shootout openbsd disk
  check_bsd_run OpenBSD 6.8 ffs
  check_bsd_disk sd1
  [ -z "$(awk -F '\t' '$3 ~ /device_queue/' "$d/records.tsv")" ]
}

# The micro phases' free space (free_bytes: how large a file IOzone and
# IOMeter may make) through each adapter's df, as on that system.
@test "micro phases: the free space of TARGET through each BSD adapter's df (os_fs_space), no df of their own" {
  mkdir -p "$T/dir"
  # a tmpfs of its own (root), whose free space nothing else moves; else
  # the test's directory, on a filesystem other jobs may be filling
  if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=64m shootout-bsd-df "$T/dir"; then TMPFS=$T/dir; fi
  read -r a s < <(stat -f -c '%a %S' "$T/dir")
  for os in freebsd netbsd openbsd; do
    : >"$T/calls"
    # shellcheck disable=SC2016 # expanded by the inner bash
    run env PATH="$ROOT/tests/fixtures/bsd-host/bin:$PATH" BSD_HOST_OS=$os BSD_HOST_TARGET="$T/dir" \
      BSD_HOST_LOG="$T/calls" bash -c '. "$SHOOTOUT_ROOT/harness/lib.sh"; . "$SHOOTOUT_ROOT/harness/common.sh"
        . "$SHOOTOUT_ROOT/harness/micro-lib.sh"; echo "$OS_ID $(free_bytes "$1")"' _ "$T/dir"
    echo "$os: $output"
    cat "$T/calls"
    [ "$status" -eq 0 ]
    [ "${output%% *}" = "$os" ]
    # the stand-in prints KiB; a filesystem this busy may move a few blocks
    awk -v got="${output##* }" -v want=$((a * s)) 'BEGIN { d = got - want; exit !(d * d < 4194304 * 4194304) }'
    [ "$(grep -c '^df ' "$T/calls")" -eq 1 ]
    grep -qx "df -k -i $T/dir" "$T/calls"
  done
}
