"""Reading results/ (docs/formats.md#the-results-tree) for the plots, the report and
the comparison: runs, hosts, variants, their records, series and failures.

results/<run>/<host>/<variant>/meta.json     host metadata (JSON object)
                               records.tsv   phase trial metric value unit
                               series/<phase>-<trial>.tsv   t_s metric value

A result tree may come from another machine and is read as untrusted input
(docs/results.md#results-from-elsewhere): only regular files inside the run
(no symlink is followed below the run's directory), each up to a size; numbers
parse strictly (ASCII, finite, bounded); a line that breaks a rule is skipped
with one warning naming the file and line (the readers: plots/readers.py).
"""
import os
import re

import stats as statslib
# the strict readers (plots/readers.py); Error, warn, num, open_input, inside,
# BadLines and brief are asked here by the callers, as before
from readers import (CONTROL, META_MAX, TIME_MAX, VALUE_MAX, BadLines, Error, brief, inside, names, num, open_input,
                     read_meta, record_of, warn, whole)


class Variant:
    """One results/<run>/<host>/<variant>/ directory."""

    def __init__(self, run, host, name, path):
        self.run, self.host, self.name, self.path = run, host, name, path
        self.meta = {}
        self.records = []  # (phase, trial, metric, value, unit)
        self.failures = []  # (phase, trial, message)
        self.skips = []  # (phase, trial, reason): phases the host could not run (no IPv6, ...)
        self.invalid = {}  # (phase, trial): why its figures are not valid (failed requests)
        self.disturbed = set()  # (phase, trial, flag) the harness marked disturbed (disturbed_flag)
        self.kept = set()  # (phase, flag) whose disturbed trials values() keeps (keep_disturbed)
        self._load()

    def _load(self):
        mpath = os.path.join(self.path, "meta.json")
        if os.path.lexists(mpath):
            try:
                self.meta = read_meta(mpath)
            except Error as e:
                warn("%s, ignored" % e)
        rpath = os.path.join(self.path, "records.tsv")
        if os.path.lexists(rpath):
            try:
                self._read_records(rpath)
            except Error as e:
                warn("%s, ignored" % e)
        self._find_failures()

    def _read_records(self, rpath):
        bad = BadLines(rpath)
        with open_input(rpath) as f:
            for n, line in enumerate(f, 1):
                line = line.rstrip("\r\n")
                if not line or (n == 1 and line.startswith("phase\t")):
                    continue
                try:
                    self.records.append(record_of(line))
                except ValueError as e:
                    bad.add(n, str(e))
        bad.report()

    def _find_failures(self):
        """A failed phase is a record `PHASE TRIAL status N exit` with N != 0
        (or a non-numeric status other than ok and skipped: a phase the host
        could not run, its reason in `PHASE TRIAL skip_reason TEXT text`,
        is not a failure), with the error line in an
        optional `PHASE TRIAL error MESSAGE text` record; a variant can also
        carry "status": "failed" and "error" in its meta.json."""
        errors = {}
        for p, t, m, v, u in self.records:
            if m == "error":
                errors[(p, t)] = v if num(v) is None else u
        reasons = {(p, t): v for p, t, m, v, _u in self.records if m == "skip_reason"}
        for p, t, m, v, u in self.records:
            if m == "status" and v.strip().lower() == "skipped":
                self.skips.append((p, t, reasons.get((p, t), "skipped")))
            elif m == "status" and v.strip().lower() not in ("0", "ok", "0.0"):
                self.failures.append((p, t, errors.pop((p, t), "status %s" % v)))
        for (p, t), msg in sorted(errors.items()):
            self.failures.append((p, t, msg))
        self._find_invalid()
        self.disturbed = {(p, t, m) for p, t, m, v, _u in self.records
                          if m in ("disturbed", "sync_disturbed") and num(v) == 1}
        st = str(self.meta.get("status", "")).lower()
        if st and st not in ("ok", "0", "done"):
            self.failures.append(("", 0, str(self.meta.get("error", "status " + st))))

    def _find_invalid(self):
        """A replay with more failed requests (`failed`) than the run allowed
        (`failed_allowed`, REPLAY_MAX_FAILED; 0 when absent) is not a valid
        figure, whatever its status (results from before the harness failed
        such a phase say status 0): values() leaves it out."""
        allowed = {(p, t): num(v) or 0 for p, t, m, v, _u in self.records if m == "failed_allowed"}
        for p, t, m, v, _u in self.records:
            failed = num(v) if m == "failed" else None  # None: a text failed (no count)
            if failed is not None and failed > allowed.get((p, t), 0):
                self.invalid[(p, t)] = "%d failed requests" % failed

    @property
    def fs(self):
        return str(self.meta.get("fs") or self.name)

    def _index(self):
        """{phase: {metric: [(trial, value, unit)]}} of the records, in record
        order: a lookup is then the size of its answer, not of records.tsv
        (export and report ask per phase and metric: scanning every record
        each time was quadratic).  Rebuilt when the records changed."""
        if getattr(self, "_idx_n", -1) != len(self.records):
            idx = {}
            for p, t, m, v, u in self.records:
                idx.setdefault(p, {}).setdefault(m, []).append((t, v, u))
            self._idx, self._idx_n = idx, len(self.records)
        return self._idx

    def metrics(self, phase):
        """{metric: [(trial, value, unit)]} of PHASE, in record order."""
        return self._index().get(phase, {})

    def values(self, phase, metric, invalid=False):
        """Numeric values of PHASE/METRIC, one per trial (the last if repeated);
        an invalid trial's (self.invalid) only with INVALID; a disturbed one's
        (self.disturbed: the machine was busy) only with INVALID, when every
        valid trial is disturbed (a figure of a busy machine, disturbed_note
        says so, rather than none) or when the run's variants had too few
        undisturbed trials of the phase to leave them out (self.kept,
        keep_disturbed)."""
        by_trial = self._by_trial(phase, metric, invalid)
        return [by_trial[t] for t in sorted(by_trial)]

    def _by_trial(self, phase, metric, invalid=False):
        """{trial: value} of values()."""
        flag = disturbed_flag(metric)
        valid, calm = {}, {}
        for t, v, _u in self.metrics(phase).get(metric, ()):
            if num(v) is not None and (invalid or (phase, t) not in self.invalid):
                valid[t] = num(v)
                if invalid or (phase, t, flag) not in self.disturbed or (phase, flag) in self.kept:
                    calm[t] = num(v)
        return calm or valid

    def values_by_round(self, phase, metric):
        """{round: [values]} of the values() of PHASE/METRIC whose trial
        records the round of a blocked run (`PHASE TRIAL round R count`,
        docs/formats.md); trials without one are not in it."""
        rounds = {t: whole(v, 1) for t, v, _u in self.metrics(phase).get("round", ())}
        out = {}
        for t, x in sorted(self._by_trial(phase, metric).items()):
            if rounds.get(t):
                out.setdefault(rounds[t], []).append(x)
        return out

    def unit(self, phase, metric):
        recs = self.metrics(phase).get(metric)
        return recs[0][2] if recs else ""

    def phases(self):
        return list(self._index())

    def series_files(self):
        """{phase: [(trial, path)]} of the series/ directory."""
        return self.trial_files("series", ".tsv")

    def trial_files(self, sub, ext):
        """{record name: [(trial, path)]} of the files SUB/NAME-TRIAL.EXT of
        the variant (series, latency, profiles), by trial."""
        out = {}
        d = inside(self.path, sub)
        if d is None:
            return out
        for fn in names(d):
            m = re.match(r"^(.+)-([0-9]{1,9})%s$" % re.escape(ext), fn)
            if m:
                out.setdefault(m.group(1), []).append((int(m.group(2)), os.path.join(d, fn)))
        for v in out.values():
            v.sort()
        return out


