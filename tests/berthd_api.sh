#!/usr/bin/env bash
# berthd end to end: every route against a real daemon on loopback (fake GPUs, tiny jobs),
# auth (401/403), HEAD (GET's status and headers, no body), validation (400 naming the
# field), cancel/hold/release, logs, progress, and the berth client commands.
# Usage: berthd_api.sh BERTH SRC SHARED BERTHD
set -u
. "$(dirname "$0")/cli_lib.sh"
. "$(dirname "$0")/lib_berthd.sh"

start_berthd --gpus 1x2:a100 --policy fifo
[ -n "$PORT" ] && ok "berthd serves on a random port ($PORT)" || { bad "berthd did not start: $(cat "$W/berthd.log")"; finish; exit 1; }

# --- auth
api GET /v1/health "" nosuchtoken000000000 >/dev/null
[ "$(status)" = 401 ] && ok "a bad token gets 401" || bad "bad token: $(status)"
curl -s -o /dev/null -w '%{http_code}' "$URL/v1/health" >"$W/status"
[ "$(status)" = 401 ] && ok "no token gets 401" || bad "no token: $(status)"
api GET /v1/health >/dev/null
[ "$(status)" = 200 ] && [ "$(jf status)" = ok ] && ok "health" || bad "health: $(status) $(cat "$W/body")"
[ "$(jf policy)" = fifo ] && ok "health names the policy" || bad "health policy: $(jf policy)"
api GET /v1/nosuch >/dev/null
[ "$(status)" = 404 ] && ok "unknown route gets 404" || bad "unknown route: $(status)"
api DELETE /v1/jobs >/dev/null
[ "$(status)" = 405 ] && ok "wrong method gets 405" || bad "wrong method: $(status)"

# --- HEAD: answered as GET is (status and headers), without the body
hval() { tr -d '\r' <"$1" | awk -v k="$2" 'tolower($0) ~ "^" tolower(k) ":" { sub(/^[^:]*: */, ""); print }'; }
head_get() { # head_get PATH [CURL ARGS]: HEAD and GET of PATH, headers in $W/hh and $W/gh, GET's body in $W/gb
    local p=$1
    shift
    curl -s --max-time 30 -I "$@" -o "$W/hh" -w '%{http_code}' "$URL$p" >"$W/hs"
    curl -s --max-time 30 -D "$W/gh" -o "$W/gb" -w '%{http_code}' "$@" "$URL$p" >"$W/gs"
}
# raw_head PATH: the bytes berthd sends for HEAD PATH after its headers (none, for HEAD)
raw_head() {
    python3 - "$PORT" "$1" <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=30)
s.sendall(("HEAD %s HTTP/1.0\r\nHost: x\r\n\r\n" % sys.argv[2]).encode())
d = b""
while True:
    b = s.recv(65536)
    if not b:
        break
    d += b
print(len(d.split(b"\r\n\r\n", 1)[1]) if b"\r\n\r\n" in d else -1)
PY
}
for p in /healthz /ui/; do
    head_get "$p"
    [ "$(cat "$W/hs")" = 200 ] && [ "$(cat "$W/gs")" = 200 ] && ok "HEAD $p: 200, as GET" || bad "HEAD $p: $(cat "$W/hs"), GET $(cat "$W/gs")"
    [ "$(hval "$W/hh" Content-Type)" = "$(hval "$W/gh" Content-Type)" ] &&
        [ "$(hval "$W/hh" Content-Length)" = "$(stat -c %s "$W/gb")" ] &&
        [ "$(hval "$W/hh" Content-Security-Policy)" = "$(hval "$W/gh" Content-Security-Policy)" ] &&
        [ "$(hval "$W/hh" X-Content-Type-Options)" = nosniff ] &&
        ok "HEAD $p: GET's Content-Type, Content-Length ($(stat -c %s "$W/gb")), CSP and nosniff" ||
        bad "HEAD $p headers: $(cat "$W/hh") vs GET: $(cat "$W/gh")"
    [ "$(raw_head "$p")" = 0 ] && ok "HEAD $p: no body" || bad "HEAD $p sent a body: $(raw_head "$p") bytes"
