#!/usr/bin/env bash
# The seed systems' Slurm legs (issue 17), on the mini cluster:
#  1. SpeCon moves a job to another node. F, J2 and S hold 2, 4 and 2 V100 (F and S on one
#     node, J2 on the other); F reports a metric that grows, S a flat one. Once J2 ends the
#     first node is full and the second idle: at the next window specon checkpoints S (a
#     requeue of its Slurm job, held) and places the same Slurm job on the other node.
#  2. Elastic training for real: examples/pytorch/train_elastic.py (Gloo workers, one per
#     GPU) starts with 2 of a node's 4 V100 while X holds the other 2; when X ends aryl-elastic
#     grows it to 4: its SIGUSR1 sent through Slurm to the whole job (the workers too), a
#     checkpoint, exit 0, then a Slurm job of 4 GPUs for the next attempt (WORLD_SIZE from
#     Slurm's allocation); it resumes from its checkpoint at 4 workers, and its final loss
#     matches an unresized one-process run's.
# Skips, saying why, without Slurm or libslurm or root (and part 2 without python3-torch),
# unless BERTH_REQUIRE names them.
# Usage: bash tests/berthd_slurm_seed.sh BERTH SRC_DIR SHARED_DIR BERTHD
set -u
SRC=${2:?usage: berthd_slurm_seed.sh BERTH SRC SHARED BERTHD}
. "$SRC/tests/cli_lib.sh"
. "$SRC/tests/lib_berthd.sh"
. "$SRC/tests/slurm/require.sh"
slurm_require berthd_slurm_seed "$(dirname "$BERTH")/tests/slurm_api_test"

slurm_berthd_cluster

# the node names of a berth job's allocation, sorted
nodes_of() {
    api GET "/v1/jobs/$1" "" "$ROOT" >/dev/null
    python3 -c 'import json,sys; print(" ".join(sorted({a["server"] for a in json.load(open(sys.argv[1]))["allocation"]})))' "$W/body"
}
# state, attempt and nodes of a berth job, on one line
where() {
    api GET "/v1/jobs/$1" "" "$ROOT" >/dev/null
    python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
print(d["state"], d.get("attempt"), " ".join(sorted({a["server"] for a in d["allocation"]})))' "$W/body"
}

# ---- 1. SpeCon: the flat job moves to the idle node ----
# a job that reports its metric (slope 0: flat; 10: growing) until its stop file appears; a
# SIGTERM (the checkpoint signal) ends the attempt cleanly
cat >"$J/metric.sh" <<'SH'
#!/bin/sh
trap 'echo "checkpoint at $step"; exit 0' TERM
slope=$1 step=0
echo "start attempt=${BERTH_ATTEMPT:-?} resume=${BERTH_RESUME:-0} on $(hostname) ${SLURMD_NODENAME:-}"
while [ ! -e "$2" ]; do
    step=$((step + 1))
    echo "{\"step\": $step, \"metric\": $((step * slope / 5))}" >>"$BERTH_PROGRESS_FILE"
    sleep 0.2
done
echo "done at $step"
SH
chmod 755 "$J/metric.sh"
start_berthd --executor slurm --policy specon --policy-arg window=2
sub() { # sub NAME GPUS SLOPE: a v100 job on one node reporting its metric, until $J/stop.NAME exists
    submit '{"argv":["'"$J"'/metric.sh","'"$3"'","'"$J"'/stop.'"$1"'"],"gpus":'"$2"',"gpu_type":"v100","single_server":true,"est_s":100000,"grace_s":10,"cwd":"'"$J"'","name":"'"$1"'"}'
}
f=$(sub F 2 10)
wait_state "$f" running
j2=$(sub J2 4 0)
wait_state "$j2" running
s=$(sub S 2 0)
wait_state "$s" running
nf=$(nodes_of "$f") n2=$(nodes_of "$j2") ns=$(nodes_of "$s")
[ "$nf" = "$ns" ] && [ "$nf" != "$n2" ] && ok "F and S share $nf, J2 has $n2" ||
    bad "placements: F $nf, J2 $n2, S $ns"
touch "$J/stop.J2"
wait_state "$j2" completed
moved() { [ "$(where "$s")" = "running 2 $n2" ]; }
wait_for 120 "S to move to $n2" moved && ok "S runs again, attempt 2, on $n2" ||
    bad "S: $(where "$s")"
notes "$s" >"$W/s.notes"
has "$W/s.notes" "migrated to $n2" "S, flat, was migrated by specon (its history says so)"
ss=$(field "$s" slurm_job)
grep -q "^attempt 2: Slurm job $ss released on $n2 " "$W/s.notes" &&
    ok "S's own Slurm job ($ss) was requeued and placed on $n2" ||
    bad "S's notes: $(tr '\n' '|' <"$W/s.notes")"
[ "$(nodes_of "$f")" = "$nf" ] && [ "$(field "$f" attempt)" = 1 ] &&
    ok "F, growing fast, stays on $nf and was never stopped" || bad "F: $(where "$f")"
wait_for 60 "Slurm to run S on $n2" eval '[ "$(sq "$ss" "%T %N")" = "RUNNING $n2" ]' &&
    ok "Slurm runs S's job $ss on $n2" || bad "S in Slurm: $(sq "$ss" "%T %N")"
touch "$J/stop.F" "$J/stop.S"
wait_for 60 "F and S to end" eval 'over "$f" && over "$s"'
[ "$(field "$f" state) $(field "$s" state)" = "completed completed" ] && ok "F and S completed" ||
    bad "F $(field "$f" state), S $(field "$s" state)"
has "$(spool "$s" stdout.log)" "checkpoint at" "S checkpointed on the move's signal"
has "$(spool "$s" stdout.log)" "start attempt=2 resume=1" "S's second attempt resumed"
stop_berthd

