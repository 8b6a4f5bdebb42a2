#!/bin/bash
# `make bench`: every comparison in tests/bench/*.bench.sh in one run, each
# printing its medians and the ratios against the peers.  Not part of `make test`.
set -eu
cd "$(dirname "$0")/../.."
status=0
for b in tests/bench/*.bench.sh; do
  [ -e "$b" ] || continue
  echo "== $b"
  "$b" || { echo "bench $b failed" >&2; status=1; }
done
exit $status
