#!/usr/bin/env python3
"""Unit tests of plots/ranking.py's correction of a report's comparisons
(run by tests/stats.bats): Benjamini-Hochberg's adjusted p values (and
make compare's use of them, ranking.adjust), an A/A
report of many phases naming a false winner at 5% at most, a real 10%
difference still found, one comparison unchanged; in rounds, each pair
paired over the rounds it shares. The p values need scipy
(without it a comparison keeps its own verdict): run with it."""
import math
import os
import random
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "plots"))
import ranking  # noqa: E402
import stats  # noqa: E402

HAVE_SCIPY = stats.have_scipy()


class FakeVariant:
    """What ranking.rank reads of a resultslib.Variant: the figures of each
    (phase, metric), no invalid or disturbed trial, no rounds."""

    def __init__(self, name, figures, unit="req/s"):
        self.run, self.host, self.name, self.fs = "run", "h1", name, "ext4"
        self.figures, self._unit = figures, unit
        self.invalid, self.records = {}, []

    def values(self, phase, metric):
        return self.figures.get((phase, metric), [])

    def values_by_round(self, phase, metric):
        return {}

    def unit(self, phase, metric):
        return self._unit if (phase, metric) in self.figures else ""

    def metrics(self, phase):
        return {}


def report(seed, phases, variants=3, trials=7, cv=0.03, slower=None, pct=0.0):
    """The variants of a synthetic report: PHASES rates, every variant's
    trials normal around 1000 with CV; SLOWER's PCT% lower."""
    r = random.Random(seed)
    names = "ABCDEFGH"[:variants]
    out = []
    for n in names:
        level = 1000.0 * (1 - pct / 100 if n == slower else 1)
        out.append(FakeVariant(n, {("p%d" % i, "rps"): [r.gauss(level, level * cv) for _t in range(trials)]
                                   for i in range(phases)}))
    return out


def specs(phases):
    return [("p%d" % i, "rps") for i in range(phases)]


class Adjust(unittest.TestCase):
    def test_known_answers(self):
        # R: p.adjust(c(0.01, 0.04, 0.03, 0.005), "BH") = 0.02 0.04 0.04 0.02
        for got, want in zip(ranking.bh_adjust([0.01, 0.04, 0.03, 0.005]), [0.02, 0.04, 0.04, 0.02]):
            self.assertAlmostEqual(got, want)
        # a larger p's adjusted value carries down: p.adjust(c(0.01, 0.02, 0.5), "BH") = 0.03 0.03 0.5
        for got, want in zip(ranking.bh_adjust([0.01, 0.02, 0.5]), [0.03, 0.03, 0.5]):
            self.assertAlmostEqual(got, want)
        self.assertEqual(ranking.bh_adjust([0.3]), [0.3])
        self.assertEqual(ranking.bh_adjust([]), [])
        self.assertLessEqual(max(ranking.bh_adjust([0.9, 0.95, 0.99])), 1.0)

    def test_adjust_demotes_a_significant_comparison_above_q_and_counts_those_with_a_p(self):
        # (make compare's decision: the report's, over a list of comparisons)
        class Cmp:
            def __init__(self, p, verdict):
                self.p, self.verdict = p, verdict

        cmps = [Cmp(0.001, stats.SIGNIFICANT), Cmp(0.04, stats.SIGNIFICANT), None, Cmp(None, stats.CANNOT_TELL),
                Cmp(0.5, stats.NOT_SIGNIFICANT), Cmp(0.3, stats.NOT_SIGNIFICANT)]
        out, n = ranking.adjust(cmps)
        self.assertEqual(n, 4)
        self.assertEqual([round(p, 6) if p is not None else None for p, _w in out], [0.004, 0.08, None, None, 0.5, 0.4])
        self.assertEqual([w for _p, w in out], ["", "not significant after correcting for 4 comparisons", "", "", "", ""])
        self.assertEqual(ranking.adjust([]), ([], 0))


