"""Who won each phase and by how much: the variants of one phase sorted by
their median, best first, each other one's difference from the best in
percent and whether the trials can tell it from the best (Welch's t-test of
make compare, plots/compare.py); and the overall standing across phases, as
the Phoronix Test Suite draws it: the geometric mean of each variant's ratio
to the best of every phase, with its wins and last places."""
import math

import compare
from resultslib import INVALID, cold_phase, memory_fs, noise_label, stats, trial_count


class Entry:
    """One variant's figure in a phase's ranking."""

    def __init__(self, v, vals, trials):
        self.v, self.vals, self.trials = v, vals, trials
        _n, self.med, self.lo, self.hi = stats(vals)
        self.rel = 0.0  # percent from the best: + slower (times), - lower (rates)
        self.ratio = 1.0  # the best's performance over this one's, <= 1
        self.place = 0  # 0: the best
        self.noise = ""  # "within noise", "real", "N trials: noise unknown" against the best
        self.p = None


def rank(variants, phase, metric):
    """{"phase", "metric", "unit", "lower" (lower is better), "entries":
    [Entry] best first, "out": [(variant, why)] left out} of one phase's
    metric, or None when no variant has a figure or the unit says no
    direction (a count, a size)."""
    unit = next((v.unit(phase, metric) for v in variants if v.values(phase, metric)), "")
    d = compare.direction(unit)
    if not d:
        return None
    entries, out = [], []
    for v in variants:
        vals = v.values(phase, metric)
        if vals and memory_fs(v) and cold_phase(phase):
            out.append((v, "not flushable"))
        elif not vals:
            bad = any(p == phase for p, _t in v.invalid)
            out.append((v, INVALID if bad else "no figure"))
        elif stats(vals)[1] <= 0:
            out.append((v, "no figure"))
        else:
            entries.append(Entry(v, vals, trial_count(v, phase, len(vals))))
    if not entries:
        return None
    entries.sort(key=lambda e: (e.med * -d, e.v.run, e.v.host, e.v.name))
    best = entries[0]
    for i, e in enumerate(entries):
        e.place = i if e.med != best.med else 0
        e.rel = (e.med - best.med) / best.med * 100 if best.med else 0.0
        e.ratio = (best.med / e.med if d < 0 else e.med / best.med) if best.med and e.med else 0.0
        if e is not best:
            _c, e.noise, e.p = compare.verdict(best.vals, e.vals)
    return {"phase": phase, "metric": metric, "unit": unit, "lower": d < 0, "entries": entries, "out": out}


def rel_text(e, r):
    """The short mark of an entry: "best", "+23%", "-18%", "+2.1%"; a time
    of twice the best's or more as a factor: "9.9x"."""
    if e.place == 0:
        return "best"
    if e.rel >= 100 and r["lower"]:
        f = 1 / e.ratio if e.ratio else 0
        return "%.1fx" % f if f < 10 else "%.0fx" % f
    return "%+.1f%%" % e.rel if abs(e.rel) < 10 else "%+.0f%%" % e.rel


def rel_words(e, r):
    """The mark in words, e.g. "23% slower than ext4 (the best)"."""
    if e.place == 0:
        return "the best"
    best = r["entries"][0].v
    worse = "slower" if r["lower"] else "lower"
    words = "%.1f%% %s than %s" % (abs(e.rel), worse, best.name if best.host == e.v.host else "%s / %s" % (
        best.host, best.name))
    if e.noise == "within noise":
        words += ", within the noise of the trials (Welch's t-test p = %.2f)" % e.p
    elif e.noise == "real":
        words += " (Welch's t-test p = %.3f)" % e.p
    elif e.noise:
        words += " (%s)" % e.noise
    return words


def overall(rankings, key):
    """[{"key", "v", "score", "phases", "wins", "last"}] best first: each
    variant's geometric mean of its ratio to the best over the phases it
    has a figure in (1.0: the best everywhere), its wins (best of a phase)
    and last places (of phases with two variants or more). KEY(v) names a
    variant across runs."""
    acc = {}
    for r in rankings:
        n = len(r["entries"])
        for e in r["entries"]:
            a = acc.setdefault(key(e.v), {"key": key(e.v), "v": e.v, "logs": [], "wins": 0, "last": 0})
            a["logs"].append(math.log(e.ratio) if e.ratio > 0 else -math.inf)
            a["wins"] += e.place == 0
            a["last"] += n > 1 and e.place == n - 1 and e.place > 0
    out = []
    for a in acc.values():
        a["phases"] = len(a["logs"])
        a["score"] = math.exp(sum(a["logs"]) / len(a["logs"])) if a["logs"] else 0.0
        del a["logs"]
        out.append(a)
    out.sort(key=lambda a: (-a["score"], -a["wins"], a["key"]))
    return out


def noise_of(rankings):
    """The one noise label of every figure ("1 trial: noise unknown") when
    all have the same number of trials below the noise minimum, else ""."""
    trials = {e.trials for r in rankings for e in r["entries"]}
    return noise_label(trials.pop()) if len(trials) == 1 else ""
