"""The charts of the micro-benchmark phases (docs/micro.md),
drawn by charts.Renderer after the others (helpers from chartlib.py), each on scales common to every
host and variant of the runs:

  iometer-<spec>-<metric>   IOPS, MB/s, mean and p99 latency, CPU% against
                            the outstanding I/Os, a line per host/variant
  iozone-<test>             heat map a host/variant, file size across,
                            record size up, one colour scale per test
  iozone-<test>-rs<R>k      kB/s against file size at record size R (64 KB
                            when measured, else the most measured one;
                            IOZONE_REC=<kB> chooses), a line per host/variant
  postmark-<config>-<field> bars as every bar chart, one scale per field
  discover-<test>           fsdisco's fastest latency of each offset (its
                            raw/discover-<trial>/<test>.tsv, the first
                            trial that has one), a line per host/variant

The report shows discovery's findings as a table (micro_report.py).
The readers below are shared with micro_report.py."""
import math
import os
import re
import statistics

import chartlib
import resultslib
from resultslib import NOISE_MIN, noise_label, stats

MICRO_PHASES = ("iometer", "iozone", "postmark", "discover")
# (metric, title, unit, scale group): charts of one group share the y scale.
IOMETER_METRICS = [("iops", "I/Os per second", "IO/s", None), ("mbps", "MB per second", "MB/s", None),
                   ("lat_mean_ms", "mean latency (ms)", "ms", "iometer-latency"),
                   ("lat_p99_ms", "99th percentile latency (ms)", "ms", "iometer-latency"),
                   ("cpu_pct", "CPU utilisation (%)", "%", "iometer-cpu")]
IOZONE_TESTS = ["write", "rewrite", "read", "reread", "randread", "randwrite", "bkwdread", "recrewrite", "strideread",
                "fwrite", "frewrite", "fread", "freread"]
POSTMARK_FIELDS = [("tps", "transactions per second"), ("created_per_s", "files created per second"),
                   ("read_kBps", "kB read per second"), ("written_kBps", "kB written per second"),
                   ("wall_s", "wall time (lower is better)")]
COLORS = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#8C6D31", "#999999"]
# sizes and queue depths from 1 (drawn on log2 scales), in ASCII digits
IOMETER_RE = re.compile(r"^(.+)\.qd([1-9][0-9]{0,8})\.([a-z0-9_]+)$")
IOZONE_RE = re.compile(r"^([a-z]+)\.fs([1-9][0-9]{0,11})k\.rs([1-9][0-9]{0,11})k\.kBps$")
POSTMARK_RE = re.compile(r"^(n\d+\.t\d+)\.tps$")


def metrics_of(v, phase):
    seen = []
    for p, _t, m, _v, _u in v.records:
        if p == phase and m not in seen:
            seen.append(m)
    return seen


def iometer_specs(v):
    """{spec: sorted outstanding I/Os} of variant V."""
    out = {}
    for m in metrics_of(v, "iometer"):
        g = IOMETER_RE.match(m)
        if g and g.group(3) == "iops":
            out.setdefault(g.group(1), set()).add(int(g.group(2)))
    return {s: sorted(q) for s, q in out.items()}


def iozone_cells(v):
    """{test: {(file kB, record kB): median kB/s over trials}} of variant V."""
    out = {}
    for m in metrics_of(v, "iozone"):
        g = IOZONE_RE.match(m)
        vals = v.values("iozone", m) if g else []
        if vals:
            out.setdefault(g.group(1), {})[(int(g.group(2)), int(g.group(3)))] = statistics.median(vals)
    return out


def iozone_record(cells_by_variant):
    """The record size (kB) of the line charts: IOZONE_REC, else 64 when
    measured, else the one with the most cells."""
    count = {}
    for cells in cells_by_variant:
        for test in cells.values():
            for _fs, rs in test:
                count[rs] = count.get(rs, 0) + 1
    want = os.environ.get("IOZONE_REC", "")
    if want.isdigit() and int(want) in count:
        return int(want)
    if 64 in count:
        return 64
    return max(sorted(count), key=lambda r: count[r]) if count else None


