#!/usr/bin/env bash
# SpeCon (Mao et al., IEEE Systems Journal 2022; arXiv 2010.11307) against its baseline,
# Kubernetes-like spread placement without migration (berth's `spread`), on a workload built
# to resemble the paper's: 4 nodes (the migration log in fishercht1995/SpeCon names node-1 to
# node-4), 30 TensorFlow-style CPU jobs (the log names job1..job28) of four classes (lenet,
# cnn, rnn, birnn: 300, 600, 900, 1200 s alone, +-20 %), arriving about every 30 s (Poisson;
# the log shows one decision about every 30 s), each asking a tenth of its node. Each node is
# one pseudo-GPU that co-located jobs share; every partner multiplies a job's speed by the
# co-location speed (berth's pair-speed model; the paper's CPU contention was not measured
# here, so 0.6, 0.7 and 0.8 are shown). A migration costs 20 s ("tens of seconds").
# SpeCon's parameters are the code's (alpha 0.1, window 10 s) and berth's estimates
# (theta 0.5, cool-down 60 s, near completion under 2 epochs); docs/design.md, "SpeCon".
#
# Paper (abstract): up to 41.5 % shorter completion for individual jobs, 14.8 % better
# system-wide (read here as the total of all JCTs), 24.7 % shorter makespan, against
# default Kubernetes.
#
# berth's figures (2026-11-30; means over seeds 1-5; "best job" and "worst job" are the
# largest JCT reduction and increase of one job over all seeds):
#   co-location speed  system-wide JCT  makespan  best job  worst job  migrations/run
#   0.6                15.1 %           27.8 %    67.1 %    +109.2 %   5.0
#   0.7                 7.7 %           15.4 %    38.0 %     +44.1 %   5.2
#   0.8                 2.6 %            2.5 %    25.1 %     +47.1 %   4.0
# berth agrees in direction and, at a co-location speed of 0.6-0.7, in size: with strong
# contention (0.6) the system-wide and makespan gains match the paper's 14.8 % and 24.7 %,
# and the best single job gains about the paper's 41.5 % at 0.7. With mild contention (0.8)
# the gains almost vanish: SpeCon only helps when nodes become unbalanced enough that moving
# one job off the busiest node speeds its partners up by more than the migration costs the
# mover. Where berth departs: the migrated jobs themselves lose (up to twice their JCT,
# which the paper does not report); the gain depends on the contention model, which is
# berth's multiplicative pair speed, not measured CPU sharing; and the workload is a
# reconstruction, not the paper's trace.
#
# Usage: bash experiments/specon.sh [BERTH]
set -eu
BERTH=${1:-build/berth}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
SEEDS=${SEEDS:-"1 2 3 4 5"}
SPEEDS=${SPEEDS:-"0.6 0.7 0.8"}

# gen SEED > trace.csv: the workload above (deterministic for a seed)
gen() {
    python3 - "$1" <<'PY'
import random, sys
r = random.Random(int(sys.argv[1]))
alone = {"lenet": 300, "cnn": 600, "rnn": 900, "birnn": 1200}
t = 0.0
print("job_id,arrival_s,duration_s,num_gpus,gpu_share,job_type")
for i in range(30):
    c = r.choice(sorted(alone))
    print("job%d,%d,%d,1,0.1,%s" % (i + 1, round(t), round(alone[c] * r.uniform(0.8, 1.2)), c))
    t += r.expovariate(1 / 30)
PY
}

# compare BASE_DIR SPECON_DIR: system-wide %, makespan %, best job %, worst job % (+ = slower)
compare() {
    python3 - "$1" "$2" <<'PY'
import csv, json, sys
def jobs(d): return {r["job_id"]: r for r in csv.DictReader(open(d + "/jobs.csv"))}
b, s = jobs(sys.argv[1]), jobs(sys.argv[2])
jb = {k: float(v["jct_s"]) for k, v in b.items()}
js = {k: float(v["jct_s"]) for k, v in s.items()}
mb = max(float(v["finish_s"]) for v in b.values())
ms = max(float(v["finish_s"]) for v in s.values())
gain = [(jb[k] - js[k]) / jb[k] for k in jb]
mig = json.load(open(sys.argv[2] + "/summary.json"))["migrations"]
print(100 * (sum(jb.values()) - sum(js.values())) / sum(jb.values()), 100 * (mb - ms) / mb,
      100 * max(gain), -100 * min(gain), mig)
PY
}

printf '%-18s %16s %9s %9s %10s %15s\n' "co-location speed" "system-wide JCT" makespan \
    "best job" "worst job" "migrations/run"
for speed in $SPEEDS; do
    : >"$TMP/rows"
    for seed in $SEEDS; do
        gen "$seed" >"$TMP/w.csv"
        for p in spread specon; do
            "$BERTH" sim --cluster 4x1:cpu --trace "$TMP/w.csv" --policy "$p" --check \
                --colocate-speed "$speed" --restart-cost 20 --out "$TMP/$p" >/dev/null
        done
        compare "$TMP/spread" "$TMP/specon" >>"$TMP/rows"
    done
    python3 - "$speed" "$TMP/rows" <<'PY'
import sys
rows = [list(map(float, l.split())) for l in open(sys.argv[2])]
n = len(rows)
print("%-18s %15.1f%% %8.1f%% %8.1f%% %+9.1f%% %15.1f" % (sys.argv[1],
      sum(r[0] for r in rows) / n, sum(r[1] for r in rows) / n, max(r[2] for r in rows),
      max(r[3] for r in rows), sum(r[4] for r in rows) / n))
PY
done
printf '%-18s %15s%% %8s%% %8s%% %10s %15s\n' "paper (SpeCon)" 14.8 24.7 41.5 "n/a" "n/a"
