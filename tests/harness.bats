#!/usr/bin/env bats
# The harness: lib.sh records and runs, meta.json, the sampler, safety and
# preflight checks, flushing, and `make shootout` end to end.
# Each @test runs in its own subshell: exports there are meant to be local.
# shellcheck disable=SC2030,SC2031
load helpers

setup() {
  T=$BATS_TEST_TMPDIR
  export RESULTS=$T/results HOST=testhost VARIANT=v1 SHOOTOUT_ROOT=$ROOT HARNESS_BIN=$BIN
  unset RUN_ID TARGET DATASET SEED SOURCE FLUSH TRIALS PORT TRIAL
  MNT='' LOOP='' TMPFS=''
  touch "$T/.began"
}

teardown() {
  local m
  # A failed test may leave its harness processes behind (their arguments
  # name $T): they would keep the mount busy and bats's output open.
  if pkill -TERM -f -- "$T/" 2>/dev/null; then
    POLL_STEP=0.1 poll_until 5 no_process "$T/" || true
    pkill -KILL -f -- "$T/" 2>/dev/null || true
  fi
  for m in "$MNT" "$TMPFS"; do
    [ -n "$m" ] || continue
    if mountpoint -q "$m"; then umount "$m" || umount -l "$m"; fi
  done
  [ -z "$LOOP" ] || losetup -d "$LOOP" 2>/dev/null || true
}

# lib FUNCTION ARGS... : call a lib.sh function in a fresh shell.
lib() {
  sh -c '. "$SHOOTOUT_ROOT/harness/lib.sh"; "$@"' lib "$@"
}

# loop_ext4 SIZE : an ext4 on a loop device of a sparse image, mounted at $MNT.
loop_ext4() {
  require_root
  require_cmd mkfs.ext4 losetup
  truncate -s "$1" "$T/ext4.img"
  mkfs.ext4 -q -F "$T/ext4.img"
  LOOP=$(losetup -f --show "$T/ext4.img") || skip "no free loop device"
  MNT=$T/mnt
  mkdir -p "$MNT"
  mount "$LOOP" "$MNT"
}

# tmpfs_at SIZE : a tmpfs mounted at $TMPFS.
tmpfs_at() {
  require_root
  TMPFS=$T/tmpfs
  mkdir -p "$TMPFS"
  mount -t tmpfs -o "size=$1" tmpfs "$TMPFS"
}

# records_of RUNDIR PHASE METRIC : the values of METRIC of PHASE.
records_of() {
  awk -F '\t' -v p="$2" -v m="$3" '$1 == p && $3 == m { print $4 }' "$1/records.tsv"
}

# the_run : the one run directory under $RESULTS (fails if not exactly one).
the_run() {
  local d
  d=$(find "$RESULTS" -mindepth 3 -maxdepth 3 -type d -path "*/$HOST/$VARIANT")
  [ "$(printf '%s\n' "$d" | grep -c .)" -eq 1 ] || { echo "want one run, have: $d" >&2; return 1; }
  printf '%s\n' "$d"
}

# ---- lib.sh ----------------------------------------------------------------

@test "lib: record appends tab-separated phase trial metric value unit lines under the header" {
  export RUN_ID=r1
  lib record untar 1 wall_s 35.2 s
  lib record serve-cold-1 1 rps 41.3 req/s
  f=$RESULTS/r1/testhost/v1/records.tsv
  [ "$(head -n 1 "$f")" = "$(printf 'phase\ttrial\tmetric\tvalue\tunit')" ]
  [ "$(sed -n 2p "$f")" = "$(printf 'untar\t1\twall_s\t35.2\ts')" ]
  [ "$(awk -F '\t' 'NF != 5' "$f" | wc -l)" -eq 0 ]
  run lib record untar 1 wall_s 35.2
  [ "$status" -ne 0 ]
  [[ $output == *"want PHASE TRIAL METRIC VALUE UNIT"* ]]
  [ "$(wc -l <"$f")" -eq 3 ]
}

@test "lib: human.sh's durations, rates and sizes (the progress and end lines)" {
  # shellcheck source=harness/human.sh
  . "$ROOT/harness/human.sh"
  [ "$(human_ms 999)" = "999 ms" ]
  [ "$(human_ms 1000)" = "1.0 s" ]
  [ "$(human_ms 59999)" = "59.9 s" ]
  [ "$(human_ms 65000)" = "1 min 05 s" ]
  [ "$(human_ms 7620000)" = "2 h 07 min" ]
  [ "$(human_s 0.0324393)" = "32 ms" ]
  [ "$(human_s 1.25e1)" = "12.5 s" ]
  [ "$(human_rate 300 850 files)" = "352 files/s" ]
  [ "$(human_rate 3 850 files)" = "3.5 files/s" ]
  [ "$(human_rate 0 0 files)" = "- files/s" ]
  [ "$(human_rate 1000000000 3200 MB 1000000)" = "312 MB/s" ]
  [ "$(human_bytes 999)" = "999 B" ]
  [ "$(human_bytes 40960)" = "40 kB" ]
  [ "$(human_bytes 1500000)" = "1.5 MB" ]
  [ "$(human_bytes 3400000000)" = "3.4 GB" ]
}

@test "lib: next_trial counts per phase and over several record names" {
  export RUN_ID=r1
  [ "$(lib next_trial untar)" -eq 1 ]
  lib record untar 1 wall_s 1 s
  lib record untar 2 wall_s 1 s
  lib record serve-warm-32 3 rps 1 req/s
  [ "$(lib next_trial untar)" -eq 3 ]
  [ "$(lib next_trial untar2)" -eq 1 ]
  [ "$(lib next_trial serve-cold-1 serve-warm-32)" -eq 4 ]
}

@test "lib: a new run never reuses an existing run directory and becomes current" {
  a=$(lib new_run)
  mkdir -p "$RESULTS/$(date -u +%Y%m%dT%H%M%SZ)-testhost"
  b=$(lib new_run)
  c=$(lib new_run)
  [ "$a" != "$b" ]
  [ "$b" != "$c" ]
  [ "$a" != "$c" ]
  [ -d "$RESULTS/$c" ]
  [ "$(cat "$RESULTS/.current")" = "$c" ]
  [ "$(lib run_id)" = "$c" ]
  [ "$(RUN_ID=other lib run_id)" = other ]
}

@test "lib: record_failure files status 1 and the error line" {
  export RUN_ID=r1
  lib record_failure untar 2 "dltar exited 1: connection refused"
  d=$RESULTS/r1/testhost/v1
  [ "$(records_of "$d" untar status)" = 1 ]
  grep -q "$(printf '^untar\t2\t.*\tdltar exited 1: connection refused$')" "$d/failures.tsv"
}

@test "lib: record_failure keeps a message with CR LF and control characters one record" {
  export RUN_ID=r1
  # as ssh ends its own messages: a report reading text lines took the CR
  # for a line break, and skipped the error as two broken lines
  lib record_failure net-4 1 $'replay: connect: timed out\r\nclient_loop: send disconnect: Broken pipe\r\n\x1b[0m\tend'
  d=$RESULTS/r1/testhost/v1
  [ "$(records_of "$d" net-4 status)" = 1 ]
  [ "$(cat "$d/records.tsv" "$d/failures.tsv" | tr -cd '\r' | wc -c)" -eq 0 ]
  # every line, as Python reads text (universal newlines), has the 5 fields
  python3 -c 'import sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
assert all(len(l.split("\t")) == 5 for l in lines), lines
err = [l.split("\t")[3] for l in lines if l.split("\t")[2] == "error"]
assert err == ["replay: connect: timed out  client_loop: send disconnect: Broken pipe   [0m end"], err' "$d/records.tsv"
}

# ---- meta.json ---------------------------------------------------------------

@test "meta.json is valid JSON with every key, strings escaped" {
  require_cmd jq
  mkdir -p "$T/target"
  TARGET=$T/target RUN_ID=r1 DATASET=tiny SEED=7 FLUSH=remount FS=ext4 PRECISION=1.5 \
    MKFS_OPTS=$'-O "^has_journal" \\ x\ty' run "$ROOT/harness/meta.sh" "$T/meta.json"
  [ "$status" -eq 0 ]
  jq -e . "$T/meta.json" >/dev/null
  for k in run_id host os os_version kernel arch cpu cpus mem_kb fs mkfs_opts mount_opts \
    device target dataset seed flush tools git_commit start_time variant virt page_reporting; do
    jq -e --arg k "$k" 'has($k)' "$T/meta.json" >/dev/null || { echo "missing $k"; false; }
  done
  [ "$(jq -r .mkfs_opts "$T/meta.json")" = $'-O "^has_journal" \\ x\ty' ]
  [ "$(jq -r .host "$T/meta.json")" = testhost ]
  [ "$(jq -r .seed "$T/meta.json")" = 7 ]
  [ "$(jq -r .kernel "$T/meta.json")" = "$(uname -r)" ]
  [ "$(jq -r .mem_kb "$T/meta.json")" -gt 0 ]
  # A VM lab says how its guest ran; otherwise systemd-detect-virt does.
  VIRT=tcg TARGET=$T/target RUN_ID=r1 DATASET=tiny SEED=7 run "$ROOT/harness/meta.sh" "$T/meta2.json"
  [ "$status" -eq 0 ]
  [ "$(jq -r .virt "$T/meta2.json")" = tcg ]
  # the precision the run's figures were repeated to (the report's noisy mark), a number; PRECISION's default 2
  [ "$(jq -r '.precision | type' "$T/meta.json")" = number ]
  [ "$(jq -r .precision "$T/meta.json")" = 1.5 ]
  env -u PRECISION TARGET="$T/target" RUN_ID=r1 DATASET=tiny SEED=7 "$ROOT/harness/meta.sh" "$T/meta3.json"
  [ "$(jq -r .precision "$T/meta3.json")" = 2 ]
  [ "$(jq -r '.tools | type' "$T/meta.json")" = object ]
  # what this host's balloon does with freed memory, as the adapter says
  [ "$(jq -r .page_reporting "$T/meta.json")" = "$(SHOOTOUT_ROOT=$ROOT sh -c '. "$SHOOTOUT_ROOT/harness/os.sh"; os_page_reporting')" ]
}

