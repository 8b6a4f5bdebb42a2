#!/usr/bin/env bats
# tests/run.sh's lab suite as CI runs it (.ci/run): the VM lab beside make
# test, its TAP counted when it comes; a lab that ends without one, or
# takes longer than LAB_WAIT, is one failure with the lab's output.
load helpers

setup() {
  T=$BATS_TEST_TMPDIR
  LAB=''
  # (.ci/run sets them for the make test these tests run in)
  unset LAB_TAP LAB_PID LAB_WAIT LAB_LOG
}

teardown() {
  [ -z "$LAB" ] || kill "$LAB" 2>/dev/null || true
}

@test "run.sh lab: the TAP of a lab still running is waited for and counted" {
  # a lab that writes its TAP whole (as make test-lab does) a moment later
  bash -c 'sleep 3; printf "1..2\nok 1 - a\nok 2 - b # skip why\n" >"$1.tmp"; mv "$1.tmp" "$1"' _ "$T/lab.tap" 3>&- &
  LAB=$!
  run env LAB_PID="$LAB" "$ROOT/tests/run.sh" lab "$T/lab.tap"
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output == *"# waiting for the VM lab (pid $LAB) to write $T/lab.tap, at most 3600 s"* ]]
  [[ $output == *"ok 1 - a"* ]]
  [ "${lines[-1]}" = "1 passed, 0 failed, 1 skipped" ]
}

@test "run.sh lab: a lab that ended without a TAP is a failure that shows the lab's output" {
  echo "make: *** [test-lab] the image could not be built" >"$T/lab.log"
  bash -c 'exit 2' &
  LAB=$!
  wait "$LAB" || true
  run env LAB_PID="$LAB" LAB_LOG="$T/lab.log" "$ROOT/tests/run.sh" lab "$T/lab.tap"
  echo "$output"
  [ "$status" -eq 1 ]
  [[ $output == *"not ok 1 make test-lab left no $T/lab.tap"* ]]
  [[ $output == *"#   make: *** [test-lab] the image could not be built"* ]]
  [ "${lines[-1]}" = "0 passed, 1 failed" ]
}

@test "run.sh lab: a lab past LAB_WAIT is a failure, not a wait without end" {
  bash -c 'sleep 120' 3>&- &
  LAB=$!
  local t0=$SECONDS
  run env LAB_PID="$LAB" LAB_WAIT=4 "$ROOT/tests/run.sh" lab "$T/lab.tap"
  echo "$output"
  [ "$status" -eq 1 ]
  [[ $output == *"not ok 1 make test-lab wrote no $T/lab.tap within 4 s (LAB_WAIT)"* ]]
  [ $((SECONDS - t0)) -lt 60 ]
  run "$ROOT/tests/run.sh" lab
  [ "$status" -eq 2 ]
  [[ $output == *"usage: tests/run.sh lab TAP-FILE"* ]]
}