# ---- 2. elastic PyTorch on Slurm: 2 workers, grown to 4 ----
PY=$(gloo_python)
[ -n "$PY" ] ||
    skip_test torch "berthd_slurm_seed part 2: python3-torch with Gloo is not installed (make test-slurm installs it)"
TRAIN=$J/pytorch/train_elastic.py
mkdir -p "$J/pytorch"
cp "$SRC/examples/pytorch/train_elastic.py" "$SRC/examples/pytorch/train.py" \
    "$SRC/clients/python/berth_client.py" "$J/pytorch/"
STEPS=600
"$PY" "$TRAIN" --steps $STEPS --ckpt "$W/ref.pt" --workers 1 >"$W/ref.log" 2>&1 &&
    ok "reference run (one worker)" || bad "reference run: $(tail -3 "$W/ref.log")"
REF=$(sed -n 's/.*done: step [0-9]* loss \([^ ]*\).*/\1/p' "$W/ref.log")
rm -rf "$W/st"
start_berthd --executor slurm --policy aryl-elastic
# X holds 2 V100 on one node until the test lets it end (a file): no timing assumption
x=$(submit '{"argv":["/bin/sh","-c","while [ ! -e '"$J"'/x.go ]; do sleep 0.1; done"],"gpus":2,"gpu_type":"v100","single_server":true,"est_s":100,"cwd":"'"$J"'","name":"X"}')
wait_state "$x" running
nx=$(nodes_of "$x")
# the other node is held too, so that E can grow only where X was
y=$(submit '{"argv":["/bin/sh","-c","while [ ! -e '"$J"'/y.go ]; do sleep 0.1; done"],"gpus":4,"gpu_type":"v100","single_server":true,"est_s":100,"cwd":"'"$J"'","name":"Y"}')
wait_state "$y" running
e=$(submit '{"argv":["'"$PY"'","'"$TRAIN"'","--steps","'"$STEPS"'","--ckpt","'"$J"'/e.pt","--step-time","0.1","--log-every","50"],"cwd":"'"$J"'","gpus":2,"min_gpus":2,"max_gpus":4,"gpu_type":"v100","single_server":true,"job_type":"ResNet-50 (batch size 64)","total_steps":1000000,"checkpoint_signal":"SIGUSR1","grace_s":60,"name":"E"}')
wait_state "$e" running && [ "$(nodes_of "$e")" = "$nx" ] && ok "E runs on the 2 idle V100 of $nx" ||
    bad "E: $(where "$e"), X on $nx"
elog=$(spool "$e" stdout.log)
started() { grep -q "start world_size=2 step=0" "$elog" 2>/dev/null; }
wait_for 180 "E's 2 workers to start" started && ok "E started with 2 workers (WORLD_SIZE from Slurm)"
progressed() { # berthd has read a report of E's, from its progress file
    s=$(field "$e" progress.step)
    [ "$s" != None ] && [ "$s" -ge 10 ]
}
wait_for 120 "E's progress reports" progressed && ok "berthd reads E's progress (step $s)"
touch "$J/x.go"
wait_state "$x" completed 60 && ok "X ended"
at4() { grep -q "start world_size=4" "$elog" 2>/dev/null; }
wait_for 180 "E to run with 4 workers" at4 && ok "E runs with 4 workers"
touch "$J/y.go"
wait_state "$e" completed 300 && ok "E completed"
notes "$e" >"$W/e.notes"
grep -q "^resized" "$W/e.notes" && ok "berthd resized E: $(grep -m1 '^resized' "$W/e.notes")" ||
    bad "E was never resized: $(tr '\n' '|' <"$W/e.notes")"
has "$W/e.notes" "SIGUSR1 sent through Slurm: requeued" "E got its SIGUSR1 through Slurm for the resize"
has "$elog" "checkpoint at step" "E checkpointed on the resize's SIGUSR1"
at=$(sed -n 's/.*start world_size=4 step=\([0-9]*\).*/\1/p' "$elog" | head -1)
[ -n "$at" ] && [ "$at" -gt 0 ] && [ "$at" -lt $STEPS ] &&
    ok "E resumed with 4 workers from its checkpoint (step $at), not from 0" ||
    bad "no resume at 4 workers: $(grep 'start world_size' "$elog")"
grep -q "SIGKILL" "$W/e.notes" && bad "E was killed instead of checkpointing"
[ "$(grep -c "done: step" "$elog")" = 1 ] && ok "E trained to the end once" ||
    bad "E's runs: $(grep -E "start world_size|done: step" "$elog" | tr '\n' '|')"
# its checkpoint exit ended the first Slurm job: the second attempt is a Slurm job of 4 GPUs
# (and its 4 workers are Slurm's count: WORLD_SIZE comes from SLURM_GPUS_ON_NODE)
se=$(field "$e" slurm_job)
grep -q "^attempt 2: Slurm job $se released on $nx with 4 v100 GPUs" "$W/e.notes" &&
    ok "E's second attempt ran as Slurm job $se with 4 GPUs on $nx" ||
    bad "E in Slurm: $se, $(tr '\n' '|' <"$W/e.notes")"
GOT=$(sed -n 's/.*done: step [0-9]* loss \([^ ]*\).*/\1/p' "$elog" | tail -1)
python3 -c 'import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(abs(a - b) > 1e-5 * abs(b))' \
    "${GOT:-nan}" "${REF:-0}" && ok "its final loss $GOT matches the unresized run's $REF" ||
    bad "final loss ${GOT:-none}, unresized ${REF:-none}"
wait_for 60 "Y to end" over "$y"
stop_berthd
finish
