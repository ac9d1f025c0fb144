#!/usr/bin/env bash
# Runs the comparisons quoted in docs/fidelity.md: one generated Gavel-style workload on a
# small heterogeneous cluster, replayed (1) under each time mode with the same policy, (2)
# by steps versus at fixed speed, and (3) under each peer's policy in that peer's mode.
# Prints Markdown tables. Usage: experiments/fidelity.sh [PATH/TO/berth] [JOBS] [SEED]
set -euo pipefail
BERTH=${1:-build/berth}
JOBS=${2:-400}
SEED=${3:-1}
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
CLUSTER=4x4:v100,4x4:p100,4x4:k80 # 48 GPUs: Gavel's 3 types, small enough to contend
"$BERTH" gen --profile gavel --jobs "$JOBS" --rate 8 --seed "$SEED" --out "$W/trace.csv"

row() { # row LABEL -- berth sim flags...
    local label=$1; shift 2
    "$BERTH" sim --cluster "$CLUSTER" --trace "$W/trace.csv" --json "$@" >"$W/r.json"
    python3 - "$W/r.json" "$label" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(f"| {sys.argv[2]} | {d['avg_jct_s']/3600:.2f} | {d['p99_jct_s']/3600:.1f} | "
      f"{d['makespan_s']/3600:.1f} | {100*d['gpu_util']:.1f} | {d['ftf_rho_max']:.2f} | "
      f"{d['ftf_jain']:.3f} | {d['preemptions']} | {d['passes']} | {d['wall_s']:.3f} |")
PY
}
header() {
    echo "| $1 | avg JCT (h) | p99 JCT (h) | makespan (h) | GPU util % | max ρ | Jain ρ | preemptions | passes | wall (s) |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
}

echo "Workload: berth gen --profile gavel --jobs $JOBS --rate 8 --seed $SEED; cluster $CLUSTER"
echo
echo "### 1. One policy (las), four time modes"
echo
header "mode"
row "des" -- --policy las
row "rounds (300 s, admit+release at boundaries)" -- --policy las --mode rounds
row "gavel (360 s, exact JCT)" -- --policy las --mode gavel
row "blox (300 s, JCT at boundary, flat progress)" -- --policy las --mode blox
echo
echo "### 2. Progress by steps (throughput model) versus fixed speed"
echo
header "progress"
row "by steps (catalog), las" -- --policy las
row "fixed speed (V100 duration), las" -- --policy las --fixed-speed
row "by steps, gavel-max-min-perf, gavel mode" -- --policy gavel-max-min-perf --mode gavel
row "fixed speed, gavel-max-min-perf, gavel mode" -- --policy gavel-max-min-perf --mode gavel --fixed-speed
row "by steps, restart cost 30 s (Pollux)" -- --policy las --restart-cost 30
echo
echo "### 3. Each peer's policies in that peer's mode"
echo
header "policy / mode"
for p in gavel-fifo gavel-max-min gavel-max-min-perf themis-ftf; do row "$p / gavel" -- --policy "$p" --mode gavel; done
for p in blox-fifo blox-las; do row "$p / blox" -- --policy "$p" --mode blox; done
for p in tiresias-dlas tiresias-dlas-gpu; do row "$p / des" -- --policy "$p"; done
for p in fifo las srtf; do row "$p / des" -- --policy "$p"; done
