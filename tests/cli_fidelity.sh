#!/usr/bin/env bash
# End-to-end tests of `berth sim`'s fidelity flags as a user runs them: the throughput model
# (built-in catalog vs Gavel's file, --fixed-speed), co-location pairs from Lucid's file,
# restart costs, time modes and their switches, the peer presets, berth fidelity's ladder,
# the new summary fields, and exit 2 with a clear message for every bad flag value.
# Usage: cli_fidelity.sh PATH/TO/berth SRC_DIR SHARED_DIR
set -u
BERTH=$1 SRC=$2 SHARED=$3
. "$SRC/tests/cli_lib.sh"
key() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d[sys.argv[2]])' "$1" "$2"; }
GAVEL=$SRC/examples/gavel-sample.csv
TABLE=$SHARED/traces/gavel/simulation_throughputs.json
LUCID=$SHARED/traces/lucid/colocate_info.csv

# --- the model on a heterogeneous cluster -----------------------------------------------
expect_rc 0 "gavel sample by steps on the gavel cluster" -- \
    "$BERTH" sim --cluster gavel --trace "$GAVEL" --policy las --json
cp "$W/out" "$W/steps.json"
python3 - "$W/steps.json" <<'PY' && ok "summary has mode, restarts, FTF and per-type GPU-hours" || bad "summary fields"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["mode"] == "des" and d["completed"] == 200
for k in ("restarts", "restart_lost_s", "ftf_rho_max", "ftf_rho_avg", "ftf_jain"):
    assert k in d, k
assert sorted(d["by_gpu_type"]) == ["k80", "p100", "v100"], d["by_gpu_type"]
assert 0 < d["ftf_jain"] <= 1 and d["ftf_rho_max"] >= d["ftf_rho_avg"] > 0
PY
expect_rc 0 "--fixed-speed" -- "$BERTH" sim --cluster gavel --trace "$GAVEL" --policy las --json --fixed-speed
cp "$W/out" "$W/fixed.json"
python3 -c "
import json; s=json.load(open('$W/steps.json')); f=json.load(open('$W/fixed.json'))
# by steps, jobs placed on P100s and K80s are slower than their V100 duration
assert s['avg_jct_s'] > f['avg_jct_s'], (s['avg_jct_s'], f['avg_jct_s'])" \
    && ok "by steps, slower GPU types lengthen JCTs" || bad "steps vs fixed speed"
if [ -f "$TABLE" ]; then
    "$BERTH" sim --cluster gavel --trace "$GAVEL" --policy las --out "$W/builtin" >/dev/null 2>&1
    "$BERTH" sim --cluster gavel --trace "$GAVEL" --policy las --throughputs "$TABLE" --out "$W/file" >/dev/null 2>&1
    diff -r "$W/builtin" "$W/file" >/dev/null && ok "Gavel's file and the built-in catalog give identical runs" \
        || bad "--throughputs FILE differs from the built-in catalog"
fi

# --- explicit flags win: a 2-GPU job of a known type, 1000 s, spread over two 1-GPU servers
printf 'job_id,arrival_s,duration_s,num_gpus,job_type\nX,0,1000,2,ResNet-50 (batch size 64)\n' >"$W/sp.csv"
SP=(sim --cluster 2x1:v100 --trace "$W/sp.csv" --json)
expect_rc 0 "spread by default" -- "$BERTH" "${SP[@]}"
measured=$(key "$W/out" makespan_s)
python3 -c "assert $measured > 1000" && ok "by default a spread gang of a measured type slows ($measured s)" \
    || bad "default spread: $measured"
expect_rc 0 "--fixed-speed" -- "$BERTH" "${SP[@]}" --fixed-speed
[ "$(key "$W/out" makespan_s)" = "1000.0" ] && ok "--fixed-speed: exactly its duration across servers" \
    || bad "--fixed-speed: $(key "$W/out" makespan_s)"
