#!/usr/bin/env bats
# shellcheck disable=SC2154 # bats sets $stderr (run --separate-stderr)
# phase-iozone with IOzone itself (harness/iozone2records on IOzone 3.489's
# own output, recorded on this project's machine) and its emulation
# (harness/iozone-iolog: the record order of backward and stride read).
load helpers
bats_require_minimum_version 1.5.0

FX=$ROOT/tests/fixtures/micro

# value FILE METRIC : the value of METRIC in stats FILE.
value() {
  awk -F '\t' -v m="$2" '$1 == m { print $2 }' "$1"
}

@test "iozone2records: IOzone's -R sweep, every test of every cell as IOzone printed it" {
  run --separate-stderr "$ROOT/harness/iozone2records" "$FX/iozone-3.489-sweep.out"
  [ "$status" -eq 0 ]
  printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/s"
  # 13 tests x 3 file sizes x 3 record sizes, all kB/s
  [ "$(wc -l <"$BATS_TEST_TMPDIR/s")" -eq 117 ]
  [ "$(cut -f 3 "$BATS_TEST_TMPDIR/s" | sort -u)" = kB/s ]
  [ "$(value "$BATS_TEST_TMPDIR/s" write.fs64k.rs16k.kBps)" = 1947927 ]
  [ "$(value "$BATS_TEST_TMPDIR/s" strideread.fs256k.rs32k.kBps)" = 36024719 ]
  [ "$(value "$BATS_TEST_TMPDIR/s" freread.fs256k.rs64k.kBps)" = 23441229 ]
  [ "$(cut -d. -f 1 "$BATS_TEST_TMPDIR/s" | uniq | tr '\n' ' ')" = \
    "write rewrite read reread randread randwrite bkwdread recrewrite strideread fwrite frewrite fread freread " ]
  run "$ROOT/harness/iozone2records" --version "$FX/iozone-3.489-sweep.out"
  [ "$output" = 3.489 ]
}

@test "iozone2records: the throughput test, children and parent, min, max, avg and min xfer" {
  run --separate-stderr "$ROOT/harness/iozone2records" "$FX/iozone-3.489-t2.out"
  [ "$status" -eq 0 ]
  printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/t"
  local p=read.t2.fs512k.rs4k
  [ "$(value "$BATS_TEST_TMPDIR/t" $p.kBps)" = 7247613.5 ]
  [ "$(value "$BATS_TEST_TMPDIR/t" $p.parent_kBps)" = 824516.95 ]
  [ "$(value "$BATS_TEST_TMPDIR/t" $p.min_kBps)" = 3587997.5 ]
  [ "$(value "$BATS_TEST_TMPDIR/t" $p.max_kBps)" = 3659616 ]
  [ "$(value "$BATS_TEST_TMPDIR/t" $p.avg_kBps)" = 3623806.75 ]
  [ "$(value "$BATS_TEST_TMPDIR/t" $p.min_xfer_kB)" = 348 ]
  grep -q "^$p.min_xfer_kB	348	kB$" "$BATS_TEST_TMPDIR/t"
  # IOzone's tests 8-10 are there too, under our names
  [ "$(value "$BATS_TEST_TMPDIR/t" randmix.t2.fs512k.rs4k.kBps)" = 5831911.75 ]
  [ "$(value "$BATS_TEST_TMPDIR/t" pwrite.t2.fs512k.rs4k.kBps)" = 2804008.62 ]
  [ "$(value "$BATS_TEST_TMPDIR/t" pread.t2.fs512k.rs4k.kBps)" = 10118078 ]
  # 13 tests, 6 lines each
  [ "$(wc -l <"$BATS_TEST_TMPDIR/t")" -eq 78 ]
}

@test "iozone2records: not IOzone's output is one line and exit 1; bad usage exit 2" {
  run --separate-stderr "$ROOT/harness/iozone2records" "$FX/postmark-1.51-300x2000.txt"
  [ "$status" -eq 1 ]
  [ "$stderr" = "iozone2records: $FX/postmark-1.51-300x2000.txt: neither an -R report nor a throughput test in IOzone's output" ]
  [ -z "$output" ]
  run --separate-stderr "$ROOT/harness/iozone2records"
  [ "$status" -eq 2 ]
  [ "$stderr" = "iozone2records: usage: iozone2records [--version] OUTPUT" ]
}

