#!/usr/bin/env bash
# On a machine with a real NVIDIA GPU (issue 17, item 7): berthd's NVML discovery and two
# jobs sharing one GPU under MPS limits. Not part of ctest (CI has no GPU); run it by hand
# wherever a GPU is at hand:  bash tests/gpu/check_gpu.sh [BUILD_DIR]
# 1. berthd started without --gpus asks NVML: its /v1/nodes must list every GPU nvidia-smi
#    lists, with the same model and memory;
# 2. with an MPS control daemon of our own (a private pipe directory), two jobs of
#    --share 0.5 --gpu-mem 1024 run at once on GPU 0, each with CUDA_MPS_ACTIVE_THREAD_PERCENTAGE
#    50 and CUDA_MPS_PINNED_DEVICE_MEM_LIMIT 0=1024M; with PyTorch, each allocates 256 MiB
#    (must work) and 2 GiB (must fail: the pinned limit) and prints what happened.
# Without a GPU it prints "SKIP ..." and exits 77. With BERTH_GPU_KEEP=DIR, berthd's log, the
# jobs' logs and nvidia-smi's view are copied there at the end (a remote machine's run).
set -u
BUILD=${1:-build}
BERTHD=$BUILD/berthd BERTH=$BUILD/berth
command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 ||
    { echo "SKIP no NVIDIA GPU here (nvidia-smi -L fails)"; exit 77; }
