#!/usr/bin/env bash
# berthd's dashboard at /ui/ in a real browser: headless Chromium opens it against a berthd
# with fake GPUs running a small workload of two users; the DOM must show every running
# job's GPUs in the grid (a cell per GPU, marked with its job), the waiting jobs in the queue
# with their reasons, the running ones in their table, the charts loaded; a job's page shows
# its history and its log's tail. Screenshots of both are kept under the build folder's
# test-artefacts/. Also: the page's files are open but every data call needs a token (the
# charts too), the page's Content-Security-Policy, /ui redirects, unknown files are 404.
# Usage: berthd_ui.sh BERTH SRC SHARED BERTHD
set -u
. "$(dirname "$0")/cli_lib.sh"
. "$(dirname "$0")/lib_berthd.sh"

start_berthd --gpus 2x4:a100,1x2:v100 --policy fifo-skip
hdr() { curl -s --max-time 30 -o "$W/body" -D "$W/headers" -w '%{http_code}' "$URL$1" >"$W/status"; }

# the static files: open, with their types and the policy
hdr /ui/
[ "$(status)" = 200 ] && grep -qi '^Content-Type: text/html' "$W/headers" && ok "/ui/ without a token: the page" || bad "/ui/: $(status)"
grep -qi "^Content-Security-Policy: default-src 'none'; script-src 'self'" "$W/headers" &&
    ok "the page's CSP allows only its own script" || bad "CSP: $(grep -i security "$W/headers")"
grep -q '<script src="app.js" defer></script>' "$W/body" && ! grep -qE '<script>| on[a-z]+="' "$W/body" &&
    ok "no inline script or handler in the page" || bad "inline script in index.html"
hdr /ui/app.js
[ "$(status)" = 200 ] && grep -qi '^Content-Type: text/javascript' "$W/headers" && ok "app.js" || bad "app.js: $(status)"
hdr /ui/style.css
[ "$(status)" = 200 ] && grep -qi '^Content-Type: text/css' "$W/headers" && ok "style.css" || bad "style.css: $(status)"
hdr /ui
[ "$(status)" = 301 ] && grep -qi '^Location: /ui/' "$W/headers" && ok "/ui redirects to /ui/" || bad "/ui: $(status)"
hdr /ui/nope.js
[ "$(status)" = 404 ] && ok "an unknown file: 404" || bad "unknown file: $(status)"
hdr /ui/../v1/jobs
[ "$(status)" = 401 ] || [ "$(status)" = 404 ] && ok "no way out of /ui/ to the API without a token ($(status))" || bad "/ui/../: $(status)"
hdr /v1/charts/busy
[ "$(status)" = 401 ] && ok "the charts need a token" || bad "/v1/charts without a token: $(status)"

# a workload: alice's 4-GPU and 2-GPU jobs and bob's 2-GPU job run; two wait; one is held
sub() { api POST /v1/jobs "$1" "${2:-$ALICE}" >/dev/null; jf id; }
R1=$(sub '{"argv":["sh","-c","i=0; while :; do i=$((i+1)); echo step $i; sleep 0.2; done"],"name":"train-resnet","gpus":4,"queue":"research"}')
R2=$(sub '{"argv":["sleep","600"],"name":"eval-bert","gpus":2,"queue":"research","gpu_type":"v100"}')
R3=$(sub '{"argv":["sleep","600"],"name":"sweep-lr","gpus":2,"queue":"prod"}' "$BOB")
P1=$(sub '{"argv":["sleep","600"],"name":"big-gang","gpus":4,"queue":"research"}' "$BOB")
P2=$(sub '{"argv":["sleep","600"],"name":"another-gang","gpus":4,"gpu_type":"a100"}')
H1=$(sub '{"argv":["sleep","1"],"name":"held-one","gpus":1,"hold":true}')
for j in $R1 $R2 $R3; do wait_state "$j" running; done
api GET /v1/jobs?why=1 >/dev/null
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); w=[j for j in d["jobs"] if j["state"]=="pending"]; import re; assert w and all(re.match(r"(Priority|Resources|QuotaExceeded): .*GPU", j["why"]) and "submitted before it" not in j["why"] for j in w)' "$W/body" &&
    ok "GET /v1/jobs?why=1: each waiting job with its reason" || bad "why=1: $(head -c 300 "$W/body")"
api GET "/v1/jobs/$R1/logs?tail=8" >/dev/null
[ "$(status)" = 200 ] && [ "$(stat -c %s "$W/body")" -le 8 ] && ok "logs?tail=8: at most the last 8 bytes" || bad "tail: $(status) $(cat "$W/body")"
api GET "/v1/jobs/$R1/logs?tail=8&offset=0" >/dev/null
[ "$(status)" = 400 ] && ok "tail and offset together: 400" || bad "tail+offset: $(status)"
# the history the charts draw: a sample every 5 s; wait for a line
wait_for 60 "the busy-GPUs chart to draw a line" bash -c \
    "curl -s -H 'Authorization: Bearer $ALICE' '$URL/v1/charts/busy?window=3600' | grep -q '<polyline'"
