"""The results of runs for other tools (docs/formats.md#exports): results.csv
and results.json, one row per run, host, variant, phase and metric (every
numeric metric of records.tsv: trials, median, min, max, spread, unit, which
way is better, the time budget's verdict, notes, the estimate with its 95%
interval and the detectable effect: plots/stats.py; for the figures the
report ranks, the difference from the phase's best with its interval, test
and verdict as the report decides them, and the detectable effect of the
rounds where the report compared within them: plots/ranking.py), and
composite.xml, the Phoronix Test Suite's result file (its
pts-core/openbenchmarking.org/schemas/result-file.xsd) with the timings and
rates, so that PTS draws a run (result-file-to-text) and merge-results
merges it with PTS results.

Standard library only: the end of every make shootout (harness/shootout.sh)
and of the playbooks' run (the collect role) writes them too, where there may
be no gnuplot or scipy."""
import csv
import json
import math
import os
import re
import tempfile
import time
import xml.etree.ElementTree as ET

import charts
import stats as statslib
from budget import phase_verdict, prefix_of
from resultslib import NOISE_MIN, NOT_FLUSHABLE, cold_phase, memory_fs, noise_label, spread, stats, trial_count
from resultslib import Error, check_mergeable, disturbed_left_out, disturbed_note, disturbed_trials
from stats import direction, estimate, mde_pct, ranked_metric as figure

COLUMNS = ["run", "host", "variant", "fs", "phase", "metric", "unit", "trials", "median", "min", "max",
           "spread_pct", "better", "verdict", "note", "estimate", "ci_low", "ci_high", "estimate_method", "mde_pct",
           "disturbed", "mde_basis", "mde_rounds", "vs_best", "vs_best_pct", "vs_best_ci_low", "vs_best_ci_high",
           "vs_best_test", "vs_best_verdict", "estimate_rounds"]
FILES = ("results.csv", "results.json", "composite.xml")
# composite.xml's Result identifier: one test profile, "local/" as PTS names
# profiles that are not on OpenBenchmarking.org; phase and metric are its
# arguments, so that PTS lines up the same figure of two runs.
PTS_PROFILE = "local/fs-shootout"
PTS_CLIENT = "fs-shootout plots/export.py"
BETTER = {1: "higher", -1: "lower", 0: ""}
# composite.xml's Entry JSON keeps these too, after the first ones, where they have a value
JSON_ADDED = ("mde_basis", "mde_rounds", "vs_best", "vs_best_pct", "vs_best_ci_low", "vs_best_ci_high", "vs_best_test",
              "vs_best_verdict", "estimate_rounds")
# the vs_best_* fields of a figure the report does not rank
UNRANKED = {"vs_best": "", "vs_best_pct": None, "vs_best_ci_low": None, "vs_best_ci_high": None, "vs_best_test": "",
            "vs_best_verdict": ""}


def clean(x):
    """A float as the shortest text that keeps 15 digits (a whole number
    without ".0"); None stays None."""
    if x is None:
        return None
    x = float("%.15g" % x)
    return int(x) if x.is_integer() and abs(x) < 2 ** 53 else x


def metrics_of(v):
    """(phase, metric, unit) of variant V with a numeric value, in the order
    of records.tsv."""
    seen, out = set(), []
    for p, _t, m, _val, u in v.records:
        if (p, m) not in seen and u not in ("text", "exit") and v.values(p, m, invalid=True):
            seen.add((p, m))
            out.append((p, m, u))
    return out


def phase_troubles(v):
    """{phase: [text]} of variant V's invalid and failed trials, each phase's
    invalid ones first (by trial), then its failures in record order."""
    out = {}
    for (p, t), why in sorted(v.invalid.items()):
        out.setdefault(p, []).append("trial %d not a valid figure (%s)" % (t, why))
    for p, t, msg in v.failures:
        out.setdefault(p, []).append("trial %d failed: %s" % (t, msg))
    return out


