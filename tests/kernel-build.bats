#!/usr/bin/env bats
# shellcheck disable=SC2154,SC2016 # bats sets $stderr (run --separate-stderr); the stub's make variables
# make lab-kernel and make bisect's builds (playbooks/lab/kernel-build.sh)
# and its profile of the culprit against its parent (bisect_profile.py),
# without building a kernel: the small config made from a guest's config
# (tests/fixtures/lab/guest.config, virtio and filesystems as modules), the
# refusals of make lab-kernel's settings, and the build's steps on a stub
# kernel tree whose Makefile stands in for Kbuild (defconfig, olddefconfig,
# bzImage, kernelrelease).  The one real build is measured by hand
# (docs/lab.md, "A kernel of your own, built small").
load helpers
bats_require_minimum_version 1.5.0

KB=$ROOT/playbooks/lab/kernel-build.sh
GUEST=$ROOT/tests/fixtures/lab/guest.config

# absent PATTERN TEXT : no line of TEXT matches PATTERN (a test's `! grep`
# would not fail it).
absent() { ! grep -q -- "$1" <<<"$2"; }

setup() {
  T=$(mktemp -d "${BATS_TMPDIR:-/tmp}/kernel-build.XXXXXX")
}

teardown() {
  rm -rf "$T"
}

# stub_tree DIR : a kernel tree as far as kernel-build.sh uses one: its
# defconfig sets DRM and has virtio_blk as a module, kvm_guest.config adds
# 9p, olddefconfig drops the option STUB_DROP names (an option whose
# dependencies are off), bzImage writes one.
stub_tree() {
  mkdir -p "$1/arch/x86" "$1/kernel/configs"
  : >"$1/Kconfig"
  printf 'CONFIG_9P_FS=y\nCONFIG_VIRTIO_CONSOLE=y\n' >"$1/kernel/configs/kvm_guest.config"
  {
    printf 'O ?= $(CURDIR)\n'
    printf 'defconfig:\n'
    printf '\tmkdir -p $(O)\n'
    printf "\tprintf 'CONFIG_64BIT=y\\\\nCONFIG_DRM=y\\\\nCONFIG_VIRTIO_BLK=m\\\\n' >\$(O)/.config\n"
    printf "\tprintf 'O := \$(O)\\\\ninclude \$(CURDIR)/Makefile\\\\n' >\$(O)/Makefile\n"
    printf 'olddefconfig:\n'
    printf "\t\$(if \$(STUB_DROP),sed -i '/^CONFIG_\$(STUB_DROP)=/d' \$(O)/.config,true)\n"
    printf 'bzImage:\n'
    printf '\tmkdir -p $(O)/arch/x86/boot\n'
    printf '\techo stub-kernel >$(O)/arch/x86/boot/bzImage\n'
    printf 'kernelrelease:\n'
    printf '\t@echo 6.1.0-stub\n'
  } >"$1/Makefile"
}

@test "kernel-build.sh fragment: the guest's virtio and the run's filesystems built in, what it lacks left out, display and sound off" {
  run --separate-stderr "$KB" fragment "$GUEST" ext4,xfs
  [ "$status" -eq 0 ]
  # modules of the guest (=m) the lab cannot boot or run without: built in
  for o in VIRTIO_PCI VIRTIO_BLK VIRTIO_NET EXT4_FS XFS_FS BLK_DEV_LOOP VIRTIO_CONSOLE; do
    grep -qx "CONFIG_$o=y" <<<"$output" || { echo "no CONFIG_$o=y"; return 1; }
  done
  # a boot option the guest leaves to its initramfs: built in all the same
  grep -qx CONFIG_DEVTMPFS_MOUNT=y <<<"$output"
  grep -qx CONFIG_PERF_EVENTS=y <<<"$output"
  # what the guest's config does not have, the small kernel does not get
  absent CONFIG_BPF_SYSCALL "$output"
  absent CONFIG_SECCOMP "$output"
  # a filesystem the run does not use is not built
  absent CONFIG_BTRFS_FS "$output"
  grep -qx '# CONFIG_DRM is not set' <<<"$output"
  grep -qx '# CONFIG_SOUND is not set' <<<"$output"
  # each option once
  [ -z "$(grep -o '^CONFIG_[A-Z0-9_]*' <<<"$output" | sort | uniq -d)" ]
  run --separate-stderr "$KB" fragment "$GUEST" ext4,btrfs,tmpfs
  grep -qx CONFIG_BTRFS_FS=y <<<"$output"
  grep -qx CONFIG_TMPFS=y <<<"$output"
}

