#!/usr/bin/env bash
# What the rounds (harness/rounds.sh, docs/harness.md#rounds) cost the
# figures of the variant that measures, two costs no other bench sees:
#  1. the tracers of the variants that wait: every variant's phase starts at
#     once, and with BLKLAT=1 and PROFILE=1 (make demo) its bpftrace and perf
#     stay attached through the others' turns (its bpftrace's probes fire on
#     every block request of the machine; its perf is switched off outside
#     its own windows, perf --control).  Three variants A, B, C (ext4 each
#     on a loop device of its own, the tiny dataset), serve (SERVE_MODES=1)
#     in ROUNDS rounds, in three configurations taken in turn, the order
#     turning every repetition: "all" (the tracers on in A, B and C), "one"
#     (in A only), "none".  A's figures of "all" against "one" are what B's
#     and C's tracers cost A; "one" against "none" what A's own cost it.
#     Each comparison is plots/stats.py's, paired over the repetitions.
#  2. the coordinator's poll: rounds.sh wakes four times a second while a
#     variant measures (to see a phase that died), outside the phase's
#     process tree.  Its CPU: the same loop, alone, on an idle FIFO for
#     POLL_S seconds against a read that waits the whole time (the CPU of
#     the bash process, /proc/PID/schedstat), RUNS times each, interleaved;
#     and rounds.sh's own CPU (not its children's) over each call above,
#     per second of the call.
# Prints one line per cost with its interval or range; exit 1 when a run
# failed, 2 when this host cannot run it (the reason).
#   env: RUNS (3: repetitions of the three configurations) ROUNDS (2: rounds
#        of each call) DATASET (tiny) SIZE (400M, each image) IMG_DIR
#        (/dev/shm) POLL_S (5)
set -eu
cd "$(dirname "$0")/../.."
RUNS=${RUNS:-3} ROUNDS=${ROUNDS:-2} DATASET=${DATASET:-tiny} SIZE=${SIZE:-400M} IMG_DIR=${IMG_DIR:-/dev/shm}
POLL_S=${POLL_S:-5}
# the bench's knobs are its own (the harness would take DATASET as its own)
export -n RUNS ROUNDS DATASET SIZE IMG_DIR POLL_S
[ "$(id -u)" = 0 ] || { echo "rounds bench: needs root (loop devices, mounts, bpftrace, perf -a)" >&2; exit 2; }
for c in mkfs.ext4 losetup python3; do
  command -v "$c" >/dev/null 2>&1 || { echo "rounds bench: needs $c (make deps)" >&2; exit 2; }
done
for t in mkdataset dltar httpd replay; do
  [ -x "bin/$t" ] || { echo "rounds bench: build bin/$t first (make)" >&2; exit 2; }
done
# shellcheck source=harness/poll.sh
. harness/poll.sh
# shellcheck source=harness/os.sh
SHOOTOUT_ROOT=$PWD . harness/os.sh

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rounds-bench.XXXXXX")
imgs=() loops=() mnts=()
# shellcheck disable=SC2317 # called by the trap
cleanup() {
  local m l
  for m in ${mnts[@]+"${mnts[@]}"}; do
    if mountpoint -q "$m"; then umount "$m" || umount -l "$m"; fi
  done
  for l in ${loops[@]+"${loops[@]}"}; do losetup -d "$l" 2>/dev/null || true; done
  rm -rf "$tmp" ${imgs[@]+"${imgs[@]}"}
}
trap cleanup EXIT

