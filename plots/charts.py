"""Chart data and gnuplot instances: for every chart the data file (.dat), the
table behind it (.tsv) and a small generated gnuplot script (.gp) that sets
the chart's own values (title, ranges, tics, labels) and loads one of the
drawing templates in plots/ (bars.gp, pairs.gp, series.gp)."""
import math
import os
import re
import subprocess

import micro_charts
from resultslib import (NOISE_MIN, NOT_FLUSHABLE, Error, cold_phase, fmt_value, memory_fs, noise_label, os_key,
                        os_label, rates, run_oses, series_table, stats, trial_count)

PLOTSDIR = os.path.dirname(os.path.abspath(__file__))
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9",
           "#8C6D31", "#999999", "#332288", "#AA4499", "#117733", "#882255"]

# (chart name, phase, metric, title, scale group): charts of one scale group
# share their vertical scale.
BAR_CHARTS = [
    ("untar", "untar", "wall_s", "untar: download, gunzip and untar of the first tarball (time, lower is better)", "untar"),
    ("untar2", "untar2", "wall_s", "untar2: second tarball on top, files in request order (time, lower is better)", "untar"),
    ("untar-sync", "untar", "sync_s", "sync after untar (time, lower is better)", "sync"),
    ("untar2-sync", "untar2", "sync_s", "sync after untar2 (time, lower is better)", "sync"),
    ("serve-cold-1", "serve-cold-1", "rps", "serve, cold cache, 1 server process (requests/s, higher is better)", "cold"),
    ("serve-cold-32", "serve-cold-32", "rps", "serve, cold cache, 32 server processes (requests/s, higher is better)", "cold"),
    ("serve-warm-1", "serve-warm-1", "rps", "serve, warm cache, 1 server process (requests/s, higher is better)", "warm"),
    ("serve-warm-32", "serve-warm-32", "rps", "serve, warm cache, 32 server processes (requests/s, higher is better)", "warm"),
    ("serve-cold-fork", "serve-cold-fork", "rps", "serve, cold cache, a process per connection (tcpserver, httpd -1) (requests/s, higher is better)", "cold"),
    ("serve-warm-fork", "serve-warm-fork", "rps", "serve, warm cache, a process per connection (tcpserver, httpd -1) (requests/s, higher is better)", "warm"),
    ("net-1", "net-1", "mbps", "network: one 11 KB file over and over, 1 server process (MB/s, higher is better)", "net"),
    ("net-4", "net-4", "mbps", "network: one 11 KB file over and over, 4 server processes (MB/s, higher is better)", "net"),
    ("net-1-v6", "net-1-v6", "mbps", "network over IPv6: one 11 KB file over and over, 1 server process (MB/s, higher is better)", "net"),
    ("net-4-v6", "net-4-v6", "mbps", "network over IPv6: one 11 KB file over and over, 4 server processes (MB/s, higher is better)", "net"),
    ("preload-dirs", "preload-dirs", "wall_s", "preload: find -type d over the cold tree, directories into the cache (time, lower is better)", "preload"),
    ("delete", "delete", "wall_s", "delete every file (time, lower is better)", "delete"),
]
# Phases without a chart of their own above: those whose name matches a
# pattern here get its metric, title and scale group (serve at another
# REPLAY_CONC, serve after preloading, net with other NET_PROCS) ...
PATTERN_CHARTS = [
    (r"^serve-cold-(\d+)-c(\d+)$", "rps", "serve, cold cache, {0} server processes, {1} connections (requests/s, higher is better)", "cold"),
    (r"^serve-warm-(\d+)-c(\d+)$", "rps", "serve, warm cache, {0} server processes, {1} connections (requests/s, higher is better)", "warm"),
    (r"^serve-cold-fork-c(\d+)$", "rps", "serve, cold cache, a process per connection, {0} connections (requests/s, higher is better)", "cold"),
    (r"^serve-warm-fork-c(\d+)$", "rps", "serve, warm cache, a process per connection, {0} connections (requests/s, higher is better)", "warm"),
    (r"^serve-dirwarm-(\d+)$", "rps", "serve, cold cache with the directories preloaded, {0} server processes (requests/s, higher is better)", "cold"),
    (r"^serve-cold-(\d+)$", "rps", "serve, cold cache, {0} server processes (requests/s, higher is better)", "cold"),
    (r"^serve-warm-(\d+)$", "rps", "serve, warm cache, {0} server processes (requests/s, higher is better)", "warm"),
    (r"^net-(\d+)-v6$", "mbps", "network over IPv6: one 11 KB file over and over, {0} server processes (MB/s, higher is better)", "net"),
    (r"^net-(\d+)$", "mbps", "network: one 11 KB file over and over, {0} server processes (MB/s, higher is better)", "net"),
]
# ... the others one of their first metric found in this list.
GENERIC_METRICS = ["wall_s", "rps", "mbps", "iops", "tps"]
# (chart name, title, [(panel title, scale group, [(phase, metric, legend)])])
PAIR_CHARTS = [
    ("serve-cold-vs-warm", "serve: cold cache | warm cache, 1 | 32 server processes (requests/s)",
     [("cold cache", "cold", [("serve-cold-1", "rps", "1 process"), ("serve-cold-32", "rps", "32 processes")]),
      ("warm cache", "warm", [("serve-warm-1", "rps", "1 process"), ("serve-warm-32", "rps", "32 processes")])]),
    ("net-1-vs-4", "network: 1 | 4 server processes (MB/s)",
     [("one 11 KB file, 50 connections", "net", [("net-1", "mbps", "1 process"), ("net-4", "mbps", "4 processes")])]),
    ("net-v4-vs-v6", "network: IPv4 | IPv6, 1 | 4 server processes (MB/s)",
     [("1 server process", "net", [("net-1", "mbps", "IPv4"), ("net-1-v6", "mbps", "IPv6")]),
      ("4 server processes", "net", [("net-4", "mbps", "IPv4"), ("net-4-v6", "mbps", "IPv6")])]),
    ("serve-cold-vs-dirwarm", "serve, cold cache: as flushed | directories preloaded, 1 server process (requests/s)",
     [("cold cache, 1 process", "cold", [("serve-cold-1", "rps", "as flushed"),
                                         ("serve-dirwarm-1", "rps", "directories preloaded")])]),
    ("serve-procs-vs-fork", "serve: 1 | 32 server processes | a process per connection (tcpserver), cold | warm cache (requests/s)",
     [("cold cache", "cold", [("serve-cold-1", "rps", "1 process"), ("serve-cold-32", "rps", "32 processes"),
                              ("serve-cold-fork", "rps", "a process per connection")]),
      ("warm cache", "warm", [("serve-warm-1", "rps", "1 process"), ("serve-warm-32", "rps", "32 processes"),
                              ("serve-warm-fork", "rps", "a process per connection")])]),
]
# Pair charts drawn only when each of their legends has data (a run without
# IPv6, without preloading or without the fork server would draw the same
# bars as another chart).
NEED_BOTH = {"net-v4-vs-v6", "serve-cold-vs-dirwarm", "serve-procs-vs-fork"}
PAIR_COLORS = ["#56B4E9", "#0072B2", "#D55E00"]
UNIT_LABEL = {"s": "seconds", "req/s": "requests per second", "MB/s": "MB per second"}


