#!/usr/bin/env bash
# berthd's shared-cluster controls end to end, through the API and the CLI: a time limit
# (checkpoint signal, grace, SIGKILL, state timeout, reason TimeLimit), queues with quotas
# and a cohort (a queue borrows its mate's idle quota and gives it back by preemption, the
# checkpoint signal honoured; QuotaExceeded with the quota named), berth queue's columns and
# reason codes, berth why naming the job that blocks, and EASY backfill live.
# Usage: as berthd_api.sh.
set -u
. "$(dirname "$0")/cli_lib.sh"
. "$(dirname "$0")/lib_berthd.sh"
M=$W/markers
touch "$M"
chmod 666 "$M"

# ---- a time limit: the checkpoint signal, the grace period, SIGKILL, state timeout ----------
start_berthd --gpus 1x4:v100 --policy fifo
cat >"$W/limit.sh" <<SH
trap 'echo "limit got TERM" >> $M' TERM
while :; do sleep 0.05; done
SH
chmod 755 "$W/limit.sh"
api POST /v1/jobs '{"argv":["sh","'"$W/limit.sh"'"],"time_limit_s":1,"grace_s":1}' >/dev/null
L=$(jf id)
[ "$(jf state)" = pending ] && ok "a job with a time limit is accepted" || bad "submit: $(cat "$W/body")"
wait_state "$L" timeout 30 && ok "it ends in state timeout"
api GET "/v1/jobs/$L" >/dev/null
has "$W/body" "time limit of 1 s reached: SIGTERM sent, SIGKILL after 1 s" "history: the limit, the signal and the grace"
has "$W/body" "stopped at its time limit (killed by signal 9)" "history: SIGKILL after the grace (the job ignored TERM)"
[ "$(jf reason)" = TimeLimit ] && ok "its reason is TimeLimit" || bad "reason: $(jf reason)"
[ "$(jf time_limit_s)" = 1.0 ] && ok "time_limit_s in the record" || bad "time_limit_s: $(jf time_limit_s)"
grep -q "limit got TERM" "$M" && ok "the job got its checkpoint signal first" || bad "no TERM: $(cat "$M")"
"$BERTH" submit --time 0:02 --no-env -- sleep 30 >"$W/out" 2>&1
T=$(grep -oE '[0-9]+' "$W/out" | tail -1)
wait_state "$T" timeout 30 && ok "berth submit --time 0:02: timed out"
"$BERTH" queue --all >"$W/q" 2>&1
head -1 "$W/q" | grep -qE '^ +ID USER +QUEUE +NAME +STATE +GPUS +ELAPSED +LIMIT +SERVERS +REASON$' &&
    ok "berth queue: squeue's columns" || bad "queue header: $(head -1 "$W/q")"
grep -E "^ *$T " "$W/q" | grep -q "timeout .*0:00:02 .*TimeLimit" &&
    ok "berth queue: the timed-out job's run time, limit and reason" || bad "queue row: $(grep -E "^ *$T " "$W/q")"
expect_rc 2 "--time with a bad value" -- "$BERTH" submit --time 5:75 -- true
api POST /v1/jobs '{"argv":["true"],"time_limit_s":-1}' >/dev/null
[ "$(status)" = 400 ] && has "$W/body" "time_limit_s: expected a number" "a negative limit gets 400 naming time_limit_s" || bad "time_limit_s -1: $(status)"

# ---- why names the job that blocks (strict fifo), and the columns follow it ----------------
api POST /v1/jobs '{"argv":["sleep","600"],"gpus":3,"name":"holder"}' >/dev/null; H=$(jf id)
wait_state "$H" running && ok "a 3-GPU job holds the GPUs"
api POST /v1/jobs '{"argv":["true"],"gpus":2,"name":"big"}' >/dev/null; B=$(jf id)
api POST /v1/jobs '{"argv":["true"],"gpus":1,"name":"small"}' >/dev/null; S=$(jf id)
wait_for 20 "job $S's reason" sh -c "\"$BERTH\" why $S | grep -q 'Priority: job $B'"
"$BERTH" why "$S" >"$W/why" 2>&1
has "$W/why" "Priority: job $B ($ALICE_USER, 2 GPUs, pending) is ahead of it under policy fifo" "why names the job ahead of it"
"$BERTH" why "$B" >"$W/why" 2>&1
has "$W/why" "Resources: it is next under policy fifo and waits for 2 GPUs (1 idle" "why: the head waits for GPUs"
"$BERTH" queue --format id,reason,state >"$W/q" 2>&1
grep -qE "^ *$S Priority +pending" "$W/q" && grep -qE "^ *$B Resources +pending" "$W/q" &&
    ok "berth queue --format id,reason,state: Priority and Resources" || bad "format: $(cat "$W/q")"
"$BERTH" queue --me --format id >"$W/q" 2>&1
grep -qE "^ *$S$" "$W/q" && ok "berth queue --me lists the caller's jobs" || bad "--me: $(cat "$W/q")"
BERTH_TOKEN=$BOB "$BERTH" queue --me --format id >"$W/q" 2>&1
if [ "$MULTI" = 1 ]; then
    ! grep -qE "^ *$S$" "$W/q" && ok "another user's --me lists none of alice's" || bad "bob --me: $(cat "$W/q")"
else
    echo "SKIP --me across users (absent root: every token is one account)"
fi
one_error "queue --format nope" "berth queue: --format: unknown column 'nope'" -- "$BERTH" queue --format nope
api POST "/v1/jobs/$H/cancel" >/dev/null
wait_state "$S" completed && ok "the others run once the holder is gone"
stop_berthd

