"""Who is ahead in each phase, and overall, and what the trials can tell
(docs/results.md): the variants of one phase sorted by their estimate
(stats.Estimate), best first, each other one's difference from the best
with its 95% interval and test (stats.Comparison); the phase has a winner
only when the best is significantly ahead of every other variant, and says
what difference the run could have seen (stats.mde_of_sets). A report's
phases are ranked in one pass (rank_all) and their comparisons corrected
together (correct(): Benjamini-Hochberg, a 5% false discovery rate), so
that a run of many phases names no winner by chance. Variants of
one run and host whose trials ran in rounds (a blocked run: `round`
records) are compared within the rounds (paired, the drift between rounds
cancels) and the phase's detectable effect is the rounds' (stats.blocked);
there each variant's figure is its level in the rounds (the drift between
rounds taken out: stats.blocked's levels), which orders the variants and
whose ratio is the difference beside it.

Filesystems in memory (tmpfs, ramfs, mfs) are not ranked: they are the
memory ceiling, a reference beside the ranking. Disturbed trials (the
harness's `disturbed 1`: processes outside the phase or the hypervisor took
CPU time) are already left out of the values (resultslib) and counted here.

The overall standing: each variant's geometric mean of its ratio to the
best of every phase (the Phoronix Test Suite's summary), and, against the
first, the combined difference over the phases both were tested in with
its interval (stats.combine); wins count only phases won significantly,
and the first is the best overall only when it is significantly ahead of
every other variant."""
import math

import stats
from resultslib import INVALID, NOT_FLUSHABLE, cold_phase, disturbed_note, disturbed_state, memory_fs, noise_label, trial_count


class Entry:
    """One variant's figure in a phase's ranking."""

    def __init__(self, v, vals, trials, by_round=None):
        self.v, self.vals, self.trials = v, vals, trials
        self.by_round = by_round or {}  # {round: [values]} of a blocked run (resultslib.values_by_round)
        self.est = stats.estimate(vals)
        self.med = self.est.center  # the figure: the estimate (stats.Estimate), or exp(level)
        self.level = None  # in rounds: the rounds' model's level (stats.blocked), the figure exp(level)
        self.block = None  # and its index among the model's variants
        self.rel = 0.0  # percent from the best: + slower (times), - lower (rates)
        self.ratio = 1.0  # the best's performance over this one's, <= 1
        self.place = 0  # 0: the best
        self.cmp = None  # stats.Comparison against the best (None for the best)
        self.p_adjusted = None  # its p value adjusted over the report's comparisons (correct())
        self.corrected = ""  # why a comparison significant on its own is not over the report's (correct())

    @property
    def verdict(self):
        """stats.SIGNIFICANT, NOT_SIGNIFICANT or CANNOT_TELL against the best ("" for the best),
        after the correction over the report's comparisons (correct())."""
        if self.corrected:
            return stats.NOT_SIGNIFICANT
        return self.cmp.verdict if self.cmp else ""


def rank(variants, phase, metric):
    """{"phase", "metric", "unit", "lower" (lower is better), "entries":
    [Entry] best first, "out": [(variant, why)] left out, "reference":
    [Entry] of the filesystems in memory, "winner": the best's Entry when it
    is significantly ahead of every other, else None, "verdict": the card's
    words ("winner", "no winner", "cannot tell", "alone"), "mde": the
    detectable effect in percent (inf: cannot tell), "rounds": the rounds
    it is from (stats.blocked: those with 2 of the variants or more; 0:
    from the trials, unpaired),
    "disturbed": [(variant, disturbed_state)], "comparisons", "demoted" (correct():
    0 and False for a phase ranked alone)} of one phase's metric, or None
    when no variant has a figure or the unit says no direction (a count, a
    size). Each comparison is at 95% on its own; a report corrects its
    phases' comparisons together (rank_all)."""
    unit = next((v.unit(phase, metric) for v in variants if v.values(phase, metric)), "")
    d = stats.direction(unit)
    if not d:
        return None
    entries, out, reference, disturbed = [], [], [], []
    for v in variants:
        vals = v.values(phase, metric)
        note = disturbed_note(v, phase, metric)
        if note:
            disturbed.append((v, disturbed_state(v, phase, metric)))
        if vals and memory_fs(v) and cold_phase(phase):
            out.append((v, NOT_FLUSHABLE))
        elif not vals:
            bad = any(p == phase for p, _t in v.invalid)
            out.append((v, INVALID if bad else note or "no figure"))
        elif stats.summary(vals)[1] <= 0:
            out.append((v, "no figure"))
        elif memory_fs(v):
            reference.append(Entry(v, vals, trial_count(v, phase, len(vals))))
        else:
            entries.append(Entry(v, vals, trial_count(v, phase, len(vals)), v.values_by_round(phase, metric)))
    if not entries and not reference:
        return None
    r = {"phase": phase, "metric": metric, "unit": unit, "lower": d < 0, "entries": entries, "out": out,
         "reference": reference, "winner": None, "disturbed": disturbed,
         "mde": math.inf, "rounds": 0, "comparisons": 0, "demoted": False}
    b = stats.blocked([e.by_round for e in entries]) if len(entries) > 1 and same_block(entries) else None
    if b and b.levels:
        # in rounds, each figure is its rounds' level (the drift taken out),
        # so that the order and the differences beside it agree
        for i, (e, level) in enumerate(zip(entries, b.levels)):
            e.level, e.med, e.block = level, math.exp(level), i
    if len(entries) > 1:
        if b and math.isfinite(b.mde_pct):
            r["mde"], r["rounds"] = b.mde_pct, b.rounds
        else:
            r["mde"] = stats.mde_of_sets([e.vals for e in entries])
    entries.sort(key=lambda e: (e.med * -d, e.v.run, e.v.host, e.v.name))
    if entries:
        best = entries[0]
        for i, e in enumerate(entries):
            e.place = i if e.med != best.med else 0
            e.ratio = (best.med / e.med if d < 0 else e.med / best.med) if best.med and e.med else 0.0
            if e is not best:
                model = (e.level - best.level, b.pair_se(best.block, e.block), b.df) \
                    if e.level is not None else None
                e.cmp = stats.compare(best.vals, e.vals, by_round=paired(best, e), model=model)
                e.rel = e.cmp.rel
    decide(r)
    for e in reference:
        e.rel = (e.med - entries[0].med) / entries[0].med * 100 if entries and entries[0].med else math.nan
    return r