def gq(s):
    """A gnuplot double-quoted string literal."""
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def nice_step(span, want=6):
    raw = span / want
    mag = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if raw <= m * mag:
            return m * mag
    return 10 * mag


def time_step(span, want=6):
    raw = span / want
    for s in (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1200, 1800, 3600, 7200, 10800, 21600):
        if raw <= s:
            return s
    return nice_step(span, want)


def clock(sec):
    sec = int(round(sec))
    h, m, s = sec // 3600, sec % 3600 // 60, sec % 60
    return "%d:%02d:%02d" % (h, m, s) if h else "%d:%02d" % (m, s)


def axis(vmax, unit, headroom=1.12):
    """(max, tics command, axis label) of an axis from 0 that holds vmax with
    headroom; times (unit s) get min:s tic labels from 15 seconds on."""
    vmax = max(vmax * headroom, 1e-9)
    if unit == "s" and vmax >= 300:
        step = time_step(vmax)
        top = math.ceil(vmax / step - 1e-9) * step
        tics = ", ".join("%s %g" % (gq(clock(t)), t) for t in range(0, int(top) + 1, int(step)))
        return top, "(%s)" % tics, "time (h:min:s)" if top >= 3600 else "time (min:s)"
    step = nice_step(vmax)
    top = math.ceil(vmax / step - 1e-9) * step
    return top, "0, %g" % step, UNIT_LABEL.get(unit, unit)