expect_rc 0 "--progress duration" -- "$BERTH" "${SP[@]}" --progress duration
[ "$(key "$W/out" makespan_s)" = "1000.0" ] && ok "--progress duration is --fixed-speed" || bad "--progress duration"
expect_rc 0 "--fixed-speed --spread-rates measured" -- "$BERTH" "${SP[@]}" --fixed-speed --spread-rates measured
[ "$(key "$W/out" makespan_s)" = "$measured" ] && ok "--spread-rates measured brings the measured ratio back" \
    || bad "--spread-rates measured: $(key "$W/out" makespan_s)"
expect_rc 0 "--spread-penalty 0.5" -- "$BERTH" "${SP[@]}" --spread-penalty 0.5
[ "$(key "$W/out" makespan_s)" = "2000.0" ] && ok "--spread-penalty 0.5 overrides the measured rate: 2000 s" \
    || bad "--spread-penalty: $(key "$W/out" makespan_s)"
expect_rc 0 "--spread-penalty TYPE=0.25 over F" -- "$BERTH" "${SP[@]}" --spread-penalty 0.5 --spread-penalty "ResNet-50 (batch size 64)=0.25"
[ "$(key "$W/out" makespan_s)" = "4000.0" ] && ok "a type's own penalty wins over the global one" \
    || bad "--spread-penalty TYPE=F: $(key "$W/out" makespan_s)"
expect_rc 0 "--spread-rates off" -- "$BERTH" "${SP[@]}" --spread-rates off
[ "$(key "$W/out" makespan_s)" = "1000.0" ] && ok "--spread-rates off: the one-server rate" || bad "--spread-rates off"

# --- consolidate-or-wait: 2x4 v100, fifo. A (3 GPUs) fills server 0 but one GPU, B (3 GPUs,
# 10000 s) server 1 but one: X (2 GPUs of ResNet-50, 1000 s alone) could only span the two,
# at the measured ratio 1000/1153.82 (1153.82 s spread). Waiting for A to end at T and then
# running on server 0 takes T + 1000: it waits while T + 1000 < 1153.82.
#   A 100 s: waits, 100-1100;  A 150 s: waits, 150-1150;  A 160 s: spreads, 0-1153.82;
#   --spread-wait off: spreads;  --spread-penalty 0.5 (2000 s spread), A 900 s: waits, 900-1900
cw() { # cw A_SECONDS FLAGS...: X's start and finish
    local a=$1; shift
    printf 'job_id,arrival_s,duration_s,num_gpus,job_type\nA,0,%s,3,\nB,0,10000,3,\nX,0,1000,2,ResNet-50 (batch size 64)\n' "$a" >"$W/cw.csv"
    "$BERTH" sim --cluster 2x4:v100 --trace "$W/cw.csv" --out "$W/cw" "$@" >/dev/null 2>&1 || { echo "rc $?"; return; }
    awk -F, '$1 == "X" { print $3, $4 }' "$W/cw/jobs.csv"
}
[ "$(cw 100)" = "100 1100" ] && ok "consolidate-or-wait: X waits for one server (100-1100)" || bad "cw 100: $(cw 100)"
[ "$(cw 150)" = "150 1150" ] && ok "consolidate-or-wait: still waits at 150 + 1000 < 1153.8" || bad "cw 150: $(cw 150)"
[ "$(cw 160)" = "0 1153.819875" ] && ok "consolidate-or-wait: spreads once waiting is slower" || bad "cw 160: $(cw 160)"
[ "$(cw 100 --spread-wait off)" = "0 1153.819875" ] && ok "--spread-wait off: spreads at once" || bad "cw off: $(cw 100 --spread-wait off)"
[ "$(cw 900 --spread-penalty 0.5)" = "900 1900" ] && ok "consolidate-or-wait weighs an explicit penalty too" || bad "cw penalty: $(cw 900 --spread-penalty 0.5)"
[ "$(cw 100 --mode tiresias)" = "0 1000" ] && ok "--mode tiresias: no spread rates, nothing to wait for" || bad "cw tiresias: $(cw 100 --mode tiresias)"
expect_rc 2 "--spread-wait nope" -- "$BERTH" sim --cluster 2x4:v100 --trace "$W/cw.csv" --spread-wait nope
has "$W/err" "expected on or off, found 'nope'" "--spread-wait names its values"

