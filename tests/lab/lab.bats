#!/usr/bin/env bats
# shellcheck disable=SC2154 # bats sets $stderr (run --separate-stderr)
# The VM lab end to end (`make test-lab`, not part of `make test`; docs/lab.md
# has its time under TCG): one Debian 12 image booted with two kernels, the
# image's own (6.1) and Debian's backported 6.12.57 (kernels.tsv's bpo57,
# installed into a copy of the image from the mirror once and cached), the
# kernel the only difference; one filesystem variant on each, the replays
# run from a client guest of their own (LAB_CLIENT=guest), the tiny dataset,
# flushed by reboot, the phases of PLAY_PHASES; the report and make compare
# by kernel; then a guest that does not come up, a guest kernel that
# panics, and an interrupted lab.
# Needs root, qemu, ansible and the shootout playbook.

load ../helpers
bats_require_minimum_version 1.5.0

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
LABSH=$ROOT/playbooks/lab/lab.sh
# One variant on each kernel's guest: two kernels within CI's time.
OSES=(debian12)
KERNELS=(image bpo57)
GUESTS=(debian12-image-1 debian12-bpo57-1)
VARIANTS=(ext4)
# The phases a trial records (playbooks' shootout_phases; flush by reboot is
# Ansible's and records nothing).
# The playbook's phases here: untar and untar2 (serve's request list names
# files of both) on the first boot, serve (after its own reboot) and delete
# (on serve's boot), the guests one after the other.  Each reboot and each
# phase costs minutes a guest under TCG (on a slow day a reboot 1.5-3 min,
# a trivial phase 1 min, serve 3 min): the whole method (a reboot before
# untar2, net, the modes 1 and fork, 4 reboots a guest) took 29 min for one
# guest on 2026-11-28, past CI's deadline for two; a flush phase (a reboot)
# before delete cost 165-205 s a guest on 2026-11-29, and CI's lab run
# that stop ended 92 s before its deadline.  Serve's reboot is the one
# tested here; the flushes before untar2, delete and net and the other
# serve modes run locally (tests/shootout.bats, tests/serve-fork.bats, ...).
PLAY_PHASES=(untar untar2 serve delete)
PHASES=(untar untar2 serve-cold-1 serve-warm-1 delete)
SERVE_MODES=(1)

setup_file() {
  [ "$(id -u)" -eq 0 ] || skip "needs root (guest image, raw disks)"
  local c
  for c in qemu-system-x86_64 qemu-img ansible-playbook ssh jq; do
    command -v "$c" >/dev/null || skip "needs $c (run 'make deps')"
  done
  local os
  for os in "${OSES[@]}"; do
    ls "${LAB_CACHE:-/var/cache/shootout-lab}/$os"-*/base.raw >/dev/null 2>&1 ||
      command -v debootstrap >/dev/null || skip "needs debootstrap to build the guest images (run 'make deps')"
  done
  [ -r "$ROOT/playbooks/shootout.yml" ] || skip "the shootout playbook has not landed (playbooks/shootout.yml)"
  [ -x "$ROOT/bin/httpd" ] || skip "run make first (bin/ is shipped to the guests)"
  RUN_ID=test-lab-$(date -u +%Y%m%dT%H%M%SZ)-$$
  export RUN_ID
  export LAB_STATE=$BATS_FILE_TMPDIR/state
  export LAB_INVENTORY=$BATS_FILE_TMPDIR/lab.yml
  export LAB_LOGS=$BATS_FILE_TMPDIR/logs
  # The lab itself, once, under a deadline: a TERM at the deadline still
  # tears the guests down.  One trial a figure (LAB_PRECISION=0): the
  # stopping rule's repeats, up to 60 s a figure, would double the guests'
  # phases under TCG; it is tested on its own (precision.bats).
  local rc=0 t0=$SECONDS
  printf -- '---\nshootout_phases: [%s]\n' "$(IFS=,; echo "${PLAY_PHASES[*]}")" >"$BATS_FILE_TMPDIR/phases.yml"
  LAB_ANSIBLE_ARGS="-e @$BATS_FILE_TMPDIR/phases.yml" LAB_OS="${OSES[*]}" LAB_KERNELS="${KERNELS[*]}" LAB_CLIENT=guest LAB_PRECISION=0 LAB_GUESTS=1 LAB_VARIANTS=ext4 \
    LAB_SERVE_MODES="${SERVE_MODES[*]}" DATASET=tiny TRIALS=1 LAB_RUN_ID=$RUN_ID \
    timeout -s TERM "$(lab_deadline)" "$LABSH" run >"$BATS_FILE_TMPDIR/lab.log" 2>&1 || rc=$?
  echo "$rc" >"$BATS_FILE_TMPDIR/lab.rc"
  echo "# lab run: exit $rc in $((SECONDS - t0)) s" >&3
}

