#!/usr/bin/env python3
"""plots/plots.py: the charts, the report and the comparison of shootout runs.
It reads only results/ (the formats: docs/formats.md#records).

  plots.py plots   [--results DIR] [--out DIR] [RUN ...]
  plots.py report  [--results DIR] [--out DIR] [RUN ...]
  plots.py compare [--results DIR] [--out DIR] BASE NEW   (RUN, or RUN:OS / RUN:HOST / RUN:VARIANT)
  plots.py export  [--results DIR] [--out DIR] [RUN ...]  results.csv, results.json, composite.xml
  plots.py needs   [--results DIR] [RUN ...]  the harness/deps.sh groups beyond plots that
                                              their report or comparison draws with (profile)
"""
import argparse
import os
import sys
import traceback

sys.dont_write_bytecode = True

import resultslib  # noqa: E402
from readers import shown  # noqa: E402
from resultslib import Error  # noqa: E402


def split_runs(args):
    out = []
    for a in args:
        out += [r for r in a.replace(",", " ").split() if r]
    return out


def aside(a, out, runs, replaced=()):
    """outdir.Aside for OUT: not inside the results root nor a run; the
    project's own default OUT (no --out) may hold an older report's files."""
    import outdir
    return outdir.Aside(out, [a.results] + [r.path for r in runs], replaced, legacy=not a.out)


def main(argv):
    ap = argparse.ArgumentParser(prog="plots", description=__doc__.split("\n")[0])
    ap.add_argument("command", choices=["plots", "report", "compare", "export", "needs"])
    ap.add_argument("runs", nargs="*", help="run ids under RESULTS, or paths of run directories")
    ap.add_argument("--results", default="results", help="results root (default: results)")
    ap.add_argument("--out", help="output directory")
    a = ap.parse_intermixed_args(argv)
    names = split_runs(a.runs)
    if a.command == "needs":
        # a kernel profile is drawn by inferno (harness/deps.sh's profile group builds it)
        import kprofile
        runs = [resultslib.load_side(a.results, n) for n in names or [resultslib.default_run(a.results)]]
        print("profile" if any(kprofile.variant_profiles(v) for r in runs for v in r.variants) else "")
        return 0
    if a.command == "compare":
        if len(names) != 2:
            raise Error("compare wants two runs: BASE and NEW")
        import compare
        base, new = (resultslib.load_side(a.results, n) for n in names)
        resultslib.check_mergeable([base, new])
        out = a.out or os.path.join("plots", "out", "compare-%s-vs-%s" % (
            base.name.replace(":", "-"), new.name.replace(":", "-")))
        with aside(a, out, [base, new]) as tmp:
            compare.compare(base, new, tmp)
        print("plots: comparison of %s (base) and %s (new) in %s/compare.html and compare.md" % (base.name, new.name, out))
        return 0
    if not names:
        names = [resultslib.default_run(a.results)]
    runs = [resultslib.load_run(a.results, n) for n in names]
    import export
    if a.command == "export":
        # Every row names its run: runs of other datasets may share a file.
        out = a.out or "report"
        export.write(runs, out)
        print("plots: %s of %s in %s/" % (", ".join(export.FILES), ", ".join(names), out))
        return 0
    resultslib.check_mergeable(runs)
    import charts
    if a.command == "plots":
        out = a.out or os.path.join("plots", "out", "+".join(r.name for r in runs))
        with aside(a, out, runs) as tmp:
            made = charts.Renderer(runs, tmp).render_all()
        print("plots: %d charts (PNG and SVG) of %s in %s/" % (len(made), ", ".join(names), out))
        return 0
    import report
    out = a.out or "report"
    with aside(a, out, runs, export.FILES) as tmp:
        ranked = charts.rankings(runs)  # one pass, corrected over the report's comparisons (ranking.rank_all)
        made = charts.Renderer(runs, tmp, ranked).render_all()
        report.write(runs, made, tmp, ranked)
        export.write(runs, tmp, ranked)
    print("plots: report of %s in %s/index.html (%d charts), summary in %s/summary.md, results for other tools "
          "in %s/{%s}" % (", ".join(names), out, len(made), out, out, ",".join(export.FILES)))
    return 0


if __name__ == "__main__":
    # Every failure is one line (a name from a result tree shown escaped),
    # never a traceback: a bug's names its type and where it happened.
    try:
        sys.exit(main(sys.argv[1:]))
    except Error as e:
        print("plots: %s" % shown(e), file=sys.stderr)
        sys.exit(2)
    except OSError as e:
        print("plots: %s" % shown(e), file=sys.stderr)
        sys.exit(1)
    except Exception as e:  # noqa: BLE001
        tb = traceback.extract_tb(e.__traceback__)[-1]
        print("plots: internal error (a bug): %s: %s (%s:%d)" % (type(e).__name__, shown(e),
                                                                 os.path.basename(tb.filename), tb.lineno),
              file=sys.stderr)
        sys.exit(3)
