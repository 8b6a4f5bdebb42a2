#!/usr/bin/env bash
# A kernel for the VM lab built with a small config made from the guest's:
# what make lab-kernel builds, and make bisect for each candidate (docs/lab.md,
# "A kernel of your own, built small").  The result is a kernel directory
# that kernel.sh boots as dir:PATH: bzImage and config, no initramfs, no
# modules (what the lab needs is built in).
#   kernel-build.sh run       make lab-kernel: the tree KERNEL_SRC (none:
#                             Debian's linux-source, unpacked into
#                             KERNEL_OUT/src) built into KERNEL_OUT/small
#   kernel-build.sh fragment BASE FILESYSTEMS
#                             print the lab's config fragment made from the
#                             kernel config BASE (the guest's) for the
#                             filesystems FILESYSTEMS (comma-separated)
#   kernel-build.sh build SRC OBJ KDIR BASE FILESYSTEMS
#                             configure the tree SRC in the object directory
#                             OBJ (make O=OBJ: defconfig, the tree's
#                             kernel/configs/kvm_guest.config, the fragment,
#                             olddefconfig), build it with KERNEL_MAKE run in
#                             OBJ (kept: the next build is incremental), and
#                             fill KDIR: bzImage, config, lab.config (the
#                             fragment), release, build.log, build.tsv
#   kernel-build.sh check FRAGMENT CONFIG
#                             the fragment's options that CONFIG does not
#                             have as it asks: exit 1 when one is a boot one
# The fragment (playbooks/lab/kconfig.tsv says what and why): the options
# the guest cannot boot without and the run's filesystems, built in (=y);
# those the guest's userland and the phases use, built in when the guest's
# config has them (=y or =m); display, sound, USB and radio off.
# Settings (make lab-kernel passes them): KERNEL_SRC, KERNEL_OUT,
# KERNEL_BASE_CONFIG (none: the kernel config of LAB_OS's first image),
# KERNEL_MAKE; LAB_VARIANTS (the run's filesystems), LAB_OS.
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LAB=$ROOT/playbooks/lab
KCONFIG_TABLE=$LAB/kconfig.tsv
# shellcheck disable=SC2016 # $(nproc) is the build command's, run by bash -c
KERNEL_MAKE=${KERNEL_MAKE-'make -j$(nproc) bzImage'}

kb_say() { printf 'lab-kernel: %s\n' "$*" >&2; }
kb_die() { kb_say "$*"; exit 1; }

# fs_option NAME : the option of the filesystem NAME (a LAB_VARIANTS name).
fs_option() {
  case $1 in
    '' | *[!a-z0-9]*) kb_die "LAB_VARIANTS: '$1' is not a filesystem name (e.g. ext4,xfs)" ;;
    tmpfs) echo TMPFS ;;
    ext2 | ext3 | ext4) echo EXT4_FS ;;
    *) printf '%s_FS\n' "${1^^}" ;;
  esac
}

# fragment BASE FILESYSTEMS : the lab's fragment (above) on stdout, in three
# parts headed "# lab-kernel: boot", "lab" and "off" (check reads them).
fragment() {
  local base=$1 fss=$2 fs opt boot='' lab='' off='' o need _
  if [ ! -r "$base" ] || [ ! -f "$base" ]; then kb_die "cannot read the kernel config $base"; fi
  grep -q '^CONFIG_[A-Za-z0-9_]*=' "$base" || kb_die "$base is not a kernel config (no CONFIG_ line)"
  has() { grep -Eq "^CONFIG_$1=(y|m)$" "$base"; }
  local IFS=,
  for fs in $fss; do
    opt=$(fs_option "$fs")
    has "$opt" || kb_die "LAB_VARIANTS: the guest's config ($base) has no CONFIG_$opt: $fs cannot be built in"
    boot="$boot $opt"
  done
  unset IFS
  [ -r "$KCONFIG_TABLE" ] || kb_die "cannot read $KCONFIG_TABLE"
  while IFS=$'\t' read -r o need _; do
    case $o in '' | '#'*) continue ;; esac
    case $need in
      boot) boot="$boot $o" ;;
      lab) if has "$o"; then lab="$lab $o"; fi ;;
      off) off="$off $o" ;;
      *) kb_die "$KCONFIG_TABLE: option $o: '$need' is not boot, lab or off" ;;
    esac
  done <"$KCONFIG_TABLE"
  printf '# The VM lab'"'"'s options (playbooks/lab/kconfig.tsv) from %s, filesystems %s\n' "$base" "${fss:-none}"
  echo '# lab-kernel: boot'
  # (the lists are option names, split on purpose; the boot ones once each)
  # shellcheck disable=SC2086
  printf 'CONFIG_%s=y\n' $boot | awk '!seen[$0]++'
  echo '# lab-kernel: lab'
  # shellcheck disable=SC2086
  [ -z "$lab" ] || printf 'CONFIG_%s=y\n' $lab
  echo '# lab-kernel: off'
  # shellcheck disable=SC2086
  [ -z "$off" ] || printf '# CONFIG_%s is not set\n' $off
}

