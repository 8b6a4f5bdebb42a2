#!/usr/bin/env bats
# The Ansible playbooks: syntax, the rendered plan of a multi-OS lab (no host
# contacted), the guards before mkfs (loop devices), a run through every
# phase against a stand-in harness, teardown, and a real run with the
# harness and the tiny dataset.
load helpers
# ROOT comes from helpers.bash.
# shellcheck disable=SC2153

PB=$ROOT/playbooks
STUB=$ROOT/tests/fixtures/playbooks/stub-harness

setup() {
  tmp=$(mktemp -d /var/tmp/shootout-pbtest.XXXXXX)
  export ANSIBLE_LOCAL_TEMP=$tmp/ansible-local ANSIBLE_REMOTE_TEMP=$tmp/ansible-remote
  export ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_FORCE_COLOR=0
}

teardown() {
  [ -n "${tmp:-}" ] && [ -d "$tmp" ] || return 0
  local m l p
  # Only what this test made: a dataset server it started, mounts under $tmp,
  # loop devices on its images.
  for p in "$tmp"/*/state/httpd.pid; do
    if [ -s "$p" ]; then kill "$(cat "$p")" 2>/dev/null || true; fi
  done
  for m in $(findmnt -rn -o TARGET | grep "^$tmp/" | sort -r); do umount "$m" || true; done
  for l in $(losetup -n -O NAME,BACK-FILE 2>/dev/null | awk -v t="$tmp/" 'index($2, t) == 1 { print $1 }'); do
    losetup -d "$l" || true
  done
  rm -rf "$tmp"
}

# inventory FILE VARIANTS-YAML [EXTRA-HOST-VARS-YAML] : a local one-host inventory.
# shellcheck source=tests/local-inventory.bash
. "$BATS_TEST_DIRNAME/local-inventory.bash"

# play INVENTORY [ARGS...] : shootout.yml against the stand-in harness.
play() {
  local inv=$1
  shift
  ansible-playbook -i "$inv" "$PB/shootout.yml" -e "shootout_checkout=$STUB" \
    -e "shootout_results_dir=$tmp/results" -e "shootout_control_results=$tmp/results" "$@"
}

# nothing_left : no mount under $tmp, no loop device on a file under $tmp.
nothing_left() {
  if findmnt -rn -o TARGET | grep -q "^$tmp/"; then findmnt | grep "$tmp"; return 1; fi
  if losetup -n -O BACK-FILE | grep -q "^$tmp/"; then losetup -a | grep "$tmp"; return 1; fi
}

# loopdev SIZE : a loop device on a new image file under $tmp.
loopdev() {
  local img
  img=$(mktemp "$tmp/dev-XXXXXX.img")
  truncate -s "$1" "$img"
  losetup -f --show "$img"
}

@test "every playbook passes --syntax-check with both inventories" {
  require_cmd ansible-playbook
  for inv in local example-lab; do
    for p in shootout teardown render; do
      run ansible-playbook --syntax-check -i "$PB/inventory/$inv.yml" "$PB/$p.yml"
      [ "$status" -eq 0 ] || { echo "$inv $p: $output"; false; }
    done
  done
}

@test "the checkout's ansible.cfg: a controller waiting on a task takes a third of the CPU Ansible's default takes (it runs on the host under test with make demo)" {
  require_cmd ansible-playbook
  printf -- '- hosts: localhost\n  gather_facts: false\n  tasks:\n    - command: sleep 6.0417\n' >"$tmp/wait.yml"
  # from the checkout, as a user runs it (Ansible's default polled every
  # 1 ms: 10% of a CPU here, 30 ticks in these 3 s; the checkout's 10 ms
  # about 10)
  cd "$ROOT"
  env -u ANSIBLE_CONFIG ansible-playbook -i localhost, -c local "$tmp/wait.yml" >"$tmp/wait.log" 2>&1 &
  local p=$! a b
  # until the task runs (its command is this test's own)
  poll_until 30 pgrep -xf "sleep 6.0417"
  a=$(awk '{ print $14 + $15 }' "/proc/$p/stat")
  sleep 3
  b=$(awk '{ print $14 + $15 }' "/proc/$p/stat")
  wait "$p"
  echo "controller ticks in 3 s: $((b - a))"
  [ $((b - a)) -le 18 ]
  [ "$(ansible-config dump --only-changed | grep -c '^DEFAULT_INTERNAL_POLL_INTERVAL(.*) = 0.01$')" = 1 ]
}

@test "render.yml in check mode shows every OS family's commands for example-lab.yml, contacting no host" {
  require_cmd ansible-playbook
  # Unresolvable addresses prove that no host is contacted.
  run ansible-playbook --check -i "$PB/inventory/example-lab.yml" "$PB/render.yml" \
    -e "shootout_render_out=$tmp/plan.yml" -e ansible_host=host.invalid
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [[ $output != *UNREACHABLE* ]]
  plan=$(cat "$tmp/plan.yml")
  # Package managers per OS family.
  [[ $plan == *"package_command: ansible.builtin.apt"* ]]
  [[ $plan == *"package_command: ansible.builtin.dnf"* ]]
  [[ $plan == *"package_command: pkg install -y"* ]]
  [[ $plan == *"package_command: pkgin -y install"* ]]
  [[ $plan == *"package_command: pkg_add -I"* ]]
  # Filesystems per OS, noatime everywhere, async where the OS has it.
  [[ $plan == *"mkfs: mkfs.ext4 -F -q -O ^has_journal /dev/sdb"* ]]
  [[ $plan == *"mkfs: mkfs.jfs -q /dev/sdb"* ]]
  [[ $plan == *"mkfs: mkfs.f2fs -f -q /dev/sdb"* ]]
  [[ $plan == *"mount: mount -t xfs -o noatime,logbufs=8,logbsize=256k /dev/sdb"* ]]
  [[ $plan == *"mount: mount -t tmpfs -o noatime,size=32G"* ]]
  [[ $plan == *"mkfs: newfs -U /dev/ada1"* ]]
  [[ $plan == *"mount: mount -t ufs -o noatime,async /dev/ada1"* ]]
  [[ $plan == *"mkfs: zpool create -f -O atime=off -O sync=disabled -m /var/tmp/shootout/mnt/zfs shootout_zfs /dev/ada1"* ]]
  [[ $plan == *"mkfs: newfs -O 2 /dev/rwd1a"* ]]
  [[ $plan == *"mount: mount -t ffs -o noatime,log /dev/wd1a"* ]]
  [[ $plan == *"mount: mount -t ffs -o noatime,softdep /dev/sd1a"* ]]
  [[ $plan == *"make: gmake"* ]]
  [[ $plan == *"kern.ipc.somaxconn"* ]]
  [[ $plan == *"net.inet.ip.portfirst"* ]]
  [[ $plan == *"flush:reboot"* ]]
  # Every variant of the example can run where it is listed.
  [ "$(grep -c "error: ''" "$tmp/plan.yml")" -eq 20 ]
  run grep -E "error: '?[^' ]" "$tmp/plan.yml"
  [ "$status" -eq 1 ]
}

@test "render.yml: each BSD installs its packages and builds with gmake, or gets the make cross binaries, and runs the phases with gmake" {
  require_cmd ansible-playbook python3
  {
    printf 'all:\n  vars:\n    shootout_role: server\n    shootout_flush: remount\n  hosts:\n'
    for os in FreeBSD NetBSD OpenBSD; do
      dev=/dev/ada1 fs=ufs
      [ "$os" = FreeBSD ] || dev=/dev/wd1a fs=ffs
      for how in build cross; do
        printf '    %s-%s:\n      shootout_render_system: %s\n      shootout_render_os_family: %s\n' "${os,,}" "$how" "$os" "$os"
        printf '      shootout_variants: [{name: v, fs: %s, device: %s}]\n' "$fs" "$dev"
        [ "$how" = build ] || printf '      shootout_use_cross_binaries: true\n'
      done
    done
  } >"$tmp/inv.yml"
  run ansible-playbook --check -i "$tmp/inv.yml" "$PB/render.yml" -e "shootout_render_out=$tmp/plan.yml" \
    -e ansible_host=host.invalid
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  # One line per host: what it installs, how it gets the tools, how it runs the phases.
  run python3 -c '
import sys, yaml
for h in yaml.safe_load(open(sys.argv[1])):
    print(h["host"], "|", h["become_method"], "|", h["package_command"], *h["packages"], "|", *h["build_packages"],
          "|", h["tools"], "|", " ; ".join(h["tools_commands"] + h["tools_fallback"]), "|", " ; ".join(h["phase_runs"]))
' "$tmp/plan.yml"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  echo "$output"
  local line
  for os in freebsd netbsd openbsd; do
    for how in build cross; do
      line=$(grep "^$os-$how |" <<<"$output")
      case $os in
        freebsd) [[ $line == *"| sudo | pkg install -y gmake bash jq python3 curl git ucspi-tcp |"* ]] ;;
        netbsd) [[ $line == *"| sudo | pkgin -y install gmake bash jq python311 curl git ucspi-tcp |"* ]] ;;
        openbsd) [[ $line == *"| doas | pkg_add -I gmake bash jq python%3 curl git ucspi-tcp |"* ]] ;;
      esac
      if [ "$how" = build ]; then
        [[ $line == *"| libowfat | build |"* ]]
        [[ $line == *"libowfat  (what is missing) ; "*"LDFLAGS=-L/usr/"*" gmake -C /var/tmp/shootout/src -o deps-check all ; "* ]]
        [[ $line == *"cannot be installed or the build fails: ; make -C CONTROL_CHECKOUT cross-x86_64-$os"* ]]
        [[ $line == *"| gmake -C /var/tmp/shootout/src -o deps-check phase-untar TARGET=/var/tmp/shootout/mnt/v "* ]]
      else
        [[ $line == *"| | cross | make -C CONTROL_CHECKOUT cross-x86_64-$os  (on the control machine) ; copy bin/cross/x86_64-$os/ to /var/tmp/shootout/src/bin/ |"* ]]
        [[ $line == *"| gmake -C /var/tmp/shootout/src -o deps-check --old-file=bin/dltar "*"--old-file=bin/httpd "*" phase-untar TARGET=/var/tmp/shootout/mnt/v "* ]]
      fi
      [[ $line == *" phase-flush TARGET=/var/tmp/shootout/mnt/v "*"FLUSH=remount"* ]]
      [[ $line == *" phase-delete "* ]]
    done
  done
}

@test "shootout.yml --list-tasks on example-lab.yml lists provisioning, guards, phases and collection" {
  require_cmd ansible-playbook
  run ansible-playbook --list-tasks -i "$PB/inventory/example-lab.yml" "$PB/shootout.yml"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  for t in "Packages and kernel settings" "Guards before any mkfs" "Make every variant's filesystem" \
    "Each trial of each variant, in that order" "Fetch the results" \
    "Dataset server" "Stop the dataset server" "Summary table"; do
    [[ $output == *"$t"* ]] || { echo "missing task: $t"; false; }
  done
}

@test "variants that cannot run are named with the reason" {
  require_cmd ansible-playbook
  cat >"$tmp/inv.yml" <<'EOF'
all:
  hosts:
    linux1:
      shootout_role: server
      shootout_render_system: Linux
      shootout_variants:
        - {name: u, fs: ufs, device: /dev/sdb}
        - {name: e, fs: ext4}
        - {name: x, fs: xfs, device: sdb}
        - {name: l, fs: ext4, device: loop}
        - {name: "a b", fs: reiserfs, device: /dev/sdc}
EOF
  ansible-playbook -i "$tmp/inv.yml" "$PB/render.yml" -e "shootout_render_out=$tmp/plan.yml" >/dev/null
  run grep "error:" "$tmp/plan.yml"
  [[ $output == *"fs ufs is for FreeBSD, this host runs Linux"* ]]
  [[ $output == *"no device named for fs ext4"* ]]
  [[ $output == *'device \"sdb\" is not a /dev/ path'* ]] || [[ $output == *'device "sdb" is not a /dev/ path'* ]]
  [[ $output == *"device: loop needs a size"* ]]
  [[ $output == *"unknown fs"* ]]
  [[ $output == *"must be letters, digits"* ]]
}

@test "device-check.sh refuses the root device, a mounted device, a missing one, and passes a free loop device" {
  require_root
  require_cmd losetup mkfs.ext2
  chk=$PB/roles/filesystem/files/device-check.sh
  root=$(findmnt -n -o SOURCE /)
  if [ -b "$root" ]; then
    run "$chk" "$root"
    [ "$status" -eq 1 ]
    [[ $output == *"holds the root filesystem"* ]]
  fi
  run "$chk" /dev/shootout-no-such-disk
  [ "$status" -eq 1 ]
  [[ $output == *"does not exist"* ]]
  run "$chk" "$tmp"
  [ "$status" -eq 1 ]
  [[ $output == *"is not a /dev/ path"* ]]
  dev=$(loopdev 32M)
  run "$chk" "$dev"
  [ "$status" -eq 0 ]
  [[ $output == "ok: $dev may be wiped" ]]
  mkfs.ext2 -q "$dev"
  mkdir "$tmp/m"
  mount "$dev" "$tmp/m"
  run "$chk" "$dev"
  [ "$status" -eq 1 ]
  [[ $output == *"is mounted ($dev on $tmp/m)"* ]]
}

# sig DEVICE : its filesystem signature (type and UUID), as blkid probes it.
sig() {
  blkid -p -o export "$1" 2>/dev/null | grep -E '^(TYPE|UUID)=' || true
}

@test "guards: a mounted device, the root device, a missing confirm each stop their host before mkfs" {
  require_root
  require_cmd ansible-playbook losetup blkid mkfs.ext2
  mounted=$(loopdev 64M)
  mkfs.ext2 -q "$mounted"
  mkdir "$tmp/m"
  mount "$mounted" "$tmp/m"
  unconfirmed=$(loopdev 64M)
  mkfs.ext2 -q "$unconfirmed"
  root=$(findmnt -n -o SOURCE /)
  [ -b "$root" ] || root=""
  before="$(sig "$mounted")|$(sig "$unconfirmed")|$(findmnt -n -o SOURCE,FSTYPE,UUID /)"
  host() { # NAME CONFIRM DEVICE
    printf '    %s:\n      shootout_confirm_wipe: %s\n      shootout_variants: [{name: v, fs: ext4, device: %s}]\n' "$@"
  }
  {
    printf 'all:\n  vars:\n    ansible_connection: local\n    ansible_python_interpreter: /usr/bin/python3\n'
    printf '    ansible_become: false\n    shootout_role: server\n    shootout_flush: drop\n'
    printf '    shootout_provision: false\n    shootout_workdir: %s/work\n  hosts:\n' "$tmp"
    host mounted true "$mounted"
    host unconfirmed false "$unconfirmed"
    [ -z "$root" ] || host rootdev true "$root"
  } >"$tmp/inv.yml"
  run play "$tmp/inv.yml" -e shootout_run_id=g
  [ "$status" -ne 0 ] || { echo "$output"; false; }
  [[ $output != *"TASK [filesystem : Make the filesystem"* ]]
  sum=$(cat "$tmp/results/g/summary.tsv")
  echo "$sum"
  [[ $sum == *"mounted	*	0/0 	Guards before any mkfs: mounted: nothing was wiped; stopping this host"*"is mounted ($mounted on $tmp/m)"* ]]
  [[ $sum == *"unconfirmed	*	"*"shootout_confirm_wipe is not true for unconfirmed: refusing to wipe $unconfirmed"* ]]
  [ -z "$root" ] || [[ $sum == *"rootdev	*	"*"$root holds the root filesystem"* ]]
  [ "$before" = "$(sig "$mounted")|$(sig "$unconfirmed")|$(findmnt -n -o SOURCE,FSTYPE,UUID /)" ]
  [[ $before == *TYPE=ext2*TYPE=ext2* ]]
  mountpoint -q "$tmp/m"
}

@test "the device check runs again right before each variant's mkfs: a device mounted after the guards is not wiped" {
  require_root
  require_cmd ansible-playbook losetup blkid mkfs.ext2 mkfs.ext4
  first=$(loopdev 64M)
  second=$(loopdev 64M)
  mkfs.ext2 -q "$second"
  mkdir "$tmp/m"
  before=$(sig "$second")
  # While the first variant's filesystem is made (after the guards passed),
  # the second variant's device gets mounted.
  mkdir "$tmp/bin"
  # shellcheck disable=SC2016 # $@ is the wrapper's
  printf '#!/bin/sh\ncase " $* " in *" %s "*) mount %s %s/m && : >%s/mounted ;; esac\nexec %s "$@"\n' \
    "$first" "$second" "$tmp" "$tmp" "$(command -v mkfs.ext4)" >"$tmp/bin/mkfs.ext4"
  chmod +x "$tmp/bin/mkfs.ext4"
  inventory "$tmp/inv.yml" "[{name: a, fs: ext4, device: $first}, {name: b, fs: ext4, device: $second}]" \
    "      shootout_confirm_wipe: true"
  PATH=$tmp/bin:$PATH run play "$tmp/inv.yml" -e shootout_run_id=rc -e '{"shootout_phases": ["untar"]}'
  [ -e "$tmp/mounted" ] || { echo "$output"; false; }
  sum=$tmp/results/rc/summary.tsv
  cat "$sum"
  grep -qP '^localhost\ta\t1/1 untar\t-$' "$sum"
  grep -qF "localhost	b	0/0 	Device check before mkfs: nothing was wiped: refused: $second is mounted ($second on $tmp/m)" "$sum"
  [ "$(sig "$second")" = "$before" ]
  [[ $before == *TYPE=ext2* ]]
  mountpoint -q "$tmp/m"
}

@test "a run drives every variant through the phases in order; a failed phase or an unreachable host is recorded and the rest goes on" {
  require_root
  require_cmd ansible-playbook losetup mkfs.ext4 jq xmllint
  inventory "$tmp/inv.yml" "[{name: e4, fs: ext4, device: loop, size: 64M}, {name: t, fs: tmpfs, size: 16M}]" \
    "      shootout_confirm_wipe: true"
  # A host nobody answers for (nothing listens on that port).
  printf '    gone:\n      ansible_connection: ssh\n      ansible_host: 127.0.0.1\n      ansible_port: %s\n      shootout_role: server\n' \
    "$(free_port)" >>"$tmp/inv.yml"
  STUB_FAIL=e4:untar2 run play "$tmp/inv.yml" -e shootout_run_id=r1
  [ "$status" -ne 0 ] || { echo "$output"; false; }
  sum=$tmp/results/r1/summary.tsv
  cat "$sum"
  grep -qP '^localhost\te4\t2/8 untar,flush\t.*stub: untar2 failed on purpose$' "$sum"
  grep -qP '^localhost\tt\t8/8 untar,flush,untar2,serve,net,delete\t-$' "$sum"
  grep -qP '^gone\t\*\t0/0 \tunreachable: ' "$sum"
  # beside summary.tsv, the run's figures for other tools (docs/formats.md#exports)
  [ "$(jq -c '[.[] | select(.variant == "t" and .metric == "wall_s") | [.phase, .median]] | unique' "$tmp/results/r1/results.json")" = \
    '[["delete",0.1],["flush",0.1],["net",0.1],["serve",0.1],["untar",0.1],["untar2",0.1]]' ]
  xmllint --noout "$tmp/results/r1/composite.xml"
  # The tmpfs variant: the phases in order, drop between them, its options read back.
  run grep 'VARIANT=t ' "$tmp/results/calls.log"
  [ "$(printf '%s\n' "$output" | cut -d' ' -f1 | tr '\n' ' ')" = "untar flush untar2 flush serve net flush delete " ]
  [[ $output == *"FLUSH=drop SERVE_PROCS=1 32 FS=tmpfs MOUNT_OPTS=rw,noatime,size=16384k"* ]]
  grep -q "^untar VARIANT=e4 .*FS=ext4 MOUNT_OPTS=rw,noatime" "$tmp/results/calls.log"
  # Everything the play set up is gone: no mount, no loop device, no image, no state.
  nothing_left
  [ -z "$(find "$tmp/work/loops" "$tmp/work/state" -mindepth 1)" ]
}

@test "the trials alternate between the variants in a seeded order recorded in order.tsv; a failed variant's later trials are left out" {
  require_root
  require_cmd ansible-playbook
  inventory "$tmp/inv.yml" "[{name: a, fs: tmpfs, size: 16M}, {name: b, fs: tmpfs, size: 16M}, {name: c, fs: tmpfs, size: 16M}]"
  STUB_FAIL=c:delete run play "$tmp/inv.yml" -e shootout_run_id=o1 -e shootout_order_seed=5 -e shootout_result_host=h -e shootout_trials=2 \
    -e '{"shootout_phases": ["untar", "delete"]}' -e "shootout_progress=$tmp/progress.tsv"
  [ "$status" -ne 0 ] || { echo "$output"; false; }
  order=$tmp/results/o1/h/order.tsv
  cat "$order"
  [ "$(head -1 "$order")" = "$(printf 'trial\tposition\tvariant\tseed')" ]
  # Every trial has each variant once, in an order of its own (not a, a, b,
  # b, ...): Python's random.shuffle seeded with "SEED-HOST-TRIAL"
  # (docs/formats.md#ordertsv): 5-h-1 gives c b a, 5-h-2 b a c.
  [ "$(awk -F '\t' 'NR > 1 { print $1 $2 $3 $4 }' "$order" | tr '\n' ' ')" = "11c5 12b5 13a5 21b5 22a5 23c5 " ]
  # The phases ran in that order (c failed in trial 1: left out after it).
  expect=$(awk -F '\t' 'NR > 1 && !($3 == "c" && $1 > 1) { print $3 }' "$order" | tr '\n' ' ')
  [ "$(awk '$1 == "untar" { print substr($2, 9) }' "$tmp/results/calls.log" | tr '\n' ' ')" = "$expect" ]
  sum=$tmp/results/o1/summary.tsv
  grep -qP '^localhost\ta\t4/4 untar,delete\t-$' "$sum"
  grep -qP '^localhost\tb\t4/4 untar,delete\t-$' "$sum"
  grep -qP '^localhost\tc\t1/4 untar\t.*stub: delete failed on purpose$' "$sum"
  # A progress line for each variant made and each phase started, then done.
  [ "$(grep -c "	make	" "$tmp/progress.tsv")" -eq 3 ]
  grep -qP '\tstep\t1/12\t1/2\t[abc]\t1/3\tuntar$' "$tmp/progress.tsv"
  [ "$(grep -c "	step	" "$tmp/progress.tsv")" -eq 10 ]
  [ "$(tail -1 "$tmp/progress.tsv" | cut -f2)" = "done" ]
  # The same seed, the same order (no phase needed to see it).
  run play "$tmp/inv.yml" -e shootout_run_id=o2 -e shootout_order_seed=5 -e shootout_result_host=h -e shootout_trials=2 \
    -e '{"shootout_phases": []}'
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  cmp "$order" "$tmp/results/o2/h/order.tsv"
  nothing_left
}

@test "variants that coexist run serve and net in blocked rounds: the phases before for each, then harness/rounds.sh for all, then the phases after; a variant that fails in its rounds is out, the rest go on" {
  require_root
  require_cmd ansible-playbook
  inventory "$tmp/inv.yml" "[{name: a, fs: tmpfs, size: 16M}, {name: b, fs: tmpfs, size: 16M}, {name: c, fs: tmpfs, size: 16M}]"
  STUB_FAIL=b:serve run play "$tmp/inv.yml" -e shootout_run_id=rb -e shootout_order_seed=5 -e shootout_result_host=h \
    -e shootout_trials=2 -e '{"shootout_phases": ["untar", "flush", "serve", "net", "delete"]}' -e "shootout_progress=$tmp/progress.tsv"
  [ "$status" -ne 0 ] || { echo "$output"; false; }
  # 5-h-1 gives c b a, 5-h-2 b a c (the order test above): each trial's
  # untar and flush variant by variant in that order, serve and net of all
  # of them in one call each, then delete variant by variant.
  [ "$(awk '{ print $1 substr($2, 9) }' "$tmp/results/calls.log" | tr '\n' ' ')" = \
    "untarc flushc untarb flushb untara flusha servec serveb servea netc neta deletec deletea untara flusha untarc flushc servea servec neta netc deletea deletec " ]
  cat "$tmp/results/rounds.log"
  [ "$(cat "$tmp/results/rounds.log")" = "$(printf 'serve 5-1 c b a\nnet 5-1 c a\nserve 5-2 a c\nnet 5-2 a c')" ]
  sum=$tmp/results/rb/summary.tsv
  cat "$sum"
  grep -qP '^localhost\ta\t10/10 untar,flush,serve,net,delete\t-$' "$sum"
  grep -qP '^localhost\tc\t10/10 untar,flush,serve,net,delete\t-$' "$sum"
  grep -qP '^localhost\tb\t2/10 untar,flush\tserve: stub: serve failed on purpose$' "$sum"
  jq -e '.status == "failed"' "$tmp/results/rb/h/b/meta.json" 2>/dev/null || [ ! -s "$tmp/results/rb/h/b/meta.json" ]
  # a progress line for each rounds call; the rounds' wall time shared out
  # among the variants' measured share
  [ "$(grep -c "	rounds	" "$tmp/progress.tsv")" -eq 4 ]
  grep -qP '\trounds\tserve\t1/2\t3$' "$tmp/progress.tsv"
  [ "$(grep -cE '^h [ac] [0-9]+\.[0-9]{3}$' "$tmp/results/share.log")" -ge 4 ]
  # shootout_rounds: false runs each variant's trial whole, as before
  run play "$tmp/inv.yml" -e shootout_run_id=rf -e shootout_order_seed=5 -e shootout_result_host=h -e shootout_rounds=false \
    -e shootout_trials=1 -e '{"shootout_phases": ["untar", "serve", "delete"]}'
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ "$(grep -c . "$tmp/results/rounds.log")" -eq 4 ]
  [ "$(tail -n 9 "$tmp/results/calls.log" | awk '{ print $1 substr($2, 9) }' | tr '\n' ' ')" = \
    "untarc servec deletec untarb serveb deleteb untara servea deletea " ]
  nothing_left
}

# shared_disk_inventory : $tmp/inv.yml of three variants, a (ext4) and b
# (ext2) on one loop disk of the test's, t (tmpfs) beside them.
shared_disk_inventory() {
  local disk
  disk=$(loopdev 64M)
  inventory "$tmp/inv.yml" "[{name: a, fs: ext4, device: $disk}, {name: t, fs: tmpfs, size: 16M}, {name: b, fs: ext2, device: $disk}]" \
    "      shootout_confirm_wipe: true"
}

# work_undone : nothing the play made is left: no mount under its work
# directory, no state recorded (the test's own loop disk stays).
work_undone() {
  [ "$(findmnt -rn -o TARGET | grep -c "^$tmp/work/")" = 0 ]
  [ -z "$(find "$tmp/work/state" -mindepth 1)" ]
}

@test "variants that share a device run one after the other, after the ones that alternate, each made before its trials and undone after" {
  require_root
  require_cmd ansible-playbook losetup mkfs.ext4 mkfs.ext2
  shared_disk_inventory
  run play "$tmp/inv.yml" -e shootout_run_id=sh -e shootout_result_host=h -e shootout_trials=2 -e '{"shootout_phases": ["untar"]}'
  [ "$status" -eq 0 ] || { echo "$output" | tail -30; false; }
  cat "$tmp/results/sh/h/order.tsv"
  [ "$(awk -F '\t' 'NR > 1 { print $1 $2 $3 }' "$tmp/results/sh/h/order.tsv" | tr '\n' ' ')" = "11t 21t 10a 20a 10b 20b " ]
  [ "$(awk '{ print substr($2, 9) }' "$tmp/results/calls.log" | tr '\n' ' ')" = "t t a a b b " ]
  grep -q "^untar VARIANT=a .*FS=ext4 " "$tmp/results/calls.log"
  grep -q "^untar VARIANT=b .*FS=ext2 " "$tmp/results/calls.log"
  for v in a t b; do grep -qP "^localhost\t$v\t2/2 untar\t-$" "$tmp/results/sh/summary.tsv"; done
  work_undone
}

@test "in rounds (shootout_round K) a run of the playbook is trial K of every variant, those on one disk too, appended to order.tsv; each trial's time goes to the measured share" {
  require_root
  require_cmd ansible-playbook losetup mkfs.ext4 mkfs.ext2
  shared_disk_inventory
  for k in 1 2; do
    run play "$tmp/inv.yml" -e shootout_run_id=rd -e shootout_result_host=h -e shootout_trials=2 -e shootout_round=$k \
      -e shootout_order_seed=5 -e '{"shootout_phases": ["untar"]}'
    [ "$status" -eq 0 ] || { echo "$output" | tail -30; false; }
    for v in a t b; do grep -qP "^localhost\t$v\t1/1 untar\t-$" "$tmp/results/rd/summary.tsv"; done
    work_undone  # every variant undone at the end of its round
  done
  order=$tmp/results/rd/h/order.tsv
  cat "$order"
  [ "$(head -1 "$order")" = "$(printf 'trial\tposition\tvariant\tseed')" ]
  # Each round every variant once, a and b (one disk) among them, shuffled
  # with SEED-HOST-ROUND: 5-h-1 gives b a t, 5-h-2 a t b; the rounds' lines
  # appended, and the phases ran in that order.
  [ "$(awk -F '\t' 'NR > 1 { print $1 $2 $3 $4 }' "$order" | tr '\n' ' ')" = "11b5 12a5 13t5 21a5 22t5 23b5 " ]
  [ "$(awk '{ print substr($2, 9) }' "$tmp/results/calls.log" | tr '\n' ' ')" = "b a t a t b " ]
  grep -q "^untar VARIANT=a .*FS=ext4 " "$tmp/results/calls.log"
  grep -q "^untar VARIANT=b .*FS=ext2 " "$tmp/results/calls.log"
  # After each trial, its wall time (seconds) to the measured share.
  cat "$tmp/results/share.log"
  [ "$(grep -cE '^h [abt] [0-9]+\.[0-9]{3}$' "$tmp/results/share.log")" -eq 6 ]
  [ "$(cut -d' ' -f2 "$tmp/results/share.log" | tr '\n' ' ')" = "b a t a t b " ]
}

@test "harness/measured-share.sh adds a trial's wall time to run_wall_s and sets measured_s and measured_share from the variant's records" {
  require_cmd jq
  local d=$tmp/results/ms/h/v
  mkdir -p "$d"
  printf 'phase\ttrial\tmetric\tvalue\tunit\n' >"$d/records.tsv"
  printf 'untar\t1\tbudget_wall_s\t2.5\ts\nflush\t1\tbudget_wall_s\t9\ts\nuntar\t1\tsync_budget_wall_s\t0.5\ts\n' >>"$d/records.tsv"
  echo '{"variant": "v"}' >"$d/meta.json"
  share() { env RESULTS="$tmp/results" RUN_ID=ms HOST=h VARIANT=v "$ROOT/harness/measured-share.sh" "$@"; }
  run share 10
  [ "$status" -eq 0 ]
  jq -e '.measured_s == 3 and .run_wall_s == 10 and .measured_share == 0.3 and .variant == "v"' "$d/meta.json"
  printf 'untar\t2\tbudget_wall_s\t3\ts\n' >>"$d/records.tsv"
  run share 20
  [ "$status" -eq 0 ]
  jq -e '.measured_s == 6 and .run_wall_s == 30 and .measured_share == 0.2' "$d/meta.json"
  # no number, no change; a variant without meta.json is left alone
  run share 'ten'
  [ "$status" -eq 1 ]
  [[ $output == *"usage: measured-share.sh WALL_S"* ]]
  jq -e '.run_wall_s == 30' "$d/meta.json"
  run env RESULTS="$tmp/results" RUN_ID=ms HOST=h VARIANT=none "$ROOT/harness/measured-share.sh" 5
  [ "$status" -eq 0 ]
  [ ! -e "$tmp/results/ms/h/none" ]
}

# render_runs INVENTORY : the phase commands render.yml shows, one a line.
render_runs() {
  ansible-playbook --check -i "$1" "$PB/render.yml" -e "shootout_render_out=$tmp/plan.yml" \
    -e ansible_host=host.invalid >/dev/null || return 1
  python3 -c 'import sys, yaml; [print(r) for h in yaml.safe_load(open(sys.argv[1])) for r in h["phase_runs"]]' "$tmp/plan.yml"
}

@test "the serve settings reach the harness: SERVE_MODES (a reboot before each mode's cold replay), REPLAY_COUNT, REPLAY_CONC lists, PRELOAD, SERVE_HOST6" {
  require_cmd ansible-playbook python3
  # The defaults, with reboots: one phase-serve per mode, fork among them.
  printf 'all:\n  hosts:\n    l1:\n      shootout_render_system: Linux\n      shootout_render_os_family: Debian\n      shootout_variants: [{name: v, fs: ext4, device: /dev/sdb}]\n' >"$tmp/inv.yml"
  run render_runs "$tmp/inv.yml"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  serves=$(grep ' phase-serve ' <<<"$output")
  echo "$serves"
  [ "$(grep -c . <<<"$serves")" -eq 3 ]
  for m in 1 32 fork; do
    grep -q " SERVE_MODES=$m\( \|$\)" <<<"$serves" || { echo "no serve of mode $m"; false; }
  done
  [[ $serves == *"REPLAY_COUNT=10000 "* ]]
  [[ $serves == *"REPLAY_CONC=100 "* ]]
  [[ $serves != *PRELOAD* ]]
  [[ $serves != *SERVE_HOST6* ]]
  # Settings of the inventory, drop flush: one phase-serve, every setting on
  # it and on phase-preload.
  cat >"$tmp/inv.yml" <<'EOF2'
all:
  vars:
    shootout_flush: drop
    shootout_replay_count: 500
    shootout_replay_conc: [100, 20]
    shootout_serve_modes: [1, fork]
    shootout_preload: dirs
    shootout_serve_host6: "::1"
    shootout_phases: [serve, preload]
  hosts:
    l1:
      shootout_render_system: Linux
      shootout_render_os_family: Debian
      shootout_variants: [{name: v, fs: ext4, device: /dev/sdb}]
EOF2
  run render_runs "$tmp/inv.yml"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  echo "$output"
  [ "$(grep -c ' phase-serve ' <<<"$output")" -eq 1 ]
  [ "$(grep -c ' phase-preload ' <<<"$output")" -eq 1 ]
  while IFS= read -r line; do
    for want in "REPLAY_COUNT=500" "'REPLAY_CONC=100 20'" "'SERVE_MODES=1 fork'" "PRELOAD=dirs" "SERVE_HOST6=::1"; do
      [[ " $line " == *" $want "* ]] || { echo "missing $want: $line"; false; }
    done
  done <<<"$output"
}

@test "a run passes the serve settings to the serve and preload phases" {
  require_root
  require_cmd ansible-playbook
  inventory "$tmp/inv.yml" "[{name: t, fs: tmpfs, size: 16M}]" \
    "      shootout_replay_count: 500
      shootout_replay_conc: [100, 20]
      shootout_preload: dirs
      shootout_serve_host6: '::1'
      shootout_phases: [serve, preload]"
  run play "$tmp/inv.yml" -e shootout_run_id=sv
  [ "$status" -eq 0 ] || { echo "$output" | tail -30; false; }
  cat "$tmp/results/vars.log"
  grep -qx "serve VARIANT=t SERVE_MODES=1 32 fork REPLAY_COUNT=500 REPLAY_CONC=100 20 PRELOAD=dirs SERVE_HOST6=::1" "$tmp/results/vars.log"
  grep -qx "preload VARIANT=t SERVE_MODES=1 32 fork REPLAY_COUNT=500 REPLAY_CONC=100 20 PRELOAD=dirs SERVE_HOST6=::1" "$tmp/results/vars.log"
}

@test "a setting's \$(...) reaches make as text, never as make code" {
  require_root
  require_cmd ansible-playbook
  # make expands its NAME=value arguments: unescaped, this would run.
  inventory "$tmp/inv.yml" "[{name: t, fs: tmpfs, size: 16M}]" \
    "      shootout_serve_host6: '\$(shell touch $tmp/pwned)'
      shootout_phases: [serve]"
  run play "$tmp/inv.yml" -e shootout_run_id=dollar
  [ "$status" -eq 0 ] || { echo "$output" | tail -30; false; }
  grep -q '^serve VARIANT=t ' "$tmp/results/vars.log"
  [ ! -e "$tmp/pwned" ]
}

@test "a lab of a client and a server: the client serves the dataset, the server's phases get SOURCE and REPLAY_FROM" {
  require_root
  require_cmd ansible-playbook curl
  [ -x "$BIN/mkdataset" ] && [ -x "$BIN/httpd" ] || skip "needs bin/mkdataset and bin/httpd (make)"
  port=$(free_port)
  cat >"$tmp/inv.yml" <<EOF
all:
  vars:
    ansible_connection: local
    ansible_python_interpreter: /usr/bin/python3
    ansible_become: false
    shootout_provision: false
    shootout_dataset: tiny
    shootout_flush: drop
  hosts:
    client1:
      shootout_role: client
      shootout_checkout: $ROOT
      shootout_workdir: $tmp/client
      shootout_client_datasets: $tmp/datasets
      shootout_client_port: $port
      shootout_address: 127.0.0.1
    server1:
      shootout_role: server
      shootout_checkout: $STUB
      shootout_workdir: $tmp/server
      shootout_results_dir: $tmp/results
      shootout_replay_ssh: false
      shootout_phases: [untar, flush, serve]
      shootout_variants: [{name: t, fs: tmpfs, size: 64M}]
EOF
  run ansible-playbook -i "$tmp/inv.yml" "$PB/shootout.yml" -e shootout_run_id=lab -e "shootout_control_results=$tmp/results"
  [ "$status" -eq 0 ] || { echo "$output" | tail -40; false; }
  grep -q "^untar VARIANT=t .*SOURCE=http://127.0.0.1:$port REPLAY_FROM=127.0.0.1$" "$tmp/results/calls.log"
  grep -q "^serve VARIANT=t .*SOURCE=http://127.0.0.1:$port REPLAY_FROM=127.0.0.1$" "$tmp/results/calls.log"
  # The untar phase streamed the client's layout.tar.gz.
  size=$(stat -c %s "$tmp/datasets/tiny-1/layout.tar.gz")
  grep -qP "^untar\t1\tbytes\t$size\tB$" "$tmp/results/lab/"*/t/records.tsv
  # The client stopped serving.
  run curl -s -o /dev/null "http://127.0.0.1:$port/manifest.tsv"
  [ "$status" -ne 0 ]
  [ ! -e "$tmp/client/state/httpd.pid" ]
}

