#!/usr/bin/env bash
# A job berth released onto a node that drains before Slurm starts it (issue 21): Slurm
# leaves it PENDING (ReqNodeNotAvail); berthd must hold it again, take the attempt back (no
# run counted) and place it elsewhere. Made deterministic on the mini cluster with
# --slurm-node-poll 3600: berthd read the nodes once at start, so a node drained afterwards
# is closed in its view only through the job Slurm cannot start (no race between the release
# and Slurm's start: the node is drained before the job is even submitted). The same for a
# node that enters a reservation (berth's jobs name none). Skips, saying why, without Slurm
# or libslurm or root, unless BERTH_REQUIRE names slurm.
# Usage: bash tests/berthd_slurm_unstarted.sh BERTH SRC_DIR SHARED_DIR BERTHD
set -u
SRC=${2:?usage: berthd_slurm_unstarted.sh BERTH SRC SHARED BERTHD}
. "$SRC/tests/cli_lib.sh"
. "$SRC/tests/lib_berthd.sh"
. "$SRC/tests/slurm/require.sh"
slurm_require berthd_slurm_unstarted "$(dirname "$BERTH")/tests/slurm_api_test"

slurm_berthd_cluster

noted() { notes "$1" | grep -q "$2"; }

start_berthd --executor slurm --policy fifo --slurm-partitions v100 --slurm-node-poll 3600
# F fills one V100 node (FN); the other (ON) is the only place left for U
f=$(submit '{"argv":["sh","-c","until [ -e '"$J"'/go.f ]; do sleep 0.1; done"],"gpus":4,"gpu_type":"v100","single_server":true,"cwd":"'"$J"'"}')
wait_state "$f" running
fn=$(notes "$f" | sed -n 's/.*released on \(n[12]\) .*/\1/p' | head -1)
[ -n "$fn" ] && ok "F holds all of $fn" || bad "F: $(notes "$f" | tr '\n' '|')"
[ "$fn" = n1 ] && on=n2 || on=n1
sf=$(field "$f" slurm_job)
wait_for 60 "Slurm to run F ($sf)" eval '[ "$(sq "$sf" %T)" = RUNNING ]'
# ON drains now: berthd read the nodes at its start and reads them again in an hour
scontrol update nodename="$on" state=drain reason=berth-unstarted-test
grep -q "slurm node $on is" "$W/berthd.log" && bad "berthd saw the drain of $on by its node poll"
cat >"$J/u.sh" <<'EOS'
#!/bin/sh
echo "ran attempt=${BERTH_ATTEMPT:-?} resume=${BERTH_RESUME:-0} on $(scontrol show job "$SLURM_JOB_ID" | sed -n 's/^ *NodeList=\(n[0-9]\).*/\1/p')" >>"$1"
EOS
chmod +x "$J/u.sh"
u=$(submit '{"argv":["'"$J"'/u.sh","'"$J"'/u.out"],"gpus":2,"gpu_type":"v100","single_server":true,"cwd":"'"$J"'","name":"U"}')
wait_for 60 "berth to release U on $on" noted "$u" "released on $on "
su=$(field "$u" slurm_job)
wait_for 60 "berthd to take U's attempt back" noted "$u" "never started" &&
    ok "berthd takes back the attempt Slurm could not start on the drained $on"
noted "$u" "and node $on is closed: held again" && ok "U's history says why: $on is closed" ||
    bad "U: $(notes "$u" | tr '\n' '|')"
grep -q "slurm node $on is .*nothing new is placed there" "$W/berthd.log" && ok "berthd read the nodes at once and closed $on" ||
    bad "berthd log: $(grep "slurm node" "$W/berthd.log" | tr '\n' '|')"
[ "$(field "$u" state)" = pending ] && ok "U is pending again (F holds $fn, $on is closed)" ||
    bad "U: $(field "$u" state)"
[ "$(field "$u" attempt)" = 0 ] && [ "$(field "$u" ran_s)" = 0.0 ] && ok "the attempt that never started is not counted (attempt 0, ran 0 s)" ||
    bad "U's attempt: $(field "$u" attempt)"
[ "$(sq "$su" %T)" = PENDING ] && [ "$(sq "$su" %Q)" = 0 ] && ok "U's Slurm job $su is held again ($(sq "$su" %r))" ||
    bad "Slurm job $su: $(sq "$su" '%T %Q %r')"
[ ! -e "$J/u.out" ] && ok "U has not run"
touch "$J/go.f"
wait_state "$u" completed
[ "$(field "$u" slurm_job)" = "$su" ] && ok "U kept its Slurm job $su (placed again, not resubmitted)" ||
    bad "U's Slurm job: $(field "$u" slurm_job)"
noted "$u" "released on $fn " && ok "U placed again on $fn once F ended" || bad "U: $(notes "$u" | tr '\n' '|')"
has "$J/u.out" "ran attempt=1 resume=0 on $fn" "U ran once, as its first attempt, on $fn"
[ "$(wc -l <"$J/u.out")" = 1 ] || bad "U ran $(wc -l <"$J/u.out") times"
[ "$(field "$u" attempt)" = 1 ] && ok "U's one attempt is counted" || bad "attempt $(field "$u" attempt)"
scontrol update nodename="$on" state=resume

# R: a reservation berth does not know of (its jobs name none) starts on $fn, still open in
# berthd's view; $on is back in Slurm, still closed in berthd's (no node poll for an hour).
# V, placed on $fn, waits "ReqNodeNotAvail, May be reserved for other job": berthd reads the
# nodes at once, closes the reserved $fn, opens $on, holds V again and places it on $on.
scontrol create reservation reservationname=berth-r nodes="$fn" users=nobody starttime=now \
    duration=30 flags=ignore_jobs >/dev/null
v=$(submit '{"argv":["'"$J"'/u.sh","'"$J"'/v.out"],"gpus":2,"gpu_type":"v100","single_server":true,"cwd":"'"$J"'","name":"V"}')
wait_state "$v" completed 120
noted "$v" "released on $fn " && noted "$v" "and node $fn is closed: held again" &&
    ok "V, placed on the reserved $fn, is held again" || bad "V: $(notes "$v" | tr '\n' '|')"
grep -q "slurm node $fn is .*RESERVED.*nothing new is placed there" "$W/berthd.log" &&
    ok "berthd closes a node in a reservation" || bad "berthd log: $(grep "slurm node" "$W/berthd.log" | tr '\n' '|')"
has "$J/v.out" "ran attempt=1 resume=0 on $on" "V ran once, as its first attempt, on $on"
scontrol delete reservationname=berth-r
stop_berthd
finish
