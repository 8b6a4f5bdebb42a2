# shellcheck shell=bash
# CPU-capped cgroups for tests/known-answers.bats and
# tests/bench/known-answers.bench.sh: a known slowdown to inject.  cgroup v2
# (cpu.max, cpu.weight) where its root has the cpu controller, else v1's cpu
# hierarchy (cpu.cfs_quota_us, cpu.shares).  The caller keeps the array
# `groups` (every group made, to rmdir at its end); BIN is the tools' bin/.
# Needs harness/poll.sh (free_port, poll_until, port_busy, pid_gone).

# cg_root : the directory new CPU-capped groups go into: cgroup v2's root
# when it has the cpu controller, else v1's cpu hierarchy.
cg_root() {
  if grep -qw cpu /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
    grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control || echo +cpu >/sys/fs/cgroup/cgroup.subtree_control
    echo /sys/fs/cgroup
  elif [ -w /sys/fs/cgroup/cpu/cpu.cfs_quota_us ] || [ -d /sys/fs/cgroup/cpu ]; then
    echo /sys/fs/cgroup/cpu
  else
    return 1
  fi
}

# cg_new VAR NAME CPUS : a new group capped at CPUS (a decimal) of one CPU
# over a 10 ms period (short, so that phases of a fraction of a second are
# throttled evenly, not in one 100 ms lump), weighted as ten tasks so that
# it gets its cap however busy the machine is.  Its directory goes into
# VAR and the array groups.
cg_new() {
  local root dir quota
  root=$(cg_root) || return 1
  dir=$root/shootout-known-$$-$2
  quota=$(awk -v c="$3" 'BEGIN { printf "%d", c * 10000 }')
  mkdir "$dir" || return 1
  groups+=("$dir")
  if [ -e "$dir/cpu.max" ]; then
    echo "$quota 10000" >"$dir/cpu.max"
    echo 1000 >"$dir/cpu.weight"
  else
    echo 10000 >"$dir/cpu.cfs_period_us"
    echo "$quota" >"$dir/cpu.cfs_quota_us"
    echo 10240 >"$dir/cpu.shares"
  fi
  printf -v "$1" '%s' "$dir"
}

# in_group DIR COMMAND... : COMMAND in the group DIR.
in_group() {
  local dir=$1
  shift
  sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$dir" "$@"
}


# cg_net_rps GROUP DIR COUNT : the requests/s bin/replay reports (--stats
# rps, as the net phase records it) for COUNT requests of DIR/file.jpg from
# bin/httpd -N 1, both in GROUP: the net phase's workload without the phase
# around it.
cg_net_rps() {
  local port pid rc=0
  port=$(free_port)
  # A session of its own: httpd -N forks its worker, and the whole group stops at the end.
  # shellcheck disable=SC2016 # the inner shell's own $$, $1 and $@
  setsid sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$1" \
    "$BIN/httpd" -q -N 1 -r "$2" -i 127.0.0.1 -p "$port" >>"$2.httpd.log" 2>&1 &
  pid=$!
  poll_until 10 port_busy "$port" || { kill -- "-$pid"; return 1; }
  rm -f "$2.stats"
  in_group "$1" "$BIN/replay" -c 50 -k 10 -U /file.jpg -n "$3" --stats "$2.stats" "127.0.0.1:$port" \
    >/dev/null 2>&1 || rc=$?
  kill -- "-$pid"
  wait "$pid" 2>/dev/null || true
  poll_until 10 pid_gone "-$pid" || return 1
  [ "$rc" -eq 0 ] || return 1
  awk -F '\t' '$1 == "rps" { print $2; n++ } END { exit n != 1 }' "$2.stats"
}

# cg_known_net FAST SLOW DIR COUNT : the slowdown of group SLOW against
# FAST, measured on its own: cg_net_rps in one, then the other, three times
# (an 11 KB file.jpg in DIR, made here).  The ratios of the rates (slow /
# fast) are added to DIR/ratios; prints the median, the lowest and the
# highest of all the ratios there, so that a second call (after the run
# that looks for the slowdown) brackets what a change of the machine's load
# in between did to the known answer.
cg_known_net() {
  local f s
  mkdir -p "$3"
  [ -s "$3/file.jpg" ] || head -c 11264 /dev/urandom >"$3/file.jpg"
  for _ in 1 2 3; do
    f=$(cg_net_rps "$1" "$3" "$4") && s=$(cg_net_rps "$2" "$3" "$4") || return 1
    awk -v f="$f" -v s="$s" 'BEGIN { printf "%.4f\n", s / f }' >>"$3/ratios"
  done
  sort -g "$3/ratios" | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "%.4f %s %s\n", m, v[1], v[NR] }'
}

# cg_bin_dir GROUP DIR : DIR gets a wrapper for each tool of BIN that runs it
# in GROUP (a HARNESS_BIN: the tools capped, the harness's scripts free).
cg_bin_dir() {
  local t
  mkdir -p "$2"
  for t in "$BIN"/*; do
    if [ -f "$t" ] && [ -x "$t" ]; then
      # shellcheck disable=SC2016 # the wrapper's own $$ and $@
      printf '#!/bin/sh\necho $$ >%s/cgroup.procs || exit 9\nexec %s "$@"\n' "$1" "$t" >"$2/${t##*/}"
      chmod +x "$2/${t##*/}"
    fi
  done
}

# cg_make FILE DIR : FILE, a make for the playbook (shootout_make) that runs
# variant V's phases with HARNESS_BIN=DIR/bin-V where that exists (made by
# cg_bin_dir), as plain make otherwise.
cg_make() {
  # shellcheck disable=SC2016 # the wrapper's own variables
  printf '#!/bin/sh\n[ -d "%s/bin-${VARIANT:-}" ] && HARNESS_BIN="%s/bin-$VARIANT" && export HARNESS_BIN\nexec make "$@"\n' \
    "$2" "$2" >"$1"
  chmod +x "$1"
}