def notes(v, phase, n, trials, troubles, metric=""):
    """Why a row's figure of METRIC needs a word: not flushable, invalid or
    failed trials (TROUBLES: phase_troubles(v)), too few trials to know the
    noise, disturbed trials."""
    out = []
    if n and memory_fs(v) and cold_phase(phase):
        out.append(NOT_FLUSHABLE)
    out += troubles.get(phase, [])
    out.append(noise_label(trials))
    busy = disturbed_note(v, phase, metric)
    out.append(busy + (", left out" if disturbed_left_out(v, phase, metric) else ""))
    return "; ".join(x for x in out if x)


def ranked_entries(runs, ranked=None):
    """{(run, host, variant, phase, metric): (ranking, Entry)} of the
    figures the report ranks (charts.rankings: its headline timings and
    rates, corrected together), RANKED when the report gives its own; runs
    that do not merge into one report (check_mergeable) each ranked on
    their own, as each would be reported."""
    if ranked is not None:
        rankings = list(ranked.values())
    else:
        try:
            check_mergeable(runs)
            groups = [runs]
        except Error:
            groups = [[r] for r in runs]
        rankings = [r for g in groups for r in charts.rankings(g).values()]
    out = {}
    for r in rankings:
        for e in r["entries"]:
            out[(e.v.run, e.v.host, e.v.name, r["phase"], r["metric"])] = (r, e)
    return out


def versus(r, e):
    """The vs_best_* fields of Entry E of ranking R (ranking.py): the
    difference from the phase's best, its interval and test (paired within
    the rounds where the report paired), the verdict after the correction
    over the report's comparisons ("best" for the best, "alone" for a phase
    of one variant; empty where a significant test has no p value to
    correct: no scipy)."""
    best = r["entries"][0].v
    first = "best" if len(r["entries"]) > 1 else "alone"
    out = dict(UNRANKED, vs_best="%s/%s/%s" % (best.run, best.host, best.name),
               vs_best_verdict=first if e.cmp is None else "")
    c = e.cmp
    if c is None:
        return out
    out.update(vs_best_pct=clean(None if math.isnan(c.rel) else round(c.rel, 3)),
               vs_best_ci_low=clean(None if c.lo is None else round(c.lo, 3)),
               vs_best_ci_high=clean(None if c.hi is None else round(c.hi, 3)),
               vs_best_test=c.test if c.verdict != statslib.CANNOT_TELL else "")
    if e.corrected or c.verdict != statslib.SIGNIFICANT or c.p is not None:
        out["vs_best_verdict"] = e.corrected or c.verdict
    return out


def rows(runs, ranked=None):
    """The rows of results.csv and results.json (dicts with COLUMNS); each
    step asks for one phase and metric, so the time grows with the records,
    not with their square (tests/bench/report.bench.sh). RANKED: the
    report's rankings (ranked_entries)."""
    index = ranked_entries(runs, ranked)
    out = []
    for r in runs:
        for v in r.variants:
            troubles, verdicts = phase_troubles(v), {}
            for p, m, u in metrics_of(v):
                vals = v.values(p, m)
                n, med, lo, hi = stats(vals)
                trials = trial_count(v, p, n)
                sp = spread(vals) if trials >= NOISE_MIN else None
                verdict = None
                if figure(m, u):  # one verdict per phase and budget part (prefix_of)
                    key = (p, prefix_of(m))
                    if key not in verdicts:
                        verdicts[key] = phase_verdict(v, p, m)
                    verdict = verdicts[key]
                est = estimate(vals)
                mde = mde_pct(est.cv, est.n, est.cv, est.n) if est.n else math.inf
                ranked_phase, entry = index.get((v.run, v.host, v.name, p, m), (None, None))
                rounds = ranked_phase["rounds"] if ranked_phase else 0
                if rounds:  # the phase's detectable effect from its rounds, as the report's card
                    mde = ranked_phase["mde"]
                shown = math.isfinite(mde) and figure(m, u)
                out.append({"run": r.name, "host": v.host, "variant": v.name, "fs": v.fs, "phase": p, "metric": m,
                            "unit": u, "trials": trials, "median": clean(med), "min": clean(lo), "max": clean(hi),
                            "spread_pct": clean(None if sp is None else round(sp, 3)),
                            "better": BETTER[direction(u)] if figure(m, u) else "", "verdict": verdict or "",
                            "note": notes(v, p, n, trials, troubles, m), "estimate": clean(est.center),
                            "ci_low": clean(est.lo), "ci_high": clean(est.hi),
                            "estimate_method": est.method if est.n else "",
                            "mde_pct": clean(round(mde, 3)) if shown else None,
                            "disturbed": disturbed_trials(v, p, m)[0],
                            "mde_basis": ("rounds" if rounds else "trials") if shown else "",
                            "mde_rounds": rounds if shown and rounds else None,
                            **(versus(ranked_phase, entry) if entry else UNRANKED),
                            "estimate_rounds": clean(entry.med) if entry and entry.level is not None else None})
    return out


