#!/bin/bash
# bin/httpd against nginx configured as Debian ships it (the "Basic
# Settings" of nginx-common's /etc/nginx/nginx.conf: sendfile on,
# tcp_nopush on, gzip on, worker_connections 768, keepalive at nginx's
# defaults), with worker_processes matched to httpd's -N, on the same root,
# driven by wrk on loopback: a 3000-byte and a 204800-byte file, keep-alive,
# with one process and with two.  Access logs are off on both sides (httpd
# -q, nginx access_log off); LOG=1 turns both on, into files.
#
# Before timing, each server must answer 200 with each file's exact length;
# each timed run must have no non-2xx answer and no socket error, else its
# line says FAIL and the script exits 1.  Prints the median req/s of RUNS
# interleaved runs (httpd, nginx, httpd, nginx, ...) of DUR each and the
# ratio httpd/nginx, with the goal of each case.
#   env: DUR (5s) RUNS (3) CONNS (50) NGINX (/usr/sbin/nginx) LOG (0)
set -eu
cd "$(dirname "$0")/../.."
# poll_until, free_port, port_busy
# shellcheck source=harness/poll.sh
. harness/poll.sh
DUR=${DUR:-5s} RUNS=${RUNS:-3} CONNS=${CONNS:-50} NGINX=${NGINX:-/usr/sbin/nginx} LOG=${LOG:-0}
for c in wrk "$NGINX" python3 curl; do
  command -v "$c" >/dev/null 2>&1 || { echo "httpd bench: needs $c (make deps)" >&2; exit 2; }
