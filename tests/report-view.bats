#!/usr/bin/env bats
# The report in a real browser (headless Chromium, Debian's chromium, in
# harness/deps.sh's test group): the example run's report at 1400 px and at
# a phone's 400 px, nothing running off the right edge, the phases' verdicts
# (winner, or why none) on the first screen.  A copy of index.html gets tests/fixtures/report-view/check.js
# (the report itself has no JavaScript), shown by frame.html in an iframe as
# wide as the screen tested; chromium --dump-dom prints what check.js saw.
load helpers

setup() {
  require_cmd gnuplot python3
  if ! command -v chromium >/dev/null 2>&1; then
    [ "$(id -u)" -ne 0 ] || { echo "chromium missing: make test-deps installs it" >&2; return 1; }
    skip "needs chromium (harness/deps.sh install test, as root)"
  fi
  cd "$ROOT" || return 1
  OUT=$BATS_TEST_TMPDIR/report
  make --no-print-directory report RUN=example OUT="$OUT" >/dev/null
  check_copy
}

# check_copy : OUT/check.html, the report with check.js in it.
check_copy() {
  { sed '$d' "$OUT/index.html"; printf '<script>\n'; cat tests/fixtures/report-view/check.js
    printf '</script></body></html>\n'; } >"$OUT/check.html"
}

# browser ARG... : headless chromium, 60 s at most, its chatter dropped.
browser() {
  timeout 60 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --user-data-dir="$BATS_TEST_TMPDIR/profile" "$@" 2>/dev/null
}

# view WIDTH : the line check.js wrote for the report WIDTH px wide, 900 high.
view() {
  sed "s/WIDTH/$1/; s/HEIGHT/900/" tests/fixtures/report-view/frame.html >"$OUT/frame-$1.html"
  browser --window-size=1400,900 --virtual-time-budget=5000 --dump-dom "file://$OUT/frame-$1.html" |
    sed -n '/<pre id="viewcheck">/,/<\/pre>/p'
}

# field NAME TEXT : the number after NAME= in TEXT.
field() {
  printf '%s\n' "$2" | grep -o "$1=[-0-9]*" | head -1 | cut -d= -f2
}

# fits WIDTH : the report WIDTH px wide has nothing past its right edge
# (wide tables scroll in a box of their own) and a card a ranked phase of the
# example (untar, its sync, untar2, its sync, six serve, four net, delete);
# sets V, the line check.js wrote.
fits() {
  V=$(view "$1")
  echo "$V"
  [ "$(field viewport "$V")" -eq "$1" ] || return 1
  [ "$(field scrollWidth "$V")" -le "$1" ] || return 1
  [ "$(field overflow "$V")" -eq 0 ] || return 1
  [ "$(field spill "$V")" -le 0 ] || return 1
  [ "$(field cards "$V")" -eq 15 ]
}

@test "report view: at 1400 px nothing overflows, and the first screen shows the first phase's verdict" {
  fits 1400
  top=$(field verdict_top "$V")
  [ "$top" -ge 0 ]
  [ "$top" -lt 900 ]
}

@test "report view: at a phone's 400 px nothing overflows; wide tables scroll in their own box" {
  fits 400
}

@test "report view: a screenshot of the first screen at 1400 px is a 1400 x 900 PNG with something drawn" {
  browser --window-size=1400,900 --screenshot="$OUT/first-screen.png" "file://$OUT/index.html" >/dev/null
  run file -b "$OUT/first-screen.png"
  [[ $output == "PNG image data, 1400 x 900"* ]]
  # a blank page compresses to a few kB; the demo's first screen is > 100 kB
  [ "$(stat -c %s "$OUT/first-screen.png")" -gt 50000 ]
}

@test "report view: a run of several trials (intervals under the marks, the overall table's 'vs first') fits at 1400, 1280 and 400 px, its variants' names whole" {
  # tests/fixtures/plots/mkaa.py: three variants, one 10% faster, a memory reference, disturbed trials
  python3 tests/fixtures/plots/mkaa.py "$BATS_TEST_TMPDIR/res" fast --trials 7 --memory mem --disturb A=2 --faster B=10
  OUT=$BATS_TEST_TMPDIR/fast
  make --no-print-directory report RESULTS="$BATS_TEST_TMPDIR/res" RUN=fast OUT="$OUT" >/dev/null
  check_copy
  for w in 1400 1280 400; do
    V=$(view "$w")
    echo "$V"
    [ "$(field scrollWidth "$V")" -le "$w" ]
    [ "$(field overflow "$V")" -eq 0 ]
    [ "$(field spill "$V")" -le 0 ]
    [ "$(field cards "$V")" -eq 6 ]
    [ "$(field broken "$V")" -eq 0 ]
  done
  # the demo's names, five figures of five digits with their intervals: at
  # 1280 px (three columns of cards) the names once broke letter by letter
  python3 tests/fixtures/plots/mkaa.py "$BATS_TEST_TMPDIR/res" names --trials 5 --variants ext4,ext2,ext3,xfs,btrfs
  OUT=$BATS_TEST_TMPDIR/names
  make --no-print-directory report RESULTS="$BATS_TEST_TMPDIR/res" RUN=names OUT="$OUT" >/dev/null
  check_copy
  for w in 1400 1280; do
    V=$(view "$w")
    echo "$V"
    [ "$(field overflow "$V")" -eq 0 ]
    [ "$(field broken "$V")" -eq 0 ]
  done
}