# check FRAGMENT CONFIG : each option of FRAGMENT's boot and lab parts that
# CONFIG does not have built in (olddefconfig drops an option whose
# dependencies are off), one line "boot|lab OPTION"; exit 1 when a boot one
# is missing.
check() {
  local frag=$1 config=$2
  [ -r "$frag" ] || kb_die "cannot read $frag"
  [ -r "$config" ] || kb_die "cannot read $config"
  awk 'FNR == NR { if ($0 ~ /^CONFIG_[A-Za-z0-9_]+=y$/) { sub(/=y$/, ""); y[$0] = 1 } next }
    /^# lab-kernel: / { part = $3; next }
    /^CONFIG_[A-Za-z0-9_]+=y$/ && (part == "boot" || part == "lab") {
      o = $0; sub(/=y$/, "", o)
      if (!(o in y)) { print part, substr(o, 8); if (part == "boot") bad = 1 } }
    END { exit bad }' "$config" "$frag"
}

# merge CONFIG FRAGMENT... : the fragments' lines in CONFIG, in place of the
# lines of CONFIG that set the same options (what the kernel's
# merge_config.sh -m does, for trees that have none).
merge() {
  local config=$1
  shift
  awk 'function opt(l) { if (match(l, /^CONFIG_[A-Za-z0-9_]+=/)) return substr(l, 1, RLENGTH - 1)
         if (l ~ /^# CONFIG_[A-Za-z0-9_]+ is not set$/) { split(l, w, " "); return w[2] }
         return "" }
    FILENAME != ARGV[ARGC - 1] { o = opt($0); if (o != "") { set[o] = 1; add[++n] = $0 } next }
    { o = opt($0); if (o == "" || !(o in set)) print }
    END { for (i = 1; i <= n; i++) print add[i] }' "$@" "$config" >"$config.merge"
  mv "$config.merge" "$config"
}

# build_fail KDIR WHAT : WHAT failed, with the log's last lines; exit 1.
build_fail() {
  kb_say "$2 failed ($1/build.log):"
  tail -n 8 "$1/build.log" | sed 's/^/  /' >&2
  exit 1
}

# is_tree DIR : DIR looks like a kernel source tree that builds for x86.
is_tree() { [ -f "$1/Makefile" ] && [ -f "$1/Kconfig" ] && [ -d "$1/arch/x86" ]; }

# load1 : the machine's load average over the last minute.
load1() { cut -d' ' -f1 /proc/loadavg; }

