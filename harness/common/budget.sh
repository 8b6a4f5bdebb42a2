# shellcheck shell=bash disable=SC2034
# harness/common/budget.sh: the time budget of a phase: where its wall time
# went (docs/formats.md#records, "The time budget").  Counters are read once
# when a part begins and once when it ends, not per tick: the whole host's
# CPU split, the kernel's own threads' CPU and TARGET's device's busy time,
# through the OS adapter (os_cpu_split, os_kthreads, os_disk_time), and the
# CPU of the phase's own process tree (os_tree_cpu of the phase script:
# its tools, servers and sampler).  The tools' own user and sys come from
# their --stats (proof_record_cpu).
#
# A busy machine is seen: the user, system and interrupt time of the host
# less the phase's tree and the kernel's threads is CPU that processes
# outside the phase took during its window (budget_outside_cpu_s); with the
# time the hypervisor stole (budget_steal_s) above DISTURBED_PCT percent of
# the window's CPU time (wall x CPUs), the trial is recorded disturbed 1
# (docs/formats.md#records, "Disturbed trials").
#
# sampler_start begins a phase's main part and sampler_stop ends it;
# budget_part sync, between a tool and the sync after it, ends the main part
# and begins the sync's (its records prefixed sync_).

BUDGET_NAME='' BUDGET_PREFIX='' BUDGET_START='' BUDGET_DISK='' BUDGET_HZ='' BUDGET_PAUSED=''

# budget_snap : "EPOCH|USER SYS IRQ IOWAIT IDLE STEAL CPUS|KTICKS|IO_MS QUEUE_MS|TREE_TICKS"
# now; a part the system does not count is empty, a CPU state it does not
# count "-", a QUEUE_MS it does not sum missing.
budget_snap() {
  local cpu kth='' disk='' tree=''
  cpu=$(os_cpu_split 2>/dev/null) || cpu=''
  kth=$(os_kthreads 2>/dev/null) || kth=''
  tree=$(os_tree_cpu "$$" 2>/dev/null) || tree=''
  if [ -n "$BUDGET_DISK" ] && [ "$BUDGET_DISK" != none ]; then
    disk=$(os_disk_time "$BUDGET_DISK" 2>/dev/null) || disk=''
  fi
  printf '%s|%s|%s|%s|%s\n' "$EPOCHREALTIME" "$cpu" "${kth%% *}" "$disk" "$tree"
}

# budget_begin NAME [PART] : the budget of record name NAME (PART sync: its
# sync) starts now.
budget_begin() {
  BUDGET_NAME=$1 BUDGET_PREFIX=${2:+$2_}
  if [ -z "$BUDGET_HZ" ]; then
    BUDGET_HZ=$(os_cpu_hz 2>/dev/null) || BUDGET_HZ=''
    BUDGET_DISK=$(os_disk_of "$TARGET" 2>/dev/null) || BUDGET_DISK=none
  fi
  BUDGET_START=$(budget_snap)
}

# budget_part PART : the current part ends, PART of the same name begins.
budget_part() {
  local name=$BUDGET_NAME
  budget_end
  budget_begin "$name" "$1"
}

# budget_end : the current part ends (paused: where it paused): its records.
budget_end() {
  local end=$BUDGET_PAUSED
  [ -n "$BUDGET_START" ] || return 0
  [ -n "$end" ] || end=$(budget_snap)
  record_lines < <(budget_records "$BUDGET_NAME" "$CUR_TRIAL" "$BUDGET_PREFIX" "$BUDGET_HZ" "$BUDGET_START" \
    "$end" "${DISTURBED_PCT:-5}")
  BUDGET_START='' BUDGET_PAUSED=''
}

# budget_pause / budget_resume : the current part stops counting (a trial
# in slices while the other variants take theirs, harness/common/slices.sh)
# and goes on: its records are of its running time only, as if the pause
# had not been (a busy machine meanwhile is the others' measuring, not a
# disturbance of this trial).
budget_pause() {
  [ -n "$BUDGET_START" ] && [ -z "$BUDGET_PAUSED" ] || return 0
  BUDGET_PAUSED=$(budget_snap)
}
budget_resume() {
  [ -n "$BUDGET_START" ] && [ -n "$BUDGET_PAUSED" ] || return 0
  BUDGET_START=$(budget_shift "$BUDGET_START" "$BUDGET_PAUSED" "$(budget_snap)")
  BUDGET_PAUSED=''
}

