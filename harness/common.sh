# shellcheck shell=bash disable=SC2034
# harness/common.sh: the frame every phase script runs in (sourced after
# lib.sh): settings and their defaults, the safety checks on TARGET, the
# dataset, starting and stopping children in their own process groups, the
# sampler, and recording a failed phase.
#
# A phase script does:
#   . harness/lib.sh; . harness/common.sh
#   phase_begin NAME [RECORD-NAMES...]   (checks, trial number, traps, meta.json)
#   ... run_tool / start_group / start_sampler ...
#   phase_end                           (records status 0)
# Any failure (a tool's non-zero exit, fail MESSAGE, a signal) records
# "NAME TRIAL status 1 exit" and the error line in failures.tsv, stops every
# child (whole process groups), and exits non-zero.

HARNESS=$SHOOTOUT_ROOT/harness
HARNESS_BIN=${HARNESS_BIN:-$SHOOTOUT_ROOT/bin}
DATASET=${DATASET:-small}
SEED=${SEED:-1}
SOURCE=${SOURCE:-}
FLUSH=${FLUSH:-drop}
TRIALS=${TRIALS:-1}
SERVE_PROCS=${SERVE_PROCS:-1 32}
REPLAY_CONC=${REPLAY_CONC:-100}
REPLAY_KEEPALIVE=${REPLAY_KEEPALIVE:-10}
REPLAY_COUNT=${REPLAY_COUNT:-10000}
PRELOAD=${PRELOAD:-}
REPLAY_FROM=${REPLAY_FROM:-}
ALLOW_NONMOUNT=${ALLOW_NONMOUNT:-0}
DATASETS_OUT=${DATASETS_OUT:-$SHOOTOUT_ROOT/datasets/out}
export SHOOTOUT_ROOT RESULTS HOST VARIANT

# Where we are: the phase's name and trial, the children to stop.
CUR_PHASE='' CUR_TRIAL='' PHASE_DONE=0 FAIL_MSG=''
GROUPS_RUNNING=() TOOL_PID='' WORK=''
# Names of functions on_exit calls (after the children have stopped).
PHASE_CLEANUP=''
ssh=()

# say MESSAGE : a progress note on stderr when it is a terminal.
say() {
  [ -t 2 ] && printf '%s: %s\n' "${CUR_PHASE:-harness}" "$*" >&2
  return 0
}

# fail MESSAGE : the phase fails with this error line.
fail() {
  FAIL_MSG=$*
  exit 1
}

# ---- TARGET --------------------------------------------------------------

# check_target : TARGET passes harness/target-guard.sh (the one guard of
# every entry point: a mount point, or a directory and ALLOW_NONMOUNT=1; never
# / or a system directory).  Sets TARGET (absolute) and DATA=TARGET/data.
check_target() {
  target_guard || fail "$TARGET_REFUSAL"
  DATA=$TARGET/data
  export TARGET DATA ALLOW_NONMOUNT
}

# data_owned : TARGET/data carries the harness's mark.
data_owned() {
  [ -f "$DATA/.shootout-owned" ]
}

# claim_data : make TARGET/data (or take an empty one) and mark it ours.
claim_data() {
  if [ -d "$DATA" ] && ! data_owned; then
    [ -z "$(ls -A "$DATA")" ] ||
      fail "$DATA exists and is not the harness's (no .shootout-owned mark): move it away or name another TARGET"
  fi
  mkdir -p "$DATA" || fail "cannot create $DATA"
  data_owned || printf 'made by the untar-serve shootout harness; phase-delete removes this tree\n' \
    >"$DATA/.shootout-owned" || fail "cannot write $DATA/.shootout-owned"
}

# data_empty : TARGET/data holds nothing but our mark and dot-files.
data_empty() {
  [ -z "$(find "$DATA" -mindepth 1 -maxdepth 1 ! -name '.*' -print -quit 2>/dev/null)" ]
}

# ---- dataset -------------------------------------------------------------

