#!/usr/bin/env bats
# shellcheck disable=SC2154 # bats sets $stderr (run --separate-stderr)
# The micro-benchmark phases in the frame of every phase (harness/common.sh):
# run by make shootout PHASES=..., recording status, meta.json and
# failures; the TARGET guard; FLUSH=drop without root; interruption;
# IOzone -e timing in microseconds; IOzone itself and its emulation, marked
# apart.  Everything on a small tmpfs.
load helpers
bats_require_minimum_version 1.5.0

setup() {
  require_root
  require_cmd fio postmark
  T=$BATS_TEST_TMPDIR
  export RESULTS=$T/results HOST=testhost VARIANT=tmpfs SHOOTOUT_ROOT=$ROOT HARNESS_BIN=$BIN
  unset RUN_ID TARGET DATASET SEED SOURCE FLUSH TRIALS PORT TRIAL PHASES
  TMPFS=$T/tmpfs
  mkdir -p "$TMPFS"
  mount -t tmpfs -o size=96m tmpfs "$TMPFS"
  # Workstation at 1 and 2 outstanding I/Os.
  sed 's/^\t1          32         2          EXPONENTIAL/\t1          2          2          EXPONENTIAL/' \
    "$ROOT/datasets/iometer/workstation.icf" >"$T/workstation.icf"
}

teardown() {
  [ -z "${NR:-}" ] || rm -rf "$NR"
  [ -z "${BG:-}" ] || { kill -TERM "$BG" 2>/dev/null; wait_for_exit "$BG" 20 || true; }
  umount "$TMPFS" 2>/dev/null || umount -l "$TMPFS" 2>/dev/null || true
}

# rec DIR PHASE METRIC : the values of PHASE METRIC in DIR/records.tsv.
rec() {
  awk -F '\t' -v p="$2" -v m="$3" '$1 == p && $3 == m { print $4 }' "$1/records.tsv"
}

# interrupt_when FILE SECONDS : once FILE is there, SIGTERM to the phase
# started as $BG, which must end within SECONDS with the status of SIGTERM.
interrupt_when() {
  local rc=0
  wait_for_file "$1" 20
  kill -TERM "$BG"
  wait_for_exit "$BG" "$2"
  wait "$BG" || rc=$?
  BG=''
  [ "$rc" -eq 143 ]
}

the_run() {
  printf '%s/%s/%s/%s\n' "$RESULTS" "$(cat "$RESULTS/.current")" "$HOST" "$VARIANT"
}

@test "make shootout PHASES=\"iometer iozone postmark discover\" on tmpfs: status, meta.json and the records of each" {
  [ -x "$BIN/fsdisco" ] || skip "no $BIN/fsdisco"
  # FLUSH=none: dropping the caches of this host takes seconds a time.
  run make -C "$ROOT" -s shootout TARGET="$TMPFS" FLUSH=none PHASES="iometer iozone postmark discover" \
    ICF="$T/workstation.icf" ICF_RUNTIME=1 ICF_RAMP=0 IOMETER_SIZE=8m IOZONE_MIN=64k IOZONE_MAX=64k \
    IOZONE_RECMIN=64k IOZONE_RECMAX=64k \
    POSTMARK_CONFIGS=100/200 DISCOVER_TESTS=block DISCOVER_ITERS=2
  echo "$output"
  [ "$status" -eq 0 ]
  d=$(the_run)
  for p in iometer iozone postmark discover; do
    [ "$(rec "$d" "$p" status)" = 0 ] || { echo "no status 0 of $p"; return 1; }
    [ "$(rec "$d" "$p" flush_method)" = none ]
    [ -s "$d/logs/$p-1.log" ]
  done
  [ "$(jq -r .fs "$d/meta.json")" = tmpfs ]
  [ ! -e "$d/failures.tsv" ]
  [ "$(rec "$d" iometer workstation.qd2.iops | awk '{ print ($1 > 0) }')" = 1 ]
  # Iometer's CPU utilisation of each test, a percentage.
  awk -F '\t' '$3 == "workstation.qd1.cpu_pct" { f = 1; exit !($4 >= 0 && $4 <= 100 && $5 == "%") } END { exit !f }' \
    "$d/records.tsv"
  [ "$(rec "$d" iozone cells)" = 1 ]
  [ -n "$(rec "$d" postmark n100.t200.tps)" ]
  [ -n "$(rec "$d" discover block_B)" ]
  [ ! -e "$TMPFS/micro" ]
}

