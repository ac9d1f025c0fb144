#!/usr/bin/env bash
# Topology (issue 36): topology-blind placement vs topology-aware placement vs
# topology-aware placement with EASY backfill reservations inside one domain, on a cluster of
# 64 servers x 8 H100 in 8 racks and 2 blocks (shorthand 64x8:h100,racks=8,blocks=2). All
# three run under the same physics: a gang runs at its one-island rate times the factor of
# the widest level it spans (model/topo_rate.h, default bandwidths and shares). What differs
# is what the scheduler knows:
#   blind     --placement consolidate, the trace's topology columns stripped (the scheduler
#             does not know which gangs need a rack), backfill_topology=0
#   aware     --placement topology, the trace's columns kept, backfill_topology=0 (the head's
#             reservation is a count per GPU type)
#   aware+bf  --placement topology, backfill_topology=1 (the head's reservation is one domain
#             of its level: backfilled jobs never take the rack it waits for)
# Workloads: `berth gen --profile llm` (JOBS jobs at RATE per hour, seed SEED; fine-tuning
# jobs and TP x PP x DP pre-training gangs, some requiring or preferring a rack) and the
# Philly trace (../shared/traces/philly-pollux/philly.csv; no topology columns, so blind vs
# aware differs only by placement).
#
# Usage: bash experiments/topology.sh [BERTH]   (env JOBS, RATE, SEED, POLICY, SHARED)
set -eu
BERTH=${1:-build/berth}
JOBS=${JOBS:-2000}
RATE=${RATE:-20}
SEED=${SEED:-1}
POLICY=${POLICY:-backfill}
SHARED=${SHARED:-../shared}
CLUSTER=64x8:h100,racks=8,blocks=2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

"$BERTH" gen --profile llm --jobs "$JOBS" --rate "$RATE" --seed "$SEED" --out "$TMP/llm.csv"
# the blind scheduler's view of the same jobs: no topology, topology_preferred or tp column
python3 - "$TMP/llm.csv" "$TMP/llm-blind.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
drop = {"topology", "topology_preferred", "tp"}
keep = [k for k in rows[0].keys() if k not in drop]
with open(sys.argv[2], "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=keep, extrasaction="ignore")
    w.writeheader()
    w.writerows(rows)
PY

run() { # NAME TRACE PLACEMENT BACKFILL_TOPOLOGY
    "$BERTH" sim --cluster "$CLUSTER" --trace "$2" --policy "$POLICY" --placement "$3" \
        --policy-arg backfill_topology="$4" --check --json >"$TMP/$1.json"
}
row() { # WORKLOAD NAME
    python3 - "$TMP/$2.json" "$1" "$2" "$TMP/$1-blind.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
b = json.load(open(sys.argv[4]))
print(f"{sys.argv[2]:<8} {sys.argv[3]:<16} {d['avg_jct_s']/3600:9.2f} h "
      f"{d['makespan_s']/3600:10.1f} h {100*d['gpu_util']:7.1f} %   "
      f"{b['avg_jct_s']/d['avg_jct_s']:5.2f}x   {d['completed']}/{d['jobs']}")
PY
}

printf '%-8s %-16s %11s %12s %9s %8s %s\n' workload variant "avg JCT" makespan util \
    "JCT gain" completed
for w in llm philly; do
    if [ "$w" = llm ]; then
        aware=$TMP/llm.csv blind=$TMP/llm-blind.csv
    else
        aware=$SHARED/traces/philly-pollux/philly.csv blind=$aware
    fi
    run "$w-blind" "$blind" consolidate 0
    run "$w-aware" "$aware" topology 0
    run "$w-aware-bf" "$aware" topology 1
    for v in blind aware aware-bf; do row "$w" "$w-$v"; done
done