done
head_get /metrics
[ "$(cat "$W/hs")" = 200 ] && [ "$(hval "$W/hh" Content-Type)" = "$(hval "$W/gh" Content-Type)" ] &&
    ok "HEAD /metrics: 200 and GET's Content-Type ($(hval "$W/hh" Content-Type))" || bad "HEAD /metrics: $(cat "$W/hs") $(cat "$W/hh")"
[ "$(raw_head /metrics)" = 0 ] && ok "HEAD /metrics: no body" || bad "HEAD /metrics sent a body"
head_get /v1/health
[ "$(cat "$W/hs")" = 401 ] && [ "$(cat "$W/gs")" = 401 ] && ok "HEAD /v1/health without a token: 401, as GET" || bad "HEAD /v1/health: $(cat "$W/hs")"
head_get /v1/health -H "Authorization: Bearer $ALICE"
[ "$(cat "$W/hs")" = 200 ] && [ "$(hval "$W/hh" Content-Type)" = application/json ] && ok "HEAD /v1/health with a token: 200, application/json" ||
    bad "HEAD /v1/health with a token: $(cat "$W/hs") $(cat "$W/hh")"

# --- validation: 400 naming the field
v400() { # v400 BODY FIELD
    api POST /v1/jobs "$1" >/dev/null
    [ "$(status)" = 400 ] && [ "$(jf field)" = "$2" ] && ok "400 names $2 for $1" \
        || bad "want 400 naming $2 for $1: $(status) $(cat "$W/body")"
}
v400 '{"gpus":1}' argv
v400 '{"argv":[]}' argv
v400 '{"argv":[1]}' 'argv[0]'
v400 '{"argv":["true"],"gpus":"two"}' gpus
v400 '{"argv":["true"],"gpus":-1}' gpus
v400 '{"argv":["true"],"gpus":3}' gpus
v400 '{"argv":["true"],"gpu_type":"h100"}' gpu_type
v400 '{"argv":["true"],"gpu_share":1.5}' gpu_share
v400 '{"argv":["true"],"gpus":2,"gpu_share":0.5}' gpu_share
v400 '{"argv":["true"],"checkpoint_signal":"SIGNOPE"}' checkpoint_signal
v400 '{"argv":["true"],"grace_s":-1}' grace_s
v400 '{"argv":["true"],"cwd":"relative"}' cwd
v400 '{"argv":["true"],"env":{"A":1}}' env.A
v400 '{"argv":["true"],"min_gpus":2}' min_gpus
v400 '{"argv":["true"],"frobnicate":1}' frobnicate
v400 '{"argv":["true"],"job_type":5}' job_type
v400 '{"argv":["true"]' body
v400 '[1,2]' body
# messages that quote (and cut) the request inside a UTF-8 character still carry their JSON
long=$(printf 'é%.0s' $(seq 40))
api POST /v1/jobs '{"argv":["true"],"'"$long"'":1}' >/dev/null
[ "$(status)" = 400 ] || bad "a field name of 40 é: $(status), want 400"
has "$W/body" "unknown field" "a 400 cut inside a UTF-8 character has its JSON body"
python3 -c 'print("{\"argv\":[\"true\"],\"name\":\"" + "x"*2000000 + "\"}")' >"$W/big.json"
curl -s -o "$W/body" -w '%{http_code}' -X POST -H "Authorization: Bearer $ALICE" --data-binary @"$W/big.json" "$URL/v1/jobs" >"$W/status"
[ "$(status)" = 413 ] && [ "$(jf field)" = body ] && ok "an oversized body gets 413 naming body" || bad "oversized body: $(status)"