teardown_file() {
  [ -n "${RUN_ID:-}" ] || return 0
  # The lab's output and the guests' consoles outlive the test (build/lab/).
  mkdir -p "$ROOT/build/lab"
  cp "$BATS_FILE_TMPDIR/lab.log" "$ROOT/build/lab/test-lab.log" 2>/dev/null || true
  rm -rf "$ROOT/build/lab/test-lab-consoles" "$ROOT/build/lab/test-lab-results"
  cp -r "$LAB_LOGS/$RUN_ID" "$ROOT/build/lab/test-lab-consoles" 2>/dev/null || true
  # and what each guest recorded (records, meta.json, the phases' logs: a
  # few hundred KB), so that a failure can be read after the results go
  mkdir -p "$ROOT/build/lab/test-lab-results"
  (cd "$ROOT/results/$RUN_ID" 2>/dev/null &&
    find . \( -name records.tsv -o -name meta.json -o -path '*/logs/*' \) -type f \
      -exec cp --parents {} "$ROOT/build/lab/test-lab-results/" \;) 2>/dev/null || true
  # (the guests' archives only: make test may run beside, CI's .ci/run)
  if [ "${LAB_KEEP_RESULTS:-0}" != 1 ]; then
    rm -rf "$ROOT/results/$RUN_ID"
    local g
    for g in "${GUESTS[@]}"; do rm -f "$ROOT/build/incoming/$g.tar.gz"; done
  fi
}

# no_qemu STATE : no qemu process of that lab state directory runs.
no_qemu() {
  ! pgrep -f "qemu-system.*$1/" >/dev/null
}

# show_log : the lab's output, for a failing test.
show_log() {
  sed 's/^/# /' "$BATS_FILE_TMPDIR/lab.log" | tail -n 60 >&3
}

