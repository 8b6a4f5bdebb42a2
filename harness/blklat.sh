# shellcheck shell=bash disable=SC2034
# harness/blklat.sh: latency distributions of a phase (docs/latency.md):
# the block device's per-request latency and queue depth, traced by the OS
# adapter's tracer (Linux bpftrace, FreeBSD/NetBSD DTrace; OpenBSD none)
# while a phase runs, and httpd's own per-request open and first-byte times
# from its --stats.  Both land in RUN_DIR/latency/NAME-TRIAL.tsv
# (docs/formats.md#latency).  Sourced by common.sh and meta.sh; nothing
# here fails a phase: a tracer that is absent or breaks leaves no histogram,
# and meta.json (blklat, blklat_absent) says why.
#   blklat_probe         BLKLAT_TOOL, BLKLAT_DEV or BLKLAT_WHY (why there is none)
#   blklat_begin         at phase_begin: trace the phase (CUR_PHASE)
#   blklat_switch NAME   a new record name or trial within a phase (serve-cold ->
#                        serve-warm, trial 1 -> 2), or the same one again after blklat_pause
#   blklat_pause         no record's work for a while (a flush and its proof)
# Where the adapter's tracer can be cut (Linux: os_blklat_cut), one tracer
# runs for the whole phase and each switch or pause cuts its histograms
# (starting bpftrace takes seconds: once a phase, not once a trial);
# elsewhere each record name and trial has a tracer of its own.
#   blklat_end           at the phase's exit (phase_on_exit): the last trace, httpd's histograms
#   blklat_parse [HIST]  tracer output on stdin -> "hist key lo count" lines