# --- submit, show, logs
api POST /v1/jobs '{"argv":["sh","-c","echo hi from $BERTH_JOB_ID on $CUDA_VISIBLE_DEVICES world $WORLD_SIZE; echo oops >&2; env > env.txt"],"cwd":"'"$W"'","gpus":2}' >/dev/null
[ "$(status)" = 201 ] && ok "submit gets 201" || bad "submit: $(status) $(cat "$W/body")"
J1=$(jf id)
wait_state "$J1" completed && ok "job $J1 ran to completion"
api GET "/v1/jobs/$J1" >/dev/null
[ "$(jf exit_code)" = 0 ] && ok "exit code 0 recorded" || bad "exit code: $(jf exit_code)"
has "$W/body" '"why":"completed: exit 0"' "show says why (how it ended)"
has "$W/body" 'scheduled on a100-0:0,a100-0:1' "history names the GPUs"
api GET "/v1/jobs/$J1/logs" >/dev/null
has "$W/body" "hi from $J1 on 0,1 world 2" "logs: stdout, with CUDA_VISIBLE_DEVICES and WORLD_SIZE"
api GET "/v1/jobs/$J1/logs?stream=stderr" >/dev/null
has "$W/body" "oops" "logs: stderr"
api GET "/v1/jobs/$J1/logs?stream=stdin" >/dev/null
[ "$(status)" = 400 ] && [ "$(jf field)" = stream ] && ok "logs: bad stream gets 400 naming stream" || bad "logs stream: $(status)"
for v in BERTH_JOB_ID BERTH_API BERTH_JOB_TOKEN BERTH_PROGRESS_FILE BERTH_CHECKPOINT_SIGNAL BERTH_GRACE_S MASTER_ADDR MASTER_PORT RANK LOCAL_RANK; do
    grep -q "^$v=" "$W/env.txt" && ok "job env has $v" || bad "job env lacks $v"
done
grep -q '^BERTH_RESUME=' "$W/env.txt" && bad "a first attempt got BERTH_RESUME" || ok "a first attempt has no BERTH_RESUME"
grep -q "^BERTH_TOKEN=" "$W/env.txt" && bad "the user token leaked into the job" || ok "no user token in the job's environment"

# --- a GPU share: MPS variables
api POST /v1/jobs '{"argv":["sh","-c","env > share.txt"],"cwd":"'"$W"'","gpu_share":0.5,"gpu_mem_mib":1000}' >/dev/null
wait_state "$(jf id)" completed
grep -q '^CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50$' "$W/share.txt" && ok "a 0.5 share gets CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50" || bad "MPS percentage: $(grep MPS "$W/share.txt")"
grep -q '^CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=1000M$' "$W/share.txt" && ok "and CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=1000M" || bad "MPS memory: $(grep MPS "$W/share.txt")"
grep -q '^CUDA_MPS' "$W/env.txt" && bad "a whole-GPU job got MPS variables" || ok "no MPS variables for whole GPUs"

# --- a failing job and a missing program
api POST /v1/jobs '{"argv":["sh","-c","exit 3"]}' >/dev/null; J2=$(jf id)
api POST /v1/jobs '{"argv":["/no/such/program"]}' >/dev/null; J3=$(jf id)
wait_state "$J2" failed && ok "exit 3 is failed"
wait_state "$J3" failed && ok "a missing program is failed"
api GET "/v1/jobs/$J3/logs?stream=stderr" >/dev/null
has "$W/body" "cannot run /no/such/program" "the exec error is in the job's stderr"

# --- ownership: bob sees the queue, but cannot cancel or read alice's job
# (J4 runs until it is cancelled below: the checks up to there need it running)
api POST /v1/jobs '{"argv":["sleep","600"],"gpus":2}' >/dev/null; J4=$(jf id)
wait_state "$J4" running && ok "a sleep runs"
api GET /v1/jobs "" "$BOB" >/dev/null
has "$W/body" "\"id\":$J4" "another user sees the queue"
api POST "/v1/jobs/$J4/cancel" "" "$BOB" >/dev/null
[ "$(status)" = 403 ] && ok "another user's cancel gets 403" || bad "bob cancel: $(status)"
api GET "/v1/jobs/$J4/logs" "" "$BOB" >/dev/null
[ "$(status)" = 403 ] && ok "another user's logs get 403" || bad "bob logs: $(status)"

# --- hold / release / why, while J4 holds both GPUs
api POST /v1/jobs '{"argv":["sh","-c","echo released ran"],"gpus":1}' >/dev/null; J5=$(jf id)
api POST "/v1/jobs/$J5/hold" >/dev/null
[ "$(status)" = 200 ] && [ "$(jf state)" = held ] && ok "hold" || bad "hold: $(status) $(cat "$W/body")"
api POST "/v1/jobs/$J5/hold" >/dev/null
[ "$(status)" = 409 ] && ok "holding a held job gets 409" || bad "hold twice: $(status)"
"$BERTH" why "$J5" >"$W/why" 2>&1
has "$W/why" "held" "berth why: held"
api POST "/v1/jobs/$J5/release" >/dev/null
[ "$(jf state)" = pending ] && ok "release" || bad "release: $(cat "$W/body")"
"$BERTH" why "$J5" >"$W/why" 2>&1
has "$W/why" "Resources: it is next under policy fifo and waits for 1 GPU (0 idle" "berth why: Resources, waiting for GPUs, none idle"
api GET "/v1/nodes" >/dev/null
has "$W/body" "\"jobs\":[$J4]" "nodes: the GPUs name the job on them"
[ "$(jf idle_gpus)" = 0 ] && ok "nodes: no idle GPU" || bad "nodes idle: $(jf idle_gpus)"

