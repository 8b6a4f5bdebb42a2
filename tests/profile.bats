#!/usr/bin/env bats
# shellcheck disable=SC2016 # the adapters and the greps get unexpanded text
# The kernel profile of each phase (harness/profile.sh, docs/profile.md):
# each system's sampler output folded (recorded outputs in
# tests/fixtures/profile/, sources in its README), a phase profiled on this
# host, a phase that cannot be profiled running as before, and the report's
# flame graphs, tables and differences (plots/kprofile.py).

load helpers

FIX=$ROOT/tests/fixtures/profile

setup() {
  T=$BATS_TEST_TMPDIR
  export RESULTS=$T/results HOST=testhost VARIANT=v1 SHOOTOUT_ROOT=$ROOT HARNESS_BIN=$BIN
  unset RUN_ID TARGET DATASET SEED SOURCE FLUSH TRIALS PORT TRIAL PROFILE BASELINE BLKLAT FORKLAT
  # shellcheck disable=SC2034 # loop_ext4 sets them, loop_cleanup reads them
  MNT='' LOOP=''
}

teardown() {
  loop_cleanup
}

# on OS FUNCTION ARGS... < INPUT : run FUNCTION of OS's adapter.
on() {
  local os=$1
  shift
  SHOOTOUT_ROOT=$ROOT SHOOTOUT_OS=$os sh -c '. "$SHOOTOUT_ROOT/harness/os.sh"; "$@"' sh "$@"
}

# folded_ok FILE : every line is "STACK COUNT" with a whole COUNT.
folded_ok() {
  awk 'NF < 2 || $NF !~ /^[0-9]+$/ || $0 !~ /^[^ ;][^;]*(;[^;]+)* [0-9]+$/ { print "bad line " NR ": " $0; bad = 1 }
    END { exit bad }' "$1"
}

# total FILE : the sum of the counts of a folded FILE.
total() {
  awk '{ s += $NF } END { print s + 0 }' "$1"
}

# py CODE : python with plots/ on the path, the python make's plots use.
py() {
  local p=python3
  [ ! -x /usr/bin/python3 ] || p=/usr/bin/python3
  (cd "$ROOT/plots" && "$p" -c "$@")
}

@test "linux: perf script folds into one line a distinct stack; the counts add up to the samples" {
  on linux os_parse_profile_perf <"$FIX/perf-script.txt" >"$T/f"
  folded_ok "$T/f"
  # a sample is a header line (the command and its pid) and its frames
  samples=$(grep -c '^[^[:space:]]' "$FIX/perf-script.txt")
  [ "$samples" = 178 ]
  [ "$(total "$T/f")" = "$samples" ]
  [ "$(sort "$T/f" | uniq -d | wc -l)" = 0 ]
  # the idle task (pid 0) is idle, outermost frame first, kernel frames marked
  grep -q '^idle;common_startup_64_\[k\];.*;do_idle_\[k\];.*;pv_native_safe_halt_\[k\] [0-9]*$' "$T/f"
  run grep -q '^swapper' "$T/f"
  [ "$status" -ne 0 ]
  # a command with a blank; a sample without frames is its command alone
  grep -q '^LTO inferno_col 8$' "$T/f"
  # a run of unnamed frames (a program without frame pointers) is one frame
  [ "$(grep -cE '(^|;)\[unknown\];\[unknown\]( |;)' "$T/f")" = 0 ]
  # user frames are DSO`SYMBOL
  grep -q '^cc1;cc1`hash_table<variable_hasher, false, xcallocator>::find_with_hash 1$' "$T/f"
}

@test "dtrace: the printed @[stack(), ustack()] aggregation folds: user frames, then kernel ones, offsets gone" {
  for os in freebsd netbsd; do
    on "$os" os_parse_profile_dtrace <"$FIX/dtrace-stack-ustack.txt" >"$T/f"
    folded_ok "$T/f"
    [ "$(wc -l <"$T/f")" = 4 ]
    [ "$(total "$T/f")" = 4 ]
    # kernel only (a blank line before its count): root "kernel"
    grep -qx 'kernel;thread_start_\[k\];taskq_thread_\[k\];zio_execute_\[k\];metaslab_group_alloc_verify_\[k\] 1' "$T/f"
    # kernel and user: the program, its user frames outermost first, then the kernel's
    grep -q '^cru-ds-fdsync-v1;libc.so.1`_lwp_start;libc.so.1`_thrp_setup;.*;libc.so.1`__fdsync;sys_syscall_\[k\];fdsync_\[k\];fop_fsync_\[k\];zfs_fsync_\[k\];.*;dmu_objset_ds_\[k\] 1$' "$T/f"
    # user only (the empty kernel stack printed blank lines first): no _[k]
    line=$(grep 'FramedImpl' "$T/f")
    [[ $line != *"_[k]"* ]]
    [ "$(grep -c '+0x' "$T/f")" = 0 ]
  done
}

