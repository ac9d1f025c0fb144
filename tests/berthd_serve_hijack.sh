#!/usr/bin/env bash
# Replica identity (issue 34, M1 / item 3): berthd scrapes a replica's load only from a
# listener the replica's own processes hold, and shows replica ports only to admins and the
# service's owner. An admin's service (1..4 one-GPU replicas, 10 req/s each, scraped every
# 0.2 s) runs a replica that binds its port late (tests/toy_replica.py "late"); an ordinary
# user's job binds 127.0.0.1:PORT first and answers `load 1000000`. Checked: the scrape is
# refused, with the reason (naming the port and the replica) in GET /v1/services for the
# admin, in `berth serve` and in berthd's log; no load is taken, the service stays at 1
# replica and the inference demand at 1 server (before: 1 -> 4 replicas, the whole pool);
# another user's GET /v1/services, GET /v1/jobs/ID and `berth serve` show no port. Once the
# user's job is gone and the replica binds, its own load (7) is scraped. Then the restart
# window: the replica is killed, the user's job takes the port before the new attempt binds
# it, and that scrape is refused too. Usage: as berthd_api.sh.
set -u
. "$(dirname "$0")/cli_lib.sh"
. "$(dirname "$0")/lib_berthd.sh"

cat >"$W/cl.json" <<'EOF2'
{"name": "hijack", "servers": [
 {"name": "train-0", "gpu_type": "v100", "gpus": 2, "pool": "training"},
 {"name": "infer-0", "gpu_type": "v100", "gpus": 2, "pool": "inference"},
 {"name": "infer-1", "gpu_type": "v100", "gpus": 2, "pool": "inference"}]}
EOF2
# the squatter, run as an ordinary user's job: takes 127.0.0.1:PORT as soon as it is free and
# answers every GET with "load 1000000"; DIR/squat-N says it listens
cat >"$W/squat.py" <<'PY'
import http.server, os, sys, time
W, port, n = sys.argv[1], int(sys.argv[2]), sys.argv[3]
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"load 1000000\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
end = time.monotonic() + 60
while True:
    try:
        srv = http.server.HTTPServer(("127.0.0.1", port), H)
        break
    except OSError:
        if time.monotonic() > end:
            sys.exit(1)
        time.sleep(0.02)
open(os.path.join(W, "squat-" + n), "w").write("%d\n" % os.getpid())
srv.serve_forever()
PY
chmod 644 "$W/squat.py"
PYS=$(reach "$2/tests/toy_replica.py")
svc() { api GET "/v1/services/$1" "" "${3:-$ROOT}" >/dev/null; jf "$2"; }
inf() { api GET /v1/inference "" "$ROOT" >/dev/null; jf "$1"; }
running_n() { [ "$(svc "$1" running)" = "$2" ]; }
squat() { # squat N: the user's job that takes the port; prints its id
    api POST /v1/jobs '{"name":"squat-'"$1"'","argv":["python3","'"$W"'/squat.py","'"$W"'","'"$P"'","'"$1"'"],"gpus":1,"cwd":"'"$W"'"}' "$ALICE" >/dev/null
    jf id
}
refused_by_other() { svc "$S" replicas.0.scrape_refused | grep -qF "scrape refused: 127.0.0.1:$P is held by a process outside replica 0 (uid "; }
refused_n() { local n; n=$(svc "$S" scrapes_refused); [ "$n" -ge 0 ] 2>/dev/null && echo "$n" || echo 0; }
refusals_past() { [ "$(refused_n)" -ge "$1" ]; }

