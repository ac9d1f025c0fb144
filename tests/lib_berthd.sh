# Helpers for the berthd end-to-end tests (sourced after cli_lib.sh): start and stop a real
# berthd on a random free loopback port with a fake GPU inventory, call its API with curl,
# read JSON fields with python3, and wait for a job state.
BERTHD=${4:?usage: TEST.sh BERTH SRC SHARED BERTHD}
BERTH=$1
# Who jobs run as: berthd started as root runs each job as its token's Unix account, so the
# tests make three accounts of their own (once; useradd is idempotent here) and open $W to
# them (their jobs write markers there). Not root, berthd is single-user: every token names
# the test's own account, and checks that need two accounts say SKIP (absent root ...).
if [ "$(id -u)" = 0 ]; then
    MULTI=1
    for u in berth-t-alice berth-t-bob berth-t-ops; do
        id -u "$u" >/dev/null 2>&1 || useradd -M -r -s /usr/sbin/nologin "$u" 2>/dev/null ||
            id -u "$u" >/dev/null 2>&1 || { echo "FAIL cannot create the test account $u"; exit 1; }
    done
    ALICE_USER=berth-t-alice BOB_USER=berth-t-bob OPS_USER=berth-t-ops
    chmod 1777 "$W"
    # a checkout in a closed home (/root is 700 on Debian) is out of the accounts' reach: the
    # tests run in $W, so a job submitted from the CLI starts where its account may enter
    cd "$W" || exit 1
else
    MULTI=0
    ALICE_USER=$(id -un) BOB_USER=$(id -un) OPS_USER=$(id -un)
fi
# reach FILE: FILE when the test accounts may read it, else a copy in $W that they may (the
# berth binaries and examples of a checkout under /root are closed to them)
reach() {
    if [ "$MULTI" = 0 ] || runuser -u "$ALICE_USER" -- test -r "$1" 2>/dev/null; then
        echo "$1"
        return
    fi
    mkdir -p "$W/reach" && chmod 755 "$W/reach" && cp "$1" "$W/reach/" &&
        chmod a+r "$W/reach/${1##*/}" && echo "$W/reach/${1##*/}"
}
printf 'alicetoken0123456789 %s\nbobtoken0123456789ab %s\nroottoken0123456789a %s admin\n' \
    "$ALICE_USER" "$BOB_USER" "$OPS_USER" >"$W/tokens"
chmod 600 "$W/tokens"
ALICE=alicetoken0123456789 BOB=bobtoken0123456789ab ROOT=roottoken0123456789a
BPID=""
# berthd_up: the berthd started last still runs
berthd_up() { [ -n "$BPID" ] && kill -0 "$BPID" 2>/dev/null; }
# start_berthd ARGS...: starts berthd (state in $W/st) and waits until it serves (its port
# file); when it exits or does not serve within 60 s, the test fails and ends here
start_berthd() {
    rm -f "$W/port"
    "$BERTHD" --tokens "$W/tokens" --port 0 --port-file "$W/port" --state-dir "$W/st" \
        --tick 0.02 "$@" >>"$W/berthd.log" 2>&1 &
    BPID=$!
    local end=$((SECONDS + 60)) why
    until [ -s "$W/port" ]; do
        if ! berthd_up || [ "$SECONDS" -ge "$end" ]; then
            berthd_up && why="did not write its port file within 60 s" || why="exited before serving"
            bad "berthd $* $why; its log ends: $(tail -15 "$W/berthd.log")"
            finish
            exit 1
        fi
        sleep 0.05
    done
    PORT=$(cat "$W/port")
    URL=http://127.0.0.1:$PORT
    export BERTH_SERVER=$URL BERTH_TOKEN=$ALICE
}
stop_berthd() { # stop_berthd [SIGNAL]: a TERM stop must exit 0 within 60 s with no sanitizer report
    local rc=0 end=$((SECONDS + 60))
    if [ -n "$BPID" ] && kill -"${1:-TERM}" "$BPID" 2>/dev/null; then
        { while berthd_up && [ "$SECONDS" -lt "$end" ]; do sleep 0.05; done; } 2>/dev/null
        berthd_up && { bad "berthd still runs 60 s after SIG${1:-TERM}: $(tail -5 "$W/berthd.log")"; kill -KILL "$BPID"; }
        wait "$BPID" 2>/dev/null
        rc=$?
    fi
    if [ -n "$BPID" ] && [ "${1:-TERM}" = TERM ]; then
        [ "$rc" = 0 ] && ok "berthd stopped cleanly" || bad "berthd exited $rc on SIGTERM: $(tail -5 "$W/berthd.log")"
    fi
    BPID=""
    ! grep -q "Sanitizer" "$W/berthd.log" 2>/dev/null || { bad "sanitizer report: $(grep -A5 Sanitizer "$W/berthd.log" | head -20)"; sed -i 's/Sanitizer/sanitizer (reported)/' "$W/berthd.log"; }
}
cleanup_jobs() { # kill what jobs are left (their shims live in sessions of their own)
    local f pid start
    for f in "$W"/st*/jobs/*/a*.pid; do
        [ -f "$f" ] || continue
        read -r pid start <"$f"
        # only while that pid is still the job's (its start time): never a recycled one
        [ "$(awk '{ sub(/^.*\) /, ""); print $20 }' "/proc/$pid/stat" 2>/dev/null)" = "$start" ] &&
            kill -KILL -"$pid" 2>/dev/null
    done
    return 0
}
# use_fake_nvml: berthd's NVML is the fake libnvidia-ml.so.1 of the build tree
# (tests/live/fake_nvml.c, through LD_LIBRARY_PATH); the test skips when it is not built
use_fake_nvml() {
    local fake
    fake=$(dirname "$BERTHD")/tests/fake-nvml
    [ -e "$fake/libnvidia-ml.so.1" ] || skip_test fake-nvml "the fake NVML library is not built ($fake)"
    export LD_LIBRARY_PATH=$fake${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
}
# spool ID FILE: a job's own file (stdout.log, stderr.log, progress.jsonl)
spool() { echo "$W/st/spool/$1/$2"; }
trap 'stop_berthd KILL; cleanup_jobs; rm -rf "$W"' EXIT
# api METHOD PATH [BODY] [TOKEN]: prints the body; the status goes to $W/status (000 when
# berthd does not answer within 60 s)
api() {
    curl -s --max-time 60 -o "$W/body" -w '%{http_code}' -X "$1" -H "Authorization: Bearer ${4:-$ALICE}" \
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
# wait_state ID STATE [SECONDS]: polls the job until it is in STATE (deadline 60 s unless
# told); fails the check naming the job, the state and the wait when it is not, and ends the
# wait early when the job is over in another state or berthd is gone
wait_state() {
    local end=$((SECONDS + ${3:-60})) st
    while :; do
        api GET "/v1/jobs/$1" "" "$ROOT" >/dev/null
        st=$(jf state 2>/dev/null)
        [ "$st" = "$2" ] && return 0
        case $st in completed | failed | cancelled | timeout) break ;; esac
        berthd_up || break
        [ "$SECONDS" -lt "$end" ] || break
        sleep 0.05
    done
    berthd_up || st="$st (berthd exited: $(tail -5 "$W/berthd.log"))"
    bad "waiting for job $1 to be $2 (${3:-60} s at most): it is $st: $(head -c 600 "$W/body")"
    return 1
}