class Run:
    def __init__(self, name, path):
        self.name, self.path = name, path
        self.variants = []
        for host in names(path):
            hpath = inside(path, host)
            if hpath is None:
                continue
            for var in names(hpath):
                vpath = inside(hpath, var)
                if vpath and any(os.path.lexists(os.path.join(vpath, f)) for f in ("records.tsv", "meta.json")):
                    self.variants.append(Variant(name, host, var, vpath))
        keep_disturbed(self.variants)


def list_runs(results):
    if not os.path.isdir(results):
        return []
    return sorted(d for d in os.listdir(results)
                  if not d.startswith(".") and not CONTROL.search(d) and os.path.isdir(os.path.join(results, d)))


def default_run(results):
    """results/.current if it names a run, else the newest run directory."""
    cur = os.path.join(results, ".current")
    if os.path.lexists(cur):
        try:
            with open_input(cur, META_MAX) as f:
                name = f.read().strip()
        except Error as e:
            warn("%s, ignored" % e)
            name = ""
        if name and "/" not in name and not CONTROL.search(name) and os.path.isdir(os.path.join(results, name)):
            return name
    runs = list_runs(results)
    if not runs:
        raise Error("no runs under %s/ (give RUN=...)" % results)
    return max(runs, key=lambda r: os.path.getmtime(os.path.join(results, r)))


