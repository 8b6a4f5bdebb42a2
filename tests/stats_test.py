#!/usr/bin/env python3
"""Unit tests of plots/stats.py (run by tests/stats.bats). With --no-scipy
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

HAVE_SCIPY = stats._scipy_stats() is not None

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
                self.assertAlmostEqual(stats._t_quantile_whole(p, df), t.ppf(p, df), delta=1e-6 * abs(t.ppf(p, df)))
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
            p = stats.welch_p([1.0, 1.0, 1.0 + 1e-15], [2.0, 2.0, 2.0])
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
