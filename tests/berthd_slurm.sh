#!/usr/bin/env bash
# berthd with --executor slurm on a live mini cluster (tests/slurm/cluster.sh: n1, n2 with
# 4 V100, n3, n4 with 8 A100): GPU-type placement, an sbatch job adopted and scheduled by
# berth, a LAS preemption (requeue-and-hold) with the job resuming from its checkpoint, an
# elastic job resized, berthd killed mid-workload and restarted with no job lost or run
# twice, and a small trace replayed on Slurm starting jobs in the order `berth sim` starts
# them. Prints decision-to-running latencies. Skips, saying why, without Slurm or libslurm
# or root, unless BERTH_REQUIRE names slurm (make test-slurm and CI set it).
# Usage: bash tests/berthd_slurm.sh BERTH SRC_DIR SHARED_DIR BERTHD
set -u
SRC=${2:?usage: berthd_slurm.sh BERTH SRC SHARED BERTHD}
. "$SRC/tests/cli_lib.sh"
. "$SRC/tests/lib_berthd.sh"

. "$SRC/tests/slurm/require.sh"
slurm_require berthd_slurm "$(dirname "$BERTH")/tests/slurm_api_test"

slurm_berthd_cluster

slurm_of() { api GET "/v1/jobs/$1" "" "$ROOT" >/dev/null && jf slurm_job; }
wait_all_final() { # wait_all_final SECONDS ID...: each job's wait has a deadline of SECONDS
    local t=$1
    shift
    for id in "$@"; do
        wait_for "$t" "job $id to end" final "$id" || echo "  job $id is $(state_of "$id")"
    done
}

# ---- 1. GPU types, an sbatch job, LAS preemption and resume (policy las, 4-s quantum) ----
start_berthd --executor slurm --policy las --quantum 4
api GET /v1/health "" >/dev/null
[ "$(jf executor)" = slurm ] && ok "berthd serves with the slurm executor" ||
    bad "health: $(cat "$W/body") $(tail -5 "$W/berthd.log")"
api GET /v1/nodes "" >/dev/null
grep -q '"n3"' "$W/body" && ok "the nodes are slurmctld's" || bad "nodes: $(head -c 300 "$W/body")"

# t1 and t2 run until $J/go.t exists, so that squeue shows them RUNNING when it is asked (a
# job that had ended would show COMPLETING or nothing)
t1=$(submit '{'"$(until_go go.t)"',"gpus":4,"gpu_type":"v100","cwd":"'"$J"'"}')
t2=$(submit '{'"$(until_go go.t)"',"gpus":8,"gpu_type":"a100","cwd":"'"$J"'"}')
# a half GPU: shards where the node has them (n4), MPS where it has MPS (n3)
f1=$(submit '{"argv":["sh","-c","echo mps=${CUDA_MPS_ACTIVE_THREAD_PERCENTAGE:-} shards=${SLURM_SHARDS_ON_NODE:-}; sleep 1"],"gpus":1,"gpu_share":0.5,"gpu_type":"a100","cwd":"'"$J"'"}')
wait_state "$t1" running && wait_state "$t2" running && ok "typed jobs run"
s1=$(slurm_of "$t1") s2=$(slurm_of "$t2")
both_running() { [ "$(sq "$s1" %T)" = RUNNING ] && [ "$(sq "$s2" %T)" = RUNNING ]; }
wait_for 60 "Slurm jobs $s1 and $s2 to be RUNNING" both_running
n1=$(sq "$s1" '%T %N %f') n2=$(sq "$s2" '%T %N %f')
case $n1 in "RUNNING n1 v100" | "RUNNING n2 v100") ok "a V100 job runs on a V100 node: $n1" ;; *) bad "v100 job: '$n1'" ;; esac
case $n2 in "RUNNING n3 a100" | "RUNNING n4 a100") ok "an A100 job runs on an A100 node: $n2" ;; *) bad "a100 job: '$n2'" ;; esac
wait_all_final 60 "$f1"
touch "$J/go.t"
wait_all_final 60 "$t1" "$t2"
# and again with 7 and 8 A100 taken first (n3, n4), so the half GPU goes to n3's last one
# (they hold them until f2 is over)
a7=$(submit '{'"$(until_go go.a)"',"gpus":7,"gpu_type":"a100","cwd":"'"$J"'"}')
a8=$(submit '{'"$(until_go go.a)"',"gpus":8,"gpu_type":"a100","cwd":"'"$J"'"}')
f2=$(submit '{"argv":["sh","-c","echo mps=${CUDA_MPS_ACTIVE_THREAD_PERCENTAGE:-} shards=${SLURM_SHARDS_ON_NODE:-}; sleep 1"],"gpus":1,"gpu_share":0.5,"gpu_type":"a100","cwd":"'"$J"'"}')
wait_all_final 60 "$f2"
touch "$J/go.a"
wait_all_final 60 "$a7" "$a8"
kinds=""
for f in "$f1" "$f2"; do
    fn=$(notes "$f" | sed -n 's/.*released on \(n[0-9]\) with \(.*\)$/\1 \2/p')
    case $fn in
    "n3 MPS 50") has "$(spool "$f" stdout.log)" "mps=50 " "half a GPU on n3 is MPS 50 (Slurm sets the percentage)" ;;
    "n4 2 shards") has "$(spool "$f" stdout.log)" "shards=2" "half a GPU on n4 is 2 of its 4 shards per GPU" ;;
    *) bad "the half-GPU job $f was placed as '$fn'" ;;
    esac
    kinds="$kinds${fn%% *}"