@test "meta.json: a run that generates its dataset records the dataset's figures" {
  require_tools
  require_cmd jq
  tmpfs_at 64m
  # SEED left to its default: the harness, not make, must hand it on
  run env -u SEED make -C "$ROOT" -s phase-untar TARGET="$TMPFS" DATASET=tiny FLUSH=none RUN_ID=fresh \
    DATASETS_OUT="$T/fresh-ds"
  echo "$output"
  [ "$status" -eq 0 ]
  local meta=$RESULTS/fresh/$HOST/$VARIANT/meta.json
  [ "$(jq -r .dataset_info.files "$meta")" -gt 0 ]
  [ "$(jq -r .dataset_info.seed "$meta")" = 1 ]
  jq -e '.run_id == "fresh"' "$meta" >/dev/null
}

# ---- the harness's writes and TARGET ------------------------------------------

@test "meta.json: RESULTS and the dataset on TARGET's filesystem: recorded, a WARNING once a run (every phase's log), OFF_TARGET=1 refuses" {
  require_cmd jq
  mkdir -p "$T/target"
  run make -C "$ROOT" -s phase-flush TARGET="$T/target" ALLOW_NONMOUNT=1 FLUSH=none RUN_ID=r1 DATASETS_OUT="$T/ds"
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output == *"WARNING: RESULTS (filesystem) and the dataset (filesystem) on TARGET's device"* ]]
  m=$RESULTS/r1/$HOST/$VARIANT/meta.json
  [ "$(jq -c '[.results_on_target, .results_shares, .dataset_on_target, .dataset_shares]' "$m")" = '[true,"filesystem",true,"filesystem"]' ]
  grep -q "WARNING: RESULTS" "$RESULTS/r1/$HOST/$VARIANT/logs/flush-1.log"
  # the next phase of the run: in its log and warnings.log, not on stderr again
  run make -C "$ROOT" -s phase-flush TARGET="$T/target" ALLOW_NONMOUNT=1 FLUSH=none RUN_ID=r1 DATASETS_OUT="$T/ds"
  [ "$status" -eq 0 ]
  [[ $output != *WARNING* ]]
  [[ $output == *"flush: start: run r1, trial 2"* ]]
  grep -q "WARNING: RESULTS" "$RESULTS/r1/$HOST/$VARIANT/logs/flush-2.log"
  [ "$(grep -c "WARNING: RESULTS" "$RESULTS/r1/$HOST/$VARIANT/logs/warnings.log")" -eq 1 ]
  run make -C "$ROOT" -s phase-flush TARGET="$T/target" ALLOW_NONMOUNT=1 FLUSH=none RUN_ID=r2 DATASETS_OUT="$T/ds" OFF_TARGET=1
  [ "$status" -ne 0 ]
  [[ $output == *"on TARGET's device"*"OFF_TARGET=1 refuses this"* ]]
}

@test "meta.json: a loop-mounted TARGET whose image shares RESULTS's disk says disk; RESULTS on tmpfs is off it" {
  require_cmd jq
  [ "$("$ROOT/harness/sampler.sh" --device "$T")" != none ] || skip "the test directory has no disk of its own"
  loop_ext4 64M
  run make -C "$ROOT" -s phase-flush TARGET="$MNT" FLUSH=none RUN_ID=r1 DATASETS_OUT="$T/ds"
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output == *"WARNING: RESULTS (disk) and the dataset (disk)"* ]]
  [ "$(jq -c '[.results_on_target, .results_shares]' "$RESULTS/r1/$HOST/$VARIANT/meta.json")" = '[true,"disk"]' ]
  tmpfs_at 16m
  run make -C "$ROOT" -s phase-flush TARGET="$MNT" FLUSH=none RUN_ID=r2 RESULTS="$TMPFS/results" DATASETS_OUT="$TMPFS/ds"
  [ "$status" -eq 0 ]
  [[ $output != *WARNING* ]]
  [ "$(jq -c '[.results_on_target, .dataset_on_target]' "$TMPFS/results/r2/$HOST/$VARIANT/meta.json")" = '[false,false]' ]
}

# ---- sampler -----------------------------------------------------------------

# has_metrics SERIES : every metric of a loop device's sampler series is there.
has_metrics() {
  local m
  for m in tool_bytes tool_files dirty_kb writeback_kb sectors_read sectors_written io_ms cpu_busy_pct cpu_iowait_pct; do
    grep -q "$(printf '\t%s\t' "$m")" "$1" || return 1
  done
}

# has_16mb SERIES : the series counts 16 MB written, as sectors and as the tool's bytes.
has_16mb() {
  [ "$(awk -F '\t' '$2 == "sectors_written" { s += $3 } END { printf "%.0f\n", s }' "$1")" -ge 32768 ] &&
    [ "$(awk -F '\t' '$2 == "tool_bytes" { b = $3 } END { printf "%.0f\n", b }' "$1")" -ge 16000000 ]
}

@test "budget: two readings make the part's records: wall, the CPU split in seconds, kernel threads, device busy and queue" {
  # 2 CPUs, 100 ticks/s, 0.5 s apart: 100 ticks in all
  a='100.000000|1000 2000 30 40 500 0 2|700|5000 9000'
  b='100.500000|1002 2060 35 41 530 2 2|760|5100 9300'
  run bash -c '. "$1/harness/common/budget.sh"; budget_records delete 3 sync_ 100 "$2" "$3"' sh "$ROOT" "$a" "$b"
  [ "$status" -eq 0 ]
  want=$(printf '%s\n' 'sync_budget_wall_s 0.500 s' 'sync_budget_cpus 2 count' 'sync_budget_user_s 0.02 s' \
    'sync_budget_sys_s 0.60 s' 'sync_budget_irq_s 0.05 s' 'sync_budget_iowait_s 0.01 s' 'sync_budget_idle_s 0.30 s' \
    'sync_budget_steal_s 0.02 s' 'sync_budget_kthreads_s 0.60 s' 'sync_budget_device_busy_s 0.100 s' \
    'sync_budget_device_queue 0.60 count')
  [ "$(awk -F '\t' '$1 == "delete" && $2 == 3 { print $3, $4, $5 }' <<<"$output")" = "$want" ]
  # no CPU split, no device (a BSD, tmpfs): the wall time alone
  run bash -c '. "$1/harness/common/budget.sh"; budget_records untar 1 "" "" "$2" "$3"' sh "$ROOT" '5.0|||' '6.25|||'
  [ "$output" = "$(printf 'untar\t1\tbudget_wall_s\t1.250\ts')" ]
}

@test "budget: a part paused while the other variants take their slices counts its running time only (budget_shift)" {
  # running 100.0-100.5 and 103.0-103.5 (2 CPUs, 100 ticks/s); paused
  # between, while another variant took 4.4 s of CPU outside the phase
  start='100.000000|1000 2000 30 40 500 0 2|700|5000 9000|50'
  pause='100.500000|1040 2040 32 40 520 1 2|710|5050 9100|110'
  resume='103.000000|1300 2400 40 40 520 1 2|720|5050 9100|111'
  end='103.500000|1340 2440 42 40 540 2 2|730|5100 9200|189'
  run bash -c '. "$1/harness/common/budget.sh"; budget_shift "$2" "$3" "$4"' sh "$ROOT" "$start" "$pause" "$resume"
  [ "$status" -eq 0 ]
  [ "$output" = '102.500000|1260 2360 38 40 500 0 2|710|5000 9000|51' ]
  run bash -c '. "$1/harness/common/budget.sh"; budget_records serve-warm-1 2 "" 100 "$2" "$3" 5' sh "$ROOT" "$output" "$end"
  [ "$status" -eq 0 ]
  rec() { awk -F '\t' -v m="$1" '$3 == m { print $4 }' <<<"$output"; }
  # 1 s of running time, its own CPU only (4 ticks of interrupts with it): not disturbed
  [ "$(rec budget_wall_s)" = 1.000 ]
  [ "$(rec budget_user_s)" = 0.80 ]
  [ "$(rec budget_outside_cpu_s)" = 0.06 ]
  [ "$(rec disturbed)" = 0 ]
  # without the shift the other variant's slices are this trial's: disturbed
  run bash -c '. "$1/harness/common/budget.sh"; budget_records serve-warm-1 2 "" 100 "$2" "$3" 5' sh "$ROOT" "$start" "$end"
  [ "$(rec budget_wall_s)" = 3.500 ]
  [ "$(rec disturbed)" = 1 ]
}