def csv_cell(x):
    """X for a cell of results.csv: a number as it is; text that a
    spreadsheet would take for a formula (= + - @ TAB CR first: a name from a
    result tree) behind a ' as OWASP's CSV injection advice has it."""
    if x is None:
        return ""
    if isinstance(x, str) and x.startswith(("=", "+", "-", "@", "\t", "\r")):
        return "'" + x
    return x


def write_csv(table, path):
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, COLUMNS, lineterminator="\n")
        w.writeheader()
        for row in table:
            w.writerow({k: csv_cell(row[k]) for k in COLUMNS})


def write_json(table, path):
    """A JSON array, one row (object) a line."""
    with open(path, "w", encoding="utf-8") as f:
        f.write("[\n" + ",\n".join(json.dumps(row, ensure_ascii=False) for row in table) + "\n]\n")


# XML 1.0 has no place for most control characters (a meta.json value may hold one).
BAD_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def sub(parent, tag, text=None):
    el = ET.SubElement(parent, tag)
    if text is not None:
        el.text = BAD_XML.sub(" ", str(text))
    return el


def pts_time(iso):
    """meta.json's start_time (2026-11-25T03:37:11Z) as PTS's TimeStamp, or None."""
    m = re.match(r"^(\d{4}-\d\d-\d\d)T(\d\d:\d\d:\d\d)", str(iso or ""))
    return "%s %s" % m.groups() if m else None


def joined(pairs):
    """PTS's component string: "Processor: X, Memory: Y" of the pairs with a value."""
    return ", ".join("%s: %s" % (k, str(x).replace(",", " ")) for k, x in pairs if x not in (None, ""))


def system(parent, ident, v, now):
    m = v.meta
    mem = "%.1f GiB" % (float(m["mem_kb"]) / 1048576) if isinstance(m.get("mem_kb"), (int, float)) else ""
    cpu = "%s (%s CPUs)" % (m.get("cpu", ""), m["cpus"]) if m.get("cpus") else m.get("cpu", "")
    s = sub(parent, "System")
    sub(s, "Identifier", ident)
    sub(s, "Hardware", joined([("Processor", cpu), ("Memory", mem), ("Disk", m.get("device"))]))
    os_name = m.get("os_name") or " ".join(str(m[k]) for k in ("os", "os_version") if m.get(k))
    kernel = "%s (%s)" % (m["kernel"], m["arch"]) if m.get("kernel") and m.get("arch") else m.get("kernel")
    sub(s, "Software", joined([("OS", os_name), ("Kernel", kernel), ("File-System", v.fs),
                               ("System Layer", m.get("virt") if m.get("virt") not in ("none", "") else None)]))
    sub(s, "User", "")
    sub(s, "TimeStamp", pts_time(m.get("start_time")) or now)
    sub(s, "TestClientVersion", ("fs-shootout " + str(m.get("git_commit", ""))).strip())
    sub(s, "Notes", "; ".join("%s: %s" % (k, m[k]) for k in ("mkfs_opts", "mount_opts", "dataset", "flush", "run_id")
                              if m.get(k) not in (None, "")))


