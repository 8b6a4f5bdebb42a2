"""The chart of the time budget (budget.py says what it means): a stacked
bar per phase of where the CPUs' time went in every variant."""

from budget import PARTS, median_trial, phase_verdict, shares, trial_budgets
from chartlib import gdat, gq, instance, out_path, stem


def specs(variants):
    """[(phase, prefix, title)] of every part with a CPU split in some variant."""
    seen = []
    for v in variants:
        for p, _t, m, _v, _u in v.records:
            for prefix in ("", "sync_"):
                if m == prefix + "budget_cpus" and (p, prefix) not in seen:
                    seen.append((p, prefix))
    return [(p, pre, "%s%s: where the CPUs' time went" % (p, " sync" if pre else "")) for p, pre in seen]


def render(runs, out):
    """The budget charts of RUNS into OUT: [chart dicts] as the report takes them."""
    variants = [v for r in runs for v in r.variants]
    multi = len(runs) > 1
    charts = []
    for phase, prefix, title in specs(variants):
        rows = []
        for v in variants:
            b = median_trial(trial_budgets(v, phase, prefix))
            if b is None:
                continue
            sh, dev = shares(b)
            word = phase_verdict(v, phase, "sync_s" if prefix else "wall_s") or "-"
            name = "%s%s / %s" % (v.run + " / " if multi else "", v.host, v.name)
            rows.append((name + "\n" + word, sh, dev))
        if not rows:
            continue
        name = stem("budget-%s%s" % (phase, "-sync" if prefix else ""))
        with open(out_path(out, name + ".dat"), "w", encoding="utf-8") as f:
            f.write("# variant %s device_busy_pct\n" % " ".join(k for k, _l, _c in PARTS))
            for i, (lab, sh, dev) in enumerate(rows):
                f.write("%s %s %s\n" % (gdat(lab), " ".join("%.2f" % sh[k] for k, _l, _c in PARTS),
                                        "NaN" if dev is None else "%.1f" % dev))
        lines = ["datafile = %s" % gq(name + ".dat"), "chart_title = %s" % gq(title),
                 "width = %d\nheight = 520" % max(720, 110 * len(rows) + 300),
                 "array part_names = [%s]" % ", ".join(gq(lab) for _k, lab, _c in PARTS),
                 "array part_colors = [%s]" % ", ".join(gq(c) for _k, _l, c in PARTS)]
        instance(out, name, "budget.gp", lines)
        charts.append({"name": name, "kind": "budget", "title": title, "phase": phase,
                       "caption": "Where all CPUs' time went in the trial with the median wall time, in %% "
                                  "(user is a tool's own code, sys the kernel's work in its context; kernel "
                                  "threads are writeback, the journal, kworkers); the diamond is the device's "
                                  "busy time in %% of the wall time (none on a memory filesystem). Under each "
                                  "bar the verdict over the trials%s." % (
                                      "; a sync runs no tool, so it has no tool share" if prefix else "")})
    return charts