@test "sampler: a loop device's writes, dirty pages and CPU in the series" {
  loop_ext4 64M
  [ "$("$ROOT/harness/sampler.sh" --device "$MNT")" = "$(basename "$LOOP")" ]
  "$ROOT/harness/sampler.sh" -o "$T/s.tsv" -t "$MNT" -i 0.2 3>&- &
  pid=$!
  wait_for_file "$T/s.tsv" 5
  dd if=/dev/zero of="$MNT/f" bs=1M count=16 conv=fsync status=none
  # until a sample after the writes (5 s: 25 intervals of 0.2 s)
  poll_until 5 has_16mb "$T/s.tsv" || true
  kill -TERM "$pid"
  wait_for_exit "$pid" 5
  has_metrics "$T/s.tsv" || { echo "a metric is missing:"; cat "$T/s.tsv"; false; }
  # 16 MB written: at least that many 512-byte sectors, and the tool's bytes.
  has_16mb "$T/s.tsv" || { echo "not 16 MB:"; cat "$T/s.tsv"; false; }
  [ "$(awk -F '\t' 'NF != 3 || $1 !~ /^[0-9]+\.[0-9]+$/' "$T/s.tsv" | wc -l)" -eq 0 ]
}

@test "sampler: tmpfs has no device: no disk metrics, the rest is there" {
  tmpfs_at 16m
  [ "$("$ROOT/harness/sampler.sh" --device "$TMPFS")" = none ]
  "$ROOT/harness/sampler.sh" -o "$T/s.tsv" -t "$TMPFS" -i 0.2 3>&- &
  pid=$!
  wait_for_file "$T/s.tsv" 5
  kill -TERM "$pid"
  wait_for_exit "$pid" 5
  grep -q "$(printf '\tdirty_kb\t')" "$T/s.tsv"
  [ "$(grep -c sectors_ "$T/s.tsv")" -eq 0 ]
}

@test "sampler: on a terminal, progress in units people read: done/total, percent, rate, time, ETA" {
  require_cmd script
  mkdir -p "$T/d"
  # script(1) gives the sampler a terminal; the tool's series says 7 files
  # and 7 MB moved, of 1000 files; the sampler stops when the sleep ends
  printf '0.100\ttool_files\t7\n0.100\ttool_bytes\t7000000\n' >"$T/tool.tsv"
  sleep 1.2 3>&- &
  watched=$!
  timeout 20 script -qec "SHOOTOUT_ROOT='$ROOT' '$ROOT/harness/sampler.sh' -o '$T/s.tsv' -t '$T/d' -s '$T/tool.tsv' -F 1000 -i 0.2 -p $watched" \
    "$T/tty" </dev/null >/dev/null 3>&-
  line=$(tr '\r' '\n' <"$T/tty" | grep -a '7/1000 files' | tail -n 1)
  echo "$line"
  [[ $line =~ ^sampler:\ 7/1000\ files\ \(0%\),\ 7\.0\ MB,\ [0-9]+(\.[0-9])?\ files/s,\ [0-9.]+\ (ms|s),\ ETA\ [0-9]+(\.[0-9])?\ (ms|s|min\ [0-9]{2}\ s|h\ [0-9]{2}\ min)\ *$ ]]
}

# lines_over FILE PATTERN N : FILE has more than N lines matching PATTERN.
lines_over() {
  local n
  n=$(grep -c -- "$2" "$1" 2>/dev/null) || :
  [ "${n:-0}" -gt "$3" ]
}

@test "sampler: USR1 pauses it after a sample of the interval so far (-A: then a file says so), USR2 goes on from a new baseline: a gap, no sample across it" {
  mkdir -p "$T/d"
  "$ROOT/harness/sampler.sh" -o "$T/s.tsv" -t "$T/d" -i 0.2 -A "$T/paused" 3>&- &
  pid=$!
  POLL_STEP=0.05 poll_until 10 lines_over "$T/s.tsv" cpu_busy_pct 1
  kill -USR1 "$pid"
  wait_for_file "$T/paused" 5
  n=$(wc -l <"$T/s.tsv")
  # five intervals' time: no sample while paused
  sleep 1
  [ "$(wc -l <"$T/s.tsv")" = "$n" ]
  kill -USR2 "$pid"
  POLL_STEP=0.05 poll_until 10 lines_over "$T/s.tsv" . "$n"
  kill -TERM "$pid"
  wait_for_exit "$pid" 5
  # the first sample after the pause is an interval after the resume, more
  # than a second after the pause's own
  awk -F '\t' '$2 == "cpu_busy_pct" { t[++k] = $1 } END { for (i = 2; i <= k; i++) if (t[i] - t[i - 1] > g) g = t[i] - t[i - 1]; print g; exit !(g >= 1.2) }' "$T/s.tsv" || { cat "$T/s.tsv"; false; }
}

@test "sampler: stops by itself when the phase it watches is gone" {
  mkdir -p "$T/d"
  sleep 30 3>&- &
  watched=$!
  "$ROOT/harness/sampler.sh" -o "$T/s.tsv" -t "$T/d" -i 0.1 -p "$watched" 3>&- &
  pid=$!
  wait_for_file "$T/s.tsv" 5
  kill "$watched"
  wait_for_exit "$pid" 5
}

# ---- safety and preflight ------------------------------------------------------

@test "phase-delete refuses a TARGET/data without the harness's mark (exit 2, no trial recorded)" {
  mkdir -p "$T/target/data/keep"
  echo precious >"$T/target/data/keep/file"
  run make -C "$ROOT" -s phase-delete TARGET="$T/target" ALLOW_NONMOUNT=1
  [ "$status" -eq 2 ]
  [[ $output == *"delete: $T/target/data has no .shootout-owned mark"* ]]
  [ "$(cat "$T/target/data/keep/file")" = precious ]
  # no trial, no failure: no run at all
  [ -z "$(find "$RESULTS" -mindepth 1 2>/dev/null)" ]
}

@test "a TARGET that is not a mount point is refused, and nothing is written there" {
  mkdir -p "$T/target"
  run make -C "$ROOT" -s phase-untar TARGET="$T/target" DATASET=tiny
  [ "$status" -ne 0 ]
  [[ $output == *"is not a mount point"*"ALLOW_NONMOUNT=1"* ]]
  [ -z "$(ls -A "$T/target")" ]
  run make -C "$ROOT" -s phase-untar DATASET=tiny
  [ "$status" -ne 0 ]
  [[ $output == *"TARGET is not set"* ]]
}

# nothing_written DIR... : none of the DIRs exists, and no folder named
# escaped* was made above T (the parent folders a ../ would reach) since the
# test began (setup's stamp).
nothing_written() {
  local d
  for d in "$@"; do [ ! -e "$d" ] || { echo "$d was written"; return 1; }; done
  [ -z "$(find "$T/.." "$T/../.." /tmp -maxdepth 2 -name 'escaped*' -newer "$T/.began" -print -quit 2>/dev/null)" ] ||
    { echo "an escaped* folder was made"; return 1; }
}

# A name that becomes a folder of the results or the datasets (HOST,
# VARIANT, RUN_ID, DATASET, SEED) is one path component: ../ is refused by
# every entry point, one line naming the setting, exit 2, nothing written.
# Before, HOST=../../../escaped-host wrote records, meta.json and logs into
# /tmp/escaped-host and exited 0; DATASET=../x read a profile outside
# datasets/ and left folders in DATASETS_OUT.
@test "HOST, VARIANT, RUN_ID, DATASET or SEED with ../ is refused (exit 2, one line naming it), nothing written outside RESULTS" {
  mkdir -p "$T/target"
  export TARGET=$T/target ALLOW_NONMOUNT=1 FLUSH=none DATASETS_OUT=$T/ds
  local s v
  for s in HOST=../../../escaped-host VARIANT=../../../../escaped-variant RUN_ID=../escaped-run \
    DATASET=../escaped-dataset DATASET=../../datasets/tiny SEED=../escaped-seed HOST=. VARIANT=..; do
    for p in phase-untar phase-discover; do
      run env "$s" "$ROOT/harness/$p.sh"
      one_refusal "$output" "$p.sh" "${s%%=*}=${s#*=}: want a"
      [ "$status" -eq 2 ]
    done
    run env "$s" "$ROOT/harness/shootout.sh"
    one_refusal "$output" shootout.sh "${s%%=*}=${s#*=}: want a"
    [ "$status" -eq 2 ]
    run env "$s" "$ROOT/harness/flush.sh" reboot
    one_refusal "$output" flush.sh "${s%%=*}=${s#*=}: want a"
    [ "$status" -eq 2 ]
    nothing_written "$RESULTS" "$T/ds"
    [ -z "$(ls -A "$T/target")" ]
  done
  # make passes them as they are, and the phase refuses
  run make -C "$ROOT" -s phase-untar HOST=../../../escaped-host
  one_refusal "$output" phase-untar.sh "HOST=../../../escaped-host: want a single name"
  nothing_written "$RESULTS" "$T/ds"
  # the last guard, for a run named in results/.current
  mkdir -p "$RESULTS"
  echo ../escaped-current >"$RESULTS/.current"
  run sh -c '. "$SHOOTOUT_ROOT/harness/lib.sh"; record untar 1 wall_s 1 s' lib
  [ "$status" -ne 0 ]
  [[ $output == *"is not a single name"* ]]
  nothing_written "$RESULTS/../escaped-current" "/records.tsv"
}