done
[ "$kinds" = n4n3 ] || [ "$kinds" = n3n4 ] && ok "both kinds of GPU sharing used" || bad "half-GPU jobs on $kinds"
api GET "/v1/jobs/$t1" "" "$ROOT" >/dev/null
[ "$(jf state)" = completed ] && [ "$(jf exit_code)" = 0 ] && ok "typed job completed, exit 0" || bad "typed job: $(jf state) $(jf exit_code)"

# an sbatch job (held by job_submit.lua) shows in berth's queue and berth runs it
sb=$(cd "$J" && sbatch --parsable -D "$J" -o "$J/sb.out" -J fromsbatch --gres=gpu:v100:2 \
    --wrap 'echo sbatch-ran; sleep 1' 2>"$W/err")
[ -n "$sb" ] && ok "sbatch job $sb submitted" || bad "sbatch: $(cat "$W/err")"
bid=""
adopted() { # adopted SLURM_ID: berthd lists the Slurm job as one of its own ($bid: its id)
    api GET "/v1/jobs?all=1" "" "$ROOT" >/dev/null
    bid=$(python3 -c 'import json,sys
for j in json.load(open(sys.argv[1]))["jobs"]:
    if j.get("slurm_job") == int(sys.argv[2]): print(j["id"])' "$W/body" "$1" 2>/dev/null)
    [ -n "$bid" ]
}
wait_for 60 "berthd to adopt the sbatch job $sb" adopted "$sb"
[ -n "$bid" ] && ok "the sbatch job is berth job $bid" || bad "sbatch job not adopted: $(tail -3 "$W/berthd.log")"
if [ -n "$bid" ]; then
    wait_all_final 30 "$bid"
    api GET "/v1/jobs/$bid" "" "$ROOT" >/dev/null
    [ "$(jf state)" = completed ] && [ "$(jf gpus)" = 2 ] && [ "$(jf gpu_type)" = v100 ] &&
        [ "$(jf foreign)" = True ] && ok "berth scheduled the sbatch job (2 V100, completed)" ||
        bad "sbatch job in berth: $(head -c 600 "$W/body")"
    has "$J/sb.out" "sbatch-ran" "the sbatch job's own output"
fi

# a drained node takes no job until it is back: n2 drained, an 8-V100 job waits, n1 alone
# runs a 4-V100 one; when n2 resumes the 8-GPU job runs
scontrol update nodename=n2 state=drain reason=berth-test
wait_for 60 "berthd to take the drained n2 out" grep -q "slurm node n2 is.*nothing new is placed there" "$W/berthd.log" &&
    ok "berthd takes the drained n2 out"
"$BERTH" nodes >"$W/nodes" 2>&1
grep -q "^n2 .*(reserved)" "$W/nodes" && ok "berth nodes shows n2 reserved" || bad "berth nodes: $(cat "$W/nodes")"
d8=$(submit '{"argv":["sleep","1"],"gpus":8,"gpu_type":"v100","cwd":"'"$J"'"}')
d4=$(submit '{"argv":["sleep","1"],"gpus":4,"gpu_type":"v100","cwd":"'"$J"'"}')
wait_all_final 60 "$d4"
notes "$d4" | grep -q "released on n1 " && ok "a 4-V100 job runs on n1 while n2 is drained" || bad "d4: $(notes "$d4" | tr '\n' '|')"
api GET "/v1/jobs/$d8" "" "$ROOT" >/dev/null
[ "$(jf state)" = pending ] && ok "the 8-V100 job waits while n2 is drained" || bad "d8: $(jf state)"
scontrol update nodename=n2 state=resume
wait_all_final 60 "$d8"
api GET "/v1/jobs/$d8" "" "$ROOT" >/dev/null
[ "$(jf state)" = completed ] && ok "it runs once n2 is back" || bad "d8 after resume: $(jf state)"
has "$W/berthd.log" "slurm node n2 is back" "berthd logs n2's return"

# LAS: A holds all 8 V100; B arrives, has attained less, and takes them at A's quantum end.
# A checkpoints on the requeue's SIGTERM and resumes from it (BERTH_RESUME=1, attempt 2).
cat >"$J/count.sh" <<'EOF'
#!/bin/sh
# counts to $1 in steps of 0.2 s, keeping the count in $2; a SIGTERM saves and exits 0
n=0
[ "${BERTH_RESUME:-0}" = 1 ] && n=$(cat "$2")
echo "start attempt=${BERTH_ATTEMPT:-?} resume=${BERTH_RESUME:-0} from=$n grace=${BERTH_GRACE_S:-?}"
trap 'echo "$n" >"$2"; echo "checkpoint at $n"; exit 0' TERM
while [ "$n" -lt "$1" ]; do sleep 0.2; n=$((n + 1)); done
echo "$n" >"$2"
echo "done at $n"
EOF
chmod +x "$J/count.sh"
# A counts to 75 (15 s): its 4-s quantum ends well before it would finish on a loaded machine
a=$(submit '{"argv":["'"$J"'/count.sh","75","'"$J"'/a.ck"],"gpus":8,"gpu_type":"v100","cwd":"'"$J"'","name":"A"}')
wait_state "$a" running
sleep 3 # the scenario: B arrives once A has run a while, not a wait for a state
b=$(submit '{"argv":["'"$J"'/count.sh","10","'"$J"'/b.ck"],"gpus":8,"gpu_type":"v100","cwd":"'"$J"'","name":"B"}')
wait_all_final 120 "$b" "$a"
api GET "/v1/jobs/$a" "" "$ROOT" >/dev/null
sa=$(jf slurm_job)
[ "$(jf state)" = completed ] && ok "A completed" || bad "A: $(jf state)"
notes "$a" >"$W/a.notes"
has "$W/a.notes" "preempted by the las policy" "A was preempted by las"
has "$(spool "$a" stdout.log)" "checkpoint at" "A checkpointed on the requeue's SIGTERM"
has "$(spool "$a" stdout.log)" "start attempt=2 resume=1" "A resumed: attempt 2, BERTH_RESUME=1"
has "$(spool "$a" stdout.log)" "done at 75" "A counted to the end"
from=$(sed -n 's/.*attempt=2 resume=1 from=\([0-9]*\).*/\1/p' "$(spool "$a" stdout.log)")
[ "${from:-0}" -gt 0 ] && ok "A resumed from its checkpoint ($from)" || bad "A resumed from '$from'"
rs=$(scontrol show job "$sa" 2>/dev/null | sed -n 's/.*Restarts=\([0-9]*\).*/\1/p')
[ "$rs" = 1 ] && ok "A's Slurm job $sa was requeued once" || bad "A's Slurm restarts: '$rs'"
api GET "/v1/jobs/$a" "" "$ROOT" >/dev/null
cp "$W/body" "$W/a.json"
api GET "/v1/jobs/$b" "" "$ROOT" >/dev/null
python3 -c 'import json,sys
a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2]))
pre=[h["time_us"] for h in a["history"] if "preempted" in h["note"]]
sys.exit(0 if pre and pre[0] <= b["start_us"] < a["end_us"] and b["state"] == "completed" else 1)' \
    "$W/a.json" "$W/body" && ok "B started after A's preemption and completed before A" ||
    bad "B: $(head -c 400 "$W/body")"
