#!/usr/bin/env python3
"""berth's layer check (docs/design.md, "Layers"): reads the built objects' symbols with nm
and every #include line under src/, and fails when
  - an object refers to a symbol defined in a higher layer, or in a sibling layer of the
    same rank (model/ and solve/; sim/, io/ and pack/), or in a higher room of live/;
  - a file includes a header of a higher or sibling layer;
  - a file includes another folder's private header (*_int.h);
  - a source folder is not in the table below (a new layer must be placed by hand);
  - a file of the daemon room (src/live/daemon) calls a file of a higher rank there, or of
    another group of its rank (DAEMON below: the core never calls a subsystem by name, a
    subsystem calls the core and the parts below it, never another subsystem of its rank),
    or the core's own files call each other in a circle.
Usage: scripts/check-layers.py [BUILD_DIR]   (default build; run after make build)"""
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nm_symbols import nm_symbols  # noqa: E402

# folder -> (rank, sub-rank). Rooms (subfolders) share their layer's rank; live/'s rooms are
# ordered among themselves, so their sub-ranks count too; other rooms may use each other.
LAYERS = {
    "util": (1, 0),
    "model": (2, 0),
    "solve": (2, 0),
    "sched": (3, 0),
    "policy": (4, 0),
    "engine": (5, 0),
    "sim": (6, 0),
    "io": (6, 0),
    "pack": (6, 0),
    "report": (7, 0),
    "slurmapi": (7, 0),
    "live/jobs": (8, 1),
    "live/exec": (8, 2),
    "live/daemon": (8, 3),
    "live/http": (8, 4),
    "cli": (9, 0),
    "berthd": (9, 0),
}

# src/live/daemon's files -> (rank, group): a file may use lower ranks and its own group.
# 0 parts the core and the subsystems use; 1 the core (job table, lock, tick, journal
# writes, the engine bridge, recovery, the purge); 2 subsystems that register hooks with the
# core or read its table; 3 subsystems over those (services drive the inference demand); 4
# the assembly that creates the core and attaches every subsystem. A new file must be placed.
DAEMON = {
    "auth": (0, "auth"), "socket_rule": (0, "socket_rule"), "listener": (0, "listener"),
    "scrape": (0, "scrape"), "autoscale": (0, "autoscale"), "statefile": (0, "statefile"),
    "options": (0, "options"),
    "core": (1, "core"), "core_purge": (1, "core"), "core_tick": (1, "core"),
    "core_ops": (1, "core"), "core_host": (1, "core"), "core_recover": (1, "core"),
    "deps": (2, "deps"), "infer": (2, "infer"), "telemetry": (2, "telemetry"),
    "acct": (2, "acct"), "estimate": (2, "estimate"), "estimator": (2, "estimate"),
    "service": (3, "service"),
    "service_api": (3, "service"),
    "service_scrape": (3, "service"),
    "daemon": (4, "daemon"),
}


def daemon_problems(objs):
    """The daemon room's file-level rule (DAEMON) on the objects' symbols."""
    bad, defs, uses = [], {}, {}
    for o in objs:
        src = o.split("/src/", 1)[1][: -len(".o")]
        if not src.startswith("live/daemon/") or not os.path.exists("src/" + src):
            continue
        name = os.path.basename(src)[: -len(".c")]
        if name not in DAEMON:
            bad.append("src/%s: a file of the daemon room that DAEMON does not place" % src)
            continue
        for sym, kind in nm_symbols(o):
            if kind == "U":
                uses.setdefault(name, set()).add(sym)
            else:
                defs[sym] = name
    edges = {}
    for user, syms in sorted(uses.items()):
        for sym in sorted(syms):
            used = defs.get(sym)
            if not used or used == user:
                continue
            edges.setdefault(user, set()).add(used)
            (ru, gu), (rd, gd) = DAEMON[user], DAEMON[used]
            if rd > ru or (rd == ru and gd != gu):
                bad.append("src/live/daemon/%s.c: uses %s, defined in %s.c (%s)" % (
                    user, sym, used, "a higher rank of the daemon room" if rd > ru
                    else "another subsystem of its rank"))
    # no circle among the files of one group (the core's files are one way among themselves)
    def reach(a, b, seen):
        for n in edges.get(a, ()):
            if n == b or (n not in seen and DAEMON[n][1] == DAEMON[b][1] and
                          (seen.add(n) or reach(n, b, seen))):
                return True
        return False
    for a in sorted(edges):
        for b in sorted(edges[a]):
            if DAEMON[a][1] == DAEMON[b][1] and a < b and reach(b, a, set()):
                bad.append("src/live/daemon/%s.c and %s.c: call each other (a circle)" % (a, b))
    return bad


