#!/usr/bin/env bash
# harness/phase-preload.sh : the cost and the gain of preloading the
# directories.  Flush the cache (FLUSH), walk TARGET/data with
# `find DATA -type d` (PRELOAD=dirs, the default here and the only kind:
# directories into the cache, not the files), timed; then start bin/httpd -q
# -N PRELOAD_PROCS (default: the first of SERVE_PROCS) and replay the first
# REPLAY_COUNT lines of requests.txt once (the first REPLAY_CONC value,
# REPLAY_KEEPALIVE) on that cache.  make shootout runs it after serve when
# PRELOAD=dirs.
# Records preload-dirs: wall_s, dirs (the directories walked, TARGET/data
# included), status; serve-dirwarm-PROCS: replay's figures as serve's, conc,
# status.  Each of the two has its own block trace (BLKLAT=1); the flush and
# its proof are in none.
set -eu
SHOOTOUT_ROOT=${SHOOTOUT_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=SCRIPTDIR/lib.sh
. "$SHOOTOUT_ROOT/harness/lib.sh"
# shellcheck source=SCRIPTDIR/common.sh
. "$SHOOTOUT_ROOT/harness/common.sh"

# PRELOAD unset: this phase, run alone, preloads the directories.
[ -n "$PRELOAD" ] || PRELOAD=dirs
[ "$PRELOAD" = dirs ] || harness_die "PRELOAD=$PRELOAD: the one kind of preloading is 'dirs' (the directories, not the files)"
read -r first_procs _ <<<"$SERVE_PROCS"
PRELOAD_PROCS=${PRELOAD_PROCS:-${first_procs:-1}}
case $PRELOAD_PROCS in *[!0-9]* | 0 | '') harness_die "PRELOAD_PROCS='$PRELOAD_PROCS': want one number of server processes" ;; esac
read -r conc _ <<<"$REPLAY_CONC"
case ${conc:-x} in *[!0-9]* | 0) harness_die "REPLAY_CONC='$REPLAY_CONC': want numbers of connections like '100' or '100 20'" ;; esac
serve=serve-dirwarm-$PRELOAD_PROCS

serve_update_first
# CLIENT_CPUS checked before anything is written
serve_cpus
phase_begin preload-dirs preload-dirs "$serve"
serve_prepare "$conc"

harness_say "flush ($FLUSH)"
proof_flush "$FLUSH"
CUR_PHASE=preload-dirs
proof_cold "$FLUSH"
blklat_switch preload-dirs
sampler_start preload-dirs -m none
harness_say "find $DATA -type d"
t0=$(time_now)
# shellcheck disable=SC2016 # the inner shell expands $1 and $2
proc_run preload sh -c 'find "$1" -type d -print >"$2"' preload "$DATA" "$WORK/dirs"
wall=$(time_since "$t0")
sampler_stop
record preload-dirs "$CUR_TRIAL" wall_s "$wall" s
record preload-dirs "$CUR_TRIAL" dirs "$(wc -l <"$WORK/dirs" | tr -d ' ')" count
record preload-dirs "$CUR_TRIAL" status 0 exit
harness_say "walked $(wc -l <"$WORK/dirs" | tr -d ' ') directories in $wall s"

CUR_PHASE=$serve
blklat_switch "$serve"
SAMPLER_TOTAL=$REPLAY_TOTAL
serve_httpd "$DATA" "$PRELOAD_PROCS" "$BIND_ADDR"
harness_say "replay $SAMPLER_TOTAL requests, $conc connections, $REPLAY_KEEPALIVE per connection (directories cached)"
replay_run "$serve" "$CONNECT_ADDR:$HTTPD_PORT" -c "$conc" -k "$REPLAY_KEEPALIVE" "${REPLAY_ARGS[@]}"
serve_ran_through
proc_stop "$HTTPD_GROUP"
record_stats "$serve" "$CUR_TRIAL" "$WORK/$serve.stats"
record "$serve" "$CUR_TRIAL" conc "$conc" count
replay_verdict "$serve"
rps=$(stat_value "$WORK/$serve.stats" rps)
PHASE_FIGURE="$(wc -l <"$WORK/dirs" | tr -d ' ') directories walked in $(human_s "$wall"), then ${rps%%.*} req/s"
phase_end "$serve"
