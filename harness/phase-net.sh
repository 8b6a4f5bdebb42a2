#!/usr/bin/env bash
# harness/phase-net.sh : the network-stack test: one ~11 KB file (NET_SIZE
# bytes, default 11264) fetched NET_COUNT times (default 50000) over NET_CONC
# connections (50) with NET_KEEPALIVE requests each (10), with NET_PROCS
# server processes (default "1 4"), over IPv4 and then over IPv6 (httpd on
# ::1; with REPLAY_FROM on SERVE_BIND6, default ::, the client connecting to
# SERVE_HOST6).  Records net-PROCS and net-PROCS-v6: replay's figures (rps,
# mbps, ...), status.  Where the host has no IPv6 (os_has_ipv6 of the
# adapter), or REPLAY_FROM is set without SERVE_HOST6, net-PROCS-v6 records
# "status skipped" and the reason as "skip_reason TEXT text".  The file
# lives in TARGET/data/.net while the phase runs.  Under harness/rounds.sh
# (ROUNDS_UP set) each figure is a group of turns with the other variants,
# one trial a turn, or a trial in STEADY_SLICES slices, each slice a turn
# (docs/harness.md#rounds).  A figure's repeats within the phase measure
# the steady window alone (replay --no-first-pass): the method's first pass
# is its first trial's.
set -eu
SHOOTOUT_ROOT=${SHOOTOUT_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=SCRIPTDIR/lib.sh
. "$SHOOTOUT_ROOT/harness/lib.sh"
# shellcheck source=SCRIPTDIR/common.sh
. "$SHOOTOUT_ROOT/harness/common.sh"

NET_PROCS=${NET_PROCS:-1 4}
NET_COUNT=${NET_COUNT:-50000}
NET_CONC=${NET_CONC:-50}
NET_KEEPALIVE=${NET_KEEPALIVE:-10}
NET_SIZE=${NET_SIZE:-11264}
names=()
for p in $NET_PROCS; do
  case $p in '' | *[!0-9]* | 0) harness_die "NET_PROCS='$NET_PROCS': want numbers of processes like '1 4'" ;; esac
  names+=("net-$p" "net-$p-v6")
