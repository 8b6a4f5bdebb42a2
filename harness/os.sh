# shellcheck shell=sh
# harness/os.sh: loads the adapter of this operating system (sourced; POSIX
# sh).  Every OS-specific command of the harness lives in harness/os/<os>.sh:
# linux.sh, freebsd.sh, netbsd.sh, openbsd.sh, chosen by `uname -s`
# (SHOOTOUT_OS overrides it, for tests).  Each adapter defines the same
# functions (harness/os/README.md lists them); the os_parse_* ones read a
# command's output on stdin, so tests drive them with recorded outputs.

case ${SHOOTOUT_OS:-$(uname -s)} in
  Linux | linux) OS_ID=linux ;;
  FreeBSD | freebsd) OS_ID=freebsd ;;
  NetBSD | netbsd) OS_ID=netbsd ;;
  OpenBSD | openbsd) OS_ID=openbsd ;;
  *) OS_ID=unsupported ;;
esac
if [ "$OS_ID" = unsupported ]; then
  printf '%s: the harness has no adapter for %s (harness/os/ has linux, freebsd, netbsd, openbsd)\n' \
    "$(basename "$0")" "${SHOOTOUT_OS:-$(uname -s)}" >&2
  exit 1
fi
# shellcheck source=harness/os/linux.sh
. "$SHOOTOUT_ROOT/harness/os/$OS_ID.sh"
