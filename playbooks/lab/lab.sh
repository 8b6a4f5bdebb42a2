#!/usr/bin/env bash
# The VM lab: the shootout playbook against qemu guests on this machine, with
# real reboots between the phases.
#   lab.sh run                           image, guests, inventory, playbook, results; always teardown
#   lab.sh inventory GUESTS.TSV KEY OUT [GUEST]
#                                        write the Ansible inventory of the guests listed (GUEST:
#                                        of that server guest alone, and the client)
#   LAB_RUN_ID=ID lab.sh play            run the playbook against LAB_STATE/guests.tsv's guests
#                                        that are up, in rounds when TRIALS > 1 (what `run` does
#                                        once they are up; below)
#   lab.sh clean                         stop and remove what the lab left (LAB_CLEAN_IMAGE=1: the image too)
#   lab.sh scan                          read LAB_STATE's consoles once and report new kernel panics
#                                        (what `run` does every two seconds while the guests run)
#   lab.sh silent                        name the guests of LAB_STATE/guests.tsv that no longer
#                                        answer SSH, each with its console's verdict (what `run`
#                                        does after a failed playbook)
#   LAB_RUN_ID=ID lab.sh retries         write LAB_STATE/panics.tsv into results/ID's meta.json
#                                        (what `run` does when the playbook is done); print the
#                                        guests that panicked twice
#   LAB_RUN_ID=ID lab.sh kernels         write the kernel each guest of LAB_STATE/guests.tsv ran
#                                        into results/ID's meta.json (what `run` does then too)
# Settings (environment; `make lab` passes its variables through):
#   LAB_OS=debian12 (names of playbooks/lab/os.tsv, e.g. "debian12 debian13")
#   LAB_KERNELS (names of LAB_KERNEL_TABLE=playbooks/lab/kernels.tsv: each OS's
#   image boots with each of these kernels, guests OS-KERNEL-N)
#   LAB_GUESTS=1 (per OS and kernel) LAB_VARIANTS=ext4,xfs DATASET=tiny SEED=1 TRIALS=1
#   (TRIALS > 1 with more than one guest or variant: in rounds, each round one
#   trial of every guest and variant in an order shuffled with SEED, recorded
#   in results/RUN/order.tsv; play below)
#   LAB_ACCEL=kvm|tcg (default: probe)  LAB_BOOT_TIMEOUT=600  LAB_MEM  LAB_CPUS
#   LAB_NET_COUNT=5000 (the net phases' NET_COUNT in the guests)
#   LAB_PRECISION=2 (the guests' PRECISION: 0, one trial a figure; make test-lab)
#   LAB_PROFILE=1 (the guests' PROFILE: a kernel profile of every phase)
#   LAB_SERVE_MODES="1 32 fork" (the serve modes: each costs a reboot under TCG)
#   LAB_PLAYBOOK=playbooks/shootout.yml  LAB_RUN_ID  LAB_STATE=build/lab/state
#   LAB_CACHE=/var/cache/shootout-lab  LAB_LOGS=build/lab/logs (the guests' consoles)
#   LAB_TOOLS=ship|build  LAB_INVENTORY=playbooks/inventory/lab.yml
#   LAB_ANSIBLE_ARGS (extra ansible-playbook arguments)
# Reference: docs/lab.md.
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LAB=$ROOT/playbooks/lab
LAB_OS=${LAB_OS:-debian12}
LAB_GUESTS=${LAB_GUESTS:-1}
LAB_VARIANTS=${LAB_VARIANTS:-ext4,xfs}
DATASET=${DATASET:-tiny}
SEED=${SEED:-1}
TRIALS=${TRIALS:-1}
LAB_BOOT_TIMEOUT=${LAB_BOOT_TIMEOUT:-600}
LAB_NET_COUNT=${LAB_NET_COUNT:-5000}
LAB_PRECISION=${LAB_PRECISION:-2}
LAB_PROFILE=${LAB_PROFILE:-1}
LAB_SERVE_MODES=${LAB_SERVE_MODES:-1 32 fork}
LAB_PLAYBOOK=${LAB_PLAYBOOK:-$ROOT/playbooks/shootout.yml}
LAB_STATE=${LAB_STATE:-$ROOT/build/lab/state}
LAB_INVENTORY=${LAB_INVENTORY:-$ROOT/playbooks/inventory/lab.yml}
LAB_CACHE=${LAB_CACHE:-/var/cache/shootout-lab}
LAB_LOGS=${LAB_LOGS:-$ROOT/build/lab/logs}
LAB_KERNELS=${LAB_KERNELS:-}
# Where the replays run: guest (a client guest linked to each server guest,
# guests.sh) or loopback (each server guest's own).
LAB_CLIENT=${LAB_CLIENT:-guest}
LAB_DEVICE=/dev/vdb
# The playbooks' work directory on the guests (shootout_workdir).
LAB_WORKDIR=/var/tmp/shootout
export LAB_BOOT_TIMEOUT LAB_CACHE LAB_CLIENT

