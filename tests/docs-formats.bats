#!/usr/bin/env bats
# docs/formats.md against what the code writes: the tools are run on the tiny
# dataset and every --stats line, --series metric, sampler metric, dataset.txt
# key and meta.json key they write must have its row in the doc (with its unit
# or JSON type), so a new figure cannot land undocumented.  Also: nothing
# points at the old DESIGN.md / CONTRACTS.md, and every docs/formats.md#anchor
# names a heading of the doc.
load helpers

DOC_REL=docs/formats.md

setup_file() {
  local w=$BATS_FILE_TMPDIR port hpid i
  export OUTS=$w/outs
  mkdir -p "$OUTS" "$w/ds" "$w/tree"
  [ -x "$BIN/mkdataset" ] || return 0 # the tests say what is missing
  lane_share # its servers and the sampler: not while a solo test runs
  "$BIN/mkdataset" -p "$ROOT/datasets/tiny.profile" -s 1 -o "$w/ds/tiny-1" --stats "$OUTS/mkdataset.stats" >/dev/null
  "$BIN/dltar" --stats "$OUTS/dltar.stats" --series "$OUTS/dltar.series" -C "$w/tree" \
    "$w/ds/tiny-1/layout.tar.gz" >/dev/null
  "$BIN/resident" -n 20 "$w/tree" >"$OUTS/resident.stats"
  port=$(free_port)
  "$BIN/httpd" -q -r "$w/tree" -i 127.0.0.1 -p "$port" --stats "$OUTS/httpd.stats" 3>&- &
  hpid=$!
  wait_for_port "$port"
  # The manifest is the final tree, only the layout is served: some requests
  # fail, so replay also writes its failed_* lines (exit 1).
  "$BIN/replay" -c 4 -k 10 -u "$w/ds/tiny-1/requests.txt" -M "$w/ds/tiny-1/manifest.tsv" -n 300 \
    --stats "$OUTS/replay.stats" --series "$OUTS/replay.series" "127.0.0.1:$port" >/dev/null 2>&1 || true
  kill -TERM "$hpid"
  wait_for_exit "$hpid"
  "$BIN/rmtree" --stats "$OUTS/rmtree.stats" --series "$OUTS/rmtree.series" "$w/tree" >/dev/null
  # fsdisco: every test, as small and quick as it goes (a memory filesystem
  # when there is one).
  local fd=$w/fsdisco
  if [ -d /dev/shm ] && [ -w /dev/shm ]; then fd=$(mktemp -d /dev/shm/docs-formats.XXXXXX); fi
  mkdir -p "$fd"
  "$BIN/fsdisco" -q -i 1 --buffered --flush none -s 4m --min-res 1000000 --stats "$OUTS/fsdisco.stats" \
    all "$fd" >/dev/null 2>&1 || true
  [ "$fd" = "$w/fsdisco" ] || rm -rf "$fd"
  # The sampler: one sample of everything it reads here.
  "$ROOT/harness/sampler.sh" -o "$OUTS/sampler.series" -t "$w" -i 0.2 3>&- &
  i=$!
  wait_for_file "$OUTS/sampler.series"
  sleep 0.3 # the rest of that sample's lines
  kill -TERM "$i"
  wait_for_exit "$i"
  # meta.json of a run on this dataset.
  TARGET=$w RESULTS=$w/results RUN_ID=docs HOST=h VARIANT=v DATASETS_OUT=$w/ds DATASET=tiny SEED=1 \
    "$ROOT/harness/meta.sh" "$OUTS/meta.json"
  cp "$w/ds/tiny-1/dataset.txt" "$OUTS/dataset.txt"
  lane_done
}

setup() {
  DOC=$ROOT/$DOC_REL
  [ -f "$DOC" ] || { echo "no $DOC_REL"; return 1; }
}

# section HEADING : the lines of DOC under that exact heading line, up to the
# next heading of the same or a higher level.
section() {
  awk -v h="$1" '
    on && /^#+ / { l = index($0, " ") - 1; if (l <= level) exit }
    on { print }
    $0 == h { on = 1; level = index($0, " ") - 1 }' "$DOC"
}

