"""The chart helpers that plots/charts.py (the shootout's charts) and
plots/micro_charts.py (the micro-benchmarks') share: gnuplot string
literals, axes and tics, running gnuplot on a generated instance, the
hosts-and-variants layout of the bars, a bar's figures (the mean, min,
max, trials) and the .dat/.tsv files behind a chart."""
import hashlib
import math
import os
import re
import subprocess

from resultslib import NOISE_MIN, NOT_FLUSHABLE, Error, cold_phase, fmt_value, memory_fs, noise_label, os_key, \
    os_label, run_oses, figure, trial_count

PLOTSDIR = os.path.dirname(os.path.abspath(__file__))
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9",
           "#8C6D31", "#999999", "#332288", "#AA4499", "#117733", "#882255"]

# (chart name, phase, metric, title, scale group): charts of one scale group

UNIT_LABEL = {"s": "seconds", "req/s": "requests per second", "MB/s": "MB per second"}


# C0 controls but the newline, DEL: dropped from a string for gnuplot.
GP_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f]")


def gq(s):
    """S as a gnuplot string expression taken literally, whatever S holds
    (a name from a result tree): single-quoted pieces, where gnuplot
    substitutes no `command` and reads no escape, joined by "'" for a quote
    (gnuplot 5.4 misreads '' next to another quote) and "\\n" for a newline
    (a title's second line); other control characters dropped.  The
    terminals are noenhanced (common.gp): ^ _ @ { } are drawn as they are."""
    pieces = re.split(r"(['\n])", GP_CONTROL.sub("", str(s)))
    return " . ".join({"'": '"\'"', "\n": '"\\n"'}.get(p) or "'%s'" % p for p in pieces if p) or "''"


def gtic(s):
    """S as the label of a `set xtics ("label" pos, ...)` list, where gnuplot
    reads % as a format: gq with %%."""
    return gq(str(s).replace("%", "%%"))


def gdat(s):
    """S as a quoted string of a gnuplot data file (a bar's label): gnuplot
    ends it at the next " whatever stands before it, and reads backslash
    escapes there (no `command`), so \\ is \\\\, " is \\042, a newline \\n;
    other control characters dropped."""
    t = GP_CONTROL.sub("", str(s)).replace("\\", "\\\\").replace('"', "\\042").replace("\n", "\\n")
    return '"%s"' % t


# A chart's file name stem: what a name from a result tree (a phase, a
# test) may be as it is; any other name gets a hash (stem()).
STEM = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._+-]{0,99}")


def stem(name):
    """A file name stem for a chart named NAME (from a phase's name: any
    text) that stays inside the output directory and is NAME's alone: NAME
    when it is STEM (letters, digits, . _ + -, not leading . or -, up to 100),
    else its letters, digits, + and - (the rest runs of _) and a hash of NAME."""
    name = str(name)
    if STEM.fullmatch(name):
        return name
    safe = re.sub(r"[^A-Za-z0-9+-]+", "_", name).strip("_+-")[:80]
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return "%s-%s" % (safe or "_", digest)


def out_path(out, fname):
    """OUT/FNAME for a file the charts write, FNAME a stem() and an extension;
    an Error (a name that escaped stem(): a bug) rather than a path elsewhere
    (no / in FNAME, never .. or a hidden file)."""
    if not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9._+-]{0,159}\.[a-z]{1,4}", fname):
        raise Error("refusing to write %r: not a chart file name" % fname)
    return os.path.join(out, fname)


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
    # gnuplot 5.4 sizes a label of several lines with its enhanced-text
    # parser even on a noenhanced terminal, and warns of the markup it meets
    # in a name (a brace); the label is drawn as written all the same.
    err = "\n".join(line for line in p.stderr.strip().splitlines() if "warning: enhanced text" not in line)
    if p.returncode or err:
        raise Error("gnuplot %s.gp failed: %s" % (os.path.join(out, name),
                                                   err.splitlines()[-1] if err else "exit %d" % p.returncode))


class Layout:
    """The bars of every chart: hosts (of every run) as groups, their
    variants as bars, one colour per filesystem; KEEP(v), when given, picks
    the variants that get a bar (a host with none gets no group)."""

    def __init__(self, runs, keep=None):
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
                vs = [v for v in run.variants if v.host == host and (keep is None or keep(v))]
                if not vs:
                    continue
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
        n, med, lo, hi = figure(vals)  # med: the figure (the mean, or the median of skewed trials)
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


def exact(x):
    """A figure for a data file: whole numbers in full (a byte count of 10^13
    stays 10000000000000), others to ten significant digits."""
    return "%d" % x if math.isfinite(x) and abs(x) < 1e15 and x == int(x) else "%.10g" % x


def write_dat(path, rows):
    with open(path, "w", encoding="utf-8") as f:
        f.write("# x figure min max colour label value_label trials failures\n")
        for r in rows:
            f.write("%g %s %s %s %d %s %s %d %s\n" % (r[0], exact(r[1]), exact(r[2]), exact(r[3]), r[4], gdat(r[5]), gdat(r[6]), r[7], gdat(r[8])))


def write_table(path, unit, table):
    """The .tsv behind a chart; a meta.json's fs with a TAB or a newline
    in it is one field still."""
    with open(path, "w", encoding="utf-8") as f:
        f.write("run\thost\tvariant\tfs\ttrials\tfigure\tmin\tmax\tunit\n")
        for v, n, med, lo, hi in table:
            f.write("%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n" % (
                v.run, v.host, v.name, re.sub(r"\s", " ", v.fs), n,
                *("" if x is None else exact(x) for x in (med, lo, hi)), unit))


def instance(out, name, template, lines):
    """Write OUT/NAME.gp, the values of one chart (LINES) that then loads the
    drawing TEMPLATE from plots/, and run it."""
    with open(out_path(out, name + ".gp"), "w", encoding="utf-8") as f:
        f.write("# generated by plots/plots.py: the values of chart %s; the drawing is %s\n" % (name, template))
        f.write("plotsdir = %s\nbase = %s\n" % (gq(PLOTSDIR), gq(name)))
        f.write("\n".join(lines) + "\n")
        f.write("load plotsdir . %s\n" % gq("/" + template))
    run_gnuplot(out, name)


def title_lines(title):
    """A chart title as lines: what it shows, then its last parenthesis (the
    unit, which way is better) on a line of its own."""
    head, _sep, sub = title.rpartition(" (") if title.endswith(")") else (title, "", "")
    return [head] + ([sub[:-1]] if sub else [])