# ensure_dataset : DS=datasets/out/<DATASET>-<SEED>, made with bin/mkdataset
# if it is not there yet (into a temporary directory, renamed when complete).
ensure_dataset() {
  DS=$DATASETS_OUT/$DATASET-$SEED
  MANIFEST=$DS/manifest.tsv
  REQUESTS=$DS/requests.txt
  [ -s "$MANIFEST" ] && [ -s "$DS/layout.tar.gz" ] && return 0
  local profile=$SHOOTOUT_ROOT/datasets/$DATASET.profile tmp
  if [ ! -f "$profile" ]; then
    local names='' p
    for p in "$SHOOTOUT_ROOT"/datasets/*.profile; do
      [ -f "$p" ] || continue
      p=${p##*/} names="$names${p%.profile} "
    done
    fail "unknown DATASET=$DATASET: use one of $names(datasets/*.profile)"
  fi
  need_tool mkdataset
  mkdir -p "$DATASETS_OUT" || fail "cannot create $DATASETS_OUT"
  tmp=$DATASETS_OUT/.$DATASET-$SEED.tmp.$$
  say "generating dataset $DATASET seed $SEED into $DS"
  run_tool mkdataset "$HARNESS_BIN/mkdataset" -p "$profile" -s "$SEED" -o "$tmp"
  # A rename, unless another run made DS meanwhile (then plain mv would move
  # tmp into it: that copy is removed again).
  if [ -e "$DS" ] || ! mv "$tmp" "$DS" 2>/dev/null; then
    rm -rf "$tmp"
    [ -s "$MANIFEST" ] || fail "cannot move the new dataset to $DS"
  fi
  rm -rf "${DS:?}/${tmp##*/}"
  # meta.json was written at phase_begin, before the dataset existed: give
  # it the dataset's figures now (only that key, only when it is empty).
  local meta=${RUN_DIR:-}/meta.json info
  if [ -n "${RUN_DIR:-}" ] && [ -s "$meta" ] && [ "$(jq -c .dataset_info "$meta")" = '{}' ]; then
    if ! info=$(DATASET=$DATASET SEED=$SEED DATASETS_OUT=$DATASETS_OUT "$HARNESS/meta.sh" --dataset-info) ||
      ! jq --argjson i "$info" '.dataset_info = $i' "$meta" >"$meta.tmp" || ! mv -f "$meta.tmp" "$meta"; then
      fail "cannot add the dataset's figures to $meta"
    fi
  fi
}

# manifest_totals : sets DS_FILES and DS_BYTES (the final tree) from the manifest.
manifest_totals() {
  read -r DS_FILES DS_BYTES DS_BLOCKS < <(awk -F '\t' '!/^#/ && NF >= 2 { n++; b += $2; k += int(($2 + 4095) / 4096) }
    END { printf "%.0f %.0f %.0f\n", n, b, k }' "$MANIFEST")
}

# dataset_value KEY : a value of dataset.txt (empty when absent).
dataset_value() {
  [ -r "$DS/dataset.txt" ] || return 0
  awk -F '\t' -v k="$1" '$1 == k { print $2; exit }' "$DS/dataset.txt"
}

# ---- tools and children --------------------------------------------------

need_tool() {
  local t
  for t in "$@"; do
    [ -x "$HARNESS_BIN/$t" ] || fail "$HARNESS_BIN/$t is missing: run 'make' first"
  done
}

# run_tool NAME CMD... : run CMD in the foreground but interruptibly (a signal
# reaches our trap at once and the trap stops it); its output goes to the
# phase log; a non-zero exit fails the phase with its last error line, except
# the exit statuses listed in TOOL_OK (sets TOOL_RC).
run_tool() {
  local name=$1 rc=0 err
  shift
  err=$WORK/$name.err
  printf '$ %s\n' "$*" >>"$PHASE_LOG"
  "$@" >>"$PHASE_LOG" 2>"$err" &
  TOOL_PID=$!
  wait "$TOOL_PID" || rc=$?
  TOOL_PID=''
  cat "$err" >>"$PHASE_LOG"
  TOOL_RC=$rc
  note_tool_cpu "$name" "$@"
  case " ${TOOL_OK:-} " in *" $rc "*) return 0 ;; esac
  if [ "$rc" -ne 0 ]; then
    sed 's/^/  /' "$err" | tail -n 5 >&2
    fail "$name exited $rc: $(grep -v '^[[:space:]]*$' "$err" | tail -n 1)"
  fi
}

