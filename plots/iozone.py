#!/usr/bin/env python3
"""plots/iozone.py: IOzone heat maps from phase-iozone records.

  plots/iozone.py [-o OUTDIR] RUN...

RUN is a run directory (results/<run-id>) or a run id under RESULTS (default
results/).  For every IOzone test found (write, rewrite, read, ...) it draws
OUTDIR/<test>.png (default plots/out/iozone): one heat map panel per run/host/
variant, file size across, record size up, colour = kB/s, with one colour
scale per test shared by every panel, so filesystems compare at a glance; a
variant whose figures are IOzone's emulation (records engine emulated) is
named "<variant>(emulated)".
A cell measured in several trials shows their median.  `make report` draws
the same maps among its other charts (plots/micro_charts.py).
"""

import math
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True
import resultslib  # noqa: E402
from chartlib import gq, gtic, out_path, stem  # noqa: E402
from micro_charts import IOZONE_TESTS as ORDER, iozone_cells, size_label as label  # noqa: E402


def die(msg):
    sys.stderr.write("iozone.py: %s\n" % msg)
    sys.exit(2)


def collect(runs, results):
    """{(run, host, variant): {test: {(fs, rs): median kB/s}}}, read with
    resultslib as the report reads them."""
    panels = {}
    for run in runs:
        try:
            r = resultslib.load_run(results, run)
        except resultslib.Error as e:
            die(str(e))
        for v in r.variants:
            cells = iozone_cells(v)
            # figures of the emulation (IOzone was not installed) say so in the panel's name
            emulated = any(p == "iozone" and m == "engine" and x == "emulated" for p, _t, m, x, _u in v.records)
            if cells:
                panels[(r.name, v.host, v.name + ("(emulated)" if emulated else ""))] = cells
    return panels


def tics(values):
    return "(" + ", ".join("%s %d" % (gtic(label(v)), int(math.log2(v))) for v in sorted(values)) + ")"



def main(argv):
    out = os.path.join(HERE, "out", "iozone")
    runs = []
    args = list(argv)
    while args:
        a = args.pop(0)
        if a in ("-h", "--help"):
            print(__doc__.split("\n\n")[1])
            return 0
        if a == "-o" and args:
            out = args.pop(0)
        elif a.startswith("-"):
            die("unknown option %s" % a)
        else:
            runs.append(a)
    if not runs:
        die("which run? (RUN=<run-id or directory> ...)")
    results = os.environ.get("RESULTS") or os.path.join(os.path.dirname(HERE), "results")
    panels = collect(runs, results)
    if not panels:
        die("no iozone records in %s" % " ".join(runs))
    os.makedirs(out, exist_ok=True)
    tests = sorted({t for p in panels.values() for t in p}, key=lambda t: (ORDER.index(t) if t in ORDER else 99, t))
    written = []
    for t in tests:
        keys = [k for k in sorted(panels) if t in panels[k]]
        med = {k: panels[k][t] for k in keys}
        vals = [v for m in med.values() for v in m.values() if v > 0]
        if not vals:
            continue
        fss = {c[0] for m in med.values() for c in m}
        rss = {c[1] for m in med.values() for c in m}
        data = out_path(out, stem(t) + ".dat")
        with open(data, "w", encoding="utf-8") as f:
            for k in keys:
                f.write("# %s\n" % "/".join(k).replace("\n", " "))
                for (fs, rs), v in sorted(med[k].items()):
                    if v > 0:
                        f.write("%d %d %g\n" % (math.log2(fs), math.log2(rs), v))
                f.write("\n\n")
        png = out_path(out, stem(t) + ".png")
        cols = min(len(keys), 3)
        lo, hi = min(vals), max(vals)
        if hi <= lo:
            hi = lo * 2
        # every string a literal (gq); a panel's name one word of names
        cmd = ["gnuplot", "-e", "out=%s; title=%s; panels=%d; cols=%d; cbmin=%g; cbmax=%g; "
               "xtics=%s; ytics=%s; xmin=%d; xmax=%d; ymin=%d; ymax=%d; data=%s; names=%s"
               % (gq(png), gq("IOzone %s (kB/s)" % t), len(keys), cols, lo, hi, gq(tics(fss)), gq(tics(rss)),
                  math.log2(min(fss)), math.log2(max(fss)), math.log2(min(rss)), math.log2(max(rss)), gq(data),
                  gq(" ".join(re.sub(r"[\s'\"]+", "_", "/".join(k)) for k in keys))),
               os.path.join(HERE, "iozone.gp")]
        p = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if p.returncode:
            die("gnuplot failed on %s: %s" % (data, (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]))
        written.append(png)
    for w in written:
        print(w)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
