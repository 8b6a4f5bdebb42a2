#!/usr/bin/env bats
# Counts and bytes past 2^31 and 2^32, up to 10^13 (a 10 TB run), through
# every path that carries them: the sampler's series, the adapter's meminfo,
# the records (dataset totals, rates, the tools' peak RSS) and the charts'
# data.  Debian's awk is mawk, whose print and %d lose such numbers.
# shellcheck disable=SC2016,SC2030,SC2031
load helpers

setup() {
  T=$BATS_TEST_TMPDIR
  export RESULTS=$T/results HOST=testhost VARIANT=v1 SHOOTOUT_ROOT=$ROOT HARNESS_BIN=$BIN RUN_ID=big
  mkdir -p "$T/d"
}

teardown() {
  [ -z "${SPID:-}" ] || kill "$SPID" 2>/dev/null || true
}

# sample_once ARGS... : the sampler on $T/d with ARGS until it has written a
# tool figure, then stopped; its stderr in $T/err.
sample_once() {
  "$ROOT/harness/sampler.sh" -o "$T/s.tsv" -t "$T/d" -i 0.1 "$@" 2>"$T/err" 3>&- &
  SPID=$!
  POLL_STEP=0.1 poll_until 10 grep -q "$(printf '\t\\(tool_bytes\\|requests\\)\t')" "$T/s.tsv" 2>/dev/null ||
    { echo "no tool figure after 10 s"; cat "$T/err"; return 1; }
  kill -TERM "$SPID"
  wait_for_exit "$SPID" 5
  SPID=''
}

# last METRIC : the last value of METRIC in the series.
last() {
  awk -F '\t' -v m="$1" '$2 == m { v = $3 } END { print v }' "$T/s.tsv"
}

@test "sampler: the tool's bytes past 2^32 and near 10^13 stay whole in the series, without a shell error" {
  printf '0.5\ttool_bytes\t20979300000\n0.5\ttool_files\t3028001\n1.0\ttool_bytes\t9999999999999\n1.0\ttool_files\t3028001\n' >"$T/tool.tsv"
  sample_once -s "$T/tool.tsv" -B 9999999999999 -F 3028001
  [ "$(last tool_bytes)" = 9999999999999 ]
  [ "$(last tool_files)" = 3028001 ]
  [ ! -s "$T/err" ] || { cat "$T/err"; false; }
}

@test "sampler: per-second request counts (-d) summed past 2^32 stay whole" {
  printf '1.0\trequests\t4294967296\n2.0\trequests\t5705032703\n' >"$T/replay.tsv"
  sample_once -s "$T/replay.tsv" -d
  [ "$(last requests)" = 9999999999 ]
  [ ! -s "$T/err" ] || { cat "$T/err"; false; }
}

@test "adapter: Dirty and Writeback past 2^31 kB are read whole from meminfo" {
  printf 'MemTotal:       8589934592 kB\nCached:  3000000000 kB\nDirty:          2500000000 kB\nWriteback:      9765625000 kB\n' >"$T/meminfo"
  run env SHOOTOUT_OS=linux bash -c '. "$SHOOTOUT_ROOT/harness/os.sh"; os_parse_memory <"$1"' _ "$T/meminfo"
  [ "$status" -eq 0 ]
  [ "$output" = "8589934592 3000000000 2500000000 9765625000" ]
}

# ---- records -----------------------------------------------------------------

@test "records: the dataset's totals from a manifest of 10^13 bytes are whole" {
  mkdir -p "$T/ds"
  printf '# path\tsize\tcrc32\na\t9999999999999\t0\nb\t4294967296\t0\nc\t1\t0\n' >"$T/ds/manifest.tsv"
  run bash -c '. "$SHOOTOUT_ROOT/harness/lib.sh"; . "$SHOOTOUT_ROOT/harness/common.sh"
    MANIFEST=$1; data_totals; echo "$DS_FILES $DS_BYTES $DS_BLOCKS"' _ "$T/ds/manifest.tsv"
  [ "$status" -eq 0 ]
  [ "$output" = "3 10004294967296 $(((9999999999999 + 4095) / 4096 + 4294967296 / 4096 + 1))" ]
}