# start_group VAR CMD... : start CMD in a new session (its own process group,
# so that it and every process it forks can be stopped together); the group
# id goes into VAR.  Its output goes to the phase log (with KEEP_STDERR=1 its
# stderr stays on the terminal, if that is one).
start_group() {
  local var=$1
  shift
  if [ "${KEEP_STDERR:-0}" = 1 ] && [ -t 2 ]; then
    os_setsid "$@" </dev/null >>"$PHASE_LOG" &
  else
    os_setsid "$@" </dev/null >>"$PHASE_LOG" 2>&1 &
  fi
  printf -v "$var" '%s' "$!"
  GROUPS_RUNNING+=("$!")
}

# await_gone PID|-PGID : until no such process is left (bash reaps its
# children as they exit), KILL after 10 s, give up after 20 s.  Cleanup never
# calls `wait PID`: if a signal interrupted an earlier wait, bash may have
# reaped PID without noting it, and `wait PID` then blocks until every other
# child (httpd, the sampler) has exited, which never happens.
await_gone() {
  local i=0
  while kill -0 -- "$1" 2>/dev/null; do
    i=$((i + 1))
    if [ "$i" -eq 200 ]; then kill -KILL -- "$1" 2>/dev/null || true; fi
    [ "$i" -lt 400 ] || return 1
    sleep 0.05
  done
}

# stop_group PGID : TERM the group's leader and give it 2 s to finish (the
# sampler takes its last sample), then TERM the whole group and wait until
# every process of it has gone (KILL after 10 s).
stop_group() {
  local g=$1 i=0 keep=()
  [ -n "$g" ] || return 0
  kill -TERM "$g" 2>/dev/null || true
  while kill -0 "$g" 2>/dev/null && [ "$i" -lt 40 ]; do
    i=$((i + 1))
    sleep 0.05
  done
  kill -TERM -- "-$g" 2>/dev/null || true
  await_gone "-$g" || say "process group $g did not end even after SIGKILL"
  for i in "${GROUPS_RUNNING[@]}"; do [ "$i" = "$g" ] || keep+=("$i"); done
  GROUPS_RUNNING=("${keep[@]}")
}

# stop_children : every group we started and the foreground tool.
stop_children() {
  local g
  if [ -n "$TOOL_PID" ]; then
    kill -TERM "$TOOL_PID" 2>/dev/null || true
    await_gone "$TOOL_PID" || say "$TOOL_PID did not end even after SIGKILL"
    TOOL_PID=''
  fi
  for g in "${GROUPS_RUNNING[@]}"; do stop_group "$g"; done
  GROUPS_RUNNING=()
}

# free_port : a TCP port on 127.0.0.1 that nobody listens on (below the
# usual ephemeral range; start_httpd tries again if it was taken meanwhile).
free_port() {
  local p i
  for i in 1 2 3 4 5 6 7 8 9 10; do
    p=$((20000 + (RANDOM * 32768 + RANDOM) % 12000))
    port_busy "$p" || { printf '%s\n' "$p"; return 0; }
  done
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# port_busy PORT [ADDR] : something listens on ADDR (127.0.0.1):PORT.
port_busy() {
  (exec 3<>"/dev/tcp/${2:-127.0.0.1}/$1") 2>/dev/null
}

# wait_port PORT PID [ADDR] : until ADDR:PORT answers (10 s), failing if PID
# has died.
wait_port() {
  local i=0
  until port_busy "$1" "${3:-127.0.0.1}"; do
    kill -0 "$2" 2>/dev/null || return 1
    i=$((i + 1))
    [ "$i" -lt 200 ] || return 1
    sleep 0.05
  done
}

# start_httpd ROOT PROCS [ADDR] : bin/httpd -q -N PROCS on a free port (or
# PORT), in its own group.  Sets HTTPD_PORT and HTTPD_GROUP.  An IPv6 ADDR
# is probed at ::1 (a wildcard ::) or at itself.  PROCS `fork`: TCPSERVER
# (tcpserver; at most FORK_CONC connections) forks bin/httpd -1 -q for each one, under
# harness/fork-server.sh, which writes the CPU figures.
start_httpd() {
  local root=$1 procs=$2 addr=${3:-127.0.0.1} try probe=127.0.0.1
  case $addr in :: | '[::]') probe=::1 ;; *:*) probe=$addr ;; esac
  need_tool httpd
  for try in 1 2 3; do
    HTTPD_PORT=${PORT:-$(free_port)}
    HTTPD_RUNS=$((${HTTPD_RUNS:-0} + 1))
    HTTPD_STATS=$WORK/httpd-$HTTPD_RUNS.stats
    printf '%s\thttpd\t%s\n' "$CUR_PHASE" "$HTTPD_STATS" >>"$WORK/tool-cpu.tsv"
    if [ "$procs" = fork ]; then
      start_group HTTPD_GROUP "$HARNESS/fork-server.sh" "$HTTPD_STATS" "${TCPSERVER:-tcpserver}" -R -H -l 0 -D -b 1024 \
        -c "${FORK_CONC:-100}" "$addr" "$HTTPD_PORT" "$HARNESS_BIN/httpd" -1 -q -r "$root"
    else
      start_group HTTPD_GROUP "$HARNESS_BIN/httpd" -q -N "$procs" -r "$root" -i "$addr" -p "$HTTPD_PORT" \
        --stats "$HTTPD_STATS"
    fi
    wait_port "$HTTPD_PORT" "$HTTPD_GROUP" "$probe" && return 0
    stop_group "$HTTPD_GROUP"
    [ -z "${PORT:-}" ] || break
    say "httpd did not come up on port $HTTPD_PORT (try $try)"
  done
  fail "httpd -N $procs -r $root did not listen on port $HTTPD_PORT: see $PHASE_LOG"
}

