"""make compare BASE=run1 NEW=run2: per host, variant, phase and metric the
change of the figure (the mean of the trials, the median of skewed ones:
stats.Estimate) in percent, its 95% confidence interval and whether it is
significant (stats.Comparison: Welch's t-test, Mann-Whitney's for skewed
trials, the paired t-test over the rounds where both sides ran in the same
ones), with the smallest change the two sides could have detected; with one
trial on a side it cannot tell (no test). Its comparisons are corrected
together as a report's are (ranking.adjust: Benjamini-Hochberg, a 5% false
discovery rate), so that many phases name no change by chance.

A side may be RUN:OS or RUN:HOST (make compare BASE=RUN:debian12
NEW=RUN:debian13): that run's variants of one operating system (meta.json's
os and os_version run together) or one host, matched with the other side's
by variant name, so one OS is compared against another for the same
filesystem. A side may also be RUN:VARIANT, one variant of that run: one
variant against another (BASE=RUN:ext4 NEW=RUN:xfs), paired within the
rounds where they ran in rounds."""
import html
import math
import os

import chartlib
import charts
import kprofile
import latency
import ranking
import stats
from resultslib import Error, side_pairs
from stats import direction, figure, ranked_metric

def compared_metrics(v):
    """(phase, metric, unit) of the timings and rates of a variant
    (stats.ranked_metric: counts, bytes, CPU seconds and the time budget's
    parts are properties of the dataset or side figures)."""
    seen = []
    for p, _t, m, _v, u in v.records:
        if ranked_metric(m, u) and (p, m, u) not in seen:
            seen.append((p, m, u))
    return seen


def verdict(c, n, corrected, unit):
    """The verdict words of Comparison C (N: the fewer trials of its two
    sides; CORRECTED: why it is not significant over the page's
    comparisons, ranking.adjust): "significant, better" (or ", worse",
    from UNIT), "not significant", "not significant after correcting for
    N comparisons", "cannot tell: 1 trial"."""
    if c.verdict == stats.CANNOT_TELL:
        return "%s: %d trial%s" % (stats.CANNOT_TELL, n, "" if n == 1 else "s")
    if corrected:
        return corrected
    d = direction(unit)
    if c.significant and d and not math.isnan(c.rel):
        return c.verdict + ", " + ("better" if c.rel * d > 0 else "worse")
    return c.verdict


def rows_of(base, new):
    """The rows of the comparison of runs BASE and NEW, their verdicts
    corrected together (ranking.adjust), and how many comparisons that was."""
    rows = []
    for bv, v2 in side_pairs(base, new):
        host = bv.host if bv.host == v2.host else "%s vs %s" % (bv.host, v2.host)
        name = bv.name if bv.name == v2.name else "%s vs %s" % (bv.name, v2.name)
        for p, m, u in compared_metrics(bv):
            bvals, nvals = bv.values(p, m), v2.values(p, m)
            if not bvals or not nvals:
                continue
            # paired within the rounds where both sides ran in the same ones (one run and host)
            c = stats.compare(bvals, nvals, by_round=ranking.paired_values(bv, v2, p, m))
            if c.verdict != stats.CANNOT_TELL and c.p is None and not stats.have_scipy():
                raise Error("make compare needs scipy: apt-get install python3-scipy (harness/deps.sh install plots)")
            rows.append(dict(host=host, variant=name, phase=p, metric=m, unit=u, base=figure(bvals),
                             new=figure(nvals), change=c.rel, p=c.p, cmp=c, n=min(len(bvals), len(nvals))))
    if not rows:
        raise Error("runs %s and %s have no host/variant with the same metrics in common" % (base.name, new.name))
    adjusted, tested = ranking.adjust([r["cmp"] for r in rows])
    for r, (p_adjusted, why) in zip(rows, adjusted):
        r["p_adjusted"] = p_adjusted
        r["flag"] = verdict(r["cmp"], r["n"], why, r["unit"])
    return rows, tested


