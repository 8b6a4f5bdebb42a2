#!/bin/sh
# The Debian packages the project needs, in groups, so that each make
# target needs only its own (building five C tools needs no qemu).
#   harness/deps.sh check   [GROUP...]  exit 0 when all of them are installed
#   harness/deps.sh install [GROUP...]  apt-get update, then install what is missing
#   harness/deps.sh ensure  [GROUP...]  check, and install only when something is missing
#   harness/deps.sh list    [GROUP...]  print the packages
#   harness/deps.sh groups              print the groups and what each is for
# No GROUP: every group.
set -eu

# group|what it is for|packages
GROUPS_TABLE='build|compiling the tools (make all): libowfat, zlib, ISA-L for dltar|build-essential make libowfat-dev zlib1g-dev libisal-dev
static|make static: dietlibc, and apt-get source for its libowfat and zlib|dietlibc-dev dpkg-dev
fuzz|make fuzz: clang and its libFuzzer runtime (only recommended by clang-14)|clang libclang-rt-14-dev
cross|make cross: zig comes from PyPI into build/venv|python3-venv
test|make test and make lint: bats, linters (pyflakes for Python), groff for the man pages, and what the tests call|bats shellcheck yamllint ansible-lint pyflakes3 groff-base curl jq python3 git time file
peers|the tools ours are compared with (make bench, tests): tar, bsdtar, pigz, igzip, nginx, wrk|tar libarchive-tools pigz gzip isal nginx-light wrk hyperfine
fs|the filesystems a variant can make, loop devices, findmnt; sfdisk and dmsetup for tests/device-check.bats|e2fsprogs xfsprogs btrfs-progs f2fs-tools jfsutils util-linux fdisk dmsetup
harness|the phases (make shootout): processes, network namespaces, tcpserver (ucspi-tcp) for the fork serve, bpftrace for the block-latency histograms (docs/latency.md)|procps iproute2 psmisc ucspi-tcp python3 jq curl bpftrace
playbooks|Ansible (community.general: doas for OpenBSD hosts) and SSH|ansible-core ansible openssh-client
plots|make plots, report, compare (scipy: its t-test)|gnuplot-nox python3 python3-scipy
micro|the micro-benchmark phases: Iometer-style (fio), PostMark|fio postmark
lab|the VM lab: qemu and the guest image|qemu-system-x86 qemu-utils debootstrap openssh-client'

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
    ;;
  install) install "$@" ;;
  ensure)
    # Not Debian (the BSDs): docs/building.md's section for that OS says what
    # to install; say so and go on rather than stop a build.
    if ! command -v dpkg-query >/dev/null 2>&1; then
      echo "deps: no dpkg here: not checking the Debian packages of ${groups_named:-every group}" >&2
      exit 0
    fi
    install "$@"
    ;;
esac
