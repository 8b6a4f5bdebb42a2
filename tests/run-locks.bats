#!/usr/bin/env bats
# Two runs at once, and faults while a run writes (issue 42): a run locks
# its TARGET and its results directory, make demo its work directory (a
# second is refused, one line naming the holder, exit 2); a phase killed
# with SIGKILL leaves nothing running; a RESULTS that fills up still gets
# the failure, which the report shows, and no torn record; a run refused at
# its first phase leaves no run directory and .current as it was.
# Each @test runs in its own subshell: exports there are meant to be local.
# shellcheck disable=SC2030,SC2031
load helpers

setup() {
  T=$BATS_TEST_TMPDIR
  export RESULTS=$T/results HOST=testhost VARIANT=v1 SHOOTOUT_ROOT=$ROOT HARNESS_BIN=$BIN
  unset RUN_ID TARGET DATASET SEED SOURCE FLUSH TRIALS PORT TRIAL PHASES
  unset SHOOTOUT_LOCKERS SHOOTOUT_LOCK_FDS
  MOUNTS=() HOLDER=''
}

teardown() {
  local m
  [ -z "$HOLDER" ] || kill "$HOLDER" 2>/dev/null || true
  stop_leftovers "$T/"
  for m in "${MOUNTS[@]}"; do
    if mountpoint -q "$m"; then umount "$m" || umount -l "$m"; fi
  done
}

# tmpfs_at DIR SIZE : a tmpfs mounted at DIR (unmounted at teardown).
tmpfs_at() {
  require_root
  mkdir -p "$1"
  mount -t tmpfs -o "size=$2" tmpfs "$1"
  MOUNTS+=("$1")
}

records_of() {
  awk -F '\t' -v p="$2" -v m="$3" '$1 == p && $3 == m { print $4 }' "$1/records.tsv"
}

# hold_lock KIND PATH WHAT : a process of the test holds that lock
# (harness/lock.sh) until teardown (TERM: it lets go, its file goes);
# HOLDER is its pid.  Skips the test when
# something else holds it.
hold_lock() {
  # shellcheck disable=SC2016 # the inner shell expands them
  bash -c 'SHOOTOUT_ROOT=$1; . "$1/harness/os.sh"; . "$1/harness/poll.sh"; . "$1/harness/lock.sh"
    lock_take "$2" "$3" "$4" || { printf "%s" "$LOCK_REFUSAL" >"$5.no"; exit 1; }
    trap "kill \$s; lock_release_all; exit 0" TERM
    sleep 300 & s=$!
    echo held >"$5"; wait' hold "$ROOT" "$1" "$2" "$3" "$T/held" 3>&- &
  HOLDER=$!
  poll_until 10 test -e "$T/held" -o -e "$T/held.no"
  [ ! -s "$T/held.no" ] || skip "the lock is held already: $(cat "$T/held.no")"
  [ -e "$T/held" ] || { echo "the test could not take the lock" >&2; false; }
}

# long_dataset N : $T/ds/long-1, the tiny dataset with its request list N
# times over (a replay that runs for seconds).
long_dataset() {
  mkdir -p "$T/ds"
  cp -r "$ROOT/datasets/out/tiny-1" "$T/ds/long-1"
  for _ in $(seq "$1"); do cat "$ROOT/datasets/out/tiny-1/requests.txt"; done >"$T/ds/long-1/requests.txt"
}

# tiny_dataset : datasets/out/tiny-1 is made (a phase makes it when missing;
# two runs at once would both make it).
tiny_dataset() {
  [ ! -s "$ROOT/datasets/out/tiny-1/manifest.tsv" ] || return 0
  mkdir -p "$T/scratch"
  ALLOW_NONMOUNT=1 untar_both "$T/scratch"
  rm -rf "$RESULTS"
}

# untar_both TARGET : the dataset's two tarballs extracted on TARGET (the
# tiny dataset is made first when missing).
untar_both() {
  make -C "$ROOT" -s phase-untar phase-untar2 TARGET="$1" DATASET=tiny >/dev/null
}

