#!/bin/sh
# Installs (or checks) every Debian package the project needs.
#   harness/deps.sh check     exit 0 when everything is installed
#   harness/deps.sh install   apt-get update, then install what is missing
#   harness/deps.sh list      print the package list
set -eu

# Build: compiler, libowfat, zlib, dietlibc for `make static`; ISA-L
# (libisal-dev) for dltar's inflater, and its igzip (isal) as a bench peer.
# Fuzz targets (`make fuzz`, tools/fuzz.mk): clang (Debian 12: clang-14) and
# its libFuzzer/sanitizer runtime, libclang-rt-14-dev (only recommended by
# clang-14, so named here).
# Tests and lint: bats, shellcheck, yamllint, ansible-lint, curl, jq.
# Workload peers for tests and `make bench`: GNU tar, bsdtar, pigz, nginx, wrk.
# Filesystems: e2fsprogs, xfsprogs, btrfs-progs, f2fs-tools, jfsutils.
# Harness and playbooks: ansible-core, ansible (community.general: doas for
# OpenBSD hosts), util-linux (findmnt, losetup), procps, ucspi-tcp
# (tcpserver: the serve-*-fork phases' process-per-connection server).
# Plots: gnuplot-nox.  Micro-benchmarks: fio, postmark.
# VM lab: qemu, debootstrap.
# mkdataset tests and `make static`: time (max RSS), file, dpkg-dev (apt-get source).
# `make cross`: python3-venv (zig comes from PyPI into build/venv).
PACKAGES="build-essential make libowfat-dev zlib1g-dev dietlibc-dev libisal-dev isal
clang libclang-rt-14-dev
bats shellcheck yamllint ansible-lint curl jq python3 git
tar libarchive-tools pigz gzip nginx-light wrk hyperfine
e2fsprogs xfsprogs btrfs-progs f2fs-tools jfsutils
ansible-core ansible util-linux procps iproute2 psmisc ucspi-tcp
gnuplot-nox fio postmark
qemu-system-x86 qemu-utils debootstrap openssh-client
time file dpkg-dev python3-venv"

missing() {
  for p in $PACKAGES; do
    s=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    case $s in
      *"install ok installed"*) ;;
      *) printf '%s\n' "$p" ;;
    esac
  done
}

# The package list is meant to be split into words.
# shellcheck disable=SC2086
case ${1:-check} in
  list)
    printf '%s\n' $PACKAGES
    ;;
  check)
    m=$(missing)
    if [ -n "$m" ]; then
      echo "deps: missing packages:" $m "(run 'make deps')" >&2
      exit 1
    fi
    ;;
  install)
    m=$(missing)
    [ -z "$m" ] && exit 0
    if [ "$(id -u)" -ne 0 ]; then
      echo "deps: need root to install:" $m "(run 'sudo make deps')" >&2
      exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    apt-get update
    apt-get install -y --no-install-recommends $m
    ;;
  *)
    echo "usage: $0 check|install|list" >&2
    exit 2
    ;;
esac
