#!/usr/bin/env bash
# Runs the test suites and prints, as its very last line,
#   N passed, N failed[, N skipped]
# totalled over every suite.  Every suite speaks TAP; a suite that dies
# without reporting a failure counts as one failure.
#   tests/run.sh              every suite (C, C under ASan+UBSan, bats, lint;
#                             with LAB_TAP=FILE the VM lab's TAP too, waited
#                             for while LAB_PID runs: lab_suite)
#   tests/run.sh c|asan|fuzz|lint  one suite (fuzz: each libFuzzer target of
#                             build/fuzz/ for FUZZ_TEST_S seconds, default 3)
#   tests/run.sh bats [FILE.bats ...]
#   tests/run.sh lab TAP-FILE  a make test-lab TAP alone (LAB_PID: waited for)
# The bats files run BATS_LANES (2) at a time, each file's TAP shown when it
# ends (BATS_LANES=1: one bats run, streamed); lint runs beside the others.
set -u
cd "$(dirname "$0")/.." || exit 2

# poll_until, pid_gone (functions only)
# shellcheck source=harness/poll.sh
. harness/poll.sh

pass=0 fail=0 skip=0
# The bats suite's deadline in seconds (a file still running then is stopped).
BATS_SUITE_TIMEOUT=${BATS_SUITE_TIMEOUT:-1800}
logdir=$(mktemp -d "${TMPDIR:-/tmp}/shootout-tests.XXXXXX")
trap 'rm -rf "$logdir"' EXIT

# run_suite NAME CMD... : run CMD, show its TAP, add its counts to the totals.
run_suite() {
  local name=$1 t0
  shift
  t0=$(date +%s)
  echo "== $name"
  # Streamed, not buffered, so a CI log shows how far a suite got.
  "$@" 2>&1 | tee "$logdir/$name.tap"
  count_suite "$name" "${PIPESTATUS[0]}" "$t0"
}

# start_suite NAME CMD... : run CMD in the background (while the others
# run: it needs nothing they make), its TAP kept for end_suite.
start_suite() {
  local name=$1
  shift
  { date +%s >"$logdir/$name.t0"; "$@" >"$logdir/$name.tap" 2>&1; echo $? >"$logdir/$name.rc"; date +%s >"$logdir/$name.t1"; } &
  echo $! >"$logdir/$name.pid"
}

# end_suite NAME : wait for what start_suite started, show its TAP, count it.
end_suite() {
  local name=$1
  wait "$(cat "$logdir/$name.pid")"
  echo "== $name (run beside the others)"
  cat "$logdir/$name.tap"
  count_suite "$name" "$(cat "$logdir/$name.rc" 2>/dev/null || echo 1)" "$(cat "$logdir/$name.t0")" "$(cat "$logdir/$name.t1" 2>/dev/null)"
}

# count_suite NAME EXIT-STATUS START [END] : add NAME's TAP to the totals.
count_suite() {
  local name=$1 rc=$2 t0=$3 t1=${4:-$(date +%s)} p f s
  s=$(grep -ciE '^ok .*# skip' "$logdir/$name.tap")
  p=$(grep -c '^ok ' "$logdir/$name.tap")
  p=$((p - s))
  f=$(grep -c '^not ok ' "$logdir/$name.tap")
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    echo "not ok - suite $name exited $rc without reporting a failure"
    f=1
  fi
  pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
  echo "== $name: $p passed, $f failed, $s skipped ($((t1 - t0)) s)"
}

# The C tests the Makefile declares (CTESTS), from a build directory, as
# one TAP stream; a declared test that was not built is a failure.
c_suite() {
  local dir=$1 name t rc=0 names
  names=$(make -s --no-print-directory ctest-list) || return 1
  for name in $names; do
    t=$dir/${name}_test
    if [ ! -x "$t" ]; then
      echo "not ok - $t was not built"
      rc=1
      continue
    fi
    echo "# $t"
    timeout -k 10 300 "$t" </dev/null || { rc=1; echo "# $t exited non-zero (124: ran past 300 s)"; }
  done
  return $rc
}