@test "a micro phase that fails is recorded like every phase (status 1, error, failures.tsv), shootout stops; TARGET=/ is refused" {
  run make -C "$ROOT" -s shootout TARGET="$TMPFS" FLUSH=none PHASES="postmark iozone" POSTMARK_CONFIGS=1/1
  [ "$status" -ne 0 ]
  [[ $output == *"phase postmark failed"* ]]
  d=$(the_run)
  [ "$(rec "$d" postmark status)" = 1 ]
  [[ $(rec "$d" postmark error) == *"POSTMARK_CONFIGS: want FILES/TRANSACTIONS above 1, got 1/1"* ]]
  grep -q "^postmark	1	.*	POSTMARK_CONFIGS" "$d/failures.tsv"
  [ -z "$(rec "$d" iozone status)" ]
  run make -C "$ROOT" -s shootout TARGET="$TMPFS" PHASES="untar iozone sideways"
  [ "$status" -ne 0 ]
  [[ $output == *"PHASES: no phase 'sideways' (want names of harness/phase-*.sh: "*"iometer"*"iozone"* ]]
  # TARGET=/ and a system directory: refused by every micro phase before
  # anything is written.
  for p in iometer iozone postmark discover; do
    run env TARGET=/ "$ROOT/harness/phase-$p.sh"
    [ "$status" -ne 0 ] && [[ $output == *"TARGET=/ is the root filesystem"* ]] || { echo "$p: $output"; return 1; }
    run env TARGET=/etc ALLOW_NONMOUNT=1 "$ROOT/harness/phase-$p.sh"
    [ "$status" -ne 0 ] && [[ $output == *"is the system directory /etc"* ]] || { echo "$p: $output"; return 1; }
  done
  [ ! -e /micro ]
  [ ! -e /etc/micro ]
}

@test "without root FLUSH=drop is said and the phase goes on with FLUSH=none recorded" {
  require_cmd setpriv
  # Somewhere the user nobody can reach (the bats directories are private).
  NR=$(mktemp -d /tmp/micro-nonroot.XXXXXX)
  chmod 755 "$NR"
  mkdir -m 777 "$NR/results" "$NR/target"
  run setpriv --reuid=65534 --regid=65534 --clear-groups env TARGET="$NR/target" ALLOW_NONMOUNT=1 FLUSH=drop \
    RUN_ID=nr RESULTS="$NR/results" POSTMARK_CONFIGS=50/100 "$ROOT/harness/phase-postmark.sh"
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output == *"postmark: FLUSH=drop needs root: going on with FLUSH=none"* ]]
  d=$NR/results/nr/$HOST/$VARIANT
  [ "$(rec "$d" postmark flush_method)" = none ]
  [ "$(rec "$d" postmark flush_asked)" = drop ]
  [ "$(rec "$d" postmark status)" = 0 ]
  [ -z "$(ls -A "$NR/target")" ]
}

@test "an interrupted micro phase records the signal and removes its scratch directory" {
  mkdir -p "$RESULTS"
  TARGET="$TMPFS" FLUSH=none RUN_ID=int ICF="$T/workstation.icf" ICF_RUNTIME=20 ICF_RAMP=0 IOMETER_SIZE=8m \
    "$ROOT/harness/phase-iometer.sh" 3>&- 2>"$T/err" &
  BG=$!
  interrupt_when "$RESULTS/int/$HOST/$VARIANT/raw/iometer-1/workstation/01-workstation.qd1.fio" 20
  d=$RESULTS/int/$HOST/$VARIANT
  grep -q "^iometer	1	.*	interrupted by SIGTERM$" "$d/failures.tsv"
  [ "$(rec "$d" iometer status)" = 1 ]
  [ ! -e "$TMPFS/micro" ]
  run pgrep -f -- "$d/raw"
  [ "$status" -eq 1 ]
}