# --- cancel (root may cancel anyone's job): the running sleep ends, J5 starts
api POST "/v1/jobs/$J4/cancel" "" "$ROOT" >/dev/null
[ "$(status)" = 200 ] && ok "admin cancels another user's job" || bad "root cancel: $(status) $(cat "$W/body")"
wait_state "$J4" cancelled && ok "the running job is cancelled"
wait_state "$J5" completed && ok "the released job ran after the cancel"
api POST "/v1/jobs/$J4/cancel" >/dev/null
[ "$(status)" = 409 ] && ok "cancelling a cancelled job gets 409" || bad "cancel twice: $(status)"
api GET /v1/jobs/999999 >/dev/null
[ "$(status)" = 404 ] && ok "unknown job gets 404" || bad "unknown job: $(status)"

# --- list filters
api GET "/v1/jobs?state=failed" >/dev/null
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if sorted(j["id"] for j in d["jobs"])==sorted(map(int,sys.argv[2:])) else 1)' "$W/body" "$J2" "$J3" \
    && ok "list ?state=failed" || bad "list failed: $(cat "$W/body")"
api GET "/v1/jobs?state=bogus" >/dev/null
[ "$(status)" = 400 ] && [ "$(jf field)" = state ] && ok "list: a bad state gets 400 naming state" || bad "bad state filter: $(status)"
api GET "/v1/jobs?all=1&user=bob" >/dev/null
[ "$(jf jobs)" = "[]" ] && ok "list ?user=bob is empty" || bad "user filter: $(cat "$W/body")"
api GET /v1/policies >/dev/null
[ "$(jf current)" = fifo ] && has "$W/body" '"name":"las"' "policies: current and the registry"

# --- progress: file and HTTP, job token only for its own job
cat >"$W/prog.sh" <<'SH'
echo prog started
echo '{"step": 1, "metric": 0.5}' >> "$BERTH_PROGRESS_FILE"
echo 'not json' >> "$BERTH_PROGRESS_FILE"
echo '{"step": 7, "metric": 0.25}' >> "$BERTH_PROGRESS_FILE"
printf '{"step": 9' >> "$BERTH_PROGRESS_FILE"
echo "$BERTH_JOB_TOKEN" > "$1"
sleep 600
SH
api POST /v1/jobs '{"argv":["sh","'"$W/prog.sh"'","'"$W/jobtoken"'"],"total_steps":100}' >/dev/null; J6=$(jf id)
wait_state "$J6" running
step_is() { api GET "/v1/jobs/$1" >/dev/null && [ "$(jf progress.step)" = "$2" ]; }
wait_for 30 "berthd to read job $J6's progress file up to step 7" step_is "$J6" 7
[ "$(jf progress.step)" = 7 ] && [ "$(jf progress.metric)" = 0.25 ] && ok "progress file: step 7, metric 0.25 (bad line skipped, partial line ignored)" || bad "progress file: $(jf progress)"
grep -q "progress.jsonl:2" "$W/berthd.log" && ok "the malformed line is logged with file:line" || bad "no file:line log for the bad progress line"
wait_for 30 "job $J6 to write its job token" test -s "$W/jobtoken"
JT=$(cat "$W/jobtoken")
api POST "/v1/jobs/$J6/progress" '{"step":42,"metric":1.5}' "$JT" >/dev/null
[ "$(status)" = 204 ] && ok "progress over HTTP with the job token: 204" || bad "progress: $(status) $(cat "$W/body")"
api GET "/v1/jobs/$J6" >/dev/null
[ "$(jf progress.step)" = 42 ] && ok "progress step 42 shows" || bad "progress step: $(jf progress)"
api POST "/v1/jobs/$J6/progress" '{"step":-1}' "$JT" >/dev/null
[ "$(status)" = 400 ] && [ "$(jf field)" = step ] && ok "progress: 400 naming step" || bad "bad step: $(status)"
api POST "/v1/jobs/$J6/progress" '{"step":1,"metric":"x"}' "$JT" >/dev/null
[ "$(status)" = 400 ] && [ "$(jf field)" = metric ] && ok "progress: 400 naming metric" || bad "bad metric: $(status)"
api POST "/v1/jobs/$J1/progress" '{"step":1}' "$JT" >/dev/null
[ "$(status)" = 401 ] && ok "a job token cannot post for another job" || bad "job token elsewhere: $(status)"
api GET "/v1/jobs/$J6" "" "$JT" >/dev/null
[ "$(status)" = 403 ] && ok "a job token may not read the job (403)" || bad "job token read: $(status)"
api POST "/v1/jobs/$J6/progress" '{"step":43}' "$BOB" >/dev/null
[ "$(status)" = 403 ] && ok "another user cannot post progress" || bad "bob progress: $(status)"

