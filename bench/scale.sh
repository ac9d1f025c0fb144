#!/usr/bin/env bash
# The scale curve: berth sim's wall time, jobs per second and peak memory per job as the job
# count grows, for fifo, sjf, las and tiresias-dlas-gpu. The workload is `berth gen`'s Philly
# profile at 10x Philly's rate (314.7 jobs/h) on a 10x Philly cluster (640x8:v100), the same
# load at every size, so a flat curve means a flat cost per job. bytes/job is the peak RSS
# over the jobs (fixed costs included: they dominate the smallest size).
# Env: SCALE_SIZES (default "10000 100000 1000000"; add 10000000 for the ten-million case,
# under 4 GB of memory and a minute per policy), SCALE_POLICIES, CASE_TIMEOUT (300 s).
# BENCH_SMOKE=1: 2,000 and 20,000 jobs (CI; times mean nothing). Usage: bench/scale.sh [BERTH]
set -euo pipefail
BERTH=${1:-build/berth}
if [ "${BENCH_SMOKE:-0}" = 1 ]; then
    SIZES="2000 20000"
else
    SIZES=${SCALE_SIZES:-10000 100000 1000000}
fi
POLICIES=${SCALE_POLICIES:-fifo sjf las tiresias-dlas-gpu}
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
printf "%-30s %9s  %9s  %12s  %10s  %9s  %s\n" "scale case" wall "sim only" "jobs/s" "peak RSS" \
    "bytes/job" "preemptions/job"
for n in $SIZES; do
    "$BERTH" gen --profile philly --jobs "$n" --rate 314.7 --seed 1 --out "$W/p.csv"
    for p in $POLICIES; do
        python3 - "$n $p" "${CASE_TIMEOUT:-300}" "$BERTH" sim --cluster 640x8:v100 \
            --trace "$W/p.csv" --policy "$p" --json <<'PY'
import json, resource, subprocess, sys, time
name, limit, cmd = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
t0 = time.monotonic()
try:
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=limit).stdout
except subprocess.TimeoutExpired:
    print(f"{name:<30} did not finish in {limit:.0f} s (CASE_TIMEOUT)")
    sys.exit(0)
wall = time.monotonic() - t0
d = json.loads(out)
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
print(f"{name:<30} {wall:7.3f} s  {d['wall_s']:7.3f} s  {d['jobs'] / wall / 1e3:8.1f} k/s"
      f"  {rss / 2**20:7.1f} MB  {rss / d['jobs']:9.0f}  {d['preemptions'] / d['jobs']:.2f}")
PY
    done
done
