#!/usr/bin/env bash
# The real DL example under berthd (issue 6): examples/pytorch/train.py runs as a berthd
# job, reports progress, is preempted halfway by a shorter job under srtf (its checkpoint
# signal, then it checkpoints and exits), and resumes from the checkpoint under
# BERTH_RESUME=1 to finish every step with the same final loss as an uninterrupted run.
# Needs python3-torch (make test installs it). Usage: as berthd_api.sh.
set -u
. "$(dirname "$0")/cli_lib.sh"
. "$(dirname "$0")/lib_berthd.sh"
SRC=$2
TRAIN=$(reach "$SRC/examples/pytorch/train.py")
# a copy (the checkout is closed to the test accounts) imports its client from beside it
[ "$TRAIN" = "$SRC/examples/pytorch/train.py" ] || reach "$SRC/clients/python/berth_client.py" >/dev/null
# the first python with torch (Debian's python3-torch is for /usr/bin/python3)
PY=""
for py in ${BERTH_PYTHON:-} python3 /usr/bin/python3; do
    "$py" -c 'import torch' 2>/dev/null && { PY=$(command -v "$py"); break; }
done
[ -n "$PY" ] ||
    skip_test torch "python3-torch is not installed (make test installs it; apt-get install python3-torch)"
STEPS=400
# the reference: the same run outside berth, never interrupted
"$PY" "$TRAIN" --steps $STEPS --ckpt "$W/ref.pt" --step-time 0.01 >"$W/ref.log" 2>&1 &&
    ok "reference run" || bad "reference run: $(tail -3 "$W/ref.log")"
REF=$(sed -n 's/.*done: step [0-9]* loss \([^ ]*\).*/\1/p' "$W/ref.log")

start_berthd --gpus 1x1:a100 --policy srtf
# paced at 0.05 s a step (the pace changes no result): 10 s from halfway to the end leaves
# time for the preemption on a loaded machine and with a sanitized berthd
body='{"argv":["'"$PY"'","'"$TRAIN"'","--steps","'"$STEPS"'","--ckpt","'"$W/ckpt.pt"'","--step-time","0.05"],"cwd":"'"$W"'","est_s":1000,"checkpoint_signal":"SIGUSR1","grace_s":30}'
api POST /v1/jobs "$body" >/dev/null
[ "$(status)" = 201 ] || [ "$(status)" = 200 ] || bad "submit: $(status) $(cat "$W/body")"
A=$(jf id)
wait_state "$A" running && ok "train.py runs under berthd"
# halfway: berthd has read progress >= STEPS/2 from the job's reports
past_half() {
    api GET "/v1/jobs/$A" "" "$ROOT" >/dev/null
    s=$(jf progress.step)
    [ "$s" != None ] && [ "$s" -ge $((STEPS / 2)) ]
}
wait_for 120 "berthd to see train.py's progress past step $((STEPS / 2))" past_half &&
    ok "berthd sees its progress (step $s)" || echo "  its last report: $(head -c 400 "$W/body")"
api POST /v1/jobs '{"argv":["true"],"est_s":1}' >/dev/null
B=$(jf id)
wait_state "$B" completed 60 && ok "a shorter job preempted it and completed"
wait_state "$A" completed 180 && ok "the preempted training resumed and completed"
api GET "/v1/jobs/$A" "" "$ROOT" >/dev/null
[ "$(jf attempt)" = 2 ] && ok "two attempts" || bad "attempts: $(jf attempt)"
[ "$(jf progress.step)" = "$STEPS" ] && ok "its last report is step $STEPS" || bad "last step: $(jf progress.step)"
grep -q "SIGKILL" "$W/body" && bad "train.py was killed instead of checkpointing" || ok "it checkpointed within the grace period"
"$BERTH" logs "$A" >"$W/out.log" 2>&1 || bad "berth logs: $(cat "$W/out.log")"
has "$W/out.log" "checkpoint at step" "it checkpointed on the signal"
resumed=$(sed -n 's/.*resumed from step \([0-9]*\).*/\1/p' "$W/out.log")
[ -n "$resumed" ] && [ "$resumed" -ge $((STEPS / 2)) ] && [ "$resumed" -lt $STEPS ] &&
    ok "it resumed from the checkpoint (step $resumed), not from 0" || bad "resume: $(grep -i resum "$W/out.log")"
# where a real NVIDIA GPU is (tests/gpu/check_gpu.sh's machines), the job trains on it: berthd
# gave it CUDA_VISIBLE_DEVICES and the job's account could open the device
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
    grep -q "training on cuda" "$W/out.log" && ok "it trained on the GPU: $(grep -o 'training on.*' "$W/out.log" | head -1)" ||
        bad "a GPU is here but the job did not train on it: $(grep 'training on' "$W/out.log" | head -1)"
fi
GOT=$(sed -n 's/.*done: step [0-9]* loss \([^ ]*\).*/\1/p' "$W/out.log")
[ -n "$REF" ] && [ "$GOT" = "$REF" ] && ok "the same final loss as the uninterrupted run ($GOT)" ||
    bad "final loss $GOT, uninterrupted $REF"
stop_berthd
finish
