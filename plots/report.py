"""The report: one HTML page (no JavaScript; figures as PNG files alongside,
each linked to its SVG) and a Markdown summary, from the charts just made.
The page is plots/report.html.j2 (jinja2): its first screen (who won, per
phase and overall, and what the systems were) from first_screen(), then the
sections, each one function's HTML (a new section: one more call in
sections())."""
import html
import os

import budget
import budget_chart
import charts
import latency
import micro_report
import kprofile
import ranking
import standings
from standings import mdc
from chartlib import PLOTSDIR
from budget import interval_text, proof, proof_text, rss_text
import stats
from resultslib import (INVALID, NOISE_MIN, NOT_FLUSHABLE, NOISY_PCT, Error, cold_phase, figure,
                        fmt_value, memory_fs, os_key, os_label, run_oses, trials_heading)

META_COLUMNS = [("os", "OS"), ("kernel", "kernel"), ("arch", "arch"), ("virt", "virt"), ("fs", "fs"),
                ("mkfs_opts", "mkfs options"), ("mount_opts", "mount options"), ("cpu", "CPU"),
                ("mem_kb", "memory"), ("device", "device"), ("dataset", "dataset"), ("flush", "flush"),
                ("replay", "replay"),
                ("tools", "tools"), ("git_commit", "commit"), ("start_time", "start")]
# (column title, phase, metric) of the summary table.
SUMMARY = [("untar", "untar", "wall_s"), ("untar sync", "untar", "sync_s"), ("untar2", "untar2", "wall_s"),
           ("untar2 sync", "untar2", "sync_s"),
           ("cold 1", "serve-cold-1", "rps"), ("cold 32", "serve-cold-32", "rps"),
           ("warm 1", "serve-warm-1", "rps"), ("warm 32", "serve-warm-32", "rps"),
           ("cold fork", "serve-cold-fork", "rps"), ("warm fork", "serve-warm-fork", "rps"),
           ("net 1", "net-1", "mbps"), ("net 4", "net-4", "mbps"), ("delete", "delete", "wall_s")]
