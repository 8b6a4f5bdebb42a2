"""icf_jobs: the fio job sections of one worker's access specification, for
harness/icf2fio (which parses the .icf file and writes the job files)."""

import re

SECTOR = 512
# Iometer's data patterns as fio buffer options: repeating bytes (one byte
# value here, where Iometer varies it per I/O), pseudo random (a random
# buffer reused), full random (new random data every I/O).
PATTERNS = {0: ["buffer_pattern=0x5a"], 1: ["refill_buffers=0", "scramble_buffers=0"],
            2: ["refill_buffers=1"]}


def slug(name):
    """A spec name as it appears in metric names: "File Server" -> fileserver."""
    return re.sub(r"[^a-z0-9]+", "", name.lower()) or "spec"


def size_str(n):
    for unit, m in (("m", 1 << 20), ("k", 1 << 10)):
        if n % m == 0:
            return "%d%s" % (n // m, unit)
    return str(n)


def split_str(parts):
    return ":".join("%s/%s" % (size_str(s), fmt_pct(p)) for s, p in parts)


def fmt_pct(p):
    return ("%.4f" % p).rstrip("0").rstrip(".")


def groups_of(spec):
    """Access lines grouped by what fio sets per job: random %, delay, burst, align."""
    groups = {}
    for ln in spec["lines"]:
        groups.setdefault((ln["random"], ln["delay"], ln["burst"], ln["align"]), []).append(ln)
    return groups


def depths(shares, qd):
    """The outstanding I/Os of each group: shares (percent) of qd, whole,
    at least 1 each, adding up to qd exactly (largest remainders)."""
    want = [qd * x / 100 for x in shares]
    d = [max(1, int(w)) for w in want]
    order = sorted(range(len(d)), key=lambda i: d[i] - want[i])
    i = 0
    while sum(d) < qd:
        d[order[i % len(d)]] += 1
        i += 1
    for j in reversed(order):
        while sum(d) > qd and d[j] > 1:
            d[j] -= 1
    return d


def job_sections(spec, w, qd, flow_id, files, notes):
    out = []
    groups = sorted(groups_of(spec).items())
    if len(groups) > qd:
        # Fewer outstanding I/Os than fio jobs would need: one job, its %
        # random the lines' mean weighted by their share of the I/Os.
        lines = spec["lines"]
        top = max(groups, key=lambda g: sum(x["pct"] for x in g[1]))[0]
        rnd = round(sum(x["pct"] * x["random"] for x in lines) / 100)
        notes.append((spec["line"], "approximated: access specification %r at %d outstanding I/O(s): its lines "
                      "differ in %% random, delay, burst or alignment (%d groups), run as one job of %d%% random "
                      "(their mean), delay %d, burst %d, align %d" % (spec["name"], qd, len(groups), rnd,
                                                                   top[1], top[2], top[3])))
        groups = [((rnd,) + top[1:], lines)]
    depth = depths([sum(x["pct"] for x in lines) for _, lines in groups], qd)
    for gi, (key, lines) in enumerate(groups):
        random, delay, burst, align = key
        share = sum(x["pct"] for x in lines)
        rd = sum(x["pct"] * x["reads"] for x in lines)
        wr = sum(x["pct"] * (100 - x["reads"]) for x in lines)
        mix = rd / (rd + wr) * 100
        rsplit = [(x["size"], x["pct"] * x["reads"] / rd * 100) for x in lines if x["reads"]] if rd else []
        wsplit = [(x["size"], x["pct"] * (100 - x["reads"]) / wr * 100) for x in lines if x["reads"] < 100] if wr else []
        base = "w%d-%s" % (flow_id, slug(w["name"]))
        name = "%s-g%d" % (base, gi + 1) if len(groups) > 1 else base
        s = ["[%s]" % name, "# access spec %r, lines %s (%d%% of its I/Os)"
             % (spec["name"], ",".join(str(x["line"]) for x in lines), share)]
        if files:
            s.append("filename=%s" % files)
        if rd and wr:
            s += ["rw=randrw", "rwmixread=%s" % fmt_pct(mix)]
        else:
            s.append("rw=randread" if rd else "rw=randwrite")
        s.append("percentage_random=%d" % random)
        if rd and wr and split_str(rsplit) != split_str(wsplit):
            s.append("bssplit=%s,%s" % (split_str(rsplit), split_str(wsplit)))
        else:
            s.append("bssplit=%s" % split_str(rsplit or wsplit))
        s.append("blockalign=%d" % (align or SECTOR))
        if delay:
            s += ["thinktime=%d" % (delay * 1000), "thinktime_blocks=%d" % burst]
        if "seed" in w:
            s.append("randseed=%d" % (w["seed"] + gi))
        s += PATTERNS.get(w.get("pattern"), [])
        s.append("iodepth=%d" % depth[gi])
        if len(groups) > 1:
            s += ["flow_id=%d" % flow_id, "flow=%d" % max(1, share)]
        out.append("\n".join(s))
    return out


def fio_path(path):
    """PATH as one name in a fio filename list (":" separates them)."""
    return path.replace("\\", "\\\\").replace(":", "\\:")


def target_files(t, path):
    """Each worker's fio filename list: one file a distinct disk target of the
    test (PATH, PATH.t2, ...; workers naming the same target share it), or
    empty when no worker names more than the one file."""
    names = []
    for w, _ in t["active"]:
        for x in w.get("targets", []):
            if x["name"] not in names:
                names.append(x["name"])
    if len(names) < 2:
        return {}, max(1, len(names))
    f = {n: fio_path(path) + ("" if i == 0 else ".t%d" % (i + 1)) for i, n in enumerate(names)}
    return {id(w): ":".join(f[x["name"]] for x in w.get("targets", [])) or f[names[0]]
            for w, _ in t["active"]}, len(names)
