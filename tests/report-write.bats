#!/usr/bin/env bats
# shellcheck disable=SC2016 # the stand-in programs get unexpanded text
# How make report writes OUT (plots/outdir.py, docs/results.md#where-a-report-goes):
# made aside and swapped in whole, so a report stopped by SIGKILL leaves the
# old one complete; only what an earlier report wrote (OUT/.plots-manifest)
# is replaced, a user's files stay; OUT inside the results is refused.  And
# what it writes at 40 variants (a profile page per phase, flame graphs
# loaded lazily) and at 20,000 phase/metric pairs (each variant's records
# read a fixed number of times).  The runs are made here by
# tests/fixtures/report-write/mkrun.py.
load helpers

setup() {
  require_cmd gnuplot
  cd "$ROOT" || return 1
  T=$BATS_TEST_TMPDIR
  RESULTS=$T/results OUT=$T/report
  PY=python3
  [ ! -x /usr/bin/python3 ] || PY=/usr/bin/python3
  # two variants, one phase of 3 trials, each trial with a kernel profile
  "$PY" tests/fixtures/report-write/mkrun.py profiles "$RESULTS" r 2 1
  # flame graphs by a stand-in inferno (tests/fixtures/report-write/inferno):
  # the layout is tested here, the real drawing in profile.bats
  export INFERNO_BIN=$ROOT/tests/fixtures/report-write/inferno
}

# report : make report of run r into OUT, its output in $T/report.out.
report() {
  make --no-print-directory report RESULTS="$RESULTS" RUN=r OUT="$OUT" >"$T/report.out" 2>&1
}

# files DIR : every file under DIR with its checksum, sorted.
files() {
  (cd "$1" && find . -type f -print0 | sort -z | xargs -0 md5sum)
}

@test "report write: SIGKILL while the charts are drawn leaves the old report complete in OUT; the next report clears what it left aside" {
  report || { cat "$T/report.out"; false; }
  echo "my notes" >"$OUT/README.md"
  files "$OUT" >"$T/before"
  grep -q ' ./index.html$' "$T/before"
  grep -q ' ./profile.html$' "$T/before"
  grep -q ' ./results.csv$' "$T/before"
  # a gnuplot that says it started, then blocks
  mkdir -p "$T/stub"
  printf '#!/bin/sh\n: >"%s/started"\nexec sleep 60\n' "$T" >"$T/stub/gnuplot"
  chmod +x "$T/stub/gnuplot"
  PATH="$T/stub:$PATH" setsid make --no-print-directory report RESULTS="$RESULTS" RUN=r OUT="$OUT" \
    >"$T/killed.out" 2>&1 &
  local pg=$!
  poll_until 60 test -e "$T/started" || { kill -KILL -- "-$pg"; cat "$T/killed.out"; false; }
  kill -KILL -- "-$pg"
  wait "$pg" || true
  poll_until 10 pid_gone "-$pg"
  files "$OUT" >"$T/after"
  diff "$T/before" "$T/after"
  # what the killed one made is beside OUT, not in it; the next report removes it
  ls -d "$T"/.report.plots-aside-*
  report || { cat "$T/report.out"; false; }
  run ls -d "$T"/.report.plots-aside-*
  [ "$status" -ne 0 ]
  [ "$(cat "$OUT/README.md")" = "my notes" ]
  [ -s "$OUT/index.html" ]
}

@test "report write: a user's files in OUT survive; only what an earlier report listed in .plots-manifest is replaced" {
  mkdir -p "$OUT"
  echo "my notes" >"$OUT/README.md"
  echo "my table" >"$OUT/mine.tsv"
  echo "my chart" >"$OUT/mine.svg"
  report || { cat "$T/report.out"; false; }
  [ "$(cat "$OUT/README.md")" = "my notes" ]
  [ "$(cat "$OUT/mine.tsv")" = "my table" ]
  [ "$(cat "$OUT/mine.svg")" = "my chart" ]
  # the manifest names what the report wrote, and none of the user's files
  grep -qx index.html "$OUT/.plots-manifest"
  grep -qx profiles "$OUT/.plots-manifest"
  run grep -x 'README.md\|mine.tsv\|mine.svg' "$OUT/.plots-manifest"
  [ "$status" -ne 0 ]
  # a chart of the first report that the second does not draw is gone; the user's files stay
  echo "old chart" >"$OUT/gone.png"
  echo gone.png >>"$OUT/.plots-manifest"
  report || { cat "$T/report.out"; false; }
  [ ! -e "$OUT/gone.png" ]
  [ "$(cat "$OUT/README.md")" = "my notes" ]
  [ "$(cat "$OUT/mine.svg")" = "my chart" ]
  # a file of a name the report writes that no report wrote: refused, one line, nothing lost
  local user=$T/user
  mkdir -p "$user"
  echo "my page" >"$user/index.html"
  run make --no-print-directory -s report RESULTS="$RESULTS" RUN=r OUT="$user"
  echo "$output"
  [ "$status" -ne 0 ]
  [ "$(printf '%s\n' "$output" | grep -c '^plots: ')" -eq 1 ]
  [[ $output == *"OUT=$user holds index.html, which no report wrote"* ]]
  [ "$(cat "$user/index.html")" = "my page" ]
  [ "$(ls -A "$user")" = index.html ]
  # a directory of the user's in OUT: refused before anything is drawn
  rm "$user/index.html"
  mkdir "$user/photos"
  run make --no-print-directory -s report RESULTS="$RESULTS" RUN=r OUT="$user"
  [ "$status" -ne 0 ]
  [[ $output == *"OUT=$user holds photos/, which no report wrote"* ]]
  [ "$(ls -A "$user")" = photos ]
}

