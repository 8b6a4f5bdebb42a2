#!/usr/bin/env bash
# harness/sampler.sh: one sample a second of what the kernel does while a
# phase runs, as "t_s<TAB>metric<TAB>value" lines (docs/formats.md#series).
#
#   sampler.sh -o SERIES -t TARGET [-s TOOL_SERIES [-d] | -m statfs | -m none]
#              [-F FILES] [-B BYTES] [-R REQUESTS] [-L LABEL] [-p PID] [-i SECS]
#              [-A FILE]
#   sampler.sh --device TARGET     print the name of TARGET's disk, or none
#
# Metrics (per sample):
#   tool_bytes tool_files requests  the tool's progress so far: the last values
#                 of its own --series file (-s; -d: its lines are per-second
#                 counts, summed, as replay writes them; while it has none
#                 yet, as without -s), or how much TARGET's used space
#                 and inodes moved since the start (-m statfs, the default)
#   dirty_kb writeback_kb           Dirty and Writeback of Linux's meminfo
#                 (FreeBSD: writeback only, as vfs.runningbufspace)
#   sectors_read sectors_written io_ms   of TARGET's block device during the
#                 interval (Linux diskstats, FreeBSD devstat; NetBSD and
#                 OpenBSD: io_ms only); left out when TARGET has no
#                 device (tmpfs)
#   cpu_busy_pct cpu_iowait_pct     of all CPUs during the interval (Linux
#                 /proc/stat, BSD kern.cp_time; the BSDs count no iowait)
# What each system reads is in harness/os/<os>.sh; a figure the system does
# not have is left out.
# -F/-B/-R give the totals: on a terminal the sampler then shows progress
# (done, rate, ETA) on stderr; it is quiet otherwise.  It stops on TERM or
# INT (after a last sample), or when process PID (-p) has gone.  USR1
# pauses it (a trial in slices while the other variants take theirs,
# harness/common/slices.sh): a sample of the interval so far, then none and
# no reads until USR2, which goes on from a new baseline; with -A FILE the
# sampler creates FILE once paused.  A pause is a gap in t_s, and no
# sample's interval spans one.
set -eu
# A stop request that comes while we start up still gets its one sample.
stop=0 sp='' paused=0 pausing=0 rebase=0
trap 'stop=1; [ -z "$sp" ] || kill "$sp" 2>/dev/null || true' TERM INT HUP
trap 'pausing=1; [ -z "$sp" ] || kill "$sp" 2>/dev/null || true' USR1
trap 'pausing=0 paused=0 rebase=1; [ -z "$sp" ] || kill "$sp" 2>/dev/null || true' USR2

usage() {
  sed -n '2,/^set -eu/{/^set -eu/d;s/^# \{0,1\}//;p}' "$0"
}

SHOOTOUT_ROOT=${SHOOTOUT_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=harness/os.sh
. "$SHOOTOUT_ROOT/harness/os.sh"
# shellcheck source=harness/human.sh
. "$SHOOTOUT_ROOT/harness/human.sh"

# disk_of TARGET : the name of the disk holding TARGET, or none.
disk_of() {
  os_disk_of "$1"
}

if [ "${1:-}" = --device ]; then
  [ $# -eq 2 ] || { echo "usage: sampler.sh --device TARGET" >&2; exit 2; }
  disk_of "$2"
  exit 0
fi

out='' target='' tool_series='' mode=statfs total_files=0 total_bytes=0 total_reqs=0
label=sampler parent='' interval=1 deltas=0 ack=''
while getopts 'o:t:s:dm:F:B:R:L:p:i:A:h' opt; do
  case $opt in
    o) out=$OPTARG ;;
    t) target=$OPTARG ;;
    s) tool_series=$OPTARG mode=series ;;
    d) deltas=1 ;;
    m) mode=$OPTARG ;;
    F) total_files=$OPTARG ;;
    B) total_bytes=$OPTARG ;;
    R) total_reqs=$OPTARG ;;
    L) label=$OPTARG ;;
    p) parent=$OPTARG ;;
    i) interval=$OPTARG ;;
    A) ack=$OPTARG ;;
    h) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done