# --- the client commands
"$BERTH" submit -g 1 --gpu-type a100 -n hello --job-type "ResNet-50 (batch size 64)" -- sh -c 'echo client says hi' >"$W/sub" 2>&1
has "$W/sub" "Submitted job" "berth submit"
J7=$(grep -o '[0-9]*$' "$W/sub")
wait_state "$J7" completed
"$BERTH" logs "$J7" >"$W/logs" 2>&1
has "$W/logs" "client says hi" "berth logs"
"$BERTH" logs -f "$J6" >"$W/logsf" 2>&1 &
LP=$!
# the cancel comes while logs -f follows the running job (it has printed the job's output)
wait_for 30 "berth logs -f to print job $J6's output" grep -q "prog started" "$W/logsf"
"$BERTH" cancel "$J6" >"$W/cancel" 2>&1
has "$W/cancel" "cancelled job $J6" "berth cancel"
gone() { ! kill -0 "$1" 2>/dev/null; }
if wait_for 30 "berth logs -f to return after the cancel" gone "$LP"; then
    wait "$LP" && ok "berth logs -f returns once the job is over" || bad "berth logs -f exited $?: $(tail -3 "$W/logsf")"
else
    kill "$LP" 2>/dev/null
fi
"$BERTH" queue --all >"$W/queue" 2>&1
has "$W/queue" "hello" "berth queue --all lists the job by name"
"$BERTH" show "$J7" >"$W/show" 2>&1
has "$W/show" "scheduled on a100-0" "berth show: the history names the GPUs"
api GET "/v1/jobs/$J7" >/dev/null
[ "$(jf job_type)" = "ResNet-50 (batch size 64)" ] && ok "berth submit --job-type reaches the job" || bad "job_type: $(jf job_type)"
"$BERTH" nodes >"$W/nodes" 2>&1
has "$W/nodes" "a100-0" "berth nodes"
expect_rc 2 "berth submit without a command" -- "$BERTH" submit -g 1
expect_rc 2 "berth submit -g 99 (400 from berthd)" -- "$BERTH" submit -g 99 -- true
has "$W/err" "gpus:" "the 400 names gpus"
expect_rc 1 "berth queue with a bad token" -- "$BERTH" queue --token nosuchtoken0000000
expect_rc 2 "berth show with a bad id" -- "$BERTH" show abc
BERTH_TOKEN= HOME=$W expect_rc 2 "berth queue without any token" -- "$BERTH" queue
printf 'server %s\ntoken %s\n' "$URL" "$BOB" >"$W/client.conf"
BERTH_SERVER= BERTH_TOKEN= BERTH_CONFIG=$W/client.conf "$BERTH" queue --all --user bob >"$W/q2" 2>&1 \
    && ok "server and token from the client config file" || bad "config file: $(cat "$W/q2")"
stop_berthd

