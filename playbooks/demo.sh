#!/usr/bin/env bash
# playbooks/demo.sh: `make demo`.  The whole shootout on this machine: loop
# device filesystems (every one of ext2 ext3 ext4 xfs btrfs jfs f2fs the
# kernel and the installed mkfs tools support) plus tmpfs, the small dataset,
# FLUSH=drop, through ansible-playbook and the local inventory; then the
# report.  Needs root (loop devices, mkfs, mount, drop_caches).
#   DEMO_VARIANTS=ext4,xfs   only these filesystems
#   DATASET=tiny             another dataset profile (default small)
#   DEMO_SIZE=4G             size of each sparse loop image (and of tmpfs)
#   TRIALS=N                 trials of the whole cycle per variant (default 1)
#   DEMO_REPEAT=serve:3,net:3  runs of those phases within each cycle
#   PROFILE=0                no kernel profile of the phases (default 1)
#   BLKLAT=0                 no block-latency histograms (default 1)
#   FORKLAT=0                no httpd histograms of the fork serve mode (default 1)
set -eu
cd "$(dirname "$0")/.."

say() { printf 'demo: %s\n' "$*" >&2; }

# DATASET, TRIALS and DEMO_SIZE go into the playbook's variables (YAML that
# Ansible reads as templates): checked first, one line and exit 2 for a
# value that is not a name, number or size (harness/settings.tsv).
# shellcheck source=harness/common/settings.sh
. harness/common/settings.sh
SHOOTOUT_ROOT=$PWD settings_check demo

if [ "$(id -u)" -ne 0 ]; then
  say "needs root: it installs packages (make deps), attaches loop devices,"
  say "makes and mounts filesystems on image files in /var/tmp/shootout and"
  say "drops the page cache.  Run it as root, e.g.: sudo make demo"
  exit 1
fi

# demo_lock : one demo at a time: it holds the locks (harness/lock.sh) of
# its work directory, /var/tmp/shootout (its loop images, mounts, tmpfs),
# and of this checkout's build/demo-vars.yml until it ends; a second one is
# refused, one line naming the first, before it touches anything.
demo_lock() {
  local what
  # shellcheck source=harness/os.sh
  SHOOTOUT_ROOT=$PWD . harness/os.sh
  # shellcheck source=harness/poll.sh
  . harness/poll.sh
  # shellcheck source=harness/lock.sh
  . harness/lock.sh
  trap lock_release_all EXIT
  for what in /var/tmp/shootout "$PWD/build/demo-vars.yml"; do
    if ! lock_take demo "$what" "the demo's $what"; then
      say "${LOCK_ERROR:-$LOCK_REFUSAL: another make demo runs; wait for it to end}"
      exit 2
    fi
  done
}
demo_lock

dataset=${DATASET:-small}
size=${DEMO_SIZE:-4G}
trials=${TRIALS:-1}
# The demo shows the why too: a kernel profile of every phase (PROFILE=1).
profile=${PROFILE:-1}
# ... and the block device's latency distribution (BLKLAT=1).
blklat=${BLKLAT:-1}
# ... and httpd's open and first-byte times in the fork serve mode (FORKLAT=1).
forklat=${FORKLAT:-1}
# DEMO_REPEAT (serve:3,net:3): those phases run 3 times in each cycle, so
# their figures have a spread; untar, untar2 and delete change TARGET and
# run once.
repeat=${DEMO_REPEAT:-serve:3,net:3}
repeat_yaml=''
[ "$repeat" != none ] || repeat=''
IFS=', ' read -r -a repeat_items <<<"$repeat"
for r in ${repeat_items[@]+"${repeat_items[@]}"}; do
  if ! [[ $r =~ ^(serve|net|preload):[1-9][0-9]?$ ]]; then
    say "DEMO_REPEAT=$repeat: want PHASE:N items (serve, net or preload; N 1-99), e.g. serve:3,net:3, or none"
    exit 2
  fi
  repeat_yaml+="${repeat_yaml:+, }${r%%:*}: ${r#*:}"
done
t0=$(date +%s)

groups=(build harness fs playbooks plots)
[ "$profile" = 0 ] || groups+=(profile)
harness/deps.sh ensure "${groups[@]}"
make --no-print-directory all
if ! make --no-print-directory -n phase-untar >/dev/null 2>&1; then
  say "the harness's phase targets (make phase-untar ...) are not here yet; nothing to run"
  exit 1
fi

# supported FS : the running kernel has FS (or loads its module) and its mkfs is installed.
supported() {
  [ "$1" = tmpfs ] && return 0
  command -v "mkfs.$1" >/dev/null 2>&1 || return 1
  grep -qw "$1" /proc/filesystems && return 0
  modprobe -q "$1" 2>/dev/null && grep -qw "$1" /proc/filesystems
}

variants=()
if [ -n "${DEMO_VARIANTS:-}" ]; then
  IFS=', ' read -r -a variants <<<"$DEMO_VARIANTS"
  for fs in "${variants[@]}"; do
    supported "$fs" || { say "DEMO_VARIANTS: this machine cannot make $fs (kernel or mkfs.$fs missing)"; exit 1; }
  done
else
  for fs in ext2 ext3 ext4 xfs btrfs jfs f2fs tmpfs; do
    if supported "$fs"; then variants+=("$fs"); else say "skipping $fs: not supported by this kernel or no mkfs.$fs"; fi
  done
fi
[ ${#variants[@]} -gt 0 ] || { say "no filesystem to run"; exit 1; }

run_id=$(date -u +%Y%m%dT%H%M%SZ)-demo
lock_note_run "$run_id"
mkdir -p build
vars=build/demo-vars.yml
{
  echo "---"
  echo "shootout_run_id: $run_id"
  echo "shootout_dataset: $dataset"
  echo "shootout_trials: $trials"
  echo "shootout_repeat: {$repeat_yaml}"
  echo "shootout_make_vars: {PROFILE: $profile, BLKLAT: $blklat, FORKLAT: $forklat}"
  echo "shootout_variants:"
  for fs in "${variants[@]}"; do
    if [ "$fs" = tmpfs ]; then
      echo "  - {name: tmpfs, fs: tmpfs, size: $size}"
    else
      echo "  - {name: $fs, fs: $fs, device: loop, size: $size}"
    fi
  done
} >"$vars"
say "run $run_id: ${variants[*]} on dataset $dataset"

rc=0
ANSIBLE_DISPLAY_SKIPPED_HOSTS=false ansible-playbook -i playbooks/inventory/local.yml \
  playbooks/shootout.yml -e "@$vars" || rc=$?

dir=results/$run_id
if [ ! -d "$dir" ]; then
  say "no results in $dir (ansible-playbook exited $rc)"
  exit 1
fi
if make --no-print-directory -n report >/dev/null 2>&1 && make --no-print-directory report RUN="$run_id"; then
  where=report/index.html
else
  say "no report generator (make report); writing a text summary"
  playbooks/summarize.sh "$dir" >"$dir/summary.txt"
  cat "$dir/summary.txt"
  where=$dir/summary.txt
fi
say "results: $dir"
say "report:  $where"
say "took $(($(date +%s) - t0)) s"
exit "$rc"
