#!/usr/bin/env bash
# berth sim with a topology (docs/topology.md): a JSON cluster file with a Slurm
# topology.conf (tree) and topology.yaml (block) under --check, the built-in topology
# clusters, the first line naming the topology, a flat run's first line unchanged, and bad
# topology files stopping with exit 2 and FILE:LINE: field.
# Usage: bash tests/cli_topology_files.sh PATH/TO/berth SRC_DIR SHARED_DIR
set -u
BERTH=${1:?usage: cli_topology_files.sh BERTH SRC_DIR SHARED_DIR}
SRC=${2:?usage: cli_topology_files.sh BERTH SRC_DIR SHARED_DIR}
. "$SRC/tests/cli_lib.sh"
T=(timeout 120)

cat >"$W/cluster.json" <<'J'
{"servers": [{"name": "gpu01", "gpu_type": "h100", "gpus": 8},
             {"name": "gpu02", "gpu_type": "h100", "gpus": 8},
             {"name": "gpu03", "gpu_type": "h100", "gpus": 8},
             {"name": "gpu04", "gpu_type": "h100", "gpus": 8}]}
J
cat >"$W/topology.conf" <<'C'
# two leaf switches under one spine
SwitchName=leaf1 Nodes=gpu[01-02] LinkSpeed=400
SwitchName=leaf2 Nodes=gpu[03-04]
SwitchName=spine Switches=leaf[1-2]
C
cat >"$W/topology.yaml" <<'Y'
---
- topology: nvl
  cluster_default: true
  block:
    block_sizes: [2, 4]
    blocks:
      - block: b1
        nodes: gpu[01-02]
      - block: b2
        nodes: gpu[03-04]
Y
printf 'job_id,arrival_s,duration_s,num_gpus\na,0,100,8\nb,10,50,16\nc,20,30,4\nd,30,60,32\n' \
    >"$W/t.csv"

expect_rc 0 "topology.conf under --check" -- "${T[@]}" "$BERTH" sim --cluster "$W/cluster.json" \
    --topology "$W/topology.conf" --trace "$W/t.csv" --check
has "$W/out" "on 4 servers, 32 GPUs (32 h100); 2 racks, 1 block, NVLink islands of 8 GPUs" \
    "the first line names the tree's racks and block"
has "$W/out" "completed          4" "every job completes"
expect_rc 0 "topology.yaml under --check" -- "${T[@]}" "$BERTH" sim --cluster "$W/cluster.json" \
    --topology "$W/topology.yaml" --trace "$W/t.csv" --check --json
has "$W/out" '"completed"' "the JSON summary"
for b in h100-8r gb200-nvl72; do
    expect_rc 0 "built-in $b under --check" -- "${T[@]}" "$BERTH" sim --cluster $b \
        --trace "$W/t.csv" --check
done
has "$W/out" "on 72 servers, 288 GPUs (288 gb200); 4 racks, 4 NVLink domains of 72 GPUs" \
    "gb200-nvl72's first line"
expect_rc 0 "flat cluster" -- "${T[@]}" "$BERTH" sim --cluster "$W/cluster.json" --trace "$W/t.csv"
[ "$(head -n 1 "$W/out")" = "berth sim: $W/t.csv on 4 servers, 32 GPUs (32 h100)" ] &&
    ok "a flat cluster's first line is as before" || bad "flat first line: $(head -n 1 "$W/out")"

printf 'SwitchName=leaf1 Nodes=gpu[01-02]\nSwitchName=leaf2 Nodes=gpu[03-05]\n' >"$W/bad.conf"
expect_rc 2 "a node that is not a server" -- "$BERTH" sim --cluster "$W/cluster.json" \
    --topology "$W/bad.conf" --trace "$W/t.csv"
has "$W/err" "bad.conf:2: SwitchName=leaf2: node gpu05 is not a server of the cluster" \
    "the message names FILE:LINE and the switch"
printf -- '- topology: t\n  tree:\n    switches:\n      - switch: s\n        nodes: gpu[01-04]\n        speed: 1\n' >"$W/bad.yaml"
expect_rc 2 "an unknown YAML key" -- "$BERTH" sim --cluster "$W/cluster.json" \
    --topology "$W/bad.yaml" --trace "$W/t.csv"
has "$W/err" "bad.yaml:6: topology[0].tree.switches[0].speed: unknown key" \
    "the message names FILE:LINE and the field"
expect_rc 2 "a missing topology file" -- "$BERTH" sim --cluster "$W/cluster.json" \
    --topology "$W/none.conf" --trace "$W/t.csv"
has "$W/err" "cannot open topology file" "the message says so"
finish
