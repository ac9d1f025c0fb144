#!/usr/bin/env bash
# docs/slurm.md's operator's runbook, step by step, on a live mini cluster
# (tests/slurm/cluster.sh, which this test first strips of berth's hook): install the hook,
# scope berth to partition v100, watch, fail over (berthd stopped, jobs released to Slurm),
# roll back (the hook removed: Slurm alone). Skips, saying why, without Slurm or libslurm or
# root, unless BERTH_REQUIRE names slurm.
# Usage: bash tests/berthd_slurm_runbook.sh BERTH SRC_DIR SHARED_DIR BERTHD
set -u
SRC=${2:?usage: berthd_slurm_runbook.sh BERTH SRC SHARED BERTHD}
. "$SRC/tests/cli_lib.sh"
. "$SRC/tests/lib_berthd.sh"
. "$SRC/tests/slurm/require.sh"
slurm_require berthd_slurm_runbook "$(dirname "$BERTH")/tests/slurm_api_test"

slurm_berthd_cluster
E=$C/etc
sb() { (cd "$J" && sbatch --parsable -D "$J" -o /dev/null "$@"); }
running() { [ "$(sq "$1" %T)" = RUNNING ]; }
held() { [ "$(sq "$1" %r)" = JobHeldUser ]; }
gone() { [ -z "$(sq "$1" %T)" ]; }
# the cluster as a site has it before berth: no job_submit or cli_filter plugin
sed -i '/^JobSubmitPlugins=/d; /^CliFilterPlugins=/d' "$E/slurm.conf"
rm -f "$E/job_submit.lua" "$E/cli_filter.lua" "$E/berth_admin_uids.txt"
scontrol reconfigure
j0=$(sb -p v100 --gres=gpu:1 --wrap true)
wait_for 60 "a job to run under Slurm alone" gone "$j0" && ok "before berth: Slurm runs jobs itself"

# 1. Install: the hooks and the admin uids beside slurm.conf, JobSubmitPlugins=lua and
# CliFilterPlugins=lua, reconfigure
cp "$SRC/contrib/slurm/job_submit.lua" "$E/job_submit.lua"
cp "$SRC/contrib/slurm/cli_filter.lua" "$E/cli_filter.lua"
id -u >"$E/berth_admin_uids.txt"
printf 'JobSubmitPlugins=lua\nCliFilterPlugins=lua\n' >>"$E/slurm.conf"
scontrol reconfigure
j1=$(sb -p v100 --gres=gpu:1 --wrap true)
wait_for 30 "the hook to hold a job (no berth_scope yet: every job)" held "$j1" &&
    ok "installed: with no berthd yet, the hook holds every new job"

# 2. Scope one partition
start_berthd --executor slurm --slurm-partitions v100 --slurm-failsafe 3
has "$E/berth_scope" "partitions v100" "berth_scope names the scope"
j2=$(sb -p a100 --gres=gpu:1 --wrap true)
wait_for 60 "the a100 job to run under Slurm" gone "$j2" && ok "a job of another partition is Slurm's"
wait_for 60 "berth to run the held v100 job" gone "$j1" && ok "berthd adopts and runs the job held before it started"

# 3. Watch
j3=$(sb -p v100 --gres=gpu:2 --wrap "until [ -e $J/go3 ]; do sleep 0.1; done")
wait_for 60 "berth to place it" running "$j3"
"$BERTH" queue >"$W/queue" 2>&1
grep -q " wrap " "$W/queue" && ok "berth queue lists the sbatch job" || bad "queue: $(cat "$W/queue")"
"$BERTH" nodes >"$W/nodes" 2>&1
grep -q "^n1 \|^n2 " "$W/nodes" && ok "berth nodes shows the partition's nodes" || bad "nodes: $(cat "$W/nodes")"
scontrol show job "$j3" | grep "AdminComment=berth job .*placed by berth on n[12]" >/dev/null &&
    ok "scontrol show job (sacct -o AdminComment) shows berth's decision" || bad "no admin comment"
touch "$J/go3"

# 4. Fail over: berthd stops; once its heartbeat is stale the hook holds nothing; release
wait_for 60 "j3 to end" gone "$j3"
j5=$(sb -p v100 --gres=gpu:2 --wrap "until [ -e $J/go5 ]; do sleep 0.1; done")
wait_for 60 "berth to place j5" running "$j5" || echo "$(tail -20 "$W/berthd.log")"
j4=$(sb -p v100 -N 2 --gres=gpu:4 --wrap true) # all 8 V100: waits while j5 runs, held
wait_for 30 "j4 to be held" held "$j4"
stop_berthd
stale() { python3 -c 'import sys,time
b=[int(l.split()[1]) for l in open(sys.argv[1]) if l.startswith("heartbeat ")]
sys.exit(0 if b and time.time() - b[0] > 4 else 1)' "$E/berth_scope"; }
wait_for 30 "the heartbeat to go stale" stale && ok "berthd stopped: its heartbeat goes stale"
bash "$SRC/contrib/slurm/berth-release-held" v100 >"$W/rel" 2>&1
has "$W/rel" "released 1 jobs" "berth-release-held v100 releases the held job"
j6=$(sb -p v100 --gres=gpu:1 --wrap true)
held "$j6" && bad "a new job is held while berthd is down" || ok "a new job is not held while berthd is down"
touch "$J/go5"
# (sched/builtin starts in priority order: j6 may wait behind the released j4's 8 GPUs)
wait_for 60 "the released and the new job to run under Slurm" eval 'gone "$j4" && gone "$j6"' &&
    ok "both ran under Slurm"

# 5. Roll back: lua out of JobSubmitPlugins and CliFilterPlugins, reconfigure, the files removed
sed -i '/^JobSubmitPlugins=/d; /^CliFilterPlugins=/d' "$E/slurm.conf"
scontrol reconfigure
rm -f "$E/job_submit.lua" "$E/cli_filter.lua" "$E/berth_scope" "$E/berth_admin_uids.txt"
j7=$(sb -p v100 --gres=gpu:1 --wrap true)
wait_for 60 "a job to run with the hook removed" gone "$j7" && ok "rolled back: Slurm alone runs jobs"
finish