# ---- queues: a cohort, borrowing, reclaim with the checkpoint signal, QuotaExceeded --------
cat >"$W/queues" <<Q
queue a cohort=lab quota=2
queue b cohort=lab quota=2
queue solo quota=1
Q
rm -rf "$W/st"
start_berthd --gpus 1x4:v100 --policy fifo-skip --queues "$W/queues"
cat >"$W/borrow.sh" <<SH
trap 'echo "borrower \$BERTH_JOB_ID got USR1" >> $M; exit 0' USR1
while :; do sleep 0.05; done
SH
chmod 755 "$W/borrow.sh"
api POST /v1/jobs '{"argv":["sh","'"$W/borrow.sh"'"],"gpus":2,"queue":"b","checkpoint_signal":"SIGUSR1","grace_s":5}' >/dev/null; X1=$(jf id)
wait_state "$X1" running
api POST /v1/jobs '{"argv":["sh","'"$W/borrow.sh"'"],"gpus":2,"queue":"b","checkpoint_signal":"SIGUSR1","grace_s":5}' >/dev/null; X2=$(jf id)
wait_state "$X2" running && ok "queue b borrows queue a's idle quota"
api POST /v1/jobs '{"argv":["sh","-c","echo a ran >> '"$M"'"],"gpus":2,"queue":"a"}' >/dev/null; Y=$(jf id)
wait_state "$Y" completed && ok "queue a gets its quota back"
grep -q "borrower $X2 got USR1" "$M" && ok "the reclaim preempted b's youngest job with its checkpoint signal" || bad "no reclaim signal: $(cat "$M")"
! grep -q "borrower $X1 got USR1" "$M" && ok "b's older job kept running" || bad "the older job was preempted: $(cat "$M")"
api GET "/v1/jobs/$X2" >/dev/null
has "$W/body" "preempted by the fifo-skip policy" "history: the borrower was preempted"
for j in "$X1" "$X2"; do api POST "/v1/jobs/$j/cancel" "" "$ROOT" >/dev/null; done
wait_state "$X2" cancelled && wait_state "$X1" cancelled
api POST /v1/jobs '{"argv":["sleep","60"],"queue":"solo"}' >/dev/null; O1=$(jf id)
wait_state "$O1" running
api POST /v1/jobs '{"argv":["true"],"queue":"solo"}' >/dev/null; O2=$(jf id)
wait_for 20 "the second solo job's reason" sh -c "\"$BERTH\" why $O2 | grep -q QuotaExceeded"
"$BERTH" why "$O2" >"$W/why" 2>&1
has "$W/why" "QuotaExceeded: queue solo uses 1 of its quota of 1 v100 GPUs and has no cohort to borrow from" "why names the queue and its quota"
api GET "/v1/jobs/$O2" >/dev/null
[ "$(jf reason)" = QuotaExceeded ] && ok "its reason is QuotaExceeded" || bad "reason: $(jf reason)"
api POST /v1/jobs '{"argv":["true"],"queue":"nosuch"}' >/dev/null
[ "$(status)" = 400 ] && has "$W/body" "queue: 'nosuch' is not a queue of this cluster (a, b, solo)" "a queue the file lacks gets 400 naming the queues" || bad "unknown queue: $(status) $(cat "$W/body")"
for j in "$O1" "$O2"; do api POST "/v1/jobs/$j/cancel" "" "$ROOT" >/dev/null; done
stop_berthd
printf 'queue a quota=h100:1\n' >"$W/badq"
"$BERTHD" --tokens "$W/tokens" --port 0 --state-dir "$W/st2" --gpus 1x4:v100 --queues "$W/badq" >"$W/bq.log" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q "badq:1: quota: expected a GPU type of the cluster (v100)" "$W/bq.log" &&
    ok "a bad queues file stops berthd (exit 2) naming its line" || bad "bad queues: exit $rc: $(cat "$W/bq.log")"

# ---- EASY backfill live: a short job backfills, a long one waits for the reservation ------
rm -rf "$W/st"
start_berthd --gpus 1x2:v100 --policy backfill
api POST /v1/jobs '{"argv":["sleep","600"],"gpus":1,"time_limit_s":600}' >/dev/null; R=$(jf id)
wait_state "$R" running
api POST /v1/jobs '{"argv":["true"],"gpus":2,"time_limit_s":60}' >/dev/null; HEAD=$(jf id)
api POST /v1/jobs '{"argv":["sleep","600"],"gpus":1,"time_limit_s":900}' >/dev/null; LONG=$(jf id)
api POST /v1/jobs '{"argv":["sh","-c","echo short ran >> '"$M"'"],"gpus":1,"time_limit_s":5}' >/dev/null; SHORT=$(jf id)
wait_state "$SHORT" completed && ok "a job that ends before the reservation backfills"
api GET "/v1/jobs/$LONG" >/dev/null
[ "$(jf state)" = pending ] && ok "a job that would delay the reserved one waits" || bad "long: $(jf state)"
"$BERTH" why "$LONG" >"$W/why" 2>&1
has "$W/why" "Priority: backfill holds GPUs for job $HEAD" "why names the reserved job"
"$BERTH" why "$HEAD" >"$W/why" 2>&1
has "$W/why" "backfill reserves its GPUs in" "why says when the head's reservation falls"
for j in "$R" "$HEAD" "$LONG"; do api POST "/v1/jobs/$j/cancel" "" "$ROOT" >/dev/null; done
stop_berthd
finish
