"""Where make plots, report and compare write (docs/results.md#where-a-report-goes).

The new report is made in a directory aside, beside OUT on its filesystem
(.NAME.plots-aside-XXXXXXXX), and swapped in whole (renameat2's
RENAME_EXCHANGE; where the kernel or libc lacks it, two renames): stopped
at any point, even by SIGKILL, OUT holds the old complete report or the new
complete one, and the next report removes what a stopped one left aside.

OUT/.plots-manifest lists what the report wrote
(docs/formats.md#the-report-directory).  The next one drops only those,
and results.csv, results.json and composite.xml (make export writes them
too); every other file of OUT is carried over (a hard link, or a copy), so
a user's README.md stays.  OUT is
refused with one line when it is the results root, inside it, or inside a
run; when it holds a directory no report wrote, or a file no report wrote
whose name the new report has."""
import ctypes
import ctypes.util
import errno
import fcntl
import os
import shutil
import stat
import sys
import tempfile

from resultslib import Error

MANIFEST = ".plots-manifest"
ASIDE = ".plots-aside-"
# What a report wrote before the manifest existed: the project's own OUT
# (report/, plots/out/...: no OUT= given) without a manifest is taken as such.
LEGACY = (".png", ".svg", ".gp", ".dat", ".tsv", ".html")
LEGACY_NAMES = ("summary.md", "compare.md", "profiles")
RENAME_EXCHANGE = 2
AT_FDCWD = -100


def inside(path, root):
    """PATH is ROOT or below it (both real paths)."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def refuse_place(out, guards, given):
    """Error when OUT (a real path; GIVEN as the user wrote it) is one of
    GUARDS (results roots and runs, real paths) or below one, is not a
    directory, or is a mount point."""
    for g in guards:
        if inside(out, g):
            raise Error("OUT=%s is in %s, where the runs are: a report there would mix with them (and be read "
                        "as one); give another OUT=" % (given, g))
    if os.path.lexists(out) and not os.path.isdir(out):
        raise Error("OUT=%s is not a directory" % given)
    if os.path.isdir(out) and os.stat(out).st_dev != os.stat(os.path.dirname(out)).st_dev:
        raise Error("OUT=%s is a mount point: a report is made beside OUT and swapped in; give a directory "
                    "inside it" % given)


def read_manifest(out, legacy):
    """The names an earlier report wrote into OUT: its manifest's, or with
    LEGACY (OUT is the project's own default) and no manifest, the names
    an older report would have written."""
    try:
        with open(os.path.join(out, MANIFEST), encoding="utf-8", errors="replace") as f:
            return {n for n in f.read().split("\n") if n and "/" not in n and n not in (".", "..")}
    except FileNotFoundError:
        pass
    if not legacy or not os.path.isdir(out):
        return set()
    return {n for n in os.listdir(out) if n.endswith(LEGACY) or n in LEGACY_NAMES}


def kept_files(out, ours, given):
    """The names of OUT that are not the report's (OURS): kept. Error on a
    directory or a special file among them (it cannot be carried over)."""
    if not os.path.isdir(out):
        return []
    keep = []
    for n in sorted(os.listdir(out)):
        if n in ours or n == MANIFEST:
            continue
        mode = os.lstat(os.path.join(out, n)).st_mode
        if stat.S_ISDIR(mode):
            raise Error("OUT=%s holds %s/, which no report wrote (not in its %s): give an OUT= of the report's own"
                        % (given, n, MANIFEST))
        if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
            raise Error("OUT=%s holds %s, not a file: give an OUT= of the report's own" % (given, n))
        keep.append(n)
    return keep


def carry(src, dst):
    """DST becomes SRC's file: a hard link (same file), else a copy; a
    symbolic link is made again."""
    if os.path.islink(src):
        os.symlink(os.readlink(src), dst)
        return
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def exchange(a, b):
    """Swap directories A and B atomically; False when this system cannot."""
    libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
    fn = getattr(libc, "renameat2", None)
    if fn is None:
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if fn(AT_FDCWD, os.fsencode(a), AT_FDCWD, os.fsencode(b), RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):  # not here; anything else is an error
        return False
    raise OSError(err, os.strerror(err), b)


class Aside:
    """with Aside(out, guards, replaced) as tmp: write the report into TMP;
    on leaving the block without an error, TMP becomes OUT (see the module's
    doc).  REPLACED: names the new report may take over from OUT without a
    manifest (the exports); LEGACY: OUT is the default, not named by the user."""

    def __init__(self, out, guards, replaced=(), legacy=False):
        self.given, self.out = out, os.path.realpath(out)
        self.parent, self.name = os.path.split(self.out)
        refuse_place(self.out, [os.path.realpath(g) for g in guards], out)
        self.replaced, self.legacy = set(replaced), legacy
        kept_files(self.out, read_manifest(self.out, legacy), out)  # refused before anything is drawn
        self.lock = self.tmp = None

    def __enter__(self):
        os.makedirs(self.parent, exist_ok=True)
        self.lock = os.open(self.parent, os.O_RDONLY | os.O_DIRECTORY)
        try:
            fcntl.flock(self.lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print("plots: waiting for another make plots, report or compare writing in %s" % self.parent,
                  file=sys.stderr)
            fcntl.flock(self.lock, fcntl.LOCK_EX)
        self.ours = read_manifest(self.out, self.legacy)  # as it is now that no other report writes
        prefix = "." + self.name + ASIDE
        for n in os.listdir(self.parent):  # what a stopped report left (we hold the lock: none is running)
            if n.startswith(prefix) and os.path.isdir(os.path.join(self.parent, n)):
                shutil.rmtree(os.path.join(self.parent, n), ignore_errors=True)
        try:
            self.tmp = tempfile.mkdtemp(prefix=prefix, dir=self.parent)
        except OSError as x:
            os.close(self.lock)
            raise Error("cannot make the report beside OUT=%s, in %s (it is made there and swapped in whole): %s"
                        % (self.given, self.parent, x.strerror)) from None
        return self.tmp

    def __exit__(self, kind, _value, _tb):
        try:
            if kind is None:
                self.publish()
        finally:
            if self.tmp and os.path.isdir(self.tmp):
                shutil.rmtree(self.tmp, ignore_errors=True)
            os.close(self.lock)
        return False

    def publish(self):
        made = sorted(os.listdir(self.tmp))
        with open(os.path.join(self.tmp, MANIFEST), "w", encoding="utf-8") as f:
            f.write("".join(n + "\n" for n in made))
        for n in kept_files(self.out, self.ours, self.given):
            if n in made and n in self.replaced:
                continue
            if n in made:
                raise Error("OUT=%s holds %s, which no report wrote (not in its %s) and this one would replace: "
                            "move it away or give another OUT=" % (self.given, n, MANIFEST))
            carry(os.path.join(self.out, n), os.path.join(self.tmp, n))
        old = os.stat(self.out) if os.path.isdir(self.out) else None
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(self.tmp, stat.S_IMODE(old.st_mode) if old else 0o777 & ~umask)
        if old and os.geteuid() == 0:
            os.chown(self.tmp, old.st_uid, old.st_gid)
        if old is None:
            os.rename(self.tmp, self.out)
        elif not exchange(self.tmp, self.out):
            gone = tempfile.mkdtemp(prefix="." + self.name + ASIDE, dir=self.parent)
            os.rename(self.out, os.path.join(gone, "old"))
            os.rename(self.tmp, self.out)
            self.tmp = gone
