"""The statistics of a blocked run (docs/results.md, rounds): the variants
of one host measured in rounds, each round every variant once or more,
back to back, in a shuffled order. What two variants' rounds say about
their difference (round_diffs, for stats.Comparison's paired test), and
what all the rounds say about the difference between any two variants
(Blocked: the report's detectable effect of a phase and the harness's
stopping rule, `stats.py blocked`).

Runs with the Python standard library alone, as the stopping rule does on
a host under test (which may have neither numpy nor scipy, and should not
wait most of a second a round for scipy's import); its t quantiles are
plots/tdist.py's. It imports no other module of plots/.
"""
import math

from tdist import t_quantile


def round_logs(by_round):
    """{round: the mean of the logs of its values} of {round: [values]},
    for the rounds with values, all positive."""
    return {r: math.fsum(math.log(x) for x in vs) / len(vs) for r, vs in by_round.items()
            if vs and all(x > 0 for x in vs)}


def round_diffs(a_by_round, b_by_round):
    """The paired differences of a blocked run, B against A, in the rounds
    both have, in round order: the mean log of B's trials in the round
    minus the mean log of A's."""
    la, lb = round_logs(a_by_round), round_logs(b_by_round)
    return [lb[r] - la[r] for r in sorted(set(la) & set(lb))]


class Blocked:
    """What the rounds of a blocked run say about the differences between
    its variants, from SETS [{round: [values]}], one a variant: rounds (those
    in which 2 variants or more have a value: a round of one variant alone
    says nothing of a difference), variants (V), df (the residual's degrees
    of freedom: the cells of those rounds less the parameters the model
    fits, V + R - 1 when the rounds link every variant), halfwidth_pct (the
    half-width of the interval at CONF of the difference between two
    variants, percent) and mde_pct (the smallest such difference found with
    POWER, percent), both those of the pair of variants known least well.

    Each cell (variant, round) is the mean of its values' logs. The additive
    two-way model (variant + round, no interaction) is fitted by least
    squares over the cells present, so that a round one variant missed (its
    trial disturbed, failed or not run) still counts for the others: an
    unbalanced block design, analysed within the rounds (the round effects
    eliminated: the intra-block analysis of an incomplete block design).
    The variants' effects a solve C a = Q, C the sum over the rounds of
    I - J/m on the m variants of each (the design's information matrix), Q
    each variant's sum of its cells' departures from their round's mean.
    The residual is the noise within a round, its variance s^2 = SSE / df;
    the variance of the difference of two variants' effects is s^2 times
    the difference's quadratic form in the inverse of C + J/V (C's null
    space is the constant vector, which a difference does not see). The
    worst pair's is taken, since the stopping rule asks whether every
    difference is within the target. With every round complete (R rounds)
    that form is 2/R for every pair and the figures are those of the
    balanced two-way analysis. Both are inf below 2 variants, when some
    pair of variants is not linked through shared rounds (a variant alone
    in its rounds: its difference cannot be estimated), or without a
    residual degree of freedom.

    levels: each variant's level with the rounds' drift taken out (the
    model's least-squares mean, on the logarithms): its effect plus the
    rounds' mean level (each round's mean cell less the mean effect of the
    variants in it). exp of a level is the variant's figure in the rounds,
    and two levels differ by the model's estimate of the two variants'
    difference; with every round complete a level is the mean of the
    variant's cells. None where the model cannot be fitted (as above, a
    residual not needed). pair_se(a, b): the standard error of the model's
    difference of variants A and B (inf where halfwidth_pct is)."""

    def __init__(self, sets, conf, power):
        cells = [round_logs(s) for s in sets]
        by_round = {}  # {round: {variant index: cell}}
        for i, c in enumerate(cells):
            for r, y in c.items():
                by_round.setdefault(r, {})[i] = y
        rows = [row for _r, row in sorted(by_round.items()) if len(row) >= 2]
        v, r = len(cells), len(rows)
        present, parts = _components(rows)
        self.rounds, self.variants, self.conf = r, v, conf
        self.df = sum(len(row) for row in rows) - (present + r - parts)
        self.halfwidth_pct = self.mde_pct = math.inf
        self.levels, self._inv, self._s2 = None, None, math.inf
        if v < 2 or present < v or parts != 1:
            return
        inv, effect = _solve(v, rows)
        # each round's mean cell and the mean effect of its variants
        means = [(math.fsum(row.values()) / len(row), math.fsum(effect[i] for i in row) / len(row)) for row in rows]
        base = math.fsum(ybar - abar for ybar, abar in means) / r
        self.levels = [base + a for a in effect]
        if self.df < 1:
            return
        resid = []  # a cell less its round's mean, less its variant's effect against the round's
        for row, (ybar, abar) in zip(rows, means):
            resid.extend(y - ybar - (effect[i] - abar) for i, y in row.items())
        sse = math.fsum(e * e for e in resid)
        self._inv, self._s2 = inv, sse / self.df
        se = max(self.pair_se(a, b) for a in range(v) for b in range(a + 1, v))
        t = t_quantile(0.5 + conf / 2, self.df)
        self.halfwidth_pct = math.expm1(t * se) * 100
        self.mde_pct = math.expm1((t + t_quantile(power, self.df)) * se) * 100

    def pair_se(self, a, b):
        """The standard error of the model's difference of variants A and B
        (indices into SETS), on the logarithms; inf without a residual."""
        if self._inv is None:
            return math.inf
        inv = self._inv
        return math.sqrt(self._s2 * max(inv[a][a] + inv[b][b] - 2 * inv[a][b], 0.0))

    def enough(self, target):
        """Whether the interval of every difference is within TARGET percent."""
        return self.halfwidth_pct <= target


def _components(rows):
    """(the variants in ROWS, how many groups they fall into): two variants
    are in one group when a chain of shared rounds links them."""
    group = {}
    for row in rows:
        for i in row:
            group.setdefault(i, i)

    def root(i):
        while group[i] != i:
            i = group[i]
        return i

    for row in rows:
        first, *rest = [root(i) for i in row]
        for j in rest:
            group[j] = first
    return len(group), len({root(i) for i in group})


def _solve(v, rows):
    """(the inverse of C + J/V, the variants' effects) of the V variants'
    ROWS [{variant: cell}] (Blocked): C and Q summed round by round, the
    effects (summing to 0) the inverse times Q."""
    c = [[1 / v] * v for _i in range(v)]
    q = [0.0] * v
    for row in rows:
        m, ybar = len(row), math.fsum(row.values()) / len(row)
        for a, y in row.items():
            q[a] += y - ybar
            c[a][a] += 1
            for b in row:
                c[a][b] -= 1 / m
    inv = _inverse(c)
    return inv, [math.fsum(inv[a][b] * q[b] for b in range(v)) for a in range(v)]


def _inverse(m):
    """The inverse of the square matrix M (a list of rows), by Gauss-Jordan
    elimination with partial pivoting (M here is positive definite)."""
    n = len(m)
    a = [list(row) + [float(i == j) for j in range(n)] for i, row in enumerate(m)]
    for col in range(n):
        p = max(range(col, n), key=lambda i: abs(a[i][col]))
        a[col], a[p] = a[p], a[col]
        a[col] = [x / a[col][col] for x in a[col]]
        for i in range(n):
            if i != col and a[i][col]:
                f = a[i][col]
                a[i] = [x - f * y for x, y in zip(a[i], a[col])]
    return [row[n:] for row in a]
