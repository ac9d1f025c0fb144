#!/usr/bin/env bash
# Salus-style sharing live (issue 17): one fake V100 with 16 GiB (--gpus 1x1:v100:16g) under
# salus-pack. Jobs give Salus' memory split (persist_mib 2048 + ephem_mib 4096 = a 6 GiB lane
# each): two lanes fit the GPU (12 GiB), a third does not (18 GiB) and waits; A and B run
# together on GPU 0, each as its lane's share of it (the MPS active-thread percentage, the
# pinned memory limit 6144 MiB), which berth show says; when A ends C takes its lane. A split
# larger than the GPU is refused (400 naming the field). Usage: as berthd_api.sh.
set -u
. "$(dirname "$0")/cli_lib.sh"
. "$(dirname "$0")/lib_berthd.sh"

cat >"$W/job.sh" <<'SH'
#!/bin/sh
echo "mps=${CUDA_MPS_ACTIVE_THREAD_PERCENTAGE:-none} pin=${CUDA_MPS_PINNED_DEVICE_MEM_LIMIT:-none} dev=$CUDA_VISIBLE_DEVICES"
while [ ! -e "$1" ]; do sleep 0.1; done
SH
chmod 755 "$W/job.sh"
job() { echo '{"argv":["'"$W"'/job.sh","'"$W"'/'"$1"'.go"],"persist_mib":2048,"ephem_mib":4096,"name":"'"$1"'","cwd":"'"$W"'"}'; }
submit() { api POST /v1/jobs "$1" >/dev/null && jf id; }

start_berthd --gpus 1x1:v100:16g --policy salus-pack
api GET /v1/nodes >/dev/null
[ "$(jf nodes.0.gpu_mem_mib)" = 16384 ] && ok "the fake GPU has 16 GiB (1x1:v100:16g)" || bad "nodes: $(cat "$W/body")"
api POST /v1/jobs '{"argv":["true"],"persist_mib":12288,"ephem_mib":8192}' >/dev/null
[ "$(status)" = 400 ] && has "$W/body" "persist_mib + ephem_mib = 20480 MiB" "a split above the GPU's memory: 400" ||
    bad "too big: $(status) $(cat "$W/body")"
api POST /v1/jobs '{"argv":["true"],"gpus":0,"persist_mib":1}' >/dev/null
[ "$(status)" = 400 ] && has "$W/body" "persist_mib" "a CPU-only job with a GPU memory split: 400" || bad "cpu-only: $(status)"
api POST /v1/jobs '{"argv":["true"],"ephem_mib":-1}' >/dev/null
[ "$(status)" = 400 ] && has "$W/body" "ephem_mib" "a negative split: 400 naming the field" || bad "negative: $(status)"

A=$(submit "$(job A)")
B=$(submit "$(job B)")
C=$(submit "$(job C)")
wait_state "$A" running && wait_state "$B" running && ok "A and B run at once on the one GPU"
gpu_of() { api GET "/v1/jobs/$1" >/dev/null; jf allocation.0.gpu; }
[ "$(gpu_of "$A")" = 0 ] && [ "$(gpu_of "$B")" = 0 ] && ok "both on GPU 0"
api GET "/v1/jobs/$A" >/dev/null
share=$(jf allocation.0.share)
python3 -c 'import sys; s = float(sys.argv[1]); sys.exit(not 0.37 <= s <= 0.4)' "$share" &&
    ok "A runs as its lane's share of the GPU ($share: 6 GiB of 16)" || bad "share $share"
"$BERTH" show "$A" >"$W/show.txt" 2>&1
has "$W/show.txt" "% of it, shared" "berth show says how the GPU is shared"
started() { grep -q "mps=" "$(spool "$A" stdout.log)" 2>/dev/null; }
wait_for 30 "A's first line" started
pct=$(python3 -c 'print(int((float(__import__("sys").argv[1]) * 1000 + 9) // 10))' "$share")
has "$(spool "$A" stdout.log)" "mps=$pct pin=0=6144M dev=0" "A's MPS percentage is its share, its pinned memory its split"
api GET "/v1/jobs/$C" >/dev/null
[ "$(jf state)" = pending ] && ok "C waits: a third 6 GiB lane does not fit 16 GiB" || bad "C: $(jf state)"
touch "$W/A.go"
wait_state "$A" completed && ok "A ended"
wait_state "$C" running && [ "$(gpu_of "$C")" = 0 ] && ok "C takes A's lane on GPU 0"
touch "$W/B.go" "$W/C.go"
wait_state "$B" completed && wait_state "$C" completed && ok "B and C complete"
stop_berthd
finish
