#!/usr/bin/env bash
# `make bench` part: replay vs wrk -t1 against nginx (one worker) on one small
# file with long keep-alive, and rmtree vs rm -rf on a 100k-file tree on
# tmpfs.  Prints each run, the medians and the ratios (targets: replay >=
# 0.95x wrk's requests/s; rmtree <= 1.0x rm -rf's time).  Loopback only.
# Besides requests/s (which on a shared machine mostly measures nginx and
# the neighbours), it prints each client's CPU time per request, a figure
# the noise disturbs less: the client must not be the bottleneck.
# Knobs: ROUNDS (5, replay/wrk), RM_ROUNDS (3), SECS (3, per wrk run),
# CONNS (50), FILES (100000).
set -eu
cd "$(dirname "$0")/../.."
ROOT=$PWD
# shellcheck source=tests/fixtures/nginx.sh
. tests/fixtures/nginx.sh
# poll_until, free_port, port_busy
# shellcheck source=harness/poll.sh
. harness/poll.sh
ROUNDS=${ROUNDS:-5}
RM_ROUNDS=${RM_ROUNDS:-3}
SECS=${SECS:-3}
CONNS=${CONNS:-50}
FILES=${FILES:-100000}

for c in wrk /usr/sbin/nginx python3 /usr/bin/time; do
  command -v "$c" >/dev/null || { echo "bench needs $c (make deps)" >&2; exit 1; }
done
if [ ! -x bin/replay ] || [ ! -x bin/rmtree ]; then
  echo "run make first" >&2
  exit 1
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/replay-bench.XXXXXX")
SHM=""
NGINX=""
cleanup() {
  if [ -n "$NGINX" ]; then
    kill "$NGINX" 2>/dev/null || true
    wait "$NGINX" 2>/dev/null || true
  fi
  if [ -n "$SHM" ]; then rm -rf "$SHM"; fi
  rm -rf "$T"
}
trap cleanup EXIT
chmod 755 "$T"

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
cpu_us() { # cpu_us TIMEFILE REQUESTS: client CPU microseconds per request
  awk -v n="$2" '{ printf "%.1f\n", ($1 + $2) * 1e6 / n }' "$1"
}

# ---- replay vs wrk ----
PORT=$(free_port)
mkdir -p "$T/www"
head -c 11264 /dev/urandom >"$T/www/small.jpg"
chmod -R a+rX "$T/www"
nginx_conf "$T/nginx" "$PORT" "$T/www"
/usr/sbin/nginx -p "$T/nginx" -c "$T/nginx/nginx.conf" &
NGINX=$!
POLL_STEP=0.1 poll_until 10 port_busy "$PORT" || true
URL=http://127.0.0.1:$PORT/small.jpg

echo "replay vs wrk -t1: nginx (1 worker), one 11 KB file, $CONNS connections, keep-alive, ${SECS}s runs"
wrk -t1 -c"$CONNS" -d1s "$URL" >/dev/null # warm up
: >"$T/wrk.txt"
: >"$T/replay.txt"
: >"$T/wrk.cpu"
: >"$T/replay.cpu"
for i in $(seq "$ROUNDS"); do
  /usr/bin/time -f '%U %S' -o "$T/wtime" wrk -t1 -c"$CONNS" -d"${SECS}s" "$URL" >"$T/wrk.out"
  w=$(awk '/^Requests\/sec:/ { print $2 }' "$T/wrk.out")
  wn=$(awk '/requests in/ { print $1 }' "$T/wrk.out")
  wc=$(cpu_us "$T/wtime" "$wn")
  # as many requests as wrk managed in the same time
  /usr/bin/time -f '%U %S' -o "$T/rtime" bin/replay -c "$CONNS" -k 1000000000 -U /small.jpg -n "$wn" \
    --stats "$T/r.tsv" "127.0.0.1:$PORT" >/dev/null
  r=$(awk -F'\t' '$1 == "rps" { print $2 }' "$T/r.tsv")
  rc=$(cpu_us "$T/rtime" "$wn")
  echo "$w" >>"$T/wrk.txt"
  echo "$r" >>"$T/replay.txt"
  echo "$wc" >>"$T/wrk.cpu"
  echo "$rc" >>"$T/replay.cpu"
  printf '  round %d: wrk %.0f req/s (%s us CPU/req), replay %.0f req/s (%s us CPU/req), %d requests\n' \
    "$i" "$w" "$wc" "$r" "$rc" "$wn"
done
mw=$(median <"$T/wrk.txt")
mr=$(median <"$T/replay.txt")
awk -v w="$mw" -v r="$mr" 'BEGIN { printf "  median: wrk %.0f req/s, replay %.0f req/s, ratio replay/wrk %.3f (target >= 0.95)\n", w, r, r / w }'
cw=$(median <"$T/wrk.cpu")
cr=$(median <"$T/replay.cpu")
awk -v w="$cw" -v r="$cr" 'BEGIN { printf "  median client CPU per request: wrk %.1f us, replay %.1f us, ratio replay/wrk %.3f (lower is better)\n", w, r, r / w }'
kill "$NGINX"
wait "$NGINX" 2>/dev/null || true
NGINX=""

# ---- rmtree vs rm -rf ----
SHM=$(mktemp -d /dev/shm/rmtree-bench.XXXXXX)
make_tree() { # 100 directories of FILES/100 files
  python3 - "$1" "$FILES" <<'EOF'
import os, sys
top, n = sys.argv[1], int(sys.argv[2])
os.mkdir(top)
per = max(1, n // 100)
for d in range(0, n, per):
    sub = os.path.join(top, "d%03d" % (d // per))
    os.mkdir(sub)
    for i in range(d, min(n, d + per)):
        os.close(os.open(os.path.join(sub, "f%06d.jpg" % i), os.O_CREAT | os.O_WRONLY, 0o644))
EOF
}
timed() { # prints the seconds COMMAND took
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >/dev/null
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", b - a }'
}
echo "rmtree vs rm -rf: $FILES files in 100 directories on tmpfs (/dev/shm)"
: >"$T/rm.txt"
: >"$T/rmtree.txt"
for i in $(seq "$RM_ROUNDS"); do
  make_tree "$SHM/a"
  make_tree "$SHM/b"
  a=$(timed rm -rf "$SHM/a")
  b=$(timed "$ROOT/bin/rmtree" "$SHM/b")
  if [ -e "$SHM/a" ] || [ -e "$SHM/b" ]; then
    echo "a tree was left behind" >&2
    exit 1
  fi
  echo "$a" >>"$T/rm.txt"
  echo "$b" >>"$T/rmtree.txt"
  echo "  round $i: rm -rf ${a}s, rmtree ${b}s"
done
ma=$(median <"$T/rm.txt")
mb=$(median <"$T/rmtree.txt")
awk -v a="$ma" -v b="$mb" 'BEGIN { printf "  median: rm -rf %.3fs, rmtree %.3fs, ratio rmtree/rm %.3f (target <= 1.0)\n", a, b, b / a }'
echo "(the machine is shared: expect noise of 10-20 % between runs)"