@test "btrace: the printed @[kstack] = count() map folds; the idle loop is idle" {
  on openbsd os_parse_profile_btrace <"$FIX/bpftrace-kstack.txt" >"$T/f"
  folded_ok "$T/f"
  [ "$(total "$T/f")" = "$(awk '/^\]: / { s += $2 } END { print s }' "$FIX/bpftrace-kstack.txt")" ]
  [ "$(total "$T/f")" = 235 ]
  grep -q '^idle;.*do_idle_\[k\];.*pv_native_safe_halt_\[k\] [0-9]*$' "$T/f"
  grep -q '^kernel;entry_SYSCALL_64_after_hwframe_\[k\];do_syscall_64_\[k\];' "$T/f"
  run grep -qE '\+[0-9]+_\[k\]' "$T/f"
  [ "$status" -ne 0 ]
  # btrace.c's builtin_stack ends a stack with a line "kernel": not a frame
  printf '@[\nsched_idle+0x225\nproc_trampoline+0x1c\nkernel\n]: 7\n' | on openbsd os_parse_profile_btrace >"$T/g"
  [ "$(cat "$T/g")" = "idle;proc_trampoline_[k];sched_idle_[k] 7" ]
}

@test "absent, not failed: each system's check says in one line why it cannot sample" {
  local bin=$T/bin
  mkdir -p "$bin"
  for c in sh cat grep tail id printf; do ln -s "$(command -v "$c")" "$bin/$c"; done
  run env PATH="$bin" SHOOTOUT_ROOT="$ROOT" SHOOTOUT_OS=linux sh -c '. "$SHOOTOUT_ROOT/harness/os.sh"; os_profile_check'
  [ "$status" -ne 0 ]
  [ "$output" = "no perf command (Debian: apt-get install linux-perf)" ]
  # OpenBSD without kern.allowdt (a sysctl that prints 0)
  printf '#!/bin/sh\necho 0\n' >"$bin/sysctl"
  printf '#!/bin/sh\nexit 0\n' >"$bin/btrace"
  chmod +x "$bin/sysctl" "$bin/btrace"
  if [ "$(id -u)" = 0 ]; then
    run env PATH="$bin" SHOOTOUT_ROOT="$ROOT" SHOOTOUT_OS=openbsd sh -c '. "$SHOOTOUT_ROOT/harness/os.sh"; os_profile_check'
    [ "$status" -ne 0 ]
    [ "$output" = "kern.allowdt is not 1 (put kern.allowdt=1 in /etc/sysctl.conf and reboot)" ]
  fi
  # not root: DTrace says so
  run env PATH="$bin" SHOOTOUT_ROOT="$ROOT" SHOOTOUT_OS=freebsd sh -c 'id() { echo 1000; }; . "$SHOOTOUT_ROOT/harness/os.sh"; os_profile_check'
  [ "$status" -ne 0 ]
  [ "$output" = "not root (DTrace needs root)" ]
}

# flush_phase [VAR=VALUE...] : the flush phase (FLUSH=none, or
# FLUSH_METHOD) on a plain directory, run r1; it must succeed (its output in
# $T/flush.out).
flush_phase() {
  mkdir -p "$T/target"
  env "$@" make -C "$ROOT" -s phase-flush TARGET="$T/target" ALLOW_NONMOUNT=1 FLUSH="${FLUSH_METHOD:-none}" RUN_ID=r1 \
    DATASETS_OUT="$T/ds" >"$T/flush.out" 2>&1 || { cat "$T/flush.out"; return 1; }
}

