#!/usr/bin/env bash
# libslurm against slurmrestd, for what berthd's slurm executor asks of Slurm (issue 21 item 5:
# "measure place/requeue latency both ways before you choose"). On the mini cluster
# (tests/slurm/cluster.sh), with slurmrestd on a Unix socket (rest_auth/local; as root it
# needs SLURMRESTD_SECURITY=disable_user_check, acceptable on a throw-away cluster only):
#   1. what the REST API can express: placing a held job on chosen nodes (required_nodes in
#      a job update) and requeueing one (berth's preemption), read from slurmrestd's own
#      OpenAPI document;
#   2. one job update (a hold, the cheapest release/place-shaped update): libslurm in one
#      process (slurm_api_test bench-hold) against HTTP requests from one Python process;
#   3. reading every job (berthd reads the whole list every 10 s): libslurm against
#      GET .../jobs, with JOBS held jobs in the queue;
#   4. release → RUNNING through either path (Slurm's next scheduling pass dominates).
# Written for Slurm 22.05 (Debian 12) and 24.11 (Debian 13); run on both (docs/slurm.md
# "libslurm or slurmrestd"). Needs root, Slurm, slurmrestd and a
# libslurm build (BUILD/tests/slurm_api_test).
# Usage: bash bench/slurm_rest.sh [BUILD_DIR] [JOBS] [SAMPLES]
set -eu
B=$(cd "${1:-build}" && pwd)
N=${2:-2000}
K=${3:-20}
SRC=$(cd "$(dirname "$0")/.." && pwd)
T=$B/tests/slurm_api_test
[ "$(id -u)" = 0 ] || { echo "bench/slurm_rest.sh: needs root (the mini cluster)"; exit 2; }
[ -x "$T" ] || { echo "bench/slurm_rest.sh: $B has no libslurm build"; exit 2; }
command -v slurmrestd >/dev/null || [ -x /usr/sbin/slurmrestd ] ||
    { echo "bench/slurm_rest.sh: apt-get install slurmrestd"; exit 2; }
PATH=$PATH:/usr/sbin
W=$(mktemp -d)
chmod 0755 "$W"
export BERTH_SLURM_PORT=auto
export SLURM_CONF=$W/cluster/etc/slurm.conf
rpid=""
trap '[ -n "$rpid" ] && kill $rpid 2>/dev/null; wait 2>/dev/null; bash "$SRC/tests/slurm/cluster.sh" down "$W/cluster" >/dev/null; rm -rf "$W"' EXIT
bash "$SRC/tests/slurm/cluster.sh" up "$W/cluster" >/dev/null
mkdir -p "$W/jobs" && chmod 0777 "$W/jobs"
ver=$(slurmctld -V | awk '{print $2}')
case $ver in
22.05*) plugins="-s openapi/v0.0.38" ;;
*) plugins="-s openapi/slurmctld" ;;
esac
# shellcheck disable=SC2086
SLURMRESTD_SECURITY=disable_user_check slurmrestd -a rest_auth/local $plugins \
    "unix:$W/rest.sock" 2>"$W/restd.log" &
rpid=$!
for _ in $(seq 100); do [ -S "$W/rest.sock" ] && break; sleep 0.05; done
[ -S "$W/rest.sock" ] || { echo "slurmrestd did not start: $(cat "$W/restd.log")"; exit 1; }
echo "Slurm $ver; slurmrestd $plugins on a Unix socket; $N held jobs; $K samples"

# the held jobs (the wrapper's own bench submits them and times libslurm's full read)
"$T" bench "$W/jobs" "$N" | sed 's/^/libslurm /'
first=$(squeue -h -o %i --sort=i | head -1)

python3 - "$W/rest.sock" "$first" "$K" "$T" <<'PY'
import http.client, json, os, socket, statistics, subprocess, sys, time
sock, first, k, tool = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]

class Conn(http.client.HTTPConnection):
    def __init__(self):
        super().__init__("localhost")
    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(sock)

def req(method, path, body=None):
    c = Conn()
    hdr = {"Content-Type": "application/json"} if body is not None else {}
    c.request(method, path, body=json.dumps(body) if body is not None else None, headers=hdr)
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, data

