#!/usr/bin/env bash
# Runs the peers' own simulators beside berth on the same generated jobs and compares them
# job by job: the figures of docs/fidelity.md's "Checked against the peers' own code".
#
# Usage: experiments/peers.sh PEERS_DIR [PATH/TO/berth]
#   PEERS_DIR holds clones of the peers, never inside this repository:
#     PEERS_DIR/tiresias  github.com/SymbioticLab/Tiresias (simulator/run_sim.py)
#     PEERS_DIR/gavel     github.com/stanford-futuredata/gavel (scheduler/)
#   A peer that is missing is skipped with a message. The clones are not modified: each
#   runs from a copy in a temporary directory.
# Needs Debian's python3 with python3-numpy, python3-scipy, python3-psutil, python3-grpcio,
# python3-grpc-tools and python3-protobuf for Gavel (Tiresias needs nothing beyond python3).
#
# What is adapted, and why it does not change a result:
# - Tiresias is Python 2: py2port.py rewrites a copy so Python 3 keeps Python 2's integer
#   division, rounding and sys.maxint (its demotion instants divide ints).
# - Gavel imports cvxpy (its LP policies) and matrix_completion (its throughput estimator)
#   at start; its fifo never calls either, so empty modules stand in for them. Debian 12
#   has no cvxpy, so Gavel's LP policies (max_min_fairness, ...) are not run here.
set -euo pipefail
PEERS=${1:?usage: experiments/peers.sh PEERS_DIR [PATH/TO/berth]}
BERTH=$(realpath "${2:-build/berth}")
HERE=$(cd "$(dirname "$0")/peers" && pwd)
PY=/usr/bin/python3
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT

echo "berth: $("$BERTH" --version 2>/dev/null || echo "$BERTH")"
echo

if [ -f "$PEERS/tiresias/simulator/run_sim.py" ]; then
    cp -r "$PEERS/tiresias/simulator" "$W/tiresias"
    (cd "$W/tiresias" && "$PY" "$HERE/py2port.py" ./*.py)
    printf 'num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,mem_p_node\n1,16,4,40,256\n' \
        >"$W/n16g4.csv"
    echo "### Tiresias (run_sim.py --scheme=count) and berth --mode tiresias, 16x4 GPUs"
    echo
    echo "| trace, policy | jobs | Tiresias avg JCT s | berth avg JCT s | diff | Tiresias median | berth median | same JCT (< 1 s) | within 1 % |"
    echo "|---|---|---|---|---|---|---|---|---|"
    for t in "philly 1000 40" "gavel 300 4"; do
        set -- $t
        for seed in 1 2 3; do
            name=$1-$seed
            "$BERTH" gen --profile "$1" --jobs "$2" --rate "$3" --seed "$seed" --out "$W/$name.csv"
            "$PY" "$HERE/convert.py" tiresias "$W/$name.csv" "$W/$name-t.csv"
            for s in fifo:fifo dlas:tiresias-dlas dlas-gpu:tiresias-dlas-gpu; do
                mkdir -p "$W/T-$name-${s%%:*}"
                (cd "$W/tiresias" && "$PY" run_sim.py --cluster_spec="$W/n16g4.csv" --print \
                    --scheme=count --trace_file="$W/$name-t.csv" --schedule="${s%%:*}" \
                    --log_path="$W/T-$name-${s%%:*}" >"$W/T-$name-${s%%:*}.log" 2>&1)
                "$BERTH" sim --mode tiresias --cluster "$W/n16g4.csv" --trace "$W/$name-t.csv" \
                    --policy "${s#*:}" --out "$W/B-$name-${s%%:*}" --quiet >/dev/null
                "$PY" "$HERE/compare.py" tiresias "$W/T-$name-${s%%:*}/job.csv" \
                    "$W/B-$name-${s%%:*}/jobs.csv" "$name (gen --rate $3), ${s#*:}"
            done
        done
    done
    echo
else
    echo "(no $PEERS/tiresias/simulator/run_sim.py: Tiresias skipped)"
fi

if [ -f "$PEERS/gavel/scheduler/scheduler.py" ]; then
    cp -r "$PEERS/gavel/scheduler" "$W/gavel"
    mkdir -p "$W/stub" "$W/gavel/runtime/rpc_stubs"
    echo "# stand-in: Gavel's fifo never calls cvxpy" >"$W/stub/cvxpy.py"
    echo "# stand-in: Gavel's fifo never calls matrix_completion" >"$W/stub/matrix_completion.py"
    for p in iterator_to_scheduler scheduler_to_worker worker_to_scheduler common enums; do
        (cd "$W/gavel" && "$PY" -m grpc_tools.protoc -Iruntime/protobuf \
            --python_out=runtime/rpc_stubs --grpc_python_out=runtime/rpc_stubs \
            "runtime/protobuf/$p.proto")
    done
    echo "### Gavel (simulate_scheduler_with_trace.py -p fifo) and berth --mode gavel --policy gavel-fifo"
    echo
    echo "| trace, cluster, seed | jobs | Gavel avg JCT s | berth avg JCT s | diff | Gavel median | berth median | same JCT (< 1 s) | within 1 % |"
    echo "|---|---|---|---|---|---|---|---|---|"
    gavel_row() { # gavel_row NAME RATE GEN_SEED GAVEL_C BERTH_CLUSTER SIM_SEED
        "$BERTH" gen --profile gavel --jobs 300 --rate "$2" --seed "$3" --out "$W/$1.csv"
        "$PY" "$HERE/convert.py" gavel "$W/$1.csv" "$W/$1.trace"
        (cd "$W/gavel" && PYTHONPATH="$W/stub" "$PY" scripts/drivers/simulate_scheduler_with_trace.py \
            -t "$W/$1.trace" -p fifo -c "$4" --num_gpus_per_server 4:4:4 --seed "$6" \
            >"$W/G-$1-$6.log" 2>&1)
        "$BERTH" sim --mode gavel --cluster "$5" --trace "$W/$1.trace" --policy gavel-fifo \
            --seed "$6" --out "$W/BG-$1-$6" --quiet >/dev/null
        "$PY" "$HERE/compare.py" gavel "$W/G-$1-$6.log" "$W/BG-$1-$6/jobs.csv" \
            "gen --seed $3 --rate $2, -c $4 ($5), seed $6"
    }
    for seed in 1 2 3; do gavel_row "g$seed" 4 "$seed" 64:0:0 16x4:v100 0; done
    gavel_row h4 2 4 36:36:36 gavel:36:36:36 1
    gavel_row h4 2 4 36:36:36 gavel:36:36:36 5
else
    echo "(no $PEERS/gavel/scheduler/scheduler.py: Gavel skipped)"
fi