def load_run(results, name):
    """RUN is a run id under RESULTS, or a path to a run directory."""
    simple = bool(name) and "/" not in name and name not in (".", "..")
    if simple and os.path.isdir(os.path.join(results, name)):
        path = os.path.join(results, name)
    elif not simple and name and os.path.isdir(name):
        path = name
    else:
        raise Error("no run '%s' under %s/ (runs: %s)"
                    % (name, results, ", ".join(list_runs(results)) or "none"))
    run = Run(os.path.basename(os.path.normpath(path)), path)
    if not run.variants:
        raise Error("run '%s' (%s) has no <host>/<variant>/ with records.tsv or meta.json" % (name, path))
    return run


def fmt_time(sec):
    """Seconds as M:SS from 100 s on (H:MM:SS from an hour on), else as s."""
    if sec is None:
        return "-"
    if sec < 1:
        return "%.2f s" % sec
    if sec < 100:
        return "%.1f s" % sec
    sec = int(round(sec))
    h, m, s = sec // 3600, sec % 3600 // 60, sec % 60
    return "%d:%02d:%02d" % (h, m, s) if h else "%d:%02d" % (m, s)


def fmt_value(v, unit):
    if v is None:
        return "-"
    if unit == "s":
        return fmt_time(v)
    a = abs(v)
    if a >= 100 or v == int(v):
        return "{:,.0f}".format(v)
    if a >= 10:
        return "%.1f" % v
    return "%.2f" % v


def series_table(path):
    """{metric: [(t, value)]} of one series file, in time order; a line
    that is not `t_s metric value` (t from 0 to TIME_MAX, a finite value)
    is skipped with a warning, an unreadable file is none (a warning)."""
    out = {}
    bad = BadLines(path)
    try:
        with open_input(path) as f:
            for n, line in enumerate(f, 1):
                fields = line.split()
                if not fields:
                    continue
                if len(fields) != 3:
                    bad.add(n, "%d fields, not 3 (t_s metric value)" % len(fields))
                    continue
                t, v = num(fields[0]), num(fields[2])
                if t is None or not 0 <= t <= TIME_MAX:
                    bad.add(n, "t_s %s is not a time from 0 to %g s" % (brief(fields[0]), TIME_MAX))
                    continue
                if v is None or CONTROL.search(fields[1]):
                    bad.add(n, "%s %s is not a number (ASCII, finite, at most %g)" % (
                        brief(fields[1]), brief(fields[2]), VALUE_MAX))
                    continue
                pts = out.get(fields[1])
                if pts is None:
                    pts = out[fields[1]] = []
                pts.append((t, v))
    except Error as e:
        warn("%s, ignored" % e)
        return {}
    bad.report()
    for v in out.values():
        v.sort()
    return out


