#!/usr/bin/env bash
# Job arrays and dependencies end to end (berthd and berth submit): --array with a throttle
# (BERTH_ARRAY_TASK_ID, at most N tasks in the scheduler, reason JobArrayTaskLimit), --after,
# --afterok, --afternotok, --afterany (reason Dependency; a dependency that can never be met
# ends the job failed, and its own dependents after it), --wait's exit status, bad input,
# and dependents that still wait across a crash of berthd. Usage: as berthd_api.sh.
set -u
. "$(dirname "$0")/cli_lib.sh"
. "$(dirname "$0")/lib_berthd.sh"
M=$W/markers
touch "$M"
chmod 666 "$M"
start_berthd --gpus 1x4:v100 --policy fifo-skip --max-array 50

# ---- an array of 6 tasks, at most 2 in the scheduler at once --------------------------
cat >"$W/task.sh" <<SH
echo "start \$BERTH_ARRAY_TASK_ID of \$BERTH_ARRAY_TASK_COUNT in \$BERTH_ARRAY_JOB_ID" >> $M
while [ ! -e $W/go ]; do sleep 0.05; done
echo "end \$BERTH_ARRAY_TASK_ID" >> $M
SH
chmod 755 "$W/task.sh"
"$BERTH" submit --array 0-5%2 --no-env -- sh "$W/task.sh" >"$W/out" 2>&1
grep -q "Submitted array job [0-9]* (6 tasks: jobs" "$W/out" && ok "berth submit --array: an array of 6 tasks" || bad "array submit: $(cat "$W/out")"
A=$(grep -oE 'array job [0-9]+' "$W/out" | grep -oE '[0-9]+')
wait_state "$A" running && wait_state "$((A + 1))" running && ok "the first two tasks run"
api GET "/v1/jobs/$((A + 2))" >/dev/null
[ "$(jf state)" = pending ] && [ "$(jf reason)" = JobArrayTaskLimit ] && ok "the third waits: JobArrayTaskLimit" || bad "third task: $(jf state) $(jf reason)"
"$BERTH" why "$((A + 3))" >"$W/why" 2>&1
has "$W/why" "JobArrayTaskLimit: 2 tasks of array $A are in the scheduler, its throttle (%2)" "why explains the throttle"
[ "$(grep -c '^start' "$M")" = 2 ] && ok "two tasks started, no more, though GPUs are idle" || bad "starts: $(cat "$M")"
touch "$W/go"
wait_state "$((A + 5))" completed 60 && ok "the last task completes"
for i in 0 1 2 3 4 5; do grep -q "^start $i of 6 in $A$" "$M" || bad "task $i's environment: $(cat "$M")"; done
ok "every task saw BERTH_ARRAY_TASK_ID, _COUNT and _JOB_ID"
python3 - "$M" <<'PY' && ok "never more than 2 tasks ran at once" || bad "the throttle was broken: $(cat "$M")"
import sys
run = peak = 0
for line in open(sys.argv[1]):
    if line.startswith("start"): run += 1; peak = max(peak, run)
    elif line.startswith("end"): run -= 1
sys.exit(0 if peak <= 2 else 1)
PY
api GET "/v1/jobs?array=$A&all=1" >/dev/null
[ "$(jf total)" = 6 ] && ok "the list's array filter: 6 tasks" || bad "array filter: $(cat "$W/body")"

# ---- dependencies: afterok, afternotok, afterany, after, and a cascade ------------------
rm -f "$W/go"
api POST /v1/jobs '{"argv":["sh","-c","while [ ! -e '"$W"'/go ]; do sleep 0.05; done"]}' >/dev/null; P=$(jf id)
wait_state "$P" running
"$BERTH" submit --afterok "$P" --no-env -- sh -c "echo ok ran >> $M" >"$W/out"; OK=$(grep -oE '[0-9]+' "$W/out")
"$BERTH" submit --afternotok "$P" --no-env -- true >"$W/out"; NOTOK=$(grep -oE '[0-9]+' "$W/out")
"$BERTH" submit --afterany "$P" --no-env -- true >"$W/out"; ANY=$(grep -oE '[0-9]+' "$W/out")
"$BERTH" submit --afterok "$NOTOK" --no-env -- true >"$W/out"; CASCADE=$(grep -oE '[0-9]+' "$W/out")
"$BERTH" submit --after "$P" --no-env -- true >"$W/out"; AFTER=$(grep -oE '[0-9]+' "$W/out")
wait_state "$AFTER" completed && ok "--after: it starts once the job has started"
api GET "/v1/jobs/$OK" >/dev/null
[ "$(jf state)" = pending ] && [ "$(jf reason)" = Dependency ] && ok "--afterok waits: Dependency" || bad "afterok: $(jf state) $(jf reason)"
"$BERTH" why "$OK" >"$W/why" 2>&1
has "$W/why" "Dependency: it waits for afterok:$P (job $P is running)" "why names the job it waits for"
touch "$W/go"
wait_state "$P" completed
wait_state "$OK" completed && ok "--afterok: it runs once the job completed"
wait_state "$ANY" completed && ok "--afterany: it runs once the job ended"
wait_state "$NOTOK" failed && ok "--afternotok on a completed job: failed"
api GET "/v1/jobs/$NOTOK" >/dev/null
[ "$(jf reason)" = DependencyNeverSatisfied ] && has "$W/body" "dependency never satisfied: afternotok:$P can never be met: job $P ended completed" "the reason names the dependency and the job" || bad "never: $(jf reason)"
wait_state "$CASCADE" failed && ok "a dependent of a job that failed that way fails too"
api POST /v1/jobs '{"argv":["true"],"afterok":['"$A"']}' >/dev/null; ARR=$(jf id)
wait_state "$ARR" completed && ok "afterok on an array's first id waits for every task (all completed)"