lab_say() { printf 'lab: %s\n' "$*" >&2; }
lab_die() { lab_say "$*"; exit 1; }

# The settings of the group lab are checked first (one line naming the one
# refused, exit 2): their values go into the inventory's YAML, which Ansible
# reads as templates, so a name or number never holds more than that.
# shellcheck source=harness/common/settings.sh
. "$ROOT/harness/common/settings.sh"
# poll_until
# shellcheck source=harness/poll.sh
. "$ROOT/harness/poll.sh"
SHOOTOUT_ROOT=$ROOT settings_check lab
# play, play_rounds: the playbook against the guests, in rounds
# shellcheck source=playbooks/lab/play.sh
. "$LAB/play.sh"

# inventory GUESTS.TSV KEY OUT [GUEST] : one host per guest that is up, each a
# server with the variants of LAB_VARIANTS on its data disk, flushed by
# reboot, in the group of its OS (guests.tsv's 6th column) and logged in
# with its image's key (KEY for a guest with no image column).  With GUEST,
# the client guest and that server guest alone (a round's run of the
# playbook, play_rounds).
inventory() {
  local tsv=$1 key=$2 out=$3 only=${4:-} name port acc status os image v tmp n=0 g groups ind addr children=
  local links
  links=$(dirname "$tsv")/link.tsv
  [ -r "$tsv" ] || lab_die "no guest list $tsv"
  local IFS=,
  # shellcheck disable=SC2206 # split on commas
  local variants=($LAB_VARIANTS)
  unset IFS
  [ ${#variants[@]} -gt 0 ] || lab_die "LAB_VARIANTS is empty: name filesystems, e.g. ext4,xfs"
  for v in "${variants[@]}"; do
    case $v in '' | *[!a-z0-9]*) lab_die "LAB_VARIANTS: '$v' is not a filesystem name (e.g. ext4,xfs)" ;; esac
  done
  case $DATASET$SEED$TRIALS in *[!A-Za-z0-9_-]*) lab_die "DATASET, SEED and TRIALS are names and numbers" ;; esac
  local serve_modes='' mode
  for mode in $LAB_SERVE_MODES; do
    case $mode in fork | [1-9] | [1-9][0-9] | [1-9][0-9][0-9]) ;; *)
      lab_die "LAB_SERVE_MODES: '$mode' is not a serve mode (process counts and fork, e.g. \"1 32 fork\")" ;; esac
    serve_modes=${serve_modes:+$serve_modes, }$mode
  done
  [ -n "$serve_modes" ] || lab_die "LAB_SERVE_MODES is empty: e.g. \"1 32 fork\""
  mkdir -p "$(dirname "$out")"
  tmp=$out.tmp.$$
  {
    echo '---'
    echo '# Generated by playbooks/lab/lab.sh for the running VM lab: do not edit.'
    echo 'all:'
    echo '  vars:'
    echo "    shootout_dataset: $DATASET"
    echo "    shootout_seed: $SEED"
    echo "    shootout_trials: $TRIALS"
    echo '    # Every cold phase on a freshly booted guest kernel.'
    echo '    shootout_flush: reboot'
    echo "    shootout_reboot_timeout: $LAB_BOOT_TIMEOUT"
    echo '    # The data disk /dev/vdb is a file the lab made for this guest: wiping it is safe.'
    echo '    shootout_confirm_wipe: true'
    echo '    # The image has every package already and the guests have no way out.'
    echo '    shootout_provision: false'
    echo "    shootout_workdir: $LAB_WORKDIR"
    echo '    # How the guests run: the harness records it in meta.json (virt).'
    echo '    # The net phases (v4 and v6, 1 and 4 processes) fetch LAB_NET_COUNT'
    echo '    # files each: the default 50,000 costs minutes per variant under TCG.'
    echo "    shootout_virt: $acc_all"
    echo '    # PRECISION: the stopping rule repeats each serve and net figure up to'
    echo '    # 10 trials or 60 s (LAB_PRECISION=0: one trial a figure).'
    echo "    shootout_make_vars: {VIRT: $acc_all, NET_COUNT: $LAB_NET_COUNT, PROFILE: $LAB_PROFILE, PRECISION: $LAB_PRECISION}"
    echo '    # The serve modes (LAB_SERVE_MODES): each cold replay follows a reboot.'
    echo "    shootout_serve_modes: [$serve_modes]"
    echo '    ansible_user: root'
    echo '    ansible_ssh_common_args: -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null'
    echo '    ansible_python_interpreter: /usr/bin/python3'
    # One group per OS (in the order of LAB_OS) with its guests; the
    # servers' play takes one host at a time, so one guest runs at a time.
    # Guests of no OS (a guest list of an older lab) are hosts of all.
    groups=$(awk -F '\t' -v only="$only" '$5 == "up" && (only == "" || $1 == only || $6 == "client") && !seen[$6]++ {
        if ($6 == "") none = 1; else print $6 }
      END { if (none) print "-" }' "$tsv")
    for g in $groups; do
      if [ "$g" = - ]; then
        echo '  hosts:'
        ind='    '
      else
        [ -n "$children" ] || { echo '  children:'; children=1; }
        # (a kernel variant's OS debian12-iof: the group debian12_iof)
        echo "    ${g//-/_}:"
        echo '      hosts:'
        ind='        '
      fi
      while IFS=$'\t' read -r name port _ acc status os image; do
        if [ "$status" != up ] || [ "${os:--}" != "$g" ]; then continue; fi
        if [ -n "$only" ] && [ "$name" != "$only" ] && [ "$os" != client ]; then continue; fi
        echo "$ind$name:"
        echo "$ind  ansible_host: 127.0.0.1"
        echo "$ind  ansible_port: $port"
        echo "$ind  ansible_ssh_private_key_file: $([ -n "$image" ] && echo "$image/lab_key" || echo "$key")"
        # the address the other end of its link reaches it at (LAB_CLIENT=guest)
        addr=$(awk -F '\t' -v g="$name" '$1 == g { print $3; exit }' "$links" 2>/dev/null || true)
        [ -z "$addr" ] || echo "$ind  shootout_address: $addr"
        if [ "$os" = client ]; then
          echo "$ind  shootout_role: client"
          continue
        fi
        n=$((n + 1))
        echo "$ind  shootout_role: server"
        echo "$ind  shootout_result_host: $name"
        echo "$ind  shootout_virt: $acc"
        echo "$ind  shootout_variants:"
        for v in "${variants[@]}"; do
          echo "$ind    - {name: $v, fs: $v, device: $LAB_DEVICE}"
        done
      done <"$tsv"
    done
  } >"$tmp"
  [ "$n" -gt 0 ] || { rm -f "$tmp"; lab_die "no guest is up in $tsv"; }
  mv -f "$tmp" "$out"
}