stop_berthd

# ---- 2. an elastic job resized: X holds 6 V100 (n1 and half of n2); E (2 to 4 V100 on one
# server, a ResNet-50 of the throughput model) starts with 2 on n2 and aryl-elastic grows it
# to 4 when X ends: a requeue-and-hold, then a placement with 4 GPUs, resuming E. E counts
# to 100 (20 s), X to 25 (5 s): E is still running when X ends, even on a loaded machine ----
rm -rf "$W/st"
start_berthd --executor slurm --policy aryl-elastic
x=$(submit '{"argv":["'"$J"'/count.sh","25","'"$J"'/x.ck"],"gpus":6,"gpu_type":"v100","cwd":"'"$J"'","name":"X"}')
wait_state "$x" running
e=$(submit '{"argv":["'"$J"'/count.sh","100","'"$J"'/e.ck"],"gpus":2,"min_gpus":2,"max_gpus":4,"gpu_type":"v100","single_server":true,"job_type":"ResNet-50 (batch size 64)","total_steps":1000000,"cwd":"'"$J"'","name":"E"}')
wait_all_final 120 "$x" "$e"
notes "$e" >"$W/e.notes"
if grep -q "^resized to n2:.*,.*,.*," "$W/e.notes"; then
    ok "E was resized: $(grep -m1 '^resized' "$W/e.notes")"
    has "$W/e.notes" "released on n2 with 4 v100 GPUs" "E runs again with 4 GPUs on n2"
    has "$(spool "$e" stdout.log)" "start attempt=2 resume=1" "E restarted from its checkpoint after the resize"
