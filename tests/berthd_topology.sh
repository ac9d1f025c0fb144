#!/usr/bin/env bash
# berthd on a fake topology (--gpus 4x8:h100,racks=2: two racks of two 8-GPU servers): the
# submission fields topology, topology_preferred and tp (API and berth submit) are checked,
# shown and kept across a restart; a 16-GPU job starts with BERTH_RANK_HOSTS naming the
# server of each of its GPUs in slot order and BERTH_HOSTFILE holding the same as a
# hostfile; a required level no domain can hold is refused. Usage: as berthd_api.sh.
set -u
. "$(dirname "$0")/cli_lib.sh"
. "$(dirname "$0")/lib_berthd.sh"

post() { # post BODY WANT_STATUS WANT_TEXT DESCRIPTION: a submission's answer
    api POST /v1/jobs "$1" >/dev/null
    [ "$(status)" = "$2" ] && grep -qF -- "$3" "$W/body" && ok "$4 ($2)" ||
        bad "$4: status $(status), want $2 saying '$3': $(head -c 300 "$W/body")"
}
slot_hosts() { # slot_hosts ID: the servers of a running job's GPUs, in slot order, comma-separated
    api GET "/v1/jobs/$1" >/dev/null
    python3 -c 'import json,sys; print(",".join(a["server"] for a in json.load(open(sys.argv[1]))["allocation"]))' "$W/body"
}
envof() { # envof ID VAR: VAR as the job's environment file says
    sed -n "s/^$2=//p" "$W/env.$1"
}

start_berthd --gpus 4x8:h100,racks=2 --policy fifo
# the node list names each server's rack (only a cluster with a topology has the keys)
api GET /v1/nodes >/dev/null
[ "$(python3 -c 'import json,sys; print(",".join("%s:%s:%s:%s" % (n["name"], n["rack"], n["block"], n["nvl"]) for n in json.load(open(sys.argv[1]))["nodes"]))' "$W/body")" = \
    "h100-0:rack0:None:8,h100-1:rack0:None:8,h100-2:rack1:None:8,h100-3:rack1:None:8" ] &&
    ok "GET /v1/nodes: rack, block and nvl of each server" || bad "GET /v1/nodes: $(head -c 400 "$W/body")"
"$BERTH" nodes >"$W/nodes" 2>&1
grep -qE '^NODE +TYPE +GPUS +IDLE +RACK +BLOCK +NVLINK +GPU:JOBS' "$W/nodes" &&
    grep -qE '^h100-2 +h100 +8 +8 +rack1 +- +- ' "$W/nodes" &&
    ok "berth nodes: RACK, BLOCK and NVLINK columns" || bad "berth nodes: $(head -c 400 "$W/nodes")"
CMD='{"argv":["env >'"$W"'/env.$BERTH_JOB_ID.t && cp \"$BERTH_HOSTFILE\" '"$W"'/hf.$BERTH_JOB_ID && mv '"$W"'/env.$BERTH_JOB_ID.t '"$W"'/env.$BERTH_JOB_ID && exec sleep 600"],"shell":true,"cwd":"/"'

# bad fields: 400 naming the field
post "$CMD"',"gpus":2,"topology":"galaxy"}' 400 "topology: expected nvlink, node, rack, block or cluster, found 'galaxy'" "an unknown level"
post "$CMD"',"gpus":2,"topology_preferred":"pod"}' 400 "topology_preferred: expected nvlink" "an unknown preferred level"
post "$CMD"',"gpus":2,"topology":3}' 400 "topology: expected a string" "a level that is not a string"
post "$CMD"',"gpus":2,"topology":"rack","topology_preferred":"block"}' 400 "topology_preferred: expected a level below the required one (rack)" "a preferred level wider than the required one"
post "$CMD"',"gpus":2,"tp":0}' 400 "tp: expected a whole number from 1" "tp 0"
post "$CMD"',"gpus":12,"tp":8}' 400 "tp: the GPU counts (gpus 12, min_gpus 12, max_gpus 12) must be multiples of the tensor-parallel degree 8" "gpus not a multiple of tp"
post "$CMD"',"gpus":0,"topology":"node"}' 400 "topology: a CPU-only job (gpus: 0) has no GPUs to place" "a CPU-only job with a topology"
post "$CMD"',"gpus":32,"topology":"rack"}' 400 "topology: asks for 32 GPUs within one rack, the largest rack of this cluster has 16" "more GPUs than a rack holds"
post "$CMD"',"gpus":16,"topology":"node"}' 400 "topology: asks for 16 GPUs within one node, the largest node of this cluster has 8" "more GPUs than a server holds"

