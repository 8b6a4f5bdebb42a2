"""The distributions the statistics need (plots/stats.py, docs/results.md):
a sample's mean and deviation, Student's t (quantiles, p values, Welch's
degrees of freedom and test), the binomial interval of a median, the
Mann-Whitney U (its exact null distribution, its p value, the
Hodges-Lehmann interval that goes with it). It imports no module of plots/.

Runs with the Python standard library alone (hosts under test may lack
scipy); with scipy importable (the report machine: harness/deps.sh) it takes
the p values (Student's t distribution, the Mann-Whitney test) and the t
quantiles of Welch's fractional degrees of freedom from scipy.stats. The t
quantiles of whole degrees of freedom (every interval of one set of trials,
the stopping rule) are exact here without scipy (Abramowitz and Stegun's
series of the t distribution, Newton's method). The fallbacks without
scipy: Welch's quantiles from the Cornish-Fisher expansion of the normal
quantile (statistics.NormalDist; at 95% within 0.2% of scipy's from 3
degrees of freedom on), and no p value (the decision then rests on the
interval alone, which is the same decision).
"""
import functools
import math
import warnings
from statistics import NormalDist


def scipy_stats():
    """scipy.stats, or None where scipy is not importable."""
    try:
        from scipy import stats as sps
    except ImportError:
        return None
    return sps


def mean_sd(vals):
    """(mean, standard deviation) of VALS (0 for one value)."""
    n = len(vals)
    m = math.fsum(vals) / n
    sd = math.sqrt(math.fsum((x - m) ** 2 for x in vals) / (n - 1)) if n > 1 else 0.0
    return m, sd


def t_quantile(p, df):
    """The P quantile of Student's t with DF degrees of freedom. A whole DF
    (a set's n - 1: the intervals, the stopping rule) is computed here,
    exactly, without scipy (whose import would cost the stopping rule most
    of a second per trial); a fractional one (Welch's) by scipy, or the
    Cornish-Fisher fallback."""
    if df <= 0 or not 0 < p < 1:
        return math.nan
    if df == int(df) and df <= 1000:
        return t_quantile_whole(p, int(df))
    sps = scipy_stats()
    if sps is not None:
        return float(sps.t.ppf(p, df))
    return _cornish_fisher(p, df)