@test "teardown.yml undoes only what the shootout recorded" {
  require_root
  require_cmd ansible-playbook losetup mkfs.ext2
  # Someone else's loop device and mount, which teardown must leave alone.
  other=$(loopdev 32M)
  mkfs.ext2 -q "$other"
  mkdir "$tmp/other"
  mount "$other" "$tmp/other"
  # What an interrupted shootout leaves: a mounted loop variant and its record.
  w=$tmp/work
  mkdir -p "$w/loops" "$w/state" "$w/mnt/v"
  truncate -s 32M "$w/loops/v.img"
  dev=$(losetup -f --show "$w/loops/v.img")
  mkfs.ext2 -q "$dev"
  mount "$dev" "$w/mnt/v"
  printf '{"name": "v", "fs": "ext2", "image": "%s", "target": "%s", "pool": ""}\n' \
    "$w/loops/v.img" "$w/mnt/v" >"$w/state/v.json"
  inventory "$tmp/inv.yml" "[]"
  run ansible-playbook -i "$tmp/inv.yml" "$PB/teardown.yml"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  run mountpoint -q "$w/mnt/v"
  [ "$status" -ne 0 ]
  [ -z "$(losetup -j "$w/loops/v.img" 2>/dev/null)" ]
  [ ! -e "$w/loops/v.img" ]
  [ ! -e "$w/state/v.json" ]
  mountpoint -q "$tmp/other"
  losetup "$other" >/dev/null
}