# a 16-GPU job: its ranks' hosts in slot order
post "$CMD"',"gpus":16,"topology":"rack","topology_preferred":"node","tp":8}' 201 '"id"' "a 16-GPU job with topology rack, preferred node, tp 8"
A=$(jf id)
wait_state "$A" running
wait_for 60 "job $A's environment file" test -s "$W/env.$A"
want=$(slot_hosts "$A")
[ "$(envof "$A" BERTH_RANK_HOSTS)" = "$want" ] && [ "$(echo "$want" | tr , '\n' | wc -l)" = 16 ] &&
    ok "BERTH_RANK_HOSTS names the server of each of its 16 GPUs in slot order ($want)" ||
    bad "BERTH_RANK_HOSTS: '$(envof "$A" BERTH_RANK_HOSTS)', the allocation: '$want'"
[ "$(envof "$A" WORLD_SIZE)" = 16 ] && ok "WORLD_SIZE is 16" || bad "WORLD_SIZE: $(envof "$A" WORLD_SIZE)"
[ "$(envof "$A" BERTH_HOSTFILE)" = "$(spool "$A" hostfile)" ] && ok "BERTH_HOSTFILE is the job's spool file" ||
    bad "BERTH_HOSTFILE: $(envof "$A" BERTH_HOSTFILE), want $(spool "$A" hostfile)"
hf=$(echo "$want" | tr , '\n' | uniq -c | awk '{ print $2 " slots=" $1 }')
[ "$(cat "$W/hf.$A")" = "$hf" ] && ok "the hostfile lists each host with its slots, in rank order" ||
    bad "the hostfile: '$(cat "$W/hf.$A")', want '$hf'"
api GET "/v1/jobs/$A" >/dev/null
[ "$(jf topology)" = rack ] && [ "$(jf topology_preferred)" = node ] && [ "$(jf tp)" = 8 ] &&
    ok "GET /v1/jobs/ID gives topology, topology_preferred and tp" ||
    bad "GET /v1/jobs/ID: $(head -c 600 "$W/body")"
case $(jf span) in rack | block | cluster) ok "GET /v1/jobs/ID gives the span of the running gang ($(jf span))" ;;
*) bad "span: '$(jf span)'" ;; esac

# berth submit's flags, berth show
expect_rc 0 "berth submit --topology block --topology-preferred rack --tp 2" -- "$BERTH" submit -g 2 --topology block --topology-preferred rack --tp 2 --cwd / -- sleep 600
B=$(grep -o '[0-9][0-9]*' "$W/out" | head -1)
expect_rc 0 "berth show $B" -- "$BERTH" show "$B"
grep -qE '^topology +"block"$' "$W/out" && grep -qE '^topology_preferred +"rack"$' "$W/out" &&
    grep -qE '^tp +2$' "$W/out" && ok "berth show prints the three fields" || bad "berth show: $(cat "$W/out")"
expect_rc 0 "berth show of a job without them" -- "$BERTH" show "$A"
expect_rc 0 "berth submit without the flags" -- "$BERTH" submit -g 1 --cwd / -- sleep 600
C=$(grep -o '[0-9][0-9]*' "$W/out" | head -1)
"$BERTH" show "$C" >"$W/out" 2>&1
! grep -qE '^(topology|topology_preferred|tp) ' "$W/out" && ok "berth show says nothing of a topology not asked for" ||
    bad "berth show of a job without topology: $(grep -E '^(topology|tp)' "$W/out")"
api GET "/v1/jobs/$C" >/dev/null
[ "$(jf topology)" = None ] && [ "$(jf topology_preferred)" = None ] && [ "$(jf tp)" = 1 ] &&
    ok "GET: topology null, tp 1 when none was asked" || bad "GET of a job without topology: $(head -c 400 "$W/body")"
expect_rc 2 "berth submit --tp x" -- "$BERTH" submit --tp x -- true
has "$W/err" "--tp" "the error names --tp"
expect_rc 0 "berth submit --help" -- "$BERTH" submit --help
has "$W/out" "--topology-preferred" "--help lists --topology-preferred"

# a restart keeps them
stop_berthd
start_berthd --gpus 4x8:h100,racks=2 --policy fifo
wait_state "$A" running
api GET "/v1/jobs/$A" >/dev/null
[ "$(jf topology)" = rack ] && [ "$(jf topology_preferred)" = node ] && [ "$(jf tp)" = 8 ] &&
    ok "after a restart job $A still has topology rack, preferred node, tp 8" ||
    bad "after a restart: $(head -c 600 "$W/body")"
api GET "/v1/jobs/$B" >/dev/null
[ "$(jf topology)" = block ] && [ "$(jf topology_preferred)" = rack ] && [ "$(jf tp)" = 2 ] &&
    ok "after a restart job $B still has topology block, preferred rack, tp 2" ||
    bad "after a restart: $(head -c 600 "$W/body")"
for j in $A $B $C; do api POST "/v1/jobs/$j/cancel" >/dev/null; done
for j in $A $B $C; do wait_state "$j" cancelled; done
stop_berthd
finish
