#!/usr/bin/env bash
# playbooks/demo.sh: `make demo`.  The whole shootout on this machine: loop
# device filesystems (every one of ext2 ext3 ext4 xfs btrfs jfs f2fs the
# kernel and the installed mkfs tools support) plus tmpfs, the small dataset,
# FLUSH=drop, through ansible-playbook and the local inventory; then the
# report.  Needs root (loop devices, mkfs, mount, drop_caches).
#   DEMO_VARIANTS=ext4,xfs   only these filesystems
#   DATASET=tiny             another dataset profile (default small)
#   DEMO_SIZE=4G             size of each sparse loop image (and of tmpfs)
#   TRIALS=N                 trials of the whole cycle per variant (default 2), the
#                            variants' trials alternating in a shuffled order, their
#                            serve and net figures in blocked rounds (harness/rounds.sh)
#   DEMO_REPEAT=serve:3,net:3  runs of those phases within each cycle (default none)
#   PROFILE=0                no kernel profile of the phases (default 1)
#   PROFILE_ROUNDS=all       the serve and net figures sampled in every round, not
#                            only in each figure's first round of a cycle (default 1)
#   BLKLAT=0                 no block-latency histograms (default 1)
#   FORKLAT=0                no httpd histograms of the fork serve mode (default 1)
#   PRECISION PRECISION_MAX_TRIALS PRECISION_MAX_S MIN_MEASURE_S STEADY_SLICES DISTURBED_PCT
#                            the harness's stopping rule (docs/harness.md), passed on;
#                            the demo caps it at PRECISION_MAX_TRIALS=5 PRECISION_MAX_S=10,
#                            and takes steady windows of MIN_MEASURE_S=1 in STEADY_SLICES=4
#   CLIENT_CPUS=none         the replay client and the servers left to the scheduler
#                            (default auto: the client on the last CPU, the servers on
#                            the others; docs/harness.md#precision)
set -eu
cd "$(dirname "$0")/.."

say() { printf 'demo: %s\n' "$*" >&2; }

# minutes S : S seconds as "N min" (or "N s" under a minute).
minutes() {
  if [ "$1" -lt 60 ]; then printf '%s s' "$1"; else printf '%s min' "$((($1 + 30) / 60))"; fi
}

