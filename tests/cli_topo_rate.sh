#!/usr/bin/env bash
# Throughput by distance end to end (docs/topology-rate.md): hand-computed JCTs of gangs
# spanning a rack, a block and the cluster under --topology-model, by duration and by
# steps; the summary's by_span and frag_by_level (only with a topology); --topology-model's and
# --spread-penalty's errors; the native trace columns topology, topology_preferred and tp
# (errors naming FILE:LINE and the column, written only when a job has them); and berth gen
# --profile llm (same seed, same bytes; tp divides num_gpus).
# Usage: cli_topo_rate.sh BERTH SRCDIR SHAREDDIR
set -u
BERTH=$1
. "$(dirname "$0")/cli_lib.sh"
key() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): d = d[k]
print(repr(d))' "$1" "$2" 2>/dev/null; }
sim() { "$BERTH" sim "$@" --json >"$W/s.json" 2>"$W/s.err"; }

printf 'job_id,arrival_s,duration_s,num_gpus\n1,0,1000,16\n' >"$W/g.csv"
echo '{"comm_share": {"default": 0.1}}' >"$W/m.json"

# s = 0.1, bw[nvlink] / bw[L] = 9 (rack), 18 (block), 36 (cluster): a 1000 s gang of 16 GPUs
# over two 8-GPU servers takes 1000 x (0.9 + 0.1 x 9) = 1800 s in one rack, 1000 x 2.7 =
# 2700 s over two racks of one block, 1000 x 4.5 = 4500 s over two racks in no block
for c in "2x8:h100,racks=1 1800.0 rack" "2x8:h100,racks=2,blocks=1 2700.0 block" \
    "2x8:h100,racks=2 4500.0 cluster"; do
    set -- $c
    if sim --cluster "$1" --trace "$W/g.csv" --topology-model "$W/m.json"; then
        [ "$(key "$W/s.json" avg_jct_s)" = "$2" ] && ok "$1: JCT $2 s" ||
            bad "$1: JCT $(key "$W/s.json" avg_jct_s), want $2"
        [ "$(key "$W/s.json" "by_span.$3.jobs")" = 1 ] && ok "$1: by_span.$3 has the job" ||
            bad "$1: by_span $(key "$W/s.json" by_span)"
        # GPU-hours: 16 GPUs x JCT / 3600
        want=$(python3 -c "print(repr(round(16 * $2 / 3600, 11)))")
        [ "$(key "$W/s.json" "by_span.$3.gpu_hours")" = "$want" ] && ok "$1: $want GPU-hours" ||
            bad "$1: GPU-hours $(key "$W/s.json" "by_span.$3.gpu_hours"), want $want"
    else
        bad "$1: sim failed: $(head -c 300 "$W/s.err")"
    fi
done
# the defaults (s = 0.02): 1000 x (0.98 + 0.02 x 9) = 1160 s in one rack
sim --cluster 2x8:h100,racks=1 --trace "$W/g.csv" &&
    [ "$(key "$W/s.json" avg_jct_s)" = 1160.0 ] && ok "default share: JCT 1160 s" ||
    bad "default share: JCT $(key "$W/s.json" avg_jct_s), want 1160"
# one multi-node NVLink domain of 16 GPUs: no slowdown
sim --cluster 2x8:h100,nvl=16 --trace "$W/g.csv" --topology-model "$W/m.json" &&
    [ "$(key "$W/s.json" avg_jct_s)" = 1000.0 ] && ok "one NVLink domain: 1000 s" ||
    bad "one NVLink domain: JCT $(key "$W/s.json" avg_jct_s), want 1000"

# by steps: the consolidated rate (a 16-GPU server, flat) times 1 / 1.8
printf 'job_id,arrival_s,duration_s,num_gpus,job_type,total_steps\n1,0,,16,ResNet-18 (batch size 64),1000000\n' >"$W/st.csv"
sim --cluster 1x16:v100 --trace "$W/st.csv" && one=$(key "$W/s.json" avg_jct_s)
sim --cluster 2x8:v100,racks=1 --trace "$W/st.csv" --topology-model "$W/m.json" &&
    two=$(key "$W/s.json" avg_jct_s)
