# shellcheck shell=sh
# harness/human.sh: figures as people read them, for the progress line of
# sampler.sh and the lines a phase prints (lib.sh): durations, rates and
# sizes, in integer arithmetic (decimal figures go through human_s).

# human_ms MS : a duration of MS milliseconds: 320 ms, 4.2 s, 3 min 05 s,
# 2 h 07 min.
human_ms() {
  if [ "$1" -lt 1000 ]; then
    printf '%d ms' "$1"
  elif [ "$1" -lt 60000 ]; then
    printf '%d.%d s' $(($1 / 1000)) $(($1 % 1000 / 100))
  elif [ "$1" -lt 3600000 ]; then
    printf '%d min %02d s' $(($1 / 60000)) $(($1 / 1000 % 60))
  else
    printf '%d h %02d min' $(($1 / 3600000)) $(($1 / 60000 % 60))
  fi
}

# human_ms_of SECONDS : a decimal number of seconds (0.0324393, as the
# tools' wall_s) in whole milliseconds; human_s SECONDS : as human_ms.
human_ms_of() {
  awk -v s="$1" 'BEGIN { printf "%.0f", s * 1000 }'
}
human_s() {
  human_ms "$(human_ms_of "$1")"
}

# human_rate COUNT MS UNIT [PER] : COUNT (of PER each UNIT, default 1) in MS
# milliseconds as a rate: 25400 files/s, 12.5 req/s, 0.3 MB/s; "- UNIT/s"
# while no millisecond has passed.
human_rate() {
  if [ "$2" -le 0 ]; then
    printf -- '- %s/s' "$3"
    return 0
  fi
  _hr=$(($1 * 10000 / ($2 * ${4:-1}))) # tenths
  if [ "$_hr" -ge 1000 ]; then
    printf '%d %s/s' $((_hr / 10)) "$3"
  else
    printf '%d.%d %s/s' $((_hr / 10)) $((_hr % 10)) "$3"
  fi
}

# human_bytes BYTES : 512 B, 40 kB, 1.2 MB, 3.4 GB (powers of 1000).
human_bytes() {
  if [ "$1" -lt 1000 ]; then
    printf '%d B' "$1"
  elif [ "$1" -lt 1000000 ]; then
    printf '%d kB' $(($1 / 1000))
  elif [ "$1" -lt 1000000000 ]; then
    printf '%d.%d MB' $(($1 / 1000000)) $(($1 / 100000 % 10))
  else
    printf '%d.%d GB' $(($1 / 1000000000)) $(($1 / 100000000 % 10))
  fi
}