# shootouts_at_once NAME VALUE1 VALUE2 MAKE-ARGS... : two `make shootout`
# of untar, untar2, serve and delete on the tiny dataset started together,
# with NAME=VALUE1 and NAME=VALUE2; their output in $T/out.1 and $T/out.2.
# One must pass and the other be refused with one line (exit 2): LOST is
# its number.  (Not in $(...): a subshell cannot wait for the test's
# children.)
shootouts_at_once() {
  local name=$1 i pids=() rcs=()
  shift
  for i in 1 2; do
    make -C "$ROOT" -s shootout "$name=${!i}" DATASET=tiny FLUSH=none PHASES="untar untar2 serve delete" \
      SERVE_MODES=1 "${@:3}" >"$T/out.$i" 2>&1 &
    pids+=("$!")
  done
  for i in 0 1; do
    rcs[i]=0
    wait "${pids[i]}" || rcs[i]=$?
  done
  cat "$T/out.1" "$T/out.2"
  [ "${rcs[*]}" = "0 2" ] || [ "${rcs[*]}" = "2 0" ]
  LOST=1
  [ "${rcs[0]}" = 0 ] && LOST=2
  [ "$(grep -vc '^make' "$T/out.$LOST")" -eq 1 ]
}

dir_empty() {
  [ -z "$(ls -A "$1")" ]
}

# no_server PORT : no httpd of ours listens on PORT, no replay of this test runs.
no_server() {
  ! pgrep -f -- "$BIN/httpd .*-p $1( |$)" >/dev/null && ! pgrep -f -- "$BIN/replay .*$T/" >/dev/null &&
    ! port_busy "$1"
}

