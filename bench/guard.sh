#!/usr/bin/env bash
# The performance guard: is HEAD slower than BASE? Builds both commits in scratch folders
# (git worktrees, RelWithDebInfo, ccache when present) and runs the same cases with each,
# interleaved (A B, then B A, ... PAIRS pairs), measuring each run's CPU time (user + system,
# from the kernel's rusage of the child, so a busy machine costs wall time, not the verdict).
# Per case it prints both medians, the median of the pairs' ratios HEAD/BASE and their spread
# (lowest and highest pair), and a verdict: SLOWER when the median ratio is above
# 1 + THRESHOLD and every pair was slower (the spread excludes 1) and the medians differ by
# more than MIN_DELTA seconds (a few milliseconds of a 0.07 s case are process start-up, not
# the policy); FASTER the other way round. It exits 1 when a case is SLOWER.
# It also compares the two builds' outputs case by case (the --json summary without wall_s and events_per_s,
# the exit status, stderr): the table says which differ; --outputs strict makes a difference
# fail too (a refactoring's check; scripts/same-outputs.sh runs the larger matrix).
#
# Sets: full (every policy on the real Philly trace on 64x8:v100; every policy on 100,000
# generated gavel jobs on 625x8:v100; the Salus policies on the 1-GPU part of it), ci (a
# reduced set that CI runs against bench/baseline, the last commit that landed).
#
# Usage: bench/guard.sh [--set full|ci] [--pairs N] [--threshold PCT] [--min-delta S]
#                       [--outputs report|strict] [--only REGEX] [--md FILE] BASE [HEAD]
# BASE, HEAD: commits; HEAD left out: the working tree as it is (uncommitted changes too),
# built in a scratch folder like BASE. Env: SHARED (../shared), KEEP=DIR keeps the builds
# and the outputs there. `make guard BASE=REV` runs the full set.
set -euo pipefail
cd "$(dirname "$0")/.."
SET=full PAIRS=5 THRESHOLD=10 MIN_DELTA=0.02 OUTPUTS=report ONLY= MD=
usage() { sed -n '/^# Usage:/,/^# and the outputs/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
die() { echo "guard: $*" >&2; exit 2; }
args=()
while [ $# -gt 0 ]; do
    case $1 in
    --set) SET=${2:-}; shift 2 ;;
    --pairs) PAIRS=${2:-}; shift 2 ;;
    --threshold) THRESHOLD=${2:-}; shift 2 ;;
    --min-delta) MIN_DELTA=${2:-}; shift 2 ;;
    --outputs) OUTPUTS=${2:-}; shift 2 ;;
    --only) ONLY=${2:-}; shift 2 ;;
    --md) MD=${2:-}; shift 2 ;;
    -h | --help) usage ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) args+=("$1"); shift ;;
    esac
done
[ ${#args[@]} -ge 1 ] && [ ${#args[@]} -le 2 ] || usage
case $SET in full | ci) ;; *) die "--set: '$SET' is neither full nor ci" ;; esac
case $PAIRS in '' | *[!0-9]*) die "--pairs: '$PAIRS' is not a whole number" ;; esac
[ "$PAIRS" -ge 1 ] || die "--pairs: at least 1"
case $THRESHOLD in '' | *[!0-9.]*) die "--threshold: '$THRESHOLD' is not a percentage" ;; esac
case $MIN_DELTA in '' | *[!0-9.]*) die "--min-delta: '$MIN_DELTA' is not seconds" ;; esac
case $OUTPUTS in report | strict) ;; *) die "--outputs: '$OUTPUTS' is neither report nor strict" ;; esac
BASE=$(git rev-parse --verify --quiet "${args[0]}^{commit}") || die "BASE: no commit '${args[0]}'"
HEAD_REV=${args[1]:-}
if [ -n "$HEAD_REV" ]; then
    HEAD_REV=$(git rev-parse --verify --quiet "$HEAD_REV^{commit}") || die "HEAD: no commit '${args[1]}'"
