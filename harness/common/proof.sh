# shellcheck shell=bash disable=SC2034
# harness/common/proof.sh: the proof beside a figure: the tools' CPU share
# and peak size, and the cold cache after a flush.

# proof_note_cpu NAME CMD... : a tool run with --stats FILE (a local one) has
# its CPU figures there: noted for CUR_PHASE in WORK/tool-cpu.tsv ("phase
# tool stats-file trial": the trial CUR_TRIAL, as a phase repeats a figure,
# harness/common/precision.sh); proof_record_cpu turns them into records
# at exit.  What is noted is a copy of FILE: the figure's next trial writes
# the same FILE (WORK/NAME.stats), and every trial of a phase's rounds had
# the CPU figures of its last.
proof_note_cpu() {
  local name=$1 prev='' a keep n
  shift
  for a in "$@"; do
    if [ "$prev" = --stats ] && [ -f "$a" ]; then
      # (tested first: a redirection from a missing file is the shell's
      # error, printed before the 2>/dev/null after it applies)
      n=0
      [ ! -f "$WORK/tool-cpu.tsv" ] || n=$(wc -l <"$WORK/tool-cpu.tsv")
      keep=$WORK/cpu-$((n + 1)).stats
      cp "$a" "$keep" || harness_die "cannot keep the CPU figures of $name: cannot write $keep"
      printf '%s\t%s\t%s\t%s\n' "$CUR_PHASE" "$name" "$keep" "$CUR_TRIAL" >>"$WORK/tool-cpu.tsv"
    fi
    prev=$a
  done
}

# proof_record_cpu : for every record name and trial of this phase that ran our
# tools (dltar, rmtree, replay with --stats; every httpd started with
# serve_httpd, whose --stats it writes when it stops): cpu_share_TOOL, the
# tool's user_s + sys_s over the phase's wall_s (its timed part: the wall_s
# record of the phase, else the tool's own), as a fraction of one core
# (where the record has a steady window, steady_s, the replay ran its first
# pass, wall_s, then the window, and the tools worked through both: over the
# trial's budget_wall_s then, in slices its own slices' time, else wall_s +
# steady_s; over wall_s alone the warm serve's came to 4-11 cores on 2
# CPUs), and tool_cpu_share, the largest of them; budget_user_s_TOOL and
# budget_sys_s_TOOL, its user and sys seconds apart (the time budget's
# tools: user is the tool's own code, sys the kernel's work in its
# context).  Also maxrss_kb_TOOL, the tool's
# peak resident size (its maxrss_kb: the largest of its runs in the phase;
# httpd -N: of the parent and its children), and tool_maxrss_kb, the largest.
# And event_mechanism_httpd, what httpd waited with (its --stats
# event_mechanism; replay's reaches the records through record_stats).
# And server_cpu_us, httpd's user + sys over the record's requests: the
# server's CPU time per request, a figure the hypervisor's steal does not
# reach (getrusage counts the CPU a task ran, not the time it waited for a
# CPU the host gave to another guest), where the rate does.
proof_record_cpu() {
  local f=$WORK/tool-cpu.tsv recs
  [ -s "$f" ] || return 0
  recs=$(run_dir) || return 0
  recs=$recs/records.tsv
  # Keyed by record name and trial ("p<TAB>t"); a line without its trial
  # is CUR_TRIAL's.
  awk -F '\t' -v trial="$CUR_TRIAL" -v recs="$recs" '
    function stat(file, m,   line, a, v) {
      v = ""
      while ((getline line < file) > 0) { split(line, a, "\t"); if (a[1] == m) v = a[2] }
      close(file)
      return v
    }
    BEGIN {
      while ((getline line < recs) > 0) {
        split(line, a, "\t")
        if (a[3] == "wall_s") wall[a[1] "\t" a[2]] = a[4]
        if (a[3] == "steady_s") steady[a[1] "\t" a[2]] = a[4]
        if (a[3] == "budget_wall_s") bwall[a[1] "\t" a[2]] = a[4]
        if (a[3] == "requests") reqs[a[1] "\t" a[2]] = a[4]
      }
      for (p in steady) {
        if (p in bwall) wall[p] = bwall[p]
        else wall[p] = ((p in wall) ? wall[p] : 0) + steady[p]  # a repeat without a first pass: its window
      }
      close(recs)
    }
    {
      p = $1 "\t" ($4 != "" ? $4 : trial)
      u = stat($3, "user_s"); s = stat($3, "sys_s"); w = stat($3, "wall_s"); r = stat($3, "maxrss_kb")
      if (r != "" && (!((p "\t" $2) in rss) || r + 0 > rss[p "\t" $2] + 0)) rss[p "\t" $2] = r
      if ($2 == "httpd" && (m = stat($3, "event_mechanism")) != "") mech[p] = m
      if (u == "" || s == "") next
      if (!(p in phases)) { phases[p] = 1; order[++n] = p }
      cpu[p "\t" $2] += u + s
      usr[p "\t" $2] += u; sys[p "\t" $2] += s
      if (!((p "\t" $2) in own)) { own[p "\t" $2] = w; tools[p] = tools[p] " " $2 }
    }
    END {
      for (i = 1; i <= n; i++) {
        p = order[i]; best = -1
        k = split(substr(tools[p], 2), t, " ")
        for (j = 1; j <= k; j++) {
          w = (p in wall) ? wall[p] : own[p "\t" t[j]]
          if (w + 0 <= 0) continue
          share = cpu[p "\t" t[j]] / w
          printf "%s\tcpu_share_%s\t%.3f\tfraction\n", p, t[j], share
          printf "%s\tbudget_user_s_%s\t%.3f\ts\n", p, t[j], usr[p "\t" t[j]]
          printf "%s\tbudget_sys_s_%s\t%.3f\ts\n", p, t[j], sys[p "\t" t[j]]
          if (share > best) best = share
        }
        if (best >= 0) printf "%s\ttool_cpu_share\t%.3f\tfraction\n", p, best
        big = -1
        for (j = 1; j <= k; j++) {
          if (!((p "\t" t[j]) in rss)) continue
          printf "%s\tmaxrss_kb_%s\t%.0f\tKiB\n", p, t[j], rss[p "\t" t[j]]
          if (rss[p "\t" t[j]] + 0 > big) big = rss[p "\t" t[j]] + 0
        }
        if (big >= 0) printf "%s\ttool_maxrss_kb\t%.0f\tKiB\n", p, big
        if (p in mech) printf "%s\tevent_mechanism_httpd\t%s\ttext\n", p, mech[p]
        if ((p "\thttpd") in cpu && reqs[p] + 0 > 0)
          printf "%s\tserver_cpu_us\t%.3f\tus\n", p, cpu[p "\thttpd"] * 1e6 / reqs[p]
      }
    }' "$f" >"$WORK/cpu-records.tsv"
  record_lines <"$WORK/cpu-records.tsv"
}