@test "kernel-build.sh fragment: a filesystem the guest cannot mount, a bad name or a file that is no config is refused with one line" {
  run --separate-stderr "$KB" fragment "$GUEST" ext4,zfs
  [ "$status" -eq 1 ]
  [ "$stderr" = "lab-kernel: LAB_VARIANTS: the guest's config ($GUEST) has no CONFIG_ZFS_FS: zfs cannot be built in" ]
  run --separate-stderr "$KB" fragment "$GUEST" 'ext4,XFS'
  [ "$status" -eq 1 ]
  [ "$stderr" = "lab-kernel: LAB_VARIANTS: 'XFS' is not a filesystem name (e.g. ext4,xfs)" ]
  echo hello >"$T/notes"
  run --separate-stderr "$KB" fragment "$T/notes" ext4
  [ "$status" -eq 1 ]
  [ "$stderr" = "lab-kernel: $T/notes is not a kernel config (no CONFIG_ line)" ]
  run --separate-stderr "$KB" fragment "$T/none" ext4
  [ "$stderr" = "lab-kernel: cannot read the kernel config $T/none" ]
}

@test "kernel-build.sh check: an option olddefconfig dropped is named; a boot one fails" {
  "$KB" fragment "$GUEST" ext4 >"$T/lab.config"
  grep -E '^CONFIG_[A-Z0-9_]+=y$' "$T/lab.config" >"$T/config"
  run "$KB" check "$T/lab.config" "$T/config"
  [ "$status" -eq 0 ] && [ -z "$output" ]
  grep -v '^CONFIG_PERF_EVENTS=' "$T/config" >"$T/c2"
  run "$KB" check "$T/lab.config" "$T/c2"
  [ "$status" -eq 0 ] && [ "$output" = "lab PERF_EVENTS" ]
  grep -v '^CONFIG_VIRTIO_BLK=' "$T/config" >"$T/c3"
  run "$KB" check "$T/lab.config" "$T/c3"
  [ "$status" -eq 1 ] && [ "$output" = "boot VIRTIO_BLK" ]
}

@test "make lab-kernel: a source, base config, build command or setting it cannot use is one line, exit non-zero, nothing made" {
  local out=$T/out
  KERNEL_OUT=$out KERNEL_SRC=$T/nowhere KERNEL_BASE_CONFIG=$GUEST run --separate-stderr "$KB" run
  [ "$status" -eq 1 ]
  [ "$stderr" = "lab-kernel: KERNEL_SRC=$T/nowhere is no directory" ]
  mkdir "$T/notatree"
  KERNEL_OUT=$out KERNEL_SRC=$T/notatree KERNEL_BASE_CONFIG=$GUEST run --separate-stderr "$KB" run
  [ "$status" -eq 1 ]
  [ "$stderr" = "lab-kernel: KERNEL_SRC=$T/notatree is not a kernel source tree (no Makefile, Kconfig and arch/x86)" ]
  stub_tree "$T/linux"
  KERNEL_OUT=$out KERNEL_SRC=$T/linux KERNEL_BASE_CONFIG=$T/none run --separate-stderr "$KB" run
  [ "$status" -eq 1 ]
  [ "$stderr" = "lab-kernel: cannot read the kernel config $T/none" ]
  KERNEL_OUT=$out KERNEL_SRC=$T/linux KERNEL_BASE_CONFIG=$GUEST KERNEL_MAKE='' run --separate-stderr "$KB" run
  [ "$status" -eq 1 ]
  [ "$stderr" = "lab-kernel: KERNEL_MAKE is empty: the build command, e.g. make -j2 bzImage" ]
  KERNEL_OUT=$out KERNEL_SRC=$T/linux KERNEL_BASE_CONFIG=$GUEST LAB_VARIANTS=ext4,zfs run --separate-stderr "$KB" run
  [ "$status" -eq 1 ]
  [[ $stderr == "lab-kernel: LAB_VARIANTS: the guest's config ($GUEST) has no CONFIG_ZFS_FS: zfs cannot be built in" ]]
  # a mistyped setting: the nearest name (harness/common/settings.sh)
  KERNEL_OUT=$out KERNEL_SRCC=$T/linux KERNEL_BASE_CONFIG=$GUEST run --separate-stderr "$KB" run
  [ "$status" -eq 2 ]
  [[ $stderr == *"unknown setting KERNEL_SRCC (did you mean KERNEL_SRC?)"* ]]
  [ ! -e "$out" ]
  run --separate-stderr "$KB" build "$T/linux"
  [ "$status" -eq 1 ]
  [[ $stderr == "lab-kernel: usage: kernel-build.sh build SRC OBJ KDIR BASE FILESYSTEMS" ]]
}

