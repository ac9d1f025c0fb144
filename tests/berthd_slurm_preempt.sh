#!/usr/bin/env bash
# Preempting an adopted sbatch job with its own --signal (issue 21), on the mini cluster: P,
# submitted with `sbatch --signal=B:USR1@6` on the command line, is preempted by berth (las,
# quantum 3 s, for Q): berth sends P's SIGUSR1 through Slurm, not Slurm's SIGTERM and
# KillWait; P saves its count and exits; berth requeues the ended Slurm job held (the same
# Slurm job, Restarts=1) and places it again once Q is done; P resumes from its count and
# completes. Skips, saying why, without Slurm or libslurm or root, unless BERTH_REQUIRE names
# slurm.
# Usage: bash tests/berthd_slurm_preempt.sh BERTH SRC_DIR SHARED_DIR BERTHD
set -u
SRC=${2:?usage: berthd_slurm_preempt.sh BERTH SRC SHARED BERTHD}
. "$SRC/tests/cli_lib.sh"
. "$SRC/tests/lib_berthd.sh"
. "$SRC/tests/slurm/require.sh"
slurm_require berthd_slurm_preempt "$(dirname "$BERTH")/tests/slurm_api_test"

slurm_berthd_cluster

# counts to $1 in steps of 0.2 s, keeping the count in $2; SIGUSR1 saves and exits 0, and a
# restart (Slurm's restart count) resumes from the saved count
cat >"$J/usr1.sh" <<'EOS'
n=0
[ "${SLURM_RESTART_COUNT:-0}" -gt 0 ] && n=$(cat "$2")
echo "start restart=${SLURM_RESTART_COUNT:-0} from=$n"
trap 'echo "$n" >"$2"; echo "USR1 checkpoint at $n"; exit 0' USR1
trap 'echo "TERM at $n"; exit 1' TERM
while [ "$n" -lt "$1" ]; do sleep 0.2; n=$((n + 1)); done
echo "done at $n"
EOS
start_berthd --executor slurm --policy las --quantum 3 --slurm-partitions v100
ps=$(cd "$J" && sbatch --parsable -p v100 -D "$J" -o "$J/p.out" --open-mode=append -N 2 --gres=gpu:4 \
    --signal=B:USR1@6 --wrap "exec sh $J/usr1.sh 40 $J/p.ck")
wait_for 60 "berthd to adopt P ($ps)" is_adopted "$ps"
p=$(adopted "$ps")
[ "$(field "$p" checkpoint_signal)" = SIGUSR1 ] && [ "$(field "$p" grace_s)" = 6.0 ] &&
    ok "P's checkpoint signal is its --signal: SIGUSR1, 6 s" ||
    bad "P: $(field "$p" checkpoint_signal) $(field "$p" grace_s)"
wait_for 60 "P to run" eval 'grep -q "start restart=0" "$J/p.out" 2>/dev/null'
# Q (all 8 V100) preempts P once P has had its 3-s quantum
q=$(submit '{"argv":["sleep","1"],"gpus":8,"gpu_type":"v100","cwd":"'"$J"'","name":"Q"}')
wait_for 120 "P to end" over "$p"
wait_for 60 "Q to end" over "$q"
has "$J/p.out" "USR1 checkpoint at" "P got its own SIGUSR1 through Slurm at the preemption"
grep -q "TERM at" "$J/p.out" && bad "P got SIGTERM: $(tr '\n' '|' <"$J/p.out")" || ok "P never got Slurm's SIGTERM"
has "$J/p.out" "start restart=1 from=" "P's next run resumed (the same Slurm job, requeued)"
has "$J/p.out" "done at 40" "P counted to the end"
notes "$p" | grep -q "SIGUSR1 sent through Slurm: requeued in 6 s" && ok "P's history names its signal and lead" ||
    bad "P: $(notes "$p" | tr '\n' '|')"
notes "$p" | grep -q "Slurm job $ps requeued held after its checkpoint exit" &&
    ok "berth requeued P's ended Slurm job held" || bad "P: $(notes "$p" | tr '\n' '|')"
[ "$(field "$p" state)" = completed ] && [ "$(field "$q" state)" = completed ] && ok "P and Q completed" ||
    bad "P $(field "$p" state), Q $(field "$q" state)"
scontrol show job "$ps" | grep -q "Restarts=1 " && ok "Slurm shows P's one restart" ||
    bad "P in Slurm: $(scontrol show job "$ps" | grep -o 'Restarts=[0-9]*')"
stop_berthd
finish