@test "make demo without root explains what it needs and fails" {
  command -v setpriv >/dev/null || skip "needs setpriv"
  run setpriv --reuid=65534 --regid=65534 --clear-groups make -C "$ROOT" --no-print-directory demo
  [ "$status" -ne 0 ]
  [[ $output == *"needs root"* ]]
  [[ $output == *"sudo make demo"* ]]
}

# demo_vars MAKE-ARGS... : the playbook variables `make demo` hands
# ansible-playbook (a stand-in on PATH prints its -e @FILE and fails, so
# nothing runs).  As root, with the packages already installed (demo.sh
# would install them otherwise).
demo_vars() {
  mkdir -p "$tmp/stub"
  # shellcheck disable=SC2016 # the stand-in's own $a, expanded when it runs
  printf '#!/bin/sh\nfor a; do case $a in @*) cat "${a#@}" >%s/vars.yml ;; esac; done\nexit 1\n' "$tmp" >"$tmp/stub/ansible-playbook"
  chmod +x "$tmp/stub/ansible-playbook"
  rm -f "$tmp/vars.yml"
  env -u PROFILE -u PROFILE_ROUNDS -u BLKLAT -u FORKLAT -u PRECISION -u PRECISION_MAX_TRIALS -u PRECISION_MAX_S -u MIN_MEASURE_S -u STEADY_SLICES -u DISTURBED_PCT -u CLIENT_CPUS PATH="$tmp/stub:$PATH" make -C "$ROOT" -s --no-print-directory demo DEMO_VARIANTS=tmpfs "$@" \
    >/dev/null 2>&1 || true
  grep '^shootout_make_vars:' "$tmp/vars.yml"
}

