#!/usr/bin/env bash
# Aryl live (issue 17): capacity loaning on berthd's local executor. A cluster file gives one
# training server and two servers of pool "inference" (2 fake GPUs each); under aryl
# (loan_headroom=0) the pool starts reserved for inference and an inference manager posts how
# many of its servers inference needs (POST /v1/inference). At demand 2 a second training job
# waits; at demand 0 both inference servers are lent and training jobs run there; at demand 1
# one server is reclaimed with the fewest preemptions — its job gets the checkpoint signal, is
# requeued — and berthd measures the latency from the demand's rise to a server free of
# training processes (a job that ignores the signal is killed after its grace: the latency is
# at least the grace). GET /v1/inference/history records the changes in order. The demand
# survives a restart; only an admin may set it; bad bodies get
# 400 naming the field. Usage: as berthd_api.sh.
set -u
. "$(dirname "$0")/cli_lib.sh"
. "$(dirname "$0")/lib_berthd.sh"

cat >"$W/cl.json" <<'EOF'
{"name": "aryl live", "servers": [
 {"name": "train-0", "gpu_type": "v100", "gpus": 2, "pool": "training"},
 {"name": "infer-0", "gpu_type": "v100", "gpus": 2, "pool": "inference"},
 {"name": "infer-1", "gpu_type": "v100", "gpus": 2, "pool": "inference"}]}
EOF
# a job that runs until its file appears; on SIGUSR1 it "checkpoints" (a marker) and exits 0,
# unless told to ignore the signal (then SIGKILL after its grace ends it)
cat >"$W/job.sh" <<'SH'
#!/bin/sh
if [ "$2" = ignore ]; then trap '' USR1; else trap 'echo "checkpoint $BERTH_ATTEMPT" >>"$1.ck"; exit 0' USR1; fi
echo "start attempt=$BERTH_ATTEMPT resume=${BERTH_RESUME:-0}"
while [ ! -e "$1" ]; do sleep 0.1; done
SH
chmod 755 "$W/job.sh"
job() { # job NAME [ignore]: a 2-GPU job's body
    echo '{"argv":["'"$W"'/job.sh","'"$W"'/'"$1"'.go","'"${2:-}"'"],"gpus":2,"name":"'"$1"'","checkpoint_signal":"SIGUSR1","grace_s":'"${3:-30}"',"cwd":"'"$W"'"}'
}
submit() { api POST /v1/jobs "$1" >/dev/null && jf id; }
server_of() { # server_of ID: the server of a running job's GPUs
    api GET "/v1/jobs/$1" >/dev/null
    python3 -c 'import json,sys; print(" ".join(sorted({a["server"] for a in json.load(open(sys.argv[1]))["allocation"]})))' "$W/body"
}
inf() { api GET /v1/inference "" "$ROOT" >/dev/null; jf "$1"; }
demand() { api POST /v1/inference '{"demand_servers": '"$1"'}' "$ROOT" >/dev/null; }

start_berthd --gpus "$W/cl.json" --policy aryl --policy-arg loan_headroom=0
[ "$(inf pool_servers)" = 2 ] && [ "$(inf demand_servers)" = 2 ] && [ "$(inf reserved_servers)" = 2 ] &&
    ok "the inference pool (2 servers) starts reserved, demand 2 until told" || bad "start: $(cat "$W/body")"

# ---- attacks and bad input change nothing
api POST /v1/inference '{"demand_servers": 0}' "$ALICE" >/dev/null
[ "$(status)" = 403 ] && ok "a user may not set the demand (403)" || bad "user: $(status) $(cat "$W/body")"
api POST /v1/inference '{"demand_servers": 3}' "$ROOT" >/dev/null
[ "$(status)" = 400 ] && has "$W/body" "demand_servers: 3 is not in 0..2" "a demand past the pool: 400 naming the field" ||
    bad "range: $(status)"
