#!/usr/bin/python3
"""plots/iozone.py: IOzone heat maps from phase-iozone records.

  plots/iozone.py [-o OUTDIR] RUN...

RUN is a run directory (results/<run-id>) or a run id under RESULTS (default
results/).  For every IOzone test found (write, rewrite, read, ...) it draws
OUTDIR/<test>.png (default plots/out/iozone): one heat map panel per run/host/
variant, file size across, record size up, colour = kB/s, with one colour
scale per test shared by every panel, so filesystems compare at a glance.
A cell measured in several trials shows their median.
"""

import math
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ORDER = ["write", "rewrite", "read", "reread", "randread", "randwrite", "bkwdread", "recrewrite", "strideread"]
METRIC = re.compile(r"^([a-z]+)\.fs(\d+)k\.rs(\d+)k\.kBps$")


def die(msg):
    sys.stderr.write("iozone.py: %s\n" % msg)
    sys.exit(2)


def label(k):
    for unit, m in (("g", 1 << 20), ("m", 1 << 10)):
        if k >= m and k % m == 0:
            return "%d%s" % (k // m, unit)
    return "%dk" % k


def collect(runs, results):
    panels = {}  # (run, host, variant) -> {test: {(fs, rs): [values]}}
    for run in runs:
        d = run if os.path.isdir(run) else os.path.join(results, run)
        if not os.path.isdir(d):
            die("no run %s (neither a directory nor under %s)" % (run, results))
        for host in sorted(os.listdir(d)):
            for var in sorted(os.listdir(os.path.join(d, host)) if os.path.isdir(os.path.join(d, host)) else []):
                f = os.path.join(d, host, var, "records.tsv")
                if not os.path.isfile(f):
                    continue
                with open(f) as fh:
                    for line in fh:
                        p = line.rstrip("\n").split("\t")
                        if len(p) != 5 or p[0] != "iozone":
                            continue
                        m = METRIC.match(p[2])
                        if not m:
                            continue
                        key = (os.path.basename(os.path.normpath(d)), host, var)
                        cells = panels.setdefault(key, {}).setdefault(m.group(1), {})
                        cells.setdefault((int(m.group(2)), int(m.group(3))), []).append(float(p[3]))
    return panels


def tics(values):
    return "(" + ", ".join("'%s' %d" % (label(v), int(math.log2(v))) for v in sorted(values)) + ")"



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
        med = {k: {c: statistics.median(v) for c, v in panels[k][t].items()} for k in keys}
        vals = [v for m in med.values() for v in m.values() if v > 0]
        if not vals:
            continue
        fss = {c[0] for m in med.values() for c in m}
        rss = {c[1] for m in med.values() for c in m}
        data = os.path.join(out, t + ".dat")
        with open(data, "w") as f:
            for k in keys:
                f.write("# %s/%s/%s\n" % k)
                for (fs, rs), v in sorted(med[k].items()):
                    if v > 0:
                        f.write("%d %d %g\n" % (math.log2(fs), math.log2(rs), v))
                f.write("\n\n")
        png = os.path.join(out, t + ".png")
        cols = min(len(keys), 3)
        lo, hi = min(vals), max(vals)
        if hi <= lo:
            hi = lo * 2
        cmd = ["gnuplot", "-e", "out='%s'; title='IOzone %s (kB/s)'; panels=%d; cols=%d; cbmin=%g; cbmax=%g; "
               "xtics=\"%s\"; ytics=\"%s\"; xmin=%d; xmax=%d; ymin=%d; ymax=%d; data='%s'; names='%s'"
               % (png, t, len(keys), cols, lo, hi, tics(fss), tics(rss), math.log2(min(fss)),
                  math.log2(max(fss)), math.log2(min(rss)), math.log2(max(rss)), data,
                  " ".join("/".join(k) for k in keys).replace("'", "")),
               os.path.join(HERE, "iozone.gp")]
        subprocess.run(cmd, check=True)
        written.append(png)
    for w in written:
        print(w)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
