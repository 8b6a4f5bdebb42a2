#!/usr/bin/env python3
"""tests/known-answers.py RUN-DIR PHASE METRIC A B: the comparison of variant
B's trials of PHASE's METRIC against A's by plots/stats.py (the report's
statistics), as one line "VERDICT REL LO HI" (percent; VERDICT with _ for
spaces; LO and HI nan without an interval).  For tests/known-answers.bats."""
import glob
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "plots"))
import stats  # noqa: E402


def trials(run, variant, phase, metric):
    (rec,) = glob.glob(os.path.join(run, "*", variant, "records.tsv"))
    with open(rec, encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in f]
    return [float(r[3]) for r in rows if len(r) >= 4 and r[0] == phase and r[2] == metric]


def main(argv):
    run, phase, metric, a, b = argv
    c = stats.compare(trials(run, a, phase, metric), trials(run, b, phase, metric))
    print(c.verdict.replace(" ", "_"), "%.2f" % c.rel, "%.2f" % (math.nan if c.lo is None else c.lo),
          "%.2f" % (math.nan if c.hi is None else c.hi))


if __name__ == "__main__":
    main(sys.argv[1:])
