#!/usr/bin/env python3
"""The statistics of the report, in one place (docs/results.md): what one set
of trials says about a figure, what two sets say about a difference, and what
difference a run could have seen. It loads no file and draws nothing; the
plots, the report, the exports, make compare and the harness's stopping rule
all ask it.

Runs with the Python standard library alone (hosts under test may lack
scipy), scipy where there: the distributions are plots/tdist.py's, the
analysis of rounds plots/blocked.py's.

The command line, for the harness's stopping rule (harness: repeat a figure
until its interval is narrow enough):
    stats.py precision --target PCT [--conf 0.95] V1 V2 ...
prints one line `halfwidth_pct=X.XX n=N enough=yes|no`: the half-width of
the confidence interval of the estimate of V1 V2 ... relative to the
estimate, in percent (inf below 2 values), and whether it is within PCT.
and, for a blocked run (rounds: docs/results.md),
    stats.py blocked --target PCT [--conf 0.95] FILE
of FILE's lines `variant<TAB>round<TAB>value` prints one line
`rounds=R variants=V df=D halfwidth_pct=H mde_pct=M enough=yes|no` (Blocked,
plots/blocked.py: the rounds in which 2 variants or more have a value, the
residual's degrees of freedom, the half-width of the interval of a
difference between two variants and the smallest difference the rounds can
detect, in percent, those of the pair known least well; inf while some
pair cannot be told (no residual degree of freedom, a variant not linked to
the others by shared rounds); enough when H is within PCT).
Bad input: one line on stderr (naming FILE:LINE for a bad line), exit 2.
"""
import math
import re
import sys

from blocked import Blocked, round_diffs
from tdist import mann_whitney_p, mean_sd, order_interval, scipy_stats, shift_interval, t_pvalue, t_quantile, welch_df

CONF = 0.95  # the confidence of every interval and test
POWER = 0.80  # the power at which a detectable effect is stated
# A figure's min-max range is shown from NOISE_MIN trials on; with fewer the
# noise is unknown and said so; a test needs 2 trials a side at least.
NOISE_MIN = 3
TEST_MIN = 2
# percent: a figure whose 95% interval's half-width is wider, relative to the
# figure, is marked noisy, unless its run recorded another target (meta.json
# precision: the PRECISION the harness repeated figures to)
NOISY_PCT = 3.5
# The smallest set whose median has an order-statistic interval at 95%
# ([min, max] of 6 trials covers the median with probability 1 - 2/2^6).
ORDER_MIN = 6
OUTLIER_MADS = 3.5  # Iglewicz and Hoaglin's bound for an outlier

CANNOT_TELL = "cannot tell"
SIGNIFICANT = "significant"
NOT_SIGNIFICANT = "not significant"


# Units whose smaller figure is the better one (times); "/s" rates are better larger.
LOWER_BETTER = ("s", "ms", "us", "ns")


def direction(unit):
    """+1 when larger is better, -1 when smaller is better, 0 when unknown."""
    if unit in LOWER_BETTER:
        return -1
    if "/s" in unit:
        return 1
    return 0


def ranked_metric(metric, unit):
    """A timing or a rate a reader ranks and compares (direction()): not the
    CPU seconds user_s and sys_s, nor the time budget's parts (budget_*),
    nor steady_s, the length of a steady window (MIN_MEASURE_S asked for it:
    a shorter one is no faster system)."""
    return bool(direction(unit)) and metric not in ("user_s", "sys_s", "steady_s") and "budget_" not in metric


def have_scipy():
    """Whether scipy is importable here (the p values need it)."""
    return scipy_stats() is not None


def summary(vals):
    """(n, median, min, max) of a list of numbers ((0, None, None, None) when empty)."""
    s = sorted(vals)
    n = len(s)
    if not n:
        return (0, None, None, None)
    med = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
    return (n, med, s[0], s[-1])


def figure(vals):
    """(n, estimate, min, max) of a set of trials: the figure the report
    shows (Estimate.center: the mean, or the median of skewed trials)."""
    if not vals:
        return (0, None, None, None)
    e = Estimate(vals)
    return (e.n, e.center, e.min, e.max)


def noise_label(trials):
    """ "1 trial: noise unknown" below NOISE_MIN trials, else ""."""
    if trials >= NOISE_MIN or trials <= 0:
        return ""
    return "%d trial%s: noise unknown" % (trials, "" if trials == 1 else "s")


