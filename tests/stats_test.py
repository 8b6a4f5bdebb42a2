#!/usr/bin/env python3
"""Unit tests of plots/stats.py and plots/tdist.py (run by tests/stats.bats). With --no-scipy
the import of scipy fails, as on a host under test without it, and the
standard-library fallbacks are tested; the same answers are expected."""
import math
import os
import random
import sys
import unittest

if "--no-scipy" in sys.argv:
    sys.argv.remove("--no-scipy")

    class _NoScipy:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("scipy", "numpy"):
                raise ImportError("scipy blocked by the test")
            return None
    sys.meta_path.insert(0, _NoScipy())

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "plots"))
import stats  # noqa: E402
import tdist  # noqa: E402

HAVE_SCIPY = stats.have_scipy()

# Student's t quantiles (two-sided 95%: p = 0.975; power 80%: p = 0.8), from tables.
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 9: 2.262, 29: 2.045}
T80 = {4: 0.941, 9: 0.883}


def trials(seed, n, mean=100.0, cv=0.03):
    r = random.Random(seed)
    return [r.gauss(mean, mean * cv) for _ in range(n)]


class Quantiles(unittest.TestCase):
    def test_t_quantiles_match_the_tables(self):
        for df, q in T975.items():
            self.assertAlmostEqual(stats.t_quantile(0.975, df), q, delta=q * 0.002, msg="df %d" % df)
        for df, q in T80.items():
            self.assertAlmostEqual(stats.t_quantile(0.8, df), q, delta=0.002, msg="df %d" % df)

    def test_whole_degrees_of_freedom_are_exact_without_scipy(self):
        if not HAVE_SCIPY:
            self.skipTest("no scipy to compare with")
        from scipy.stats import t
        for df in list(range(1, 31)) + [50, 200, 1000]:
            for p in (0.6, 0.8, 0.9, 0.975, 0.995, 0.025):
                self.assertAlmostEqual(tdist.t_quantile_whole(p, df), t.ppf(p, df), delta=1e-6 * abs(t.ppf(p, df)))
        self.assertAlmostEqual(stats.t_quantile(0.975, 7.5), t.ppf(0.975, 7.5), places=9)  # Welch's: scipy


class Estimates(unittest.TestCase):
    def test_mean_and_t_interval(self):
        e = stats.estimate([99.0, 100.0, 101.0])  # sd 1, n 3
        self.assertEqual(e.method, "mean")
        self.assertEqual((e.n, e.center, e.median), (3, 100.0, 100.0))
        h = T975[2] / math.sqrt(3)
        self.assertAlmostEqual(e.lo, 100 - h, places=2)
        self.assertAlmostEqual(e.hi, 100 + h, places=2)
        self.assertAlmostEqual(e.halfwidth_pct, h, places=2)

    def test_one_trial_has_no_interval(self):
        e = stats.estimate([5.0])
        self.assertEqual((e.method, e.center, e.lo, e.hi), ("one trial", 5.0, None, None))
        self.assertTrue(math.isinf(e.halfwidth_pct))
        self.assertEqual(stats.estimate([]).n, 0)

    def test_an_outlier_makes_it_the_median_with_an_order_interval(self):
        vals = [100.0, 101.0, 99.5, 100.5, 99.0, 100.2, 100.8, 160.0]
        e = stats.estimate(vals)
        self.assertEqual(e.method, "median")
        self.assertEqual(e.center, stats.summary(vals)[1])
        # n 8: [x(1), x(8)] covers 99.2%, [x(2), x(7)] 93%: the interval is min to max
        self.assertEqual((e.lo, e.hi), (99.0, 160.0))
        vals12 = vals + [100.1, 99.9, 100.3, 99.7]
        e = stats.estimate(vals12)
        s = sorted(vals12)  # n 12: [x(3), x(10)] covers 96.1%, [x(4), x(9)] 85.4%
        self.assertEqual((e.method, e.lo, e.hi), ("median", s[2], s[9]))
        self.assertLess(e.halfwidth_pct, 1.0)  # the outlier does not widen it

    def test_normal_trials_keep_the_mean(self):
        self.assertEqual(stats.estimate(trials(1, 10)).method, "mean")

    def test_summary_spread_noise_label(self):
        self.assertEqual(stats.summary([3, 1, 2, 10]), (4, 2.5, 1, 10))
        self.assertEqual(stats.summary([]), (0, None, None, None))
        self.assertAlmostEqual(stats.spread([95, 100, 105]), 10.0)
        self.assertIsNone(stats.spread([95, 105]))
        self.assertEqual(stats.noise_label(1), "1 trial: noise unknown")
        self.assertEqual(stats.noise_label(3), "")


