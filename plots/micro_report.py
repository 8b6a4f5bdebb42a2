"""The report's tables of the micro-benchmark phases (docs/micro.md,
"Micro-benchmarks"): Iometer per access specification and outstanding
I/Os, IOzone at the line charts' record size, PostMark per configuration,
and discovery as the discovered value beside the system's own figure.
Medians over trials.  report.py puts html(runs) and markdown(runs) in."""
import html
import re

from micro_charts import (IOZONE_TESTS, iometer_specs, iozone_cells, iozone_record, ordered, postmark_configs,
                          size_label)
from resultslib import fmt_value, stats, trials_heading

IOMETER_COLUMNS = [("iops", "IOPS", "IO/s"), ("mbps", "MB/s", "MB/s"), ("lat_mean_ms", "mean ms", "ms"),
                   ("lat_p99_ms", "p99 ms", "ms"), ("cpu_pct", "CPU %", "%"), ("errors", "errors", "count")]
POSTMARK_COLUMNS = [("tps", "transactions/s"), ("created_per_s", "created/s"), ("read_per_s", "read/s"),
                    ("appended_per_s", "appended/s"), ("deleted_per_s", "deleted/s"), ("read_kBps", "read kB/s"),
                    ("written_kBps", "written kB/s"), ("transaction_s", "transactions s"), ("wall_s", "wall s")]
# (what, discovered metric, the system's figure, agreement, unit)
DISCOVER_ITEMS = [("block size", "block_B", "block_truth_B", "block_agree", "B"),
                  ("direct block pointers", "direct_pointers", "direct_truth", "direct_agree", ""),
                  ("read-ahead", "readahead_kB", "readahead_truth_kB", "readahead_agree", "kB"),
                  ("page cache for one file", "cache_MB", "cache_truth_MB", "cache_agree", "MB")]
AGREE = {1: "yes", 0: "NO", -1: "n/a"}


def med(v, phase, metric, unit=""):
    n, m, _lo, _hi = stats(v.values(phase, metric))
    return fmt_value(m, unit) if n else "-"


def label(v, multi):
    return "%s%s / %s" % (v.run + " / " if multi else "", v.host, v.name)


def iometer_table(vs, multi):
    head = ["host / variant", "access spec", "outstanding I/Os", "trials"] + [t for _m, t, _u in IOMETER_COLUMNS]
    rows = []
    for v in vs:
        for spec, qds in sorted(iometer_specs(v).items()):
            for qd in qds:
                p = "%s.qd%d." % (spec, qd)
                rows.append([label(v, multi), spec, str(qd), str(len(v.values("iometer", p + "iops")))]
                            + [med(v, "iometer", p + m, u) for m, _t, u in IOMETER_COLUMNS])
    return head, rows


def iozone_table(vs, multi):
    cells = [iozone_cells(v) for v in vs]
    rec = iozone_record(cells)
    sizes = sorted({fs for c in cells for t in c.values() for fs, rs in t if rs == rec})
    head = ["host / variant", "test"] + ["%s file" % size_label(s) for s in sizes]
    rows = []
    for v, c in zip(vs, cells):
        for t in ordered(c, IOZONE_TESTS):
            rows.append([label(v, multi), t] + [fmt_value(c[t][(fs, rec)], "kB/s") if (fs, rec) in c[t] else "-"
                                                for fs in sizes])
    return head, rows, rec


def iozone_tput_table(vs, multi):
    """IOzone's throughput mode (-t): <test>.t<N>.fs<K>k.rs<K>k.kBps."""
    head = ["host / variant", "test", "children", "file", "record", "trials", "kB/s (children summed)"]
    rows = []
    for v in vs:
        found = []
        for p, _t, m, _v, _u in v.records:
            g = re.match(r"^([a-z]+)\.t(\d+)\.fs(\d+)k\.rs(\d+)k\.kBps$", m)
            if p == "iozone" and g and m not in [f[0] for f in found]:
                found.append((m, g))
        for m, g in found:
            rows.append([label(v, multi), g.group(1), g.group(2), size_label(int(g.group(3))),
                         size_label(int(g.group(4))), str(len(v.values("iozone", m))), med(v, "iozone", m, "kB/s")])
    return head, rows


def postmark_table(vs, multi):
    head = ["host / variant", "files", "transactions", "trials"] + [t for _m, t in POSTMARK_COLUMNS]
    rows = []
    for v in vs:
        for c in postmark_configs(v):
            files, trans = c[1:].split(".t")
            rows.append([label(v, multi), files, trans, str(len(v.values("postmark", c + ".tps")))]
                        + [med(v, "postmark", "%s.%s" % (c, m), "s" if m in ("transaction_s", "wall_s") else "")
                           for m, _t in POSTMARK_COLUMNS])
    return head, rows


