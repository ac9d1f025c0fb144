#!/usr/bin/env bash
# The Slurm layer (src/slurmapi) against a live mini cluster (tests/slurm/cluster.sh): every
# wrapper call, the job_submit.lua hold (sbatch jobs wait held; a user's release is refused),
# decision-to-running latency and the cost of reading 10,000 held jobs. Skips, saying why,
# where Slurm or libslurm is absent, unless BERTH_REQUIRE names slurm (make test-slurm and CI set it).
# Usage: bash tests/cli_slurm.sh PATH/TO/berth SRC_DIR SHARED_DIR
set -u
BERTH=${1:?usage: cli_slurm.sh BERTH SRC_DIR SHARED_DIR}
SRC=${2:?usage: cli_slurm.sh BERTH SRC_DIR SHARED_DIR}
. "$SRC/tests/cli_lib.sh"
API=$(dirname "$BERTH")/tests/slurm_api_test

. "$SRC/tests/slurm/require.sh"
slurm_require cli_slurm "$API"

export BERTH_SLURM_PORT=auto # five free ports below the ephemeral range
C=$W/cluster
chmod 0755 "$W" # munged runs as munge and the jobs as nobody: they must reach $C
trap 'bash "$SRC/tests/slurm/cluster.sh" down "$C" >/dev/null; rm -rf "$W"' EXIT
expect_rc 0 "cluster up" -- bash "$SRC/tests/slurm/cluster.sh" up "$C"
[ "$failn" = 0 ] || { cat "$W/out" "$W/err"; tail -20 "$C"/log/*.log; finish; exit 1; }
expect_rc 0 "cluster up again is a no-op" -- bash "$SRC/tests/slurm/cluster.sh" up "$C"
has "$W/out" "already up" "second up says already up"
export SLURM_CONF=$C/etc/slurm.conf
jobs=$C/jobs

# every wrapper call against the cluster (prints the latencies)
"$API" all "$jobs" && ok "slurm_api_test all" || bad "slurm_api_test all"

# held ID: the job waits held by job_submit.lua ($st: its state and reason)
held() {
    st=$(squeue -h -j "$1" -o '%T %r')
    [ "$st" = "PENDING JobHeldUser" ]
}
# state_is ID STATE FORMAT: the job's squeue state is STATE ($st: the fields of FORMAT)
state_is() {
    st=$(squeue -h -j "$1" -o "$3")
    [ "${st%% *}" = "$2" ]
}

# a plain sbatch job of another user waits held; his release is refused; berth places it
id=$(cd "$jobs" && runuser -u nobody -- sbatch --parsable -D "$jobs" -o /dev/null \
    --gres=gpu:1 --wrap 'sleep 600' 2>"$W/err")
if [ -n "$id" ]; then ok "sbatch as nobody: job $id"; else bad "sbatch as nobody: $(cat "$W/err")"; fi
wait_for 30 "sbatch job $id to show held" held "$id"
sleep 2 # a check that nothing happens: Slurm's scheduler gets 2 s to start it (it must not)
held "$id" && ok "sbatch job waits held" || bad "sbatch job: '$st'"
expect_rc 1 "user release refused by job_submit.lua" -- runuser -u nobody -- scontrol release "$id"
sleep 1.5 # the same: time for a release that got through to start the job
held "$id" && ok "still held after the user's release" || bad "after release: '$st'"
expect_rc 0 "berth places the sbatch job on n2" -- "$API" place "$id" n2 1 v100
wait_for 60 "sbatch job $id to run" state_is "$id" RUNNING '%T %N %u'
[ "$st" = "RUNNING n2 nobody" ] && ok "sbatch job runs on n2 as nobody" || bad "sbatch job: '$st'"

# a user's own requeue (like Slurm's after a node failure) leaves the job pending unheld,
# unseen by the lua hook: berth holds it again
sleep 4 # the scenario: a requeue past the first seconds of its run, not a wait
expect_rc 0 "user requeues his job" -- runuser -u nobody -- scontrol requeue "$id"
# (%Q: the integer priority, 0 when held; %p is normalised on 24.11, where 1 prints 2.3e-10)
wait_for 60 "requeued job $id to be pending" state_is "$id" PENDING '%T %Q'
case $st in "PENDING 0") bad "requeued job already held: '$st'" ;; PENDING*) ok "requeued job pending unheld" ;; *) bad "requeued job: '$st'" ;; esac
expect_rc 0 "berth holds it" -- "$API" hold "$id"
st=$(squeue -h -j "$id" -o '%T %r')
case $st in "PENDING JobHeld"*) ok "held again ($st)" ;; *) bad "after hold: '$st'" ;; esac
scancel "$id"

# a job asked with a GPU type keeps it: placing it with another is refused, clearly
id=$(cd "$jobs" && sbatch --parsable -o /dev/null --gres=gpu:a100:1 --wrap 'sleep 600')
expect_rc 1 "typed job placed with another type" -- "$API" place "$id" n1 1 v100
has "$W/err" "cannot change it to v100" "the refusal names the types"
wait_for 30 "the refused job $id to show held" held "$id"
[ "$st" = "PENDING JobHeldUser" ] && ok "refused job stays held" || bad "refused job: '$st'"
scancel "$id"

# an admin's job with the opt-out marker is left to Slurm
id=$(cd "$jobs" && sbatch --parsable -o /dev/null --wrap 'sleep 600 #BERTH: slurm-places-this')
wait_for 60 "opt-out job $id to run" state_is "$id" RUNNING '%T'
[ "$st" = RUNNING ] && ok "opt-out job started by Slurm" || bad "opt-out job: '$st'"
scancel "$id"

# the cost of reading many held jobs (10,000 in the plain build; fewer under ASan)
n=${BERTH_SLURM_BENCH_JOBS:-10000}
ldd "$API" 2>/dev/null | grep -q libasan && n=1000
"$API" bench "$jobs" "$n" && ok "bench: $n held jobs read back" || bad "bench $n"

expect_rc 0 "cluster down" -- bash "$SRC/tests/slurm/cluster.sh" down "$C"
expect_rc 1 "status after down" -- bash "$SRC/tests/slurm/cluster.sh" status "$C"
finish
