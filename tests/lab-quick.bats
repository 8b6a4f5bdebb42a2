#!/usr/bin/env bats
# shellcheck disable=SC2154 # bats sets $stderr (run --separate-stderr)
# The VM lab's quick checks (no guest boots but the KVM probe's): usage
# errors, the accelerator probe, the inventory the lab writes.  The full lab
# run is tests/lab/lab.bats (`make test-lab`).

load helpers
bats_require_minimum_version 1.5.0

GUESTS=$ROOT/playbooks/lab/guests.sh
LABSH=$ROOT/playbooks/lab/lab.sh

setup() {
  T=$(mktemp -d "${BATS_TMPDIR:-/tmp}/lab-quick.XXXXXX")
}

teardown() {
  "$GUESTS" down "$T/state" 2>/dev/null || true
  rm -rf "$T"
  [ -z "${RESULTS_RUN:-}" ] || rm -rf "$RESULTS_RUN"
}

# no_qemu STATE : no qemu process of that lab state directory runs.
no_qemu() {
  ! pgrep -f "qemu-system.*$1/" >/dev/null
}

# fake_guests FILE : a guests.tsv as guests.sh up writes it, lab2 failed.
fake_guests() {
  printf 'lab1\t40001\t101\ttcg\tup\n' >"$1"
  printf 'lab2\t40002\t102\ttcg\tfailed: did not answer SSH within LAB_BOOT_TIMEOUT=5s\n' >>"$1"
  printf 'lab3\t40003\t103\ttcg\tup\n' >>"$1"
}

# cached_image : set img to a guest image already built, or skip.  (Not
# called in $(...): a skip in a subshell would not skip the test.)
cached_image() {
  local d
  for d in "${LAB_CACHE:-/var/cache/shootout-lab}"/debian12-*; do
    if [ -s "$d/vmlinuz" ] && [ -s "$d/base.raw" ]; then img=$d; return; fi
  done
  skip "no lab image cached (make lab builds one)"
}

@test "guests.sh: usage errors name what is wrong" {
  run "$GUESTS"
  [ "$status" -eq 1 ]
  [[ $output == *"usage: guests.sh up N STATE IMAGE"* ]]
  run "$GUESTS" up 1 "$T/state"
  [ "$status" -eq 1 ]
  [[ $output == *"usage: guests.sh up N STATE IMAGE"* ]]
  run "$GUESTS" up two "$T/state" "$T"
  [ "$status" -eq 1 ]
  [[ $output == *"N must be a number of guests from 1 up, not 'two'"* ]]
  run "$GUESTS" up 1 "$T/state" "$T/nowhere"
  [ "$status" -eq 1 ]
  [[ $output == *"no image in $T/nowhere"* ]]
  run "$GUESTS" accel "$T/state" "$T/nowhere"
  [ "$status" -eq 1 ]
  [[ $output == *"no image in $T/nowhere"* ]]
  run "$GUESTS" frobnicate
  [ "$status" -eq 1 ]
  [[ $output == *usage:* ]]
  run env LAB_TCG_THREAD=many "$GUESTS" down "$T/state"
  [ "$status" -eq 2 ]
  [ "$output" = "lab guests: LAB_TCG_THREAD=many: use single or multi" ]
  run env LAB_PANIC_REBOOT=soon "$GUESTS" down "$T/state"
  [ "$status" -eq 2 ]
  [ "$output" = "lab guests: LAB_PANIC_REBOOT=soon: use a number of seconds" ]
  run "$GUESTS" soak 0 "$T/state" "$T"
  [ "$status" -eq 1 ]
  [[ $output == *"N must be a number of boots from 1 up, not '0'"* ]]
}

@test "console.sh: a recorded panic console gives the boot, the first oops line and the panic" {
  local c=$ROOT/tests/fixtures/lab/panic.console
  run "$ROOT/playbooks/lab/console.sh" panics "$c"
  [ "$status" -eq 0 ]
  [ "$output" = "$(printf '2\tOops: int3: 0000 [#1] PREEMPT SMP NOPTI\tKernel panic - not syncing: Fatal exception in interrupt')" ]
  run "$ROOT/playbooks/lab/console.sh" boots "$c"
  [ "$output" = 3 ]
  # The third boot came up after the panic: it hangs (or not) on its own.
  run "$ROOT/playbooks/lab/console.sh" why "$c"
  [ "$output" = "hung without a kernel panic in boot 3 (last console line: systemd[1]: bpf-restrict-fs: LSM BPF program attached)" ]
  # Cut at the panic, and before it: the panic, then the oops alone.
  head -n 19 "$c" >"$T/panicked"
  run "$ROOT/playbooks/lab/console.sh" why "$T/panicked"
  [ "$output" = "kernel panic in boot 2: Oops: int3: 0000 [#1] PREEMPT SMP NOPTI" ]
  head -n 9 "$c" >"$T/oopsed"
  run "$ROOT/playbooks/lab/console.sh" why "$T/oopsed"
  [ "$output" = "kernel oops in boot 2, no panic: Oops: int3: 0000 [#1] PREEMPT SMP NOPTI" ]
  : >"$T/empty"
  run "$ROOT/playbooks/lab/console.sh" why "$T/empty"
  [ "$output" = "no kernel banner on the console (last line: none)" ]
  run "$ROOT/playbooks/lab/console.sh" why "$T/none"
  [ "$status" -eq 2 ]
  [ "$output" = "lab console: cannot read $T/none" ]
}

# panic_state DIR : a lab state directory whose debian13-1 console is the
# recorded panic, and an Ansible log in the middle of a flush by reboot.
panic_state() {
  mkdir -p "$1"
  cp "$ROOT/tests/fixtures/lab/panic.console" "$1/debian13-1.console"
  printf '[    0.000000] Linux version 6.1.0-41-amd64\n' >"$1/debian12-1.console"
  {
    echo "2026-11-25 02:40:01,120 p=1 u=root n=ansible | TASK [Nothing done yet (not the previous variant's count) for xfs] ***"
    echo '2026-11-25 02:40:01,121 p=1 u=root n=ansible | TASK [phases : Whether this step is a reboot that serve or preload would repeat] ***'
    echo '2026-11-25 02:40:01,122 p=1 u=root n=ansible | TASK [phases : Reboot before the directory walk of preload (trial 1)] ***'
    echo '2026-11-25 02:40:02,123 p=1 u=root n=ansible | TASK [phases : Flush by reboot (trial 1)] ***'
    echo '2026-11-25 02:40:03,123 p=1 u=root n=ansible | TASK [phases : Boot id before the reboot] ***'
    echo '2026-11-25 02:40:04,123 p=1 u=root n=ansible | TASK [phases : Reboot to empty every cache] ***'
  } >"$1/ansible.log"
}

