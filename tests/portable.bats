#!/usr/bin/env bats
# What a checkout needs to run on a system other than this one: scripts
# that find their interpreter wherever it is installed (bash and python3
# live in /usr/local/bin on FreeBSD and OpenBSD, /usr/pkg/bin on NetBSD;
# only /bin/sh and /usr/bin/env are in the same place everywhere).

ROOT=$(cd "$BATS_TEST_DIRNAME/.." && pwd)

# fixed_interpreter FILE : whether FILE's first line names an interpreter
# by a path of its own (#!/bin/bash, #!/usr/bin/python3) instead of
# #!/bin/sh or #!/usr/bin/env NAME.
fixed_interpreter() {
  head -n 1 -- "$1" | grep -a '^#!' | grep -qvE '^#![[:space:]]*(/bin/sh|/usr/bin/env[[:space:]]+[^[:space:]]+)([[:space:]]|$)'
}

@test "portable: every tracked script starts with #!/bin/sh or #!/usr/bin/env (no #!/bin/bash: bash is not in /bin on the BSDs)" {
  cd "$ROOT"
  bad=$(git ls-files -z | while IFS= read -r -d '' f; do
    if [ -f "$f" ] && [ ! -L "$f" ] && fixed_interpreter "$f"; then printf '%s: %s\n' "$f" "$(head -n 1 -- "$f")"; fi
  done)
  [ -z "$bad" ] || { printf 'an interpreter at a fixed path:\n%s\n' "$bad"; false; }
  # The check sees such a file, and passes the portable forms.
  T=$BATS_TEST_TMPDIR
  printf '#!/bin/bash\necho hi\n' >"$T/bash"
  printf '#!/bin/bash -eu\necho hi\n' >"$T/bash-eu"
  printf '#!/usr/bin/python3\n' >"$T/python"
  printf '#!/usr/bin/env bash\necho hi\n' >"$T/env"
  printf '#!/bin/sh\necho hi\n' >"$T/sh"
  printf 'echo hi\n' >"$T/none"
  fixed_interpreter "$T/bash"
  fixed_interpreter "$T/bash-eu"
  fixed_interpreter "$T/python"
  for ok in env sh none; do
    if fixed_interpreter "$T/$ok"; then echo "$ok taken for a fixed path"; false; fi
  done
}

@test "portable: the Makefile runs its recipes with the bash on PATH, not /bin/bash" {
  cd "$ROOT"
  # shellcheck disable=SC2016 # make expands $(SHELL), not the shell
  run make -s --no-print-directory --eval 'portable-shell: ; @echo "$(SHELL)"' portable-shell
  [ "$status" -eq 0 ]
  [ "$output" = "$(command -v bash)" ]
}

# bin_bash_uses FILE... : the lines (not comments) that name /bin/bash.
bin_bash_uses() {
  grep -nH '/bin/bash' -- "$@" | grep -vE '^[^:]+:[0-9]+:[[:space:]]*#'
}

@test "portable: nothing a host runs names /bin/bash (the playbooks, the harness, mk/: the BSDs have no /bin/bash and the playbooks make no link)" {
  cd "$ROOT"
  mapfile -t files < <(git ls-files -- playbooks harness mk)
  [ ${#files[@]} -gt 50 ]
  bad=$(bin_bash_uses "${files[@]}" || true)
  [ -z "$bad" ] || { printf 'names /bin/bash:\n%s\n' "$bad"; false; }
  # The check sees an Ansible shell task's executable and a link to it.
  T=$BATS_TEST_TMPDIR
  printf -- '- ansible.builtin.shell:\n    cmd: set -o pipefail; a | b\n    executable: /bin/bash\n' >"$T/task.yml"
  printf -- '# a comment about /bin/bash is fine\n- ansible.builtin.file: {dest: /bin/bash, state: link}\n' >"$T/link.yml"
  [ "$(bin_bash_uses "$T/task.yml" "$T/link.yml" | wc -l)" -eq 2 ]
}
