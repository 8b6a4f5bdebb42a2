#!/usr/bin/env bats
# The report and the comparison of a run with two operating systems: the
# committed fixture tests/fixtures/lab2os/lab-2os is a real `make lab
# LAB_OS="debian12 debian13"` run (see the README there): Debian 12 and
# Debian 13 guests, ext4 on each.
load helpers

FIX=${FIX:-tests/fixtures/lab2os}
RUN=lab-2os

setup() {
  require_cmd gnuplot python3 jq
  cd "$ROOT" || return 1
  OUT=$BATS_TEST_TMPDIR/out
}

# bar_of HOST : the label of HOST's ext4 bar in a bar chart's data: the
# host, the variant, then its OS and its kernel from the fixture's meta.json.
bar_of() {
  jq -r '"\"" + .host + " / ext4\\n" + .os + " " + .os_version + ", Linux " + .kernel + "\""' \
    "$FIX/$RUN/$1/ext4/meta.json"
}

# label_of HOST : the group label of HOST's guest in a side-by-side chart's
# instance: the host, its OS and its kernel from the fixture's meta.json.
label_of() {
  jq -r '"set label '\''" + .host + "'\'' . \"\\n\" . '\''" + .os + " " + .os_version + ", Linux " + .kernel + "'\''"' \
    "$FIX/$RUN/$1/ext4/meta.json"
}

@test "report of two OSes: every chart has a bar or a group per OS, named with its kernel, and the OS table" {
  run make --no-print-directory report RESULTS="$FIX" RUN="$RUN" OUT="$OUT"
  [ "$status" -eq 0 ]
  [[ $output == *"$OUT/index.html"* ]]
  local gp n=0 h l
  for gp in "$OUT"/*.gp; do
    n=$((n + 1))
    for h in debian12-1 debian13-1; do
      # A bar's label in the data (bars), or a group's label inside a panel's setup string (pairs).
      if grep -q 'hbars.gp' "$gp"; then
        grep -qF "$(bar_of "$h")" "${gp%.gp}.dat" || { echo "$gp: no bar of $h ($(bar_of "$h"))"; false; }
        continue
      fi
      l=$(label_of "$h")
      # inside a panel's setup string, itself quoted: each ' a "'" between pieces
      grep -qF "$l" "$gp" || grep -qF "${l//"'"/"' . \"'\" . '"}" "$gp" ||
        { echo "$gp: no group of $h ($l)"; false; }
    done
  done
  [ "$n" -ge 8 ]
  # The bars: one a filesystem and OS, both in one chart, sorted by result.
  for t in "$OUT"/untar.tsv "$OUT"/serve-cold-1.tsv "$OUT"/delete.tsv; do
    [ "$(cut -f2,3 "$t" | tail -n +2 | tr '\t\n' '/ ')" = "debian12-1/ext4 debian13-1/ext4 " ]
  done
  [ "$(grep -c '^[0-9]' "$OUT/untar.dat")" -eq 2 ]
  grep -q '^1 .*"debian12-1 / ext4.*"0.45 s  best"' "$OUT/untar.dat"
  # The replay settings say what ran: REPLAY_COUNT was 10,000, the tiny
  # dataset's request list 2,000 long.
  grep -q '<td>2,000 requests per serve phase, 100 connections, 10 per connection</td>' "$OUT/index.html"
  run grep -q 'first 10,000 requests' "$OUT/index.html"
  [ "$status" -eq 1 ]
  # The report's table of OSes side by side, both kernels named.
  grep -q 'Operating systems side by side' "$OUT/index.html"
  grep -qF "ext4 on $(jq -r '.os + " " + .os_version + ", Linux " + .kernel' "$FIX/$RUN/debian12-1/ext4/meta.json") (debian12-1)" "$OUT/index.html"
  grep -qF "ext4 on $(jq -r '.os + " " + .os_version + ", Linux " + .kernel' "$FIX/$RUN/debian13-1/ext4/meta.json") (debian13-1)" "$OUT/summary.md"
}

@test "compare RUN:debian12 against RUN:debian13: the same filesystem on the two OSes" {
  run make --no-print-directory compare RESULTS="$FIX" BASE="$RUN:debian12" NEW="$RUN:debian13" OUT="$OUT"
  [ "$status" -eq 0 ]
  [[ $output == *"comparison of $RUN:debian12 (base) and $RUN:debian13 (new)"* ]]
  grep -q "^| debian12-1 vs debian13-1 | ext4 | untar | wall_s | .* | [-+][0-9.]*% | - | cannot tell: 1 trial | - |$" "$OUT/compare.md"
  grep -q "^| debian12-1 vs debian13-1 | ext4 | serve-cold-1 | rps | " "$OUT/compare.md"
  # The change is the medians' (one trial each here).
  b=$(awk -F '\t' '$1 == "untar" && $3 == "wall_s" { print $4 }' "$FIX/$RUN/debian12-1/ext4/records.tsv")
  n=$(awk -F '\t' '$1 == "untar" && $3 == "wall_s" { print $4 }' "$FIX/$RUN/debian13-1/ext4/records.tsv")
  want=$(awk -v b="$b" -v n="$n" 'BEGIN { printf "%.2f", (n - b) / b * 100 }')
  [ "$(awk -F '\t' '$3 == "untar" && $4 == "wall_s" { print $14 }' "$OUT/compare.tsv")" = "$want" ]
  grep -q '<svg' "$OUT/compare.svg"
  # A host works as a side too; the default output directory has no colon.
  run make --no-print-directory compare RESULTS="$FIX" BASE="$RUN:debian12-1" NEW="$RUN:debian13"
  [ "$status" -eq 0 ]
  [ -s "plots/out/compare-$RUN-debian12-1-vs-$RUN-debian13/compare.md" ]
  rm -rf "plots/out/compare-$RUN-debian12-1-vs-$RUN-debian13"
}

@test "compare: an OS the run does not have is one line naming the OSes, hosts and variants it has" {
  run python3 plots/plots.py compare --results "$FIX" --out "$OUT" "$RUN:freebsd14" "$RUN:debian13"
  [ "$status" -ne 0 ]
  [ "${#lines[@]}" -eq 1 ]
  [ "$output" = "plots: run '$RUN' has no OS, host or variant 'freebsd14' (OSes: debian12, debian13; hosts: debian12-1, debian13-1; variants: ext4)" ]
}
