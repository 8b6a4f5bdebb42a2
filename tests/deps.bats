#!/usr/bin/env bats
# shellcheck disable=SC2154 # bats sets $stderr (run --separate-stderr)
# harness/deps.sh: the Debian packages in groups, and each make target
# asking only for its own groups.

load helpers
bats_require_minimum_version 1.5.0

ROOT=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
DEPS=$ROOT/harness/deps.sh

@test "deps.sh groups: every group says what it is for and has packages" {
  run "$DEPS" groups
  [ "$status" -eq 0 ]
  for g in build static fuzz cross test peers fs harness playbooks plots micro lab; do
    grep -q "^$g  *[a-zA-Z]" <<<"$output" || { echo "no group $g"; false; }
    [ -n "$("$DEPS" list "$g")" ]
  done
}

@test "deps.sh list: the build group is the compiler and the tools' libraries, no qemu or nginx" {
  run "$DEPS" list build
  [ "$status" -eq 0 ]
  [[ $output == *libowfat-dev* && $output == *zlib1g-dev* ]]
  [[ $output != *qemu* && $output != *nginx* && $output != *ansible* ]]
  # every group together: each package once per group, qemu among them
  "$DEPS" list | grep -qx qemu-system-x86
}

@test "deps.sh: an unknown group or verb is refused with one line and exit 2" {
  run --separate-stderr "$DEPS" check nosuchgroup
  [ "$status" -eq 2 ]
  [ "$stderr" = "deps: no group 'nosuchgroup' (harness/deps.sh groups lists them)" ]
  run "$DEPS" frobnicate
  [ "$status" -eq 2 ]
  [[ $output == usage:* ]]
}

@test "deps.sh ensure: without dpkg it says so and goes on" {
  local bin=$BATS_TEST_TMPDIR/bin
  mkdir -p "$bin"
  # a PATH with sh and the text tools but no dpkg-query
  for c in sh cut grep awk sort printf cat; do
    ln -s "$(command -v "$c")" "$bin/$c" 2>/dev/null || true
  done
  run --separate-stderr env PATH="$bin" sh "$DEPS" ensure build
  [ "$status" -eq 0 ]
  [ "$stderr" = "deps: no dpkg here: not checking the Debian packages of build" ]
}

@test "make: each target ensures only its own groups" {
  cd "$ROOT"
  run make -n all
  [[ $output == *"harness/deps.sh ensure build"* ]]
  [[ $output != *"ensure build static"* && $output != *lab* ]]
  run make -n bench
  [[ $output == *"harness/deps.sh ensure peers"* ]]
  run make -n lab
  [[ $output == *"harness/deps.sh ensure lab playbooks"* ]]
  run make -n report
  [[ $output == *"harness/deps.sh ensure plots"* ]]
  run make -n test
  [[ $output == *"harness/deps.sh ensure build static fuzz cross test peers fs harness playbooks plots micro"* ]]
  [[ $output != *"ensure"*" lab"* ]]
}