@test "records: rates of 10^13 bytes are plain numbers, never e-notation" {
  printf 'bytes\t10000000000000\tB\nfiles\t3028001\tfiles\nwall_s\t1\ts\n' >"$T/tool.stats"
  run bash -c '. "$SHOOTOUT_ROOT/harness/lib.sh"; . "$SHOOTOUT_ROOT/harness/common.sh"
    CUR_TRIAL=1; time_rates untar "$1"; cat "$(run_dir)/records.tsv"' _ "$T/tool.stats"
  [ "$status" -eq 0 ]
  [[ $output == *$'untar\t1\tmbps\t10000000\tMB/s'* ]]
  [[ $output == *$'untar\t1\tfiles_per_s\t3028001\tfiles/s'* ]]
}

@test "records: each tool's maxrss_kb per phase, the largest run of it, and tool_maxrss_kb" {
  mkdir -p "$T/w"
  printf 'wall_s\t10\ts\nuser_s\t1\ts\nsys_s\t1\ts\nmaxrss_kb\t4100\tKiB\n' >"$T/w/dltar.stats"
  printf 'wall_s\t10\ts\nuser_s\t1\ts\nsys_s\t1\ts\nmaxrss_kb\t5000000000\tKiB\n' >"$T/w/httpd1.stats"
  printf 'wall_s\t10\ts\nuser_s\t1\ts\nsys_s\t1\ts\nmaxrss_kb\t3000\tKiB\n' >"$T/w/httpd2.stats"
  printf 'wall_s\t10\ts\nuser_s\t1\ts\nsys_s\t1\ts\nmaxrss_kb\t9000\tKiB\n' >"$T/w/replay.stats"
  printf 'untar\tdltar\t%s\nserve-warm-2\thttpd\t%s\nserve-warm-2\thttpd\t%s\nserve-warm-2\treplay\t%s\n' \
    "$T/w/dltar.stats" "$T/w/httpd1.stats" "$T/w/httpd2.stats" "$T/w/replay.stats" >"$T/w/tool-cpu.tsv"
  run bash -c '. "$SHOOTOUT_ROOT/harness/lib.sh"; . "$SHOOTOUT_ROOT/harness/common.sh"
    CUR_TRIAL=1 WORK=$1; mkdir -p "$(run_dir)"; proof_record_cpu; cat "$(run_dir)/records.tsv"' _ "$T/w"
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output == *$'untar\t1\tmaxrss_kb_dltar\t4100\tKiB'* ]]
  [[ $output == *$'untar\t1\ttool_maxrss_kb\t4100\tKiB'* ]]
  [[ $output == *$'serve-warm-2\t1\tmaxrss_kb_httpd\t5000000000\tKiB'* ]]
  [[ $output == *$'serve-warm-2\t1\tmaxrss_kb_replay\t9000\tKiB'* ]]
  [[ $output == *$'serve-warm-2\t1\ttool_maxrss_kb\t5000000000\tKiB'* ]]
}

@test "records: server_cpu_us, httpd's user + sys over the record's requests, only where it served some" {
  mkdir -p "$T/w"
  printf 'wall_s\t10\ts\nuser_s\t0.25\ts\nsys_s\t1.5\ts\n' >"$T/w/httpd1.stats"
  printf 'wall_s\t10\ts\nuser_s\t0.05\ts\nsys_s\t0.2\ts\n' >"$T/w/httpd2.stats"
  printf 'wall_s\t10\ts\nuser_s\t1\ts\nsys_s\t1\ts\n' >"$T/w/replay.stats"
  printf 'wall_s\t10\ts\nuser_s\t1\ts\nsys_s\t1\ts\n' >"$T/w/dltar.stats"
  printf 'serve-warm-2\thttpd\t%s\t1\nserve-warm-2\thttpd\t%s\t1\nserve-warm-2\treplay\t%s\t1\n' \
    "$T/w/httpd1.stats" "$T/w/httpd2.stats" "$T/w/replay.stats" >"$T/w/tool-cpu.tsv"
  printf 'serve-warm-2\thttpd\t%s\t2\nuntar\tdltar\t%s\t1\n' "$T/w/httpd1.stats" "$T/w/dltar.stats" >>"$T/w/tool-cpu.tsv"
  run bash -c '. "$SHOOTOUT_ROOT/harness/lib.sh"; . "$SHOOTOUT_ROOT/harness/common.sh"
    CUR_TRIAL=1 WORK=$1; mkdir -p "$(run_dir)"
    record serve-warm-2 1 requests 80000 count; record serve-warm-2 2 requests 0 count
    record untar 1 requests 5 count
    proof_record_cpu; cat "$(run_dir)/records.tsv"' _ "$T/w"
  echo "$output"
  [ "$status" -eq 0 ]
  # (0.25 + 1.5 + 0.05 + 0.2) s over 80000 requests: 25 us; replay's CPU is not the server's
  [[ $output == *$'serve-warm-2\t1\tserver_cpu_us\t25.000\tus'* ]]
  # a trial that served no request, and a phase without httpd, have none
  [ "$(grep -c server_cpu_us <<<"$output")" -eq 1 ]
}

