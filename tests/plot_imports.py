#!/usr/bin/env python3
"""plot_imports.py [DIR]: the imports between the modules of plots/ (DIR),
read from their source (every import, also one inside a function), checked
against the layering of docs/results.md: tdist.py (the distributions)
and readers.py (the strict readers of a result tree) import no module of
plots/, blocked.py (the rounds' analysis) only tdist, stats.py (the
statistics) only those two, resultslib.py (reading results/) only stats
and readers, the modules that decide (DECIDE) only each other and those
five, and no module goes round to itself. Prints
each break on a line and exits 1; prints the module count and exits 0 when
there is none."""
import ast
import os
import sys

BOTTOM = {"tdist": set(), "readers": set(), "blocked": {"tdist"}, "stats": {"tdist", "blocked"},
          "resultslib": {"stats", "readers"}}
DECIDE = {"tdist", "readers", "blocked", "stats", "resultslib", "ranking", "budget"}


def imports_of(path, names):
    """The modules of NAMES that the file at PATH imports, anywhere in it."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.add(node.module.split(".")[0])
    return out & names


def cycles(graph):
    """The strongly connected components of GRAPH with a cycle (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in graph[v]:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main(argv):
    d = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "plots")
    files = {fn[:-3]: os.path.join(d, fn) for fn in os.listdir(d) if fn.endswith(".py")}
    names = set(files)
    graph = {m: imports_of(p, names) - {m} for m, p in files.items()}
    bad = []
    for comp in cycles(graph):
        edges = ["%s -> %s" % (a, b) for a in comp for b in sorted(graph[a]) if b in comp]
        bad.append("import circle: %s (%s)" % (", ".join(comp), "; ".join(edges)))
    for m, allowed in sorted(BOTTOM.items()):
        for dep in sorted(graph.get(m, set()) - allowed):
            bad.append("layering: %s.py imports %s (it may import only: %s)" % (m, dep, ", ".join(sorted(allowed)) or "nothing of plots/"))
    for m in sorted(DECIDE - set(BOTTOM)):
        for dep in sorted(graph.get(m, set()) - DECIDE):
            bad.append("layering: %s.py decides, but imports %s, which draws" % (m, dep))
    for line in bad:
        print(line)
    if bad:
        return 1
    print("%d modules, no import circle, layering kept" % len(graph))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
