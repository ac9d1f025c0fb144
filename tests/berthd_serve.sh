#!/usr/bin/env bash
# Services beside batch jobs (issue 17 item 1): `berth serve` / POST /v1/services on berthd's
# local executor. A cluster file gives one training server and two servers of pool
# "inference" (2 fake GPUs each); under aryl (loan_headroom=0) a service of 1..3 one-GPU
# replicas with a target of 10 req/s per replica (headroom 0, cool-down 2 s) runs beside a
# training job that borrows the inference server the service leaves idle. Checked: only an
# admin creates services, bad bodies get 400 naming the field, scrape URLs off loopback or
# at another port are refused; replicas start with distinct BERTH_REPLICA and PORT and serve
# HTTP there; a killed replica restarts; a load of 25 req/s scales up to 3 replicas, so the
# demand rises to 2 servers and aryl reclaims the lent one (the borrower is preempted) and
# the third replica serves on it (the latency from the load's rise to the replica running is
# printed); low load scales down only after the cool-down and the server is lent again; a
# SIGKILLed berthd comes back with the same replicas re-adopted and none duplicated; an
# elastic borrower grown onto the lent server shrinks off it in place on a load rise; a
# replica that keeps exiting hits the crash-loop bound; the scrape path reads a Prometheus
# answer from a python3 http.server replica; deleting a service stops its replicas.
# Usage: as berthd_api.sh.
set -u
. "$(dirname "$0")/cli_lib.sh"
. "$(dirname "$0")/lib_berthd.sh"

cat >"$W/cl.json" <<'EOF2'
{"name": "serve live", "servers": [
 {"name": "train-0", "gpu_type": "v100", "gpus": 2, "pool": "training"},
 {"name": "infer-0", "gpu_type": "v100", "gpus": 2, "pool": "inference"},
 {"name": "infer-1", "gpu_type": "v100", "gpus": 2, "pool": "inference"}]}
EOF2
# the replica (tests/toy_replica.py): serves HTTP on $PORT (GET /metrics answers Prometheus
# text with the load, any other path "replica N"), records its variables, and in mode
# "report" posts the load it is told (the file load-N, else load, else 0) to berthd with its
# own job token
cat >"$W/job.sh" <<'SH'
#!/bin/sh
trap 'echo "checkpoint $BERTH_ATTEMPT" >>"$1.ck"; exit 0' USR1
echo "start attempt=$BERTH_ATTEMPT resume=${BERTH_RESUME:-0}"
while [ ! -e "$1" ]; do sleep 0.1; done
SH
chmod 755 "$W/job.sh"
PYS=$(reach "$2/tests/toy_replica.py")
svc_body() { # svc_body NAME MODE [EXTRA JSON FIELDS] [POOL] [GPUS]
    echo '{"name":"'"$1"'","argv":["python3","'"$PYS"'","'"$W"'","'"$2"'"],"cwd":"'"$W"'","env":{"PATH":"/usr/bin:/bin"},"gpus":'"${5:-1}"',"pool":"'"${4:-inference}"'"'"${3:-}"'}'
}
job() { echo '{"argv":["'"$W"'/job.sh","'"$W"'/'"$1"'.go"],"gpus":2,"name":"'"$1"'","checkpoint_signal":"SIGUSR1","grace_s":30,"cwd":"'"$W"'"}'; }
submit() { api POST /v1/jobs "$1" >/dev/null && jf id; }
svc() { api GET "/v1/services/$1" "" "$ROOT" >/dev/null; jf "$2"; }
inf() { api GET /v1/inference "" "$ROOT" >/dev/null; jf "$1"; }
server_of() {
    api GET "/v1/jobs/$1" >/dev/null
    python3 -c 'import json,sys; print(" ".join(sorted({a["server"] for a in json.load(open(sys.argv[1]))["allocation"]})))' "$W/body"
}
running_n() { [ "$(svc "$1" running)" = "$2" ]; }

start_berthd --gpus "$W/cl.json" --policy aryl --policy-arg loan_headroom=0

