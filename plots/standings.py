"""The words of the report's first screen (report.html.j2 and summary.md):
a card a phase (its verdict, the variants best first, each difference with
its interval, what the phase could detect, the references in memory, the
disturbed trials), the overall table and the lead line. What they say is
decided in ranking.py and stats.py; here it is put into words."""
import math

import ranking
import stats
from budget import proof, proof_text
from chartlib import title_lines
from resultslib import KEPT, LEFT_OUT, THEIRS, disturbed_left_out, disturbed_trials, fmt_value, num, trials_heading

SCORE_WORDS = ("score: the geometric mean over the phases of each one's figure relative to the phase's best "
               "(100%: the best in every phase), as the Phoronix Test Suite summarises; vs first: its "
               "performance against the first's over the phases both have two trials or more in (geometric "
               "mean, 95% CI); wins: phases it won significantly; last: phases it was the last of, "
               "significantly behind the best. Filesystems in memory are a reference, not ranked.")


def first_screen(ranked, name, allv, nruns):
    """{lead, overall, cards, best_named, score_words} of RANKED [(chart name,
    title, ranking)]; NAME(v) names a variant; ALLV the variants of the NRUNS
    runs."""
    rs = [r for _n, _t, r in ranked]
    cards = [card(chart, title, r, name) for chart, title, r in ranked]
    standing = ranking.overall(rs, lambda v: (v.run, v.host, v.name))
    overall = [overall_row(i, a, name) for i, a in enumerate(standing)]
    best = ranking.best_overall(standing)
    return dict(lead=lead(rs, standing, best, name, allv, nruns), overall=overall, cards=cards,
                best_named=bool(best), score_words=SCORE_WORDS)


def card(chart, title, r, name):
    """One phase's card."""
    lines = title_lines(title)
    rows = []
    for x in r["entries"]:
        ci = ranking.ci_text(x)
        rows.append(dict(label=name(x.v), figure=fmt_value(x.med, r["unit"]), best=x.place == 0,
                         mark=ranking.mark(x, r), noise=x.verdict in (stats.NOT_SIGNIFICANT, stats.CANNOT_TELL),
                         ci=ci, md=", ".join(t for t in (ranking.rel_text(x, r), "95% CI " + ci if ci else "",
                                                         x.corrected or x.verdict if x.verdict != stats.SIGNIFICANT else "") if t),
                         words=ranking.rel_words(x, r), width="%.0f" % (x.ratio * 100),
                         detail=proof_text(proof(x.v, r["phase"], r["metric"]))))
    out = {}
    for v, why in r["out"]:
        out.setdefault(why, []).append(name(v))
    return dict(id=chart, title=lines[0], sub=", ".join(lines[1:]), rows=rows,
                winner=name(r["winner"].v) if r["winner"] else "",
                verdict=ranking.card_words(r, name),
                mde=mde_words(r),
                reference="; ".join("%s %s" % (name(x.v), fmt_value(x.med, r["unit"])) for x in r["reference"]),
                disturbed=disturbed_words(r["disturbed"], name),
                out="; ".join("%s: %s" % (w, ", ".join(n)) for w, n in out.items()))


# What the card says became of a group of variants' disturbed trials.
DISTURBED_WORDS = {LEFT_OUT: "left out", KEPT: "kept (too few undisturbed trials in the phase)",
                   THEIRS: "every trial (the figure is theirs)"}


def disturbed_words(disturbed, name):
    """A card's line on its disturbed trials (ranking's "disturbed"), the
    variants grouped by what became of theirs, so that a machine busy for
    the whole run is one line, not a paragraph a variant: "trials disturbed
    (machine busy), kept (too few undisturbed trials in the phase): ext2 4
    of 5, ext4 5 of 5" ("" when none was)."""
    groups = {}
    for v, (bad, marked, what) in disturbed:
        groups.setdefault(what, []).append("%s %d of %d" % (name(v), bad, marked))
    if not groups:
        return ""
    return "trials disturbed (machine busy), " + "; ".join(
        "%s: %s" % (DISTURBED_WORDS[w], ", ".join(groups[w])) for w in (LEFT_OUT, KEPT, THEIRS) if w in groups)


def mde_words(r):
    """What a phase's ranking R could detect: "this run can tell differences
    of 2.7% or more (6 rounds, paired)" ("" for a lone variant)."""
    if len(r["entries"]) < 2 or not math.isfinite(r["mde"]):
        return ""
    return stats.mde_text(r["mde"]) + (" (%d rounds, paired)" % r["rounds"] if r.get("rounds") else "")


def overall_row(i, a, name):
    """The I-th row of the overall table; its place "=1" while the trials
    cannot tell it from the first."""
    c = a["cmp"]
    return dict(place=str(i + 1) if i == 0 or (c and c.significant) else "=1",
                label=name(a["v"]), score="%.0f%%" % (a["score"] * 100),
                wins=a["wins"], last=a["last"], behind=bool(c and c.significant),
                **dict(zip(("vs", "vs_ci", "vs_words"), overall_vs(i, c))),
                words="geometric mean of its ratio to the best over %d phase%s" % (
                    a["phases"], "" if a["phases"] == 1 else "s"))


