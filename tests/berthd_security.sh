#!/usr/bin/env bash
# berthd attacked by its users (docs/security.md): jobs run as their token's Unix account
# and cannot read another's logs, the token file or the journal; the Unix socket knows its
# callers by their account; single-user mode refuses tokens for other accounts; a token
# file others may read is refused; SIGHUP reloads tokens and limits and kills nothing;
# per-user limits answer 429 with Retry-After and hold jobs past a GPU limit outside the
# scheduler; a false est_s under srtf buys a bounded head start; numeric signals,
# duplicate keys, unknown GPU types and control characters are refused, and the CLI
# escapes control and invisible characters from any server. Usage: berthd_security.sh BERTH SRC SHARED BERTHD
set -u
. "$(dirname "$0")/cli_lib.sh"
. "$(dirname "$0")/lib_berthd.sh"

# ---- identity: jobs run as their users ------------------------------------------------
start_berthd --gpus 1x4:v100 --policy fifo
SOCK=$W/st/berthd.sock
api POST /v1/jobs '{"argv":["sh","-c","id -u; id -un; echo home=$HOME; echo secret-of-alice; cat '"$W"'/tokens; cat '"$W"'/st/journal.db | head -c 16; ls '"$W"'/st; echo end"],"cwd":"/","gpus":0}' >/dev/null
A=$(jf id)
wait_state "$A" completed
OUT=$(spool "$A" stdout.log)
ERR=$(spool "$A" stderr.log)
if [ "$MULTI" = 1 ]; then
    [ "$(sed -n 1p "$OUT")" = "$(id -u "$ALICE_USER")" ] && ok "alice's job ran as uid $(id -u "$ALICE_USER") ($ALICE_USER)" ||
        bad "alice's job ran as uid $(sed -n 1p "$OUT"), want $(id -u "$ALICE_USER")"
    has "$OUT" "home=$(getent passwd "$ALICE_USER" | cut -d: -f6)" "HOME is the account's"
    has "$ERR" "$W/tokens: Permission denied" "the job cannot read the token file"
    has "$ERR" "journal.db: Permission denied" "the job cannot read the journal"
    ! grep -q "alicetoken" "$OUT" && ok "no token leaked into the job's output" || bad "a token leaked: $(cat "$OUT")"
    [ "$(stat -c %U "$OUT")" = "$ALICE_USER" ] && ok "the job's log is its user's" || bad "log owner: $(stat -c %U "$OUT")"
    [ "$(stat -c %a "$W/st")" = 711 ] && [ "$(stat -c %a "$W/st/jobs")" = 700 ] &&
        [ "$(stat -c %a "$W/st/journal.db")" = 600 ] && [ "$(stat -c %a "$(dirname "$OUT")")" = 700 ] &&
        ok "modes: state 711, jobs 700, journal 600, spool folder 700" ||
        bad "modes: $(stat -c '%n %a' "$W/st" "$W/st/jobs" "$W/st/journal.db" "$(dirname "$OUT")")"
    # bob, a local user, reads nothing of alice's job through the file system
    runuser -u "$BOB_USER" -- cat "$OUT" >/dev/null 2>&1 && bad "bob read alice's log" || ok "bob cannot read alice's log file"
    runuser -u "$BOB_USER" -- ls "$W/st" >/dev/null 2>&1 && bad "bob listed the state dir" || ok "bob cannot list the state dir"
    # the socket: no token, the caller's own account
    UBERTH=$(reach "$BERTH")
    runuser -u "$BOB_USER" -- "$UBERTH" submit --socket "$SOCK" --cwd / -g 0 -- id -un >"$W/sub" 2>&1 &&
        ok "bob submits through the socket without a token" || bad "socket submit: $(cat "$W/sub")"
    B=$(sed -n 's/Submitted job //p' "$W/sub")
    wait_state "$B" completed
    [ "$(cat "$(spool "$B" stdout.log)")" = "$BOB_USER" ] && ok "the socket's job ran as bob" || bad "socket job ran as $(cat "$(spool "$B" stdout.log)")"
    runuser -u "$BOB_USER" -- "$UBERTH" cancel --socket "$SOCK" "$A" >"$W/c" 2>&1
    has "$W/c" "belongs to another user" "bob cannot act on alice's job through the socket"
    runuser -u "$BOB_USER" -- "$UBERTH" logs --socket "$SOCK" "$A" >"$W/c" 2>&1
    has "$W/c" "belongs to another user" "bob cannot read alice's logs through the socket"
