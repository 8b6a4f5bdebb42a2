#!/usr/bin/env python3
"""make bisect's profile of the culprit against its parent: flame graphs of
each (drawn by inferno, as plots/kprofile.py draws the report's), the
differential flame graphs both ways, and the kernel functions whose share of
the samples changed most.

    bisect_profile.py PARENT.folded CULPRIT.folded OUTDIR

The folded profiles ("ROOT;OUTERMOST;...;INNERMOST COUNT", kernel frames
ending in _[k]: harness/os/linux.sh's os_parse_profile_perf) are one
profile a side, taken while the figure's phase ran; OUTDIR gets parent.svg,
culprit.svg, culprit-vs-parent.svg (the culprit's shape, red grew) and
parent-vs-culprit.svg (the parent's shape, blue shrank or vanished).
Markdown for report.md on stdout.  Bad input: one line on stderr, exit 2.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "plots"))
import kprofile  # noqa: E402  (plots/kprofile.py)

TOP = 10


def main(argv):
    if len(argv) != 3:
        print("usage: bisect_profile.py PARENT.folded CULPRIT.folded OUTDIR", file=sys.stderr)
        return 2
    parent_path, culprit_path, out = argv
    try:
        parent, culprit = kprofile.read_folded(parent_path), kprofile.read_folded(culprit_path)
    except (OSError, kprofile.FoldedError) as e:
        print("bisect_profile: %s" % e, file=sys.stderr)
        return 2
    if not parent or not culprit:
        print("bisect_profile: %s has no samples" % (parent_path if not parent else culprit_path), file=sys.stderr)
        return 2
    os.makedirs(out, exist_ok=True)
    lines = ["## The culprit against its parent: kernel profiles", ""]
    drawn = []
    for name, path, title in (
            ("parent", parent_path, "the parent"),
            ("culprit", culprit_path, "the culprit"),
            ("culprit-vs-parent", None, "the culprit, coloured by the change from its parent (red grew)"),
            ("parent-vs-culprit", None, "the parent, coloured by the change to the culprit (blue shrank)")):
        if path:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        elif name == "culprit-vs-parent":
            text = kprofile.diff_folded(parent_path, culprit_path) or ""
        else:
            text = kprofile.diff_folded(culprit_path, parent_path) or ""
        if kprofile.flamegraph(text, os.path.join(out, name + ".svg"), title, negate=name == "parent-vs-culprit"):
            drawn.append("[%s](%s/%s.svg)" % (title, os.path.basename(out), name))
    if drawn:
        lines.append("Flame graphs: " + "; ".join(drawn) + ".")
    else:
        lines.append("No flame graph: %s." % ("inferno is not built (make deps)"
                                              if not kprofile.inferno("inferno-flamegraph") else "inferno failed"))
    pn, pself, _ = kprofile.shares(parent)
    cn, cself, _ = kprofile.shares(culprit)
    rows = sorted(((cself.get(f, 0.0) - pself.get(f, 0.0), f) for f in set(pself) | set(cself)),
                  key=lambda r: (-abs(r[0]), r[1]))[:TOP]
    lines += ["", "The kernel functions whose self share of the samples changed most (%d samples of the parent, "
              "%d of the culprit; one profile a side, so no interval: the figures above are the evidence, "
              "this says where to look):" % (pn, cn), "",
              "| function | parent % | culprit % | change (points) |", "| --- | --- | --- | --- |"]
    for d, f in rows:
        lines.append("| `%s` | %.1f | %.1f | %+.1f |" % (f, pself.get(f, 0.0), cself.get(f, 0.0), d))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
