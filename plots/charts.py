"""Chart data and gnuplot instances: for every chart the data file (.dat), the
table behind it (.tsv) and a small generated gnuplot script (.gp) that sets
the chart's own values (title, ranges, tics, labels) and loads one of the
drawing templates in plots/ (hbars.gp, pairs.gp, series.gp); the helpers
they share with the micro-benchmarks' charts are in chartlib.py."""
import math
import re

import micro_charts
import ranking
from chartlib import Layout, axis, bar_rows, gdat, gq, gtic, instance, noise_note, out_path, stem, title_lines, write_dat, \
    write_table
from resultslib import NOISE_MIN, cold_phase, figure, fmt_value, memory_fs, rates, series_table



def with_cpu_cards(specs):
    """SPECS with a second card after each serve and net phase's: the
    server's CPU per request (server_cpu_us), which a hypervisor's steal
    does not reach where it slows the rate
    (docs/results.md#the-servers-cpu-per-request), not in the overall
    standing (ranking.SECOND_FIGURES); cold, warm and net each on a scale
    of their own, and a process per connection's (ten times the cost)."""
    out = []
    for name, phase, metric, title, group in specs:
        out.append((name, phase, metric, title, group))
        if phase.startswith(("serve-", "net-")):
            out.append((name + "-cpu", phase, "server_cpu_us",
                        "%s: the server's CPU per request (us, lower is better; steal not counted)"
                        % title.rpartition(" (")[0], "cpu-fork" if phase.endswith("-fork") else "cpu-" + group))
    return out


# (chart name, phase, metric, title, scale group): a title's last
# parenthesis (the unit, which way is better) is the chart's second line.
BAR_CHARTS = with_cpu_cards([
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
])
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
# A phase without a chart above: its metric in words.
METRIC_WORDS = {"wall_s": "time, lower is better", "rps": "requests/s, higher is better",
                "mbps": "MB/s, higher is better", "iops": "I/Os per second, higher is better",
                "tps": "transactions per second, higher is better"}
# ... and a phase's name in words where the name alone says little.
PHASE_WORDS = {"flush": "flush: the page cache written back and emptied between phases (FLUSH)"}
# gnuplot's 12 pt title: about 8 pixels a character
TITLE_PX = 8


def pattern_spec(phase, layout):
    """The chart spec of PHASE from PATTERN_CHARTS (None: no pattern, or no
    variant has that metric)."""
    for pattern, metric, title, group in PATTERN_CHARTS:
        m = re.match(pattern, phase)
        if m and any(v.values(phase, metric) for _x, v in layout.slots):
            return (phase, phase, metric, title.format(*m.groups()).replace(" 1 server processes", " 1 server process"), group)
    return None


def steady_note(members, variants):
    """What a pair chart's panel of MEMBERS ((phase, metric, legend)) adds
    to its title: " (steady window)" when every bar drawn (a member some of
    VARIANTS has) is a steady_ metric, " (steady window: 1 process)" naming
    those that are when only some are."""
    drawn = [(m, legend) for p, m, legend in members if any(v.values(p, m) for v in variants)]
    steady = [legend for m, legend in drawn if m.startswith("steady_")]
    if not steady:
        return ""
    return " (steady window)" if len(steady) == len(drawn) else " (steady window: %s)" % ", ".join(steady)


# A memory filesystem's line is on a chart's scale up to this many times
# its bars' highest (past it the bars would shrink to nothing: a title line
# gives its figure instead); each line's label gets this much of a row above the bars.
REF_IN_SCALE = 2.0
REF_ROW = 0.55


def ref_lines(refs, top, bottom):
    """The gnuplot lines of hbars.gp's reference lines REFS [(x, name,
    figure text, colour)]: a dashed vertical line at x across the bars (from
    BOTTOM, the y axis's end, to the top), its name and figure above them
    (right of the line, left of it in the right part of the chart), and its
    key entry; TOP the x axis's end."""
    # gnuplot reads an array of a loop that runs no time too: one placeholder then
    ours = refs or [(0, "", "", "#000000")]
    out = ["nrefs = %d" % len(refs), "array ref_x = [%s]" % ", ".join("%g" % x for x, _n, _f, _c in ours),
           "array ref_y = [%g, %g]" % (bottom, 0.4 - REF_ROW * len(refs)),
           "array ref_colors = [%s]" % ", ".join(gq(c) for _x, _n, _f, c in ours),
           "array ref_keys = [%s]" % ", ".join(gq("%s: in memory, a reference" % n if refs else "") for _x, n, _f, _c in ours)]
    for i, (x, name, fig, color) in enumerate(refs, 1):
        side = "left offset 0.5, 0" if x < 0.6 * top else "right offset -0.5, 0"
        out.append("set label %s at %g, first %g %s font \",9\" tc rgb %s front" % (
            gq("%s %s" % (name, fig)), x, 0.4 - REF_ROW * (i - 0.5), side, gq(color)))
    return out


