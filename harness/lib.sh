# shellcheck shell=sh
# harness/lib.sh: sourced by every phase script.  It knows where the current
# run's results live and how to append records (docs/formats.md#records):
#   results/<run-id>/<host>/<variant>/{meta.json,records.tsv,series/<phase>-<trial>.tsv}
# Phase scripts use only the functions below (and common.sh's).
#
# Environment (all optional):
#   RESULTS  results root (default: <checkout>/results); a relative one is
#            made absolute here, from the directory the script started in
#            (make's `RESULTS ?= results` is the checkout's results/), so
#            that a phase that changes directory still writes there
#   RUN_ID   the run (default: the current run, see run_id)
#   HOST     host name in the results (default: hostname -s)
#   VARIANT  variant name (default: "default")

SHOOTOUT_ROOT=${SHOOTOUT_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
RESULTS=${RESULTS:-$SHOOTOUT_ROOT/results}
case $RESULTS in /*) ;; *) RESULTS=$PWD/$RESULTS ;; esac
HOST=${HOST:-$(hostname -s 2>/dev/null || echo localhost)}
VARIANT=${VARIANT:-default}
# shellcheck source=SCRIPTDIR/human.sh
. "$SHOOTOUT_ROOT/harness/human.sh"

# harness_die MESSAGE : the one error exit of the harness (status 1).  In a
# phase's frame (phase_begin has run: PHASE_FRAME=1) the frame reports
# MESSAGE as it exits ("PHASE: MESSAGE" on stderr, the failure records and
# failures.tsv); elsewhere, or in a subshell of the frame, one line on
# stderr naming the script: "SCRIPT: MESSAGE".  In the frame's EXIT trap
# (PHASE_EXITING=1) the line, and status 1 instead of an exit.
# shellcheck disable=SC2034,SC3028 # FAIL_MSG is the frame's; BASHPID is
# bash's (the frame is bash: plain sh scripts never have PHASE_FRAME=1).
harness_die() {
  if [ "${PHASE_EXITING:-0}" = 1 ]; then
    # In the frame's EXIT trap (phase_on_exit): the failure of one of its
    # steps is a line, and the trap goes on (an exit would end it there).
    printf '%s: %s\n' "${CUR_PHASE:-$(basename "$0")}" "$*" >&2
    return 1
  fi
  FAIL_MSG=$*
  if [ "${PHASE_FRAME:-0}" != 1 ] || [ "${BASHPID:-$$}" != "$$" ]; then
    printf '%s: %s\n' "$(basename "$0")" "$*" >&2
  fi
  exit 1
}

# lib_name VALUE : VALUE is a single name that can become one path component
# of the results or the datasets (HOST, VARIANT, RUN_ID, DATASET): letters,
# digits and . _ + -, the first a letter, digit or _; so never empty, . or
# .., and no /.
lib_name() {
  case $1 in '' | [!A-Za-z0-9_]* | *[!A-Za-z0-9._+-]*) return 1 ;; esac
}

# lib_names_ok : HOST, VARIANT and RUN_ID (when set) are such names, or the
# harness stops: the last guard before they become directories under
# RESULTS (the phases refuse them earlier, harness/common/settings.sh).
lib_names_ok() {
  lib_name_or_die HOST "$HOST"
  lib_name_or_die VARIANT "$VARIANT"
  [ -z "${RUN_ID:-}" ] || lib_name_or_die RUN_ID "$RUN_ID"
}
lib_name_or_die() {
  lib_name "$2" || harness_die "$1='$2' is not a single name (letters, digits and . _ + -): it would leave $RESULTS"
}

# harness_say MESSAGE : a progress note on stderr when it is a terminal.
harness_say() {
  [ -t 2 ] && printf '%s: %s\n' "${CUR_PHASE:-harness}" "$*" >&2
  return 0
}

# harness_tell LABEL MESSAGE : "LABEL: MESSAGE" on stdout, terminal or not
# (CI, Ansible, | tee): a phase's start and end, the end of a run.
harness_tell() {
  printf '%s: %s\n' "$1" "$2"
}

# new_run : start a new run: a fresh id (UTC time + host; "-2", "-3", ...
# appended when that directory exists already), its directory claimed with
# mkdir so that two runs never share one, made current.  Prints the id.
new_run() {
  lib_names_ok
  mkdir -p "$RESULTS" || harness_die "cannot create $RESULTS"
  _base=$(date -u +%Y%m%dT%H%M%SZ)-$HOST
  _id=$_base _n=1
  while ! mkdir "$RESULTS/$_id" 2>/dev/null; do
    [ -d "$RESULTS/$_id" ] || harness_die "cannot create $RESULTS/$_id"
    _n=$((_n + 1))
    _id=$_base-$_n
  done
  printf '%s\n' "$_id" >"$RESULTS/.current.$$"
  mv -f "$RESULTS/.current.$$" "$RESULTS/.current"
  printf '%s\n' "$_id"
}

# run_id : the run this phase belongs to.  RUN_ID wins; otherwise the run that
# results/.current names; otherwise a new one (see new_run), made current.
run_id() {
  if [ -n "${RUN_ID:-}" ]; then
    printf '%s\n' "$RUN_ID"
  elif [ -s "$RESULTS/.current" ]; then
    cat "$RESULTS/.current"
  else
    new_run
  fi
}

# run_dir : results/<run>/<host>/<variant>, created with its records header.
run_dir() {
  lib_names_ok
  d=$(run_id) || exit 1
  lib_name_or_die "the current run ($RESULTS/.current)" "$d"
  d=$RESULTS/$d/$HOST/$VARIANT
  mkdir -p "$d/series"
  [ -s "$d/records.tsv" ] || printf 'phase\ttrial\tmetric\tvalue\tunit\n' >"$d/records.tsv"
  printf '%s\n' "$d"
}

# lib_append FILE TEXT : append TEXT and a newline to FILE whole, or not at
# all: a write cut short (a full filesystem) is cut off again, so no torn
# line is left for a reader to take for a figure.  Status 1 and LIB_ERR
# ("cannot append to FILE: REASON") when it failed.
lib_append() {
  _size=$(wc -c 2>/dev/null <"$1") || _size=0
  if _err=$({ printf '%s\n' "$2" >>"$1"; } 2>&1); then
    return 0
  fi
  # dd of= without conv=notrunc truncates the file at seek= (POSIX).
  dd if=/dev/null of="$1" bs=1 seek="$((_size + 0))" 2>/dev/null || :
  LIB_ERR="cannot append to $1: ${_err##*: }"
  return 1
}

# record PHASE TRIAL METRIC VALUE UNIT : append one measurement.
record() {
  [ $# -eq 5 ] || harness_die "record: want PHASE TRIAL METRIC VALUE UNIT, got: $*"
  _d=$(run_dir) || exit 1
  lib_append "$_d/records.tsv" "$(printf '%s\t%s\t%s\t%s\t%s' "$1" "$2" "$3" "$4" "$5")" ||
    harness_die "$LIB_ERR"
}

# record_lines : append the records on stdin (whole lines) at once.
record_lines() {
  _t=$(cat) || harness_die "record_lines: cannot read the records"
  [ -n "$_t" ] || return 0
  _d=$(run_dir) || exit 1
  lib_append "$_d/records.tsv" "$_t" || harness_die "$LIB_ERR"
}

# record_stats PHASE TRIAL FILE : append every "metric value unit" line of a
# tool's --stats FILE as records of PHASE/TRIAL.
record_stats() {
  [ -r "$3" ] || harness_die "record_stats: no stats file $3"
  awk -F '\t' -v p="$1" -v t="$2" 'NF >= 3 { printf "%s\t%s\t%s\t%s\t%s\n", p, t, $1, $2, $3 }' \
    "$3" | record_lines
}

# next_trial PHASE [PHASE...] : 1 + the highest trial recorded for any of the
# PHASEs in this run (a phase script that writes several record names, like
# serve-cold-1 and serve-warm-32, passes all of them).
next_trial() {
  _d=$(run_dir) || exit 1
  awk -F '\t' -v names=" $* " 'NR > 1 && index(names, " " $1 " ") && $2 + 0 > max { max = $2 + 0 }
    END { print max + 1 }' "$_d/records.tsv"
}

# series_file PHASE TRIAL : where the per-second series of that phase goes.
series_file() {
  _d=$(run_dir) || exit 1
  printf '%s/series/%s-%s.tsv\n' "$_d" "$1" "$2"
}

# record_failure PHASE TRIAL MESSAGE : the phase failed: records "status 1
# exit" and "error MESSAGE text", and a line "phase trial time message" in
# failures.tsv.
# The status and error records go in one write, before failures.tsv: a
# report reads the failure from them (phase_on_exit frees the room,
# lib_reserve, first).  Status 1 with LIB_ERR when a write failed.
# Every control character of MESSAGE becomes a space: a tab or newline
# would split the record, and so would a carriage return for a reader of
# text lines (ssh ends its own messages, "Broken pipe", with CR LF).
record_failure() {
  _m=$(printf '%s' "$3" | LC_ALL=C tr '\001-\037\177' ' ')
  _f=$(run_dir) || return 1
  lib_append "$_f/records.tsv" "$(printf '%s\t%s\tstatus\t1\texit\n%s\t%s\terror\t%s\ttext' "$1" "$2" "$1" "$2" "$_m")" ||
    return 1
  _f=$_f/failures.tsv
  if [ ! -s "$_f" ]; then
    lib_append "$_f" "$(printf 'phase\ttrial\ttime\tmessage')" || return 1
  fi
  lib_append "$_f" "$(printf '%s\t%s\t%s\t%s' "$1" "$2" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$_m")"
}

# lib_reserve DIR : DIR/.reserve, 64 KiB of room (random bytes: a
# compressing filesystem keeps them whole) that lib_unreserve DIR gives
# back for a phase's failure records when its RESULTS filled up.
lib_reserve() {
  dd if=/dev/urandom of="$1/.reserve" bs=1024 count=64 2>/dev/null &&
    [ "$(wc -c <"$1/.reserve")" -eq 65536 ]
}
lib_unreserve() {
  rm -f "$1/.reserve"
}

# harness_calc AWK-EXPRESSION : print the value of a numeric expression, e.g.
# harness_calc "1048576 / 2.5 / 1e6".  Division by zero prints 0.  Six significant
# digits, but never in e-notation: from 10^6 on, the whole number.
harness_calc() {
  # Only numbers and arithmetic reach awk's program text.
  case $1 in *[!0-9eE.+*/\(\)\ -]*) echo 0; return 0 ;; esac
  awk "BEGIN { x = 0; x = ($1); if (x != x || (x != 0 && x == 2 * x)) x = 0; printf (x >= 1e6 || x <= -1e6 ? \"%.0f\\n\" : \"%.6g\\n\"), x }" 2>/dev/null || echo 0
}

# stat_value FILE METRIC : the value of METRIC in a --stats FILE (empty if absent).
stat_value() {
  awk -F '\t' -v m="$2" '$1 == m { v = $2 } END { print v }' "$1"
}
