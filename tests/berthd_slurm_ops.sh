#!/usr/bin/env bash
# berthd in front of a Slurm cluster as an operator runs it (issue 21), on a live mini
# cluster (tests/slurm/cluster.sh): GPUs of jobs Slurm placed itself count as busy in berth's
# view; a node that starts draining while busy gets no new placement at once; berth scoped to
# one partition (v100) while Slurm schedules the other (a100); the fail-safe (berthd killed:
# the hook stops holding, held jobs released, berthd back: it adopts what Slurm started,
# nothing runs twice); placements
# journaled by node name (berthd restarted on a different node set); a job's own checkpoint
# signal sent through Slurm at a preemption, the requeue after its grace; an sbatch job's
# --dependency (adopted only once it is fulfilled); a node removed from Slurm (state FUTURE)
# and brought back while berthd runs. Skips, saying
# why, without Slurm or libslurm or root, unless BERTH_REQUIRE names slurm.
# Usage: bash tests/berthd_slurm_ops.sh BERTH SRC_DIR SHARED_DIR BERTHD
set -u
SRC=${2:?usage: berthd_slurm_ops.sh BERTH SRC SHARED BERTHD}
. "$SRC/tests/cli_lib.sh"
. "$SRC/tests/lib_berthd.sh"
. "$SRC/tests/slurm/require.sh"
slurm_require berthd_slurm_ops "$(dirname "$BERTH")/tests/slurm_api_test"

slurm_berthd_cluster

is_field() { [ "$(node_field "$1" "$2")" = "$3" ]; }

# ---- A. Slurm-placed GPUs are busy in berth's view; a node draining while busy takes no
# new placement. An admin's opt-out job (Slurm places it) holds 3 of n1's V100; berth's B1
# holds 2 of n2's. n2 starts draining: D2 (2 V100, one server) fits nowhere else (n1 has one
# idle GPU) and waits, although n2 has 2 idle GPUs; when the opt-out job ends, D2 runs on n1.
start_berthd --executor slurm --policy fifo
so=$(cd "$J" && sbatch --parsable -D "$J" -o "$J/so.out" -w n1 --gres=gpu:3 \
    --wrap "echo '#BERTH: slurm-places-this'; until [ -e $J/go.o ]; do sleep 0.1; done" 2>"$W/err")
[ -n "$so" ] && ok "opt-out job $so submitted" || bad "sbatch: $(cat "$W/err")"
wait_for 60 "the opt-out job to run" eval '[ "$(sq "$so" %T)" = RUNNING ]'
wait_for 30 "berthd to count its 3 GPUs on n1" is_field n1 outside_gpus 3 &&
    ok "berthd counts the opt-out job's 3 GPUs on n1 as busy"
is_field n1 idle_gpus 1 && ok "n1 shows 1 idle GPU" || bad "n1 idle: $(node_field n1 idle_gpus)"
b1=$(submit '{'"$(until_go go.b)"',"gpus":2,"gpu_type":"v100","single_server":true,"cwd":"'"$J"'"}')
wait_state "$b1" running
notes "$b1" | grep "released on n2 " >/dev/null && ok "B1 (2 V100) goes to n2, not to n1's busy GPUs" ||
    bad "B1: $(notes "$b1" | tr '\n' '|')"
sb1=$(api GET "/v1/jobs/$b1" "" "$ROOT" >/dev/null && jf slurm_job)
scontrol show job "$sb1" | grep "AdminComment=berth job $b1: attempt 1 placed by berth on n2 with 2 v100 GPUs" >/dev/null &&
    ok "Slurm's admin comment (sacct -o AdminComment) holds berth's decision" ||
    bad "admin comment: $(scontrol show job "$sb1" | grep -o 'AdminComment=.*')"
# berth has released B1 on n2; drain n2 only once Slurm runs it (this part checks a node
# draining while busy; a drain before Slurm starts a job is berthd_slurm_unstarted.sh's)
wait_for 60 "Slurm to run B1 ($sb1) on n2" eval '[ "$(sq "$sb1" %T)" = RUNNING ]'
scontrol update nodename=n2 state=drain reason=berth-test
wait_for 60 "berthd to close the draining n2" grep -q "slurm node n2 is.*nothing new is placed there" "$W/berthd.log" &&
    ok "berthd closes n2 as soon as it drains, B1 still running"
