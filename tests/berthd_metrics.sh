#!/usr/bin/env bash
# berthd's /metrics and /healthz (docs/security.md, "What anyone may read"): open to callers
# without a token, Prometheus's text format (promtool check metrics), the counts right (jobs
# by state and queue, GPUs by type and state, the wait, pass and commit histograms,
# submissions, preemptions, requests by route and code); nothing of a job's name, command,
# user or token in them; queue labels bounded (17 at most however many queues are named, or
# the queues file's queues and _other, whatever junk queue names came first);
# route labels the table's patterns, never a raw path; --metrics-listen moves /metrics to an
# address of its own; /v1/health stays behind the token; and a real Prometheus scrapes berthd
# on loopback and answers a query for a berth series.
# Usage: berthd_metrics.sh BERTH SRC SHARED BERTHD
set -u
. "$(dirname "$0")/cli_lib.sh"
. "$(dirname "$0")/lib_berthd.sh"

start_berthd --gpus 2x4:a100,1x2:v100 --policy fifo-skip
open_get() { curl -s --max-time 30 -o "$W/body" -D "$W/headers" -w '%{http_code}' "$URL$1" >"$W/status"; }
metric() { # metric 'NAME{LABELS}' : its value in the last /metrics body
    awk -v k="$1" '$1 == k { print $2 }' "$W/body"
}

open_get /healthz
[ "$(status)" = 200 ] && grep -qx ok "$W/body" && ok "/healthz without a token: 200 ok" || bad "/healthz: $(status) $(cat "$W/body")"
curl -s -o /dev/null -w '%{http_code}' "$URL/v1/health" >"$W/status"
[ "$(status)" = 401 ] && ok "/v1/health still needs a token" || bad "/v1/health: $(status)"

# a workload with names, commands and users that must not show
api POST /v1/jobs '{"argv":["sh","-c","echo hunter2-password; sleep 600"],"name":"secret-project-x","gpus":4,"queue":"research"}' >/dev/null
J1=$(jf id)
api POST /v1/jobs '{"argv":["sleep","600"],"name":"alpha","gpus":4,"queue":"research","gpu_type":"a100"}' "$BOB" >/dev/null
J2=$(jf id)
api POST /v1/jobs '{"argv":["sleep","600"],"name":"beta","gpus":4,"queue":"q with space"}' >/dev/null
J3=$(jf id)
api POST /v1/jobs '{"argv":["sleep","1"],"name":"gamma","gpus":1,"hold":true}' >/dev/null
J4=$(jf id)
wait_state "$J1" running && wait_state "$J2" running
open_get /metrics
[ "$(status)" = 200 ] && ok "/metrics without a token: 200" || bad "/metrics: $(status) $(head -c 200 "$W/body")"
grep -qi '^Content-Type: text/plain; version=0.0.4' "$W/headers" && ok "the exposition's content type" ||
    bad "content type: $(grep -i content-type "$W/headers")"
cp "$W/body" "$W/m1"
[ "$(metric 'berth_jobs{state="running",queue="research"}')" = 2 ] && ok "2 jobs running in queue research" ||
    bad "running research: $(grep 'queue="research"' "$W/m1")"
[ "$(metric 'berth_jobs{state="pending",queue="_other"}')" = 1 ] && ok "the queue 'q with space' counts under _other" ||
    bad "pending _other: $(grep '_other' "$W/m1")"
[ "$(metric 'berth_jobs{state="held",queue="_other"}')" = 1 ] && ok "a held job without a queue under _other" || bad "held"
[ "$(metric 'berth_gpus{type="a100",state="busy"}')" = 8 ] && [ "$(metric 'berth_gpus{type="v100",state="idle"}')" = 2 ] &&
    ok "GPUs by type and state" || bad "gpus: $(grep '^berth_gpus' "$W/m1")"
[ "$(metric berth_submissions_total)" = 4 ] && ok "4 submissions" || bad "submissions: $(metric berth_submissions_total)"
[ "$(metric berth_queue_wait_seconds_count)" = 2 ] && ok "the wait histogram counts the 2 starts" ||
    bad "wait count: $(metric berth_queue_wait_seconds_count)"
[ "$(metric berth_queue_wait_seconds_count)" = "$(metric 'berth_queue_wait_seconds_bucket{le="+Inf"}')" ] &&
    ok "its +Inf bucket is its count" || bad "+Inf bucket"