@test "two shootouts on one TARGET started together: the second is refused naming the first, whose figures are intact" {
  require_tools
  tmpfs_at "$T/mnt" 256m
  tiny_dataset
  shootouts_at_once VARIANT a b TARGET="$T/mnt" REPLAY_COUNT=1000
  variants=(- a b)
  lost=${variants[LOST]} won=${variants[3 - LOST]}
  # one line, naming the holder: pid, run, start
  grep -Eq "^shootout.sh: TARGET=$T/mnt is in use by pid [0-9]+, run [0-9TZ]+-$HOST, started 20[0-9-]+T[0-9:]+Z: wait for it to end, or name another TARGET$" "$T/out.$LOST"
  # the refused run made no run directory; the other's figures are whole
  [ "$(find "$RESULTS" -mindepth 1 -maxdepth 1 -type d | wc -l)" -eq 1 ]
  [ -z "$(find "$RESULTS" -path "*/$HOST/$lost")" ]
  d=$(echo "$RESULTS"/*/"$HOST/$won")
  [ ! -e "$d/failures.tsv" ] || { cat "$d/failures.tsv"; false; }
  [ "$(awk -F '\t' '$3 == "status" { printf "%s:%s ", $1, $4 }' "$d/records.tsv")" = \
    "untar:0 untar2:0 serve-cold-1:0 serve-warm-1:0 delete:0 " ]
  [ "$(records_of "$d" serve-cold-1 failed)" = 0 ]
  [ "$(records_of "$d" serve-warm-1 failed)" = 0 ]
  [ "$(records_of "$d" serve-warm-1 requests)" = 1000 ]
  # the lock went with the run: the next one takes it
  make -C "$ROOT" -s phase-untar TARGET="$T/mnt" DATASET=tiny >/dev/null
}

@test "the same RESULTS, RUN_ID and VARIANT twice at once: the second is refused naming the first, no record twice; make phase-X takes the lock too" {
  require_tools
  mkdir -p "$T/t1" "$T/t2"
  tiny_dataset
  export ALLOW_NONMOUNT=1 RUN_ID=r1
  shootouts_at_once TARGET "$T/t1" "$T/t2" REPLAY_COUNT=500
  grep -Eq "^shootout.sh: RUN_ID=r1 HOST=$HOST VARIANT=$VARIANT \($RESULTS/r1/$HOST/$VARIANT\) is in use by pid [0-9]+, run r1, started [0-9TZ:-]+: wait for it to end, or give this one another VARIANT or RUN_ID$" "$T/out.$LOST"
  d=$RESULTS/r1/$HOST/$VARIANT
  [ -z "$(awk -F '\t' 'NR > 1 { print $1 "\t" $2 "\t" $3 }' "$d/records.tsv" | sort | uniq -d)" ]
  [ "$(records_of "$d" serve-warm-1 status)" = 0 ]
  [ ! -e "$T/t$LOST/data" ]
  # A phase run alone takes it too: held by another process, refused, nothing written.
  sum=$(cksum <"$d/records.tsv")
  hold_lock variant "$(cd "$RESULTS" && pwd -P)/r1/$HOST/$VARIANT" "the test's hold"
  run make -C "$ROOT" -s phase-untar TARGET="$T/t1" DATASET=tiny
  echo "$output"
  [ "$status" -eq 2 ]
  [[ $output == *"untar: RUN_ID=r1 HOST=$HOST VARIANT=$VARIANT ($d) is in use by pid $HOLDER, run r1, started "*": wait for it to end, or give this one another VARIANT or RUN_ID"* ]]
  [ "$(cksum <"$d/records.tsv")" = "$sum" ]
  [ ! -e "$T/t1/data" ]
}

@test "SIGKILL of a serve phase: nothing it started is left (port free, no httpd), the next run on that port starts" {
  require_tools
  require_cmd pgrep
  tmpfs_at "$T/mnt" 256m
  untar_both "$T/mnt"
  long_dataset 200
  port=$(free_port)
  export TARGET=$T/mnt DATASETS_OUT=$T/ds DATASET=long FLUSH=none SERVE_MODES=32 REPLAY_COUNT=0 \
    REPLAY_CONC=2 REPLAY_KEEPALIVE=1 PORT=$port
  # A phase alone (as make phase-serve runs it): its watcher stops what it
  # left, and removes its temporary directory and its results' reserve.
  mkdir -p "$T/tmp"
  TMPDIR=$T/tmp "$ROOT/harness/phase-serve.sh" >"$T/out" 2>&1 3>&- &
  phase=$!
  wait_for_port "$port" 30
  poll_until 10 pgrep -f -- "$BIN/replay .*$T/" >/dev/null
  kill -KILL "$phase"
  wait "$phase" || true
  POLL_STEP=0.1 poll_until 15 no_server "$port" || { pgrep -af -- "$BIN/(httpd|replay)"; false; }
  poll_until 10 dir_empty "$T/tmp" || { ls -A "$T/tmp"; false; }
  [ -z "$(find "$RESULTS" -name .reserve)" ]
  # Under shootout.sh: it stops what the phase left before it exits.
  PHASES=serve "$ROOT/harness/shootout.sh" >"$T/out2" 2>&1 3>&- &
  sh=$!
  wait_for_port "$port" 30
  poll_until 10 pgrep -f -- "$BIN/replay .*$T/" >/dev/null
  phase=$(pgrep -P "$sh" -f phase-serve.sh)
  kill -KILL "$phase"
  rc=0
  wait "$sh" || rc=$?
  cat "$T/out2"
  [ "$rc" -ne 0 ]
  POLL_STEP=0.1 poll_until 15 no_server "$port" || { pgrep -af -- "$BIN/(httpd|replay)"; false; }
  # The next run on the same port starts and serves.
  run make -C "$ROOT" -s phase-serve DATASET=tiny DATASETS_OUT="$ROOT/datasets/out" SERVE_MODES=1 REPLAY_COUNT=200 REPLAY_CONC=10
  echo "$output"
  [ "$status" -eq 0 ]
  [ "$(records_of "$RESULTS/$(cat "$RESULTS/.current")/$HOST/$VARIANT" serve-warm-1 status)" = 0 ]
  no_server "$port"
}

@test "RESULTS filling up mid-run: the failure is recorded, the report shows it, no torn record" {
  require_tools
  require_cmd gnuplot python3
  tmpfs_at "$T/mnt" 256m
  untar_both "$T/mnt"
  long_dataset 30
  rm -rf "$RESULTS"
  tmpfs_at "$RESULTS" 2m
  # A record that a full filesystem cuts short is cut off again.
  head -c 4000 /dev/zero | tr '\0' x >"$RESULTS/probe"
  dd if=/dev/zero of="$RESULTS/fill" bs=4k 2>/dev/null || true
  # shellcheck disable=SC2016 # the inner shell expands them
  run bash -c '. "$SHOOTOUT_ROOT/harness/lib.sh"; lib_append "$1" "$2" || { echo "$LIB_ERR"; exit 1; }' sh \
    "$RESULTS/probe" "$(printf 'serve-cold-1\t1\trps\t%0200d\treq/s' 0)"
  [ "$status" -eq 1 ]
  [ "$output" = "cannot append to $RESULTS/probe: No space left on device" ]
  [ "$(wc -c <"$RESULTS/probe")" -eq 4000 ]
  rm "$RESULTS/probe" "$RESULTS/fill"
  export TARGET=$T/mnt DATASETS_OUT=$T/ds DATASET=long FLUSH=none SERVE_MODES=1 REPLAY_COUNT=0 REPLAY_CONC=2
  "$ROOT/harness/phase-serve.sh" >"$T/out" 2>&1 3>&- &
  phase=$!
  wait_for_file "$RESULTS/.current" 30
  d=$RESULTS/$(cat "$RESULTS/.current")/$HOST/$VARIANT
  wait_for_file "$d/series/serve-cold-1-1.tsv" 30
  # Full: every block of RESULTS taken.
  dd if=/dev/zero of="$RESULTS/fill" bs=4k 2>/dev/null || true
  rc=0
  wait "$phase" || rc=$?
  cat "$T/out"
  [ "$rc" -eq 1 ]
  rm "$RESULTS/fill"
  failed=$(awk -F '\t' '$3 == "status" && $4 == 1 { print $1 }' "$d/records.tsv")
  [ -n "$failed" ]
  full='(RESULTS is full|No space left on device)'
  records_of "$d" "$failed" error | grep -Eq "$full"
  grep -Eq "$full" "$d/failures.tsv"
  # no torn record: every line whole, five fields
  [ "$(tail -c 1 "$d/records.tsv" | od -An -c | tr -d ' ')" = '\n' ]
  [ -z "$(awk -F '\t' 'NF != 5' "$d/records.tsv")" ]
  [ ! -e "$d/.reserve" ]
  run make --no-print-directory -C "$ROOT" report RESULTS="$RESULTS" OUT="$T/report"
  echo "$output"
  [ "$status" -eq 0 ]
  grep -Eq "^- \*\*$HOST / $VARIANT\*\*: $failed trial 1 failed: .*$full" "$T/report/summary.md"
}

@test "a shootout refused at preflight (port in use) makes no run directory and leaves .current; make report draws the earlier run" {
  require_tools
  require_cmd gnuplot python3
  mkdir -p "$T/t1" "$T/t2"
  export ALLOW_NONMOUNT=1
  make -C "$ROOT" -s phase-untar TARGET="$T/t1" DATASET=tiny >/dev/null
  before=$(cat "$RESULTS/.current")
  port=$(free_port)
  python3 -c 'import socket,sys,time; s=socket.socket(); s.bind(("127.0.0.1",int(sys.argv[1]))); s.listen(); time.sleep(60)' "$port" 3>&- &
  HOLDER=$!
  wait_for_port "$port"
  run make -C "$ROOT" -s shootout TARGET="$T/t2" DATASET=tiny FLUSH=none PORT="$port"
  echo "$output"
  [ "$status" -eq 2 ]
  [[ $output == *"preflight: port $port is in use"* ]]
  [ "$(cat "$RESULTS/.current")" = "$before" ]
  [ "$(find "$RESULTS" -mindepth 1 -maxdepth 1 -type d)" = "$RESULTS/$before" ]
  run make --no-print-directory -C "$ROOT" report RESULTS="$RESULTS" OUT="$T/report"
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output == *"report of $before in"* ]]
  # with no run at all before it: no .current either
  rm -rf "$RESULTS"
  run make -C "$ROOT" -s shootout TARGET="$T/t2" DATASET=tiny FLUSH=none PORT="$port"
  [ "$status" -eq 2 ]
  [ -z "$(find "$RESULTS" -mindepth 1 2>/dev/null)" ]
}

@test "make demo while another runs: refused, one line naming the holder, before it touches anything" {
  require_root
  hold_lock demo /var/tmp/shootout "the demo's /var/tmp/shootout"
  vars=$ROOT/build/demo-vars.yml
  stamp=$(stat -c %Y-%s "$vars" 2>/dev/null || echo none)
  loops=$(losetup -a | sort)
  mounts=$(findmnt -rn -o TARGET | grep '^/var/tmp/shootout' | sort || true)
  run env DEMO_VARIANTS=ext4 "$ROOT/playbooks/demo.sh"
  echo "$output"
  [ "$status" -eq 2 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ ${lines[0]} == "demo: the demo's /var/tmp/shootout is in use by pid $HOLDER, started "*": another make demo runs; wait for it to end" ]]
  [ "$(stat -c %Y-%s "$vars" 2>/dev/null || echo none)" = "$stamp" ]
  [ "$(losetup -a | sort)" = "$loops" ]
  [ "$(findmnt -rn -o TARGET | grep '^/var/tmp/shootout' | sort || true)" = "$mounts" ]
}
