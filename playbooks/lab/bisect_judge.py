#!/usr/bin/env python3
"""make bisect's verdict on one kernel: the samples of a candidate against
those of the good kernel, with plots/stats.py's comparison (the interval of
the relative difference of the two sets).

    bisect_judge.py CHANGE GOOD.txt CAND.txt

CHANGE is the change that counts as bad, in percent with its sign ("+10":
10% higher is bad; "-10": 10% lower is bad). One line is printed:

    VERDICT n=N center=X change_pct=R lo_pct=L hi_pct=H

VERDICT: bad (the whole interval of the change lies beyond CHANGE), good
(the whole interval lies short of CHANGE), or undecided (the interval
straddles CHANGE, or a side has fewer than 2 samples: measure more).
Bad input: one line on stderr, exit 2.
"""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "plots"))
import stats  # noqa: E402  (plots/stats.py)


def read_samples(path):
    out = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            v = float(line)
            if not math.isfinite(v):
                raise ValueError("%s: %r is not a finite number" % (path, line))
            out.append(v)
    return out


def verdict(change, good, cand):
    """(verdict, Comparison) of CAND against GOOD for the bad CHANGE (percent)."""
    c = stats.compare(good, cand)
    if c.lo is None or c.hi is None or math.isnan(c.rel):
        return "undecided", c
    beyond = (lambda x: x >= change) if change > 0 else (lambda x: x <= change)
    if beyond(c.lo) and beyond(c.hi):
        return "bad", c
    if not beyond(c.lo) and not beyond(c.hi):
        return "good", c
    return "undecided", c


def main(argv):
    if len(argv) != 3:
        print("usage: bisect_judge.py CHANGE GOOD.txt CAND.txt", file=sys.stderr)
        return 2
    try:
        change = float(argv[0].rstrip("%"))
        if change == 0 or not math.isfinite(change):
            raise ValueError("CHANGE %r: want a percentage other than 0, e.g. +10" % argv[0])
        good, cand = read_samples(argv[1]), read_samples(argv[2])
    except (OSError, ValueError) as e:
        print("bisect_judge: %s" % e, file=sys.stderr)
        return 2
    v, c = verdict(change, good, cand)

    def num(x):
        return "n/a" if x is None or math.isnan(x) else "%+.1f" % x
    print("%s n=%d center=%s change_pct=%s lo_pct=%s hi_pct=%s" % (
        v, c.b.n, "n/a" if c.b.center is None else "%.4g" % c.b.center, num(c.rel), num(c.lo), num(c.hi)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