@test "lab.sh scan: a guest's panic is one line (guest, boot, reboot, variant, oops, console); a second one fails the guest" {
  panic_state "$T/state"
  LAB_STATE=$T/state LAB_LOGS=$T/logs LAB_RUN_ID=r1 run --separate-stderr "$LABSH" scan
  [ "$status" -eq 0 ]
  [ "$stderr" = "lab: debian13-1: guest kernel panic in boot 2 (Flush by reboot (trial 1), variant xfs): Oops: int3: 0000 [#1] PREEMPT SMP NOPTI (console: $T/logs/r1/debian13-1.console); the guest reboots itself and the boot is retried" ]
  # Read again: nothing new, nothing said.
  LAB_STATE=$T/state LAB_LOGS=$T/logs LAB_RUN_ID=r1 run --separate-stderr "$LABSH" scan
  [ -z "$stderr" ]
  [ "$(wc -l <"$T/state/panics.tsv")" -eq 1 ]
  # The retried boot panics as well.
  sed -n '6,19p' "$ROOT/tests/fixtures/lab/panic.console" >>"$T/state/debian13-1.console"
  LAB_STATE=$T/state LAB_LOGS=$T/logs LAB_RUN_ID=r1 run --separate-stderr "$LABSH" scan
  [ "$stderr" = "lab: debian13-1: a second guest kernel panic, in boot 4 (Flush by reboot (trial 1), variant xfs): Oops: int3: 0000 [#1] PREEMPT SMP NOPTI (console: $T/logs/r1/debian13-1.console); debian13-1 is stopped and fails" ]
}

@test "lab.sh silent: a guest that no longer answers is named with its console's verdict" {
  local port
  panic_state "$T/state"
  port=$(free_port)
  mkdir -p "$T/img"
  printf 'debian13-1\t%s\t1\ttcg\tup\tdebian13\t%s\n' "$port" "$T/img" >"$T/state/guests.tsv"
  printf 'debian12-1\t%s\t2\ttcg\tfailed: did not answer\tdebian12\t%s\n' "$port" "$T/img" >>"$T/state/guests.tsv"
  LAB_STATE=$T/state LAB_LOGS=$T/logs LAB_RUN_ID=r1 run --separate-stderr "$LABSH" silent
  [ "$status" -eq 0 ]
  # (the recorded console's last boot came up after its panic and then hung)
  [ "$stderr" = "lab: debian13-1 no longer answers SSH: hung without a kernel panic in boot 3 (last console line: systemd[1]: bpf-restrict-fs: LSM BPF program attached) (console: $T/logs/r1/debian13-1.console)" ]
}

