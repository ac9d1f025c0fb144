#!/usr/bin/env bash
# Salus (Yu & Chowdhury, MLSys 2020; arXiv 1902.04610) in berth: the salus-* policies on
# workloads close to the paper's two training experiments, each on one V100 (16 GiB, 300 MiB
# of it kept out of the lanes, as Salus does). Paper (abstract): "Salus ... improve[s] GPU
# utilization by 2.38x for hyper-parameter tuning ... and [gives] 3.19x better average JCT
# than FIFO without sharing" (SRTF).
#
# 1. SRTF vs FIFO: 100 single-GPU training jobs of Gavel's classes (model and batch size drawn
#    at random, memory from berth's per-class estimates), durations 10^U(1,2) minutes (80 %)
#    or 10^U(2,3) minutes (20 %), Poisson arrivals at RHO (default 1.0) times the GPU's
#    capacity. Mean over SEEDS (default 1 2 3).
# 2. PACK for hyper-parameter tuning: 30 Transformer jobs (batch sizes 16, 32, 64 x 10
#    learning rates: 20-60 minutes alone each) all submitted at 0, by steps with Gavel's
#    measured throughputs and co-location pairs (../shared/traces/gavel). Makespan ratio
#    FIFO / PACK; utilisation (work done per hour) improves by the same ratio.
#
# berth's figures (2026-11-30, seeds 1-3):
#   SRTF vs FIFO, RHO 1.0: avg JCT FIFO 1416 min, SRTF 346 min: 4.09x better (per seed 4.14x,
#                 4.38x, 3.58x; the paper: 3.19x). RHO 0.7: 2.69x, 0.8: 3.10x, 1.2: 4.63x.
#                 salus-fair (60 s quantum): 1.64-1.83x; salus-pack (--colocate-speed 0.8, no
#                 queueing at all while memory lasts): 5.9-9.6x.
#   PACK:         makespan FIFO 1071 min, PACK 467 min: 2.29x (the paper: 2.38x).
# Where berth disagrees, and why. The SRTF gain grows with the load and with how skewed the
# durations are, and the paper's 100-job trace is not public: berth matches 3.19x near 80 %
# load (3.10x) and overshoots it at full load (4.09x). berth's SRTF also knows every job's
# remaining time exactly (Salus used profiled run times) and switches for free (Salus: a few
# ms). The PACK figure is set by the interference model: PACK admits 7-10 Transformer lanes
# by memory (1440-3360 MiB each, berth's estimates), and berth multiplies a job's speed by
# Gavel's measured pair speed (0.74-0.88 here) once per partner, so aggregate throughput is
# k * s^(k-1); with these pairs that lands near the paper's figure, but other classes would
# not (ResNet-18 at small batches has pair speed 1.0, so packing looks free; Recommendation
# 0.17, so it looks ruinous). Gavel's and Lucid's pairs are measured for two jobs only;
# berth extrapolates beyond two for every policy, Salus measured on a real GPU.
#
# Usage: bash experiments/salus.sh [BERTH] [SHARED]
set -eu
BERTH=${1:-build/berth}
SHARED=${2:-../shared}
TPUT=$SHARED/traces/gavel/simulation_throughputs.json
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
SEEDS=${SEEDS:-"1 2 3"}
RHO=${RHO:-1.0}

# avg JCT and makespan (seconds) of one run: "avg makespan"
fig() {
    "$BERTH" sim --cluster 1x1:v100 --json "$@" |
        python3 -c 'import json,sys; s=json.load(sys.stdin); print(s["avg_jct_s"], s["makespan_s"])'
}