# blklat_probe : whether the block tracer can run on TARGET: BLKLAT_TOOL and
# BLKLAT_DEV, or BLKLAT_WHY, one line (BLKLAT=0, the adapter's reason).
blklat_probe() {
  local out
  BLKLAT_TOOL='' BLKLAT_DEV='' BLKLAT_WHY=''
  if [ "${BLKLAT:-0}" != 1 ]; then
    BLKLAT_WHY="BLKLAT=0"
  elif out=$(os_blklat_probe "${TARGET:-/}" 2>/dev/null); then
    BLKLAT_TOOL=${out%% *} BLKLAT_DEV=${out#* }
  else
    BLKLAT_WHY=${out:-the tracer did not say why}
  fi
}

BLKLAT_TOOL='' BLKLAT_PID='' BLKLAT_NAME='' BLKLAT_TRIAL='' BLKLAT_RAW='' BLKLAT_ENDED=0
# The cuts: whether the running tracer takes them, its mark, the cuts made,
# the lines of its output already filed.
BLKLAT_CUTS=0 BLKLAT_MARK='' BLKLAT_NCUT=0 BLKLAT_LINE=0

# blklat_begin : from phase_begin; traces CUR_PHASE until the next
# blklat_switch or blklat_end (phase_on_exit, after the children stopped:
# not a PHASE_CLEANUP, which a phase may empty).
blklat_begin() {
  blklat_probe
  [ -n "$BLKLAT_TOOL" ] || return 0
  blklat_start "$CUR_PHASE"
}

# blklat_start NAME : the tracer in the background for NAME's trial
# CUR_TRIAL, its output in WORK, until it says it is ready (30 s: bpftrace
# compiles its program first).
blklat_start() {
  [ -n "$BLKLAT_TOOL" ] || return 0
  BLKLAT_NAME=$1 BLKLAT_TRIAL=$CUR_TRIAL BLKLAT_RAW=$WORK/blklat-$1-$CUR_TRIAL.raw
  # above any pid (Linux's pid_max is at most 2^22), one for each phase
  BLKLAT_MARK=$((4194305 + $$)) BLKLAT_NCUT=0 BLKLAT_LINE=0 BLKLAT_CUTS=0
  : >"$BLKLAT_RAW"
  (lock_close_fds; os_blklat_run "$BLKLAT_DEV" "$BLKLAT_RAW" "$BLKLAT_MARK") >>"$PHASE_LOG" 2>&1 &
  BLKLAT_PID=$!
  if ! poll_until 30 blklat_ready || ! grep -q '^blklat ready' "$BLKLAT_RAW"; then
    blklat_say "block tracer ($BLKLAT_TOOL) did not start or died: no block-latency histogram for $1 (see $PHASE_LOG)"
    blklat_kill
    BLKLAT_TOOL=''
    return 0
  fi
  ! grep -q '^blklat cuts' "$BLKLAT_RAW" || BLKLAT_CUTS=1
}

# blklat_file LAST : the tracer's output lines after those filed, to line
# LAST (all: to its end), into the latency file of the record name and
# trial they belong to (none while paused, or for a refused phase).
blklat_file() {
  local dir last=$1
  [ "$last" != all ] || last=$(wc -l <"$BLKLAT_RAW")
  if [ -n "$BLKLAT_NAME" ] && [ -n "$CUR_TRIAL" ] && dir=$(run_dir); then
    mkdir -p "$dir/latency"
    awk -v a="$BLKLAT_LINE" -v b="$last" 'NR > a && NR <= b' "$BLKLAT_RAW" |
      blklat_parse blk_ns >>"$dir/latency/$BLKLAT_NAME-$BLKLAT_TRIAL.tsv"
  fi
  BLKLAT_LINE=$last
}

# blklat_cut : the running tracer prints and clears its histograms
# (os_blklat_cut); they are filed under the current record name.  A tracer
# that does not answer in 10 s is stopped (the next switch starts one).
blklat_cut() {
  local last
  os_blklat_cut "$BLKLAT_MARK" "$BLKLAT_RAW"
  BLKLAT_NCUT=$((BLKLAT_NCUT + 1))
  if ! poll_until 10 blklat_cut_done; then
    blklat_say "block tracer did not answer a cut in 10 s: stopped"
    blklat_stop
    return 0
  fi
  last=$(awk -v n="$BLKLAT_NCUT" '/^blklat cut$/ && ++k == n { print NR; exit }' "$BLKLAT_RAW")
  blklat_file "$last"
}

# blklat_cut_done : the tracer's output has the cut just asked for (or it died).
blklat_cut_done() {
  [ "$(grep -c '^blklat cut$' "$BLKLAT_RAW")" -ge "$BLKLAT_NCUT" ] || ! kill -0 "$BLKLAT_PID" 2>/dev/null
}

# blklat_say MESSAGE : a line in the phase's log, and on a terminal.
blklat_say() {
  printf 'blklat: %s\n' "$*" >>"$PHASE_LOG"
  harness_say "$*"
}

# blklat_ready : the tracer's first line is there, or it has died.
blklat_ready() {
  grep -q '^blklat ready' "$BLKLAT_RAW" 2>/dev/null || ! kill -0 "$BLKLAT_PID" 2>/dev/null
}

blklat_kill() {
  [ -n "$BLKLAT_PID" ] || return 0
  kill -KILL "$BLKLAT_PID" 2>/dev/null || true
  wait "$BLKLAT_PID" 2>/dev/null || true
  BLKLAT_PID=''
}

# blklat_stop : SIGTERM to the tracer (it prints its histograms and exits;
# 20 s; not SIGINT, which a background job of a script ignores and DTrace
# then leaves ignored), its output parsed into the record's latency file
# (none for a refused phase: no trial).
blklat_stop() {
  [ -n "$BLKLAT_PID" ] || return 0
  # bpftrace 0.17 prints no histogram at its exit once one was cleared: the
  # last part comes through a cut too
  if [ "$BLKLAT_CUTS" = 1 ]; then
    BLKLAT_CUTS=0
    blklat_cut
    [ -n "$BLKLAT_PID" ] || return 0
  fi
  kill -TERM "$BLKLAT_PID" 2>/dev/null || true
  poll_until 20 pid_gone "$BLKLAT_PID" ||
    blklat_say "block tracer did not stop in 20 s: killed, no block-latency histogram for $BLKLAT_NAME"
  blklat_kill
  blklat_file all
}

# blklat_switch NAME : the trace so far belongs to the previous record
# name (or trial); from here on to NAME's trial CUR_TRIAL.  After
# blklat_pause, the trace starts again (NAME the record it paused or the
# next one).
blklat_switch() {
  [ -n "$BLKLAT_TOOL" ] && [ "$BLKLAT_ENDED" = 0 ] || return 0
  [ -z "$BLKLAT_PID" ] || [ "$1" != "$BLKLAT_NAME" ] || [ "$CUR_TRIAL" != "$BLKLAT_TRIAL" ] || return 0
  if [ -n "$BLKLAT_PID" ] && [ "$BLKLAT_CUTS" = 1 ]; then
    blklat_cut
    if [ -n "$BLKLAT_PID" ]; then
      BLKLAT_NAME=$1 BLKLAT_TRIAL=$CUR_TRIAL
      return 0
    fi
  fi
  blklat_stop
  blklat_start "$1"
}

# blklat_pause : the trace so far belongs to the record it was started for;
# what the phase does next (flush.sh and the cold-cache proof: proof_flush)
# is no record's work and is traced by none, until blklat_switch.  A second
# run of a record name appends to its latency file (its histograms add up).
blklat_pause() {
  if [ -n "$BLKLAT_PID" ] && [ "$BLKLAT_CUTS" = 1 ]; then
    blklat_cut
    BLKLAT_NAME=''
    return 0
  fi
  blklat_stop
}

# blklat_end : the last trace, and the httpd histograms of every httpd the
# phase started (WORK/tool-cpu.tsv: "record httpd stats-file trial").
blklat_end() {
  [ "$BLKLAT_ENDED" = 0 ] || return 0
  BLKLAT_ENDED=1
  blklat_stop
  local f=$WORK/tool-cpu.tsv dir rec tool stats trial hist
  [ -s "$f" ] && [ -n "$CUR_TRIAL" ] || return 0
  dir=$(run_dir) || return 0
  while IFS=$'\t' read -r rec tool stats trial; do
    case $rec in serve-*) ;; *) continue ;; esac # the source httpd of untar is not measured
    if [ "$tool" != httpd ] || [ ! -s "$stats" ]; then continue; fi
    # none in a fork server's stats with FORKLAT=0 (its CPU times only): no file
    hist=$(blklat_httpd <"$stats")
    [ -n "$hist" ] || continue
    mkdir -p "$dir/latency"
    printf '%s\n' "$hist" >>"$dir/latency/$rec-${trial:-$CUR_TRIAL}.tsv"
  done <"$f"
}

