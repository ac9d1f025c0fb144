#!/usr/bin/env bash
# berthd killed with SIGKILL in the middle of a workload and restarted: every accepted job
# is recovered, running jobs are re-adopted (not restarted), pending ones run once, a job
# whose supervisor died is requeued. Jobs write a marker at start; each must appear once.
# Usage: as berthd_api.sh.
set -u
. "$(dirname "$0")/cli_lib.sh"
. "$(dirname "$0")/lib_berthd.sh"

M=$W/markers
submit_n() { # submit_n N CODE: N jobs that write their marker, then run the shell CODE; prints the ids
    for _ in $(seq "$1"); do
        api POST /v1/jobs '{"argv":["sh","-c","echo $BERTH_JOB_ID >> '"$M"'; '"$2"'"]}' >/dev/null
        [ "$(status)" = 201 ] || { echo "submit failed: $(status)" >&2; return 1; }
        grep -o '"id":[0-9]*' "$W/body" | cut -d: -f2
    done
}
all_done() { # all_done IDS...: waits until every job completed
    for id in "$@"; do wait_state "$id" completed 60 || return 1; done
}

# the jobs run until $W/go exists: at the crash jobs 1 and 2 run (both started: marker, pid
# file) and 8 wait, whatever the machine's speed
start_berthd --gpus 1x2:a100
ids=$(submit_n 10 "until [ -e $W/go ]; do sleep 0.05; done")
started() { # started ID: the job runs, its marker is written and its shim's pid file too
    grep -qx "$1" "$M" 2>/dev/null && [ -s "$W/st/jobs/$1/a1.pid" ]
}
wait_state 1 running && wait_state 2 running &&
    wait_for 30 "jobs 1 and 2 to start (markers, pid files)" eval 'started 1 && started 2'
shim_runs() { pgrep -f -- "--shim $W/st/jobs/$1/a1.spec" >/dev/null; }
wait_for 30 "job 1's shim" shim_runs 1 && ok "job 1's shim runs"
stop_berthd KILL
ok "berthd killed with SIGKILL with 2 jobs running and 8 pending"
shim_runs 1 && ok "job 1's shim outlived berthd" || bad "job 1's shim died with berthd"
start_berthd --gpus 1x2:a100
grep -q "recovered 10 jobs from the journal: 2 re-adopted, 8 queued" "$W/berthd.log" && ok "recovery: 2 re-adopted, 8 queued" || bad "recovery: $(tail -2 "$W/berthd.log")"
touch "$W/go"
all_done $ids && ok "all 10 jobs completed after the restart"
api GET /v1/jobs/1 >/dev/null
has "$W/body" "re-adopted after a restart" "job 1 was re-adopted"

# a second crash right after a burst of submissions: every accepted job is on disk
ids2=$(submit_n 6 "sleep 0.3")
stop_berthd KILL
start_berthd --gpus 1x2:a100
all_done $ids2 && ok "the 6 jobs accepted just before the crash all completed"
sort -n "$M" | uniq -c | awk '$1 != 1 {bad=1} END {exit bad}' && ok "no job ran twice" || bad "markers: $(sort -n "$M" | uniq -c | tr '\n' ' ')"
[ "$(sort -u "$M" | wc -l)" = 16 ] && ok "16 jobs, 16 markers" || bad "$(sort -u "$M" | wc -l) distinct markers, want 16"
[ "$(wc -l <"$M")" = 16 ] && ok "16 markers in all" || bad "$(wc -l <"$M") markers"

# a job whose supervisor dies is requeued and resumes (BERTH_RESUME=1)
api POST /v1/jobs '{"argv":["sh","-c","echo resume=${BERTH_RESUME:-0} >> '"$W/lost"'; sleep 600"]}' >/dev/null
L=$(jf id)
wait_state "$L" running
wait_for 30 "job $L's pid file" test -s "$W/st/jobs/$L/a1.pid"
shim=$(pgrep -f -- "--shim $W/st/jobs/$L/a1.spec")
[ -n "$shim" ] && kill -KILL "$shim" || bad "no shim for job $L"
attempt_is() { api GET "/v1/jobs/$1" >/dev/null && [ "$(jf attempt)" = "$2" ]; }
wait_for 60 "job $L's second attempt" attempt_is "$L" 2 && ok "the job whose shim died was requeued and started again"
has "$W/body" "lost (its supervisor vanished): requeued" "history: lost, requeued"
lines_are() { [ "$(wc -l <"$1")" = "$2" ]; }
wait_for 30 "the second attempt's marker in $W/lost" lines_are "$W/lost" 2
grep -q "resume=1" "$W/lost" && ok "the requeued attempt has BERTH_RESUME=1" || bad "lost markers: $(cat "$W/lost")"
api POST "/v1/jobs/$L/cancel" >/dev/null
wait_state "$L" cancelled
stop_berthd

# a crash while a preempted job is still checkpointing: after the restart it is left to
# stop (SIGKILL at the end of its grace), the preempting job starts only then, and the
# preempted job resumes once. The grace (8 s) is long enough for the crash to come within
# it on a loaded machine; the slow job says it is ready once its TERM trap is set.
start_berthd --gpus 1x1:a100 --policy srtf --state-dir "$W/st2"
cat >"$W/slow.sh" <<SH
echo "slow resume=\${BERTH_RESUME:-0}" >> $W/m2
[ "\${BERTH_RESUME:-0}" = 1 ] && exit 0
trap 'echo "slow got TERM" >> $W/m2' TERM
echo ready > $W/slow.ready
while :; do sleep 0.05; done
SH
api POST /v1/jobs '{"argv":["sh","'"$W/slow.sh"'"],"est_s":1000,"grace_s":8}' >/dev/null
S=$(jf id)
wait_state "$S" running
wait_for 30 "the slow job to set its TERM trap" test -s "$W/slow.ready"
api POST /v1/jobs '{"argv":["sh","-c","echo fast >> '"$W/m2"'"],"est_s":1}' >/dev/null
F=$(jf id)
wait_for 30 "the slow job's checkpoint signal (srtf preempting it)" grep -q "slow got TERM" "$W/m2"
stop_berthd KILL
grep -q fast "$W/m2" && bad "the fast job ran before the crash: the grace was over: $(cat "$W/m2")" ||
    ok "berthd crashed within the slow job's grace period"
start_berthd --gpus 1x1:a100 --policy srtf --state-dir "$W/st2"
wait_state "$F" completed 60 && ok "the preempting job ran after the restart"
wait_state "$S" completed 60 && ok "the preempted job resumed after the restart"
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
