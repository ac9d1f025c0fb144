#!/usr/bin/env bash
# SpeCon live (issue 17): berthd under specon reads each job's metric from what the job
# reports (its progress file), and moves the slow-growing job off the congested server. Two
# servers of one GPU each, spread placement: F (half a GPU) and S (0.4) share the first, J2
# (half) has the second. F reports a metric that grows 10 points a second, S a flat one.
# Once J2 ends, the first server is 90 % busy and the second idle: at the next window
# (window=1 s) S — the slow-growing one — is checkpointed and restarted on the second
# server. Without the reports, by the progress curves alone, F would go: it started first,
# so it is further along the same curve and grows slower. Usage: as berthd_api.sh.
set -u
. "$(dirname "$0")/cli_lib.sh"
. "$(dirname "$0")/lib_berthd.sh"

servers_of() { # servers_of ID: the server names of a running job's GPUs
    api GET "/v1/jobs/$1" >/dev/null
    python3 -c 'import json,sys; print(" ".join(sorted({a["server"] for a in json.load(open(sys.argv[1]))["allocation"]})))' "$W/body"
}
# a job that reports its metric: flat (slope 0) or growing (slope 10 per second)
cat >"$W/job.sh" <<'SH'
#!/bin/sh
trap 'exit 0' TERM
slope=$1 step=0
while [ ! -e "$2" ]; do
    step=$((step + 1))
    echo "{\"step\": $step, \"metric\": $((step * slope / 5))}" >>"$BERTH_PROGRESS_FILE"
    sleep 0.2
done
SH
chmod 755 "$W/job.sh"
start_berthd --gpus 2x1:v100 --policy specon --policy-arg window=1
sub() { # sub SHARE SLOPE STOPFILE
    api POST /v1/jobs '{"argv":["'"$W"'/job.sh","'"$2"'","'"$3"'"],"gpus":1,"gpu_share":'"$1"',"est_s":100000,"grace_s":5,"cwd":"/"}' >/dev/null
    jf id
}
F=$(sub 0.5 10 "$W/stopF")
wait_state "$F" running
J2=$(sub 0.5 0 "$W/stop2")
wait_state "$J2" running
S=$(sub 0.4 0 "$W/stopS")
wait_state "$S" running
sf=$(servers_of "$F") s2=$(servers_of "$J2") ss=$(servers_of "$S")
[ "$sf" = "$ss" ] && [ "$sf" != "$s2" ] && ok "spread: F and S share $sf, J2 has $s2" ||
    bad "placements: F $sf, J2 $s2, S $ss"
grep -q '"gpu_share":0.4,' "$W/body" && ok "the API writes the share as given (0.4)" ||
    bad "share: $(grep -o '"gpu_share":[^,]*' "$W/body")"
touch "$W/stop2"
wait_state "$J2" completed
wait_for 60 "S to move to $s2" sh -c "[ \"\$(curl -s -H 'Authorization: Bearer $ALICE' $URL/v1/jobs/$S | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d[\"state\"], d.get(\"attempt\"), \" \".join(sorted({a[\"server\"] for a in d[\"allocation\"]})))')\" = \"running 2 $s2\" ]"
api GET "/v1/jobs/$S" >/dev/null
has "$W/body" "migrated to $s2" "S, flat, was migrated by specon (its history says so)"
[ "$(servers_of "$F")" = "$sf" ] && ok "F, growing fast, stays on $sf" || bad "F moved: $(servers_of "$F")"
api GET "/v1/jobs/$F" >/dev/null
[ "$(jf attempt)" = 1 ] && ok "F was never stopped" || bad "F's attempt: $(jf attempt)"
touch "$W/stopF" "$W/stopS"
wait_state "$F" completed && wait_state "$S" completed
stop_berthd
finish
