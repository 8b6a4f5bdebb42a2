#!/usr/bin/env bash
# Boots and stops the VM lab's guests with qemu.
#   guests.sh up N STATE IMAGE...  boot N guests from each image: OS-1..OS-N, where
#                                  OS is the image directory's name less its
#                                  -<spec hash> (image.sh's debian12-<hash>: debian12-1)
#                                  (LAB_CLIENT=guest: and first a client guest,
#                                  lab-client, linked to each of them; below)
#   guests.sh down STATE           stop them, remove their disks and files
#   guests.sh accel STATE IMAGE    print the accelerator that really works here
#   guests.sh kill STATE NAME      stop one guest (its disks stay)
#   guests.sh soak N STATE IMAGE   boot one guest of IMAGE and reboot it until it
#                                  has booted N times; print each boot's time and
#                                  the kernel panics its console shows (docs/lab.md)
# STATE is a directory of the lab's own: per guest an overlay root disk, a data
# disk, a console log and a pid file, and guests.tsv, one line a guest:
#   name  ssh_port  pid  accel  status (up | failed: why)  os  image
# Networking is qemu user mode with restrict=on: SSH forwarded from a free
# loopback port; the guest reaches nothing (neither this machine nor beyond).
# LAB_CLIENT=guest: a client guest lab-client (the first image) boots first,
# with a point-to-point link to each guest: a virtio NIC a side joined by a
# qemu socket netdev over UDP on two loopback ports (each side's qemu sends
# its frames to the other's port), so the replay client runs off the server
# guest as the method's did, and the link carries nothing but lab traffic.
# UDP, not a TCP connection between the two qemu processes: over TCP a side
# that stopped reading held the other's transmit queue, and the whole link,
# for good (in a CI run under load the client guest's virtio TX queue timed
# out after 418 s, its replay's SYNs never sent; a later CI run failed the
# same phase); over UDP a frame the other side has no room for is dropped,
# and the guests' TCP sends it again.  STATE/link.tsv, one line a NIC:
# guest  MAC  address  peer address (the client is 10.9.0.1 on each of its
# NICs, guest j 10.9.0.(1+j)); lab.sh gives the guests those addresses.
# LAB_CLIENT=loopback: no client guest.
# All guests boot at once; `up` exits 0 when at least one guest answers SSH; a guest that does not is
# stopped and marked failed in guests.tsv (exit 1 when none came up).
set -eu
# poll_until, free_port, pid_gone
# shellcheck source=harness/poll.sh
. "$(dirname "$0")/../../harness/poll.sh"

LAB_MEM=${LAB_MEM:-1024}
LAB_CPUS=${LAB_CPUS:-2}
LAB_DATA_SIZE=${LAB_DATA_SIZE:-2G}
LAB_BOOT_TIMEOUT=${LAB_BOOT_TIMEOUT:-600}
LAB_KVM_PROBE=${LAB_KVM_PROBE:-20}
# TCG's vCPU threads: single (one host thread runs every vCPU of a guest) or
# multi (one each).  Multi-threaded TCG let a vCPU run kernel text another
# vCPU was patching: Debian 13's guests oopsed on a stray int3 in about one
# boot in six (docs/lab.md has the figures).
LAB_TCG_THREAD=${LAB_TCG_THREAD:-single}
# A guest kernel that panics reboots itself after that many seconds: the lab
# sees the panic on the console and counts the boot as retried.
LAB_PANIC_REBOOT=${LAB_PANIC_REBOOT:-5}
# Extra kernel command line (tests break a boot with it).
LAB_APPEND=${LAB_APPEND:-}
# 1: a guest that reboots or panics is gone (qemu -no-reboot): make bisect
# boots each candidate once, and a kernel that panics is skipped at once.
LAB_ONE_BOOT=${LAB_ONE_BOOT:-0}
# Where the replay client runs: guest (a client guest, linked to each) or
# loopback (on each server guest's own loopback).
LAB_CLIENT=${LAB_CLIENT:-guest}
LAB_NOMOD="modprobe.blacklist=kvm,kvm_amd,kvm_intel,irqbypass,pcspkr,psmouse,serio_raw,cfg80211,rfkill,\
vmw_vmci,vsock,vmw_vsock_vmci_transport,vsock_loopback,vmw_vsock_virtio_transport_common,i2c_piix4,\
i2c_smbus,ccp,evdev,button,binfmt_misc,drm,bochs,vga16fb,floppy,ata_piix,ata_generic systemd.mask=modprobe@drm.service"

