#!/usr/bin/env bash
# berthd killed with SIGKILL in the middle of a workload and restarted: every accepted job
# is recovered, running jobs are re-adopted (not restarted), pending ones run once, a job
# whose supervisor died is requeued. Jobs write a marker at start; each must appear once.
# Usage: as berthd_api.sh.
set -u
. "$(dirname "$0")/cli_lib.sh"
. "$(dirname "$0")/lib_berthd.sh"

M=$W/markers
submit_n() { # submit_n N SLEEP: prints the ids
    for _ in $(seq "$1"); do
        api POST /v1/jobs '{"argv":["sh","-c","echo $BERTH_JOB_ID >> '"$M"'; sleep '"$2"'"]}' >/dev/null
        [ "$(status)" = 201 ] || { echo "submit failed: $(status)" >&2; return 1; }
        grep -o '"id":[0-9]*' "$W/body" | cut -d: -f2
    done
}
all_done() { # all_done IDS...: waits until every job completed
    for id in "$@"; do wait_state "$id" completed 60 || return 1; done
}

start_berthd --gpus 1x2:a100
ids=$(submit_n 10 2.5)
sleep 1
pgrep -f -- "--shim $W/st/jobs/1/a1.spec" >/dev/null && ok "job 1's shim runs" || bad "no shim for job 1"
stop_berthd KILL
ok "berthd killed with SIGKILL with 2 jobs running and 8 pending"
pgrep -f -- "--shim $W/st/jobs/1/a1.spec" >/dev/null && ok "job 1's shim outlived berthd" || bad "job 1's shim died with berthd"
start_berthd --gpus 1x2:a100
grep -q "recovered 10 jobs from the journal: 2 re-adopted, 8 queued" "$W/berthd.log" && ok "recovery: 2 re-adopted, 8 queued" || bad "recovery: $(tail -2 "$W/berthd.log")"
all_done $ids && ok "all 10 jobs completed after the restart"
api GET /v1/jobs/1 >/dev/null
has "$W/body" "re-adopted after a restart" "job 1 was re-adopted"

# a second crash right after a burst of submissions: every accepted job is on disk
ids2=$(submit_n 6 0.3)
stop_berthd KILL
start_berthd --gpus 1x2:a100
all_done $ids2 && ok "the 6 jobs accepted just before the crash all completed"
sort -n "$M" | uniq -c | awk '$1 != 1 {bad=1} END {exit bad}' && ok "no job ran twice" || bad "markers: $(sort -n "$M" | uniq -c | tr '\n' ' ')"
[ "$(sort -u "$M" | wc -l)" = 16 ] && ok "16 jobs, 16 markers" || bad "$(sort -u "$M" | wc -l) distinct markers, want 16"
[ "$(wc -l <"$M")" = 16 ] && ok "16 markers in all" || bad "$(wc -l <"$M") markers"

# a job whose supervisor dies is requeued and resumes (BERTH_RESUME=1)
api POST /v1/jobs '{"argv":["sh","-c","echo resume=${BERTH_RESUME:-0} >> '"$W/lost"'; sleep 30"]}' >/dev/null
L=$(jf id)
wait_state "$L" running
for _ in $(seq 100); do [ -s "$W/st/jobs/$L/a1.pid" ] && break; sleep 0.05; done
shim=$(pgrep -f -- "--shim $W/st/jobs/$L/a1.spec")
kill -KILL "$shim"
for _ in $(seq 200); do api GET "/v1/jobs/$L" >/dev/null; [ "$(jf attempt)" = 2 ] && break; sleep 0.05; done
[ "$(jf attempt)" = 2 ] && ok "the job whose shim died was requeued and started again" || bad "lost shim: $(cat "$W/body")"
has "$W/body" "lost (its supervisor vanished): requeued" "history: lost, requeued"
for _ in $(seq 100); do [ "$(wc -l <"$W/lost")" = 2 ] && break; sleep 0.05; done
grep -q "resume=1" "$W/lost" && ok "the requeued attempt has BERTH_RESUME=1" || bad "lost markers: $(cat "$W/lost")"
api POST "/v1/jobs/$L/cancel" >/dev/null
wait_state "$L" cancelled
stop_berthd

# a crash while a preempted job is still checkpointing: after the restart it is left to
# stop (SIGKILL at the end of its grace), the preempting job starts only then, and the
# preempted job resumes once
start_berthd --gpus 1x1:a100 --policy srtf --state-dir "$W/st2"
cat >"$W/slow.sh" <<SH
echo "slow resume=\${BERTH_RESUME:-0}" >> $W/m2
[ "\${BERTH_RESUME:-0}" = 1 ] && exit 0
trap 'echo "slow got TERM" >> $W/m2' TERM
while :; do sleep 0.05; done
SH
api POST /v1/jobs '{"argv":["sh","'"$W/slow.sh"'"],"est_s":1000,"grace_s":3}' >/dev/null
S=$(jf id)
wait_state "$S" running
for _ in $(seq 100); do [ -s "$W/m2" ] && break; sleep 0.05; done
api POST /v1/jobs '{"argv":["sh","-c","echo fast >> '"$W/m2"'"],"est_s":1}' >/dev/null
F=$(jf id)
for _ in $(seq 100); do grep -q "slow got TERM" "$W/m2" 2>/dev/null && break; sleep 0.05; done
stop_berthd KILL
start_berthd --gpus 1x1:a100 --policy srtf --state-dir "$W/st2"
wait_state "$F" completed 30 && ok "the preempting job ran after the restart"
wait_state "$S" completed 30 && ok "the preempted job resumed after the restart"
[ "$(grep -c fast "$W/m2")" = 1 ] && [ "$(grep -c 'slow resume=1' "$W/m2")" = 1 ] \
    && [ "$(grep -c 'slow resume=0' "$W/m2")" = 1 ] && ok "each ran once per attempt" || bad "markers: $(cat "$W/m2")"
order=$(tr '\n' ' ' <"$W/m2")
case "$order" in
*"got TERM"*"fast"*"resume=1"*) ok "order: signal, crash, the fast job after the slow one died, the resume" ;;
*) bad "order: $order" ;;
esac
api GET "/v1/jobs/$S" >/dev/null
has "$W/body" "grace period over: SIGKILL sent" "the slow job was SIGKILLed after its grace, across the restart"
for f in "$W"/st2/jobs/*/a*.pid; do [ -f "$f" ] && kill -KILL -"$(cut -d' ' -f1 "$f")" 2>/dev/null; done
stop_berthd
finish
