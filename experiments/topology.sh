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
# Workloads: an LLM-era mix generated below (JOBS jobs at RATE per hour, seed SEED;
# fine-tuning jobs and tp-8 pre-training gangs, half requiring a rack, half preferring one) and the
# Philly trace (../shared/traces/philly-pollux/philly.csv; no topology columns, so blind vs
# aware differs only by placement).
#
# berth's figures (2026-12-07, JOBS=2000 RATE=20 SEED=1, POLICY=backfill, 3.5 min on 2 cores):
#   workload variant     avg JCT   makespan   util    JCT gain vs blind
#   llm      blind       47.61 h   450.4 h    93.7 %  1.00x
#   llm      aware       63.02 h   340.7 h    92.6 %  0.76x
#   llm      aware+bf    33.95 h   344.2 h    89.3 %  1.40x
#   philly   blind      134.90 h  3039.0 h    81.5 %  1.00x
#   philly   aware      123.73 h  2995.2 h    78.6 %  1.09x
#   philly   aware+bf   123.73 h  2995.2 h    78.6 %  1.09x
# Topology-aware placement alone shortens the makespan (gangs run at rack rate, not core
# rate: -24 %) but lengthens the average JCT: a rack-requiring head waits while backfilled
# jobs, reserved against by GPU count only, keep taking the racks it needs. Reserving one
# rack for the head (backfill_topology=1) removes that: 1.40x lower average JCT than blind.
# Philly has no topology columns, so only placement differs (1.09x); "util" counts GPU time
# held, so faster gangs hold less of it for the same work.
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

# the LLM-era mix (berth gen has no llm profile yet): 80 % fine-tuning jobs of 1, 2, 4 or 8
# GPUs (lognormal around 1 h), 20 % pre-training gangs of 16, 32 or 64 GPUs with tp 8
# (lognormal around 6 h), half of them requiring a rack, half preferring one; Poisson arrivals
python3 - "$TMP/llm.csv" "$JOBS" "$RATE" "$SEED" <<'PY'
import csv, math, random, sys
out, n, rate, seed = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
rnd = random.Random(seed)
t = 0.0
with open(out, "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["job_id", "arrival_s", "duration_s", "num_gpus", "job_type", "topology",
                "topology_preferred", "tp"])
    for i in range(n):
        t += rnd.expovariate(rate / 3600.0)
        if rnd.random() < 0.8:
            g, jt, d, req, pref, tp = rnd.choice([1, 2, 4, 8]), "llm-finetune", \
                rnd.lognormvariate(math.log(3600), 1.0), "", "", ""
        else:
            g = rnd.choice([16, 32, 64])
            req, pref = ("rack", "") if rnd.random() < 0.5 else ("", "rack")
            jt, d, tp = "llm-pretrain", rnd.lognormvariate(math.log(6 * 3600), 0.7), 8
        w.writerow([f"j{i}", f"{t:.1f}", f"{max(d, 60):.1f}", g, jt, req, pref, tp])
PY
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