def overall_vs(i, c):
    """The overall table's "vs first" of the I-th variant: (figure, its
    interval, the words): ("-3.1%", "-5.0% to -1.2%", "-3.1% (95% CI -5.0%
    to -1.2%)"), "cannot tell" without a test, all "" for the first."""
    if i == 0:
        return "", "", ""
    if c is None:
        return "cannot tell", "", "cannot tell"
    ci = "%s to %s" % (stats.pct(c.lo), stats.pct(c.hi))
    return stats.pct(c.rel), ci, "%s (%s)%s" % (stats.pct(c.rel), stats.interval_text(c),
                                               "" if c.significant else ", not significant")


def lead(rs, standing, best, name, allv, nruns):
    """The first line: what was ranked, the best overall or why none, what
    the phases could detect, the references, the disturbed trials."""
    hosts = {v.host for v in allv}
    second = [r for r in rs if r["metric"] in ranking.SECOND_FIGURES]
    rs = ranking.first_figures(rs)
    ranked = sum(1 for r in rs if r["entries"])
    out = "%d variant%s on %d host%s%s, %d phase%s ranked (%s)." % (
        len(allv), "" if len(allv) == 1 else "s", len(hosts), "" if len(hosts) == 1 else "s",
        " from %d runs" % nruns if nruns > 1 else "", ranked, "" if ranked == 1 else "s",
        ranking.noise_of(rs) or trials_heading(allv))
    if best:
        out += " Best overall: %s (%d significant win%s; ahead of every other by %.1f%% or more over the phases)." % (
            name(best["v"]), best["wins"], "" if best["wins"] == 1 else "s", min(-a["cmp"].hi for a in standing[1:]))
    elif len(standing) > 1:
        out += " No best overall: %s." % ("no variant is significantly ahead of every other"
                                          if any(a["cmp"] for a in standing[1:]) else "too few trials to tell")
    if ranking.fdr_words(rs):
        out += " " + ranking.fdr_words(rs)
    mde = median_mde(rs)
    if mde is not None:
        out += " Per phase, %s (the median over the phases; each card says its own)." % stats.mde_text(mde)
    mde = median_mde(second)
    if mde is not None:
        out += (" The servers' CPU per request (the hypervisor's steal not counted; a card of its own beside "
                "each serve and network phase's): %s (the median).") % stats.mde_text(mde)
    ref = sorted({name(x.v) for r in rs for x in r["reference"]})
    if ref:
        out += " In memory, not ranked (the memory ceiling, a reference): %s." % ", ".join(ref)
    busy = disturbed_total(allv)
    if busy:
        bad, marked, left = busy
        out += " %d of %d phase trials disturbed (machine busy)" % (bad, marked)
        out += (", left out of the figures." if left == bad else
                ", kept in the figures: too few undisturbed trials to leave them out." if not left else
                ": %d left out of the figures, the others kept (a phase with too few undisturbed trials, "
                "or none, keeps them)." % left)
    return out


def median_mde(rs):
    """The median detectable effect over the rankings RS that compare (two
    variants or more), or None."""
    mdes = sorted(r["mde"] for r in rs if len(r["entries"]) > 1)
    return mdes[len(mdes) // 2] if mdes and math.isfinite(mdes[len(mdes) // 2]) else None


def disturbed_total(allv):
    """(disturbed trials, trials with the mark, disturbed trials left out of
    the figures) over the variants' phases, or None."""
    marks = [(v, p, num(val)) for v in allv for p, _t, m, val, _u in v.records if m == "disturbed"]
    bad = sum(1 for _v, _p, x in marks if x == 1)
    # per variant and phase once (disturbed_left_out reads its marks)
    busy = {(v, p) for v, p, x in marks if x == 1}
    left = sum(disturbed_trials(v, p)[0] for v, p in busy if disturbed_left_out(v, p))
    return (bad, len(marks), left) if bad else None


def first_screen_md(f):
    """The first screen in Markdown: the lead, the overall table, a line a
    phase with its verdict, the variants best first and what the run could
    detect."""
    md = [f["lead"], "", "| # | %s | score | vs first | wins | last |" % f["who"],
          "| ---: | --- | ---: | ---: | ---: | ---: |"]
    md += ["| %s | %s | %s | %s | %d | %d |" % (a["place"], mdc(a["label"]), a["score"], a["vs_words"] or "-",
                                                a["wins"], a["last"]) for a in f["overall"]]
    md += ["", f["score_words"], "", "Per phase, the best first:", ""]
    for c in f["cards"]:
        tail = [x for x in (c["mde"], "reference, in memory (not ranked): " + c["reference"] if c["reference"] else "",
                            c["disturbed"], c["out"]) if x]
        rows = ["%s %s (%s)" % (r["label"], r["figure"], r["md"]) for r in c["rows"]]
        md.append("- **%s** (%s): %s. %s" % (c["title"], c["sub"], "winner " + c["winner"] if c["winner"] else c["verdict"],
                                            "; ".join(rows + tail)))
    return md + [""]


def mdc(s):
    return str(s).replace("|", "\\|").replace("\n", " ")