python3 -c "import sys; sys.exit(0 if abs(${two:-0} - 1.8 * ${one:-1}) < 2e-6 else 1)" &&
    ok "by steps: JCT over a rack = 1.8 x one server's (${one:-?} -> ${two:-?})" ||
    bad "by steps: ${two:-?} is not 1.8 x ${one:-?}"

# flat: no by_span, no change
sim --cluster 2x8:h100 --trace "$W/g.csv" && ! grep -q by_span "$W/s.json" &&
    [ "$(key "$W/s.json" avg_jct_s)" = 1000.0 ] && ok "flat cluster: no by_span, 1000 s" ||
    bad "flat cluster: $(head -c 300 "$W/s.json")"

# frag_by_level: A (4 GPUs) 0..7200 s, B (8) 3600..7200 s on two 8-GPU servers in two racks:
# idle in partial domains 1/3 then 1 (average 2/3), whole idle domains 1 then 0 (1/2); in
# --out's summary.json too; absent on a flat cluster; no block level without blocks=
printf 'job_id,arrival_s,duration_s,num_gpus\nA,0,7200,4\nB,3600,3600,8\n' >"$W/fr.csv"
sim --cluster 2x8:h100,racks=2 --trace "$W/fr.csv" &&
    [ "$(key "$W/s.json" frag_by_level.rack.idle_in_partial)" = 0.666666666667 ] &&
    [ "$(key "$W/s.json" frag_by_level.node.whole_idle_domains)" = 0.5 ] &&
    [ -z "$(key "$W/s.json" frag_by_level.block)" ] &&
    ok "frag_by_level: 2/3 idle in partial domains, 1/2 whole idle" ||
    bad "frag_by_level: $(key "$W/s.json" frag_by_level)"
"$BERTH" sim --cluster 2x8:h100,racks=2 --trace "$W/fr.csv" --out "$W/fro" >/dev/null 2>&1 &&
    [ "$(key "$W/fro/summary.json" frag_by_level.nvlink.idle_in_partial)" = 0.666666666667 ] &&
    ok "frag_by_level in --out summary.json" || bad "frag_by_level: --out summary.json"
sim --cluster 2x8:h100 --trace "$W/fr.csv" && ! grep -q frag_by_level "$W/s.json" &&
    ok "flat cluster: no frag_by_level" || bad "flat cluster: frag_by_level $(head -c 300 "$W/s.json")"
# berth report: the topology tables with a topology only
"$BERTH" report "$W/fro" --out "$W/fro.html" >/dev/null 2>&1 &&
    grep -q '<td>66.7 %</td><td>0.5</td>' "$W/fro.html" && grep -q 'id="span-table"' "$W/fro.html" &&
    ok "report: fragmentation and span tables" || bad "report: no topology tables"
# servers are the NVLink islands there: nvlink says what node says, and its columns go
grep -q '<th>node idle in partial' "$W/fro.html" && ! grep -q '<th>nvlink idle' "$W/fro.html" &&
    ok "report: no nvlink columns where islands are the servers" || bad "report: nvlink columns"
"$BERTH" sim --cluster gb200-nvl72 --trace "$W/fr.csv" --out "$W/fnv" >/dev/null 2>&1 &&
    "$BERTH" report "$W/fnv" --out "$W/fnv.html" >/dev/null 2>&1 &&
    grep -q '<th>nvlink idle in partial' "$W/fnv.html" &&
    ok "report: nvlink columns on NVL72 racks (domains across servers)" ||
    bad "report of gb200-nvl72: no nvlink columns"
"$BERTH" sim --cluster 2x8:h100 --trace "$W/fr.csv" --out "$W/ffo" >/dev/null 2>&1 &&
    "$BERTH" report "$W/ffo" --out "$W/ffo.html" >/dev/null 2>&1 &&
    ! grep -q 'id="topology"' "$W/ffo.html" && ok "report of a flat run: no topology tables" ||
    bad "report of a flat run: topology tables"