# blklat_httpd < httpd --stats : its lat_open_ns.bK and lat_ttfb_ns.bK
# lines as "httpd_open_ns - 2^K COUNT" and "httpd_ttfb_ns - 2^K COUNT".
blklat_httpd() {
  awk -F '\t' '
    $1 ~ /^lat_(open|ttfb)_ns\.b[0-9]+$/ {
      i = index($1, ".b"); name = substr($1, 1, i - 1); k = substr($1, i + 2) + 0
      sub(/^lat_/, "httpd_", name)
      lo = k == 0 ? 0 : 2 ^ k
      printf "%s\t-\t%.0f\t%s\n", name, lo, $2
    }'
}

# blklat_parse [HIST] < tracer output : every non-empty bucket of its log2
# histograms as "hist key lo count" (TAB-separated).  bpftrace's hist():
# "@NAME[KEY]:" then "[LO, HI) COUNT |...|" rows (LO with K M G T P E for
# powers of 1024; "[N]" one value; "(..., 0)" the negatives, lo -1), a
# numeric KEY a Linux dev_t shown as MAJ:MIN.  DTrace's quantize(): a line
# "@NAME" (our scripts print it), the key line, "value ---- Distribution
# ---- count", then "VALUE |@@@ COUNT" rows.  Rows before any name get HIST
# (default blk_ns); keys are squeezed to single spaces; "-" when none.
blklat_parse() {
  awk -v hist="${1:-blk_ns}" '
    function mult(s) { return s == "K" ? 1024 : s == "M" ? 1048576 : s == "G" ? 1073741824 : \
      s == "T" ? 1099511627776 : s == "P" ? 1125899906842624 : s == "E" ? 1152921504606846976 : 1 }
    function num(s,   u) {
      u = substr(s, length(s), 1)
      if (u ~ /[KMGTPE]/) return substr(s, 1, length(s) - 1) * mult(u)
      return s + 0
    }
    function out(lo, c) { if (c + 0 > 0) printf "%s\t%s\t%.0f\t%s\n", hist, key, lo, c }
    BEGIN { key = "-"; last = "" }
    /^@[A-Za-z_][A-Za-z0-9_]*(\[.*\])?: *$/ {
      line = $0; sub(/: *$/, "", line); sub(/^@/, "", line)
      if ((i = index(line, "[")) > 0) {
        hist = substr(line, 1, i - 1); key = substr(line, i + 1, length(line) - i - 1)
        if (key ~ /^[0-9]+$/) key = int(key / 1048576) ":" (key % 1048576)
      } else { hist = line; key = "-" }
      next
    }
    /^@[A-Za-z_][A-Za-z0-9_]* *$/ { hist = $1; sub(/^@/, "", hist); next }
    /^\[[^]]*\] +[0-9]+ / { v = $1; gsub(/[][]/, "", v); out(num(v), $2); next }
    /^\[[^,]*, [^)]*\) +[0-9]+ / { v = $1; gsub(/[[,]/, "", v); out(num(v), $3); next }
    /^\(\.\.\., / { out(-1, $3); next }
    /^ *value +-+ Distribution -+ count/ {
      key = last; gsub(/^[ \t]+|[ \t]+$/, "", key); gsub(/[ \t]+/, " ", key)
      if (key == "") key = "-"
      indist = 1; next
    }
    indist && /^ *-?[0-9]+ \|/ { split($0, a, "|"); v = a[1] + 0; n = split(a[2], b, " "); out(v, b[n]); next }
    /^[ \t]*$/ { indist = 0; next }
    { indist = 0; last = $0 }
  '
}