# teardown : stop the guests, remove the state and the inventory.  Runs on
# every exit of `run` (success, failure, Ctrl-C, TERM).
teardown() {
  local rc=$?
  trap - EXIT INT TERM HUP
  if [ -n "${CHILD:-}" ]; then
    kill -TERM "$CHILD" 2>/dev/null || true
    wait "$CHILD" 2>/dev/null || true
  fi
  if [ -n "${watcher:-}" ]; then
    kill -TERM "$watcher" 2>/dev/null || true
    wait "$watcher" 2>/dev/null || true
  fi
  if [ -s "$LAB_STATE/ansible.log" ]; then
    mkdir -p "$LAB_LOGS/$RUN_ID"
    cp "$LAB_STATE/ansible.log" "$LAB_LOGS/$RUN_ID/"
  fi
  "$LAB/guests.sh" down "$LAB_STATE" || rc=1
  # The guests' serial consoles (every boot's kernel log) outlive them.
  if ls "$LAB_STATE"/*.console >/dev/null 2>&1; then
    mkdir -p "$LAB_LOGS/$RUN_ID"
    cp "$LAB_STATE"/*.console "$LAB_LOGS/$RUN_ID/"
    lab_say "consoles of the guests: $LAB_LOGS/$RUN_ID"
  fi
  rm -rf "$LAB_STATE"
  rm -f "$LAB_INVENTORY"
  if pgrep -f "qemu-system.*$LAB_STATE/" >/dev/null 2>&1; then
    lab_say "qemu processes of $LAB_STATE are still running"
    rc=1
  fi
  lab_say "guests stopped, $LAB_STATE removed"
  exit "$rc"
}

# watch_panics : while the guests run, read their consoles every two seconds
# and say at once when a guest kernel panics: the guest, the boot, what the
# playbook was doing (its last reboot task and variant, from the Ansible log),
# the first oops line and where the console will be.  A panicked kernel
# reboots itself (guests.sh: panic=LAB_PANIC_REBOOT), so the boot is retried;
# a second panic of the same guest stops it, and the lab fails that guest.
# Each panic is a line of $LAB_STATE/panics.tsv:
#   guest  boot  unix time  variant (- before the first)  reboot task  oops line
watch_panics() {
  : >"$LAB_STATE/panics.tsv"
  while :; do
    scan_panics
    sleep 2
  done
}

# scan_panics : one reading of every console of LAB_STATE (watch_panics).
scan_panics() {
  local list=$LAB_STATE/panics.tsv c name seen n boot oops task variant now
  for c in "$LAB_STATE"/*.console; do
    [ -e "$c" ] || continue
    name=$(basename "$c" .console)
    case $name in kvmprobe) continue ;; esac
    seen=$(awk -F '\t' -v g="$name" '$1 == g' "$list" | wc -l)
    n=$("$LAB/console.sh" panics "$c" | wc -l)
    [ "$n" -gt "$seen" ] || continue
    "$LAB/console.sh" panics "$c" | tail -n +"$((seen + 1))" | while IFS=$'\t' read -r boot oops _; do
      now=$(date +%s)
      task=$(ansible_last 'TASK \[[^]]*[Rr]eboot[^]]*\]' 'Boot id \(before\|after\) the reboot\|Reboot to empty every cache\|Whether this step')
      variant=$(ansible_last "TASK \\[Nothing done yet [^]]* for [^]]*\\]" | sed 's/.* for //')
      printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$boot" "$now" "${variant:--}" "${task:-the first boot}" "$oops" >>"$list"
      seen=$((seen + 1))
      if [ "$seen" -eq 1 ]; then
        lab_say "$name: guest kernel panic in boot $boot (${task:-the first boot}${variant:+, variant $variant}): $oops (console: $LAB_LOGS/$RUN_ID/$name.console); the guest reboots itself and the boot is retried"
      else
        lab_say "$name: a second guest kernel panic, in boot $boot (${task:-the first boot}${variant:+, variant $variant}): $oops (console: $LAB_LOGS/$RUN_ID/$name.console); $name is stopped and fails"
        "$LAB/guests.sh" kill "$LAB_STATE" "$name" || true
      fi
    done
  done
}

# ansible_last REGEX [SKIP] : the name of the last task of the Ansible log
# whose "TASK [name]" line matches REGEX and whose name does not match SKIP
# (nothing before the playbook starts).
ansible_last() {
  [ -r "$LAB_STATE/ansible.log" ] || return 0
  # (an included role's task is "role : name": the name is enough)
  grep -o "$1" "$LAB_STATE/ansible.log" | sed 's/^TASK \[//; s/\]$//; s/^[a-z_]* : //' | grep -v -- "${2:-^$}" | tail -n 1 || true
}

# panic_meta : write each guest's panics into the meta.json of the variant
# they happened in (every variant of the guest for a panic before the first):
# boot_retries, a list of {boot, oops, during}.  The report says "boot retried
# after a guest kernel panic".
panic_meta() {
  local list=$LAB_STATE/panics.tsv g m v tmp
  [ -s "$list" ] || return 0
  for m in "$ROOT/results/$RUN_ID"/*/*/meta.json; do
    [ -e "$m" ] || continue
    v=$(basename "$(dirname "$m")") g=$(basename "$(dirname "$(dirname "$m")")")
    tmp=$m.tmp.$$
    awk -F '\t' -v g="$g" -v v="$v" '$1 == g && ($4 == v || $4 == "-")' "$list" |
      jq -R -s 'split("\n") | map(select(length > 0) | split("\t")
        | {boot: (.[1] | tonumber), oops: .[5], during: .[4]})' >"$tmp.new" || continue
    if [ "$(jq length "$tmp.new")" -gt 0 ] && jq --slurpfile r "$tmp.new" '.boot_retries = $r[0]' "$m" >"$tmp"; then
      mv -f "$tmp" "$m"
    fi
    rm -f "$tmp" "$tmp.new"
  done
}