# --topology-model and --spread-penalty errors
expect_rc 2 "--topology-model on a flat cluster" -- "$BERTH" sim --cluster 2x8:h100 --trace "$W/g.csv" --topology-model "$W/m.json"
has "$W/err" "--topology-model: the cluster has no topology" "its message"
echo '{"bandwidth_gbps": {"rack": -1}}' >"$W/bad.json"
expect_rc 2 "a bad model file" -- "$BERTH" sim --cluster 2x8:h100,racks=1 --trace "$W/g.csv" --topology-model "$W/bad.json"
has "$W/err" "bad.json: bandwidth_gbps.rack: expected a number above 0" "names the file and the field"
expect_rc 2 "--spread-penalty F with a topology" -- "$BERTH" sim --cluster 2x8:h100,racks=1 --trace "$W/g.csv" --spread-penalty 0.5
has "$W/err" "--spread-penalty: the cluster has a topology" "its message"
expect_rc 2 "--spread-penalty TYPE=F with a topology" -- "$BERTH" sim --cluster 2x8:v100,racks=1 --trace "$W/st.csv" --spread-penalty "ResNet-18 (batch size 64)=0.5"
has "$W/err" "--spread-penalty: the cluster has a topology" "its message"

# trace columns: read, kept through convert, errors name FILE:LINE and the column
printf 'job_id,arrival_s,duration_s,num_gpus,topology,topology_preferred,tp\n1,0,10,16,rack,,8\n2,1,10,8,,block,\n3,2,10,4,node,nvlink,2\n' >"$W/t.csv"
expect_rc 0 "trace convert with topology columns" -- "$BERTH" trace convert "$W/t.csv" "$W/t2.csv" --quiet
cmp -s "$W/t.csv" "$W/t2.csv" && ok "the columns round-trip byte for byte" || bad "convert changed: $(cat "$W/t2.csv")"
printf 'job_id,arrival_s,duration_s,num_gpus\n1,0,10,1\n' >"$W/p.csv"
"$BERTH" trace convert "$W/p.csv" "$W/p2.csv" --quiet && cmp -s "$W/p.csv" "$W/p2.csv" &&
    ok "no topology: no new columns" || bad "a plain trace gained columns: $(head -1 "$W/p2.csv")"
bad_col() { # bad_col DESCRIPTION HEADER ROW WANT
    printf 'job_id,arrival_s,duration_s,num_gpus,%s\n1,0,10,8,%s\n' "$2" "$3" >"$W/b.csv"
    expect_rc 2 "$1" -- "$BERTH" sim --cluster 2x8:h100,racks=1 --trace "$W/b.csv"
    has "$W/err" "b.csv:2: column $4" "$1: FILE:LINE and the column"
}
bad_col "unknown level" topology spine 'topology: expected a topology level: nvlink, node, rack, block or cluster, found "spine"'
bad_col "unknown preferred level" topology_preferred Rack 'topology_preferred: expected a topology level'
bad_col "tp 0" tp 0 'tp: expected a tensor-parallel degree >= 1'
bad_col "tp not dividing num_gpus" tp 3 'tp: expected a degree that divides num_gpus'
bad_col "tp not a number" tp x 'tp: expected a tensor-parallel degree >= 1'

# gen --profile llm: reproducible, tp | num_gpus, runs on a topology with by_span
"$BERTH" gen --profile llm --jobs 500 --seed 7 --out "$W/l1.csv" &&
    "$BERTH" gen --profile llm --jobs 500 --seed 7 --out "$W/l2.csv" &&
    cmp -s "$W/l1.csv" "$W/l2.csv" && ok "gen llm: same seed, same bytes" || bad "gen llm differs"
"$BERTH" gen --profile llm --jobs 500 --seed 8 --out "$W/l3.csv"
cmp -s "$W/l1.csv" "$W/l3.csv" && bad "gen llm: another seed gave the same bytes" || ok "gen llm: another seed, other bytes"
python3 - "$W/l1.csv" <<'PY' && ok "gen llm: tp divides num_gpus" || bad "gen llm: a tp does not divide num_gpus"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
sys.exit(0 if rows and all(int(r["num_gpus"]) % int(r["tp"] or 1) == 0 for r in rows) else 1)
PY
if sim --cluster 64x8:h100,racks=8,blocks=2 --trace "$W/l1.csv" --check; then
    python3 - "$W/s.json" <<'PY' && ok "gen llm on 64x8 in 8 racks: all complete, by_span sums to the jobs" || bad "gen llm run: $(head -c 300 "$W/s.json")"
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d["completed"] == 500 and sum(v["jobs"] for v in d["by_span"].values()) == 500 else 1)
PY
else bad "gen llm run failed: $(head -c 300 "$W/s.err")"; fi

echo "$pass passed, $failn failed"
[ "$failn" = 0 ]
