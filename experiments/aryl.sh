#!/usr/bin/env bash
# Aryl / Lyra (EuroSys'23) against its own baselines: capacity loaning and elastic scaling
# on a training pool and an inference pool of equal size, with a diurnal inference demand.
# Prints average queueing time, average JCT and cluster usage (training + inference GPU
# time over all GPUs) for aryl, aryl-loan, aryl-elastic and aryl-base, and the ratios that
# the paper reports (ByteDance 15-day trace, simulation): 1.53x lower queueing, 1.50x lower
# JCT (Lyra: 1.48x), up to +26.9 % usage (Lyra: +25 %), baseline = neither loaning nor
# elasticity.
#
# The workload differs from the paper's: its trace is not public. Here: berth gen's gavel
# profile (Gavel's job classes with steps, gangs of 1/2/4/8), JOBS jobs at RATE per hour,
# half of them elastic (min half their gang, max twice it, at most 16); 16 training servers and
# 16 inference servers of 8 V100 each; inference demand diurnal, 30 % to 90 % of its pool
# over 24 h, 5 % headroom; scale cost 20 s, charged by the simulator as the restart cost of
# every resize and restart.
#
# berth's figures (2026-11-30, JOBS=2000 SEED=1), ratios against aryl-base:
#   RATE  policy        queueing  JCT     usage (points)   lent GPU-h  reclaims  resizes
#   8     aryl          2.18x     1.71x   +5.9 (79.6 %)    21,306      230       4,878
#   8     aryl-loan     1.87x     1.58x   +8.7 (82.4 %)    19,646      210       0
#   8     aryl-elastic  1.15x     1.10x   +2.2 (76.0 %)    0           0         1,691
#   12    aryl          1.61x     1.45x   +2.8 (77.3 %)    22,132      240       1,744
#   12    aryl-loan     1.48x     1.38x   +8.9 (83.3 %)    19,291      210       0
#   12    aryl-elastic  1.09x     1.07x   -2.0 (72.4 %)    0           0         2,160
# Queueing and JCT gains are close to the paper's (1.53x, 1.50x), most of them from
# loaning; usage is not: -2 to +9 points against the paper's "up to +26.9 %". Usage here is
# time-averaged over the whole makespan, and the heavy tail of Gavel's job lengths leaves a
# long, nearly idle end in every run whose length decides the figure (the paper's is a
# peak over its trace). Elasticity alone gains little on Gavel's classes: their scaling is
# sub-linear and a gang over two servers runs at Gavel's much slower unconsolidated rate,
# so growing rarely pays; an earlier version that grew gangs across servers and shrank jobs
# without making room on one server lost to the baseline (0.92x JCT). The paper's baseline
# is its production scheduler on the ByteDance trace; ours is aryl-base (first fit on the
# training pool, each gang on one server when one server can hold it).
#
# Usage: bash experiments/aryl.sh [BERTH]   (env JOBS, RATE, SEED)
set -eu
BERTH=${1:-build/berth}
JOBS=${JOBS:-2000}
RATE=${RATE:-12}
SEED=${SEED:-1}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

cat >"$TMP/cluster.json" <<'JSON'
{"servers": [
  {"gpu_type": "v100", "gpus": 8, "count": 16, "pool": "training"},
  {"gpu_type": "v100", "gpus": 8, "count": 16, "pool": "inference"}]}
JSON
"$BERTH" gen --profile gavel --jobs "$JOBS" --rate "$RATE" --seed "$SEED" --out "$TMP/gen.csv"
# half the jobs elastic: min 1, max twice their gang (at most 16), chosen by a fixed seed
python3 - "$TMP/gen.csv" "$TMP/trace.csv" "$SEED" <<'PY'
import csv, random, sys
src, dst, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
rnd = random.Random(seed)
rows = list(csv.DictReader(open(src)))
with open(dst, "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(list(rows[0].keys()) + ["min_gpus", "max_gpus"])
    for r in rows:
        n = int(r["num_gpus"])
        lo, hi = (max(1, n // 2), min(16, 2 * n)) if rnd.random() < 0.5 else (n, n)
        w.writerow(list(r.values()) + [lo, hi])
PY
for p in aryl aryl-loan aryl-elastic aryl-base; do
    "$BERTH" sim --cluster "$TMP/cluster.json" --trace "$TMP/trace.csv" --policy "$p" \
        --inference diurnal:0.9,0.3,24 --restart-cost 20 --json >"$TMP/$p.json"
done
python3 - "$TMP" <<'PY'
import json, sys
d = sys.argv[1]
r = {p: json.load(open(f"{d}/{p}.json")) for p in ["aryl", "aryl-loan", "aryl-elastic", "aryl-base"]}
print(f"{'policy':<14} {'avg queue s':>12} {'avg JCT s':>11} {'usage':>7} {'train util':>10} "
      f"{'lent GPU-h':>10} {'reclaims':>8} {'preempt':>8} {'resizes':>8}")
for p, j in r.items():
    i = j["inference"]
    print(f"{p:<14} {j['avg_queue_s']:12.0f} {j['avg_jct_s']:11.0f} {100*i['cluster_usage']:6.1f}% "
          f"{100*j['gpu_util']:9.1f}% {i['loaned_gpu_hours']:10.0f} {i['reclaims']:8d} "
          f"{j['preemptions']:8d} {j['resizes']:8d}")
b = r["aryl-base"]
print()
print(f"{'vs aryl-base':<14} {'queueing':>10} {'JCT':>8} {'usage':>8}")
for p in ["aryl", "aryl-loan", "aryl-elastic"]:
    j = r[p]
    print(f"{p:<14} {b['avg_queue_s']/j['avg_queue_s']:9.2f}x {b['avg_jct_s']/j['avg_jct_s']:7.2f}x "
          f"{100*(j['inference']['cluster_usage']-b['inference']['cluster_usage']):+7.1f} pts")
print(f"{'paper (Aryl)':<14} {1.53:9.2f}x {1.50:7.2f}x {'+26.9 %':>8} (up to)")
PY