# source_url : SOURCE, or a local httpd serving the dataset on loopback.
source_url() {
  if [ -n "$SOURCE" ]; then
    SRC_URL=${SOURCE%/}
  else
    start_httpd "$DS" 1
    SRC_URL=http://127.0.0.1:$HTTPD_PORT
    SOURCE_GROUP=$HTTPD_GROUP
  fi
}

# ---- sampler -------------------------------------------------------------

# start_sampler NAME [SAMPLER-OPTIONS...] : the per-second series of phase
# NAME (trial CUR_TRIAL) while it runs; stop it with stop_sampler.
start_sampler() {
  local name=$1 out i=0
  shift
  out=$(series_file "$name" "$CUR_TRIAL")
  KEEP_STDERR=1 start_group SAMPLER_GROUP "$HARNESS/sampler.sh" -o "$out" \
    -t "$TARGET" -p "$$" -L "$name" "$@"
  # Until it has opened its series (then a stop still gets its last
  # sample): a phase of a few milliseconds would stop it while it starts.
  while [ ! -e "$out" ] && [ "$i" -lt 500 ] && kill -0 "$SAMPLER_GROUP" 2>/dev/null; do
    sleep 0.01
    i=$((i + 1))
  done
}

stop_sampler() {
  stop_group "${SAMPLER_GROUP:-}"
  SAMPLER_GROUP=''
}

# ---- the phase frame -----------------------------------------------------

on_signal() {
  FAIL_MSG="interrupted by SIG$1"
  trap - "$1"
  case $1 in INT) exit 130 ;; HUP) exit 129 ;; *) exit 143 ;; esac
}

on_exit() {
  local rc=$?
  set +e
  trap '' INT TERM HUP PIPE
  stop_children
  for c in $PHASE_CLEANUP; do "$c"; done
  [ -z "$CUR_TRIAL" ] || record_tool_cpu
  if [ "$rc" -ne 0 ] && [ -n "$CUR_TRIAL" ] && [ "$PHASE_DONE" = 0 ]; then
    FAIL_MSG=${FAIL_MSG:-exit status $rc}
    record_failure "$CUR_PHASE" "$CUR_TRIAL" "$FAIL_MSG"
    printf '%s: %s\n' "${CUR_PHASE:-harness}" "$FAIL_MSG" >&2
  elif [ "$rc" -ne 0 ] && [ -n "$FAIL_MSG" ]; then
    printf '%s: %s\n' "${CUR_PHASE:-harness}" "$FAIL_MSG" >&2
  fi
  [ -z "$WORK" ] || rm -rf "$WORK"
  exit "$rc"
}