@test "make demo turns on the kernel profile (the first round of each serve and net figure; PROFILE_ROUNDS=all every round), the block tracer and the fork mode's httpd histograms; PROFILE=0 BLKLAT=0 FORKLAT=0 turn them off; FORKLAT=2 and PROFILE_ROUNDS=0 are refused" {
  require_root
  "$ROOT/harness/deps.sh" check build harness fs playbooks plots profile >/dev/null 2>&1 ||
    skip "the demo's packages are not all installed (make deps): demo.sh would install them"
  run demo_vars
  [ "$output" = 'shootout_make_vars: {PROFILE: 1, PROFILE_ROUNDS: "1", BLKLAT: 1, FORKLAT: 1, PRECISION_MAX_TRIALS: "5", PRECISION_MAX_S: "10", MIN_MEASURE_S: "1", STEADY_SLICES: "4", CLIENT_CPUS: "auto"}' ]
  run demo_vars PROFILE=0 BLKLAT=0 FORKLAT=0
  [ "$output" = 'shootout_make_vars: {PROFILE: 0, PROFILE_ROUNDS: "1", BLKLAT: 0, FORKLAT: 0, PRECISION_MAX_TRIALS: "5", PRECISION_MAX_S: "10", MIN_MEASURE_S: "1", STEADY_SLICES: "4", CLIENT_CPUS: "auto"}' ]
  run make -C "$ROOT" -s --no-print-directory demo FORKLAT=2
  [ "$status" -ne 0 ]
  [ "$(grep -v '^make' <<<"$output")" = "demo.sh: FORKLAT=2: want 0 or 1" ]
  # the sampler in every round of the serve and net figures, not the first only
  run demo_vars PROFILE_ROUNDS=all
  [[ $output == *'{PROFILE: 1, PROFILE_ROUNDS: "all", BLKLAT: 1,'* ]]
  run make -C "$ROOT" -s --no-print-directory demo PROFILE_ROUNDS=0
  [ "$status" -ne 0 ]
  [[ $output == *'PROFILE_ROUNDS=0: want one of: 1, 2, 3, 4, 5, all'* ]]
}