# A newline in a setting given to make used to reach the shell as a broken
# command line (/bin/bash: -c: unexpected EOF while looking for matching
# `''); now make refuses it naming the setting (exit 2), and a script
# refuses any control character in a setting from the environment.
@test "a newline in a setting: make refuses it naming the setting, the scripts too (exit 2, nothing written)" {
  mkdir -p "$T/target"
  run make -C "$ROOT" -s phase-untar TARGET="$T/target" ALLOW_NONMOUNT=1 "HOST=a
b"
  [ "$status" -eq 2 ]
  [[ $output == *"*** HOST: a newline in the value; a setting is one line.  Stop." ]]
  [[ $output != *"unexpected EOF"* ]]
  run env "FLUSH=drop
none" make -C "$ROOT" -s phase-discover TARGET="$T/target" ALLOW_NONMOUNT=1
  [ "$status" -eq 2 ]
  [[ $output == *"*** FLUSH: a newline in the value"* ]]
  # from the environment, make takes a value as it is: $(...) in it is not make's
  # shellcheck disable=SC2016 # a literal $(...), on purpose
  run env 'VARIANT=$(shell touch $(T)/made-by-make)' T="$T" make -C "$ROOT" -s phase-untar TARGET="$T/target" ALLOW_NONMOUNT=1
  [ "$status" -eq 2 ]
  [ ! -e "$T/made-by-make" ]
  # shellcheck disable=SC2016 # the same literal
  one_refusal "$output" phase-untar.sh 'VARIANT=$(shell touch $(T)/made-by-make): want a single name'
  run env TARGET="$T/target" ALLOW_NONMOUNT=1 "VARIANT=a	b" "$ROOT/harness/phase-untar.sh"
  [ "$status" -eq 2 ]
  [ "$output" = "phase-untar.sh: VARIANT holds a control character (a newline, a tab...): a setting is one line of text" ]
  nothing_written "$RESULTS"
  [ -z "$(ls -A "$T/target")" ]
}

# Booleans and choices are checked in one place (harness/settings.tsv's
# CHECK column, harness/common/settings.sh) before anything is written.
@test "booleans and choices are refused unless they are one of their values (exit 2, one line naming the setting)" {
  mkdir -p "$T/target"
  export TARGET=$T/target
  local s
  for s in "ALLOW_NONMOUNT=0';touch X;'" ALLOW_NONMOUNT=yes OFF_TARGET=2 IOZONE_FULL=true ICF_STRICT=0x \
    FLUSH=sideways PRELOAD=files DISCOVER_FLUSH=sync POSTMARK_BUFFERING=1 DISCOVER_TESTS="block;id" \
    REPLAY_FROM=-oProxyCommand=touch SERVE_HOST="a b" TRIALS=1x; do
    (cd "$T" && run env "$s" "$ROOT/harness/phase-untar.sh"
      one_refusal "$output" phase-untar.sh "${s%%=*}=${s#*=}: want "
      [ "$status" -eq 2 ])
  done
  [ ! -e "$T/X" ]
  [ ! -e "$ROOT/X" ]
  nothing_written "$RESULTS"
  [ -z "$(ls -A "$T/target")" ]
  # the values they allow pass (to the next refusal: not a mount point)
  run env ALLOW_NONMOUNT=0 OFF_TARGET=1 ICF_STRICT=1 FLUSH=none DISCOVER_TESTS="block cache" "$ROOT/harness/phase-untar.sh"
  [ "$status" -eq 2 ]
  [[ $output == *"is not a mount point"* ]]
  # a count of requests of 0 is no run (replay -n wants at least 1)
  (cd "$T" && run env NET_COUNT=0 "$ROOT/harness/phase-net.sh"
    one_refusal "$output" phase-net.sh "NET_COUNT=0: want at least 1 request"
    [ "$status" -eq 2 ])
  nothing_written "$RESULTS"
}

# guard_cleanup : remove what an unguarded phase left in a system directory:
# TARGET/micro with the phases' mark (the test skips when one was there
# before), a prime file; nothing else.
guard_cleanup() {
  local d
  for d in "" /etc /usr; do
    [ ! -e "$d/micro/.shootout-micro" ] || rm -rf -- "$d/micro"
    rm -f -- "$d"/.shootout-prime.*
  done
}

# one_refusal OUTPUT WHO WHAT : OUTPUT, without make's own "make: ***" line
# ("make[1]: ***" when the tests run under make), is one line "WHO: ...WHAT..."
one_refusal() {
  local lines
  lines=$(printf '%s\n' "$1" | grep -Ev '^make(\[[0-9]+\])?: \*\*\*')
  printf '%s\n' "$lines"
  [ "$(printf '%s\n' "$lines" | grep -c .)" -eq 1 ]
  [[ $lines == "$2: "*"$3"* ]]
}

@test "every phase, micro or not, refuses / and system directories, and writes nothing there" {
  for d in "" /etc /usr; do
    [ ! -e "$d/micro" ] || skip "$d/micro exists already: cannot tell what a phase would write there"
  done
  # Small sizes, so that even an unguarded phase could do no harm.
  small=(ICF="$ROOT/datasets/iometer/workstation.icf" ICF_RUNTIME=1 ICF_RAMP=0 IOMETER_SIZE=1m
    IOZONE_MIN=64k IOZONE_MAX=64k IOZONE_RECMIN=64k IOZONE_RECMAX=64k POSTMARK_CONFIGS=2/2
    DISCOVER_TESTS=block DISCOVER_ITERS=1 DISCOVER_FLUSH=none PRIME_GB=0.001)
  for p in iometer iozone postmark discover; do
    run timeout 120 make -C "$ROOT" -s --no-print-directory "phase-$p" TARGET=/ "${small[@]}"
    guard_cleanup
    [ "$status" -ne 0 ]
    one_refusal "$output" "phase-$p.sh" "TARGET=/ is the root filesystem"
    [ ! -e /micro ]
  done
  # ALLOW_NONMOUNT=1 does not open a system directory, nor one inside it.
  run timeout 120 make -C "$ROOT" -s --no-print-directory phase-postmark TARGET=/etc ALLOW_NONMOUNT=1 "${small[@]}"
  guard_cleanup
  [ "$status" -ne 0 ] && one_refusal "$output" phase-postmark.sh "TARGET=/etc is the system directory /etc"
  [ ! -e /etc/micro ]
  run timeout 120 make -C "$ROOT" -s --no-print-directory phase-iozone TARGET=/usr/share/.. ALLOW_NONMOUNT=1 "${small[@]}"
  guard_cleanup
  [ "$status" -ne 0 ] && one_refusal "$output" phase-iozone.sh "TARGET=/usr/share/.. is the system directory /usr"
  [ ! -e /usr/micro ]
  mkdir -p "$T/t"
  ln -s /etc "$T/t/etc-link"
  run timeout 60 make -C "$ROOT" -s phase-flush TARGET="$T/t/etc-link" ALLOW_NONMOUNT=1 FLUSH=prime PRIME_GB=0.001
  guard_cleanup
  [ "$status" -ne 0 ] && one_refusal "$output" flush "TARGET=$T/t/etc-link is the system directory /etc"
  run timeout 60 env TARGET=/ "$ROOT/harness/flush.sh" prime
  guard_cleanup
  [ "$status" -ne 0 ] && one_refusal "$output" flush.sh "TARGET=/ is the root filesystem"
  run timeout 60 env TARGET="$T/t" ALLOW_NONMOUNT=1 PRIME_DIR=/ PRIME_GB=0.001 "$ROOT/harness/flush.sh" prime
  guard_cleanup
  [ "$status" -ne 0 ] && one_refusal "$output" flush.sh "PRIME_DIR=/ is the root filesystem"
  [ -z "$(find / -maxdepth 1 -name '.shootout-prime.*')" ]
  run timeout 60 make -C "$ROOT" -s phase-untar TARGET=/ DATASET=tiny
  [ "$status" -ne 0 ] && one_refusal "$output" untar "TARGET=/ is the root filesystem"
  # shootout refuses before it makes a run.
  run timeout 60 make -C "$ROOT" -s shootout TARGET=/ DATASET=tiny
  [ "$status" -ne 0 ] && one_refusal "$output" shootout.sh "TARGET=/ is the root filesystem"
  [ ! -e "$RESULTS" ]
}