# phase_begin NAME [RECORD-NAMES...] : checks TARGET, picks the trial (TRIAL,
# or one more than the highest of RECORD-NAMES, default NAME), installs the
# traps, writes meta.json if this run has none yet.  CUR_PHASE is NAME: the
# record name a failure is filed under (phase scripts move it along).
phase_begin() {
  CUR_PHASE=$1
  shift
  trap on_exit EXIT
  trap 'on_signal INT' INT
  trap 'on_signal TERM' TERM
  trap 'on_signal HUP' HUP
  cd "$SHOOTOUT_ROOT" || fail "cannot cd to $SHOOTOUT_ROOT"
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/shootout-$CUR_PHASE.XXXXXX") || fail "cannot make a temporary directory"
  PHASE_LOG=$WORK/early.log
  check_target
  local names=("$@")
  [ ${#names[@]} -gt 0 ] || names=("$CUR_PHASE")
  if [ -n "${TRIAL:-}" ]; then
    case $TRIAL in '' | *[!0-9]*) fail "TRIAL=$TRIAL is not a number" ;; esac
    [ "$(next_trial "${names[@]}")" -le "$TRIAL" ] ||
      fail "trial $TRIAL of ${names[0]} is already recorded in run $(run_id): leave TRIAL unset"
    CUR_TRIAL=$TRIAL
  else
    CUR_TRIAL=$(next_trial "${names[@]}")
  fi
  RUN_DIR=$(run_dir)
  mkdir -p "$RUN_DIR/logs"
  PHASE_LOG=$RUN_DIR/logs/$CUR_PHASE-$CUR_TRIAL.log
  [ -s "$RUN_DIR/meta.json" ] || "$HARNESS/meta.sh" "$RUN_DIR/meta.json" >>"$PHASE_LOG" 2>&1 ||
    fail "cannot write $RUN_DIR/meta.json: see $PHASE_LOG"
  warn_on_target
  say "run $(run_id), trial $CUR_TRIAL"
}

# warn_on_target : the harness's own writes (RESULTS: records, logs,
# series) or the dataset on TARGET's filesystem or disk (meta.json's
# results_on_target, dataset_on_target) disturb what is measured there, a
# read-only phase's above all: a warning on stderr and in the phase's log
# every phase, or a refusal with OFF_TARGET=1.
warn_on_target() {
  local w m
  w=$(jq -r '[(if .results_on_target then "RESULTS (\(.results_shares))" else empty end),
    (if .dataset_on_target then "the dataset (\(.dataset_shares))" else empty end)] | join(" and ")' \
    "$RUN_DIR/meta.json" 2>/dev/null) || return 0
  [ -n "$w" ] || return 0
  m="$w on TARGET's device: the harness's writes land where $TARGET is measured (put RESULTS and DATASETS_OUT on another disk)"
  [ "${OFF_TARGET:-0}" != 1 ] || fail "$m; OFF_TARGET=1 refuses this"
  printf 'WARNING: %s\n' "$m" | tee -a "$PHASE_LOG" >&2
}

# phase_end [RECORD-NAME] : the phase succeeded; note the boot id (for the
# reboot check of a later FLUSH=reboot).
phase_end() {
  record "${1:-$CUR_PHASE}" "$CUR_TRIAL" status 0 exit
  note_boot_id
  PHASE_DONE=1
}

# note_boot_id : append "phase trial boot_id" to the run's boot_ids.tsv.
note_boot_id() {
  local b
  b=$(os_boot_id 2>/dev/null) || return 0
  printf '%s\t%s\t%s\n' "$CUR_PHASE" "$CUR_TRIAL" "$b" >>"$(run_dir)/boot_ids.tsv"
}

# shellcheck source=SCRIPTDIR/preflight.sh
. "$HARNESS/preflight.sh"
# shellcheck source=SCRIPTDIR/target-guard.sh
. "$HARNESS/target-guard.sh"

# now_s : seconds since the epoch with microseconds; since T0 : seconds since T0.
now_s() {
  printf '%s\n' "$EPOCHREALTIME"
}
since() {
  awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f\n", b - a }'
}

# record_rates NAME STATS : MB/s and files/s from a tool's bytes, files, wall_s
# (unless the tool wrote them itself).
record_rates() {
  local wall bytes files
  wall=$(stat_value "$2" wall_s) bytes=$(stat_value "$2" bytes) files=$(stat_value "$2" files)
  [ -n "$wall" ] || return 0
  if [ -n "$bytes" ] && [ -z "$(stat_value "$2" mbps)" ]; then
    record "$1" "$CUR_TRIAL" mbps "$(calc "$bytes / $wall / 1e6")" MB/s
  fi
  if [ -n "$files" ] && [ -z "$(stat_value "$2" files_per_s)" ]; then
    record "$1" "$CUR_TRIAL" files_per_s "$(calc "$files / $wall")" files/s
  fi
}

# ---- replay --------------------------------------------------------------

# replay_run NAME HOST:PORT REPLAY-ARGS... : bin/replay with --stats and
# --series into WORK/NAME.{stats,series}, here or on REPLAY_FROM over ssh
# (SSH, default "ssh -o BatchMode=yes"; REPLAY_BIN the binary there, default
# this checkout's path).  Files named in the arguments as @FILE are copied to
# the remote host first.  The sampler of NAME runs meanwhile.
replay_run() {
  local name=$1 addr=$2 a args=() rargs=() rdir
  shift 2
  for a in "$@"; do
    case $a in @*) args+=("${a#@}") ;; *) args+=("$a") ;; esac
  done
  if [ -z "$REPLAY_FROM" ]; then
    start_sampler "$name" -s "$WORK/$name.series" -d ${SAMPLER_TOTAL:+-R "$SAMPLER_TOTAL"}
    TOOL_OK=1 run_tool replay "$HARNESS_BIN/replay" "${args[@]}" --stats "$WORK/$name.stats" --series "$WORK/$name.series" "$addr"
    stop_sampler
    replay_check "$name"
    return 0
  fi
  read -r -a ssh <<<"${SSH:-ssh -o BatchMode=yes}"
  if [ -z "${REMOTE_DIR:-}" ]; then
    REMOTE_DIR=$("${ssh[@]}" "$REPLAY_FROM" mktemp -d /tmp/shootout-replay.XXXXXX) ||
      fail "cannot reach REPLAY_FROM=$REPLAY_FROM over ssh: check '${ssh[*]} $REPLAY_FROM true' works without a password"
    PHASE_CLEANUP+=" remote_cleanup"
  fi
  rdir=$REMOTE_DIR
  for a in "$@"; do
    case $a in
      @*)
        [ -e "$WORK/sent-$(basename "$a")" ] ||
          "${ssh[@]}" "$REPLAY_FROM" "cat > $rdir/$(basename "$a")" <"${a#@}" ||
          fail "cannot copy ${a#@} to $REPLAY_FROM:$rdir"
        : >"$WORK/sent-$(basename "$a")"
        rargs+=("$rdir/$(basename "$a")")
        ;;
      *) rargs+=("$(printf '%q' "$a")") ;;
    esac
  done
  start_sampler "$name" -m none
  TOOL_OK=1 run_tool replay "${ssh[@]}" "$REPLAY_FROM" "$(printf '%q' "${REPLAY_BIN:-$HARNESS_BIN/replay}")" "${rargs[@]}" \
    --stats "$rdir/$name.stats" --series "$rdir/$name.series" "$addr"
  stop_sampler
  "${ssh[@]}" "$REPLAY_FROM" "cat $rdir/$name.stats" >"$WORK/$name.stats" ||
    fail "cannot fetch the replay figures from $REPLAY_FROM:$rdir"
  "${ssh[@]}" "$REPLAY_FROM" "cat $rdir/$name.series" >"$WORK/$name.series" 2>/dev/null || true
  replay_check "$name"
}