@test "report write: where renameat2 cannot swap (not Linux), two renames give the same OUT: the new report, the user's files" {
  mkdir -p "$OUT"
  echo "my notes" >"$OUT/README.md"
  ln -s README.md "$OUT/notes.lnk"
  echo old >"$OUT/index.html"
  echo index.html >"$OUT/.plots-manifest"
  (cd plots && "$PY" - "$OUT" <<'PY')
import os, sys
import outdir
outdir.exchange = lambda a, b: False
with outdir.Aside(sys.argv[1], []) as tmp:
    with open(os.path.join(tmp, "index.html"), "w") as f:
        f.write("new\n")
PY
  [ "$(cat "$OUT/index.html")" = new ]
  [ "$(cat "$OUT/README.md")" = "my notes" ]
  [ "$(readlink "$OUT/notes.lnk")" = README.md ]
  [ "$(cat "$OUT/.plots-manifest")" = index.html ]
  run ls -d "$T"/.report.plots-aside-*
  [ "$status" -ne 0 ]
}

@test "report write: OUT=a run directory or the results root is refused with one line; the run's summary.tsv stays" {
  printf 'run\tsummary\n' >"$RESULTS/r/summary.tsv"
  files "$RESULTS" >"$T/before"
  local o
  for o in "$RESULTS/r" "$RESULTS" "$RESULTS/r/h" "$RESULTS/r/report"; do
    run make --no-print-directory -s report RESULTS="$RESULTS" RUN=r OUT="$o"
    echo "$output"
    [ "$status" -eq 2 ]
    [ "$(printf '%s\n' "$output" | grep -c '^plots: ')" -eq 1 ]
    [[ $output == "plots: OUT=$o is in $RESULTS, where the runs are"* ]]
    # make plots too
    run make --no-print-directory -s plots RESULTS="$RESULTS" RUN=r OUT="$o"
    [ "$status" -eq 2 ]
  done
  files "$RESULTS" >"$T/after"
  diff "$T/before" "$T/after"
  [ ! -e "$RESULTS/r/report" ]
  run ls -A "$RESULTS"
  [ "$output" = r ]
}