def tests_text(rows):
    """Which tests the rows used: "Tests: Welch's t-test in 22 of the 27
    comparisons, paired t-test over 7 rounds in 3, none in 2 (cannot tell)."."""
    counts = {}
    for r in rows:
        k = r["cmp"].test if r["cmp"].verdict != stats.CANNOT_TELL else None
        counts[k] = counts.get(k, 0) + 1
    parts = ["%s in %d" % (k, n) for k, n in counts.items() if k] + (
        ["none in %d (cannot tell)" % counts[None]] if None in counts else [])
    parts[0] += " of the %d comparison%s" % (len(rows), "" if len(rows) == 1 else "s")
    return "Tests: %s." % ", ".join(parts)


def fnum(x):
    return "%.4g" % x if abs(x) < 1e4 else "{:,.0f}".format(x)


def rng(s, unit):
    return "%s %s (%s to %s, n=%d)" % (fnum(s[1]), unit, fnum(s[2]), fnum(s[3]), s[0])


def pct(x):
    return stats.pct(x)


def ci(c):
    """ "-12.1% to -7.9%", "-" without a test."""
    return "-" if c.lo is None else "%s to %s" % (stats.pct(c.lo), stats.pct(c.hi))


def can_tell(c):
    """The smallest change the two sides could have detected: "8.8%", "-"."""
    return "-" if not math.isfinite(c.mde) else "%.1f%%" % c.mde


def compare(base, new, out):
    rows, tested = rows_of(base, new)
    # the correction (none to say below 2 comparisons) and the tests used
    notes = [x for x in (ranking.fdr_text(tested, "A change is called significant", "%s vs %s" % (base.name, new.name)),
                         tests_text(rows)) if x]
    head = ["host", "variant", "phase", "metric", "base (min-max, n)", "new (min-max, n)", "change", "95% CI",
            "verdict", "can tell"]
    cells = [[r["host"], r["variant"], r["phase"], r["metric"], rng(r["base"], r["unit"]), rng(r["new"], r["unit"]),
              pct(r["change"]), ci(r["cmp"]), r["flag"], can_tell(r["cmp"])] for r in rows]
    with open(os.path.join(out, "compare.tsv"), "w", encoding="utf-8") as f:
        f.write("host\tvariant\tphase\tmetric\tunit\tbase_figure\tbase_min\tbase_max\tbase_n\t"
                "new_figure\tnew_min\tnew_max\tnew_n\tchange_pct\tverdict\tp\tci_low_pct\tci_high_pct\tmde_pct\ttest\tp_adjusted\n")
        for r in rows:
            f.write("\t".join([r["host"], r["variant"], r["phase"], r["metric"], r["unit"]]
                              + ["%g" % x for x in r["base"][1:] + r["base"][:1]]
                              + ["%g" % x for x in r["new"][1:] + r["new"][:1]]
                              + ["%.2f" % r["change"], r["flag"], "" if r["p"] is None else "%.3g" % r["p"]]
                              + ["" if x is None else "%.2f" % x for x in (r["cmp"].lo, r["cmp"].hi)]
                              + ["%.2f" % r["cmp"].mde if math.isfinite(r["cmp"].mde) else "inf",
                                 r["cmp"].test or ""]
                              + ["" if r["p_adjusted"] is None else "%.3g" % r["p_adjusted"]]) + "\n")
    with open(os.path.join(out, "compare.md"), "w", encoding="utf-8") as f:
        f.write("# %s (base) vs %s (new)\n\n%s\n\n" % (base.name, new.name, RULE))
        f.write("".join(x + "\n\n" for x in notes))
        f.write("| %s |\n|%s\n" % (" | ".join(head), " --- |" * len(head)))
        for c in cells:
            f.write("| %s |\n" % " | ".join(x.replace("|", "\\|") for x in c))
    made = chart(rows, base, new, out)
    profile_link = kprofile.compare_section(base, new, out)
    # the latency CDFs of both sides on one scale per phase (none drawn: no section)
    lat = latency.html_section([base, new], out)
    lat = lat if any("<figure>" in line for line in lat) else []
    with open(os.path.join(out, "compare.html"), "w", encoding="utf-8") as f:
        f.write("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>%s vs %s</title>"
                "<style>%s</style></head><body><h1>%s (base) vs %s (new)</h1>\n"
                % tuple(html.escape(x) for x in (base.name, new.name, CSS, base.name, new.name)))
        f.write("<p>Change of the figure in percent. %s</p>\n" % html.escape(RULE, quote=False))
        f.write("".join("<p>%s</p>\n" % html.escape(x, quote=False) for x in notes))
        if made:
            f.write("<figure><a href=\"compare.svg\"><img src=\"compare.png\" alt=\"changes\"></a></figure>\n")
        f.write(profile_link)
        f.write("".join(line + "\n" for line in lat))
        f.write("<table><tr>%s</tr>\n" % "".join("<th>%s</th>" % html.escape(h) for h in head))
        for c in cells:
            cls = "real" if c[8].startswith(stats.SIGNIFICANT) else "noise"
            f.write("<tr class=\"%s\">%s</tr>\n" % (cls, "".join("<td>%s</td>" % html.escape(x) for x in c)))
        f.write("</table></body></html>\n")