else
    absent root "multi-user mode (jobs as other accounts) needs berthd to run as root"
fi
api GET "/v1/jobs/$A/logs" "" "$BOB" >/dev/null
[ "$(status)" = 403 ] && ok "bob's token reading alice's logs gets 403" || bad "bob logs: $(status)"
api GET /v1/health >/dev/null
[ "$(jf mode)" = "$([ "$MULTI" = 1 ] && echo multi-user || echo single-user)" ] && ok "health names the mode ($(jf mode))" || bad "mode: $(jf mode)"

# ---- job tokens: 401 for another job, 403 for another route -----------------------------
api POST /v1/jobs '{"argv":["sh","-c","echo $BERTH_JOB_TOKEN > '"$W"'/jtok; sleep 600"],"cwd":"/","gpus":0}' >/dev/null
J=$(jf id)
wait_for 30 "the job's token" test -s "$W/jtok"
JT=$(cat "$W/jtok")
api POST "/v1/jobs/$J/progress" '{"step": 3}' "$JT" >/dev/null
[ "$(status)" = 204 ] && ok "a job token posts its own progress" || bad "own progress: $(status)"
api POST "/v1/jobs/$A/progress" '{"step": 3}' "$JT" >/dev/null
[ "$(status)" = 401 ] && ok "a job token for another job gets 401" || bad "other job: $(status)"
api GET "/v1/jobs/$J" "" "$JT" >/dev/null
[ "$(status)" = 403 ] && ok "a job token on another route of its own job gets 403" || bad "other route: $(status)"
api POST "/v1/jobs/$J/cancel" "" >/dev/null

# ---- input that lies --------------------------------------------------------------------
v400() { # v400 BODY FIELD WHAT
    api POST /v1/jobs "$1" >/dev/null
    [ "$(status)" = 400 ] && [ "$(jf field)" = "$2" ] && ok "$3 (400 naming $2)" ||
        bad "$3: want 400 naming $2: $(status) $(cat "$W/body")"
}
v400 '{"argv":["true"],"checkpoint_signal":"19"}' checkpoint_signal "a numeric checkpoint signal is refused"
v400 '{"argv":["true"],"gpus":1,"gpus":2}' body "duplicate JSON keys are refused"
v400 '{"argv":["true"],"gpu_type":"v100|nope"}' gpu_type "an unknown GPU type among alternatives is refused"
v400 '{"argv":["true"],"name":"evil\u001b[2J"}' name "a name with an escape sequence is refused"
v400 '{"argv":["true"],"name":"a\u202eb"}' name "a name with a bidi override is refused"
v400 '{"argv":["true"],"queue":"q\u0007"}' queue "a queue with a control character is refused"
api POST /v1/jobs '{"argv":["printf\u001b[31m"],"hold":true}' >/dev/null
[ "$(status)" = 201 ] && [ "$(api GET "/v1/jobs/$(jf id)" >/dev/null; jf name)" = job ] &&
    ok "a name taken from an argv[0] with control characters is just 'job'" || bad "argv name: $(cat "$W/body")"

# the CLI escapes whatever a server sends (an older journal, another server)
cat >"$W/fake.py" <<'PY'
import http.server, json, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        b = json.dumps({"jobs": [{"id": 1, "name": "x\u001b[2Jy", "user": "u\u202ev", "state": "pending",
                                  "gpus": 1, "gpu_share": 1.0, "gpu_type": "", "queue": "q\u0007",
                                  "priority": 0, "submit_us": 0},
                         {"id": 2, "name": "bob\u200bx", "user": "a\u00adb", "state": "pending",
                                  "gpus": 1, "gpu_share": 1.0, "gpu_type": "", "queue": "\U000e0041",
                                  "priority": 0, "submit_us": 0}]}).encode()
        self.send_response(200); self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(b))); self.end_headers(); self.wfile.write(b)
    def log_message(self, *a): pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
print(s.server_port, flush=True)
s.handle_request()
PY
python3 "$W/fake.py" >"$W/fakeport" &
FAKE=$!
wait_for 10 "the fake server" test -s "$W/fakeport"
"$BERTH" queue --server "http://127.0.0.1:$(cat "$W/fakeport")" --token x >"$W/q" 2>&1
wait "$FAKE" 2>/dev/null
! grep -qP '[\x00-\x08\x0b-\x1f\x7f]|\xe2\x80\xae' "$W/q" && grep -qF 'x\x1b[2Jy' "$W/q" &&
    ok "berth queue escapes control characters and bidi overrides from the server" ||
    bad "queue printed raw control characters: $(cat -v "$W/q")"