lab_say() { printf 'lab guests: %s\n' "$*" >&2; }
lab_die() { lab_say "$*"; exit 1; }
CONSOLE=$(dirname "$0")/console.sh

case $LAB_TCG_THREAD in single | multi) ;; *) lab_say "LAB_TCG_THREAD=$LAB_TCG_THREAD: use single or multi"; exit 2 ;; esac
case $LAB_CLIENT in guest | loopback) ;; *) lab_say "LAB_CLIENT=$LAB_CLIENT: use guest or loopback"; exit 2 ;; esac
case $LAB_PANIC_REBOOT in '' | *[!0-9]*) lab_say "LAB_PANIC_REBOOT=$LAB_PANIC_REBOOT: use a number of seconds"; exit 2 ;; esac

ssh_opts() { # KEY PORT
  printf '%s\n' -q -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
    -o LogLevel=ERROR -o ConnectTimeout=5 -i "$1" -p "$2"
}

# boot NAME ACCEL STATE IMAGE PORT [QEMU ARG...] : start one guest in the
# background (the extra arguments: its link NICs).
# IMAGE is an image directory (image.sh) or a kernel variant's (kernel.sh:
# the same base.raw with another vmlinuz/initrd.img, and a file cmdline with
# the variant's own kernel command line).
boot() {
  local name=$1 accel=$2 state=$3 image=$4 port=$5 append='' once='' initrd=()
  shift 5
  [ ! -e "$image/initrd.img" ] || initrd=(-initrd "$image/initrd.img")
  [ ! -r "$image/cmdline" ] || append=$(head -n 1 "$image/cmdline")
  [ "$LAB_ONE_BOOT" != 1 ] || once=-no-reboot
  [ -e "$state/$name.qcow2" ] ||
    qemu-img create -q -f qcow2 -b "$image/base.raw" -F raw "$state/$name.qcow2"
  [ -e "$state/$name-data.raw" ] || truncate -s "$LAB_DATA_SIZE" "$state/$name-data.raw"
  : >"$state/$name.console"
  local accel_opt=$accel
  [ "$accel" != tcg ] || accel_opt=tcg,thread=$LAB_TCG_THREAD
  # -nodefaults: no CD-ROM, floppy, parallel port or VGA, and the kernel
  # loads no module that nothing uses (kvm, sound, mouse, wireless): under
  # TCG each driver the guest probes costs seconds of every boot.
  qemu-system-x86_64 -name "shootout-$name" -nodefaults -accel "$accel_opt" -m "$LAB_MEM" -smp "$LAB_CPUS" \
    -kernel "$image/vmlinuz" "${initrd[@]}" \
    -append "root=/dev/vda rw console=ttyS0 net.ifnames=0 systemd.hostname=$name lab.hostname=$name panic=$LAB_PANIC_REBOOT $LAB_NOMOD $LAB_APPEND${append:+ $append}" \
    -drive "file=$state/$name.qcow2,if=none,id=root,format=qcow2" \
    -device virtio-blk-pci,drive=root \
    -drive "file=$state/$name-data.raw,if=none,id=data,format=raw" \
    -device virtio-blk-pci,drive=data,serial=shootout-data \
    -netdev "user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:$port-:22" -device virtio-net-pci,netdev=n0 "$@" \
    -display none -serial "file:$state/$name.console" -monitor none \
    -pidfile "$state/$name.pid" -daemonize ${once:+"$once"}
}

# guest_pid STATE NAME : the pid of that guest's qemu, if it still runs (the
# pid file's process must be a qemu started on this state directory: a stale
# pid reused by another process is never killed).
guest_pid() {
  local pidf=$1/$2.pid pid cmd
  [ -s "$pidf" ] || return 1
  pid=$(cat "$pidf")
  cmd=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || return 1
  case $cmd in
    qemu-system*"file=$1/$2.qcow2,"*) echo "$pid" ;;
    *) return 1 ;;
  esac
}

kill_guest() { # STATE NAME
  local pid
  if pid=$(guest_pid "$1" "$2"); then
    kill "$pid" 2>/dev/null || true
    POLL_STEP=0.1 poll_until 5 pid_gone "$pid" || kill -9 "$pid" 2>/dev/null || true
    POLL_STEP=0.1 poll_until 10 pid_gone "$pid" || true
    ! kill -0 "$pid" 2>/dev/null || lab_say "qemu $pid of $2 survived SIGKILL"
  fi
  rm -f "$1/$2.pid"
}