# fake_dataset NAME BYTES_PER_FILE : a 3-file dataset in $T/ds/NAME-1.
fake_dataset() {
  local d=$T/ds/$1-1
  mkdir -p "$d" "$ROOT/datasets"
  printf 'a/1.jpg\t%s\t00000000\na/2.jpg\t%s\t00000000\nb/3.jpg\t%s\t00000000\n' "$2" "$2" "$2" >"$d/manifest.tsv"
  printf '/a/1.jpg\n/b/3.jpg\n' >"$d/requests.txt"
  printf 'x' >"$d/layout.tar.gz"
  printf 'x' >"$d/update.tar.gz"
  export DATASETS_OUT=$T/ds
}

@test "preflight: too little space is one line saying what to do" {
  fake_dataset huge 1000000000000000
  mkdir -p "$T/target"
  run make -C "$ROOT" -s phase-untar TARGET="$T/target" ALLOW_NONMOUNT=1 DATASET=huge
  [ "$status" -ne 0 ]
  [[ $output == *"preflight: $T/target has "*" free but DATASET=huge needs about "*"use a bigger filesystem or a smaller DATASET"* ]]
  [ "$status" -eq 2 ]
  [ ! -e "$T/target/data/a" ]
  # a refusal, not a failed trial
  [ ! -e "$(the_run)/failures.tsv" ]
  [ -z "$(records_of "$(the_run)" untar status)" ]
}

@test "preflight: a busy port and a low open-file limit, one line each" {
  fake_dataset small3 100
  mkdir -p "$T/target/data"
  # both tarballs extracted, as far as the mark says (target_updated)
  printf 'x\nupdate.tar.gz extracted (phase untar2)\n' >"$T/target/data/.shootout-owned"
  : >"$T/target/data/x.jpg"
  port=$(free_port)
  python3 -c 'import socket,sys,time; s=socket.socket(); s.bind(("127.0.0.1",int(sys.argv[1]))); s.listen(); time.sleep(30)' "$port" 3>&- &
  busy=$!
  wait_for_port "$port"
  run bash -c 'ulimit -n 200 && make -C "$1" -s phase-serve TARGET="$2" ALLOW_NONMOUNT=1 DATASET=small3 FLUSH=none PORT="$3"' \
    sh "$ROOT" "$T/target" "$port"
  kill "$busy"
  [ "$status" -ne 0 ]
  [ "$(grep -c '^preflight: ' <<<"$output")" -eq 2 ]
  [[ $output == *"preflight: port $port is in use at 127.0.0.1: stop what listens there"* ]]
  [[ $output == *"preflight: the open-file limit is 200"*"lower REPLAY_CONC"* ]]
}

# ---- flush -----------------------------------------------------------------------

@test "flush: bad methods and dangerous places are refused with a reason" {
  mkdir -p "$T/target/data"
  export ALLOW_NONMOUNT=1
  run env TARGET="$T/target" "$ROOT/harness/flush.sh" sideways
  [ "$status" -ne 0 ]
  [[ $output == *"unknown flush method 'sideways'"* ]]
  run env TARGET="$T/target" PRIME_DIR="$T/target/data" PRIME_GB=0.001 "$ROOT/harness/flush.sh" prime
  [ "$status" -ne 0 ]
  [[ $output == *"inside TARGET/data"* ]]
  run env TARGET="$T/target" PRIME_GB=lots "$ROOT/harness/flush.sh" prime
  [ "$status" -eq 2 ]
  [ "$output" = "flush.sh: PRIME_GB=lots: want a number, such as 2 or 0.5" ]
  run env TARGET="$T/target" PRIME_GB=0.002 "$ROOT/harness/flush.sh" prime
  [ "$status" -eq 0 ]
  [ -z "$(find "$T/target" -name '.shootout-prime*')" ]
  if [ "$(id -u)" -eq 0 ]; then
    tmpfs_at 8m
    run env TARGET="$TMPFS" "$ROOT/harness/flush.sh" remount
    [ "$status" -ne 0 ]
    [[ $output == *"would throw the data away"* ]]
    mountpoint -q "$TMPFS"
  fi
}

@test "flush: reboot passes only when the boot id changed since the last phase" {
  export RUN_ID=r1
  d=$RESULTS/r1/testhost/v1
  mkdir -p "$d" "$T/target"
  printf 'untar2\t1\t%s\n' "$(cat /proc/sys/kernel/random/boot_id)" >"$d/boot_ids.tsv"
  run env TARGET="$T/target" ALLOW_NONMOUNT=1 "$ROOT/harness/flush.sh" reboot
  [ "$status" -ne 0 ]
  [[ $output == *"did not reboot"* ]]
  printf 'untar2\t1\t00000000-0000-0000-0000-000000000000\n' >>"$d/boot_ids.tsv"
  run make -C "$ROOT" -s phase-flush TARGET="$T/target" ALLOW_NONMOUNT=1 FLUSH=reboot RUN_ID=r1
  [ "$status" -eq 0 ]
  [ "$(records_of "$d" flush rebooted)" = 1 ]
  [ "$(tail -n 1 "$d/boot_ids.tsv" | cut -f 3)" = "$(cat /proc/sys/kernel/random/boot_id)" ]
}

# ---- end to end --------------------------------------------------------------

# have_ipv6 : this host can serve on ::1 (the adapter's check).
have_ipv6() {
  sh -c '. "$SHOOTOUT_ROOT/harness/os.sh"; os_has_ipv6' >/dev/null
}

# check_v6 RUNDIR PHASE : PHASE ran (status 0), or, where this host has no
# IPv6, was skipped with the reason.
check_v6() {
  if have_ipv6; then
    [ "$(records_of "$1" "$2" status)" = 0 ] || { echo "$2: no status 0"; false; }
  else
    [ "$(records_of "$1" "$2" status)" = skipped ]
    [[ $(records_of "$1" "$2" skip_reason) == "no IPv6: "* ]]
  fi
}