# ---- attacks and bad input: refused, naming the field, nothing made
api POST /v1/services "$(svc_body web report)" "$ALICE" >/dev/null
[ "$(status)" = 403 ] && ok "a user may not create a service (403)" || bad "user create: $(status) $(cat "$W/body")"
try() { # try WHAT BODY FIELD-TEXT
    api POST /v1/services "$2" "$ROOT" >/dev/null
    [ "$(status)" = 400 ] && has "$W/body" "$3" "$1: 400 naming it" || bad "$1: $(status) $(cat "$W/body")"
}
try "an unknown field" "$(svc_body web report ',"colour":1')" "colour: unknown field"
try "replicas_min 0" "$(svc_body web report ',"replicas_min":0')" "replicas_min: expected a whole number from 1"
try "replicas past the bound" "$(svc_body web report ',"replicas_max":33')" "replicas_max: expected a whole number from 1 to 32"
try "max below min" "$(svc_body web report ',"replicas_min":3,"replicas_max":2')" "replicas_max: expected at least replicas_min"
try "a scrape URL off loopback" "$(svc_body web scrape ',"scrape":"http://10.1.2.3:$PORT/metrics"')" "scrape: berthd scrapes only the replica's own loopback"
try "a scrape URL with another port" "$(svc_body web scrape ',"scrape":"http://127.0.0.1:22/metrics"')" "scrape: the port must be written \$PORT"
try "a scrape URL with user info" "$(svc_body web scrape ',"scrape":"http://x@127.0.0.1:$PORT/m"')" "scrape: no user info"
try "https scraping" "$(svc_body web scrape ',"scrape":"https://127.0.0.1:$PORT/m"')" "scrape: only http://"
try "a pool not inference" "$(svc_body web report "" training)" "pool: expected"
try "a bad name" '{"name":"a b","argv":["x"]}' "name: required"
try "a bad replica job" '{"name":"x","argv":[]}' "argv: expected a non-empty array"
try "GPUs past a server" "$(svc_body web report "" inference 3)" "gpus: 3 per replica"
api POST /v1/services 'not json' "$ROOT" >/dev/null
[ "$(status)" = 400 ] && ok "not JSON: 400" || bad "not json: $(status)"
api GET /v1/services "" "$ALICE" >/dev/null
[ "$(jf services)" = "[]" ] && ok "no service was made" || bad "services: $(cat "$W/body")"

# ---- a service of 1..3 replicas, 10 req/s each, beside training
api POST /v1/services "$(svc_body web report ',"replicas_min":1,"replicas_max":3,"target_rps":10,"headroom":0,"cooldown_s":2')" "$ROOT" >/dev/null
[ "$(status)" = 201 ] && ok "an admin creates service web (201)" || bad "create: $(status) $(cat "$W/body")"
S=$(jf id)
wait_for 60 "replica 0 running" running_n "$S" 1 && ok "replica 0 runs"
wait_for 30 "replica 0's record" test -s "$W/rep-0-1"
read -r _ P0 PID0 J0 <"$W/rep-0-1"
[ "$(svc "$S" replicas.0.port)" = "$P0" ] && ok "replica 0 has the PORT berthd shows ($P0)" || bad "port: $P0 vs $(cat "$W/body")"
served() { curl -s --max-time 5 "http://127.0.0.1:$1/" | grep -q "replica $2"; }
wait_for 30 "replica 0 serving on its port" served "$P0" 0 && ok "replica 0 serves HTTP on its PORT"
demand1() { [ "$(inf demand_servers)" = 1 ]; }
wait_for 30 "demand 1" demand1 && ok "one wanted replica: the inference demand is 1 server"
api GET /v1/services "" "$ALICE" >/dev/null
! grep -q '"env"' "$W/body" && has "$W/body" '"argv"' "a user reads the service, without the replicas' environment"
api POST "/v1/jobs/$J0/load" '{"load": 5}' "$BOB" >/dev/null
if [ "$MULTI" = 1 ]; then
    [ "$(status)" = 403 ] && ok "a user may not post another account's replica's load (403)" || bad "bob load: $(status)"
fi
api POST "/v1/jobs/$J0/load" '{"load": -1}' "$ROOT" >/dev/null
[ "$(status)" = 400 ] && has "$W/body" "load: required, a number from 0" "a negative load: 400 naming load" || bad "load -1: $(status)"
api POST "/v1/jobs/$J0/load" '{"load": 1, "rps": 2}' "$ROOT" >/dev/null
[ "$(status)" = 400 ] && has "$W/body" "rps: unknown field" "an unknown load field: 400 naming it" || bad "load rps: $(status)"
api POST /v1/inference '{"demand_servers": 2}' "$ROOT" >/dev/null
[ "$(status)" = 409 ] && has "$W/body" "services run on the inference pool" "with a service, the demand is not set by hand (409)" || bad "inference set: $(status)"

A=$(submit "$(job A)")
wait_state "$A" running && ok "training job A runs ($(server_of "$A"))"
api POST "/v1/jobs/$A/load" '{"load": 1}' "$ROOT" >/dev/null
[ "$(status)" = 409 ] && has "$W/body" "not a service's replica" "a batch job has no load to report (409)" || bad "load of A: $(status)"
B=$(submit "$(job B)")
wait_state "$B" running && [ "$(server_of "$B")" = infer-0 ] && ok "training job B borrows the lent inference server infer-0" ||
    bad "B on $(server_of "$B")"