def rates(points, scale=1.0):
    """Per-second rates of a cumulative counter [(t, v)]: [(t, rate*scale)].
    A counter that ever goes down is taken as per-interval amounts instead."""
    if len(points) < 2:
        return []
    cumulative = all(b[1] >= a[1] for a, b in zip(points, points[1:]))
    out = []
    for a, b in zip(points, points[1:]):
        dt = b[0] - a[0]
        if dt <= 0:
            continue
        out.append((b[0], ((b[1] - a[1]) if cumulative else b[1]) / dt * scale))
    return out


# Trials and their noise (docs/results.md): plots/stats.py decides; these
# names of it stay here for the callers that read results.
NOISE_MIN, NOISY_PCT = statslib.NOISE_MIN, statslib.NOISY_PCT
stats, noise_label, spread = statslib.summary, statslib.noise_label, statslib.spread
figure = statslib.figure  # (n, the figure shown: mean, or median of skewed trials, min, max)
# Phases run more than once in a cycle of make shootout (flush: after untar,
# before delete, ...): their record's trial counts the runs of the phase
# (next_trial), not the cycles, so a one-trial run has flush trials 1, 2, 3.
PER_RUN_PHASES = ("flush",)
# Filesystems in memory (Linux tmpfs and ramfs, the BSDs' mfs): a flush does
# not empty them, so their "cold" figures are warm ones.
MEMORY_FS = ("tmpfs", "ramfs", "mfs")


def cycles(v):
    """The trials (cycles) of variant V: the highest trial of its phases run
    once a cycle (of every phase when it has no other)."""
    memo = getattr(v, "_cycles", None)  # asked once per figure: computed once per variant
    if memo is None or memo[0] != len(v.records):
        once = [t for p, t, _m, _v, _u in v.records if p not in PER_RUN_PHASES]
        memo = (len(v.records), max(once or [t for _p, t, _m, _v, _u in v.records] or [0]))
        v._cycles = memo
    return memo[1]


def trial_count(v, phase, n):
    """The trials behind N values of PHASE of variant V (a phase run several
    times a cycle counts its cycles)."""
    return min(n, cycles(v) or n) if phase in PER_RUN_PHASES else n


def trials_heading(variants, kind="means"):
    """What a table of the figures of VARIANTS is: "means over trials" (KIND
    "medians": of medians), or "1 trial: noise unknown" when every variant
    has one trial."""
    most = max([cycles(v) for v in variants] or [0])
    if most >= NOISE_MIN or not most:
        return "%s over trials" % kind
    return noise_label(most) if most == 1 else "%s of %s" % (kind, noise_label(most))


def disturbed_flag(metric):
    """The record that marks a trial's METRIC disturbed: sync_disturbed for
    the sync part's figures (sync_s), else disturbed (the phase's window)."""
    return "sync_disturbed" if metric.startswith("sync_") else "disturbed"


def disturbed_trials(v, phase, metric=""):
    """(disturbed, marked): the trials of PHASE of variant V the harness
    marked disturbed for METRIC (disturbed_flag) and all it marked 0 or 1."""
    marks = {t: num(val) for t, val, _u in v.metrics(phase).get(disturbed_flag(metric), ())}
    return sum(1 for x in marks.values() if x == 1), len(marks)


# The fewest undisturbed trials of a phase each ranked variant keeps for
# its disturbed ones to be left out (keep_disturbed).
CALM_MIN = 2


def keep_disturbed(variants):
    """Leaves the disturbed trials of a phase in the figures of all the
    VARIANTS of a run (Variant.kept; the memory reference's too) when one of
    the ranked ones (not memory_fs) would keep fewer than CALM_MIN
    undisturbed trials of it (or none, of one).  Leaving them out then
    would compare one variant's calm figure with another's disturbed one
    (the slower: a difference the machine made), or a single trial with
    the others: the same rule for every variant of a phase keeps the
    comparison fair, and a machine busy throughout shows as wide
    intervals, its disturbed trials named."""
    ranked = [v for v in variants if not memory_fs(v)]
    short = set()
    for v in ranked:
        for flag in ("disturbed", "sync_disturbed"):
            for phase in v.phases():
                marks = {t for t, _val, _u in v.metrics(phase).get(flag, ()) if (phase, t) not in v.invalid}
                calm = [t for t in marks if (phase, t, flag) not in v.disturbed]
                if marks and len(calm) < min(CALM_MIN, len(marks)):
                    short.add((phase, flag))
    for v in variants:
        v.kept = frozenset(short)