[ -x "$BERTHD" ] && [ -x "$BERTH" ] || { echo "FAIL build berth first: no $BERTHD"; exit 1; }
W=$(mktemp -d)
pass=0 failn=0
ok() { echo "ok   $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; failn=$((failn + 1)); }
MPSPID=""
cleanup() {
    [ -n "${BPID:-}" ] && kill "$BPID" 2>/dev/null
    if [ -n "${BERTH_GPU_KEEP:-}" ]; then
        mkdir -p "$BERTH_GPU_KEEP"
        cp "$W"/berthd.log "$W"/*.json "$W"/smi.csv "$W"/[0-9]*.log "$BERTH_GPU_KEEP"/ 2>/dev/null
    fi
    [ -n "$MPSPID" ] && echo quit | CUDA_MPS_PIPE_DIRECTORY=$W/mps nvidia-cuda-mps-control 2>/dev/null
    rm -rf "$W"
}
trap cleanup EXIT
echo "gpu0token0123456789 $(id -un) admin" >"$W/tokens"
chmod 600 "$W/tokens"
export BERTH_TOKEN=gpu0token0123456789

# --- 1. NVML discovery
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader,nounits >"$W/smi.csv"
echo "nvidia-smi: $(tr '\n' ';' <"$W/smi.csv")"
if command -v nvidia-cuda-mps-control >/dev/null; then
    mkdir -p "$W/mps" "$W/mpslog"
    CUDA_MPS_PIPE_DIRECTORY=$W/mps CUDA_MPS_LOG_DIRECTORY=$W/mpslog nvidia-cuda-mps-control -d &&
        MPSPID=1 && ok "an MPS control daemon of our own runs ($W/mps)" || bad "nvidia-cuda-mps-control -d failed"
fi
# the jobs take the submitter's environment: they must find this MPS daemon, not the default one
export CUDA_MPS_PIPE_DIRECTORY=$W/mps
"$BERTHD" --tokens "$W/tokens" --port 0 --port-file "$W/port" \
    --state-dir "$W/st" --tick 0.05 --policy fifo >"$W/berthd.log" 2>&1 &
BPID=$!
for _ in $(seq 200); do [ -s "$W/port" ] && break; sleep 0.1; done
[ -s "$W/port" ] || { bad "berthd did not start: $(tail -5 "$W/berthd.log")"; exit 1; }
export BERTH_SERVER=http://127.0.0.1:$(cat "$W/port")
"$BERTH" nodes --json >"$W/nodes.json" || bad "berth nodes: $(cat "$W/nodes.json")"
"$BERTH" nodes
python3 - "$W/nodes.json" "$W/smi.csv" <<'PY' && ok "berthd's GPUs are nvidia-smi's (count, memory)" || bad "NVML discovery disagrees with nvidia-smi"
import json, sys
nodes = json.load(open(sys.argv[1]))["nodes"]
smi = [l.rsplit(",", 1) for l in open(sys.argv[2]) if l.strip()]
gpus = [(n["gpu_type"], n["gpu_mem_mib"]) for n in nodes for _ in range(n["gpus"])]
print("berthd:", gpus)
ok = len(gpus) == len(smi) and all(abs(m - int(s[1])) <= 2 for (_, m), s in zip(gpus, smi))
sys.exit(0 if ok else 1)
PY

# --- 2. two jobs sharing GPU 0 under MPS limits
cat >"$W/probe.sh" <<'SH'
#!/bin/sh
echo "mps=${CUDA_MPS_ACTIVE_THREAD_PERCENTAGE:-none} pin=${CUDA_MPS_PINNED_DEVICE_MEM_LIMIT:-none} dev=$CUDA_VISIBLE_DEVICES"
touch "$1.started"
if python3 -c 'import torch' 2>/dev/null; then
    python3 - <<'PY'
import torch
x = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
print("256 MiB: allocated")
try:
    y = torch.empty(2 << 30, dtype=torch.uint8, device="cuda")
    print("2 GiB: allocated (the pinned limit did NOT hold)")
except RuntimeError as e:
    print("2 GiB: refused:", str(e).splitlines()[0])
PY
fi
# until told to end, or until the check's folder is gone (it ended without telling)
while [ ! -e "$1.go" ] && [ -d "${1%/*}" ]; do sleep 0.1; done
SH
chmod 755 "$W/probe.sh"
a=$("$BERTH" submit --share 0.5 --gpu-mem 1024 -- "$W/probe.sh" "$W/a" | grep -o '[0-9]*' | head -1)
b=$("$BERTH" submit --share 0.5 --gpu-mem 1024 -- "$W/probe.sh" "$W/b" | grep -o '[0-9]*' | head -1)
for _ in $(seq 600); do [ -e "$W/a.started" ] && [ -e "$W/b.started" ] && break; sleep 0.1; done
[ -e "$W/a.started" ] && [ -e "$W/b.started" ] && ok "two 0.5-share jobs run at once" || bad "they did not both start"
# wait (60 s at most) until each probe has printed all it will: with torch, its 2 GiB line
done_printing() {
    "$BERTH" logs "$1" >"$W/$1.log" 2>&1
    grep -q "mps=" "$W/$1.log" && { ! python3 -c 'import torch' 2>/dev/null || grep -q "2 GiB" "$W/$1.log"; }
}
for _ in $(seq 600); do done_printing "$a" && done_printing "$b" && break; sleep 0.1; done
for j in "$a" "$b"; do
    "$BERTH" logs "$j" >"$W/$j.log" 2>&1
    echo "job $j: $(tr '\n' '|' <"$W/$j.log")"
    grep -q "mps=50 pin=0=1024M dev=0" "$W/$j.log" && ok "job $j: MPS 50 %, 1024 MiB pinned, GPU 0" || bad "job $j: $(head -1 "$W/$j.log")"
    if grep -q "256 MiB" "$W/$j.log"; then
        grep -q "2 GiB: refused" "$W/$j.log" && ok "job $j: the pinned memory limit holds" || bad "job $j: 2 GiB was allocated"
    fi
done
if [ -n "$MPSPID" ] && python3 -c 'import torch' 2>/dev/null; then
    srv=$(echo get_server_list | nvidia-cuda-mps-control 2>&1)
    [ -n "$srv" ] && ok "the jobs' CUDA went through our MPS daemon (server $srv)" ||
        bad "no MPS server was started: the jobs ran outside MPS"
fi
touch "$W/a.go" "$W/b.go"
"$BERTH" show "$a" | grep allocation
echo "$pass passed, $failn failed"
[ "$failn" = 0 ]
