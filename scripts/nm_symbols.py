"""The global symbols of one object file, as nm -P lists them (shared by check-layers.py and
check-file-circles.py, which draw berth's call graph from the built objects)."""
import subprocess


def nm_symbols(obj):
    """Yields (symbol, "U") for each undefined symbol of obj and (symbol, "D") for each global
    one it defines (nm's upper-case kinds: T, D, B, R, C, ...)."""
    out = subprocess.run(["nm", "-P", obj], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        sym, kind = parts[0], parts[1]
        if kind == "U":
            yield sym, "U"
        elif kind.isupper():
            yield sym, "D"