[ "$(svc "$S" replicas.0.server)" = infer-1 ] && ok "replica 0 is on infer-1, which is never lent" || bad "replica 0 on: $(cat "$W/body")"

# ---- a killed replica restarts, on the same port
kill -KILL "$PID0"
restarted() { [ -s "$W/rep-0-2" ] && [ "$(svc "$S" restarts)" -ge 1 ]; }
wait_for 60 "replica 0's restart" restarted && ok "a killed replica restarts (restart count $(svc "$S" restarts))"
read -r _ P0b _ J0b <"$W/rep-0-2"
[ "$P0b" = "$P0" ] && [ "$J0b" = "$J0" ] && ok "the same job, the same port after its restart" || bad "restart: port $P0b job $J0b"

# ---- load 25 req/s: 3 replicas wanted, the demand rises to 2 servers, infer-0 is reclaimed
t0=$(date +%s.%N)
echo 25 >"$W/load"
wait_for 120 "3 replicas running" running_n "$S" 3 && ok "load 25 over a target of 10: 3 replicas run"
t1=$(date +%s.%N)
lat=$(svc "$S" last_scale_up_s)
echo "MEASURED service scale-up under aryl: load rise -> 3rd replica running: berthd $lat s (test clock $(python3 -c "print(round($t1-$t0,3))") s); inference reclaim $(inf last_reclaim_s) s"
[ "$(inf demand_servers)" = 2 ] && ok "the demand is 2 servers" || bad "demand: $(cat "$W/body")"
api GET "/v1/jobs/$B" >/dev/null
has "$W/body" "preempted by the aryl policy" "the borrower B was reclaimed by aryl"
[ -s "$W/B.go.ck" ] && ok "B checkpointed on its signal" || bad "B did not checkpoint"
python3 - "$W" <<'PY' && ok "3 replicas with distinct BERTH_REPLICA and PORT" || bad "replicas: $(cat "$W"/rep-*)"
import glob, sys
rows = {}
for f in glob.glob(sys.argv[1] + "/rep-*"):
    r, port, pid, job = open(f).read().split()
    rows[r] = port
ports = list(rows.values())
sys.exit(not (sorted(rows) == ["0", "1", "2"] and len(set(ports)) == 3))
PY
R2=$(svc "$S" replicas.2.server)
P2=$(svc "$S" replicas.2.port)
[ "$R2" = infer-0 ] && ok "the new replica runs on the reclaimed server" || bad "replica 2 on $R2"
wait_for 30 "replica 2 serving" served "$P2" 2 && ok "the new replica serves on its port"

# ---- low load: down to 1 only after the 2 s cool-down; infer-0 is lent again
echo 1 >"$W/load"
tl=$(date +%s.%N)
wait_for 60 "1 replica running" running_n "$S" 1
td=$(date +%s.%N)
python3 -c "import sys; sys.exit(not $td - $tl >= 2)" && ok "scaled down to 1 after the cool-down ($(python3 -c "print(round($td-$tl,2))") s >= 2 s)" ||
    bad "scaled down too soon: $(python3 -c "print($td-$tl)") s"
wait_state "$B" running 60 && [ "$(server_of "$B")" = infer-0 ] && ok "B runs again on the server lent back"
KEEP=$(svc "$S" replicas.0.job)

# ---- SIGKILL berthd: the same replica is re-adopted, none duplicated
stop_berthd KILL
start_berthd --gpus "$W/cl.json" --policy aryl --policy-arg loan_headroom=0
wait_for 30 "the service back" running_n "$S" 1 && [ "$(svc "$S" replicas.0.job)" = "$KEEP" ] &&
    ok "after SIGKILL and restart: the same replica (job $KEEP) runs" || bad "after restart: $(cat "$W/body")"
api GET "/v1/jobs/$KEEP" "" "$ROOT" >/dev/null
has "$W/body" "replica re-adopted after a restart" "the replica was re-adopted, not relaunched"
live=$(api GET "/v1/jobs?limit=1000" "" "$ROOT" | python3 -c 'import json,sys; print(sum(1 for j in json.load(sys.stdin)["jobs"] if j["name"].startswith("web-") and j["state"]=="running"))')
[ "$live" = 1 ] && ok "one running replica job, no duplicate" || bad "running web replicas: $live"
[ ! -e "$W/rep-0-3" ] && ok "no new attempt of the replica" || bad "replica 0 relaunched"

# ---- the scrape path: a python3 http.server replica answering Prometheus text
echo 7 >"$W/load-0"
"$BERTH" serve --token "$ROOT" --name scr --replicas 1 --scrape 'http://127.0.0.1:$PORT/metrics' \
    --scrape-interval 0.2 --cwd "$W" --no-env -e PATH=/usr/bin:/bin -- python3 "$PYS" "$W" scrape >"$W/cli.txt" 2>&1 &&
    has "$W/cli.txt" "Created service" "berth serve creates a scraped service" || bad "berth serve: $(cat "$W/cli.txt")"