@test "make lab-kernel on a stub tree: defconfig, kvm_guest.config and the lab's fragment, KERNEL_MAKE in the object tree, a kernel directory kernel.sh boots" {
  require_cmd jq
  stub_tree "$T/linux"
  KERNEL_OUT=$T/out KERNEL_SRC=$T/linux KERNEL_BASE_CONFIG=$GUEST KERNEL_MAKE='make bzImage' LAB_VARIANTS=ext4,xfs \
    run --separate-stderr "$KB" run
  [ "$status" -eq 0 ]
  [ "$output" = "$T/out/small" ]
  [[ $stderr == *"lab-kernel: built 6.1.0-stub in "*" s (CPU "*"): $T/out/small"* ]]
  local k=$T/out/small
  [ "$(cat "$k/bzImage")" = stub-kernel ]
  # defconfig's, kvm_guest.config's and the lab's, the lab's winning
  grep -qx CONFIG_64BIT=y "$k/config"
  grep -qx CONFIG_9P_FS=y "$k/config"
  grep -qx CONFIG_VIRTIO_BLK=y "$k/config"
  absent '^CONFIG_VIRTIO_BLK=m' "$(cat "$k/config")"
  grep -qx CONFIG_XFS_FS=y "$k/config"
  grep -qx '# CONFIG_DRM is not set' "$k/config"
  absent '^CONFIG_DRM=y' "$(cat "$k/config")"
  # the object tree is not the source tree; the source is left as it was
  [ ! -e "$T/linux/.config" ] && [ ! -e "$T/linux/arch/x86/boot" ]
  # what was built, how and how long
  [ "$(awk -F '\t' '$1 == "command" { print $2 }' "$k/build.tsv")" = "make bzImage" ]
  [ "$(awk -F '\t' '$1 == "release" { print $2 }' "$k/build.tsv")" = 6.1.0-stub ]
  [ "$(awk -F '\t' '$1 == "filesystems" { print $2 }' "$k/build.tsv")" = ext4,xfs ]
  [[ $(awk -F '\t' '$1 == "build_s" { print $2 }' "$k/build.tsv") =~ ^[0-9]+\.[0-9]+$ ]]
  [[ $(awk -F '\t' '$1 == "cpu_s" { print $2 }' "$k/build.tsv") =~ ^[0-9]+\.[0-9]$ ]]
  # kernel.sh takes it as dir: its bzImage and config, no initrd
  mkdir -p "$T/img/debian12-aaa"
  for f in base.raw vmlinuz initrd.img lab_key lab_key.pub; do echo "$f" >"$T/img/debian12-aaa/$f"; done
  d=$("$ROOT/playbooks/lab/kernel.sh" dir "$T/img/debian12-aaa" small "$k" "$T/kv")
  [ "$(cat "$d/vmlinuz")" = stub-kernel ] && [ ! -e "$d/initrd.img" ]
  cmp "$d/config" "$k/config"
}