CSS = """body{font-family:sans-serif;max-width:1360px;margin:1em auto;padding:0 1em;color:#222}
h1{font-size:1.5em;margin:.3em 0}h2{font-size:1.2em;margin:.8em 0 .4em}h3{font-size:1em;margin:0}
table{border-collapse:collapse;margin:.5em 0 1em;font-size:90%}
th,td{border:1px solid #ccc;padding:2px 6px;text-align:left;vertical-align:top}
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}th{background:#f0f0f0}
figure{margin:1em 0}img{max-width:100%;height:auto;border:1px solid #eee}
.note{background:#fff3cd;border:1px solid #e0c060;padding:.5em 1em}
.fail{color:#a00000}caption{text-align:left;font-weight:bold;padding:2px 0}
small,.small,.sub,.out{color:#555;font-size:85%}.flag{color:#a00000;font-weight:bold}
.scroll{overflow-x:auto;max-width:100%}.lead{font-size:105%}
.first{display:grid;grid-template-columns:minmax(240px,370px) 1fr;gap:0 1.5em;align-items:start}
.first>section{min-width:0}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(250px,1fr));gap:.6em}
.card{border:1px solid #d0d0d0;border-radius:4px;padding:.4em .5em;min-width:0}
.card .sub{margin:.1em 0 .3em}.card table{width:100%;margin:0;font-size:88%}
.card td{border:0;border-top:1px solid #eee;padding:1px 4px}
td.v{background-image:linear-gradient(#cfe2f3,#cfe2f3);background-repeat:no-repeat;overflow-wrap:anywhere;min-width:3.5em}
tr.best td{font-weight:bold}td.mark{color:#444;white-space:normal}td.noise{color:#888;font-style:italic}
tr.winner td{font-weight:bold}.out{margin:.2em 0 0}
table.same td{overflow-wrap:anywhere}
details summary{cursor:pointer}td details summary{list-style:none;text-decoration:underline dotted}
td details summary::-webkit-details-marker{display:none}
@media (max-width:720px){.first{grid-template-columns:1fr}body{padding:0 .5em}}"""
HOW_TO_READ = (
    "Each bar is the mean over the valid trials of one host and variant (the median where the trials are "
    "skewed: an outlier or a long tail, told from 6 trials on); from %d trials on the black whisker spans "
    "the lowest to the highest trial. A figure of fewer trials has no whisker and says '1 trial: noise "
    "unknown' (or 2): how far it would move on another run is not known. Whether two figures differ is "
    "the test's to say, not the whiskers': each difference from the best carries its 95%% confidence "
    "interval, and is marked 'not significant' when that interval holds 0 (Welch's t-test; Mann-Whitney's "
    "for skewed trials), 'cannot tell' with one trial on a side; a phase names a winner only when the best "
    "is significantly ahead of every other, and says the smallest difference its trials could have shown "
    "('this run can tell differences of 4.2%% or more': 95%% confidence, 80%% power). Trials the harness "
    "marked disturbed (other processes or the hypervisor took CPU time during them) are left out and "
    "counted, unless a variant of the phase would keep fewer than 2 undisturbed trials: then the phase "
    "keeps them for every variant, so that no variant's calm figure is set against another's disturbed "
    "one. A phase's chart has a horizontal bar per "
    "host and variant, sorted by result with the best on top and each bar's difference from the best, "
    "coloured by filesystem, on a scale fitted to that chart; the side-by-side charts (cold | warm cache, "
    "...) put their panels on one scale, to be compared. 'n/a' means no measurement, a red box counts "
    "failed trials. Times are seconds, from 100 s on minutes:seconds. "
    "The time series show, per second, the tool's throughput and the disk's writes (left axis, MB/s) "
    "with the page cache's Dirty and Writeback (shaded, right axis, MB): a tool running far ahead of "
    "the disk while Dirty fills, then stalling while it drains, is the 'pump and dump' pattern. "
    "A filesystem in memory (tmpfs, ramfs, mfs) is the memory ceiling, a reference, not ranked: a phase's "
    "chart draws it as a dashed line at its figure (the side-by-side charts: a line per bar colour), not as "
    "a bar, and names it beside each phase's ranking and in the tables; it cannot be flushed, so its "
    "cold-cache figures are warm ones, shown as 'not flushable' and left out of the cold charts' scale. "
    "A warm serve or net phase whose replay ran for a minimum time (MIN_MEASURE_S) is ranked, drawn and "
    "tabled by its steady window (steady_rps, steady_mbps: its column and card say 'steady'); the method's "
    "first pass over the request list stays a figure of its own in the serve and network table."
    % NOISE_MIN)
PROOF = (
    "Beside each figure: what limited it, from the phase's time budget (where its wall time went: the "
    "host's CPUs, the kernel's threads, the device, each tool's user and sys apart), the most common word "
    "over the trials: 'device' (the disk busy at least %d%% of the time), 'client' (the CPUs busy and the "
    "replay client on this host using at least the server's CPU), 'tool' (a tool's own user time near a full "
    "core), 'kernel CPU' (the CPUs busy, mostly with kernel work, in the tools' context or the kernel's "
    "threads), 'waiting' (neither the disk nor the CPUs busy: synchronous waits, locks, the network); a "
    "sync's figure has its own budget, with no tool in it. "
    "'95%% CI \u00b1N%%': the half-width of the figure's 95%% confidence interval, in percent of it (Student's "
    "t for a mean; the order statistics for the median of skewed trials), marked noisy when wider than the "
    "run's precision target (the PRECISION it was repeated to, %.1f%% for a run that records none). "
    "'trials disturbed (machine busy)': trials during which processes outside the phase or the hypervisor "
    "took CPU time, per variant ('A 2 of 7'): left out of the figure, or kept in it when the phase has too few "
    "undisturbed trials, or every trial (the figure is theirs); the tables say 'N of M trials disturbed'. "
    "'spread' is (max - min) / median over the trials, shown from %d trials on (fewer: 'N trials: noise "
    "unknown'). "
    "'resident before' is the share of a sample of the dataset's pages still in the page cache just "
    "before a cold phase (resident_pct; a requested flush fails the phase above 1%%), or, for a warm "
    "figure taken in slices, in the page cache when its trial began (the variants' turns in between; "
    "the phase fails below RESIDENT_WARM_MIN, 90%% by default). "
    "'peak RSS' is the largest peak resident size of our tools in the phase (tool_maxrss_kb, from getrusage; "
    "httpd -N: of its largest process), median over trials: it stays flat as the dataset grows."
    % (budget.DEVICE_BUSY * 100, NOISY_PCT, NOISE_MIN))


