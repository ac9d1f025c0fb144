#!/usr/bin/env bash
# sbatch users' time limits and checkpoint signals under berth (issue 21), on the mini
# cluster: an adopted job's --time is berth's enforced time limit (state timeout), its
# #SBATCH --signal=B:SIG@SECS the checkpoint signal sent SECS before that end; without one
# SIGTERM at the limit and KillWait to go; a job submitted to berthd with a time limit and its
# own signal gives Slurm both (its --time and --signal back the limit up while berthd is
# away); a --signal given on sbatch's command line (cli_filter.lua) counts as one in the
# script. Slurm counts --time in whole minutes, so the plain case takes a minute; the others
# run alongside it. Skips, saying why, without Slurm or libslurm or root, unless
# BERTH_REQUIRE names slurm.
# Usage: bash tests/berthd_slurm_limits.sh BERTH SRC_DIR SHARED_DIR BERTHD
set -u
SRC=${2:?usage: berthd_slurm_limits.sh BERTH SRC SHARED BERTHD}
. "$SRC/tests/cli_lib.sh"
. "$SRC/tests/lib_berthd.sh"
. "$SRC/tests/slurm/require.sh"
slurm_require berthd_slurm_limits "$(dirname "$BERTH")/tests/slurm_api_test"

slurm_berthd_cluster

# a job that counts in steps of 0.2 s until a signal: SIG (its argument) saves and exits 0
cat >"$J/count.sh" <<'EOS'
n=0
trap 'echo "got $SIG at $n"; exit 0' "$SIG"
echo "start signal=${BERTH_CHECKPOINT_SIGNAL:-?} grace=${BERTH_GRACE_S:-?}"
while :; do sleep 0.2; n=$((n + 1)); done
EOS
start_berthd --executor slurm --policy fifo --slurm-partitions v100

# S: --time=1 with --signal=B:USR1@50: berth's limit is 10 s, then USR1, cancel 50 s later
printf '#!/bin/sh\n#SBATCH --time=1\n#SBATCH --signal=B:USR1@50 --gres=gpu:1\nSIG=USR1\n. %s\n' "$J/count.sh" >"$J/s.sh"
ss=$(cd "$J" && sbatch --parsable -p v100 -D "$J" -o "$J/s.out" "$J/s.sh")
# T: --time=1 alone: berth's limit is 60 s, then SIGTERM, KillWait (5 s) to go
tt=$(cd "$J" && sbatch --parsable -p v100 -D "$J" -o "$J/t.out" --time=1 --gres=gpu:1 --wrap "SIG=TERM; . $J/count.sh")
# C: --signal=B:USR2@30 on sbatch's command line (22.05's job record lacks it;
# contrib/slurm/cli_filter.lua keeps it in the comment): berth's limit 30 s, then USR2; its
# own comment is 100 bytes long (once, one such comment made berthd's every job read fail)
cc=$(cd "$J" && sbatch --parsable -p v100 -D "$J" -o "$J/c.out" --time=1 --signal=B:USR2@30 --gres=gpu:1 \
    --comment "$(printf 'c%.0s' $(seq 100))" --wrap "SIG=USR2; . $J/count.sh")
# B: a job of berthd's own, time limit 4 s, SIGUSR2 with a grace of 3 s
b=$(submit '{"argv":["sh","-c","SIG=USR2; . '"$J"'/count.sh"],"gpus":1,"gpu_type":"v100","time_limit_s":4,"checkpoint_signal":"SIGUSR2","grace_s":3,"cwd":"'"$J"'","name":"B"}')
wait_for 60 "berthd to adopt S ($ss), T ($tt) and C ($cc)" eval 'is_adopted "$ss" && is_adopted "$tt" && is_adopted "$cc"'
s=$(adopted "$ss")
t=$(adopted "$tt")
c=$(adopted "$cc")
[ "$(field "$c" time_limit_s)" = 30.0 ] && [ "$(field "$c" checkpoint_signal)" = SIGUSR2 ] &&
    [ "$(field "$c" grace_s)" = 30.0 ] && ok "C: sbatch --signal=B:USR2@30 (command line) is berth's limit 30 s, SIGUSR2, grace 30 s" ||
    bad "C: limit $(field "$c" time_limit_s), signal $(field "$c" checkpoint_signal), grace $(field "$c" grace_s)"
