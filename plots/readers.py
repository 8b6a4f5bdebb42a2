"""The strict readers of a result tree (docs/results.md#results-from-elsewhere),
below plots/resultslib.py: a file opened only when it is a regular file
inside the run and of bounded size, numbers and names parsed strictly, a
records.tsv line to a record or the reason it is none, meta.json, the
one-line Error and the warnings. It imports no module of plots/.
"""
import errno
import json
import math
import os
import re
import stat
import sys

PROG = "plots"

# The bounds of what is read (docs/results.md#results-from-elsewhere).
INPUT_MAX = 256 << 20  # bytes of a records.tsv, series, latency, profile or raw file
META_MAX = 1 << 20  # bytes of a meta.json or results/.current
VALUE_MAX = 1e18  # |figure| of a record or series: beyond, no measurement of this harness
TIME_MAX = 1e8  # a series sample's t_s (three years)
NAME_MAX = 200  # characters of a phase, metric or unit
TRIAL_MAX = 10 ** 6
# A number as C's printf, awk or Python print one, ASCII only ("1.62726e+06");
# no inf or nan, no "1_000", no other scripts' digits.
NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,3})?")
NUMBER_LEN = 40
WHOLE = re.compile(r"[0-9]{1,9}")
# Units whose values are text (docs/formats.md#records); every other unit's are numbers.
TEXT_UNITS = ("text", "exit")
# Units that cannot be negative: times, sizes, shares; rates (any unit with
# /s) too.  Counts may be -1, fsdisco's "none" (docs/formats.md).
NOT_NEGATIVE = ("s", "ms", "us", "ns", "B", "kB", "KB", "KiB", "MB", "%", "fraction")
COUNTS = ("count", "files", "dirs", "threads")
# Control characters and the surrogates of undecodable bytes: never in a name,
# shown escaped in a message.
CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


class Error(Exception):
    """A one-line error for the user; the command exits non-zero."""


def shown(s):
    """S for a one-line message: control characters and a file name's
    undecodable bytes (surrogate escapes) as \\xNN (\\uNNNN)."""
    def esc(m):
        c = ord(m.group())
        if 0xdc80 <= c <= 0xdcff:
            c -= 0xdc00
        return "\\x%02x" % c if c < 0x100 else "\\u%04x" % c
    return CONTROL.sub(esc, str(s))


_warned = set()  # a file read twice (the HTML and the summary) warns once


def warn(msg):
    msg = shown(msg)
    if msg not in _warned:
        _warned.add(msg)
        print("%s: warning: %s" % (PROG, msg), file=sys.stderr)


def num(s):
    """The float value of a record field, or None when it is not a number
    (NUMBER, finite, at most VALUE_MAX either way)."""
    if not isinstance(s, str) or len(s) > NUMBER_LEN or not NUMBER.fullmatch(s):
        return None
    v = float(s)
    return v if abs(v) <= VALUE_MAX else None


