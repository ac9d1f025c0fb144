#!/usr/bin/env bash
# End-to-end tests of `berth sim` and `berth policies` as a user runs them: exit codes and
# messages for bad input, the table, --json, --out files and their determinism, the shared
# command-line contract, and the real Philly trace under every baseline policy; and the
# one-error rule for bad flags of the commands without a test file of their own (berthd's
# clients: their flags are read before anything is sent).
# Usage: cli_sim.sh PATH/TO/berth SRC_DIR SHARED_DIR
set -u
BERTH=$1 SRC=$2 SHARED=$3
. "$SRC/tests/cli_lib.sh"

printf 'job_id,arrival_s,duration_s,num_gpus\nJ1,0,100,2\nJ2,10,50,4\nJ3,20,30,1\nJ4,30,10,2\n' >"$W/a.csv"

# --- help, policies ---------------------------------------------------------------------
expect_rc 0 "sim --help" -- "$BERTH" sim --help
has "$W/out" "--placement" "sim --help lists --placement"
expect_rc 0 "policies" -- "$BERTH" policies
for p in fifo fifo-skip sjf srtf las consolidate spread best-fit; do has "$W/out" "$p" "policies lists $p"; done
# SpeCon from the command line: the sim_golden case of test_specon (A moves once at 120 s
# and, after a 5 s restart, ends at 405); spread moves nobody
printf 'job_id,arrival_s,duration_s,num_gpus,gpu_share,job_type\nX,0,100,1,0.25,lenet\nA,0,400,1,0.25,lenet\nY,0,100,1,0.25,lenet\nC,0,3000,1,0.25,lenet\nD,0,3000,1,0.25,lenet\nE,0,3000,1,0.25,lenet\n' >"$W/sc.csv"
has "$W/out" "specon" "policies lists specon"
expect_rc 0 "specon" -- "$BERTH" sim --cluster 2x1:cpu --trace "$W/sc.csv" --policy specon --restart-cost 5 --check --out "$W/sco"
has "$W/out" "migrations 1" "specon migrates once"
has "$W/sco/jobs.csv" "A,0,0,405," "specon: A ends at 405 s after its move"
expect_rc 0 "spread" -- "$BERTH" sim --cluster 2x1:cpu --trace "$W/sc.csv" --policy spread --restart-cost 5 --check
has "$W/out" "migrations 0" "spread never migrates"
expect_rc 2 "no command" -- "$BERTH"
expect_rc 2 "unknown command" -- "$BERTH" nosuch
expect_rc 0 "version" -- "$BERTH" --version

# --- bad input: exit 2 and a message naming the place -----------------------------------
expect_rc 2 "missing --trace" -- "$BERTH" sim --cluster 1x4:v100
expect_rc 2 "unknown flag" -- "$BERTH" sim --cluster 1x4:v100 --trace "$W/a.csv" --bogus
expect_rc 2 "unknown policy" -- "$BERTH" sim --cluster 1x4:v100 --trace "$W/a.csv" --policy nope
has "$W/err" "las" "unknown policy lists the valid names"
expect_rc 2 "unknown placement" -- "$BERTH" sim --cluster 1x4:v100 --trace "$W/a.csv" --placement nope
expect_rc 2 "bad cluster" -- "$BERTH" sim --cluster 4x:v100 --trace "$W/a.csv"
has "$W/err" "expected NxG:type" "bad cluster says what was expected"
expect_rc 2 "missing trace file" -- "$BERTH" sim --cluster 1x4:v100 --trace "$W/none.csv"
expect_rc 2 "bad --seed" -- "$BERTH" sim --cluster 1x4:v100 --trace "$W/a.csv" --seed -1
expect_rc 2 "bad --quantum" -- "$BERTH" sim --cluster 1x4:v100 --trace "$W/a.csv" --quantum 0