def spread(vals):
    """(max - min) / median in percent over NOISE_MIN or more trials, else None."""
    n, med, lo, hi = summary(vals)
    if n < NOISE_MIN or not med:
        return None
    return (hi - lo) / abs(med) * 100


def noisy_target(meta):
    """The precision, in percent, beyond which a figure of a run is noisy:
    meta.json's precision (the harness's PRECISION) when it is a positive
    number, else NOISY_PCT (a run before the key, or PRECISION=0)."""
    val = (meta or {}).get("precision")
    if isinstance(val, bool) or not isinstance(val, (int, float)) or not 0 < val < 1e6:
        return NOISY_PCT
    return float(val)


def noisy(halfwidth_pct, target=NOISY_PCT):
    """Whether a figure is noisy: its 95% interval's half-width, in percent
    of it, above TARGET; False without an interval (below 2 trials: the
    noise is unknown and said so instead)."""
    return halfwidth_pct is not None and halfwidth_pct > target


def skewed(vals):
    """Whether VALS are not symmetric enough for a mean: from ORDER_MIN values
    on (fewer cannot show it), a value further than OUTLIER_MADS robust
    standard deviations (1.4826 median absolute deviations) from the median
    (one disturbed trial), or a sample skewness beyond twice its standard
    error under normality, sqrt(6/n) (a long tail)."""
    n = len(vals)
    if n < ORDER_MIN:
        return False
    med = summary(vals)[1]
    mad = summary([abs(x - med) for x in vals])[1] * 1.4826
    if mad > 0 and max(abs(x - med) for x in vals) > OUTLIER_MADS * mad:
        return True
    m = math.fsum(vals) / n
    m2 = math.fsum((x - m) ** 2 for x in vals) / n
    if m2 <= 0:
        return False
    g1 = math.fsum((x - m) ** 3 for x in vals) / n / m2 ** 1.5
    return abs(g1) > 2 * math.sqrt(6 / n)


class Estimate:
    """What one set of trials says about a figure: n, center (the estimate),
    lo and hi (its interval at conf; None below 2 trials), method, median,
    mean, sd, cv (the spread, a fraction: sd / mean, or 1.4826 median
    absolute deviations / median when the method is "median"),
    halfwidth_pct (half the interval relative to the center, in percent;
    inf below 2 trials).

    The method: the trials of a phase are each the average or the total of
    thousands of requests or files, so they are close to normal, and what
    would skew them (a trial the machine disturbed) the harness marks and
    the report leaves out; for such trials the mean with Student's t
    interval is the efficient estimate ("mean"), and the only one possible
    below ORDER_MIN trials. Where the trials are skewed all the same (skewed():
    from ORDER_MIN trials), the median with its distribution-free
    order-statistic interval ("median"), which assumes nothing of their
    shape. With one trial there is no interval ("one trial")."""

    def __init__(self, vals, conf=CONF):
        s = sorted(vals)
        self.n, self.conf = len(s), conf
        self.median = summary(s)[1]
        self.min, self.max = (s[0], s[-1]) if s else (None, None)
        self.lo = self.hi = None
        if not s:
            self.method, self.mean, self.sd, self.cv, self.center = "none", None, None, None, None
            self.halfwidth_pct = math.inf
            return
        self.mean, self.sd = mean_sd(s)
        self.cv = self.sd / abs(self.mean) if self.mean else math.inf
        self.method, self.center = "one trial", s[0]
        if self.n >= 2:
            order = order_interval(s, conf) if skewed(s) else None
            if order:
                self.method, self.center, (self.lo, self.hi) = "median", self.median, order
                # the spread the median sees: robust (1.4826 MAD), not the outlier's
                mad = summary([abs(x - self.median) for x in s])[1] * 1.4826
                self.cv = mad / abs(self.median) if self.median else math.inf
            else:
                h = t_quantile(0.5 + conf / 2, self.n - 1) * self.sd / math.sqrt(self.n)
                self.method, self.center, self.lo, self.hi = "mean", self.mean, self.mean - h, self.mean + h
        if self.lo is None or not self.center:
            self.halfwidth_pct = math.inf
        else:
            self.halfwidth_pct = (self.hi - self.lo) / 2 / abs(self.center) * 100

    def as_dict(self):
        return {k: getattr(self, k) for k in ("n", "center", "lo", "hi", "method", "median", "mean", "sd", "cv",
                                              "halfwidth_pct", "conf")}