# replay_check NAME : replay exits 1 when some requests failed; that is a
# figure of the run (recorded as "failed"), not a failed phase, as long as
# it wrote its figures.  No figures, or nothing answered: the phase fails.
replay_check() {
  [ "$TOOL_RC" -eq 0 ] && return 0
  local answered
  answered=$(stat_value "$WORK/$1.stats" requests 2>/dev/null)
  [ "${answered:-0}" != 0 ] ||
    fail "replay exited $TOOL_RC without answers: $(grep -v '^[[:space:]]*$' "$WORK/replay.err" 2>/dev/null | tail -n 1)"
  printf '%s: warning: %s of %s requests failed (see %s)\n' "$1" "$(stat_value "$WORK/$1.stats" failed)" "$answered" "$PHASE_LOG" >&2
}

# replay_list_args : the replay options of a replay of the dataset's request
# list into REPLAY_ARGS: -u @requests.txt -M @manifest.tsv, and -n
# REPLAY_COUNT (its first N lines; 0 = the whole list).  REPLAY_TOTAL is the
# number of requests that makes.
replay_list_args() {
  local lines
  case $REPLAY_COUNT in '' | *[!0-9]*) fail "REPLAY_COUNT=$REPLAY_COUNT: want a number of requests (0 = the whole list)" ;; esac
  lines=$(grep -c . "$REQUESTS") || true
  REPLAY_ARGS=(-u "@$REQUESTS" -M "@$MANIFEST")
  REPLAY_TOTAL=$lines
  if [ "$REPLAY_COUNT" -gt 0 ]; then
    REPLAY_ARGS+=(-n "$REPLAY_COUNT")
    [ "$REPLAY_COUNT" -ge "$lines" ] || REPLAY_TOTAL=$REPLAY_COUNT
  fi
}