@test "make demo passes the harness's stopping rule on when given (PRECISION, its caps, MIN_MEASURE_S, STEADY_SLICES, DISTURBED_PCT); a value that is no number is refused" {
  require_root
  "$ROOT/harness/deps.sh" check build harness fs playbooks plots profile >/dev/null 2>&1 ||
    skip "the demo's packages are not all installed (make deps): demo.sh would install them"
  run demo_vars PRECISION=3 PRECISION_MAX_TRIALS=6 PRECISION_MAX_S=20 MIN_MEASURE_S=1.5 STEADY_SLICES=3 DISTURBED_PCT=10
  [ "$output" = 'shootout_make_vars: {PROFILE: 1, PROFILE_ROUNDS: "1", BLKLAT: 1, FORKLAT: 1, PRECISION: "3", PRECISION_MAX_TRIALS: "6", PRECISION_MAX_S: "20", MIN_MEASURE_S: "1.5", STEADY_SLICES: "3", DISTURBED_PCT: "10", CLIENT_CPUS: "auto"}' ]
  run make -C "$ROOT" -s --no-print-directory demo 'PRECISION=2"}'
  [ "$status" -ne 0 ]
  [[ $output == *'demo: PRECISION=2"}: want a number'* ]]
}

@test "make demo runs the replay client on a CPU of its own (CLIENT_CPUS=auto) unless told otherwise; a value that is no CPU list is refused" {
  require_root
  "$ROOT/harness/deps.sh" check build harness fs playbooks plots profile >/dev/null 2>&1 ||
    skip "the demo's packages are not all installed (make deps): demo.sh would install them"
  run demo_vars CLIENT_CPUS=none
  [[ $output == *', CLIENT_CPUS: "none"}' ]]
  run demo_vars CLIENT_CPUS=0-1,3
  [[ $output == *', CLIENT_CPUS: "0-1,3"}' ]]
  run make -C "$ROOT" -s --no-print-directory demo 'CLIENT_CPUS=1"}'
  [ "$status" -ne 0 ]
  [[ $output == *'demo: CLIENT_CPUS=1"}: want auto, none or a list of CPUs like 0 or 2-3,5'* ]]
}