class Comparisons(unittest.TestCase):
    def test_one_trial_a_side_cannot_tell(self):
        c = stats.compare([100.0], [150.0])
        self.assertEqual((c.verdict, c.lo, c.p, c.significant), (stats.CANNOT_TELL, None, None, False))
        self.assertAlmostEqual(c.rel, 50.0)
        self.assertTrue(math.isinf(c.mde))
        self.assertIn("cannot tell", stats.mde_text(c.mde))

    def test_ten_percent_is_found_with_its_sign_and_an_interval_around_it(self):
        a = trials(2, 7)
        b = [x * 1.1 for x in trials(3, 7)]
        c = stats.compare(a, b)
        self.assertEqual(c.verdict, stats.SIGNIFICANT)
        self.assertGreater(c.lo, 0)
        self.assertLess(c.lo, 10)
        self.assertGreater(c.hi, 10)
        self.assertEqual(c.test, "Welch's t-test")
        if HAVE_SCIPY:
            self.assertLess(c.p, 0.05)
        d = stats.compare(b, a)  # the other way round: the sign turns
        self.assertEqual(d.verdict, stats.SIGNIFICANT)
        self.assertLess(d.hi, 0)

    def test_same_distribution_is_not_significant_mostly(self):
        # A/A: 200 pairs of 5 trials each from one distribution; at 95% about
        # 5% are false alarms (binomial: 2 to 20 of 200 is far outside chance)
        hits = sum(stats.compare(trials(10 + i, 5), trials(1000 + i, 5)).significant for i in range(200))
        self.assertGreaterEqual(hits, 2)
        self.assertLessEqual(hits, 20)

    def test_interval_agrees_with_the_p_value(self):
        if not HAVE_SCIPY:
            self.skipTest("no scipy: no p value")
        for i in range(50):
            c = stats.compare(trials(i, 4), [x * 1.03 for x in trials(500 + i, 4)])
            self.assertEqual(c.significant, c.p < 0.05, "seed %d: p %g, interval %g to %g" % (i, c.p, c.lo, c.hi))

    def test_welch_matches_scipy_on_the_log_scale(self):
        if not HAVE_SCIPY:
            self.skipTest("no scipy")
        from scipy.stats import ttest_ind
        a, b = trials(5, 6), trials(6, 4, mean=104)
        c = stats.compare(a, b)
        ref = ttest_ind([math.log(x) for x in b], [math.log(x) for x in a], equal_var=False).pvalue
        # the delta method's standard error is close to the log values' own
        self.assertAlmostEqual(c.p, ref, delta=0.02)

    def test_skewed_side_uses_mann_whitney(self):
        a = [100.0, 101.0, 99.5, 100.5, 99.0, 100.2, 100.8, 160.0]
        b = [x * 1.1 for x in [100.3, 100.9, 99.4, 100.6, 99.2, 100.1, 100.7, 99.8]]
        c = stats.compare(a, b)
        self.assertEqual(c.test, "Mann-Whitney U test")
        self.assertEqual(c.verdict, stats.SIGNIFICANT)
        self.assertLess(c.lo, 10)
        self.assertGreater(c.hi, 9)

    def test_identical_constant_trials(self):
        self.assertEqual(stats.compare([5.0, 5.0, 5.0], [5.0, 5.0]).verdict, stats.NOT_SIGNIFICANT)
        c = stats.compare([5.0, 5.0], [6.0, 6.0])
        self.assertEqual((c.verdict, c.lo, c.hi), (stats.SIGNIFICANT, 20.0, 20.0))

    def test_trials_equal_but_for_rounding_warn_nothing(self):
        # scipy's "catastrophic cancellation" RuntimeWarning reached make
        # demo's output; the answer is kept, the warning is not shown
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            p = tdist.welch_p([1.0, 1.0, 1.0 + 1e-15], [2.0, 2.0, 2.0])
        if HAVE_SCIPY:
            self.assertLess(p, 0.05)