@test "IOzone itself, interrupted in its throughput test: stopped at once with its children, the signal recorded" {
  require_cmd iozone
  mkdir -p "$RESULTS"
  # iozone -t pauses some seconds between its tests: thirteen of them last a minute
  TARGET="$TMPFS" FLUSH=none RUN_ID=intz IOZONE_MIN=64k IOZONE_MAX=64k IOZONE_RECMIN=64k IOZONE_THREADS=2 \
    "$ROOT/harness/phase-iozone.sh" 3>&- 2>"$T/err" &
  BG=$!
  interrupt_when "$RESULTS/intz/$HOST/$VARIANT/raw/iozone-1/tput.out" 15
  d=$RESULTS/intz/$HOST/$VARIANT
  grep -q "^iozone	1	.*	interrupted by SIGTERM$" "$d/failures.tsv"
  run pgrep -f -- "$TMPFS/micro/iozone"
  [ "$status" -eq 1 ]
  [ ! -e "$TMPFS/micro" ]
}

@test "a tool that signals its whole process group when stopped (IOzone -t) reaches only itself: the script that started the phase lives on and sees it end" {
  require_cmd iozone setsid
  mkdir -p "$RESULTS" "$T/bin"
  # IOzone's SIGTERM handler signals each child's slot, and until the
  # children of its first test are forked a slot holds pid 0: its whole
  # process group.  Its window is a millisecond or so; this stand-in for
  # iozone -t stays in it (the sweep before it is IOzone's own).
  cat >"$T/bin/iozone" <<EOF
#!/usr/bin/env bash
case " \$* " in *" -t "*) ;; *) exec $(command -v iozone) "\$@" ;; esac
trap 'trap "" TERM; kill -TERM 0; exit 143' TERM
exec -a "$T/stand-in-child" sleep 120 &
echo '	Iozone: Performance Test of File I/O'
wait
EOF
  chmod +x "$T/bin/iozone"
  # A script with no job control starts the phase in its own process group
  # (its own session here, so that bats is not in it) and stops it.
  # shellcheck disable=SC2016 # the script expands them
  run setsid -w env PATH="$T/bin:$PATH" TARGET="$TMPFS" FLUSH=none RUN_ID=grp IOZONE_MIN=64k IOZONE_MAX=64k \
    IOZONE_RECMIN=64k IOZONE_THREADS=2 bash -c '
      . "$ROOT/harness/poll.sh"
      "$ROOT/harness/phase-iozone.sh" 3>&- >"$1/out" 2>"$1/err" &
      phase=$!
      poll_until 60 test -s "$2" || { echo "no $2"; exit 3; }
      kill -TERM "$phase"
      rc=0
      wait "$phase" || rc=$?
      echo "the phase exited $rc"' script "$T" "$RESULTS/grp/$HOST/$VARIANT/raw/iozone-1/tput.out"
  [ "$status" -eq 0 ] || { echo "the script exited $status: $output"; cat "$T/err"; false; }
  [ "$output" = "the phase exited 143" ]
  d=$RESULTS/grp/$HOST/$VARIANT
  grep -q "^iozone	1	.*	interrupted by SIGTERM$" "$d/failures.tsv"
  # the stand-in and its child (the phase waited for them)
  run pgrep -f -- "$TMPFS/micro/iozone|$T/stand-in-child"
  [ "$status" -eq 1 ]
  [ ! -e "$TMPFS/micro" ]
}