def decide(r):
    """Set ranking R's "verdict" and "winner" from its entries' verdicts:
    the best is the winner when significantly ahead of every other."""
    others = r["entries"][1:]
    r["winner"] = None
    if not others:
        r["verdict"] = "alone"
    elif any(e.verdict == stats.CANNOT_TELL for e in others):
        r["verdict"] = "cannot tell"
    elif all(e.verdict == stats.SIGNIFICANT for e in others):
        r["verdict"], r["winner"] = "winner", r["entries"][0]
    else:
        r["verdict"] = "no winner"


def rank_all(variants, specs):
    """{(phase, metric): ranking} of every (phase, metric) of SPECS that
    ranks (rank()), corrected together (correct()): the one pass over a
    report's phases that its cards, charts and summary all show."""
    out = {}
    for phase, metric in specs:
        if (phase, metric) not in out:
            r = rank(variants, phase, metric)
            if r:
                out[(phase, metric)] = r
    correct(list(out.values()))
    return out


def bh_adjust(ps):
    """Benjamini and Hochberg's adjusted p values of PS, in their order:
    the i-th smallest p times m / i, the smallest of those from it up (a
    p's adjusted value is at most q exactly when the step-up procedure
    rejects it at a false discovery rate of q), at most 1."""
    m = len(ps)
    order = sorted(range(m), key=lambda i: ps[i])
    out, low = [0.0] * m, 1.0
    for k in range(m - 1, -1, -1):
        low = min(low, ps[order[k]] * m / (k + 1))
        out[order[k]] = low
    return out


def adjust(cmps, q=1 - stats.CONF):
    """Benjamini-Hochberg over CMPS (stats.Comparison, None for no
    comparison) at a false discovery rate of Q: [(adjusted p or None,
    why a comparison significant on its own is not over them all, or "")]
    in their order, and how many had a p value (were corrected over). A
    comparison without a p value (no test, or no scipy) keeps its verdict.
    The one decision of the report (correct()) and of make compare."""
    tested = [i for i, c in enumerate(cmps) if c and c.p is not None]
    out = [(None, "")] * len(cmps)
    for i, p in zip(tested, bh_adjust([cmps[i].p for i in tested])):
        demoted = cmps[i].verdict == stats.SIGNIFICANT and p > q
        out[i] = (p, "not significant after correcting for %d comparisons" % len(tested) if demoted else "")
    return out, len(tested)


def correct(rankings, q=1 - stats.CONF):
    """Correct RANKINGS (a report's phases) for their many comparisons:
    Benjamini-Hochberg over every comparison with a p value (adjust()), at a
    false discovery rate of Q (5%; under no difference at all, as in an A/A
    run, the chance of any false winner in the report is then Q at most). A
    comparison significant on its own whose adjusted p is above Q becomes
    not significant (Entry.corrected says why), and each phase's winner
    is decided again. A comparison without a p value (no test, or no
    scipy) keeps its verdict; the intervals stay each comparison's own
    95% ones. Each ranking's "comparisons": how many were corrected over
    together; "demoted": whether the correction took its winner."""
    entries = [e for r in rankings for e in r["entries"] if e.cmp]
    adjusted, n = adjust([e.cmp for e in entries], q)
    for e, (p, why) in zip(entries, adjusted):
        e.p_adjusted, e.corrected = p, why
    for r in rankings:
        had = r["verdict"] == "winner"
        r["comparisons"] = n
        decide(r)
        r["demoted"] = had and r["verdict"] != "winner"