class DetectableEffect(unittest.TestCase):
    def test_mde_formula(self):
        # 5 trials a side, CV 3%: Welch df 8 -> (t.975 + t.80) * 0.03 * sqrt(2/5)
        want = (2.306 + 0.889) * 3 * math.sqrt(2 / 5)
        self.assertAlmostEqual(stats.mde_pct(0.03, 5, 0.03, 5), want, delta=0.01)
        self.assertTrue(math.isinf(stats.mde_pct(0.03, 1, 0.03, 5)))
        self.assertEqual(stats.mde_pct(0.0, 3, 0.0, 3), 0.0)
        self.assertEqual(stats.mde_text(3.14), "this run can tell differences of 3.1% or more")

    def test_mde_of_sets_and_power(self):
        # a real difference the size of the detectable effect is found about
        # 80% of the time (power), one of a quarter of it rarely
        n, cv = 6, 0.05
        mde = stats.mde_pct(cv, n, cv, n)
        found = sum(stats.compare(trials(i, n, cv=cv), trials(900 + i, n, 100 * (1 + mde / 100), cv)).significant
                    for i in range(200))
        self.assertGreater(found, 200 * 0.7)
        self.assertLess(found, 200 * 0.9)
        self.assertTrue(math.isinf(stats.mde_of_sets([[1.0], [2.0, 2.1]])))
        self.assertAlmostEqual(stats.mde_of_sets([[99.0, 100.0, 101.0], [198.0, 200.0, 202.0]]),
                               stats.mde_pct(0.01, 3, 0.01, 3))


class Combined(unittest.TestCase):
    def test_phases_combined_with_their_direction(self):
        # a rate 10% higher and a time 1/1.1 as long: both 10% better
        rate = (trials(40, 5), [x * 1.1 for x in trials(41, 5)], 1)
        time = (trials(42, 5), [x / 1.1 for x in trials(43, 5)], -1)
        c = stats.combine([rate, time])
        self.assertEqual(c.phases, 2)
        self.assertTrue(c.significant)
        self.assertLess(c.lo, 10)
        self.assertGreater(c.hi, 10)
        same = stats.combine([(trials(44, 5), trials(45, 5), 1), (trials(46, 5), trials(47, 5), -1)])
        self.assertFalse(same.significant)
        self.assertLess(same.lo, 0)
        self.assertGreater(same.hi, 0)
        self.assertEqual(stats.combine([([0.0, 0.0], [1.0, 1.1], 1)]).phases, 0)


def rounds(seed, variants, r, drift=0.15, cv=0.015, per_round=1, slower=None):
    """[{round: [values]}] of a blocked run of VARIANTS: round K's level,
    shared by every variant, drifts uniformly within +-DRIFT; the trials of
    a round differ by CV (normal); SLOWER {variant index: fraction} lower."""
    g = random.Random(seed)
    levels = [100 * (1 + g.uniform(-drift, drift)) for _k in range(r)]
    slower = slower or {}
    return [{k + 1: [g.gauss(lv, lv * cv) * (1 - slower.get(i, 0)) for _j in range(per_round)]
             for k, lv in enumerate(levels)} for i in range(variants)]


def flat(by_round):
    return [x for k in sorted(by_round) for x in by_round[k]]