def folder_of(path):
    """src/live/exec/shim.c -> live/exec; src/policy/salus/salus.c -> policy."""
    rel = path.split("src/", 1)[1]
    parts = rel.split("/")[:-1]
    for n in range(len(parts), 0, -1):
        key = "/".join(parts[:n])
        if key in LAYERS:
            return key
    return None


def top(folder):
    return folder.split("/")[0]


def problem(user, used):
    """Why folder `user` may not use folder `used`, or None."""
    (ru, su), (rd, sd) = LAYERS[user], LAYERS[used]
    if top(user) == top(used):
        return "a higher room of %s/" % top(user) if sd > su else None
    if rd > ru:
        return "a higher layer"
    if rd == ru:
        return "a sibling layer"
    return None


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    bad = []
    # every source folder is placed in the table
    for d, _, files in os.walk("src"):
        if any(f.endswith((".c", ".h")) for f in files) and folder_of(os.path.join(d, "x.c")) is None:
            bad.append("%s: a source folder the layer table does not place" % d)
    # includes
    inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
    for d, _, files in os.walk("src"):
        for f in files:
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(d, f)
            user = folder_of(path)
            for n, line in enumerate(open(path).read().split("\n"), 1):
                m = inc.match(line)
                if not m or m.group(1).startswith("berth/"):
                    continue
                name = m.group(1)
                target = os.path.join("src", name)
                if top(user) == "cli" and os.path.exists(os.path.join(d, name)):
                    continue  # the CLI sees only include/berth/ and its own folder
                if not os.path.exists(target):
                    bad.append("%s:%d: #include \"%s\" names no file under src/ (write the folder)" % (path, n, name))
                    continue
                used = folder_of(target)
                if name.endswith("_int.h") and os.path.dirname(target) != d:
                    bad.append("%s:%d: includes %s, private to %s/" % (path, n, name, os.path.dirname(name)))
                why = problem(user, used) if used else None
                if why:
                    bad.append("%s:%d: includes %s, %s (%s/ on %s/)" % (path, n, name, why, user, used))
    # symbols
    objs = []
    for d, _, files in os.walk(os.path.join(build, "CMakeFiles")):
        for f in files:
            if f.endswith(".c.o") and "/src/" in d + "/":
                objs.append(os.path.join(d, f))
    if not objs:
        sys.exit("check-layers: no objects under %s/CMakeFiles (run make build first)" % build)
    defined, undefined = {}, {}
    for o in objs:
        src = o.split("/src/", 1)[1][: -len(".o")]
        folder = folder_of("src/" + src)
        if folder is None or not os.path.exists("src/" + src):
            continue  # not a source of this tree (a stale object of a moved file)
        for sym, kind in nm_symbols(o):
            if kind == "U":
                undefined.setdefault(folder, {}).setdefault(sym, src)
            else:
                defined.setdefault(sym, set()).add((folder, src))
    for user, syms in sorted(undefined.items()):
        for sym, src in sorted(syms.items()):
            for used, where in sorted(defined.get(sym, ())):
                # a program's main objects may define the same names (main); skip itself
                why = problem(user, used)
                if why:
                    bad.append("src/%s: uses %s, defined in %s (%s: %s/ on %s/)" % (src, sym, where, why, user, used))
    bad += daemon_problems(objs)
    for b in bad:
        print("check-layers: " + b)
    print("check-layers: %d objects, %d symbols, %d problems" % (len(objs), len(defined), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