# reads TEST RECORDS STRIDE : the record numbers iozone-iolog reads, in order.
reads() {
  "$ROOT/harness/iozone-iolog" "$1" /x "$2" 4096 "$3" | awk '$2 == "read" { printf "%d ", $3 / 4096 }'
}

@test "iozone-iolog: backward read covers every record from the last; stride read in IOzone's order" {
  [ "$(reads bkwdread 8 17)" = "7 6 5 4 3 2 1 0 " ]
  # as strace shows IOzone 3.489 reading a 64 KB file in 4 KB records, -j 5 and -j 7
  [ "$(reads strideread 16 5)" = "0 5 10 1 6 11 2 7 12 3 8 13 4 9 5 10 " ]
  [ "$(reads strideread 16 7)" = "0 7 1 8 2 9 3 10 4 11 5 12 6 13 7 8 " ]
  # no more records than the stride: record 0 each time (-j 17, 16 records)
  [ "$(reads strideread 16 17)" = "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 " ]
  # a 1 MB file in 4 KB records at the default stride: 254 records read, where fio's read:+N read 16
  [ "$(reads strideread 256 17 | tr ' ' '\n' | grep -c . )" -eq 256 ]
  [ "$(reads strideread 256 17 | tr ' ' '\n' | grep . | sort -un | wc -l)" -eq 254 ]
  "$ROOT/harness/iozone-iolog" strideread /x 4 4096 17 | head -3 >"$BATS_TEST_TMPDIR/h"
  [ "$(cat "$BATS_TEST_TMPDIR/h")" = "$(printf 'fio version 2 iolog\n/x add\n/x open')" ]
  run --separate-stderr "$ROOT/harness/iozone-iolog" sideways /x 4 4096 17
  [ "$status" -eq 2 ]
  [ "$stderr" = "usage: iozone-iolog bkwdread|strideread FILE RECORDS RECSIZE STRIDE (no test sideways)" ]
}

@test "iozone-iolog: the stride order is IOzone's own, read off strace" {
  require_cmd iozone strace
  local f=$BATS_TEST_TMPDIR/f.tmp j got
  for j in 3 5 17; do
    strace -o "$BATS_TEST_TMPDIR/st" -e trace=openat,lseek,read iozone -s 256k -r 4k -i 0 -i 5 -j "$j" -f "$f" >/dev/null
    # the reads of the stride test: the file opened read-only, its position
    # set by each lseek and moved on by each read
    got=$(awk -v f="\"$f\"" '
      /openat\(/ && index($0, f) && /O_RDONLY/ { fd = $NF; pos = 0; on = 1; next }
      on && $0 ~ "^lseek\\(" fd ", " { split($0, a, /[(,]/); pos = a[3] + 0 }
      on && $0 ~ "^read\\(" fd ", " && $NF == 4096 { printf "%d ", pos / 4096; pos += 4096 }' "$BATS_TEST_TMPDIR/st")
    [ "$got" = "$(reads strideread 64 "$j")" ] || { echo "-j $j: iozone $got"; echo "ours $(reads strideread 64 "$j")"; false; }
  done
}

@test "plots/iozone.py: a variant of emulated figures is named so in its heat map panel" {
  require_cmd gnuplot
  local r=$BATS_TEST_TMPDIR/results/run1 v
  for v in real emu; do
    mkdir -p "$r/h/$v"
    printf 'phase\ttrial\tmetric\tvalue\tunit\n' >"$r/h/$v/records.tsv"
    printf 'iozone\t1\t%s\t%s\t%s\n' engine "$([ $v = real ] && echo iozone || echo emulated)" text \
      read.fs64k.rs4k.kBps 1000 kB/s read.fs128k.rs4k.kBps 2000 kB/s >>"$r/h/$v/records.tsv"
  done
  run env RESULTS="$BATS_TEST_TMPDIR/results" "$ROOT/plots/iozone.py" -o "$BATS_TEST_TMPDIR/out" run1
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ "$(grep '^#' "$BATS_TEST_TMPDIR/out/read.dat" | paste -sd' ')" = "# run1/h/emu(emulated) # run1/h/real" ]
}
