# shellcheck shell=bash
# inventory FILE VARIANTS-YAML [EXTRA-HOST-VARS-YAML] : a local one-host
# inventory for shootout.yml: this machine as the server (local connection,
# FLUSH=drop, nothing provisioned), its work directory $tmp/work (the
# caller's tmp).  For tests/playbooks.bats, tests/known-answers.bats and
# tests/bench/known-answers.bench.sh.
# shellcheck disable=SC2154 # tmp is the caller's
inventory() {
  cat >"$1" <<EOF
all:
  hosts:
    localhost:
      ansible_connection: local
      ansible_python_interpreter: /usr/bin/python3
      ansible_become: false
      shootout_role: server
      shootout_flush: drop
      shootout_provision: false
      shootout_workdir: $tmp/work
      shootout_variants: $2
${3:-}
EOF
}
