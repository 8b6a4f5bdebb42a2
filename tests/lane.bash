# shellcheck shell=bash
# tests/lane.bash: loaded by tests/helpers.bash (and tests/os-on.bash).
# tests/run.sh runs the bats files in lanes, two at a time, and names a lock
# file in SHOOTOUT_LANE_LOCK: each test holds it shared while it runs (bats
# sources this file at the start of every test), and so does a setup_file
# that calls lane_share.  A test that looks at the whole machine (every
# process of a kind, pages another test's drop_caches would evict) calls
# `solo` first: it then holds the lock alone, the other lane waiting
# between its tests.  Without the lock (`bats FILE`, one file) these do
# nothing.

LANE_FD=''

# lane_share : hold the lock shared until this process ends (or lane_done).
lane_share() {
  [ -n "${SHOOTOUT_LANE_LOCK:-}" ] || return 0
  [ -n "$LANE_FD" ] || exec {LANE_FD}<"$SHOOTOUT_LANE_LOCK" || return 0
  flock -s -w 900 "$LANE_FD" || echo "# lane_share: waited 900 s for a solo test of the other lane" >&2
}

# lane_done : let go of it (the end of a setup_file).
lane_done() {
  [ -z "$LANE_FD" ] || flock -u "$LANE_FD"
}

solo() {
  [ -n "$LANE_FD" ] || return 0
  flock -u "$LANE_FD"
  flock -x -w 900 "$LANE_FD" ||
    { echo "solo: the other lane's tests held $SHOOTOUT_LANE_LOCK for 900 s" >&2; return 1; }
}

# a test (not setup_file: bats sources this there too, for the whole file)
[ -z "${BATS_TEST_NAME:-}" ] || lane_share
