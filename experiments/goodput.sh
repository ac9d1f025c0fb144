#!/usr/bin/env bash
# The goodput policy (Pollux-like elastic sizes) against fixed-size schedulers on a workload
# close to Pollux's simulator runs: 8 workloads of 160 jobs (seeds 1-8) on 64 GPUs (16 x 4
# V100), Gavel job classes with steps from `berth gen --profile gavel`, every job elastic from
# 1 to max(16, its gang) GPUs (`--elastic 16`), a 30 s restart cost on every restart and
# resize (Pollux's simulator charges 30 s per re-allocation). The baselines run every job at
# the gang it asked for. Prints the mean over the workloads of average JCT, makespan and
# restarts, and goodput's average-JCT reduction against each baseline, at two loads.
# Paper (Qiao et al., OSDI'21, abstract): "Pollux reduces average job completion times by
# 37-50% relative to state-of-the-art DL schedulers, even when they are provided with ideal
# resource and training configurations for every job" (baselines Optimus+Oracle and
# Tiresias+TunedJobs).
#
# berth's figures (2026-11-30; means over seeds 1-8; JCT and makespan in hours; utilisation
# over the makespan):
#   load    policy               avg JCT  makespan  restarts  util   goodput's JCT reduction
#   8 /h    goodput              20.6     347.7     421       47.0%  -
#           tiresias-dlas        30.9     356.5     163       45.8%  33 %
#           las                  28.5     337.2     23460     51.0%  28 %
#           gavel-max-min-perf   28.6     302.0     5120      52.4%  28 %
#           fifo                 43.0     353.0     0         44.9%  52 %
#   2 /h    goodput              13.8     333.7     470       53.0%  -
#           tiresias-dlas        24.1     365.9     83        41.9%  43 %
#           las                  22.3     330.6     2768      45.5%  38 %
#           gavel-max-min-perf   23.4     318.7     2085      48.1%  41 %
#           fifo                 28.1     348.2     0         42.8%  51 %
# Against the preemptive baselines berth measures 28-33 % at the busier load and 38-43 % at
# the lighter one: the lower end of Pollux's 37-50 % or just under it. Makespan is not
# better (gavel-max-min-perf's is shorter at both loads): goodput optimises JCT, and the
# makespan is set by the longest jobs. Where and why berth disagrees with the paper:
# (1) the gains come from throughput scaling alone: berth's model has no statistical
# efficiency and no batch-size tuning (Pollux's goodput adapts both), so a job's speedup is
# Gavel's measured scaling, and above 8 GPUs (the largest measured gang) the model assumes
# linear scaling, which flatters elasticity; (2) the baselines are not tuned: they run the
# gang Gavel's generator drew, where Pollux gave Tiresias the best fixed size per job
# (TunedJobs), which would narrow the gap; (3) Gavel-profile jobs last hours to days (the
# average JCT is dominated by the long tail), where Pollux's Philly-sampled jobs are mostly
# minutes, so the 30 s restarts weigh less here; (4) utilisation over the makespan is
# 42-53 % for every policy (long tails where few jobs run): goodput gains by growing jobs
# onto GPUs a fixed-size scheduler leaves idle, and busier loads leave less of that; and
# (5) 8 x 160 generated jobs on 64 V100s, not Pollux's Philly-derived workloads on T4s.
#
# Usage: bash experiments/goodput.sh [BERTH]    (RATE=8 SEEDS="1 2 ..." to change the load)
set -eu
BERTH=${1:-build/berth}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
SEEDS=${SEEDS:-"1 2 3 4 5 6 7 8"}
RATES=${RATE:-"8 2"}
POLICIES="goodput tiresias-dlas las gavel-max-min-perf fifo"

fig() { # summary JSON on stdin -> avg JCT (h), makespan (h), restarts, GPU utilisation %
    python3 -c '
import json, sys
j = json.load(sys.stdin)
print("%.6f %.6f %d %.4f" % (j["avg_jct_s"] / 3600, j["makespan_s"] / 3600, j["restarts"],
                             100 * j["gpu_util"]))'
}

printf '%-10s %-20s %9s %10s %9s %6s %s\n' load policy "JCT_h" "makespan_h" restarts "util%" \
    "goodput's JCT reduction"
for rate in $RATES; do
    for seed in $SEEDS; do
        "$BERTH" gen --profile gavel --jobs 160 --rate "$rate" --seed "$seed" --elastic 16 \
            --out "$TMP/w$seed.csv"
    done
    base=""
    for p in $POLICIES; do
        sum="0 0 0 0"
        n=0
        for seed in $SEEDS; do
            r=$("$BERTH" sim --cluster 16x4:v100 --trace "$TMP/w$seed.csv" --policy "$p" \
                --restart-cost 30 --json | fig)
            sum=$(python3 -c 'import sys; a=sys.argv[1].split(); b=sys.argv[2].split(); print(" ".join(str(float(x)+float(y)) for x,y in zip(a,b)))' "$sum" "$r")
            n=$((n + 1))
        done
        read -r jct mk rs ut < <(python3 -c 'import sys; a=[float(x)/int(sys.argv[2]) for x in sys.argv[1].split()]; print("%.1f %.1f %.0f %.1f" % tuple(a))' "$sum" "$n")
        if [ -z "$base" ]; then
            base=$jct
            red="-"
        else
            red=$(python3 -c 'import sys; print("%.0f %%" % (100 * (1 - float(sys.argv[1]) / float(sys.argv[2]))))' "$base" "$jct")
        fi
        printf '%-10s %-20s %9s %10s %9s %6s %s\n' "${rate}/h" "$p" "$jct" "$mk" "$rs" "$ut" "$red"
    done
done
echo "Pollux (OSDI'21): 37-50 % lower average JCT than Optimus+Oracle and Tiresias+TunedJobs"