else
    bad "E was never resized: $(tr '\n' '|' <"$W/e.notes")"
fi
api GET "/v1/jobs/$e" "" "$ROOT" >/dev/null
[ "$(jf state)" = completed ] && ok "E completed" || bad "E: $(jf state)"
stop_berthd

# ---- 3. berthd killed mid-workload and restarted: every job runs to its end exactly once ----
rm -rf "$W/st"
start_berthd --executor slurm --policy fifo
ids=""
for i in 1 2 3 4 5 6 7 8; do
    g=$((i % 2 ? 4 : 8))
    ids="$ids $(submit '{"argv":["'"$J"'/count.sh","15","'"$J"'/r'"$i"'.ck"],"gpus":'"$g"',"cwd":"'"$J"'","name":"R'"$i"'"}')"
done
sbr=$(cd "$J" && sbatch --parsable -D "$J" -o "$J/sbr.out" --gres=gpu:4 --wrap 'echo once >>'"$J"'/sbr.count; sleep 2')
sleep 2.5 # the scenario: the kills come mid-workload; no check depends on when
stop_berthd KILL
sleep 1
start_berthd --executor slurm --policy fifo
grep -q "recovered" "$W/berthd.log" && ok "berthd recovered: $(grep recovered "$W/berthd.log" | tail -1)" ||
    bad "no recovery line: $(tail -3 "$W/berthd.log")"
sleep 1
stop_berthd KILL # twice, the second time right after a restart
start_berthd --executor slurm --policy fifo
# shellcheck disable=SC2086
wait_all_final 120 $ids
n_done=0
for id in $ids; do
    api GET "/v1/jobs/$id" "" "$ROOT" >/dev/null
    st=$(jf state)
    runs=$(grep -c "^done at 15" "$(spool "$id" stdout.log)" 2>/dev/null)
    [ "$st" = completed ] && [ "$runs" = 1 ] && n_done=$((n_done + 1)) ||
        echo "  job $id: $st, finished $runs times"
done
[ "$n_done" = 8 ] && ok "all 8 jobs completed, each finished once, across two berthd kills" ||
    bad "$n_done of 8 jobs completed exactly once"
sbr_over() { [ -s "$J/sbr.count" ] && [ -z "$(sq "$sbr" %T)" ]; }
wait_for 60 "the sbatch job $sbr to run and leave squeue" sbr_over
[ "$(cat "$J/sbr.count" 2>/dev/null)" = once ] && ok "the sbatch job pending at the kill ran once" ||
    bad "sbatch job across the kill: '$(cat "$J/sbr.count" 2>/dev/null)' $(sq "$sbr" '%T %r')"
