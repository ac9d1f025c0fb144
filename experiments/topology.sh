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
# Workloads: the LLM-era mix of `berth gen --profile llm` (JOBS jobs, seed SEED, the
# profile's arrival rate unless RATE is set: 90 % fine-tuning jobs of 1-8 GPUs, 10 % tp-8
# pre-training gangs of 16-256 GPUs requiring or preferring a rack or block; see
# docs/topology-rate.md) and the Philly trace (../shared/traces/philly-pollux/philly.csv; no
# topology columns, so blind vs aware differs only by placement). Each run reports the
# summary's frag_by_level (time-weighted, per level: the share of idle GPUs in domains not
# wholly idle, and the wholly idle domains) and by_span (jobs by the level their gang spanned).
#
# berth's figures (2026-12-07, JOBS=2000 SEED=1, the llm profile's rate, POLICY=backfill,
# 2.6 min on 2 cores):
#   == llm on 64x8:h100,racks=8,blocks=2 ==
#   variant    avg JCT  makespan   util      frag node     frag rack    frag block  jobs by span nvlink/node/rack/block/cluster  done
#   blind       33.11h    888.6h  93.0%    19.0%/ 4.22   47.1%/ 0.14   49.4%/ 0.01  1741/0/52/65/142  2000/2000  (JCT gain vs blind 1.00x)
#   aware       20.91h    785.9h  93.3%    26.8%/ 4.07   49.7%/ 0.24   54.1%/ 0.02  1731/0/161/48/60  2000/2000  (JCT gain vs blind 1.58x)
#   aware-bf    20.99h    685.2h  92.4%    21.4%/ 4.58   46.6%/ 0.35   55.6%/ 0.03  1747/0/153/97/3  2000/2000  (JCT gain vs blind 1.58x)
#   == philly on 64x8:h100,racks=8,blocks=2 ==
#   variant    avg JCT  makespan   util      frag node     frag rack    frag block  jobs by span nvlink/node/rack/block/cluster  done
#   blind       85.98h   2670.4h  77.2%    52.0%/13.47   62.5%/ 1.24   70.1%/ 0.17  81328/0/102/212/605  82247/82247  (JCT gain vs blind 1.00x)
#   aware       79.17h   2613.5h  77.7%    42.1%/13.18   48.3%/ 1.39   55.5%/ 0.22  81330/0/251/325/341  82247/82247  (JCT gain vs blind 1.09x)
#   aware-bf    79.17h   2613.5h  77.7%    42.1%/13.18   48.3%/ 1.39   55.5%/ 0.22  81330/0/251/325/341  82247/82247  (JCT gain vs blind 1.09x)
# Topology-aware placement (gangs kept in one rack or block: far fewer cluster-spanning
# gangs, 142 -> 60) cuts the average JCT 1.58x and the makespan 12 %; reserving one domain for
# a waiting rack/block head (aware+bf) changes the mean little but shortens the makespan a
# further 13 % and leaves 3 gangs spanning the cluster. Fragmentation is the cost: more idle
# GPUs sit in partly used servers under aware placement (node 19 -> 27 %). Philly has no
# topology columns, so aware and aware+bf are the same run; topology placement alone lowers
# the idle share in partial domains at every level (node 52 -> 42 %, rack 63 -> 48 %).
#
# Usage: bash experiments/topology.sh [BERTH]   (env JOBS, RATE, SEED, POLICY, SHARED)
set -eu
BERTH=${1:-build/berth}
JOBS=${JOBS:-2000}
RATE=${RATE:-0}
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
table() { # WORKLOAD: one row per variant
    python3 - "$1" "$TMP" <<'PY'
import json, sys
w, tmp = sys.argv[1], sys.argv[2]
lv = ["node", "rack", "block"]  # nvlink = node here: no multi-node NVLink domains
sp = ["nvlink", "node", "rack", "block", "cluster"]
print(f"== {w} on 64x8:h100,racks=8,blocks=2 ==")
print(f"{'variant':<9} {'avg JCT':>8} {'makespan':>9} {'util':>6}  "
      + " ".join(f"{'frag ' + l:>13}" for l in lv) + "  jobs by span "
      + "/".join(sp) + "  done")
b = json.load(open(f"{tmp}/{w}-blind.json"))
for v in ["blind", "aware", "aware-bf"]:
    d = json.load(open(f"{tmp}/{w}-{v}.json"))
    fr = d["frag_by_level"]
    print(f"{v:<9} {d['avg_jct_s']/3600:7.2f}h {d['makespan_s']/3600:8.1f}h "
          f"{100*d['gpu_util']:5.1f}%  "
          + " ".join(f"{100*fr[l]['idle_in_partial']:6.1f}%/{fr[l]['whole_idle_domains']:5.2f}"
                     for l in lv)
          + "  " + "/".join(str(d["by_span"][l]["jobs"]) for l in sp)
          + f"  {d['completed']}/{d['jobs']}  (JCT gain vs blind "
          f"{b['avg_jct_s']/d['avg_jct_s']:.2f}x)")
PY
}

echo "frag L: share of idle GPUs in level-L domains not wholly idle / wholly idle domains (time-weighted)"
for w in llm philly; do
    if [ "$w" = llm ]; then
        aware=$TMP/llm.csv blind=$TMP/llm-blind.csv
    else
        aware=$SHARED/traces/philly-pollux/philly.csv blind=$aware
    fi
    run "$w-blind" "$blind" consolidate 0
    run "$w-aware" "$aware" topology 0
    run "$w-aware-bf" "$aware" topology 1
    table "$w"
done
