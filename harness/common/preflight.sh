# shellcheck shell=bash disable=SC2034
# harness/common/preflight.sh: checks made before a phase starts work
# (sourced by common.sh).  Each failing check adds one line that says what to
# do (preflight_problem); preflight_done prints them all and refuses the
# phase if there is any (exit 2, no trial recorded: phase_refuse).

PREFLIGHT_PROBLEMS=()

# preflight_problem MESSAGE : one more failed check.
preflight_problem() {
  PREFLIGHT_PROBLEMS+=("$*")
}

# preflight_done : every problem on stderr; the phase is refused at the
# first (exit 2, nothing in records.tsv or failures.tsv).
preflight_done() {
  local p
  [ ${#PREFLIGHT_PROBLEMS[@]} -eq 0 ] && return 0
  for p in "${PREFLIGHT_PROBLEMS[@]}"; do printf 'preflight: %s\n' "$p" >&2; done
  phase_refuse "preflight: ${PREFLIGHT_PROBLEMS[0]}"
}

# preflight_writable : TARGET (and TARGET/data, when there) can be written:
# a read-only mount is refused before a phase that writes starts.
preflight_writable() {
  local d
  for d in "$TARGET" "$DATA"; do
    [ -d "$d" ] || continue
    [ -w "$d" ] || preflight_problem "$d cannot be written (a read-only mount?): mount $TARGET read-write"
  done
}

# preflight_human BYTES : "1.2 GB" style.
preflight_human() {
  awk -v b="$1" 'BEGIN { u = "B"; split("KB MB GB TB", s, " ");
    for (i = 1; b >= 1000 && i <= 4; i++) { b /= 1000; u = s[i] } printf (u == "B" ? "%d %s" : "%.1f %s"), b, u }'
}

# preflight_space DIR BYTES [FILES] : DIR's filesystem has BYTES (and FILES
# inodes, where the filesystem counts them) free.
preflight_space() {
  local dir=$1 need=$2 files=${3:-0} avail bsize ifree itotal
  read -r _ _ avail bsize itotal ifree < <(os_fs_space "$dir")
  avail=$((avail * bsize))
  if [ "$avail" -lt "$need" ]; then
    preflight_problem "$dir has $(preflight_human "$avail") free but DATASET=$DATASET needs about $(preflight_human "$need"): use a bigger filesystem or a smaller DATASET"
  fi
  if [ "$itotal" -gt 0 ] && [ "$ifree" -lt "$files" ]; then
    preflight_problem "$dir has $ifree free inodes but DATASET=$DATASET has $files files: make the filesystem with more inodes (e.g. mkfs.ext4 -i 4096) or use a smaller DATASET"
  fi
}

# preflight_dataset_space : the final tree (blocks of 4 KiB, plus 1% and 1 MB of
# slack for directories and metadata) fits on TARGET.
preflight_dataset_space() {
  data_totals
  preflight_space "$TARGET" $(((DS_BLOCKS * 4096) + (DS_BLOCKS * 4096) / 100 + 1048576)) "$DS_FILES"
}

# preflight_nofile NEED : raise the soft open-file limit to NEED (the most
# connections + 256; or the hard limit); a problem if it stays below NEED.
preflight_nofile() {
  local need=$1 soft hard
  soft=$(ulimit -Sn)
  hard=$(ulimit -Hn)
  [ "$soft" = unlimited ] && return 0
  [ "$soft" -ge "$need" ] && return 0
  if [ "$hard" = unlimited ] || [ "$hard" -ge "$need" ]; then
    ulimit -Sn "$need" 2>/dev/null && return 0
  fi
  ulimit -Sn "$hard" 2>/dev/null || true
  preflight_problem "the open-file limit is $(ulimit -Sn) (hard $hard) but serving $((need - 256)) connections needs $need: raise it (ulimit -Hn $need as root, LimitNOFILE= for a service) or lower REPLAY_CONC or NET_CONC"
}

# preflight_port : a PORT the user fixed must be free at 127.0.0.1.
preflight_port() {
  preflight_port_at 127.0.0.1
}

# preflight_port_at ADDR... : a PORT the user fixed must be free at each
# ADDR the phase's servers listen on (::1 too for the IPv6 net phases: a
# server listening there alone would answer for an httpd that could not
# bind).
preflight_port_at() {
  local a
  [ -n "${PORT:-}" ] || return 0
  case $PORT in '' | *[!0-9]*) preflight_problem "PORT=$PORT is not a port number: leave PORT unset to pick a free one"; return 0 ;; esac
  for a in "$@"; do
    port_busy "$PORT" "$a" || continue
    preflight_problem "port $PORT is in use at $a: stop what listens there (ss -ltnp 'sport = :$PORT') or leave PORT unset to pick a free one"
    return 0
  done
}

# preflight_root WHAT : WHAT needs root.
preflight_root() {
  [ "$(id -u)" -eq 0 ] || preflight_problem "$1 needs root: run as root (sudo make ...) or use FLUSH=none"
}
