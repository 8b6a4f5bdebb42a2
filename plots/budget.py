"""The time budget of a phase (docs/formats.md#the-time-budget): what
limited it, as one word a kernel developer would look at, and a stacked bar
per phase of where the CPUs' time went in every variant.

The verdict of one trial's part (the main part, or the sync after a tool:
records prefixed sync_), first that holds:
  device      the device had a request in flight >= DEVICE_BUSY of the wall time
  client      the CPUs were busy (CPU_BUSY of all of them, or one process
              near a core) and the replay client on this host used at least
              as much CPU as the server
  tool        a tool's own user time (its code, not the kernel's work in its
              context) >= CORE of one core
  kernel CPU  the CPUs were busy and kernel work (sys + irq, in the tools'
              context or the kernel's threads) was at least the user work;
              (CPUs busy with user work of no single tool near a core: tool)
  waiting     neither the device nor the CPUs were busy: synchronous waits,
              locks, the network
None where the budget has no CPU split (runs from before the time budget).  On
the BSDs the split comes from kern.cp_time, without iowait or steal.

The chart of the budget is drawn by budget_chart.py; here only what the
budget says, and the proof beside a figure (proof()) it is part of."""
from ranking import headline
from resultslib import disturbed_note, num, trial_count
from stats import NOISE_MIN, estimate, noise_label, noisy, noisy_target, spread, summary

DEVICE_BUSY = 0.8  # of the wall time: the device is the limit
CPU_BUSY = 0.8  # of all CPUs' time: the CPUs are the limit
CORE = 0.8  # of one core: one process (a tool, the kernel's threads) is the limit
CLIENT = "replay"
SERVER = "httpd"

# The stacked bar, bottom to top: (key, legend, colour).
PARTS = [("tool_user", "tools' user", "#0072B2"), ("other_user", "other user", "#56B4E9"),
         ("tool_sys", "tools' sys (kernel in their context)", "#D55E00"),
         ("kthreads", "kernel threads", "#E69F00"), ("other_kernel", "other sys, irq, softirq", "#CC79A7"),
         ("iowait", "iowait", "#009E73"), ("steal", "steal", "#999999"), ("idle", "idle", "#EEEEEE")]


def prefix_of(metric):
    """The budget part a figure belongs to: the sync's for sync_s."""
    return "sync_" if metric == "sync_s" else ""


def trial_budgets(v, phase, prefix):
    """{trial: {name: value}} of the PREFIXbudget_* records of PHASE."""
    pre = prefix + "budget_"
    out = {}
    for m, recs in v.metrics(phase).items():
        for t, val, _u in recs:
            if m.startswith(pre) and num(val) is not None:
                out.setdefault(t, {})[m[len(pre):]] = num(val)
    return out


def tools_of(b):
    """{tool: (user_s, sys_s)} of one budget."""
    out = {}
    for k, val in b.items():
        for kind in ("user", "sys"):
            if k.startswith(kind + "_s_"):
                u, s = out.get(k[len(kind) + 3:], (0.0, 0.0))
                out[k[len(kind) + 3:]] = (val, s) if kind == "user" else (u, val)
    return out


def verdict(b):
    """The word for one budget (a dict of budget_* without the prefix), or None."""
    wall, cpus = b.get("wall_s"), b.get("cpus")
    if not wall or wall <= 0 or not cpus or "user_s" not in b:
        return None
    dev = b.get("device_busy_s")
    if dev is not None and dev / wall >= DEVICE_BUSY:
        return "device"
    user, sys_, irq, steal = (b.get(k, 0.0) for k in ("user_s", "sys_s", "irq_s", "steal_s"))
    busy = (user + sys_ + irq + steal) / (cpus * wall)
    tools = tools_of(b)
    cores = {t: (u + s) / wall for t, (u, s) in tools.items()}
    cores[" kernel threads"] = b.get("kthreads_s", 0.0) / wall
    cpu_bound = busy >= CPU_BUSY or max(cores.values()) >= CORE
    if cpu_bound and CLIENT in tools and sum(tools[CLIENT]) >= sum(tools.get(SERVER, (0.0, 0.0))):
        return "client"
    if any(u / wall >= CORE for t, (u, _s) in tools.items() if t != CLIENT):
        return "tool"
    if not cpu_bound:
        return "waiting"
    if busy >= CPU_BUSY:
        return "kernel CPU" if sys_ + irq >= user else "tool"
    top = max(cores, key=cores.get)
    if top == " kernel threads":
        return "kernel CPU"
    u, s = tools[top]
    return "kernel CPU" if s >= u else "tool"


def phase_verdict(v, phase, metric):
    """The verdict of a figure over its trials: the most common word, with
    "(N of M)" when the trials disagree; None without budgets."""
    words = [verdict(b) for _t, b in sorted(trial_budgets(v, phase, prefix_of(metric)).items())]
    words = [w for w in words if w]
    if not words:
        return None
    best = max(sorted(set(words)), key=words.count)
    return best if words.count(best) == len(words) else "%s (%d of %d)" % (best, words.count(best), len(words))