# --- starting: a config file (flags win), bad settings, no GPUs without NVML
printf '# berthd settings\npolicy las\nquantum 5\n' >"$W/berthd.conf"
start_berthd --gpus 1x2:a100 --config "$W/berthd.conf"
api GET /v1/health >/dev/null
[ "$(jf policy)" = las ] && ok "berthd --config: policy from the file" || bad "config policy: $(cat "$W/body")"
api GET /v1/jobs/1 >/dev/null
[ "$(jf state)" = completed ] && ok "the jobs of the previous run are recovered" || bad "recovered job 1: $(cat "$W/body")"
stop_berthd
start_berthd --gpus 1x2:a100 --config "$W/berthd.conf" --policy sjf
api GET /v1/health >/dev/null
[ "$(jf policy)" = sjf ] && ok "a flag wins over the config file" || bad "flag over config: $(jf policy)"
stop_berthd
# a job the policy can never run is refused at submission (the policy's check hook)
start_berthd --gpus 1x2:a100 --policy salus-pack --state-dir "$W/st3"
api POST /v1/jobs '{"argv":["true"],"gpus":2}' >/dev/null
[ "$(status)" = 400 ] && ok "salus-pack refuses a 2-GPU job at submission (400)" || bad "2-GPU job under salus: $(status) $(cat "$W/body")"
has "$W/body" "gpus: policy salus-pack cannot run this job: the salus policies run 1-GPU jobs" "the refusal names the field and the policy"
api POST /v1/jobs '{"argv":["true"],"gpus":1}' >/dev/null
J=$(jf id)
wait_state "$J" completed && ok "a 1-GPU job runs under salus-pack"
stop_berthd
expect_rc 2 "berthd without --tokens" -- "$BERTHD" --gpus 1x1:a100 --state-dir "$W/st2"
has "$W/err" "--tokens: required" "it names --tokens"
expect_rc 2 "berthd with an unknown policy" -- "$BERTHD" --tokens "$W/tokens" --gpus 1x1:a100 --policy nope --state-dir "$W/st2"
has "$W/err" "unknown policy 'nope'" "it names the policy"
expect_rc 2 "berthd with a bad port" -- "$BERTHD" --tokens "$W/tokens" --port 70000
printf 'policy\n' >"$W/bad.conf"
expect_rc 2 "berthd with a bad config line" -- "$BERTHD" --config "$W/bad.conf"
has "$W/err" "bad.conf:1:" "it names FILE:LINE"
expect_rc 2 "berthd with an unknown executor" -- "$BERTHD" --tokens "$W/tokens" --gpus 1x1:a100 --executor nope --state-dir "$W/st2"
has "$W/err" "--executor nope: expected local or slurm" "it names --executor and the choices"
expect_rc 2 "berthd --executor slurm with --gpus" -- "$BERTHD" --tokens "$W/tokens" --gpus 1x1:a100 --executor slurm --state-dir "$W/st2"
has "$W/err" "--gpus: the slurm executor takes its GPUs from slurmctld" "it says --gpus is for the local executor"
# what this build has decides what --executor slurm must answer: ask it, never assume
"$BERTHD" --version >"$W/version" 2>&1 || bad "berthd --version failed: $(cat "$W/version")"
has "$W/version" "executors: local" "berthd --version names its executors"
if grep -q "executors: local slurm" "$W/version"; then
    expect_rc 2 "berthd --executor slurm without a reachable slurmctld" -- env SLURM_CONF="$W/no-such-slurm.conf" "$BERTHD" --tokens "$W/tokens" --executor slurm --state-dir "$W/st2"
    grep -qi "slurm" "$W/err" && ok "it says why: $(head -c 160 "$W/err")" || bad "slurm without slurmctld: $(cat "$W/err")"
else
    expect_rc 2 "berthd --executor slurm in a build without libslurm" -- "$BERTHD" --tokens "$W/tokens" --executor slurm --state-dir "$W/st2"
    has "$W/err" "built without libslurm" "it says the build lacks libslurm and how to get it"
fi
expect_rc 2 "berthd with a missing --throughputs file" -- "$BERTHD" --tokens "$W/tokens" --gpus 1x1:a100 --throughputs "$W/none.json" --state-dir "$W/st2"
has "$W/err" "none.json" "it names the file"
if ! ldconfig -p 2>/dev/null | grep -q libnvidia-ml.so.1; then
    expect_rc 2 "berthd without --gpus on a machine without NVML" -- "$BERTHD" --tokens "$W/tokens" --state-dir "$W/st2"
    has "$W/err" "libnvidia-ml.so.1 not found" "it says NVML is absent"
    has "$W/err" "--gpus" "and suggests --gpus"
fi
finish
