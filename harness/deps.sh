#!/bin/sh
# The Debian packages the project needs, in groups, so that each make
# target needs only its own (building five C tools needs no qemu).
#   harness/deps.sh check   [GROUP...]  exit 0 when all of them are installed
#   harness/deps.sh install [GROUP...]  apt-get update, then install what is missing
#   harness/deps.sh ensure  [GROUP...]  check, and install only when something is missing
#   harness/deps.sh list    [GROUP...]  print the packages
#   harness/deps.sh groups              print the groups and what each is for
#   harness/deps.sh non-free            add Debian's non-free component to apt's
#                                       sources when none of them has it
# No GROUP: every group.  The profile group also builds the flame graph
# renderer, the Rust crate inferno (INFERNO_VERSION, pinned), with cargo
# into build/inferno/ of the checkout (install and ensure; check says
# whether it is there), or copies the one built before on this machine
# (kept in $XDG_CACHE_HOME or ~/.cache, shootout/inferno-VERSION).
# iozone3 (group micro) is in Debian's non-free component, which a fresh
# Debian 12 does not enable: install (and ensure) add it first, only when a
# non-free package is missing and no source has the component, as a file of
# its own, $APT_ETC/sources.list.d/shootout-non-free.sources, made from the
# system's own Debian entries (those of its release, VERSION_CODENAME, and
# its -updates and -security suites) with "Components: non-free"; nothing
# else in apt's sources is changed.  DEPS_APT_ETC (default /etc/apt) and
# DEPS_OS_RELEASE (default /etc/os-release) are for the tests.
set -eu

# group|what it is for|packages
GROUPS_TABLE='build|compiling the tools (make all): libowfat, zlib, ISA-L for dltar|build-essential make libowfat-dev zlib1g-dev libisal-dev
static|make static: dietlibc, and apt-get source for its libowfat and zlib|dietlibc-dev dpkg-dev
fuzz|make fuzz: clang and its libFuzzer runtime (only recommended by clang-14)|clang libclang-rt-14-dev
cross|make cross: zig comes from PyPI into build/venv|python3-venv
test|make test and make lint: bats, linters (pyflakes for Python), groff for the man pages, chromium for the report screenshot test, and what the tests call (pandas and xmllint read the exports back)|bats shellcheck yamllint ansible-lint pyflakes3 groff-base curl jq python3 git time file chromium python3-pandas libxml2-utils
peers|the tools ours are compared with (make bench, tests): tar, bsdtar, pigz, igzip, nginx, wrk|tar libarchive-tools pigz gzip isal nginx-light wrk hyperfine
fs|the filesystems a variant can make, loop devices, findmnt; sfdisk and dmsetup for tests/device-check.bats|e2fsprogs xfsprogs btrfs-progs f2fs-tools jfsutils util-linux fdisk dmsetup
harness|the phases (make shootout): processes, network namespaces, tcpserver (ucspi-tcp) for the fork serve, bpftrace for the block-latency histograms (docs/latency.md)|procps iproute2 psmisc ucspi-tcp python3 jq curl bpftrace
playbooks|Ansible (community.general: doas for OpenBSD hosts) and SSH|ansible-core ansible openssh-client
plots|make plots, report, compare (scipy: the t-test; jinja2: the report HTML)|gnuplot-nox python3 python3-scipy python3-jinja2
micro|the micro-benchmark phases: Iometer-style (fio), PostMark, IOzone (iozone3, from the non-free component)|fio postmark iozone3
profile|the kernel profile of each phase (PROFILE=1, docs/profile.md): perf; cargo builds inferno, the flame graph renderer|linux-perf cargo
lab|the VM lab: qemu and the guest image|qemu-system-x86 qemu-utils debootstrap openssh-client
kernel|make lab-kernel and make bisect: building a kernel (bc, bison, flex, libelf, libssl) and the Debian kernel source (linux-source)|build-essential bc bison flex libelf-dev libssl-dev xz-utils linux-source'

# The packages of the groups that are in Debian's non-free component.
NONFREE_PKGS='iozone3'
APT_ETC=${DEPS_APT_ETC:-/etc/apt}
NONFREE_FILE=$APT_ETC/sources.list.d/shootout-non-free.sources