# --- berth fidelity: the ladder ---------------------------------------------------------------
# each rung is a berth sim run with the switches so far: rung 0 is the peer's preset, the rung
# that reaches des is berth sim's default, and each change is against the rung before
"$BERTH" gen --profile gavel --jobs 200 --rate 20 --seed 4 --out "$W/lad.csv" >/dev/null
LAD=(--cluster 4x4:v100 --trace "$W/lad.csv")
simavg() { "$BERTH" sim "${LAD[@]}" --json "$@" | python3 -c 'import json,sys; print(json.load(sys.stdin)["avg_jct_s"])'; }
for fam in gavel blox tiresias; do
    expect_rc 0 "berth fidelity --family $fam --json" -- "$BERTH" fidelity "${LAD[@]}" --family $fam --json
    cp "$W/out" "$W/lad-$fam.json"
done
G=(--policy gavel-fifo --mode gavel)
G1=("${G[@]}" --policy-arg zero_reset=0)
G2=("${G1[@]}" --policy-arg exec_time=0)
G3=("${G2[@]}" --whole-steps off)
G4=("${G3[@]}" --policy-arg half_credit=0)
G5=("${G4[@]}" --policy-arg fastest_type=1)
G7=("${G5[@]}" --policy-arg fill=1 --spread-rates measured)
python3 - "$W/lad-gavel.json" "$(simavg "${G[@]}")" "$(simavg "${G1[@]}")" "$(simavg "${G2[@]}")" \
    "$(simavg "${G3[@]}")" "$(simavg "${G4[@]}")" "$(simavg "${G5[@]}")" "$(simavg "${G7[@]}")" \
    "$(simavg "${G7[@]}" --spread-wait on)" \
    "$(simavg --policy gavel-fifo)" "$(simavg --policy gavel-fifo --restart-cost helios)" <<'PY' \
    && ok "gavel ladder: eleven rungs, each the berth sim run of its switches" || bad "gavel ladder: $(cat "$W/lad-gavel.json")"
import json, sys
d = json.load(open(sys.argv[1])); r = d["rungs"]; want = [float(x) for x in sys.argv[2:]]
assert d["family"] == "gavel" and d["policy"] == "gavel-fifo", d
assert [x["change"].split(" (")[0] for x in r] == ["Gavel as shipped",
    "reset interval from time 0 too", "time received = time held", "fractional steps per round",
    "no half-round credit", "capacity-checked type choice", "idle filling",
    "measured spread rates", "consolidate-or-wait", "exact time, berth's default",
    "restart costs"], r
got = [x["avg_jct_s"] for x in r]
for i, w in zip([0, 1, 2, 3, 4, 5, 7, 8, 9, 10], want):
    assert abs(got[i] - w) <= 1e-5 * w, (i, got[i], w)
for i in range(1, len(r)):
    pct = 100 * (got[i] - got[i - 1]) / got[i - 1]
    assert abs(r[i]["avg_jct_change_pct"] - pct) < 1e-2, (i, r[i], pct)
assert r[0]["avg_jct_change_pct"] == 0
PY
python3 - "$W/lad-blox.json" "$(simavg --policy blox-las --mode blox)" \
    "$(simavg --policy blox-las --mode blox --placement consolidate)" "$(simavg --policy blox-las)" <<'PY' \
    && ok "blox ladder: Blox's preset, real placement, ..., berth's default" || bad "blox ladder: $(cat "$W/lad-blox.json")"
import json, sys
r = json.load(open(sys.argv[1]))["rungs"]; want = [float(x) for x in sys.argv[2:]]
assert len(r) == 7, r
for i, w in zip([0, 1, 5], want):
    assert abs(r[i]["avg_jct_s"] - w) <= 1e-5 * w, (i, r[i], w)