# proof_flush METHOD : flush.sh METHOD (harness/flush.sh) in the
# foreground, outside every record's block trace (blklat_pause): the flush
# before a measured part, and its proof_cold, are no record's work.  The
# caller goes on tracing with blklat_switch NAME.  (Phase flush, whose work
# the flush is, runs flush.sh itself.)
proof_flush() {
  blklat_pause
  proc_run flush "$HARNESS/flush.sh" "$1"
}

# proof_resident < PATHS : bin/resident over a seeded sample (SEED) of
# RESIDENT_FILES (1000) of the files named on stdin: RESIDENT_PCT, the share
# of their pages in the page cache, and RESIDENT_SEEN, the files looked at;
# its output in the phase log.  Returns 3 where the system has no mincore
# (OpenBSD); any other failure fails the phase.
proof_resident() {
  local out rc=0
  out=$("$HARNESS_BIN/resident" -n "${RESIDENT_FILES:-1000}" -s "$SEED" 2>>"$PHASE_LOG") || rc=$?
  [ "$rc" -ne 3 ] || return 3
  [ "$rc" -eq 0 ] || harness_die "resident could not look at the dataset's files in $DATA: see $PHASE_LOG"
  printf '%s\n' "$out" >>"$PHASE_LOG"
  RESIDENT_PCT=$(printf '%s\n' "$out" | awk -F '\t' '$1 == "resident_pct" { print $2 }')
  RESIDENT_SEEN=$(printf '%s\n' "$out" | awk -F '\t' '$1 == "files" { print $2 }')
}