# ---- 2a. the poll alone -------------------------------------------------------
# poll_cpu KIND : the CPU (ns, /proc/PID/schedstat) of a bash that waits
# POLL_S seconds for a line on a FIFO nobody writes to: KIND poll as
# rounds_receive does (read -t 0.25, then kill -0 of a live pid), or block
# (one read -t POLL_S).
poll_cpu() {
  local f=$tmp/poll.fifo pid ns
  rm -f "$f"
  mkfifo "$f"
  # shellcheck disable=SC2016 # the loop is the child's
  bash -c '
    exec {fd}<>"$1"
    read -r ns0 _ </proc/self/schedstat
    end=$((${EPOCHREALTIME%.*} + $3))
    if [ "$2" = poll ]; then
      while [ "${EPOCHREALTIME%.*}" -lt "$end" ]; do
        STOPPING=""
        [ -z "$STOPPING" ] || exit 1
        read -r -t 0.25 -u "$fd" _ || :
        kill -0 "$PPID" 2>/dev/null || exit 1
      done
    else
      read -r -t "$3" -u "$fd" _ || :
    fi
    read -r ns _ </proc/self/schedstat
    echo $((ns - ns0))' poll-cpu "$f" "$1" "$POLL_S" >"$tmp/poll.out" &
  pid=$!
  wait "$pid"
  ns=$(cat "$tmp/poll.out")
  echo "$ns"
}
echo "rounds bench: 2. the coordinator's poll alone: a bash waiting $POLL_S s on an idle FIFO, read -t 0.25 + kill -0 (as rounds.sh) against one read, $RUNS times each, interleaved"
: >"$tmp/poll-poll" ; : >"$tmp/poll-block"
for r in $(seq "$RUNS"); do
  order="poll block"
  [ $((r % 2)) = 1 ] || order="block poll"
  for k in $order; do poll_cpu "$k" >>"$tmp/poll-$k"; done
done

# ---- 1. the tracers of the variants that wait ---------------------------------
why=''
probe=''
for v in A B C; do
  img=$(mktemp "$IMG_DIR/rounds-bench-$v.XXXXXX.img")
  imgs+=("$img")
  truncate -s "$SIZE" "$img"
  mkfs.ext4 -q -F "$img"
  loops+=("$(losetup -f --show "$img")") || { why="no free loop device"; break; }
  mnts+=("$tmp/mnt-$v")
  mkdir -p "$tmp/mnt-$v"
  mount -o noatime "${loops[-1]}" "$tmp/mnt-$v"
done
[ -n "$why" ] || probe=$(os_blklat_probe "${mnts[0]}") || why="no block tracer: $probe"
profile=1
if ! (os_profile_check && os_profile_control) >/dev/null 2>&1; then
  profile=0
  echo "rounds bench: perf cannot sample here or has no --control: the tracers are the block tracer's only"
fi
if [ -n "$why" ]; then
  echo "rounds bench: 1. skipped: $why"
  exit 2
fi

# the method's state before serve (untar, untar2) on each, once
for i in 0 1 2; do
  if ! env RESULTS="$tmp/prep" HOST=prep VARIANT="prep$i" SHOOTOUT_ROOT="$PWD" TARGET="${mnts[i]}" \
    DATASET="$DATASET" DATASETS_OUT="$tmp/ds" FLUSH=none PRECISION=0 PHASES="untar untar2" \
    harness/shootout.sh >"$tmp/prep-$i.log" 2>&1; then
    tail -n 20 "$tmp/prep-$i.log" >&2
    echo "rounds bench: FAIL: the untar of variant $i" >&2
    exit 1
  fi
done

# spec CONF I : the spec of variant I (0: A) in configuration CONF.
spec() {
  local on=0
  case $1:$2 in all:* | one:0) on=1 ;; esac
  printf '%s\n' "VARIANT=${VNAMES[$2]}" "TARGET=${mnts[$2]}" "DATASET=$DATASET" "DATASETS_OUT=$tmp/ds" \
    FLUSH=drop SERVE_MODES=1 "BLKLAT=$on" "PROFILE=$((on & profile))" >"$tmp/$1-$2.spec"
}
VNAMES=(A B C)
confs=(all one none)
echo "rounds bench: 1. the tracers of the variants that wait: serve (SERVE_MODES=1) of A, B, C (ext4 on loop devices," \
  "dataset $DATASET), $ROUNDS rounds a call, BLKLAT=1$([ "$profile" = 0 ] || echo ' PROFILE=1') in all three (all)," \
  "in A only (one), in none; $RUNS repetitions, the order turning; logs in $tmp until the end"