# profile_of RESULTS RUN OUT : kprofile's section of the report of RUN (profile.html and its pages in OUT).
profile_of() {
  (cd plots && "$PY" -c "import resultslib, kprofile
print('\n'.join(kprofile.report_section([resultslib.load_run('$1', '$2')], '$3')))")
}

# images PAGE : the <img> tags of PAGE, one a line.
images() {
  grep -o '<img [^>]*>' "$1" || true
}

@test "report write: profile.html of 40 variants links a page per phase; no page shows more than 30 flame graphs as images" {
  rm -rf "$RESULTS"
  "$PY" tests/fixtures/report-write/mkrun.py profiles "$RESULTS" big 40 2
  profile_of "$RESULTS" big "$OUT" >"$T/section"
  cat "$T/section"
  grep -q 'href="profile.html"' "$T/section"
  # 2 phases of 40 flame graphs and 2 x 39 differential ones
  grep -q '(2 phases, 236 flame graphs)' "$T/section"
  local p=$OUT/profile.html ph page
  # the page itself: each phase's top tables and a link, no graph (main: 236 images, 1,652 and 432 MB at 14 phases)
  [ "$(stat -c %s "$p")" -lt 100000 ]
  [ "$(images "$p" | wc -l)" -eq 0 ]
  [ "$(grep -c 'top kernel functions by children share' "$p")" -eq 2 ]
  for ph in phase0 phase1; do
    grep -q "<h2 id=\"profile-$ph\">$ph</h2>" "$p"
    grep -q "<a href=\"profiles/phase-$ph.html\">The 118 flame graphs of $ph.*(as links: too many to show at once)" "$p"
    page=$OUT/profiles/phase-$ph.html
    # the phase's page: its 118 graphs as links to their SVGs, every one there; the differences' tables
    [ "$(images "$page" | wc -l)" -eq 0 ]
    [ "$(grep -o '<a href="[^"]*\.svg">' "$page" | sort -u | wc -l)" -eq 118 ]
    grep -o '<a href="[^"]*\.svg">' "$page" | cut -d'"' -f2 | while read -r f; do
      [ -s "$OUT/profiles/$f" ] || { echo "no $f"; return 1; }
    done
    [ "$(grep -c '<h4>h / v[0-9]* against h / v00</h4>' "$page")" -eq 39 ]
    [ "$(grep -c 'share: largest changes, h / v[0-9]* against h / v00' "$page")" -eq 78 ]
    grep -q '<a href="../profile.html">All phases</a>' "$page"
  done
  # 6 variants of 2 phases, 16 graphs each: a page a phase, its graphs as images, sized and lazy
  rm -rf "$OUT"
  "$PY" tests/fixtures/report-write/mkrun.py profiles "$T/six" six 6 2
  profile_of "$T/six" six "$OUT" >/dev/null
  [ "$(images "$OUT/profile.html" | wc -l)" -eq 0 ]
  for ph in phase0 phase1; do
    page=$OUT/profiles/phase-$ph.html
    [ "$(images "$page" | wc -l)" -eq 16 ]
    [ "$(images "$page" | grep -c '^<img src="[^"/]*\.svg" alt="[^"]*" width="1200" height="150" loading="lazy">$')" -eq 16 ]
  done
  # 2 variants: everything on profile.html, as before
  rm -rf "$OUT"
  "$PY" tests/fixtures/report-write/mkrun.py profiles "$T/small" s 2 1
  profile_of "$T/small" s "$OUT" >/dev/null
  [ "$(images "$OUT/profile.html" | grep -c 'src="profiles/[^"]*\.svg".*loading="lazy"')" -eq 4 ]
  grep -q '<h4>h / v01 against h / v00</h4>' "$OUT/profile.html"
  [ ! -e "$OUT/profiles/phase-phase0.html" ]
}

@test "report write: export of 20,000 phase/metric pairs reads each variant's records a fixed number of times, not once per pair" {
  # main read records.tsv's lines once per pair (values, unit, budget): 20k pairs took 40 s; the
  # time itself is tests/bench/report.bench.sh's
  local n
  for n in 2000 20000; do
    "$PY" tests/fixtures/report-write/mkrun.py pairs "$T/pairs$n" big "$n"
  done
  (cd plots && "$PY" - "$T" <<'PY') >"$T/scans"
import sys
import export, resultslib

class Counted(list):
    """A records list that counts how often it is read through."""
    scans = 0

    def __iter__(self):
        Counted.scans += 1
        return list.__iter__(self)

for n in (2000, 20000):
    run = resultslib.load_run("%s/pairs%d" % (sys.argv[1], n), "big")
    for v in run.variants:
        v.records = Counted(v.records)
    Counted.scans = 0
    table = export.rows([run])
    export.write_composite([run], table, "%s/composite-%d.xml" % (sys.argv[1], n))
    print(n, len(table), Counted.scans)
PY
  cat "$T/scans"
  read -r _ rows2k scans2k < <(sed -n 1p "$T/scans")
  read -r _ rows20k scans20k < <(sed -n 2p "$T/scans")
  [ "$rows2k" -eq 2000 ]
  [ "$rows20k" -eq 20000 ]
  [ "$scans20k" -le 10 ]
  [ "$scans20k" -eq "$scans2k" ]
}

@test "report write: make report of a run with profiles makes sure of the profile deps (inferno); of one without, not" {
  run make --no-print-directory -n report RESULTS="$RESULTS" RUN=r OUT="$OUT"
  echo "$output"
  [[ $output == *"harness/deps.sh ensure plots profile"* ]]
  rm -r "$RESULTS"/r/h/*/profiles
  run make --no-print-directory -n report RESULTS="$RESULTS" RUN=r OUT="$OUT"
  [[ $output == *"harness/deps.sh ensure plots"* ]]
  [[ $output != *"ensure plots profile"* ]]
}