# proof_warm : before a warm trial taken in slices (harness/common/slices.sh),
# whose variants take turns between its slices: every variant's dataset must
# stay in the page cache through the others' turns for each warm trial to be
# warm (the prime read it once).  Counts the pages of a seeded sample of the
# files the replay asks for (the first REPLAY_COUNT of the request list) and
# records CUR_PHASE's resident_pct and resident_files (the report shows it
# beside the figure); below RESIDENT_WARM_MIN (90) percent the phase fails:
# the datasets do not fit in memory together.  Not 99: with memory to spare
# the kernel still let 0.1-1.7% of them go (make demo, six variants on
# loop devices whose backing files are cached too, 24 GiB).  Where the
# system has no mincore nothing is checked.
proof_warm() {
  local rc=0
  proc_need resident
  blklat_pause
  proof_resident < <(awk -v d="$DATA" -v n="$REPLAY_COUNT" 'n > 0 && NR > n { exit }
    /^\// && !seen[$1]++ { print d $1 }' "$REQUESTS") || rc=$?
  [ "$rc" -ne 3 ] || return 0
  record "$CUR_PHASE" "$CUR_TRIAL" resident_pct "$RESIDENT_PCT" %
  record "$CUR_PHASE" "$CUR_TRIAL" resident_files "$RESIDENT_SEEN" count
  awk -v p="$RESIDENT_PCT" -v m="$RESIDENT_WARM_MIN" 'BEGIN { exit !(p < m) }' || return 0
  harness_die "only $RESIDENT_PCT% (under RESIDENT_WARM_MIN=$RESIDENT_WARM_MIN) of the pages of $RESIDENT_SEEN files the warm replay asks for are in the page cache before its trial in slices: the variants' datasets do not all fit in memory at once (use STEADY_SLICES=1: whole trials, each variant's warm replay right after its cold one)"
}

# proof_cold METHOD : right after a flush with METHOD, before a cold phase:
# bin/resident maps a seeded sample (SEED) of RESIDENT_FILES (1000) of the
# dataset's files in TARGET/data and counts their pages in the page cache.
# Records CUR_PHASE's resident_pct and resident_files.  Above RESIDENT_MAX
# (1) percent, a drop or remount runs once more and the sample is counted
# again (a page that the previous part's sendfile still held in a socket
# buffer is freed late, and the drop passes it by: seen at 2-5% under load);
# reflushed 1 is recorded then, and resident_pct is the second count.  Still
# above it, the phase fails (the flush did not flush) unless METHOD is none
# or TARGET is a memory filesystem (tmpfs, ramfs, mfs: its pages are its
# storage and cannot be flushed).  Where the system has no mincore (OpenBSD)
# nothing is checked or recorded.  Opening the sample reads their inodes:
# drop and remount run once more after the check to drop those too.  None
# of it is in a block trace (blklat_pause).
proof_cold() {
  local method=$1 pct files fstype rc=0 try warm=0
  proc_need resident
  blklat_pause
  IFS=$'\t' read -r _ fstype _ < <(os_mount_of "$TARGET" 2>/dev/null) || fstype=''
  # Up to two more flushes: pages a server that is still exiting maps, or a
  # socket still holds, are freed a moment late on a busy machine.
  for try in 1 2 3; do
    rc=0
    proof_resident < <(awk -F '\t' -v d="$DATA" '!/^#/ && NF >= 2 { print d "/" $1 }' "$MANIFEST") || rc=$?
    if [ "$rc" -eq 3 ]; then
      harness_say "this system has no mincore: the cold cache is not checked"
      return 0
    fi
    pct=$RESIDENT_PCT files=$RESIDENT_SEEN
    warm=0
    awk -v p="$pct" -v m="${RESIDENT_MAX:-1}" 'BEGIN { exit !(p > m) }' || break
    warm=1
    # too warm: once more, where the method can be run again here
    case $try:$method:$fstype in
      3:* | *:none:* | *:reboot:* | *:tmpfs | *:ramfs | *:mfs) break ;;
    esac
    printf '%s: NOTE: %s\n' "$CUR_PHASE" "$pct% of the sample still in the page cache after FLUSH=$method: flushing once more" |
      tee -a "$PHASE_LOG" >&2
    proof_flush "$method"
  done
  [ "$try" -eq 1 ] || record "$CUR_PHASE" "$CUR_TRIAL" reflushed "$((try - 1))" count
  record "$CUR_PHASE" "$CUR_TRIAL" resident_pct "$pct" %
  record "$CUR_PHASE" "$CUR_TRIAL" resident_files "$files" count
  if [ "$warm" = 0 ]; then
    case $method in drop | remount) proof_flush "$method" ;; esac
    return 0
  fi
  case $method:$fstype in
    none:* | *:tmpfs | *:ramfs | *:mfs)
      harness_say "$pct% of the sample is in the page cache (FLUSH=$method on ${fstype:-?}: not a failure)"
      return 0
      ;;
  esac
  harness_die "$pct% of $files dataset files' pages are still in the page cache after FLUSH=$method (more than ${RESIDENT_MAX:-1}%): the flush did not flush, so this phase would not be cold"
}