if [ -z "$out" ] || [ -z "$target" ]; then
  echo "sampler.sh: need -o SERIES and -t TARGET (-h for usage)" >&2
  exit 2
fi
case $mode in statfs | series | none) ;; *) echo "sampler.sh: -m wants statfs or none, not $mode" >&2; exit 2 ;; esac
[ -d "$target" ] || { echo "sampler.sh: no directory $target" >&2; exit 2; }
exec 3>>"$out" || { echo "sampler.sh: cannot write $out" >&2; exit 1; }

# From here on a failed read costs one figure, not the series.
set +e
disk=$(disk_of "$target")
show=0
[ -t 2 ] && [ $((total_files + total_bytes + total_reqs)) -gt 0 ] && show=1

now_ms() {
  local t=${EPOCHREALTIME/./}
  NOW_MS=$((10#$t / 1000))
}

read_cpu() {
  read -r CPU_TOTAL CPU_IDLE CPU_WAIT <<<"$(os_cpu 2>/dev/null || echo 0 0 -1)"
}

read_disk() {
  DISK_R=0 DISK_W=0 DISK_IO=0
  [ "$disk" = none ] && return 0
  read -r DISK_R DISK_W DISK_IO <<<"$(os_disk "$disk" 2>/dev/null || echo 0 0 0)"
}

read_mem() {
  read -r _ _ DIRTY WRITEBACK <<<"$(os_memory 2>/dev/null || echo 0 0 0 0)"
}

read_statfs() {
  local blocks free bsize files ffree
  read -r blocks free _ bsize files ffree <<<"$(os_fs_space "$target" 2>/dev/null || echo 0 0 0 0 0 0)"
  USED_BYTES=$(((blocks - free) * bsize)) USED_FILES=$((files - ffree))
}

# Progress: P_BYTES P_FILES P_REQS (-1 = unknown).
read_progress() {
  P_BYTES=-1 P_FILES=-1 P_REQS=-1
  case $mode in
    statfs)
      read_statfs
      P_BYTES=$((USED_BYTES - BASE_BYTES)) P_FILES=$((USED_FILES - BASE_FILES))
      [ "$P_BYTES" -ge 0 ] || P_BYTES=$((-P_BYTES))
      [ "$P_FILES" -ge 0 ] || P_FILES=$((-P_FILES))
      ;;
    series)
      local m v src=(tail -n 40 "$tool_series")
      [ "$deltas" = 0 ] || src=(cat "$tool_series")
      # a command substitution, not a process substitution: waited for, so
      # no child is left a zombie when a stop ends the sampler here
      local got
      got=$("${src[@]}" 2>/dev/null | awk -F '\t' -v sum="$deltas" '
        { m = $2; sub(/^tool_/, "", m) }
        m ~ /^(bytes|files|requests)$/ { last[m] = sum ? last[m] + $3 : $3 }
        END { for (m in last) printf "%s %.0f\n", m, last[m] }')
      while read -r m v; do
        case $m in
          bytes) P_BYTES=$v ;;
          files) P_FILES=$v ;;
          requests) P_REQS=$v ;;
        esac
      done <<<"$got"
      # Nothing from the tool yet (its series may be buffered): the target.
      if [ "$deltas" = 0 ] && [ "$P_BYTES" -lt 0 ] && [ "$P_FILES" -lt 0 ]; then
        read_statfs
        P_BYTES=$((USED_BYTES - BASE_BYTES)) P_FILES=$((USED_FILES - BASE_FILES))
      fi
      ;;
  esac
}

fmt_t() {
  printf -v T_S '%d.%03d' $((($1 - T0) / 1000)) $((($1 - T0) % 1000))
}

emit() {
  [ "$2" -ge 0 ] 2>/dev/null || return 0
  printf '%s\t%s\t%s\n' "$T_S" "$1" "$2" >&3
}