# remote_cleanup : remove the replay's directory on REPLAY_FROM.
remote_cleanup() {
  "${ssh[@]}" "$REPLAY_FROM" rm -rf "$REMOTE_DIR" || true
}

# serve_addr : where httpd listens and the address replay connects to.
serve_addr() {
  if [ -z "$REPLAY_FROM" ]; then
    BIND_ADDR=127.0.0.1 CONNECT_ADDR=127.0.0.1
  else
    BIND_ADDR=${SERVE_BIND:-0.0.0.0}
    CONNECT_ADDR=${SERVE_HOST:-$(os_host_addr)}
    [ -n "$CONNECT_ADDR" ] || fail "cannot tell the address REPLAY_FROM=$REPLAY_FROM should connect to: set SERVE_HOST"
  fi
}

# serve_prepare MAXCONC : after phase_begin, what every phase that serves the
# dataset and replays its request list checks and sets first: an extraction
# of the harness in DATA, root for a drop or remount flush, open files for
# MAXCONC connections, the port, the tools, the addresses and REPLAY_ARGS.
serve_prepare() {
  ensure_dataset
  if ! data_owned || data_empty; then
    fail "$DATA holds no extraction of the harness: run make phase-untar and phase-untar2 first"
  fi
  case $FLUSH in drop | remount) check_root "FLUSH=$FLUSH" ;; esac
  check_nofile $(($1 + 256))
  check_port
  preflight_done
  need_tool httpd replay
  serve_addr
  replay_list_args
}

# ---- proof: the tools' CPU and the cold cache ------------------------------

# note_tool_cpu NAME CMD... : a tool run with --stats FILE (a local one) has
# its CPU figures there: noted for CUR_PHASE in WORK/tool-cpu.tsv ("phase
# tool stats-file"); record_tool_cpu turns them into records at exit.
note_tool_cpu() {
  local name=$1 prev='' a
  shift
  for a in "$@"; do
    if [ "$prev" = --stats ] && [ -f "$a" ]; then
      printf '%s\t%s\t%s\n' "$CUR_PHASE" "$name" "$a" >>"$WORK/tool-cpu.tsv"
    fi
    prev=$a
  done
}