def e(s):
    return html.escape(str(s), quote=True)


def meta_value(v, key):
    m = v.meta
    if key == "os":
        return " ".join(str(m[k]) for k in ("os", "os_version") if m.get(k))
    if key == "cpu":
        return "%s%s" % (m.get("cpu", ""), " (%s CPUs)" % m["cpus"] if m.get("cpus") else "")
    if key == "mem_kb":
        try:
            return "%.1f GiB" % (float(m["mem_kb"]) / 1048576)
        except (KeyError, TypeError, ValueError):
            return ""
    if key == "dataset":
        return "%s%s" % (m.get("dataset", ""), ", seed %s" % m["seed"] if "seed" in m else "")
    if key == "replay":
        return replay_settings(m, v)
    if key == "virt":
        # a guest whose balloon gives freed memory back: sys times after a
        # flush or a delete include the host's page faults
        r = str(m.get("page_reporting", ""))
        out = "%s%s" % (m.get("virt", ""), ", free page reporting (%s)" % r if r.startswith("order") else "")
        # DAMON pages out memory unused for a while: a warm cache can lose
        # pages between a variant's turns
        if m.get("damon_pageout") == "on":
            out += ", DAMON pages out idle memory"
        # the VM lab retried a boot whose guest kernel panicked (lab.sh)
        retries = m.get("boot_retries")
        if isinstance(retries, list) and retries:
            out += ", boot retried after a guest kernel panic%s" % (
                " (%d times)" % len(retries) if len(retries) > 1 else "")
        return out
    if key == "tools" and isinstance(m.get("tools"), dict):
        return ", ".join("%s %s" % kv for kv in sorted(m["tools"].items()))
    return str(m.get(key, ""))


def replay_settings(m, v=None):
    """The serve phases' replay settings of a meta.json: REPLAY_COUNT (the
    requests variant V's serve phases recorded, when it has them: what ran),
    REPLAY_CONC, REPLAY_KEEPALIVE, PRELOAD ("" for a run from before them)."""
    if "replay_count" not in m:
        return ""
    ran = [stats.summary(v.values(p, "requests"))[1] for p in v.phases() if p.startswith("serve-")] if v else []
    ran = sorted({int(x) for x in ran if x})
    try:
        n = int(m["replay_count"])
    except (TypeError, ValueError):
        n = -1
    if ran:
        out = ["%s requests per serve phase" % " | ".join("{:,}".format(x) for x in ran)]
    else:
        out = ["first {:,} requests".format(n) if n > 0 else "whole request list" if n == 0 else str(m["replay_count"])]
    if m.get("replay_conc"):
        out.append("%s connections" % " | ".join(str(m["replay_conc"]).split()))
    if m.get("replay_keepalive"):
        out.append("%s per connection" % m["replay_keepalive"])
    if m.get("preload"):
        out.append("preload %s" % m["preload"])
    return ", ".join(out)


# The replay phases' table: (phase prefix, rate metric) and the error counts
# shown next to the rate.
REPLAY_PHASES = [("serve-", "rps"), ("net-", "mbps"), ("preload-", "wall_s")]
REPLAY_COUNTS = [("requests", "requests"), ("failed", "failed"), ("resets", "resets"),
                 ("retries", "retries"), ("timeouts", "timeouts"), ("conc", "concurrency"),
                 ("connections", "connections")]


def rate_text(v, phase, metric):
    """The figure of PHASE/METRIC of variant V with its unit ("12,345
    req/s", a time as a time), "-" without one."""
    n, med, _lo, _hi = figure(v.values(phase, metric))
    unit = v.unit(phase, metric)
    return ("%s %s" % (fmt_value(med, unit), unit) if unit != "s" else fmt_value(med, unit)) if n else "-"


