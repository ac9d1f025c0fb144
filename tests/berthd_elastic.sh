#!/usr/bin/env bash
# Elastic training for real (issue 17): examples/pytorch/train_elastic.py, a data-parallel
# job of WORLD_SIZE worker processes (Gloo), runs under berthd's aryl-elastic policy on the
# local executor with 2 of 4 (fake) GPUs while another job holds the other 2; when that job
# ends, the policy grows it to 4: the checkpoint signal, a checkpoint after the same step on
# both workers, a relaunch with WORLD_SIZE=4 and BERTH_RESUME=1, and the run goes on at the
# new width from its checkpoint; then a 2-GPU job arrives and the policy shrinks it back to 2
# for it, the same way. Its final loss matches an unresized one-process run of the
# same script (the global batch and the dropout masks do not depend on the width: only the
# floating-point summation order does). Needs python3-torch (make test installs it).
# Usage: as berthd_api.sh.
set -u
. "$(dirname "$0")/cli_lib.sh"
. "$(dirname "$0")/lib_berthd.sh"
SRC=$2
TRAIN=$(reach "$SRC/examples/pytorch/train_elastic.py")
# a copy (the checkout is closed to the test accounts) imports train.py and the client
# from beside it
if [ "$TRAIN" != "$SRC/examples/pytorch/train_elastic.py" ]; then
    reach "$SRC/examples/pytorch/train.py" >/dev/null
    reach "$SRC/clients/python/berth_client.py" >/dev/null
fi
PY=$(gloo_python)
[ -n "$PY" ] ||
    skip_test torch "python3-torch with Gloo is not installed (make test installs it; apt-get install python3-torch)"
STEPS=400
# the reference: one process, never resized
"$PY" "$TRAIN" --steps $STEPS --ckpt "$W/ref.pt" --workers 1 >"$W/ref.log" 2>&1 &&
    ok "reference run (one worker)" || bad "reference run: $(tail -3 "$W/ref.log")"
REF=$(sed -n 's/.*done: step [0-9]* loss \([^ ]*\).*/\1/p' "$W/ref.log")

start_berthd --gpus 1x4:v100 --policy aryl-elastic
# X holds 2 GPUs until the test lets it end (a file): no timing assumption
x_body='{"argv":["/bin/sh","-c","while [ ! -e '"$W"'/x.go ]; do sleep 0.1; done"],"gpus":2,"est_s":100,"name":"X"}'
api POST /v1/jobs "$x_body" >/dev/null
X=$(jf id)
wait_state "$X" running && ok "X holds 2 GPUs"
# E: elastic 2..4 GPUs, a ResNet-50 to the throughput model with a long run ahead (total_steps:
# growing it then saves more than twice the restart cost, as aryl asks), paced at 0.1 s a
# step so that it is still running when X ends, even on a loaded machine
e_body='{"argv":["'"$PY"'","'"$TRAIN"'","--steps","'"$STEPS"'","--ckpt","'"$W/e.pt"'","--step-time","0.1","--log-every","50"],"cwd":"'"$W"'","gpus":2,"min_gpus":2,"max_gpus":4,"job_type":"ResNet-50 (batch size 64)","total_steps":1000000,"checkpoint_signal":"SIGUSR1","grace_s":60,"name":"E"}'
api POST /v1/jobs "$e_body" >/dev/null
[ "$(status)" = 201 ] || [ "$(status)" = 200 ] || bad "submit E: $(status) $(cat "$W/body")"
E=$(jf id)
wait_state "$E" running && ok "E runs on the 2 idle GPUs"
progressed() { # E's workers have started and berthd has read a report
    api GET "/v1/jobs/$E" "" "$ROOT" >/dev/null
    s=$(jf progress.step)
    [ "$s" != None ] && [ "$s" -ge 10 ]
}
wait_for 120 "E's progress reports" progressed && ok "berthd reads E's progress (step $s)"
touch "$W/x.go"
wait_state "$X" completed 60 && ok "X ended"
# grown to 4 workers, E has (STEPS - its step) x 0.1 s left: Y, a 2-GPU job, then fits only
# if E gives 2 GPUs back, and aryl-elastic shrinks it for Y
at4() { "$BERTH" logs "$E" 2>/dev/null | grep -q "start world_size=4"; }
wait_for 120 "E to run with 4 workers" at4 && ok "E runs with 4 workers"
api POST /v1/jobs '{"argv":["true"],"gpus":2,"est_s":5,"name":"Y"}' >/dev/null
Y=$(jf id)
wait_state "$Y" completed 120 && ok "Y ran on the GPUs E gave back"
wait_state "$E" completed 300 && ok "E completed"
api GET "/v1/jobs/$E" "" "$ROOT" >/dev/null
python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
for h in d["history"]: print(h["note"])' "$W/body" >"$W/e.notes"
grep -q "^resized" "$W/e.notes" && ok "berthd resized E: $(grep -m1 '^resized' "$W/e.notes")" ||
    bad "E was never resized: $(tr '\n' '|' <"$W/e.notes")"
"$BERTH" logs "$E" >"$W/e.log" 2>&1 || bad "berth logs: $(cat "$W/e.log")"
has "$W/e.log" "start world_size=2 step=0" "E started with 2 workers"
has "$W/e.log" "checkpoint at step" "E checkpointed on the resize's signal"
at=$(sed -n 's/.*start world_size=4 step=\([0-9]*\).*/\1/p' "$W/e.log" | head -1)
[ -n "$at" ] && [ "$at" -gt 0 ] && [ "$at" -lt $STEPS ] &&
    ok "E resumed with 4 workers from its checkpoint (step $at), not from 0" ||
    bad "no resume at 4 workers: $(grep 'start world_size' "$W/e.log")"
back=$(sed -n 's/.*start world_size=2 step=\([0-9]*\).*/\1/p' "$W/e.log" | sed -n 2p)
[ -n "$back" ] && [ -n "$at" ] && [ "$back" -gt "$at" ] && [ "$back" -lt $STEPS ] &&
    ok "E shrank back to 2 workers at step $back and went on from there" ||
    bad "no shrink to 2 workers after the growth: $(grep 'start world_size' "$W/e.log")"
[ "$(grep -c '^resized' "$W/e.notes")" = 2 ] && ok "two resizes in E's history" ||
    bad "resizes: $(grep '^resized' "$W/e.notes" | tr '\n' '|')"
grep -q "SIGKILL" "$W/e.notes" && bad "E was killed instead of checkpointing"
GOT=$(sed -n 's/.*done: step [0-9]* loss \([^ ]*\).*/\1/p' "$W/e.log")
# the same steps on the same global batches: equal up to summation order (1e-5 relative)
python3 -c 'import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(abs(a - b) > 1e-5 * abs(b))' \
    "${GOT:-nan}" "${REF:-0}" && ok "its final loss $GOT matches the unresized run's $REF" ||
    bad "final loss ${GOT:-none}, unresized ${REF:-none}"
stop_berthd
finish