lat=$(python3 - "$W/st" "$URL" <<'EOF'
import json, re, sys, urllib.request
out = []
req = urllib.request.Request(sys.argv[2] + "/v1/jobs?all=1",
                             headers={"Authorization": "Bearer roottoken0123456789a"})
for j in json.load(urllib.request.urlopen(req))["jobs"]:
    r = urllib.request.Request(sys.argv[2] + "/v1/jobs/%d" % j["id"],
                               headers={"Authorization": "Bearer roottoken0123456789a"})
    for h in json.load(urllib.request.urlopen(r))["history"]:
        m = re.match(r"running in Slurm ([0-9.]+) s after its placement", h["note"])
        if m:
            out.append(float(m.group(1)))
out.sort()
print("%d placements: min %.3f, median %.3f, max %.3f s" % (len(out), out[0], out[len(out) // 2], out[-1]) if out else "none")
EOF
)
echo "decision to running: $lat"
case $lat in none | "") bad "no placement latency recorded" ;; *) ok "latency recorded: $lat" ;; esac
stop_berthd

# ---- 4. a small trace replayed on Slurm starts jobs in the order berth sim starts them (sjf:
# the order depends on the durations, not just the arrivals). One trace minute is 2 s, so
# Slurm's start latency (0.1-1 s) cannot reorder events the simulation puts 60 s apart ----
rm -rf "$W/st"
cat >"$W/trace.csv" <<'EOF'
job_id,arrival_s,duration_s,num_gpus,gpu_type
t1,0,480,8,v100
t2,60,300,4,v100
t3,120,180,4,v100
t4,150,420,8,a100
t5,180,240,8,a100
t6,240,120,4,v100
t7,270,360,8,a100
t8,300,60,4,v100
t9,330,180,8,v100
t10,360,240,16,a100
EOF
"$BERTH" sim --cluster 2x4:v100,2x8:a100 --trace "$W/trace.csv" --policy sjf --out "$W/simout" >/dev/null 2>"$W/err" ||
    bad "berth sim: $(cat "$W/err")"
sim_order=$(python3 -c 'import csv,sys
r=sorted(csv.DictReader(open(sys.argv[1])), key=lambda x:(float(x["first_start_s"]), x["job_id"]))
print(" ".join(x["job_id"] for x in r))' "$W/simout/jobs.csv")
start_berthd --executor slurm --policy sjf
python3 - "$W/trace.csv" "$URL" "$J" >"$W/replay.ids" <<'EOF'
import csv, json, sys, time, urllib.request
rows = sorted(csv.DictReader(open(sys.argv[1])), key=lambda r: float(r["arrival_s"]))
t0 = time.time()
for r in rows:
    at = float(r["arrival_s"]) / 30
    time.sleep(max(0, t0 + at - time.time()))
    run = float(r["duration_s"]) / 30
    body = {"argv": ["sleep", "%.3f" % run], "gpus": int(r["num_gpus"]), "gpu_type": r["gpu_type"],
            "est_s": run, "cwd": sys.argv[3], "name": r["job_id"]}
    req = urllib.request.Request(sys.argv[2] + "/v1/jobs", data=json.dumps(body).encode(),
                                 headers={"Authorization": "Bearer alicetoken0123456789"})
    print(r["job_id"], json.load(urllib.request.urlopen(req))["id"], flush=True)
EOF
# shellcheck disable=SC2046
wait_all_final 120 $(cut -d' ' -f2 "$W/replay.ids")
live_order=$(while read -r name id; do
    api GET "/v1/jobs/$id" "" "$ROOT" >/dev/null
    echo "$(jf start_us) $name"
done <"$W/replay.ids" | sort -n -k1,1 | cut -d' ' -f2 | tr '\n' ' ')
live_order=${live_order% }
echo "berth sim starts: $sim_order"
echo "on Slurm:         $live_order"
[ "$sim_order" = "$live_order" ] && ok "the replay on Slurm starts jobs in berth sim's order" ||
    bad "start orders differ"
while read -r name id; do
    api GET "/v1/jobs/$id" "" "$ROOT" >/dev/null
    echo "$name $(jf submit_us) $(jf start_us)"
done <"$W/replay.ids" >"$W/replay.times"
python3 - "$W/replay.times" "$W/simout/jobs.csv" <<'EOF'
import csv, sys
live = {r[0]: (int(r[1]), int(r[2])) for r in (l.split() for l in open(sys.argv[1]))}
sim = {r["job_id"]: float(r["first_start_s"]) for r in csv.DictReader(open(sys.argv[2]))}
t0 = live["t1"][0]
d = [abs((live[k][1] - t0) / 1e6 - sim[k] / 30) for k in sim]
print("berthd's start decisions vs berth sim's, scaled: off by %.2f s on average, %.2f s at most" % (sum(d) / len(d), max(d)))
EOF
stop_berthd
finish