# probe STATE IMAGE : boot a throw-away guest under KVM and print kvm when its
# kernel prints its first line within LAB_KVM_PROBE seconds, else tcg (here
# /dev/kvm exists but guests hang before printing anything).
probe() {
  local state=$1 image=$2
  if [ ! -w /dev/kvm ]; then
    lab_say "no usable /dev/kvm; using TCG (software emulation)"
    echo tcg
    return
  fi
  mkdir -p "$state"
  if ! boot kvmprobe kvm "$state" "$image" "$(free_port)" 2>"$state/kvmprobe.err"; then
    lab_say "KVM: qemu did not start: $(grep -v warning "$state/kvmprobe.err" | head -n 1)"
  elif POLL_STEP=0.25 poll_until "$LAB_KVM_PROBE" grep -q 'Linux version' "$state/kvmprobe.console" 2>/dev/null; then
    kill_guest "$state" kvmprobe
    rm -f "$state"/kvmprobe*
    echo kvm
    return
  fi
  kill_guest "$state" kvmprobe
  rm -f "$state"/kvmprobe*
  lab_say "KVM did not boot a guest within ${LAB_KVM_PROBE}s; using TCG (software emulation)"
  echo tcg
}

# accel STATE IMAGE [CACHE] : LAB_ACCEL if set; else the probe's answer,
# remembered in CACHE for as long as this machine's boot lasts.
accel() {
  local state=$1 image=$2 cache=${3:-} boot_id a
  if [ -n "${LAB_ACCEL:-}" ]; then
    case $LAB_ACCEL in kvm | tcg) echo "$LAB_ACCEL"; return ;; esac
    lab_die "LAB_ACCEL=$LAB_ACCEL: use kvm or tcg"
  fi
  boot_id=$(cat /proc/sys/kernel/random/boot_id)
  if [ -n "$cache" ] && [ -s "$cache" ] && [ "$(cut -f1 "$cache")" = "$boot_id" ]; then
    a=$(cut -f2 "$cache")
    [ "$a" = kvm ] || lab_say "KVM did not boot a guest on this machine (probed earlier); using TCG (software emulation)"
    echo "$a"
    return
  fi
  a=$(probe "$state" "$image")
  [ -z "$cache" ] || printf '%s\t%s\n' "$boot_id" "$a" >"$cache" 2>/dev/null || true
  echo "$a"
}

# wait_ssh STATE NAME PORT KEY : until the guest answers on SSH (prints
# nothing) or LAB_BOOT_TIMEOUT passes (stops the guest, prints why).
wait_ssh() {
  local state=$1 name=$2 port=$3 key=$4
  GUEST_GONE=0
  if POLL_STEP=2 poll_until "$LAB_BOOT_TIMEOUT" ssh_or_gone "$state" "$name" "$port" "$key"; then
    [ "$GUEST_GONE" = 1 ] || return 0
    kill_guest "$state" "$name"
    echo "qemu exited during boot: $("$CONSOLE" why "$state/$name.console") (console: $state/$name.console)"
    return
  fi
  kill_guest "$state" "$name"
  echo "did not answer SSH within LAB_BOOT_TIMEOUT=${LAB_BOOT_TIMEOUT}s: $("$CONSOLE" why "$state/$name.console") (console: $state/$name.console); stopped it"
}

# ssh_or_gone STATE NAME PORT KEY : the guest answers on SSH, or its qemu
# has exited (then GUEST_GONE=1).
ssh_or_gone() {
  # shellcheck disable=SC2046 # ssh_opts prints one option a line
  # </dev/null: ssh would read the rest of the guest list `up` reads.
  timeout 15 ssh $(ssh_opts "$4" "$3") root@127.0.0.1 true </dev/null 2>/dev/null && return 0
  guest_pid "$1" "$2" >/dev/null && return 1
  GUEST_GONE=1
}

# os_of IMAGE : the OS an image directory holds (debian13-<hash>: debian13;
# a kernel variant's debian12-iof-k: debian12-iof).
os_of() {
  local b
  b=$(basename "$1")
  b=${b%-*}
  case $b in '' | -* | *- | *--* | *[!a-z0-9-]*) b=lab ;; esac
  echo "$b"
}

# free_udp_ports N : N distinct UDP ports nobody has bound on 127.0.0.1, on
# one line: random ones from 20000 to 31999 (below the ephemeral range, as
# free_port's), each held until all are found.
free_udp_ports() {
  python3 -c 'import random, socket, sys
held = []
for _ in range(50 * int(sys.argv[1])):
    if len(held) == int(sys.argv[1]):
        break
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.bind(("127.0.0.1", random.randint(20000, 31999)))
    except OSError:
        s.close()
        continue
    held.append(s)
if len(held) < int(sys.argv[1]):
    sys.exit(1)
print(" ".join(str(s.getsockname()[1]) for s in held))' "$1"
}

