#!/bin/bash
# bin/httpd against nginx (sendfile on, access_log off) on the same root,
# driven by wrk on loopback: a ~3 KB and a 200 KB file, keep-alive, with one
# process and with two (-N 2 / worker_processes 2).  Prints the median
# req/s of RUNS runs of DUR each and the ratio httpd/nginx.
#   env: DUR (5s) RUNS (3) CONNS (50) NGINX (/usr/sbin/nginx)
set -eu
cd "$(dirname "$0")/../.."
DUR=${DUR:-5s} RUNS=${RUNS:-3} CONNS=${CONNS:-50} NGINX=${NGINX:-/usr/sbin/nginx}
for c in wrk "$NGINX" python3; do
  command -v "$c" >/dev/null 2>&1 || { echo "httpd bench: needs $c (make deps)" >&2; exit 2; }
done
[ -x bin/httpd ] || { echo "httpd bench: build bin/httpd first (make)" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/httpd-bench.XXXXXX")
pid=
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

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
wait_port() {
  local i=0
  until (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; do
    i=$((i + 1))
    [ "$i" -le 200 ] || { echo "httpd bench: nothing on port $1" >&2; return 1; }
    sleep 0.05
  done
}

nginx_conf() { # nginx_conf PORT WORKERS
  cat >"$tmp/nginx/nginx.conf" <<CONF
worker_processes $2;
daemon off;
pid $tmp/nginx/nginx.pid;
error_log $tmp/nginx/error.log;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on;
  tcp_nopush off;
  keepalive_requests 1000;
  default_type application/octet-stream;
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
    bin/httpd -q -r "$tmp/root" -i 127.0.0.1 -p "$port" -N "$2" -t 30 2>"$tmp/httpd.err" &
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

rps() { # rps PATH -> req/s of one wrk run
  wrk -t1 -c"$CONNS" -d"$DUR" "http://127.0.0.1:$port$1" 2>&1 |
    awk '/^Requests\/sec:/ { print $2 } /Non-2xx/ { print "non-2xx answers" > "/dev/stderr"; exit 1 }'
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "httpd vs nginx $("$NGINX" -v 2>&1 | sed 's/.*\///'), wrk -t1 -c$CONNS -d$DUR, median of $RUNS, $(nproc) CPUs (shared: noisy)"
printf '%-22s %12s %12s %8s\n' case httpd_rps nginx_rps ratio
for procs in 1 2; do
  for f in small.bin large.bin; do
    : >"$tmp/httpd.rps"
    : >"$tmp/nginx.rps"
    for _ in $(seq "$RUNS"); do
      for srv in httpd nginx; do
        start "$srv" "$procs"
        rps "/$f" >>"$tmp/$srv.rps"
        stop
      done
    done
    h=$(median <"$tmp/httpd.rps")
    n=$(median <"$tmp/nginx.rps")
    printf '%-22s %12.0f %12.0f %8.2f\n' "$f procs=$procs" "$h" "$n" "$(awk -v h="$h" -v n="$n" 'BEGIN { print (n > 0) ? h / n : 0 }')"
  done
done