# silent_guests : after a failed playbook, one line for each guest that was
# up and no longer answers SSH, with its console's verdict (a panic, an oops,
# a hang without either).
silent_guests() {
  local name port status image
  while IFS=$'\t' read -r name port _ _ status _ image; do
    [ "$status" = up ] || continue
    timeout 20 ssh -q -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
      -o LogLevel=ERROR -o ConnectTimeout=5 -i "$image/lab_key" -p "$port" root@127.0.0.1 true </dev/null 2>/dev/null &&
      continue
    lab_say "$name no longer answers SSH: $("$LAB/console.sh" why "$LAB_STATE/$name.console" 2>&1) (console: $LAB_LOGS/$RUN_ID/$name.console)"
  done <"$LAB_STATE/guests.tsv"
}

# panic_failed : the guests that panicked twice, "name (why)" comma-separated.
panic_failed() {
  [ -s "$LAB_STATE/panics.tsv" ] || return 0
  awk -F '\t' '{ n[$1]++; last[$1] = $6 } END { for (g in n) if (n[g] > 1) printf "%s%s (a second kernel panic: %s)", (s++ ? ", " : ""), g, last[g] }' "$LAB_STATE/panics.tsv"
}

# link_setup : give each guest of LAB_STATE/link.tsv that is up the
# addresses of its link NICs (a systemd-networkd file matched by MAC, in its
# overlay, so reboots keep it), then check that each server guest reaches
# the client's SSH port over its link.
link_setup() {
  local links=$LAB_STATE/link.tsv name port status image cmd
  [ -s "$links" ] || return 0
  while IFS=$'\t' read -r name port _ _ status _ image; do
    [ "$status" = up ] || continue
    cmd=$(awk -F '\t' -v g="$name" '$1 == g {
      f = "/etc/systemd/network/05-lablink-" $2 ".network"; gsub(":", "", f)
      printf "printf \"[Match]\\nMACAddress=%s\\n\\n[Network]\\nLinkLocalAddressing=no\\n\\n[Address]\\nAddress=%s/32\\nPeer=%s/32\\n\" >%s; ", $2, $3, $4, f
    }' "$links")
    [ -n "$cmd" ] || continue
    lab_ssh "$image" "$port" "$cmd systemctl restart systemd-networkd" || lab_die "$name: cannot set up its link"
  done <"$LAB_STATE/guests.tsv"
  while IFS=$'\t' read -r name port _ _ status os image; do
    if [ "$status" != up ] || [ "$os" = client ]; then continue; fi
    # shellcheck disable=SC2016 # expanded in the guest
    POLL_STEP=2 poll_until 60 lab_ssh "$image" "$port" 'exec 3<>/dev/tcp/10.9.0.1/22' ||
      lab_die "$name: no link to lab-client (10.9.0.1:22 does not answer over it)"
  done <"$LAB_STATE/guests.tsv"
  lab_say "the client guest lab-client is linked to each guest (10.9.0.1; LAB_CLIENT=loopback: replays on the guests' own loopback)"
}