st, doc = req("GET", "/openapi/v3")
api = json.loads(doc)
paths = [p for p in api["paths"] if p.startswith("/slurm/v") and p.endswith("/job/{job_id}")]
ver = sorted(p.split("/")[2] for p in paths)[-1]
base = "/slurm/" + ver
post = api["paths"][base + "/job/{job_id}"]["post"]
ref = post["requestBody"]["content"]["application/json"]["schema"]["$ref"].split("/")[-1]
props = api["components"]["schemas"][ref].get("properties", {})
requeue = [p for p in api["paths"] if "requeue" in p.lower()]
print(f"REST {ver}: a job update ({ref}) can give nodes (required_nodes): "
      f"{'yes' if 'required_nodes' in props else 'NO'}; a requeue endpoint: "
      f"{', '.join(requeue) if requeue else 'NONE'}")

def ms(xs):
    xs = sorted(xs)
    return f"median {statistics.median(xs) * 1e3:.2f} ms, max {xs[-1] * 1e3:.2f} ms"

# one update each way, K times, on held jobs (a hold of a held job: the RPC, no state change)
ids = [first + i for i in range(k)]
rest = []
for i in ids:
    t = time.perf_counter()
    st, out = req("POST", f"{base}/job/{i}", {"hold": True})
    rest.append(time.perf_counter() - t)
    if st != 200:
        sys.exit(f"REST update of job {i}: HTTP {st}: {out[:300]!r}")
out = subprocess.run([tool, "bench-hold", str(first), str(k)], capture_output=True, text=True)
if out.returncode != 0:
    sys.exit(f"{tool} bench-hold: {out.stderr}")
lib = [float(x) for x in out.stdout.split()]
print(f"one job update: libslurm {ms(lib)}; REST {ms(rest)}")

# the whole job list
best, size, n = 1e9, 0, 0
for _ in range(3):
    t = time.perf_counter()
    st, out = req("GET", f"{base}/jobs")
    best = min(best, time.perf_counter() - t)
    size = len(out)
    t = time.perf_counter()
    n = len(json.loads(out)["jobs"])
    parse = time.perf_counter() - t
print(f"REST read of all {n} jobs: best of 3 {best * 1e3:.0f} ms ({best / n * 1e6:.1f} us/job), "
      f"{size / 1e6:.1f} MB of JSON (+{parse * 1e3:.0f} ms to parse it in Python)")

# release -> RUNNING, one job at a time: libslurm's place on n1, REST's release (and
# required_nodes where the API has it); each job is cancelled before the next
def running(i, deadline=20):
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < deadline:
        s = subprocess.run(["squeue", "-h", "-j", str(i), "-o", "%T"], capture_output=True,
                           text=True).stdout.strip()
        if s == "RUNNING":
            return True
        time.sleep(0.01)
    return False

def cancel(i):  # and wait until it has left its node, so the next sample finds n1 free
    subprocess.run(["scancel", str(i)])
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < 20:
        s = subprocess.run(["squeue", "-h", "-j", str(i), "-o", "%T"], capture_output=True,
                           text=True).stdout.strip()
        if s in ("", "CANCELLED"):
            return
        time.sleep(0.01)
    sys.exit(f"job {i} did not leave its node after scancel")

lib, rest = [], []
pool = ids[1:] + [first + k + i for i in range(10)]
for r in range(5):
    i = pool[2 * r]
    t = time.perf_counter()
    subprocess.run([tool, "place", str(i), "n1", "1", "v100"], check=True)
    if not running(i):
        sys.exit(f"job {i} placed by libslurm did not run")
    lib.append(time.perf_counter() - t)
    cancel(i)
    i = pool[2 * r + 1]
    body = {"hold": False}
    if "required_nodes" in props:
        body["required_nodes"] = ["n1"]
    t = time.perf_counter()
    st, out = req("POST", f"{base}/job/{i}", body)
    if st != 200 or not running(i):
        sys.exit(f"job {i} released by REST did not run: HTTP {st} {out[:300]!r}")
    rest.append(time.perf_counter() - t)
    cancel(i)
print(f"release -> RUNNING (5 each, alternating): libslurm place {ms(lib)}; REST {ms(rest)}")
PY
