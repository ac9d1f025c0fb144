#!/usr/bin/env bash
# berthd's benchmarks: scheduling-pass latency with 100,000 pending jobs on 5,000 servers
# (every policy); durable submissions per second over HTTP on loopback, with each
# submission's latency (p50/p99); then the journal filled to 100,000 jobs and the time
# `berth queue` takes to answer. Per-user limits are off (--user-limit 0): one token
# submits everything. BENCH_SMOKE=1: small sizes, once (CI). Usage: bash bench/berthd.sh
# [BUILD_DIR]
set -eu
B=${1:-build}
if [ "${BENCH_SMOKE:-0}" = 1 ]; then
    SERVERS=100 PENDING=2000 PASSES=50 SECS=1 FILL=3000
else
    SERVERS=5000 PENDING=100000 PASSES=2000 SECS=5 FILL=100000
fi
# every policy `berth policies` lists, unless BENCH_POLICIES names some
ALL=$("$B/berth" policies | awk '/^[a-z]/ { sec = $1 } sec == "policies" && /^  [a-z]/ { print $1 }')
for p in ${BENCH_POLICIES:-$ALL}; do
    "$B/bench/bench_live_pass" "$p" "$SERVERS" "$PENDING" "$PASSES"
done
# las without its default bound on a pass's preemptions (the quantum boundary's whole wave
# of swaps in one pass)
if [ -z "${BENCH_POLICIES:-}" ]; then
    "$B/bench/bench_live_pass" las "$SERVERS" "$PENDING" "$PASSES" max_preempt=0
fi
W=$(mktemp -d)
printf 'benchtoken0123456789 %s\n' "$(id -un)" >"$W/tokens"
chmod 600 "$W/tokens"
"$B/berthd" --tokens "$W/tokens" --gpus 1x1:a100 --port 0 --port-file "$W/port" \
    --state-dir "$W/st" --socket none --user-limit max_pending=0 --user-limit submit_rate=0 --max-conn-per-addr 256 \
    2>"$W/log" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; for f in "$W"/st/jobs/*/a*.pid; do [ -f "$f" ] && kill -KILL -"$(cut -d" " -f1 "$f")" 2>/dev/null; done; rm -rf "$W"' EXIT
for _ in $(seq 200); do [ -s "$W/port" ] && break; sleep 0.05; done
URL=http://127.0.0.1:$(cat "$W/port")
for c in 32 128; do
    "$B/bench/bench_submit" "$URL" benchtoken0123456789 "$c" "$SECS"
done
# the journal filled to 100,000 jobs (held: none runs), then berth queue timed
have=$(curl -s -H "Authorization: Bearer benchtoken0123456789" "$URL/v1/health" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["jobs"])')
[ "$have" -lt "$FILL" ] &&
    "$B/bench/bench_submit" "$URL" benchtoken0123456789 32 600 --held --max $((FILL - have)) >/dev/null
for i in 1 2 3; do
    /usr/bin/time -f "berth queue with %e s wall, %M KB peak ($i)" \
        env BERTH_SERVER="$URL" BERTH_TOKEN=benchtoken0123456789 "$B/berth" queue >"$W/q" 2>"$W/t"
    echo "$(tail -1 "$W/t"): $(wc -l <"$W/q") lines for $(curl -s -H "Authorization: Bearer benchtoken0123456789" "$URL/v1/health" | python3 -c 'import json,sys; print(json.load(sys.stdin)["jobs"])') jobs in the journal"
done