@test "lab.sh retries: the panics go into the meta.json of their variant; a guest that panicked twice is named" {
  require_cmd jq
  local run=lab-quick-$$ r
  r=$ROOT/results/$run RESULTS_RUN=$ROOT/results/$run
  panic_state "$T/state"
  LAB_STATE=$T/state LAB_LOGS=$T/logs LAB_RUN_ID=r1 "$LABSH" scan 2>/dev/null
  mkdir -p "$r/debian13-1/ext4" "$r/debian13-1/xfs" "$r/debian12-1/xfs"
  for m in "$r"/*/*; do echo '{"host": "h", "virt": "tcg"}' >"$m/meta.json"; done
  LAB_STATE=$T/state LAB_RUN_ID=$run run --separate-stderr "$LABSH" retries
  [ "$status" -eq 0 ]
  [ -z "$output" ]
  [ "$(jq -c .boot_retries "$r/debian13-1/xfs/meta.json")" = '[{"boot":2,"oops":"Oops: int3: 0000 [#1] PREEMPT SMP NOPTI","during":"Flush by reboot (trial 1)"}]' ]
  [ "$(jq -r .virt "$r/debian13-1/xfs/meta.json")" = tcg ]
  [ "$(jq -c .boot_retries "$r/debian13-1/ext4/meta.json")" = null ]
  [ "$(jq -c .boot_retries "$r/debian12-1/xfs/meta.json")" = null ]
  # A second panic: the guest is named as failed.
  sed -n '6,19p' "$ROOT/tests/fixtures/lab/panic.console" >>"$T/state/debian13-1.console"
  LAB_STATE=$T/state LAB_LOGS=$T/logs LAB_RUN_ID=r1 "$LABSH" scan 2>/dev/null
  LAB_STATE=$T/state LAB_RUN_ID=$run run --separate-stderr "$LABSH" retries
  [ "$output" = "debian13-1 (a second kernel panic: Oops: int3: 0000 [#1] PREEMPT SMP NOPTI)" ]
}

@test "guests.sh down: nothing to stop is fine, a stale pid file kills nothing" {
  run "$GUESTS" down "$T/none"
  [ "$status" -eq 0 ]
  mkdir -p "$T/state"
  sleep 300 3>&- &
  pid=$!
  echo "$pid" >"$T/state/lab1.pid"
  run "$GUESTS" down "$T/state"
  [ "$status" -eq 0 ]
  kill -0 "$pid"
  kill "$pid"
  [ ! -e "$T/state/lab1.pid" ]
}

@test "guests.sh accel: LAB_ACCEL forces it, a bad value is refused" {
  mkdir -p "$T/img"
  echo x >"$T/img/vmlinuz"
  run env LAB_ACCEL=tcg "$GUESTS" accel "$T/state" "$T/img"
  [ "$status" -eq 0 ]
  [ "$output" = tcg ]
  run env LAB_ACCEL=hvf "$GUESTS" accel "$T/state" "$T/img"
  [ "$status" -eq 1 ]
  [[ $output == *"LAB_ACCEL=hvf: use kvm or tcg"* ]]
}

@test "guests.sh accel: the KVM probe boots for real and falls back to TCG with the reason" {
  require_root
  require_cmd qemu-system-x86_64 qemu-img
  [ -e /dev/kvm ] || skip "no /dev/kvm: the probe would answer tcg without booting"
  cached_image
  LAB_KVM_PROBE=5 run --separate-stderr "$GUESTS" accel "$T/state" "$img"
  [ "$status" -eq 0 ]
  if [ "$output" = kvm ]; then
    skip "KVM works on this machine: no fallback to see"
  fi
  [ "$output" = tcg ]
  [[ $stderr == *"KVM did not boot a guest within 5s; using TCG (software emulation)"* ]]
  # The probe's guest is gone, and its files.
  no_qemu "$T/state"
  [ -z "$(ls "$T/state")" ]
}

@test "lab.sh inventory: the guests that are up, yamllint-clean, read by ansible-inventory" {
  require_cmd yamllint ansible-inventory jq
  fake_guests "$T/guests.tsv"
  LAB_VARIANTS=ext4,xfs DATASET=tiny run "$LABSH" inventory "$T/guests.tsv" /k/lab_key "$T/lab.yml"
  [ "$status" -eq 0 ]
  yamllint -s -d '{extends: default, rules: {line-length: {max: 160}}}' "$T/lab.yml"
  run ansible-inventory -i "$T/lab.yml" --list
  [ "$status" -eq 0 ]
  inv=$output
  [ "$(jq -r '._meta.hostvars | keys | join(" ")' <<<"$inv")" = "lab1 lab3" ]
  h() { jq -r "._meta.hostvars.$1" <<<"$inv"; }
  [ "$(h 'lab1.ansible_host')" = 127.0.0.1 ]
  [ "$(h 'lab1.ansible_port')" = 40001 ]
  [ "$(h 'lab3.ansible_port')" = 40003 ]
  [ "$(h 'lab1.ansible_user')" = root ]
  [ "$(h 'lab1.ansible_ssh_private_key_file')" = /k/lab_key ]
  [ "$(h 'lab1.shootout_flush')" = reboot ]
  [ "$(h 'lab1.shootout_confirm_wipe')" = true ]
  [ "$(h 'lab1.shootout_role')" = server ]
  [ "$(h 'lab1.shootout_dataset')" = tiny ]
  [ "$(h 'lab1.shootout_virt')" = tcg ]
  [ "$(h 'lab1.shootout_make_vars.VIRT')" = tcg ]
  [ "$(jq -c '._meta.hostvars.lab3.shootout_variants' <<<"$inv")" = \
    '[{"device":"/dev/vdb","fs":"ext4","name":"ext4"},{"device":"/dev/vdb","fs":"xfs","name":"xfs"}]' ]
  # the serve modes: every one by default, LAB_SERVE_MODES to cut reboots
  [ "$(jq -c '._meta.hostvars.lab1.shootout_serve_modes' <<<"$inv")" = '[1,32,"fork"]' ]
  LAB_SERVE_MODES=1 run "$LABSH" inventory "$T/guests.tsv" /k/lab_key "$T/lab1.yml"
  [ "$status" -eq 0 ]
  [ "$(ansible-inventory -i "$T/lab1.yml" --list | jq -c '._meta.hostvars.lab1.shootout_serve_modes')" = '[1]' ]
  # the guests' stopping rule: the harness's PRECISION by default, LAB_PRECISION
  # to give another (0: one trial a figure, as make test-lab runs)
  [ "$(h 'lab1.shootout_make_vars.PRECISION')" = 2 ]
  LAB_PRECISION=0 run "$LABSH" inventory "$T/guests.tsv" /k/lab_key "$T/lab0.yml"
  [ "$status" -eq 0 ]
  [ "$(ansible-inventory -i "$T/lab0.yml" --list | jq -r '._meta.hostvars.lab1.shootout_make_vars.PRECISION')" = 0 ]
}

@test "lab.sh inventory: bad variants, no guest up, bad usage are refused" {
  fake_guests "$T/guests.tsv"
  LAB_VARIANTS='ext4,x fs' run "$LABSH" inventory "$T/guests.tsv" /k "$T/lab.yml"
  [ "$status" -eq 1 ]
  [[ $output == *"LAB_VARIANTS: 'x fs' is not a filesystem name"* ]]
  [ ! -e "$T/lab.yml" ]
  LAB_SERVE_MODES='1 many' run "$LABSH" inventory "$T/guests.tsv" /k "$T/lab.yml"
  [ "$status" -eq 1 ]
  [[ $output == *"LAB_SERVE_MODES: 'many' is not a serve mode"* ]]
  [ ! -e "$T/lab.yml" ]
  grep -v 'up$' "$T/guests.tsv" >"$T/down.tsv"
  run "$LABSH" inventory "$T/down.tsv" /k "$T/lab.yml"
  [ "$status" -eq 1 ]
  [[ $output == *"no guest is up in $T/down.tsv"* ]]
  [ ! -e "$T/lab.yml" ]
  run "$LABSH" inventory "$T/guests.tsv"
  [ "$status" -eq 1 ]
  [[ $output == *"usage: lab.sh inventory GUESTS.TSV KEY OUT"* ]]
}

# fake_os_guests FILE : a guests.tsv of two OSes as guests.sh up writes it,
# the second Debian 12 guest failed.
fake_os_guests() {
  {
    printf 'debian12-1\t40001\t101\ttcg\tup\tdebian12\t/c/debian12-aaa\n'
    printf 'debian12-2\t40002\t102\ttcg\tfailed: did not answer SSH\tdebian12\t/c/debian12-aaa\n'
    printf 'debian13-1\t40003\t103\ttcg\tup\tdebian13\t/c/debian13-bbb\n'
    printf 'debian13-2\t40004\t104\ttcg\tup\tdebian13\t/c/debian13-bbb\n'
  } >"$1"
}

@test "lab.sh inventory: each guest in the group of its OS, with its own image's key" {
  require_cmd yamllint ansible-inventory jq
  fake_os_guests "$T/guests.tsv"
  LAB_VARIANTS=ext4 run "$LABSH" inventory "$T/guests.tsv" - "$T/lab.yml"
  [ "$status" -eq 0 ]
  yamllint -s -d '{extends: default, rules: {line-length: {max: 160}}}' "$T/lab.yml"
  run ansible-inventory -i "$T/lab.yml" --list
  [ "$status" -eq 0 ]
  inv=$output
  [ "$(jq -c '.debian12.hosts' <<<"$inv")" = '["debian12-1"]' ]
  [ "$(jq -c '.debian13.hosts' <<<"$inv")" = '["debian13-1","debian13-2"]' ]
  [ "$(jq -r '._meta.hostvars."debian12-1".ansible_ssh_private_key_file' <<<"$inv")" = /c/debian12-aaa/lab_key ]
  [ "$(jq -r '._meta.hostvars."debian13-2".ansible_ssh_private_key_file' <<<"$inv")" = /c/debian13-bbb/lab_key ]
  [ "$(jq -r '._meta.hostvars."debian13-2".ansible_port' <<<"$inv")" = 40004 ]
  [ "$(jq -c '._meta.hostvars."debian13-1".shootout_variants' <<<"$inv")" = '[{"device":"/dev/vdb","fs":"ext4","name":"ext4"}]' ]
  # The servers' play goes through them in this order, one at a time.
  [ "$(ansible-inventory -i "$T/lab.yml" --graph | grep -o 'debian1[23]-[0-9]' | tr '\n' ' ')" = 'debian12-1 debian13-1 debian13-2 ' ]
  grep -q 'serial: "{{ shootout_serial | default(1) }}"' "$ROOT/playbooks/shootout.yml"
}

@test "image.sh: one image per OS of os.tsv, each named by its own spec; an unknown OS is refused" {
  local img=$ROOT/playbooks/lab/image.sh d12 d13
  cp "$ROOT/playbooks/lab/os.tsv" "$T/os.tsv"
  d12=$(LAB_OS_TABLE=$T/os.tsv LAB_CACHE=$T/c "$img" --path debian12)
  d13=$(LAB_OS_TABLE=$T/os.tsv LAB_CACHE=$T/c "$img" --path debian13)
  [[ $d12 == "$T/c/debian12-"* ]]
  [[ $d13 == "$T/c/debian13-"* ]]
  # Debian 13's line changes: its image is another, Debian 12's the same.
  sed -i 's/^debian13\ttrixie\tlinux-image-amd64\t-$/debian13\ttrixie\tlinux-image-amd64\tzstd/' "$T/os.tsv"
  [ "$(LAB_OS_TABLE=$T/os.tsv LAB_CACHE=$T/c "$img" --path debian12)" = "$d12" ]
  [ "$(LAB_OS_TABLE=$T/os.tsv LAB_CACHE=$T/c "$img" --path debian13)" != "$d13" ]
  run "$img" --path debian99
  [ "$status" -eq 1 ]
  [[ $output == *"no OS 'debian99' in "*"os.tsv (there: debian12, debian13)"* ]]
  run "$img" --path 'deb ian'
  [ "$status" -eq 1 ]
  [[ $output == *"'deb ian' is not an OS name"* ]]
  [ ! -e "$T/c" ]
}

@test "lab.sh run: LAB_OS naming an OS twice or none is refused before anything boots" {
  require_root
  require_cmd qemu-system-x86_64 qemu-img ansible-playbook
  LAB_OS="debian12 debian12" LAB_STATE=$T/state run "$LABSH" run
  [ "$status" -eq 1 ]
  [[ $output == *"LAB_OS names debian12 twice"* ]]
  LAB_OS=" " LAB_STATE=$T/state run "$LABSH" run
  [ "$status" -eq 1 ]
  [[ $output == *"LAB_OS is empty"* ]]
  [ ! -e "$T/state" ]
}

# fake_image DIR : an image directory as image.sh leaves it (no real disk).
fake_image() {
  mkdir -p "$1"
  for f in base.raw vmlinuz initrd.img lab_key lab_key.pub; do echo "$f" >"$1/$f"; done
}

@test "kernel.sh: a kernel of the table is the image with its own command line; unknown names and sources are refused" {
  require_cmd jq
  local k=$ROOT/playbooks/lab/kernel.sh d
  fake_image "$T/c/debian12-aaa"
  d=$("$k" variant "$T/c/debian12-aaa" initonfree "$T/k")
  [ "$d" = "$T/k/debian12-initonfree-k" ]
  [ "$(cat "$d/cmdline")" = init_on_free=1 ]
  # the same image, the same kernel: links
  [ "$(readlink "$d/base.raw")" = "$T/c/debian12-aaa/base.raw" ]
  [ "$(readlink "$d/vmlinuz")" = "$T/c/debian12-aaa/vmlinuz" ]
  [ "$(jq -c . "$d/kernel.json")" = '{"name":"initonfree","source":"image","append":"init_on_free=1"}' ]
  d=$("$k" variant "$T/c/debian12-aaa" image "$T/k")
  [ "$(cat "$d/cmdline")" = "" ]
  run "$k" variant "$T/c/debian12-aaa" nosuch "$T/k"
  [ "$status" -eq 1 ]
  [[ $output == "lab kernel: no kernel 'nosuch' in "*"kernels.tsv (there: image, initonfree, mitigoff, bpo57, small)" ]]
  run "$k" check image nosuch
  [ "$status" -eq 1 ]
  printf 'bad\tbzimage:/x\t-\n' >"$T/kernels.tsv"
  LAB_KERNEL_TABLE=$T/kernels.tsv run "$k" variant "$T/c/debian12-aaa" bad "$T/k"
  [ "$status" -eq 1 ]
  [ "$output" = "lab kernel: bad: source 'bzimage:/x' is not image, deb:PACKAGE@SUITE, deb:FILE.deb or dir:PATH" ]
  run "$k" variant "$T/nowhere" image "$T/k"
  [[ $output == *"no image in $T/nowhere"* ]]
}

@test "kernel.sh dir: a kernel directory's bzImage, config and command line; none of its own keeps the image's kernel" {
  require_cmd jq
  local k=$ROOT/playbooks/lab/kernel.sh d
  fake_image "$T/c/debian12-aaa"
  mkdir -p "$T/kd"
  echo 'slub_debug=FZPU' >"$T/kd/cmdline"
  d=$("$k" dir "$T/c/debian12-aaa" c-1234 "$T/kd" "$T/k")
  [ "$(basename "$d")" = debian12-c-1234-k ]
  [ "$(readlink "$d/vmlinuz")" = "$T/c/debian12-aaa/vmlinuz" ]
  [ "$(cat "$d/cmdline")" = slub_debug=FZPU ]
  echo kernel >"$T/kd/bzImage"
  echo CONFIG_EXT4_FS=y >"$T/kd/.config"
  d=$("$k" dir "$T/c/debian12-aaa" c-1234 "$T/kd" "$T/k")
  [ ! -L "$d/vmlinuz" ] && [ "$(cat "$d/vmlinuz")" = kernel ]
  # its own kernel without an initrd boots without one
  [ ! -e "$d/initrd.img" ]
  [ "$(cat "$d/config")" = CONFIG_EXT4_FS=y ]
  [ "$(jq -r .source "$d/kernel.json")" = "dir:$T/kd" ]
  printf 'a\tb\n' >"$T/kd/cmdline"
  run "$k" dir "$T/c/debian12-aaa" c-1234 "$T/kd" "$T/k"
  [ "$status" -eq 1 ]
  [ "$output" = "lab kernel: c-1234: $T/kd/cmdline holds a control character" ]
  run "$k" dir "$T/c/debian12-aaa" 'C 1' "$T/kd" "$T/k"
  [[ $output == *"'C 1' is not a kernel variant name"* ]]
}

@test "lab.sh inventory: a kernel variant's guests in a group of their own (debian12_initonfree)" {
  require_cmd yamllint ansible-inventory jq
  printf 'debian12-image-1\t40001\t101\ttcg\tup\tdebian12-image\t/k/debian12-image-k\n' >"$T/guests.tsv"
  printf 'debian12-initonfree-1\t40002\t102\ttcg\tup\tdebian12-initonfree\t/k/debian12-initonfree-k\n' >>"$T/guests.tsv"
  LAB_VARIANTS=ext4 run "$LABSH" inventory "$T/guests.tsv" - "$T/lab.yml"
  [ "$status" -eq 0 ]
  yamllint -s -d '{extends: default, rules: {line-length: {max: 160}}}' "$T/lab.yml"
  run ansible-inventory -i "$T/lab.yml" --list
  [ "$status" -eq 0 ]
  [ "$(jq -c '.debian12_initonfree.hosts' <<<"$output")" = '["debian12-initonfree-1"]' ]
  [ "$(jq -r '._meta.hostvars."debian12-initonfree-1".shootout_result_host' <<<"$output")" = debian12-initonfree-1 ]
}

@test "lab.sh kernels: meta.json names the kernel each guest ran, its command line and config" {
  require_cmd jq
  local run=lab-quick-k-$$ r k port
  r=$ROOT/results/$run RESULTS_RUN=$ROOT/results/$run
  fake_image "$T/c/debian12-aaa"
  k=$("$ROOT/playbooks/lab/kernel.sh" variant "$T/c/debian12-aaa" initonfree "$T/k")
  echo CONFIG_INIT_ON_FREE_DEFAULT_ON=n >"$k/config"
  mkdir -p "$r/debian12-initonfree-1/ext4" "$T/state"
  echo '{"host": "debian12-initonfree-1", "kernel": "6.1.0-41-amd64"}' >"$r/debian12-initonfree-1/ext4/meta.json"
  # (a guest that no longer answers: the variant's own config and no command line)
  port=$(free_port)
  printf 'debian12-initonfree-1\t%s\t1\ttcg\tup\tdebian12-initonfree\t%s\n' "$port" "$k" >"$T/state/guests.tsv"
  LAB_STATE=$T/state LAB_RUN_ID=$run run --separate-stderr "$LABSH" kernels
  [ "$status" -eq 0 ]
  run jq -c '[.kernel, .kernel_name, .kernel_source, .kernel_append, .kernel_cmdline]' "$r/debian12-initonfree-1/ext4/meta.json"
  [ "$output" = '["6.1.0-41-amd64","initonfree","image","init_on_free=1",""]' ]
  [ "$(jq -r .kernel_config_sha256 "$r/debian12-initonfree-1/ext4/meta.json")" = "$(sha256sum <"$k/config" | cut -d' ' -f1)" ]
  cmp "$k/config" "$r/debian12-initonfree-1/ext4/kernel.config"
}

@test "lab.sh run: LAB_KERNELS naming a kernel twice or one not in the table is refused before anything boots" {
  require_root
  require_cmd qemu-system-x86_64 qemu-img ansible-playbook
  LAB_KERNELS="image image" LAB_STATE=$T/state run "$LABSH" run
  [ "$status" -eq 1 ]
  [[ $output == *"LAB_KERNELS names image twice"* ]]
  LAB_KERNELS="image,nosuch" LAB_STATE=$T/state run "$LABSH" run
  [ "$status" -eq 1 ]
  [[ $output == *"no kernel 'nosuch' in "* ]]
  [ ! -e "$T/state" ]
}

# bisect_tree DIR : a git tree of three commits (cmdline files).
bisect_tree() {
  mkdir -p "$1"
  git -C "$1" init -q -b main
  git -C "$1" config user.email lab@test
  git -C "$1" config user.name lab
  local i
  for i in 1 2 3; do
    echo "$i" >"$1/cmdline"
    git -C "$1" add cmdline
    git -C "$1" commit -q -m "c$i"
  done
}

@test "bisect.sh: a figure, a tree or refs that cannot be bisected are refused with one line, nothing started" {
  require_root
  require_cmd git
  local b=$ROOT/playbooks/lab/bisect.sh
  bisect_tree "$T/tree"
  export BISECT_TREE=$T/tree BISECT_GOOD=main~2 BISECT_BAD=main BISECT_OUT=$T/out
  BISECT_FIGURE="nosuch wall_s +10%" run "$b" run
  [ "$status" -eq 1 ]
  [ "$output" = "bisect: BISECT_FIGURE: no phase 'nosuch' (there: files,tmpfs)" ]
  BISECT_FIGURE="files req_s +10%" run "$b" run
  [ "$output" = "bisect: BISECT_FIGURE: phase files has no metric 'req_s' (there: wall_s)" ]
  BISECT_FIGURE="files wall_s 10%" run "$b" run
  [[ $output == "bisect: BISECT_FIGURE: change '10%' is not a signed percentage like +10%"* ]]
  BISECT_FIGURE="files wall_s +0%" run "$b" run
  [[ $output == "bisect: BISECT_FIGURE: change '+0%' is not a signed percentage other than 0" ]]
  BISECT_FIGURE="files wall_s +10% more" run "$b" run
  [[ $output == "bisect: BISECT_FIGURE='files wall_s +10% more': want PHASE METRIC CHANGE"* ]]
  BISECT_RUNS=1 run "$b" run
  [ "$output" = "bisect: want 2 <= BISECT_RUNS (1) <= BISECT_MAX_RUNS (15)" ]
  BISECT_TREE=$T run "$b" run
  [ "$output" = "bisect: BISECT_TREE=$T is not a git tree" ]
  BISECT_GOOD=nosuch run "$b" run
  [ "$output" = "bisect: BISECT_GOOD=nosuch is no commit of $T/tree" ]
  BISECT_GOOD=main BISECT_BAD=main~2 run "$b" run
  [ "$output" = "bisect: BISECT_GOOD=main is not an ancestor of BISECT_BAD=main~2" ]
  echo dirty >"$T/tree/cmdline"
  run "$b" run
  [[ $output == "bisect: $T/tree has uncommitted changes"* ]]
  git -C "$T/tree" checkout -q cmdline
  mkdir -p "$T/out"
  run "$b" run
  [ "$output" = "bisect: BISECT_OUT=$T/out exists: results are never overwritten" ]
  rmdir "$T/out"
  git -C "$T/tree" bisect start -q 2>/dev/null || git -C "$T/tree" bisect start
  run "$b" run
  [ "$output" = "bisect: a bisect runs in $T/tree already (git bisect reset ends it)" ]
  git -C "$T/tree" bisect reset -q 2>/dev/null || git -C "$T/tree" bisect reset
  # nothing was started: the tree is where it was, no report
  [ "$(git -C "$T/tree" symbolic-ref --short HEAD)" = main ]
  [ ! -e "$T/out" ]
  run env -u BISECT_OUT "$b" step
  [ "$status" -eq 1 ]
  [[ $output == *"bisect.sh step runs under bisect.sh run"* ]]
}

@test "bisect_judge.py: good inside the change, bad beyond it, undecided across it or with too few samples" {
  [ -r "$ROOT/plots/stats.py" ] || skip "the statistics module has not landed (plots/stats.py)"
  local j=$ROOT/playbooks/lab/bisect_judge.py
  printf '%s\n' 1.00 1.02 0.98 1.01 0.99 >"$T/good"
  printf '%s\n' 1.30 1.32 1.28 1.31 1.29 >"$T/bad"
  printf '%s\n' 1.0 1.2 >"$T/two"
  run python3 "$j" +10 "$T/good" "$T/bad"
  [[ $output == "bad n=5 center=1.3 change_pct=+30.0 lo_pct=+"* ]]
  run python3 "$j" +10 "$T/good" "$T/good"
  [[ $output == "good n=5 center=1 change_pct=+0.0 "* ]]
  run python3 "$j" +10 "$T/good" "$T/two"
  [[ $output == "undecided n=2 "* ]]
  # lower is bad: 30% higher is good
  run python3 "$j" -10 "$T/good" "$T/bad"
  [[ $output == "good "* ]]
  echo nan >"$T/nan"
  run python3 "$j" +10 "$T/good" "$T/nan"
  [ "$status" -eq 2 ]
  run python3 "$j" 0 "$T/good" "$T/bad"
  [ "$status" -eq 2 ]
}

@test "report and make compare: the kernels of one OS group apart (os_key debian12-initonfree), labelled with their command line" {
  run python3 - "$ROOT/plots" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from resultslib import os_key, os_label
base = {"os": "debian", "os_version": "12", "kernel": "6.1.0-41-amd64"}
assert os_key(base) == "debian12"
assert os_key(dict(base, kernel_name="image", kernel_append="")) == "debian12"
iof = dict(base, kernel_name="initonfree", kernel_append="init_on_free=1")
assert os_key(iof) == "debian12-initonfree", os_key(iof)
assert os_label(iof) == "debian 12, Linux 6.1.0-41-amd64 init_on_free=1", os_label(iof)
assert os_label(dict(base, kernel_name="image", kernel_append="")) == "debian 12, Linux 6.1.0-41-amd64"
PY
  [ "$status" -eq 0 ] || { echo "$output"; false; }
}

@test "lab.sh inventory: with a client guest, lab-client is the client and each guest has its link address" {
  require_cmd yamllint ansible-inventory jq
  printf 'lab-client\t40000\t100\ttcg\tup\tclient\t/c/debian12-aaa\n' >"$T/guests.tsv"
  printf 'debian12-1\t40001\t101\ttcg\tup\tdebian12\t/c/debian12-aaa\n' >>"$T/guests.tsv"
  printf 'lab-client\t52:54:00:0a:00:01\t10.9.0.1\t10.9.0.2\ndebian12-1\t52:54:00:0b:00:01\t10.9.0.2\t10.9.0.1\n' >"$T/link.tsv"
  LAB_VARIANTS=ext4 run "$LABSH" inventory "$T/guests.tsv" - "$T/lab.yml"
  [ "$status" -eq 0 ]
  yamllint -s -d '{extends: default, rules: {line-length: {max: 160}}}' "$T/lab.yml"
  run ansible-inventory -i "$T/lab.yml" --list
  [ "$status" -eq 0 ]
  [ "$(jq -r '._meta.hostvars."lab-client" | .shootout_role + " " + .shootout_address' <<<"$output")" = "client 10.9.0.1" ]
  [ "$(jq -r '._meta.hostvars."debian12-1" | .shootout_role + " " + .shootout_address' <<<"$output")" = "server 10.9.0.2" ]
  [ "$(jq -r '._meta.hostvars."lab-client".shootout_variants' <<<"$output")" = null ]
  # the client alone is no guest to run: refused
  printf 'lab-client\t40000\t100\ttcg\tup\tclient\t/c/debian12-aaa\n' >"$T/guests.tsv"
  LAB_VARIANTS=ext4 run "$LABSH" inventory "$T/guests.tsv" - "$T/lab.yml"
  [ "$status" -eq 1 ]
  [[ $output == *"no guest is up in $T/guests.tsv"* ]]
}

@test "lab.sh kernels: meta.json says the replays ran on lab-client over the link (loopback without one)" {
  require_cmd jq
  local run=lab-quick-c-$$ r port
  r=$ROOT/results/$run RESULTS_RUN=$ROOT/results/$run
  fake_image "$T/c/debian12-aaa"
  mkdir -p "$r/debian12-1/ext4" "$r/debian12-2/ext4" "$T/state"
  for g in debian12-1 debian12-2; do echo '{"host": "h"}' >"$r/$g/ext4/meta.json"; done
  port=$(free_port)
  printf 'lab-client\t%s\t1\ttcg\tup\tclient\t%s\n' "$port" "$T/c/debian12-aaa" >"$T/state/guests.tsv"
  printf 'debian12-1\t%s\t1\ttcg\tup\tdebian12\t%s\n' "$port" "$T/c/debian12-aaa" >>"$T/state/guests.tsv"
  printf 'debian12-2\t%s\t1\ttcg\tup\tdebian12\t%s\n' "$port" "$T/c/debian12-aaa" >>"$T/state/guests.tsv"
  printf 'debian12-1\t52:54:00:0b:00:01\t10.9.0.2\t10.9.0.1\n' >"$T/state/link.tsv"
  LAB_STATE=$T/state LAB_RUN_ID=$run run --separate-stderr "$LABSH" kernels
  [ "$status" -eq 0 ]
  [ "$(jq -r .replay_client "$r/debian12-1/ext4/meta.json")" = lab-client ]
  [ "$(jq -r .replay_link "$r/debian12-1/ext4/meta.json")" = "virtio-net, a qemu socket netdev (UDP on this machine's loopback) from the server guest to the client guest, 10.9.0.2 to 10.9.0.1" ]
  [ "$(jq -r '.replay_client + " " + .replay_link' "$r/debian12-2/ext4/meta.json")" = "debian12-2 loopback" ]
  [ "$(jq -r .kernel_name "$r/debian12-2/ext4/meta.json")" = image ]
  [ ! -e "$r/lab-client" ]
}

@test "guests.sh: LAB_CLIENT takes guest or loopback" {
  run env LAB_CLIENT=host "$GUESTS" down "$T/state"
  [ "$status" -eq 2 ]
  [ "$output" = "lab guests: LAB_CLIENT=host: use guest or loopback" ]
}

@test "kernel.sh: a deb: source that names no package or an unreadable .deb is refused before anything is copied" {
  require_root
  local k=$ROOT/playbooks/lab/kernel.sh
  fake_image "$T/c/debian12-aaa"
  printf 'bad\tdeb:linux image\t-\nnofile\tdeb:%s/none.deb\t-\n' "$T" >"$T/kernels.tsv"
  LAB_CACHE=$T/cache LAB_KERNEL_TABLE=$T/kernels.tsv run "$k" variant "$T/c/debian12-aaa" bad "$T/k"
  [ "$status" -eq 1 ]
  [ "$output" = "lab kernel deb: 'linux image' is not a package name" ]
  LAB_CACHE=$T/cache LAB_KERNEL_TABLE=$T/kernels.tsv run "$k" variant "$T/c/debian12-aaa" nofile "$T/k"
  [ "$status" -eq 1 ]
  [[ $output == "lab kernel: nofile: cannot read $T/none.deb" ]]
  run "$ROOT/playbooks/lab/kernel-deb.sh" "$T/c/debian12-aaa" 'linux-image-6.12.57+deb12-amd64@bookworm backports' "$T/kd"
  [ "$status" -eq 1 ]
  [[ $output == *"is not PACKAGE@SUITE" ]]
  [ ! -e "$T/cache/kernels" ] || [ -z "$(ls -A "$T/cache/kernels")" ]
  [ ! -e "$T/kd" ]
}

# rounds_lab STATE : a guests.tsv of a client guest and three server guests
# up (a-1, b-1, c-1, in that order), as guests.sh up writes it, and a
# stand-in ansible-playbook in $T/bin: each call is a line of $T/calls,
# "ROUND SEED client HOST:VARIANTS..." (ROUND and SEED "-" when not given),
# the client and the servers of the inventory it got; it writes the
# summary.tsv the collect role would, and STUB_FAIL=HOST:VARIANT fails that
# variant (exit 2).
rounds_lab() {
  mkdir -p "$1" "$T/bin"
  {
    printf 'lab-client\t40000\t100\ttcg\tup\tclient\t%s\n' "$T/c/img"
    for g in a b c; do printf '%s-1\t40001\t101\ttcg\tup\t%s\t%s\n' "$g" "$g" "$T/c/img"; done
  } >"$1/guests.tsv"
  cat >"$T/bin/ansible-playbook" <<'STUB'
#!/usr/bin/env bash
set -eu
round=- seed=- run='' inv='' pb=''
while [ $# -gt 0 ]; do
  case $1 in
    -i) inv=$2; shift ;;
    -e) case $2 in
          shootout_round=*) round=${2#*=} ;;
          shootout_order_seed=*) seed=${2#*=} ;;
          shootout_run_id=*) run=${2#*=} ;;
        esac
        shift ;;
    *) pb=$1 ;;
  esac
  shift
done
hosts=$(python3 -c 'import sys, yaml
def walk(g):
    for h, v in (g.get("hosts") or {}).items():
        yield h, v
    for c in (g.get("children") or {}).values():
        yield from walk(c)
for h, v in walk(yaml.safe_load(open(sys.argv[1]))["all"]):
    if v.get("shootout_role") == "server":
        print(h + ":" + ",".join(x["name"] for x in v["shootout_variants"]))
    else:
        print(v.get("shootout_role"))' "$inv")
echo "$round $seed" $hosts >>"$STUB_CALLS"
dir=$(dirname "$(dirname "$pb")")/results/$run
mkdir -p "$dir"
rc=0
{
  printf 'host\tvariant\tphases_done\tfailed\n'
  for h in $hosts; do
    [ "$h" != client ] || continue
    for v in $(tr ',' ' ' <<<"${h#*:}"); do
      if [ "${STUB_FAIL:-}" = "${h%%:*}:$v" ]; then
        printf '%s\t%s\t0/1 \tstub: untar failed on purpose\n' "${h%%:*}" "$v"
        rc=2
      else
        printf '%s\t%s\t1/1 untar\t-\n' "${h%%:*}" "$v"
      fi
    done
  done
} >"$dir/summary.tsv"
exit "$rc"
STUB
  chmod +x "$T/bin/ansible-playbook"
}

# lab_play RUN [VAR=value...] : lab.sh play against the guests of rounds_lab
# with the stand-in playbook, as `run` plays once they are up.
lab_play() {
  local r=$1
  shift
  : >"$T/calls"
  run --separate-stderr env PATH="$T/bin:$PATH" STUB_CALLS="$T/calls" LAB_STATE="$T/state" LAB_INVENTORY="$T/lab.yml" \
    LAB_RUN_ID="$r" LAB_CLIENT=guest "$@" "$LABSH" play
}

@test "lab.sh play: TRIALS=3 runs in rounds, a trial of every guest a round, in an order seeded from SEED and recorded in order.tsv" {
  require_cmd python3
  local run=lab-quick-r-$$ order
  RESULTS_RUN=$ROOT/results/$run
  order=$ROOT/results/$run/order.tsv
  rounds_lab "$T/state"
  lab_play "$run" TRIALS=3 SEED=7 LAB_VARIANTS=ext4,xfs
  [ "$status" -eq 0 ] || { echo "$stderr"; false; }
  cat "$T/calls" "$order"
  # One run of the playbook per round and guest, each with the client and
  # that guest alone, its round and the seed: round 1 of every guest before
  # round 2 of any.
  [ "$(cut -d' ' -f1 "$T/calls" | tr '\n' ' ')" = "1 1 1 2 2 2 3 3 3 " ]
  [ "$(grep -cx '[123] 7 client [abc]-1:ext4,xfs' "$T/calls")" -eq 9 ]
  # Each round in an order of its own, Python's random.shuffle of the guests
  # seeded with SEED-ROUND (docs/formats.md#ordertsv): 7-1 gives b a c, 7-2
  # and 7-3 b c a; order.tsv says so, and the calls ran so.
  [ "$(head -1 "$order")" = "$(printf 'trial\tposition\thost\tseed')" ]
  [ "$(awk -F '\t' 'NR > 1 { printf "%s%s%s%s ", $1, $2, $3, $4 }' "$order")" = \
    "11b-17 12a-17 13c-17 21b-17 22c-17 23a-17 31b-17 32c-17 33a-17 " ]
  [ "$(awk -F '\t' 'NR > 1 { print $1, $3 }' "$order")" = "$(awk '{ print $1, substr($4, 1, 3) }' "$T/calls")" ]
  [[ $stderr == *"lab: round 2 of 3, 2 of 3: c-1 (ext4,xfs)"* ]]
  # The summary sums the rounds.
  for g in a b c; do
    for v in ext4 xfs; do grep -qP "^$g-1\t$v\t3/3 untar\t-$" "$ROOT/results/$run/summary.tsv"; done
  done
  # The same seed gives the same order, another seed another.
  lab_play "$run-2" TRIALS=3 SEED=7 LAB_VARIANTS=ext4,xfs
  [ "$status" -eq 0 ]
  cmp "$order" "$ROOT/results/$run-2/order.tsv"
  lab_play "$run-3" TRIALS=3 SEED=8 LAB_VARIANTS=ext4,xfs
  [ "$status" -eq 0 ]
  [ "$(awk -F '\t' 'NR > 1 { printf "%s%s ", $1, $3 }' "$ROOT/results/$run-3/order.tsv")" = "1b-1 1a-1 1c-1 2b-1 2a-1 2c-1 3a-1 3c-1 3b-1 " ]
  rm -rf "$ROOT/results/$run-2" "$ROOT/results/$run-3"
  # A run's order is never written over: nothing runs.
  lab_play "$run" TRIALS=3 SEED=8 LAB_VARIANTS=ext4,xfs
  [ "$status" -eq 1 ]
  [[ $stderr == *"$order exists: a run is never written over"* ]]
  [ ! -s "$T/calls" ]
}

@test "lab.sh play: a failed variant leaves the later rounds; TRIALS=1, or one guest with one variant, is one run of the playbook as before" {
  require_cmd python3
  local run=lab-quick-f-$$
  RESULTS_RUN=$ROOT/results/$run
  rounds_lab "$T/state"
  lab_play "$run" TRIALS=2 SEED=7 LAB_VARIANTS=ext4,xfs STUB_FAIL=b-1:xfs
  [ "$status" -eq 2 ]
  cat "$T/calls"
  [ "$(grep -c 'b-1:' "$T/calls")" -eq 2 ]
  grep -qx '2 7 client b-1:ext4' "$T/calls"
  grep -qP '^b-1\txfs\t0/1 \tstub: untar failed on purpose$' "$ROOT/results/$run/summary.tsv"
  grep -qP '^b-1\text4\t2/2 untar\t-$' "$ROOT/results/$run/summary.tsv"
  # TRIALS=1: one run, every guest in one inventory, no rounds, no order of them.
  rm -rf "$ROOT/results/$run"
  lab_play "$run" TRIALS=1 SEED=7 LAB_VARIANTS=ext4,xfs
  [ "$status" -eq 0 ]
  [ "$(cat "$T/calls")" = "- - client a-1:ext4,xfs b-1:ext4,xfs c-1:ext4,xfs" ]
  [ ! -e "$ROOT/results/$run/order.tsv" ]
  # One guest with one variant: nothing to alternate, one run of TRIALS trials.
  rm -rf "$ROOT/results/$run"
  grep -v -e '^b-1' -e '^c-1' "$T/state/guests.tsv" >"$T/one.tsv"
  mv "$T/one.tsv" "$T/state/guests.tsv"
  lab_play "$run" TRIALS=3 SEED=7 LAB_VARIANTS=ext4
  [ "$status" -eq 0 ]
  [ "$(cat "$T/calls")" = "- - client a-1:ext4" ]
  # One guest with two variants: in rounds, the variants alternate in it.
  rm -rf "$ROOT/results/$run"
  lab_play "$run" TRIALS=2 SEED=7 LAB_VARIANTS=ext4,xfs
  [ "$status" -eq 0 ]
  [ "$(cat "$T/calls")" = "$(printf '1 7 client a-1:ext4,xfs\n2 7 client a-1:ext4,xfs')" ]
}

@test "make test-lab: its lab run and its bisect share one deadline (LAB_TEST_END), the bisect gets what the lab left" {
  local now
  now=$(date +%s)
  [ "$(LAB_TEST_END='' LAB_TEST_DEADLINE=900 lab_deadline)" -eq 900 ]
  # shellcheck disable=SC2016 # the inner shell expands $1
  run env LAB_TEST_END=$((now + 600)) LAB_TEST_DEADLINE=2700 bash -c '. "$1/tests/helpers.bash"; lab_deadline' sh "$ROOT"
  [ "$output" -le 600 ] && [ "$output" -ge 590 ]
  # a lab that used it all leaves the bisect a minute, not a negative timeout
  # shellcheck disable=SC2016 # the inner shell expands $1
  run env LAB_TEST_END=$((now - 30)) bash -c '. "$1/tests/helpers.bash"; lab_deadline' sh "$ROOT"
  [ "$output" -eq 60 ]
  grep -q 'LAB_TEST_END=.*bats --tap tests/lab/lab.bats tests/lab/bisect.bats' "$ROOT/playbooks/lab.mk"
}