# build SRC OBJ KDIR BASE FILESYSTEMS : above.
build() {
  local src=$1 obj=$2 kdir=$3 base=$4 fss=$5 log kvm t0 t1 tf wall user sys missing f
  local sampler='' load_start
  [ -d "$src" ] || kb_die "no kernel tree $src"
  is_tree "$src" || kb_die "$src is not a kernel source tree (no Makefile, Kconfig and arch/x86)"
  [ -n "$KERNEL_MAKE" ] || kb_die "KERNEL_MAKE is empty: the build command, e.g. make -j2 bzImage"
  [ "$(uname -m)" = x86_64 ] || kb_die "builds on x86_64 only (the lab's guests are x86_64; this machine is $(uname -m))"
  mkdir -p "$obj" "$kdir"
  src=$(cd "$src" && pwd) obj=$(cd "$obj" && pwd) kdir=$(cd "$kdir" && pwd)
  for f in bzImage config lab.config release build.log build.tsv load.txt; do rm -f "$kdir/$f"; done
  fragment "$base" "$fss" >"$kdir/lab.config"
  log=$kdir/build.log
  : >"$log"
  load_start=$(load1)
  t0=$(date +%s)
  # a tree built in place refuses O= ("run make mrproper"): the log says so
  make -C "$src" O="$obj" defconfig >>"$log" 2>&1 || build_fail "$kdir" "make defconfig"
  kvm=$src/kernel/configs/kvm_guest.config
  if [ -r "$kvm" ]; then merge "$obj/.config" "$kvm" "$kdir/lab.config"; else merge "$obj/.config" "$kdir/lab.config"; fi
  make -C "$src" O="$obj" olddefconfig >>"$log" 2>&1 || build_fail "$kdir" "make olddefconfig"
  if ! missing=$(check "$kdir/lab.config" "$obj/.config"); then
    kb_die "not built in, the guest cannot boot without: $(awk '$1 == "boot" { print $2 }' <<<"$missing" | paste -sd' ' -) (their dependencies are off in $obj/.config)"
  fi
  [ -z "$missing" ] || kb_say "not built in (their dependencies are off): $(awk '{ print $2 }' <<<"$missing" | paste -sd' ' -)"
  cp "$obj/.config" "$kdir/config"
  t1=$(date +%s)
  # the load while it builds, a sample a minute (the machine is shared)
  (while :; do load1; sleep 60; done) >"$kdir/load.txt" 2>/dev/null &
  sampler=$!
  tf=$kdir/.time
  TIMEFORMAT='%R %U %S'
  if ! { time { (cd "$obj" && bash -c "$KERNEL_MAKE") >>"$log" 2>&1; }; } 2>"$tf"; then
    kill "$sampler" 2>/dev/null || true
    rm -f "$tf"
    build_fail "$kdir" "the build ($KERNEL_MAKE)"
  fi
  kill "$sampler" 2>/dev/null || true
  load1 >>"$kdir/load.txt"
  read -r wall user sys <"$tf"
  rm -f "$tf"
  [ -s "$obj/arch/x86/boot/bzImage" ] || kb_die "the build ($KERNEL_MAKE) made no $obj/arch/x86/boot/bzImage"
  cp "$obj/arch/x86/boot/bzImage" "$kdir/bzImage"
  make -s -C "$src" O="$obj" kernelrelease 2>/dev/null >"$kdir/release" || rm -f "$kdir/release"
  {
    printf 'source\t%s\n' "$src"
    printf 'commit\t%s\n' "$(git -C "$src" rev-parse -q --verify HEAD 2>/dev/null || echo -)"
    printf 'release\t%s\n' "$(cat "$kdir/release" 2>/dev/null || echo -)"
    printf 'base_config\t%s\n' "$base"
    printf 'filesystems\t%s\n' "${fss:--}"
    printf 'command\t%s\n' "$KERNEL_MAKE"
    printf 'config_s\t%s\n' "$((t1 - t0))"
    printf 'build_s\t%s\n' "$wall"
    printf 'cpu_s\t%s\n' "$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.1f", u + s }')"
    printf 'cpus\t%s\n' "$(nproc)"
    printf 'load_start\t%s\n' "$load_start"
    printf 'load_range\t%s\n' "$(sort -n "$kdir/load.txt" | sed -n '1p;$p' | paste -sd- -)"
    printf 'date\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  } >"$kdir/build.tsv"
  printf '%s\n' "$kdir"
}

# linux_source OUT : Debian's linux-source unpacked into OUT/src (once for
# each tarball: a stamp file of its size and time); prints the tree.
linux_source() {
  local out=$1 tarball name stamp tmp
  tarball=$(printf '%s\n' /usr/src/linux-source-*.tar.xz | sort -V | tail -n 1)
  [ -e "$tarball" ] || tarball=
  [ -n "$tarball" ] ||
    kb_die "no /usr/src/linux-source-*.tar.xz: Debian's linux-source is not installed (harness/deps.sh install kernel)"
  name=$(basename "$tarball" .tar.xz)
  stamp=$(stat -c '%s %Y' "$tarball")
  if [ "$(cat "$out/src/$name.stamp" 2>/dev/null)" != "$stamp" ]; then
    kb_say "unpacking $tarball into $out/src"
    mkdir -p "$out/src"
    tmp=$out/src/.unpack.$$
    rm -rf "$tmp" "$out/src/$name" "$out/src/$name.stamp"
    mkdir "$tmp"
    tar -xf "$tarball" -C "$tmp" || { rm -rf "$tmp"; kb_die "cannot unpack $tarball"; }
    [ -d "$tmp/$name" ] || { rm -rf "$tmp"; kb_die "$tarball holds no $name/"; }
    mv "$tmp/$name" "$out/src/$name"
    rmdir "$tmp"
    printf '%s\n' "$stamp" >"$out/src/$name.stamp"
  fi
  printf '%s\n' "$out/src/$name"
}