# The BPF programs of B's and C's block tracers: their run time and runs
# (fdinfo of each program's fd, with kernel.bpf_stats_enabled=1 for the
# bench), sampled with the coordinator; the largest seen of each (a
# program's counts only grow while its bpftrace lives, through the whole
# phase).  Builtins only: the sampler forks nothing beside A's windows.
stats_was=$(cat /proc/sys/kernel/bpf_stats_enabled)
trap 'echo "$stats_was" >/proc/sys/kernel/bpf_stats_enabled; cleanup' EXIT
echo 1 >/proc/sys/kernel/bpf_stats_enabled
devts=()
for i in 1 2; do
  IFS=: read -r maj min <"/sys/class/block/${loops[i]#/dev/}/dev"
  devts+=($(((maj << 20) | min)))
done
PROBE_NS=0 PROBE_RUNS=0
declare -A probe_ns=() probe_runs=()
# probes_sample : finds B's and C's bpftrace (its program names their
# device) until both are there, then adds up their programs' counts.
probes_sample() {
  local p d f k v ns runs cmd=()
  if [ ${#waiting[@]} -lt 2 ]; then
    waiting=()
    for p in /proc/[0-9]*; do
      if ! read -r k 2>/dev/null <"$p/comm" || [ "$k" != bpftrace ]; then continue; fi
      mapfile -d '' cmd 2>/dev/null <"$p/cmdline" || continue
      for d in "${devts[@]}"; do [[ ${cmd[*]} != *"args->dev == $d/"* ]] || waiting+=("${p#/proc/}"); done
    done
  fi
  for p in "${waiting[@]}"; do
    ns=0 runs=0
    for f in "/proc/$p/fdinfo/"*; do
      [ -r "$f" ] || continue
      while read -r k v; do
        case $k in run_time_ns:) ns=$((ns + v)) ;; run_cnt:) runs=$((runs + v)) ;; esac
      done 2>/dev/null <"$f" || :
    done
    [ "$ns" -le "${probe_ns[$p]:-0}" ] || { probe_ns[$p]=$ns probe_runs[$p]=$runs; }
  done
  PROBE_NS=0 PROBE_RUNS=0
  for p in "${!probe_ns[@]}"; do PROBE_NS=$((PROBE_NS + probe_ns[$p])) PROBE_RUNS=$((PROBE_RUNS + probe_runs[$p])); done
}
failed=0
for r in $(seq "$RUNS"); do
  k=$(((r - 1) % 3))
  for c in "${confs[@]:k}" "${confs[@]:0:k}"; do
    for i in 0 1 2; do spec "$c" "$i"; done
    # rounds.sh in the background: its own CPU (schedstat: its main
    # thread, none of its children) sampled until it ends
    env RESULTS="$tmp/results" RUN_ID="$c-$r" HOST=bench SHOOTOUT_ROOT="$PWD" TMPDIR="$tmp" \
      PRECISION=0.01 PRECISION_MAX_TRIALS="$ROUNDS" PRECISION_MAX_S=600 \
      harness/rounds.sh serve "$tmp/$c-0.spec" "$tmp/$c-1.spec" "$tmp/$c-2.spec" >"$tmp/$c-$r.out" 2>"$tmp/$c-$r.err" &
    rp=$!
    t0=$EPOCHREALTIME ns=0 waiting=()
    probe_ns=() probe_runs=()
    exec {wfd}<> <(:)
    while [ -r "/proc/$rp/schedstat" ]; do
      read -r n _ 2>/dev/null <"/proc/$rp/schedstat" && ns=$n
      [ "$c" != all ] || probes_sample
      read -r -t 0.5 -u "$wfd" _ || :
    done
    exec {wfd}>&-
    [ "$c" != all ] || printf '%s %s %s\n' "$PROBE_NS" "$PROBE_RUNS" "$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }')" >>"$tmp/probes"
    rc=0
    wait "$rp" || rc=$?
    printf '%s %s\n' "$ns" "$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }')" >>"$tmp/coord"
    if [ "$rc" != 0 ]; then
      echo "rounds bench: FAIL: $c, repetition $r (exit $rc):" >&2
      cat "$tmp/$c-$r.out" >&2
      tail -n 5 "$tmp/$c-$r.err" >&2
      failed=1
    fi
    echo "  $c $r: $(cut -f 1,3 "$tmp/$c-$r.out" | head -n 1)"
  done