@test "a phase profiled here: profiles/flush-1.folded parses, counts of all CPUs' wall time, meta.json names perf" {
  require_root
  SHOOTOUT_ROOT=$ROOT sh -c '. "$SHOOTOUT_ROOT/harness/os.sh"; os_profile_check' >"$T/why" ||
    skip "this host cannot profile: $(cat "$T/why")"
  # a phase of a second or so (2 GB of zeros written and deleted):
  # the sampler starts before the phase's window and ends after it, a fixed
  # part of a second that a phase of milliseconds would be all of
  FLUSH_METHOD=prime flush_phase PROFILE=1 PRIME_GB=2
  d=$RESULTS/r1/$HOST/$VARIANT
  [ "$(jq -r .profile "$d/meta.json")" = "perf record -a -g -F 99 -e cpu-clock" ]
  f=$d/profiles/flush-1.folded
  [ -s "$f" ]
  folded_ok "$f"
  # samples taken plus the idle CPUs' missing ones make the wall time x 99 x CPUs
  wall=$(awk -F '\t' '$1 == "flush" && $3 == "budget_wall_s" { print $4 }' "$d/records.tsv")
  want=$(awk -v w="$wall" -v c="$(nproc)" 'BEGIN { printf "%d", w * 99 * c }')
  n=$(total "$f")
  echo "samples $n, wall $wall s: $want"
  [ "$n" -ge $((want / 2)) ]
  [ "$n" -le $((want * 2 + 10 * $(nproc))) ]
  # the shares (plots/kprofile.py) are of those samples: leaves add up to all of them
  py "import kprofile as profile; s = profile.read_folded('$f'); t, me, ch = profile.shares(s)
assert t == $n, t
assert abs(sum(c for c in s.values()) - t) == 0
assert all(0 <= v <= 100 for v in list(me.values()) + list(ch.values()))
assert sum(me.values()) <= 100.0001"
  grep -q $'^flush\t1\tstatus\t0\texit$' "$d/records.tsv"
}

@test "PROFILE=0 (the default) and a perf that cannot sample: the phase runs as before, meta.json says once why" {
  flush_phase
  d=$RESULTS/r1/$HOST/$VARIANT
  [ "$(jq -r .profile "$d/meta.json")" = "off (PROFILE=0)" ]
  [ ! -e "$d/profiles" ]
  grep -q $'^flush\t1\tstatus\t0\texit$' "$d/records.tsv"
  # a perf that fails (as Debian's wrapper does on a kernel it has no perf for)
  rm -rf "$RESULTS"
  mkdir -p "$T/fake"
  printf '#!/bin/sh\necho "perf: no perf for this kernel" >&2\nexit 1\n' >"$T/fake/perf"
  chmod +x "$T/fake/perf"
  flush_phase PATH="$T/fake:$PATH" PROFILE=1
  [ "$(jq -r .profile "$d/meta.json")" = "absent: perf cannot count cpu-clock on every CPU: perf: no perf for this kernel" ] ||
    [ "$(jq -r .profile "$d/meta.json")" = "absent: $(SHOOTOUT_ROOT=$ROOT PATH="$T/fake:$PATH" sh -c '. "$SHOOTOUT_ROOT/harness/os.sh"; os_profile_check')" ]
  [ ! -e "$d/profiles" ]
  # a second phase says nothing more
  flush_phase PATH="$T/fake:$PATH" PROFILE=0
  [[ "$(jq -r .profile "$d/meta.json")" == absent:* ]]
  [ "$(grep -c $'\tstatus\t0\texit$' "$d/records.tsv")" = 2 ]
}

# fake_perf SCRIPT : a perf in $T/fake whose stat works, whose record
# writes its file and waits for SIGINT, and whose script runs the sh code
# SCRIPT.
fake_perf() {
  mkdir -p "$T/fake"
  {
    printf '#!/bin/sh\ncase $1 in\n  stat) exit 0 ;;\n  record)\n'
    printf '    while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done\n'
    printf '    echo header >"$out"\n    trap "exit 0" INT TERM\n    while :; do sleep 0.05; done ;;\n'
    printf '  *) %s ;;\nesac\n' "$1"
  } >"$T/fake/perf"
  chmod +x "$T/fake/perf"
}

# no_profile_said META LINE : a profiled flush phase passed with no profile;
# meta.json's profile is META and the phase's log has a line LINE (a regex).
no_profile_said() {
  flush_phase PATH="$T/fake:$PATH" PROFILE=1
  d=$RESULTS/r1/$HOST/$VARIANT
  [ "$(jq -r .profile "$d/meta.json")" = "$1" ]
  [ ! -e "$d/profiles/flush-1.folded" ]
  grep -q "$2" "$d/logs/flush-1.log"
  grep -q $'^flush\t1\tstatus\t0\texit$' "$d/records.tsv"
}