# --- policy settings: the policy's own table, refused in any other form --------------------
printf 'job_id,arrival_s,duration_s,num_gpus\nA,0,400,1\nB,50,30,1\n' >"$W/pri.csv"
"$BERTH" sim --cluster 1x1:v100 --trace "$W/pri.csv" --policy tiresias-dlas --json >"$W/d.json"
"$BERTH" sim --cluster 1x1:v100 --trace "$W/pri.csv" --policy tiresias-dlas --policy-arg queue_limits=100 --json >"$W/q.json"
python3 - "$W/d.json" "$W/q.json" <<'PY' && ok "queue_limits=100 demotes the long job at 100 s: B waits less" || bad "--policy-arg queue_limits had no effect"
import json, sys
d, q = (json.load(open(p)) for p in sys.argv[1:3])
sys.exit(0 if q["preemptions"] == 1 and d["preemptions"] == 0 and q["avg_queue_s"] < d["avg_queue_s"] else 1)
PY
expect_rc 2 "a setting the policy lacks" -- "$BERTH" sim --cluster 1x1:v100 --trace "$W/pri.csv" --policy fifo --policy-arg window=5
has "$W/err" 'policy fifo: unknown setting "window" (its settings: backfill, backfill_depth,' "it names the policy and the setting"
expect_rc 2 "a setting out of range" -- "$BERTH" sim --cluster 1x1:v100 --trace "$W/pri.csv" --policy specon --policy-arg theta=2
has "$W/err" "policy specon: setting theta: expected a number from 0 to 1, found \"2\"" "it names the range"
expect_rc 2 "--queue-limits with a policy that has no queues" -- "$BERTH" sim --cluster 1x1:v100 --trace "$W/pri.csv" --policy las --queue-limits 100
has "$W/err" 'policy las: unknown setting "queue_limits"' "it is refused, not ignored"
"$BERTH" policies >"$W/pol"
has "$W/pol" "setting queue_limits:" "berth policies lists the settings"
"$BERTH" policies --args priority >"$W/pol"
has "$W/pol" "preempt" "berth policies --args priority lists preempt"
"$BERTH" sim --cluster 1x1:v100 --trace "$W/pri.csv" --policy specon --policy-arg window=30 --policy-arg alpha=0.2 --json >/dev/null &&
    ok "--policy-arg repeats" || bad "two --policy-arg failed"
expect_rc 2 "policies --args with an unknown policy" -- "$BERTH" policies --args nope
has "$W/err" "berth policies: --args: unknown policy 'nope'" "it names the policy"

# --- a bad flag is one error naming it, then the hint to --help ---------------------------
S=(sim --cluster 1x4:v100 --trace "$W/a.csv")
one_error "sim --bogus" "berth sim: unknown flag '--bogus'" -- "$BERTH" "${S[@]}" --bogus
one_error "sim --seed x" "berth sim: --seed: expected a whole number >= 0, found 'x'" -- "$BERTH" "${S[@]}" --seed x
one_error "sim --json=1" "berth sim: --json: expected no value, found '1'" -- "$BERTH" "${S[@]}" --json=1
one_error "sim --ro (ambiguous)" "ambiguous flag '--ro': --round, --round-admit, --round-release, --round-jct or --round-early-end" -- "$BERTH" "${S[@]}" --ro 1
one_error "sim --cluster without its value" "berth sim: --cluster: expected a value" -- "$BERTH" sim --cluster
one_error "sim --mode nope" "berth sim: --mode: expected des, rounds, gavel, blox or tiresias, found 'nope'" -- "$BERTH" "${S[@]}" --mode nope
one_error "policies --json" "berth policies: unknown flag '--json'" -- "$BERTH" policies --json
one_error "help --bogus" "berth help: unknown flag '--bogus'" -- "$BERTH" help --bogus
# berthd's clients (nothing listens at port 9: a flag that got through would fail to connect)
export BERTH_SERVER=http://127.0.0.1:9 BERTH_TOKEN=t
one_error "submit --timeout 1" "berth submit: unknown flag '--timeout'" -- "$BERTH" submit --timeout 1 -- true
one_error "submit --time 1:99" "berth submit: --time: expected seconds (90, 30m, 2h, 1d) or MM:SS, HH:MM:SS, D-HH:MM:SS, found '1:99'" -- "$BERTH" submit --time 1:99 -- true
one_error "submit --time 0" "berth submit: --time: expected seconds" -- "$BERTH" submit --time 0 -- true
one_error "submit -x" "berth submit: unknown flag '-x'" -- "$BERTH" submit -x -- true
one_error "submit --gpus without its value" "berth submit: --gpus: expected a value" -- "$BERTH" submit --gpus
one_error "submit -g abc" "berth submit: -g: expected a number, found 'abc'" -- "$BERTH" submit -g abc -- true
one_error "submit -e FOO" "berth submit: -e: expected K=V, found 'FOO'" -- "$BERTH" submit -e FOO -- true
one_error "queue --limit" "berth queue: --limit: expected a value" -- "$BERTH" queue --limit
one_error "queue --limit 2000000" "berth queue: --limit: expected a whole number from 0 to 1000000, found '2000000'" -- "$BERTH" queue --limit 2000000
one_error "queue --user twice" "berth queue: --user: given twice; it takes one value" -- "$BERTH" queue --user a -u b
one_error "show --bogus" "berth show: unknown flag '--bogus'" -- "$BERTH" show --bogus 5
one_error "nodes --json=1" "berth nodes: --json: expected no value, found '1'" -- "$BERTH" nodes --json=1
one_error "cancel -x" "berth cancel: unknown flag '-x'" -- "$BERTH" cancel -x 5
one_error "logs -fx" "berth logs: unknown flag '-x'" -- "$BERTH" logs -fx 5
expect_rc 1 "a submit whose flags are good goes on (and finds no berthd)" -- "$BERTH" submit -g 1 -Hn x --no-env -- true
has "$W/err" "berthd is not answering at http://127.0.0.1:9 (Connection refused)" "  ... it tried to reach berthd"
unset BERTH_SERVER BERTH_TOKEN
for row in "J5,40,abc,1|column duration_s" "J5,40,0,1|column duration_s" "J5,40,10,0|column num_gpus" \
    "J5,-1,10,1|column arrival_s" "J5,40,10|expected 4 fields" "J1,40,10,1|column job_id" \
    "J5,40,10,5|column num_gpus: expected at most 4 GPUs"; do
    printf 'job_id,arrival_s,duration_s,num_gpus\nJ1,0,100,2\n%s\n' "${row%%|*}" >"$W/bad.csv"
    expect_rc 2 "bad row '${row%%|*}'" -- "$BERTH" sim --cluster 1x4:v100 --trace "$W/bad.csv"
    has "$W/err" "bad.csv:3: ${row#*|}" "bad row '${row%%|*}' names bad.csv:3 and ${row#*|}"