# check_rows HEADING FILE : every "metric value unit" line of FILE has a row
# "| `metric` | `unit` |" under HEADING.
check_rows() {
  local heading=$1 file=$2 sec missing='' m u
  [ -s "$file" ] || { echo "nothing written to $file"; return 1; }
  sec=$(section "$heading")
  [ -n "$sec" ] || { echo "no section '$heading' in $DOC_REL"; return 1; }
  while IFS=$'\t' read -r m _ u _; do
    case $m in *.b[0-9]*) m=${m%.b*}.bK ;; esac # histogram buckets: one row
    grep -qF "| \`$m\` | \`$u\` |" <<<"$sec" || missing="$missing $m ($u)"
  done <"$file"
  [ -z "$missing" ] || { echo "undocumented under '$heading' (want a row | \`metric\` | \`unit\` |):$missing"; return 1; }
}

@test "docs/formats.md: every --stats line of mkdataset, dltar, replay, httpd, rmtree, fsdisco and resident has its row and unit" {
  local t failed=0
  for t in mkdataset dltar replay httpd rmtree fsdisco; do
    check_rows "### $t --stats" "$OUTS/$t.stats" || failed=1
  done
  check_rows "### resident (stdout)" "$OUTS/resident.stats" || failed=1
  [ "$failed" = 0 ]
}

# check_names HEADING FORMAT WHAT : every name on stdin (one a line) has the
# text printf FORMAT NAME under HEADING.
check_names() {
  local sec n missing=''
  sec=$(section "$1")
  while read -r n; do
    # shellcheck disable=SC2059 # the format is the caller's
    grep -qF "$(printf "$2" "$n")" <<<"$sec" || missing="$missing $n"
  done
  [ -z "$missing" ] || { echo "$3 not under '$1' of $DOC_REL:$missing"; return 1; }
}

@test "docs/formats.md: every --series metric of dltar, replay and rmtree is in 'Tool series'" {
  local t
  for t in dltar replay rmtree; do
    [ -s "$OUTS/$t.series" ] || { echo "$t wrote no series"; return 1; }
    cut -f 2 "$OUTS/$t.series" | sort -u | check_names "## Tool series" "| $t | \`%s\` |" "$t --series metrics"
  done
}

@test "docs/formats.md: every metric harness/sampler.sh writes is in 'Series'" {
  cut -f 2 "$OUTS/sampler.series" | sort -u | check_names "## Series" "| \`%s\` |" "series metrics"
}

@test "docs/formats.md: every meta.json key harness/meta.sh writes is in 'meta.json' with its JSON type" {
  require_cmd jq
  # "| `key` | type |" rows
  jq -r 'to_entries[] | "\(.key)` | \(.value | type)"' "$OUTS/meta.json" |
    check_names "## meta.json" "| \`%s |" "meta.json keys (with their JSON type)"
  # the dataset's figures are in it (the dataset existed when the run began)
  [ "$(jq -r .dataset_info.layout_files "$OUTS/meta.json")" -gt 0 ]
}

@test "docs/formats.md: every dataset.txt key mkdataset writes is in 'dataset.txt'" {
  cut -f 1 "$OUTS/dataset.txt" | check_names "### dataset.txt" "| \`%s\` |" "dataset.txt keys"
}