def replay_rows(v):
    """[(phase, trials, first pass text, steady window text, the server's
    CPU per request text, [count texts], note)] of the serve, net and
    preload phases of variant V, in record order: the method's first pass (rps, mbps, a preload's wall_s) and,
    where the replay ran for a minimum time, its steady window (steady_rps,
    steady_mbps: the headline), "-" where none; a skipped phase has its
    reason as the note."""
    rows = []
    skipped = {p: r for p, _t, r in v.skips}
    for phase in v.phases():
        metric = next((m for pre, m in REPLAY_PHASES if phase.startswith(pre)), None)
        if metric is None:
            continue
        first = len(v.values(phase, metric))
        # a repeat measures the steady window alone (replay --no-first-pass)
        n = max(first, len(v.values(phase, "steady_" + metric)) if metric in ranking.STEADY else 0)
        if not n and phase in skipped:
            rows.append((phase, 0, "-", "-", "-", ["-"] * len(REPLAY_COUNTS), "skipped: " + skipped[phase]))
            continue
        rate = rate_text(v, phase, metric)
        if 0 < first < n:
            rate += " (%d of %d trials)" % (first, n)
        steady = rate_text(v, phase, "steady_" + metric) if metric in ranking.STEADY else "-"
        counts = []
        for m, _t in REPLAY_COUNTS:
            cn, cmed, _a, _b = stats.summary(v.values(phase, m, invalid=True))
            counts.append(fmt_value(cmed, "count") if cn else "-")
        if phase.startswith("preload-") and v.values(phase, "dirs"):
            counts[0] = "%s dirs" % fmt_value(stats.summary(v.values(phase, "dirs"))[1], "count")
        failed = sum(1 for f in v.failures if f[0] == phase)
        note = "%d failed" % failed if failed else reference_note(v, phase) if n else ""
        bad = sorted(t for p, t in v.invalid if p == phase)
        if bad:
            note = "; ".join(x for x in (note, "%s: trial %s" % (INVALID, ", ".join(map(str, bad)))) if x)
        rows.append((phase, n, rate, steady, rate_text(v, phase, "server_cpu_us"), counts, note))
    return rows


def reference_note(v, phase):
    """What a memory filesystem's figure of PHASE is: "not flushable" (a
    cold one), "in memory: a reference"; "" for any other filesystem's."""
    if not memory_fs(v):
        return ""
    return NOT_FLUSHABLE if cold_phase(phase) else REFERENCE


REFERENCE = "in memory: a reference"
REPLAY_WORDS = ("First pass: the method's one pass over the request list (rps, mbps; a preload's time); a figure "
                "repeated within a phase has it in its first trial only, the repeats measuring the steady window "
                "alone ('2 of 10 trials'). Steady "
                "window: where the replay went round the list for a minimum time (MIN_MEASURE_S), the rate of its "
                "steady part (steady_rps, steady_mbps), the figure a warm serve or net phase is ranked and drawn "
                "by; '-' where none was measured (a cold replay is never repeated within a trial). Server CPU per "
                "request: httpd's user + system time over the requests (server_cpu_us), which the hypervisor's "
                "steal does not reach; each phase's has a card of its own beside its rate's. ")


def replay_table_html(runs):
    multi = len(runs) > 1
    h = ["<h2 id=\"replays\">Serve, preload and network phases (%s)</h2>" % e(trials_heading(variants(runs))),
         "<div class=\"scroll\"><table><tr><th>host / variant</th><th>phase</th><th>trials</th>"
         "<th>first pass (rate or time)</th><th>steady window</th><th>server CPU per request</th>%s<th>note</th></tr>"
         % "".join("<th>%s</th>" % e(t) for _m, t in REPLAY_COUNTS)]
    for v in variants(runs):
        for phase, n, rate, steady, cpu, counts, note in replay_rows(v):
            h.append("<tr><td>%s</td><td>%s</td><td class=\"n\">%d</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
                     "<td class=\"n\">%s</td>%s<td%s>%s</td></tr>" % (
                e(label(v, multi)), e(phase), n, e(rate), e(steady), e(cpu), "".join("<td class=\"n\">%s</td>" % e(c) for c in counts),
                " class=\"fail\"" if note.endswith("failed") or INVALID in note else "", e(note)))
    h.append("</table></div><p>" + e(REPLAY_WORDS) + "Resets: connections the server reset or closed early; retries: requests tried again "
             "after that (up to replay's -r); failed: requests that did not succeed in the end; "
             "concurrency: the connections open at once (REPLAY_CONC of that phase); connections: those "
             "replay opened in all (a new one after every keep-alive run of requests and every reset). "
             "A skipped phase says why (e.g. no IPv6).</p>")
    return h


