# shellcheck shell=bash
# harness/preflight.sh: checks made before a phase starts work (sourced by
# common.sh).  Each failing check adds one line that says what to do;
# preflight_done prints them all and fails the phase if there is any.

PREFLIGHT_PROBLEMS=()

problem() {
  PREFLIGHT_PROBLEMS+=("$*")
}

preflight_done() {
  local p
  [ ${#PREFLIGHT_PROBLEMS[@]} -eq 0 ] && return 0
  for p in "${PREFLIGHT_PROBLEMS[@]}"; do printf 'preflight: %s\n' "$p" >&2; done
  fail "preflight: ${PREFLIGHT_PROBLEMS[0]}"
}

# human BYTES : "1.2 GB" style.
human() {
  awk -v b="$1" 'BEGIN { u = "B"; split("KB MB GB TB", s, " ");
    for (i = 1; b >= 1000 && i <= 4; i++) { b /= 1000; u = s[i] } printf (u == "B" ? "%d %s" : "%.1f %s"), b, u }'
}

# check_space DIR BYTES [FILES] : DIR's filesystem has BYTES (and FILES
# inodes, where the filesystem counts them) free.
check_space() {
  local dir=$1 need=$2 files=${3:-0} avail bsize ifree itotal
  read -r _ _ avail bsize itotal ifree < <(os_fs_space "$dir")
  avail=$((avail * bsize))
  if [ "$avail" -lt "$need" ]; then
    problem "$dir has $(human "$avail") free but DATASET=$DATASET needs about $(human "$need"): use a bigger filesystem or a smaller DATASET"
  fi
  if [ "$itotal" -gt 0 ] && [ "$ifree" -lt "$files" ]; then
    problem "$dir has $ifree free inodes but DATASET=$DATASET has $files files: make the filesystem with more inodes (e.g. mkfs.ext4 -i 4096) or use a smaller DATASET"
  fi
}

# check_dataset_space : the final tree (blocks of 4 KiB, plus 1% and 1 MB of
# slack for directories and metadata) fits on TARGET.
check_dataset_space() {
  manifest_totals
  check_space "$TARGET" $(((DS_BLOCKS * 4096) + (DS_BLOCKS * 4096) / 100 + 1048576)) "$DS_FILES"
}

# check_nofile NEED : raise the soft open-file limit to NEED (the most
# connections + 256; or the hard limit); a problem if it stays below NEED.
check_nofile() {
  local need=$1 soft hard
  soft=$(ulimit -Sn)
  hard=$(ulimit -Hn)
  [ "$soft" = unlimited ] && return 0
  [ "$soft" -ge "$need" ] && return 0
  if [ "$hard" = unlimited ] || [ "$hard" -ge "$need" ]; then
    ulimit -Sn "$need" 2>/dev/null && return 0
  fi
  ulimit -Sn "$hard" 2>/dev/null || true
  problem "the open-file limit is $(ulimit -Sn) (hard $hard) but serving $((need - 256)) connections needs $need: raise it (ulimit -Hn $need as root, LimitNOFILE= for a service) or lower REPLAY_CONC or NET_CONC"
}

# check_port : a PORT the user fixed must be free.
check_port() {
  [ -n "${PORT:-}" ] || return 0
  case $PORT in '' | *[!0-9]*) problem "PORT=$PORT is not a port number: leave PORT unset to pick a free one"; return 0 ;; esac
  if port_busy "$PORT"; then
    problem "port $PORT is in use: stop what listens there (ss -ltnp 'sport = :$PORT') or leave PORT unset to pick a free one"
  fi
}

# check_root WHAT : WHAT needs root.
check_root() {
  [ "$(id -u)" -eq 0 ] || problem "$1 needs root: run as root (sudo make ...) or use FLUSH=none"
}
