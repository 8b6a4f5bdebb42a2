"""The kernel profiles of a run (docs/profile.md): per phase, a flame graph of
every variant (drawn by inferno, the Rust port of FlameGraph, built by `make
deps`), the top kernel functions by self and by children share (LKP style),
and each variant against a baseline: differential flame graphs both ways and
the functions whose share changed most, in percentage points.

Input: profiles/PHASE-TRIAL.folded of each results/<run>/<host>/<variant>/
(docs/formats.md): folded stacks, "ROOT;OUTERMOST;...;INNERMOST COUNT", kernel
frames ending in _[k].  A share is of all the samples of the phase (every
CPU's wall time: idle is a root of its own), so shares of variants add up
the same way."""
import html
import os
import re
import shutil
import subprocess
from collections import defaultdict

import stats
import tdist
from resultslib import Error, brief, open_input, side_pairs, warn

KERNEL = "_[k]"
TOP = 15  # rows of each table
PLOTSDIR = os.path.dirname(os.path.abspath(__file__))
INFERNO_DIR = os.path.join(os.path.dirname(PLOTSDIR), "build", "inferno", "bin")
WHAT = ("Shares are of all the samples of the phase: every CPU, %s times a second, kernel and user, idle "
        "included (a root 'idle'), so they are shares of the phase's wall time on all CPUs. 'self' is the "
        "share of the samples in a kernel function itself, 'children' in it or in what it called. A flame "
        "graph's width is the share; a frame's colour says nothing. A differential flame graph has the shape "
        "of one side and is coloured by the change of each frame's share (normalised by the sample counts, "
        "so what grew is red and what shrank blue); the one 'base shape' has the shape of the baseline, so "
        "what vanished shows there. A change is 'significant' when Welch's t-test of the trials' shares "
        "finds the means different at 95%%, which takes %d trials on each side; otherwise it is not "
        "significant, and with one trial on a side the run cannot tell.")


class FoldedError(Exception):
    pass


COUNT = re.compile(r"[0-9]{1,18}")


def parse_folded(lines, where="folded"):
    """{stack: count} of folded lines; a line that is not STACK COUNT raises."""
    out = defaultdict(int)
    for i, line in enumerate(lines, 1):
        line = line.rstrip("\n")
        if not line:
            continue
        stack, sep, count = line.rpartition(" ")
        if not sep or not stack or not COUNT.fullmatch(count):
            raise FoldedError("%s:%d: not 'STACK COUNT' (COUNT a whole number of up to 18 digits): %s"
                              % (where, i, brief(line)))
        out[stack] += int(count)
    return dict(out)


def read_folded(path):
    try:
        with open_input(path) as f:
            return parse_folded(f, path)
    except Error as e:
        raise FoldedError(str(e)) from e


def merge(profiles):
    out = defaultdict(int)
    for p in profiles:
        for s, c in p.items():
            out[s] += c
    return dict(out)


def shares(stacks):
    """(samples, {function: self share %}, {function: children share %}) of
    the kernel functions of STACKS."""
    total = sum(stacks.values())
    selfc, childc = defaultdict(int), defaultdict(int)
    for s, c in stacks.items():
        frames = s.split(";")
        if frames[-1].endswith(KERNEL):
            selfc[frames[-1][:-len(KERNEL)]] += c
        for f in {f for f in frames[1:] if f.endswith(KERNEL)}:
            childc[f[:-len(KERNEL)]] += c
    pct = (lambda d: {k: 100.0 * v / total for k, v in d.items()}) if total else (lambda d: {})
    return total, pct(selfc), pct(childc)


def variant_profiles(v):
    """{phase: {trial: path}} of variant V's folded profiles."""
    return {phase: dict(files) for phase, files in v.trial_files("profiles", ".folded").items()}


class Side:
    """The trials of one phase of one variant: per trial, and merged."""

    def __init__(self, v, paths):
        self.v = v
        self.trials = []
        for t in sorted(paths):
            try:
                self.trials.append(read_folded(paths[t]))
            except (OSError, FoldedError) as e:
                warn("%s, ignored" % e)
        self.merged = merge(self.trials)
        self.samples, self.self_pct, self.child_pct = shares(self.merged)
        per = [shares(t) for t in self.trials]
        self.per_trial = {"self": [p[1] for p in per], "children": [p[2] for p in per]}