def _cornish_fisher(p, df):
    """Student's t quantile from the normal one (Abramowitz and Stegun
    26.7.5): at 95%, within 0.2% from 3 degrees of freedom on."""
    if df == 1:
        return math.tan(math.pi * (p - 0.5))
    if df == 2:
        return (2 * p - 1) * math.sqrt(2 / (4 * p * (1 - p)))
    z = NormalDist().inv_cdf(p)
    g1 = (z ** 3 + z) / 4
    g2 = (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96
    g3 = (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384
    g4 = (79 * z ** 9 + 776 * z ** 7 + 1482 * z ** 5 - 1920 * z ** 3 - 945 * z) / 92160
    return z + g1 / df + g2 / df ** 2 + g3 / df ** 3 + g4 / df ** 4


def _t_cdf_whole(t, n):
    """P(T <= t) for Student's t with a whole N degrees of freedom: the
    finite series of Abramowitz and Stegun 26.7.3 and 26.7.4."""
    th = math.atan(abs(t) / math.sqrt(n))
    c2 = math.cos(th) ** 2
    if n % 2:
        term, acc = 1.0, 1.0 if n > 1 else 0.0
        for k in range(3, n - 1, 2):  # 2/3 c^2, (2 4)/(3 5) c^4, ...
            term *= (k - 1) / k * c2
            acc += term
        a = 2 / math.pi * (th + (math.sin(th) * math.cos(th) * acc if n > 1 else 0.0))
    else:
        term, acc = 1.0, 1.0
        for k in range(2, n - 1, 2):  # 1/2 c^2, (1 3)/(2 4) c^4, ...
            term *= (k - 1) / k * c2
            acc += term
        a = math.sin(th) * acc
    return 0.5 + math.copysign(a / 2, t)


@functools.lru_cache(maxsize=1024)
def t_quantile_whole(p, n):
    """Newton's method on _t_cdf_whole from the Cornish-Fisher start (kept:
    an export asks for the same few thousands of times)."""
    t = _cornish_fisher(p, n)
    if n <= 2:
        return t
    logc = math.lgamma((n + 1) / 2) - math.lgamma(n / 2) - 0.5 * math.log(n * math.pi)
    for _ in range(20):
        pdf = math.exp(logc - (n + 1) / 2 * math.log1p(t * t / n))
        step = (_t_cdf_whole(t, n) - p) / pdf
        t -= step
        if abs(step) < 1e-12 * max(1.0, abs(t)):
            break
    return t


def t_pvalue(t, df):
    """Two-sided p of a t statistic, or None without scipy."""
    sps = scipy_stats()
    if sps is None:
        return None
    return float(2 * sps.t.sf(abs(t), df))


def welch_p(a, b):
    """The two-sided p of Welch's t-test of the means of trials A and B, on
    the values themselves (scipy.stats.ttest_ind, equal_var=False), for
    figures that are not ratios (shares in points); trials without any
    spread on both sides: 0 when the means differ, 1 when not. None
    without scipy."""
    if len(set(a)) == 1 and len(set(b)) == 1:
        return 1.0 if a[0] == b[0] else 0.0
    sps = scipy_stats()
    if sps is None:
        return None
    # Trials equal but for rounding make scipy warn of "catastrophic
    # cancellation" on stderr (make demo printed it): the p it returns is
    # still the answer, nan where the spread is none at all.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        p = float(sps.ttest_ind(a, b, equal_var=False).pvalue)
    return 1.0 if math.isnan(p) else p


def welch_df(va, na, vb, nb):
    """Welch-Satterthwaite degrees of freedom of two variances of the mean."""
    num = (va + vb) ** 2
    den = (va ** 2 / (na - 1) if na > 1 else 0) + (vb ** 2 / (nb - 1) if nb > 1 else 0)
    return num / den if den > 0 else float(max(na + nb - 2, 1))


def order_interval(s, conf):
    """(lo, hi) of the distribution-free interval of the median of the sorted
    S: [s(k), s(n-k+1)] with the largest k whose coverage, from the binomial
    distribution, is at least CONF; None when even [min, max] falls short."""
    n = len(s)
    best = None
    cum = 0.0
    for k in range(1, n // 2 + 1):
        cum += math.comb(n, k - 1) / 2 ** n  # P(Binomial(n, 1/2) <= k - 1)
        if 1 - 2 * cum < conf:
            break
        best = k
    return None if best is None else (s[best - 1], s[n - best])


def _u_counts(m, n):
    """The null distribution of the Mann-Whitney U of M and N values without
    ties, as counts of the C(m+n, m) orderings for U = 0..m*n: the
    coefficients of the Gaussian binomial [m+n choose m] in q."""
    c = [1] + [0] * (m * n)
    for i in range(1, m + 1):
        for u in range(m * n, n + i - 1, -1):  # times (1 - q^(n+i))
            c[u] -= c[u - n - i]
        for u in range(i, m * n + 1):  # over (1 - q^i): exact
            c[u] += c[u - i]
    return c


def shift_interval(a, b, conf):
    """(lo, hi, exact) of the Hodges-Lehmann interval of the shift of log B
    against log A: the order statistics of the m*n pairwise differences that
    the Mann-Whitney test at CONF accepts (its critical value from the exact
    distribution up to 2,500 pairs, else the normal approximation); EXACT is
    False when the sets are too small for any interval at CONF (the widest,
    min to max, is returned)."""
    m, n = len(a), len(b)
    d = sorted(math.log(y) - math.log(x) for x in a for y in b)
    alpha = 1 - conf
    if m * n <= 2500:
        counts, total, cum, c = _u_counts(m, n), math.comb(m + n, m), 0, -1
        for u, k in enumerate(counts):
            cum += k
            if cum / total > alpha / 2:
                break
            c = u
    else:
        z = NormalDist().inv_cdf(1 - alpha / 2)
        c = int(math.floor(m * n / 2 - z * math.sqrt(m * n * (m + n + 1) / 12)))
    if c < 0:
        return d[0], d[-1], False
    return d[c], d[len(d) - 1 - c], True


def mann_whitney_p(a, b):
    """The two-sided p of the Mann-Whitney U test of A against B, or None
    without scipy."""
    sps = scipy_stats()
    if sps is None:
        return None
    return float(sps.mannwhitneyu(a, b, alternative="two-sided").pvalue)
