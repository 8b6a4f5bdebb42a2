#!/usr/bin/env bash
# make bisect: the first commit of a kernel git tree that makes a figure
# worse, found by `git bisect run` with each candidate built, booted in the
# VM lab and measured until it can be told good or bad (docs/lab.md,
# "Testing your own kernel").
#   bisect.sh run       measure the good and the bad ref, then bisect
#   bisect.sh step      one candidate, the tree's HEAD (what git bisect run
#                       calls): exit 0 good, 1 bad, 125 skip (no build or no
#                       boot), 128 cannot tell (git bisect run stops)
#   bisect.sh phases    the phases a figure can name, with their metrics
# Settings (environment; `make bisect` passes its variables through):
#   BISECT_TREE (a git tree)  BISECT_GOOD  BISECT_BAD (refs of it)
#   BISECT_FIGURE="PHASE METRIC CHANGE" (default "files wall_s +10%": 10%
#     slower is bad; bisect.sh phases lists the phases)
#   BISECT_BUILD (none: each candidate built with the lab's small config,
#     kernel-build.sh, KERNEL_MAKE, one object tree BISECT_OUT/obj; else a
#     command run in the tree with BISECT_KDIR: a kernel directory to fill,
#     kernel.sh's dir:)
#   BISECT_RUNS=5 (samples a kernel first)  BISECT_MAX_RUNS=15
#   BISECT_OUT (default build/bisect/<UTC time>)  BISECT_MB=128  BISECT_FILES=2000
#   LAB_PROFILE=1: the culprit and its parent profiled (perf in the guest)
#     while the phase runs, their differential flame graph in the report
#   LAB_OS (its first name: the image)  and the lab's guest settings.
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LAB=$ROOT/playbooks/lab
BISECT_FIGURE=${BISECT_FIGURE:-files wall_s +10%}
BISECT_BUILD=${BISECT_BUILD:-}
BISECT_RUNS=${BISECT_RUNS:-5}
BISECT_MAX_RUNS=${BISECT_MAX_RUNS:-15}
BISECT_MB=${BISECT_MB:-128}
BISECT_FILES=${BISECT_FILES:-2000}
LAB_OS=${LAB_OS:-debian12}
LAB_PROFILE=${LAB_PROFILE:-1}
# One boot a kernel: a candidate that panics is gone at once (skipped).
export LAB_ONE_BOOT=1
# The phases run in the guest itself: no client guest.
export LAB_CLIENT=loopback

bisect_say() { printf 'bisect: %s\n' "$*" >&2; }
bisect_die() { bisect_say "$*"; exit 1; }

# shellcheck source=harness/common/settings.sh
. "$ROOT/harness/common/settings.sh"
SHOOTOUT_ROOT=$ROOT settings_check lab

# The phases of a figure: each a command run in the guest that prints its
# metrics as "name value" lines.  (The shootout's own phases need the whole
# playbook, minutes a run under TCG: too slow to repeat for every step.)
#   files: create BISECT_FILES empty files in 4 directories on tmpfs and
#     remove them (the kernel's slab objects: dentries, inodes)
#   tmpfs: write BISECT_MB MiB of zeros to a tmpfs file and remove it, after
#     dropping the caches (page allocation, copy, freeing)
phase_cmd() {
  local body
  case $1 in
    files) body="mkdir -p /dev/shm/bisect && cd /dev/shm/bisect && for d in 0 1 2 3; do mkdir \$d;
      (cd \$d && touch \$(seq 1 $((BISECT_FILES / 4)))); done; cd / && rm -rf /dev/shm/bisect" ;;
    tmpfs) body="dd if=/dev/zero of=/dev/shm/bisect bs=1M count=$BISECT_MB status=none && rm -f /dev/shm/bisect" ;;
    *) return 1 ;;
  esac
  printf '%s' "sync; echo 3 >/proc/sys/vm/drop_caches; t0=\$(date +%s%N); $body &&
    awk -v a=\$t0 -v b=\$(date +%s%N) 'BEGIN { printf \"wall_s %.3f\\n\", (b - a) / 1e9 }'"
}
phases() {
  printf 'files\twall_s\tcreate and remove BISECT_FILES empty files on tmpfs (slab objects: dentries, inodes)\n'
  printf 'tmpfs\twall_s\twrite and remove BISECT_MB MiB on tmpfs (page allocation, copy, freeing)\n'
}