for c in busy jobs util wait fairness; do
    api GET "/v1/charts/$c?window=3600" >/dev/null
    [ "$(status)" = 200 ] && grep -q '<svg xmlns="http://www.w3.org/2000/svg" class="chart"' "$W/body" || bad "chart $c: $(status)"
done
ok "the five charts are SVG behind the token"
api GET "/v1/charts/nope" >/dev/null
[ "$(status)" = 404 ] && ok "an unknown chart: 404" || bad "unknown chart: $(status)"
api GET "/v1/charts/busy?window=5" >/dev/null
[ "$(status)" = 400 ] && [ "$(jf field)" = window ] && ok "a bad window: 400 naming it" || bad "window: $(status)"

if ! have_chrome; then
    skip_test chromium "the browser checks: chromium is not installed (make test installs it)"
fi
# the overview, as the browser built it
chrome --virtual-time-budget=15000 --dump-dom "$URL/ui/#token=$ALICE" >"$W/dom.html"
python3 - "$W/dom.html" "$R1:4" "$R2:2" "$R3:2" "$P1" "$P2" "$H1" <<'PY' >"$W/py.out" 2>&1 && ok "the DOM: each running job's GPUs in the grid, the queue's jobs with reasons, the running table, the charts" || bad "the dashboard's DOM: $(cat "$W/py.out") $(tail -5 "$W/chrome.err")"
import re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
assert 'data-ready="1"' in dom, "the page never finished a refresh"
running = [a.split(":") for a in sys.argv[2:5]]
for jid, gpus in running:
    cells = re.findall(r'<span class="gpu busy" data-state="busy"[^>]*data-job="%s"' % jid, dom)
    assert len(cells) == int(gpus), "job %s: %d GPU cells, want %s" % (jid, len(cells), gpus)
    assert re.search(r'<tr data-job="%s">' % jid, dom), "job %s not in the running table" % jid
idle = re.findall(r'<span class="gpu idle" data-state="idle"', dom)
assert len(idle) == 2, "%d idle GPUs, want 2" % len(idle)
q = re.search(r'<table id="queue-table">.*?</table>', dom, re.S).group(0)
for jid in sys.argv[5:7]:
    row = re.search(r'<tr data-job="%s" data-state="pending">(.*?)</tr>' % jid, q, re.S)
    assert row, "pending job %s not in the queue" % jid
    assert re.search(r"(Priority|Resources|QuotaExceeded): .*GPU", row.group(1)), "no reason for %s" % jid
assert re.search(r'<tr data-job="%s" data-state="held">' % sys.argv[7], q), "the held job is not in the queue"
for c in ("busy", "jobs", "util", "wait", "fairness"):
    assert re.search(r'<img id="chart-%s"[^>]*src="blob:' % c, dom), "chart %s not loaded" % c
assert "GPUs busy" in dom and "policy" in dom
PY
PNG=$(artefact berthd-dashboard.png)
rm -f "$PNG"
chrome --virtual-time-budget=15000 --window-size=1400,1900 --screenshot="$PNG" "$URL/ui/#token=$ALICE" >/dev/null
[ -s "$PNG" ] && [ "$(stat -c %s "$PNG")" -gt 50000 ] && ok "a screenshot of the dashboard: $PNG" || bad "no dashboard screenshot: $(tail -3 "$W/chrome.err")"

# a job's page: its fields, history and log tail
chrome --virtual-time-budget=10000 --dump-dom "$URL/ui/#/job/$R1&token=$ALICE" >"$W/job.html"
python3 - "$W/job.html" "$R1" <<'PY' >"$W/py.out" 2>&1 && ok "a job's page: title, history timeline and the log's tail" || bad "job page: $(cat "$W/py.out")"
import re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
assert re.search(r'<span id="job-title">Job %s: train-resnet</span>' % sys.argv[2], dom), "title"
assert re.search(r'<span id="job-state" class="badge running">running</span>', dom), "state badge"
assert re.search(r'<div id="job-timeline"[^>]*><span class="pending"', dom), "timeline"
assert "submitted by" in dom, "history notes"
assert re.search(r'<pre id="job-logs">[^<]*step \d+', dom), "log tail"
PY
PNG=$(artefact berthd-job.png)
rm -f "$PNG"
chrome --virtual-time-budget=10000 --window-size=1400,1000 --screenshot="$PNG" "$URL/ui/#/job/$R1&token=$ALICE" >/dev/null
[ -s "$PNG" ] && ok "a screenshot of the job's page: $PNG" || bad "no job screenshot"
# a bad token: the page asks for one
chrome --virtual-time-budget=5000 --dump-dom "$URL/ui/#token=nosuchtoken0000000000" >"$W/login.html"
grep -q '<section id="login" class="card narrow">' "$W/login.html" && grep -q 'refused this token' "$W/login.html" &&
    ok "a bad token: the page shows the login with why" || bad "login: $(grep -o '<section id="login"[^>]*>' "$W/login.html")"
stop_berthd
cleanup_jobs
finish