def postmark_configs(v):
    return [g.group(1) for g in (POSTMARK_RE.match(m) for m in metrics_of(v, "postmark")) if g]


def size_label(k):
    for unit, m in (("g", 1 << 20), ("m", 1 << 10)):
        if k >= m and k % m == 0:
            return "%d%s" % (k // m, unit)
    return "%dk" % k


def ordered(items, order):
    return sorted(items, key=lambda t: (order.index(t) if t in order else len(order), t))


class MicroCharts:
    def __init__(self, renderer):
        self.r = renderer
        self.vs = [v for _x, v in renderer.layout.slots]
        multi = len(renderer.runs) > 1
        self.names = ["%s%s / %s" % (v.run + " / " if multi else "", v.host, v.name) for v in self.vs]

    def render(self):
        self.iometer()
        self.iozone()
        self.postmark()
        self.discover()

    # ---- lines ----------------------------------------------------------

    def lines(self, name, title, xlabel, ylabel, series, ymax, logx, caption, extra=()):
        """series: [(name, colour, [(x, median, min, max)])], x > 0 with
        logx; EXTRA: gnuplot commands after the others."""
        gq = chartlib.gq
        series = [s for s in series if s[2]]
        if not series:
            return
        name = chartlib.stem(name)
        with open(chartlib.out_path(self.r.out, name + ".dat"), "w", encoding="utf-8") as f:
            f.write("# x median min max, one block per series\n")
            for _n, _c, pts in series:
                f.write("".join("%g %g %g %g\n" % p for p in pts) + "\n\n")
        xs = sorted({p[0] for s in series for p in s[2]})
        top, tics, _l = chartlib.axis(ymax, "", 1.12)
        pt = "0" if max(len(s[2]) for s in series) > 64 else "7"
        lines = ["datafile = %s" % gq(name + ".dat"), "chart_title = %s" % gq(title),
                 "xlabel_text = %s" % gq(xlabel), "ylabel_text = %s" % gq(ylabel),
                 "width = 860\nheight = 480", "nseries = %d" % len(series), "point_type = %s" % pt,
                 "whiskers = %d" % any(p[2] != p[3] for s in series for p in s[2]),
                 "array snames = [%s]" % ", ".join(gq(s[0]) for s in series),
                 "array scolors = [%s]" % ", ".join(gq(s[1]) for s in series),
                 "set yrange [0:%g]" % top, "set ytics %s" % tics]
        if top >= 1e5:
            lines.append("set format y \"%.1s%c\"")
        if logx:
            lo, hi = xs[0], xs[-1]
            lines += ["set logscale x 2", "set xrange [%g:%g]" % (lo / 1.3, hi * 1.3),
                      "set xtics (%s)" % ", ".join("%s %g" % (chartlib.gtic(logx(x)), x) for x in xs)]
        lines += list(extra)
        self.r.instance(name, "micro_lines.gp", lines)
        self.r.charts.append(dict(name=name, kind="lines", title=title, scale="", unit="", table=None,
                                  caption=caption))

    def color(self, i):
        return COLORS[i % len(COLORS)]

    # ---- Iometer ----------------------------------------------------------

    def iometer(self):
        specs = {}
        for v in self.vs:
            for s, qds in iometer_specs(v).items():
                specs.setdefault(s, set()).update(qds)
        if not specs:
            return
        # Scales: per chart, or per group over every spec.
        group_max = {}
        for s in specs:
            for metric, _t, _u, group in IOMETER_METRICS:
                if group:
                    m = max([hi for v in self.vs for _q, _m, _l, hi in self.points(v, s, metric)] + [0])
                    group_max[group] = max(group_max.get(group, 0), m)
        for s in sorted(specs):
            for metric, what, _unit, group in IOMETER_METRICS:
                series = [(n, self.color(i), self.points(v, s, metric)) for i, (v, n) in enumerate(zip(self.vs, self.names))]
                noise = noise_label(max([len(v.values("iometer", "%s.qd%d.%s" % (s, qd, metric)))
                                         for v in self.vs for qd in iometer_specs(v).get(s, [])] + [0]))
                ymax = group_max[group] if group else max([p[3] for x in series for p in x[2]] + [0])
                if group == "iometer-cpu":
                    ymax = min(100 / 1.12, ymax) if ymax else 0
                self.lines("iometer-%s-%s" % (s, metric.replace("_", "-")),
                           "Iometer %s: %s against outstanding I/Os" % (s, what), "outstanding I/Os", what,
                           series, ymax, lambda x: "%d" % x,
                           "Median over trials with min-max whiskers from %d trials on%s, a line per host/variant%s."
                           % (NOISE_MIN, " (%s)" % noise if noise else "",
                              " on the scale of every Iometer %s chart" % group.split("-")[1] if group else ""))

    @staticmethod
    def points(v, spec, metric):
        pts = []
        for qd in iometer_specs(v).get(spec, []):
            n, med, lo, hi = stats(v.values("iometer", "%s.qd%d.%s" % (spec, qd, metric)))
            if n:
                # no whisker below NOISE_MIN trials: the noise is unknown
                pts.append((qd, med, lo, hi) if n >= NOISE_MIN else (qd, med, med, med))
        return pts

    # ---- IOzone -------------------------------------------------------------

    def iozone(self):
        cells = [iozone_cells(v) for v in self.vs]
        tests = ordered({t for c in cells for t in c}, IOZONE_TESTS)
        rec = iozone_record(cells)
        for t in tests:
            self.heat(t, cells)
        for t in tests:
            series = []
            for i, (c, n) in enumerate(zip(cells, self.names)):
                pts = sorted((fs, v, v, v) for (fs, rs), v in c.get(t, {}).items() if rs == rec)
                series.append((n, self.color(i), pts))
            ymax = max([p[1] for s in series for p in s[2]] + [0])
            self.lines("iozone-%s-rs%dk" % (t, rec), "IOzone %s at %s records: kB/s against file size"
                       % (t, size_label(rec)), "file size", "kB per second", series, ymax, size_label,
                       "Median over trials, a line per host/variant, record size %s (IOZONE_REC=<kB> chooses "
                       "another)." % size_label(rec), ["set bars 0"])

    def heat(self, test, cells):
        gq = chartlib.gq
        panels = [(n, c[test]) for n, c in zip(self.names, cells) if any(x > 0 for x in c.get(test, {}).values())]
        vals = [x for _n, c in panels for x in c.values() if x > 0]
        if not vals:
            return
        name = chartlib.stem("iozone-" + test)
        with open(chartlib.out_path(self.r.out, name + ".dat"), "w", encoding="utf-8") as f:
            f.write("# log2(file kB) log2(record kB) kB/s, one block per host/variant\n")
            for _n, c in panels:
                f.write("".join("%d %d %g\n" % (math.log2(fs), math.log2(rs), v)
                                for (fs, rs), v in sorted(c.items()) if v > 0) + "\n\n")
        fss = sorted({k[0] for _n, c in panels for k in c})
        rss = sorted({k[1] for _n, c in panels for k in c})
        lo, hi = min(vals), max(vals)
        hi = hi if hi > lo else lo * 2
        cols = min(len(panels), 3)
        rows = (len(panels) + cols - 1) // cols
        title = "IOzone %s: kB/s by file size and record size" % test
        lines = ["datafile = %s" % gq(name + ".dat"), "chart_title = %s" % gq(title),
                 "width = %d\nheight = %d" % (cols * 460, rows * 380 + 40),
                 "npanels = %d\nncols = %d" % (len(panels), cols),
                 "array pnames = [%s]" % ", ".join(gq(n) for n, _c in panels),
                 "cbmin = %g\ncbmax = %g" % (lo, hi),
                 "set xtics (%s)" % ", ".join("%s %d" % (chartlib.gtic(size_label(x)), math.log2(x)) for x in fss),
                 "set ytics (%s)" % ", ".join("%s %d" % (chartlib.gtic(size_label(x)), math.log2(x)) for x in rss),
                 "set xrange [%g:%g]" % (math.log2(fss[0]) - 0.5, math.log2(fss[-1]) + 0.5),
                 "set yrange [%g:%g]" % (math.log2(rss[0]) - 0.5, math.log2(rss[-1]) + 0.5)]
        self.r.instance(name, "micro_heat.gp", lines)
        self.r.charts.append(dict(name=name, kind="heat", title=title, scale="", unit="", table=None,
                                  caption="A panel per host/variant (%s), every panel on one logarithmic colour "
                                  "scale and the same axes; median over trials." % "; ".join(n for n, _c in panels)))

    # ---- PostMark -------------------------------------------------------------

    def postmark(self):
        configs = []
        for v in self.vs:
            configs += [c for c in postmark_configs(v) if c not in configs]
        specs = []
        for c in configs:
            files, trans = c[1:].split(".t")
            for field, what in POSTMARK_FIELDS:
                got = chartlib.bar_rows(self.r.layout, "postmark", "%s.%s" % (c, field))
                if got:
                    specs.append(("postmark-%s-%s" % (c.replace(".", "-"), field.replace("_", "-")), "%s.%s" % (c, field),
                                  "PostMark %s files, %s transactions: %s" % (files, trans, what),
                                  "postmark/" + field) + got)
        for s in specs:
            self.r.scales[s[3]] = max(self.r.scales.get(s[3], 0), max(r[3] for r in s[4]))
        for name, metric, title, group, rows, table, unit in specs:
            self.r.bar_chart(name, "postmark", metric, title, group, rows, table, unit)


    # ---- discovery ------------------------------------------------------------

    def discover(self):
        for test, what in DISCOVER_TESTS:
            series = [(n, self.color(i), discover_points(v, test)) for i, (v, n) in enumerate(zip(self.vs, self.names))]
            ys = [p[1] for s in series for p in s[2] if p[1] > 0]
            if not ys:
                continue
            # A logarithmic scale: the first write of a file costs ten times the rest.
            self.lines("discover-" + test, "fsdisco %s: fastest latency of each offset" % test,
                       "offset (kB)", "microseconds", series, max(ys), None,
                       "%s. The fastest of the iterations at each offset, first trial, a line per host/variant, "
                       "logarithmic scale; the discovered values are in the discovery table." % what,
                       ["set logscale y", "set yrange [%g:%g]" % (min(ys) / 1.5, max(ys) * 1.5), "set ytics auto",
                        "set bars 0"])


DISCOVER_TESTS = [("block", "512 B O_SYNC writes to a new file: the slow ones cross block boundaries"),
                  ("pointers", "Whole-block O_SYNC writes: the step up is the first indirect block"),
                  ("readahead", "A page at a time, backward: the fast pages past the first read were read ahead"),
                  ("cache", "Backward, then forward: slow from where the cache ends")]


def discover_points(v, test):
    """[(offset kB, min us, min us, min us)] of the first trial's raw file."""
    trials = sorted({t for p, t, _m, _v, _u in v.records if p == "discover"})
    for t in trials:
        d = resultslib.inside(v.path, "raw", "discover-%d" % t)
        path = os.path.join(d or "", test + ".tsv")
        if not d or not os.path.lexists(path):
            continue
        pts = []
        try:
            with resultslib.open_input(path) as f:
                for line in f:
                    c = line.rstrip("\r\n").split("\t")
                    off, lo = (resultslib.num(x) for x in (c + ["", ""])[:2])
                    if off is not None and lo is not None:
                        pts.append((off / 1024, lo, lo, lo))
        except resultslib.Error as e:
            resultslib.warn("%s, ignored" % e)
        return pts
    return []


def render(renderer):
    MicroCharts(renderer).render()