# lab_ssh IMAGE PORT CMD : CMD as root on the guest of that port.
lab_ssh() {
  timeout 30 ssh -q -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
    -o LogLevel=ERROR -o ConnectTimeout=5 -i "$1/lab_key" -p "$2" root@127.0.0.1 "$3" </dev/null
}

# kernel_meta : write into each guest's meta.json files which kernel it ran
# (docs/formats.md): kernel_name, kernel_source and kernel_append (its line
# of the kernel table, or "image" for the image's own), kernel_cmdline (the
# guest's /proc/cmdline), kernel_config_sha256 and the config itself beside
# meta.json (kernel.config: /boot/config-RELEASE in the guest, or the one
# the variant came with).  The harness records kernel (uname -r) and
# kernel_version (uname -v) already.
kernel_meta() {
  local name port status os image m dir tmp kj cmdline cfg sha client link
  while IFS=$'\t' read -r name port _ _ status os image; do
    if [ "$status" != up ] || [ "$os" = client ]; then continue; fi
    # where its replays ran, and over what
    link=$(awk -F '\t' -v g="$name" '$1 == g { print $3 " to " $4; exit }' "$LAB_STATE/link.tsv" 2>/dev/null || true)
    if [ -n "$link" ]; then
      client=lab-client
      link="virtio-net, a qemu socket netdev (UDP on this machine's loopback) from the server guest to the client guest, $link"
    else
      client=$name link=loopback
    fi
    ls "$ROOT/results/$RUN_ID/$name"/*/meta.json >/dev/null 2>&1 || continue
    tmp=$LAB_STATE/$name.kernel
    # shellcheck disable=SC2016 # expanded in the guest
    cmdline=$(timeout 30 ssh -q -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
      -o LogLevel=ERROR -o ConnectTimeout=5 -i "$image/lab_key" -p "$port" root@127.0.0.1 \
      'cat /proc/cmdline; cat "/boot/config-$(uname -r)" 2>/dev/null' </dev/null 2>/dev/null >"$tmp.all" &&
      head -n 1 "$tmp.all") || cmdline=
    cfg=$tmp.config
    tail -n +2 "$tmp.all" 2>/dev/null >"$cfg" || true
    [ -s "$cfg" ] || cp "$image/config" "$cfg" 2>/dev/null || : >"$cfg"
    sha=
    [ ! -s "$cfg" ] || sha=$(sha256sum <"$cfg" | cut -d' ' -f1)
    kj=$image/kernel.json
    [ -r "$kj" ] || { kj=$tmp.json; echo '{"name": "image", "source": "image", "append": ""}' >"$kj"; }
    for m in "$ROOT/results/$RUN_ID/$name"/*/meta.json; do
      dir=$(dirname "$m")
      [ ! -s "$cfg" ] || cp "$cfg" "$dir/kernel.config"
      if jq --slurpfile k "$kj" --arg cmdline "$cmdline" --arg sha "$sha" --arg client "$client" --arg link "$link" \
        '.kernel_name = $k[0].name | .kernel_source = $k[0].source | .kernel_append = $k[0].append
         | .kernel_cmdline = $cmdline | .kernel_config_sha256 = $sha
         | .replay_client = $client | .replay_link = $link' "$m" >"$m.tmp.$$"; then
        mv -f "$m.tmp.$$" "$m"
      else
        rm -f "$m.tmp.$$"
        lab_say "$name: cannot write the kernel into $m"
      fi
    done
    rm -f "$tmp".*
  done <"$LAB_STATE/guests.tsv"
}