[ "$(state_of "$b1")" = running ] && ok "B1 keeps running on the draining n2" || bad "B1: $(state_of "$b1")"
d2=$(submit '{"argv":["sleep","1"],"gpus":2,"gpu_type":"v100","single_server":true,"cwd":"'"$J"'"}')
"$BERTH" nodes >"$W/nodes" 2>&1
grep -q "^n2 .*(reserved)" "$W/nodes" && ok "berth nodes marks the draining n2" || bad "berth nodes: $(cat "$W/nodes")"
touch "$J/go.o"
wait_final "$d2"
notes "$d2" | grep "released on n1 " >/dev/null && ok "D2 waited for n1 and never went to the draining n2" ||
    bad "D2: $(notes "$d2" | tr '\n' '|')"
wait_for 30 "berthd to see n1's GPUs free again" is_field n1 outside_gpus 0 &&
    ok "the opt-out job's GPUs are given back when it ends"
touch "$J/go.b"
wait_final "$b1"
scontrol update nodename=n2 state=resume
wait_for 60 "berthd to open n2" grep -q "slurm node n2 is back" "$W/berthd.log" && ok "n2 is open again"
stop_berthd

# ---- B. Scope: berth schedules partition v100 (n1, n2), Slurm partition a100 (n3, n4) ----
rm -rf "$W/st"
start_berthd --executor slurm --policy fifo --slurm-partitions v100 --slurm-failsafe 3
api GET /v1/nodes "" >/dev/null
python3 -c 'import json,sys; sys.exit(sorted(n["name"] for n in json.load(open(sys.argv[1]))["nodes"]) != ["n1","n2"])' "$W/body" &&
    ok "berth's servers are partition v100's nodes" || bad "nodes: $(head -c 300 "$W/body")"
has "$C/etc/berth_scope" "partitions v100" "berthd writes its scope beside slurm.conf"
sa=$(cd "$J" && sbatch --parsable -p a100 -D "$J" -o /dev/null --gres=gpu:2 --wrap "sleep 30" 2>"$W/err")
sv=$(cd "$J" && sbatch --parsable -p v100 -D "$J" -o "$J/sv.out" --gres=gpu:2 --wrap "echo v100-ran" 2>"$W/err")
sm=$(cd "$J" && sbatch --parsable -p v100,a100 -D "$J" -o /dev/null --gres=gpu:1 --wrap "sleep 30" 2>"$W/err")
wait_for 60 "Slurm to start the a100 job itself" eval '[ "$(sq "$sa" %T)" = RUNNING ]' &&
    ok "a job on Slurm's partition a100 is placed by Slurm ($(sq "$sa" %N))"
[ "$(sq "$sm" %P)" = a100 ] && ok "a job listing v100,a100 keeps only a100 and is Slurm's" ||
    bad "multi-partition job: '$(sq "$sm" '%P %T %r')'"
