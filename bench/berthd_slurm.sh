#!/usr/bin/env bash
# berthd --executor slurm on the mini cluster (tests/slurm/cluster.sh): decision-to-running
# latency (jobs placed one at a time), then the scheduler loop's cost with PENDING Slurm jobs
# pending (submitted held straight to Slurm, as sbatch does, and adopted into berth's queue):
# first with nothing changing in Slurm, then while running jobs end and pending ones are
# placed (every poll then reads the whole job list). Needs root, Slurm and libslurm 22.05.
# Usage: bash bench/berthd_slurm.sh [BUILD_DIR] [PENDING] [POLICY]
set -eu
B=$(cd "${1:-build}" && pwd)
N=${2:-10000}
POLICY=${3:-las}
SRC=$(cd "$(dirname "$0")/.." && pwd)
[ "$(id -u)" = 0 ] || { echo "bench/berthd_slurm.sh: needs root (the mini cluster)"; exit 2; }
[ -x "$B/tests/slurm_api_test" ] || { echo "bench/berthd_slurm.sh: $B has no libslurm build"; exit 2; }
W=$(mktemp -d)
chmod 0755 "$W"
export BERTH_SLURM_PORT=auto # five free ports below the ephemeral range
export SLURM_CONF=$W/cluster/etc/slurm.conf
pid=""
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; wait 2>/dev/null; bash "$SRC/tests/slurm/cluster.sh" down "$W/cluster" >/dev/null; rm -rf "$W"' EXIT
bash "$SRC/tests/slurm/cluster.sh" up "$W/cluster" >/dev/null
mkdir -p "$W/jobs" && chmod 0777 "$W/jobs"
printf 'benchtoken0123456789 bench admin\n' >"$W/tokens"
"$B/berthd" --executor slurm --policy "$POLICY" --tokens "$W/tokens" --port 0 \
    --port-file "$W/port" --state-dir "$W/st" 2>"$W/log" &
pid=$!
for _ in $(seq 100); do [ -s "$W/port" ] && break; sleep 0.05; done
URL=http://127.0.0.1:$(cat "$W/port")
export URL W N

python3 - <<'EOF'
import json, os, re, statistics, time, urllib.request
URL, W = os.environ["URL"], os.environ["W"]
H = {"Authorization": "Bearer benchtoken0123456789"}
def call(method, path, body=None):
    req = urllib.request.Request(URL + path, method=method, headers=H,
                                 data=json.dumps(body).encode() if body is not None else None)
    return json.load(urllib.request.urlopen(req))
def job(i): return call("GET", "/v1/jobs/%d" % i)
def wait(i, states, t=60):
    end = time.time() + t
    while time.time() < end:
        j = job(i)
        if j["state"] in states: return j
        time.sleep(0.02)
    raise SystemExit("job %d: %s" % (i, j["state"]))
# 1. decision to running: one job at a time, each asking 1 to 8 GPUs of a type
lat, sched = [], []
for k in range(16):
    g, t = [(1, "v100"), (4, "v100"), (2, "a100"), (8, "a100")][k % 4]
    i = call("POST", "/v1/jobs", {"argv": ["sleep", "1"], "gpus": g, "gpu_type": t,
                                 "cwd": W + "/jobs"})["id"]
    j = wait(i, ("completed", "failed"))
    for h in j["history"]:
        m = re.match(r"running in Slurm ([0-9.]+) s after its placement", h["note"])
        if m: lat.append(float(m.group(1)))
        if h["note"].startswith("scheduled on"): sched.append(h["time_us"])
    sched.append(j["submit_us"])
lat.sort()
print("decision to running on Slurm (%d jobs, one at a time): min %.0f / median %.0f / "
      "p90 %.0f / max %.0f ms" % (len(lat), lat[0] * 1e3, statistics.median(lat) * 1e3,
                                  lat[int(0.9 * (len(lat) - 1))] * 1e3, lat[-1] * 1e3))
# 2. fill the cluster: 24 one-GPU jobs that keep running
fill = [call("POST", "/v1/jobs", {"argv": ["sleep", "3600"], "gpus": 1, "cwd": W + "/jobs"})["id"]
        for _ in range(24)]
for i in fill: wait(i, ("running",))
time.sleep(2)
open(W + "/fill", "w").write(" ".join(map(str, fill)))
EOF

echo "submitting $N held jobs straight to Slurm (berthd adopts them as they come)"
"$B/tests/slurm_api_test" bench "$W/jobs" "$N"
t0=$(date +%s)
for _ in $(seq 600); do
    n=$(curl -s -H "Authorization: Bearer benchtoken0123456789" "$URL/v1/health" |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["pending"])')
    [ "$n" -ge "$N" ] && break
    sleep 0.5
done
echo "berthd holds $n pending jobs ($(($(date +%s) - t0)) s after the last submission)"

python3 - <<'EOF'
import json, os, time, urllib.request
URL, W, N = os.environ["URL"], os.environ["W"], int(os.environ["N"])
H = {"Authorization": "Bearer benchtoken0123456789"}
def call(method, path):
    return json.load(urllib.request.urlopen(urllib.request.Request(URL + path, method=method,
                                                                   headers=H)))
def loop(): return call("GET", "/v1/health")
def window(a, b, what):
    la, lb = a["loop"], b["loop"]
    ticks = lb["ticks"] - la["ticks"]
    reads = lb["sync_reads"] - la["sync_reads"]
    passes = b["passes"] - a["passes"]
    print("%s: %d ticks, avg %.2f ms a tick (sync %.2f ms); %d polls read the job list; "
          "%d passes, avg %.2f ms a pass; max so far: tick %.0f ms, sync %.0f ms, pass %.0f ms"
          % (what, ticks, (lb["tick_us_sum"] - la["tick_us_sum"]) / max(ticks, 1) / 1e3,
             (lb["sync_us_sum"] - la["sync_us_sum"]) / max(ticks, 1) / 1e3, reads, passes,
             (lb["pass_us_sum"] - la["pass_us_sum"]) / max(passes, 1) / 1e3,
             lb["tick_us_max"] / 1e3, lb["sync_us_max"] / 1e3, lb["pass_us_max"] / 1e3))
    if reads:
        print("  a poll that reads the list costs about %.1f ms"
              % ((lb["sync_us_sum"] - la["sync_us_sum"]) / reads / 1e3))
a = loop()
time.sleep(20)
b = loop()
window(a, b, "%d pending, Slurm quiet, 20 s" % b["pending"])
# running jobs end one every 0.5 s; berth places pending ones in their place
for i in open(W + "/fill").read().split()[:16]:
    call("POST", "/v1/jobs/%s/cancel" % i)
    time.sleep(0.5)
time.sleep(4)
c = loop()
window(b, c, "%d pending, 16 jobs ending and replaced, 12 s" % c["pending"])
EOF