class Blocked(unittest.TestCase):
    def test_drift_cancels_within_rounds(self):
        # A/A under drift: levels +-15% between rounds, 1.5% within: the
        # rounds see differences of a few percent, the trials alone cannot
        sets = rounds(7, 3, 8)
        b = stats.blocked(sets)
        self.assertEqual((b.rounds, b.variants, b.df), (8, 3, 14))
        self.assertLess(b.mde_pct, 5)
        self.assertGreater(stats.mde_of_sets([flat(x) for x in sets]), 10)
        for x in sets[1:]:
            c = stats.compare(flat(sets[0]), flat(x), by_round=(sets[0], x))
            self.assertEqual((c.test, c.rounds, c.verdict), ("paired t-test over 8 rounds", 8, stats.NOT_SIGNIFICANT))
            self.assertLess(c.mde, 5)
            self.assertGreater(stats.compare(flat(sets[0]), flat(x)).mde, 10)  # Welch: the drift is in it

    def test_a_a_under_drift_false_alarms_at_the_test_level(self):
        # 200 A/A pairs under drift: about 5% significant (2 to 20 is far outside chance)
        hits = 0
        for i in range(200):
            a, b = rounds(100 + i, 2, 6)
            hits += stats.compare(flat(a), flat(b), by_round=(a, b)).significant
        self.assertGreaterEqual(hits, 2)
        self.assertLessEqual(hits, 20)

    def test_ten_percent_slower_under_drift_is_found(self):
        a, b = rounds(8, 2, 8, slower={1: 0.10})
        c = stats.compare(flat(a), flat(b), by_round=(a, b))
        self.assertEqual(c.verdict, stats.SIGNIFICANT)
        self.assertLess(c.lo, -10)
        self.assertGreater(c.hi, -10)
        self.assertLess(c.hi, 0)
        self.assertAlmostEqual(c.rel, -10, delta=2)
        if HAVE_SCIPY:
            from scipy.stats import ttest_rel
            ref = ttest_rel([math.log(b[k][0]) for k in sorted(b)], [math.log(a[k][0]) for k in sorted(a)])
            self.assertAlmostEqual(c.p, ref.pvalue, places=9)

    def test_two_variants_blocked_is_the_paired_test(self):
        # V = 2: the additive model's residual is the paired differences' spread
        a, b = rounds(9, 2, 5)
        bl, c = stats.blocked([a, b]), stats.compare(flat(a), flat(b), by_round=(a, b))
        self.assertEqual(bl.df, 4)
        half = (math.log1p(c.hi / 100) - math.log1p(c.lo / 100)) / 2
        self.assertAlmostEqual(math.log1p(bl.halfwidth_pct / 100), half, places=12)
        self.assertAlmostEqual(bl.mde_pct, c.mde, places=9)

    def test_trials_of_a_round_are_averaged_in_logs_and_only_shared_rounds_count(self):
        a = {1: [100.0, 400.0], 2: [100.0], 3: [150.0]}
        b = {1: [220.0], 2: [110.0], 4: [90.0]}
        d = stats.round_diffs(a, b)
        self.assertEqual(len(d), 2)  # rounds 1 and 2: 3 and 4 are not in both
        self.assertAlmostEqual(d[0], math.log(220.0) - math.log(200.0))  # geometric mean of 100 and 400
        self.assertAlmostEqual(d[1], math.log(1.1))
        c = stats.compare(flat(a), flat(b), by_round=(a, b))
        self.assertEqual(c.rounds, 2)
        self.assertEqual(stats.blocked([a, b]).rounds, 2)

    def test_fewer_than_two_rounds(self):
        for sets in ([{1: [1.0]}, {1: [1.1]}], [{1: [1.0], 2: [1.0]}, {2: [1.0], 3: [1.0]}], [{1: [1.0], 2: [2.0]}],
                     []):
            b = stats.blocked(sets)
            self.assertTrue(math.isinf(b.halfwidth_pct) and math.isinf(b.mde_pct), sets)
            self.assertFalse(b.enough(50))

    def test_balanced_rounds_give_the_two_way_analysis(self):
        # every variant in every round: the figures of the balanced two-way
        # analysis (its residual sum of squares, (V-1)(R-1) degrees of freedom, 2/R)
        for seed, v, r, per in ((7, 3, 8, 1), (1, 2, 2, 1), (3, 6, 5, 1), (4, 4, 6, 3)):
            sets = rounds(seed, v, r, per_round=per)
            y = [[sum(math.log(x) for x in s[k]) / len(s[k]) for k in sorted(s)] for s in sets]
            row = [sum(x) / r for x in y]
            col = [sum(y[i][j] for i in range(v)) / v for j in range(r)]
            grand = sum(row) / v
            df = (v - 1) * (r - 1)
            ss = sum((y[i][j] - row[i] - col[j] + grand) ** 2 for i in range(v) for j in range(r))
            se = math.sqrt(2 / r * ss / df)
            t = stats.t_quantile(0.975, df)
            b = stats.blocked(sets)
            self.assertEqual((b.rounds, b.variants, b.df), (r, v, df))
            self.assertAlmostEqual(b.halfwidth_pct, math.expm1(t * se) * 100, places=10)
            self.assertAlmostEqual(b.mde_pct, math.expm1((t + stats.t_quantile(0.8, df)) * se) * 100, places=10)

    def test_a_round_one_variant_missed_still_counts(self):
        # C's trial of round 3 disturbed: A and B still ran in it. Against the
        # round dropped (as when only complete rounds counted): a degree of
        # freedom more, and over 200 such runs a narrower interval in most, by
        # about a tenth in the median (the noise's estimate varies run to run)
        ratios = []
        for seed in range(200):
            sets = rounds(seed, 3, 5)
            del sets[2][3]
            b = stats.blocked(sets)
            without = stats.blocked([{k: x for k, x in s.items() if k != 3} for s in sets])
            self.assertEqual((b.rounds, b.variants, b.df, without.rounds, without.df), (5, 3, 7, 4, 6))
            ratios.append(b.halfwidth_pct / without.halfwidth_pct)
        ratios.sort()
        self.assertGreater(sum(x < 1 for x in ratios), 0.65 * 200)
        self.assertLess(ratios[100], 0.95)
        # six variants, five rounds, one variant out of each round: no round
        # is complete, yet every pair is linked and the noise has 15 degrees of freedom
        sets = rounds(13, 6, 5)
        for k in range(1, 6):
            del sets[k][k]
        b = stats.blocked(sets)
        self.assertEqual((b.rounds, b.variants, b.df), (5, 6, 15))
        self.assertLess(b.mde_pct, 5)
        # a round with one variant's value alone says nothing of a difference: not counted, nothing changes
        sets = rounds(14, 3, 4)
        alone = [dict(s) for s in sets]
        alone[0][5] = [123.0]
        one, two = stats.blocked(sets), stats.blocked(alone)
        self.assertEqual((two.rounds, two.df, two.halfwidth_pct), (one.rounds, one.df, one.halfwidth_pct))

    def test_a_variant_not_linked_by_shared_rounds_cannot_be_told(self):
        a, b, c, d = rounds(16, 4, 6)
        for sets in ([a, b, {7: [100.0], 8: [101.0]}],  # C alone in its rounds
                     [a, b, {}],  # C without a value
                     [{k: a[k] for k in (1, 2, 3)}, {k: b[k] for k in (1, 2, 3)},  # two groups, no round shared
                      {k: c[k] for k in (4, 5, 6)}, {k: d[k] for k in (4, 5, 6)}]):
            bl = stats.blocked(sets)
            self.assertTrue(math.isinf(bl.halfwidth_pct) and math.isinf(bl.mde_pct), sets)
            self.assertFalse(bl.enough(1000))
        self.assertEqual(stats.blocked(sets).df, 12 - (4 + 6 - 2))  # each group's own residual

    @unittest.skipUnless(HAVE_SCIPY, "numpy's least squares as the reference (python3-scipy, make deps)")
    def test_the_fit_is_numpys_least_squares_and_the_worst_pair_is_reported(self):
        # unbalanced rounds: the residual's degrees of freedom and deviation, and
        # the widest of the pairs' intervals (s^2 c'(X'X)^-1 c), as numpy's fit has them
        import numpy as np
        g = random.Random(17)
        for seed in range(20):
            v, r = g.randint(2, 6), g.randint(2, 7)
            sets = rounds(seed, v, r)
            for s in sets:  # a third of the cells missing, every variant keeping 2
                for k in list(s):
                    if len(s) > 2 and g.random() < 0.33:
                        del s[k]
            b = stats.blocked(sets)
            cells = [(i, k, math.log(x[0])) for i, s in enumerate(sets) for k, x in s.items()]
            used = sorted({k for _i, k, _y in cells if sum(1 for _j, k2, _z in cells if k2 == k) >= 2})
            cells = [c for c in cells if c[1] in used]
            if not cells:  # no round with 2 variants
                self.assertEqual((b.rounds, b.df, b.halfwidth_pct), (0, 0, math.inf), sets)
                continue
            x = np.array([[1.0] + [float(i == j) for j in range(1, v)] + [float(k == m) for m in used[1:]]
                          for i, k, _y in cells])
            y = np.array([c[2] for c in cells])
            beta, _ss, rank, _sv = np.linalg.lstsq(x, y, rcond=None)
            df = len(cells) - rank
            self.assertEqual((b.rounds, b.df), (len(used), df), sets)
            if rank < x.shape[1] or df < 1:  # a variant not linked to the others, or no residual
                self.assertTrue(math.isinf(b.halfwidth_pct), sets)
                continue
            cov = np.linalg.inv(x.T @ x)
            effect = [np.eye(x.shape[1])[i] if i else np.zeros(x.shape[1]) for i in range(v)]  # variant 0: 0
            contrasts = [effect[i] - effect[j] for i in range(v) for j in range(i)]
            resid = y - x @ beta
            s2 = float(resid @ resid) / df
            worst = max(float(c @ cov @ c) for c in contrasts)
            t = stats.t_quantile(0.975, df)
            self.assertAlmostEqual(b.halfwidth_pct, math.expm1(t * math.sqrt(s2 * worst)) * 100, places=8)

    def test_without_rounds_the_comparison_is_todays(self):
        # no rounds, or fewer than 2 shared: Welch's test, exactly as before
        a, b = trials(11, 5), [x * 1.05 for x in trials(12, 5)]
        today = stats.compare(a, b).as_dict()
        self.assertEqual(today["test"], "Welch's t-test")
        for by_round in (None, ({}, {}), ({1: a[:1]}, {1: b[:1]}), ({1: a[:1], 2: a[1:2]}, {2: b[:1], 3: b[1:2]})):
            self.assertEqual(stats.compare(a, b, by_round=by_round).as_dict(), today, by_round)
        self.assertEqual(today["rounds"], 0)
        pairs = [(a, b, 1), (b, a, -1)]
        plain = stats.combine(pairs)
        same = stats.combine([p + (({}, {}),) for p in pairs])
        self.assertEqual((plain.rel, plain.lo, plain.hi, plain.mde), (same.rel, same.lo, same.hi, same.mde))

    def test_combined_over_paired_phases(self):
        # three phases under drift: A/A stays within noise, a 10% slower B is found
        aa = [rounds(20 + i, 2, 8) for i in range(3)]
        c = stats.combine([(flat(a), flat(b), 1, (a, b)) for a, b in aa])
        self.assertFalse(c.significant)
        self.assertLess(c.hi - c.lo, 4)
        unpaired = stats.combine([(flat(a), flat(b), 1) for a, b in aa])
        self.assertLess(c.hi - c.lo, (unpaired.hi - unpaired.lo) / 2)
        ab = [rounds(30 + i, 2, 8, slower={1: 0.10}) for i in range(3)]
        c = stats.combine([(flat(a), flat(b), 1, (a, b)) for a, b in ab])
        self.assertTrue(c.significant)
        self.assertLess(c.lo, -10)
        self.assertGreater(c.hi, -10)