# one pass: the replica's processes are its cgroup's (auto, where cgroups are writable) or its
# process group's (none)
run_case() {
    start_berthd --gpus "$W/cl.json" --policy aryl --policy-arg loan_headroom=0 --isolation "$1"
    echo "-- isolation $1: $(grep -m1 -o 'isolation: .*' "$W/berthd.log" || grep -m1 -i 'cgroup' "$W/berthd.log")"
    echo 7 >"$W/load-0"
    chmod 644 "$W/load-0"
    api POST /v1/services '{"name":"web","argv":["python3","'"$PYS"'","'"$W"'","late"],"cwd":"'"$W"'","env":{"PATH":"/usr/bin:/bin"},"gpus":1,"replicas_min":1,"replicas_max":4,"target_rps":10,"headroom":0,"cooldown_s":1,"scrape":"http://127.0.0.1:$PORT/metrics","scrape_interval_s":0.2}' "$ROOT" >/dev/null
    [ "$(status)" = 201 ] && ok "an admin creates service web (201)" || bad "create: $(status) $(cat "$W/body")"
    S=$(jf id)
    wait_for 60 "replica 0 running" running_n "$S" 1 && ok "replica 0 runs (not listening yet)"
    P=$(svc "$S" replicas.0.port)
    J0=$(svc "$S" replicas.0.job)
    [ "$P" -gt 0 ] 2>/dev/null && ok "the admin sees replica 0's port ($P)" || bad "admin's port: $(cat "$W/body")"

    # ---- who sees the port: an admin and the owner; another user never
    if [ "$MULTI" = 1 ]; then
        api GET /v1/services "" "$ALICE" >/dev/null
        [ "$(jf services.0.replicas.0.port)" = None ] && [ "$(jf services.0.last_scrape_error)" = None ] &&
            ok "another user's GET /v1/services: replica port and last scrape error are null" || bad "user's list: $(cat "$W/body")"
        ! grep -q "\"$P\"\|: *$P[,}]" "$W/body" && ok "the port appears nowhere in the user's list" || bad "port $P in: $(cat "$W/body")"
        [ "$(svc "$S" replicas.0.port "$ALICE")" = None ] && ok "another user's GET /v1/services/ID: port null" || bad "user's show: $(cat "$W/body")"
        api GET "/v1/jobs/$J0" "" "$ALICE" >/dev/null
        [ "$(status)" = 200 ] && [ "$(jf port)" = None ] && ! grep -q "port $P" "$W/body" &&
            ok "another user's GET /v1/jobs/$J0: the replica's port is null, its history names none" || bad "user's job view: $(head -c 600 "$W/body")"
        api GET "/v1/jobs/$J0" "" "$ROOT" >/dev/null
        [ "$(jf port)" = "$P" ] && ok "the admin's GET /v1/jobs/$J0 shows the port" || bad "admin's job view: $(head -c 400 "$W/body")"
        "$BERTH" serve --token "$ALICE" >"$W/cli-user.txt" 2>&1 &&
            has "$W/cli-user.txt" "job $J0 on infer-" "berth serve lists the service for another user" &&
            has "$W/cli-user.txt" " port -, " "berth serve shows another user 'port -'"
    else
        echo "SKIP the other user's view: berthd is single-user (not root), every token is the owner's"
    fi

    # ---- the user's job takes the port first and answers load 1000000
    Q1=$(squat 1)
    wait_for 60 "the squatter listening" test -s "$W/squat-1" && ok "user's job $Q1 listens on 127.0.0.1:$P first"
    wait_for 30 "the refusal" refused_by_other && ok "the scrape is refused: $(svc "$S" replicas.0.scrape_refused)"
    N=$(refused_n)
    wait_for 30 "five more refused scrapes" refusals_past $((N + 5)) && ok "refused scrapes are counted ($(refused_n))"
    api GET "/v1/services/$S" "" "$ROOT" >/dev/null
    [ "$(jf wanted)" = 1 ] && [ "$(jf scale_ups)" = 0 ] && [ "$(jf reporting)" = 0 ] && [ "$(jf replicas.0.load)" = None ] &&
        ok "no load taken from it: 1 replica wanted, no scale-up, none reporting" || bad "scaled: $(cat "$W/body")"
    has "$W/body" "replica 0: scrape refused: 127.0.0.1:$P is held by a process outside replica 0" "last_scrape_error says so to the admin"
    [ "$(inf demand_servers)" = 1 ] && ok "the inference demand stays 1 server" || bad "demand: $(cat "$W/body")"
    has "$W/berthd.log" "replica 0 (job $J0): scrape refused: 127.0.0.1:$P is held by a process outside replica 0" "berthd logs the refusal"
    [ "$(grep -c "scrape refused: 127.0.0.1:$P is held" "$W/berthd.log")" = 1 ] && ok "logged once, not at every scrape" || bad "log lines: $(grep -c "scrape refused" "$W/berthd.log")"
    "$BERTH" serve --token "$ROOT" >"$W/cli-admin.txt" 2>&1 && has "$W/cli-admin.txt" "port $P, " "berth serve shows the admin the port" &&
        has "$W/cli-admin.txt" "    scrape refused: 127.0.0.1:$P is held by a process outside replica 0" "berth serve shows the admin the refusal"
    if [ "$MULTI" = 1 ]; then
        [ "$(svc "$S" replicas.0.scrape_refused "$ALICE")" = None ] && ok "another user sees no refusal text (it names the port)" ||
            bad "user sees: $(cat "$W/body")"
    fi

    # ---- the user's job gone, the replica binds: its own load is scraped
    api POST "/v1/jobs/$Q1/cancel" "" "$ALICE" >/dev/null
    wait_state "$Q1" cancelled
    touch "$W/bind-0-1"
    scraped7() { [ "$(svc "$S" load)" = 7.0 ]; }
    wait_for 60 "the replica's own load" scraped7 && ok "the replica's own listener is scraped: load 7"
    [ "$(svc "$S" replicas.0.scrape_refused)" = None ] && ok "no refusal shown once the scrape is the replica's" || bad "refused: $(cat "$W/body")"

    # ---- the restart window: the replica dies, the user's job binds before the new attempt does
    wait_for 30 "replica 0's record" test -s "$W/rep-0-1"
    read -r _ _ PID0 _ <"$W/rep-0-1"
    Q2=$(squat 2)
    kill -KILL "$PID0"
    wait_for 60 "the squatter in the restart window" test -s "$W/squat-2" && ok "user's job $Q2 takes 127.0.0.1:$P while replica 0 restarts"
    attempt2() { api GET "/v1/jobs/$J0" "" "$ROOT" >/dev/null; [ "$(jf attempt)" = 2 ] && [ "$(jf state)" = running ]; }
    wait_for 60 "replica 0's second attempt" attempt2
    N=$(refused_n)
    wait_for 30 "refusals in the restart window" refusals_past $((N + 5)) && refused_by_other &&
        ok "the new attempt's scrape of the user's listener is refused too"
    api GET "/v1/services/$S" "" "$ROOT" >/dev/null
    [ "$(jf wanted)" = 1 ] && [ "$(jf scale_ups)" = 0 ] && [ "$(jf restarts)" -ge 1 ] &&
        ok "still 1 replica wanted after the restart window, no scale-up" || bad "after restart: $(cat "$W/body")"
    [ "$(inf demand_servers)" = 1 ] && ok "the inference demand is still 1 server" || bad "demand: $(cat "$W/body")"

    api POST "/v1/jobs/$Q2/cancel" "" "$ALICE" >/dev/null
    api DELETE "/v1/services/$S" "" "$ROOT" >/dev/null
    gone() { api GET /v1/services "" "$ROOT" >/dev/null; [ "$(jf services)" = "[]" ]; }
    wait_for 60 "the service gone" gone && ok "the service is deleted"
    stop_berthd
    rm -rf "$W/st" "$W"/rep-* "$W"/squat-? "$W"/bind-* && mv "$W/berthd.log" "$W/berthd-$1.log"
}
run_case auto
run_case none
finish