api POST /v1/inference '{"demand_servers": -1}' "$ROOT" >/dev/null
[ "$(status)" = 400 ] && ok "a negative demand: 400" || bad "negative: $(status)"
api POST /v1/inference '{"demand_servers": 1, "x": 2}' "$ROOT" >/dev/null
[ "$(status)" = 400 ] && has "$W/body" "x: unknown field" "an unknown field: 400 naming it" || bad "unknown: $(status)"
api POST /v1/inference '{"demand_servers": "0"}' "$ROOT" >/dev/null
[ "$(status)" = 400 ] && ok "a string demand: 400" || bad "string: $(status)"
api POST /v1/inference 'not json' "$ROOT" >/dev/null
[ "$(status)" = 400 ] && ok "not JSON: 400" || bad "not json: $(status)"
[ "$(inf demand_servers)" = 2 ] && [ "$(inf changes)" = 0 ] && ok "the demand is still 2" || bad "demand moved: $(cat "$W/body")"

# ---- demand 2: training has train-0 only
A=$(submit "$(job A)")
wait_state "$A" running && [ "$(server_of "$A")" = train-0 ] && ok "A runs on the training server"
passes() { api GET /v1/health "" "$ROOT" >/dev/null; jf passes; }
p0=$(passes)
B=$(submit "$(job B ignore 1)")
a_pass() { [ "$(passes)" -gt "$p0" ]; } # B's arrival brings a pass
wait_for 30 "a pass after B's arrival" a_pass
api GET "/v1/jobs/$B" >/dev/null
[ "$(jf state)" = pending ] && ok "B waits: inference keeps its pool at demand 2" || bad "B: $(jf state)"

# ---- demand 0: both inference servers are lent
demand 0
[ "$(status)" = 200 ] || bad "demand 0: $(status) $(cat "$W/body")"
wait_state "$B" running && ok "B runs once the pool is lent"
case $(server_of "$B") in infer-*) ok "B runs on a loaned inference server ($(server_of "$B"))" ;; *) bad "B on $(server_of "$B")" ;; esac
C=$(submit "$(job C)")
wait_state "$C" running && ok "C runs on the other loaned server ($(server_of "$C"))"
[ "$(inf lent_servers)" = 2 ] && ok "2 servers lent" || bad "lent: $(cat "$W/body")"
"$BERTH" nodes --token "$ROOT" >"$W/nodes.txt" 2>&1
[ "$(grep -c "(inference, lent to training)" "$W/nodes.txt")" = 2 ] && ok "berth nodes shows both lent" ||
    bad "berth nodes: $(cat "$W/nodes.txt")"

# ---- demand 1: one server comes back, with the fewest preemptions (one job either way)
demand 1
ready() { [ "$(inf ready_servers)" -ge 1 ] && [ "$(inf reclaims)" -ge 1 ]; }
wait_for 60 "a server free for inference" ready && ok "a server is free for inference again"
lat=$(inf last_reclaim_s)
back=$(python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
print(" ".join(n["name"] for n in d["nodes"] if n["reserved"] and not any(g["jobs"] for g in n["gpu_list"])))' \
    <(api GET /v1/nodes "" "$ROOT"))
case $back in infer-0 | infer-1) ok "$back is reserved again, no job on it" ;; *) bad "reserved servers: '$back'" ;; esac
api GET "/v1/jobs/$B" >/dev/null
sb=$(jf state)
api GET "/v1/jobs/$C" >/dev/null
sc=$(jf state)
if [ "$sb" = pending ] && [ "$sc" = running ]; then
    # B ignores its checkpoint signal: SIGKILL after its grace (1 s), so the server came back
    # no sooner than that
    python3 -c 'import sys; sys.exit(not float(sys.argv[1]) >= 1.0)' "$lat" &&
        ok "B (reclaimed) was killed after its 1 s grace: reclaim latency $lat s" || bad "latency $lat s < grace"
    PRE=$B KEEP=$C
