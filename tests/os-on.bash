# shellcheck shell=bash disable=SC2016 # the adapter gets the text unexpanded
# tests/os-on.bash: loaded by the adapter tests (os-adapter.bats,
# os-bsd-recorded.bats).  ROOT is the repository.

# on OS FUNCTION ARGS... < INPUT : run FUNCTION of OS's adapter
# (harness/os/OS.sh, chosen through SHOOTOUT_OS) in a POSIX sh.
on() {
  local os=$1
  shift
  SHOOTOUT_ROOT=$ROOT SHOOTOUT_OS=$os sh -c '. "$SHOOTOUT_ROOT/harness/os.sh"; "$@"' sh "$@"
}

# The lanes' lock of tests/run.sh (tests/lane.bash), as helpers.bash takes it.
# shellcheck source=tests/lane.bash
. "$ROOT/tests/lane.bash"