PY
python3 - "$W/lad-tiresias.json" "$(simavg --policy tiresias-dlas-gpu --mode tiresias)" \
    "$(simavg --policy tiresias-dlas-gpu)" <<'PY' \
    && ok "tiresias ladder: Tiresias' preset to berth's default" || bad "tiresias ladder: $(cat "$W/lad-tiresias.json")"
import json, sys
r = json.load(open(sys.argv[1]))["rungs"]; want = [float(x) for x in sys.argv[2:]]
assert len(r) == 6, r
for i, w in zip([0, 4], want):
    assert abs(r[i]["avg_jct_s"] - w) <= 1e-5 * w, (i, r[i], w)
PY
# a switch the policy lacks is no rung: fifo has none of gavel's settings (whole steps are
# the simulator's, so that rung stays)
expect_rc 0 "berth fidelity --family gavel --policy fifo" -- "$BERTH" fidelity "${LAD[@]}" --family gavel --policy fifo --json
[ "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["rungs"]))' "$W/out")" = 6 ] \
    && ok "rungs of settings the policy lacks are left out" || bad "fifo ladder: $(cat "$W/out")"
expect_rc 0 "berth fidelity: the table" -- "$BERTH" fidelity "${LAD[@]}" --family blox
has "$W/out" "Blox as shipped (--mode blox)" "the table names each rung"
expect_rc 2 "berth fidelity --family nope" -- "$BERTH" fidelity "${LAD[@]}" --family nope
has "$W/err" "--family: expected tiresias, gavel or blox, found 'nope'" "bad family named"
expect_rc 2 "berth fidelity without --family" -- "$BERTH" fidelity "${LAD[@]}"
has "$W/err" "--family PEER is required" "missing family named"
expect_rc 2 "berth fidelity --policy nope" -- "$BERTH" fidelity "${LAD[@]}" --family gavel --policy nope
has "$W/err" "unknown policy 'nope'" "bad policy named"

# --- co-location with Lucid's pairs -----------------------------------------------------
if [ -f "$LUCID" ]; then
    printf 'job_id,arrival_s,duration_s,num_gpus,job_type,gpu_share\nA,0,1000,1,ResNet18/CIFAR-10/32/0,0.5\nB,0,1000,1,MobileNetV3/ImageNet/32/0,0.5\n' >"$W/pair.csv"
    expect_rc 0 "without pairs" -- "$BERTH" sim --cluster 1x1:v100 --trace "$W/pair.csv" --json
    [ "$(key "$W/out" makespan_s)" = "1000.0" ] && ok "no pairs: both end at 1000 s" || bad "no pairs: makespan $(key "$W/out" makespan_s)"
    expect_rc 0 "with Lucid's pairs" -- "$BERTH" sim --cluster 1x1:v100 --trace "$W/pair.csv" --colocation "$LUCID" --json
    python3 -c "import json; d=json.load(open('$W/out')); assert d['makespan_s'] != 1000.0, d['makespan_s']" \
        && ok "Lucid's pair speeds change the run" || bad "pairs had no effect"
    expect_rc 0 "--colocate-speed 0.5" -- "$BERTH" sim --cluster 1x1:v100 --trace "$W/pair.csv" --colocate-speed 0.5 --json
    [ "$(key "$W/out" makespan_s)" = "2000.0" ] && ok "--colocate-speed 0.5: together at half speed, both end at 2000 s" \
        || bad "--colocate-speed: makespan $(key "$W/out" makespan_s)"
fi

# --- restart cost and modes -------------------------------------------------------------
printf 'job_id,arrival_s,duration_s,num_gpus\nJ1,0,100,1\nJ2,10,20,1\n' >"$W/r.csv"
expect_rc 0 "--restart-cost 5 under srtf" -- "$BERTH" sim --cluster 1x1:v100 --trace "$W/r.csv" --policy srtf --restart-cost 5 --json
[ "$(key "$W/out" restart_lost_s)" = "5.0" ] && [ "$(key "$W/out" makespan_s)" = "125.0" ] \
    && ok "restart cost: 5 s lost, makespan 125 s" || bad "restart cost: $(cat "$W/out")"
