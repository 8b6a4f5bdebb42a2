#!/usr/bin/env bats
# The make front end: `make help` names only targets that exist, settings of
# harness/settings.tsv and docs that exist; a mistyped goal is one line with
# the nearest target and exit 2, while real file targets still build.
load helpers

# The targets make knows (as the Makefile's did_you_mean lists them).
targets() {
  make --no-print-directory -pRrq -C "$ROOT" 2>/dev/null |
    awk -F: '/^# Not a target/ { no = 1; next } /^[a-z][a-z0-9_+-]*:([^=]|$)/ && !no { print $1 } { no = 0 }' | sort -u
}

@test "make help: exits 0; every target, setting and document it names exists" {
  run make --no-print-directory -C "$ROOT" help
  [ "$status" -eq 0 ]
  [[ ${lines[0]} == "make TARGET [SETTING=value ...]"* ]]
  all=$(targets)
  named=$(printf '%s\n' "$output" | awk '/^  [a-z]/ { sub(/^  /, ""); sub(/  .*/, ""); print }' | tr ' ' '\n')
  [ "$(echo "$named" | wc -w)" -ge 20 ]
  for t in $named; do
    grep -qx -- "$t" <<<"$all" || { echo "make help names $t, which is no target"; return 1; }
  done
  for s in $(printf '%s\n' "$output" | grep -oE '^  ([A-Z_]+=[^ ]* ?)+' | grep -oE '[A-Z_]+='); do
    grep -q "^${s%=}"$'\t' "$ROOT/harness/settings.tsv" || { echo "make help names ${s%=}, no setting"; return 1; }
  done
  for d in $(printf '%s\n' "$output" | grep -oE '(docs/[a-z]+\.md|README\.md|harness/settings\.tsv)' | sort -u); do
    [ -f "$ROOT/$d" ] || { echo "make help names $d, which is missing"; return 1; }
  done
}

@test "make: a mistyped target is one line naming the nearest, exit 2, nothing run" {
  run make --no-print-directory -C "$ROOT" tset
  [ "$status" -eq 2 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ $output == *"*** no target 'tset' (did you mean 'test'? make help lists them).  Stop." ]]
  run make --no-print-directory -C "$ROOT" shotout TARGET=/nonexistent
  [ "$status" -eq 2 ]
  [[ $output == *"no target 'shotout' (did you mean 'shootout'? make help lists them)."* ]]
  # nothing near: no guess
  run make --no-print-directory -C "$ROOT" qqqqqqqq
  [ "$status" -eq 2 ]
  [[ $output == *"*** no target 'qqqqqqqq' (make help lists them).  Stop." ]]
}

@test "make: file targets and pattern rules still work beside the catch-all" {
  [ -x "$ROOT/bin/resident" ] || skip "needs bin/resident: make all first"
  # bin/resident is up to date: make -q says so (0), which it would not for
  # a goal that fell to the catch-all
  run make --no-print-directory -C "$ROOT" -q bin/resident
  [ "$status" -eq 0 ]
  run make --no-print-directory -C "$ROOT" -n build/default/resident/resident.o
  [ "$status" -eq 0 ]
}
