#!/usr/bin/env bash
# What the report and the export cost as the results grow (docs/bench.md#the-report):
#  1. plots.py export and plots.py report of one variant with N records of N
#     distinct phase/metric pairs (100 metrics a phase), N in SIZES: the
#     seconds, and per 1,000 records (flat when the time is linear in N;
#     before issue 42 it grew with N: 2.7, 10.7, 39.8 s at 5k, 10k, 20k);
#  2. the kernel profile pages of VARIANTS variants of PHASES phases, every
#     profile STACKS distinct stacks (a flame graph of about 250 kB, as real
#     ones): the seconds to draw them, the size of profile.html and of the
#     SVGs, and how long headless Chromium takes to load profile.html, one
#     phase's page, and a page of that phase's graphs all as images (as
#     before issue 42: 56 real graphs loaded in 8 s, 1,652 not in 300 s).
#   env: SIZES ("5000 10000 20000") VARIANTS (40) PHASES (3) STACKS (700)
set -eu
cd "$(dirname "$0")/../.."
SIZES=${SIZES:-5000 10000 20000} VARIANTS=${VARIANTS:-40} PHASES=${PHASES:-3} STACKS=${STACKS:-700}
py=python3
[ ! -x /usr/bin/python3 ] || py=/usr/bin/python3
command -v gnuplot >/dev/null 2>&1 || { echo "report bench: needs gnuplot (make deps)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/report-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkrun=tests/fixtures/report-write/mkrun.py

# seconds CMD... : the wall seconds CMD took (its output dropped; it must succeed).
seconds() {
  local t0=$EPOCHREALTIME
  "$@" >"$tmp/out" 2>&1 || { cat "$tmp/out" >&2; echo "report bench: $* failed" >&2; exit 1; }
  awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }'
}

echo "report bench: export and report of N distinct phase/metric pairs (one variant)"
printf '%8s %9s %12s %9s %12s\n' records export_s "s/1k lines" report_s "s/1k lines"
for n in $SIZES; do
  "$py" "$mkrun" pairs "$tmp/r$n" big "$n"
  e=$(seconds "$py" plots/plots.py export --results "$tmp/r$n" --out "$tmp/e$n" big)
  r=$(seconds "$py" plots/plots.py report --results "$tmp/r$n" --out "$tmp/o$n" big)
  awk -v n="$n" -v e="$e" -v r="$r" 'BEGIN { printf "%8d %9.2f %12.3f %9.2f %12.3f\n", n, e, e * 1000 / n, r, r * 1000 / n }'
  rm -rf "$tmp/r$n" "$tmp/e$n" "$tmp/o$n"
done

echo "report bench: kernel profile pages of $VARIANTS variants x $PHASES phases, $STACKS stacks a profile"
[ -n "$(cd plots && "$py" -c 'import kprofile; print(kprofile.inferno("inferno-flamegraph") or "")')" ] ||
  { echo "report bench: inferno is not built (make deps): no profile pages measured"; exit 0; }
"$py" "$mkrun" profiles "$tmp/p" big "$VARIANTS" "$PHASES" "$STACKS"
d=$(seconds sh -c "cd plots && '$py' -c \"import resultslib, kprofile
kprofile.report_section([resultslib.load_run('$tmp/p', 'big')], '$tmp/po')\"")
out=$tmp/po
graphs=$(find "$out/profiles" -name '*.svg' | wc -l)
echo "drawn in $d s: $graphs flame graphs, $(du -sm "$out/profiles" | cut -f1) MB of SVG;" \
  "profile.html $(stat -c %s "$out/profile.html") bytes, $(grep -o '<img' "$out/profile.html" | wc -l) graphs on it;" \
  "$(find "$out/profiles" -name 'phase-*.html' | wc -l) phase pages"
if ! command -v chromium >/dev/null 2>&1; then
  echo "report bench: no chromium (harness/deps.sh install test): load times not measured"
  exit 0
fi
page=$(find "$out/profiles" -name 'phase-*.html' | sort | head -1)
[ -n "$page" ] || page=$out/profile.html
# the layout before issue 42: every graph of the first phase an image on one page
ph=$(basename "$page" .html)
ph=${ph#phase-}
{
  echo '<!DOCTYPE html><html><body>'
  find "$out/profiles" -name "$ph-*.svg" -printf '<img src="%f" width="1200">\n' | sort
  echo '</body></html>'
} >"$out/profiles/all-images.html"
# load FILE : seconds until headless Chromium has loaded FILE (at most 300).
load() {
  seconds timeout 300 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$tmp/chromium" \
    --window-size=1400,900 --dump-dom "file://$1"
}
echo "chromium load: profile.html $(load "$out/profile.html") s; $(basename "$page") $(load "$page") s;" \
  "$(grep -c '<img' "$out/profiles/all-images.html") graphs of $ph as images on one page (as before)" \
  "$(load "$out/profiles/all-images.html") s; chromium itself (an empty page)" \
  "$(echo '<!DOCTYPE html><p>x' >"$tmp/empty.html"; load "$tmp/empty.html") s"