# budget_shift START PAUSE RESUME : the budget_snap START moved on by what
# passed from PAUSE to RESUME, field by field (the CPU count kept; a field
# the system does not count, "-" or empty, kept as START has it).
budget_shift() {
  awk -v a="$1" -v p="$2" -v q="$3" 'BEGIN {
    na = split(a, A, "|"); split(p, P, "|"); split(q, Q, "|")
    for (i = 1; i <= na; i++) {
      n = split(A[i], x, " "); split(P[i], y, " "); split(Q[i], z, " ")
      f = ""
      for (j = 1; j <= n; j++) {
        v = x[j]
        if (!(i == 2 && j == 7) && v != "-" && y[j] != "" && y[j] != "-" && z[j] != "" && z[j] != "-")
          v = sprintf(i == 1 ? "%.6f" : "%.0f", x[j] + z[j] - y[j])
        f = f (j > 1 ? " " : "") v
      }
      printf "%s%s", (i > 1 ? "|" : ""), f
    }
    print ""
  }'
}

# budget_records NAME TRIAL PREFIX HZ START END DISTURBED_PCT : the records
# of one part from two budget_snap lines: PREFIXbudget_wall_s; with the CPU
# split PREFIXbudget_cpus and the CPU seconds of all CPUs
# PREFIXbudget_user_s, _sys_s, _irq_s, _iowait_s, _idle_s, _steal_s;
# PREFIXbudget_kthreads_s; with a device PREFIXbudget_device_busy_s and
# PREFIXbudget_device_queue; with the phase's tree too
# PREFIXbudget_outside_cpu_s and PREFIXdisturbed (1: outside CPU and steal
# above DISTURBED_PCT percent of wall x CPUs, and 3 ticks at least).
budget_records() {
  awk -v name="$1" -v trial="$2" -v pre="$3budget_" -v flag="$3disturbed" -v hz="$4" -v a="$5" -v b="$6" -v pct="${7:-5}" '
    function rec(m, v, u) { printf "%s\t%s\t%s%s\t%s\t%s\n", name, trial, pre, m, v, u }
    BEGIN {
      split(a, x, "|"); split(b, y, "|")
      wall = y[1] - x[1]
      if (wall < 0) exit
      rec("wall_s", sprintf("%.3f", wall), "s")
      nc = split(x[2], c0, " "); split(y[2], c1, " ")
      if (hz + 0 > 0 && nc == 7) {
        rec("cpus", c1[7], "count")
        split("user sys irq iowait idle steal", names, " ")
        # "-": a state the system does not count (the BSDs: iowait, steal)
        for (i = 1; i <= 6; i++) if (c0[i] != "-" && c1[i] != "-") rec(names[i] "_s", sprintf("%.2f", (c1[i] - c0[i]) / hz), "s")
      }
      k = 0
      if (hz + 0 > 0 && x[3] != "" && y[3] != "") {
        k = y[3] - x[3]
        # threads that ended during the part took their ticks with them
        if (k < 0) k = 0
        rec("kthreads_s", sprintf("%.2f", k / hz), "s")
      }
      # outside the phase: the host user + system + interrupts less its tree
      # and the kernel threads.  The interrupts too: Linux counts a tick that
      # lands in an interrupt or softirq to the irq or softirq of /proc/stat
      # and to the stime of the task it interrupted, so the network work of a
      # loopback replay (softirq, run in the context of the sender) is in the
      # ticks of the tree and not in the system time of the host: without
      # them the outside CPU came out a quarter of a CPU low and read 0.
      if (hz + 0 > 0 && nc == 7 && c0[1] != "-" && c0[2] != "-" && x[5] != "" && y[5] != "" && wall > 0) {
        o = (c1[1] + c1[2] - c0[1] - c0[2]) + (c0[3] != "-" && c1[3] != "-" ? c1[3] - c0[3] : 0) - (y[5] - x[5]) - k
        if (o < 0) o = 0
        st = (c0[6] != "-" && c1[6] != "-") ? c1[6] - c0[6] : 0
        rec("outside_cpu_s", sprintf("%.2f", o / hz), "s")
        # and at least 3 ticks: less is within what the tick counters resolve
        # (a 0.04 s untar2 on 2 CPUs is 8 ticks: one stray tick was 12%)
        busy = (o + st >= 3 && (o + st) / hz > pct / 100 * wall * (c1[7] > 0 ? c1[7] : 1)) ? 1 : 0
        printf "%s\t%s\t%s\t%d\tflag\n", name, trial, flag, busy
      }
      split(x[4], d0, " "); split(y[4], d1, " ")
      if (x[4] != "" && y[4] != "") {
        rec("device_busy_s", sprintf("%.3f", (d1[1] - d0[1]) / 1000), "s")
        # NetBSD and OpenBSD give the busy time alone: no queue depth
        if (wall > 0 && d0[2] != "" && d1[2] != "") rec("device_queue", sprintf("%.2f", (d1[2] - d0[2]) / 1000 / wall), "count")
      }
    }'
}