# check_shootout RUNDIR [SERVE-PHASES...] : every record of every phase, with
# sane values; the serve phases (default: of SERVE_PROCS "1 32") made
# WANT_REQUESTS requests each (default: the whole request list).
check_shootout() {
  local d=$1 ds=$ROOT/datasets/out/tiny-1 files p m v serves
  shift
  serves=("$@")
  [ ${#serves[@]} -gt 0 ] || serves=(serve-cold-1 serve-warm-1 serve-cold-32 serve-warm-32)
  files=$(grep -vc '^#' "$ds/manifest.tsv")
  jq -e . "$d/meta.json" >/dev/null
  [ ! -e "$d/failures.tsv" ] || { cat "$d/failures.tsv"; false; }
  for p in untar untar2 flush "${serves[@]}" net-1 net-4 delete; do
    [ "$(records_of "$d" "$p" status)" = 0 ] || { echo "$p: no status 0"; false; }
  done
  check_v6 "$d" net-1-v6
  check_v6 "$d" net-4-v6
  for p in untar untar2; do
    for m in files dirs bytes wall_s user_s sys_s mbps files_per_s sync_s; do
      v=$(records_of "$d" "$p" "$m")
      [ -n "$v" ] || { echo "$p: no $m"; false; }
    done
    [ "$(records_of "$d" "$p" files)" -gt 0 ]
    [ -s "$d/series/$p-1.tsv" ]
  done
  # The first tarball holds the layout; both together make the manifest's tree.
  [ "$(records_of "$d" untar files)" -le "$files" ]
  [ "$(records_of "$d" delete files)" -eq "$files" ]
  for p in "${serves[@]}"; do
    [ "$(records_of "$d" "$p" requests)" -eq "${WANT_REQUESTS:-$(grep -c . "$ds/requests.txt")}" ]
    [ "$(records_of "$d" "$p" failed)" -eq 0 ]
    awk -v v="$(records_of "$d" "$p" rps)" 'BEGIN { exit !(v > 0) }'
    [ -s "$d/series/$p-1.tsv" ]
  done
  for p in net-1 net-4; do
    [ "$(records_of "$d" "$p" requests)" -eq 500 ]
    [ "$(records_of "$d" "$p" failed)" -eq 0 ]
    awk -v v="$(records_of "$d" "$p" mbps)" 'BEGIN { exit !(v > 0) }'
  done
  for m in files dirs wall_s sync_s; do [ -n "$(records_of "$d" delete "$m")" ]; done
  # The time budget: every phase's part, the sync's apart (no tool in it),
  # the tools' user and sys, the host's CPUs.
  for p in untar untar2 flush "${serves[@]}" net-1 net-4 delete; do
    [ -n "$(records_of "$d" "$p" budget_wall_s)" ] || { echo "$p: no budget_wall_s"; false; }
    [ "$(records_of "$d" "$p" budget_cpus)" -gt 0 ] || { echo "$p: no budget_cpus"; false; }
    [ -n "$(records_of "$d" "$p" budget_kthreads_s)" ] || { echo "$p: no budget_kthreads_s"; false; }
  done
  for p in untar untar2 delete; do
    [ -n "$(records_of "$d" "$p" sync_budget_wall_s)" ] || { echo "$p: no sync_budget_wall_s"; false; }
    [ -z "$(awk -F '\t' -v p="$p" '$1 == p && $3 ~ /^sync_budget_(user|sys)_s_/' "$d/records.tsv")" ]
  done
  [ -n "$(records_of "$d" untar budget_user_s_dltar)" ]
  [ -n "$(records_of "$d" untar budget_sys_s_dltar)" ]
  [ -n "$(records_of "$d" delete budget_sys_s_rmtree)" ]
  [ -n "$(records_of "$d" serve-warm-1 budget_user_s_replay)" ]
}

# tiny_shootout TARGET FLUSH [VAR=VALUE...] : make shootout with the tiny
# dataset must pass check_shootout (of SERVES, when set); sets d to its run
# directory.
tiny_shootout() {
  local target=$1 flush=$2
  shift 2
  run make -C "$ROOT" -s shootout TARGET="$target" DATASET=tiny FLUSH="$flush" NET_COUNT=500 "$@"
  echo "$output"
  [ "$status" -eq 0 ]
  d=$(the_run)
  local serves
  read -r -d '' -a serves <<<"${SERVES:-}" || true
  check_shootout "$d" "${serves[@]}"
  check_lines "$d"
}

# check_lines DIR : what make shootout printed ($output, no terminal): a
# start and an end line for each phase, no raw float of seconds, the
# results-on-target warning once at most, and a last line saying where the
# results are and how to draw them.
check_lines() {
  local p run
  run=$(cat "$RESULTS/.current")
  for p in untar untar2 flush serve net delete; do
    [ "$(grep -c "^$p: start: run $run, trial 1$" <<<"$output")" -eq 1 ]
    [ "$(grep -c "^$p: done in [0-9]" <<<"$output")" -eq 1 ]
  done
  grep -qE '^untar: done in .*: [0-9]+ files, [0-9.]+ [kMG]?B in .* \+ sync .*, [0-9.]+ files/s$' <<<"$output"
  grep -qE '^serve: done in .*: cold-1 [0-9]+ req/s, warm-1 [0-9]+ req/s' <<<"$output"
  [ "$(grep -cE '[0-9]\.[0-9]{4,} ?s\b' <<<"$output")" -eq 0 ]
  [ "$(grep -c 'WARNING: RESULTS' <<<"$output")" -le 1 ]
  [ "${lines[-1]}" = "shootout: run $run done in ${lines[-1]#*done in }" ]
  [[ ${lines[-1]} == *": results in $1; draw them with make report RUN=$run RESULTS=$RESULTS" ]]
}

@test "make shootout DATASET=tiny on a loop-mounted ext4: every record of every phase" {
  require_tools
  require_cmd jq
  loop_ext4 256M
  tiny_shootout "$MNT" remount
  [ "$(jq -r .fs "$d/meta.json")" = ext4 ]
  [ "$(jq -r .device "$d/meta.json")" = "$LOOP" ]
  grep -q "$(printf '\tsectors_written\t')" "$d/series/untar-1.tsv"
  # the loop device's busy time and queue depth in the budget
  [ -n "$(records_of "$d" untar budget_device_busy_s)" ]
  [ -n "$(records_of "$d" untar sync_budget_device_queue)" ]
  mountpoint -q "$MNT"
  [ ! -e "$MNT/data" ]
}

@test "make shootout DATASET=tiny on tmpfs, twice: two run directories" {
  require_tools
  require_cmd jq
  tmpfs_at 256m
  # The first with the method's extras: 1500 of the 2000 requests, a second
  # concurrency, the directories preloaded before one more cold serve.
  SERVES="serve-cold-1 serve-warm-1 serve-cold-32 serve-warm-32 serve-cold-1-c20 serve-warm-1-c20
    serve-cold-32-c20 serve-warm-32-c20 serve-dirwarm-1" WANT_REQUESTS=1500 \
    tiny_shootout "$TMPFS" drop REPLAY_COUNT=1500 REPLAY_CONC="100 20" PRELOAD=dirs
  [ "$(jq -r .device "$d/meta.json")" = none ]
  # tmpfs: no device in the budget
  [ -z "$(awk -F '\t' '$3 ~ /budget_device/' "$d/records.tsv")" ]
  [ "$(jq -r .replay_count "$d/meta.json")" = 1500 ]
  [ "$(records_of "$d" serve-cold-32-c20 conc)" = 20 ]
  [ "$(records_of "$d" preload-dirs status)" = 0 ]
  [ "$(records_of "$d" preload-dirs dirs)" -gt "$(records_of "$d" untar dirs)" ]
  run make -C "$ROOT" -s shootout TARGET="$TMPFS" DATASET=tiny FLUSH=none SERVE_PROCS=1 NET_PROCS=1 NET_COUNT=100 TRIALS=2
  [ "$status" -eq 0 ]
  [ "$(find "$RESULTS" -mindepth 1 -maxdepth 1 -type d | wc -l)" -eq 2 ]
  [ "$(find "$RESULTS" -name records.tsv | wc -l)" -eq 2 ]
  [ -f "$d/meta.json" ]
  # The first run is untouched; the second has both cycles as trials 1 and 2.
  [ "$(records_of "$d" untar status)" = 0 ]
  d2=$RESULTS/$(cat "$RESULTS/.current")/$HOST/$VARIANT
  [ "$d2" != "$d" ]
  [ "$(records_of "$d2" delete status | tr '\n' ' ')" = "0 0 " ]
  [ "$(awk -F '\t' '$3 == "status" { print $2 }' "$d2/records.tsv" | sort -u | tr '\n' ' ')" = "1 2 " ]
}

@test "a repeated phase is a new trial and REPLAY_FROM runs the replay through ssh" {
  require_tools
  tmpfs_at 256m
  make -C "$ROOT" -s phase-untar TARGET="$TMPFS" DATASET=tiny
  make -C "$ROOT" -s phase-untar2 TARGET="$TMPFS" DATASET=tiny
  for _ in 1 2; do
    make -C "$ROOT" -s phase-serve TARGET="$TMPFS" DATASET=tiny FLUSH=none SERVE_PROCS=1 \
      REPLAY_FROM=client SSH="$ROOT/tests/fixtures/harness-ssh" SERVE_HOST=127.0.0.1 SERVE_BIND=127.0.0.1
  done
  d=$(the_run)
  [ "$(records_of "$d" serve-warm-1 status | tr '\n' ' ')" = "0 0 " ]
  [ "$(awk -F '\t' '$1 == "serve-cold-1" && $3 == "failed" { print $2 ":" $4 }' "$d/records.tsv" | tr '\n' ' ')" = "1:0 2:0 " ]
  [ -s "$d/series/serve-cold-1-2.tsv" ]
  make -C "$ROOT" -s phase-delete TARGET="$TMPFS"
  [ ! -e "$TMPFS/data" ]
}

@test "killing make while serve runs leaves no process and no mount behind" {
  solo # every httpd, replay and harness process of this checkout
  require_tools
  loop_ext4 256M
  make -C "$ROOT" -s phase-untar TARGET="$MNT" DATASET=tiny
  # A long request list so that the kill lands while replay runs.
  mkdir -p "$T/ds"
  cp -r "$ROOT/datasets/out/tiny-1" "$T/ds/long-1"
  for _ in $(seq 200); do cat "$ROOT/datasets/out/tiny-1/requests.txt"; done >"$T/ds/long-1/requests.txt"
  DATASETS_OUT=$T/ds setsid make -C "$ROOT" -s phase-serve TARGET="$MNT" DATASET=long FLUSH=remount \
    SERVE_PROCS=4 REPLAY_CONC=2 REPLAY_KEEPALIVE=1 REPLAY_COUNT=0 >"$T/out" 2>&1 3>&- &
  mk=$!
  d=$(the_run)
  wait_for_file "$d/series/serve-cold-4-1.tsv" 60
  poll_until 5 pgrep -f "$BIN/replay" >/dev/null
  kill -TERM -- "-$mk"
  wait_for_exit "$mk" 20
  POLL_STEP=0.1 poll_until 10 no_process "$BIN/(httpd|replay)|$ROOT/harness/" || true
  run pgrep -af "$BIN/(httpd|replay)|$ROOT/harness/"
  [ "$status" -ne 0 ] || { echo "left behind: $output"; false; }
  [ "$(findmnt -rn -M "$MNT" | wc -l)" -eq 1 ]
  [ "$(records_of "$d" serve-cold-4 status)" = 1 ]
  grep -q 'interrupted by SIGTERM' "$d/failures.tsv"
  make -C "$ROOT" -s phase-delete TARGET="$MNT"
}

@test "REPLAY_COUNT bounds every replay; a REPLAY_CONC list is a serve phase per value; preload-dirs times its walk, then serves" {
  require_tools
  mkdir -p "$T/target"
  export ALLOW_NONMOUNT=1
  make -C "$ROOT" -s phase-untar TARGET="$T/target" DATASET=tiny
  make -C "$ROOT" -s phase-untar2 TARGET="$T/target" DATASET=tiny
  make -C "$ROOT" -s phase-serve TARGET="$T/target" DATASET=tiny FLUSH=none SERVE_PROCS=1 \
    REPLAY_CONC="30 7" REPLAY_COUNT=300
  make -C "$ROOT" -s phase-preload TARGET="$T/target" DATASET=tiny FLUSH=none SERVE_PROCS="2 5" \
    REPLAY_CONC="30 7" REPLAY_COUNT=250
  d=$(the_run)
  [ ! -e "$d/failures.tsv" ] || { cat "$d/failures.tsv"; false; }
  for p in serve-cold-1 serve-warm-1 serve-cold-1-c7 serve-warm-1-c7; do
    [ "$(records_of "$d" "$p" status)" = 0 ] || { echo "$p: no status 0"; false; }
    [ "$(records_of "$d" "$p" requests)" -eq 300 ] || { echo "$p: not 300 requests"; false; }
    [ "$(records_of "$d" "$p" failed)" -eq 0 ]
    [ -n "$(records_of "$d" "$p" resets)" ]
    [ -n "$(records_of "$d" "$p" retries)" ]
  done
  [ "$(records_of "$d" serve-cold-1 conc)" = 30 ]
  [ "$(records_of "$d" serve-warm-1-c7 conc)" = 7 ]
  # No other serve record names than these four.
  [ "$(awk -F '\t' '$1 ~ /^serve-(cold|warm)/ { print $1 }' "$d/records.tsv" | sort -u | wc -l)" -eq 4 ]
  # The walk: timed, every directory of the tree; the serve after it, with
  # the first of SERVE_PROCS and of REPLAY_CONC.
  [ "$(records_of "$d" preload-dirs status)" = 0 ]
  awk -v v="$(records_of "$d" preload-dirs wall_s)" 'BEGIN { exit !(v > 0) }'
  [ "$(records_of "$d" preload-dirs dirs)" -eq "$(find "$T/target/data" -type d | wc -l)" ]
  [ "$(records_of "$d" serve-dirwarm-2 status)" = 0 ]
  [ "$(records_of "$d" serve-dirwarm-2 requests)" -eq 250 ]
  [ "$(records_of "$d" serve-dirwarm-2 conc)" = 30 ]
  [ -s "$d/series/preload-dirs-1.tsv" ]
  [ -s "$d/series/serve-dirwarm-2-1.tsv" ]
  # Bad values are one line each.
  export TARGET=$T/target DATASET=tiny FLUSH=none
  run env REPLAY_CONC="100 x" "$ROOT/harness/phase-serve.sh"
  [ "$status" -eq 2 ]
  [ "$output" = "phase-serve.sh: REPLAY_CONC=100 x: want whole numbers, separated by blanks" ]
  run env REPLAY_COUNT=lots "$ROOT/harness/phase-serve.sh"
  [ "$status" -eq 2 ]
  [ "$output" = "phase-serve.sh: REPLAY_COUNT=lots: want a whole number" ]
  run env PRELOAD=files "$ROOT/harness/shootout.sh"
  [ "$status" -eq 2 ]
  [ "$output" = "shootout.sh: PRELOAD=files: want one of: dirs" ]
}

@test "net: the IPv6 phases move their bytes over ::1; without IPv6 they are skipped with the reason" {
  require_tools
  mkdir -p "$T/target"
  export ALLOW_NONMOUNT=1
  if have_ipv6; then
    make -C "$ROOT" -s phase-net TARGET="$T/target" NET_PROCS="1 2" NET_COUNT=300 NET_SIZE=1000
    d=$(the_run)
    for p in net-1 net-1-v6 net-2 net-2-v6; do
      [ "$(records_of "$d" "$p" status)" = 0 ] || { echo "$p: no status 0"; false; }
      [ "$(records_of "$d" "$p" requests)" -eq 300 ]
      [ "$(records_of "$d" "$p" bytes)" -eq 300000 ]
      [ "$(records_of "$d" "$p" failed)" -eq 0 ]
    done
    # each record name and trial has its log
    grep -q 'replay .* \[::1\]:[0-9]*$' "$d/logs/net-1-v6-1.log"
  fi
  # A host without IPv6: a network namespace with it switched off.
  require_root
  require_cmd unshare ip sysctl
  unshare -n true 2>/dev/null || skip "cannot make a network namespace here"
  rm -rf "$RESULTS"
  # shellcheck disable=SC2016 # the inner shell expands $1 and $2
  run unshare -n sh -c 'ip link set lo up && sysctl -qw net.ipv6.conf.all.disable_ipv6=1 &&
    make -C "$1" -s phase-net TARGET="$2" NET_PROCS=1 NET_COUNT=100 NET_SIZE=1000' sh "$ROOT" "$T/target"
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output == *"net-1-v6: skipped, no IPv6: IPv6 is disabled (net.ipv6.conf.all.disable_ipv6=1)"* ]]
  d=$(the_run)
  [ "$(records_of "$d" net-1 status)" = 0 ]
  [ "$(records_of "$d" net-1 bytes)" -eq 100000 ]
  [ "$(records_of "$d" net-1-v6 status)" = skipped ]
  [ "$(records_of "$d" net-1-v6 skip_reason)" = "no IPv6: IPv6 is disabled (net.ipv6.conf.all.disable_ipv6=1)" ]
  [ -z "$(records_of "$d" net-1-v6 requests)" ]
  [ ! -e "$d/failures.tsv" ]
}

