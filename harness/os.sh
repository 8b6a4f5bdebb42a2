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
# The awk functions every adapter's mount-table parser starts with:
# unesc(s) decodes \040-style octal escapes (mountinfo, fstab, mount -p);
# under(d, m) tells whether path d lies in mount point m.
# shellcheck disable=SC2034 # used by the adapters sourced below
OS_AWK_MOUNT_LIB='
    function unesc(s,   out, i, c) {
      out = ""
      for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        if (c == "\\" && substr(s, i + 1, 3) ~ /^[0-7][0-7][0-7]$/) {
          out = out sprintf("%c", (substr(s, i + 1, 1) * 64) + (substr(s, i + 2, 1) * 8) + substr(s, i + 3, 1))
          i += 3
        } else out = out c
      }
      return out
    }
    function under(d, m) { return m == "/" || d == m || index(d, m "/") == 1 }
'
# shellcheck source=harness/os/linux.sh
. "$SHOOTOUT_ROOT/harness/os/$OS_ID.sh"
