#!/usr/bin/env bash
# FGD (Weng et al., ATC'23) against its baselines on the openb traces: berth pack, five
# scorers, the default pod list and two variants, in trace order and shuffled with the
# paper's inflation to 1.3 x capacity (seeds 42..44). Prints unallocated GPU share at the
# first failure, at 100 % of capacity asked and at the end, and the fragmented GPUs.
# Paper (usenix.org/conference/atc23/presentation/weng, abstract): "Compared to the existing
# packing-based schedulers, FGD reduces unallocated GPUs by up to 49%, resulting in the
# utilization of additional 290 GPUs."
#
# berth's figures (2026-11-30; unallocated share of the 6,212 GPUs at the end; the 1.3x
# rows are means over seeds 42-44, shuffled; fgd-all = FGD with --popularity 100, fgd-k8s =
# the simulator's integer score with random ties):
#   pod list     order         fgd      fgd-all  fgd-k8s  best-fit first-fit dot-prod random
#   default      trace order   7.18 %   6.89 %   11.37 %  8.62 %   7.30 %   12.75 %  14.47 %
#   default      shuffled 1.3x 9.62 %   5.49 %   10.41 %  6.78 %   5.44 %   10.07 %  12.63 %
#   gpushare40   trace order   21.60 %  9.45 %   16.40 %  16.21 %  25.30 %  31.71 %  24.75 %
#   gpushare40   shuffled 1.3x 12.07 %  6.73 %   10.85 %  8.18 %   6.97 %   11.17 %  13.93 %
#   multigpu50   trace order   6.51 %   6.52 %   6.59 %   8.62 %   7.30 %   12.75 %  14.47 %
#   multigpu50   shuffled 1.3x 2.77 %   2.72 %   2.73 %   4.15 %   3.51 %   5.32 %   8.20 %
#
# Why FGD loses on the shuffled lists with the paper's 95 % cut: its target workload is the
# most frequent pod types (CPU, GPUs, share, model) covering 95 % of the pods, and the
# 8-GPU pods (0.5 % of the default list's pods, 5.6 % of its GPUs) fall outside it, so FGD
# sees no loss in breaking into an empty node; its first failure is an 8-GPU pod while 74 %
# of the GPUs are still free. With every pod type in the target workload (fgd-all) FGD ties
# first-fit on the shuffled default list (5.49 % against 5.44 %) and beats the best
# baseline everywhere else: by 42 % on gpushare40 in trace order (9.45 % against best-fit's
# 16.21 %: near the paper's "up to 49 %"), 23 % on multigpu50 shuffled, 5.6 % on the default
# list in trace order, 3.4 % on gpushare40 shuffled. The integer score (fgd-k8s) does worse
# than exact FGD on the default and sharing lists: its ties are not what the paper gains
# from. Other differences from the paper's simulator: ties here go to the lower node
# and GPU index, host memory is enforced, 3 seeds instead of 10, first-fit instead of its
# GPU-clustering / GPU-packing baselines.
#
# FGD as a placement, with departures (--placement fgd in berth sim, fifo-skip, the default
# pod list with each pod's own lifetime): the trace alone never queues (its pods use 0.2 %
# of the 6,212 GPUs over its 149 days), so its arrivals are also compressed into H hours;
# average queueing in seconds (2026-12-01):
#   arrivals over   consolidate  best-fit  spread  fgd
#   149 days         0.0          0.0       0.0     0.0
#   6 h              4.8          4.8       2.7     0.0
#   1 h              2.3          2.3       1.9     0.0
#   15 min           0.6          0.6       0.8     0.0
# FGD is the only placement under which no pod ever waits; the gains are small because the
# pod list was cut to fit the cluster (the paper's experiment packs it with nothing leaving).
#
# Usage: bash experiments/fgd.sh [BERTH] [SHARED]
set -eu
BERTH=${1:-build/berth}
D=${2:-../shared}/traces/alibaba-openb-2023
NODES=$D/openb_node_list_gpu_node.csv
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
SEEDS=${SEEDS:-"42 43 44"}