@test "make lab: the shootout runs on a guest of each kernel and every variant's results come home" {
  local g v
  [ "$(cat "$BATS_FILE_TMPDIR/lab.rc")" -eq 0 ] || { show_log; false; }
  for g in "${GUESTS[@]}"; do
    for v in "${VARIANTS[@]}"; do
      [ -s "$ROOT/results/$RUN_ID/$g/$v/meta.json" ] || { echo "# no $g/$v/meta.json" >&3; false; }
      [ -s "$ROOT/results/$RUN_ID/$g/$v/records.tsv" ]
    done
  done
  grep -q "results: $ROOT/results/$RUN_ID" "$BATS_FILE_TMPDIR/lab.log"
  # One at a time (the servers' play is serial, in whichever order Ansible
  # takes them): the later guest began after the earlier one's phases, at
  # least their wall times, were over.
  local a b sa sb wa
  a=$ROOT/results/$RUN_ID/${GUESTS[0]} b=$ROOT/results/$RUN_ID/${GUESTS[1]}
  sa=$(date -d "$(jq -r .start_time "$a/${VARIANTS[0]}/meta.json")" +%s)
  sb=$(date -d "$(jq -r .start_time "$b/${VARIANTS[0]}/meta.json")" +%s)
  [ "$sa" -le "$sb" ] || { local t=$a; a=$b; b=$t; t=$sa; sa=$sb; sb=$t; }
  wa=$(awk -F '\t' '$3 == "wall_s" { w += $4 } END { printf "%d", w }' "$a"/*/records.tsv)
  [ "$wa" -gt 0 ]
  [ "$sb" -ge $((sa + wa)) ] || { echo "# $(basename "$b") began at $sb, $(basename "$a") at $sa with ${wa}s of phases" >&3; false; }
}

@test "make lab: every phase of every guest's variants is recorded and succeeded" {
  local g v p f
  for g in "${GUESTS[@]}"; do
    for v in "${VARIANTS[@]}"; do
      f=$ROOT/results/$RUN_ID/$g/$v/records.tsv
      [ -s "$f" ] || { show_log; false; }
      for p in "${PHASES[@]}"; do
        awk -F '\t' -v p="$p" '$1 == p && $3 == "status" && $4 == 0 { ok = 1 } END { exit !ok }' "$f" ||
          { echo "# $g/$v: no successful $p in $f" >&3; false; }
      done
    done
  done
}

@test "make lab: meta.json marks each host as a VM with the lab's accelerator, the variant's fs and disk" {
  local g v m acc
  acc=$(sed -n 's/.*lab guests: debian12-image-1 up after .*, \(kvm\|tcg\))$/\1/p' "$BATS_FILE_TMPDIR/lab.log")
  [ -n "$acc" ] || { show_log; false; }
  for g in "${GUESTS[@]}"; do
    for v in "${VARIANTS[@]}"; do
      m=$ROOT/results/$RUN_ID/$g/$v/meta.json
      # The lab passes VIRT=kvm|tcg, which meta.sh records as it is.
      case $acc/$(jq -r .virt "$m") in
        kvm/kvm | tcg/tcg) ;;
        *) echo "# $g/$v: virt $(jq -r .virt "$m"), the lab ran $acc" >&3; false ;;
      esac
      [ "$(jq -r .fs "$m")" = "$v" ]
      [ "$(jq -r .host "$m")" = "$g" ]
      [[ $(jq -r .device "$m") == /dev/vdb* ]]
      [ "$(jq -r .flush "$m")" = reboot ]
    done
  done
}

@test "make lab: one image, two kernels: meta.json names each kernel, its source and config" {
  local ma mb
  ma=$ROOT/results/$RUN_ID/${GUESTS[0]}/${VARIANTS[0]}/meta.json
  mb=$ROOT/results/$RUN_ID/${GUESTS[1]}/${VARIANTS[0]}/meta.json
  [ -s "$ma" ] && [ -s "$mb" ] || { show_log; false; }
  # the same userland, each with its own kernel
  [ "$(jq -r '.os + " " + .os_version' "$ma")" = "debian 12" ]
  [ "$(jq -r '.os + " " + .os_version' "$mb")" = "debian 12" ]
  [[ $(jq -r .kernel "$ma") == 6.1.* ]] || { echo "# ${GUESTS[0]}: kernel $(jq -r .kernel "$ma")" >&3; false; }
  [[ $(jq -r .kernel "$mb") == 6.12.57* ]] || { echo "# ${GUESTS[1]}: kernel $(jq -r .kernel "$mb")" >&3; false; }
  [ "$(jq -r '[.kernel_name, .kernel_source, .kernel_append] | join("|")' "$ma")" = "image|image|" ]
  [ "$(jq -r '[.kernel_name, .kernel_source, .kernel_append] | join("|")' "$mb")" = \
    "bpo57|deb:linux-image-6.12.57+deb12-amd64@bookworm-backports|" ]
  # each kernel's config beside its meta.json, recorded by its hash: two
  # kernels, two configs
  local g sha m
  for g in "${GUESTS[@]}"; do
    m=$ROOT/results/$RUN_ID/$g/${VARIANTS[0]}/meta.json
    sha=$(jq -r .kernel_config_sha256 "$m")
    [ -n "$sha" ] || { echo "# $g: no kernel_config_sha256" >&3; false; }
    grep -q '^CONFIG_EXT4_FS=' "$(dirname "$m")/kernel.config"
    [ "$(sha256sum <"$(dirname "$m")/kernel.config" | cut -d' ' -f1)" = "$sha" ]
    [[ " $(jq -r .kernel_cmdline "$m") " == *" root=/dev/vda "* ]]
  done
  [ "$(jq -r .kernel_config_sha256 "$ma")" != "$(jq -r .kernel_config_sha256 "$mb")" ]
  # Two distinct kernels over all the records of the run.
  [ "$(jq -r .kernel "$ROOT/results/$RUN_ID"/*/*/meta.json | sort -u | wc -l)" -eq 2 ]
  # The guests' consoles say the same.
  grep -q "Linux version $(jq -r .kernel "$ma") " "$LAB_LOGS/$RUN_ID/${GUESTS[0]}.console"
  grep -q "Linux version $(jq -r .kernel "$mb") " "$LAB_LOGS/$RUN_ID/${GUESTS[1]}.console"
}

