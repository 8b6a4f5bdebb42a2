#!/usr/bin/env bash
# dltar (two threads, and --threads 1) against `tar xzf`, `bsdtar xzf`,
# `pigz -dc | tar xf -` and `igzip -dc | tar xf -` (ISA-L's own tool: the peer
# a user would build from the library dltar inflates with) on the same
# gzipped tarball, extracted onto tmpfs: RUNS rounds (tools interleaved),
# medians of wall time and of user+sys CPU, and the ratios.  After every
# run the target must hold the archive's regular files with their exact
# total size, else the bench stops with FAIL.
# Targets (issue 19): dltar wall <= 0.6x the fastest peer's, dltar CPU <=
# 0.25x GNU tar's.
#   RUNS=5  BENCH_MB=250 (generated tarball)  BENCH_DATA=auto|generated
# With BENCH_DATA=auto and bin/mkdataset present, its `small` layout.tar.gz
# is used instead of the generated one.
set -eu
cd "$(dirname "$0")/../.."
ROOT=$PWD
RUNS=${RUNS:-5}
BENCH_MB=${BENCH_MB:-250}
BENCH_DATA=${BENCH_DATA:-auto}

work=$(mktemp -d /dev/shm/dltar-bench.XXXXXX)
mnt=$work/target
mounted=0
cleanup() {
  if [ "$mounted" = 1 ]; then umount "$mnt" || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$mnt"
# our own tmpfs when root (so nothing else shares it), else a /dev/shm dir
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=4g tmpfs "$mnt"; then mounted=1; fi

if [ "$BENCH_DATA" = auto ] && [ -x bin/mkdataset ] &&
  bin/mkdataset -p small -s 1 -o "$work/ds" >/dev/null; then
  tgz=$work/ds/layout.tar.gz
  what="mkdataset small profile"
else
  tgz=$work/bench.tgz
  gz=gzip
  command -v pigz >/dev/null && gz=pigz
  tests/fixtures/mktarball.py "$BENCH_MB" | "$gz" -1 >"$tgz"
  what="generated, ${BENCH_MB} MB of incompressible files"
fi
# What every tool must leave on the target: the regular files and their
# bytes (a tool that stops early or skips entries makes its time worthless).
read -r files want_files want_bytes < <(tar -tvzf "$tgz" |
  awk '{ n++ } /^-/ { f++; b += $3 } END { printf "%d %d %.0f\n", n, f, b }')
echo "dltar: $(bin/dltar --version | tr '\n' ' ')on $(nproc) CPUs"
echo "tarball: $what: $(stat -c %s "$tgz") bytes, $files entries ($want_files files, $want_bytes bytes); target: $mnt ($( [ $mounted = 1 ] && echo own tmpfs || echo /dev/shm))"

calc() { awk "BEGIN { x = $1; print x }"; } # calc EXPR: a number (or 1/0 for a comparison)
tools=(dltar dltar-1t tar bsdtar pigz+tar igzip+tar)
peers=(tar bsdtar pigz+tar igzip+tar)
run_tool() {
  case $1 in
    dltar) "$ROOT/bin/dltar" --threads 2 -C "$mnt" "$tgz" >/dev/null ;;
    dltar-1t) "$ROOT/bin/dltar" --threads 1 -C "$mnt" "$tgz" >/dev/null ;;
    tar) tar -xzf "$tgz" -C "$mnt" ;;
    bsdtar) bsdtar -xzf "$tgz" -C "$mnt" ;;
    pigz+tar) pigz -dc "$tgz" | tar -xf - -C "$mnt" ;;
    igzip+tar) igzip -dc "$tgz" | tar -xf - -C "$mnt" ;;
  esac
}
TIMEFORMAT='%R %U %S'
have() {
  case $1 in
    dltar | dltar-1t) [ -x bin/dltar ] ;;
    pigz+tar) command -v pigz >/dev/null ;;
    igzip+tar) command -v igzip >/dev/null ;;
    *) command -v "$1" >/dev/null ;;
  esac
}