done
[ -x bin/httpd ] || { echo "httpd bench: build bin/httpd first (make)" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/httpd-bench.XXXXXX")
pid=
# shellcheck disable=SC2317 # called by the trap
cleanup() {
  if [ -n "$pid" ]; then kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
chmod 755 "$tmp"
mkdir -p "$tmp/root" "$tmp/nginx"
head -c 3000 /dev/urandom >"$tmp/root/small.bin"
head -c 204800 /dev/urandom >"$tmp/root/large.bin"
chmod -R a+rX "$tmp/root"
declare -A size=([small.bin]=3000 [large.bin]=204800)
declare -A goal=([small.bin]=1.2 [large.bin]=1.0)

# wait_port PORT : until httpd (or nginx) listens there (10 s).
wait_port() {
  poll_until 10 port_busy "$1" || { echo "httpd bench: nothing on port $1" >&2; return 1; }
}

nginx_conf() { # nginx_conf PORT WORKERS
  local mime='types { application/octet-stream bin; }' user='' alog=off
  [ -r /etc/nginx/mime.types ] && mime='include /etc/nginx/mime.types;'
  # As root, Debian's workers run as www-data (its "user www-data;").
  [ "$(id -u)" = 0 ] && id www-data >/dev/null 2>&1 && user='user www-data;'
  [ "$LOG" = 1 ] && alog="$tmp/nginx/access.log"
  cat >"$tmp/nginx/nginx.conf" <<CONF
$user
worker_processes $2;
daemon off;
pid $tmp/nginx/nginx.pid;
error_log $tmp/nginx/error.log;
events { worker_connections 768; }
http {
  sendfile on;
  tcp_nopush on;
  types_hash_max_size 2048;
  $mime
  default_type application/octet-stream;
  access_log $alog;
  gzip on;
  client_body_temp_path $tmp/nginx/body;
  server {
    listen 127.0.0.1:$1;
    root $tmp/root;
  }
}
CONF
}

start() { # start httpd|nginx PROCS -> pid, port
  port=$(free_port)
  if [ "$1" = httpd ]; then
    local q=-q
    [ "$LOG" = 1 ] && q=
    # shellcheck disable=SC2086 # $q is one option or none
    bin/httpd $q -r "$tmp/root" -i 127.0.0.1 -p "$port" -N "$2" -t 30 \
      >"$tmp/httpd.log" 2>"$tmp/httpd.err" &
  else
    nginx_conf "$port" "$2"
    "$NGINX" -c "$tmp/nginx/nginx.conf" -p "$tmp/nginx" 2>"$tmp/nginx.err" &
  fi
  pid=$!
  wait_port "$port"
}

stop() {
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  pid=
}

# check SERVER: 200 and the exact length for both files, else FAIL.
check() {
  local f got
  for f in small.bin large.bin; do
    got=$(curl -s -o /dev/null -w '%{http_code} %{size_download}' "http://127.0.0.1:$port/$f") || true
    if [ "$got" != "200 ${size[$f]}" ]; then
      echo "httpd bench: FAIL: $1 answers /$f with '$got', not '200 ${size[$f]}'" >&2
      return 1
    fi
  done
}

# server_ticks : user+sys clock ticks so far of the server (pid) and its
# children (httpd -N's and nginx's workers).
server_ticks() {
  local p t=0 v
  for p in "$pid" $(pgrep -P "$pid" || true); do
    # the fields after "(comm) ": utime and stime are the 12th and 13th
    v=$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | awk '{ print $12 + $13 }') || v=0
    t=$((t + ${v:-0}))
  done
  echo "$t"
}

# rps SERVER PATH -> "req/s cpu_us_per_request" of one wrk run; fails (and
# says why) on any non-2xx answer or socket error.
rps() {
  local t0 t1
  t0=$(server_ticks)
  wrk -t1 -c"$CONNS" -d"$DUR" "http://127.0.0.1:$port$2" >"$tmp/wrk.out" 2>&1 || true
  t1=$(server_ticks)
  awk -v srv="$1" -v path="$2" -v ticks=$((t1 - t0)) -v hz="$(getconf CLK_TCK)" '
    / requests in / { n = $1 }
    /^Requests\/sec:/ { r = $2 }
    /Non-2xx or 3xx responses:/ { bad = $NF }
    /Socket errors:/ { sock = $0 }
    END {
      if (bad + 0 > 0) { print "httpd bench: FAIL: " srv " " path ": " bad " non-2xx answers" > "/dev/stderr"; exit 1 }
      if (sock != "") { print "httpd bench: FAIL: " srv " " path ":" sock > "/dev/stderr"; exit 1 }
      if (r == "") { print "httpd bench: FAIL: " srv " " path ": no Requests/sec from wrk" > "/dev/stderr"; exit 1 }
      printf "%s %.1f\n", r, (n > 0) ? ticks / hz * 1e6 / n : 0
    }' "$tmp/wrk.out"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

logs=off
[ "$LOG" = 1 ] && logs=on
echo "httpd vs nginx $("$NGINX" -v 2>&1 | sed 's/.*\///') (Debian's settings), access logs $logs," \
  "wrk -t1 -c$CONNS -d$DUR, median of $RUNS interleaved, $(nproc) CPUs (shared: noisy)"
printf '%-22s %12s %12s %8s %6s %8s %12s %12s\n' case httpd_rps nginx_rps ratio goal "" httpd_us/req nginx_us/req
failed=0
for procs in 1 2; do
  for f in small.bin large.bin; do
    : >"$tmp/httpd.rps"
    : >"$tmp/nginx.rps"
    bad=
    for _ in $(seq "$RUNS"); do
      for srv in httpd nginx; do
        start "$srv" "$procs"
        if ! check "$srv" || ! rps "$srv" "/$f" >>"$tmp/$srv.rps"; then
          bad=$srv
        fi
        stop
        [ -z "$bad" ] || break 2
      done
    done
    if [ -n "$bad" ]; then
      printf '%-22s FAIL (%s did not answer as it should; see above)\n' "$f procs=$procs" "$bad"
      failed=1
      continue
    fi
    h=$(cut -d' ' -f1 "$tmp/httpd.rps" | median)
    n=$(cut -d' ' -f1 "$tmp/nginx.rps" | median)
    hc=$(cut -d' ' -f2 "$tmp/httpd.rps" | median)
    nc=$(cut -d' ' -f2 "$tmp/nginx.rps" | median)
    ratio=$(awk -v h="$h" -v n="$n" 'BEGIN { printf "%.2f", (n > 0) ? h / n : 0 }')
    met=$(awk -v r="$ratio" -v g="${goal[$f]}" 'BEGIN { print (r >= g) ? "met" : "MISSED" }')
    printf '%-22s %12.0f %12.0f %8s %6s %-8s %12.1f %12.1f\n' "$f procs=$procs" "$h" "$n" "$ratio" \
      ">=${goal[$f]}" "$met" "$hc" "$nc"
  done
done
echo "(us/req: the server's own CPU time per request, all its processes; wrk, one thread"
echo " on the same 2 CPUs, copies every byte it reads, so on the 200 KB file the client,"
echo " not the server, sets the requests/s)"
exit "$failed"