@test "kernel-build.sh build: a boot option the tree drops is refused by name, a lab one is warned about, a failed build shows its log" {
  stub_tree "$T/linux"
  STUB_DROP=VIRTIO_BLK KERNEL_MAKE='make bzImage' run --separate-stderr "$KB" build "$T/linux" "$T/obj" "$T/k" "$GUEST" ext4
  [ "$status" -eq 1 ]
  [[ $stderr == "lab-kernel: not built in, the guest cannot boot without: VIRTIO_BLK (their dependencies are off in $T/obj/.config)" ]]
  [ ! -e "$T/k/bzImage" ]
  STUB_DROP=PERF_EVENTS KERNEL_MAKE='make bzImage' run --separate-stderr "$KB" build "$T/linux" "$T/obj" "$T/k" "$GUEST" ext4
  [ "$status" -eq 0 ]
  [ "$stderr" = "lab-kernel: not built in (their dependencies are off): PERF_EVENTS" ]
  [ -s "$T/k/bzImage" ]
  KERNEL_MAKE='echo compiling; false' run --separate-stderr "$KB" build "$T/linux" "$T/obj" "$T/k" "$GUEST" ext4
  [ "$status" -eq 1 ]
  [[ ${stderr} == "lab-kernel: the build (echo compiling; false) failed ($T/k/build.log):"*compiling* ]]
  # no kernel of an earlier build is left to be taken for this one
  [ ! -e "$T/k/bzImage" ]
  # a build that makes no bzImage
  KERNEL_MAKE='true' run --separate-stderr "$KB" build "$T/linux" "$T/obj2" "$T/k" "$GUEST" ext4
  [ "$status" -eq 1 ]
  [ "$stderr" = "lab-kernel: the build (true) made no $T/obj2/arch/x86/boot/bzImage" ]
}

@test "bisect_profile.py: the culprit's and its parent's flame graphs, both differences, and the function that grew first" {
  local bp=$ROOT/playbooks/lab/bisect_profile.py
  printf 'files;entry_SYSCALL_64_[k];do_sys_openat2_[k] 50\nfiles;entry_SYSCALL_64_[k];kmem_cache_alloc_[k] 50\n' >"$T/parent.folded"
  printf 'files;entry_SYSCALL_64_[k];do_sys_openat2_[k] 50\nfiles;entry_SYSCALL_64_[k];kmem_cache_alloc_[k];check_object_[k] 150\n' >"$T/culprit.folded"
  run --separate-stderr python3 "$bp" "$T/parent.folded" "$T/culprit.folded" "$T/profile"
  [ "$status" -eq 0 ]
  [[ $output == *"(100 samples of the parent, 200 of the culprit;"* ]]
  # the largest change first: check_object, 0% to 75% of the samples
  [ "$(grep -m1 '^| `' <<<"$output")" = '| `check_object` | 0.0 | 75.0 | +75.0 |' ]
  if [ -x "$ROOT/build/inferno/bin/inferno-flamegraph" ]; then
    for f in parent culprit culprit-vs-parent parent-vs-culprit; do
      grep -q '<svg' "$T/profile/$f.svg" || { echo "no $f.svg"; return 1; }
      [[ $output == *"(profile/$f.svg)"* ]]
    done
  else
    [[ $output == *"No flame graph: inferno is not built (make deps)."* ]]
  fi
  : >"$T/empty.folded"
  run --separate-stderr python3 "$bp" "$T/parent.folded" "$T/empty.folded" "$T/profile"
  [ "$status" -eq 2 ] && [ "$stderr" = "bisect_profile: $T/empty.folded has no samples" ]
  echo 'not folded' >"$T/bad.folded"
  run --separate-stderr python3 "$bp" "$T/bad.folded" "$T/culprit.folded" "$T/profile"
  [ "$status" -eq 2 ] && [[ $stderr == "bisect_profile: $T/bad.folded:1: not 'STACK COUNT'"* ]]
}