# kernel_variants IMAGE... : the image directories to boot: each image as it
# is without LAB_KERNELS, else each image with each kernel of LAB_KERNELS
# (kernel.sh variant), one a line.
kernel_variants() {
  local image k
  if [ -z "${LAB_KERNELS// /}" ]; then
    printf '%s\n' "$@"
    return
  fi
  for image in "$@"; do
    for k in $LAB_KERNELS; do
      "$LAB/kernel.sh" variant "$image" "$k" "$LAB_STATE/kernels" || return 1
    done
  done
}

# bg CMD... : run CMD in the background and wait for it, so that a signal to
# this script reaches teardown at once (teardown stops CMD).
bg() {
  local rc=0
  "$@" </dev/null &
  CHILD=$!
  wait "$CHILD" || rc=$?
  CHILD=
  return "$rc"
}

# ship_tools : copy this checkout's binaries and objects (built on Debian 12,
# same architecture; they run on later Debian releases too) into the guests'
# checkout, so that the playbook's tools role finds them up to date instead of
# compiling for minutes under TCG.  LAB_TOOLS=build skips this: the guests
# compile the tools themselves.
ship_tools() {
  local name port status image
  [ "${LAB_TOOLS:-ship}" = ship ] || return 0
  if [ ! -d "$ROOT/bin" ] || [ ! -d "$ROOT/build/default" ]; then
    lab_say "no bin/ here (run make first): the guests build the tools"
    return 0
  fi
  while IFS=$'\t' read -r name port _ _ status _ image; do
    [ "$status" = up ] || continue
    # -m: the files get the time of arrival, newer than the sources the
    # playbook unpacks next (objects first, then the binaries made of them),
    # so make takes them as built.
    tar -C "$ROOT" -czf - build/default bin |
      ssh -q -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
        -o LogLevel=ERROR -i "$image/lab_key" -p "$port" root@127.0.0.1 \
        "mkdir -p $LAB_WORKDIR/src && tar -xzmf - -C $LAB_WORKDIR/src" ||
      lab_die "$name: cannot copy the tools"
  done <"$LAB_STATE/guests.tsv"
  lab_say "tools shipped to the guests (LAB_TOOLS=build compiles them there instead)"
}

# images : build (or find cached) the image of every OS of LAB_OS and print
# their directories, one a line in the order of LAB_OS.  A cold cache builds
# them side by side: debootstrap waits on the mirror and dpkg more than on a
# core.
images() {
  local os tmp p rc=0 pids=()
  tmp=$(mktemp -d)
  for os in $LAB_OS; do
    "$LAB/image.sh" "$os" >"$tmp/$os" </dev/null &
    pids+=("$!")
  done
  for p in "${pids[@]}"; do
    wait "$p" || rc=1
  done
  for os in $LAB_OS; do
    [ "$rc" = 0 ] && cat "$tmp/$os"
  done
  rm -rf "$tmp"
  [ "$rc" = 0 ] || lab_die "no guest image for every OS of LAB_OS (the reason is above)"
}