# The order turns by one tool every round: a tool that always ran first,
# right after the last one's tree was freed, would pay alone for what that
# costs (on a VM the freed memory may go back to the host and be faulted in
# again).
for r in $(seq 1 "$RUNS"); do
  for k in "${!tools[@]}"; do
    t=${tools[$(((k + r - 1) % ${#tools[@]}))]}
    have "$t" || continue
    find "$mnt" -mindepth 1 -delete
    sync
    # bash's `time`: wall, and the user/sys CPU of every process it waited for
    { time run_tool "$t"; } 2>"$work/time"
    read -r e u s <"$work/time"
    # (an inode once: a hard link is no second file in tar's listing)
    read -r got_files got_bytes < <(find "$mnt" -type f -printf '%i %s\n' |
      awk '!seen[$1]++ { f++; b += $2 } END { printf "%d %.0f\n", f, b }')
    if [ "$got_files $got_bytes" != "$want_files $want_bytes" ]; then
      echo "dltar bench: FAIL: $t left $got_files files, $got_bytes bytes; the archive has $want_files, $want_bytes" >&2
      exit 1
    fi
    echo "$t $e $(calc "$u + $s") $u $s" >>"$work/results"
    printf '  run %d %-9s wall %6.2f s  cpu %6.2f s\n' "$r" "$t" "$e" "$(calc "$u + $s")"
  done
done

median() { # median of the numbers on stdin
  sort -g | awk '{a[NR]=$1} END {if (NR % 2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'
}
declare -A W C U S
echo
printf '%-9s %10s %10s %8s %8s %12s %12s\n' tool wall_s cpu_s user_s sys_s "wall/dltar" "cpu/dltar"
for t in "${tools[@]}"; do
  grep -q "^$t " "$work/results" || continue
  W[$t]=$(awk -v t="$t" '$1==t {print $2}' "$work/results" | median)
  C[$t]=$(awk -v t="$t" '$1==t {print $3}' "$work/results" | median)
  U[$t]=$(awk -v t="$t" '$1==t {print $4}' "$work/results" | median)
  S[$t]=$(awk -v t="$t" '$1==t {print $5}' "$work/results" | median)
done
for t in "${tools[@]}"; do
  [ -n "${W[$t]:-}" ] || continue
  printf '%-9s %10.2f %10.2f %8.2f %8.2f %12.2f %12.2f\n' "$t" "${W[$t]}" "${C[$t]}" "${U[$t]}" "${S[$t]}" \
    "$(calc "${W[$t]} / ${W[dltar]}")" "$(calc "${C[$t]} / ${C[dltar]}")"
done
fastest=
for t in "${peers[@]}"; do
  [ -n "${W[$t]:-}" ] || continue
  if [ -z "$fastest" ] || [ "$(calc "${W[$t]} < ${W[$fastest]}")" = 1 ]; then fastest=$t; fi
done
verdict() { [ "$(calc "$1")" = 1 ] && echo met || echo MISSED; }
echo
for d in dltar dltar-1t; do
  [ -n "${W[$d]:-}" ] || continue
  if [ -n "$fastest" ]; then
    printf '%-8s wall / fastest peer (%s) wall = %.2f  (target <= 0.60: %s)\n' "$d" "$fastest" \
      "$(calc "${W[$d]} / ${W[$fastest]}")" "$(verdict "${W[$d]} <= 0.6 * ${W[$fastest]}")"
  fi
  if [ -n "${C[tar]:-}" ]; then
    printf '%-8s cpu / GNU tar cpu = %.2f  (target <= 0.25: %s)\n' "$d" \
      "$(calc "${C[$d]} / ${C[tar]}")" "$(verdict "${C[$d]} <= 0.25 * ${C[tar]}")"
  fi
done
if [ -n "${U[tar]:-}" ] && [ -n "${U[dltar]:-}" ]; then
  # sys is mostly the target filesystem's own work (page cache, allocation),
  # the same for every tool; user is the tool's.
  printf 'dltar    user cpu / GNU tar user cpu = %.2f  (sys: dltar %.2f s, GNU tar %.2f s)\n' \
    "$(calc "${U[dltar]} / ${U[tar]}")" "${S[dltar]}" "${S[tar]}"
fi
echo "(medians of $RUNS runs; a shared, noisy machine inflates wall times)"