def at_levels(slots, rows, table, ranked, unit):
    """(ROWS, TABLE) of bar_rows for SLOTS, each variant that RANKED (a
    ranking.rank) compared in rounds at its level in them, the figure its
    card shows (its whisker still its trials' range)."""
    level = {id(e.v): e.med for e in (ranked["entries"] if ranked else []) if e.level is not None}
    if not level:
        return rows, table
    rows = [r[:1] + (level[id(v)],) + r[2:6] + (fmt_value(level[id(v)], unit),) + r[7:] if id(v) in level else r
            for v, r in zip(slots, rows)]
    table = [(v, n, level.get(id(v), med), lo, hi) for v, n, med, lo, hi in table]
    return rows, table


def bar_specs(layout):
    """[(chart name, phase, metric, title, scale group)] of the bar charts
    of LAYOUT's variants: BAR_CHARTS, then their other phases
    (PATTERN_CHARTS, else a GENERIC_METRICS one), micro-benchmarks aside."""
    slots = [v for _x, v in layout.slots]
    # the phase's headline: the steady window's rate where a replay measured one
    specs = [(n, p, ranking.headline(slots, p, m), ranking.headline_title(t, ranking.headline(slots, p, m)), g)
             for n, p, m, t, g in BAR_CHARTS]
    known = {s[1] for s in specs}
    phases = []
    for v in slots:
        phases += [p for p in v.phases() if p not in phases and p not in known and p not in micro_charts.MICRO_PHASES]
    for p in phases:
        pat = pattern_spec(p, layout)
        if pat:
            specs.append(pat)
            continue
        for m in GENERIC_METRICS:
            if any(v.values(p, m) for v in slots):
                specs.append((p if m in ("wall_s", "rps") else p + "-" + m, p, m,
                              "%s (%s)" % (PHASE_WORDS.get(p, p), METRIC_WORDS[m]), p + "/" + m))
                break
    return specs


def rankings(runs):
    """{(phase, metric): ranking} of every bar chart's phase of RUNS, in one
    pass and corrected together (ranking.rank_all): what the charts, the
    cards and summary.md all show of a report."""
    layout = Layout(runs)
    return ranking.rank_all([v for _x, v in layout.slots], [(p, m) for _n, p, m, _t, _g in bar_specs(layout)])