def run_gnuplot(out, name):
    """gnuplot NAME.gp in OUT; any output on stderr (a warning) is an error."""
    try:
        p = subprocess.run(["gnuplot", name + ".gp"], cwd=out, capture_output=True, text=True, check=False)
    except OSError as e:
        raise Error("cannot run gnuplot: %s (apt-get install gnuplot-nox)" % e) from e
    err = p.stderr.strip()
    if p.returncode or err:
        raise Error("gnuplot %s.gp failed: %s" % (os.path.join(out, name),
                                                   err.splitlines()[-1] if err else "exit %d" % p.returncode))


class Layout:
    """The bars of every chart: hosts (of every run) as groups, their
    variants as bars, one colour per filesystem."""

    def __init__(self, runs):
        self.slots = []  # (x, variant)
        self.groups = []  # (x from, x to, label)
        multi = len(runs) > 1
        x = 0.0
        for run in runs:
            hosts = []
            for v in run.variants:
                if v.host not in hosts:
                    hosts.append(v.host)
            # Several OSes (the VM lab's LAB_OS): the guests of one OS side
            # by side, each group labelled with its OS and kernel.
            oses = run_oses(run)
            by_os = len(oses) > 1
            if by_os:
                first = {}
                for v in run.variants:
                    first.setdefault(v.host, os_key(v.meta))
                hosts.sort(key=lambda h: oses.index(first[h]) if first[h] in oses else len(oses))
            for host in hosts:
                vs = [v for v in run.variants if v.host == host]
                x0 = x + 1
                for v in vs:
                    x += 1
                    self.slots.append((x, v))
                m = vs[0].meta
                sub = " ".join(str(m.get(k, "")) for k in ("os", "os_version") if m.get(k))
                if by_os:
                    sub = os_label(m)
                label = (run.name + " / " if multi else "") + host + ("\n" + sub if sub else "")
                self.groups.append((x0, x, label))
                x += 0.8
        self.fs = []
        for _x, v in self.slots:
            if v.fs not in self.fs:
                self.fs.append(v.fs)
        self.xmax = x - 0.8 + 0.7

    def color(self, fs):
        return PALETTE[self.fs.index(fs) % len(PALETTE)]

    def host_labels(self, spread=1.0):
        out = []
        for i, (a, b, label) in enumerate(self.groups):
            out.append("set label %s at %g, graph 0 center offset 0, -2.3 font \",9\"" % (gq(label), (a + b) / 2 * spread))
            if i:
                sep = (self.groups[i - 1][1] + a) / 2 * spread
                out.append("set arrow from %g, graph 0 to %g, graph 1 nohead lc rgb \"#b0b0b0\" dt 3" % (sep, sep))
        return out


