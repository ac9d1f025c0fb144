#!/usr/bin/env bash
# berthd's benchmarks: scheduling-pass latency with 100,000 pending jobs on 5,000 servers
# (several policies), then durable submissions per second over HTTP on loopback.
# Usage: bash bench/berthd.sh [BUILD_DIR]
set -eu
B=${1:-build}
for p in fifo fifo-skip sjf srtf tiresias-dlas las; do
    "$B/bench/bench_live_pass" "$p" 5000 100000 2000
done
W=$(mktemp -d)
printf 'benchtoken0123456789 bench\n' >"$W/tokens"
"$B/berthd" --tokens "$W/tokens" --gpus 1x1:a100 --port 0 --port-file "$W/port" \
    --state-dir "$W/st" 2>"$W/log" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; for f in "$W"/st/jobs/*/a*.pid; do [ -f "$f" ] && kill -KILL -"$(cut -d" " -f1 "$f")" 2>/dev/null; done; rm -rf "$W"' EXIT
for _ in $(seq 100); do [ -s "$W/port" ] && break; sleep 0.05; done
for c in 32 128; do
    "$B/bench/bench_submit" "http://127.0.0.1:$(cat "$W/port")" benchtoken0123456789 "$c" 5
done
