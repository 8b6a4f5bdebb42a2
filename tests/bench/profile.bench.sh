#!/usr/bin/env bash
# What the kernel profile (PROFILE=1, docs/profile.md) costs the figures:
# the phases untar and serve (serve-cold-1, serve-warm-1; SERVE_MODES=1) of
# DATASET on an ext4 of its own on a loop device, ROUNDS rounds of a run with
# the profile on and one with it off, interleaved (the order turning every
# round).  Prints every run's figures, the medians with and without, and the
# cost of the profile in percent of each figure (time longer, requests/s
# fewer), with the goal: under 3% (PROFILE defaults to 1 only where it is).
#   env: ROUNDS (3) DATASET (small) SIZE (4G, the image) IMG_DIR (/dev/shm:
#        the image in memory, so that other users of the disk do not move
#        the figures; a directory on a disk measures that disk too)
set -eu
cd "$(dirname "$0")/../.."
ROUNDS=${ROUNDS:-3} DATASET=${DATASET:-small} SIZE=${SIZE:-4G} IMG_DIR=${IMG_DIR:-/dev/shm}
[ "$(id -u)" = 0 ] || { echo "profile bench: needs root (a loop device, a mount, perf -a)" >&2; exit 2; }
for c in mkfs.ext4 losetup jq; do
  command -v "$c" >/dev/null 2>&1 || { echo "profile bench: needs $c (make deps)" >&2; exit 2; }
done
for t in mkdataset dltar httpd replay rmtree; do
  [ -x "bin/$t" ] || { echo "profile bench: build bin/$t first (make)" >&2; exit 2; }
done
if ! why=$(SHOOTOUT_ROOT=$PWD sh -c '. "$SHOOTOUT_ROOT/harness/os.sh"; os_profile_check' 2>&1); then
  echo "profile bench: this host cannot profile: $why" >&2
  exit 2
fi

# shellcheck source=tests/bench/ext4-loop.bash
. tests/bench/ext4-loop.bash
ext4_loop profile-bench "$IMG_DIR" "$SIZE"
results=$tmp/results
echo "profile bench: $ROUNDS rounds of untar and serve (1 process) of dataset $DATASET on ext4 on $loop ($img)," \
  "with PROFILE=1 and PROFILE=0 in turn; logs in $tmp until the end"

# one_run PROFILE : one cycle of the phases, variant profile-PROFILE.
one_run() {
  if ! make -s shootout TARGET="$mnt" PHASES="untar serve delete" SERVE_MODES=1 RUN_ID=bench \
    VARIANT="profile-$1" PROFILE="$1" RESULTS="$results" DATASET="$DATASET" FLUSH=drop \
    >>"$tmp/log" 2>&1; then
    tail -n 20 "$tmp/log" >&2
    echo "profile bench: the run with PROFILE=$1 failed" >&2
    exit 1
  fi
}

for r in $(seq "$ROUNDS"); do
  if [ $((r % 2)) = 1 ]; then order="1 0"; else order="0 1"; fi
  for p in $order; do
    one_run "$p"
    awk -F '\t' -v p="$p" -v r="$r" '
      ($1 == "untar" && $3 == "wall_s") || ($1 ~ /^serve-(cold|warm)-1$/ && $3 == "rps") { v[$1] = $4 }
      END { printf "round %d PROFILE=%s: untar %s s, serve-cold-1 %s req/s, serve-warm-1 %s req/s\n",
              r, p, v["untar"], v["serve-cold-1"], v["serve-warm-1"] }' \
      <(awk -F '\t' -v t="$r" '$2 == t' "$results/bench/$(hostname -s)/profile-$p/records.tsv")
  done
done

d=$results/bench/$(hostname -s)
prof=$(jq -r .profile "$d/profile-1/meta.json")
case $prof in perf* | dtrace* | btrace*) ;; *) echo "profile bench: the profiled runs were not profiled: $prof" >&2; exit 1 ;; esac
echo "sampler: $prof; profiles: $(find "$d/profile-1/profiles" -name '*.folded' | wc -l) files," \
  "$(cat "$d/profile-1/profiles/"*.folded | awk '{ s += $NF } END { print s + 0 }') samples"
# figures PROFILE : "FIGURE TRIAL VALUE" lines of one side: the headline
# figures, and the CPU the tools spent (which other users of the machine
# move less than the times): dltar's user + sys of untar, httpd's per
# request of serve-warm-1 (the sampling's interrupts are charged to the task
# they interrupt).
figures() {
  awk -F '\t' '
    $1 == "untar" && $3 == "wall_s" { print "untar_s", $2, $4 }
    $1 == "untar" && ($3 == "user_s" || $3 == "sys_s") { cpu[$2] += $4 }
    $1 ~ /^serve-(cold|warm)-1$/ && $3 == "rps" { print $1 "_rps", $2, $4 }
    $1 == "serve-warm-1" && $3 ~ /^budget_(user|sys)_s_httpd$/ { hc[$2] += $4 }
    $1 == "serve-warm-1" && $3 == "requests" { rq[$2] = $4 }
    END {
      for (t in cpu) print "untar_dltar_cpu_s", t, cpu[t]
      for (t in hc) if (rq[t] > 0) print "serve-warm-1_httpd_cpu_us_per_request", t, hc[t] / rq[t] * 1e6
    }' "$d/profile-$1/records.tsv"
}
# stats PROFILE FIGURE : "MEDIAN MIN MAX" of the trials.
stats() {
  figures "$1" | awk -v f="$2" '$1 == f { print $3 }' |
    sort -g | awk '{ v[NR] = $1 } END { if (NR) printf "%s %s %s\n", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2), v[1], v[NR]; else print "0 0 0" }'
}
printf '%-40s %-26s %-26s %8s  %s\n' figure "PROFILE=0 median (range)" "PROFILE=1 median (range)" change verdict
for f in untar_s serve-cold-1_rps serve-warm-1_rps untar_dltar_cpu_s serve-warm-1_httpd_cpu_us_per_request; do
  read -r off offlo offhi <<<"$(stats 0 "$f")"
  read -r on onlo onhi <<<"$(stats 1 "$f")"
  # the change of the median with the profile on (for a rate + is better,
  # for a time or CPU worse); the goal is under 3% either way, and the
  # verdict says whether the two sides' ranges overlap (the change is then
  # within the noise of this machine)
  printf '%-40s %-26s %-26s %8s  %s\n' "$f" "$off ($offlo-$offhi)" "$on ($onlo-$onhi)" \
    "$(awk -v a="$off" -v b="$on" 'BEGIN { if (a > 0) printf "%+.1f%%", (b / a - 1) * 100; else print "n/a" }')" \
    "$(awk -v a="$off" -v b="$on" -v al="$offlo" -v ah="$offhi" -v bl="$onlo" -v bh="$onhi" 'BEGIN {
      if (a <= 0) { print "no figure"; exit }
      c = (b / a - 1) * 100; if (c < 0) c = -c
      g = c < 3 ? "under 3%: met" : "3% or more: MISSED"
      n = (bl <= ah && al <= bh) ? ", within noise (the ranges overlap)" : ", beyond the ranges"
      print g n }')"
done
