#!/usr/bin/env bats
# shellcheck disable=SC2154 # bats sets $stderr (run --separate-stderr)
# harness/icf2fio (Iometer .icf files to fio jobs) and harness/fio2records.
load helpers
bats_require_minimum_version 1.5.0

ICF2FIO=$ROOT/harness/icf2fio
FIO2REC=$ROOT/harness/fio2records
FIX=$ROOT/tests/fixtures/micro
STD=$ROOT/datasets/iometer

setup() {
  tmp=$(mktemp -d "${BATS_TMPDIR:-/tmp}/micro-icf.XXXXXX")
}

teardown() {
  rm -rf "$tmp"
}

# emit FILE : the fio jobs of FILE in $tmp/jobs.
emit() {
  "$ICF2FIO" --emit "$tmp/jobs" --file "$tmp/t.dat" --size 1048576 "$@"
}

# opt JOBFILE KEY : the value of KEY= in the job section(s) of JOBFILE.
opt() {
  awk -F= -v k="$2" '$1 == k { print substr($0, length(k) + 2) }' "$1"
}

@test "icf2fio: a saved Iometer 2006 file: run time, ramp-up, specs, outstanding I/Os" {
  run "$ICF2FIO" --check "$FIX/iometer-2006-local.icf"
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "$(printf 'run_s\t150\tramp_s\t15\ttest_type\tNORMAL')" ]
  [ "${lines[1]}" = "$(printf 'test\tmail8kmix.qd8\tMail 8K mix')" ]
  # A spec name may hold a comma: only the last one separates the assignment.
  [ "${lines[2]}" = "$(printf 'test\tbackupstream64k.qd8\tBackup stream, 64K')" ]
}

@test "icf2fio: lines of one spec keep their own read and random shares" {
  emit "$FIX/iometer-2006-local.icf"
  j=$tmp/jobs/01-mail8kmix.qd8.fio
  # 70% of I/Os: 8K, 75% reads, random, 4K aligned; 30%: 64K sequential writes.
  [ "$(opt "$j" rw | paste -sd' ')" = "randwrite randrw" ]
  [ "$(opt "$j" rwmixread)" = 75 ]
  [ "$(opt "$j" percentage_random | paste -sd' ')" = "0 100" ]
  [ "$(opt "$j" bssplit | paste -sd' ')" = "64k/100 8k/100" ]
  [ "$(opt "$j" blockalign | paste -sd' ')" = "512 4096" ]
  [ "$(opt "$j" flow | paste -sd' ')" = "30 70" ]
  [ "$(opt "$j" iodepth | paste -sd' ')" = "2 6" ]
  [ "$(opt "$j" runtime)" = 150 ]
  [ "$(opt "$j" ramp_time)" = 15 ]
}

@test "icf2fio: delay and burst become thinktime and thinktime_blocks" {
  emit "$FIX/iometer-2006-local.icf"
  j=$tmp/jobs/02-backupstream64k.qd8.fio
  [ "$(opt "$j" thinktime)" = 20000 ]
  [ "$(opt "$j" thinktime_blocks)" = 8 ]
  [ "$(opt "$j" rw)" = randread ]
  [ "$(opt "$j" percentage_random)" = 0 ]
}

@test "icf2fio: --icf-size takes the file's disk maximum size, runtime overrides apply" {
  emit --icf-size --runtime 3 --ramp 0 "$FIX/iometer-2006-local.icf"
  j=$tmp/jobs/01-mail8kmix.qd8.fio
  [ "$(opt "$j" size)" = 1048576 ] # the smaller of 1 MiB and 2097152 sectors
  [ "$(opt "$j" runtime)" = 3 ]
  [ "$(opt "$j" ramp_time)" = 0 ]
  "$ICF2FIO" --emit "$tmp/big" --file "$tmp/t.dat" --size 4294967296 --icf-size "$FIX/iometer-2006-local.icf"
  [ "$(opt "$tmp/big/01-mail8kmix.qd8.fio" size)" = 1073741824 ]
}

@test "icf2fio: network workers, remote managers and cycling are reported, not dropped" {
  run "$ICF2FIO" --check "$FIX/iometer-1.1-mixed.icf"
  [ "$status" -eq 0 ]
  [[ "$output" == *"iometer-1.1-mixed.icf:26: note: unsupported: test type CYCLE_WORKERS"* ]]
  [[ "$output" == *"iometer-1.1-mixed.icf:71: note: unsupported: worker 'Worker 2' is a NETWORK,TCP worker"* ]]
  [[ "$output" == *"iometer-1.1-mixed.icf:91: note: unsupported: remote manager 2 'BENCH02'"* ]]
  [[ "$output" == *"$(printf 'test\t4krandomread.qd4')"* ]]
  run "$ICF2FIO" --check --strict "$FIX/iometer-1.1-mixed.icf"
  [ "$status" -eq 3 ]
  [[ "$output" == *"unsupported parts and --strict: not run"* ]]
}