def replay_table_md(runs):
    multi = len(runs) > 1
    md = ["", "Serve, preload and network phases (%s):" % trials_heading(variants(runs)), "",
          "| host / variant | phase | trials | first pass (rate or time) | steady window | server CPU per request "
          "| %s | note |" % " | ".join(t for _m, t in REPLAY_COUNTS),
          "| --- | --- | ---: | ---: | ---: | ---: |" + " ---: |" * len(REPLAY_COUNTS) + " --- |"]
    for v in variants(runs):
        for phase, n, rate, steady, cpu, counts, note in replay_rows(v):
            md.append("| %s | %s | %d | %s | %s | %s | %s | %s |" % (mdc(label(v, multi)), phase, n, rate, steady, cpu,
                                                                     " | ".join(counts), mdc(note)))
    return md + ["", REPLAY_WORDS.strip()]


def variants(runs):
    return [v for r in runs for v in r.variants]


def failure_notes(runs):
    """[(variant, text)]: failed phases, and phases the others have but it lacks."""
    out = []
    allv = variants(runs)
    phases = []
    for v in allv:
        phases += [p for p in v.phases() if p not in phases]
    for v in allv:
        for p, t, msg in v.failures:
            out.append((v, ("%s trial %d failed: %s" % (p, t, msg)) if p else "failed: %s" % msg))
        for (p, t), why in sorted(v.invalid.items()):
            out.append((v, "%s trial %d: %s (%s), left out of the figures and charts" % (p, t, INVALID, why)))
        have = v.phases()
        missing = [p for p in phases if p not in have]
        if missing and v.failures:
            out.append((v, "no records of: " + ", ".join(missing)))
    return out


def cell(v, phase, metric):
    n, med, lo, hi = figure(v.values(phase, metric))
    if n and memory_fs(v) and cold_phase(phase):
        return NOT_FLUSHABLE
    if not n and any(p == phase for p, _t in v.invalid):
        return INVALID
    return fmt_value(med, v.unit(phase, metric)) if n else "-"


def proof_html(p):
    """The proof of a figure as HTML, flags in red."""
    parts = []
    if p["limit"] is not None:
        parts.append("<b>%s</b>" % e(p["limit"]))
    if p.get("interval") is not None:
        parts.append(e(interval_text(p, "")) + (" <span class=\"flag\">noisy</span>" if p["noisy"] else ""))
    if p["spread"] is not None:
        parts.append("spread %.1f%%" % p["spread"])
    if p.get("noise"):
        parts.append(e(p["noise"]))
    if p.get("disturbed"):
        parts.append("<span class=\"flag\">%s</span>" % e(p["disturbed"]))
    if p.get("stop"):
        parts.append("stopped at the %s, short of the precision asked" % e(p["stop"]))
    if p["resident"] is not None:
        parts.append("%.1f%% resident before" % p["resident"])
    if p.get("rss_kb") is not None:
        parts.append(rss_text(p))
    return "<small>%s</small>" % "; ".join(parts) if parts else ""


def cell_html(v, phase, metric):
    """The figure and at most one mark (noisy); what backs it a hover
    (title) or a click (details) away."""
    text = cell(v, phase, metric)
    if text in ("-", NOT_FLUSHABLE, INVALID):
        return e(text)
    p = proof(v, phase, metric)
    why = proof_text(p)
    mark = " <span class=\"flag\">noisy</span>" if p["noisy"] else " <span class=\"flag\">disturbed</span>" if p.get("disturbed") else ""
    if not why:
        return e(text) + mark
    return "<details title=\"%s\"><summary>%s%s</summary>%s</details>" % (e(why), e(text), mark, proof_html(p))


def cell_md(v, phase, metric):
    text = cell(v, phase, metric)
    why = proof_text(proof(v, phase, metric)) if text not in ("-", NOT_FLUSHABLE, INVALID) else ""
    return "%s (%s)" % (text, why) if why else text