lint_suite() {
  local n=0 f out
  tap() { # tap OK? NAME [DETAIL]
    n=$((n + 1))
    if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; printf '%s\n' "$3" | sed 's/^/#   /'; fi
  }
  # Shell: every script by extension or shebang, and the bats files.
  while IFS= read -r f; do
    out=$(shellcheck -x "$f" 2>&1); tap $? "shellcheck $f" "$out"
  done < <(lint_files '@(*.sh|*.bats|*.bash|.ci/run)' '^#!.*\b(ba)?sh\b')
  # YAML and Ansible.
  if [ -n "$(find playbooks datasets -name '*.yml' -o -name '*.yaml' 2>/dev/null | head -1)" ]; then
    out=$(yamllint -s . 2>&1); tap $? "yamllint" "$out"
    if [ -n "$(find playbooks -maxdepth 1 -name '*.yml' 2>/dev/null | head -1)" ]; then
      out=$(cd playbooks && ANSIBLE_LOCAL_TEMP=$logdir/ansible ansible-lint -q --offline 2>&1); tap $? "ansible-lint playbooks" "$out"
    fi
  fi
  # Python: the plots, the fixtures and the harness's converters.
  while IFS= read -r f; do
    out=$(pyflakes3 "$f" 2>&1); tap $? "pyflakes $f" "$out"
  done < <(lint_files '*.py' '^#!.*python')
  # Every OS-specific call of the harness stays in harness/os/linux.sh (the
  # per-OS adapter): the phase scripts, the sampler, meta.sh and the rest.
  out=$(harness/os/lint.sh harness/phase-*.sh harness/sampler.sh harness/meta.sh harness/flush.sh \
    harness/common.sh harness/common/*.sh harness/poll.sh harness/micro-lib.sh harness/target-guard.sh harness/lib.sh \
    harness/shootout.sh harness/os.sh 2>&1)
  tap $? "no /proc, /sys, util-linux or GNU-only call outside harness/os/linux.sh" "$out"
  # Small files, one concern each.
  while IFS= read -r f; do
    local lines
    lines=$(wc -l <"$f")
    [ "$lines" -le 650 ]; tap $? "$f is $lines lines (limit ~600)" ""
  done < <(git ls-files -co --exclude-standard -- '*.c' '*.h')
}

# lint_files EXTENSION-PATTERN SHEBANG-REGEX : the tracked and new files of
# one language: by extension (a case pattern), or, for names without one,
# by the interpreter their first line names.
lint_files() {
  shopt -s extglob
  git ls-files -co --exclude-standard | while IFS= read -r f; do
    [ -f "$f" ] || continue
    # shellcheck disable=SC2254 # the pattern is the caller's, on purpose
    case $f in
      $1) echo "$f" ;;
      *.*) ;;
      *) head -c 64 "$f" | grep -qE "$2" && echo "$f" ;;
    esac
  done
}

bats_suite() {
  local files=("$@")
  [ ${#files[@]} -gt 0 ] || files=(tests/*.bats)
  [ -e "${files[0]}" ] || { echo "1..0 # no bats files"; return 0; }
  # Every test has a deadline (bats kills it and says "timeout"), and so
  # has the suite: a hang fails one test, not the whole CI run.  No stdin:
  # a tool that reads it by mistake sees EOF instead of waiting.
  export BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-600}
  local lanes=${BATS_LANES:-2}
  command -v flock >/dev/null 2>&1 || lanes=1
  if [ "$lanes" -le 1 ] || [ ${#files[@]} -le 1 ]; then
    timeout -k 30 "$BATS_SUITE_TIMEOUT" bats --tap --timing "${files[@]}" </dev/null
    return
  fi
  bats_lanes "$lanes" "${files[@]}"
}

# The files that took longest (tests/run.sh's own timing, 2026-11): they
# start first, so that no long file is left to run alone at the end.  The
# files not named here follow, the largest first.
BATS_SLOW_FIRST='playbooks harness profile bsd-shootout micro-phases proof serve-fork plots
  report-view micro-frame latency micro-fsdisco httpd replay export'

# bats_lanes LANES FILE... : the files, LANES at a time (most of a test's
# time is waiting for a phase, a sync or a timeout, not CPU), each file's
# TAP printed whole when it ends.  Tests that look at the whole machine
# (the page cache, every process of a kind) run alone: tests/helpers.bash's
# `solo`, on the lock this sets.
bats_lanes() {
  local lanes=$1 f i deadline rc
  shift
  deadline=$(($(date +%s) + BATS_SUITE_TIMEOUT))
  export SHOOTOUT_LANE_LOCK=$logdir/lanes.lock
  : >"$SHOOTOUT_LANE_LOCK"
  # The queue: the slow files first, then the rest by size.
  for f in "$@"; do
    printf '%s %s %s\n' "$(slow_rank "$f")" "$(wc -c <"$f")" "$f"
  done | sort -k1,1n -k2,2rn | cut -d' ' -f3- >"$logdir/queue"
  cp "$logdir/queue" "$logdir/pending"
  mkdir -p "$logdir/done"
  # Built once here, not by two files at the same time.
  make -s --no-print-directory bsdpaths >/dev/null || echo "# make bsdpaths failed: the files that need it say so"
  for ((i = 1; i <= lanes; i++)); do
    bats_lane "$deadline" &
  done
  wait
  # a file that did not say it ended (a lane killed, say) is a failure
  rc=0
  while IFS= read -r f; do
    [ -e "$logdir/done/${f//\//_}" ] || { echo "not ok - $f did not finish"; rc=1; }
  done <"$logdir/queue"
  ! grep -q '^not ok ' "$logdir"/lane-*.tap 2>/dev/null && return $rc
}

# slow_rank FILE : its place in BATS_SLOW_FIRST, or 99.
slow_rank() {
  local n=0 s
  for s in $BATS_SLOW_FIRST; do
    n=$((n + 1))
    [ "$(basename "$1" .bats)" != "$s" ] || { echo "$n"; return; }
  done
  echo 99
}

# bats_lane DEADLINE : takes the next file of the queue until none is left.
bats_lane() {
  local f rc tap left t0
  while f=$(bats_next); do
    tap=$logdir/lane-${f//\//_}.tap
    left=$(($1 - $(date +%s)))
    t0=$(date +%s)
    if [ "$left" -le 0 ]; then
      echo "not ok - $f not run: the suite's deadline (BATS_SUITE_TIMEOUT=$BATS_SUITE_TIMEOUT s) had passed" >"$tap"
    else
      timeout -k 30 "$left" bats --tap --timing "$f" </dev/null >"$tap" 2>&1
      rc=$?
      if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        echo "not ok - $f stopped at the suite's deadline (BATS_SUITE_TIMEOUT=$BATS_SUITE_TIMEOUT s)" >>"$tap"
      elif [ "$rc" -ne 0 ] && ! grep -q '^not ok ' "$tap"; then
        echo "not ok - $f: bats exited $rc without reporting a failure" >>"$tap"
      fi
    fi
    # shellcheck disable=SC2016 # the inner sh expands them
    flock "$logdir/out.lock" sh -c 'echo "# $1 ($2 s)"; cat "$3"' _ "$f" "$(($(date +%s) - t0))" "$tap"
    : >"$logdir/done/${f//\//_}"
  done
}

# bats_next : the next file of the queue (none left: fails).
bats_next() {
  # shellcheck disable=SC2016 # the inner sh expands them
  flock "$logdir/queue.lock" sh -c 'f=$(head -n 1 "$1") && [ -n "$f" ] && sed -i 1d "$1" && printf "%s\n" "$f"' _ "$logdir/pending"
}

# The libFuzzer targets (make fuzz-build), a few seconds each: a crash
# fails; without clang they are skipped with the reason.
fuzz_suite() {
  tests/fuzz/run.sh "${FUZZ_TEST_S:-3}"
}

# The VM lab's TAP (`make test-lab` writes it whole when it ends):
# LAB_TAP=FILE adds it to the totals, and a missing file counts as a
# failure, so a lab that died without a word is not a pass.  Where the lab
# runs beside make test (.ci/run), LAB_PID is its process: the suite, the
# last one, waits for the file while that process runs, at most LAB_WAIT
# seconds (default 3600), and shows LAB_LOG's tail (the lab's output) when
# no TAP came.
# tap_or_gone FILE PID : FILE is there, or PID has ended.
tap_or_gone() {
  [ -r "$1" ] || pid_gone "$2"
}

lab_suite() {
  local tap=$1 t0=$SECONDS limit=${LAB_WAIT:-3600}
  if [ -n "${LAB_PID:-}" ] && [ ! -r "$tap" ] && ! pid_gone "$LAB_PID"; then
    echo "# waiting for the VM lab (pid $LAB_PID) to write $tap, at most $limit s"
    POLL_STEP=2 poll_until "$limit" tap_or_gone "$tap" "$LAB_PID" || true
    echo "# waited $((SECONDS - t0)) s for the VM lab"
  fi
  if [ -r "$tap" ]; then
    cat "$tap"
    return
  fi
  echo "1..1"
  if [ -n "${LAB_PID:-}" ] && ! pid_gone "$LAB_PID"; then
    echo "not ok 1 make test-lab wrote no $tap within $limit s (LAB_WAIT)"
  else
    echo "not ok 1 make test-lab left no $tap"
  fi
  [ -z "${LAB_LOG:-}" ] || tail -n 40 "$LAB_LOG" 2>/dev/null | sed 's/^/#   /'
}

# `make cross` (mk/cross.mk): one result per target and tool, each
# binary there and of the target's OS by `file`; the tools not yet
# portable are counted as skipped.
cross_suite() {
  local n=0 t tool want out targets tools pending
  targets=$(sed -n 's/^CROSS_TARGETS := //p' mk/cross.mk)
  tools=$(sed -n 's/^CROSS_TOOLS := //p' mk/cross.mk)
  pending=$(sed -n 's/^CROSS_PENDING := //p' mk/cross.mk)
  echo "1..$(($(wc -w <<<"$targets") * $(wc -w <<<"$tools $pending")))"
  for t in $targets; do
    case $t in
      *-freebsd*) want='for FreeBSD' ;;
      *-netbsd*) want='for NetBSD' ;;
      *-openbsd*) want='for OpenBSD' ;;
      aarch64-linux*) want='ARM aarch64.*for GNU/Linux' ;;
      *) want="unknown target $t" ;;
    esac
    for tool in $tools; do
      n=$((n + 1))
      out=$(file -b "bin/cross/$t/$tool" 2>&1)
      if [ -x "bin/cross/$t/$tool" ] && grep -qE "$want" <<<"$out"; then
        echo "ok $n - cross $t $tool"
      else
        echo "not ok $n - cross $t $tool"
        echo "#   want /$want/ from file(1), got: $out"
      fi
    done
    for tool in $pending; do
      n=$((n + 1))
      echo "ok $n - cross $t $tool # skip not yet portable (issue 14)"
    done
  done
}

what=${1:-all}
[ $# -gt 0 ] && shift
case $what in
  all)
    # lint reads the sources only: it runs beside the rest.
    start_suite lint lint_suite
    run_suite c c_suite build/default/tests
    run_suite asan c_suite build/asan/tests
    run_suite fuzz fuzz_suite
    run_suite bats bats_suite
    end_suite lint
    run_suite cross cross_suite
    [ -z "${LAB_TAP:-}" ] || run_suite lab lab_suite "$LAB_TAP"
    ;;
  c) run_suite c c_suite build/default/tests ;;
  asan) run_suite asan c_suite build/asan/tests ;;
  fuzz) run_suite fuzz fuzz_suite ;;
  bats) run_suite bats bats_suite "$@" ;;
  lint) run_suite lint lint_suite ;;
  cross) run_suite cross cross_suite ;;
  lab)
    [ $# -eq 1 ] || { echo "usage: tests/run.sh lab TAP-FILE" >&2; exit 2; }
    run_suite lab lab_suite "$1"
    ;;
  *) echo "usage: tests/run.sh [all|c|asan|fuzz|bats [FILE...]|lint|cross|lab TAP-FILE]" >&2; exit 2 ;;
esac

if [ "$skip" -gt 0 ]; then
  echo "$pass passed, $fail failed, $skip skipped"
else
  echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