@unittest.skipUnless(HAVE_SCIPY, "needs scipy's p values (python3-scipy, make deps)")
class Correction(unittest.TestCase):
    def test_an_aa_report_of_16_phases_names_a_false_winner_5_percent_of_the_time_at_most(self):
        # 300 reports of 3 identical variants in 16 phases: at 95% a comparison,
        # some phase names a winner by chance in many of them; corrected, in 5% at most
        alone = corrected = 0
        for seed in range(300):
            vs = report(seed, 16)
            alone += any(ranking.rank(vs, p, m)["winner"] for p, m in specs(16))
            corrected += any(r["winner"] for r in ranking.rank_all(vs, specs(16)).values())
        self.assertGreater(alone, 0.08 * 300, alone)
        self.assertLessEqual(corrected, 0.05 * 300, corrected)

    def test_a_chance_winner_is_taken_with_its_reason_and_its_interval_kept(self):
        for seed in range(300):
            vs = report(seed, 16)
            alone = {(p, m): ranking.rank(vs, p, m) for p, m in specs(16)}
            if any(r["winner"] for r in alone.values()):
                break
        ranked = ranking.rank_all(vs, specs(16))
        k = next(k for k, r in alone.items() if r["winner"])
        r = ranked[k]
        self.assertIsNone(r["winner"])
        self.assertTrue(r["demoted"])
        self.assertEqual(r["comparisons"], 32)
        self.assertEqual(ranking.card_words(r, lambda v: v.name),
                         "no winner: %s ahead, not significantly after correcting for 32 comparisons" % r["entries"][0].v.name)
        for e, e0 in zip(r["entries"][1:], alone[k]["entries"][1:]):
            self.assertEqual(e0.verdict, stats.SIGNIFICANT)
            self.assertEqual(e.verdict, stats.NOT_SIGNIFICANT)
            self.assertEqual((e.cmp.lo, e.cmp.hi, e.cmp.p), (e0.cmp.lo, e0.cmp.hi, e0.cmp.p))  # the 95% interval stays
            self.assertGreater(e.p_adjusted, 0.05)
            self.assertIn("not significant after correcting for 32 comparisons (Benjamini-Hochberg adjusted p = ",
                          ranking.rel_words(e, r))
        self.assertIn("5% false discovery rate over the 32 comparisons", ranking.fdr_words(list(ranked.values())))

    def test_a_real_10_percent_difference_is_found_in_every_phase_after_correcting(self):
        # 7 trials a side at a 3% spread: each comparison's detectable effect about 4%
        for seed in range(20):
            ranked = ranking.rank_all(report(seed, 16, slower="B", pct=10), specs(16))
            for r in ranked.values():
                b = next(e for e in r["entries"] if e.v.name == "B")
                self.assertEqual(b.verdict, stats.SIGNIFICANT, (seed, r["phase"], b.cmp.p, b.p_adjusted))
                self.assertEqual(b.place, 2)

    def test_one_phase_of_one_comparison_is_as_ranked_alone(self):
        for seed in range(100):
            vs = report(seed, 1, variants=2, trials=5, slower="B", pct=3)
            alone = ranking.rank(vs, "p0", "rps")
            r = ranking.rank_all(vs, specs(1))[("p0", "rps")]
            self.assertEqual((r["verdict"], r["demoted"], r["comparisons"]), (alone["verdict"], False, 1))
            self.assertEqual(r["entries"][1].p_adjusted, alone["entries"][1].cmp.p)
            self.assertEqual(ranking.fdr_words([r]), "")

    def test_a_comparison_without_a_test_keeps_its_verdict(self):
        vs = report(1, 4, trials=1) + report(2, 4, variants=1)
        ranked = ranking.rank_all(vs, specs(4))
        for r in ranked.values():
            self.assertEqual(r["verdict"], "cannot tell")
            self.assertEqual(r["comparisons"], 0)


class RoundsVariant(FakeVariant):
    """A variant of a blocked run (one run and host, `round` records): its
    trials of phase p by round."""

    def __init__(self, name, by_round):
        super().__init__(name, {("p", "rps"): [x for k in sorted(by_round) for x in by_round[k]]})
        self.by_round = by_round

    def values_by_round(self, phase, metric):
        return self.by_round if (phase, metric) in self.figures else {}