done
printf 'job_id,arrival_s,duration_s,num_gpus,color\n1,0,1,1,red\n' >"$W/col.csv"
expect_rc 2 "unknown column" -- "$BERTH" sim --cluster 1x4:v100 --trace "$W/col.csv"
has "$W/err" "col.csv:1" "unknown column names line 1"
printf 'job_id,arrival_s,duration_s,num_gpus,x_color\n1,0,1,1,red\n' >"$W/x.csv"
expect_rc 0 "x_ columns are allowed" -- "$BERTH" sim --cluster 1x4:v100 --trace "$W/x.csv"

# --- simulated time that would overflow the clock is bad input, not a wrong answer --------
{ echo "job_id,arrival_s,duration_s,num_gpus"; for i in 1 2 3 4 5 6; do echo "j$i,0,1e12,1"; done; } >"$W/ov.csv"
expect_rc 2 "work beyond 146,000 years is refused" -- "$BERTH" sim --cluster 1x1:v100 --trace "$W/ov.csv"
has "$W/err" "ov.csv:6: column duration_s" "the overflow names the job that crosses the limit"

# --- --lenient: bad rows are skipped and counted per reason, never silently ------------
printf 'job_id,arrival_s,duration_s,num_gpus\n1,0,10,1\n2,1,x,1\n3,2,-1,1\n4,3,5,1\n1,4,5,1\n6,3,5\n' >"$W/len.csv"
expect_rc 2 "strict stops at the first bad row" -- "$BERTH" sim --cluster 1x1:a --trace "$W/len.csv"
expect_rc 0 "--lenient runs the good rows" -- "$BERTH" sim --cluster 1x1:a --trace "$W/len.csv" --lenient --json
grep -q '"jobs": 2' "$W/out" && ok "--lenient keeps the 2 good jobs" || bad "--lenient jobs: $(cat "$W/out")"
has "$W/err" "4 of 6 rows left out" "--lenient reports how many rows it left out"
has "$W/err" "2  bad row: column duration_s" "--lenient counts per reason"
has "$W/err" "column job_id: expected a unique id" "--lenient counts a duplicate id"