def bar_rows(layout, phase, metric, shift=0.0, color=None):
    """Data rows and the table behind them; None when nothing has data.
    A row's trials are 0 where no whisker is drawn; a memory filesystem's
    cold figure is an empty bar labelled "not flushable" (off the scale)."""
    rows, table, unit, any_data = [], [], "", False
    for x, v in layout.slots:
        vals = v.values(phase, metric)
        n, med, lo, hi = stats(vals)
        trials = trial_count(v, phase, n)
        unit = unit or v.unit(phase, metric)
        if n:
            any_data = True
        ci = color if color is not None else layout.fs.index(v.fs) + 1
        failed = sum(1 for f in v.failures if f[0] == phase)
        note = "%d failed" % failed if failed else ""
        table.append((v, trials, med, lo, hi))
        if n and memory_fs(v) and cold_phase(phase):
            rows.append((x + shift, 0, 0, 0, ci, v.name, NOT_FLUSHABLE, 0, note))
            continue
        rows.append((x + shift, med or 0, lo or 0, hi or 0, ci, v.name, fmt_value(med, unit) if n else "n/a", trials, note))
    return (rows, table, unit) if any_data else None


def noise_note(rows):
    """The chart's line on the noise of its bars (rows of bar_rows): "" when
    each has NOISE_MIN trials, "1 trial: noise unknown" when every bar has
    one; bars of fewer among others get their count in their label."""
    few = {r[7] for r in rows if 0 < r[7] < NOISE_MIN}
    if not few:
        return "", rows
    if len(few) == 1 and all(r[7] in few for r in rows if r[7]):
        return noise_label(few.pop()), rows
    out = [r[:6] + ("%s (%d trial%s)" % (r[6], r[7], "" if r[7] == 1 else "s") if 0 < r[7] < NOISE_MIN else r[6],)
           + r[7:] for r in rows]
    return "no whisker: fewer than %d trials, noise unknown" % NOISE_MIN, out


def pattern_spec(phase, layout):
    """The chart spec of PHASE from PATTERN_CHARTS (None: no pattern, or no
    variant has that metric)."""
    for pattern, metric, title, group in PATTERN_CHARTS:
        m = re.match(pattern, phase)
        if m and any(v.values(phase, metric) for _x, v in layout.slots):
            return (phase, phase, metric, title.format(*m.groups()).replace(" 1 server processes", " 1 server process"), group)
    return None


def exact(x):
    """A figure for a data file: whole numbers in full (a byte count of 10^13
    stays 10000000000000), others to ten significant digits."""
    return "%d" % x if math.isfinite(x) and abs(x) < 1e15 and x == int(x) else "%.10g" % x


def write_dat(path, rows):
    with open(path, "w", encoding="utf-8") as f:
        f.write("# x median min max colour label value_label trials failures\n")
        for r in rows:
            f.write("%g %s %s %s %d %s %s %d %s\n" % (r[0], exact(r[1]), exact(r[2]), exact(r[3]), r[4], gq(r[5]), gq(r[6]), r[7], gq(r[8])))


def write_table(path, unit, table):
    with open(path, "w", encoding="utf-8") as f:
        f.write("run\thost\tvariant\tfs\ttrials\tmedian\tmin\tmax\tunit\n")
        for v, n, med, lo, hi in table:
            f.write("%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n" % (
                v.run, v.host, v.name, v.fs, n, *("" if x is None else exact(x) for x in (med, lo, hi)), unit))


