#!/usr/bin/env bash
# Runs the test suites and prints, as its very last line,
#   N passed, N failed[, N skipped]
# totalled over every suite.  Every suite speaks TAP; a suite that dies
# without reporting a failure counts as one failure.
#   tests/run.sh              every suite (C, C under ASan+UBSan, bats, lint;
#                             with LAB_TAP=FILE the VM lab's TAP too)
#   tests/run.sh c|asan|fuzz|lint  one suite (fuzz: each libFuzzer target of
#                             build/fuzz/ for FUZZ_TEST_S seconds, default 3)
#   tests/run.sh bats [FILE.bats ...]
set -u
cd "$(dirname "$0")/.." || exit 2

pass=0 fail=0 skip=0
logdir=$(mktemp -d "${TMPDIR:-/tmp}/shootout-tests.XXXXXX")
trap 'rm -rf "$logdir"' EXIT

# run_suite NAME CMD... : run CMD, show its TAP, add its counts to the totals.
run_suite() {
  local name=$1 t0 rc p f s
  shift
  t0=$(date +%s)
  echo "== $name"
  # Streamed, not buffered, so a CI log shows how far a suite got.
  "$@" 2>&1 | tee "$logdir/$name.tap"
  rc=${PIPESTATUS[0]}
  s=$(grep -ciE '^ok .*# skip' "$logdir/$name.tap")
  p=$(grep -c '^ok ' "$logdir/$name.tap")
  p=$((p - s))
  f=$(grep -c '^not ok ' "$logdir/$name.tap")
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    echo "not ok - suite $name exited $rc without reporting a failure"
    f=1
  fi
  pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
  echo "== $name: $p passed, $f failed, $s skipped ($(($(date +%s) - t0)) s)"
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
  BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-600} \
    timeout -k 30 "${BATS_SUITE_TIMEOUT:-1500}" bats --tap --timing "${files[@]}" </dev/null
}

# The libFuzzer targets (make fuzz-build), a few seconds each: a crash
# fails; without clang they are skipped with the reason.
fuzz_suite() {
  tests/fuzz/run.sh "${FUZZ_TEST_S:-3}"
}

# The VM lab's TAP (`make test-lab` writes it; .ci/run runs it first, as it
# takes 20-30 minutes): LAB_TAP=FILE adds it to the totals, and a missing
# file counts as a failure, so a lab that died without a word is not a pass.
lab_suite() {
  if [ -r "$1" ]; then
    cat "$1"
  else
    echo "1..1"
    echo "not ok 1 make test-lab left no $1"
  fi
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
    run_suite c c_suite build/default/tests
    run_suite asan c_suite build/asan/tests
    run_suite fuzz fuzz_suite
    run_suite bats bats_suite
    run_suite lint lint_suite
    run_suite cross cross_suite
    [ -z "${LAB_TAP:-}" ] || run_suite lab lab_suite "$LAB_TAP"
    ;;
  c) run_suite c c_suite build/default/tests ;;
  asan) run_suite asan c_suite build/asan/tests ;;
  fuzz) run_suite fuzz fuzz_suite ;;
  bats) run_suite bats bats_suite "$@" ;;
  lint) run_suite lint lint_suite ;;
  cross) run_suite cross cross_suite ;;
  *) echo "usage: tests/run.sh [all|c|asan|fuzz|bats [FILE...]|lint]" >&2; exit 2 ;;
esac

if [ "$skip" -gt 0 ]; then
  echo "$pass passed, $fail failed, $skip skipped"
else
  echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
