# shellcheck shell=bash disable=SC2034
# harness/common/serve.sh: serving the dataset: httpd in its own group, the
# source URL, the addresses and the checks of a serving phase.


# serve_cpus : CLIENT_BIND and SERVER_BIND, the words that start the local
# replay client and the server (httpd, tcpserver and its children) on CPUs
# of their own (CLIENT_CPUS), and CLIENT_CPU_LIST / SERVER_CPU_LIST (empty:
# not bound).  none (the default): the scheduler places both, where it may
# put them on one CPU for one trial and on two for the next; auto: the last
# CPU online for the client, the others for the server, on 2 CPUs or more
# (one: both share it, unbound); a list (0 or 2-3,5): the client's CPUs, the server
# gets the rest.  Nothing is bound with REPLAY_FROM (the client is on
# another host) or where the system cannot bind (auto; a list is refused).
# Called before phase_begin: a refusal writes no trial.
serve_cpus() {
  [ -z "${serve_cpus_done:-}" ] || return 0
  serve_cpus_done=1 CLIENT_BIND=() SERVER_BIND=() CLIENT_CPU_LIST='' SERVER_CPU_LIST=''
  local want=${CLIENT_CPUS:-none} binder online=() client=() server=() c r lo hi
  [ "$want" != none ] && [ -z "${REPLAY_FROM:-}" ] || return 0
  mapfile -t online < <(os_cpus_online)
  if ! binder=$(os_cpu_binder); then
    [ "$want" = auto ] && return 0
    settings_refuse "CLIENT_CPUS=$want: $(uname -s) has no command that binds a process to CPUs: use CLIENT_CPUS=none"
  fi
  if [ "$want" = auto ]; then
    [ "${#online[@]}" -ge 2 ] || return 0
    want=${online[${#online[@]} - 1]}
  fi
  for r in ${want//,/ }; do
    case $r in
      *[!0-9-]* | -* | *- | *-*-*) settings_refuse "CLIENT_CPUS=$want: want auto, none or a list of CPUs like 0 or 2-3,5" ;;
      *-*) lo=${r%-*} hi=${r#*-} ;;
      *) lo=$r hi=$r ;;
    esac
    [ "$lo" -le "$hi" ] || settings_refuse "CLIENT_CPUS=$want: $r is not a range from low to high"
    for ((c = lo; c <= hi; c++)); do
      case " ${online[*]} " in *" $c "*) client+=("$c") ;;
        *) settings_refuse "CLIENT_CPUS=$want: CPU $c is not online (online: ${online[*]})" ;;
      esac
    done
  done
  for c in "${online[@]}"; do
    case " ${client[*]} " in *" $c "*) ;; *) server+=("$c") ;; esac
  done
  [ "${#server[@]}" -gt 0 ] || settings_refuse "CLIENT_CPUS=$want: leaves the server no CPU (online: ${online[*]}): name fewer, or none"
  CLIENT_CPU_LIST=$(IFS=,; echo "${client[*]}") SERVER_CPU_LIST=$(IFS=,; echo "${server[*]}")
  read -r -a CLIENT_BIND <<<"$binder"
  read -r -a SERVER_BIND <<<"$binder"
  CLIENT_BIND+=("$CLIENT_CPU_LIST") SERVER_BIND+=("$SERVER_CPU_LIST")
}

# serve_httpd ROOT PROCS [ADDR] : bin/httpd -q -N PROCS on a free port (or
# PORT), in its own group; with SERVE_REUSEPORT=1, --reuseport (a listening
# socket per process instead of the one they share).  Sets HTTPD_PORT and HTTPD_GROUP.  An IPv6 ADDR
# is probed at ::1 (a wildcard ::) or at itself.  PROCS `fork`: TCPSERVER
# (tcpserver; at most FORK_CONC connections) forks bin/httpd -1 -q for each one, under
# harness/fork-server.sh, which writes the CPU figures and, with FORKLAT=1,
# the sum of the httpd -1 processes' --stats-append blocks (their latency
# histograms; off by default for their cost, docs/latency.md).
serve_httpd() {
  local root=$1 procs=$2 addr=${3:-127.0.0.1} try probe=127.0.0.1 sock=() each append
  [ "${SERVE_REUSEPORT:-0}" != 1 ] || sock=(--reuseport)
  case $addr in :: | '[::]') probe=::1 ;; *:*) probe=$addr ;; esac
  proc_need httpd
  serve_cpus
  [ "$procs" != fork ] || serve_forklat_note
  # a fixed PORT another process listens on at ADDR would answer the port
  # check for an httpd that could not bind it: the preflight refused that
  # before any trial; this is for a listener that came after it
  if [ -n "${PORT:-}" ] && port_busy "$PORT" "$probe"; then
    harness_die "port $PORT is in use at $probe: stop what listens there, or leave PORT unset to pick a free one"
  fi
  for try in 1 2 3; do
    HTTPD_PORT=${PORT:-$(free_port_at "$probe")}
    HTTPD_RUNS=$((${HTTPD_RUNS:-0} + 1))
    HTTPD_STATS=$WORK/httpd-$HTTPD_RUNS.stats
    printf '%s\thttpd\t%s\t%s\n' "$CUR_PHASE" "$HTTPD_STATS" "$CUR_TRIAL" >>"$WORK/tool-cpu.tsv"
    if [ "$procs" = fork ]; then
      # FORKLAT=1: every httpd -1 appends its histograms, fork-server.sh sums them
      each=() append=()
      [ "${FORKLAT:-0}" != 1 ] || each=(-a "$HTTPD_STATS.each") append=(--stats-append "$HTTPD_STATS.each")
      proc_start HTTPD_GROUP "${SERVER_BIND[@]}" "$HARNESS/fork-server.sh" "${each[@]}" "$HTTPD_STATS" \
        "${TCPSERVER:-tcpserver}" -R -H -l 0 -D -b 1024 -c "${FORK_CONC:-100}" "$addr" "$HTTPD_PORT" \
        "$HARNESS_BIN/httpd" -1 -q -r "$root" "${append[@]}"
    else
      proc_start HTTPD_GROUP "${SERVER_BIND[@]}" "$HARNESS_BIN/httpd" -q -N "$procs" "${sock[@]}" -r "$root" -i "$addr" \
        -p "$HTTPD_PORT" --stats "$HTTPD_STATS"
    fi
    serve_wait_port "$HTTPD_PORT" "$HTTPD_GROUP" "$probe" && return 0
    proc_stop "$HTTPD_GROUP"
    [ -z "${PORT:-}" ] || break
    harness_say "httpd did not come up on port $HTTPD_PORT (try $try)"
  done
  harness_die "httpd -N $procs -r $root did not listen on port $HTTPD_PORT: see $PHASE_LOG"
}