# progress_line : "untar: 12000/20400 files (58%), 610.2 MB, 6102 files/s,
# 1.9 s, ETA 1.3 s" redrawn on stderr (harness/human.sh's units).
progress_line() {
  local el=$((NOW_MS - T0)) done=0 total=0 what per=1 shown eta='' pct=''
  if [ "$total_reqs" -gt 0 ]; then
    done=$P_REQS total=$total_reqs what=requests
  elif [ "$total_files" -gt 0 ]; then
    done=$P_FILES total=$total_files what=files
  else
    done=$P_BYTES total=$total_bytes what=MB per=1000000
  fi
  [ "$done" -ge 0 ] || done=0
  shown="$((done / per))/$((total / per)) $what"
  [ "$total" -le 0 ] || pct=" ($((done * 100 / total))%)"
  if [ "$done" -gt 0 ] && [ "$done" -lt "$total" ]; then
    eta=", ETA $(human_ms $((el * (total - done) / done)))"
  fi
  printf '\r%s: %s%s, %s, %s, %s%s   ' "$label" "$shown" "$pct" "$(human_bytes $((P_BYTES > 0 ? P_BYTES : 0)))" \
    "$(human_rate "$done" "$el" "$what" "$per")" "$(human_ms "$el")" "$eta" >&2
}

sample() {
  local dt dw dio
  now_ms
  fmt_t "$NOW_MS"
  read_mem
  read_cpu
  read_disk
  read_progress
  emit tool_bytes "$P_BYTES"
  emit tool_files "$P_FILES"
  emit requests "$P_REQS"
  emit dirty_kb "$DIRTY"
  emit writeback_kb "$WRITEBACK"
  # A counter the system does not have reads -1: no figure.
  if [ "$disk" != none ]; then
    [ "$DISK_R" -lt 0 ] || emit sectors_read $((DISK_R - PREV_R))
    [ "$DISK_W" -lt 0 ] || emit sectors_written $((DISK_W - PREV_W))
    [ "$DISK_IO" -lt 0 ] || emit io_ms $((DISK_IO - PREV_IO))
  fi
  dt=$((CPU_TOTAL - PREV_TOTAL))
  dw=0
  [ "$CPU_WAIT" -lt 0 ] || dw=$((CPU_WAIT - PREV_WAIT))
  dio=$((dt - (CPU_IDLE - PREV_IDLE) - dw))
  if [ "$dt" -gt 0 ]; then
    emit cpu_busy_pct $((100 * dio / dt))
    [ "$CPU_WAIT" -lt 0 ] || emit cpu_iowait_pct $((100 * dw / dt))
  fi
  PREV_R=$DISK_R PREV_W=$DISK_W PREV_IO=$DISK_IO
  PREV_TOTAL=$CPU_TOTAL PREV_IDLE=$CPU_IDLE PREV_WAIT=$CPU_WAIT
  [ "$show" = 0 ] || progress_line
}

# baseline : the counters the next sample's intervals start from.
baseline() {
  read_cpu
  read_disk
  PREV_R=$DISK_R PREV_W=$DISK_W PREV_IO=$DISK_IO
  PREV_TOTAL=$CPU_TOTAL PREV_IDLE=$CPU_IDLE PREV_WAIT=$CPU_WAIT
}

now_ms
T0=$NOW_MS
baseline
BASE_BYTES=0 BASE_FILES=0
if [ "$mode" != none ]; then
  read_statfs
  BASE_BYTES=$USED_BYTES BASE_FILES=$USED_FILES
fi

while :; do
  if [ "$stop" = 0 ] && [ "$pausing" = 0 ]; then
    sleep "$interval" &
    sp=$!
    wait "$sp" || true
    sp=''
  fi
  if [ "$pausing" = 1 ]; then
    # the interval up to the pause (none when paused already, or just resumed)
    [ "$paused" = 1 ] || [ "$rebase" = 1 ] || sample
    pausing=0 paused=1 rebase=0
    [ -z "$ack" ] || echo paused >"$ack" || true
  elif [ "$paused" = 1 ]; then
    :
  elif [ "$rebase" = 1 ]; then
    rebase=0
    baseline
  else
    sample
  fi
  [ "$stop" = 0 ] || break
  if [ -n "$parent" ] && ! kill -0 "$parent" 2>/dev/null; then break; fi
done
[ "$show" = 0 ] || printf '\n' >&2
exec 3>&-
