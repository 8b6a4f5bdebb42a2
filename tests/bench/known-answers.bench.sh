#!/usr/bin/env bash
# The statistics on known answers at full size (issue 40; the small version
# is tests/known-answers.bats): through the playbook, as `make demo` runs
# (the variants' trials alternating), on ext4 on loop devices of images in
# IMG_DIR, the DATASET, every phase:
#   A/A  the same ext4 as three variants A, B, C: the report must name no
#        winner and no best overall; prints its first lines and, per figure,
#        plots/stats.py's comparison of B and C against A;
#   slow two ext4 variants whose tools run in CPU-capped cgroups, "slow" at
#        half the cap of "fast" (tests/cgroup-cap.bash): the slowdown is
#        measured on its own first (the net phase's workload in either
#        group), then, per figure, the comparison of slow against fast, with
#        whether its interval holds the known slowdown (the CPU-bound
#        figures: net, serve warm; a figure that waits on the device is
#        slowed less).
#   env: DATASET (small) SIZE (4G) IMG_DIR (/var/tmp) TRIALS (3) CAP_FAST
#        (0.5 CPUs) PARTS ("aa slow")
set -eu
cd "$(dirname "$0")/../.."
BIN=$PWD/bin
DATASET=${DATASET:-small} SIZE=${SIZE:-4G} IMG_DIR=${IMG_DIR:-/var/tmp} TRIALS=${TRIALS:-3}
CAP_FAST=${CAP_FAST:-0.5} PARTS=${PARTS:-aa slow}
# The bench's knobs are its own: the harness under the play refuses names
# it does not know (PARTS) and would take DATASET and TRIALS as its own.
export -n DATASET SIZE IMG_DIR TRIALS CAP_FAST PARTS
[ "$(id -u)" = 0 ] || { echo "known-answers bench: needs root (loop devices, mounts, cgroups)" >&2; exit 2; }
for c in ansible-playbook mkfs.ext4 losetup jq; do
  command -v "$c" >/dev/null 2>&1 || { echo "known-answers bench: needs $c (make deps)" >&2; exit 2; }
done
# shellcheck source=harness/poll.sh
. harness/poll.sh
# shellcheck source=tests/cgroup-cap.bash
. tests/cgroup-cap.bash

tmp=$(mktemp -d "$IMG_DIR/known-bench.XXXXXX")
groups=()
# shellcheck disable=SC2317 # called by the trap
cleanup() {
  local g
  ansible-playbook -i "$tmp/inv.yml" playbooks/teardown.yml >/dev/null 2>&1 || true
  for g in ${groups[@]+"${groups[@]}"}; do rmdir "$g" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT
export ANSIBLE_NOCOLOR=1 ANSIBLE_LOCAL_TEMP=$tmp/ansible-local ANSIBLE_REMOTE_TEMP=$tmp/ansible-remote

# shellcheck source=tests/local-inventory.bash
. tests/local-inventory.bash
# variants NAME... : an inventory of ext4 variants of those names on loop
# devices under $tmp.
variants() {
  local v list=''
  for v in "$@"; do list+="${list:+, }{name: $v, fs: ext4, device: loop, size: $SIZE}"; done
  inventory "$tmp/inv.yml" "[$list]" "      shootout_confirm_wipe: true"
}

# play RUN [ARGS...] : the shootout of the inventory, TRIALS trials alternating.
play() {
  local run=$1
  shift
  echo "known-answers bench: run $run ($TRIALS trials a variant, dataset $DATASET); Ansible's output in $tmp/$run.log"
  if ! ansible-playbook -i "$tmp/inv.yml" playbooks/shootout.yml -e "shootout_run_id=$run" -e "shootout_dataset=$DATASET" \
    -e "shootout_trials=$TRIALS" -e "shootout_results_dir=$tmp/results" -e "shootout_control_results=$tmp/results" \
    "$@" >"$tmp/$run.log" 2>&1; then
    tail -n 30 "$tmp/$run.log" >&2
    echo "known-answers bench: run $run failed" >&2
    exit 1
  fi
}

# figures RUN A B : per figure (the timings and rates of the records),
# plots/stats.py's comparison of variant B against A.
figures() {
  local p m
  while IFS=$'\t' read -r p m; do
    printf '%-18s %-8s %s\n' "$p" "$m" "$(/usr/bin/python3 tests/known-answers.py "$tmp/results/$1" "$p" "$m" "$2" "$3")"
  done < <(awk -F '\t' 'NR > 1 && ($3 == "wall_s" || $3 == "rps" || $3 == "sync_s") && !seen[$1 FS $3]++ { print $1 "\t" $3 }' \
    "$tmp/results/$1"/*/"$2"/records.tsv)
}

for part in $PARTS; do
  case $part in
    aa)
      variants A B C
      play aa
      /usr/bin/python3 plots/plots.py report --results "$tmp/results" --out "$tmp/report-aa" aa >/dev/null
      echo "A/A, the report's first lines (no winner, no best overall expected):"
      sed -n '3,/^Per phase/p' "$tmp/report-aa/summary.md" | head -n 12
      sed -n '/^Per phase/,/^$/p' "$tmp/report-aa/summary.md" | sed -n '3,$p'
      for v in B C; do
        echo "A/A: $v against A (verdict, change %, interval %):"
        figures aa A "$v"
      done
      ;;
    slow)
      cg_root >/dev/null || { echo "known-answers bench: no cgroup cpu controller here: no slowdown part"; continue; }
      fast='' slow=''
      cg_new fast fast "$CAP_FAST"
      cg_new slow slow "$(awk -v c="$CAP_FAST" 'BEGIN { print c / 2 }')"
      read -r known known_lo known_hi < <(cg_known_net "$fast" "$slow" "$tmp/known" 50000)
      echo "slowdown: requests/s of slow / fast measured on its own: $known ($known_lo to $known_hi): a change of" \
        "$(awk -v k="$known" -v a="$known_lo" -v b="$known_hi" \
          'BEGIN { printf "%+.1f%% (%+.1f%% to %+.1f%%)", (k - 1) * 100, (a - 1) * 100, (b - 1) * 100 }') in a CPU-bound rate"
      cg_bin_dir "$fast" "$tmp/bin-fast"
      cg_bin_dir "$slow" "$tmp/bin-slow"
      cg_make "$tmp/make" "$tmp"
      variants fast slow
      play slow -e "shootout_make=$tmp/make"
      echo "slowdown: slow against fast (verdict, change %, interval %; rates should fall by about the known change):"
      figures slow fast slow
      ;;
    *) echo "known-answers bench: PARTS: aa or slow, not '$part'" >&2; exit 2 ;;
  esac
done