gen_jct() { # SEED -> 100 jobs of Gavel classes, fixed durations, Poisson arrivals at RHO
    python3 - "$1" "$RHO" <<'EOF'
import random, sys
r = random.Random(int(sys.argv[1]))
rho = float(sys.argv[2])
models = {"ResNet-18": [16, 32, 64, 128, 256], "ResNet-50": [16, 32, 64],
          "Transformer": [16, 32, 64, 128], "LM": [5, 10, 20, 40, 80],
          "Recommendation": [512, 1024, 2048, 4096, 8192]}
jobs = []
for i in range(100):
    m = r.choice(sorted(models))
    d = 60 * 10 ** (r.uniform(1, 2) if r.random() < 0.8 else r.uniform(2, 3))
    jobs.append(["%s (batch size %d)" % (m, r.choice(models[m])), d])
mean = sum(d for _, d in jobs) / len(jobs)
t = 0.0
print("job_id,arrival_s,duration_s,num_gpus,job_type")
for i, (ty, d) in enumerate(jobs):
    print('j%d,%.3f,%.3f,1,"%s"' % (i, t, d, ty))
    t += r.expovariate(rho / mean)
EOF
}

gen_hp() { # 30 Transformer jobs at 0, steps for 20-60 minutes alone on a V100
    python3 - "$TPUT" <<'EOF'
import json, random, sys
rates = json.load(open(sys.argv[1]))["v100"]
r = random.Random(7)
print("job_id,arrival_s,duration_s,num_gpus,job_type,total_steps")
i = 0
for bs in (16, 32, 64):
    ty = "Transformer (batch size %d)" % bs
    rate = rates["('%s', 1)" % ty]["null"]
    for lr in range(10):
        steps = int(rate * 60 * r.uniform(20, 60))
        print('hp%d,0,,1,"%s",%d' % (i, ty, steps))
        i += 1
EOF
}

echo "== SRTF vs FIFO (100 jobs, one V100, load $RHO): average JCT in minutes"
printf '%-6s %10s %10s %10s %10s %8s %8s %8s\n' seed fifo srtf fair pack srtf_x fair_x pack_x
tf=0
ts=0
for seed in $SEEDS; do
    gen_jct "$seed" >"$TMP/jct.csv"
    read -r f _ < <(fig --trace "$TMP/jct.csv" --policy salus-fifo)
    read -r s _ < <(fig --trace "$TMP/jct.csv" --policy salus-srtf)
    read -r a _ < <(fig --trace "$TMP/jct.csv" --policy salus-fair)
    read -r p _ < <(fig --trace "$TMP/jct.csv" --policy salus-pack --colocate-speed 0.8)
    python3 -c 'import sys; f,s,a,p=map(float,sys.argv[2:]); print("%-6s %10.0f %10.0f %10.0f %10.0f %7.2fx %7.2fx %7.2fx" % (sys.argv[1], f/60, s/60, a/60, p/60, f/s, f/a, f/p))' "$seed" "$f" "$s" "$a" "$p"
    tf=$(python3 -c "print($tf + $f)")
    ts=$(python3 -c "print($ts + $s)")
done
python3 -c 'import sys; f,s=map(float,sys.argv[1:3]); print("mean   FIFO %.0f min, SRTF %.0f min: SRTF %.2fx better (paper: 3.19x)" % (f/int(sys.argv[3])/60, s/int(sys.argv[3])/60, f/s))' "$tf" "$ts" "$(echo $SEEDS | wc -w)"

echo "== PACK for hyper-parameter tuning (30 Transformer jobs at 0, Gavel's throughputs and pairs)"
if [ ! -r "$TPUT" ]; then
    echo "skipped: $TPUT not readable"
    exit 0
fi
gen_hp >"$TMP/hp.csv"
read -r _ mf < <(fig --trace "$TMP/hp.csv" --policy salus-fifo --throughputs "$TPUT")
read -r _ mp < <(fig --trace "$TMP/hp.csv" --policy salus-pack --throughputs "$TPUT")
python3 -c 'import sys; f,p=map(float,sys.argv[1:3]); print("makespan FIFO %.0f min, PACK %.0f min: PACK %.2fx (paper: 2.38x)" % (f/60, p/60, f/p))' "$mf" "$mp"
