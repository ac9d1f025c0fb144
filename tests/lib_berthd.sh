# Helpers for the berthd end-to-end tests (sourced after cli_lib.sh): start and stop a real
# berthd on a random free loopback port with a fake GPU inventory, call its API with curl,
# read JSON fields with python3, and wait for a job state.
BERTHD=${4:?usage: TEST.sh BERTH SRC SHARED BERTHD}
BERTH=$1
printf 'alicetoken0123456789 alice\nbobtoken0123456789ab bob\nroottoken0123456789a root admin\n' >"$W/tokens"
ALICE=alicetoken0123456789 BOB=bobtoken0123456789ab ROOT=roottoken0123456789a
BPID=""
# start_berthd ARGS...: starts berthd (state in $W/st) and waits until it serves
start_berthd() {
    rm -f "$W/port"
    "$BERTHD" --tokens "$W/tokens" --port 0 --port-file "$W/port" --state-dir "$W/st" \
        --tick 0.02 "$@" >>"$W/berthd.log" 2>&1 &
    BPID=$!
    for _ in $(seq 200); do [ -s "$W/port" ] && break; sleep 0.05; done
    PORT=$(cat "$W/port" 2>/dev/null)
    URL=http://127.0.0.1:$PORT
    export BERTH_SERVER=$URL BERTH_TOKEN=$ALICE
}
stop_berthd() { # stop_berthd [SIGNAL]: a TERM stop must exit 0 with no sanitizer report
    local rc=0
    [ -n "$BPID" ] && kill -"${1:-TERM}" "$BPID" 2>/dev/null && { wait "$BPID" 2>/dev/null; rc=$?; }
    if [ -n "$BPID" ] && [ "${1:-TERM}" = TERM ]; then
        [ "$rc" = 0 ] && ok "berthd stopped cleanly" || bad "berthd exited $rc on SIGTERM: $(tail -5 "$W/berthd.log")"
    fi
    BPID=""
    ! grep -q "Sanitizer" "$W/berthd.log" 2>/dev/null || { bad "sanitizer report: $(grep -A5 Sanitizer "$W/berthd.log" | head -20)"; sed -i 's/Sanitizer/sanitizer (reported)/' "$W/berthd.log"; }
}
cleanup_jobs() { # kill what jobs are left (their shims live in sessions of their own)
    for f in "$W"/st*/jobs/*/a*.pid; do
        [ -f "$f" ] && kill -KILL -"$(cut -d' ' -f1 "$f")" 2>/dev/null
    done
    return 0
}
trap 'stop_berthd KILL; cleanup_jobs; rm -rf "$W"' EXIT
# api METHOD PATH [BODY] [TOKEN]: prints the body; the status goes to $W/status
api() {
    curl -s -o "$W/body" -w '%{http_code}' -X "$1" -H "Authorization: Bearer ${4:-$ALICE}" \
        ${3:+-d "$3"} "$URL$2" >"$W/status"
    cat "$W/body"
}
status() { cat "$W/status"; }
# jf FIELD [FILE]: a field of the JSON in FILE (default the last body), dotted path
jf() {
    python3 -c 'import json,sys
d=json.load(open(sys.argv[2]))
for k in sys.argv[1].split("."):
    d=d[int(k)] if isinstance(d,list) else d.get(k)
print(d if not isinstance(d,(dict,list)) else json.dumps(d))' "$1" "${2:-$W/body}"
}
# wait_state ID STATE [SECONDS]: polls the job until it is in STATE
wait_state() {
    local t=$((${3:-20} * 20))
    for _ in $(seq $t); do
        api GET "/v1/jobs/$1" "" "$ROOT" >/dev/null
        [ "$(jf state)" = "$2" ] && return 0
        sleep 0.05
    done
    echo "job $1 is $(jf state), want $2: $(cat "$W/body" | head -c 600)"
    return 1
}
