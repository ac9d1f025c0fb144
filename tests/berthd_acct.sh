#!/usr/bin/env bash
# berth acct end to end: jobs of two users and two queues run, then the accounting from the
# journal (berthd restarted in between, so it is read back from it): per-job rows (wait, run
# time, GPU-hours = GPUs x run time, state, exit), totals per user, queue and GPU type, the
# window, --json and --csv; a user sees only their own jobs, an admin everyone's.
# Usage: as berthd_api.sh.
set -u
. "$(dirname "$0")/cli_lib.sh"
. "$(dirname "$0")/lib_berthd.sh"
start_berthd --gpus 1x4:v100 --policy fifo-skip
api POST /v1/jobs '{"argv":["sleep","1"],"gpus":2,"queue":"train","name":"two"}' >/dev/null; J1=$(jf id)
api POST /v1/jobs '{"argv":["sh","-c","exit 3"],"gpus":1,"queue":"dev","name":"bad"}' "$BOB" >/dev/null; J2=$(jf id)
wait_state "$J1" completed && wait_state "$J2" failed && ok "two jobs ran"
stop_berthd
start_berthd --gpus 1x4:v100 --policy fifo-skip # the accounting comes back from the journal

BERTH_TOKEN=$ROOT "$BERTH" acct --json >"$W/a.json" 2>&1
python3 - "$W/a.json" "$J1" "$J2" "$ALICE_USER" "$BOB_USER" <<'PY' && ok "acct --json: rows, GPU-hours = GPUs x run time, totals" || bad "acct json: $(head -c 800 "$W/a.json")"
import json, sys
d = json.load(open(sys.argv[1])); j1, j2, alice, bob = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
rows = {r["id"]: r for r in d["jobs"]}
a, b = rows[j1], rows[j2]
assert a["state"] == "completed" and a["exit_code"] == 0 and a["gpus"] == 2 and a["gpu_type"] == "v100"
assert 0.9 <= a["run_s"] < 20, a
assert abs(a["gpu_hours"] - 2 * a["run_s"] / 3600) < 1e-9
assert b["state"] == "failed" and b["exit_code"] == 3 and b["queue"] == "dev"
t = d["totals"]
assert t["jobs"] == 2
assert abs(t["by_queue"]["train"]["gpu_hours"] - a["gpu_hours"]) < 1e-9
if alice != bob:
    assert t["by_user"][alice]["jobs"] == 1 and t["by_user"][bob]["jobs"] == 1
assert abs(t["by_gpu_type"]["v100"]["gpu_hours"] - a["gpu_hours"] - b["gpu_hours"]) < 1e-9
PY
"$BERTH" acct >"$W/a.txt" 2>&1
head -1 "$W/a.txt" | grep -qE '^ +ID USER +QUEUE +NAME +STATE +GPUS TYPE +WAIT +ELAPSED GPU-HOURS +EXIT$' &&
    ok "acct: sacct's table" || bad "acct header: $(head -1 "$W/a.txt")"
grep -qE "^ *$J1 .* completed +2 v100 .* 0$" "$W/a.txt" && ok "acct: the job's row" || bad "acct row: $(cat "$W/a.txt")"
grep -q "^QUEUE" "$W/a.txt" && grep -q "^train " "$W/a.txt" && ok "acct: totals per queue" || bad "acct totals: $(cat "$W/a.txt")"
if [ "$MULTI" = 1 ]; then
    ! grep -qE "^ *$J2 " "$W/a.txt" && ok "a user sees only their own jobs" || bad "alice sees bob's job: $(cat "$W/a.txt")"
    api GET "/v1/acct?user=$BOB_USER" >/dev/null
    [ "$(status)" = 403 ] && ok "a user asking for another's accounting gets 403" || bad "acct user=bob as alice: $(status)"
    BERTH_TOKEN=$ROOT "$BERTH" acct --user "$BOB_USER" --csv >"$W/a.csv" 2>&1
    [ "$(head -1 "$W/a.csv")" = "id,user,queue,name,state,gpus,gpu_type,wait_s,run_s,gpu_hours,exit_code,exit_signal" ] &&
        grep -q "^$J2,$BOB_USER,dev,bad,failed,1,v100," "$W/a.csv" && ! grep -q "^$J1," "$W/a.csv" &&
        ok "acct --csv --user as an admin: that user's rows" || bad "csv: $(cat "$W/a.csv")"
else
    echo "SKIP a user's own accounting only (absent root: every token is one account)"
fi
BERTH_TOKEN=$ROOT "$BERTH" acct --totals --csv >"$W/t.csv" 2>&1
head -1 "$W/t.csv" | grep -qx "by,name,jobs,gpu_hours,run_hours,avg_wait_s" && grep -q "^queue,train,1," "$W/t.csv" &&
    ok "acct --totals --csv: per user, queue and type" || bad "totals csv: $(cat "$W/t.csv")"
BERTH_TOKEN=$ROOT "$BERTH" acct --since 1d --totals >"$W/t.txt" 2>&1
grep -qE "^2 jobs, .* GPU-hours of .* available \(.* % utilisation\)" "$W/t.txt" && ok "acct --since 1d: the window's utilisation" || bad "since: $(cat "$W/t.txt")"
BERTH_TOKEN=$ROOT "$BERTH" acct --since "2099-01-01" --until "2099-01-02" --json >"$W/f.json" 2>&1
[ "$(jf totals.jobs "$W/f.json")" = 0 ] && ok "a window in the future holds no job" || bad "future: $(cat "$W/f.json")"
one_error "acct --since yesterday" "berth acct: --since: expected a local date" -- "$BERTH" acct --since yesterday
one_error "acct --json --csv" "berth acct: --json and --csv: give one of them" -- "$BERTH" acct --json --csv
api GET "/v1/acct?since=abc" >/dev/null
[ "$(status)" = 400 ] && has "$W/body" "since: expected Unix seconds" "a bad since gets 400" || bad "since=abc: $(status)"
stop_berthd
finish