fi
SHARED=${SHARED:-../shared}
SHARED=$(readlink -f "$SHARED")
PHILLY=$SHARED/traces/philly-pollux/philly.csv
[ -f "$PHILLY" ] || die "no Philly trace at $PHILLY (set SHARED)"

T=${KEEP:-$(mktemp -d)}
mkdir -p "$T"
T=$(readlink -f "$T")
cleanup() {
    git worktree remove --force "$T/base" >/dev/null 2>&1 || true
    git worktree remove --force "$T/head" >/dev/null 2>&1 || true
    [ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT

build() { # build NAME REV|"": berth at REV (or the working tree) in $T/NAME-build
    local name=$1 rev=$2 src=$T/$1 launcher=()
    git worktree remove --force "$src" >/dev/null 2>&1 || rm -rf "$src"
    if [ -n "$rev" ]; then
        git worktree add --detach "$src" "$rev" >/dev/null 2>&1 || die "git worktree add $rev failed"
    else # the working tree: tracked files as they are now, and untracked ones git does not ignore
        mkdir -p "$src"
        git ls-files -z --cached --others --exclude-standard |
            while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
            tar --null -T - -cf - | tar -xf - -C "$src"
    fi
    command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache)
    cmake -S "$src" -B "$T/$name-build" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" \
        -DBERTH_SHARED_DIR="$SHARED" >"$T/$name-cmake.log" 2>&1 ||
        die "cmake for $name failed: $T/$name-cmake.log"
    cmake --build "$T/$name-build" -j"$(nproc)" --target berth_cli >"$T/$name-build.log" 2>&1 ||
        die "building $name failed: see $T/$name-build.log"
}
HEAD_NAME=worktree
[ -z "$HEAD_REV" ] || HEAD_NAME=$(git rev-parse --short "$HEAD_REV")
echo "guard: building BASE $(git rev-parse --short "$BASE") and HEAD $HEAD_NAME" >&2
build base "$BASE"
build head "$HEAD_REV"
A=$T/base-build/berth B=$T/head-build/berth

# ---- the cases: one line each, NAME ARGS... ---------------------------------------------------
I=$T/in
mkdir -p "$I"
"$B" gen --profile gavel --jobs 100000 --rate 150 --seed 1 --out "$I/g100k.csv"
awk -F, 'NR == 1 || ($4 == 1 && n++ < 20000)' "$I/g100k.csv" >"$I/onegpu.csv"
cat >"$I/mem.json" <<'JSON'
{"servers": [{"gpu_type": "v100", "gpus": 1, "count": 64, "gpu_mem_mib": 16384}]}
JSON
# the policies both builds know
pol() { "$1" policies | awk '/^placements/ {exit} /^  [a-z]/ {print $1}' | sort; }
POLICIES=$(comm -12 <(pol "$A") <(pol "$B"))
M=$T/cases
: >"$M"
case_() { if [ -z "$ONLY" ] || [[ ${1%% *} =~ $ONLY ]]; then printf '%s\n' "$*" >>"$M"; fi; }
if [ "$SET" = full ]; then
    for p in $POLICIES; do
        case $p in
        salus-*) case_ "salus-1gpu-20k/$p sim --cluster $I/mem.json --trace $I/onegpu.csv --policy $p --colocate-speed 0.8 --json" ;;
        *)
            case_ "philly/$p sim --cluster 64x8:v100 --trace $PHILLY --policy $p --json"
            case_ "gavel-100k/$p sim --cluster 625x8:v100 --trace $I/g100k.csv --policy $p --json"
            ;;
        esac
    done
else # ci: the policies whose cost has moved before, and one of each family
    for p in fifo backfill las tiresias-dlas gavel-max-min themis-ftf goodput specon aryl; do
        case_ "philly/$p sim --cluster 64x8:v100 --trace $PHILLY --policy $p --json"
    done
    for p in fifo las gavel-max-min; do
        case_ "gavel-100k/$p sim --cluster 625x8:v100 --trace $I/g100k.csv --policy $p --json"
    done
fi
[ -s "$M" ] || die "no case left (--only '$ONLY')"
echo "guard: $(wc -l <"$M") cases, $PAIRS pairs each, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start" >&2

