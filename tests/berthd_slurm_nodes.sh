#!/usr/bin/env bash
# A Slurm node that joins berth's partitions while berthd runs is scheduled (issue 21): n2 is
# out of Slurm's node list (state FUTURE) when berthd starts, so berth's inventory is n1
# alone; A holds n1's 4 V100 and B (4 V100) waits. When n2 comes back (resume), berthd sees a
# node of its partition it lacks at its next node poll and runs itself again: the same
# process and port (its listening socket handed over), A re-adopted on n1 in the same
# attempt, B placed on n2, each run once. Skips, saying why, without Slurm or libslurm or
# root, unless BERTH_REQUIRE names slurm.
# Usage: bash tests/berthd_slurm_nodes.sh BERTH SRC_DIR SHARED_DIR BERTHD
set -u
BERTH=${1:?usage: berthd_slurm_nodes.sh BERTH SRC SHARED BERTHD}
SRC=${2:?usage: berthd_slurm_nodes.sh BERTH SRC SHARED BERTHD}
. "$SRC/tests/cli_lib.sh"
. "$SRC/tests/lib_berthd.sh"
. "$SRC/tests/slurm/require.sh"
slurm_require berthd_slurm_nodes "$(dirname "$BERTH")/tests/slurm_api_test"

slurm_berthd_cluster

gone() { ! scontrol show node n2 >/dev/null 2>&1; }
scontrol update nodename=n2 state=future
wait_for 30 "n2 to leave Slurm's node list" gone && ok "n2 is out of Slurm's node list"
start_berthd --executor slurm --policy fifo --slurm-partitions v100 --slurm-node-poll 1
has "$W/berthd.log" "slurm executor: 1 nodes of partitions v100" "berthd starts with n1 alone"
port=$(cat "$W/port")
pid=$BPID

a=$(submit '{"argv":["sh","-c","echo once >>'"$J"'/a.count; until [ -e '"$J"'/go ]; do sleep 0.1; done"],"gpus":4,"gpu_type":"v100","cwd":"'"$J"'"}')
wait_state "$a" running
b=$(submit '{"argv":["sh","-c","echo once >>'"$J"'/b.count; until [ -e '"$J"'/go ]; do sleep 0.1; done"],"gpus":4,"gpu_type":"v100","cwd":"'"$J"'"}')
wait_for 30 "B to be held in Slurm" eval 'notes "$b" | grep -q "held in Slurm"'
[ "$(state_of "$b")" = pending ] && ok "B waits: n1 is A's" || bad "b: $(state_of "$b")"

scontrol update nodename=n2 state=resume
wait_for 60 "berthd to see n2 join" grep -q "slurm node n2 joined partitions v100" "$W/berthd.log" &&
    ok "berthd sees n2 join partition v100 at its node poll"
wait_for 60 "berthd to serve again" grep -q "stopped to run itself again" "$W/berthd.log"
wait_state "$b" running 60
notes "$b" | grep "released on n2 " >/dev/null && ok "B runs on n2" ||
    bad "b: $(notes "$b" | tail -3 | tr '\n' '|')"
[ "$(grep -c 'serving http' "$W/berthd.log")" = 2 ] && ok "berthd ran itself again once" ||
    bad "serving lines: $(grep -c 'serving http' "$W/berthd.log")"
kill -0 "$pid" 2>/dev/null && [ "$(cat "$W/port")" = "$port" ] &&
    ok "the same process and port ($port) serve after the restart" ||
    bad "pid $pid alive? port $(cat "$W/port") (was $port)"
api GET /v1/nodes "" >/dev/null
grep -q '"n2"' "$W/body" && ok "GET /v1/nodes lists n2" || bad "nodes: $(head -c 300 "$W/body")"
[ "$(state_of "$a")" = running ] && [ "$(field "$a" attempt)" = 1 ] &&
    notes "$a" | grep "re-adopted after a restart" >/dev/null &&
    ok "A goes on in its first attempt, re-adopted on n1" ||
    bad "a: $(state_of "$a") attempt $(field "$a" attempt): $(notes "$a" | tail -2 | tr '\n' '|')"

touch "$J/go"
wait_final "$a"
wait_final "$b"
[ "$(state_of "$a")" = completed ] && [ "$(state_of "$b")" = completed ] &&
    ok "both complete" || bad "a $(state_of "$a"), b $(state_of "$b")"
[ "$(cat "$J/a.count")" = once ] && [ "$(cat "$J/b.count")" = once ] && ok "each ran once" ||
    bad "runs: $(cat "$J/a.count" "$J/b.count" | tr '\n' ' ')"
stop_berthd
finish