class Renderer:
    def __init__(self, runs, out):
        self.runs, self.out = runs, out
        self.layout = Layout(runs)
        self.charts = []  # dicts: name kind title scale table unit

    def instance(self, name, template, lines):
        with open(os.path.join(self.out, name + ".gp"), "w", encoding="utf-8") as f:
            f.write("# generated by plots/plots.py: the values of chart %s; the drawing is %s\n" % (name, template))
            f.write("plotsdir = %s\nbase = %s\n" % (gq(PLOTSDIR), gq(name)))
            f.write("\n".join(lines) + "\n")
            f.write("load plotsdir . %s\n" % gq("/" + template))
        run_gnuplot(self.out, name)

    def bar_specs(self):
        specs = list(BAR_CHARTS)
        known = {s[1] for s in specs}
        phases = []
        for _x, v in self.layout.slots:
            phases += [p for p in v.phases() if p not in phases and p not in known and p not in micro_charts.MICRO_PHASES]
        for p in phases:
            pat = pattern_spec(p, self.layout)
            if pat:
                specs.append(pat)
                continue
            for m in GENERIC_METRICS:
                if any(v.values(p, m) for _x, v in self.layout.slots):
                    specs.append((p if m in ("wall_s", "rps") else p + "-" + m, p, m,
                                  "%s: %s" % (p, m), p + "/" + m))
                    break
        return specs

    def render_all(self):
        specs = []
        for name, phase, metric, title, group in self.bar_specs():
            got = bar_rows(self.layout, phase, metric)
            if got:
                specs.append((name, phase, metric, title, group) + got)
        # Common scales: the highest whisker of every chart of a scale group.
        self.scales = {}
        for s in specs:
            self.scales[s[4]] = max(self.scales.get(s[4], 0), max(r[3] for r in s[5]))
        for name, phase, metric, title, group, rows, table, unit in specs:
            self.bar_chart(name, phase, metric, title, group, rows, table, unit)
        for pair in PAIR_CHARTS:
            self.pair_chart(*pair)
        self.series_charts()
        micro_charts.render(self)
        return self.charts

    def bar_chart(self, name, phase, metric, title, group, rows, table, unit):
        noise, rows = noise_note(rows)
        write_dat(os.path.join(self.out, name + ".dat"), rows)
        write_table(os.path.join(self.out, name + ".tsv"), unit, table)
        top, tics, ylabel = axis(self.scales[group], unit)
        lines = ["datafile = %s" % gq(name + ".dat"), "chart_title = %s" % gq(title + ("\n" + noise if noise else "")),
                 "ylabel_text = %s" % gq(ylabel), "noise_min = %d" % NOISE_MIN,
                 "width = %d\nheight = 520" % max(720, 80 * len(rows) + 160),
                 "array fs_names = [%s]" % ", ".join(gq(f) for f in self.layout.fs),
                 "array fs_colors = [%s]" % ", ".join(gq(self.layout.color(f)) for f in self.layout.fs),
                 "has_notes = %d" % any(r[8] for r in rows),
                 "set yrange [0:%g]" % top, "set ytics %s" % tics,
                 "set xrange [0.3:%g]" % self.layout.xmax, "set bmargin 5.5"]
        lines += self.layout.host_labels()
        self.instance(name, "bars.gp", lines)
        self.charts.append(dict(name=name, kind="bars", title=title, scale=group, unit=unit,
                                phase=phase, metric=metric, table=table, noise=noise))

    def pair_chart(self, name, title, panels):
        setups, files, table, used, notes = [], [], [], [], []
        if name in NEED_BOTH:
            for j in range(len(panels[0][2])):
                if not any(v.values(members[j][0], members[j][1]) for _t, _g, members in panels
                           for _x, v in self.layout.slots):
                    return
        for i, (ptitle, group, members) in enumerate(panels):
            prow, unit = [], ""
            step = 0.76 / len(members)  # two members: -0.19 and +0.19
            for j, (phase, metric, _legend) in enumerate(members):
                got = bar_rows(self.layout, phase, metric, shift=-0.38 + step * (j + 0.5), color=j + 1)
                if got:
                    prow += got[0]
                    unit = unit or got[2]
                    table += [(phase,) + t for t in got[1]]
            if not prow:
                continue
            note, prow = noise_note(prow)
            notes += [note] if note and note not in notes else []
            fn = "%s-%d.dat" % (name, i + 1)
            write_dat(os.path.join(self.out, fn), sorted(prow))
            top, tics, ylabel = axis(self.scales.get(group, max(r[3] for r in prow)), unit)
            cmds = ["set title %s font \",10\"" % gq(ptitle), "set ylabel %s" % gq(ylabel),
                    "set yrange [0:%g]" % top, "set ytics %s" % tics,
                    "set xrange [0.3:%g]" % self.layout.xmax, "set bmargin 5.5",
                    "set xtics (%s)" % ", ".join("%s %g" % (gq(v.name), x) for x, v in self.layout.slots)]
            cmds += self.layout.host_labels()
            cmds.append("has_notes = %d" % any(r[8] for r in prow))
            setups.append("; ".join(cmds))
            files.append(fn)
            used.append(members)
        if not files:
            return
        legends = [m[2] for m in used[0]]
        lines = ["chart_title = %s" % gq("\n".join([title] + notes)), "noise_min = %d" % NOISE_MIN,
                 "box_width = %g" % (0.72 / len(legends)),
                 "width = %d\nheight = 560" % (len(files) * max(560, 90 * len(self.layout.slots) + 120)),
                 "npanels = %d" % len(files),
                 "array pfile = [%s]" % ", ".join(gq(f) for f in files),
                 "array psetup = [%s]" % ", ".join(gq(s) for s in setups),
                 "array pair_names = [%s]" % ", ".join(gq(n) for n in legends),
                 "array pair_colors = [%s]" % ", ".join(gq(c) for c in PAIR_COLORS[:len(legends)])]
        self.instance(name, "pairs.gp", lines)
        self.charts.append(dict(name=name, kind="pairs", title=title, scale=", ".join(p[1] for p in panels),
                                unit="", table=None, noise="; ".join(notes)))

    def series_charts(self):
        phases = []
        for _x, v in self.layout.slots:
            phases += [p for p in v.series_files() if p not in phases]
        for phase in phases:
            self.series_chart(phase)

    def series_chart(self, phase):
        panels = []
        for _x, v in self.layout.slots:
            files = v.series_files().get(phase)
            if files:
                panels.append((v, files[0][0], series_columns(series_table(files[0][1]))))
        panels = [p for p in panels if p[2][1]]
        if not panels:
            return
        tmax = max(r[0] for p in panels for r in p[2][1])
        y1 = max([r[c] for p in panels for r in p[2][1] for c in (1, 2, 3) if not math.isnan(r[c])] + [1e-9])
        y2 = max([r[c] for p in panels for r in p[2][1] for c in (4, 5) if not math.isnan(r[c])] + [1e-9])
        files, titles, py1, py2 = [], [], [], []
        for i, (v, trial, (cols, rows)) in enumerate(panels):
            fn = "series-%s-%d.dat" % (phase, i + 1)
            with open(os.path.join(self.out, fn), "w", encoding="utf-8") as f:
                f.write(" ".join(gq(c) for c in SERIES_HEADER) + "\n")
                for r in rows:
                    f.write(" ".join("NaN" if math.isnan(x) else "%.10g" % x for x in r) + "\n")
            files.append(fn)
            titles.append("%s%s / %s (%s), trial %d" % (v.run + " / " if len(self.runs) > 1 else "", v.host, v.name, v.fs, trial))
            py1.append(" ".join(str(c + 1) for c in cols if c in (1, 2, 3)))
            py2.append(" ".join(str(c + 1) for c in cols if c in (4, 5)))
        ncols = 1 if len(panels) == 1 else 2
        nrows = (len(panels) + ncols - 1) // ncols
        xtop, xtics, xlabel = axis(tmax, "s", 1.0)
        y1top, y1tics, _l = axis(y1, "", 1.15)
        y2top, y2tics, _l = axis(y2, "", 1.15)
        setup = ["set xrange [0:%g]" % xtop, "set xtics %s" % xtics, "set xlabel %s font \",8\"" % gq(xlabel),
                 "set yrange [0:%g]" % y1top, "set ytics %s" % y1tics, "set ylabel \"MB/s\" font \",8\"",
                 "set y2range [0:%g]" % y2top, "set y2tics %s" % y2tics,
                 "set y2label \"Dirty, Writeback (MB)\" font \",8\" tc rgb \"#A06000\""]
        name = "series-" + phase
        title = "%s: throughput of the tool and the disk, Dirty and Writeback page cache" % phase
        # wide enough for the chart's title (12 pt, ~8 px a character) and
        # the panels' (10 pt, ~6.8 px), which a single panel would cut off
        width = max(560 * ncols, int(8 * len(title)) + 60, ncols * (int(6.8 * max(len(t) for t in titles)) + 80))
        lines = ["chart_title = %s" % gq(title),
                 "width = %d\nheight = %d" % (width, 300 * nrows + 60),
                 "npanels = %d\nrows = %d\ncols = %d" % (len(panels), nrows, ncols),
                 "setup = %s" % gq("; ".join(setup)),
                 "array pfile = [%s]" % ", ".join(gq(f) for f in files),
                 "array ptitle = [%s]" % ", ".join(gq(t) for t in titles),
                 "array py1 = [%s]" % ", ".join(gq(c) for c in py1),
                 "array py2 = [%s]" % ", ".join(gq(c) for c in py2)]
        self.instance(name, "series.gp", lines)
        self.charts.append(dict(name=name, kind="series", title=title, scale="series", unit="", table=None,
                                panels=["%s / %s trial %d" % (v.host, v.name, t) for v, t, _c in panels]))