# the wait metric: JCT - time holding GPUs. srtf: J2 (20 s, at 10) preempts J1 at 10 and
# runs 10-30; J1 resumes 30-120: J1 waits 20 s (between its runs; it first started at 0, so
# its queueing is 0), J2 none: avg 10, median 10, p99 0 + 0.99 x 20 = 19.8
expect_rc 0 "srtf: the wait counts the time between preemption and resumption" -- \
    "$BERTH" sim --cluster 1x1:v100 --trace "$W/r.csv" --policy srtf --json --out "$W/wait"
python3 - "$W/out" "$W/wait/jobs.csv" <<'PY' && ok "wait: avg 10, median 10, p99 19.8 s; queueing 0; jobs.csv wait_s 20 and 0" || bad "wait metric: $(cat "$W/out")"
import csv, json, sys
d = json.load(open(sys.argv[1]))
assert (d["avg_wait_s"], d["median_wait_s"], d["p99_wait_s"]) == (10, 10, 19.8), d
assert d["avg_queue_s"] == 0, d
rows = {r["job_id"]: r for r in csv.DictReader(open(sys.argv[2]))}
assert rows["J1"]["wait_s"] == "20" and rows["J2"]["wait_s"] == "0", rows
PY
expect_rc 0 "--restart-cost helios" -- "$BERTH" sim --cluster 1x1:v100 --trace "$W/r.csv" --policy srtf --restart-cost helios --json
[ "$(key "$W/out" makespan_s)" = "127.0" ] && ok "helios tiers: 7 s for one GPU" || bad "helios: $(key "$W/out" makespan_s)"
expect_rc 0 "--mode gavel" -- "$BERTH" sim --cluster 1x1:v100 --trace "$W/r.csv" --mode gavel --json
[ "$(key "$W/out" mode)" = "gavel" ] && ok "mode reported" || bad "mode not reported"
# Gavel's round ends at its latest finish: J1's round 0-100; J2 (arrived 10) admitted at
# that end, 100-120; J2 waited 90 s, J1 none: avg 45 s
[ "$(key "$W/out" makespan_s)" = "120.0" ] && ok "gavel mode: the round ends at its latest finish" || bad "gavel mode: $(key "$W/out" makespan_s)"
[ "$(key "$W/out" avg_wait_s)" = "45.0" ] && ok "gavel mode: wait 45 s" || bad "gavel mode wait: $(key "$W/out" avg_wait_s)"
expect_rc 0 "--mode gavel --round-early-end off" -- "$BERTH" sim --cluster 1x1:v100 --trace "$W/r.csv" --mode gavel --round-early-end off --json
# rounds on the grid: J1 admitted at 0 ends its work at 100 (GPU held to 360); J2 admitted
# at 360 ends at 380
[ "$(key "$W/out" makespan_s)" = "380.0" ] && ok "gavel mode: makespan 380 s" || bad "gavel mode: $(key "$W/out" makespan_s)"
# J1 holds its GPU from its work's end (100) to the boundary (360): not waiting; J2 waits
# from 10 to its admission at 360: avg wait 175 s
[ "$(key "$W/out" avg_wait_s)" = "175.0" ] && ok "gavel mode: a GPU held to the round end is not waiting" \
    || bad "gavel mode wait: $(key "$W/out" avg_wait_s)"
expect_rc 0 "--mode rounds --round 50 --round-release off" -- "$BERTH" sim --cluster 1x1:v100 --trace "$W/r.csv" --mode rounds --round 50 --round-release off --json
# J1 0-100; J2 admitted at 50, starts at the 100 boundary, ends 120
[ "$(key "$W/out" makespan_s)" = "120.0" ] && ok "rounds mode switches" || bad "rounds: $(key "$W/out" makespan_s)"

