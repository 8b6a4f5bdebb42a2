#!/usr/bin/env bash
# `make bench`: every comparison in tests/bench/*.bench.sh in one run, each
# printing its medians and the ratios against the peers.  Not part of `make test`.
#   tests/bench/run.sh [NAME...]   only NAME.bench.sh (e.g. dltar httpd)
#   BENCH_PAGE_REPORTING=pause|keep   (see below)
set -eu
cd "$(dirname "$0")/../.."
status=0

# A VM guest whose virtio balloon reports freed memory to its host (free
# page reporting) gives back, seconds later, what the last run freed (a 1 GB
# tree on tmpfs); the next tool to allocate that memory pays the host's page
# faults in its own sys time.  Measured here: the same 1 GB untar took 0.4 to
# 2.3 s of sys, for dltar and bsdtar alike, depending on whether the
# reporting had caught up.  So the bench pauses it (root, and a kernel that
# takes an order above the largest), says so, and restores it at exit.
reporting=/sys/module/page_reporting/parameters/page_reporting_order
case ${BENCH_PAGE_REPORTING:=pause} in
  pause | keep) ;;
  *) echo "run.sh: BENCH_PAGE_REPORTING is pause or keep, not '$BENCH_PAGE_REPORTING'" >&2; exit 2 ;;
esac
if [ "$BENCH_PAGE_REPORTING" = pause ] && [ -w "$reporting" ] &&
  order=$(cat "$reporting") && [ "$order" -le 10 ]; then
  if echo 11 2>/dev/null >"$reporting" && [ "$(cat "$reporting")" = 11 ]; then
    trap 'echo "$order" >"$reporting"' EXIT
    echo "free page reporting to the VM host paused for the bench (page_reporting_order $order -> 11, restored at exit; BENCH_PAGE_REPORTING=keep leaves it)"
  else
    echo "free page reporting to the VM host is on and could not be paused: sys times after a large free may vary by seconds"
  fi
fi
benches=(tests/bench/*.bench.sh)
if [ $# -gt 0 ]; then
  benches=()
  for n in "$@"; do benches+=("tests/bench/$n.bench.sh"); done
fi
for b in "${benches[@]}"; do
  [ -e "$b" ] || { echo "no bench $b" >&2; status=1; continue; }
  echo "== $b"
  "$b" || { echo "bench $b failed" >&2; status=1; }
done
exit $status