# progress_lines T0 : reads the play's progress lines (playbooks/roles/
# phases/tasks/progress.yml: HOST make VARIANT I/N, HOST step N/TOTAL
# TRIAL/TRIALS VARIANT POS/NV PHASE, HOST rounds PHASE TRIAL/TRIALS NV,
# HOST done; harness/rounds.sh's HOST round TEXT) on stdin as they come and
# prints one line each, with the time left: every trial of every variant
# runs the same steps, so each step is estimated by the mean time the same
# step of the earlier trials took (by the mean of all steps before a step
# has run once).
progress_lines() {
  local t0=$1 host kind a b c d e now n total per pos k left est known=0 all=0 cnt=0
  local prev_t='' prev_pos=0
  local -a sum=() num=()
  local -A seen=()
  while IFS=$'\t' read -r host kind a b c d e; do
    # each line once, should tail read the file again
    [ "$kind" = round ] || [ -z "${seen[$host $kind $a $b]:-}" ] || continue
    seen[$host $kind $a $b]=1
    now=$EPOCHSECONDS
    case $kind in
      make) say "making the filesystem of $a (${b%/*} of ${b#*/})" ;;
      done) say "every trial ran ($(minutes $((now - t0))) in); unmounting, fetching, summary" ;;
      rounds) say "trial $b: $a of all $c variants in blocked rounds ($(minutes $((now - t0))) in)" ;;
      # harness/rounds.sh's own lines (ROUNDS_PROGRESS): one per round and figure
      round) say "  $a" ;;
      step)
        n=${a%/*} total=${a#*/}
        # steps of one trial of one variant: TOTAL / (TRIALS x VARIANTS)
        per=$((total / (${b#*/} * ${d#*/})))
        [ "$per" -gt 0 ] || per=1
        pos=$(((n - 1) % per))
        if [ -n "$prev_t" ]; then
          sum[prev_pos]=$((${sum[prev_pos]:-0} + now - prev_t))
          num[prev_pos]=$((${num[prev_pos]:-0} + 1))
          all=$((all + now - prev_t)) cnt=$((cnt + 1))
        fi
        prev_t=$now prev_pos=$pos
        left=''
        if [ "$cnt" -gt 0 ]; then
          est=0
          for ((k = n; k <= total; k++)); do
            known=$(((k - 1) % per))
            if [ "${num[known]:-0}" -gt 0 ]; then
              est=$((est + sum[known] / num[known]))
            else
              est=$((est + all / cnt))
            fi
          done
          left=", ~$(minutes "$est") left"
        fi
        say "trial $b, $c (${d%/*} of ${d#*/}): $e (step $n/$total$([ "$host" = "$(hostname -s)" ] || printf ' on %s' "$host"), $(minutes $((now - t0))) in$left)"
        ;;
    esac
  done
}

STOPPING_RULE='PRECISION PRECISION_MAX_TRIALS PRECISION_MAX_S MIN_MEASURE_S STEADY_SLICES DISTURBED_PCT'

# stopping_rule_check : each setting of the harness's stopping rule given is
# a number (it goes into YAML that Ansible reads as a template); one line
# and exit 2 otherwise.  The harness checks them again.
stopping_rule_check() {
  local n
  for n in $STOPPING_RULE; do
    [ -z "${!n:-}" ] || [[ ${!n} =~ ^[0-9]+(\.[0-9]+)?$ ]] || { say "$n=${!n}: want a number"; exit 2; }
  done
}

# stopping_rule_yaml : ", NAME: VALUE" for each setting of the harness's
# stopping rule given, for shootout_make_vars; the harness's defaults
# otherwise.
stopping_rule_yaml() {
  local n
  for n in $STOPPING_RULE; do
    [ -z "${!n:-}" ] || printf ', %s: "%s"' "$n" "${!n}"
  done
}

# run_playbook LOG PROGRESS ARGS... : ansible-playbook ARGS, its task output
# into LOG, and a line on stderr for each step of the run (progress_lines).
run_playbook() {
  local log=$1 progress=$2 pid rc=0
  shift 2
  : >"$progress"
  ANSIBLE_CONFIG=${ANSIBLE_CONFIG:-$PWD/ansible.cfg} ANSIBLE_DISPLAY_SKIPPED_HOSTS=false ANSIBLE_NOCOLOR=1 ansible-playbook "$@" -e "shootout_progress=$PWD/$progress" \
    >"$log" 2>&1 &
  pid=$!
  tail -n +1 -F --pid="$pid" "$progress" 2>/dev/null | progress_lines "$EPOCHSECONDS"
  wait "$pid" || rc=$?
  return "$rc"
}

# DATASET, TRIALS and DEMO_SIZE go into the playbook's variables (YAML that
# Ansible reads as templates): checked first, one line and exit 2 for a
# value that is not a name, number or size (harness/settings.tsv).
# shellcheck source=harness/common/settings.sh
. harness/common/settings.sh
SHOOTOUT_ROOT=$PWD settings_check demo
stopping_rule_check
# The demo's own caps on the stopping rule, unless given: six variants of two
# trials, each with ten serve and net figures, on a 2-CPU machine in about
# 20 minutes (the harness's 10 trials or 60 s a figure could take hours): 5
# rounds of each figure, 10 s a figure and variant in each trial; steady
# windows of 1 s in 4 slices of 0.25 s (the harness's 2 s in 8), so that
# five rounds of the seven steady figures fit (docs/harness.md#slices).
PRECISION_MAX_TRIALS=${PRECISION_MAX_TRIALS:-5}
PRECISION_MAX_S=${PRECISION_MAX_S:-10}
MIN_MEASURE_S=${MIN_MEASURE_S:-1}
STEADY_SLICES=${STEADY_SLICES:-4}
# The client on a CPU of its own: in slices the A/A spread of the serve and
# net figures was 2-3 times smaller than with both left to the scheduler
# (docs/harness.md#precision).
CLIENT_CPUS=${CLIENT_CPUS:-auto}
[[ $CLIENT_CPUS =~ ^(auto|none|[0-9][0-9,-]*)$ ]] ||
  { say "CLIENT_CPUS=$CLIENT_CPUS: want auto, none or a list of CPUs like 0 or 2-3,5"; exit 2; }

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
trials=${TRIALS:-2}
# The demo shows the why too: a kernel profile of every phase (PROFILE=1).
profile=${PROFILE:-1}
# ... in the first round of each serve and net figure of a cycle: the rounds
# after are measured without the sampler (docs/profile.md#rounds).
profile_rounds=${PROFILE_ROUNDS:-1}
# ... and the block device's latency distribution (BLKLAT=1).
blklat=${BLKLAT:-1}
# ... and httpd's open and first-byte times in the fork serve mode (FORKLAT=1).
forklat=${FORKLAT:-1}
# DEMO_REPEAT (e.g. serve:3,net:3): those phases run 3 times in each cycle;
# untar, untar2 and delete change TARGET and run once a cycle.  By default
# none: the harness's stopping rule (PRECISION) repeats the serve and net
# figures within their phase until precise, more cheaply.
repeat=${DEMO_REPEAT:-none}
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
  echo "shootout_make_vars: {PROFILE: $profile, PROFILE_ROUNDS: \"$profile_rounds\", BLKLAT: $blklat, FORKLAT: $forklat$(stopping_rule_yaml), CLIENT_CPUS: \"$CLIENT_CPUS\"}"
  echo "shootout_variants:"
  for fs in "${variants[@]}"; do
    if [ "$fs" = tmpfs ]; then
      echo "  - {name: tmpfs, fs: tmpfs, size: $size}"
    else
      echo "  - {name: $fs, fs: $fs, device: loop, size: $size}"
    fi
  done
} >"$vars"
dir=results/$run_id
mkdir -p build/demo
log=build/demo/$run_id.log
say "run $run_id: ${variants[*]} on dataset $dataset, $trials trial(s) each, the variants alternating"
say "Ansible's task output: $log"

rc=0
run_playbook "$log" "build/demo/$run_id.progress" -i playbooks/inventory/local.yml playbooks/shootout.yml \
  -e "@$vars" || rc=$?
if [ -s "$dir/summary.tsv" ]; then
  column -t -s $'\t' "$dir/summary.tsv" >&2 || cat "$dir/summary.tsv" >&2
fi
if [ "$rc" -ne 0 ]; then
  say "ansible-playbook exited $rc; its last lines (all of it in $log):"
  grep -E 'fatal:|FAILED|"msg"|ERROR' "$log" | tail -n 10 >&2 || tail -n 20 "$log" >&2
fi
if ! find "$dir" -mindepth 2 -name records.tsv | grep -q .; then
  say "no results in $dir (ansible-playbook exited $rc; see $log)"
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
say "results: $dir (the order of the trials: $dir/*/order.tsv)"
say "Ansible's task output: $log"
say "report:  $where"
say "took $(($(date +%s) - t0)) s"
exit "$rc"
