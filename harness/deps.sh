#!/bin/sh
# The Debian packages the project needs, in groups, so that each make
# target needs only its own (building five C tools needs no qemu).
#   harness/deps.sh check   [GROUP...]  exit 0 when all of them are installed
#   harness/deps.sh install [GROUP...]  apt-get update, then install what is missing
#   harness/deps.sh ensure  [GROUP...]  check, and install only when something is missing
#   harness/deps.sh list    [GROUP...]  print the packages
#   harness/deps.sh groups              print the groups and what each is for
# No GROUP: every group.  The profile group also builds the flame graph
# renderer, the Rust crate inferno (INFERNO_VERSION, pinned), with cargo
# into build/inferno/ of the checkout (install and ensure; check says
# whether it is there).
set -eu

# group|what it is for|packages
GROUPS_TABLE='build|compiling the tools (make all): libowfat, zlib, ISA-L for dltar|build-essential make libowfat-dev zlib1g-dev libisal-dev
static|make static: dietlibc, and apt-get source for its libowfat and zlib|dietlibc-dev dpkg-dev
fuzz|make fuzz: clang and its libFuzzer runtime (only recommended by clang-14)|clang libclang-rt-14-dev
cross|make cross: zig comes from PyPI into build/venv|python3-venv
test|make test and make lint: bats, linters (pyflakes for Python), groff for the man pages, and what the tests call|bats shellcheck yamllint ansible-lint pyflakes3 groff-base curl jq python3 git time file
peers|the tools ours are compared with (make bench, tests): tar, bsdtar, pigz, igzip, nginx, wrk|tar libarchive-tools pigz gzip isal nginx-light wrk hyperfine
fs|the filesystems a variant can make, loop devices, findmnt; sfdisk and dmsetup for tests/device-check.bats|e2fsprogs xfsprogs btrfs-progs f2fs-tools jfsutils util-linux fdisk dmsetup
harness|the phases (make shootout): processes, network namespaces, tcpserver (ucspi-tcp) for the fork serve|procps iproute2 psmisc ucspi-tcp python3 jq curl
playbooks|Ansible (community.general: doas for OpenBSD hosts) and SSH|ansible-core ansible openssh-client
plots|make plots, report, compare (scipy: its t-test)|gnuplot-nox python3 python3-scipy
micro|the micro-benchmark phases: Iometer-style (fio), PostMark|fio postmark
profile|the kernel profile of each phase (PROFILE=1, docs/profile.md): perf; cargo builds inferno, the flame graph renderer|linux-perf cargo
lab|the VM lab: qemu and the guest image|qemu-system-x86 qemu-utils debootstrap openssh-client'

# inferno 0.11.14 is the newest whose locked dependencies Debian 12's rustc
# (1.63) builds: 0.11.15 needs clap 4.1 (rustc 1.64), 0.12 rustc 1.71.
INFERNO_VERSION=0.11.14
case $0 in */*) INFERNO_ROOT=${0%/*}/.. ;; *) INFERNO_ROOT=.. ;; esac
INFERNO_ROOT=$(cd "$INFERNO_ROOT" && pwd)/build/inferno

deps_die() {
  echo "deps: $*" >&2
  exit 2
}

# packages GROUP... : the packages of the groups named (all when none).
packages() {
  if [ $# -eq 0 ]; then
    printf '%s\n' "$GROUPS_TABLE" | cut -d'|' -f3
    return
  fi
  for g in "$@"; do
    line=$(printf '%s\n' "$GROUPS_TABLE" | grep "^$g|") ||
      deps_die "no group '$g' (harness/deps.sh groups lists them)"
    printf '%s\n' "$line" | cut -d'|' -f3
  done
}

# missing PACKAGE... : the ones dpkg does not have installed, once each.
missing() {
  for p in "$@"; do
    s=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    case $s in
      *"install ok installed"*) ;;
      *) printf '%s\n' "$p" ;;
    esac
  done | sort -u
}

# (the package lists are meant to be split into words)
# shellcheck disable=SC2086
install() {
  m=$(missing "$@")
  [ -z "$m" ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    echo "deps: need root to install:" $m "(run 'sudo make deps')" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update
  apt-get install -y --no-install-recommends $m
}

# inferno_ok : the pinned inferno is built.
inferno_ok() {
  [ -x "$INFERNO_ROOT/bin/inferno-flamegraph" ] &&
    [ "$(cat "$INFERNO_ROOT/version" 2>/dev/null)" = "$INFERNO_VERSION" ]
}

# inferno_build : cargo install --locked the pinned inferno into
# INFERNO_ROOT (a few minutes, once).
inferno_build() {
  inferno_ok && return 0
  command -v cargo >/dev/null 2>&1 || { echo "deps: no cargo to build inferno (harness/deps.sh install profile)" >&2; exit 1; }
  echo "deps: building inferno $INFERNO_VERSION (the flame graphs) into $INFERNO_ROOT"
  cargo install --quiet --locked --force --root "$INFERNO_ROOT" inferno --version "$INFERNO_VERSION" ||
    { echo "deps: cargo could not build inferno $INFERNO_VERSION" >&2; exit 1; }
  printf '%s\n' "$INFERNO_VERSION" >"$INFERNO_ROOT/version"
}

# wants_profile GROUP... : the profile group is named (or every group).
wants_profile() {
  [ $# -eq 0 ] && return 0
  case " $* " in *" profile "*) return 0 ;; esac
  return 1
}

verb=${1:-check}
[ $# -gt 0 ] && shift
case $verb in
  groups)
    printf '%s\n' "$GROUPS_TABLE" | awk -F'|' '{ printf "%-10s %s\n", $1, $2 }'
    exit 0
    ;;
  check | install | ensure | list) ;;
  *)
    echo "usage: $0 check|install|ensure|list [GROUP...] | groups" >&2
    exit 2
    ;;
esac
groups_named=$*
pkgs=$(packages "$@") || exit 2
profile=0
if wants_profile "$@"; then profile=1; fi
# The package lists are meant to be split into words.
# shellcheck disable=SC2086
set -- $pkgs
case $verb in
  list) printf '%s\n' "$@" ;;
  check)
    m=$(missing "$@")
    if [ -n "$m" ]; then
      # shellcheck disable=SC2086
      echo "deps: missing packages:" $m "(run 'make deps')" >&2
      exit 1
    fi
    if [ "$profile" = 1 ] && ! inferno_ok; then
      echo "deps: inferno $INFERNO_VERSION is not built in $INFERNO_ROOT (run 'make deps')" >&2
      exit 1
    fi
    ;;
  install)
    install "$@"
    [ "$profile" = 0 ] || inferno_build
    ;;
  ensure)
    # Not Debian (the BSDs): docs/building.md's section for that OS says what
    # to install; say so and go on rather than stop a build.
    if ! command -v dpkg-query >/dev/null 2>&1; then
      echo "deps: no dpkg here: not checking the Debian packages of ${groups_named:-every group}" >&2
      exit 0
    fi
    install "$@"
    [ "$profile" = 0 ] || inferno_build
    ;;
esac
