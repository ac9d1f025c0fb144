#!/usr/bin/env bash
# Overload without collapse (issue 20, item 3): berth sim on generated gavel jobs offered
# above the cluster's capacity (1,800 jobs/h on 6250x8:v100, 50,000 GPUs), for the policies
# that preempt or re-plan in rounds: las, srtf, tiresias-dlas(-gpu), blox-las and the Gavel
# family. Each case reports the CPU time of the run (user + sys of the child: the machines
# here are shared, and the wall clock of one run moved by half between two runs of the same
# binary), wall time, peak memory, preemptions per job and the average JCT, or that it did not
# finish in CASE_TIMEOUT seconds (default 300). Target: every case under 30 s at 1,000,000.
# Env: OVERLOAD_SIZES (default "300000 1000000"), OVERLOAD_POLICIES, CASE_TIMEOUT.
# BENCH_SMOKE=1: 3,000 jobs on 30x8:v100 (deep overload at a small size; CI, times mean
# nothing). Usage: bench/overload.sh [BERTH]
set -euo pipefail
BERTH=${1:-build/berth}
CLUSTER=6250x8:v100
if [ "${BENCH_SMOKE:-0}" = 1 ]; then
    SIZES="3000" CLUSTER=30x8:v100
else
    SIZES=${OVERLOAD_SIZES:-300000 1000000}
fi
POLICIES=${OVERLOAD_POLICIES:-las srtf tiresias-dlas tiresias-dlas-gpu blox-las gavel-max-min gavel-max-min-perf themis-ftf gavel-fifo}
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
printf "%-40s %10s  %9s  %9s  %15s  %s\n" "overload case (1,800 jobs/h)" "CPU" wall "peak RSS" \
    "preemptions/job" "avg JCT"
for n in $SIZES; do
    "$BERTH" gen --profile gavel --jobs "$n" --rate 1800 --seed 1 --out "$W/g.csv"
    for p in $POLICIES; do
        python3 - "$n $p, $CLUSTER" "${CASE_TIMEOUT:-300}" "$BERTH" sim --cluster "$CLUSTER" \
            --trace "$W/g.csv" --policy "$p" --json <<'PY'
import json, resource, subprocess, sys, time
name, limit, cmd = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
before = resource.getrusage(resource.RUSAGE_CHILDREN)  # (what ran before python: a shim)
t0 = time.monotonic()
try:
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=limit).stdout
except subprocess.TimeoutExpired:
    print(f"{name:<40} did not finish in {limit:.0f} s (CASE_TIMEOUT)")
    sys.exit(0)
wall = time.monotonic() - t0
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
d = json.loads(out)
cpu = ru.ru_utime + ru.ru_stime - before.ru_utime - before.ru_stime
print(f"{name:<40} {cpu:8.2f} s  {wall:7.2f} s  {ru.ru_maxrss / 1024:6.0f} MB"
      f"  {d['preemptions'] / d['jobs']:15.2f}  {d['avg_jct_s']:,.0f} s")
PY
    done
done