# --- results ----------------------------------------------------------------------------
expect_rc 0 "table" -- "$BERTH" sim --cluster 1x4:v100 --trace "$W/a.csv" --policy las
has "$W/out" "avg JCT" "table shows avg JCT"
has "$W/out" "77.5 s" "table shows las avg JCT 77.5 s (hand-computed)"
expect_rc 0 "json" -- "$BERTH" sim --cluster 1x4:v100 --trace "$W/a.csv" --policy srtf --json
python3 - "$W/out" <<'PY' && ok "json: srtf avg JCT 70, 4 preemptions, util in (0,1]" || bad "json values"
import json, sys
d = json.loads(open(sys.argv[1]).read())
assert abs(d["avg_jct_s"] - 70) < 1e-9 and d["preemptions"] == 4 and 0 < d["gpu_util"] <= 1, d
PY
expect_rc 0 "out dir" -- "$BERTH" sim --cluster 1x4:v100 --trace "$W/a.csv" --policy las --out "$W/o1"
for f in jobs.csv series.csv summary.json; do [ -s "$W/o1/$f" ] && ok "--out wrote $f" || bad "--out lacks $f"; done
has "$W/o1/jobs.csv" "J1,0,0,150,150,0,100,2,v100,1,1" "jobs.csv row of J1 (las: finish 150, 1 preemption)"
head -1 "$W/o1/series.csv" | grep -q '^time_s,busy_gpus,running,pending$' && ok "series.csv header" || bad "series.csv header"
"$BERTH" sim --cluster 1x4:v100 --trace "$W/a.csv" --policy las --out "$W/o2" >/dev/null
diff -r "$W/o1" "$W/o2" >/dev/null && ok "--out is byte-identical across runs" || bad "--out differs"
printf '{"servers":[{"gpu_type":"v100","gpus":2,"count":2,"rack":"r1"}],"gang_span":false}' >"$W/c.json"
expect_rc 2 "cluster file forbids spanning a 4-GPU gang" -- "$BERTH" sim --cluster "$W/c.json" --trace "$W/a.csv"
has "$W/err" "one server" "span error explains the one-server limit"
printf '{"servers":[{"gpu_type":"v100","gpus":4,"count":1}]}' >"$W/c2.json"
expect_rc 0 "cluster file" -- "$BERTH" sim --cluster "$W/c2.json" --trace "$W/a.csv" --policy las --json
grep -q '"avg_jct_s": 77.5' "$W/out" && ok "cluster file gives the same las answer" || bad "cluster file answer: $(cat "$W/out")"

# --- generated workload through sim -----------------------------------------------------
"$BERTH" gen --profile gavel --jobs 500 --seed 3 --out "$W/g.csv" 2>"$W/err" && ok "gen" || bad "gen: $(cat "$W/err")"
expect_rc 0 "sim on a generated trace" -- "$BERTH" sim --cluster 4x4:v100,4x4:k80 --trace "$W/g.csv" --policy las --check --json
grep -q '"completed": 500' "$W/out" && ok "all 500 generated jobs complete" || bad "generated run incomplete"

# --- shared contract and the real Philly trace ------------------------------------------
PHILLY=$SHARED/traces/philly-pollux/philly.csv
if [ -x "$SHARED/tools/check-sim-contract.sh" ]; then
    bash "$SHARED/tools/check-sim-contract.sh" "$BERTH" >"$W/contract" 2>&1 && ok "check-sim-contract.sh passes" \
        || bad "check-sim-contract.sh: $(grep FAIL "$W/contract" | head -3)"
else
    echo "SKIP $SHARED/tools/check-sim-contract.sh absent; contract check skipped"
fi
if [ -f "$PHILLY" ]; then
    for p in fifo fifo-skip sjf srtf las; do
        "$BERTH" sim --cluster 64x8:v100 --trace "$PHILLY" --format philly-pollux --policy $p --json >"$W/p.json" 2>"$W/err"
        python3 - "$W/p.json" "$p" <<'PY' && ok "philly under $p: 82247 jobs complete, sane figures" || bad "philly under $p: $(cat "$W/err")"
import json, sys
d = json.load(open(sys.argv[1])); p = sys.argv[2]
assert d["jobs"] == 82247 and d["completed"] == 82247, d
# the trace spans 108.9 days; nothing can end before the last arrival plus its duration
assert d["makespan_s"] >= 9408690, d
assert 0.5 < d["gpu_util"] <= 1, d
assert d["avg_jct_s"] >= 13136 - 1, d   # the mean duration is a lower bound on mean JCT
assert (d["preemptions"] > 0) == (p in ("srtf", "las")), d
PY
    done
    # auto-detection picks the format from the header
    "$BERTH" sim --cluster 64x8:v100 --trace "$PHILLY" --policy sjf --json >"$W/p2.json" 2>&1 \
        && grep -q '"completed": 82247' "$W/p2.json" && ok "philly format detected from the header" || bad "philly auto-detect"
else
    echo "SKIP $PHILLY absent; real-trace checks skipped"
fi

finish