@test "a sampler that starts but whose output cannot be folded: the phase passes, no profile, a line in its log" {
  fake_perf 'echo "perf: cannot read" >&2; exit 1'
  no_profile_said "perf record -a -g -F 99 -e cpu-clock" "^profile: no stacks folded from .*: no profiles/flush-1.folded$"
}

@test "a sampler that does not start: the phase passes, no profile, a line in its log (meta.json keeps only the run's first note)" {
  mkdir -p "$T/fake"
  printf '#!/bin/sh\ncase $1 in\n  stat) exit 0 ;;\n  *) echo "perf: cannot open the events" >&2; exit 1 ;;\nesac\n' >"$T/fake/perf"
  chmod +x "$T/fake/perf"
  no_profile_said "absent: the sampler did not start (see logs/flush-1.log)" \
    "^profile: the sampler did not start (it ended, or wrote nothing in 60 s): no profile of flush$"
}

@test "a part in which perf took no sample: an idle profile of its wall time, not none; its log says so" {
  fake_perf 'exit 0' # perf script reads the file and prints no sample
  flush_phase PATH="$T/fake:$PATH" PROFILE=1
  d=$RESULTS/r1/$HOST/$VARIANT
  f=$d/profiles/flush-1.folded
  cat "$f"
  [ -s "$f" ]
  grep -Eqx 'idle;\(unsampled\) [0-9]+' "$f"
  [ "$(wc -l <"$f")" -eq 1 ]
  grep -q "^profile: no sample taken in [0-9.]* s: profiles/flush-1.folded is all idle$" "$d/logs/flush-1.log"
}

# two_variants : run r with variants a and b of the same folded profile
# (perf-script.txt's) of the phase untar, 3 trials each.
two_variants() {
  local v t
  for v in a b; do
    mkdir -p "$RESULTS/r/h/$v/profiles"
    printf '{"run_id": "r", "profile": "perf record -a -g -F 99 -e cpu-clock"}\n' >"$RESULTS/r/h/$v/meta.json"
    printf 'phase\ttrial\tmetric\tvalue\tunit\n' >"$RESULTS/r/h/$v/records.tsv"
    for t in 1 2 3; do
      printf 'untar\t%s\twall_s\t1.%s\ts\n' "$t" "$t" >>"$RESULTS/r/h/$v/records.tsv"
      on linux os_parse_profile_perf <"$FIX/perf-script.txt" >"$RESULTS/r/h/$v/profiles/untar-$t.folded"
    done
  done
}