@test "icf2fio: standard workloads match their published definitions" {
  emit "$STD/fileserver.icf"
  j=$tmp/jobs/01-fileserver.qd1.fio
  [ "$(opt "$j" bssplit)" = "512/10:1k/5:2k/5:4k/60:8k/2:16k/4:32k/4:64k/10" ]
  [ "$(opt "$j" rwmixread)" = 80 ]
  [ "$(opt "$j" percentage_random)" = 100 ]
  set -- "$tmp"/jobs/*.fio
  [ $# -eq 6 ] # 1, 2, 4, 8, 16, 32 outstanding I/Os
  [ "$(opt "$tmp/jobs/06-fileserver.qd32.fio" iodepth)" = 32 ]
  rm -rf "$tmp/jobs"
  emit "$STD/webserver.icf"
  j=$tmp/jobs/01-webserver.qd1.fio
  [ "$(opt "$j" bssplit)" = "512/22:1k/15:2k/8:4k/23:8k/15:16k/2:32k/6:64k/7:128k/1:512k/1" ]
  [ "$(opt "$j" rw)" = randread ]
  [ "$(opt "$j" percentage_random)" = 100 ]
  rm -rf "$tmp/jobs"
  emit "$STD/workstation.icf"
  j=$tmp/jobs/01-workstation.qd1.fio
  [ "$(opt "$j" bssplit)" = 8k/100 ]
  [ "$(opt "$j" rwmixread)" = 80 ]
  [ "$(opt "$j" percentage_random)" = 80 ]
  rm -rf "$tmp/jobs"
  emit "$STD/oltp8k.icf"
  j=$tmp/jobs/01-8koltp.qd1.fio
  [ "$(opt "$j" bssplit)" = 8k/100 ]
  [ "$(opt "$j" rwmixread)" = 67 ]
  [ "$(opt "$j" percentage_random)" = 100 ]
}

@test "icf2fio: the 1-64 KB series: sizes, direction, order, 1/4/16 outstanding I/Os" {
  emit "$STD/seq-read.icf"
  [ "$(cut -f2 "$tmp/jobs/plan.tsv" | sed -n '2,4p' | paste -sd' ')" = \
    "sequentialread1k.qd1 sequentialread1k.qd4 sequentialread1k.qd16" ]
  [ "$(grep -h '^bssplit' "$tmp"/jobs/*.fio | sort -u | wc -l)" -eq 7 ]
  [ "$(opt "$tmp/jobs/21-sequentialread64k.qd16.fio" bssplit)" = 64k/100 ]
  [ "$(opt "$tmp/jobs/21-sequentialread64k.qd16.fio" percentage_random)" = 0 ]
  rm -rf "$tmp/jobs"
  emit "$STD/rand-write.icf"
  [ "$(opt "$tmp/jobs/01-randomwrite1k.qd1.fio" rw)" = randwrite ]
  [ "$(opt "$tmp/jobs/01-randomwrite1k.qd1.fio" percentage_random)" = 100 ]
  for f in "$STD"/*.icf; do "$ICF2FIO" --check "$f" >/dev/null; done
}

@test "icf2fio: a file with access specifications only runs them on the default workers" {
  sed -n "/^'ACCESS SPECIFICATIONS/,/^'END access specifications/p" "$STD/oltp8k.icf" |
    sed 's/^\t8K OLTP,NONE/\t8K OLTP,ALL/' >"$tmp/specs.icf"
  run "$ICF2FIO" --check "$tmp/specs.icf"
  [ "$status" -eq 0 ]
  [[ "$output" == *"note: no manager list: 1 default disk worker(s), each assigned '8K OLTP'"* ]]
  [[ "$output" == *"$(printf 'test\t8koltp.qd1\t8K OLTP')"* ]]
}

@test "icf2fio: --json gives the parsed configuration" {
  run "$ICF2FIO" --json "$FIX/iometer-2006-local.icf"
  [ "$status" -eq 0 ]
  [ "$(printf '%s\n' "$output" | jq -r '.specs["Mail 8K mix"].lines[0].size')" = 8192 ]
  [ "$(printf '%s\n' "$output" | jq -r '.managers[0].workers[0].qd')" = 8 ]
  [ "$(printf '%s\n' "$output" | jq -r '.tests | length')" = 2 ]
}

# malformed NAME SED-EXPRESSION : a broken copy of the 2006 fixture.
malformed() {
  sed "$2" "$FIX/iometer-2006-local.icf" >"$tmp/$1.icf"
}

@test "icf2fio: malformed files give one clear line naming the line" {
  malformed shares 's/^\t65536,30,0,0,0,1,0,0/\t65536,20,0,0,0,1,0,0/'
  run "$ICF2FIO" --check "$tmp/shares.icf"
  [ "$status" -eq 2 ]
  [ "$output" = "icf2fio: $tmp/shares.icf:49: access specification 'Mail 8K mix': % of size adds up to 90, not 100" ]
  malformed fields 's/^\t8192,70,75,100,0,1,4096,0/\t8192,70,75,100/'
  run "$ICF2FIO" --check "$tmp/fields.icf"
  [ "$status" -eq 2 ]
  [[ "$output" == "icf2fio: $tmp/fields.icf:48: access line"*"want 8 numbers"* ]]
  malformed notnum 's/^\t8192,70,75,100,0,1,4096,0/\t8192,70,lots,100,0,1,4096,0/'
  run "$ICF2FIO" --check "$tmp/notnum.icf"
  [[ "$output" == "icf2fio: $tmp/notnum.icf:48: access line"*"'lots' is not a whole number" ]]
  malformed pct 's/^\t8192,70,75,100,0,1,4096,0/\t8192,70,175,100,0,1,4096,0/'
  run "$ICF2FIO" --check "$tmp/pct.icf"
  [ "$output" = "icf2fio: $tmp/pct.icf:48: reads 175 is not a percentage" ]
  malformed unknown 's/^\tBackup stream, 64K$/\tBackup stream 64K/'
  run "$ICF2FIO" --check "$tmp/unknown.icf"
  [ "$status" -eq 2 ]
  [[ "$output" == "icf2fio: $tmp/unknown.icf:"*"which no access specification defines" ]]
  malformed noend "/^'END access specifications/d"
  run "$ICF2FIO" --check "$tmp/noend.icf"
  [ "$status" -eq 2 ]
  [[ "$output" == "icf2fio: $tmp/noend.icf:"*"section ACCESS SPECIFICATIONS has no 'END access specifications" ]]
  malformed qd 's/^\t8,DISABLED,1$/\t0,DISABLED,1/'
  run "$ICF2FIO" --check "$tmp/qd.icf"
  [ "$output" = "icf2fio: $tmp/qd.icf:66: number of outstanding I/Os 0 is below 1" ]
  printf 'hello world\n' >"$tmp/text.icf"
  run "$ICF2FIO" --check "$tmp/text.icf"
  [ "$status" -eq 2 ]
  [[ "$output" == "icf2fio: $tmp/text.icf:1: "* ]]
  run "$ICF2FIO" --check "$tmp/missing.icf"
  [ "$status" -eq 2 ]
  [[ "$output" == *"No such file or directory" ]]
}

@test "icf2fio: -h, --version, bad options" {
  run "$ICF2FIO" -h
  [ "$status" -eq 0 ]
  [[ "$output" == *"--emit DIR"* ]]
  run "$ICF2FIO" --version
  [ "$status" -eq 0 ]
  [[ "$output" == "icf2fio "* ]]
  run "$ICF2FIO" --frobnicate x.icf
  [ "$status" -eq 2 ]
  [ "$output" = "icf2fio: unknown option --frobnicate (see -h)" ]
  run "$ICF2FIO" --emit "$tmp/x" "$STD/oltp8k.icf"
  [ "$status" -eq 2 ]
  [ "$output" = "icf2fio: --emit needs --file PATH and --size BYTES" ]
}

@test "fio2records: a real fio report (with fio's warning before the JSON) gives the iometer figures" {
  run "$FIO2REC" "$FIX/fio-8koltp-qd4.json" 8koltp.qd4
  [ "$status" -eq 0 ]
  for m in iops read_iops write_iops mbps lat_mean_ms lat_p50_ms lat_p90_ms lat_p95_ms lat_p99_ms lat_p999_ms lat_max_ms errors; do
    printf '%s\n' "$output" | grep -q "^8koltp\.qd4\.$m	[0-9.e+-]*	" || { echo "no $m"; return 1; }
  done
  iops=$(printf '%s\n' "$output" | awk -F'\t' '$1 == "8koltp.qd4.iops" { print $2 }')
  r=$(printf '%s\n' "$output" | awk -F'\t' '$1 == "8koltp.qd4.read_iops" { print $2 }')
  w=$(printf '%s\n' "$output" | awk -F'\t' '$1 == "8koltp.qd4.write_iops" { print $2 }')
  awk -v a="$iops" -v r="$r" -v w="$w" 'BEGIN { exit !(a > 0 && (r + w) / a > 0.999 && (r + w) / a < 1.001 && r / a > 0.6 && r / a < 0.74) }'
  # reads and writes apart: bytes and I/Os as fio counted them, latencies of each
  printf '%s\n' "$output" >"$tmp/s"
  [ "$(awk -F'\t' '$1 == "8koltp.qd4.read_bytes" { print $2 }' "$tmp/s")" = 385875968 ]
  [ "$(awk -F'\t' '$1 == "8koltp.qd4.write_ios" { print $2 "/" $3 }' "$tmp/s")" = 23193/count ]
  [ "$(awk -F'\t' '$1 == "8koltp.qd4.read_lat_p99_ms" { print $2 }' "$tmp/s")" = 0.733184 ]
  [ "$(awk -F'\t' '$1 == "8koltp.qd4.write_lat_mean_ms" { print $2 }' "$tmp/s")" = 0.126936 ]
  [ "$(awk -F'\t' '$1 == "8koltp.qd4.write_mbps" { print $2 }' "$tmp/s")" = 94.9511 ]
}

@test "icf2fio: every disk field of Iometer 1.1 is run or named: the job mix keeps the outstanding I/Os, seeds, data patterns, targets" {
  run --separate-stderr emit "$FIX/iometer-1.1-fields.icf"
  [ "$status" -eq 0 ]
  j=$tmp/jobs/01-mix3.w2.qd1-3.fio
  # worker 1, 3 outstanding I/Os over three lines of 10/10/80 %: 1+1+1, not 1+1+2
  [ "$(awk '/^\[w1-/ { w = 1 } /^\[w2-/ { w = 0 } w && /^iodepth=/' "$j" | paste -sd' ')" = "iodepth=1 iodepth=1 iodepth=1" ]
  # worker 2, 1 outstanding I/O: one job, its % random the mean of the lines (10x100 + 10x50 + 80x0)
  [ "$(awk '/^\[w2-/ { w = 1 } w && /^(iodepth|percentage_random)=/' "$j" | paste -sd' ')" = "percentage_random=15 iodepth=1" ]
  [[ $stderr == *"iometer-1.1-fields.icf:36: note: approximated: access specification 'Mix3' at 1 outstanding I/O(s)"* ]]
  [[ $stderr == *"iometer-1.1-fields.icf:53: note: unsupported: test connection rate 100 of worker 'Worker 1'"* ]]
  # fixed seed 1234 (worker 1 only), data patterns 2 (full random) and 0 (repeating bytes)
  [ "$(opt "$j" randseed | paste -sd' ')" = "1234 1235 1236" ]
  [ "$(opt "$j" refill_buffers | sort -u)" = 1 ]
  [ "$(opt "$j" buffer_pattern)" = 0x5a ]
  # two targets: a file each, worker 2's only on the second
  [ "$(awk '/^\[w1-/ { w = 1 } w && /^filename=/ { print; exit }' "$j")" = "filename=$tmp/t.dat:$tmp/t.dat.t2" ]
  [ "$(awk '/^\[w2-/ { w = 1 } w && /^filename=/' "$j")" = "filename=$tmp/t.dat.t2" ]
  [ "$(cut -f 6-8 "$tmp/jobs/plan.tsv" | tail -1)" = "$(printf '2\t0\t2048')" ]
  # a ":" in the path is escaped for fio's filename list
  "$ICF2FIO" --emit "$tmp/c" --file "$tmp/a:b" --size 1048576 "$FIX/iometer-1.1-fields.icf" 2>/dev/null
  grep -qxF "filename=$tmp/a\:b" "$tmp/c/01-mix3.w2.qd1-3.fio"
}

# Iometer's data pattern 0 (repeating bytes) fills each write with a new
# random byte (memset(buf, rand(), size) an I/O); fio can only repeat one
# fixed byte (buffer_pattern), so the difference is a note, counted in the
# approximated record, wherever such a worker writes.
@test "icf2fio: data pattern 0 (repeating bytes) is named in a note where the worker writes, not for a reader" {
  run --separate-stderr "$ICF2FIO" --check "$FIX/iometer-1.1-fields.icf"
  [ "$status" -eq 0 ]
  [[ $stderr == *"iometer-1.1-fields.icf:81: note: approximated: data pattern 0 (repeating bytes) of worker 'Worker 2': its writes all repeat one byte (fio's buffer_pattern=0x5a), where Iometer fills each write with a new random byte"* ]]
  # worker 1 has pattern 2 (full random): fio's refill_buffers, no note
  [ "$(grep -c 'data pattern' <<<"$stderr")" -eq 1 ]
  # the standard workloads: Workstation writes (20%), Web Server only reads
  run --separate-stderr "$ICF2FIO" --check "$STD/workstation.icf"
  [[ $stderr == *"workstation.icf:63: note: approximated: data pattern 0 (repeating bytes) of worker 'Worker 1'"* ]]
  run --separate-stderr "$ICF2FIO" --check "$STD/webserver.icf"
  [ "$status" -eq 0 ]
  [[ $stderr != *"data pattern"* ]]
}

@test "iometer2csv: a row a test in Iometer 1.1's columns, from the .stats; a missing one is one line, exit 1" {
  mkdir -p "$tmp/r"
  printf 'job\tprefix\tspecs\tworkers\tqd\tdisks\tstart_sector\tmax_sectors\n01-x.qd4.fio\tx.qd4\tMix, 8K+Mix, 8K\t2\t4\t1\t0\t2048\n' \
    >"$tmp/r/plan.tsv"
  "$FIO2REC" "$FIX/fio-8koltp-qd4.json" x.qd4 >"$tmp/r/01-x.qd4.stats"
  printf 'x.qd4.cpu_pct\t37.5\t%%\n' >>"$tmp/r/01-x.qd4.stats"
  run --separate-stderr "$ROOT/harness/iometer2csv" "$tmp/r/plan.tsv"
  [ "$status" -eq 0 ]
  [ "${#lines[@]}" -eq 2 ]
  [[ ${lines[0]} == "'Target Type,Target Name,Access Specification Name,# Managers,# Workers,# Disks,IOps,Read IOps,Write IOps,MiBps (Binary),"* ]]
  printf '%s\n' "$output" | tail -n 1 >"$tmp/row"
  python3 - "$tmp/row" <<'PY'
import csv, sys
r = next(csv.reader(open(sys.argv[1])))
assert len(r) == 80, len(r)
assert r[:9] == ["ALL", "All", "Mix, 8K", "1", "2", "1", "35130.9", "23540.2", "11590.7"], r[:9]
assert abs(float(r[9]) - 287.793e6 / 2**20) < 0.01 and r[12] == "287.793", r[9:15]
assert r[17] == "0.112955" and r[18] == "0.106071" and r[19] == "0.126936", r[17:20]
assert r[30] == "385875968" and r[33] == "23193", r[30:34]
assert r[45:49] == ["0", "2048", "4", "37.5"], r[45:49]
assert r[28] == r[29] == r[36] == "", "unmeasured columns stay empty"
PY
  rm "$tmp/r/01-x.qd4.stats"
  run --separate-stderr "$ROOT/harness/iometer2csv" "$tmp/r/plan.tsv"
  [ "$status" -eq 1 ]
  [ "$stderr" = "iometer2csv: $tmp/r/01-x.qd4.stats: No such file or directory" ]
}

@test "fio2records --iozone: one kB/s figure a job, from the time in the I/O calls" {
  run "$FIO2REC" --iozone --job write,read,strideread "$FIX/fio-iozone-fs64k-rs4k.json" fs64k.rs4k
  [ "$status" -eq 0 ]
  [ "${#lines[@]}" -eq 3 ]
  [[ "${lines[0]}" == "write.fs64k.rs4k.kBps	"*"	kB/s" ]]
  [[ "${lines[2]}" == "strideread.fs64k.rs4k.kBps	"* ]]
  run "$FIO2REC" --iozone --job nosuch "$FIX/fio-iozone-fs64k-rs4k.json" x
  [ "$status" -eq 2 ]
  [[ "$output" == *"no job named nosuch" ]]
  printf 'not json\n' >"$tmp/bad.json"
  run "$FIO2REC" "$tmp/bad.json" x
  [ "$status" -eq 2 ]
  [[ "$output" == "fio2records: $tmp/bad.json: not a fio JSON report"* ]]
}
