#!/usr/bin/env bash
# berthd's inventory from NVML, on a machine without a GPU: a fake libnvidia-ml.so.1
# (tests/live/fake_nvml.c, found through LD_LIBRARY_PATH) reports two A100s of 80 GiB, a T4
# of 15 GiB and two A100s of 40 GiB. berthd makes three servers of them with each GPU's
# memory known, and places by memory: a job that needs 50 GiB of GPU memory runs on the
# 80 GiB A100s only, one that needs more than any GPU has is refused at submission. Usage:
# as berthd_api.sh.
set -u
. "$(dirname "$0")/cli_lib.sh"
. "$(dirname "$0")/lib_berthd.sh"

use_fake_nvml
export BERTH_FAKE_NVML="NVIDIA A100-SXM4-80GB=81920;NVIDIA A100-SXM4-80GB=81920;Tesla T4=15360;NVIDIA A100-SXM4-40GB=40960;NVIDIA A100-SXM4-40GB=40960"
start_berthd --policy fifo-skip
api GET /v1/nodes >/dev/null
python3 - "$W/body" >"$W/nodes" <<'PY'
import json, sys
for n in json.load(open(sys.argv[1]))["nodes"]:
    print(n["gpu_type"], n["gpus"], n["gpu_mem_mib"])
PY
[ "$(tr '\n' ' ' <"$W/nodes")" = "a100 2 81920 t4 1 15360 a100 2 40960 " ] &&
    ok "three servers from NVML, each GPU's memory known: $(tr '\n' ';' <"$W/nodes")" ||
    bad "nodes: $(cat "$W/nodes")"
api POST /v1/jobs '{"argv":["sleep","600"],"gpus":1,"gpu_mem_mib":50000,"cwd":"/"}' >/dev/null
A=$(jf id)
wait_state "$A" running
api GET "/v1/jobs/$A" >/dev/null
python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["allocation"][0]["server"])' "$W/body" >"$W/srv"
api GET /v1/nodes >/dev/null
python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["nodes"][0]["name"])' "$W/body" >"$W/first"
[ "$(cat "$W/srv")" = "$(cat "$W/first")" ] && ok "a 50 GiB job runs on an 80 GiB A100 ($(cat "$W/srv"))" ||
    bad "the 50 GiB job runs on $(cat "$W/srv")"
api POST /v1/jobs '{"argv":["true"],"gpus":1,"gpu_mem_mib":100000,"cwd":"/"}' >/dev/null
[ "$(status)" = 400 ] && [ "$(jf field)" = gpu_mem_mib ] && ok "100 GiB, more than any GPU has: 400 naming gpu_mem_mib" ||
    bad "100 GiB job: $(status) $(cat "$W/body")"
api POST "/v1/jobs/$A/cancel" >/dev/null
wait_state "$A" cancelled
stop_berthd
finish