# inferno 0.11.14 is the newest whose locked dependencies Debian 12's rustc
# (1.63) builds: 0.11.15 needs clap 4.1 (rustc 1.64), 0.12 rustc 1.71.
INFERNO_VERSION=0.11.14
case $0 in */*) INFERNO_ROOT=${0%/*}/.. ;; *) INFERNO_ROOT=.. ;; esac
INFERNO_ROOT=$(cd "$INFERNO_ROOT" && pwd)/build/inferno
# The copy of this machine's build (inferno_build), outside the checkout,
# where make cross keeps its libraries too.
INFERNO_CACHE=''
if [ -n "${XDG_CACHE_HOME-}" ]; then
  INFERNO_CACHE=$XDG_CACHE_HOME/shootout/inferno-$INFERNO_VERSION
elif [ -n "${HOME-}" ]; then
  INFERNO_CACHE=$HOME/.cache/shootout/inferno-$INFERNO_VERSION
fi

deps_die() {
  echo "deps: $*" >&2
  exit 2
}

# Groups that only their own target installs, not make deps: the kernel
# source and build tools (make lab-kernel, make bisect) are 140 MB that CI
# and make demo never use.
ON_DEMAND_GROUPS='kernel'

# packages GROUP... : the packages of the groups named (all but
# ON_DEMAND_GROUPS when none).
packages() {
  if [ $# -eq 0 ]; then
    printf '%s\n' "$GROUPS_TABLE" | grep -v -E "^($(echo "$ON_DEMAND_GROUPS" | tr ' ' '|'))[|]" | cut -d'|' -f3
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

# has_nonfree : one of apt's sources (deb, one-line or deb822) has the
# component non-free (non-free-firmware is another one).
has_nonfree() {
  grep -qsE '^[[:space:]]*deb[[:space:]].*[[:space:]]non-free([[:space:]]|$)' \
    "$APT_ETC/sources.list" "$APT_ETC"/sources.list.d/*.list && return 0
  grep -qsiE '^Components:(.*[[:space:]])?non-free([[:space:]]|$)' "$APT_ETC"/sources.list.d/*.sources
}

# add_nonfree : NONFREE_FILE, the deb entries of this Debian release with
# the component non-free instead of theirs.
add_nonfree() {
  codename=$(awk -F= '$1 == "VERSION_CODENAME" { gsub(/["'"'"']/, "", $2); print $2 }' "${DEPS_OS_RELEASE:-/etc/os-release}" 2>/dev/null) || true
  [ -n "$codename" ] || deps_die "no VERSION_CODENAME in ${DEPS_OS_RELEASE:-/etc/os-release}: cannot add the non-free component"
  tmp=$NONFREE_FILE.tmp
  : >"$tmp" || deps_die "cannot write $tmp"
  for f in "$APT_ETC"/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    [ "$f" != "$NONFREE_FILE" ] || continue
    awk -v rel="$codename" 'BEGIN { RS = ""; ORS = "\n\n" }
      { n = split($0, l, "\n"); deb = 0; ours = 0; off = 0
        for (i = 1; i <= n; i++) {
          if (l[i] ~ /^Types:/ && l[i] ~ /[ \t]deb([ \t]|$)/) deb = 1
          if (l[i] ~ /^Enabled:[ \t]*no/) off = 1
          if (l[i] ~ /^Suites:/) { m = split(l[i], w, /[ \t]+/)
            for (j = 2; j <= m; j++) if (w[j] == rel || index(w[j], rel "-") == 1) ours = 1 } }
        if (!deb || !ours || off) next
        out = ""
        for (i = 1; i <= n; i++) {
          if (l[i] ~ /^Types:/) l[i] = "Types: deb"
          else if (l[i] ~ /^Components:/) l[i] = "Components: non-free"
          if (l[i] !~ /^#/) out = out l[i] "\n" }
        sub(/\n$/, "", out); print out }' "$f" >>"$tmp"
  done
  for f in "$APT_ETC/sources.list" "$APT_ETC"/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    awk -v rel="$codename" '$1 == "deb" {
        i = 2; key = ""
        if ($2 ~ /^\[/) {
          for (; i <= NF; i++) { if ($i ~ /^\[?signed-by=/) { key = $i; sub(/^\[?signed-by=/, "", key); sub(/\]$/, "", key) }
            if ($i ~ /\]$/) break }
          i++ }
        if ($(i + 1) != rel && index($(i + 1), rel "-") != 1) next
        printf "Types: deb\nURIs: %s\nSuites: %s\nComponents: non-free\n", $i, $(i + 1)
        if (key != "") printf "Signed-By: %s\n", key
        printf "\n" }' "$f" >>"$tmp"
  done
  if [ ! -s "$tmp" ]; then
    rm -f "$tmp"
    deps_die "no deb entry of Debian $codename in $APT_ETC's sources to add the non-free component to"
  fi
  mv "$tmp" "$NONFREE_FILE" || deps_die "cannot write $NONFREE_FILE"
  echo "deps: added $NONFREE_FILE (Debian's non-free component, for $NONFREE_PKGS)" >&2
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
  for p in $m; do
    case " $NONFREE_PKGS " in *" $p "*) has_nonfree || add_nonfree ;; esac
  done
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
# INFERNO_ROOT (a few minutes, once a machine): a copy of it is kept in
# INFERNO_CACHE, outside the checkout, which the next checkout of this
# machine (a fresh clone, CI) copies instead of building it again.
inferno_build() {
  inferno_ok && return 0
  if [ -n "$INFERNO_CACHE" ] && [ -x "$INFERNO_CACHE/bin/inferno-flamegraph" ] &&
    [ "$(cat "$INFERNO_CACHE/version" 2>/dev/null)" = "$INFERNO_VERSION" ]; then
    mkdir -p "$INFERNO_ROOT" && cp -R "$INFERNO_CACHE/." "$INFERNO_ROOT/" && inferno_ok && return 0
  fi
  command -v cargo >/dev/null 2>&1 || { echo "deps: no cargo to build inferno (harness/deps.sh install profile)" >&2; exit 1; }
  echo "deps: building inferno $INFERNO_VERSION (the flame graphs) into $INFERNO_ROOT"
  cargo install --quiet --locked --force --root "$INFERNO_ROOT" inferno --version "$INFERNO_VERSION" ||
    { echo "deps: cargo could not build inferno $INFERNO_VERSION" >&2; exit 1; }
  printf '%s\n' "$INFERNO_VERSION" >"$INFERNO_ROOT/version"
  # the cache is a convenience: one that cannot be written is no failure
  [ -z "$INFERNO_CACHE" ] || { mkdir -p "$INFERNO_CACHE" && cp -R "$INFERNO_ROOT/." "$INFERNO_CACHE/"; } 2>/dev/null || true
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
  non-free)
    has_nonfree || add_nonfree
    exit 0
    ;;
  check | install | ensure | list) ;;
  *)
    echo "usage: $0 check|install|ensure|list [GROUP...] | groups | non-free" >&2
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