def label(v, multi):
    return "%s%s / %s" % (v.run + " / " if multi else "", v.host, v.name)


def short_label(v, runs):
    """A variant's name in the first screen: its host only with several hosts."""
    hosts = {x.host for x in variants(runs)}
    return label(v, len(runs) > 1) if len(runs) > 1 or len(hosts) > 1 else v.name


def rankings(runs, ranked):
    """[(chart name, title, ranking)] of the phases that have a chart of
    their own (charts.BAR_CHARTS), in its order, from RANKED (charts.rankings:
    every phase of the report, corrected together)."""
    allv = variants(runs)
    out = []
    for name, phase, metric, title, _group in charts.BAR_CHARTS:
        metric = ranking.headline(allv, phase, metric)
        if (phase, metric) in ranked:
            out.append((name, ranking.headline_title(title, metric), ranked[(phase, metric)]))
    return out


def summary_columns(allv):
    """SUMMARY with each column's headline metric (ranking.headline), its
    title saying "steady" where that is a replay's steady window."""
    cols = [(t, p, ranking.headline(allv, p, m)) for t, p, m in SUMMARY]
    return [(t + " (steady)" if m.startswith("steady_") else t, p, m) for t, p, m in cols]


def steady_words(cols):
    """The summary's word on its (steady) columns, "" without one."""
    if not any(m.startswith("steady_") for _t, _p, m in cols):
        return ""
    return ("(steady): the steady window of a replay run for a minimum time (MIN_MEASURE_S: steady_rps, steady_mbps), "
            "the phase's headline; its first pass is in the serve and network table.")


def row_label(v, multi):
    """A variant's name in the tables of figures: a filesystem in memory's
    says it is a reference."""
    return label(v, multi) + (" (%s)" % REFERENCE if memory_fs(v) else "")


def first_screen(runs, ranked):
    """The values of the page's first screen: the overall standing, a card a
    phase (standings.py), and the systems (report.html.j2)."""
    allv = variants(runs)
    hosts = sorted({v.host for v in allv})
    f = standings.first_screen(rankings(runs, ranked), lambda v: short_label(v, runs), allv, len(runs))
    same, cols = [], []
    for k, t in META_COLUMNS:
        vals = [meta_value(v, k) for v in allv]
        if k == "start_time" or not any(vals):
            continue
        if len(set(vals)) == 1:
            same.append((t, vals[0]))
        else:
            cols.append((k, t))
    return dict(
        f, same=same, diff_cols=[t for _k, t in cols],
        who="host / variant" if len(hosts) > 1 or len(runs) > 1 else "variant",
        diff_rows=[(short_label(v, runs), [meta_value(v, k) for k, _t in cols]) for v in allv],
        starts=", ".join("%s %s" % (short_label(v, runs), meta_value(v, "start_time")) for v in allv
                         if v.meta.get("start_time")))


def summary_html(runs):
    allv = variants(runs)
    multi = len(runs) > 1
    cols = summary_columns(allv)
    h = ["<h2 id=\"summary\">All figures (%s)</h2><div class=\"scroll\"><table><tr><th>host / variant</th>%s</tr>"
         % (e(trials_heading(allv)), "".join("<th>%s</th>" % e(t) for t, _p, _m in cols))]
    for v in allv:
        h.append("<tr><td>%s</td>%s</tr>" % (e(row_label(v, multi)), "".join(
            "<td class=\"n\">%s</td>" % cell_html(v, p, m) for _t, p, m in cols)))
    h.append("</table></div><p>Times in seconds, from 100 s on minutes:seconds; serve in requests/s, net in MB/s. "
             "%sWhat backs a figure: hover over it or click it.</p>" % e(steady_words(cols) + " " if steady_words(cols) else ""))
    h.append("<p>%s</p>" % e(PROOF))
    return h


def failures_html(runs):
    multi = len(runs) > 1
    fails = failure_notes(runs)
    h = ["<h2 id=\"failures\">Notes on failed variants</h2>"]
    if fails:
        h.append("<ul>%s</ul>" % "".join("<li class=\"fail\"><b>%s</b>: %s</li>" % (e(label(v, multi)), e(t))
                                          for v, t in fails))
    else:
        h.append("<p>No variant failed.</p>")
    return h