# --- --mode tiresias: des time, every job by its duration, Tiresias' demotion instants. R and
# P (10000 s, 2 GPUs, on 2 GPUs) under tiresias-dlas-gpu: test_tiresias derives 13600/20000
# at the exact instants and 14412/20000 at Tiresias' predicted ones
printf 'job_id,arrival_s,duration_s,num_gpus\nR,0,10000,2\nP,0,10000,2\n' >"$W/res.csv"
expect_rc 0 "--mode tiresias" -- "$BERTH" sim --cluster 1x2:v100 --trace "$W/res.csv" --policy tiresias-dlas-gpu --mode tiresias --json
[ "$(key "$W/out" avg_jct_s)" = "17206.0" ] && [ "$(key "$W/out" mode)" = tiresias ] \
    && ok "--mode tiresias demotes at Tiresias' instants" || bad "--mode tiresias: $(cat "$W/out")"
expect_rc 0 "--mode tiresias, exact_demotion=1" -- "$BERTH" sim --cluster 1x2:v100 --trace "$W/res.csv" --policy tiresias-dlas-gpu --mode tiresias --policy-arg exact_demotion=1 --json
[ "$(key "$W/out" avg_jct_s)" = "16800.0" ] && ok "a preset's quirk is turned off by its setting" || bad "exact_demotion=1 under --mode tiresias"
expect_rc 0 "--mode tiresias on a trace by steps" -- "$BERTH" sim --cluster gavel --trace "$GAVEL" --policy fifo --mode tiresias --json
cp "$W/out" "$W/tmode.json"
expect_rc 0 "des --fixed-speed on that trace" -- "$BERTH" sim --cluster gavel --trace "$GAVEL" --policy fifo --fixed-speed --json
python3 -c "
import json; a=json.load(open('$W/tmode.json')); b=json.load(open('$W/out'))
assert a['avg_jct_s'] == b['avg_jct_s'] and a['makespan_s'] == b['makespan_s'], (a, b)" \
    && ok "--mode tiresias runs jobs by their duration" || bad "--mode tiresias progress"

# --- --mode gavel: Gavel's quirks, each turned off by its own switch ------------------------
# consolidated rates only: the spread 2-GPU job runs at its one-server rate (its round ends
# when its work does, at 1000); --spread-rates measured brings the measured ratio back
expect_rc 0 "--mode gavel: a spread gang" -- "$BERTH" "${SP[@]}" --mode gavel
[ "$(key "$W/out" makespan_s)" = "1000.0" ] && ok "--mode gavel: consolidated rates only" || bad "--mode gavel spread: $(key "$W/out" makespan_s)"
expect_rc 0 "--mode gavel --spread-rates measured" -- "$BERTH" "${SP[@]}" --mode gavel --spread-rates measured
[ "$(key "$W/out" makespan_s)" = "$measured" ] && ok "--mode gavel --spread-rates measured: the measured ratio" \
    || bad "--mode gavel --spread-rates measured: $(key "$W/out" makespan_s)"
# no idle filling: J1 (1000 s) allocated at 0; J2 (100 s, at 100) is admitted at the end of
# J1's first round (360). With zero_reset=0 the allocation is re-solved only 1920 s after 0,
# at the first round end past it: rounds end at 360, 720, 1000 (J1's work), then every 360 s
# with no job running: 1360, 1720, 2080: J2 runs 2080-2180 (JCT 2080; avg (1000 + 2080) / 2
# = 1540). fill=1: J2 starts on the idle GPU at 360, ends 460 (JCT 360; avg 680, makespan
# 1000). Gavel as shipped (zero_reset=1: the last reset was at time 0, so the next may come
# at any round): J2 is allocated at 360 too, 360-460 (avg 680).
printf 'job_id,arrival_s,duration_s,num_gpus\nJ1,0,1000,1\nJ2,100,100,1\n' >"$W/fill.csv"
FILL=(sim --cluster 1x2:v100 --trace "$W/fill.csv" --policy gavel-fifo --mode gavel --json)
expect_rc 0 "--mode gavel zero_reset=0: idle GPUs stay idle" -- "$BERTH" "${FILL[@]}" --policy-arg zero_reset=0
[ "$(key "$W/out" avg_jct_s)" = "1540.0" ] && [ "$(key "$W/out" makespan_s)" = "2180.0" ] \
    && ok "--mode gavel: no filling between re-solves" || bad "--mode gavel fill: $(cat "$W/out")"