done

# ---- the costs, one line each --------------------------------------------------
# A's trials (status 0) of each call: "CONF REP FIGURE VALUE" lines, FIGURE
# the cold and warm rates and the CPU that processes outside A's phase took
# per second of its window (the waiting tracers' own processes, the
# coordinator, and whatever else ran on the machine), and the CPU of A's
# httpd per request (where a probe that fires on A's reads is charged).
for c in "${confs[@]}"; do
  for r in $(seq "$RUNS"); do
    f=$tmp/results/$c-$r/bench/A/records.tsv
    [ -s "$f" ] || continue
    awk -F '\t' -v c="$c" -v r="$r" '
      $3 == "status" { st[$1 FS $2] = $4 }
      $1 ~ /^serve-(cold|warm)-1$/ && $3 == "rps" { v[$1 FS $2] = $4 }
      $1 ~ /^serve-(cold|warm)-1$/ && $3 == "budget_outside_cpu_s" { o[$1 FS $2] = $4 }
      $1 ~ /^serve-(cold|warm)-1$/ && $3 == "budget_wall_s" { w[$1 FS $2] = $4 }
      $1 == "serve-cold-1" && $3 == "budget_wall_s" { cw += $4 }
      $1 ~ /^serve-(cold|warm)-1$/ && $3 ~ /^budget_(user|sys)_s_httpd$/ { h[$1 FS $2] += $4 }
      $1 ~ /^serve-(cold|warm)-1$/ && $3 == "requests" { q[$1 FS $2] = $4 }
      END {
        print c, r, "cold_window_s", cw + 0
        for (k in h) if (st[k] == "0" && q[k] > 0) { split(k, a, FS); print c, r, a[1] "_httpd_us_per_request", 1e6 * h[k] / q[k] }
        for (k in v) if (st[k] == "0") { split(k, a, FS); print c, r, a[1] "_rps", v[k] }
        for (k in o) if (st[k] == "0" && w[k] > 0) { split(k, a, FS); print c, r, a[1] "_outside_cpu_pct", 100 * o[k] / w[k] }
      }' "$f"
  done
  # A's block requests in its cold replays (its own tracer's histogram)
  for r in $(seq "$RUNS"); do
    cat "$tmp/results/$c-$r/bench/A/latency/serve-cold-1-"*.tsv 2>/dev/null |
      awk -F '\t' -v c="$c" -v r="$r" '$1 == "blk_ns" { s += $4 } END { if (s) print c, r, "cold_blk_requests", s }'
  done
done >"$tmp/figures"
python3 - "$tmp/figures" "$tmp/poll-poll" "$tmp/poll-block" "$POLL_S" "$tmp/coord" "$tmp/probes" <<'PY'
import os
import sys
sys.path.insert(0, "plots")
import stats

figs, poll, block, poll_s, coord, probes = sys.argv[1:]
by = {}
for line in open(figs):
    c, r, f, v = line.split()
    by.setdefault(f, {}).setdefault(c, {}).setdefault(int(r), []).append(float(v))