! grep -qP '\xe2\x80\x8b|\xc2\xad|\xf3\xa0\x81\x81' "$W/q" && grep -qF 'bob\u200bx' "$W/q" && grep -qF 'a\u00adb' "$W/q" &&
    grep -qF '\U000e0041' "$W/q" && ok "berth queue escapes invisible characters from the server (U+200B, U+00AD, a tag)" ||
    bad "queue printed invisible characters raw: $(cat -v "$W/q")"
# a filter value is one query value: 'a&all=1' cannot add a parameter
cat >"$W/path.py" <<'PY'
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        open(sys.argv[1], "w").write(self.path)
        b = b'{"jobs": []}'
        self.send_response(200); self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(b))); self.end_headers(); self.wfile.write(b)
    def log_message(self, *a): pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
print(s.server_port, flush=True)
s.handle_request()
PY
python3 "$W/path.py" "$W/reqpath" >"$W/fakeport2" &
FAKE=$!
wait_for 10 "the fake server" test -s "$W/fakeport2"
"$BERTH" queue --server "http://127.0.0.1:$(cat "$W/fakeport2")" --token x --user 'a&all=1' --queue 'q x' >"$W/q" 2>&1
wait "$FAKE" 2>/dev/null
grep -q "user=a%26all%3D1" "$W/reqpath" && grep -q "queue=q%20x" "$W/reqpath" && ! grep -q "&all=1" "$W/reqpath" &&
    ok "berth queue sends a filter as one escaped value ($(cat "$W/reqpath"))" ||
    bad "filters not escaped: $(cat "$W/reqpath" 2>/dev/null)"

# ---- SIGHUP reloads tokens and limits; it kills nothing -------------------------------
printf 'user-limit max_pending=1000\n' >"$W/berthd.conf"
stop_berthd
start_berthd --gpus 1x4:v100 --policy fifo --config "$W/berthd.conf"
printf 'newtoken0123456789ab %s\n' "$ALICE_USER" >>"$W/tokens"
api GET /v1/health "" newtoken0123456789ab >/dev/null
[ "$(status)" = 401 ] && ok "a token added to the file is unknown before SIGHUP" || bad "new token before HUP: $(status)"
printf 'user-limit max_pending=2\n' >"$W/berthd.conf"
kill -HUP "$BPID"
wait_for 10 "the reload's log line" grep -q "SIGHUP: reloaded" "$W/berthd.log"
api GET /v1/health "" newtoken0123456789ab >/dev/null
[ "$(status)" = 200 ] && ok "after SIGHUP the new token works" || bad "new token after HUP: $(status)"
berthd_up && ok "berthd lives through SIGHUP" || bad "SIGHUP killed berthd"

# ---- per-user limits ----------------------------------------------------------------
# max_pending 2 (reloaded above): held jobs count as waiting
api POST /v1/jobs '{"argv":["true"],"hold":true}' >/dev/null
api POST /v1/jobs '{"argv":["true"],"hold":true}' >/dev/null
api POST /v1/jobs '{"argv":["true"],"hold":true}' >/dev/null
curl -s -D "$W/hdr" -o "$W/body" -w '%{http_code}' -X POST -H "Authorization: Bearer $ALICE" \
    -d '{"argv":["true"],"hold":true}' "$URL/v1/jobs" >"$W/status"
[ "$(status)" = 429 ] && grep -qi "^Retry-After: [0-9]" "$W/hdr" && ok "past max_pending: 429 with Retry-After" ||
    bad "max_pending: $(status) $(cat "$W/body")"
has "$W/body" "max_pending" "the 429 names the limit"
api POST /v1/jobs '{"argv":["true"],"hold":true}' "$BOB" >/dev/null
[ "$(status)" = 201 ] || [ "$MULTI" = 0 ] && ok "another user's submissions are not limited by alice's" || bad "bob: $(status)"
stop_berthd
# a submission rate, per user, with a burst
start_berthd --gpus 1x4:v100 --user-limit submit_rate=0.5 --user-limit submit_burst=3
n201=0 n429=0
for _ in 1 2 3 4 5; do
    curl -s -D "$W/hdr" -o "$W/body" -w '%{http_code}' -X POST -H "Authorization: Bearer $ALICE" \
        -d '{"argv":["true"],"hold":true}' "$URL/v1/jobs" >"$W/status"
    case $(status) in 201) n201=$((n201 + 1)) ;; 429) n429=$((n429 + 1)) ;; esac