def charts_html(runs, figs):
    multi = len(runs) > 1
    h = ["<h2 id=\"charts\">Charts</h2>"]
    for c in figs:
        h.append("<h3 id=\"%s\">%s</h3>" % (e(c["name"]), e(c["title"])))
        h.append("<figure><a href=\"%s.svg\"><img src=\"%s.png\" alt=\"%s\"></a><figcaption>%s "
                 "(<a href=\"%s.svg\">SVG</a>, gnuplot script <a href=\"%s.gp\">%s.gp</a>)</figcaption></figure>"
                 % (e(c["name"]), e(c["name"]), e(c["title"]), e(caption(c)), e(c["name"]), e(c["name"]), e(c["name"])))
        if c.get("table"):
            h.append("<div class=\"scroll\">%s</div>" % number_table(c, multi))
    return h


def sections(runs, figs, out):
    """The page after its first screen: each item one section's HTML lines."""
    return [summary_html(runs), ["<p>%s</p>" % e(HOW_TO_READ)], os_table_html(runs), replay_table_html(runs),
            micro_report.html_sections(runs), kprofile.report_section(runs, out),
            latency.html_section(runs, out), failures_html(runs),
            charts_html(runs, figs)]


def render_page(**values):
    try:
        import jinja2
    except ImportError as x:
        raise Error("the report needs jinja2: apt-get install python3-jinja2 (harness/deps.sh install plots)") from x
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(PLOTSDIR), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=False)
    return env.get_template("report.html.j2").render(**values)


def write(runs, made, out, ranked=None):
    """The report of RUNS in OUT: index.html and summary.md; MADE the charts
    made (charts.Renderer), RANKED their rankings (charts.rankings, made
    here when not given)."""
    first = first_screen(runs, charts.rankings(runs) if ranked is None else ranked)
    allv = variants(runs)
    notes = sorted({str(v.meta["note"]) for v in allv if v.meta.get("note")})
    made = list(made) + budget_chart.render(runs, out)
    figs = [c for c in made if os.path.exists(os.path.join(out, c["name"] + ".png"))]
    from markupsafe import Markup
    page = render_page(name=", ".join(r.name for r in runs), css=Markup(CSS), notes=notes,
                       sections=[Markup("\n".join(s)) for s in sections(runs, figs, out) if s], **first)
    with open(os.path.join(out, "index.html"), "w", encoding="utf-8") as f:
        f.write(page)
    write_markdown(runs, figs, failure_notes(runs), notes, out, first)


def caption(c):
    if c.get("caption"):
        return c["caption"]
    noise = " (%s)" % c["noise"] if c.get("noise") else ""
    if c["kind"] == "bars":
        return ("Median over trials, whiskers min to max%s; sorted by result, the best on top, each bar with its "
                "difference from the best; the scale fitted to this chart's figures." % noise)
    if c["kind"] == "pairs":
        return ("Two bars per variant, median over trials with min-max whiskers%s; the panels on one scale, to be "
                "compared; numbers in the phases' own charts' tables." % noise)
    return "One panel per variant (%s), all on the same scales." % "; ".join(c.get("panels", []))


def number_table(c, multi):
    rows = ["<table><caption>%s %s (%s)</caption><tr><th>host / variant</th><th>fs</th><th>trials</th>"
            "<th>figure</th><th>min</th><th>max</th><th>spread</th><th>limit</th></tr>"
            % (e(c["phase"]), e(c["metric"]), e(c["unit"]))]
    for v, n, med, lo, hi in c["table"]:
        p = proof(v, c["phase"], c["metric"])
        sp = (e(p["noise"] or "-") if p["spread"] is None else "%.1f%%" % p["spread"]) + \
            (" <span class=\"flag\">noisy</span>" if p["noisy"] else "")
        tool = "-" if p["limit"] is None else e(p["limit"])
        rows.append("<tr><td>%s</td><td>%s</td><td class=\"n\">%d</td>%s<td class=\"n\">%s</td><td class=\"n\">%s</td></tr>" % (
            e(label(v, multi)), e(v.fs + (" (%s)" % reference_note(v, c["phase"]) if memory_fs(v) else "")), n, "".join("<td class=\"n\">%s</td>" % e(fmt_value(x, c["unit"]))
                                                    for x in (med, lo, hi)), sp, tool))
    rows.append("</table>")
    return "\n".join(rows)