# serve_forklat_note : meta.json's forklat is what this fork server does
# (FORKLAT=1: on, else off); meta.sh wrote it at the run's first phase,
# which may have had another FORKLAT than the serve phase.
serve_forklat_note() {
  local v=off
  [ "${FORKLAT:-0}" != 1 ] || v=on
  phase_meta_set forklat "$v" || harness_die "cannot write forklat into $RUN_DIR/meta.json"
}

# serve_wait_port PORT PID [ADDR] : until ADDR (127.0.0.1):PORT answers (10
# s), failing if PID has died (then or before).
serve_wait_port() {
  # 10 ms steps: a server starts for every trial of every variant's turns
  POLL_STEP=0.01 poll_until 10 serve_up_or_dead "$@" || return 1
  port_busy "$1" "${3:-127.0.0.1}" && ! pid_gone "$2"
}

# serve_ran_through : the trial's httpd is still running, before its figures
# are recorded.  One that exited (it could not listen: another process took
# HTTPD_PORT between free_port's look and its bind, and answered the port
# check; it crashed) did not answer the replay, whatever did, and the
# figure is not this variant's: the phase fails, saying so.
serve_ran_through() {
  pid_gone "$HTTPD_GROUP" || return 0
  harness_die "httpd (port $HTTPD_PORT) was gone before the trial's end: the replay's answers were not its own (see $PHASE_LOG)"
}

# serve_up_or_dead PORT PID [ADDR] : ADDR:PORT answers, or PID has died.
serve_up_or_dead() {
  port_busy "$1" "${3:-127.0.0.1}" || ! kill -0 "$2" 2>/dev/null
}

# serve_source_url : SOURCE, or a local httpd serving the dataset on loopback.
serve_source_url() {
  if [ -n "$SOURCE" ]; then
    SRC_URL=${SOURCE%/}
  else
    serve_httpd "$DS" 1
    SRC_URL=http://127.0.0.1:$HTTPD_PORT
    SOURCE_GROUP=$HTTPD_GROUP
  fi
}

# serve_addr : where httpd listens and the address replay connects to.
serve_addr() {
  if [ -z "$REPLAY_FROM" ]; then
    BIND_ADDR=127.0.0.1 CONNECT_ADDR=127.0.0.1
  else
    BIND_ADDR=${SERVE_BIND:-0.0.0.0}
    CONNECT_ADDR=${SERVE_HOST:-$(os_host_addr)}
    [ -n "$CONNECT_ADDR" ] || harness_die "cannot tell the address REPLAY_FROM=$REPLAY_FROM should connect to: set SERVE_HOST"
  fi
}

# serve_update_first : before phase_begin of a phase that replays the
# request list (serve, preload): the list names files of the update
# tarball, so when TARGET/data holds the harness's extraction of the first
# tarball only (phase untar ran, untar2 not: its mark, target_updated),
# phase untar2 runs first, as the phase of its own it is in the method (its
# trial, records, failure; under harness/rounds.sh, where every variant's
# phase starts at once, it is refused instead).  `make phase-untar
# phase-serve phase-delete` is then the method's whole cycle.  A refused
# TARGET is left to phase_begin.
serve_update_first() {
  target_guard 2>/dev/null || return 0
  DATA=$TARGET/data
  if [ -d "$DATA" ] && target_owned && ! target_empty && ! target_updated; then
    # under harness/rounds.sh every variant starts at once: untar2 would be
    # measured while the others start too
    ! turn_active || settings_refuse "$DATA holds the first tarball only (the request list names files of the update tarball): run phase-untar2 before harness/rounds.sh"
    printf '%s: %s holds the first tarball only (the request list names files of the update tarball): running phase-untar2 first\n' \
      "$(basename "$0" .sh)" "$DATA" >&2
    "$HARNESS/phase-untar.sh" untar2 || exit $?
  fi
}

# serve_prepare MAXCONC : after phase_begin, what every phase that serves the
# dataset and replays its request list checks and sets first: an extraction
# of the harness in DATA, root for a drop or remount flush, open files for
# MAXCONC connections, the port, the tools, the addresses and REPLAY_ARGS.
serve_prepare() {
  data_ensure
  if ! target_owned || target_empty; then
    phase_refuse "$DATA holds no extraction of the harness: run make phase-untar first"
  fi
  case $FLUSH in drop | remount) preflight_root "FLUSH=$FLUSH" ;; esac
  preflight_nofile $(($1 + 256))
  preflight_port
  preflight_done
  proc_need httpd replay
  serve_addr
  replay_list_args
}
