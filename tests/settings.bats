#!/usr/bin/env bats
# shellcheck disable=SC2016 # single quotes: code for bash -c, backquotes of markdown
# harness/settings.tsv, the one list of settings (name, default, groups,
# meaning), against what uses them: every setting the scripts read with a
# fallback (${NAME:-...}) or the make glue names is declared; a default
# written in a script is the declared one; the harness applies the declared
# defaults; make passes the declared names; the tables of docs/harness.md,
# docs/micro.md and docs/lab.md are the ones harness/settings-doc makes.
load helpers

# The variables the scripts read with a fallback that are not settings: the
# harness's own state, what the tests set (SHOOTOUT_OS), other programs'.
INTERNAL='BASHPID CUR_PHASE DATA_TMP FAIL_MSG FORK_CONC HTTPD_RUNS KEEP_STDERR MICRO_DIR PHASE_FRAME POLL_STEP
  REMOTE_DIR RUN_DIR SAMPLER_GROUP SAMPLER_TOTAL SOURCE_GROUP TOOL_OK SHOOTOUT_ROOT SHOOTOUT_OS TMPDIR
  CHILD ANSIBLE_CALLBACKS_ENABLED ANSIBLE_CONFIG DEPS_APT_ETC DEPS_OS_RELEASE SAMPLER_SERIES
  PHASE_EXITING LOCK_ERROR LOCK_ON_ORPHAN SHOOTOUT_LOCKERS SHOOTOUT_LOCK_FDS STRAYS_FILE STRAYS_WATCHER
  ROUNDS_UP ROUNDS_PROGRESS ROUNDS_DOWN ROUNDS_PID ROUNDS_STATS'

