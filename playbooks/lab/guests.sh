#!/bin/bash
# Boots and stops the VM lab's guests with qemu.
#   guests.sh up N STATE IMAGE   boot lab1..labN from the image in IMAGE
#   guests.sh down STATE         power them off, kill what is left, remove disks
#   guests.sh accel STATE IMAGE  print the accelerator that really works here
# STATE is a directory of the lab's own: per guest an overlay root disk, a data
# disk, a console log and a pid file, and guests.tsv (name ssh_port pid accel).
# Networking is qemu user mode: SSH forwarded to a free loopback port; the
# guest reaches the control machine's loopback as 10.0.2.2.  Nothing leaves
# the machine.
set -eu

LAB_MEM=${LAB_MEM:-1024}
LAB_CPUS=${LAB_CPUS:-2}
LAB_DATA_SIZE=${LAB_DATA_SIZE:-2G}
LAB_BOOT_TIMEOUT=${LAB_BOOT_TIMEOUT:-300}
LAB_KVM_PROBE=${LAB_KVM_PROBE:-20}

die() { printf 'lab guests: %s\n' "$*" >&2; exit 1; }

ssh_opts() { # KEY PORT
  printf '%s\n' -q -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
    -o LogLevel=ERROR -o ConnectTimeout=5 -i "$1" -p "$2"
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# boot NAME ACCEL STATE IMAGE PORT : start one guest in the background.
boot() {
  local name=$1 accel=$2 state=$3 image=$4 port=$5
  [ -e "$state/$name.qcow2" ] ||
    qemu-img create -q -f qcow2 -b "$image/base.raw" -F raw "$state/$name.qcow2"
  [ -e "$state/$name-data.raw" ] || truncate -s "$LAB_DATA_SIZE" "$state/$name-data.raw"
  : >"$state/$name.console"
  qemu-system-x86_64 -name "$name" -accel "$accel" -m "$LAB_MEM" -smp "$LAB_CPUS" \
    -kernel "$image/vmlinuz" -initrd "$image/initrd.img" \
    -append "root=/dev/vda rw console=ttyS0 net.ifnames=0 lab.hostname=$name" \
    -drive "file=$state/$name.qcow2,if=virtio,format=qcow2" \
    -drive "file=$state/$name-data.raw,if=virtio,format=raw,serial=shootout-data" \
    -netdev "user,id=n0,hostfwd=tcp:127.0.0.1:$port-:22" -device virtio-net-pci,netdev=n0 \
    -display none -serial "file:$state/$name.console" -monitor none \
    -pidfile "$state/$name.pid" -daemonize
}

kill_guest() { # STATE NAME
  local pidf=$1/$2.pid pid i
  [ -s "$pidf" ] || return 0
  pid=$(cat "$pidf")
  kill "$pid" 2>/dev/null || true
  for i in $(seq 1 50); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
    [ "$i" -lt 50 ] || kill -9 "$pid" 2>/dev/null || true
  done
  rm -f "$pidf"
}

# accel : kvm only when a guest really boots under it (here /dev/kvm exists but
# guests hang before printing a line), otherwise tcg.
accel() {
  local state=$1 image=$2 port i
  if [ -n "${LAB_ACCEL:-}" ]; then echo "$LAB_ACCEL"; return; fi
  if [ ! -w /dev/kvm ]; then echo tcg; return; fi
  mkdir -p "$state"
  port=$(free_port)
  if boot kvmprobe kvm "$state" "$image" "$port" 2>/dev/null; then
    for i in $(seq 1 $((LAB_KVM_PROBE * 4))); do
      if grep -q 'Linux version' "$state/kvmprobe.console" 2>/dev/null; then
        kill_guest "$state" kvmprobe
        rm -f "$state"/kvmprobe*
        echo kvm
        return
      fi
      sleep 0.25
    done
  fi
  kill_guest "$state" kvmprobe
  rm -f "$state"/kvmprobe*
  echo "lab guests: KVM did not boot a guest within ${LAB_KVM_PROBE}s; using TCG (software emulation)" >&2
  echo tcg
}

# wait_ssh STATE NAME PORT KEY : until the guest answers on SSH, bounded.
wait_ssh() {
  local state=$1 name=$2 port=$3 key=$4 t0
  t0=$(date +%s)
  # shellcheck disable=SC2046 # ssh_opts prints one option a line
  until ssh $(ssh_opts "$key" "$port") root@127.0.0.1 true 2>/dev/null; do
    if [ $(($(date +%s) - t0)) -ge "$LAB_BOOT_TIMEOUT" ]; then
      kill_guest "$state" "$name"
      die "$name did not come up within ${LAB_BOOT_TIMEOUT}s (console: $state/$name.console); stopped it"
    fi
    if [ ! -s "$state/$name.pid" ] || ! kill -0 "$(cat "$state/$name.pid")" 2>/dev/null; then
      die "$name: qemu exited during boot (console: $state/$name.console)"
    fi
    sleep 2
  done
}

up() {
  local n=$1 state=$2 image=$3 acc i name port
  [ -s "$image/base.raw" ] || die "no image in $image (run playbooks/lab/image.sh)"
  command -v qemu-system-x86_64 >/dev/null || die "missing qemu-system-x86_64 (run 'make deps')"
  mkdir -p "$state"
  acc=$(accel "$state" "$image")
  : >"$state/guests.tsv"
  for i in $(seq 1 "$n"); do
    name=lab$i
    port=$(free_port)
    boot "$name" "$acc" "$state" "$image" "$port" || die "$name: qemu failed to start"
    printf '%s\t%s\t%s\t%s\n' "$name" "$port" "$(cat "$state/$name.pid")" "$acc" >>"$state/guests.tsv"
  done
  while IFS=$'\t' read -r name port _ _; do
    wait_ssh "$state" "$name" "$port" "$image/lab_key"
    echo "lab guests: $name up (ssh 127.0.0.1:$port, $acc)" >&2
  done <"$state/guests.tsv"
}

down() {
  local state=$1 name port key
  [ -d "$state" ] || return 0
  key=$(cat "$state/key" 2>/dev/null || true)
  if [ -s "$state/guests.tsv" ]; then
    while IFS=$'\t' read -r name port _ _; do
      if [ -n "$key" ]; then
        # shellcheck disable=SC2046
        timeout 20 ssh $(ssh_opts "$key" "$port") root@127.0.0.1 'systemctl poweroff' 2>/dev/null || true
      fi
    done <"$state/guests.tsv"
  fi
  for pidf in "$state"/*.pid; do
    [ -e "$pidf" ] || continue
    name=$(basename "$pidf" .pid)
    # Give a clean poweroff a moment, then stop it.
    for _ in $(seq 1 100); do
      kill -0 "$(cat "$pidf")" 2>/dev/null || break
      sleep 0.2
    done
    kill_guest "$state" "$name"
  done
  rm -f "$state"/*.qcow2 "$state"/*-data.raw
}

case ${1:-} in
  up)
    [ $# -eq 4 ] || die "usage: guests.sh up N STATE IMAGE"
    mkdir -p "$3"
    echo "$4/lab_key" >"$3/key"
    up "$2" "$3" "$4"
    ;;
  down) [ $# -eq 2 ] || die "usage: guests.sh down STATE"; down "$2" ;;
  accel) [ $# -eq 3 ] || die "usage: guests.sh accel STATE IMAGE"; accel "$2" "$3" ;;
  *) die "usage: guests.sh up N STATE IMAGE | down STATE | accel STATE IMAGE" ;;
esac