expect_rc 0 "--mode gavel --policy-arg fill=1" -- "$BERTH" "${FILL[@]}" --policy-arg zero_reset=0 --policy-arg fill=1
[ "$(key "$W/out" avg_jct_s)" = "680.0" ] && [ "$(key "$W/out" makespan_s)" = "1000.0" ] \
    && ok "fill=1 under --mode gavel fills the idle GPU" || bad "fill=1: $(cat "$W/out")"
expect_rc 0 "--mode gavel: a re-solve while the last was at time 0" -- "$BERTH" "${FILL[@]}"
[ "$(key "$W/out" avg_jct_s)" = "680.0" ] && [ "$(key "$W/out" makespan_s)" = "1000.0" ] \
    && ok "--mode gavel: zero_reset re-solves at the next round" || bad "zero_reset: $(cat "$W/out")"
# Gavel's fifo type choice (test_gavel derives it) under --mode gavel: on gavel:8:8:4 with
# seed 1 the draw drops p100 and J2 (no candidate) waits; the round ends at J1's finish, 100,
# and since the last reset was at 0 the allocation is re-solved there: J1's v100 goes to J2,
# J3 takes p100 (the last type with room): J1 0-100, J2 and J3 100-200 (avg 500/3); seed 5:
# J1 v100, J2 p100, J3 k80, all 0-100 (avg 100), as Gavel's own simulator places them;
# fastest_type=1: all three at once on v100, p100, k80 (avg 100)
printf 'job_id,arrival_s,duration_s,num_gpus\nJ1,0,100,8\nJ2,0,100,8\nJ3,0,100,1\n' >"$W/f3.csv"
F3=(sim --cluster gavel:8:8:4 --trace "$W/f3.csv" --policy gavel-fifo --mode gavel --json)
expect_rc 0 "--mode gavel: Gavel's fifo type choice, seed 1" -- "$BERTH" "${F3[@]}" --seed 1
[ "$(key "$W/out" avg_jct_s)" = "166.666666667" ] && ok "Gavel's fifo with seed 1: avg JCT 500/3 s" || bad "seed 1: $(key "$W/out" avg_jct_s)"
expect_rc 0 "--mode gavel: Gavel's fifo type choice, seed 5" -- "$BERTH" "${F3[@]}" --seed 5
[ "$(key "$W/out" avg_jct_s)" = "100.0" ] && ok "Gavel's fifo with seed 5: avg JCT 100 s" || bad "seed 5: $(key "$W/out" avg_jct_s)"
expect_rc 0 "--mode gavel --policy-arg fastest_type=1" -- "$BERTH" "${F3[@]}" --policy-arg fastest_type=1
[ "$(key "$W/out" avg_jct_s)" = "100.0" ] && ok "fastest_type=1: the capacity-checked choice" || bad "fastest_type=1: $(key "$W/out" avg_jct_s)"

# --- --mode blox: Blox's shipped scattered placement -----------------------------------------
# 2x4 v100, blox-fifo, 300 s rounds, finishes recorded at the boundary: J1 (2 GPUs) takes
# server 0's first two; J2 (4 GPUs): 2 (server 0) + 4 (server 1) = 6 overshoots, so it
# waits for J1 (work 0-100, released at 300): J2 300-400, recorded at 600 (avg 450).
# --placement consolidate: J2 on server 1 at once, both recorded at 300
printf 'job_id,arrival_s,duration_s,num_gpus\nJ1,0,100,2\nJ2,0,100,4\n' >"$W/bx.csv"
expect_rc 0 "--mode blox: Blox's scattered placement" -- "$BERTH" sim --cluster 2x4:v100 --trace "$W/bx.csv" --policy blox-fifo --mode blox --json
[ "$(key "$W/out" placement)" = blox-scattered ] && [ "$(key "$W/out" avg_jct_s)" = "450.0" ] \
    && [ "$(key "$W/out" makespan_s)" = "600.0" ] && ok "--mode blox: the overshooting gang waits" || bad "--mode blox: $(cat "$W/out")"