def discover_table(vs, multi):
    head = ["host / variant", "what", "discovered", "the system says", "agree (each trial)"]
    rows = []
    for v in vs:
        items = list(DISCOVER_ITEMS)
        for m in sorted({m for p, _t, m, _v, _u in v.records if p == "discover"}):
            g = re.match(r"^prime(\d+)k\.readahead_kB$", m)
            if g:
                k = int(g.group(1))
                items.append(("read-ahead after a %s priming read" % size_label(k), m,
                              "prime%dk.readahead_truth_kB" % k, "prime%dk.readahead_agree" % k, "kB"))
        for what, found, truth, agree, unit in items:
            if not v.values("discover", found) and not v.values("discover", agree):
                continue
            ag = ", ".join(AGREE.get(int(a), str(a)) for a in v.values("discover", agree)) or "-"
            rows.append([label(v, multi), what, with_unit(med(v, "discover", found), unit),
                         with_unit(med(v, "discover", truth), unit), ag])
    return head, rows


def with_unit(text, unit):
    return text if text == "-" or not unit else "%s %s" % (text, unit)


def sections(runs):
    """[(id, title, head, rows, note)] of the micro phases that have rows."""
    vs = [v for r in runs for v in r.variants]
    multi = len(runs) > 1
    out = []
    medians = trials_heading(vs, "medians")
    medians = medians[0].upper() + medians[1:]
    head, rows = iometer_table(vs, multi)
    out.append(("micro-iometer", "Iometer (fio): per access specification and outstanding I/Os", head, rows,
                medians + ". Latency from submission to completion; CPU % is the busy share of every "
                "CPU of the host during the test (Iometer's CPU utilisation). Reply sizes (network workers "
                "only) are not run: icf2fio reports them as unsupported."))
    head, rows, rec = iozone_table(vs, multi)
    # runs from before the engine record were all the emulation
    engines = sorted({val for v in vs for p, _t, m, val, _u in v.records if p == "iozone" and m == "engine"})
    engine = " and ".join("IOzone itself" if e == "iozone" else "emulated with fio and stdiorw"
                          for e in engines or ["emulated"])
    out.append(("micro-iozone", "IOzone (%s): kB/s at %s records" % (engine, size_label(rec) if rec else "-"),
                head, rows,
                medians + "; kB (1024 B) per second over the time in the I/O calls (with "
                "IOZONE_FLUSH=1 the final fsync of each write test counts too). Every record size is in the "
                "heat maps; IOZONE_REC=<kB> chooses the record size of this table and the line charts."))
    head, rows = iozone_tput_table(vs, multi)
    out.append(("micro-iozone-tput", "IOzone throughput mode (IOZONE_THREADS, iozone -t)", head, rows,
                "Each child on its own file; the children's rates, each over its own time in the I/O calls, "
                "summed as IOzone's 'Children see throughput'."))
    head, rows = postmark_table(vs, multi)
    out.append(("micro-postmark", "PostMark: per configuration", head, rows,
                medians + "; PostMark's own times count whole seconds, wall s is ours."))
    head, rows = discover_table(vs, multi)
    out.append(("micro-discover", "Filesystem discovery (fsdisco): discovered against the system's figure",
                head, rows, "agree: yes, NO, or n/a where the system states nothing comparable (e.g. no direct "
                "pointers on an extent-mapped filesystem)."))
    return [s for s in out if s[3]]


def e(s):
    return html.escape(str(s), quote=True)


def html_sections(runs):
    h = []
    for sid, title, head, rows, note in sections(runs):
        h.append("<h2 id=\"%s\">%s</h2>" % (e(sid), e(title)))
        h.append("<div class=\"scroll\"><table id=\"%s-table\"><tr>%s</tr>" % (e(sid), "".join("<th>%s</th>" % e(c) for c in head)))
        for r in rows:
            h.append("<tr class=\"micro\">%s</tr>" % "".join(
                "<td%s>%s</td>" % ("" if i < 2 else " class=\"n\"", e(c)) for i, c in enumerate(r)))
        h.append("</table></div><p>%s</p>" % e(note))
    return h


def markdown_sections(runs):
    md = []
    for _sid, title, head, rows, note in sections(runs):
        md += ["", title + ":", "", "| %s |" % " | ".join(head), "|" + " --- |" * len(head)]
        md += ["| %s |" % " | ".join(str(c).replace("|", "\\|") for c in r) for r in rows]
        md += ["", note]
    return md