def fdr_text(n, claim="Winners are named", where="this report"):
    """The one sentence on a correction over N comparisons ("" below 2,
    where it changes nothing)."""
    if n < 2:
        return ""
    return ("%s at a %.0f%% false discovery rate over the %d comparisons of %s "
            "(Benjamini-Hochberg); each interval is its comparison's own %.0f%% interval." % (
                claim, (1 - stats.CONF) * 100, n, where, stats.CONF * 100))


def fdr_words(rankings):
    """The report's one sentence on its correction (fdr_text)."""
    return fdr_text(max([r.get("comparisons", 0) for r in rankings] or [0]))


def same_block(entries):
    """Whether ENTRIES' rounds are the same blocks (same_rounds)."""
    return same_rounds([e.v for e in entries])


def same_rounds(variants):
    """Whether VARIANTS ran in the same rounds: one run, one host (the
    harness's rounds coordinator runs the variants of one host together)."""
    return len({(v.run, v.host) for v in variants}) == 1


def paired(a, b):
    """(A's, B's) trials by round for stats.compare when the two entries ran
    in the same rounds, else None (an unpaired comparison)."""
    return (a.by_round, b.by_round) if same_block([a, b]) and a.by_round and b.by_round else None


def paired_values(va, vb, phase, metric):
    """(VA's, VB's) trials of PHASE's METRIC by round, for stats.compare,
    when the two variants ran it in the same rounds, else None."""
    if not same_rounds([va, vb]):
        return None
    a, b = va.values_by_round(phase, metric), vb.values_by_round(phase, metric)
    return (a, b) if a and b else None


# Rates a replay measures twice with --min-time (MIN_MEASURE_S): the first
# pass (METRIC) and the steady window (steady_METRIC), the headline.
STEADY = ("rps", "mbps")


def headline(variants, phase, metric):
    """The metric PHASE is ranked by (docs/formats.md#precision-records):
    steady_METRIC where a variant has it (the steady window of a replay run
    for a minimum time), else METRIC."""
    if metric in STEADY and any(v.values(phase, "steady_" + metric) for v in variants):
        return "steady_" + metric
    return metric


def headline_title(title, metric):
    """TITLE with ", steady window" before its unit for a steady_ metric."""
    if not metric.startswith("steady_") or not title.endswith(")"):
        return title
    head, _sep, unit = title.rpartition(" (")
    return "%s, steady window (%s" % (head, unit)


def rel_text(e, r):
    """The short mark of an entry: "best", "+23%", "-18%", "+2.1%"; a time
    of twice the best's or more as a factor: "9.9x"."""
    if e.place == 0 and not e.cmp:
        return "best"
    if e.rel >= 100 and r["lower"]:
        f = 1 / e.ratio if e.ratio else 0
        return "%.1fx" % f if f < 10 else "%.0fx" % f
    return "%+.1f%%" % e.rel if abs(e.rel) < 10 else "%+.0f%%" % e.rel


def mark(e, r, say_cannot_tell=True):
    """The mark of an entry with what the test says: "best", "+23%",
    "+1.2% (not significant)", "+7.9% (cannot tell)" (the last without its
    words when SAY_CANNOT_TELL is false: a chart whose title or labels say
    "1 trial: noise unknown" already)."""
    text = rel_text(e, r)
    if e.verdict == stats.NOT_SIGNIFICANT:
        return text + " (not significant)"
    if e.verdict == stats.CANNOT_TELL and say_cannot_tell:
        return text + " (cannot tell)"
    return text


def ci_text(e):
    """The 95% interval of an entry's difference from the best: "+4.3% to
    +15.1%" ("" for the best and without a test)."""
    if not e.cmp or e.cmp.lo is None:
        return ""
    return "%s to %s" % (stats.pct(e.cmp.lo), stats.pct(e.cmp.hi))


def trials_text(n):
    return "%d trial%s" % (n, "" if n == 1 else "s")


