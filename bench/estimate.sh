#!/usr/bin/env bash
# The start-time estimate's cost (berth queue --start): berthd with 8 servers x 8 fake GPUs
# kept full (64 one-GPU sleep jobs) and PENDING jobs pending behind them (100 arrays of 1,
# 2, 4 and 8 GPUs with estimates from 5 min to 4 h), then GET /v1/jobs?estimate=1 timed a few
# times (each run is forced by a new arrival), /v1/health's estimate counters (the snapshot's
# time under berthd's lock, the virtual run's outside it, whether its budget ended it), and
# the slowest of five GET /v1/jobs/1 sent while each estimate runs (what another user waits).
# Usage: bash bench/estimate.sh [BUILD] [PENDING] [POLICY...] (POLICY all: every policy;
# BERTH_EST_BUDGET=S sets berthd's --estimate-budget)
set -eu
B=${1:-build}
N=${2:-10000}
shift 2 2>/dev/null || shift $#
POLICIES=${*:-fifo fifo-skip backfill fairshare}
[ "$POLICIES" = all ] && POLICIES=$("$B/berth" policies | awk '/^  [a-z]/ {print $1}' | sed -n '1,/^goodput-hetero$/p')
for P in $POLICIES; do
    W=$(mktemp -d)
    printf 'benchtoken0123456789 %s\n' "$(id -un)" >"$W/tokens"
    chmod 600 "$W/tokens"
    "$B/berthd" --tokens "$W/tokens" --gpus 8x8:a100 --port 0 --port-file "$W/port" \
        --state-dir "$W/st" --socket none --policy "$P" --user-limit max_pending=0 \
        --user-limit submit_rate=0 --max-array 100000 ${BERTH_EST_BUDGET:+--estimate-budget "$BERTH_EST_BUDGET"} 2>"$W/log" &
    pid=$!
    trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; for f in "$W"/st/jobs/*/a*.pid; do [ -f "$f" ] && kill -KILL -"$(cut -d" " -f1 "$f")" 2>/dev/null; done; rm -rf "$W"' EXIT
    for _ in $(seq 400); do [ -s "$W/port" ] && break; sleep 0.05; done
    URL=http://127.0.0.1:$(cat "$W/port")
    api() { curl -s -H "Authorization: Bearer benchtoken0123456789" "$@"; }
    api -d '{"argv":["sleep","100000"],"gpus":1,"array":"0-63","est_s":3600}' "$URL/v1/jobs" >/dev/null
    q=$((N / 100))
    for k in $(seq 0 99); do # 100 arrays: 1, 2, 4, 8 GPUs, estimates spread over 5 min to 4 h
        g=$((1 << (k % 4))) est=$((300 + k * 7919 % 14100))
        api -d "{\"argv\":[\"sleep\",\"100000\"],\"gpus\":$g,\"array\":\"0-$((q - 1))\",\"est_s\":$est}" "$URL/v1/jobs" >/dev/null
    done
    until [ "$(api "$URL/v1/health" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["pending"] + d["running"])')" -ge $((N + 64)) ]; do sleep 0.2; done
    for i in 1 2 3; do
        api -d '{"argv":["true"],"gpus":8,"est_s":1}' "$URL/v1/jobs" >/dev/null # a new arrival: the next ask runs again
        sleep 0.6                                                                  # past the twice-a-second bound
        api -o /dev/null -w '%{time_total}' "$URL/v1/jobs?estimate=1&limit=1" >"$W/ask" &
        ask=$!
        : >"$W/probe"
        for _ in 1 2 3 4 5; do # another user's request while the estimate runs
            api -o /dev/null -w '%{time_total}\n' "$URL/v1/jobs/1" >>"$W/probe"
        done
        wait $ask
        api "$URL/v1/health" | python3 -c '
import json, sys
d = json.load(sys.stdin); e = d["estimate"]
probe = max(float(x) for x in open(sys.argv[3]).read().split())
print("%s: %d pending, %d running: estimate run %d: snapshot %.1f ms under the lock (max %.1f), run %.1f ms outside it (max %.1f; %d ended by the %.2f s budget); request %.1f ms; another user waited %.1f ms at most; the live pass (under the lock) %.1f ms at most" % (
    sys.argv[1], d["pending"], d["running"], e["runs"], e["lock_last_us"] / 1e3, e["lock_max_us"] / 1e3, e["last_us"] / 1e3, e["max_us"] / 1e3, e["budget_stops"], e["budget_s"], float(open(sys.argv[2]).read()) * 1e3, probe * 1e3, d["loop"]["pass_us_max"] / 1e3))' "$P" "$W/ask" "$W/probe"
    done
    api "$URL/v1/jobs?estimate=1&state=pending" | python3 -c '
import json, sys, time
a = json.load(sys.stdin); js = a["jobs"]; e = [j["estimate"]["start_us"] for j in js if j.get("estimate")]
r = a.get("estimate") or {}
print("%s: %d of %d pending jobs have an estimate (run stopped: %s; %d jobs reached a start); the last starts in %.1f h" % (sys.argv[1], len(e), len(js), r.get("stopped") or "no, complete", r.get("started", 0), (max(e) / 1e6 - time.time()) / 3600 if e else 0))' "$P"
    kill $pid
    wait $pid 2>/dev/null || true
    for f in "$W"/st/jobs/*/a*.pid; do [ -f "$f" ] && kill -KILL -"$(cut -d" " -f1 "$f")" 2>/dev/null; done
    rm -rf "$W"
    trap - EXIT
done