@test "net: the replay client and the server run on CPUs of their own (CLIENT_CPUS); a bad list is refused before anything is written" {
  require_tools
  require_cmd taskset
  [ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ] || skip "needs 2 CPUs online"
  mkdir -p "$T/target" "$T/stub"
  export ALLOW_NONMOUNT=1
  # a taskset that notes what it binds, then binds it
  printf '#!/bin/sh\necho "$*" >>%s\nexec %s "$@"\n' "$T/bound" "$(command -v taskset)" >"$T/stub/taskset"
  chmod +x "$T/stub/taskset"
  local last
  last=$(tr ',' '\n' </sys/devices/system/cpu/online | tail -n 1)
  last=${last##*-}
  PATH=$T/stub:$PATH make -C "$ROOT" -s phase-net TARGET="$T/target" NET_PROCS=1 NET_COUNT=200 NET_SIZE=1000 MIN_MEASURE_S=0 CLIENT_CPUS=auto
  d=$(the_run)
  [ "$(records_of "$d" net-1 failed)" -eq 0 ]
  # auto: the client on the last CPU, httpd on the others, on every trial
  grep -q "^-c $last .*/replay " "$T/bound"
  grep -q "^-c [0-9,]* .*/httpd -q -N 1 " "$T/bound"
  if grep -q "^-c $last .*/httpd" "$T/bound"; then false; fi
  [ "$(jq -r .client_cpus "$d/meta.json")" = "$last" ]
  [ -n "$(jq -r .server_cpus "$d/meta.json")" ]
  # none (the default): nothing bound, and meta.json says so
  rm -rf "$RESULTS" "$T/bound"
  PATH=$T/stub:$PATH make -C "$ROOT" -s phase-net TARGET="$T/target" NET_PROCS=1 NET_COUNT=100 NET_SIZE=1000 MIN_MEASURE_S=0
  [ ! -e "$T/bound" ]
  [ "$(jq -r .client_cpus "$(the_run)/meta.json")" = "" ]
  # refused in one line, exit 2, no trial
  rm -rf "$RESULTS"
  local s
  for s in "CLIENT_CPUS=4096|CPU 4096 is not online" "CLIENT_CPUS=0-$last|leaves the server no CPU" "CLIENT_CPUS=1-0|is not a range from low to high" \
    "CLIENT_CPUS=x|want auto, none or a list of CPUs"; do
    (cd "$T" && run env "${s%%|*}" "$ROOT/harness/phase-net.sh"
      one_refusal "$output" phase-net.sh "${s%%|*}: "
      [[ $output == *"${s#*|}"* ]]
      [ "$status" -eq 2 ])
  done
  nothing_written "$RESULTS"
}

# resident FILE... : pages of the files in the page cache, summed.
resident() {
  fincore -nb -o PAGES "$@" | awk '{ s += $1 } END { print s + 0 }'
}

@test "FLUSH=drop and FLUSH=remount empty the page cache of the dataset" {
  solo # pages read in must stay until flushed: no other drop_caches meanwhile
  require_tools
  require_cmd fincore
  loop_ext4 256M
  make -C "$ROOT" -s phase-untar TARGET="$MNT" DATASET=tiny
  mapfile -t sample < <(find "$MNT/data" -type f -name '[!.]*' | head -n 50)
  [ "${#sample[@]}" -gt 0 ]
  for method in drop remount; do
    cat "${sample[@]}" >/dev/null
    [ "$(resident "${sample[@]}")" -gt 0 ]
    make -C "$ROOT" -s phase-flush TARGET="$MNT" FLUSH="$method"
    [ "$(resident "${sample[@]}")" -eq 0 ] || { echo "$method left $(resident "${sample[@]}") pages"; false; }
  done
  mountpoint -q "$MNT"
  [ "$(records_of "$(the_run)" flush status | tr '\n' ' ')" = "0 0 " ]
  make -C "$ROOT" -s phase-delete TARGET="$MNT"
}

# ---- valid by construction -------------------------------------------------------

# The method's own line used to exit 0 with 120 of 2000 requests failed in
# every serve phase (the request list names files of the update tarball,
# which it never extracted), each serve recorded status 0.  Now serve runs
# untar2 first, as its own phase; and a replay with failed requests fails
# its phase, which the report calls not a valid figure.
@test "make phase-untar phase-serve phase-delete (loop-mounted ext4): both tarballs, 0 failed requests; a failed request fails serve and the report says not a valid figure" {
  require_tools
  require_cmd gnuplot python3
  loop_ext4 256M
  run make -C "$ROOT" -s phase-untar phase-serve phase-delete TARGET="$MNT" DATASET=tiny FLUSH=none SERVE_MODES="1 32"
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output == *"phase-serve: $MNT/data holds the first tarball only (the request list names files of the update tarball): running phase-untar2 first"* ]]
  d=$(the_run)
  # both tarballs, in the method's order, each timed and recorded on its own
  [ "$(awk -F '\t' '$3 == "status" { printf "%s:%s ", $1, $4 }' "$d/records.tsv")" = \
    "untar:0 untar2:0 serve-cold-1:0 serve-warm-1:0 serve-cold-32:0 serve-warm-32:0 delete:0 " ]
  [ "$(records_of "$d" untar2 files)" -gt 0 ]
  [ -n "$(records_of "$d" untar2 wall_s)" ]
  [ "$(awk -F '\t' '$3 == "failed" { print $4 }' "$d/records.tsv" | sort -u)" = 0 ]
  [ "$(records_of "$d" serve-cold-1 requests)" = 2000 ]
  [ ! -e "$d/failures.tsv" ]
  [ ! -e "$MNT/data" ]

  # A file of the request list missing from TARGET: serve fails, the
  # counts of each kind of failure in failures.tsv, the figures recorded.
  make -C "$ROOT" -s phase-untar phase-untar2 TARGET="$MNT" DATASET=tiny
  gone=$(head -n 1 "$ROOT/datasets/out/tiny-1/requests.txt")
  rm "$MNT/data$gone"
  n=$(grep -cxF "$gone" "$ROOT/datasets/out/tiny-1/requests.txt")
  run make -C "$ROOT" -s phase-serve TARGET="$MNT" DATASET=tiny FLUSH=none SERVE_MODES=1
  echo "$output"
  [ "$status" -ne 0 ]
  [[ $output == *"serve-cold-1: $n of 2000 requests failed (failed_status $n), more than REPLAY_MAX_FAILED=0: not a valid figure; first: GET $gone: bad status: 404"* ]]
  [ "$(records_of "$d" serve-cold-1 status | tr '\n' ' ')" = "0 1 " ]
  [ "$(records_of "$d" serve-cold-1 failed | tr '\n' ' ')" = "0 $n " ]
  grep -q "$(printf '^serve-cold-1\t2\t.*\t%s of 2000 requests failed (failed_status %s)' "$n" "$n")" "$d/failures.tsv"
  # allowed, the same replay is a figure, its allowance recorded
  run make -C "$ROOT" -s phase-serve TARGET="$MNT" DATASET=tiny FLUSH=none SERVE_MODES=1 REPLAY_MAX_FAILED="$n"
  [ "$status" -eq 0 ]
  [[ $output == *"serve-cold-1: warning: $n of 2000 requests failed, allowed by REPLAY_MAX_FAILED=$n (see $d/logs/serve-cold-1-3.log)"* ]]
  # each mode's warning names its own log, which holds its commands
  [[ $output == *"serve-warm-1: warning: $n of 2000 requests failed, allowed by REPLAY_MAX_FAILED=$n (see $d/logs/serve-warm-1-3.log)"* ]]
  grep -q '^\$ .*replay' "$d/logs/serve-warm-1-3.log"
  [ "$(records_of "$d" serve-warm-1 failed_allowed)" = "$n" ]
  make -C "$ROOT" -s phase-delete TARGET="$MNT"

  # The report: trial 2 is not a valid figure, left out of the figures (the
  # table counts 2 trials of serve-cold-1: 1, and 3 with its allowance).
  run make --no-print-directory report RESULTS="$RESULTS" RUN="$(basename "$(dirname "$(dirname "$d")")")" OUT="$T/out"
  echo "$output"
  [ "$status" -eq 0 ]
  grep -q "^- \*\*$HOST / $VARIANT\*\*: serve-cold-1 trial 2: not a valid figure ($n failed requests), left out of the figures and charts$" "$T/out/summary.md"
  grep -q "^| $HOST / $VARIANT | serve-cold-1 | 2 | .* | 1 failed; not a valid figure: trial 2 |$" "$T/out/summary.md"
  grep -q '<td class="fail">1 failed; not a valid figure: trial 2</td>' "$T/out/index.html"
  grep -c 'No variant failed' "$T/out/index.html" | grep -qx 0
}