elif [ "$sc" = pending ] && [ "$sb" = running ]; then
    [ -s "$W/C.go.ck" ] && ok "C checkpointed on its signal: reclaim latency $lat s" || bad "C did not checkpoint"
    PRE=$C KEEP=$B
else
    bad "after the reclaim B is $sb and C $sc: one of them should wait"
    PRE=$B KEEP=$C
fi
python3 -c 'import sys; sys.exit(not float(sys.argv[1]) < 30)' "$lat" && ok "reclaim latency $lat s (< 30 s)" || bad "latency $lat"
api GET "/v1/jobs/$PRE" >/dev/null
has "$W/body" "preempted by the aryl policy" "the reclaimed job was preempted by aryl and waits again"

# ---- the history: the demand 2 -> 0 -> 1 in order, times rising, the reclaim's length
api GET /v1/inference/history "" "$ALICE" >/dev/null
python3 - "$W/body" "$lat" <<'PY' && ok "GET /v1/inference/history: demand 2, 0, 1 in order, the reclaim's $lat s" ||
import json, sys
h = json.load(open(sys.argv[1]))
c = h["changes"]
dem = [r["demand_servers"] for r in c]
runs = [d for i, d in enumerate(dem) if i == 0 or d != dem[i - 1]]
ts = [r["t_us"] for r in c]
took = [r["reclaim_s"] for r in c if r["reclaim_s"] is not None]
ok = (runs == [2, 0, 1] and ts == sorted(ts) and h["dropped"] == 0 and h["recorded"] == len(c)
      and h["pool_servers"] == 2 and len(took) == 1 and abs(took[0] - float(sys.argv[2])) < 1e-3
      and all(r["lent_servers"] == 2 - r["reserved_servers"] for r in c)
      and all(r["ready_servers"] <= r["reserved_servers"] for r in c))
sys.exit(not ok)
PY
    bad "history: $(head -c 800 "$W/body")"
[ "$(status)" = 200 ] || bad "history status $(status)"

# ---- the demand survives a restart
stop_berthd
start_berthd --gpus "$W/cl.json" --policy aryl --policy-arg loan_headroom=0
[ "$(inf demand_servers)" = 1 ] && ok "after a restart the demand is still 1" || bad "restart: $(cat "$W/body")"
restored() { api GET /v1/inference/history "" "$ROOT" >/dev/null; [ "$(jf changes.0.demand_servers)" = 1 ]; }
wait_for 30 "the new history" restored && ok "a restart starts a new history at the restored demand 1"

# ---- demand 0 again: the server is lent back and the waiting job resumes there
demand 0
wait_state "$PRE" running 60 && ok "the preempted job runs again when the server is lent back"
resumed() { "$BERTH" logs "$PRE" 2>/dev/null | grep -q "start attempt=2 resume=1"; }
wait_for 60 "the second attempt's start" resumed && ok "its second attempt starts with BERTH_RESUME=1"
touch "$W/A.go" "$W/B.go" "$W/C.go"
for j in "$A" "$B" "$C"; do wait_state "$j" completed 60; done && ok "A, B and C complete"
gh=$(inf lent_gpu_hours)
python3 -c 'import sys; sys.exit(not float(sys.argv[1]) > 0)' "$gh" && ok "lent GPU-hours counted ($gh)" || bad "lent_gpu_hours $gh"
"$BERTH" inference --server "$URL" --token "$ROOT" >"$W/cli.txt" 2>&1 && has "$W/cli.txt" "demand" "berth inference shows the pool" ||
    bad "berth inference: $(cat "$W/cli.txt")"
"$BERTH" inference --demand 2 --server "$URL" --token "$ROOT" >"$W/cli.txt" 2>&1 && [ "$(inf demand_servers)" = 2 ] &&
    ok "berth inference --demand 2 sets it" || bad "berth inference --demand: $(cat "$W/cli.txt")"
stop_berthd
finish