python3 - "$A" "$B" "$M" "$PAIRS" "$THRESHOLD" "$MIN_DELTA" "$OUTPUTS" "$T/out" "${MD:-}" \
    "$(git rev-parse --short "$BASE")" "$HEAD_NAME" <<'PY'
import json, os, re, resource, shlex, statistics, subprocess, sys, time
a, b, cases, pairs, thr, min_delta, outputs, outdir, md, base_name, head_name = sys.argv[1:]
pairs, thr, min_delta = int(pairs), float(thr) / 100, float(min_delta)
os.makedirs(outdir, exist_ok=True)

def run(binary, args):
    """One run: (CPU seconds of the child, its exit status, stdout, stderr)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run([binary] + args, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, p.returncode, p.stdout, p.stderr

def canon(rc, out, err):
    """What must match between the builds: the summary without its wall time."""
    try:
        d = json.loads(out)
        for k in ("wall_s", "events_per_s"):  # the figures that differ from run to run
            d.pop(k, None)
        out = json.dumps(d, sort_keys=True)
    except ValueError:
        pass
    return f"exit {rc}\n{out}\n--- stderr\n{err}"

rows, slower, differ = [], [], []
print(f"{'case':<34} {base_name:>8} {head_name:>8}  {'ratio':>6}  {'spread':<14}  outputs", flush=True)
for line in open(cases):
    name, *args = shlex.split(line)
    ta, tb, seen = [], [], {}
    for i in range(pairs):
        order = ((a, ta, "base"), (b, tb, "head"))
        for binary, times, side in (order if i % 2 == 0 else order[::-1]):
            cpu, rc, out, err = run(binary, args)
            times.append(cpu)
            if side not in seen:
                seen[side] = canon(rc, out, err)
    same = seen["base"] == seen["head"]
    if not same:
        differ.append(name)
        for side in ("base", "head"):
            with open(os.path.join(outdir, name.replace("/", "_") + "." + side), "w") as f:
                f.write(seen[side])
    ratios = [y / x if x > 0 else float("inf") for x, y in zip(ta, tb)]
    ma, mb, r = statistics.median(ta), statistics.median(tb), statistics.median(ratios)
    lo, hi = min(ratios), max(ratios)
    verdict = ""
    if r > 1 + thr and lo > 1 and mb - ma > min_delta:
        verdict = "SLOWER"
        slower.append(name)
    elif r < 1 - thr and hi < 1 and ma - mb > min_delta:
        verdict = "faster"
    rows.append((name, ma, mb, r, lo, hi, "same" if same else "DIFFER", verdict))
    print(f"{name:<34} {ma:8.3f} {mb:8.3f}  {r:6.3f}  [{lo:5.3f}, {hi:5.3f}]  {rows[-1][6]:<6}  {verdict}",
          flush=True)

load = open("/proc/loadavg").read().split()[:3]
head = (f"| case | {base_name} CPU s | {head_name} CPU s | ratio | spread | outputs | verdict |\n"
        "|---|---:|---:|---:|---|---|---|\n")
table = head + "".join(f"| {n} | {x:.3f} | {y:.3f} | {r:.3f} | {lo:.3f}–{hi:.3f} | {o} | {v} |\n"
                       for n, x, y, r, lo, hi, o, v in rows)
foot = (f"\n{len(rows)} cases, {pairs} interleaved pairs each (CPU seconds, medians; ratio = median "
        f"of the pairs' {head_name}/{base_name}); threshold {thr:.0%}; load average "
        f"{' '.join(load)} at the end.\n")
if md:
    with open(md, "w") as f:
        f.write(table + foot)
print(f"guard: {len(rows)} cases; {len(slower)} slower ({', '.join(slower) or 'none'}); "
      f"outputs differ in {len(differ)} ({', '.join(differ) or 'none'}); load average "
      f"{' '.join(load)} at the end", file=sys.stderr)
if differ:
    print(f"guard: the differing outputs are in {outdir} (KEEP=DIR keeps them)", file=sys.stderr)
sys.exit(1 if slower or (differ and outputs == "strict") else 0)
PY