def line(what, f, a, b):
    sa, sb = by.get(f, {}).get(a, {}), by.get(f, {}).get(b, {})
    va, vb = [x for v in sa.values() for x in v], [x for v in sb.values() for x in v]
    if not va or not vb:
        print("%-52s no trials" % what)
        return
    cmp = stats.compare(va, vb, by_round=(sa, sb))
    if f.endswith("_pct"):  # a share: the difference in points, the ranges
        ma, mb = stats.estimate(va).center, stats.estimate(vb).center
        print("%-52s %+.2f points (%s %.2f%%, %.2f-%.2f; %s %.2f%%, %.2f-%.2f; %d and %d trials)"
              % (what, mb - ma, a, ma, min(va), max(va), b, mb, min(vb), max(vb), len(va), len(vb)))
        return
    print("%-52s %s (95%% interval %s to %s, %s; could detect %.1f%%; %d and %d trials)"
          % (what, stats.pct(cmp.rel), stats.pct(cmp.lo), stats.pct(cmp.hi), cmp.test or "no test",
             cmp.mde, len(va), len(vb)))


print("1. the change of A's figure (req/s: - is slower; CPU: + is dearer), paired over the repetitions:")
for what, a, b in (("B's and C's tracers", "one", "all"), ("A's own tracers", "none", "one")):
    for fig in ("serve-cold-1", "serve-warm-1"):
        line("%s on A's %s req/s" % (what, fig), fig + "_rps", a, b)
    line("%s on A's serve-cold-1 httpd CPU/request" % what, "serve-cold-1_httpd_us_per_request", a, b)
for fig in ("serve-cold-1", "serve-warm-1"):
    line("outside CPU in A's %s windows, all - one" % fig, fig + "_outside_cpu_pct", "one", "all")
p = [int(x) / 1e3 / float(poll_s) for x in open(poll)]
q = [int(x) / 1e3 / float(poll_s) for x in open(block)]
d = sorted(a - b for a, b in zip(p, q))
pr = [l.split() for l in open(probes)] if os.path.exists(probes) else []
cold_s = by.get("cold_window_s", {}).get("all", {})
cold_req = by.get("cold_blk_requests", {}).get("all", {})
if pr:
    # B's and C's programs on A's block requests: each request fires two of
    # each (issue, complete), at the mean run time of their programs
    share = sorted(100 * 4 * cold_req[r + 1][0] * int(x[0]) / int(x[1]) / 1e9 / cold_s[r + 1][0]
                   for r, x in enumerate(pr) if int(x[1]) and cold_s.get(r + 1, [0])[0] > 0 and r + 1 in cold_req)
    if share:
        print("%-52s %.3f%% of one CPU during A's cold windows (range %.3f to %.3f%% over %d calls; %.0f requests"
              " a call, 4 runs each)" % ("B's and C's block probes on A's cold requests", stats.estimate(share).center,
                                        share[0], share[-1], len(share),
                                        stats.estimate([v[0] for v in cold_req.values()]).center))
if pr:
    per_s = sorted(int(ns) / 1e3 / float(w) for ns, runs, w in pr)
    per_run = sorted(int(ns) / int(runs) for ns, runs, w in pr if int(runs))
    print("%-52s %.1f us of CPU per second of the call (%.4f%% of one CPU; range %.1f to %.1f over %d calls;"
          " %.0f ns a run, %d runs a call)"
          % ("B's and C's block probes, all they ran (bpf stats)", stats.estimate(per_s).center,
             stats.estimate(per_s).center / 1e4, per_s[0], per_s[-1], len(per_s),
             stats.estimate(per_run).center if per_run else 0, stats.estimate([int(x[1]) for x in pr]).center))
print("2. the coordinator:")
print("%-52s %.1f us of CPU per second of measurement (%.4f%% of one CPU; range %.1f to %.1f us/s over %d pairs;"
      " polling %.1f, one read %.1f us/s)"
      % ("its poll (4 wakes a second), alone", stats.estimate(d).center, stats.estimate(d).center / 1e4,
         d[0], d[-1], len(d), stats.estimate(p).center, stats.estimate(q).center))
c = sorted(int(ns) / 1e3 / float(w) for ns, w in (l.split() for l in open(coord)))
print("%-52s %.1f us of CPU per second of the call (median; range %.1f to %.1f over %d calls)"
      % ("rounds.sh's own CPU in the calls above", stats.estimate(c).center, c[0], c[-1], len(c)))
PY
exit "$failed"