@test "make demo prints one line per step with the time left, and keeps Ansible's task output in a log it names" {
  require_root
  "$ROOT/harness/deps.sh" check build harness fs playbooks plots profile >/dev/null 2>&1 ||
    skip "the demo's packages are not all installed (make deps): demo.sh would install them"
  mkdir -p "$tmp/stub"
  # A stand-in play: task output on stdout, three steps in the progress file.
  # shellcheck disable=SC2016 # the stand-in's own variables
  printf '%s\n' '#!/bin/bash' 'for a; do case $a in shootout_progress=*) p=${a#*=} ;; esac; done' \
    'echo "TASK [phases : Phase untar] ****"' \
    'printf "vm\tmake\ttmpfs\t1/1\n" >>"$p"' \
    'for n in 1 2 3; do printf "vm\tstep\t%s/3\t1/1\ttmpfs\t1/1\tphase%s\n" $n $n >>"$p"; done' \
    'printf "vm\tdone\n" >>"$p"; exit 1' >"$tmp/stub/ansible-playbook"
  chmod +x "$tmp/stub/ansible-playbook"
  run env PATH="$tmp/stub:$PATH" make -C "$ROOT" -s --no-print-directory demo DEMO_VARIANTS=tmpfs
  [ "$status" -ne 0 ]
  [[ $output == *"demo: making the filesystem of tmpfs (1 of 1)"* ]]
  [[ $output == *"demo: trial 1/1, tmpfs (1 of 1): phase1 (step 1/3, "* ]]
  [[ $output =~ "demo: trial 1/1, tmpfs (1 of 1): phase3 (step 3/3, "[0-9]+" s in, ~"[0-9]+" s left)" ]]
  [[ $output != *"TASK ["* ]]
  log=$(sed -n 's/^demo: Ansible.s task output: //p' <<<"$output" | head -1)
  [[ $log == build/demo/*-demo.log ]]
  grep -q 'TASK \[phases : Phase untar\]' "$ROOT/$log"
  rm -f "$ROOT/$log" "$ROOT/${log%.log}.progress"
}

@test "a real local run: two loop-backed variants, tiny dataset, complete records, nothing left behind" {
  require_root
  require_cmd ansible-playbook losetup mkfs.ext4 mkfs.xfs
  make -C "$ROOT" -n phase-untar >/dev/null 2>&1 || skip "the harness's phase targets have not landed (make -n phase-untar fails)"
  inventory "$tmp/inv.yml" "[{name: ext4, fs: ext4, device: loop, size: 512M}, {name: xfs, fs: xfs, device: loop, size: 512M}]" \
    "      shootout_confirm_wipe: true"
  run ansible-playbook -i "$tmp/inv.yml" "$PB/shootout.yml" -e shootout_run_id=real -e shootout_dataset=tiny \
    -e "shootout_results_dir=$tmp/results" -e "shootout_control_results=$tmp/results"
  [ "$status" -eq 0 ] || { echo "$output" | tail -40; false; }
  for v in ext4 xfs; do
    rec=$(echo "$tmp"/results/real/*/$v/records.tsv)
    [ -s "$rec" ]
    [ -s "$(dirname "$rec")/meta.json" ]
    for p in untar flush untar2 serve-cold-1 serve-warm-1 serve-cold-32 serve-warm-32 net-1 net-4 delete; do
      grep -qP "^$p\t1\tstatus\t0\t" "$rec" || { echo "$v: no successful $p"; cat "$rec"; false; }
    done
    run grep -P '\tstatus\t[^0]' "$rec"
    [ "$status" -eq 1 ]
    [ ! -e "$(dirname "$rec")/failures.tsv" ]
    # Every file of the dataset arrived, every request was answered.
    files=$(grep -vc '^#' "$ROOT/datasets/out/tiny-1/manifest.tsv")
    [ "$(awk -F '\t' '$1 == "untar" && $3 == "files" { print $4 }' "$rec")" -gt 0 ]
    [ "$(awk -F '\t' '$1 == "delete" && $3 == "files" { print $4 }' "$rec")" -eq "$files" ]
    [ "$(awk -F '\t' '$1 ~ /^serve-/ && $3 == "failed" { s += $4 } END { print s + 0 }' "$rec")" -eq 0 ]
    [ "$(jq -r '.fs + " " + .variant + " " + .flush' "$(dirname "$rec")/meta.json")" = "$v $v drop" ]
    # the measured share, as make shootout records it (issue 40)
    jq -e '.measured_share > 0 and .measured_share <= 1 and .run_wall_s >= .measured_s and .measured_s > 0' \
      "$(dirname "$rec")/meta.json"
  done
  nothing_left
}

@test "shootout_phases with the micro phases: a real local run on tmpfs records them like every phase" {
  require_root
  require_cmd ansible-playbook fio postmark jq
  [ -x "$ROOT/bin/fsdisco" ] || skip "no bin/fsdisco"
  inventory "$tmp/inv.yml" "[{name: t, fs: tmpfs, size: 64M}]"
  sed 's/^\t1          32         2          EXPONENTIAL/\t1          1          2          EXPONENTIAL/' \
    "$ROOT/datasets/iometer/workstation.icf" >"$tmp/ws.icf"
  run ansible-playbook -i "$tmp/inv.yml" "$PB/shootout.yml" -e shootout_run_id=micro -e shootout_flush=none \
    -e "shootout_results_dir=$tmp/results" -e "shootout_control_results=$tmp/results" \
    -e '{"shootout_phases": ["iometer", "iozone", "postmark", "discover"]}' \
    -e "{\"shootout_make_vars\": {\"ICF\": \"$tmp/ws.icf\", \"ICF_RUNTIME\": 1, \"ICF_RAMP\": 0, \"IOMETER_SIZE\": \"8m\",
         \"IOZONE_MIN\": \"64k\", \"IOZONE_MAX\": \"64k\", \"IOZONE_RECMIN\": \"64k\", \"POSTMARK_CONFIGS\": \"100/200\",
         \"DISCOVER_TESTS\": \"block\", \"DISCOVER_ITERS\": 2}}"
  [ "$status" -eq 0 ] || { echo "$output" | tail -40; false; }
  rec=$(echo "$tmp"/results/micro/*/t/records.tsv)
  for p in iometer iozone postmark discover; do
    grep -qP "^$p\t1\tstatus\t0\t" "$rec" || { echo "no successful $p"; cat "$rec"; false; }
  done
  grep -qP '^iometer\t1\tworkstation\.qd1\.iops\t' "$rec"
  [ "$(jq -r '.fs + " " + .flush' "$(dirname "$rec")/meta.json")" = "tmpfs none" ]
  grep -qP '^localhost\tt\t4/4 iometer,iozone,postmark,discover\t-$' "$tmp/results/micro/summary.tsv"
  nothing_left
}