[ "$(metric berth_scheduling_pass_duration_seconds_count)" -ge 1 ] 2>/dev/null && ok "passes timed" || bad "pass histogram"
[ "$(metric berth_journal_commit_duration_seconds_count)" -ge 4 ] 2>/dev/null && ok "journal commits timed" || bad "commit histogram: $(metric berth_journal_commit_duration_seconds_count)"
[ "$(metric 'berth_http_requests_total{route="/v1/jobs",method="POST",code="201"}')" = 4 ] &&
    ok "requests by route, method and code" || bad "requests: $(grep '^berth_http_requests' "$W/m1")"
for leak in secret-project hunter2 alpha beta gamma sleep "$ALICE" "$BOB" "$ROOT" berth-t-alice berth-t-bob "q with space"; do
    grep -qF -- "$leak" "$W/m1" && bad "/metrics shows '$leak'"
done
ok "no job name, command, user or token in /metrics"
if command -v promtool >/dev/null 2>&1; then
    promtool check metrics <"$W/m1" >"$W/promtool" 2>&1 && ok "promtool check metrics: no problem" ||
        bad "promtool: $(cat "$W/promtool")"
else
    absent prometheus "promtool check metrics: promtool is not installed (make test installs prometheus)"
fi

# route labels: the table's patterns and "other", never a raw path
api GET "/v1/jobs/$J1" >/dev/null
curl -s -o /dev/null "$URL/no/such/path/$RANDOM"
curl -s -o /dev/null -H 'Authorization: Bearer nosuchtoken00000000' "$URL/v1/jobs"
open_get /metrics
grep -q 'route="/v1/jobs/{id}",method="GET",code="200"' "$W/body" && ok "a job's path counts as /v1/jobs/{id}" || bad "id route label"
grep -q 'route="other",method="other",code="401"' "$W/body" && ok "an unknown path counts as other" || bad "other route: $(grep http_requests "$W/body")"
grep -q 'route="/v1/jobs",method="GET",code="401"' "$W/body" && ok "a bad token counts as 401" || bad "401 label"
grep -q 'no/such' "$W/body" && bad "a raw path became a label" || ok "no raw path in the labels"
curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: text/plain' --data-binary 'x' -X GET "$URL/metrics" >"$W/status"
[ "$(status)" = 413 ] && ok "a body on /metrics: 413, not read" || bad "body on /metrics: $(status)"

# the labels stay bounded: 40 queues named, at most 16 of them become labels
for i in $(seq 1 40); do
    api POST /v1/jobs '{"argv":["true"],"gpus":1,"hold":true,"queue":"team-'$i'"}' >/dev/null
done
open_get /metrics
q=$(grep -o 'queue="[^"]*"' "$W/body" | sort -u | wc -l)
[ "$q" -le 17 ] && ok "40 queues named: $q queue labels (16 names and _other)" || bad "$q queue labels"
size=$(stat -c %s "$W/body")
[ "$size" -lt 65536 ] && ok "the exposition stays small ($size bytes)" || bad "the exposition is $size bytes"

stop_berthd
cleanup_jobs
rm -rf "$W/st" # a fresh berthd: the next checks count from nothing

# the queues file's queues own their labels: 18 declared (more than 16), "*" takes the rest;
# a user squats with 20 junk queue names before any declared queue has a job
{ for i in $(seq 1 18); do echo "queue ops-$i"; done; echo "queue *"; } >"$W/queues"
start_berthd --gpus 2x4:a100 --policy fifo-skip --queues "$W/queues"
for i in $(seq 1 20); do
    api POST /v1/jobs '{"argv":["true"],"gpus":1,"hold":true,"queue":"junk-'$i'"}' >/dev/null
done
[ "$(status)" = 201 ] && ok "20 junk queue names accepted (queue * takes them)" || bad "junk queue: $(status) $(cat "$W/body")"
api POST /v1/jobs '{"argv":["true"],"gpus":1,"hold":true,"queue":"ops-3"}' "$BOB" >/dev/null
api POST /v1/jobs '{"argv":["true"],"gpus":1,"hold":true,"queue":"ops-17"}' "$BOB" >/dev/null
open_get /metrics
[ "$(metric 'berth_jobs{state="held",queue="ops-3"}')" = 1 ] && [ "$(metric 'berth_jobs{state="held",queue="ops-17"}')" = 1 ] &&
    ok "after 20 junk queues the operator's queues ops-3 and ops-17 keep their labels" ||
    bad "declared queues lost their labels: $(grep '^berth_jobs{state="held"' "$W/body")"