# run : make lab-kernel.
run() {
  local out base src obj kdir image fss
  # shellcheck source=harness/common/settings.sh
  . "$ROOT/harness/common/settings.sh"
  SHOOTOUT_ROOT=$ROOT settings_check lab
  out=${KERNEL_OUT:-$ROOT/build/kernel}
  fss=${LAB_VARIANTS:-ext4,xfs}
  if [ -n "${KERNEL_SRC:-}" ]; then
    [ -d "$KERNEL_SRC" ] || kb_die "KERNEL_SRC=$KERNEL_SRC is no directory"
    is_tree "$KERNEL_SRC" || kb_die "KERNEL_SRC=$KERNEL_SRC is not a kernel source tree (no Makefile, Kconfig and arch/x86)"
  fi
  [ -n "$KERNEL_MAKE" ] || kb_die "KERNEL_MAKE is empty: the build command, e.g. make -j2 bzImage"
  if [ -n "${KERNEL_BASE_CONFIG:-}" ]; then
    base=$KERNEL_BASE_CONFIG
    # the fragment first: a config or filesystem it refuses stops us here
    fragment "$base" "$fss" >/dev/null
  else
    LAB_OS=${LAB_OS:-debian12}
    image=$("$LAB/image.sh" "${LAB_OS%% *}") || kb_die "no guest image for LAB_OS=${LAB_OS%% *} (or set KERNEL_BASE_CONFIG=FILE, e.g. /boot/config-\$(uname -r))"
    mkdir -p "$out"
    base=$out/guest.config
    "$LAB/kernel.sh" config "$image" "$base" || exit 1
    fragment "$base" "$fss" >/dev/null
  fi
  mkdir -p "$out"
  out=$(cd "$out" && pwd)
  if [ -n "${KERNEL_SRC:-}" ]; then src=$(cd "$KERNEL_SRC" && pwd); else src=$(linux_source "$out"); fi
  obj=$out/obj/$(basename "$src")-$(printf '%s' "$src" | sha256sum | cut -c1-8)
  kdir=$out/small
  kb_say "building $src with a small config (from $base, filesystems $fss) in $obj: $KERNEL_MAKE"
  build "$src" "$obj" "$kdir" "$base" "$fss" >/dev/null
  kb_say "built $(cat "$kdir/release" 2>/dev/null || echo '?') in $(awk -F '\t' '$1 == "build_s" { print $2 }' "$kdir/build.tsv") s (CPU $(awk -F '\t' '$1 == "cpu_s" { print $2 }' "$kdir/build.tsv") s, load $(awk -F '\t' '$1 == "load_range" { print $2 }' "$kdir/build.tsv")): $kdir"
  if [ "$kdir" = "$ROOT/build/kernel/small" ]; then
    kb_say "boot it: make lab LAB_KERNELS=\"image small\" (the kernel small of playbooks/lab/kernels.tsv)"
  else
    kb_say "boot it: a line \"NAME<tab>dir:$kdir<tab>-\" in a kernel table of your own (LAB_KERNEL_TABLE), LAB_KERNELS=\"image NAME\""
  fi
  printf '%s\n' "$kdir"
}

case ${1:-} in
  run) [ $# -eq 1 ] || kb_die "usage: kernel-build.sh run"; run ;;
  fragment) [ $# -eq 3 ] || kb_die "usage: kernel-build.sh fragment BASE FILESYSTEMS"; fragment "$2" "$3" ;;
  build) [ $# -eq 6 ] || kb_die "usage: kernel-build.sh build SRC OBJ KDIR BASE FILESYSTEMS"; build "$2" "$3" "$4" "$5" "$6" ;;
  check) [ $# -eq 3 ] || kb_die "usage: kernel-build.sh check FRAGMENT CONFIG"; check "$2" "$3" ;;
  *) kb_die "usage: kernel-build.sh run | fragment BASE FILESYSTEMS | build SRC OBJ KDIR BASE FILESYSTEMS | check FRAGMENT CONFIG" ;;
esac
