#!/usr/bin/env bash
# sbatch job arrays under berth (issue 21), on the mini cluster: `sbatch --array=0-5%2` is
# adopted as one berth array of six tasks (each a berth job bound to its own task's Slurm
# job, squeue shows them as ID_K); berth honours the %2 throttle (never more than two tasks
# running in berth's records, checked over the whole run, not at a sampled instant); berthd
# is SIGKILLed while tasks run and restarted, and every task still runs exactly once (each
# task's script appends its index to a file). Skips, saying why, without Slurm or libslurm
# or root, unless BERTH_REQUIRE names slurm.
# Usage: bash tests/berthd_slurm_array.sh BERTH SRC_DIR SHARED_DIR BERTHD
set -u
SRC=${2:?usage: berthd_slurm_array.sh BERTH SRC SHARED BERTHD}
. "$SRC/tests/cli_lib.sh"
. "$SRC/tests/lib_berthd.sh"
. "$SRC/tests/slurm/require.sh"
slurm_require berthd_slurm_array "$(dirname "$BERTH")/tests/slurm_api_test"

slurm_berthd_cluster

# tasks: "ID STATE ARRAY_ID ARRAY_TASK SLURM_JOB START_US END_US" of berth's array tasks
# (the test's one array, its jobs named task.sh), one a line, by task
tasks() {
    api GET "/v1/jobs?all=1" "" "$ROOT" >/dev/null
    python3 -c 'import json,sys
for j in sorted(json.load(open(sys.argv[1]))["jobs"], key=lambda j: j.get("array_task", -1)):
    if j.get("array_id") and j.get("name") == "task.sh":
        print(j["id"], j["state"], j["array_id"], j["array_task"], j.get("slurm_job", 0),
              j.get("start_us") or 0, j.get("end_us") or 0)' "$W/body" 2>/dev/null
}
ntasks() { tasks | wc -l; }
done_n() { tasks | awk '$2 == "completed"' | wc -l; }

# each task: its index into runs.log, then a few seconds of work
printf '#!/bin/sh\n#SBATCH --gres=gpu:1\necho "$SLURM_ARRAY_TASK_ID $SLURM_JOB_ID" >>%s/runs.log\nsleep 3\n' "$J" >"$J/task.sh"
chmod 755 "$J/task.sh"
start_berthd --executor slurm --policy fifo --slurm-partitions v100

A=$(cd "$J" && sbatch --parsable -p v100 -D "$J" -o /dev/null --array=0-5%2 "$J/task.sh")
wait_for 60 "berthd to adopt array $A's six tasks" eval '[ "$(ntasks)" = 6 ]'
tasks >"$W/t0"
[ "$(awk '{print $3}' "$W/t0" | sort -u | wc -l)" = 1 ] && ok "the six tasks are one berth array" ||
    bad "array ids: $(awk '{print $3}' "$W/t0" | tr '\n' ' ')"
[ "$(awk '{print $4}' "$W/t0" | tr '\n' ' ')" = "0 1 2 3 4 5 " ] && ok "berth's task indices are Slurm's" ||
    bad "indices: $(awk '{print $4}' "$W/t0" | tr '\n' ' ')"
api GET "/v1/jobs/$(head -1 "$W/t0" | cut -d' ' -f1)" "" "$ROOT" >/dev/null
[ "$(jf array_max)" = 2 ] && ok "its throttle is the %2" || bad "array_max $(jf array_max)"
# Slurm shows each task as a job of its own, A_K (scontrol: squeue drops ended ones)
sq_tasks=$(scontrol -o show job "$A" | grep -o 'ArrayTaskId=[0-9]*' | cut -d= -f2 | sort -n | tr '\n' ' ')
sq_ids=$(scontrol -o show job "$A" | grep -o '^JobId=[0-9]*' | sort -u | wc -l)
[ "$sq_tasks" = "0 1 2 3 4 5 " ] && [ "$sq_ids" = 6 ] && ok "Slurm shows six tasks of array $A, each its own job id" ||
    bad "scontrol: tasks $sq_tasks, $sq_ids job ids"
ids=$(awk '{print $5}' "$W/t0" | sort -u | wc -l)
[ "$ids" = 6 ] && ok "each task is bound to a Slurm job of its own" || bad "Slurm jobs: $(awk '{print $5}' "$W/t0" | tr '\n' ' ')"

# SIGKILL while tasks run (after the first two are done), then a restart
wait_for 120 "two tasks to complete" eval '[ "$(done_n)" -ge 2 ]'
stop_berthd KILL
start_berthd --executor slurm --policy fifo --slurm-partitions v100
wait_for 180 "all six tasks to complete" eval '[ "$(done_n)" = 6 ]'
tasks >"$W/t1"
[ "$(sort -n "$J/runs.log" | cut -d' ' -f1 | tr '\n' ' ')" = "0 1 2 3 4 5 " ] &&
    ok "every task ran exactly once across the SIGKILL" || bad "runs: $(tr '\n' ' ' <"$J/runs.log")"
# the throttle over the whole run: at no instant more than two tasks between start and end
most=$(awk '{print $6, 1; print $7, -1}' "$W/t1" | sort -n -k1,1 -k2,2n |
    awk '{n += $2; if (n > m) m = n} END {print m + 0}')
[ "$most" -le 2 ] && [ "$most" -ge 1 ] && ok "at most $most tasks ran at once in berth's records (throttle 2)" ||
    bad "$most tasks at once: $(cat "$W/t1")"
sacct_or=$(squeue -h -r -j "$A" -o '%i %T' 2>/dev/null | wc -l)
[ "$sacct_or" = 0 ] && ok "Slurm has no task of the array left" || bad "squeue: $(squeue -h -r -j "$A")"
stop_berthd
finish