class Rounds(unittest.TestCase):
    def test_a_pair_is_paired_over_the_rounds_it_shares(self):
        # five rounds under a drift of +-15%, C's trial of round 2 disturbed (left
        # out): A and B still pair over all five, C over its four, and the
        # phase's detectable effect counts round 2 (the rounds' fit over every cell)
        g = random.Random(5)
        levels = [1000 * (1 + g.uniform(-0.15, 0.15)) for _k in range(5)]
        by = {n: {k + 1: [g.gauss(lv * f, lv * f * 0.015)] for k, lv in enumerate(levels)}
              for n, f in (("A", 1.1), ("B", 1.0), ("C", 0.9))}
        del by["C"][2]
        r = ranking.rank([RoundsVariant(n, by[n]) for n in "ABC"], "p", "rps")
        self.assertEqual([e.v.name for e in r["entries"]], ["A", "B", "C"])
        self.assertEqual({e.v.name: (e.cmp.rounds, e.cmp.test) for e in r["entries"][1:]},
                         {"B": (5, "paired t-test over 5 rounds"), "C": (4, "paired t-test over 4 rounds")})
        self.assertEqual(r["rounds"], 5)
        self.assertEqual(r["mde"], stats.blocked([by[n] for n in "ABC"]).mde_pct)
        self.assertLess(r["mde"], 5)
        self.assertEqual(r["winner"].v.name, "A")

    def test_in_rounds_figures_are_levels_that_agree_with_the_differences(self):
        # B is 3% ahead of A in every round; A alone sat out the slow round 3
        # (disturbed), so A's mean of its trials is the higher: ordered by the
        # means the card read "A (best); B (+3.0%)". By the rounds' levels B is
        # first, each figure's ratio to the best is the difference beside it,
        # and with every round complete the level is the trials' geometric mean.
        drift = {1: 1000.0, 2: 1010.0, 3: 700.0, 4: 995.0, 5: 1005.0}
        noise = {1: 1.002, 2: 0.998, 3: 1.001, 4: 0.999, 5: 1.0}
        by = {"A": {k: [lv * noise[k]] for k, lv in drift.items() if k != 3},
              "B": {k: [lv * 1.03 / noise[k]] for k, lv in drift.items()},
              "C": {k: [lv * 0.97] for k, lv in drift.items()}}
        vs = [RoundsVariant(n, by[n]) for n in "ABC"]
        self.assertGreater(stats.estimate(vs[0].values("p", "rps")).center,
                           stats.estimate(vs[1].values("p", "rps")).center)
        r = ranking.rank(vs, "p", "rps")
        self.assertEqual([e.v.name for e in r["entries"]], ["B", "A", "C"])
        best = r["entries"][0]
        for e in r["entries"][1:]:
            self.assertAlmostEqual(e.med / best.med - 1, e.cmp.rel / 100, places=12)
            self.assertLess(e.cmp.rel, 0)
        c = r["entries"][2]
        self.assertAlmostEqual(c.med, math.exp(math.fsum(math.log(by["C"][k][0]) for k in drift) / 5), places=6)
        self.assertAlmostEqual(best.med / c.med, 1.03 / 0.97 / 1.0, delta=0.01)

    def test_two_variants_that_share_one_round_are_compared_in_the_model(self):
        # A and C share round 1 alone; B links them: compared through B, in the
        # model, its figure's ratio the difference
        by = {"A": {1: [1000.0], 2: [1012.0]}, "B": {1: [950.0], 2: [955.0], 3: [948.0]},
              "C": {1: [900.0], 3: [901.0]}}
        r = ranking.rank([RoundsVariant(n, by[n]) for n in "ABC"], "p", "rps")
        self.assertEqual([e.v.name for e in r["entries"]], ["A", "B", "C"])
        c = r["entries"][2]
        self.assertTrue(c.cmp.test.startswith("t-test in the rounds' model"), c.cmp.test)
        self.assertAlmostEqual(c.med / r["entries"][0].med - 1, c.cmp.rel / 100, places=12)

    def test_rounds_without_a_residual_cannot_tell_but_keep_the_figures_ratio(self):
        # one round shared, no residual: no test, the difference still the figures'
        by = {"A": {1: [1000.0], 2: [700.0]}, "B": {1: [900.0]}}
        r = ranking.rank([RoundsVariant(n, by[n]) for n in "AB"], "p", "rps")
        a, b = r["entries"]
        self.assertEqual((a.v.name, b.cmp.verdict, r["verdict"]), ("A", stats.CANNOT_TELL, "cannot tell"))
        self.assertAlmostEqual(b.med / a.med - 1, b.cmp.rel / 100, places=12)


if __name__ == "__main__":
    unittest.main()
