#!/usr/bin/env bats
# harness/postmark2records on captured PostMark reports.
load helpers

P2R=$ROOT/harness/postmark2records
FIX=$ROOT/tests/fixtures/micro

# val OUTPUT METRIC : the value of METRIC in stats lines.
val() {
  printf '%s\n' "$1" | awk -F'\t' -v m="$2" '$1 == m { print $2 }'
}

@test "postmark2records: the report of Debian's postmark 1.51" {
  run "$P2R" n300.t2000 "$FIX/postmark-1.51-300x2000.txt"
  [ "$status" -eq 0 ]
  [ "${#lines[@]}" -eq 23 ]
  [ "$(val "$output" n300.t2000.total_s)" = 1 ]
  [ "$(val "$output" n300.t2000.tps)" = 2000 ]
  [ "$(val "$output" n300.t2000.created)" = 1314 ]
  [ "$(val "$output" n300.t2000.created_alone)" = 300 ]
  [ "$(val "$output" n300.t2000.created_mixed)" = 1014 ]
  [ "$(val "$output" n300.t2000.read)" = 1021 ]
  [ "$(val "$output" n300.t2000.appended)" = 971 ]
  [ "$(val "$output" n300.t2000.deleted_alone)" = 328 ]
  [ "$(val "$output" n300.t2000.deleted_mixed_per_s)" = 986 ]
  [ "$(val "$output" n300.t2000.read_kBps)" = 6594.56 ] # 6.44 megabytes per second
  [[ "$output" == *"n300.t2000.tps	2000	trans/s"* ]]
  [[ "$output" == *"n300.t2000.created_per_s	1314	files/s"* ]]
  [[ "$output" == *"n300.t2000.written_kB	8499.2	kB"* ]]
}

@test "postmark2records: the report printed in the PostMark paper (v1.00)" {
  run "$P2R" paper "$FIX/postmark-1.00-paper.txt"
  [ "$status" -eq 0 ]
  [ "$(val "$output" paper.total_s)" = 41 ]
  [ "$(val "$output" paper.transaction_s)" = 17 ]
  [ "$(val "$output" paper.tps)" = 29 ]
  [ "$(val "$output" paper.created_mixed_per_s)" = 14 ]
  [ "$(val "$output" paper.deleted_alone_per_s)" = 40 ]
  [ "$(val "$output" paper.read_kBps)" = 31.86 ]
  [ "$(val "$output" paper.written_kBps)" = 102.49 ]
}

@test "postmark2records: several reports: each, and all of them together" {
  run "$P2R" x "$FIX/postmark-1.51-300x2000.txt" "$FIX/postmark-1.00-paper.txt"
  [ "$status" -eq 0 ]
  [ "$(val "$output" x.p1.tps)" = 2000 ]
  [ "$(val "$output" x.p2.tps)" = 29 ]
  [ "$(val "$output" x.tps)" = 2029 ]
  [ "$(val "$output" x.total_s)" = 41 ] # the longest, not the sum
  [ "$(val "$output" x.created)" = 2054 ]
}

@test "postmark2records: a truncated report is refused, naming what is missing" {
  head -12 "$FIX/postmark-1.51-300x2000.txt" >"$BATS_TEST_TMPDIR/cut.txt"
  run "$P2R" x "$BATS_TEST_TMPDIR/cut.txt"
  [ "$status" -eq 2 ]
  [[ "$output" == "postmark2records: $BATS_TEST_TMPDIR/cut.txt: not a complete PostMark report (no "*"read_kBps"* ]]
  run "$P2R" x
  [ "$status" -eq 2 ]
}

# PostMark's clock counts whole seconds: the same run reads 1 s or 2 s of
# transactions, 50,000 or 25,000 per second.  A report whose lines carry the
# time they were printed (phase-postmark writes them) gives the steps' times
# from that clock, and -t the rate of the transactions from it.
@test "postmark2records: a timed report: the steps' wall times and the rate from them, beside PostMark's" {
  awk 'BEGIN { t = 1000 } { t += (NR == 3 ? 0.25 : NR == 4 ? 1.6 : NR == 5 ? 0.125 : 0.001); printf "%.6f\t%s\n", t, $0 }' \
    "$FIX/postmark-1.51-300x2000.txt" >"$BATS_TEST_TMPDIR/timed.txt"
  run "$P2R" -t 2000 n300.t2000 "$BATS_TEST_TMPDIR/timed.txt"
  echo "$output"
  [ "$status" -eq 0 ]
  [ "$(val "$output" n300.t2000.tps)" = 2000 ]   # PostMark's: 2000 in "1 second"
  [ "$(val "$output" n300.t2000.create_wall_s)" = 0.25 ]
  [ "$(val "$output" n300.t2000.transaction_wall_s)" = 1.6 ]
  [ "$(val "$output" n300.t2000.delete_wall_s)" = 0.125 ]
  [[ "$output" == *"n300.t2000.tps_wall	1250	trans/s"* ]]
  [[ "$output" == *"n300.t2000.transaction_wall_s	1.6	s"* ]]
  # two instances: the longest step, the rates summed
  run "$P2R" -t 2000 x "$BATS_TEST_TMPDIR/timed.txt" "$BATS_TEST_TMPDIR/timed.txt"
  [ "$status" -eq 0 ]
  [ "$(val "$output" x.p2.tps_wall)" = 1250 ]
  [ "$(val "$output" x.tps_wall)" = 2500 ]
  [ "$(val "$output" x.transaction_wall_s)" = 1.6 ]
  # untimed reports have none of them; timed and untimed together are refused
  run "$P2R" -t 2000 y "$FIX/postmark-1.51-300x2000.txt"
  [ "$status" -eq 0 ]
  [[ "$output" != *wall* ]]
  run "$P2R" -t 2000 y "$FIX/postmark-1.51-300x2000.txt" "$BATS_TEST_TMPDIR/timed.txt"
  [ "$status" -eq 2 ]
  [ "$output" = "postmark2records: some reports are timed and some not: every one or none" ]
  run "$P2R" -t x y "$BATS_TEST_TMPDIR/timed.txt"
  [ "$status" -eq 2 ]
}
