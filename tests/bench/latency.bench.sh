#!/usr/bin/env bash
# The cost of the latency distributions (docs/latency.md), on and off,
# interleaved (each first in turn), RUNS times each, medians:
#  1. httpd's per-request histograms: bin/httpd against the same httpd built
#     without them (make nolathist: -DLATHIST_OFF), -N 1 on loopback, wrk
#     -t1 -c CONNS for DUR on a 3000-byte file (the cheapest request, where a
#     per-request cost shows most), and httpd's own CPU per request (its
#     --stats).  Goal: under 1% of its requests/s.
#  1b. the fork mode's blocks (part fork): tcpserver -c CONNS forking
#     bin/httpd -1 -k KEEPALIVE (10) with --stats-append against without,
#     wrk as above (each process's open, append and close of the file).
#  2. the block tracer (BLKLAT=1 against BLKLAT=0): phases untar, serve
#     (SERVE_MODES=1, the whole request list) and delete of DATASET on an
#     ext4 on a loop device (root; skipped with the reason otherwise).  The
#     setting's default is on only where the change stays under 3%.
# Prints each figure's medians and the change; exit 1 when a run failed.
#   env: RUNS (5) DUR (5s) CONNS (50) DATASET (tiny) REPLAY_COUNT (0: all)
#        LOOP_SIZE (512M; 3G for small) PARTS ("httpd fork blk")
#        KEEPALIVE (10: requests per connection in part fork)
set -eu
cd "$(dirname "$0")/../.."
# shellcheck source=harness/poll.sh
. harness/poll.sh
RUNS=${RUNS:-5} DUR=${DUR:-5s} CONNS=${CONNS:-50} DATASET=${DATASET:-tiny} LOOP_SIZE=${LOOP_SIZE:-512M}
REPLAY_COUNT=${REPLAY_COUNT:-0} PARTS=${PARTS:-httpd fork blk}
command -v wrk >/dev/null 2>&1 || { echo "latency bench: needs wrk (make deps)" >&2; exit 2; }
[ -x bin/httpd ] || { echo "latency bench: build bin/httpd first (make)" >&2; exit 2; }
make -s nolathist
tmp=$(mktemp -d "${TMPDIR:-/tmp}/latency-bench.XXXXXX")
pid='' mnt='' loop=''
# shellcheck disable=SC2317 # called by the trap
cleanup() {
  if [ -n "$pid" ]; then kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  if [ -n "$mnt" ] && mountpoint -q "$mnt"; then umount "$mnt" || umount -l "$mnt"; fi
  [ -z "$loop" ] || losetup -d "$loop" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# change ON OFF : (ON - OFF) / OFF in %, signed.
change() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%+.2f%%", 100 * (a - b) / b; else print "-" }'; }
failed=0

# wrk_against LABEL : wrk -t1 -c CONNS for DUR on the server just started in
# the background (pid, listening on port), then that server stopped; prints
# "REQ/S " or says why not (LABEL names the server) and fails.
wrk_against() {
  local rc=0
  poll_until 10 port_busy "$port" || { echo "latency bench: $1 did not listen" >&2; rc=1; }
  [ "$rc" != 0 ] || wrk -t1 -c"$CONNS" -d"$DUR" "http://127.0.0.1:$port/small.bin" >"$tmp/wrk.out" 2>&1 || true
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  pid=''
  [ "$rc" = 0 ] || return 1
  awk '/Non-2xx|Socket errors/ { bad = 1 } /^Requests\/sec:/ { r = $2 }
    END { if (bad || r == "") exit 1; printf "%s ", r }' "$tmp/wrk.out" ||
    { echo "latency bench: FAIL: wrk against $1:" >&2; cat "$tmp/wrk.out" >&2; return 1; }
}

# ---- 1. httpd's histograms ------------------------------------------------
part() { case " $PARTS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
if part httpd; then
  mkdir -p "$tmp/root"
  head -c 3000 /dev/urandom >"$tmp/root/small.bin"
  httpd_rps() { # httpd_rps BINARY -> "req/s cpu_us_per_request" of one wrk run
    local port
    port=$(free_port)
    rm -f "$tmp/httpd.stats"
    "$1" -q -N 1 -r "$tmp/root" -i 127.0.0.1 -p "$port" -t 30 --stats "$tmp/httpd.stats" >/dev/null 2>&1 &
    pid=$!
    wrk_against "$1" || return 1
    # the server's own CPU per request (user + sys of all its processes): what
    # the histograms add, less moved by the other loads of a shared machine
    awk -F '\t' '{ v[$1] = $2 } END { printf "%.3f\n", (v["requests"] > 0) ? 1e6 * (v["user_s"] + v["sys_s"]) / v["requests"] : 0 }' \
      "$tmp/httpd.stats"
  }
  echo "1. httpd's per-request histograms: httpd -N 1, wrk -t1 -c$CONNS -d$DUR on a 3000-byte file, median of $RUNS interleaved, $(nproc) CPUs (shared: noisy)"
  : >"$tmp/on" ; : >"$tmp/off"
  for r in $(seq "$RUNS"); do
    order="on off"
    [ $((r % 2)) = 1 ] || order="off on"
    for w in $order; do
      b=bin/httpd
      [ "$w" = on ] || b=build/nolathist/bin/httpd
      httpd_rps "$b" >>"$tmp/$w" || failed=1
    done
  done
  on=$(cut -d' ' -f1 "$tmp/on" | median) off=$(cut -d' ' -f1 "$tmp/off" | median)
  con=$(cut -d' ' -f2 "$tmp/on" | median) coff=$(cut -d' ' -f2 "$tmp/off" | median)
  printf '%-28s %12s %12s %9s\n' figure on off change
  printf '%-28s %12.0f %12.0f %9s\n' "httpd req/s" "${on:-0}" "${off:-0}" "$(change "${on:-0}" "${off:-0}")"
  printf '%-28s %12.3f %12.3f %9s\n' "httpd CPU us per request" "${con:-0}" "${coff:-0}" "$(change "${con:-0}" "${coff:-0}")"
  printf '  runs on (req/s us/req):  %s\n  runs off (req/s us/req): %s\n' "$(tr '\n' ',' <"$tmp/on")" "$(tr '\n' ',' <"$tmp/off")"
  echo "(goal: the histograms cost under 1% of httpd's requests/s; where wrk and other loads share the CPUs the"
  echo " req/s spread is wider than that, and the CPU per request is the figure that shows the cost)"
fi

# ---- 1b. the fork mode's appended blocks -------------------------------------
# tcpserver forking httpd -1 (the serve-*-fork model) with and without
# --stats-append: there every process opens, appends to and closes the file,
# a cost per connection that the -N servers' histograms do not have.  -k
# KEEPALIVE closes each connection after that many requests (the harness's
# REPLAY_KEEPALIVE, 10), and wrk opens the next.
if part fork && command -v tcpserver >/dev/null 2>&1; then
  mkdir -p "$tmp/root"
  [ -s "$tmp/root/small.bin" ] || head -c 3000 /dev/urandom >"$tmp/root/small.bin"
  fork_rps() { # fork_rps on|off -> "req/s blocks" of one wrk run
    local port each=$tmp/each.stats
    port=$(free_port)
    rm -f "$each"
    set -- "$1" bin/httpd -1 -q -r "$tmp/root" -k "${KEEPALIVE:-10}"
    [ "$1" = off ] || set -- "$@" --stats-append "$each"
    shift
    tcpserver -c "$CONNS" -H -R -l0 127.0.0.1 "$port" "$@" >/dev/null 2>&1 &
    pid=$!
    wrk_against "tcpserver/httpd -1" || return 1
    grep -c '^requests' "$each" 2>/dev/null || echo 0
  }
  echo "1b. the fork mode's --stats-append: tcpserver -c$CONNS forking httpd -1 -k ${KEEPALIVE:-10}, wrk -t1 -c$CONNS -d$DUR on a 3000-byte file, median of $RUNS interleaved"
  : >"$tmp/fon" ; : >"$tmp/foff"
  for r in $(seq "$RUNS"); do
    order="on off"
    [ $((r % 2)) = 1 ] || order="off on"
    for w in $order; do fork_rps "$w" >>"$tmp/f$w" || failed=1; done
  done
  on=$(cut -d' ' -f1 "$tmp/fon" | median) off=$(cut -d' ' -f1 "$tmp/foff" | median)
  printf '%-28s %12s %12s %9s\n' figure on off change
  printf '%-28s %12.0f %12.0f %9s\n' "fork req/s" "${on:-0}" "${off:-0}" "$(change "${on:-0}" "${off:-0}")"
  printf '  runs on (req/s blocks):  %s\n  runs off (req/s):        %s\n' "$(tr '\n' ',' <"$tmp/fon")" "$(cut -d' ' -f1 "$tmp/foff" | tr '\n' ',')"
  echo "(each process appends one block: the cost is per connection, about 1/${KEEPALIVE:-10} of one per request)"
fi
part blk || exit "$failed"

# ---- 2. the block tracer ----------------------------------------------------
echo
echo "2. the block tracer (BLKLAT=1 against 0): untar, serve (httpd -N 1, REPLAY_COUNT=$REPLAY_COUNT), delete of DATASET=$DATASET on a loop ext4, median of $RUNS interleaved"
why=''
[ "$(id -u)" = 0 ] || why="not root (a loop device and mounts)"
[ -n "$why" ] || command -v mkfs.ext4 >/dev/null 2>&1 || why="no mkfs.ext4"
if [ -z "$why" ]; then
  # shellcheck source=harness/os.sh
  SHOOTOUT_ROOT=$PWD . harness/os.sh
  truncate -s "$LOOP_SIZE" "$tmp/ext4.img"
  mkfs.ext4 -q -F "$tmp/ext4.img"
  loop=$(losetup -f --show "$tmp/ext4.img") || why="no free loop device"
fi
if [ -z "$why" ]; then
  mnt=$tmp/mnt
  mkdir -p "$mnt"
  mount -o noatime "$loop" "$mnt"
  probe=$(os_blklat_probe "$mnt") || why="no block tracer: $probe"
fi
if [ -n "$why" ]; then
  echo "skipped: $why"
  exit "$failed"
fi
figures="untar:wall_s serve-cold-1:rps serve-warm-1:rps delete:wall_s"
for r in $(seq "$RUNS"); do
  order="1 0"
  [ $((r % 2)) = 1 ] || order="0 1"
  for b in $order; do
    if ! env -u PARTS -u LOOP_SIZE make -s phase-untar phase-serve phase-delete TARGET="$mnt" DATASET="$DATASET" SERVE_MODES=1 \
      REPLAY_COUNT="$REPLAY_COUNT" BLKLAT="$b" RUN_ID="bench-$r-$b" RESULTS="$tmp/results" HOST=bench VARIANT=ext4 \
      >"$tmp/phase.log" 2>&1; then
      echo "latency bench: FAIL: BLKLAT=$b run $r:" >&2
      tail -5 "$tmp/phase.log" >&2
      failed=1
      continue
    fi
    for f in $figures; do
      awk -F '\t' -v p="${f%%:*}" -v m="${f#*:}" '$1 == p && $3 == m { print $4 }' \
        "$tmp/results/bench-$r-$b/bench/ext4/records.tsv" >>"$tmp/blk-$b-${f%%:*}"
    done
  done
done
printf '%-28s %12s %12s %9s\n' figure BLKLAT=1 BLKLAT=0 change
for f in $figures; do
  on=$(median <"$tmp/blk-1-${f%%:*}") off=$(median <"$tmp/blk-0-${f%%:*}")
  printf '%-28s %12.4g %12.4g %9s\n' "${f%%:*} ${f#*:}" "${on:-0}" "${off:-0}" "$(change "${on:-0}" "${off:-0}")"
done
for f in $figures; do
  printf '  %s runs BLKLAT=1: %s; BLKLAT=0: %s\n' "$f" "$(tr '\n' ' ' <"$tmp/blk-1-${f%%:*}")" "$(tr '\n' ' ' <"$tmp/blk-0-${f%%:*}")"
done
n=$(cat "$tmp"/results/bench-*-1/bench/ext4/latency/*.tsv 2>/dev/null | awk -F '\t' '$1 == "blk_ns" { s += $4 } END { print s + 0 }')
echo "(block requests traced over the BLKLAT=1 runs: $n; wall_s lower is better, rps higher)"
exit "$failed"