def estimate(vals, conf=CONF):
    """The Estimate of one set of trials (see Estimate for the method)."""
    return Estimate(vals, conf)


def mde_pct(cv_a, n_a, cv_b, n_b, conf=CONF, power=POWER):
    """The minimum detectable effect, in percent: the smallest relative
    difference between two sets of N_A and N_B trials with coefficients of
    variation CV_A and CV_B (fractions) that a two-sided test at CONF finds
    with probability POWER: (t(1 - alpha/2) + t(power)) times the standard
    error of the relative difference, Welch's degrees of freedom. inf with
    fewer than 2 trials a side."""
    if min(n_a, n_b) < TEST_MIN or cv_a is None or cv_b is None:
        return math.inf
    va, vb = cv_a ** 2 / n_a, cv_b ** 2 / n_b
    se = math.sqrt(va + vb)
    if not math.isfinite(se):
        return math.inf
    if se == 0:
        return 0.0
    df = welch_df(va, n_a, vb, n_b)
    return (t_quantile(0.5 + conf / 2, df) + t_quantile(power, df)) * se * 100


def mde_of_sets(sets, conf=CONF, power=POWER):
    """The detectable effect of comparing two of SETS (lists of trials, e.g.
    the variants of one phase): the mde_pct of two sets with their pooled
    spread (root mean square of their coefficients of variation) and their
    median trial count. inf when fewer than two sets have 2 trials."""
    ests = [estimate(s) for s in sets]
    usable = [e for e in ests if e.n >= TEST_MIN and e.cv is not None and math.isfinite(e.cv)]
    if len(ests) < 2 or len(usable) < 2 or len(usable) < len(ests):
        return math.inf
    cv = math.sqrt(math.fsum(e.cv ** 2 for e in usable) / len(usable))
    ns = sorted(e.n for e in usable)
    n = ns[len(ns) // 2] if len(ns) % 2 else (ns[len(ns) // 2 - 1] + ns[len(ns) // 2]) / 2
    return mde_pct(cv, n, cv, n, conf, power)


class Comparison:
    """What two sets of trials say about a difference, B against A:
    rel (percent, + when B's estimate is higher), lo and hi (its interval at
    conf, percent; None when no test), p (None without a test or scipy),
    test (its name), significant (bool), verdict (SIGNIFICANT,
    NOT_SIGNIFICANT or CANNOT_TELL), mde (percent: the smallest difference
    this comparison could detect at conf with POWER; inf with one trial),
    a and b (their Estimates).

    The test: when both sides are estimated by their means (Estimate),
    Welch's t-test on the logarithm of the ratio of the means, its standard
    error by the delta method (CV^2 / n a side) and Welch's degrees of
    freedom, so the interval of the relative difference and the test are
    one statistic and agree. When a side is skewed (estimated by its
    median), the ratio of the medians, the Mann-Whitney U test and the
    Hodges-Lehmann interval of the ratio that goes with it (the pairwise
    ratios the test accepts, so again interval and test agree); significant
    only when both say so. Below 2 trials on a side: no test, CANNOT_TELL.

    In rounds (BY_ROUND) the difference is within them: MODEL, (d, se, df)
    of the rounds' model (blocked.Blocked: d the difference of the two
    levels, on the logarithms, se its standard error), gives the estimate
    where the run has one, so that it is the ratio of the two figures the
    report shows; its interval and test are the pair's own rounds' (the
    paired t-test's spread: a noisier variant does not borrow the others'
    quiet), or the model's where the two share fewer than 2 rounds;
    CANNOT_TELL where the model has no residual either."""

    def __init__(self, a, b, conf=CONF, by_round=None, model=None):
        self.a, self.b, self.conf = estimate(a, conf), estimate(b, conf), conf
        self.lo = self.hi = self.p = self.test = None
        self.significant = False
        self.rounds = 0  # the rounds a paired test compared (0: unpaired)
        ea, eb = self.a, self.b
        self.rel = (eb.center - ea.center) / abs(ea.center) * 100 if ea.n and eb.n and ea.center else math.nan
        self.mde = mde_pct(ea.cv, ea.n, eb.cv, eb.n, conf) if min(ea.n, eb.n) >= TEST_MIN else math.inf
        diffs = round_diffs(*by_round) if by_round else []
        if len(diffs) >= TEST_MIN:
            self._paired(diffs, None if model is None else model[0])
            self.verdict = SIGNIFICANT if self.significant else NOT_SIGNIFICANT
            return
        if model is not None and math.isfinite(model[1]) and model[2] >= 1:
            self._model(*model)
            self.verdict = SIGNIFICANT if self.significant else NOT_SIGNIFICANT
            return
        if model is not None:  # rounds without a residual: the figures' ratio, no test
            self.rel, self.verdict = math.expm1(model[0]) * 100, CANNOT_TELL
            return
        if min(ea.n, eb.n) < TEST_MIN or math.isnan(self.rel):
            self.verdict = CANNOT_TELL
            return
        if "median" in (ea.method, eb.method):
            self._medians(sorted(a), sorted(b))
        else:
            self._means()
        self.verdict = SIGNIFICANT if self.significant else NOT_SIGNIFICANT

    def _means(self):
        ea, eb = self.a, self.b
        self.test = "Welch's t-test"
        if ea.mean > 0 and eb.mean > 0:
            va, vb = ea.cv ** 2 / ea.n, eb.cv ** 2 / eb.n
            d = math.log(eb.mean / ea.mean)
            to_rel = (lambda x: math.expm1(x) * 100)
        else:  # a figure that can be 0 or negative: the difference over |A|
            va, vb = (ea.sd / ea.mean) ** 2 / ea.n if ea.mean else math.inf, (eb.sd / ea.mean) ** 2 / eb.n \
                if ea.mean else math.inf
            d = (eb.mean - ea.mean) / abs(ea.mean)
            to_rel = (lambda x: x * 100)
        se = math.sqrt(va + vb)
        if se == 0:
            self.lo = self.hi = self.rel
            self.p = 1.0 if d == 0 else 0.0
            self.significant = d != 0
            return
        df = welch_df(va, ea.n, vb, eb.n)
        h = t_quantile(0.5 + self.conf / 2, df) * se
        self.lo, self.hi = to_rel(d - h), to_rel(d + h)
        self.p = t_pvalue(d / se, df)
        self.significant = self.lo > 0 or self.hi < 0

    def _paired(self, diffs, center=None):
        """Student's t on the rounds' log ratios (round_diffs): the drift
        between rounds is in both sides of a round and cancels. CENTER: the
        rounds' model's estimate instead of their mean (the same with every
        round complete)."""
        r = self.rounds = len(diffs)
        self.test = "paired t-test over %d rounds" % r
        d, sd = mean_sd(diffs)
        self._t(d if center is None else center, sd / math.sqrt(r), r - 1)

    def _model(self, d, se, df):
        """The rounds' model's difference D (logarithms), its standard error
        SE on DF degrees of freedom: two variants that share fewer than 2
        rounds, compared through the others."""
        self.rounds = 0
        self.test = "t-test in the rounds' model (%d degrees of freedom)" % df
        self._t(d, se, df)

    def _t(self, d, se, df):
        """Student's t of the log ratio D, standard error SE, DF degrees of freedom."""
        self.rel = math.expm1(d) * 100
        if se == 0:
            self.lo = self.hi = self.rel
            self.p, self.mde = (1.0 if d == 0 else 0.0), 0.0
            self.significant = d != 0
            return
        h = t_quantile(0.5 + self.conf / 2, df) * se
        self.lo, self.hi = math.expm1(d - h) * 100, math.expm1(d + h) * 100
        self.p = t_pvalue(d / se, df)
        self.mde = math.expm1((t_quantile(0.5 + self.conf / 2, df) + t_quantile(POWER, df)) * se) * 100
        self.significant = self.lo > 0 or self.hi < 0

    def _medians(self, a, b):
        self.test = "Mann-Whitney U test"
        if min(a[0], b[0]) <= 0:  # no ratio of figures that can be 0 or negative
            self.verdict = CANNOT_TELL
            return
        lo, hi, exact = shift_interval(a, b, self.conf)
        self.lo, self.hi = math.expm1(lo) * 100, math.expm1(hi) * 100
        self.p = mann_whitney_p(a, b)
        self.significant = exact and (self.lo > 0 or self.hi < 0) and (self.p is None or self.p < 1 - self.conf)

    def as_dict(self):
        return {k: getattr(self, k) for k in ("rel", "lo", "hi", "p", "test", "significant", "verdict", "mde", "conf",
                                              "rounds")}


def compare(a, b, conf=CONF, by_round=None, model=None):
    """The Comparison of trials B against trials A (see Comparison); with
    BY_ROUND, (A's, B's) trials by round ({round: [values]}), paired over
    the rounds both have when they are 2 or more; MODEL (d, se, df): the
    rounds' model's difference (Comparison)."""
    return Comparison(a, b, conf, by_round, model)


def blocked(sets, conf=CONF, power=POWER):
    """The Blocked analysis of SETS [{round: [values]}], one a variant
    (plots/blocked.py: the additive model of variant and round fitted over
    every round where 2 variants or more have a value; the worst pair's
    half-width and detectable effect)."""
    return Blocked(sets, conf, power)


class Combined:
    """Several comparisons as one (the overall standing over the phases):
    rel (percent: the geometric mean, over the phases, of B's performance
    relative to A's; - when B is behind), lo and hi (its interval at conf),
    significant, mde (percent), phases (how many). Each phase's log ratio of
    the estimates, turned so that + is better, with its variance (CV^2 / n a
    side, as Comparison); their mean, its variance the sum over the square
    of the count, Welch-Satterthwaite's degrees of freedom over them all.
    A phase whose pair carries its trials by round (a fourth element, (A's,
    B's) {round: [values]}) and has 2 rounds in common or more: the mean of
    its rounds' log ratios (round_diffs), their variance over R, R - 1
    degrees of freedom (Comparison's paired test)."""

    def __init__(self, pairs, conf=CONF):
        self.phases, self.conf = len(pairs), conf
        ds, vs, dfs = [], [], []
        for a, b, sign, *by_round in pairs:
            diffs = round_diffs(*by_round[0]) if by_round and by_round[0] else []
            if len(diffs) >= TEST_MIN:
                d, sd = mean_sd(diffs)
                ds.append(sign * d)
                vs.append(sd ** 2 / len(diffs))
                dfs.append(len(diffs) - 1)
                continue
            ea, eb = estimate(a, conf), estimate(b, conf)
            if not (ea.center > 0 and eb.center > 0):  # no ratio of figures that can be 0 or negative
                continue
            ds.append(sign * math.log(eb.center / ea.center))
            va, vb = ea.cv ** 2 / ea.n, eb.cv ** 2 / eb.n
            vs.append(va + vb)
            dfs.append(welch_df(va, ea.n, vb, eb.n))
        k = self.phases = len(ds)
        if not k:
            self.rel, self.lo, self.hi, self.mde, self.significant = math.nan, None, None, math.inf, False
            return
        d = math.fsum(ds) / k
        var = math.fsum(vs) / k ** 2
        self.rel = math.expm1(d) * 100
        if var <= 0:
            self.lo = self.hi = self.rel
            self.mde, self.significant = 0.0, d != 0
            return
        den = math.fsum((v / k ** 2) ** 2 / df for v, df in zip(vs, dfs) if df > 0)
        df = var ** 2 / den if den > 0 else float(k)
        se = math.sqrt(var)
        h = t_quantile(0.5 + conf / 2, df) * se
        self.lo, self.hi = math.expm1(d - h) * 100, math.expm1(d + h) * 100
        self.significant = self.lo > 0 or self.hi < 0
        self.mde = (t_quantile(0.5 + conf / 2, df) + t_quantile(POWER, df)) * se * 100


def combine(pairs, conf=CONF):
    """The Combined comparison of PAIRS [(trials of A, trials of B, +1 when
    larger is better else -1[, (A's, B's) trials by round])], each with 2
    trials a side or more and positive figures."""
    return Combined(pairs, conf)


def pct(x, digits=1):
    """A percentage for people: "+3.1%", "inf" for an unbounded one, "n/a"."""
    if x is None or math.isnan(x):
        return "n/a"
    if math.isinf(x):
        return "inf"
    return "%+.*f%%" % (digits, x)


def mde_text(mde):
    """ "this run can tell differences of 3.1% or more", or that it cannot tell."""
    if mde is None or not math.isfinite(mde):
        return "this run cannot tell differences (fewer than %d trials)" % TEST_MIN
    return "this run can tell differences of %.1f%% or more" % mde


def interval_text(c):
    """The interval of a Comparison, e.g. "95% CI -2.1% to +4.3%" ("" without one)."""
    if c.lo is None:
        return ""
    return "%d%% CI %s to %s" % (round(c.conf * 100), pct(c.lo), pct(c.hi))


# ----- the command line: the harness's stopping rule -----

USAGE = "usage: stats.py precision --target PCT [--conf 0.95] V1 V2 ... | blocked --target PCT [--conf 0.95] FILE"


class _Usage(Exception):
    pass


class _BadInput(Exception):
    """A FILE line the command refuses: FILE:LINE: why."""


def _finite(s, what):
    try:
        v = float(s)
    except ValueError:
        raise _Usage("%s is not a number: '%s'" % (what, s)) from None
    if not math.isfinite(v):
        raise _Usage("%s is not a finite number: '%s'" % (what, s))
    return v


def _options(args):
    """(target, conf, the other arguments) of a command's ARGS."""
    target, conf, rest = None, CONF, []
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("--target", "--conf"):
            if i + 1 >= len(args):
                raise _Usage("%s needs a value" % a)
            v = _finite(args[i + 1], a)
            if a == "--target":
                target = v
            else:
                conf = v
            i += 2
            continue
        if a.startswith("--") and not _is_number(a):
            raise _Usage("unknown option %s" % a)
        rest.append(a)
        i += 1
    if target is None:
        raise _Usage("--target PCT is required")
    if target <= 0:
        raise _Usage("--target must be above 0: %g" % target)
    if not 0 < conf < 1:
        raise _Usage("--conf must be between 0 and 1: %g" % conf)
    return target, conf, rest


def _pct_field(x):
    return "inf" if math.isinf(x) else "%.2f" % x


def _precision(args):
    target, conf, rest = _options(args)
    e = estimate([_finite(a, "value") for a in rest], conf)
    hw = e.halfwidth_pct
    return "halfwidth_pct=%s n=%d enough=%s" % (_pct_field(hw), e.n, "yes" if hw <= target else "no")


# a FILE line of `blocked`: variant TAB round TAB value (a positive figure)
_BLOCKED_LINE = re.compile(r"([^\t\x00-\x1f\x7f\ud800-\udfff]+)\t([1-9][0-9]{0,8})\t"
                           r"(\+?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,3})?)")


def _blocked_sets(path):
    """[{round: [values]}] a variant of the FILE at PATH; _BadInput naming
    the first line that is not `variant TAB round TAB value`."""
    sets = {}
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            for n, line in enumerate(f, 1):
                line = line.rstrip("\n")
                if not line:
                    continue
                m = _BLOCKED_LINE.fullmatch(line)
                v = float(m.group(3)) if m else math.nan
                if not (m and 0 < v < math.inf):
                    raise _BadInput("%s:%d: not `variant<TAB>round<TAB>value` (round a whole number from 1, "
                                    "value a positive number): %r" % (path, n, line[:80]))
                sets.setdefault(m.group(1), {}).setdefault(int(m.group(2)), []).append(v)
    except OSError as e:
        raise _BadInput("%s: %s" % (path, e.strerror or e)) from None
    return list(sets.values())


def _blocked(args):
    target, conf, rest = _options(args)
    if len(rest) != 1:
        raise _Usage("blocked takes one FILE")
    b = blocked(_blocked_sets(rest[0]), conf)
    return "rounds=%d variants=%d df=%d halfwidth_pct=%s mde_pct=%s enough=%s" % (
        b.rounds, b.variants, b.df, _pct_field(b.halfwidth_pct), _pct_field(b.mde_pct),
        "yes" if b.enough(target) else "no")


def _is_number(s):
    try:
        float(s)
        return True
    except ValueError:
        return False


COMMANDS = {"precision": _precision, "blocked": _blocked}


def main(argv):
    try:
        if not argv or argv[0] not in COMMANDS:
            raise _Usage("unknown command %s" % (argv[0] if argv else "(none)"))
        print(COMMANDS[argv[0]](argv[1:]))
    except _Usage as e:
        print("stats.py: %s (%s)" % (e, USAGE), file=sys.stderr)
        return 2
    except _BadInput as e:
        print("stats.py: %s" % e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