SC=$(python3 -c 'import re,sys; print(re.search(r"service (\d+)", open(sys.argv[1]).read()).group(1))' "$W/cli.txt")
scraped() { [ "$(svc "$SC" load)" = 7.0 ]; }
wait_for 60 "the scraped load" scraped && ok "berthd scraped load 7 from the replica's /metrics (Prometheus text)"
"$BERTH" serve --token "$ROOT" >"$W/list.txt" 2>&1 && has "$W/list.txt" "service $SC scr" "berth serve lists the services"

# ---- a replica that keeps exiting: the crash-loop bound
api POST /v1/services '{"name":"crash","argv":["/bin/false"],"cwd":"'"$W"'"}' "$ROOT" >/dev/null
CR=$(jf id)
looped() { [ "$(svc "$CR" state)" = crash-loop ]; }
wait_for 60 "the crash loop" looped && ok "a replica exiting 5 times in a row stops being restarted (crash loop)" &&
    has "$W/body" "exited 5 times in a row" "the service says why"

# ---- delete: replicas stop, the service goes
for id in "$CR" "$SC" "$S"; do
    api DELETE "/v1/services/$id" "" "$ALICE" >/dev/null
    [ "$(status)" = 403 ] || bad "a user deleted service $id: $(status)"
    api DELETE "/v1/services/$id" "" "$ROOT" >/dev/null
    [ "$(status)" = 200 ] || bad "delete $id: $(status) $(cat "$W/body")"
done
gone() { api GET /v1/services "" "$ROOT" >/dev/null; [ "$(jf services)" = "[]" ]; }
wait_for 60 "the services gone" gone && ok "deleted services are gone, a user may not delete"
wait_state "$KEEP" cancelled && ok "the replica was stopped"
touch "$W/A.go" "$W/B.go"
for j in "$A" "$B"; do wait_state "$j" completed 60; done && ok "training jobs A and B complete"

# ---- an elastic borrower: aryl grows it onto the lent server, and a load rise shrinks it off
# that server in place (no preemption) for the new replicas
echo 0 >"$W/load"
rm -f "$W/load-0"
api POST /v1/services "$(svc_body web2 report ',"replicas_min":1,"replicas_max":3,"target_rps":10,"headroom":0,"cooldown_s":2')" "$ROOT" >/dev/null
S2=$(jf id)
wait_for 60 "web2's replica 0 running" running_n "$S2" 1
E=$(submit '{"argv":["'"$W"'/job.sh","'"$W"'/E.go"],"gpus":2,"min_gpus":2,"max_gpus":4,"job_type":"ResNet-50 (batch size 64)","name":"E","checkpoint_signal":"SIGUSR1","grace_s":30,"cwd":"'"$W"'"}')
grown() { case $(server_of "$E") in "infer-"?" train-0") return 0 ;; esac; return 1; }
wait_for 60 "elastic E grown onto a lent server" grown && ok "elastic E runs on train-0 and a lent inference server ($(server_of "$E"))"
t0=$(date +%s.%N)
echo 25 >"$W/load"
wait_for 120 "3 replicas of web2" running_n "$S2" 3 && ok "load 25: 3 replicas of web2 run"
t1=$(date +%s.%N)
echo "MEASURED elastic borrower: load rise -> 3rd replica running: berthd $(svc "$S2" last_scale_up_s) s (test clock $(python3 -c "print(round($t1-$t0,3))") s); inference reclaim $(inf last_reclaim_s) s"
api GET "/v1/jobs/$E" >/dev/null
[ "$(jf state)" = running ] && has "$W/body" "resized to train-0:0,train-0:1" "E shrank off the reclaimed server in place and runs on" ||
    bad "E: $(head -c 400 "$W/body")"
wait_for 30 "web2's replica 2 serving" served "$(svc "$S2" replicas.2.port)" 2 && ok "the new replica serves on the server E gave back"
touch "$W/E.go"
wait_state "$E" completed 60 && ok "E completes"
stop_berthd

# ---- a damaged services file stops berthd at start, naming it
echo '{"services": 5}' >"$W/st/services.json"
if timeout 30 "$BERTHD" --tokens "$W/tokens" --port 0 --state-dir "$W/st" --gpus "$W/cl.json" >"$W/bad.log" 2>&1; then
    bad "berthd started with a damaged services.json"
else
    has "$W/bad.log" "services.json: services: expected at most 16" "a damaged services.json stops berthd, naming the file and field"
fi
finish