def disturbed_left_out(v, phase, metric=""):
    """Whether values() leaves out the disturbed trials of PHASE of V for
    METRIC: some are, not all, and the run did not keep them (keep_disturbed)."""
    bad, marked = disturbed_trials(v, phase, metric)
    return 0 < bad < marked and (phase, disturbed_flag(metric)) not in v.kept


# What became of a variant's disturbed trials (disturbed_state).
LEFT_OUT, KEPT, THEIRS = "left out", "kept", "theirs"


def disturbed_state(v, phase, metric=""):
    """(disturbed, marked, what became of them: LEFT_OUT of the figure,
    KEPT in it (keep_disturbed), THEIRS (every trial was; Variant.values
    keeps them then)) for the trials of PHASE of variant V for METRIC
    (disturbed_trials), or None when none was disturbed."""
    bad, marked = disturbed_trials(v, phase, metric)
    if not bad:
        return None
    return bad, marked, (THEIRS if bad == marked else KEPT if (phase, disturbed_flag(metric)) in v.kept else LEFT_OUT)


def disturbed_note(v, phase, metric=""):
    """ "2 of 7 trials disturbed: machine busy" when the harness marked
    trials of PHASE of variant V disturbed for METRIC (`PHASE TRIAL
    disturbed 1`, or sync_disturbed: processes outside the phase or the
    hypervisor took CPU time; their figures are left out), with ", the
    figure is theirs" when every trial was (Variant.values keeps them then)
    and ", kept: too few undisturbed trials in the phase" when the run kept
    them (keep_disturbed), else "" (also for runs from before the mark)."""
    state = disturbed_state(v, phase, metric)
    if not state:
        return ""
    bad, marked, what = state
    tail = {THEIRS: ", the figure is theirs", KEPT: ", kept: too few undisturbed trials in the phase"}.get(what, "")
    return "%d of %d trial%s disturbed: machine busy%s" % (bad, marked, "" if marked == 1 else "s", tail)


def memory_fs(v):
    """Whether variant V's filesystem lives in memory (tmpfs, ramfs, mfs)."""
    return re.split(r"[-_ .]", v.fs.lower(), maxsplit=1)[0] in MEMORY_FS


def cold_phase(phase):
    """A phase measured after a flush of the cache (the charts' cold scale)."""
    return phase.startswith(("serve-cold", "serve-dirwarm"))


NOT_FLUSHABLE = "not flushable"
# A replay with failed requests (more than REPLAY_MAX_FAILED) is no figure.
INVALID = "not a valid figure"


# Operating systems side by side (the VM lab's LAB_OS="debian12 debian13").
def os_key(meta):
    """The OS of a variant as one word, meta.json's os and os_version run
    together (debian + 12: debian12, as the VM lab's LAB_OS names it); a
    kernel of the lab's LAB_KERNELS other than the image's own adds its
    name (debian12-initonfree), so the kernels of one OS group apart."""
    key = "".join(str(meta.get(k, "")) for k in ("os", "os_version")).replace(" ", "")
    kernel = str(meta.get("kernel_name") or "")
    return key + "-" + kernel if key and kernel not in ("", "image") else key


def os_label(meta):
    """The OS of a variant for people: "debian 12, Linux 6.1.0-41-amd64",
    with the lab kernel's own command line when it has one
    ("debian 12, Linux 6.1.0-41-amd64 init_on_free=1")."""
    name = " ".join(str(meta[k]) for k in ("os", "os_version") if meta.get(k))
    kernel = " ".join(str(x) for x in ("Linux", meta.get("kernel"), meta.get("kernel_append")) if x) \
        if meta.get("kernel") else ""
    return ", ".join(x for x in (name, kernel) if x)


def run_oses(run):
    """The OS keys of a run's variants in order of appearance."""
    out = []
    for v in run.variants:
        k = os_key(v.meta)
        if k and k not in out:
            out.append(k)
    return out