def open_input(path, limit=INPUT_MAX):
    """PATH of a result tree opened to read as UTF-8 text (undecodable bytes
    replaced): a regular file, not a symlink, a FIFO or a device, of at most
    LIMIT bytes; Error, one line naming it, otherwise.  O_NONBLOCK: a FIFO
    does not block the open."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        raise Error("%s: %s" % (path, "a symlink, not followed" if e.errno == errno.ELOOP else e.strerror)) from e
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise Error("%s: not a regular file, not read" % path)
        if st.st_size > limit:
            raise Error("%s: %d bytes, more than the %d a result file may have, not read" % (path, st.st_size, limit))
        os.set_blocking(fd, True)
        return os.fdopen(fd, encoding="utf-8", errors="replace")
    except BaseException:
        os.close(fd)
        raise


def inside(top, *parts):
    """TOP/PARTS... when each part is a real directory (not a symlink) below
    TOP, else None (a symlink: with a warning)."""
    path = top
    for p in parts:
        path = os.path.join(path, p)
        try:
            st = os.lstat(path)
        except OSError:
            return None
        if stat.S_ISLNK(st.st_mode):
            warn("%s: a symlink, not followed" % path)
            return None
        if not stat.S_ISDIR(st.st_mode):
            return None
    return path


def names(d):
    """The entries of directory D whose names can be shown and written: not
    hidden, no control characters, valid UTF-8 (the others: a warning)."""
    out = []
    try:
        listed = sorted(os.listdir(d))
    except OSError as e:
        warn("%s: %s" % (d, e.strerror))
        return out
    for fn in listed:
        if fn.startswith("."):
            continue
        if CONTROL.search(fn):
            warn("%s: a name with control characters or bytes that are not UTF-8, skipped" % os.path.join(d, fn))
            continue
        out.append(fn)
    return out


class BadLines:
    """The lines of one input file skipped: one warning for them all that
    names the first and why."""

    def __init__(self, path):
        self.path, self.n, self.first = path, 0, None

    def add(self, lineno, why):
        self.n += 1
        if self.first is None:
            self.first = (lineno, why)

    def report(self):
        if self.n:
            warn("%s:%d: %s; %s skipped" % (self.path, self.first[0], self.first[1],
                                            "line" if self.n == 1 else "%d lines" % self.n))


def brief(s, n=40):
    """A field quoted in a message, at most N characters."""
    return repr(s if len(s) <= n else s[:n] + "...")


def whole(s, lo=0, hi=TRIAL_MAX):
    """The int of S when it is ASCII digits within [LO, HI], else None."""
    if not isinstance(s, str) or not WHOLE.fullmatch(s):
        return None
    v = int(s)
    return v if lo <= v <= hi else None


# A records.tsv line whose names are names (record_of): the fast path of
# the common line; any other is looked at field by field for the reason.
_NAME = "[^\\s\x00-\x1f\x7f-\x9f\ud800-\udfff](?:[^\t\x00-\x1f\x7f-\x9f\ud800-\udfff]{0,%d}" \
        "[^\\s\x00-\x1f\x7f-\x9f\ud800-\udfff])?" % (NAME_MAX - 2)
RECORD = re.compile("(%s)\t([0-9]{1,9})\t(%s)\t([^\t]*)\t(%s)" % (_NAME, _NAME, _NAME))


def record_of(line):
    """The record (phase, trial, metric, value, unit) of a records.tsv
    LINE; ValueError saying why it is none."""
    m = RECORD.fullmatch(line)
    if not m:
        fields = line.split("\t")
        if len(fields) != 5:
            raise ValueError("%d fields, not 5 TAB-separated ones" % len(fields))
        for what, name in (("phase", fields[0]), ("metric", fields[2]), ("unit", fields[4])):
            if not name or len(name) > NAME_MAX or CONTROL.search(name) or name != name.strip():
                raise ValueError("%s %s is not a name" % (what, brief(name)))
        raise ValueError("trial %s is not a whole number up to %d" % (brief(fields[1]), TRIAL_MAX))
    phase, trial, metric, value, unit = m.groups()
    t = int(trial)
    if t > TRIAL_MAX:
        raise ValueError("trial %s is not a whole number up to %d" % (brief(trial), TRIAL_MAX))
    if unit not in TEXT_UNITS:
        v = num(value)
        if v is None:
            raise ValueError("%s %s is not a number (ASCII, finite, at most %g)" % (metric, brief(value), VALUE_MAX))
        if v < 0 and (unit in NOT_NEGATIVE or "/s" in unit or (unit in COUNTS and v < -1)):
            raise ValueError("%s %s %s cannot be negative" % (metric, value, unit))
    return (phase, t, metric, value, unit)


def json_number(s):
    """A JSON number of meta.json as a float; a non-finite one (1e400) as its text."""
    v = float(s)
    return v if math.isfinite(v) else s


def json_int(s):
    """A JSON whole number; one of more digits than a figure has as its text."""
    return int(s) if len(s) <= 30 else s


def clean_json(x):
    """X of a parsed JSON with lone surrogates (a "\\ud800" escape) replaced,
    so that it can be written as UTF-8."""
    if isinstance(x, str):
        return re.sub("[\ud800-\udfff]", "\ufffd", x)
    if isinstance(x, list):
        return [clean_json(e) for e in x]
    if isinstance(x, dict):
        return {clean_json(k): clean_json(e) for k, e in x.items()}
    return x


def read_meta(path):
    """The JSON object of a meta.json; Error when it is none."""
    with open_input(path, META_MAX) as f:
        text = f.read()
    try:
        meta = clean_json(json.loads(text, parse_float=json_number, parse_int=json_int, parse_constant=str))
    except RecursionError as e:
        raise Error("%s: nested too deep" % path) from e
    except ValueError as e:
        raise Error("%s: %s" % (path, e)) from e
    if not isinstance(meta, dict):
        raise Error("%s: not a JSON object" % path)
    return meta