up() {
  local n=$1 state=$2 image os acc i name port pid why ok=0 t0
  shift 2
  case $n in '' | *[!0-9]* | 0) lab_die "N must be a number of guests from 1 up, not '$n'" ;; esac
  for image in "$@"; do
    [ -s "$image/base.raw" ] || lab_die "no image in $image (run playbooks/lab/image.sh)"
    os=$(os_of "$image")
    [ "$(for i in "$@"; do os_of "$i"; done | grep -cx "$os")" -eq 1 ] || lab_die "two images for $os: $*"
  done
  command -v qemu-system-x86_64 >/dev/null || lab_die "missing qemu-system-x86_64 (run 'make deps')"
  mkdir -p "$state"
  # (the answer is kept beside the images: a kernel variant's directory
  # links its image's key)
  acc=$(accel "$state" "$1" "$(dirname "$(dirname "$(readlink -f "$1/lab_key")")")/accel.$(id -u)")
  : >"$state/boot.tsv"
  : >"$state/link.tsv"
  t0=$(date +%s)
  local j=0 ports=() client=() cp gp
  if [ "$LAB_CLIENT" = guest ]; then
    # two UDP ports a link: the client's side, then the guest's
    read -r -a ports < <(free_udp_ports $((2 * n * $#))) || lab_die "no free UDP ports on 127.0.0.1 for the links"
    # the client first: one NIC per guest
    for image in "$@"; do
      for i in $(seq 1 "$n"); do
        cp=${ports[$((2 * j))]} gp=${ports[$((2 * j + 1))]}
        j=$((j + 1))
        client+=(-netdev "socket,id=l$j,udp=127.0.0.1:$gp,localaddr=127.0.0.1:$cp" -device "virtio-net-pci,netdev=l$j,mac=52:54:00:0a:00:$(printf %02x "$j")")
        printf 'lab-client\t52:54:00:0a:00:%02x\t10.9.0.1\t10.9.0.%d\n' "$j" "$((1 + j))" >>"$state/link.tsv"
      done
    done
    port=$(free_port)
    boot lab-client "$acc" "$state" "$1" "$port" "${client[@]}" || lab_die "lab-client: qemu failed to start"
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' lab-client "$port" "$(cat "$state/lab-client.pid")" "$acc" client "$1" >>"$state/boot.tsv"
    j=0
  fi
  for image in "$@"; do
    os=$(os_of "$image")
    for i in $(seq 1 "$n"); do
      name=$os-$i
      port=$(free_port)
      client=()
      if [ "$LAB_CLIENT" = guest ]; then
        cp=${ports[$((2 * j))]} gp=${ports[$((2 * j + 1))]}
        client=(-netdev "socket,id=l0,udp=127.0.0.1:$cp,localaddr=127.0.0.1:$gp" -device "virtio-net-pci,netdev=l0,mac=52:54:00:0b:00:$(printf %02x "$((j + 1))")")
        j=$((j + 1))
        printf '%s\t52:54:00:0b:00:%02x\t10.9.0.%d\t10.9.0.1\n' "$name" "$j" "$((1 + j))" >>"$state/link.tsv"
      fi
      boot "$name" "$acc" "$state" "$image" "$port" "${client[@]}" || lab_die "$name: qemu failed to start"
      printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$port" "$(cat "$state/$name.pid")" "$acc" "$os" "$image" >>"$state/boot.tsv"
    done
  done
  : >"$state/guests.tsv"
  while IFS=$'\t' read -r name port pid _ os image; do
    why=$(wait_ssh "$state" "$name" "$port" "$image/lab_key")
    if [ -z "$why" ]; then
      ok=$((ok + 1))
      lab_say "$name up after $(($(date +%s) - t0))s (ssh root@127.0.0.1 -p $port, $acc)"
      why=up
    else
      lab_say "$name: $why"
      why="failed: $why"
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$port" "$pid" "$acc" "$why" "$os" "$image" >>"$state/guests.tsv"
  done <"$state/boot.tsv"
  rm -f "$state/boot.tsv"
  [ "$ok" -gt 0 ] || lab_die "no guest came up"
}

# boot_id KEY PORT : the guest's boot id, when it answers on SSH.
boot_id() {
  # shellcheck disable=SC2046 # ssh_opts prints one option a line
  timeout 15 ssh $(ssh_opts "$1" "$2") root@127.0.0.1 cat /proc/sys/kernel/random/boot_id </dev/null 2>/dev/null
}

# new_boot KEY PORT OLD : the guest answers with a boot id other than OLD.
new_boot() {
  local id
  id=$(boot_id "$1" "$2") && [ -n "$id" ] && [ "$id" != "$3" ]
}

# soak N STATE IMAGE : boot a guest of IMAGE, then reboot it from inside (as
# the playbook's flush does) until N boots answered or one did not within
# LAB_BOOT_TIMEOUT; one line a boot, then the console's count of boots and
# panics (a panicked boot reboots itself: LAB_PANIC_REBOOT).
soak() {
  local n=$1 state=$2 image=$3 acc name port key i t0 id='' dt rc=0 boots panics
  case $n in '' | *[!0-9]* | 0) lab_die "N must be a number of boots from 1 up, not '$n'" ;; esac
  [ -s "$image/base.raw" ] || lab_die "no image in $image (run playbooks/lab/image.sh)"
  mkdir -p "$state"
  acc=$(accel "$state" "$image" "$(dirname "$image")/accel.$(id -u)")
  name=$(os_of "$image")-soak port=$(free_port) key=$image/lab_key
  t0=$(date +%s.%N)
  boot "$name" "$acc" "$state" "$image" "$port" || lab_die "$name: qemu failed to start"
  for i in $(seq 1 "$n"); do
    if ! POLL_STEP=1 poll_until "$LAB_BOOT_TIMEOUT" new_boot "$key" "$port" "$id"; then
      lab_say "$name: boot $i did not answer within ${LAB_BOOT_TIMEOUT}s: $("$CONSOLE" why "$state/$name.console")"
      rc=1
      break
    fi
    id=$(boot_id "$key" "$port")
    dt=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    printf '%s\tboot\t%d\t%s\n' "$name" "$i" "$dt"
    [ "$i" -lt "$n" ] || break
    t0=$(date +%s.%N)
    # shellcheck disable=SC2046 # ssh_opts prints one option a line
    timeout 15 ssh $(ssh_opts "$key" "$port") root@127.0.0.1 'systemctl reboot' </dev/null 2>/dev/null || true
  done
  kill_guest "$state" "$name"
  boots=$("$CONSOLE" boots "$state/$name.console")
  panics=$("$CONSOLE" panics "$state/$name.console" | wc -l)
  printf '%s\tsummary\t%s boots (%s accel %s, -smp %s), %s kernel panics\n' "$name" "$boots" "$(os_of "$image")" \
    "$([ "$acc" = tcg ] && echo "tcg,thread=$LAB_TCG_THREAD" || echo "$acc")" "$LAB_CPUS" "$panics"
  "$CONSOLE" panics "$state/$name.console" | sed "s/^/$name\tpanic\t/"
  return "$rc"
}

# down STATE : stop every guest of STATE (qemu -kernel guests keep nothing:
# their overlay and data disks are removed, so no clean shutdown is needed).
down() {
  local state=$1 pidf
  [ -d "$state" ] || return 0
  for pidf in "$state"/*.pid; do
    [ -e "$pidf" ] || continue
    kill_guest "$state" "$(basename "$pidf" .pid)"
  done
  rm -f "$state"/*.qcow2 "$state"/*-data.raw
}

# The state directory as an absolute path: it names the guests' processes.
abs() { mkdir -p "$1" && (cd "$1" && pwd -P); }

case ${1:-} in
  up)
    [ $# -ge 4 ] || lab_die "usage: guests.sh up N STATE IMAGE..."
    n=$2 st=$(abs "$3")
    shift 3
    up "$n" "$st" "$@"
    ;;
  down)
    [ $# -eq 2 ] || lab_die "usage: guests.sh down STATE"
    [ ! -d "$2" ] || down "$(abs "$2")"
    ;;
  accel)
    [ $# -eq 3 ] || lab_die "usage: guests.sh accel STATE IMAGE"
    [ -s "$3/vmlinuz" ] || lab_die "no image in $3 (run playbooks/lab/image.sh)"
    accel "$(abs "$2")" "$3"
    ;;
  kill)
    [ $# -eq 3 ] || lab_die "usage: guests.sh kill STATE NAME"
    [ ! -d "$2" ] || kill_guest "$(abs "$2")" "$3"
    ;;
  soak)
    [ $# -eq 4 ] || lab_die "usage: guests.sh soak N STATE IMAGE"
    soak "$2" "$(abs "$3")" "$4"
    ;;
  *) lab_die "usage: guests.sh up N STATE IMAGE... | down STATE | accel STATE IMAGE | kill STATE NAME | soak N STATE IMAGE" ;;
esac