# ---- --wait: the job's exit status ------------------------------------------------------
"$BERTH" submit --wait --no-env -- sh -c 'exit 3' >/dev/null 2>&1
[ $? = 3 ] && ok "berth submit --wait exits with the job's status (3)" || bad "--wait: exit $?"
"$BERTH" submit --wait --no-env -- true >/dev/null 2>&1 && ok "--wait: 0 for a completed job" || bad "--wait true failed"
"$BERTH" submit --wait --array 1-3 --no-env -- sh -c 'exit $BERTH_ARRAY_TASK_ID' >/dev/null 2>&1
[ $? = 3 ] && ok "--wait on an array: the largest exit status (3)" || bad "--wait array: exit $?"
"$BERTH" submit --wait --time 1 --no-env -- sleep 30 >/dev/null 2>&1
[ $? = 124 ] && ok "--wait on a timed-out job: 124" || bad "--wait timeout: exit $?"

# ---- bad input: each is refused naming the field, nothing is submitted ---------------------
before=$(api GET "/v1/jobs?all=1" >/dev/null; jf total)
api POST /v1/jobs '{"argv":["true"],"array":"5-2"}' >/dev/null
[ "$(status)" = 400 ] && has "$W/body" "array: expected indices from 0 to" "an inverted range gets 400" || bad "5-2: $(status)"
api POST /v1/jobs '{"argv":["true"],"array":"0-99"}' >/dev/null
[ "$(status)" = 400 ] && has "$W/body" "array: 100 tasks, more than this berthd allows in one array (--max-array 50)" "an array over --max-array gets 400" || bad "max-array: $(status) $(cat "$W/body")"
api POST /v1/jobs '{"argv":["true"],"array":"1,1"}' >/dev/null
[ "$(status)" = 400 ] && has "$W/body" "array: index 1 given twice" "an index twice gets 400" || bad "1,1: $(status)"
api POST /v1/jobs '{"argv":["true"],"array":"0-3%0"}' >/dev/null
[ "$(status)" = 400 ] && has "$W/body" "array: expected sbatch's form" "a throttle of 0 gets 400" || bad "%0: $(status)"
api POST /v1/jobs '{"argv":["true"],"afterok":[999999]}' >/dev/null
[ "$(status)" = 400 ] && has "$W/body" "afterok: no such job 999999" "a dependency on no job gets 400" || bad "no such job: $(status)"
api POST /v1/jobs '{"argv":["true"],"afterany":"3"}' >/dev/null
[ "$(status)" = 400 ] && has "$W/body" "afterany: expected an array of job ids" "a dependency not an array gets 400" || bad "afterany string: $(status)"
deps=$(python3 -c 'print(",".join(str(1) for _ in range(65)))')
api POST /v1/jobs '{"argv":["true"],"after":['"$deps"']}' >/dev/null
[ "$(status)" = 400 ] && has "$W/body" "after: expected at most 64 dependencies" "more than 64 dependencies get 400" || bad "65 deps: $(status)"
one_error "submit --afterok x" "berth submit: --afterok: expected job ids ID[:ID...], found 'x'" -- "$BERTH" submit --afterok x -- true
after=$(api GET "/v1/jobs?all=1" >/dev/null; jf total)
[ "$before" = "$after" ] && ok "no refused submission left a job" || bad "jobs $before -> $after"

# ---- a crash: dependents still wait after it, and run when their dependency completes -----
rm -f "$W/go"
api POST /v1/jobs '{"argv":["sh","-c","while [ ! -e '"$W"'/go ]; do sleep 0.05; done"]}' >/dev/null; Q=$(jf id)
wait_state "$Q" running
api POST /v1/jobs '{"argv":["sh","-c","echo after crash ran >> '"$M"'"],"afterok":['"$Q"']}' >/dev/null; QD=$(jf id)
"$BERTH" submit --array 0-3%1 --afterany "$Q" --no-env -- true >"$W/out"; QA=$(grep -oE 'array job [0-9]+' "$W/out" | grep -oE '[0-9]+')
stop_berthd KILL
start_berthd --gpus 1x4:v100 --policy fifo-skip --max-array 50
api GET "/v1/jobs/$QD" >/dev/null
[ "$(jf state)" = pending ] && [ "$(jf reason)" = Dependency ] && ok "after a crash the dependent still waits" || bad "after crash: $(jf state) $(jf reason)"
touch "$W/go"
wait_state "$QD" completed && grep -q "after crash ran" "$M" && ok "and runs once its dependency completed"
wait_state "$((QA + 3))" completed && ok "the array that waited on it ran too, one task at a time"
stop_berthd
finish