# figure : PHASE METRIC CHANGE of BISECT_FIGURE, checked.
PHASE='' METRIC='' CHANGE='' EXTRA=''
read -r PHASE METRIC CHANGE EXTRA <<<"$BISECT_FIGURE" || true
# (run: whether git bisect started, and where the tree was before)
STARTED=0 ORIG=
check_figure() {
  [ -z "$EXTRA" ] || bisect_die "BISECT_FIGURE='$BISECT_FIGURE': want PHASE METRIC CHANGE, e.g. 'files wall_s +10%'"
  phase_cmd "$PHASE" >/dev/null ||
    bisect_die "BISECT_FIGURE: no phase '$PHASE' (there: $(phases | cut -f1 | paste -sd, -))"
  phases | awk -F '\t' -v p="$PHASE" -v m="$METRIC" '$1 == p && $2 == m { ok = 1 } END { exit !ok }' ||
    bisect_die "BISECT_FIGURE: phase $PHASE has no metric '$METRIC' (there: $(phases | awk -F '\t' -v p="$PHASE" '$1 == p { print $2 }'))"
  case $CHANGE in [+-][0-9]*%) ;; *) bisect_die "BISECT_FIGURE: change '$CHANGE' is not a signed percentage like +10% (higher is bad) or -10% (lower is bad)" ;; esac
  case ${CHANGE%\%} in [+-]0 | [+-]*[!0-9.]*) bisect_die "BISECT_FIGURE: change '$CHANGE' is not a signed percentage other than 0" ;; esac
  case $BISECT_RUNS$BISECT_MAX_RUNS$BISECT_MB$BISECT_FILES in *[!0-9]*) bisect_die "BISECT_RUNS, BISECT_MAX_RUNS, BISECT_MB and BISECT_FILES are numbers" ;; esac
  if [ "$BISECT_RUNS" -lt 2 ] || [ "$BISECT_MAX_RUNS" -lt "$BISECT_RUNS" ]; then
    bisect_die "want 2 <= BISECT_RUNS ($BISECT_RUNS) <= BISECT_MAX_RUNS ($BISECT_MAX_RUNS)"
  fi
}

ssh_guest() { # KEY PORT CMD
  timeout 600 ssh -q -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
    -o LogLevel=ERROR -o ConnectTimeout=10 -i "$1" -p "$2" root@127.0.0.1 "$3" </dev/null
}

# build LABEL : the tree's HEAD built into a kernel directory, by
# kernel-build.sh (the small config made from the image's, in the object
# tree BISECT_OUT/obj: each step's build is incremental) or BISECT_BUILD;
# prints it.  Fails (with the log's tail) when the build does.
build() {
  local label=$1 kdir=$BISECT_OUT/kernels/$1 rc=0
  rm -rf "$kdir"
  mkdir -p "$kdir"
  if [ -z "$BISECT_BUILD" ]; then
    "$LAB/kernel-build.sh" build "$BISECT_TREE" "$BISECT_OUT/obj" "$kdir" "$BISECT_OUT/guest.config" tmpfs \
      >"$BISECT_OUT/logs/$label.build" 2>&1 || rc=$?
  else
    (cd "$BISECT_TREE" && BISECT_KDIR=$kdir bash -c "$BISECT_BUILD") >"$BISECT_OUT/logs/$label.build" 2>&1 || rc=$?
  fi
  if [ "$rc" -ne 0 ]; then
    tail -n 5 "$BISECT_OUT/logs/$label.build" | sed 's/^/  /' >&2
    return 1
  fi
  printf '%s\n' "$kdir"
}