# row LABEL ARGS...: one line of figures (means over the runs given as ARGS sets)
run() { "$BERTH" pack --cluster "$NODES" --json --out "$TMP/c.csv" "$@"; }
fig() { # JSON on stdin -> first-fail unalloc %, end unalloc %, end frag GPUs, placed, failed
    python3 -c '
import json, sys, csv
j = json.load(sys.stdin)
rows = list(csv.DictReader(open(sys.argv[1])))
at100 = [r for r in rows if r["pct"] == "100"]
u100 = 100 * (1 - float(at100[0]["alloc_ratio"])) if at100 else float("nan")
ff = 100 * j["first_failure"]["unallocated_ratio"] if "first_failure" in j else 0.0
print("%.2f %.2f %.2f %.1f %d %d" % (ff, u100, 100 * j["end"]["unallocated_ratio"],
      j["end"]["frag_gpus"], j["placed"], j["failed"]))' "$TMP/c.csv"
}

printf '%-20s %-12s %-6s %9s %9s %9s %9s %7s %7s\n' trace scorer order "ff_unal%" "100_unal%" \
    "end_unal%" frag_gpu placed failed
for list in default gpushare40 multigpu50; do
    P=$D/openb_pod_list_$list.csv
    [ -r "$P" ] || continue
    # fgd-all: FGD with every pod type in its target workload (--popularity 100)
    for s in fgd fgd-all fgd-k8s best-fit first-fit dot-product random; do
        set -- --scorer "$s"
        [ "$s" = fgd-all ] && set -- --scorer fgd --popularity 100
        read -r a b c d e f < <(run --trace "$P" "$@" | fig)
        printf '%-20s %-12s %-6s %9s %9s %9s %9s %7s %7s\n' "$list" "$s" trace "$a" "$b" "$c" "$d" "$e" "$f"
        tot="0 0 0 0 0 0"
        n=0
        for seed in $SEEDS; do
            r=$(run --trace "$P" "$@" --shuffle --tune 1.3 --seed "$seed" | fig)
            tot=$(python3 -c 'import sys; a=sys.argv[1].split(); b=sys.argv[2].split(); print(" ".join(str(float(x)+float(y)) for x,y in zip(a,b)))' "$tot" "$r")
            n=$((n + 1))
        done
        python3 -c 'import sys; n=int(sys.argv[3]); v=[float(x)/n for x in sys.argv[2].split()]
print("%-20s %-12s %-6s %9.2f %9.2f %9.2f %9.1f %7.0f %7.0f" % (sys.argv[1], sys.argv[4], "x1.3", *v))' \
            "$list" "$tot" "$n" "$s"
    done
done

echo
echo "with departures: berth sim --policy fifo-skip --placement P, each pod its own lifetime, arrivals compressed"
printf '%-14s %-12s %12s %12s %12s\n' arrivals placement avg_queue_s p99_queue_s avg_jct_s
"$BERTH" trace convert "$D/openb_pod_list_default.csv" "$TMP/pods.csv" 2>/dev/null
for hours in 0 6 1 0.25; do
    python3 - "$TMP/pods.csv" "$TMP/c.csv" "$hours" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
h = float(sys.argv[3])
span = max(int(r["arrival_s"]) for r in rows) or 1
with open(sys.argv[2], "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
    w.writeheader()
    for r in rows:
        if h > 0:
            r["arrival_s"] = "%d" % (int(r["arrival_s"]) * h * 3600 // span)
        w.writerow(r)
PY
    for pl in consolidate best-fit spread fgd; do
        "$BERTH" sim --cluster "$NODES" --trace "$TMP/c.csv" --policy fifo-skip --placement "$pl" --json |
            python3 -c 'import json, sys
d = json.load(sys.stdin)
print("%-14s %-12s %12.1f %12.1f %12.0f" % (sys.argv[1], sys.argv[2], d["avg_queue_s"], d["p99_queue_s"], d["avg_jct_s"]))' \
                "$([ "$hours" = 0 ] && echo "149 days" || echo "$hours h")" "$pl"
    done
done
