"""Latency distributions of every phase (docs/latency.md): the block
device's per-request latency and queue depth (the block tracer's log2
histograms) and httpd's per-request open and first-byte times (its --stats
histograms), from each variant's latency/PHASE-TRIAL.tsv
(docs/formats.md#latency), drawn as CDFs: one chart per phase and
histogram, every variant on one scale, the cold replay solid and the warm
one dashed.  The report's one call: html_section(runs, out)."""
import html
import os
import re

from chartlib import PALETTE, gq, instance, out_path, stem
from resultslib import BadLines, Error, brief, open_input, warn

# (hist, title, x-axis label, scale of the x values)
KINDS = [("blk_ns", "block device: per-request latency", "latency (µs, log2 buckets)", 1e-3),
         ("blk_qd", "block device: requests in flight at each issue", "queue depth", 1.0),
         ("httpd_open_ns", "httpd: open + fstat of the requested file", "time (µs, log2 buckets)", 1e-3),
         ("httpd_ttfb_ns", "httpd: request to its first byte written", "time (µs, log2 buckets)", 1e-3)]


# A bucket's lower bound and count: ASCII whole numbers within 64 bits.
BUCKET = re.compile(r"-?[0-9]{1,20}")


def read_hist(path):
    """{(hist, key): {lo: count}} of one latency file; a bad line is skipped
    with one warning (naming the first), an unreadable file is none."""
    out = {}
    bad = BadLines(path)
    try:
        with open_input(path) as f:
            for n, line in enumerate(f, 1):
                if line.startswith("#") or not line.strip():
                    continue
                p = line.rstrip("\r\n").split("\t")
                if len(p) != 4:
                    bad.add(n, "%d fields, not 4 (hist key lo count)" % len(p))
                    continue
                lo = int(p[2]) if BUCKET.fullmatch(p[2]) else None
                c = int(p[3]) if BUCKET.fullmatch(p[3]) else None
                if lo is None or c is None or not -2 ** 63 <= lo < 2 ** 64 or not 0 <= c < 2 ** 63:
                    bad.add(n, "bucket %s count %s are not whole numbers of 64 bits" % (brief(p[2]), brief(p[3])))
                    continue
                h = out.setdefault((p[0], p[1]), {})
                h[lo] = h.get(lo, 0) + c
    except Error as e:
        warn("%s, ignored" % e)
        return {}
    bad.report()
    return out


def variant_hists(v):
    """{record: {hist: {lo: count}}} of a variant, summed over trials and
    keys (the traced device; DTrace: every disk)."""
    out = {}
    for rec, files in v.trial_files("latency", ".tsv").items():
        for _trial, path in files:
            for (hist, _key), h in read_hist(path).items():
                acc = out.setdefault(rec, {}).setdefault(hist, {})
                for lo, c in h.items():
                    acc[lo] = acc.get(lo, 0) + c
    return out


def cdf(h, scale):
    """[(x, fraction)]: the fraction of requests below each bucket's upper
    bound (2 lo; 1 for the bucket of 0), negatives dropped."""
    pts = sorted((lo, c) for lo, c in h.items() if lo >= 0 and c > 0)
    total = sum(c for _lo, c in pts)
    if not total:
        return []
    out, acc = [], 0
    first = max(pts[0][0], 1)
    out.append((first * scale, 0.0))
    for lo, c in pts:
        acc += c
        out.append(((2 * lo if lo else 1) * scale, acc / total))
    return out


def phase_of(rec):
    """The chart a record belongs to and its line style: serve-cold-1 and
    serve-warm-1 share serve-1 (cold solid, warm dashed)."""
    m = re.match(r"^(.*?)-(cold|warm)(-.*)?$", rec)
    if m:
        return m.group(1) + (m.group(3) or ""), m.group(2)
    return rec, ""


def each_hist(runs):
    """(phase, hist, label, variant index, kind, {lo: count}, scale) of
    every histogram of every variant, in the variants' order: what the
    charts draw and the summary's table tells (kind: cold, warm or empty;
    scale: KINDS')."""
    vs = [v for r in runs for v in r.variants]
    multi = len(runs) > 1
    for i, v in enumerate(vs):
        lab = "%s%s / %s" % (v.run + " / " if multi else "", v.host, v.name)
        for rec, hists in sorted(variant_hists(v).items()):
            phase, kind = phase_of(rec)
            for hist, _t, _x, scale in KINDS:
                if hists.get(hist):
                    yield phase, hist, lab, i, kind, hists[hist], scale


def series(runs):
    """{(phase, hist): [(label, colour index, warm, points)]}."""
    out = {}
    for phase, hist, lab, i, kind, h, scale in each_hist(runs):
        pts = cdf(h, scale)
        if pts:
            out.setdefault((phase, hist), []).append((lab + (" " + kind if kind else ""), i, kind == "warm", pts))
    return out


def percentile(h, q):
    """The upper bound of the log2 bucket the q-quantile (0 < q <= 1) of h
    falls in (2 lo; 1 for the bucket of 0), as the CDF draws it; negatives
    dropped; None when h counts nothing."""
    pts = sorted((lo, c) for lo, c in h.items() if lo >= 0 and c > 0)
    total = sum(c for _lo, c in pts)
    acc = 0
    for lo, c in pts:
        acc += c
        if acc >= q * total:
            return 2 * lo if lo else 1
    return None


# The summary's histograms: (hist, what, unit, scale).
MD_KINDS = [("blk_ns", "block request", "µs", 1e-3), ("httpd_open_ns", "httpd open + fstat", "µs", 1e-3),
            ("httpd_ttfb_ns", "httpd first byte", "µs", 1e-3)]