# boot_kernel LABEL KDIR STATE : boot the kernel directory KDIR in a guest
# of its own lab state directory STATE; writes STATE/guest: "key port name".
# Fails when the kernel does not boot (the reason on stderr, the console in
# logs/LABEL.console).
boot_kernel() {
  local label=$1 kdir=$2 state=$3 variant name port
  "$LAB/guests.sh" down "$state" 2>/dev/null || true
  rm -rf "$state"
  mkdir -p "$state"
  variant=$("$LAB/kernel.sh" dir "$IMAGE" "$label" "$kdir" "$state/kernels") || return 1
  if ! "$LAB/guests.sh" up 1 "$state" "$variant" 2>>"$BISECT_OUT/logs/$label.boot"; then
    cp "$state"/*.console "$BISECT_OUT/logs/$label.console" 2>/dev/null || true
    tail -n 1 "$BISECT_OUT/logs/$label.boot" >&2
    "$LAB/guests.sh" down "$state" || true
    return 1
  fi
  IFS=$'\t' read -r name port _ <"$state/guests.tsv"
  printf '%s %s %s\n' "$variant/lab_key" "$port" "$name" >"$state/guest"
}

# sample STATE : run the figure's phase once in STATE's guest; print METRIC.
sample() {
  local key port name
  read -r key port name <"$1/guest"
  ssh_guest "$key" "$port" "$(phase_cmd "$PHASE")" | awk -v m="$METRIC" '$1 == m { print $2; exit }'
}

# measure LABEL KDIR : boot the kernel directory KDIR beside the good
# kernel's guest (GOOD_STATE, up for the whole bisect), run the figure's
# phase once on each to warm up, then on each in turn (good, candidate,
# good, ...: a change of the machine's load falls on both) BISECT_RUNS
# times, then two more at a time up to BISECT_MAX_RUNS until
# bisect_judge.py says good or bad.  Samples in samples/LABEL.txt and
# samples/LABEL.good.txt; prints the judge's last line.  Returns 2 when the
# kernel did not boot.
measure() {
  local label=$1 kdir=$2 state=$BISECT_OUT/state n=0 v g line='undecided n=0'
  local samples=$BISECT_OUT/samples/$label.txt goods=$BISECT_OUT/samples/$label.good.txt
  boot_kernel "$label" "$kdir" "$state" || return 2
  : >"$samples"
  : >"$goods"
  sample "$GOOD_STATE" >/dev/null || true
  sample "$state" >/dev/null || true
  while [ "$n" -lt "$BISECT_MAX_RUNS" ]; do
    g=$(sample "$GOOD_STATE") || g=
    v=$(sample "$state") || v=
    if [ -z "$g" ] || [ -z "$v" ]; then
      if [ -z "$g" ]; then g="the good kernel's guest"; else g=the candidate; fi
      bisect_say "$label: the phase $PHASE printed no $METRIC on $g"
      break
    fi
    printf '%s\n' "$g" >>"$goods"
    printf '%s\n' "$v" >>"$samples"
    n=$((n + 1))
    if [ "$n" -lt "$BISECT_RUNS" ] || [ $(((n - BISECT_RUNS) % 2)) -ne 0 ]; then continue; fi
    line=$(python3 "$LAB/bisect_judge.py" "${CHANGE%\%}" "$goods" "$samples") || { line="undecided n=$n"; break; }
    case $line in undecided*) ;; *) break ;; esac
  done
  cp "$state"/*.console "$BISECT_OUT/logs/$label.console" 2>/dev/null || true
  "$LAB/guests.sh" down "$state" || true
  rm -rf "$state"
  printf '%s\n' "$line"
}

# label_of COMMIT GOOD BAD : the label COMMIT's kernel was built under.
label_of() {
  if [ "$1" = "$2" ]; then echo good; elif [ "$1" = "$3" ]; then echo bad; else echo "c-$(cut -c1-12 <<<"$1")"; fi
}

# profile STATE OUT : the figure's phase run BISECT_RUNS times under perf
# (every CPU's stacks, cpu-clock) in STATE's guest; the samples folded
# (harness/os/linux.sh's os_parse_profile_perf) into OUT.  Fails with the
# reason on stderr.
profile() {
  local key port name script raw=$2.script folded=$2
  read -r key port name <"$1/guest"
  script=$(phase_cmd "$PHASE" | base64 -w0)
  ssh_guest "$key" "$port" "command -v perf >/dev/null || { echo 'no perf in the guest' >&2; exit 1; }
    echo $script | base64 -d >/root/bisect-phase.sh &&
    perf record -a -g -F 499 -e cpu-clock -q -o /root/bisect.perf -- \
      sh -c 'for i in \$(seq $BISECT_RUNS); do bash /root/bisect-phase.sh >/dev/null; done' &&
    perf script -i /root/bisect.perf -F comm,pid,ip,sym,dso 2>/dev/null" >"$raw" || return 1
  # shellcheck source=harness/os/linux.sh
  (. "$ROOT/harness/os/linux.sh" && os_parse_profile_perf <"$raw") >"$folded"
  [ -s "$folded" ] || { echo "perf took no sample" >&2; return 1; }
}

# profile_culprit FIRST GOOD BAD : the first bad commit's kernel and its
# parent's (built as steps: the parent was judged good, or is the good
# ref) profiled in turn (profile); bisect_profile.py's flame graphs into
# BISECT_OUT/profile/ and its markdown on stdout, or one line why not.
profile_culprit() {
  local parent side commit label kdir state why='' dir=$BISECT_OUT/profile
  parent=$(git -C "$BISECT_TREE" rev-parse -q --verify "$1^") || { echo "No profile: the culprit has no parent."; return; }
  mkdir -p "$dir"
  for side in parent culprit; do
    commit=$parent
    [ "$side" = parent ] || commit=$1
    label=$(label_of "$commit" "$2" "$3")
    kdir=$BISECT_OUT/kernels/$label
    [ -d "$kdir" ] || { why="the $side's kernel ($label) was not built"; break; }
    state=$GOOD_STATE
    if [ "$label" != good ] || [ ! -s "$GOOD_STATE/guest" ]; then
      state=$BISECT_OUT/state
      boot_kernel "$label-profile" "$kdir" "$state" 2>/dev/null || { why="the $side's kernel did not boot again"; break; }
    fi
    why=$(profile "$state" "$dir/$side.folded" 2>&1) || why="$side: ${why:-perf failed}"
    if [ "$state" != "$GOOD_STATE" ]; then
      cp "$state"/*.console "$BISECT_OUT/logs/$label-profile.console" 2>/dev/null || true
      "$LAB/guests.sh" down "$state" || true
      rm -rf "$state"
    fi
    [ -z "$why" ] || break
  done
  if [ -z "$why" ] && why=$(python3 "$LAB/bisect_profile.py" "$dir/parent.folded" "$dir/culprit.folded" "$dir" 2>&1); then
    printf '%s
' "$why"
  else
    printf 'No profile of the culprit against its parent: %s.\n' "$(tail -n 1 <<<"$why")"
  fi
}

# record LABEL COMMIT VERDICT DETAIL : a line of steps.tsv and of the log.
record() {
  local subject
  subject=$(git -C "$BISECT_TREE" log -1 --format=%s "$2" 2>/dev/null || echo '?')
  printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$subject" >>"$BISECT_OUT/steps.tsv"
  bisect_say "$1 $(cut -c1-12 <<<"$2") ($subject): $3${4:+ ($4)}"
}

# step : one candidate, the tree's HEAD (git bisect run's command).
step() {
  local commit label kdir line rc
  check_figure
  commit=$(git -C "$BISECT_TREE" rev-parse HEAD)
  label=c-$(cut -c1-12 <<<"$commit")
  IMAGE=$("$LAB/image.sh" --path "${LAB_OS%% *}")
  GOOD_STATE=$BISECT_OUT/good-state
  [ -s "$GOOD_STATE/guest" ] || bisect_die "the good kernel's guest is not up ($GOOD_STATE)"
  if ! kdir=$(build "$label"); then
    record "$label" "$commit" skip "the build failed: $BISECT_OUT/logs/$label.build"
    exit 125
  fi
  rc=0
  line=$(measure "$label" "$kdir") || rc=$?
  if [ "$rc" -ne 0 ]; then
    record "$label" "$commit" skip "did not boot: $BISECT_OUT/logs/$label.console"
    exit 125
  fi
  case $line in
    good*) record "$label" "$commit" good "${line#good }"; exit 0 ;;
    bad*) record "$label" "$commit" bad "${line#bad }"; exit 1 ;;
    *)
      record "$label" "$commit" "cannot tell" "${line#undecided }, after BISECT_MAX_RUNS=$BISECT_MAX_RUNS samples"
      exit 128
      ;;
  esac
}

# refs GOOD BAD : the good kernel built and booted (its guest stays up for
# the whole bisect: GOOD_STATE), the bad one built and measured beside it.
refs() {
  local good=$1 bad=$2 kdir line rc=0
  git -C "$BISECT_TREE" checkout -q --detach "$good" || bisect_die "cannot check out $good in $BISECT_TREE"
  kdir=$(build good) || { record good "$good" "no build" "$BISECT_OUT/logs/good.build"; bisect_die "the good ref does not build: nothing to bisect"; }
  GOOD_STATE=$BISECT_OUT/good-state
  boot_kernel good "$kdir" "$GOOD_STATE" ||
    { record good "$good" "no boot" "$BISECT_OUT/logs/good.console"; bisect_die "the good ref does not boot in the lab: nothing to bisect"; }
  git -C "$BISECT_TREE" checkout -q --detach "$bad" || bisect_die "cannot check out $bad in $BISECT_TREE"
  kdir=$(build bad) || { record bad "$bad" "no build" "$BISECT_OUT/logs/bad.build"; bisect_die "the bad ref does not build: nothing to bisect"; }
  line=$(measure bad "$kdir") || rc=$?
  [ "$rc" -eq 0 ] || { record bad "$bad" "no boot" "$BISECT_OUT/logs/bad.console"; bisect_die "the bad ref does not boot in the lab: nothing to bisect"; }
  # the good kernel's own figure: its samples against themselves (an A/A)
  record good "$good" "good ref" "$(python3 "$LAB/bisect_judge.py" "${CHANGE%\%}" "$BISECT_OUT/samples/bad.good.txt" "$BISECT_OUT/samples/bad.good.txt" | cut -d' ' -f2-)"
  record bad "$bad" "bad ref" "${line#* }"
  REF_LINE=$line
}

# cleanup : the tree back where it was, the guest gone (every exit of run).
cleanup() {
  local rc=$?
  trap - EXIT INT TERM HUP
  if [ -n "${BISECT_OUT:-}" ]; then
    cp "$BISECT_OUT/good-state"/*.console "$BISECT_OUT/logs/good.console" 2>/dev/null || true
    "$LAB/guests.sh" down "$BISECT_OUT/state" 2>/dev/null || true
    "$LAB/guests.sh" down "$BISECT_OUT/good-state" 2>/dev/null || true
    rm -rf "$BISECT_OUT/state" "$BISECT_OUT/good-state"
  fi
  if [ "$STARTED" = 1 ]; then
    git -C "$BISECT_TREE" bisect reset >/dev/null 2>&1 || true
  elif [ -n "$ORIG" ]; then
    git -C "$BISECT_TREE" checkout -q "$ORIG" 2>/dev/null || true
  fi
  exit "$rc"
}

run() {
  local good bad first line prof rc=0
  : "${BISECT_TREE:?}" "${BISECT_GOOD:?}" "${BISECT_BAD:?}"
  [ "$(id -u)" -eq 0 ] || bisect_die "needs root (the lab's guests); run as root"
  check_figure
  [ -r "$ROOT/plots/stats.py" ] || bisect_die "needs plots/stats.py (the statistics module) for its verdicts"
  git -C "$BISECT_TREE" rev-parse --git-dir >/dev/null 2>&1 || bisect_die "BISECT_TREE=$BISECT_TREE is not a git tree"
  BISECT_TREE=$(cd "$BISECT_TREE" && pwd)
  good=$(git -C "$BISECT_TREE" rev-parse --verify -q "$BISECT_GOOD^{commit}") || bisect_die "BISECT_GOOD=$BISECT_GOOD is no commit of $BISECT_TREE"
  bad=$(git -C "$BISECT_TREE" rev-parse --verify -q "$BISECT_BAD^{commit}") || bisect_die "BISECT_BAD=$BISECT_BAD is no commit of $BISECT_TREE"
  git -C "$BISECT_TREE" merge-base --is-ancestor "$good" "$bad" || bisect_die "BISECT_GOOD=$BISECT_GOOD is not an ancestor of BISECT_BAD=$BISECT_BAD"
  [ "$good" != "$bad" ] || bisect_die "BISECT_GOOD and BISECT_BAD are the same commit"
  [ -z "$(git -C "$BISECT_TREE" status --porcelain --untracked-files=no)" ] ||
    bisect_die "$BISECT_TREE has uncommitted changes: commit them or check out a clean tree (bisect checks out other commits)"
  ! git -C "$BISECT_TREE" bisect log >/dev/null 2>&1 || bisect_die "a bisect runs in $BISECT_TREE already (git bisect reset ends it)"
  BISECT_OUT=${BISECT_OUT:-$ROOT/build/bisect/$(date -u +%Y%m%dT%H%M%SZ)}
  [ ! -e "$BISECT_OUT" ] || bisect_die "BISECT_OUT=$BISECT_OUT exists: results are never overwritten"
  mkdir -p "$BISECT_OUT/logs" "$BISECT_OUT/samples"
  BISECT_OUT=$(cd "$BISECT_OUT" && pwd)
  export BISECT_OUT BISECT_TREE
  IMAGE=$("$LAB/image.sh" "${LAB_OS%% *}") || bisect_die "no guest image"
  # the config the candidates' small config is made from
  [ -n "$BISECT_BUILD" ] || "$LAB/kernel.sh" config "$IMAGE" "$BISECT_OUT/guest.config" ||
    bisect_die "no kernel config in the image to make the small config from: give BISECT_BUILD"
  ORIG=$(git -C "$BISECT_TREE" symbolic-ref -q --short HEAD || git -C "$BISECT_TREE" rev-parse HEAD)
  trap cleanup EXIT
  trap 'bisect_say interrupted; exit 130' INT
  trap 'bisect_say terminated; exit 143' TERM HUP
  printf 'step\tcommit\tverdict\tfigures\tsubject\n' >"$BISECT_OUT/steps.tsv"
  bisect_say "figure: phase $PHASE, $METRIC, $CHANGE counts as bad; report in $BISECT_OUT"
  refs "$good" "$bad"
  case $REF_LINE in
    bad*) ;;
    good*) bisect_die "the bad ref is not $CHANGE worse than the good one ($REF_LINE): nothing to bisect" ;;
    *) bisect_die "cannot tell the bad ref from the good one after BISECT_MAX_RUNS=$BISECT_MAX_RUNS samples ($REF_LINE): a bisect on noise is worse than none" ;;
  esac
  git -C "$BISECT_TREE" checkout -q "$ORIG"
  STARTED=1
  git -C "$BISECT_TREE" bisect start "$bad" "$good" >/dev/null || bisect_die "git bisect start failed"
  (cd "$BISECT_TREE" && git bisect run "$LAB/bisect.sh" step) >"$BISECT_OUT/logs/git-bisect-run.log" 2>&1 || rc=$?
  git -C "$BISECT_TREE" bisect log >"$BISECT_OUT/git-bisect.log" 2>/dev/null || true
  first=$(sed -n 's/^\([0-9a-f]\{40\}\) is the first bad commit$/\1/p' "$BISECT_OUT/logs/git-bisect-run.log" | head -n 1)
  prof=
  if [ -n "$first" ] && [ "$LAB_PROFILE" != 0 ]; then
    bisect_say "profiling the culprit and its parent (LAB_PROFILE=1)"
    prof=$(profile_culprit "$first" "$good" "$bad")
  fi
  report "$first" "$prof"
  if [ -z "$first" ]; then
    line=$(grep -E 'first bad commit could be|cannot|exit code|failed' "$BISECT_OUT/logs/git-bisect-run.log" | head -n 3 | paste -sd' ' -)
    bisect_die "no first bad commit: ${line:-git bisect run exited $rc} (steps: $BISECT_OUT/report.md)"
  fi
  bisect_say "first bad commit: $first ($(git -C "$BISECT_TREE" log -1 --format=%s "$first")); report: $BISECT_OUT/report.md"
  printf '%s\n' "$first" >"$BISECT_OUT/first-bad"
}

# report FIRST [PROFILE] : report.md, the figure, each step with its figures
# and interval, the first bad commit, and PROFILE (profile_culprit's).
report() {
  {
    echo "# make bisect: $(basename "$BISECT_TREE") $BISECT_GOOD..$BISECT_BAD"
    echo
    echo "Figure: phase \`$PHASE\`, \`$METRIC\`, a change of $CHANGE against the good ref counts as bad."
    echo "Each kernel booted once in the VM lab (image \`$(basename "$IMAGE")\`), the phase run once to warm up, then"
    echo "$BISECT_RUNS to $BISECT_MAX_RUNS times, each sample after one of the good kernel's guest (up beside it all along);"
    echo "the interval is plots/stats.py's 95% interval of the change against those good samples."
    echo
    if [ -n "$1" ]; then
      echo "**First bad commit: \`$1\`** $(git -C "$BISECT_TREE" log -1 --format='%s' "$1")"
    else
      echo "**No first bad commit** (see the steps and logs/git-bisect-run.log)."
    fi
    echo
    echo "| step | commit | verdict | figures | subject |"
    echo "| --- | --- | --- | --- | --- |"
    tail -n +2 "$BISECT_OUT/steps.tsv" | awk -F '\t' '{ printf "| %s | %s | %s | %s | %s |\n", $1, substr($2, 1, 12), $3, $4, $5 }'
    [ -z "${2:-}" ] || printf '\n%s\n' "$2"
  } >"$BISECT_OUT/report.md"
}

case ${1:-} in
  run) [ $# -eq 1 ] || bisect_die "usage: bisect.sh run"; run ;;
  step)
    [ $# -eq 1 ] || bisect_die "usage: bisect.sh step"
    : "${BISECT_OUT:?bisect.sh step runs under bisect.sh run}" "${BISECT_TREE:?}"
    step
    ;;
  phases) phases ;;
  *) bisect_die "usage: bisect.sh run | step | phases" ;;
esac