def rel_words(e, r):
    """The mark in words, e.g. "23.0% slower than ext4 (the best), 95% CI
    18.1% to 28.2%, Welch's t-test p = 0.003: significant"."""
    if not e.cmp:
        return "the best"
    best = r["entries"][0].v
    worse = ("slower" if e.rel >= 0 else "faster") if r["lower"] else ("lower" if e.rel <= 0 else "higher")
    words = "%.1f%% %s than %s" % (abs(e.rel), worse, best.name if best.host == e.v.host else "%s / %s" % (
        best.host, best.name))
    c = e.cmp
    if c.verdict == stats.CANNOT_TELL:
        return words + ": cannot tell, %s (no test below %d trials a side)" % (
            trials_text(min(e.trials, r["entries"][0].trials)), stats.TEST_MIN)
    parts = [stats.interval_text(c)]
    if c.p is not None:
        parts.append("%s p = %.2g" % (c.test, c.p))
    elif c.rounds:
        parts.append(c.test)
    if e.corrected:
        return "%s, %s: %s (Benjamini-Hochberg adjusted p = %.2g)" % (words, ", ".join(parts), e.corrected,
                                                                       e.p_adjusted)
    return "%s, %s: %s" % (words, ", ".join(parts), e.verdict)


def card_words(r, name):
    """What a phase's card says of the best: "winner X", "no winner: X
    ahead, not significantly", "cannot tell: 1 trial"; NAME(v) names a
    variant."""
    es = r["entries"]
    if not es:
        return "not ranked: only memory filesystems (a reference)"
    if r["verdict"] == "winner":
        return "winner %s" % name(es[0].v)
    if r["verdict"] == "alone":
        return "%s alone" % name(es[0].v)
    if r["verdict"] == "cannot tell":
        return "cannot tell: %s" % trials_text(min(e.trials for e in es))
    if r.get("demoted"):
        return "no winner: %s ahead, not significantly after correcting for %d comparisons" % (
            name(es[0].v), r["comparisons"])
    return "no winner: %s ahead, not significantly" % name(es[0].v)


# A phase's second figure (charts.BAR_CHARTS): the server's CPU per request,
# beside the rate it explains. Not in the overall standing, which would
# count those phases twice.
SECOND_FIGURES = ("server_cpu_us",)


def first_figures(rankings):
    """The RANKINGS of the phases' own figures, without their second ones
    (SECOND_FIGURES)."""
    return [r for r in rankings if r["metric"] not in SECOND_FIGURES]


def overall(rankings, key):
    """[{"key", "v", "score", "phases", "wins", "last", "cmp", "tested"}]
    best first: each variant's geometric mean of its ratio to the best over
    the phases it has a figure in (1.0: the best everywhere), its wins
    (phases it won significantly, "winner") and last places (of phases with
    two variants or more, significantly behind the best); "cmp" against the
    first: stats.Combined over the "tested" phases both have 2 trials or
    more in (None for the first), paired within the rounds where both ran
    in the same ones. Memory filesystems (references) and the phases'
    second figures (SECOND_FIGURES) are not in it. KEY(v) names a variant
    across runs."""
    acc = {}
    for r in first_figures(rankings):
        n = len(r["entries"])
        for e in r["entries"]:
            a = acc.setdefault(key(e.v), {"key": key(e.v), "v": e.v, "logs": [], "wins": 0, "last": 0, "by_phase": {}})
            a["logs"].append(math.log(e.ratio) if e.ratio > 0 else -math.inf)
            a["wins"] += r["winner"] is e
            a["last"] += n > 1 and e.place == n - 1 and e.verdict == stats.SIGNIFICANT
            a["by_phase"][(r["phase"], r["metric"])] = (e, -1 if r["lower"] else 1)
    out = []
    for a in acc.values():
        a["phases"] = len(a["logs"])
        a["score"] = math.exp(sum(a["logs"]) / len(a["logs"])) if a["logs"] else 0.0
        del a["logs"]
        out.append(a)
    out.sort(key=lambda a: (-a["score"], -a["wins"], a["key"]))
    for i, a in enumerate(out):
        a["cmp"], a["tested"] = None, 0
        if i == 0:
            continue
        first = out[0]["by_phase"]
        pairs = [(first[k][0].vals, a["by_phase"][k][0].vals, first[k][1], paired(first[k][0], a["by_phase"][k][0]))
                 for k in a["by_phase"] if k in first]
        pairs = [p for p in pairs if min(len(p[0]), len(p[1])) >= stats.TEST_MIN]
        a["tested"] = len(pairs)
        # the combined difference of this one's performance against the first's (- : behind)
        a["cmp"] = stats.combine(pairs) if pairs else None
    for a in out:
        del a["by_phase"]
    return out


def best_overall(standing):
    """The first of an overall standing when it is significantly ahead of
    every other variant (their combined differences), else None."""
    if len(standing) < 2 or standing[0]["wins"] < 1:
        return None
    if all(a["cmp"] is not None and a["cmp"].significant and a["cmp"].rel < 0 for a in standing[1:]):
        return standing[0]
    return None


def noise_of(rankings):
    """The one noise label of every figure ("1 trial: noise unknown") when
    all have the same number of trials below the noise minimum, else ""."""
    trials = {e.trials for r in rankings for e in r["entries"]}
    return noise_label(trials.pop()) if len(trials) == 1 else ""