# scripts : the files that read settings, each with the group its defaults
# come from.
scripts() {
  local f
  for f in "$ROOT"/harness/*.sh "$ROOT"/harness/common/*.sh; do printf 'harness\t%s\n' "$f"; done
  for f in "$ROOT"/playbooks/lab/*.sh "$ROOT"/tests/lab/lab.bats; do printf 'lab\t%s\n' "$f"; done
  printf 'demo\t%s\n' "$ROOT/playbooks/demo.sh"
}

# check_settings : one line per problem (stdout), from SETTINGS (the list)
# and the scripts of `scripts`.
check_settings() {
  python3 - "${SETTINGS:-$ROOT/harness/settings.tsv}" "$INTERNAL" "$(scripts)" <<'PY'
import re, sys
rows = []
for line in open(sys.argv[1]):
    line = line.rstrip('\n')
    if not re.match(r'[A-Z]', line):
        continue
    f = line.split('\t')
    rows.append((f[0], f[1], f[2].split(',')))
declared = {r[0] for r in rows}
internal = set(sys.argv[2].split())
def norm(v):
    v = v.strip()
    if len(v) >= 2 and v[0] == v[-1] and v[0] in '"\'':
        v = v[1:-1]
    v = re.sub(r'\$\{?(ROOT|SHOOTOUT_ROOT)\b\}?', '${SHOOTOUT_ROOT}', v)
    return re.sub(r'\$([A-Z_][A-Z0-9_]*)', r'${\1}', v)
def default_for(name, group):
    want = {'harness': ('harness', 'micro')}.get(group, (group,))
    for n, d, gs in rows:
        if n == name and any(g in want for g in gs):
            return d
    for n, d, gs in rows:
        if n == name and 'harness' in gs:
            return d
    return None
for spec in sys.argv[3].splitlines():
    group, path = spec.split('\t')
    for no, line in enumerate(open(path), 1):
        if line.lstrip().startswith('#'):
            continue
        for m in re.finditer(r'\$\{([A-Z][A-Z0-9_]*):([-=+])', line):
            name, op = m.group(1), m.group(2)
            if name in internal:
                continue
            where = '%s:%d' % (path, no)
            if name not in declared:
                print('%s: %s is not declared in harness/settings.tsv' % (where, name))
                continue
            if op == '+':
                continue
            # the fallback, up to the brace that closes this one
            i, depth = m.end(), 1
            while i < len(line) and depth:
                depth += {'{': 1, '}': -1}.get(line[i], 0)
                i += 1
            value = line[m.end():i - 1]
            d = default_for(name, group)
            if d is None or d.startswith('(') or value == '':
                continue
            if norm(value) != norm(d):
                print('%s: %s defaults to %s here but to %s in harness/settings.tsv' % (where, name, value, d))
PY
}

@test "settings: every setting a script reads is declared, and a default written in a script is the declared one" {
  run check_settings
  [ "$status" -eq 0 ]
  [ -z "$output" ] || { echo "$output"; false; }
}

@test "settings: the check finds an undeclared setting and a default that drifted" {
  grep -v '^NET_COUNT	' "$ROOT/harness/settings.tsv" | sed 's/^FLUSH	drop	/FLUSH	remount	/' >"$BATS_TEST_TMPDIR/s.tsv"
  SETTINGS=$BATS_TEST_TMPDIR/s.tsv run check_settings
  [[ $output == *"NET_COUNT is not declared"* ]]
  [[ $output == *"FLUSH defaults to drop here but to remount"* ]]
}

@test "settings: the make glue names only declared settings and passes every one of its groups" {
  local mk names
  # $(NAME) and demo_given,NAME in the fragments, less what they define themselves
  names=$(cat "$ROOT"/harness/*.mk "$ROOT"/playbooks/*.mk | grep -oE '\$\([A-Z][A-Z0-9_]*\)|demo_given,[A-Z][A-Z0-9_]*' |
    sed -E 's/^\$\(//; s/\)$//; s/^demo_given,//' | sort -u)
  for n in $names; do
    grep -qE "^${n}[[:space:]]*(:=|\+=|=)" "$ROOT"/harness/*.mk "$ROOT"/playbooks/*.mk && continue
    [ "$n" = MAKEFILE_LIST ] && continue
    grep -q "^$n	" "$ROOT/harness/settings.tsv" || { echo "make uses $n, not in harness/settings.tsv"; false; }
  done
  mk=$(make -C "$ROOT" -s -pn 2>/dev/null)
  [ "$(grep '^HARNESS_VARS :=' <<<"$mk" | cut -d= -f2 | xargs -n1 | sort)" = \
    "$(awk -F '\t' '$1 ~ /^[A-Z]/ && $3 ~ /(^|,)(harness|micro)(,|$)/ { print $1 }' "$ROOT/harness/settings.tsv" | sort -u)" ]
  [ "$(grep '^LAB_VARS :=' <<<"$mk" | cut -d= -f2 | xargs -n1 | sort)" = \
    "$(awk -F '\t' '$1 ~ /^[A-Z]/ && $3 ~ /(^|,)lab(,|$)/ { print $1 }' "$ROOT/harness/settings.tsv" | sort -u)" ]
  # a setting given on the command line reaches the script, quoted
  run make -C "$ROOT" -n phase-untar TARGET=/nowhere "OFF_TARGET=it's" IOZONE_THREADS=2
  [[ $output == *"env TARGET='/nowhere'"*"OFF_TARGET='it'\\''s'"*"IOZONE_THREADS='2'"*"harness/phase-untar.sh"* ]]
}

@test "settings: the harness applies the declared defaults (values, not the computed ones)" {
  run env -i PATH="$PATH" SHOOTOUT_ROOT="$ROOT" HOST=h bash -c 'set -eu
    . "$SHOOTOUT_ROOT/harness/lib.sh"; . "$SHOOTOUT_ROOT/harness/common.sh"
    printf "%s|%s|%s|%s|%s|%s|%s\n" "$DATASET" "$FLUSH" "$SERVE_PROCS" "$DATASETS_OUT" "$REPLAY_BIN" "$SOURCE" "${PORT-unset}"'
  [ "$status" -eq 0 ]
  [ "$output" = "small|drop|1 32|$ROOT/datasets/out|$ROOT/bin/replay||unset" ]
  run env -i PATH="$PATH" SHOOTOUT_ROOT="$ROOT" HOST=h DATASET=tiny HARNESS_BIN=/opt/b bash -c 'set -eu
    . "$SHOOTOUT_ROOT/harness/lib.sh"; . "$SHOOTOUT_ROOT/harness/common.sh"; echo "$DATASET $REPLAY_BIN"'
  [ "$output" = "tiny /opt/b/replay" ]
}

@test "settings: the docs' tables are made from the list (a setting left out or a default changed is found)" {
  run "$ROOT/harness/settings-doc" --check
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  cp -r "$ROOT/harness" "$ROOT/docs" "$BATS_TEST_TMPDIR/"
  sed -i '/^| `NET_SIZE` |/d; s/^| `TRIALS` | `1` |/| `TRIALS` | `3` |/' "$BATS_TEST_TMPDIR/docs/harness.md"
  run "$BATS_TEST_TMPDIR/harness/settings-doc" --check
  [ "$status" -eq 1 ]
  [[ $output == *'+| `NET_SIZE` |'* ]]
  [[ $output == *'-| `TRIALS` | `3` |'* ]]
  [[ $output == *"the harness table of docs/harness.md differs"* ]]
  "$BATS_TEST_TMPDIR/harness/settings-doc" --update
  "$BATS_TEST_TMPDIR/harness/settings-doc" --check
}

@test "settings: every CHECK of the list is a kind settings_check knows, and each takes its values only" {
  # shellcheck source=harness/common/settings.sh
  . "$ROOT/harness/common/settings.sh"
  local c
  while read -r c; do
    [ -n "$(settings_want "$c")" ] || { echo "unknown CHECK $c"; false; }
  done < <(awk -F '\t' '$1 ~ /^[A-Z]/ && $5 != "" { print $5 }' "$ROOT/harness/settings.tsv" | sort -u)
  takes() { settings_valid "$@" || { echo "refused: $*"; return 1; }; }
  refuses() { if settings_valid "$@"; then echo "passed: $*"; return 1; fi; }
  takes bool 1
  takes bool 0
  refuses bool yes
  refuses bool "0';touch X;'"
  takes count 42
  refuses count 4x
  refuses count -1
  takes decimal 0.5
  refuses decimal 1e9
  takes size 64k
  takes size 123
  refuses size 2gb
  takes sizes "512k 1m"
  refuses sizes "512k x"
  takes name ext4-4k
  takes name 20260101T000000Z-host.2
  for bad in .. . ../x a/b -x .hidden 'a b' '$(id)'; do refuses name "$bad"; done
  takes names "debian12,debian13"
  refuses names "debian12 ../x"
  takes host ::
  takes host root@10.0.0.2
  takes host 'fe80::1%eth0'
  refuses host -oProxyCommand=x
  refuses host "a b"
  refuses host 'a;b'
  takes enum:drop\|none none
  refuses enum:drop\|none dro
  takes enums:block\|cache "cache block"
  refuses enums:block\|cache "block *"
}

# The lab's and make demo's settings go into YAML that Ansible reads as
# templates: a value is checked before it gets there.
@test "settings: lab.sh and demo.sh refuse a setting that is not what it should be (exit 2, naming it) before writing YAML" {
  local evil='{{ lookup("pipe", "touch X") }}'
  cd "$BATS_TEST_TMPDIR"
  printf 'name\tport\tpid\tacc\tstatus\tos\timage\nvm1\t2222\t1\ttcg\tup\tdebian12\t/k\n' >guests.tsv
  DATASET=$evil run "$ROOT/playbooks/lab/lab.sh" inventory guests.tsv /k/lab_key lab.yml
  [ "$status" -eq 2 ]
  [[ $output == "lab.sh: DATASET=$evil: want a single name"* ]]
  LAB_NET_COUNT='5000}, X: {{ 1 }}' run "$ROOT/playbooks/lab/lab.sh" inventory guests.tsv /k/lab_key lab.yml
  [ "$status" -eq 2 ]
  [[ $output == "lab.sh: LAB_NET_COUNT=5000}, X: {{ 1 }}: want a whole number" ]]
  [ ! -e lab.yml ]
  [ ! -e X ]
  DATASET=$evil run "$ROOT/playbooks/demo.sh"
  [ "$status" -eq 2 ]
  [[ $output == "demo.sh: DATASET=$evil: want a single name"* ]]
  DEMO_SIZE='4G
x' run "$ROOT/playbooks/demo.sh"
  [ "$status" -eq 2 ]
  [ "$output" = "demo.sh: DEMO_SIZE holds a control character (a newline, a tab...): a setting is one line of text" ]
  # untar changes TARGET: it cannot run twice in a cycle
  DEMO_REPEAT='serve:3,untar:2' run "$ROOT/playbooks/demo.sh"
  [ "$status" -eq 2 ]
  [ "$output" = "demo: DEMO_REPEAT=serve:3,untar:2: want PHASE:N items (serve, net or preload; N 1-99), e.g. serve:3,net:3, or none" ]
  [ ! -e X ]
  [ ! -e "$ROOT/X" ]

}

# A mistyped setting used to be ignored (the run went on with the default):
# one that looks like ours (a group prefix such as REPLAY_, or within two
# edits of a name) but is not in the list stops every entry point, naming
# the nearest one.  Ordinary environment variables never look like ours.
@test "settings: an undeclared setting that looks like ours stops the run with the nearest name; ordinary environment variables pass" {
  cd "$BATS_TEST_TMPDIR"
  run make -C "$ROOT" -s phase-serve TARGET="$BATS_TEST_TMPDIR" DATASET=tiny REPLAY_CONUT=5
  [ "$status" -eq 2 ]
  [ "$(grep -v '^make' <<<"$output")" = "phase-serve.sh: unknown setting REPLAY_CONUT (did you mean REPLAY_COUNT?)" ]
  TRAIL=2 run "$ROOT/harness/phase-untar.sh"
  [ "$status" -eq 2 ]
  [ "$output" = "phase-untar.sh: unknown setting TRAIL (did you mean TRIAL?)" ]
  SERVE_WHATEVER=1 run "$ROOT/harness/shootout.sh"
  [ "$status" -eq 2 ]
  [ "$output" = "shootout.sh: unknown setting SERVE_WHATEVER (not one of harness/settings.tsv)" ]
  LAB_CPUSS=4 run "$ROOT/playbooks/lab/lab.sh" inventory guests.tsv /k/lab_key lab.yml
  [ "$status" -eq 2 ]
  [ "$output" = "lab.sh: unknown setting LAB_CPUSS (did you mean LAB_CPUS?)" ]
  [ ! -e lab.yml ]
  # ordinary variables, for each group's check
  local ordinary=(PATH="$PATH" HOME=/root LANG=C.UTF-8 LC_ALL=C CI=true TERM=xterm MAKEFLAGS=-s MAKELEVEL=1
    MFLAGS=-s SHELL=/bin/bash USER=root LOGNAME=root PWD=/ OLDPWD=/ SHLVL=2 HOSTNAME=h HOSTTYPE=x86_64
    TMPDIR=/tmp TZ=UTC DISPLAY=:0 EDITOR=vi PAGER=less MAIL=/var/mail/root COLUMNS=80 LINES=24
    SSH_AUTH_SOCK=/s SSH_CONNECTION=x SUDO_USER=u SUDO_UID=0 SUDO_COMMAND=x GITHUB_ACTIONS=true RUNNER_OS=Linux
    GIT_DIR=.git DEBIAN_FRONTEND=noninteractive PYTHONPATH=/p LD_LIBRARY_PATH=/l XDG_RUNTIME_DIR=/run/user/0
    BATS_TMPDIR=/tmp DATA=/x SHOOTOUT_ROOT="$ROOT" HTTP_PROXY=x NO_PROXY=x ASAN_OPTIONS=x UBSAN_OPTIONS=x)
  local g
  for g in "harness micro" lab demo; do
    run env "${ordinary[@]}" bash -c '. "$SHOOTOUT_ROOT/harness/lib.sh"; . "$SHOOTOUT_ROOT/harness/common/settings.sh"; settings_check $1' \
      sh "$g"
    [ "$status" -eq 0 ] || { echo "$g: $output"; false; }
  done
  # and the near-miss check stays quiet for what is declared in any group
  run env SHOOTOUT_ROOT="$ROOT" LAB_OS=debian12 DEMO_SIZE=1G REPLAY_COUNT=5 bash -c '. "$SHOOTOUT_ROOT/harness/lib.sh"; . "$SHOOTOUT_ROOT/harness/common/settings.sh"; settings_check harness micro' sh
  [ "$status" -eq 0 ]
}

@test "settings: the near-miss check's shortcut (bag) never passes by a name dist would call near" {
  # bag is a lower bound of dist: a pair it rules out is 3 or more edits
  # apart, so the check names the same settings as with dist alone
  run awk "$(cat "$ROOT/harness/common/dist.awk")"'BEGIN { srand(7); L = "ABCDE_"
    for (t = 0; t < 5000; t++) {
      a = ""; b = ""; la = int(rand() * 9); lb = int(rand() * 9)
      for (i = 0; i < la; i++) a = a substr(L, int(rand() * 6) + 1, 1)
      for (i = 0; i < lb; i++) b = b substr(L, int(rand() * 6) + 1, 1)
      if (bag(a, b) > dist(a, b)) { print a " " b ": bag " bag(a, b) ", dist " dist(a, b); bad++ }
    }
    exit bad > 0 }'
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  # and it rules out: two words of other letters
  [ "$(awk "$(cat "$ROOT/harness/common/dist.awk")"'BEGIN { print bag("REPLAY_COUNT", "NET_SIZE"), bag("NET_CUNT", "NET_COUNT"), bag("CONUT", "COUNT") }')" = "8 1 0" ]
}