done
[ ${#names[@]} -gt 0 ] || harness_die "NET_PROCS is empty: want numbers of processes like '1 4'"
case $NET_COUNT$NET_SIZE in *[!0-9]*) harness_die "NET_COUNT and NET_SIZE want numbers" ;; esac
[ "$NET_COUNT" -gt 0 ] || settings_refuse "NET_COUNT=0: want at least 1 request (replay -n)"
# CLIENT_CPUS checked before anything is written
serve_cpus
phase_begin "${names[0]}" "${names[@]}"
preflight_nofile $((NET_CONC + 256))
preflight_port_at 127.0.0.1 ::1
preflight_done
proc_need httpd replay
made_data=0
[ -d "$DATA" ] || made_data=1
# a tree of the harness's keeps its mark as it is (untar2's line with it)
target_owned || target_claim
serve_addr

netdir=$DATA/.net
net_cleanup() {
  rm -rf "$netdir"
  [ "$made_data" = 0 ] || { rm -f "$DATA/.shootout-owned"; rmdir "$DATA"; }
}
PHASE_CLEANUP+=" net_cleanup"
mkdir -p "$netdir"
head -c "$NET_SIZE" /dev/urandom >"$netdir/file.jpg"
SAMPLER_TOTAL=$NET_COUNT
v6_reason=$(os_has_ipv6) && v6_reason=''
if [ -z "$v6_reason" ] && [ -n "$REPLAY_FROM" ] && [ -z "${SERVE_HOST6:-}" ]; then
  v6_reason="REPLAY_FROM=$REPLAY_FROM: set SERVE_HOST6 to this host's IPv6 address for the IPv6 net phases"
fi
# net_trial : one trial of the figure CUR_PHASE (trial CUR_TRIAL) of P
# processes, BIND and CONNECT: a fresh server and a replay; its rate
# appended to rates.
net_trial() {
  net_serve
  replay_run "$CUR_PHASE" "$connect:$HTTPD_PORT" "${net_args[@]}"
  net_figures
}

# net_serve : the trial's server; net_figures : after its replay, the
# server stopped and the trial's records.
net_serve() {
  blklat_switch "$CUR_PHASE"
  serve_httpd "$netdir" "$p" "$bind"
  harness_say "replay /file.jpg $NET_COUNT times over IPv$ip, $NET_CONC connections, $NET_KEEPALIVE per connection, httpd -N $p (trial $CUR_TRIAL)"
  replay_steady_args "$CUR_TRIAL" "$base"
  net_args=(-c "$NET_CONC" -k "$NET_KEEPALIVE" -U /file.jpg -n "$NET_COUNT" "${STEADY_ARGS[@]}")
}
net_figures() {
  serve_ran_through
  proc_stop "$HTTPD_GROUP"
  record_stats "$CUR_PHASE" "$CUR_TRIAL" "$WORK/$CUR_PHASE.stats"
  replay_verdict "$CUR_PHASE"
  record "$CUR_PHASE" "$CUR_TRIAL" status 0 exit
  local m
  m=$(precision_metric "$CUR_PHASE")
  harness_say "$(stat_value "$WORK/$CUR_PHASE.stats" "$m") MB/s, $(stat_value "$WORK/$CUR_PHASE.stats" "${m%mbps}rps") req/s"
  rates+=("$(stat_value "$WORK/$CUR_PHASE.stats" "${m%mbps}rps")")
}

base=$CUR_TRIAL
for p in $NET_PROCS; do
  for ip in 4 6; do
    CUR_TRIAL=$base
    if [ "$ip" = 4 ]; then
      CUR_PHASE=net-$p bind=$BIND_ADDR connect=$CONNECT_ADDR
    else
      CUR_PHASE=net-$p-v6
      if [ -n "$v6_reason" ]; then
        record "$CUR_PHASE" "$CUR_TRIAL" status skipped exit
        record "$CUR_PHASE" "$CUR_TRIAL" skip_reason "no IPv6: $v6_reason" text
        printf '%s: skipped, no IPv6: %s\n' "$CUR_PHASE" "$v6_reason" >&2
        continue
      fi
      if [ -z "$REPLAY_FROM" ]; then
        bind=::1 connect='[::1]'
      else
        bind=${SERVE_BIND6:-::} connect="[$SERVE_HOST6]"
      fi
    fi
    # The figure's trials (harness/common/precision.sh), each a fresh
    # server and a replay with its steady window (MIN_MEASURE_S); under
    # harness/rounds.sh, one a turn (harness/common/turns.sh).
    name=$CUR_PHASE
    rates=()
    if turn_active; then
      # a trial a turn, or in slices (harness/common/slices.sh)
      sliced=()
      ! turn_sliced || sliced=(-s)
      t=$base
      precision_next_trial "$name" "$t"
      while turn_ready "${sliced[@]}" "$name"; do
        [ "$TURN_SLICE" != 1 ] || turn_record "$name" "$t"
        if [ "$TURN_SLICES" = 1 ]; then
          net_trial
        else
          [ "$TURN_SLICE" != 1 ] || net_serve
          slice_turn "$name" "$connect:$HTTPD_PORT" "${net_args[@]}" || continue
          net_figures
        fi
        t=$((t + 1))
        precision_next_trial "$name" "$t"
      done
      [ -z "$SLICE_PID" ] || harness_die "the rounds coordinator ended $name in the middle of a trial in slices"
      [ "$t" -gt "$base" ] || harness_die "the rounds coordinator ended $name before its first turn"
      # back to the last trial that ran (the next one was only waited for)
      t=$((t - 1))
      CUR_TRIAL=$t
      phase_move "$name"
      turn_end "$name" "$t" 0
    else
      precision_begin
      for ((t = base; ; t++)); do
        precision_next_trial "$name" "$t"
        precision_trial_began
        net_trial
        precision_more "$name" || break
      done
      precision_end "$name" "$t"
    fi
    rps=$(printf '%s\n' "${rates[@]}" | precision_median)
    phase_figure "$name ${rps%%.*} req/s$(precision_note "$name" "$base" "$t")"
  done
done
CUR_TRIAL=$base
PHASE_CLEANUP=''
net_cleanup
phase_finish
