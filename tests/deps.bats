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
  for g in build static fuzz cross test peers fs harness playbooks plots micro lab kernel; do
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
  # but not the kernel source (140 MB): make lab-kernel and make bisect install it
  run ! grep -qx linux-source < <("$DEPS" list)
  "$DEPS" list kernel | grep -qx linux-source
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

@test "deps.sh non-free: a source for iozone3 made from this release's Debian entries, once, and only when none has non-free" {
  local etc=$BATS_TEST_TMPDIR/apt out
  mkdir -p "$etc/sources.list.d"
  printf 'VERSION_CODENAME=bookworm\n' >"$BATS_TEST_TMPDIR/os-release"
  printf 'Types: deb\nURIs: http://mirror.example/debian\nSuites: bookworm bookworm-updates\nComponents: main non-free-firmware\nSigned-By: /k/debian.gpg\n\nTypes: deb-src\nURIs: http://mirror.example/debian\nSuites: bookworm\nComponents: main\n' \
    >"$etc/sources.list.d/debian.sources"
  printf 'Types: deb\nURIs: http://vendor.example/apt\nSuites: nodistro\nComponents: main\n' >"$etc/sources.list.d/vendor.sources"
  printf 'deb [arch=amd64 signed-by=/k/sec.gpg] http://security.example/debian-security bookworm-security main\ndeb http://vendor.example/x cloud-bookworm main\n' \
    >"$etc/sources.list"
  "$DEPS" list micro | grep -qx iozone3
  run --separate-stderr env DEPS_APT_ETC="$etc" DEPS_OS_RELEASE="$BATS_TEST_TMPDIR/os-release" "$DEPS" non-free
  [ "$status" -eq 0 ]
  [ "$stderr" = "deps: added $etc/sources.list.d/shootout-non-free.sources (Debian's non-free component, for iozone3)" ]
  out=$(cat "$etc/sources.list.d/shootout-non-free.sources")
  [ "$out" = "$(printf 'Types: deb\nURIs: http://mirror.example/debian\nSuites: bookworm bookworm-updates\nComponents: non-free\nSigned-By: /k/debian.gpg\n\nTypes: deb\nURIs: http://security.example/debian-security\nSuites: bookworm-security\nComponents: non-free\nSigned-By: /k/sec.gpg')" ]
  # the other sources are as they were
  grep -qx 'Components: main non-free-firmware' "$etc/sources.list.d/debian.sources"
  # again: non-free is there now, nothing is said or written
  rm "$etc/sources.list.d/debian.sources"
  run --separate-stderr env DEPS_APT_ETC="$etc" DEPS_OS_RELEASE="$BATS_TEST_TMPDIR/os-release" "$DEPS" non-free
  [ "$status" -eq 0 ]
  [ -z "$stderr" ]
  # a system whose own sources have non-free gets no file
  rm "$etc/sources.list.d/shootout-non-free.sources"
  printf 'deb http://mirror.example/debian bookworm main contrib non-free\n' >"$etc/sources.list"
  run --separate-stderr env DEPS_APT_ETC="$etc" DEPS_OS_RELEASE="$BATS_TEST_TMPDIR/os-release" "$DEPS" non-free
  [ "$status" -eq 0 ]
  [ ! -e "$etc/sources.list.d/shootout-non-free.sources" ]
  # none of this release's entries: one line, exit 2, nothing written
  printf 'deb http://vendor.example/x nodistro main\n' >"$etc/sources.list"
  run --separate-stderr env DEPS_APT_ETC="$etc" DEPS_OS_RELEASE="$BATS_TEST_TMPDIR/os-release" "$DEPS" non-free
  [ "$status" -eq 2 ]
  [ "$stderr" = "deps: no deb entry of Debian bookworm in $etc's sources to add the non-free component to" ]
  [ ! -e "$etc/sources.list.d/shootout-non-free.sources" ]
  [ ! -e "$etc/sources.list.d/shootout-non-free.sources.tmp" ]
}

@test "deps.sh ensure profile: inferno built once a machine: a fresh checkout copies the one kept in ~/.cache instead of building it again" {
  local co=$BATS_TEST_TMPDIR/co bin=$BATS_TEST_TMPDIR/bin cache=$BATS_TEST_TMPDIR/cache v
  v=$(sed -n 's/^INFERNO_VERSION=//p' "$DEPS")
  mkdir -p "$co/harness" "$bin"
  cp "$DEPS" "$co/harness/deps.sh"
  # every package installed; a cargo that builds a stand-in and says so
  printf '#!/bin/sh\necho "install ok installed"\n' >"$bin/dpkg-query"
  # shellcheck disable=SC2016 # the stand-in's own $1, $2 and $*
  printf '#!/bin/sh\necho "cargo $*" >>"%s/cargo.log"\nwhile [ "$1" != --root ]; do shift; done\nmkdir -p "$2/bin" && printf "#!/bin/sh\\n" >"$2/bin/inferno-flamegraph" && chmod +x "$2/bin/inferno-flamegraph"\n' \
    "$BATS_TEST_TMPDIR" >"$bin/cargo"
  chmod +x "$bin/dpkg-query" "$bin/cargo"
  # the first checkout builds it, and keeps a copy
  run env PATH="$bin:$PATH" XDG_CACHE_HOME="$cache" "$co/harness/deps.sh" ensure profile
  echo "$output"
  [ "$status" -eq 0 ]
  [ "$(grep -c '^cargo install' "$BATS_TEST_TMPDIR/cargo.log")" -eq 1 ]
  [ -x "$co/build/inferno/bin/inferno-flamegraph" ]
  [ "$(cat "$cache/shootout/inferno-$v/version")" = "$v" ]
  [ -x "$cache/shootout/inferno-$v/bin/inferno-flamegraph" ]
  # a fresh one copies it: no cargo
  rm -rf "$co/build"
  run env PATH="$bin:$PATH" XDG_CACHE_HOME="$cache" "$co/harness/deps.sh" ensure profile
  [ "$status" -eq 0 ]
  [ "$(grep -c '^cargo install' "$BATS_TEST_TMPDIR/cargo.log")" -eq 1 ]
  [ -x "$co/build/inferno/bin/inferno-flamegraph" ]
  [ "$(cat "$co/build/inferno/version")" = "$v" ]
  env PATH="$bin:$PATH" XDG_CACHE_HOME="$cache" "$co/harness/deps.sh" check profile
  # a cache of another version is not taken
  rm -rf "$co/build"
  echo 0.0.1 >"$cache/shootout/inferno-$v/version"
  run env PATH="$bin:$PATH" XDG_CACHE_HOME="$cache" "$co/harness/deps.sh" ensure profile
  [ "$status" -eq 0 ]
  [ "$(grep -c '^cargo install' "$BATS_TEST_TMPDIR/cargo.log")" -eq 2 ]
}