SERIES_HEADER = ["t_s", "tool MB/s", "disk write MB/s", "disk read MB/s", "Dirty MB", "Writeback MB"]


# A series with more samples than this is drawn from as many equal time
# slices: the rates averaged over each slice, Dirty and Writeback at their
# highest in it (a run of days at one sample a second still draws in seconds).
SERIES_MAX_POINTS = 2000


def series_columns(tab, max_points=SERIES_MAX_POINTS):
    """(present columns, rows) of a series: t, tool MB/s, disk write MB/s,
    disk read MB/s, Dirty MB, Writeback MB (NaN where not sampled)."""
    cols = {}
    if "tool_bytes" in tab:
        cols[1] = rates(tab["tool_bytes"], 1e-6)
    if "sectors_written" in tab:
        cols[2] = rates(tab["sectors_written"], 512e-6)
    if "sectors_read" in tab:
        reads = rates(tab["sectors_read"], 512e-6)
        peak = max([v for c in (1, 2) for _t, v in cols.get(c, [])] + [0])
        if reads and max(v for _t, v in reads) >= 0.05 * peak:
            cols[3] = reads
    for c, m in ((4, "dirty_kb"), (5, "writeback_kb")):
        if m in tab:
            cols[c] = [(t, v * 1024e-6) for t, v in tab[m]]
    if max([len(p) for p in cols.values()] + [0]) > max_points:
        return sorted(cols), decimate(cols, max_points)
    cols = {c: dict(p) for c, p in cols.items()}
    times = sorted({t for d in cols.values() for t in d})
    rows = [[t] + [cols[c].get(t, math.nan) if c in cols else math.nan for c in range(1, 6)] for t in times]
    return sorted(cols), rows


def decimate(cols, n):
    """Rows of n equal time slices of the columns {c: [(t, v)]}: each slice's
    end time, the mean of columns 1-3 and the highest of 4-5 in it (NaN: no
    sample there)."""
    tmax = max(p[-1][0] for p in cols.values() if p)
    width = tmax / n if tmax > 0 else 1.0
    slices = {}
    for c, pts in cols.items():
        peak = c >= 4
        for t, v in pts:
            b = min(int(t / width), n - 1)
            row = slices.get(b)
            if row is None:
                row = slices[b] = [[0.0, 0] for _ in range(6)]
            cell = row[c]
            if peak:
                cell[0] = v if cell[1] == 0 else max(cell[0], v)
            else:
                cell[0] += v
            cell[1] += 1
    rows = []
    for b in sorted(slices):
        row = slices[b]
        rows.append([(b + 1) * width] + [math.nan if row[c][1] == 0 else row[c][0] if c >= 4 else row[c][0] / row[c][1]
                                         for c in range(1, 6)])
    return rows