# record_tool_cpu : for every phase (record name) of this trial that ran our
# tools (dltar, rmtree, replay with --stats; every httpd started with
# start_httpd, whose --stats it writes when it stops): cpu_share_TOOL, the
# tool's user_s + sys_s over the phase's wall_s (its timed part: the wall_s
# record of the phase, else the tool's own), as a fraction of one core, and
# tool_cpu_share, the largest of them.  Above 0.5 the tool, not the
# filesystem, may be what limited the phase.  Also maxrss_kb_TOOL, the tool's
# peak resident size (its maxrss_kb: the largest of its runs in the phase;
# httpd -N: of the parent and its children), and tool_maxrss_kb, the largest.
record_tool_cpu() {
  local f=$WORK/tool-cpu.tsv recs
  [ -s "$f" ] || return 0
  recs=$(run_dir)/records.tsv
  awk -F '\t' -v trial="$CUR_TRIAL" -v recs="$recs" '
    function stat(file, m,   line, a, v) {
      v = ""
      while ((getline line < file) > 0) { split(line, a, "\t"); if (a[1] == m) v = a[2] }
      close(file)
      return v
    }
    BEGIN {
      while ((getline line < recs) > 0) {
        split(line, a, "\t")
        if (a[2] == trial && a[3] == "wall_s") wall[a[1]] = a[4]
      }
      close(recs)
    }
    {
      u = stat($3, "user_s"); s = stat($3, "sys_s"); w = stat($3, "wall_s"); r = stat($3, "maxrss_kb")
      if (r != "" && (!(($1 "\t" $2) in rss) || r + 0 > rss[$1 "\t" $2] + 0)) rss[$1 "\t" $2] = r
      if (u == "" || s == "") next
      if (!($1 in phases)) { phases[$1] = 1; order[++n] = $1 }
      cpu[$1 "\t" $2] += u + s
      if (!(($1 "\t" $2) in own)) { own[$1 "\t" $2] = w; tools[$1] = tools[$1] " " $2 }
    }
    END {
      for (i = 1; i <= n; i++) {
        p = order[i]; best = -1
        k = split(substr(tools[p], 2), t, " ")
        for (j = 1; j <= k; j++) {
          w = (p in wall) ? wall[p] : own[p "\t" t[j]]
          if (w + 0 <= 0) continue
          share = cpu[p "\t" t[j]] / w
          printf "%s\t%s\tcpu_share_%s\t%.3f\tfraction\n", p, trial, t[j], share
          if (share > best) best = share
        }
        if (best >= 0) printf "%s\t%s\ttool_cpu_share\t%.3f\tfraction\n", p, trial, best
        big = -1
        for (j = 1; j <= k; j++) {
          if (!((p "\t" t[j]) in rss)) continue
          printf "%s\t%s\tmaxrss_kb_%s\t%.0f\tKiB\n", p, trial, t[j], rss[p "\t" t[j]]
          if (rss[p "\t" t[j]] + 0 > big) big = rss[p "\t" t[j]] + 0
        }
        if (big >= 0) printf "%s\t%s\ttool_maxrss_kb\t%.0f\tKiB\n", p, trial, big
      }
    }' "$f" >>"$recs"
}

# check_cold METHOD : right after a flush with METHOD, before a cold phase:
# bin/resident maps a seeded sample (SEED) of RESIDENT_FILES (1000) of the
# dataset's files in TARGET/data and counts their pages in the page cache.
# Records CUR_PHASE's resident_pct and resident_files.  Above RESIDENT_MAX
# (1) percent the phase fails (the flush did not flush) unless METHOD is none
# or TARGET is a memory filesystem (tmpfs, ramfs, mfs: its pages are its
# storage and cannot be flushed).  Where the system has no mincore (OpenBSD)
# nothing is checked or recorded.  Opening the sample reads their inodes:
# drop and remount run once more after the check to drop those too.
check_cold() {
  local method=$1 out pct files fstype rc=0
  need_tool resident
  out=$(awk -F '\t' -v d="$DATA" '!/^#/ && NF >= 2 { print d "/" $1 }' "$MANIFEST" |
    "$HARNESS_BIN/resident" -n "${RESIDENT_FILES:-1000}" -s "$SEED" 2>>"$PHASE_LOG") || rc=$?
  if [ "$rc" -eq 3 ]; then
    say "this system has no mincore: the cold cache is not checked"
    return 0
  fi
  [ "$rc" -eq 0 ] || fail "resident could not look at the dataset's files in $DATA: see $PHASE_LOG"
  printf '%s\n' "$out" >>"$PHASE_LOG"
  pct=$(printf '%s\n' "$out" | awk -F '\t' '$1 == "resident_pct" { print $2 }')
  files=$(printf '%s\n' "$out" | awk -F '\t' '$1 == "files" { print $2 }')
  record "$CUR_PHASE" "$CUR_TRIAL" resident_pct "$pct" %
  record "$CUR_PHASE" "$CUR_TRIAL" resident_files "$files" count
  IFS=$'\t' read -r _ fstype _ < <(os_mount_of "$TARGET" 2>/dev/null) || fstype=''
  awk -v p="$pct" -v m="${RESIDENT_MAX:-1}" 'BEGIN { exit !(p > m) }' || {
    case $method in drop | remount) run_tool flush "$HARNESS/flush.sh" "$method" ;; esac
    return 0
  }
  case $method:$fstype in
    none:* | *:tmpfs | *:ramfs | *:mfs)
      say "$pct% of the sample is in the page cache (FLUSH=$method on ${fstype:-?}: not a failure)"
      return 0
      ;;
  esac
  fail "$pct% of $files dataset files' pages are still in the page cache after FLUSH=$method (more than ${RESIDENT_MAX:-1}%): the flush did not flush, so this phase would not be cold"
}