@test "IOzone -e (emulated): a 64 KB write on tmpfs is timed in microseconds with its fsync, not floored at size / 1 ms" {
  run env TARGET="$TMPFS" FLUSH=none RUN_ID=e IOZONE_ENGINE=emulated IOZONE_MIN=64k IOZONE_MAX=64k IOZONE_RECMIN=64k \
    IOZONE_FLUSH=1 "$ROOT/harness/phase-iozone.sh"
  [ "$status" -eq 0 ]
  d=$RESULTS/e/$HOST/$VARIANT
  for t in write rewrite randwrite recrewrite fwrite frewrite; do
    v=$(rec "$d" iozone "$t.fs64k.rs64k.kBps")
    # 64 kB in 1 ms is 64000 kB/s; tmpfs writes 64 kB in well under that.
    awk -v v="$v" 'BEGIN { exit !(v > 64000 * 1.5) }' || { echo "$t: $v kB/s"; return 1; }
  done
  [ "$(rec "$d" iozone flush)" = 1 ]
  # IOzone's -R report beside the raw figures.
  csv=$d/raw/iozone-1/report.csv
  grep -qx '"Writer report"' "$csv"
  grep -qx ',"64"' "$csv"
  grep -q '^"64",[0-9]' "$csv"
  [ "$(grep -c 'report"$' "$csv")" -eq 13 ] # the nine of fio and the four stdio tests
}

@test "spec options: PostMark's bias and block sizes, IOzone's -t children, fsdisco's priming sweep" {
  [ -x "$BIN/fsdisco" ] || skip "no $BIN/fsdisco"
  # set bias read 10: reads only, no appends.
  run env TARGET="$TMPFS" FLUSH=none RUN_ID=spec POSTMARK_CONFIGS=100/300 POSTMARK_BIAS_READ=10 \
    POSTMARK_BIAS_CREATE=-1 POSTMARK_READ=1024 POSTMARK_WRITE=2048 "$ROOT/harness/phase-postmark.sh"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  d=$RESULTS/spec/$HOST/$VARIANT
  grep -qx 'set bias read 10' "$d/raw/postmark-1/n100.t300.p1.cfg"
  grep -qx 'set bias create -1' "$d/raw/postmark-1/n100.t300.p1.cfg"
  grep -qx 'set read 1024' "$d/raw/postmark-1/n100.t300.p1.cfg" && grep -qx 'set write 2048' "$d/raw/postmark-1/n100.t300.p1.cfg"
  [ "$(rec "$d" postmark n100.t300.appended)" = 0 ]
  [ "$(rec "$d" postmark n100.t300.read)" -gt 0 ]
  [ "$(rec "$d" postmark n100.t300.created_mixed)" = 0 ]
  [ "$(rec "$d" postmark write_block_B)" = 2048 ]
  # iozone -t 2 (emulated): two children on files of their own, rates summed.
  run env TARGET="$TMPFS" FLUSH=none RUN_ID=spec IOZONE_ENGINE=emulated IOZONE_MIN=64k IOZONE_MAX=64k IOZONE_RECMIN=64k \
    IOZONE_THREADS=2 IOZONE_TPUT_SIZE=256k IOZONE_TPUT_REC=16k "$ROOT/harness/phase-iozone.sh"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  for t in write rewrite read reread randread randwrite fwrite frewrite fread freread; do
    awk -F '\t' -v m="$t.t2.fs256k.rs16k.kBps" '$3 == m && $4 > 0 { f = 1 } END { exit !f }' "$d/records.tsv" ||
      { echo "no $t.t2"; return 1; }
  done
  [ "$(rec "$d" iozone threads)" = 2 ]
  [ "$(jq '[.jobs[] | select(.jobname == "write")] | length' "$d/raw/iozone-1/t2.fs256k.rs16k.tput.json")" = 2 ]
  [ -z "$(ls "$TMPFS/micro/iozone" 2>/dev/null)" ] # the children's files are gone
  # fsdisco's read-ahead after a 512 KB and a 1 MB priming read.
  run env TARGET="$TMPFS" FLUSH=none RUN_ID=spec DISCOVER_TESTS=readahead DISCOVER_ITERS=1 DISCOVER_PRIME="512k 1m" \
    "$ROOT/harness/phase-discover.sh"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ -n "$(rec "$d" discover prime512k.readahead_kB)" ]
  [ -n "$(rec "$d" discover prime1024k.readahead_kB)" ]
  [ "$(rec "$d" discover discover_flush)" = fadvise ]
  [ ! -e "$TMPFS/micro" ]
}