RULE = ("Each side's figure is the mean of its trials (the median where they are skewed). A change is significant "
        "(better or worse) when its 95%% confidence interval leaves out 0: Welch's t-test of the two sides' trials "
        "(Mann-Whitney's U test where a side is skewed; Student's paired t-test over the rounds both ran in where "
        "the two sides are variants of one run and host that ran in rounds), and its p, corrected for all the "
        "comparisons here (Benjamini-Hochberg), is within 5%%; otherwise it is not significant, and with %d trial "
        "on a side the run cannot tell. 'can tell': the smallest change the trials (or the rounds) of both sides "
        "would have shown (95%% confidence, 80%% power)." % (stats.TEST_MIN - 1))
CSS = ("body{font-family:sans-serif;max-width:1200px;margin:1em auto}table{border-collapse:collapse;font-size:90%}"
       "th,td{border:1px solid #ccc;padding:2px 6px}tr.noise{color:#777}img{max-width:100%}")


def chart(rows, base, new, out):
    """Horizontal bars of the change of the headline metrics (charts.BAR_CHARTS):
    a warm serve or net phase's steady window where the replays of both
    runs measured one (ranking.headline), as the report ranks it, else its
    first pass."""
    headline = {(c[1], min(ranking.headline(base.variants, c[1], c[2]), ranking.headline(new.variants, c[1], c[2]),
                           key=len)) for c in charts.BAR_CHARTS}
    sel = [r for r in rows if (r["phase"], r["metric"]) in headline and not math.isnan(r["change"])]
    if not sel:
        return False
    with open(os.path.join(out, "compare.dat"), "w", encoding="utf-8") as f:
        f.write("# y change colour label value_label\n")
        for i, r in enumerate(reversed(sel)):
            col = 3 if not r["flag"].startswith(stats.SIGNIFICANT) else (1 if r["flag"].endswith("better") else 2)
            f.write("%d %g %d %s %s\n" % (i + 1, r["change"], col, chartlib.gdat("%s / %s  %s %s" % (
                r["host"], r["variant"], r["phase"], r["metric"])), chartlib.gdat(pct(r["change"]) + (
                    "" if r["flag"].startswith(stats.SIGNIFICANT) else " (%s)" % r["flag"]))))
    lim = max(abs(r["change"]) for r in sel)
    top, _t, _l = chartlib.axis(lim, "%", 1.35)
    lines = ["chart_title = %s" % chartlib.gq("%s (new) vs %s (base): change of the figure" % (new.name, base.name)),
             "width = 900\nheight = %d" % (120 + 18 * len(sel)), "set yrange [0.3:%g]" % (len(sel) + 0.7),
             "set xrange [%g:%g]" % (-top, top), "set ytics scale 0 font \",8\""]
    with open(os.path.join(out, "compare.gp"), "w", encoding="utf-8") as f:
        f.write("# generated by plots/compare.py; the drawing is compare.gp\n")
        f.write("plotsdir = %s\nbase = \"compare\"\n%s\nload plotsdir . \"/compare.gp\"\n"
                % (chartlib.gq(chartlib.PLOTSDIR), "\n".join(lines)))
    chartlib.run_gnuplot(out, "compare")
    return True