def inferno(tool):
    """The path of an inferno program, or None."""
    p = os.path.join(os.environ.get("INFERNO_BIN", INFERNO_DIR), tool)
    return p if os.access(p, os.X_OK) else shutil.which(tool)


def write_folded(stacks, path):
    with open(path, "w", encoding="utf-8") as f:
        for s in sorted(stacks):
            f.write("%s %d\n" % (s, stacks[s]))


def flamegraph(folded_text, svg, title, negate=False):
    """Draw FOLDED_TEXT into SVG; False when inferno is not there or fails."""
    fg = inferno("inferno-flamegraph")
    if not fg or not folded_text.strip():
        return False
    cmd = [fg, "--title", title, "--countname", "samples", "--minwidth", "0.05"] + (["--negate"] if negate else [])
    r = subprocess.run(cmd, input=folded_text, capture_output=True, text=True, check=False)
    if r.returncode != 0:
        warn("inferno-flamegraph (%s): %s" % (title, (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[-1]))
        return False
    with open(svg, "w", encoding="utf-8") as f:
        f.write(r.stdout)
    return True


def diff_folded(base_path, new_path):
    """inferno-diff-folded --normalize BASE NEW: "STACK BASE_COUNT NEW_COUNT"
    lines (NEW's shape, BASE scaled to NEW's samples), or None."""
    df = inferno("inferno-diff-folded")
    if not df:
        return None
    r = subprocess.run([df, "--normalize", base_path, new_path], capture_output=True, text=True, check=False)
    return r.stdout if r.returncode == 0 else None


def changes(base, new, kind):
    """Rows (function, base %, new %, change in points, base range, new
    range, verdict) of the kernel functions whose KIND share (self or
    children) changed, largest change first; none when nothing changed."""
    b_all, n_all = (base.self_pct, new.self_pct) if kind == "self" else (base.child_pct, new.child_pct)
    rows = []
    for fn in set(b_all) | set(n_all):
        d = n_all.get(fn, 0.0) - b_all.get(fn, 0.0)
        if abs(d) < 1e-9:
            continue
        bt = [t.get(fn, 0.0) for t in base.per_trial[kind]]
        nt = [t.get(fn, 0.0) for t in new.per_trial[kind]]
        few = min(len(bt), len(nt))
        if few < stats.TEST_MIN:
            flag = "%s: %d trial" % (stats.CANNOT_TELL, few)
        else:
            p = tdist.welch_p(bt, nt)
            if p is None:
                raise Error("the profiles' comparison needs scipy: apt-get install python3-scipy "
                            "(harness/deps.sh install plots)")
            flag = stats.SIGNIFICANT if p < 1 - stats.CONF else stats.NOT_SIGNIFICANT
        rows.append((fn, b_all.get(fn, 0.0), n_all.get(fn, 0.0), d, (min(bt), max(bt)), (min(nt), max(nt)), flag))
    rows.sort(key=lambda r: (-abs(r[3]), r[0]))
    return rows[:TOP]


def e(s):
    return html.escape(str(s), quote=True)


def slug(*parts):
    return "-".join("".join(c if c.isalnum() or c in "._+" else "_" for c in p) for p in parts)


def label(v, multi):
    return "%s%s / %s" % (v.run + " / " if multi else "", v.host, v.name)


def top_table(sides, kind, multi):
    """Rows: the union of each side's top functions by KIND share; a column
    of that share per side."""
    key = "self_pct" if kind == "self" else "child_pct"
    fns = []
    for s in sides:
        for fn, _p in sorted(getattr(s, key).items(), key=lambda kv: (-kv[1], kv[0]))[:TOP]:
            if fn not in fns:
                fns.append(fn)
    fns.sort(key=lambda fn: -max(getattr(s, key).get(fn, 0.0) for s in sides))
    h = ["<table><caption>top kernel functions by %s share</caption><tr><th>function</th>%s</tr>"
         % (kind, "".join("<th>%s</th>" % e(label(s.v, multi)) for s in sides))]
    for fn in fns[:TOP]:
        h.append("<tr><td><code>%s</code></td>%s</tr>" % (e(fn), "".join(
            "<td class=\"n\">%.2f%%</td>" % getattr(s, key).get(fn, 0.0) for s in sides)))
    h.append("</table>")
    return h


def change_table(base, new, multi):
    h = []
    for kind in ("children", "self"):
        rows = changes(base, new, kind)
        h.append("<table><caption>%s share: largest changes, %s against %s</caption>"
                 % (kind, e(label(new.v, multi)), e(label(base.v, multi))))
        if not rows:
            h.append("<tr><td>no kernel function's share changed</td></tr></table>")
            continue
        h.append("<tr><th>function</th><th>base</th><th>new</th><th>change</th><th>base trials</th>"
                 "<th>new trials</th><th>verdict</th></tr>")
        for fn, b, n, d, br, nr, flag in rows:
            h.append("<tr class=\"%s\"><td><code>%s</code></td><td class=\"n\">%.2f%%</td><td class=\"n\">%.2f%%</td>"
                     "<td class=\"n\">%+.2f pp</td><td class=\"n\">%.2f-%.2f%%</td><td class=\"n\">%.2f-%.2f%%</td>"
                     "<td>%s</td></tr>" % ("real" if flag == stats.SIGNIFICANT else "noise", e(fn), b, n, d,
                                          br[0], br[1], nr[0], nr[1], e(flag)))
        h.append("</table>")
    return h


# No page shows more than PAGE_IMAGES flame graphs as images (a browser
# draws every one of an SVG's frames: 56 real ones took 8 s to load, 1,652
# did not load in 5 minutes, loading="lazy" or not).  All of them on
# profile.html when they are that few; else a page a phase
# (profiles/phase-PHASE.html: its graphs as images when they are that few,
# else as links to the SVGs), profile.html keeping each phase's samples, top
# tables and the link (docs/profile.md).
PAGE_IMAGES = 30
SVG_SIZE = re.compile(r'<svg\b[^>]*?\bwidth="(\d+)"[^>]*?\bheight="(\d+)"')


class Page:
    """profile.html, its SVGs and phase pages (in OUT/profiles/).  WHERE:
    the SVGs from the page being written ("profiles/" from profile.html);
    SHOW: its graphs are images, else links."""

    def __init__(self, out):
        self.out = out
        self.dir = os.path.join(out, "profiles")
        os.makedirs(self.dir, exist_ok=True)
        self.drawn = 0
        self.where, self.show = "profiles/", True

    def svg(self, name, folded_text, title, negate=False):
        """(file name in profiles/, width, height) of the flame graph drawn, or None."""
        path = os.path.join(self.dir, name + ".svg")
        if not flamegraph(folded_text, path, title, negate):
            return None
        self.drawn += 1
        with open(path, encoding="utf-8", errors="replace") as f:
            size = SVG_SIZE.search(f.read(4096))
        return (name + ".svg",) + (size.groups() if size else ("1200", "600"))

    def figure(self, drawn, caption):
        """A flame graph DRAWN (Page.svg): an image, or a link."""
        if not drawn:
            return "<p><small>%s: no flame graph (%s)</small></p>" % (
                e(caption), "inferno is not built: make deps" if not inferno("inferno-flamegraph") else "no samples")
        href = self.where + drawn[0]
        if not self.show:
            return "<p><a href=\"%s\">%s</a> (SVG, interactive)</p>" % (e(href), e(caption))
        return ("<figure><a href=\"%s\"><img src=\"%s\" alt=\"%s\" width=\"%s\" height=\"%s\" loading=\"lazy\"></a>"
                "<figcaption>%s (<a href=\"%s\">SVG</a>, interactive)</figcaption></figure>"
                % (e(href), e(href), e(caption), drawn[1], drawn[2], e(caption), e(href)))

    def diff(self, base, new, phase, multi):
        """Both differential flame graphs of NEW against BASE, and the table."""
        h = ["<h4>%s against %s</h4>" % (e(label(new.v, multi)), e(label(base.v, multi)))]
        bp, np_ = os.path.join(self.dir, "base.tmp"), os.path.join(self.dir, "new.tmp")
        write_folded(base.merged, bp)
        write_folded(new.merged, np_)
        name = slug(phase, new.v.run, new.v.host, new.v.name, "vs", base.v.run, base.v.host, base.v.name)
        fwd, back = diff_folded(bp, np_), diff_folded(np_, bp)
        for os_path in (bp, np_):
            os.unlink(os_path)
        h.append(self.figure(fwd and self.svg(name + "-new", fwd, "%s: %s, coloured by the change from %s" % (
            phase, label(new.v, multi), label(base.v, multi))), "new shape: red grew, blue shrank"))
        h.append(self.figure(back and self.svg(name + "-base", back, "%s: %s (base shape), coloured by the change to %s"
                                               % (phase, label(base.v, multi), label(new.v, multi)), negate=True),
                             "base shape: blue is what shrank or vanished"))
        h += change_table(base, new, multi)
        return h


def graphs_of(sides, pairs):
    """The flame graphs of a phase: each side's and two per difference."""
    return len(sides) + 2 * len(pairs)


def phase_body(page, phase, sides, pairs, multi):
    """A phase's flame graphs, top tables and differences."""
    h = []
    for s in sides:
        folded = "".join("%s %d\n" % (k, s.merged[k]) for k in sorted(s.merged))
        h.append(page.figure(page.svg(slug(phase, s.v.run, s.v.host, s.v.name), folded, "%s: %s" % (
            phase, label(s.v, multi))), "%s, %s" % (phase, label(s.v, multi))))
    h += top_tables(sides, multi)
    if pairs:
        h.append("<h3>Differences</h3>")
    for base, new in pairs:
        h += page.diff(base, new, phase, multi)
    return h


def top_tables(sides, multi):
    return (["<div class=\"scroll\">"] + top_table(sides, "children", multi) + top_table(sides, "self", multi)
            + ["</div>"])


def phase_sections(page, groups, pairs_of, multi, title):
    """GROUPS: {phase: [Side...]}; PAIRS_OF(phase, sides): [(base, new)].
    profile.html's lines; the phase pages, when there are too many graphs
    for one, written."""
    pairs = {phase: pairs_of(phase, groups[phase]) for phase in groups}
    one_page = sum(graphs_of(groups[p], pairs[p]) for p in groups) <= PAGE_IMAGES
    h = []
    for phase in sorted(groups):
        sides = groups[phase]
        h.append("<h2 id=\"%s\">%s</h2>" % (e(slug("profile", phase)), e(phase)))
        said = "<p>%s</p>" % e("; ".join("%s: %d samples, %d trial%s" % (
            label(s.v, multi), s.samples, len(s.trials), "" if len(s.trials) == 1 else "s") for s in sides))
        h.append(said)
        graphs = graphs_of(sides, pairs[phase])
        if one_page:
            h += phase_body(page, phase, sides, pairs[phase], multi)
            continue
        name = slug("phase", phase) + ".html"
        page.where, page.show = "", graphs <= PAGE_IMAGES
        write_html(os.path.join(page.dir, name), "%s: %s" % (title, phase),
                   ["<p><a href=\"../profile.html\">All phases</a></p>", said]
                   + phase_body(page, phase, sides, pairs[phase], multi))
        h.append("<p><a href=\"profiles/%s\">The %d flame graphs of %s: each variant's and the differences "
                 "against the baseline, on a page of its own</a>%s</p>" % (
                     e(name), graphs, e(phase), "" if page.show else " (as links: too many to show at once)"))
        h += top_tables(sides, multi)
    return h


def status_lines(variants, multi):
    """What meta.json says of each variant's profile."""
    return ["<li>%s: %s</li>" % (e(label(v, multi)), e(v.meta.get("profile") or "no profile recorded (a run from "
                                                       "before the profiles, or no phase ran)")) for v in variants]


CSS = ("body{font-family:sans-serif;max-width:1200px;margin:1em auto;padding:0 1em}table{border-collapse:collapse;"
       "margin:.5em 0 1em;font-size:90%}th,td{border:1px solid #ccc;padding:2px 6px}td.n{text-align:right}"
       "caption{text-align:left;font-weight:bold}tr.noise{color:#777}.scroll{overflow-x:auto;max-width:100%}"
       "img{max-width:100%;height:auto;border:1px solid #eee}")


def write_html(path, title, lines):
    with open(path, "w", encoding="utf-8") as f:
        f.write("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>%s</title><style>%s</style>"
                "</head><body><h1>%s</h1>\n" % (e(title), CSS, e(title)))
        f.write("\n".join(x for x in lines if x) + "\n</body></html>\n")


def write_page(out, title, variants, groups, pairs_of, multi, intro=""):
    page = Page(out)
    h = [intro, "<p>%s</p>" % e(WHAT % ("99", stats.TEST_MIN)), "<ul>"] + status_lines(variants, multi) + ["</ul>"]
    if not groups:
        h.append("<p>No phase has a profile.</p>")
    h += phase_sections(page, groups, pairs_of, multi, title)
    write_html(os.path.join(out, "profile.html"), title, h)
    return page.drawn


def groups_of(variants):
    groups = defaultdict(list)
    for v in variants:
        for phase, paths in variant_profiles(v).items():
            s = Side(v, paths)
            if s.samples:
                groups[phase].append(s)
    return dict(groups)


def baseline_pairs(phase, sides):
    """Each side against the baseline: BASELINE (a variant name, or
    HOST/VARIANT) or the first variant."""
    want = os.environ.get("BASELINE", "")
    base = next((s for s in sides if want in (s.v.name, "%s/%s" % (s.v.host, s.v.name))), None) if want else None
    if want and base is None:
        return []
    base = base or sides[0]
    return [(base, s) for s in sides if s is not base]


def report_section(runs, out):
    """profile.html for the report, and the report's lines that link it."""
    variants = [v for r in runs for v in r.variants]
    multi = len(runs) > 1
    groups = groups_of(variants)
    want = os.environ.get("BASELINE", "")
    intro = ""
    if want and groups and not any(want in (s.v.name, "%s/%s" % (s.v.host, s.v.name))
                                   for sides in groups.values() for s in sides):
        intro = "<p>BASELINE=%s names no variant with a profile: no differences drawn.</p>" % e(want)
    drawn = write_page(out, "Kernel profiles: %s" % ", ".join(r.name for r in runs), variants, groups,
                       baseline_pairs, multi, intro)
    on = [label(v, multi) for v in variants if str(v.meta.get("profile", "")).split(" ")[0] not in ("", "off", "absent:")]
    off = [label(v, multi) for v in variants if label(v, multi) not in on]
    if not on:
        said = ("The figures were measured without the kernel profile (PROFILE=0, the default: make bench could "
                "not show that it moves the figures by under 3%; PROFILE=1 profiles each phase).")
    else:
        said = "The figures of %s were measured with the kernel profile on (%s)%s." % (
            e(", ".join(on)), e(PROFILE_TOOL_NOTE), ", those of %s without it" % e(", ".join(off)) if off else "")
        if any(v.meta.get("profile_rounds") for v in variants):
            said += (" In the serve and network rounds only the first round(s) of each figure were sampled "
                     "(PROFILE_ROUNDS), the rounds after measured without the sampler.")
    return ["<h2 id=\"profile\">Kernel profiles</h2>",
            "<p>%s <a href=\"profile.html\">Flame graphs, top kernel functions and the differences against the "
            "baseline, per phase</a> (%d phase%s, %d flame graphs).</p>" % (
                said, len(groups), "" if len(groups) == 1 else "s", drawn)]


PROFILE_TOOL_NOTE = "stacks of every CPU at 99 Hz"


def compare_section(base, new, out):
    """profile.html of make compare (BASE against NEW, variants paired as
    compare.py pairs them), and the line of compare.html that links it."""
    bg, ng = groups_of(base.variants), groups_of(new.variants)
    partner = {id(b): id(n) for b, n in side_pairs(base, new)}
    groups, pairs = {}, {}
    for phase in sorted(set(bg) & set(ng)):
        nk = {id(s.v): s for s in ng[phase]}
        pp = [(b, nk[partner[id(b.v)]]) for b in bg[phase] if partner.get(id(b.v)) in nk]
        if pp:
            groups[phase] = [x for p in pp for x in p]
            pairs[phase] = pp
    drawn = write_page(out, "Kernel profiles: %s (base) vs %s (new)" % (base.name, new.name),
                       base.variants + new.variants, groups, lambda phase, _sides: pairs[phase], True)
    return "<p><a href=\"profile.html\">Kernel profiles: differential flame graphs and the functions whose share " \
           "changed most, per phase</a> (%d phase%s, %d flame graphs).</p>\n" % (
               len(groups), "" if len(groups) == 1 else "s", drawn)
