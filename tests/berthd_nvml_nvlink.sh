#!/usr/bin/env bash
# berthd's NVLink islands from NVML (issue 36), on a machine without a GPU: the fake
# libnvidia-ml.so.1 (tests/live/fake_nvml.c) reports 8 H100 that NVLink joins in two quads
# (BERTH_FAKE_NVLINK=4,4: nvmlDeviceGetP2PStatus says OK within a quad only). berthd makes
# one server of nvl 4 of them, so GET /v1/nodes gives nvl 4; a job with topology nvlink gets
# its 4 GPUs within one quad (GPUs 0-3 or 4-7), and one asking 8 GPUs within an NVLink
# island is refused naming the field. Usage: as berthd_api.sh.
set -u
. "$(dirname "$0")/cli_lib.sh"
. "$(dirname "$0")/lib_berthd.sh"

use_fake_nvml
h="NVIDIA H100 80GB HBM3=81559"
export BERTH_FAKE_NVML="$h;$h;$h;$h;$h;$h;$h;$h" BERTH_FAKE_NVLINK=4,4
start_berthd --policy fifo --placement spread
api GET /v1/nodes >/dev/null
[ "$(jf nodes.0.gpus):$(jf nodes.0.nvl)" = "8:4" ] && ok "one server of 8 H100, NVLink islands of 4" ||
    bad "nodes: $(head -c 400 "$W/body")"
api POST /v1/jobs '{"argv":["sleep","600"],"gpus":1,"cwd":"/"}' >/dev/null
S=$(jf id)
wait_state "$S" running
api POST /v1/jobs '{"argv":["sleep","600"],"gpus":4,"topology":"nvlink","cwd":"/"}' >/dev/null
A=$(jf id)
wait_state "$A" running
api GET "/v1/jobs/$A" >/dev/null
python3 -c 'import json,sys; print(",".join(str(a["gpu"]) for a in json.load(open(sys.argv[1]))["allocation"]))' "$W/body" >"$W/gpus"
case $(cat "$W/gpus") in
0,1,2,3 | 4,5,6,7) ok "4 GPUs with topology nvlink within one quad: GPUs $(cat "$W/gpus")" ;;
*) bad "GPUs $(cat "$W/gpus")" ;;
esac
api POST /v1/jobs '{"argv":["true"],"gpus":8,"topology":"nvlink","cwd":"/"}' >/dev/null
[ "$(status)" = 400 ] && [ "$(jf field)" = topology ] &&
    ok "8 GPUs within one NVLink island: 400 naming topology ($(jf error))" ||
    bad "8 in one island: $(status) $(cat "$W/body")"
for j in $S $A; do api POST "/v1/jobs/$j/cancel" >/dev/null; done
stop_berthd
finish