expect_rc 0 "--mode blox --placement consolidate" -- "$BERTH" sim --cluster 2x4:v100 --trace "$W/bx.csv" --policy blox-fifo --mode blox --placement consolidate --json
[ "$(key "$W/out" avg_jct_s)" = "300.0" ] && ok "--placement consolidate turns Blox's placement off" || bad "blox consolidate: $(cat "$W/out")"
expect_rc 0 "--mode tiresias --progress steps" -- "$BERTH" sim --cluster gavel --trace "$GAVEL" --policy fifo --mode tiresias --progress steps --json
python3 -c "
import json; a=json.load(open('$W/steps.json')); b=json.load(open('$W/out')); import sys
sys.exit(0 if b['avg_jct_s'] != json.load(open('$W/tmode.json'))['avg_jct_s'] else 1)" \
    && ok "--progress steps brings steps back under --mode tiresias" || bad "--progress steps under tiresias"

# --- bad flag values: exit 2 and a message ----------------------------------------------
A=(sim --cluster 1x1:v100 --trace "$W/r.csv")
expect_rc 2 "unknown mode" -- "$BERTH" "${A[@]}" --mode nope
has "$W/err" "des, rounds, gavel, blox or tiresias" "unknown mode lists the modes"
expect_rc 2 "bad switch" -- "$BERTH" "${A[@]}" --mode rounds --round-admit maybe
has "$W/err" "expected on or off" "bad switch says on or off"
expect_rc 2 "switch without a round mode" -- "$BERTH" "${A[@]}" --round-jct on
has "$W/err" "round mode" "switch in des mode is refused"
expect_rc 2 "--round 0" -- "$BERTH" "${A[@]}" --mode rounds --round 0
expect_rc 2 "decreasing --queue-limits" -- "$BERTH" "${A[@]}" --queue-limits 7200,3250
has "$W/err" "must increase" "queue limits must increase"
expect_rc 2 "--spread-penalty 0" -- "$BERTH" "${A[@]}" --spread-penalty 0
expect_rc 2 "--spread-penalty for an unknown type" -- "$BERTH" "${A[@]}" --spread-penalty "Nope=0.5"
has "$W/err" "'Nope' is not in the throughput model" "unknown spread type named"
expect_rc 0 "--spread-penalty for a known type" -- "$BERTH" "${A[@]}" --spread-penalty "ResNet-50 (batch size 64)=0.5"
expect_rc 2 "--spread-rates nope" -- "$BERTH" "${A[@]}" --spread-rates nope
has "$W/err" "expected measured or off, found 'nope'" "--spread-rates names its values"
expect_rc 2 "--progress nope" -- "$BERTH" "${A[@]}" --progress nope
has "$W/err" "expected duration or steps, found 'nope'" "--progress names its values"
expect_rc 2 "--colocate-speed 0.001" -- "$BERTH" "${A[@]}" --colocate-speed 0.001
has "$W/err" "expected a number from 0.01 to 100" "colocate speed bounds named"
expect_rc 2 "--restart-cost nope" -- "$BERTH" "${A[@]}" --restart-cost nope
expect_rc 2 "missing --throughputs file" -- "$BERTH" "${A[@]}" --throughputs "$W/none.json"
has "$W/err" "none.json" "missing model file named"
printf '{"v100": {"(\x27A\x27, 1)": {"null": -1}}}' >"$W/bad.json"
expect_rc 2 "bad --throughputs file" -- "$BERTH" "${A[@]}" --throughputs "$W/bad.json"
has "$W/err" "bad.json" "bad model file named"
printf 'job_id,arrival_s,duration_s,num_gpus,job_type,total_steps\nX,0,,1,Nope,10\n' >"$W/nope.csv"
expect_rc 2 "unknown job type with steps" -- "$BERTH" sim --cluster 1x1:v100 --trace "$W/nope.csv"
has "$W/err" "nope.csv:2: column job_type" "unknown job type names file, line and column"

finish