run() {
  local images t0 t rc=0 failed os k
  [ "$(id -u)" -eq 0 ] || lab_die "needs root (debootstrap builds the guest image, guests get raw disks); run as root"
  for c in qemu-system-x86_64 qemu-img ansible-playbook ssh; do
    command -v "$c" >/dev/null || lab_die "missing $c (run 'make deps')"
  done
  [ -r "$LAB_PLAYBOOK" ] || lab_die "no playbook $LAB_PLAYBOOK"
  case $LAB_GUESTS in '' | *[!0-9]* | 0) lab_die "LAB_GUESTS must be a number from 1 up" ;; esac
  LAB_OS=$(tr ',' ' ' <<<"$LAB_OS")
  [ -n "${LAB_OS// /}" ] || lab_die "LAB_OS is empty: name operating systems of $LAB/os.tsv, e.g. debian12"
  for os in $LAB_OS; do
    [ "$(tr ' ' '\n' <<<"$LAB_OS" | grep -cx "$os")" -eq 1 ] || lab_die "LAB_OS names $os twice"
  done
  LAB_KERNELS=$(tr ',' ' ' <<<"$LAB_KERNELS")
  for k in $LAB_KERNELS; do
    [ "$(tr ' ' '\n' <<<"$LAB_KERNELS" | grep -cx -- "$k")" -eq 1 ] || lab_die "LAB_KERNELS names $k twice"
  done
  # shellcheck disable=SC2086 # one name a word
  "$LAB/kernel.sh" check $LAB_KERNELS || exit 1
  RUN_ID=${LAB_RUN_ID:-$(date -u +%Y%m%dT%H%M%SZ)-lab}
  # (the rounds write results/RUN/order.tsv first: never into another run)
  if [ "$TRIALS" -gt 1 ] && [ -e "$ROOT/results/$RUN_ID" ]; then
    lab_die "results/$RUN_ID exists: a lab run never writes into another run (name another LAB_RUN_ID)"
  fi
  mkdir -p "$(dirname "$LAB_STATE")"
  exec 9>"$LAB_STATE.lock"
  flock -n 9 || lab_die "another lab runs on $LAB_STATE (lock $LAB_STATE.lock)"

  t0=$(date +%s)
  images=$(images) || exit 1
  lab_say "images ($(($(date +%s) - t0))s): $(tr '\n' ' ' <<<"$images")"

  trap teardown EXIT
  trap 'lab_say "interrupted"; exit 130' INT
  trap 'lab_say "terminated"; exit 143' TERM HUP
  "$LAB/guests.sh" down "$LAB_STATE"
  rm -rf "$LAB_STATE"
  mkdir -p "$LAB_STATE"
  # shellcheck disable=SC2086 # one image directory a word
  images=$(kernel_variants $images) || lab_die "no kernel variant for every kernel of LAB_KERNELS (the reason is above)"
  watch_panics </dev/null &
  watcher=$!
  t=$(date +%s)
  # shellcheck disable=SC2086 # one image directory a word
  bg "$LAB/guests.sh" up "$LAB_GUESTS" "$LAB_STATE" $images || lab_die "no guest came up: nothing to run"
  lab_say "guests up ($(($(date +%s) - t))s)"
  failed=$(awk -F '\t' '$5 != "up" { printf "%s%s (%s)", sep, $1, $5; sep = ", " }' "$LAB_STATE/guests.tsv")
  acc_all=$(awk -F '\t' '$5 == "up" { print $4; exit }' "$LAB_STATE/guests.tsv")
  if [ "$LAB_CLIENT" = guest ] && ! awk -F '\t' '$1 == "lab-client" && $5 == "up" { ok = 1 } END { exit !ok }' "$LAB_STATE/guests.tsv"; then
    lab_die "the client guest lab-client did not come up: no replays without it (LAB_CLIENT=loopback runs them on the guests)"
  fi
  link_setup
  inventory "$LAB_STATE/guests.tsv" - "$LAB_INVENTORY"
  ship_tools

  t=$(date +%s)
  play || rc=$?
  lab_say "playbook done ($(($(date +%s) - t))s, exit $rc)"
  [ "$rc" -eq 0 ] || silent_guests
  panic_meta
  kernel_meta
  failed=$(printf '%s\n' "$failed" "$(panic_failed)" "$rounds_failed" | awk 'NF { printf "%s%s", sep, $0; sep = ", " }')
  if [ -n "$(find "$ROOT/results/$RUN_ID" -mindepth 1 -maxdepth 1 -type d 2>/dev/null)" ]; then
    lab_say "results: $ROOT/results/$RUN_ID"
  else
    lab_say "no results arrived in $ROOT/results/$RUN_ID"
    rc=1
  fi
  if [ -n "$failed" ]; then
    lab_say "failed guests: $failed"
    rc=1
  fi
  lab_say "total $(($(date +%s) - t0))s"
  return "$rc"
}