@test "make lab: the replays ran on the client guest over its link, and no serve verdict is client" {
  local g v m
  for g in "${GUESTS[@]}"; do
    for v in "${VARIANTS[@]}"; do
      m=$ROOT/results/$RUN_ID/$g/$v/meta.json
      [ "$(jq -r .replay_client "$m")" = lab-client ] || { show_log; false; }
      [[ $(jq -r .replay_link "$m") == "virtio-net, a qemu socket netdev "*", 10.9.0."?" to 10.9.0.1" ]] ||
        { echo "# $g/$v: replay_link $(jq -r .replay_link "$m")" >&3; false; }
    done
  done
  grep -q "lab: the client guest lab-client is linked to each guest" "$BATS_FILE_TMPDIR/lab.log"
  # the run's figures (results.json, made at the end of the playbook): the
  # serve phases' request rates of both kernels, each with its verdict,
  # none of them client
  local j=$ROOT/results/$RUN_ID/results.json
  [ -s "$j" ] || { show_log; false; }
  run jq -r '.[] | select((.phase | startswith("serve-")) and .metric == "rps") | .host + " " + .phase + " " + (.verdict // "")' "$j"
  echo "$output"
  [ "${#lines[@]}" -ge $((2 * 2 * ${#SERVE_MODES[@]})) ]
  for g in "${GUESTS[@]}"; do
    [[ $output == *"$g serve-cold-1 "?* ]] || { echo "# no verdict of $g's serve-cold-1" >&3; false; }
  done
  [[ $output != *" client"* ]] || { echo "# a client verdict: $output" >&3; false; }
}

# label M : the report's label of the OS and kernel of meta.json M
# (resultslib.os_label).
label() {
  jq -r '.os + " " + .os_version + ", Linux " + .kernel' "$1"
}

@test "make lab: the report groups the run by kernel, both kernels named side by side" {
  local out=$BATS_FILE_TMPDIR/report g
  run make -C "$ROOT" --no-print-directory report RUN="$RUN_ID" OUT="$out"
  echo "$output"
  [ "$status" -eq 0 ]
  grep -q 'Operating systems side by side' "$out/summary.md"
  for g in "${GUESTS[@]}"; do
    # e.g. "ext4 on debian 12, Linux 6.12.57+deb12-amd64 (debian12-bpo57-1)"
    grep -qF "${VARIANTS[0]} on $(label "$ROOT/results/$RUN_ID/$g/${VARIANTS[0]}/meta.json") ($g)" "$out/summary.md" ||
      { echo "# the report has no column of $g" >&3; grep 'side by side' -A 4 "$out/summary.md" >&3; false; }
    grep -qF "$(label "$ROOT/results/$RUN_ID/$g/${VARIANTS[0]}/meta.json")" "$out/index.html"
  done
}

@test "make lab: both kernels were profiled (perf in the image) and make compare of the two kernels draws the change and the profile page" {
  local g v m c=$BATS_FILE_TMPDIR/cmp
  for g in "${GUESTS[@]}"; do
    for v in "${VARIANTS[@]}"; do
      m=$ROOT/results/$RUN_ID/$g/$v/meta.json
      [[ $(jq -r .profile "$m") == perf* ]] || { echo "# $g/$v: profile $(jq -r .profile "$m")" >&3; false; }
      ls "$ROOT/results/$RUN_ID/$g/$v/profiles/"serve-cold-1-*.folded >/dev/null || {
        echo "# $g/$v: no serve-cold-1 profile; its phase's log:" >&3
        tail -n 20 "$ROOT/results/$RUN_ID/$g/$v/logs/"serve-cold-1-*.log 2>&1 | sed 's/^/#   /' >&3
        false
      }
    done
  done
  # the sides by kernel (resultslib.os_key: the image's kernel is the OS,
  # another kernel the OS and its name)
  run make -C "$ROOT" --no-print-directory compare BASE="$RUN_ID:debian12" NEW="$RUN_ID:debian12-bpo57" OUT="$c"
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output == *"comparison of $RUN_ID:debian12 (base) and $RUN_ID:debian12-bpo57 (new)"* ]]
  # one trial a side: the change, and no verdict on it
  grep -q "^| ${GUESTS[0]} vs ${GUESTS[1]} | ${VARIANTS[0]} | untar | wall_s | .* | [-+][0-9.]*% | - | cannot tell: 1 trial | - |$" "$c/compare.md" ||
    { sed 's/^/# /' "$c/compare.md" | head -n 30 >&3; false; }
  grep -q "^| ${GUESTS[0]} vs ${GUESTS[1]} | ${VARIANTS[0]} | serve-cold-1 | rps | " "$c/compare.md"
  grep -q 'serve-cold-1' "$c/profile.html"
}

@test "make lab: a freshly booted kernel before every cold phase (boot ids, guest console)" {
  local g v f
  for g in "${GUESTS[@]}"; do
    for v in "${VARIANTS[@]}"; do
      f=$ROOT/results/$RUN_ID/$g/$v/boot_ids.tsv
      [ -s "$f" ] || { show_log; false; }
      # boot_ids.tsv: the boot id at the end of each phase, in order (and the
      # harness's "flush" check after each reboot, which notes the new one).
      # Between untar2 and serve (serve's own reboot before each mode's cold
      # replay) the playbook rebooted: serve's boot must differ from the
      # phase's before it (untar2 follows untar on its boot here); the warm
      # replays ran on their cold replay's boot, and delete on serve's.
      # So: the first boot and one per serve mode.
      awk -F '\t' -v g="$g" '
        $1 ~ /^(flush|serve-warm-1|serve-warm-32|serve-warm-fork)$/ && $3 == prev { print "# " g ": no reboot before " $1 ": " $3; bad = 1 }
        $1 != "flush" { prev = $3 }
        END { exit bad }' "$f" >&3
      [ "$(cut -f3 "$f" | sort -u | wc -l)" -ge $((1 + ${#SERVE_MODES[@]})) ]
    done
    # The guest's console saw every boot: the first and, per variant, one
    # before each mode's cold serve.
    [ "$(grep -c 'Linux version' "$LAB_LOGS/$RUN_ID/$g.console")" -ge $((1 + ${#SERVE_MODES[@]} * ${#VARIANTS[@]})) ]
  done
}

@test "make lab: afterwards no qemu process is left, the state and the inventory are gone" {
  no_qemu "$LAB_STATE"
  [ ! -e "$LAB_STATE" ]
  [ ! -e "$LAB_INVENTORY" ]
  grep -q "guests stopped, $LAB_STATE removed" "$BATS_FILE_TMPDIR/lab.log"
}

@test "make lab: a guest that does not come up in time fails with the reason, no qemu left" {
  local state=$BATS_FILE_TMPDIR/slow
  # (the default LAB_CLIENT=guest: the client guest does not come up either)
  LAB_STATE=$state LAB_ACCEL=tcg LAB_BOOT_TIMEOUT=5 run --separate-stderr "$LABSH" run
  [ "$status" -eq 1 ]
  # The console's verdict: a kernel that had not printed its banner yet, or
  # hung in its first boot without a panic.
  [[ $stderr == *"lab-client: did not answer SSH within LAB_BOOT_TIMEOUT=5s: "*" (console: $state/lab-client.console); stopped it"* ]] ||
    { printf '# %s\n' "$stderr" >&3; false; }
  [[ $stderr == *"debian12-1: did not answer SSH within LAB_BOOT_TIMEOUT=5s: "*" (console: $state/debian12-1.console); stopped it"* ]]
  [[ $stderr == *"LAB_BOOT_TIMEOUT=5s: no kernel banner on the console"* || $stderr == *"LAB_BOOT_TIMEOUT=5s: hung without a kernel panic in boot 1"* ]]
  [[ $stderr == *"no guest came up"* ]]
  no_qemu "$state"
  [ ! -e "$state" ]
}

@test "make lab: a guest kernel that panics reboots and is retried once; a second panic fails the guest with its line" {
  local state=$BATS_FILE_TMPDIR/panic logs=$BATS_FILE_TMPDIR/panic-logs
  # No initramfs init: the kernel cannot mount its root and panics, each boot.
  LAB_CLIENT=loopback LAB_STATE=$state LAB_LOGS=$logs LAB_RUN_ID=panic LAB_ACCEL=tcg LAB_APPEND=rdinit=/nonexistent LAB_PANIC_REBOOT=1 \
    run --separate-stderr timeout 600 "$LABSH" run
  [ "$status" -eq 1 ]
  local oops="Kernel panic - not syncing: VFS: Unable to mount root fs on unknown-block(0,0)"
  [[ $stderr == *"lab: debian12-1: guest kernel panic in boot 1 (the first boot): $oops (console: $logs/panic/debian12-1.console); the guest reboots itself and the boot is retried"* ]] ||
    { printf '# %s\n' "$stderr" >&3; false; }
  [[ $stderr == *"lab: debian12-1: a second guest kernel panic, in boot 2 (the first boot): $oops (console: $logs/panic/debian12-1.console); debian12-1 is stopped and fails"* ]]
  [[ $stderr == *"debian12-1: qemu exited during boot: kernel panic in boot 2: $oops"* ]]
  [[ $stderr == *"no guest came up"* ]]
  [ "$(grep -c 'Linux version' "$logs/panic/debian12-1.console")" -eq 2 ]
  no_qemu "$state"
  [ ! -e "$state" ]
}

@test "make lab: interrupted (SIGINT) while the guest boots, the lab stops it and cleans up" {
  local state=$BATS_FILE_TMPDIR/intr pid rc=0
  # Job control on: a background job of a script otherwise ignores SIGINT;
  # and SIGINT at its default whatever this test inherited (bats started
  # in the background, say: an ignored signal stays ignored, job control
  # or not, and no trap of the lab could undo it: its lab ran to the end).
  set -m
  LAB_CLIENT=loopback LAB_STATE=$state LAB_ACCEL=tcg env --default-signal=INT "$LABSH" run >"$BATS_FILE_TMPDIR/intr.log" 2>&1 3>&- &
  pid=$!
  set +m
  wait_for_file "$state/debian12-1.pid" 120
  kill -INT "$pid"
  wait "$pid" || rc=$?
  [ "$rc" -eq 130 ]
  grep -q 'lab: interrupted' "$BATS_FILE_TMPDIR/intr.log"
  no_qemu "$state"
  [ ! -e "$state" ]
}