@test "docs/formats.md: every metric the harness records by name is in 'Records'" {
  # record PHASE TRIAL METRIC VALUE UNIT calls with a literal METRIC, and the
  # three that awk's printf writes in proof_record_cpu
  { grep -ohE '\brecord "?[^ ]+"? "?\$[A-Za-z0-9_{}]+"? [a-z_]+ ' "$ROOT"/harness/*.sh | awk '{ print $4 }'
    printf '%s\n' cpu_share_TOOL tool_cpu_share server_cpu_us; } | sort -u |
    check_names "## Records" "\`%s\`" "metrics recorded by harness/*.sh"
}

@test "docs/formats.md: every time-budget metric harness/common/budget.sh writes is in 'The time budget' with its unit" {
  local f=$BATS_TEST_TMPDIR/budget
  # two readings of this host: every figure the Linux adapter has
  SHOOTOUT_ROOT=$ROOT bash -c '. "$SHOOTOUT_ROOT/harness/os.sh"; . "$SHOOTOUT_ROOT/harness/common/budget.sh"
    BUDGET_DISK=$(awk "NF >= 14 { print \$3; exit }" /proc/diskstats)
    a=$(budget_snap); sleep 0.05; b=$(budget_snap)
    budget_records p 1 "" "$(os_cpu_hz)" "$a" "$b"; budget_records p 1 sync_ "$(os_cpu_hz)" "$a" "$b"' |
    cut -f 3- | sed 's/^sync_//' | sort -u >"$f"
  [ "$(wc -l <"$f")" -ge 11 ] || { cat "$f"; false; }
  check_rows "### The time budget" "$f"
  # the tools' user and sys (proof_record_cpu)
  # shellcheck disable=SC2016 # the backquotes are Markdown's
  section "### Records of each phase" | grep -qF '| `budget_user_s_TOOL`, `budget_sys_s_TOOL` | `s` |'
}

@test "docs/formats.md: the micro-benchmark converters' metrics and units are in 'Micro-benchmark records'" {
  local fx=$ROOT/tests/fixtures/micro sec t
  require_cmd python3
  "$ROOT/harness/fio2records" "$fx/fio-8koltp-qd4.json" SPEC.qdN >"$BATS_TEST_TMPDIR/iometer"
  check_rows "### Micro-benchmark records" "$BATS_TEST_TMPDIR/iometer"
  "$ROOT/harness/postmark2records" nF.tT "$fx/postmark-1.51-300x2000.txt" >"$BATS_TEST_TMPDIR/postmark"
  check_rows "### Micro-benchmark records" "$BATS_TEST_TMPDIR/postmark"
  "$ROOT/harness/fio2records" --iozone "$fx/fio-iozone-fs64k-rs4k.json" fsFk.rsRk >"$BATS_TEST_TMPDIR/iozone"
  sed 's/^[a-z]*\./TEST./' "$BATS_TEST_TMPDIR/iozone" | sort -u >"$BATS_TEST_TMPDIR/iozone.rows"
  check_rows "### Micro-benchmark records" "$BATS_TEST_TMPDIR/iozone.rows"
  # IOzone itself: its sweep and its throughput test, as iozone2records reads them
  { "$ROOT/harness/iozone2records" "$fx/iozone-3.489-sweep.out" | sed -E 's/^[a-z]+\.fs[0-9]+k\.rs[0-9]+k\./TEST.fsFk.rsRk./'
    "$ROOT/harness/iozone2records" "$fx/iozone-3.489-t2.out" |
      sed -E 's/^[a-z]+\.t[0-9]+\.fs[0-9]+k\.rs[0-9]+k\./TEST.tN.fsFk.rsRk./'; } |
    awk -F '\t' '!seen[$1]++' >"$BATS_TEST_TMPDIR/real.rows"
  [ "$(wc -l <"$BATS_TEST_TMPDIR/real.rows")" -eq 7 ]
  check_rows "### Micro-benchmark records" "$BATS_TEST_TMPDIR/real.rows"
  sec=$(section "### Micro-benchmark records")
  while IFS=. read -r t _; do
    grep -qw "$t" <<<"$sec" || { echo "iozone test $t is not named"; return 1; }
  done <"$BATS_TEST_TMPDIR/iozone"
}

@test "docs/formats.md: nothing points at DESIGN.md or CONTRACTS.md; every docs/formats.md#anchor is a heading" {
  local hits slugs a bad=''
  cd "$ROOT"
  hits=$(grep -rnE 'DESIGN\.md|CONTRACTS\.md' README.md Makefile harness tools httpd plots playbooks tests \
    --exclude=docs-formats.bats 2>/dev/null || true)
  [ -z "$hits" ] || { echo "still pointing at the old design files (point at $DOC_REL):"; echo "$hits"; return 1; }
  # GitHub's heading anchors: lower case, punctuation but - and _ dropped, spaces as -.
  slugs=$(grep -E '^#{1,6} ' "$DOC" | sed -E 's/^#+ //' | tr '[:upper:]' '[:lower:]' | sed -E 's/[^a-z0-9 _-]//g; s/ /-/g')
  for a in $( (grep -rhoE 'docs/formats\.md#[a-z0-9_-]+' README.md Makefile harness tools httpd plots playbooks \
    2>/dev/null | sed 's/.*#//'; grep -oE '\]\(#[a-z0-9_-]+\)' "$DOC" | sed -E 's/^\]\(#//; s/\)$//') | sort -u); do
    grep -qxF "$a" <<<"$slugs" || bad="$bad #$a"
  done
  [ -z "$bad" ] || { echo "anchors that name no heading of $DOC_REL:$bad"; return 1; }
}