bv=""
adopted() {
    api GET "/v1/jobs?all=1" "" "$ROOT" >/dev/null
    bv=$(python3 -c 'import json,sys
for j in json.load(open(sys.argv[1]))["jobs"]:
    if j.get("slurm_job") == int(sys.argv[2]): print(j["id"])' "$W/body" "$1" 2>/dev/null)
    [ -n "$bv" ]
}
wait_for 60 "berthd to adopt the v100 job $sv" adopted "$sv" && ok "the v100 job is berth job $bv"
[ -n "$bv" ] && wait_final "$bv"
[ -n "$bv" ] && [ "$(state_of "$bv")" = completed ] && notes "$bv" | grep "released on n[12] " >/dev/null &&
    ok "berth placed the v100 job on its partition" || bad "v100 job: $(notes "${bv:-0}" | tr '\n' '|')"
adopted "$sa" && bad "berthd adopted the a100 job" || ok "berthd left the a100 job alone"
scancel "$sa" "$sm"

# ---- C. Fail-safe: berthd killed; once its heartbeat is 3 s old the hook holds nothing and
# berth-release-held releases what it held; both run under Slurm; berthd back: it adopts
# both running where Slurm runs them (the released one keeps its berth record, the one
# submitted meanwhile becomes a berth job), each runs once, and it holds new jobs again ----
occ=$(submit '{'"$(until_go go.occ)"',"gpus":8,"gpu_type":"v100","cwd":"'"$J"'"}')
wait_state "$occ" running
sh1=$(cd "$J" && sbatch --parsable -p v100 -D "$J" -o /dev/null --gres=gpu:2 --wrap "echo once >>$J/h1.count; until [ -e $J/go.h ]; do sleep 0.1; done")
wait_for 60 "berthd to adopt $sh1" adopted "$sh1"
h1=$bv
stop_berthd KILL
stale() { python3 -c 'import sys,time
b=[int(l.split()[1]) for l in open(sys.argv[1]) if l.startswith("heartbeat ")]
sys.exit(0 if b and time.time() - b[0] > 4 else 1)' "$C/etc/berth_scope"; }
wait_for 30 "berthd's heartbeat to go stale" stale
sh2=$(cd "$J" && sbatch --parsable -p v100 -D "$J" -o /dev/null --gres=gpu:2 --wrap "echo once >>$J/h2.count; until [ -e $J/go.h ]; do sleep 0.1; done")
[ "$(sq "$sh2" %r)" != JobHeldUser ] && ok "with berthd down a new v100 job is not held ($(sq "$sh2" '%T %r'))" ||
    bad "new job held while berthd is down"
bash "$SRC/contrib/slurm/berth-release-held" v100 >"$W/rel.out" 2>&1
has "$W/rel.out" "released 1 jobs" "berth-release-held releases the held job"
touch "$J/go.occ"
runs() { [ "$(sq "$sh1" %T)" = RUNNING ] && [ "$(sq "$sh2" %T)" = RUNNING ]; }
wait_for 60 "Slurm to run both jobs itself" runs && ok "both run under Slurm while berthd is down"
start_berthd --executor slurm --policy fifo --slurm-partitions v100 --slurm-failsafe 3
wait_state "$h1" running
notes "$h1" | grep "Slurm started it as job $sh1 on n[12] while berthd was away: adopted running" >/dev/null &&
    ok "berthd back: its job $h1 that Slurm started is adopted running (the same record)" ||
    bad "h1: $(state_of "$h1"): $(notes "$h1" | tail -3 | tr '\n' '|')"
h2=""
adopted "$sh2" && h2=$bv && ok "the job submitted while berthd was down is berth job $h2" ||
    bad "sh2 not adopted: $(tail -5 "$W/berthd.log" | tr '\n' '|')"
[ -n "$h2" ] && [ "$(state_of "$h2")" = running ] && ok "job $h2 is running in berth's view" ||
    bad "h2: $(state_of "${h2:-0}")"
# their 4 GPUs are berth's jobs' now: busy in berth's view, none counted as Slurm's
busy4() { [ $(($(node_field n1 idle_gpus) + $(node_field n2 idle_gpus))) = 4 ] &&
    [ $(($(node_field n1 outside_gpus) + $(node_field n2 outside_gpus))) = 0 ]; }
wait_for 30 "berth's view to hold the 4 GPUs as its jobs'" busy4 &&
    ok "their 4 GPUs are busy in berth's view, as its own jobs'"
[ "$(state_of "$occ")" = completed ] && ok "the job berth placed before the kill completed" || bad "occ: $(state_of "$occ")"
sh3=$(cd "$J" && sbatch --parsable -p v100 -D "$J" -o /dev/null --gres=gpu:1 --wrap "true")
wait_for 30 "the hook to hold again" eval '[ "$(sq "$sh3" %r)" = JobHeldUser ] || adopted "$sh3"' &&
    ok "berthd back: new jobs are held (and adopted) again"
touch "$J/go.h"
wait_final "$h1"
[ -n "$h2" ] && wait_final "$h2"
[ "$(state_of "$h1")" = completed ] && [ "$(state_of "${h2:-0}")" = completed ] &&
    ok "both end completed in berth's records" || bad "h1 $(state_of "$h1"), h2 $(state_of "${h2:-0}")"
over() { [ -z "$(sq "$sh1" %T)$(sq "$sh2" %T)" ]; }
wait_for 60 "both to end" over
[ "$(cat "$J/h1.count")" = once ] && [ "$(cat "$J/h2.count")" = once ] && ok "each ran once" ||
    bad "runs: $(cat "$J/h1.count" "$J/h2.count" | tr '\n' ' ')"
stop_berthd

# ---- D. Placements are journaled by node name: berthd scoped to a100 (n3 is server 0, n4
# server 1) runs a job on each node; killed and restarted on all four nodes (n3 and n4 are now
# servers 2 and 3), it re-adopts both on n3 and n4 (by index they would point at n1, n2) ----
rm -rf "$W/st"
start_berthd --executor slurm --policy fifo --slurm-partitions a100
r1=$(submit '{'"$(until_go go.d)"',"gpus":8,"gpu_type":"a100","cwd":"'"$J"'"}')
r2=$(submit '{'"$(until_go go.d)"',"gpus":8,"gpu_type":"a100","cwd":"'"$J"'"}')
wait_state "$r1" running && wait_state "$r2" running
stop_berthd KILL
start_berthd --executor slurm --policy fifo
# on_node NODE ID: the node's GPUs list job ID
on_node() {
    api GET /v1/nodes "" >/dev/null
    python3 -c 'import json,sys
for n in json.load(open(sys.argv[1]))["nodes"]:
    if n["name"] == sys.argv[2]:
        sys.exit(0 if all(int(sys.argv[3]) in g["jobs"] for g in n["gpu_list"]) else 1)
sys.exit(1)' "$W/body" "$1" "$2"
}
[ "$(state_of "$r1")" = running ] && [ "$(state_of "$r2")" = running ] &&
    notes "$r1" | grep "re-adopted after a restart" >/dev/null && ok "both jobs re-adopted after the restart" ||
    bad "r1: $(notes "$r1" | tr '\n' '|')"
{ on_node n3 "$r1" && on_node n4 "$r2"; } || { on_node n4 "$r1" && on_node n3 "$r2"; } &&
    ok "each holds all 8 GPUs of its own node (n3, n4), found by name" || bad "nodes: $(head -c 900 "$W/body")"
on_node n1 "$r1" || on_node n1 "$r2" && bad "a job landed on n1 (journaled index, not name)"
touch "$J/go.d"
wait_final "$r1"
wait_final "$r2"
[ "$(state_of "$r1")" = completed ] && [ "$(state_of "$r2")" = completed ] && ok "both complete" ||
    bad "r1 $(state_of "$r1"), r2 $(state_of "$r2")"
stop_berthd

# ---- E. A job's own checkpoint signal: P (SIGUSR1, grace 4 s) holds all 8 V100 under las
# with a 3-s quantum; Q arrives and P is preempted: berthd sends SIGUSR1 through Slurm, P
# saves its count and exits, and its next attempt resumes from the count ----
rm -rf "$W/st"
cat >"$J/usr1.sh" <<'EOS'
#!/bin/sh
# counts to $1 in steps of 0.2 s, keeping the count in $2; SIGUSR1 saves and exits 0
n=0
[ "${BERTH_RESUME:-0}" = 1 ] && n=$(cat "$2")
echo "start attempt=${BERTH_ATTEMPT:-?} resume=${BERTH_RESUME:-0} from=$n signal=${BERTH_CHECKPOINT_SIGNAL:-?} grace=${BERTH_GRACE_S:-?}"
trap 'echo "$n" >"$2"; echo "USR1 checkpoint at $n"; exit 0' USR1
while [ "$n" -lt "$1" ]; do sleep 0.2; n=$((n + 1)); done
echo "done at $n"
EOS
chmod +x "$J/usr1.sh"
start_berthd --executor slurm --policy las --quantum 3 --slurm-partitions v100
p=$(submit '{"argv":["'"$J"'/usr1.sh","60","'"$J"'/p.ck"],"gpus":8,"gpu_type":"v100","checkpoint_signal":"SIGUSR1","grace_s":4,"cwd":"'"$J"'","name":"P"}')
wait_state "$p" running
sleep 4 # the scenario: Q arrives once P has run past its quantum
q=$(submit '{"argv":["sleep","1"],"gpus":8,"gpu_type":"v100","cwd":"'"$J"'","name":"Q"}')
wait_for 120 "P to end" final "$p"
wait_final "$q"
out=$(spool "$p" stdout.log)
has "$out" "signal=SIGUSR1 grace=4" "P's environment names its own signal and grace"
has "$out" "USR1 checkpoint at" "P checkpointed on SIGUSR1 sent through Slurm"
has "$out" "start attempt=2 resume=1" "P's next attempt resumed"
has "$out" "done at 60" "P counted to the end"
notes "$p" | grep "SIGUSR1 sent through Slurm" >/dev/null && ok "P's history says so" || bad "P: $(notes "$p" | tr '\n' '|')"
[ "$(state_of "$p")" = completed ] && [ "$(state_of "$q")" = completed ] && ok "P and Q completed" ||
    bad "P $(state_of "$p"), Q $(state_of "$q")"

# ---- F. --dependency: DB (afterok:DA) is not adopted, so holds no GPUs, while DA runs;
# DC, submitted after DB, is adopted (so berthd has seen DB); once DA ends DB runs ----
da=$(cd "$J" && sbatch --parsable -p v100 -D "$J" -o /dev/null --gres=gpu:2 --wrap "until [ -e $J/go.da ]; do sleep 0.1; done")
db=$(cd "$J" && sbatch --parsable -p v100 -D "$J" -o "$J/db.out" -d "afterok:$da" --gres=gpu:2 --wrap "echo db-ran")
dc=$(cd "$J" && sbatch --parsable -p v100 -D "$J" -o /dev/null --gres=gpu:1 --wrap "true")
wait_for 60 "berthd to adopt DA and DC" eval 'adopted "$da" && adopted "$dc"'
adopted "$db" && bad "DB was adopted before DA ended" || ok "DB (afterok DA) waits outside berth's queue while DA runs"
touch "$J/go.da"
# Slurm marks a held job's dependency fulfilled in its periodic pass (up to 60 s here, seen
# 61 s after DA ended), without counting it as a change: berthd sees it at its next whole
# read of the job list (every 10 s)
wait_for 120 "berthd to adopt DB once DA completed" adopted "$db" && ok "DB adopted once its dependency is fulfilled"
wait_for 60 "DB to run" eval '[ -s "$J/db.out" ]' && has "$J/db.out" "db-ran" "DB ran after DA"

# ---- G. n2 leaves Slurm's node list (state FUTURE: scontrol shows "not found") and comes
# back (resume): closed meanwhile, an 8-V100 job waits and a 4-V100 one runs on n1 ----
scontrol update nodename=n2 state=future
wait_for 60 "berthd to close the removed n2" grep -q "slurm node n2 is gone from Slurm's node list" "$W/berthd.log" &&
    ok "berthd closes n2 when it leaves Slurm's node list"
g8=$(submit '{"argv":["sleep","1"],"gpus":8,"gpu_type":"v100","cwd":"'"$J"'"}')
g4=$(submit '{"argv":["sleep","1"],"gpus":4,"gpu_type":"v100","cwd":"'"$J"'"}')
wait_final "$g4"
notes "$g4" | grep "released on n1 " >/dev/null && ok "a 4-V100 job runs on n1 meanwhile" || bad "g4: $(notes "$g4" | tr '\n' '|')"
[ "$(state_of "$g8")" = pending ] && ok "the 8-V100 job waits while n2 is gone" || bad "g8: $(state_of "$g8")"
scontrol update nodename=n2 state=resume
wait_final "$g8"
[ "$(state_of "$g8")" = completed ] && ok "it runs once n2 is back" || bad "g8: $(state_of "$g8")"
stop_berthd
finish