def write_markdown(runs, figs, fails, notes, out, first):
    multi = len(runs) > 1
    allv = variants(runs)
    md = ["# untar-serve shootout: %s" % ", ".join(r.name for r in runs), ""]
    md += ["> **Note:** %s" % n for n in notes] + ([""] if notes else [])
    md += standings.first_screen_md(first)
    md += ["| host / variant | OS | kernel | fs | mount options | device |", "| --- | --- | --- | --- | --- | --- |"]
    md += ["| %s |" % " | ".join(mdc(x) for x in (label(v, multi), meta_value(v, "os"), meta_value(v, "kernel"), v.fs,
                                                   meta_value(v, "mount_opts"), meta_value(v, "device"))) for v in allv]
    heading = trials_heading(allv)
    md += ["", "%s (times in minutes:seconds, serve in requests/s, net in MB/s):" % (heading[0].upper() + heading[1:]), ""]
    cols = summary_columns(allv)
    md.append("| host / variant | %s |" % " | ".join(t for t, _p, _m in cols))
    md.append("| --- |" + " ---: |" * len(cols))
    md += ["| %s | %s |" % (mdc(row_label(v, multi)), " | ".join(mdc(cell_md(v, p, m)) for _t, p, m in cols)) for v in allv]
    md += ["", steady_words(cols)] if steady_words(cols) else []
    md += ["", PROOF]
    md += os_table_md(runs)
    md += replay_table_md(runs)
    md += micro_report.markdown_sections(runs)
    md += latency.markdown_section(runs)
    if fails:
        md += ["", "Failed variants:", ""] + ["- **%s**: %s" % (mdc(label(v, multi)), mdc(t)) for v, t in fails]
    md += ["", "Charts:", ""] + ["- [%s](%s.png) ([SVG](%s.svg))" % (c["title"], c["name"], c["name"]) for c in figs]
    with open(os.path.join(out, "summary.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(md) + "\n")


def os_columns(runs):
    """[(run, fs, os key, column title, variant)] of the runs with several
    OSes (the VM lab's LAB_OS), each filesystem's OSes next to each other."""
    cols = []
    for run in runs:
        oses = run_oses(run)
        if len(oses) < 2:
            continue
        fss = []
        for v in run.variants:
            if v.fs not in fss:
                fss.append(v.fs)
        for fs in fss:
            for k in oses:
                for v in run.variants:
                    if v.fs == fs and os_key(v.meta) == k:
                        title = "%s%s on %s (%s)" % (run.name + " / " if len(runs) > 1 else "", fs, os_label(v.meta), v.host)
                        cols.append((run, fs, k, title, v))
    return cols


def os_table_html(runs):
    cols = os_columns(runs)
    if not cols:
        return []
    h = ["<h2 id=\"oses\">Operating systems side by side (%s)</h2>" % e(trials_heading([c[4] for c in cols])),
         "<div class=\"scroll\"><table><tr><th>phase</th>%s</tr>" % "".join("<th>%s</th>" % e(c[3]) for c in cols)]
    for t, p, m in summary_columns([c[4] for c in cols]):
        h.append("<tr><td>%s</td>%s</tr>" % (e(t), "".join("<td class=\"n\">%s</td>" % cell_html(c[4], p, m) for c in cols)))
    h.append("</table></div><p>Each filesystem on each operating system's guest, same phases as the summary; "
             "the charts below draw one group per OS on common scales.</p>")
    return h


def os_table_md(runs):
    cols = os_columns(runs)
    if not cols:
        return []
    md = ["", "Operating systems side by side (%s):" % trials_heading([c[4] for c in cols]), "",
          "| phase | %s |" % " | ".join(mdc(c[3]) for c in cols), "| --- |" + " ---: |" * len(cols)]
    md += ["| %s | %s |" % (t, " | ".join(mdc(cell_md(c[4], p, m)) for c in cols))
           for t, p, m in summary_columns([c[4] for c in cols])]
    return md