@test "report: per phase a flame graph of each variant, the top kernel functions; a profile against itself has no change" {
  two_variants
  py "import resultslib, kprofile as profile
run = resultslib.load_run('$RESULTS', 'r')
lines = profile.report_section([run], '$T/out')
print('\n'.join(lines))
g = profile.groups_of(run.variants)
a, b = g['untar']
assert a.samples == b.samples == 3 * 178, a.samples
assert profile.changes(a, b, 'self') == [] and profile.changes(a, b, 'children') == []
assert sum(a.self_pct.values()) <= 100.0001" >"$T/out.txt"
  cat "$T/out.txt"
  grep -q 'href="profile.html"' "$T/out.txt"
  grep -q 'measured with the kernel profile on' "$T/out.txt"
  run grep -c 'PROFILE_ROUNDS' "$T/out.txt"
  [ "$output" = 0 ]
  # a phase in rounds that sampled each figure's first round only says so
  printf '{"run_id": "r", "profile": "perf record -a -g -F 99 -e cpu-clock", "profile_rounds": "1"}\n' >"$RESULTS/r/h/b/meta.json"
  py "import resultslib, kprofile as profile
print('\n'.join(profile.report_section([resultslib.load_run('$RESULTS', 'r')], '$T/out2')))" >"$T/out2.txt"
  grep -q 'In the serve and network rounds only the first round(s) of each figure were sampled (PROFILE_ROUNDS)' "$T/out2.txt"
  p=$T/out/profile.html
  grep -q '<h2 id="profile-untar">untar</h2>' "$p"
  grep -q 'top kernel functions by children share' "$p"
  grep -q 'top kernel functions by self share' "$p"
  grep -q '<code>entry_SYSCALL_64_after_hwframe</code>' "$p"
  grep -q 'h / b against h / a\|b against' "$p"
  [ "$(grep -c "no kernel function's share changed" "$p")" = 2 ]
  if [ -n "$(cd "$ROOT/plots" && python3 -c 'import kprofile as profile; print(profile.inferno("inferno-flamegraph") or "")')" ]; then
    [ -s "$T/out/profiles/untar-r-h-a.svg" ]
    grep -q '<svg' "$T/out/profiles/untar-r-h-a.svg"
    ls "$T/out/profiles/"*-vs-*-new.svg "$T/out/profiles/"*-vs-*-base.svg
  fi
}

@test "report: a changed profile: the functions whose share changed most, in points, with the trials' spread" {
  two_variants
  # variant b: one more idle stack (a fifth of the samples) in each trial
  for t in 1 2 3; do
    echo "idle;common_startup_64_[k];do_idle_[k];pv_native_safe_halt_[k] $((40 + t))" >>"$RESULTS/r/h/b/profiles/untar-$t.folded"
  done
  BASELINE=a py "import resultslib, kprofile as profile
run = resultslib.load_run('$RESULTS', 'r')
a, b = profile.groups_of(run.variants)['untar']
rows = profile.changes(a, b, 'children')
top = rows[0]
print(rows[:3])
assert top[0] in ('do_idle', 'common_startup_64', 'pv_native_safe_halt'), top
assert top[3] > 10, top
assert top[6] in ('significant', 'not significant'), top
profile.report_section([run], '$T/out')"
  grep -q 'pp</td>' "$T/out/profile.html"
  # BASELINE names no variant: said, no differences
  BASELINE=nosuch py "import resultslib, kprofile as profile
profile.report_section([resultslib.load_run('$RESULTS', 'r')], '$T/out2')"
  grep -q 'BASELINE=nosuch names no variant' "$T/out2/profile.html"
  run grep -q 'Differences' "$T/out2/profile.html"
  [ "$status" -ne 0 ]
}

@test "make compare: run against run, the same per phase, the latency CDFs of both on one chart" {
  two_variants
  mkdir -p "$RESULTS/r/h/a/latency"
  printf 'httpd_open_ns\t-\t4096\t10\n' >"$RESULTS/r/h/a/latency/serve-cold-1-1.tsv"
  cp -r "$RESULTS/r" "$RESULTS/r2"
  printf 'httpd_open_ns\t-\t65536\t10\n' >"$RESULTS/r2/h/a/latency/serve-cold-1-1.tsv"
  run make -C "$ROOT" -s compare RESULTS="$RESULTS" BASE=r NEW=r2 OUT="$T/cmp"
  echo "$output"
  [ -s "$T/cmp/profile.html" ]
  grep -q 'href="profile.html"' "$T/cmp/compare.html"
  grep -q '<img src="latency-serve-1-httpd_open_ns.png"' "$T/cmp/compare.html"
  grep -q "array line_titles = \\['r / h / a cold', 'r2 / h / a cold'\\]" "$T/cmp/latency-serve-1-httpd_open_ns.gp"
  grep -q 'r2 / h / a against r / h / a' "$T/cmp/profile.html"
  [ "$(grep -c "no kernel function's share changed" "$T/cmp/profile.html")" = 4 ]
  # one variant against another of one run (RUN:VARIANT): their profiles paired as compare pairs them
  run make -C "$ROOT" -s compare RESULTS="$RESULTS" BASE=r:a NEW=r:b OUT="$T/cmp3"
  echo "$output"
  [ "$status" -eq 0 ]
  grep -q 'r / h / b against r / h / a' "$T/cmp3/profile.html"
  grep -q '^| h | a vs b | ' "$T/cmp3/compare.md"
  # host against host of one run (the two OSes of a lab run): paired by variant name
  mv "$RESULTS/r2/h" "$RESULTS/r/h2"
  run make -C "$ROOT" -s compare RESULTS="$RESULTS" BASE=r:h NEW=r:h2 OUT="$T/cmp2"
  echo "$output"
  [ "$status" -eq 0 ]
  grep -q 'r / h2 / a against r / h / a' "$T/cmp2/profile.html"
  grep -q 'r / h2 / b against r / h / b' "$T/cmp2/profile.html"
  grep -q "array line_titles = \\['r / h / a cold', 'r / h2 / a cold'\\]" "$T/cmp2/latency-serve-1-httpd_open_ns.gp"
}

@test "issue 30's done-when on a tiny run of two variants: every record a folded profile and latency histograms; per phase flame graphs, top functions, differences against the baseline and CDFs (fork included)" {
  require_cmd bpftrace perf jq gnuplot python3 tcpserver
  require_tools
  loop_ext4 noatime
  SHOOTOUT_ROOT=$ROOT sh -c '. "$SHOOTOUT_ROOT/harness/os.sh"; os_profile_check' >"$T/why" 2>&1 ||
    skip "this host cannot profile: $(cat "$T/why")"
  SHOOTOUT_ROOT=$ROOT sh -c '. "$SHOOTOUT_ROOT/harness/os.sh"; os_blklat_probe "$1"' sh "$MNT" >"$T/why" 2>&1 ||
    skip "no block tracer here: $(cat "$T/why")"
  local v r d n recs="untar untar2 serve-cold-1 serve-warm-1 serve-cold-fork serve-warm-fork delete"
  for v in a b; do
    run make -C "$ROOT" -s phase-untar phase-serve phase-delete TARGET="$MNT" DATASET=tiny SERVE_MODES="1 fork" \
      REPLAY_COUNT=200 FLUSH=remount RUN_ID=tiny VARIANT="$v" DATASETS_OUT="$T/ds" BLKLAT=1 PROFILE=1 FORKLAT=1
    printf '%s\n' "$output"
    [ "$status" -eq 0 ]
  done
  for v in a b; do
    d=$RESULTS/tiny/$HOST/$v
    for r in $recs; do
      # a folded profile that parses, of the wall time: its samples add up to the shares' total
      folded_ok "$d/profiles/$r-1.folded"
      py "import kprofile as profile; s = profile.read_folded('$d/profiles/$r-1.folded'); t, me, ch = profile.shares(s)
assert t == $(total "$d/profiles/$r-1.folded") > 0, t"
      # the block device's requests: every record that read or wrote it
      n=$(awk -F '\t' '$1 == "blk_ns" { s += $4 } END { print s + 0 }' "$d/latency/$r-1.tsv")
      echo "$v $r: $n block requests"
      case $r in *warm*) ;; *) [ "$n" -gt 0 ] || { grep -h '^blklat' "$d/logs/$r-1.log"; false; } ;; esac
    done
    # httpd's open times, one per request, in each serve record, the fork ones too
    for r in serve-cold-1 serve-warm-1 serve-cold-fork serve-warm-fork; do
      [ "$(awk -F '\t' '$1 == "httpd_open_ns" { s += $4 } END { print s + 0 }' "$d/latency/$r-1.tsv")" -eq 200 ]
    done
  done
  run make -C "$ROOT" -s report RESULTS="$RESULTS" RUN=tiny OUT="$T/out"
  printf '%s\n' "$output"
  [ "$status" -eq 0 ]
  local p=$T/out/profile.html
  for r in $recs; do
    grep -q "<h2 id=\"profile-${r//-/_}\">$r</h2>" "$p" || { echo "no profile section of $r"; false; }
  done
  # per phase: the top functions by children and by self, and b against the baseline a
  [ "$(grep -c 'top kernel functions by children share' "$p")" -eq 7 ]
  [ "$(grep -c 'top kernel functions by self share' "$p")" -eq 7 ]
  [ "$(grep -c '<h4>testhost / b against testhost / a</h4>' "$p")" -eq 7 ]
  [ "$(grep -c 'share: largest changes, testhost / b against testhost / a' "$p")" -eq 14 ]
  if [ -n "$(cd "$ROOT/plots" && python3 -c 'import kprofile as profile; print(profile.inferno("inferno-flamegraph") or "")')" ]; then
    # a flame graph of each phase and variant, and both differential ones of b against a
    local svg
    for svg in -tiny-testhost-a -tiny-testhost-b -tiny-testhost-b-vs-tiny-testhost-a-new -tiny-testhost-b-vs-tiny-testhost-a-base; do
      [ "$(find "$T/out/profiles" -name "*$svg.svg" -size +0 | wc -l)" -eq 7 ] || { echo "not 7 *$svg.svg"; false; }
    done
  fi
  # the CDFs: block latency of each phase, httpd's open times of each serve mode, fork included
  for c in untar untar2 serve-1 serve-fork delete; do [ -s "$T/out/latency-$c-blk_ns.png" ] || { echo "no $c blk_ns CDF"; false; }; done
  for c in serve-1 serve-fork; do [ -s "$T/out/latency-$c-httpd_open_ns.png" ] || { echo "no $c httpd_open_ns CDF"; false; }; done
  grep -q '^| serve-fork | testhost / a cold | httpd open + fstat | 200 | ' "$T/out/summary.md"
}
