#!/bin/bash
# `make bench`: every comparison in tests/bench/*.bench.sh in one run, each
# printing its medians and the ratios against the peers.  Not part of `make test`.
#   tests/bench/run.sh [NAME...]   only NAME.bench.sh (e.g. dltar httpd)
set -eu
cd "$(dirname "$0")/../.."
status=0
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