@test "phase-iozone with IOzone itself: its output kept, parsed into records, marked as the real tool" {
  require_cmd iozone
  local r=$RESULTS/real/$HOST/$VARIANT
  run env TARGET="$TMPFS" FLUSH=none RUN_ID=real IOZONE_MIN=64k IOZONE_MAX=128k IOZONE_RECMIN=32k \
    IOZONE_RECMAX=64k IOZONE_THREADS=2 IOZONE_TESTS=write,rewrite,read,pread "$ROOT/harness/phase-iozone.sh"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ "$(rec "$r" iozone engine)" = iozone ]
  [ "$(rec "$r" iozone emulated)" = 0 ]
  [ "$(rec "$r" iozone iozone_version)" = "$(iozone -v | awk '/Revision:/ { print $3 }')" ]
  [ "$(rec "$r" iozone cells)" = 4 ]
  local d=$r/raw/iozone-1
  # IOzone's own report, as it wrote it, beside what we made of it
  grep -q '^	Command line used: iozone -a -n 64k -g 128k -y 32k -q 64k ' "$d/iozone.out"
  grep -qx '"Reader report"' "$d/iozone.out"
  [ -s "$d/iozone.xls" ] && [ -s "$d/tput.xls" ]
  [ "$(rec "$r" iozone read.fs128k.rs64k.kBps)" = "$(awk '/^"Reader report"/ { r = 1 } r && /^"128"/ { print $3; exit }' "$d/iozone.out")" ]
  # only the tests asked for (IOzone's -i 1 also runs reread)
  [ -z "$(rec "$r" iozone reread.fs64k.rs32k.kBps)" ]
  [ -n "$(rec "$r" iozone rewrite.fs64k.rs32k.kBps)" ]
  # the throughput test with the parent's view; pread (IOzone's -i 10) is there
  for m in kBps parent_kBps min_kBps max_kBps avg_kBps min_xfer_kB; do
    [ -n "$(rec "$r" iozone "read.t2.fs512k.rs4k.$m")" ] || { echo "no read.t2 $m"; false; }
  done
  [ -n "$(rec "$r" iozone pread.t2.fs512k.rs4k.kBps)" ]
  [ "$(rec "$r" iozone threads)" = 2 ]
  grep -q '^"Writer report"' "$d/report.csv"
  [ ! -e "$TMPFS/micro" ]
}

@test "phase-iozone emulated: marked so; IOzone-only options and tests refused before anything is written" {
  local r=$RESULTS/emu/$HOST/$VARIANT
  run env TARGET="$TMPFS" FLUSH=none RUN_ID=emu IOZONE_ENGINE=emulated IOZONE_MIN=64k IOZONE_MAX=64k \
    IOZONE_RECMIN=16k IOZONE_RECMAX=16k IOZONE_TESTS=bkwdread,strideread "$ROOT/harness/phase-iozone.sh"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ "$(rec "$r" iozone engine)" = emulated ]
  [ "$(rec "$r" iozone emulated)" = 1 ]
  [ -z "$(rec "$r" iozone iozone_version)" ]
  # backward and stride read each read the 4 records once
  local j=$r/raw/iozone-1/fs64k.rs16k.all.json
  [ "$(jq '[.jobs[] | select(.jobname == "bkwdread" or .jobname == "strideread") | .read.total_ios] | join(" ")' "$j")" = '"4 4"' ]
  for s in IOZONE_SYNC=1 IOZONE_DIRECT=1 IOZONE_CLOSE=1 IOZONE_TESTS=write,pwrite; do
    run --separate-stderr env TARGET="$TMPFS" FLUSH=none RUN_ID=refused IOZONE_ENGINE=emulated "$s" \
      "$ROOT/harness/phase-iozone.sh"
    [ "$status" -eq 2 ]
    [ "${#lines[@]}" -eq 0 ]
    [[ $stderr == "phase-iozone.sh: "*"IOzone"* ]] || { echo "$s: $stderr"; false; }
    [[ $stderr != *$'\n'* ]]
  done
  [ ! -e "$RESULTS/refused/$HOST/$VARIANT/records.tsv" ]
  run --separate-stderr env TARGET="$TMPFS" RUN_ID=refused IOZONE_ENGINE=fio "$ROOT/harness/phase-iozone.sh"
  [ "$status" -eq 2 ]
}