# A user's mistake is not a failed trial: each check that refuses a phase
# before anything is measured prints its line, exits 2 and appends nothing
# to records.tsv or failures.tsv.
@test "refusals (DATASET=tinny, FLUSH=dorp, a busy port, read-only TARGET, untar on existing data) exit 2 and leave records.tsv and failures.tsv as they were" {
  require_tools
  tmpfs_at 256m
  make -C "$ROOT" -s phase-untar phase-untar2 TARGET="$TMPFS" DATASET=tiny
  d=$(the_run)
  sum=$(cksum <"$d/records.tsv")
  [ ! -e "$d/failures.tsv" ]
  port=$(free_port)
  python3 -c 'import socket,sys,time; s=socket.socket(); s.bind(("127.0.0.1",int(sys.argv[1]))); s.listen(); time.sleep(30)' "$port" 3>&- &
  busy=$!
  wait_for_port "$port"
  # refused WANT MAKE-ARGS... : make exits 2 with WANT in its output, records untouched
  refused() {
    local want=$1
    shift
    run make -C "$ROOT" -s "$@"
    echo "$output"
    [ "$status" -eq 2 ] && [[ $output == *"$want"* ]] &&
      [ "$(cksum <"$d/records.tsv")" = "$sum" ]
      [ ! -e "$d/failures.tsv" ]
  }
  refused "serve-cold-1: unknown DATASET=tinny: use one of " phase-serve TARGET="$TMPFS" DATASET=tinny FLUSH=none
  refused "phase-serve.sh: FLUSH=dorp: want one of: drop, remount" phase-serve TARGET="$TMPFS" DATASET=tiny FLUSH=dorp
  refused "preflight: port $port is in use" phase-serve TARGET="$TMPFS" DATASET=tiny FLUSH=none PORT="$port"
  kill "$busy"
  refused "untar: $TMPFS/data holds an earlier extraction: run make phase-delete TARGET=$TMPFS first" \
    phase-untar TARGET="$TMPFS" DATASET=tiny
  refused "phase-serve.sh: unknown setting REPLAY_CONUT (did you mean REPLAY_COUNT?)" \
    phase-serve TARGET="$TMPFS" DATASET=tiny REPLAY_CONUT=5
  mount -o remount,ro "$TMPFS"
  refused "preflight: $TMPFS cannot be written (a read-only mount?)" phase-delete TARGET="$TMPFS" DATASET=tiny
  refused "preflight: $TMPFS cannot be written (a read-only mount?)" phase-untar2 TARGET="$TMPFS" DATASET=tiny
  mount -o remount,rw "$TMPFS"
  make -C "$ROOT" -s phase-delete TARGET="$TMPFS" DATASET=tiny
  [ "$(records_of "$d" delete status)" = 0 ]
  sum=$(cksum <"$d/records.tsv")
  refused "untar2: $TMPFS/data holds no extraction of the harness: run make phase-untar first" \
    phase-untar2 TARGET="$TMPFS" DATASET=tiny
}

# A refused phase leaves no run behind: no run directory, meta.json, log or
# results/.current where there was none, and no log in a run that exists.
@test "a refused phase makes no run: no directory, meta.json, log or .current is left" {
  require_tools
  tmpfs_at 64m
  run make -C "$ROOT" -s phase-serve TARGET="$TMPFS" DATASET=tinny FLUSH=none
  echo "$output"
  [ "$status" -eq 2 ]
  [[ $output == *"unknown DATASET=tinny"* ]]
  [ -z "$(find "$RESULTS" -mindepth 1 2>/dev/null)" ]
  mkdir -p "$RESULTS/r1/$HOST/$VARIANT/logs"
  run make -C "$ROOT" -s phase-serve TARGET="$TMPFS" DATASET=tiny FLUSH=none RUN_ID=r1
  [ "$status" -eq 2 ]
  [[ $output == *"holds no extraction of the harness"* ]]
  [ -z "$(find "$RESULTS/r1/$HOST/$VARIANT/logs" -mindepth 1)" ]
  [ ! -e "$RESULTS/r1/$HOST/$VARIANT/meta.json" ]
  [ ! -e "$RESULTS/.current" ]
}