clean() {
  local d
  "$LAB/guests.sh" down "$LAB_STATE"
  rm -rf "$LAB_STATE" "$LAB_STATE.lock" "$LAB_LOGS"
  rm -f "$LAB_INVENTORY"
  if [ "${LAB_CLEAN_IMAGE:-0}" = 1 ] && [ -d "$LAB_CACHE" ]; then
    if pgrep -f "debootstrap.*$LAB_CACHE/build" >/dev/null 2>&1; then
      lab_die "an image build runs in $LAB_CACHE: wait for it, then clean again"
    fi
    # (the kernels of LAB_KERNELS' deb: sources too: kernel-deb.sh's copies)
    rm -rf --one-file-system "$LAB_CACHE/kernels"
    for d in "$LAB_CACHE"/*/base.raw "$LAB_CACHE"/build.* "$LAB_CACHE"/accel.*; do
      [ -e "$d" ] || continue
      case $d in */base.raw) rm -rf "$(dirname "$d")" ;; *) rm -rf "$d" ;; esac
    done
    rmdir "$LAB_CACHE" 2>/dev/null || true
    lab_say "removed the cached image in $LAB_CACHE"
  fi
  lab_say "clean"
}

case ${1:-} in
  run) [ $# -eq 1 ] || lab_die "usage: lab.sh run"; run ;;
  inventory)
    if [ $# -ne 4 ] && [ $# -ne 5 ]; then lab_die "usage: lab.sh inventory GUESTS.TSV KEY OUT [GUEST]"; fi
    acc_all=$(awk -F '\t' '$5 == "up" { print $4; exit }' "$2" 2>/dev/null || true)
    inventory "$2" "$3" "$4" "${5:-}"
    ;;
  clean) [ $# -eq 1 ] || lab_die "usage: lab.sh clean"; clean ;;
  scan)
    # One reading of LAB_STATE's consoles, as the run's watcher does.
    [ $# -eq 1 ] || lab_die "usage: lab.sh scan"
    RUN_ID=${LAB_RUN_ID:-scan}
    touch "$LAB_STATE/panics.tsv"
    scan_panics
    ;;
  silent)
    # What silent_guests says after a failed playbook.
    [ $# -eq 1 ] || lab_die "usage: lab.sh silent"
    RUN_ID=${LAB_RUN_ID:-silent}
    silent_guests
    ;;
  retries)
    # The panics of LAB_STATE/panics.tsv into results/LAB_RUN_ID's meta.json.
    if [ $# -ne 1 ] || [ -z "${LAB_RUN_ID:-}" ]; then lab_die "usage: LAB_RUN_ID=ID lab.sh retries"; fi
    RUN_ID=$LAB_RUN_ID
    panic_meta
    panic_failed
    ;;
  play)
    # The playbook against LAB_STATE's guests that are up, as `run` runs it.
    if [ $# -ne 1 ] || [ -z "${LAB_RUN_ID:-}" ]; then lab_die "usage: LAB_RUN_ID=ID lab.sh play"; fi
    RUN_ID=$LAB_RUN_ID
    acc_all=$(awk -F '\t' '$5 == "up" { print $4; exit }' "$LAB_STATE/guests.tsv" 2>/dev/null || true)
    inventory "$LAB_STATE/guests.tsv" - "$LAB_INVENTORY"
    rc=0
    play || rc=$?
    [ -z "$rounds_failed" ] || lab_say "failed guests: $rounds_failed"
    exit "$rc"
    ;;
  kernels)
    if [ $# -ne 1 ] || [ -z "${LAB_RUN_ID:-}" ]; then lab_die "usage: LAB_RUN_ID=ID lab.sh kernels"; fi
    RUN_ID=$LAB_RUN_ID
    kernel_meta
    ;;
  *) lab_die "usage: lab.sh run | inventory GUESTS.TSV KEY OUT [GUEST] | play | clean | scan | silent | retries | kernels" ;;
esac