class Renderer:
    def __init__(self, runs, out, ranked=None):
        """RANKED: the report's rankings (rankings()), made here when not given."""
        self.runs, self.out = runs, out
        self.layout = Layout(runs)
        self.ranked = rankings(runs) if ranked is None else ranked
        self.charts = []  # dicts: name kind title scale table unit

    def instance(self, name, template, lines):
        instance(self.out, name, template, lines)

    def render_all(self):
        specs = []
        for name, phase, metric, title, group in bar_specs(self.layout):
            got = bar_rows(self.layout, phase, metric)
            if got:
                specs.append((name, phase, metric, title, group) + got)
        # Each chart on a scale of its own data; a scale group given one here
        # (the micro-benchmarks' PostMark) shares it.
        self.scales = {}
        for name, phase, metric, title, group, rows, table, unit in specs:
            self.bar_chart(name, phase, metric, title, group, rows, table, unit)
        for pair in PAIR_CHARTS:
            self.pair_chart(*pair)
        self.series_charts()
        micro_charts.render(self)
        return self.charts

    def bar_chart(self, name, phase, metric, title, group, rows, table, unit):
        """Horizontal bars sorted by result, the best on top, each with its
        figure and its difference from the best (ranking.py); the variants
        without a figure (n/a, not flushable) below them; a filesystem in
        memory a labelled line at its figure (the memory ceiling, a
        reference), a bar only when no other is ranked."""
        name = stem(name)
        slots = [v for _x, v in self.layout.slots]
        got = self.ranked.get((phase, metric))
        rows, table = at_levels(slots, rows, table, got, unit)
        noise, rows = noise_note(rows)
        row_of = {id(v): r for v, r in zip(slots, rows)}
        order = [e.v for e in got["entries"]] if got else []
        marks = {id(e.v): ranking.mark(e, got, say_cannot_tell=False) for e in got["entries"]} if got else {}
        refs = got["reference"] if got and got["entries"] else []
        if got and not refs:
            marks.update({id(e.v): "in memory: a reference" for e in got["reference"]})
            order += [e.v for e in got["reference"]]
        order += [v for v in slots if v not in order and v not in [e.v for e in refs]]
        # one host: the variant's name; several: "run / host / variant" and
        # its host group's second line (OS, and kernel with several OSes)
        one = len({(v.run, v.host) for v in slots}) == 1
        group_of = {}
        for x0, x1, glabel in self.layout.groups:
            for x, v in self.layout.slots:
                if x0 <= x <= x1:
                    group_of[id(v)] = glabel.split("\n", 1)

        def name_of(v):
            g = group_of[id(v)]
            return v.name if one else "%s / %s%s" % (g[0], v.name, "\n" + g[1] if len(g) > 1 else "")
        out = []
        for y, v in enumerate(order, 1):
            r = row_of[id(v)]
            value = r[6] + ("  " + marks[id(v)] if id(v) in marks else "")
            out.append((y, r[1], r[2], r[3], r[4], name_of(v), value, r[7], r[8]))
        write_dat(out_path(self.out, name + ".dat"), out)
        write_table(out_path(self.out, name + ".tsv"), unit, table)
        bars = max([r[3] for r in out] + [r[1] for r in out])
        lines_at = [(e, row_of[id(e.v)][1]) for e in refs]
        top, tics, xlabel = axis(self.scales.get(group) or max(
            [bars] + [x for _e, x in lines_at if x <= REF_IN_SCALE * bars]), unit, 1.35)
        drawn = [(e, x) for e, x in lines_at if x <= top]
        off = ["%s %s" % (name_of(e.v).replace("\n", " "), fmt_value(x, unit)) for e, x in lines_at if x > top]
        tlines = title_lines(title) + ([noise] if noise else []) + (
            ["in memory, a reference off this scale: " + ", ".join(off)] if off else [])
        width = max(900, TITLE_PX * max(len(t) for t in tlines) + 80)
        # the filesystems' legend: those drawn as bars (a reference's is its line's)
        barred = {v.fs for v in order}
        lines = ["datafile = %s" % gq(name + ".dat"), "chart_title = %s" % gq("\n".join(tlines)),
                 "xlabel_text = %s" % gq(xlabel), "noise_min = %d" % NOISE_MIN,
                 "width = %d\nheight = %d" % (width, 120 + 20 * len(tlines) + 34 * len(out) + 19 * len(drawn)),
                 "array fs_names = [%s]" % ", ".join(gq(f if f in barred else "") for f in self.layout.fs),
                 "array fs_colors = [%s]" % ", ".join(gq(self.layout.color(f)) for f in self.layout.fs),
                 "has_notes = %d" % any(r[8] for r in out),
                 "set xrange [0:%g]" % top, "set xtics %s" % tics,
                 "set yrange [%g:%g]" % (len(out) + 0.6, 0.4 - REF_ROW * len(drawn))] + ref_lines(
                     [(x, name_of(e.v).replace("\n", " "), fmt_value(x, unit), self.layout.color(e.v.fs))
                      for e, x in drawn], top, len(out) + 0.6)
        self.instance(name, "hbars.gp", lines)
        self.charts.append(dict(name=name, kind="bars", title=title, scale=group, unit=unit,
                                phase=phase, metric=metric, table=table, noise=noise))

    def pair_chart(self, name, title, panels):
        setups, files, table, used, notes = [], [], [], [], []
        # each bar the phase's headline, as its own chart and card have it:
        # the steady window's rate where a replay measured one (the panel says so)
        slots = [v for _x, v in self.layout.slots]
        panels = [(ptitle, group, [(p, ranking.headline(slots, p, m), legend) for p, m, legend in members])
                  for ptitle, group, members in panels]
        panels = [(ptitle + steady_note(members, slots), group, members) for ptitle, group, members in panels]
        if name in NEED_BOTH:
            for j in range(len(panels[0][2])):
                if not any(v.values(members[j][0], members[j][1]) for _t, _g, members in panels
                           for _x, v in self.layout.slots):
                    return
        # filesystems in memory: a line a member at their figure (the memory
        # ceiling, a reference), bars only in a run of nothing else
        layout = Layout(self.runs, keep=lambda v: not memory_fs(v))
        layout = layout if layout.slots else self.layout
        mem = [v for _x, v in self.layout.slots if layout is not self.layout and memory_fs(v)]
        hosts = len({(v.run, v.host) for v in slots}) > 1
        got_panels = []
        for i, (ptitle, group, members) in enumerate(panels):
            prow, unit, refs = [], "", []
            step = 0.76 / len(members)  # two members: -0.19 and +0.19
            for j, (phase, metric, legend) in enumerate(members):
                got = bar_rows(layout, phase, metric, shift=-0.38 + step * (j + 0.5), color=j + 1)
                if got:
                    got = at_levels([v for _x, v in layout.slots], *got[:2], self.ranked.get((phase, metric)),
                                    got[2]) + (got[2],)
                    prow += got[0]
                    unit = unit or got[2]
                    table += [(phase,) + t for t in got[1]]
                for v in mem if not cold_phase(phase) else []:
                    n, fig, _lo, _hi = figure(v.values(phase, metric))
                    if n:
                        refs.append((fig, "%s%s" % ("%s / " % v.host if hosts else "", v.name), legend, j))
            if prow:
                got_panels.append((i, ptitle, members, prow, unit, refs))
        # The panels of a chart are there to be compared: one scale for all.
        vmax = max([max(r[3], r[1]) for p in got_panels for r in p[3]] + [0])
        vmax = max([vmax] + [f for p in got_panels for f, _n, _l, _j in p[5] if f <= REF_IN_SCALE * vmax])
        for i, ptitle, members, prow, unit, refs in got_panels:
            note, prow = noise_note(prow)
            notes += [note] if note and note not in notes else []
            fn = "%s-%d.dat" % (name, i + 1)
            write_dat(out_path(self.out, fn), sorted(prow))
            top, tics, ylabel = axis(vmax, unit)
            cmds = ["set title %s font \",10\"" % gq(ptitle), "set ylabel %s" % gq(ylabel),
                    "set yrange [0:%g]" % top, "set ytics %s" % tics,
                    "set xrange [0.3:%g]" % layout.xmax, "set bmargin 5.5",
                    "set xtics (%s)" % ", ".join("%s %g" % (gtic(v.name), x) for x, v in layout.slots)]
            cmds += layout.host_labels()
            cmds.append("has_notes = %d" % any(r[8] for r in prow))
            for fig, rname, legend, j in refs:
                if fig > top:
                    off = "in memory, a reference off this scale: %s %s %s" % (rname, legend, fmt_value(fig, unit))
                    notes += [off] if off not in notes else []
                    continue
                color = gq(PAIR_COLORS[j])
                cmds += ["set arrow from graph 0, first %g to graph 1, first %g nohead front lw 2 dt 2 lc rgb %s"
                         % (fig, fig, color),
                         "set label %s at graph 1, first %g right offset -0.5, 0.6 boxed font \",8\" tc rgb %s front"
                         % (gq("%s %s" % (rname, fmt_value(fig, unit))), fig, color)]
            cmds.append("has_refs = %d" % any(f <= top for f, _n, _l, _j in refs))
            setups.append("; ".join(cmds))
            files.append(fn)
            used.append(members)
        if not files:
            return
        legends = [m[2] for m in used[0]]
        lines = ["chart_title = %s" % gq("\n".join([title] + notes)), "noise_min = %d" % NOISE_MIN,
                 "box_width = %g" % (0.72 / len(legends)),
                 "width = %d\nheight = 560" % max(len(files) * max(560, 90 * len(layout.slots) + 120),
                                                   TITLE_PX * max(len(t) for t in [title] + notes) + 80),
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
        name = stem("series-" + phase)
        files, titles, py1, py2 = [], [], [], []
        for i, (v, trial, (cols, rows)) in enumerate(panels):
            fn = "%s-%d.dat" % (name, i + 1)
            with open(out_path(self.out, fn), "w", encoding="utf-8") as f:
                f.write(" ".join(gdat(c) for c in SERIES_HEADER) + "\n")
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