[ "$(field "$s" time_limit_s)" = 10.0 ] && [ "$(field "$s" checkpoint_signal)" = SIGUSR1 ] &&
    [ "$(field "$s" grace_s)" = 50.0 ] && ok "S: --time=1 --signal=B:USR1@50 is berth's limit 10 s, SIGUSR1, grace 50 s" ||
    bad "S: limit $(field "$s" time_limit_s), signal $(field "$s" checkpoint_signal), grace $(field "$s" grace_s)"
[ "$(field "$t" time_limit_s)" = 60.0 ] && [ "$(field "$t" checkpoint_signal)" = SIGTERM ] &&
    [ "$(field "$t" grace_s)" = 5.0 ] && ok "T: --time=1 is berth's limit 60 s, SIGTERM, KillWait's 5 s" ||
    bad "T: limit $(field "$t" time_limit_s), signal $(field "$t" checkpoint_signal), grace $(field "$t" grace_s)"
scontrol show job "$tt" | grep -q "TimeLimit=00:02:00" && ok "T's Slurm limit is a minute later: berth's comes first" ||
    bad "T: $(scontrol show job "$tt" | grep -o 'TimeLimit=[^ ]*')"
sb=$(field "$b" slurm_job)
scontrol show job "$sb" | grep -q "TimeLimit=00:02:00" && ok "B's Slurm job has a time limit backing berth's (4 s + 3 s + 1 min, in minutes)" ||
    bad "B: $(scontrol show job "$sb" | grep -o 'TimeLimit=[^ ]*')"

wait_for 60 "B to end" over "$b"
[ "$(field "$b" state)" = timeout ] && ok "B ends in timeout" || bad "B: $(field "$b" state)"
has "$(spool "$b" stdout.log)" "got USR2 at" "B got its own SIGUSR2 through Slurm at its limit"
notes "$b" | grep -q "SIGUSR2 sent through Slurm: cancelled in 3 s" && ok "B's history says so" ||
    bad "B: $(notes "$b" | tr '\n' '|')"

wait_for 60 "S to end" over "$s"
[ "$(field "$s" state)" = timeout ] && ok "S ends in timeout" || bad "S: $(field "$s" state)"
has "$J/s.out" "got USR1 at" "S got its --signal USR1 at berth's limit"
ran=$(field "$s" ran_s)
python3 -c 'import sys; sys.exit(not 10 <= float(sys.argv[1]) < 40)' "$ran" &&
    ok "S ran $ran s: stopped at 10 s, 50 s before its --time" || bad "S ran $ran s"
notes "$s" | grep -q "time limit of 10 s reached" && ok "S's history names the limit" ||
    bad "S: $(notes "$s" | tr '\n' '|')"

wait_for 60 "C to end" over "$c"
[ "$(field "$c" state)" = timeout ] && ok "C ends in timeout" || bad "C: $(field "$c" state)"
has "$J/c.out" "got USR2 at" "C got its command-line --signal USR2 at berth's limit"
wait_for 120 "T to end" over "$t"
[ "$(field "$t" state)" = timeout ] && ok "T ends in timeout" || bad "T: $(field "$t" state)"
has "$J/t.out" "got TERM at" "T got SIGTERM at its limit"
wait_for 30 "Slurm to end T" eval '[ -z "$(sq "$tt" %T)" ] || [ "$(sq "$tt" %T)" = CANCELLED ] || [ "$(sq "$tt" %T)" = COMPLETED ]'
stop_berthd
finish
