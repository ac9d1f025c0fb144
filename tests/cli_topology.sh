#!/usr/bin/env bash
# berth sim on a cluster with a topology (issue 36): the rate by the level a gang spans,
# hand-computed (one 16-GPU gang of 1,000 s on 4 servers of 8: two servers in one rack, in
# one block, or in different racks with no blocks), --topology-model over the defaults, the
# refusals (--spread-penalty on a topology, --topology-model without one, a bad model file),
# a flat cluster left as it was, and the topology placement keeping a gang in one rack.
# Usage: bash tests/cli_topology.sh PATH/TO/berth SRC_DIR SHARED_DIR
set -u
BERTH=${1:?usage: cli_topology.sh BERTH SRC_DIR SHARED_DIR}
SRC=${2:?usage: cli_topology.sh BERTH SRC_DIR SHARED_DIR}
SHARED=${3:-$SRC/../shared}
. "$SRC/tests/cli_lib.sh"

printf 'job_id,arrival_s,duration_s,num_gpus\na,0,1000,16\n' >"$W/g.csv"
jct() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["avg_jct_s"])' "$W/out"; }
# f = 1 / ((1 - s) + s * 450 / bw), s = 0.02: rack (50 GB/s) 1/1.16, block (25) 1/1.34,
# cluster (12.5) 1/1.70; flat: no slowdown (fixed speed, no spread penalty)
for c in "4x8:h100 1000.0" "4x8:h100,racks=2 1160.0" "4x8:h100,racks=4,blocks=2 1340.0" \
    "4x8:h100,racks=4 1700.0"; do
    set -- $c
    expect_rc 0 "16 GPUs on $1" -- "$BERTH" sim --cluster "$1" --trace "$W/g.csv" --json --check
    [ "$(jct)" = "$2" ] && ok "$1: JCT $2 s" || bad "$1: JCT $(jct), want $2"
done
# a model file: rack as fast as NVLink (factor 1); share 0.5 across racks: 0.5 + 0.5 * 36
printf '{"bandwidth_gbps": {"rack": 450}}' >"$W/m1.json"
expect_rc 0 "--topology-model rack=450" -- "$BERTH" sim --cluster 4x8:h100,racks=2 \
    --trace "$W/g.csv" --json --topology-model "$W/m1.json"
[ "$(jct)" = "1000.0" ] && ok "rack at NVLink speed: no slowdown" || bad "JCT $(jct)"
printf '{"comm_share": {"default": 0.5}}' >"$W/m2.json"
expect_rc 0 "--topology-model share 0.5" -- "$BERTH" sim --cluster 4x8:h100,racks=4 \
    --trace "$W/g.csv" --json --topology-model "$W/m2.json"
[ "$(jct)" = "18500.0" ] && ok "share 0.5 across the cluster: 18.5x" || bad "JCT $(jct)"
# refusals, each naming what is wrong
printf '{"bandwidth_gbps": {"rak": 1}}' >"$W/m3.json"
expect_rc 2 "unknown level" -- "$BERTH" sim --cluster 4x8:h100,racks=4 --trace "$W/g.csv" \
    --topology-model "$W/m3.json"
has "$W/err" "m3.json: bandwidth_gbps.rak: unknown level (expected nvlink, node, rack, block" \
    "the file and the field"
printf '{"comm_share": {"default": 2}}' >"$W/m4.json"
expect_rc 2 "share above 1" -- "$BERTH" sim --cluster 4x8:h100,racks=4 --trace "$W/g.csv" \
    --topology-model "$W/m4.json"
has "$W/err" "comm_share.default: expected a number from 0 to 1" "the share's range"
expect_rc 2 "--topology-model on a flat cluster" -- "$BERTH" sim --cluster 4x8:h100 \
    --trace "$W/g.csv" --topology-model "$W/m2.json"
has "$W/err" "the cluster has no topology" "says why"
expect_rc 2 "--spread-penalty on a topology" -- "$BERTH" sim --cluster 4x8:h100,racks=2 \
    --trace "$W/g.csv" --spread-penalty 0.5
has "$W/err" "replaces it" "says the level rate replaces it"
expect_rc 2 "a shorthand topology error" -- "$BERTH" sim --cluster 4x4:h100,racks=4,nvl=8 \
    --trace "$W/g.csv"
has "$W/err" "would cross from rack 0 to rack 1" "names the racks"
# topology placement: rack0 is busy with a 4-GPU job on server 0; 16 GPUs then fit in rack1
# (servers 2, 3) and take it rather than servers 1 and 2 across racks, so it runs at the rack
# rate (1160 s) instead of the cluster rate (1700 s), and its JCT says so
printf 'job_id,arrival_s,duration_s,num_gpus\nsmall,0,5000,4\na,1,1000,16\n' >"$W/p.csv"
for pl in "consolidate 1700.0" "topology 1160.0"; do
    set -- $pl
    expect_rc 0 "placement $1" -- "$BERTH" sim --cluster 4x8:h100,racks=2 --trace "$W/p.csv" \
        --placement "$1" --check --out "$W/o-$1"
    got=$(awk -F, 'NR > 1 && $1 == "a" { print $5 }' "$W/o-$1/jobs.csv")
    [ "${got%.*}" = "${2%.*}" ] && ok "$1: the gang's JCT is ${2%.*} s" || bad "$1: JCT $got, want $2"
done
finish
