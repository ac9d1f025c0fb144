#!/usr/bin/env bash
# berthd under --placement fgd: FGD's choice on real submissions, with the submissions so far
# as its target workload. On two 4-GPU servers a 2-GPU job A takes the first server; then a
# 1-GPU job B goes to the idle second server (on the first it would leave one idle GPU that
# the 2-GPU type cannot use: +500 milli-GPU of fragmentation; on the second three: +0),
# where consolidate puts it beside A (the tightest server). After a 4-GPU job has run, the
# workload has a 4-GPU type too, and FGD puts B beside A to keep a whole server for the
# next one, which then starts at once on one server. berth sim, which knows the whole trace,
# decides the same way. Usage: as berthd_api.sh.
set -u
. "$(dirname "$0")/cli_lib.sh"
. "$(dirname "$0")/lib_berthd.sh"

servers_of() { # servers_of ID: the server names of a running job's GPUs
    api GET "/v1/jobs/$1" >/dev/null
    python3 -c 'import json,sys; print(" ".join(sorted({a["server"] for a in json.load(open(sys.argv[1]))["allocation"]})))' "$W/body"
}
sub() { # sub GPUS [CMD]: submits CMD (sleep 600) on GPUS GPUs; prints its id
    api POST /v1/jobs '{"argv":["'"${2:-sleep}"'","600"],"gpus":'"$1"',"cwd":"/"}' >/dev/null
    jf id
}

for run in fgd consolidate fgd-known; do
    pl=${run%-known}
    start_berthd --gpus 2x4:v100 --policy fifo --placement "$pl"
    C=
    if [ "$run" = fgd-known ]; then
        K=$(sub 4 true)
        wait_state "$K" completed
    fi
    A=$(sub 2)
    wait_state "$A" running
    B=$(sub 1)
    wait_state "$B" running
    a=$(servers_of "$A") b=$(servers_of "$B")
    case $run in
    fgd)
        [ "$a" != "$b" ] && ok "fgd: the 1-GPU job goes to the idle server ($b), away from the 2-GPU job ($a)" ||
            bad "fgd: both on $a"
        api GET /v1/policies >/dev/null
        has "$W/body" '"placement":"fgd"' "the API names the placement" ;;
    consolidate)
        [ "$a" = "$b" ] && ok "consolidate: the 1-GPU job goes beside the 2-GPU job ($a)" ||
            bad "consolidate: $a and $b" ;;
    fgd-known)
        [ "$a" = "$b" ] && ok "fgd with a 4-GPU job known: the 1-GPU job goes beside the 2-GPU job ($a)" ||
            bad "fgd with a 4-GPU job known: $a and $b"
        C=$(sub 4)
        wait_state "$C" running && [ "$(servers_of "$C" | wc -w)" = 1 ] &&
            ok "the next 4-GPU job starts at once on the whole server ($(servers_of "$C"))" ||
            bad "the next 4-GPU job: $(servers_of "$C")" ;;
    esac
    for j in $A $B $C; do api POST "/v1/jobs/$j/cancel" >/dev/null; done
    for j in $A $B $C; do wait_state "$j" cancelled; done
    stop_berthd
    rm -rf "$W/st"
done

# berth sim knows the whole trace: with the 4-GPU job in it, B goes beside A and C starts at
# once on one server
printf 'job_id,arrival_s,duration_s,num_gpus,single_server\nA,0,100,2,0\nB,1,100,1,0\nC,2,100,4,1\n' >"$W/t.csv"
expect_rc 0 "berth sim --placement fgd" -- "$BERTH" sim --cluster 2x4:v100 --trace "$W/t.csv" --policy fifo --placement fgd --out "$W/o"
has "$W/o/jobs.csv" "C,2,2,102,100,0,100,4,v100,1," "the 4-GPU job starts on arrival, on one server"
finish