def shares(b):
    """{part: percent of all CPUs' time} of one budget (PARTS), and the
    device's busy percent (or None)."""
    wall, cpus = b["wall_s"], b["cpus"]
    cap = wall * cpus / 100.0
    tools = tools_of(b)
    user, sys_, irq = (b.get(k, 0.0) for k in ("user_s", "sys_s", "irq_s"))
    tu = min(user, sum(u for u, _s in tools.values()))
    ts = min(sys_, sum(s for _u, s in tools.values()))
    kt = min(max(sys_ + irq - ts, 0.0), b.get("kthreads_s", 0.0))
    out = {"tool_user": tu, "other_user": user - tu, "tool_sys": ts, "kthreads": kt,
           "other_kernel": max(sys_ + irq - ts - kt, 0.0), "iowait": b.get("iowait_s", 0.0),
           "steal": b.get("steal_s", 0.0), "idle": b.get("idle_s", 0.0)}
    dev = b.get("device_busy_s")
    return {k: x / cap for k, x in out.items()}, (None if dev is None else 100.0 * dev / wall)


def median_trial(budgets):
    """The budget of the trial with the median wall time (the lower middle)."""
    ok = sorted((b["wall_s"], t) for t, b in budgets.items() if b.get("wall_s") and b.get("cpus") and "user_s" in b)
    return budgets[ok[(len(ok) - 1) // 2][1]] if ok else None


# The proof beside a figure (see docs/harness.md): what limited it (the
# verdict above), how its trials spread, what was resident before.
def proof(v, phase, metric):
    """What backs one figure: {"limit": the time budget's verdict or None,
    "spread": percent or None, "noisy": whether the interval's half-width
    is above the run's precision target (stats.noisy), "resident": median
    resident_pct or None, "rss_kb": median tool_maxrss_kb or None,
    "noise": "1 trial: noise unknown" below NOISE_MIN trials, else "",
    "disturbed": "2 of 7 trials disturbed: machine busy" or "", "interval":
    the half-width of the figure's 95% confidence interval in percent of
    it, or None below 2 trials, "median": whether the figure is the median
    of skewed trials rather than their mean, "stop": why the harness
    stopped repeating it (precision_stop: "trial cap", "time cap"; "" when
    precise, one trial, or a run from before the stopping rule)}."""
    vals = v.values(phase, metric)
    trials = trial_count(v, phase, len(vals))
    sp = spread(vals) if trials >= NOISE_MIN else None
    est = estimate(vals)
    res = summary(v.values(phase, "resident_pct"))[1]
    rss = summary(v.values(phase, "tool_maxrss_kb"))[1]
    interval = est.halfwidth_pct if est.lo is not None and est.halfwidth_pct < 1e6 else None
    return {"limit": phase_verdict(v, phase, metric),
            "spread": sp, "noisy": noisy(interval, noisy_target(v.meta)), "resident": res, "rss_kb": rss,
            "noise": noise_label(trials), "disturbed": disturbed_note(v, phase, metric),
            "interval": interval,
            "median": est.method == "median", "stop": precision_stop(v, phase, metric)}


HEADLINES = ("wall_s", "rps", "mbps", "steady_rps", "steady_mbps")  # what the harness repeats until precise


def precision_stop(v, phase, metric):
    """Why the harness stopped repeating the headline figure of PHASE
    (docs/formats.md#precision-records), in words when it was a cap:
    "trial cap", "time cap"; "" otherwise and for a side figure."""
    stops = [val for p, _t, m, val, _u in v.records if p == phase and m == "precision_stop"]
    if not stops or metric not in HEADLINES or metric != headline([v], phase, metric.replace("steady_", "")):
        return ""
    return {"trial_cap": "trial cap", "time_cap": "time cap"}.get(stops[-1], "")


def rss_text(p):
    """The peak resident size of the phase's largest tool, e.g. "peak RSS 4.2 MB"."""
    return "peak RSS %.1f MB" % (p["rss_kb"] * 1024 / 1e6)


def interval_text(p, mark=": noisy"):
    """The figure's interval in words: "95% CI +-2.1%" ("median, 95% CI ..."
    for the median of skewed trials), ": noisy" after it when it is wider
    than the run's precision target (MARK)."""
    return "%s95%% CI \u00b1%.1f%%%s" % ("median, " if p.get("median") else "", p["interval"],
                                        mark if p.get("noisy") else "")


def proof_text(p):
    """The proof of one figure as short words, e.g. "kernel CPU; 95% CI
    +-4.1%: noisy; spread 9.0%" ("" when nothing backs it)."""
    parts = []
    if p["limit"] is not None:
        parts.append(p["limit"])
    if p.get("interval") is not None:
        parts.append(interval_text(p))
    if p["spread"] is not None:
        parts.append("spread %.1f%%" % p["spread"])
    if p.get("noise"):
        parts.append(p["noise"])
    if p.get("disturbed"):
        parts.append(p["disturbed"])
    if p.get("stop"):
        parts.append("stopped at the %s, short of the precision asked" % p["stop"])
    if p["resident"] is not None:
        parts.append("%.1f%% resident before" % p["resident"])
    if p.get("rss_kb") is not None:
        parts.append(rss_text(p))
    return "; ".join(parts)
