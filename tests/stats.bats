#!/usr/bin/env bats
# shellcheck disable=SC2154 # bats sets $stderr (run --separate-stderr)
# plots/stats.py, the one module of the statistics (docs/results.md): its unit
# tests (tests/stats_test.py) with scipy and without it (a host under test),
# and the command line the harness's stopping rule calls.
load helpers
bats_require_minimum_version 1.5.0

setup() {
  require_cmd python3
  cd "$ROOT" || return 1
  # plots.mk's python: Debian's, which sees python3-scipy (pyenv's may not)
  PY=python3
  [ ! -x /usr/bin/python3 ] || PY=/usr/bin/python3
}

@test "stats: unit tests with scipy" {
  "$PY" -c 'import scipy' 2>/dev/null || skip "needs python3-scipy (make deps)"
  run "$PY" tests/stats_test.py
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output == *OK* ]]
  [[ $output != *skipped* ]]
}

@test "stats: unit tests with the standard library alone (scipy blocked)" {
  run "$PY" tests/stats_test.py --no-scipy
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output == *OK* ]]
}

@test "stats: precision prints one line, exit 0; enough when the half-width is within the target" {
  run "$PY" plots/stats.py precision --target 3 99 100 101
  [ "$status" -eq 0 ]
  [ "$output" = "halfwidth_pct=2.48 n=3 enough=yes" ]
  run "$PY" plots/stats.py precision --target 2 99 100 101
  [ "$status" -eq 0 ]
  [ "$output" = "halfwidth_pct=2.48 n=3 enough=no" ]
  # a 90% interval is narrower
  run "$PY" plots/stats.py precision --target 2 --conf 0.9 99 100 101
  [ "$output" = "halfwidth_pct=1.69 n=3 enough=yes" ]
  # one trial: no interval
  run "$PY" plots/stats.py precision --target 2 100
  [ "$status" -eq 0 ]
  [ "$output" = "halfwidth_pct=inf n=1 enough=no" ]
  # the same line without scipy (a host under test)
  run "$PY" -S plots/stats.py precision --target 3 99 100 101
  [ "$output" = "halfwidth_pct=2.48 n=3 enough=yes" ]
}

@test "stats: precision refuses bad input in one line on stderr, exit 2" {
  for args in "--target 2 1 x" "--target 0 1 2" "1 2 3" "--target 2 --conf 2 1 2" "--target 2 1 inf" "--tagret 2 1"; do
    # shellcheck disable=SC2086 # the words are the arguments
    run --separate-stderr "$PY" plots/stats.py precision $args
    [ "$status" -eq 2 ] || { echo "$args: exit $status"; false; }
    [ -z "$output" ] || { echo "$args: stdout $output"; false; }
    [ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ] || { echo "$args: $stderr"; false; }
    [[ $stderr == "stats.py: "* ]]
  done
  run --separate-stderr "$PY" plots/stats.py
  [ "$status" -eq 2 ]
  [[ $stderr == *"usage: stats.py precision --target PCT"* ]]
}