def load_side(results, spec):
    """One side of make compare: RUN, or RUN:SEL with SEL an OS of that run
    (os_key: debian12), one of its hosts or one of its variants; the run
    with only the variants selected, named RUN:SEL."""
    try:
        return load_run(results, spec)
    except Error:
        name, sep, sel = spec.rpartition(":")
        if not sep or not name or not re.match(r"^[A-Za-z0-9._-]+$", sel):
            raise
    run = load_run(results, name)
    picked = [v for v in run.variants if sel in (os_key(v.meta), v.host, v.name)]
    if not picked:
        raise Error("run '%s' has no OS, host or variant '%s' (OSes: %s; hosts: %s; variants: %s)" % (
            name, sel, ", ".join(run_oses(run)) or "none", ", ".join(sorted({v.host for v in run.variants})),
            ", ".join(sorted({v.name for v in run.variants}))))
    run.name, run.variants, run.selector = "%s:%s" % (run.name, sel), picked, sel
    return run


def side_pairs(base, new):
    """[(base's variant, new's)] that make compare compares: by host and
    variant name; by variant name where a side is selected (load_side); the
    one variant of each side against the other's where both are one variant
    of different names (RUN:VARIANT). Error when a selected side has one
    variant name on two hosts."""
    if not (getattr(base, "selector", None) or getattr(new, "selector", None)):
        nv = {(v.host, v.name): v for v in new.variants}
        return [(bv, nv[(bv.host, bv.name)]) for bv in base.variants if (bv.host, bv.name) in nv]
    bn, nn = _by_name(base), _by_name(new)
    if len(bn) == len(nn) == 1 and not set(bn) & set(nn):
        return [(base.variants[0], new.variants[0])]
    return [(bv, nn[n]) for n, bv in bn.items() if n in nn]


def _by_name(run):
    """{variant name: variant} of a selected side (one host per variant
    name, else the side is ambiguous)."""
    out = {}
    for v in run.variants:
        if v.name in out:
            raise Error("%s has variant %s on hosts %s and %s: name one host (RUN:HOST)"
                        % (run.name, v.name, out[v.name].host, v.host))
        out[v.name] = v
    return out


# Runs merged into one report or comparison must have measured the same
# thing: the same dataset, the same number of requests replayed, the same
# phases (make report RUN="A B", make compare BASE=A NEW=B).
def run_setup(run):
    """(dataset, requests per serve phase, phases) of a run: the values its
    variants agree on; None for what a run does not say."""
    datasets = {str(v.meta["dataset"]) for v in run.variants if v.meta.get("dataset")}
    counts = {str(v.meta["replay_count"]) for v in run.variants if "replay_count" in v.meta}
    phases = set()
    for v in run.variants:
        phases.update(p for p in v.phases() if p not in PER_RUN_PHASES)
    return (" | ".join(sorted(datasets)) or None, " | ".join(sorted(counts)) or None, frozenset(phases))


def check_mergeable(runs):
    """Raise Error, in one line, when RUNS differ in dataset, request count
    or phases: their figures do not go on one scale."""
    if len(runs) < 2:
        return
    first, fs = runs[0], run_setup(runs[0])
    for run in runs[1:]:
        rs = run_setup(run)
        why = None
        if fs[0] and rs[0] and fs[0] != rs[0]:
            why = "dataset %s against %s" % (fs[0], rs[0])
        elif fs[1] and rs[1] and fs[1] != rs[1]:
            why = "requests replayed per serve phase %s against %s (REPLAY_COUNT)" % (fs[1], rs[1])
        elif fs[2] and rs[2] and fs[2] != rs[2]:
            only = sorted(fs[2] ^ rs[2])
            why = "phases: %s only in one of them" % ", ".join(only[:4] + (["..."] if len(only) > 4 else []))
        if why:
            raise Error("runs %s and %s did not measure the same thing (%s): not merged; "
                        "draw each on its own (RUN=%s, then RUN=%s)" % (first.name, run.name, why, first.name, run.name))
