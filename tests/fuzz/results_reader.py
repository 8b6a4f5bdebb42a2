#!/usr/bin/env python3
"""A property test of the results readers (plots/resultslib.py and the
readers of latency, profiles and raw files): random result trees, made of a
valid tiny run cut and spliced with hostile pieces (odd numbers, bytes that
are not UTF-8, control characters, quotes, huge fields), read as the report
reads them, without gnuplot.  The property: reading fails only with
resultslib.Error (one line) or a warning, never another exception.

  tests/fuzz/results_reader.py [--seed N] [--iterations N] [--dir DIR]

Prints "N trees, no crash" and exits 0, or the traceback, the seed and the
iteration of the first crash and exits 1 (the tree is left in DIR).
Deterministic for a seed; tests/hostile-results.bats runs a short one."""
import argparse
import contextlib
import io
import os
import random
import shutil
import sys
import tempfile
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "plots"))
sys.dont_write_bytecode = True

import budget  # noqa: E402
import charts  # noqa: E402
import export  # noqa: E402
import kprofile  # noqa: E402
import latency  # noqa: E402
import micro_charts  # noqa: E402
import ranking  # noqa: E402
import resultslib  # noqa: E402

PIECES = [b"untar", b"serve-cold-1", b"flush", b"iozone", b"iometer", b"discover", b"1", b"2", b"0", b"-1",
          b"3.5", b"1e18", b"1e308", b"1e400", b"nan", b"inf", b"-0", b".5", b"5.", b"1_0", b"9" * 60,
          "\u00b2".encode(), "\u0663".encode(), b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x00", b"\r", b"\x1b[31m",
          b"\t", b"\n", b" ", b"\"", b"'", b"`", b"%s", b"@", b"{", b"}", b"\\", b"/", b"..", b"wall_s", b"rps",
          b"status", b"error", b"skip_reason", b"failed", b"failed_allowed", b"budget_wall_s", b"budget_cpus",
          b"budget_user_s", b"requests", b"write.fs64k.rs4k.kBps", b"write.fs0k.rs4k.kBps",
          b"workstation.qd4.iops", b"workstation.qd0.iops", b"n100.t200.tps", b"block_B", b"s", b"req/s",
          b"exit", b"text", b"count", b"kB/s", b"bool", b"B", b"tool_bytes", b"dirty_kb", b"blk_ns",
          b"httpd_open_ns", b"8:0", b"4096", b"_[k]", b";"]
METRICS = [b"wall_s", b"rps", b"status", b"error", b"failed", b"failed_allowed", b"budget_wall_s",
           b"budget_cpus", b"budget_user_s", b"requests", b"write.fs64k.rs4k.kBps", b"write.fs0k.rs4k.kBps",
           b"workstation.qd4.iops", b"workstation.qd0.iops", b"n100.t200.tps", b"block_B"]
PHASES = [b"untar", b"serve-cold-1", b"serve-warm-1", b"flush", b"iozone", b"iometer", b"postmark", b"discover"]
UNITS = [b"s", b"req/s", b"exit", b"text", b"count", b"kB/s", b"IO/s", b"trans/s", b"B", b"bool"]
# the hostile values of a field, tried more often than junk finds them
ODD_NUMBERS = ["\u00b2".encode(), "1\u00b2".encode(), "\u0663".encode(), b"9" * 5000, b"1e308", b"1e400", b"nan",
               b"-inf", b"-5", b"1_000", b" 1", b"0x10", b"", b"\xff"]


class Trees:
    def __init__(self, rnd):
        self.r = rnd

    def junk(self, n):
        return b"".join(self.r.choice(PIECES) for _ in range(self.r.randint(0, n)))

    def pick(self, good, bad_n=3, odd=()):
        x = self.r.random()
        return self.r.choice(good) if x < 0.75 else self.r.choice(odd) if odd and x < 0.9 else self.junk(bad_n)

    def records(self):
        lines = [b"phase\ttrial\tmetric\tvalue\tunit"]
        for _ in range(self.r.randint(0, 40)):
            if self.r.random() < 0.85:
                lines.append(b"\t".join([self.pick(PHASES), self.pick([b"1", b"2", b"3"], odd=ODD_NUMBERS),
                                         self.pick(METRICS),
                                         self.pick([b"3.5", b"0", b"1", b"2e3", b"-1"], odd=ODD_NUMBERS),
                                         self.pick(UNITS, 1)]))
            else:
                lines.append(self.junk(10))
        return b"\n".join(lines) + self.r.choice([b"\n", b""])

    def meta(self):
        return self.r.choice([
            b'{"os": "debian", "fs": "' + self.junk(3).replace(b'"', b"").replace(b"\\", b"") + b'"}',
            b'{"mem_kb": 1e400, "replay_count": ' + self.r.choice([b"1e400", b"9" * 5000, b"-1", b"2"]) + b"}",
            b'{"os": "\\ud800", "\\udfff": ["\\ud83d\\ude00"]}', b"[" * 3000, b"[]", b"null", self.junk(8)])

    def table(self, good, n=12):
        """N lines: GOOD ones, a good one with a field made odd, or junk."""
        out = []
        for _ in range(n):
            x, line = self.r.random(), self.r.choice(good)
            if 0.6 <= x < 0.85:
                fields = line.split(b"\t") if b"\t" in line else line.split(b" ")
                fields[self.r.randrange(len(fields))] = self.r.choice(ODD_NUMBERS)
                line = (b"\t" if b"\t" in line else b" ").join(fields)
            elif x >= 0.85:
                line = self.junk(6)
            out.append(line)
        return b"\n".join(out)

    def write(self, root):
        shutil.rmtree(root, ignore_errors=True)
        hosts = [b"h", self.junk(2).replace(b"/", b"_").replace(b"\x00", b"") or b"h2"]
        for h in hosts:
            if h in (b".", b".."):
                continue
            for v in (b"ext4", b"xfs"):
                d = os.path.join(os.fsencode(root), b"r", h, v)
                for sub in (b"series", b"latency", b"profiles", b"raw/discover-1"):
                    os.makedirs(os.path.join(d, sub), exist_ok=True)
                files = {b"records.tsv": self.records(), b"meta.json": self.meta(),
                         b"series/untar-1.tsv": self.table([b"0.0\ttool_bytes\t0", b"1.5\ttool_bytes\t2000000",
                                                            b"2\tdirty_kb\t40", b"1e300\ttool_bytes\t5"]),
                         b"latency/serve-cold-1-1.tsv": self.table([b"blk_ns\t8:0\t4096\t5", b"blk_qd\t8:0\t2\t3",
                                                                    b"httpd_open_ns\t-\t0\t7"]),
                         b"profiles/untar-1.folded": self.table([b"tar;vfs_write_[k] 5", b"idle;do_idle_[k] 3"], 5),
                         b"raw/discover-1/block.tsv": self.table([b"0\t12.5", b"4096\t30"], 5)}
                for name, data in files.items():
                    with open(os.path.join(d, name), "wb") as f:
                        f.write(data)


def read_all(root):
    """Everything the report reads of run r, as it reads it."""
    run = resultslib.load_run(root, "r")
    for v in run.variants:
        for p in v.phases():
            for m in ("wall_s", "rps", "requests"):
                v.values(p, m)
                budget.proof(v, p, m)
        for files in v.series_files().values():
            charts.series_columns(resultslib.series_table(files[0][1]))
        for test in ("block",):
            micro_charts.discover_points(v, test)
        micro_charts.iozone_cells(v)
        micro_charts.iometer_specs(v)
    latency.markdown_section([run])
    kprofile.groups_of(run.variants)
    export.rows([run])
    for p in {p for v in run.variants for p in v.phases()}:
        ranking.rank(run.variants, p, "wall_s")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--iterations", type=int, default=1000)
    ap.add_argument("--dir", help="where the trees are made (default: a temporary directory)")
    a = ap.parse_args(argv)
    top = a.dir or tempfile.mkdtemp(prefix="results-reader.")
    trees = Trees(random.Random(a.seed))
    for i in range(a.iterations):
        trees.write(top)
        try:
            with contextlib.redirect_stderr(io.StringIO()):
                read_all(top)
        except resultslib.Error:
            pass
        except Exception:  # noqa: BLE001 - the property: nothing else escapes
            traceback.print_exc()
            print("crash: seed %d, iteration %d, tree in %s" % (a.seed, i, top))
            return 1
    if not a.dir:
        shutil.rmtree(top, ignore_errors=True)
    print("%d trees, no crash" % a.iterations)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
