#!/usr/bin/env bash
# berthd preemption under a preemptive policy (srtf): the running job gets its checkpoint
# signal, the grace period, then SIGKILL; the preempting job starts only once the GPU is
# free; the preempted job later resumes with BERTH_RESUME=1. Usage: as berthd_api.sh.
set -u
. "$(dirname "$0")/cli_lib.sh"
. "$(dirname "$0")/lib_berthd.sh"

start_berthd --gpus 1x1:a100 --policy srtf
M=$W/markers
cat >"$W/a.sh" <<SH
echo "start resume=\${BERTH_RESUME:-0} attempt=\$BERTH_ATTEMPT sig=\$BERTH_CHECKPOINT_SIGNAL grace=\$BERTH_GRACE_S" >> $M
[ "\${BERTH_RESUME:-0}" = 1 ] && exit 0
trap 'echo "got USR1" >> $M' USR1
echo \$\$ > $W/apid
while :; do sleep 0.05; done
SH
api POST /v1/jobs '{"argv":["sh","'"$W/a.sh"'"],"est_s":1000,"checkpoint_signal":"SIGUSR1","grace_s":1}' >/dev/null
A=$(jf id)
wait_state "$A" running && ok "the long job runs"
wait_for 30 "the long job to set its USR1 trap" test -s "$W/apid"
api POST /v1/jobs '{"argv":["sh","-c","kill -0 $(cat '"$W/apid"') 2>/dev/null && echo overlap >> '"$M"' || echo B clean >> '"$M"'"],"est_s":1}' >/dev/null
B=$(jf id)
wait_state "$B" completed && ok "the short job preempted it and completed"
wait_state "$A" completed && ok "the preempted job resumed and completed"
grep -q "start resume=0 attempt=1 sig=SIGUSR1 grace=1" "$M" && ok "first attempt: no resume, signal and grace in its environment" || bad "first attempt: $(cat "$M")"
grep -q "got USR1" "$M" && ok "the checkpoint signal (SIGUSR1) arrived" || bad "no SIGUSR1: $(cat "$M")"
grep -q "B clean" "$M" && ok "the preempting job started only after the preempted one was gone" || bad "overlap: $(cat "$M")"
grep -q "start resume=1 attempt=2" "$M" && ok "the second attempt has BERTH_RESUME=1" || bad "no resume: $(cat "$M")"
api GET "/v1/jobs/$A" >/dev/null
has "$W/body" "preempted by the srtf policy" "history: preempted"
has "$W/body" "grace period over: SIGKILL sent" "history: SIGKILL after the grace period"
has "$W/body" "attempt 1 stopped (killed by signal 9)" "history: the first attempt was killed"
[ "$(jf attempt)" = 2 ] && ok "two attempts" || bad "attempts: $(jf attempt)"
order=$(grep -n . "$M" | tr '\n' ' ')
case "$order" in
*"got USR1"*"B clean"*"resume=1"*) ok "order: signal, then the short job, then the resume" ;;
*) bad "order: $order" ;;
esac

# a job that checkpoints and exits on its signal is not killed
cat >"$W/c.sh" <<SH
[ "\${BERTH_RESUME:-0}" = 1 ] && { echo "C resumed" >> $M; exit 0; }
trap 'echo "C checkpointed" >> $M; exit 0' TERM
echo \$\$ > $W/cpid
while :; do sleep 0.05; done
SH
api POST /v1/jobs '{"argv":["sh","'"$W/c.sh"'"],"est_s":1000,"grace_s":300}' >/dev/null
C=$(jf id)
wait_state "$C" running
wait_for 30 "job C to set its TERM trap" test -s "$W/cpid"
api POST /v1/jobs '{"argv":["true"],"est_s":1}' >/dev/null
D=$(jf id)
wait_state "$D" completed 60 && ok "a job that checkpoints on SIGTERM frees its GPU at once (no 300 s grace)"
wait_state "$C" completed && ok "and resumes afterwards"
grep -q "C checkpointed" "$M" && grep -q "C resumed" "$M" && ok "checkpoint then resume" || bad "C: $(cat "$M")"
api GET "/v1/jobs/$C" >/dev/null
grep -q "SIGKILL" "$W/body" && bad "C was SIGKILLed" || ok "no SIGKILL for a job that stopped in time"
stop_berthd

# las time slices: with nothing else happening, the quantum's end alone preempts the job that
# has had more service (the policy's next pass is kept from pass to pass, not asked anew).
# The newcomer arrives after E's first quantum (the sleep is the scenario, not a wait); E
# would run 600 s, so a newcomer done within 60 s was started by a quantum's end
rm -rf "$W/st"
start_berthd --gpus 1x1:a100 --policy las --quantum 1
api POST /v1/jobs '{"argv":["sleep","600"],"grace_s":1,"job_type":"ResNet-50 (batch size 64)"}' >/dev/null
E=$(jf id)
wait_state "$E" running
[ "$(jf job_type)" = "ResNet-50 (batch size 64)" ] && ok "job_type is kept" || bad "job_type: $(jf job_type)"
sleep 1.2
api POST /v1/jobs '{"argv":["true"]}' >/dev/null
F=$(jf id)
wait_state "$F" completed 60 && ok "las: the quantum's end preempts the longer-served job; the newcomer runs"
api GET "/v1/jobs/$E" >/dev/null
has "$W/body" "preempted by the las policy" "the long job's history says so"
api POST "/v1/jobs/$E/cancel" >/dev/null
stop_berthd

# policy settings reach berthd's policy: priority with preempt=1, a more important job takes
# the GPU of a running less important one at once
rm -rf "$W/st"
start_berthd --gpus 1x1:a100 --policy priority --policy-arg preempt=1
api POST /v1/jobs '{"argv":["sleep","600"],"grace_s":1,"priority":0}' >/dev/null
L=$(jf id)
wait_state "$L" running
api POST /v1/jobs '{"argv":["true"],"priority":10}' >/dev/null
H=$(jf id)
wait_state "$H" completed 60 && ok "priority, preempt=1: the priority-10 job preempts the priority-0 job and completes"
api GET "/v1/jobs/$L" >/dev/null
has "$W/body" "preempted by the priority policy" "the priority-0 job's history says so"
api POST "/v1/jobs/$L/cancel" >/dev/null
stop_berthd
expect_rc 2 "berthd with a setting its policy lacks" -- "$BERTHD" --tokens "$W/tokens" --gpus 1x1:a100 --policy fifo --policy-arg preempt=1 --state-dir "$W/st3" --port 0
has "$W/err" 'policy fifo: unknown setting "preempt"' "it names the policy and the setting"
finish