class BlockedCommand(unittest.TestCase):
    def file(self, text):
        import tempfile
        fd, path = tempfile.mkstemp()
        with os.fdopen(fd, "w") as f:
            f.write(text)
        self.addCleanup(os.unlink, path)
        return path

    def test_line(self):
        sets = rounds(7, 3, 8)
        path = self.file("".join("%s\t%d\t%r\n" % ("ABC"[i], k, x) for i, s in enumerate(sets)
                                 for k in s for x in s[k]))
        b = stats.blocked(sets)
        want = "rounds=8 variants=3 df=14 halfwidth_pct=%.2f mde_pct=%.2f enough=%s"
        self.assertEqual(stats._blocked(["--target", "2", path]), want % (b.halfwidth_pct, b.mde_pct, "yes"))
        self.assertEqual(stats._blocked(["--target", "0.5", path]), want % (b.halfwidth_pct, b.mde_pct, "no"))
        one = self.file("A\t1\t100\nB\t1\t101\nB\t2\t99\n")
        self.assertEqual(stats._blocked(["--target", "2", one]),
                         "rounds=1 variants=2 df=0 halfwidth_pct=inf mde_pct=inf enough=no")

    def test_bad_lines_name_file_and_line(self):
        import contextlib
        import io
        for text in ("A\t1\t100\nA\t0\t100\n", "A\t1\t100\nA\t1\t-3\n", "A\t1\t100\nA\t1\n", "A\t1\t100\nA\t1\tinf\n",
                     "A\t1\t100\n\tx\t1\n", "A\t1\t100\nA\t1.5\t1\n"):
            path = self.file(text)
            err = io.StringIO()
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()) as out:
                self.assertEqual(stats.main(["blocked", "--target", "2", path]), 2, text)
            self.assertEqual(out.getvalue(), "")
            self.assertEqual(err.getvalue().count("\n"), 1, err.getvalue())
            self.assertTrue(err.getvalue().startswith("stats.py: %s:2: " % path), err.getvalue())
        with contextlib.redirect_stderr(io.StringIO()) as err:
            self.assertEqual(stats.main(["blocked", "--target", "2", "/nonexistent/rounds.tsv"]), 2)
        self.assertIn("/nonexistent/rounds.tsv", err.getvalue())
        for args in (["--target", "2"], ["2", "x"], ["--target", "0", "x"]):
            with self.assertRaises(stats._Usage, msg=repr(args)):
                stats._blocked(args)


