#!/usr/bin/env python3
"""berth's file-circle check: reads the built objects' symbols with nm -P, draws the
file-level call graph (file A -> file B when A's object has an undefined global symbol that
B's object defines) and prints every strongly connected component of more than one file that
touches the folders given, with the symbols behind each edge inside it. Calls between two
files should go one direction only; a circle means one of them knows the other when it
should not.
Usage: scripts/check-file-circles.py [BUILD_DIR] [FOLDER...]
  BUILD_DIR defaults to build; FOLDERs are source folders (src/io, src/live/http, ...),
  default all of src/. Exit 1 when any circle is printed, 0 when none."""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nm_symbols import nm_symbols  # noqa: E402


def objects(build):
    """source path (src/...) -> its object files (one source may build into several targets)."""
    out = {}
    for d, _, files in os.walk(os.path.join(build, "CMakeFiles")):
        for f in files:
            path = os.path.join(d, f)
            if not f.endswith(".c.o") or "/src/" not in path:
                continue
            src = "src/" + path.split("/src/", 1)[1][: -len(".o")]
            if os.path.exists(src):  # else a stale object of a moved or removed file
                out.setdefault(src, []).append(path)
    return out


def symbols(objs):
    """-> (defined: symbol -> set of sources, undefined: source -> set of symbols)."""
    defined, undefined = {}, {}
    for src, paths in objs.items():
        for o in paths:
            for sym, kind in nm_symbols(o):
                if kind == "U":
                    undefined.setdefault(src, set()).add(sym)
                else:
                    defined.setdefault(sym, set()).add(src)
    return defined, undefined


def graph(defined, undefined):
    """-> {user: {used: sorted symbols}}, self-edges left out."""
    edges = {}
    for user, syms in undefined.items():
        for sym in syms:
            for used in defined.get(sym, ()):
                if used != user:
                    edges.setdefault(user, {}).setdefault(used, []).append(sym)
    for targets in edges.values():
        for used in targets:
            targets[used].sort()
    return edges


def components(nodes, edges):
    """Tarjan's strongly connected components, without recursion."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = 0
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, {}))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(edges.get(nxt, {})))))
                elif nxt in on:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    member = stack.pop()
                    on.discard(member)
                    comp.append(member)
                    if member == node:
                        break
                out.append(sorted(comp))
    return out


def inside(src, folders):
    return any(src == f or src.startswith(f.rstrip("/") + "/") for f in folders)


def main():
    args = sys.argv[1:]
    if args and args[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    build = args[0] if args else "build"
    folders = [os.path.normpath(f) for f in args[1:]] or ["src"]
    objs = objects(build)
    if not objs:
        sys.exit("check-file-circles: no objects under %s/CMakeFiles (build first)" % build)
    for f in folders:
        if not os.path.isdir(f):
            sys.exit("check-file-circles: %s is not a folder (name it from the repository root)" % f)
    defined, undefined = symbols(objs)
    edges = graph(defined, undefined)
    circles = [c for c in components(objs.keys(), edges) if len(c) > 1 and any(inside(s, folders) for s in c)]
    for comp in sorted(circles):
        print("circle of %d files: %s" % (len(comp), " ".join(comp)))
        members = set(comp)
        for user in comp:
            for used, syms in sorted(edges.get(user, {}).items()):
                if used in members:
                    print("  %s -> %s: %s" % (user, used, " ".join(syms)))
    scope = sum(1 for s in objs if inside(s, folders))
    print("check-file-circles: %d files in %s, %d circles" % (scope, " ".join(folders), len(circles)))
    return 1 if circles else 0


if __name__ == "__main__":
    sys.exit(main())