def write_composite(runs, table, path):
    """composite.xml: a System per host and variant, a Result per timing or
    rate with an Entry per system that has a valid figure of it (the estimate;
    the trials in RawString, min and max in its JSON as PTS keeps them)."""
    multi = len(runs) > 1
    now = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())
    root = ET.Element("PhoronixTestSuite")
    g = sub(root, "Generated")
    sub(g, "Title", ("fs-shootout " + " + ".join(r.name for r in runs))[:126])
    sub(g, "LastModified", now)
    sub(g, "TestClient", PTS_CLIENT)
    sub(g, "Description", "Filesystem shootout: the mean over the valid trials of each figure (the median where "
        "they are skewed; RawString: every trial); in each entry's JSON the median, the 95% confidence interval, "
        "the detectable effect and the time budget's verdict (what limited the phase). mde_basis: whether the "
        "detectable effect is of the rounds or of the trials; for the figures the report ranks, the difference "
        "from the phase's best (vs_best) with its interval, test and verdict.")
    ident, variants = {}, [(r, v) for r in runs for v in r.variants]
    for r, v in variants:
        ident[(r.name, v.host, v.name)] = ("%s / %s / %s" % (r.name, v.host, v.name) if multi
                                           else "%s / %s" % (v.host, v.name))[:128]
        system(root, ident[(r.name, v.host, v.name)], v, now)
    by_variant = {(r.name, v.host, v.name): v for r, v in variants}
    results = {}
    for row in table:
        if figure(row["metric"], row["unit"]):
            results.setdefault((row["phase"], row["metric"], row["unit"]), []).append(row)
    for (phase, metric, unit), rs in results.items():
        good = [x for x in rs if x["estimate"] is not None and NOT_FLUSHABLE not in x["note"]]
        if not good:
            continue
        res = sub(root, "Result")
        sub(res, "Identifier", PTS_PROFILE)
        sub(res, "Title", (phase if len(phase) >= 2 else "fs-shootout " + phase)[:50])
        sub(res, "AppVersion", "")
        sub(res, "Arguments", "%s %s" % (phase, metric))
        sub(res, "Description", "Phase: %s - Metric: %s" % (phase, metric))
        sub(res, "Scale", unit)
        sub(res, "Proportion", "HIB" if direction(unit) > 0 else "LIB")
        sub(res, "DisplayFormat", "BAR_GRAPH")
        left = ["%s: %s" % (ident[(x["run"], x["host"], x["variant"])], x["note"] or "no valid trial")
                for x in rs if x not in good]
        if left:
            sub(res, "Annotation", "Left out: " + "; ".join(left))
        data = sub(res, "Data")
        for x in good:
            key = (x["run"], x["host"], x["variant"])
            e = sub(data, "Entry")
            sub(e, "Identifier", ident[key])
            sub(e, "Value", x["estimate"])
            sub(e, "RawString", ":".join(str(clean(val)) for val in by_variant[key].values(phase, metric)))
            extra = {"min-result": x["min"], "max-result": x["max"], "trials": x["trials"]}
            extra.update({k: x[k] for k in ("verdict", "note", "spread_pct", "median", "ci_low", "ci_high", "mde_pct")
                          + JSON_ADDED if x[k] not in ("", None)})
            sub(e, "JSON", json.dumps(extra, ensure_ascii=False))
    ET.indent(root)
    ET.ElementTree(root).write(path, encoding="UTF-8", xml_declaration=True)


def write(runs, out, ranked=None):
    """results.csv, results.json and composite.xml of RUNS into OUT (made if
    need be; other files there are left alone); returns their paths. RANKED:
    the report's rankings (charts.rankings), made here when not given.  All
    three are written first under hidden names (.NAME.XXXXXXXX, what a killed
    export left of them removed), then renamed over the old ones in a row."""
    os.makedirs(out, exist_ok=True)
    for fn in os.listdir(out):
        if any(fn.startswith("." + f + ".") for f in FILES):
            os.unlink(os.path.join(out, fn))
    table = rows(runs, ranked)
    made = []
    try:
        for f, writer in zip(FILES, (write_csv, write_json, lambda t, p: write_composite(runs, t, p))):
            fd, tmp = tempfile.mkstemp(prefix="." + f + ".", dir=out)
            os.close(fd)
            made.append(tmp)
            writer(table, tmp)
            os.chmod(tmp, 0o666 & ~umask())
        for f, tmp in zip(FILES, made):
            os.replace(tmp, os.path.join(out, f))
    finally:  # a failed write (a full disk) leaves nothing behind
        for tmp in made:
            if os.path.exists(tmp):
                os.unlink(tmp)
    return [os.path.join(out, f) for f in FILES]


def umask():
    m = os.umask(0)
    os.umask(m)
    return m