class Precision(unittest.TestCase):
    def test_precision_line(self):
        self.assertEqual(stats._precision(["--target", "2", "99", "100", "101"]),
                         "halfwidth_pct=%.2f n=3 enough=no" % (T975[2] / math.sqrt(3)))
        self.assertEqual(stats._precision(["--target", "3", "99", "100", "101"]), "halfwidth_pct=2.48 n=3 enough=yes")
        self.assertEqual(stats._precision(["--target", "2", "7"]), "halfwidth_pct=inf n=1 enough=no")
        self.assertEqual(stats._precision(["--target", "2"]), "halfwidth_pct=inf n=0 enough=no")

    def test_bad_input(self):
        for args in (["2", "3"], ["--target", "x", "1", "2"], ["--target", "0", "1", "2"], ["--target", "2", "nan"],
                     ["--target", "2", "--conf", "1.5", "1", "2"], ["--target"], ["--bogus", "1"]):
            with self.assertRaises(stats._Usage, msg=repr(args)):
                stats._precision(args)


class Noisy(unittest.TestCase):
    def test_interval_against_target(self):
        self.assertFalse(stats.noisy(3.0))
        self.assertTrue(stats.noisy(3.6))
        self.assertTrue(stats.noisy(3.0, 2.0))
        self.assertFalse(stats.noisy(None, 2.0))  # one trial: the noise is unknown, not noisy

    def test_target_of_the_run(self):
        self.assertEqual(stats.noisy_target({"precision": 2}), 2.0)
        self.assertEqual(stats.noisy_target({"precision": 1.5}), 1.5)
        # none recorded, PRECISION=0 (no target), or not a number: 3.5%
        for meta in ({}, None, {"precision": 0}, {"precision": "2"}, {"precision": True}, {"precision": -1},
                     {"precision": "1e400"}):
            self.assertEqual(stats.noisy_target(meta), stats.NOISY_PCT, meta)


if __name__ == "__main__":
    unittest.main()
