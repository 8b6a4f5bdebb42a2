# shellcheck shell=bash disable=SC2034
# harness/common/time.sh: timing: the clock and the rates of a timed tool run.

# time_now : seconds since the epoch with microseconds; time_since T0 :
# seconds since T0.
time_now() {
  printf '%s\n' "$EPOCHREALTIME"
}
time_since() {
  awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f\n", b - a }'
}

# time_rates NAME STATS : MB/s and files/s from a tool's bytes, files, wall_s
# (unless the tool wrote them itself).
time_rates() {
  local wall bytes files
  wall=$(stat_value "$2" wall_s) bytes=$(stat_value "$2" bytes) files=$(stat_value "$2" files)
  [ -n "$wall" ] || return 0
  if [ -n "$bytes" ] && [ -z "$(stat_value "$2" mbps)" ]; then
    record "$1" "$CUR_TRIAL" mbps "$(harness_calc "$bytes / $wall / 1e6")" MB/s
  fi
  if [ -n "$files" ] && [ -z "$(stat_value "$2" files_per_s)" ]; then
    record "$1" "$CUR_TRIAL" files_per_s "$(harness_calc "$files / $wall")" files/s
  fi
}
