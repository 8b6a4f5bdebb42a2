#!/usr/bin/env bash
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
# interleaved runs (httpd, nginx; nginx, httpd; ...: each first in turn) of
# DUR each and the ratio httpd/nginx, with the goal of each case.
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

# cpu_jiffies : busy and total clock ticks of the whole host so far
# (/proc/stat's first line: idle and iowait are the idle ones).
cpu_jiffies() {
  awk '/^cpu / { t = 0; for (i = 2; i <= NF; i++) t += $i; print t - $5 - $6, t; exit }' /proc/stat
}

# rps SERVER PATH -> "req/s server_us_per_request client_cpu_pct host_busy_pct"
# of one wrk run; fails (and says why) on any non-2xx answer or socket error.
# client_cpu_pct is wrk's user+sys over the run as a share of one CPU (its
# one thread): near 100, wrk is the limit and the servers tie.
rps() {
  local t0 t1 h0 h1 TIMEFORMAT='%U %S %R'
  t0=$(server_ticks)
  h0=$(cpu_jiffies)
  { time wrk -t1 -c"$CONNS" -d"$DUR" "http://127.0.0.1:$port$2" >"$tmp/wrk.out" 2>&1 || true; } 2>"$tmp/wrk.time"
  h1=$(cpu_jiffies)
  t1=$(server_ticks)
  awk -v srv="$1" -v path="$2" -v ticks=$((t1 - t0)) -v hz="$(getconf CLK_TCK)" \
    -v wrk_time="$(tail -1 "$tmp/wrk.time")" -v host="$h0 $h1" '
    / requests in / { n = $1 }
    /^Requests\/sec:/ { r = $2 }
    /Non-2xx or 3xx responses:/ { bad = $NF }
    /Socket errors:/ { sock = $0 }
    END {
      if (bad + 0 > 0) { print "httpd bench: FAIL: " srv " " path ": " bad " non-2xx answers" > "/dev/stderr"; exit 1 }
      if (sock != "") { print "httpd bench: FAIL: " srv " " path ":" sock > "/dev/stderr"; exit 1 }
      if (r == "") { print "httpd bench: FAIL: " srv " " path ": no Requests/sec from wrk" > "/dev/stderr"; exit 1 }
      split(wrk_time, w, " ")
      split(host, h, " ")
      printf "%s %.1f %.0f %.0f\n", r, (n > 0) ? ticks / hz * 1e6 / n : 0, \
        (w[3] > 0) ? 100 * (w[1] + w[2]) / w[3] : 0, (h[4] > h[2]) ? 100 * (h[3] - h[1]) / (h[4] - h[2]) : 0
    }' "$tmp/wrk.out"
}

# limit RPS US_PER_REQ PROCS -> what held the run back (see the legend).
limit() {
  awk -v r="$1" -v us="$2" -v p="$3" -v w="$wrk_pct" -v host="$host_pct" 'BEGIN {
    if (r * us / 1e6 / p >= 0.9) print "server"
    else if (w >= 90) print "client"
    else if (host >= 80) print "host"
    else print "-"
  }'
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

logs=off
[ "$LOG" = 1 ] && logs=on
echo "httpd vs nginx $("$NGINX" -v 2>&1 | sed 's/.*\///') (Debian's settings), access logs $logs," \
  "wrk -t1 -c$CONNS -d$DUR, median of $RUNS interleaved, $(nproc) CPUs (shared: noisy)"
printf '%-22s %10s %10s %6s %6s %-7s %8s %8s %6s %6s %-13s\n' case httpd_rps nginx_rps ratio goal "" \
  httpd_us nginx_us wrk_% host_% limit
failed=0
for procs in 1 2; do
  for f in small.bin large.bin; do
    : >"$tmp/httpd.rps"
    : >"$tmp/nginx.rps"
    bad=
    for r in $(seq "$RUNS"); do
      order="httpd nginx"
      [ $((r % 2)) = 1 ] || order="nginx httpd" # each goes first in turn
      for srv in $order; do
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
    wrk_pct=$(cut -d' ' -f3 "$tmp/httpd.rps" "$tmp/nginx.rps" | median)
    host_pct=$(cut -d' ' -f4 "$tmp/httpd.rps" "$tmp/nginx.rps" | median)
    ratio=$(awk -v h="$h" -v n="$n" 'BEGIN { printf "%.2f", (n > 0) ? h / n : 0 }')
    met=$(awk -v r="$ratio" -v g="${goal[$f]}" 'BEGIN { print (r >= g) ? "met" : "MISSED" }')
    printf '%-22s %10.0f %10.0f %6s %6s %-7s %8.1f %8.1f %6.0f %6.0f %-13s\n' "$f procs=$procs" "$h" "$n" \
      "$ratio" ">=${goal[$f]}" "$met" "$hc" "$nc" "$wrk_pct" "$host_pct" \
      "$(limit "$h" "$hc" "$procs")/$(limit "$n" "$nc" "$procs")"
  done
done
cat <<'EOF'
(httpd_us, nginx_us: the server's own CPU time per request, all its processes;
 wrk_%: wrk's CPU time as a share of its one thread; host_%: the whole host
 busy; limit, for httpd/nginx: "server" when its processes were busy 90% of
 their CPUs, else "client" when wrk was at 90% of its thread, else "host"
 when the host was 80% busy (wrk and the servers take turns on the CPUs),
 else "-".  Only a server/server row compares the servers' speed; in the
 others both sides wait for the same client or CPUs, and a tie is expected:
 the CPU per request is then what tells the servers apart.)
EOF
exit "$failed"
