#!/usr/bin/env bash
# berth sim ends with exit 1 when the run can make no more progress (src/sim/stall.h), naming
# the jobs and why: a golden trace with one gang that blox-consolidated can never place (its
# other jobs complete as they do without it), a job no server has the cores for, and the
# issue-34 repro: blox-las with blox-consolidated in blox mode on 1,000 generated Gavel jobs
# on 16x4:v100, which ran until killed before. Every run is under `timeout 120`.
# Usage: bash tests/cli_sim_stall.sh PATH/TO/berth SRC_DIR SHARED_DIR
set -u
BERTH=${1:?usage: cli_sim_stall.sh BERTH SRC_DIR SHARED_DIR}
SRC=${2:?usage: cli_sim_stall.sh BERTH SRC_DIR SHARED_DIR}
SHARED=${3:-$SRC/../shared}
. "$SRC/tests/cli_lib.sh"
T=(timeout 120)

# ---- golden: 2 servers of 4 GPUs; a (4 GPUs, 0-100 s) on server 0, c (4 GPUs) from 10 s to
# 60 s on server 1; big (8 GPUs) needs a server with exactly 8 idle under blox-consolidated,
# and neither has 8: when a finishes at 100 s nothing runs and nothing is to come
printf 'job_id,arrival_s,duration_s,num_gpus\na,0,100,4\nbig,0,50,8\nc,10,50,4\n' >"$W/g.csv"
printf 'job_id,arrival_s,duration_s,num_gpus\na,0,100,4\nc,10,50,4\n' >"$W/g-ok.csv"
G=(sim --cluster 2x4:v100 --placement blox-consolidated --json)
want="berth: sim: stalled at t=100 s with 2 of 3 jobs done: nothing runs, no job is still to \
arrive, and the pending job can never start; placement blox-consolidated (Blox as shipped: only \
a server with exactly the gang's count free) finds no GPUs for it even on the idle cluster: job \
big (8 GPUs, more than a server holds: 4)"
expect_rc 1 "fifo-skip: the impossible gang stops the run" -- "${T[@]}" "$BERTH" "${G[@]}" \
    --trace "$W/g.csv" --policy fifo-skip
[ "$(cat "$W/err")" = "$want" ] && ok "the message, word for word" ||
    bad "the message: $(cat "$W/err") -- want: $want"
[ ! -s "$W/out" ] && ok "nothing on stdout" || bad "stdout: $(head -c 200 "$W/out")"
expect_rc 0 "without big the same trace runs to the end" -- "${T[@]}" "$BERTH" "${G[@]}" \
    --trace "$W/g-ok.csv" --policy fifo-skip
python3 - "$W/out" <<'PY' && ok "without big: a and c as in the stalled run (JCT 100 and 50, makespan 100 s)" ||
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d["completed"] == 2 and abs(d["avg_jct_s"] - 75) < 1e-9 and abs(d["makespan_s"] - 100) < 1e-9 else 1)
PY
    bad "without big: $(head -c 300 "$W/out")"
# the same under a time-sliced policy (las' quantum timer) and in the round modes
for run in "las" "las --mode rounds" "blox-fifo --mode blox" "gavel-fifo --mode gavel"; do
    # shellcheck disable=SC2086
    expect_rc 1 "$run: ends" -- "${T[@]}" "$BERTH" "${G[@]}" --trace "$W/g.csv" --policy $run
    has "$W/err" "job big (8 GPUs, more than a server holds: 4)" "$run: names big and why"
done
# blox-las stops at the first job it cannot place (as Blox does): c waits behind big with a
# server idle; the run gives up after 2000 h of simulated time with the cluster idle
expect_rc 1 "blox-las: big holds c" -- "${T[@]}" "$BERTH" "${G[@]}" --trace "$W/g.csv" --policy blox-las
has "$W/err" "with 1 of 3 jobs done" "blox-las: only a ran"
has "$W/err" "over 2000 h with the cluster idle" "blox-las: the bound on an idle spell"
has "$W/err" "job big (8 GPUs, more than a server holds: 4)" "blox-las: big can never start"
has "$W/err" "policy blox-las does not start the other one, though it could be placed: job c" \
    "blox-las: c is held by the policy"

# ---- a job no server has the cores for, under every placement's default policy
printf '{"servers": [{"gpu_type": "v100", "gpus": 2, "cpus": 8, "count": 2}]}\n' >"$W/c.json"
printf 'job_id,arrival_s,duration_s,num_gpus,cpus\n1,0,100,1,2\nX,10,50,1,16\n3,20,30,1,4\n' >"$W/cpu.csv"
for pol in fifo las tiresias-dlas salus-fair; do
    expect_rc 1 "$pol: a job asking 16 cores of 8-core servers" -- "${T[@]}" "$BERTH" sim \
        --cluster "$W/c.json" --trace "$W/cpu.csv" --policy "$pol" --json
    has "$W/err" "even idle (GPUs with the CPU and memory asked for): job X (1 GPU, 16 CPUs)" \
        "$pol: names X and why"
done

# ---- bad input keeps exit 2 (a gang larger than the cluster is refused before the run)
printf 'job_id,arrival_s,duration_s,num_gpus\n1,0,10,9\n' >"$W/big.csv"
expect_rc 2 "a gang larger than the cluster is still bad input" -- "${T[@]}" "$BERTH" sim \
    --cluster 2x4:v100 --trace "$W/big.csv"

# ---- the repro: 1,000 Gavel-profile jobs, blox-las + blox-consolidated in blox mode on
# 16x4:v100. blox-consolidated is Blox's _consolidated_placement as shipped: a gang goes only
# to a server with exactly its count idle, so on the idle cluster only 4-GPU gangs fit; job 1
# (2 GPUs, t=0) heads blox-las' order and Blox stops at the first job it cannot place
"$BERTH" gen --profile gavel --jobs 1000 --seed 1 --out "$W/gavel.csv" >/dev/null 2>&1 ||
    bad "gen --profile gavel"
R=(sim --cluster 16x4:v100 --trace "$W/gavel.csv" --mode blox --policy blox-las
    --placement blox-consolidated --json -q)
start=$SECONDS
expect_rc 1 "repro: the run ends" -- "${T[@]}" "$BERTH" "${R[@]}"
echo "     (the repro took $((SECONDS - start)) s)"
has "$W/err" "with 0 of 1000 jobs done" "repro: no job ever started"
has "$W/err" "placement blox-consolidated (Blox as shipped: only a server with exactly the gang's count free) finds no GPUs for" \
    "repro: names the placement's rule"
has "$W/err" "and 848 more" "repro: lists ten ids, then how many more"
TABLE=$SHARED/traces/gavel/simulation_throughputs.json
if [ -f "$TABLE" ]; then
    expect_rc 1 "repro with Gavel's measured throughputs ($TABLE): ends" -- "${T[@]}" "$BERTH" \
        "${R[@]}" --throughputs "$TABLE"
    has "$W/err" "with 0 of 1000 jobs done" "repro with Gavel's throughputs: no job ever started"
else
    absent gavel "the repro with Gavel's measured throughputs: $TABLE is not here"
fi
finish