[ "$(metric 'berth_jobs{state="held",queue="_other"}')" = 20 ] && ok "the 20 junk queues count under _other" ||
    bad "_other: $(grep '_other' "$W/body")"
[ "$(metric 'berth_jobs{state="held",queue="ops-18"}')" = 0 ] && ok "a declared queue without jobs has its label, at 0" || bad "ops-18 label"
grep -q 'queue="junk-' "$W/body" && bad "a junk queue name became a label" || ok "no junk queue name in the labels"
q=$(grep -o 'queue="[^"]*"' "$W/body" | sort -u | wc -l)
[ "$q" = 19 ] && ok "19 queue labels: the 18 declared and _other" || bad "$q queue labels"
stop_berthd
cleanup_jobs
rm -rf "$W/st"
# --metrics-listen: /metrics on an address of its own (port 0: berthd's log names it)
start_berthd --gpus 1x2:a100 --policy fifo --metrics-listen 127.0.0.1:0
wait_for 30 "the metrics address in berthd's log" grep -q 'metrics on http://127.0.0.1:[0-9]*/metrics' "$W/berthd.log"
MADDR=$(grep -o 'metrics on http://127.0.0.1:[0-9]*' "$W/berthd.log" | tail -1 | sed 's#metrics on http://##')
curl -s -o "$W/body" -w '%{http_code}' "http://$MADDR/metrics" >"$W/status"
[ "$(status)" = 200 ] && grep -q '^berth_up 1$' "$W/body" && ok "--metrics-listen: /metrics there" || bad "metrics address: $(status)"
curl -s -o /dev/null -w '%{http_code}' "http://$MADDR/healthz" >"$W/status"
[ "$(status)" = 200 ] && ok "and /healthz" || bad "healthz on the metrics address: $(status)"
curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $ALICE" "http://$MADDR/v1/jobs" >"$W/status"
[ "$(status)" = 404 ] && ok "the API is not served there, even with a token" || bad "API on the metrics address: $(status)"
open_get /metrics
[ "$(status)" = 404 ] && ok "/metrics is gone from the API's address" || bad "/metrics on the API address: $(status)"
open_get /healthz
[ "$(status)" = 200 ] && ok "/healthz stays on the API's address" || bad "healthz: $(status)"

# a real Prometheus on loopback scrapes berthd and answers a query
if ! command -v prometheus >/dev/null 2>&1; then
    absent prometheus "the scrape: prometheus is not installed (make test installs it)"
else
    api POST /v1/jobs '{"argv":["sleep","600"],"gpus":1,"queue":"scraped"}' >/dev/null
    cat >"$W/prom.yml" <<Y
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: berthd
    static_configs:
      - targets: ['$MADDR']
Y
    PPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    prometheus --config.file="$W/prom.yml" --storage.tsdb.path="$W/prom" \
        --web.listen-address="127.0.0.1:$PPORT" --log.level=warn >"$W/prom.log" 2>&1 &
    PPID_=$!
    q() { curl -s --max-time 10 "http://127.0.0.1:$PPORT/api/v1/query" --data-urlencode "query=$1"; }
    wait_for 120 "Prometheus to scrape berth_up from berthd" bash -c \
        "curl -s --max-time 5 'http://127.0.0.1:$PPORT/api/v1/query?query=berth_up' | grep -q '\"value\":\[[0-9.]*,\"1\"\]'" &&
        ok "Prometheus scraped berthd: berth_up is 1"
    wait_for 60 "the scraped job in Prometheus" bash -c \
        "curl -s --max-time 5 'http://127.0.0.1:$PPORT/api/v1/query' --data-urlencode 'query=berth_jobs{queue=\"scraped\",state=\"running\"}' | grep -q '\"value\":\[[0-9.]*,\"1\"\]'" &&
        ok "a query answers berth_jobs{queue=\"scraped\",state=\"running\"} = 1"
    q 'up{job="berthd"}' | grep -q '"value":\[[0-9.]*,"1"\]' && ok "Prometheus sees the target up" || bad "up: $(q 'up')"
    kill "$PPID_" 2>/dev/null
    wait "$PPID_" 2>/dev/null
fi
stop_berthd
cleanup_jobs
finish