def markdown_section(runs):
    """summary.md's latency table: per phase and variant (cold and warm
    apart), the requests each histogram counts and their p50, p90 and p99,
    from the same histograms as the CDF charts, then the absent notes (as
    the HTML's): [Markdown lines]."""
    rows = []
    for phase, hist, lab, _i, kind, h, _scale in each_hist(runs):
        k = next((k for k, m in enumerate(MD_KINDS) if m[0] == hist), None)
        n = sum(c for lo, c in h.items() if lo >= 0)
        if k is None or not n:
            continue
        _hist, what, unit, scale = MD_KINDS[k]
        ps = ["< %s %s" % (fmt_bound(percentile(h, q) * scale), unit) for q in (0.5, 0.9, 0.99)]
        rows.append(((phase, k), "| %s | %s | %s | %d | %s |" % (
            phase, lab.replace("|", "\\|") + (" " + kind if kind else ""), what, n, " | ".join(ps))))
    notes = ["- " + n for n in absent_notes(runs)]
    if not rows and not notes:
        return []
    if not rows:
        return ["", "Latency distributions (docs/latency.md): none in these runs.", ""] + notes
    md = ["", "Latency distributions (docs/latency.md): per phase and variant, the requests each log2 histogram "
          "counts and its percentiles, each the upper bound of the bucket it falls in (so at most twice the "
          "true value), as the report's CDF charts draw them:", "",
          "| phase | host / variant | what | requests | p50 | p90 | p99 |",
          "| --- | --- | --- | ---: | ---: | ---: | ---: |"]
    return md + [r for _k, r in sorted(rows, key=lambda kr: kr[0])] + ([""] + notes if notes else [])


def fmt_bound(x):
    """A bucket bound in µs: 3 significant digits, no exponent."""
    return "%.3g" % x if x < 1000 else "%.0f" % x


def chart(out, phase, hist, lines):
    """One CDF chart: NAME.dat, NAME.gp, NAME.png and NAME.svg in OUT."""
    title, xlabel = next((t, x) for h, t, x, _s in KINDS if h == hist)
    name = stem("latency-%s-%s" % (phase, hist))
    with open(out_path(out, name + ".dat"), "w", encoding="utf-8") as f:
        f.write("# x fraction_below; one block per line of the chart\n")
        for _lab, _ci, _warm, pts in lines:
            f.write("".join("%.6g %.6f\n" % p for p in pts) + "\n\n")
    spec = ["datafile = %s" % gq(name + ".dat"), "chart_title = %s" % gq("%s: %s" % (phase, title)),
            "x_label = %s" % gq(xlabel), "width = 900\nheight = 520", "n = %d" % len(lines),
            "array line_titles = [%s]" % ", ".join(gq(l[0]) for l in lines),
            "array line_colors = [%s]" % ", ".join(gq(PALETTE[l[1] % len(PALETTE)]) for l in lines),
            "array line_dash = [%s]" % ", ".join("2" if l[2] else "1" for l in lines)]
    instance(out, name, "latency.gp", spec)
    return name, "%s: %s" % (phase, title)


def fork_served(v):
    """Whether the variant has a serve-*-fork record that served requests."""
    return any(re.match(r"^serve-(cold|warm)-fork(-|$)", p) and m == "requests" for p, _t, m, _v, _u in v.records)


def absent_notes(runs):
    """One line per variant and histogram its meta.json says it has not:
    no block trace (blklat_absent), no httpd histograms of the fork serve
    mode (forklat off) though it has fork records."""
    out = []
    for r in runs:
        for v in r.variants:
            why = v.meta.get("blklat_absent")
            if why:
                out.append("%s / %s: no block-latency histogram: %s" % (v.host, v.name, why))
            if v.meta.get("forklat") == "off" and fork_served(v):
                out.append("%s / %s: no httpd histograms of the fork serve mode: FORKLAT=0" % (v.host, v.name))
    return out


def html_section(runs, out):
    """The report's section "Latency distributions": [HTML lines]."""
    e = html.escape
    h = ["<h2 id=\"latency\">Latency distributions</h2>",
         "<p>Per phase, the share of requests (y) that took at most a time (x): the block device's requests "
         "from issue to completion and the requests in flight at each issue (traced while the phase ran, "
         "BLKLAT=1), and httpd's own time to open and fstat each requested file and from taking a request "
         "to its first byte written (its --stats; the fork mode's only with FORKLAT=1). Log2 buckets, so each step is a factor of two; cold "
         "replays solid, warm ones dashed. docs/latency.md says how they are taken.</p>"]
    h += ["<p class=\"note\">%s</p>" % e(n) for n in absent_notes(runs)]
    drawn = 0
    for (phase, hist), lines in sorted(series(runs).items(), key=lambda kv: (kv[0][0], [k[0] for k in KINDS].index(kv[0][1]))):
        name, title = chart(out, phase, hist, lines)
        if not os.path.exists(os.path.join(out, name + ".png")):
            continue
        drawn += 1
        h.append("<h3 id=\"%s\">%s</h3>" % (e(name), e(title)))
        h.append("<figure><a href=\"%s.svg\"><img src=\"%s.png\" alt=\"%s\"></a><figcaption>CDF, %d lines "
                 "(<a href=\"%s.svg\">SVG</a>, gnuplot script <a href=\"%s.gp\">%s.gp</a>)</figcaption></figure>"
                 % (e(name), e(name), e(title), len(lines), e(name), e(name), e(name)))
    if not drawn:
        h.append("<p>No latency histograms in these runs.</p>")
    return h