# ---- charts ------------------------------------------------------------------

# one_variant DIR SAMPLES : a run "big" of one host and one variant whose
# untar series has SAMPLES samples, a second apart, of tool_bytes rising by
# 10^13 / SAMPLES a sample to 10^13, with Dirty past 2^31 kB (every
# sample up to 1000 of them, else every 1000th); its wall_s
# record is 10^13 (a figure a chart's table must keep whole).
one_variant() {
  local d=$1/big/h1/ext4
  mkdir -p "$d/series"
  printf '{"fs": "ext4", "flush": "drop"}\n' >"$d/meta.json"
  printf 'phase\ttrial\tmetric\tvalue\tunit\nuntar\t1\twall_s\t10000000000000\ts\nuntar\t1\tstatus\t0\texit\n' >"$d/records.tsv"
  awk -v n="$2" 'BEGIN { s = 10000000000000 / n
    for (i = 1; i <= n; i++) {
      printf "%d.000\ttool_bytes\t%.0f\n", i, s * i
      if (n <= 1000 || i % 1000 == 0) printf "%d.000\tdirty_kb\t%.0f\n", i, 3000000000
    } }' \
    >"$d/series/untar-1.tsv"
}

@test "charts: a series passing 10^13 bytes charts the tool's rate and Dirty exactly; the table keeps 10^13 whole" {
  require_cmd gnuplot python3
  one_variant "$T/res" 100
  run make -C "$ROOT" --no-print-directory plots RESULTS="$T/res" RUN=big OUT="$T/out"
  echo "$output"
  [ "$status" -eq 0 ]
  # 10^11 bytes a second = 100000 MB/s; 3,000,000,000 kB = 3072000 MB
  [ "$(awk 'NR == 3 { print $2, $5 }' "$T/out/series-untar-1.dat")" = "100000 3072000" ]
  [ "$(awk -F '\t' 'NR == 2 { print $6 }' "$T/out/untar.tsv")" = 10000000000000 ]
}

@test "charts: one variant's series chart is wide enough for its title" {
  require_cmd gnuplot python3
  one_variant "$T/res" 10
  run make -C "$ROOT" --no-print-directory plots RESULTS="$T/res" RUN=big OUT="$T/out"
  [ "$status" -eq 0 ]
  title=$(sed -n "s/^chart_title = '\\(.*\\)'\$/\\1/p" "$T/out/series-untar.gp")
  width=$(sed -n 's/^width = //p' "$T/out/series-untar.gp")
  # the title is drawn at 12 points, about 8 pixels a character
  [ -n "$title" ]
  [ "$width" -ge $((8 * ${#title})) ] || { echo "width $width for a title of ${#title} characters"; false; }
}

@test "charts: a 1,000,000-sample series draws in seconds, from at most 2000 time slices" {
  require_cmd gnuplot python3
  one_variant "$T/res" 1000000
  start=$SECONDS
  run make -C "$ROOT" --no-print-directory plots RESULTS="$T/res" RUN=big OUT="$T/out"
  took=$((SECONDS - start))
  echo "$output"
  [ "$status" -eq 0 ]
  [ "$(grep -vc '^"' "$T/out/series-untar-1.dat")" -le 2000 ]
  # generous for a loaded 2-core machine: about 5 s when idle
  [ "$took" -le 60 ] || { echo "took $took s"; false; }
  # the rate stays the tool's: 10^7 bytes a second = 10 MB/s in every slice
  [ "$(awk 'NR > 1 && $2 != 10 { n++ } END { print n + 0 }' "$T/out/series-untar-1.dat")" -eq 0 ]
}