done
[ "$n201" = 3 ] && [ "$n429" = 2 ] && grep -qi "^Retry-After: [0-9]" "$W/hdr" &&
    ok "submit_rate 0.5/s with bursts of 3: 3 accepted, 2 refused with Retry-After" ||
    bad "rate limit: $n201 accepted, $n429 refused"
stop_berthd
# max_gpus: jobs past the user's GPU limit wait outside the scheduler, in order
start_berthd --gpus 1x4:v100 --user-limit max_gpus=2
for i in 1 2 3; do
    api POST /v1/jobs '{"argv":["sleep","600"],"gpus":1}' >/dev/null
    eval "G$i=$(jf id)"
done
wait_state "$G1" running && wait_state "$G2" running
api GET "/v1/jobs/$G3" >/dev/null
[ "$(jf state)" = pending ] && ok "the third 1-GPU job waits past max_gpus 2 (GPUs are idle)" || bad "third job: $(jf state)"
has "$W/body" "UserGPULimit" "why names the user's GPU limit"
api POST /v1/jobs '{"argv":["true"],"gpus":3}' >/dev/null
[ "$(status)" = 400 ] && [ "$(jf field)" = gpus ] && ok "a job asking more than max_gpus alone is refused (400 naming gpus)" ||
    bad "3 GPUs past max_gpus 2: $(status) $(cat "$W/body")"
api POST "/v1/jobs/$G1/cancel" >/dev/null
wait_state "$G3" running && ok "when a job of the user's ends, the held-back job enters and starts"
for i in 2 3; do eval "api POST /v1/jobs/\$G$i/cancel >/dev/null"; done
stop_berthd

# ---- est_s is no weapon: srtf with a false estimate ---------------------------------
start_berthd --gpus 1x1:v100 --policy srtf --est-overrun 2
api POST /v1/jobs '{"argv":["sh","-c","sleep 3; echo honest done"],"est_s":3,"grace_s":1,"checkpoint_signal":"SIGKILL"}' >/dev/null
H=$(jf id)
wait_state "$H" running
api POST /v1/jobs '{"argv":["sleep","600"],"est_s":0.001,"grace_s":1}' "$BOB" >/dev/null
L=$(jf id)
wait_for 20 "the liar to preempt the honest job" sh -c "[ \"\$(curl -s -H 'Authorization: Bearer $ROOT' $URL/v1/jobs/$L | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"state\"])')\" = running ]"
wait_state "$H" completed 60 && ok "the honest 3-s job completes although a job claiming 1 ms arrived"
api GET "/v1/jobs/$L" "" "$ROOT" >/dev/null
has "$W/body" "re-estimated" "the liar's history says it was re-estimated"
api POST "/v1/jobs/$L/cancel" "" "$ROOT" >/dev/null
stop_berthd

# ---- who may start berthd with which tokens -------------------------------------------
chmod 644 "$W/tokens"
expect_rc 2 "a token file others may read is refused" -- "$BERTHD" --tokens "$W/tokens" --gpus 1x1:v100 --state-dir "$W/st9" --port 0
has "$W/err" "chmod 600" "it says how to fix it"
chmod 600 "$W/tokens"
if [ "$MULTI" = 1 ]; then
    printf 'alicetoken0123456789 no-such-account-berth\n' >"$W/badtok"
    chmod 600 "$W/badtok"
    expect_rc 2 "a token naming no Unix account is refused (root)" -- "$BERTHD" --tokens "$W/badtok" --gpus 1x1:v100 --state-dir "$W/st9" --port 0
    has "$W/err" "is not a Unix account" "it names the account"
    # single-user mode: berthd run by alice refuses a token file naming bob
    mkdir -p "$W/alice" && cp "$W/tokens" "$W/alice/tokens" && chown -R "$ALICE_USER" "$W/alice"
    expect_rc 2 "berthd as a plain user refuses tokens naming other accounts" -- \
        runuser -u "$ALICE_USER" -- "$(reach "$BERTHD")" --tokens "$W/alice/tokens" --gpus 1x1:v100 --state-dir "$W/alice/st" --port 0
    has "$W/err" "not root, so it can run jobs only as '$ALICE_USER'" "it says why (single-user mode)"
fi
finish
