"""The diurnal scenario of issue 17 (tests/berthd_diurnal.sh, experiments/diurnal.sh): one
compressed day of an inference service beside a stream of training jobs on berthd under an
aryl policy, and the same day replayed by `berth sim` for sim<->live parity. Standard library
only. Subcommands:

  job DIR NAME SECONDS   a training job: works SECONDS in all, saving the work done to
                         DIR/NAME.ck on its checkpoint signal (SIGUSR1) and resuming from it
                         when BERTH_RESUME=1; at the end it appends "done NAME ATTEMPT" to
                         DIR/done (so "finished exactly once" can be counted)
  live URL ADMIN USER DIR DAY OUT
                         drives one berthd through the day: creates the service (replicas
                         of tests/toy_replica.py, reporting the requests/s they served), sends
                         requests at the diurnal rate to its replicas, submits the jobs at
                         their offsets, waits until they are all over, writes OUT (JSON)
  compare BERTH CLUSTER GRACE TICK DAY OUT...
                         turns each live run's recorded demand and submissions into
                         `berth sim` inputs, runs the simulator, prints the table side by
                         side and checks the tolerances (exit 1 naming each one missed)

The day: load L(t) = TROUGH + (PEAK - TROUGH) (1 - cos(2 pi t / DAY)) / 2 requests/s, from the
trough at t = 0 to the peak at DAY / 2, over a target of 10 req/s per 2-GPU replica (one
replica per inference server). Job offsets and lengths are fractions of DAY, so a longer DAY
runs the same scenario slower.
"""
import json
import math
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request

TROUGH, PEAK, TARGET = 5.0, 28.0, 10.0
# name, arrival (fraction of the day), GPUs, elastic (min 1, max GPUs), work (fraction)
# aryl admits elastic jobs on the training pool only and rigid ones on lent servers as a last
# resort: R2 and R3 borrow while R1 holds train-0; R3 ends before the first rise (a free
# server comes back), R2 outlasts the rise to the peak (about 0.3 of the day), when nothing
# may stay lent, while E1 and E2 still hold train-0 (to 0.4): R2 is always reclaimed and
# requeued, however late the load's rise is seen
JOBS = [("R1", 0.00, 2, False, 0.10), ("E1", 0.00, 2, True, 0.30), ("E2", 0.02, 2, True, 0.30),
        ("R2", 0.04, 2, False, 0.40), ("R3", 0.08, 2, False, 0.05), ("R4", 0.75, 2, False, 0.08),
        ("E3", 0.78, 2, True, 0.08)]


def load_at(t, day):
    return TROUGH + (PEAK - TROUGH) * (1 - math.cos(2 * math.pi * min(t, day) / day)) / 2


def job(d, name, seconds):
    ck = os.path.join(d, name + ".ck")
    done = 0.0
    if os.environ.get("BERTH_RESUME") == "1" and os.path.exists(ck):
        done = float(open(ck).read())
    attempt = os.environ.get("BERTH_ATTEMPT", "?")
    print("start %s attempt=%s resume_from=%.3f" % (name, attempt, done), flush=True)
    t0 = time.monotonic()

    def save(*_):
        w = done + time.monotonic() - t0
        with open(ck + ".tmp", "w") as f:
            f.write("%.6f\n" % w)
        os.replace(ck + ".tmp", ck)
        print("checkpoint %s at %.3f" % (name, w), flush=True)
        os._exit(0)

    signal.signal(signal.SIGUSR1, save)
    while done + time.monotonic() - t0 < seconds:
        time.sleep(min(0.05, max(0.0, seconds - done - (time.monotonic() - t0))))
    signal.signal(signal.SIGUSR1, signal.SIG_IGN)
    with open(os.path.join(d, "done"), "a") as f:
        f.write("done %s %s\n" % (name, attempt))
    print("done %s" % name, flush=True)


def call(url, method, path, tok, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url + path, data, method=method,
                                 headers={"Authorization": "Bearer " + tok})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.load(r)


def live(url, admin, user, d, day, out):
    day = float(day)
    me = os.path.abspath(__file__)
    svc = call(url, "POST", "/v1/services", admin, {
        "name": "web", "argv": ["python3", os.path.join(os.path.dirname(me), "toy_replica.py"), d, "served"],
        "cwd": d,
        "env": {"PATH": "/usr/bin:/bin"}, "gpus": 2, "replicas_min": 1, "replicas_max": 3,
        "target_rps": TARGET, "headroom": 0, "cooldown_s": 1})
    sid = svc["id"]
    end = time.monotonic() + 60
    while call(url, "GET", "/v1/services/%d" % sid, admin)["reporting"] < 1:
        if time.monotonic() > end:
            sys.exit("live: the service's replica did not report within 60 s")
        time.sleep(0.05)
    t0_wall, t0 = time.time(), time.monotonic()
    ports, stop, sent, failed = [], threading.Event(), [0], [0]

    def watch():  # the running replicas' ports, as a load balancer would know them
        while not stop.is_set():
            try:
                s = call(url, "GET", "/v1/services/%d" % sid, admin)
                ports[:] = [r["port"] for r in s["replicas"] if r.get("running")]
            except Exception:
                pass
            stop.wait(0.2)

    def generate():  # requests at the day's rate, round robin over the replicas
        nxt, k = time.monotonic(), 0
        while not stop.is_set():
            t = time.monotonic() - t0
            nxt += 1.0 / load_at(t, day)
            pause = nxt - time.monotonic()
            if pause > 0:
                time.sleep(pause)
            elif pause < -1.0:  # fell behind (a loaded machine): do not burst
                nxt = time.monotonic()
            p = list(ports)
            if not p:
                continue
            k += 1
            try:
                urllib.request.urlopen("http://127.0.0.1:%d/" % p[k % len(p)], timeout=1).read()
                sent[0] += 1
            except Exception:
                failed[0] += 1

    th = [threading.Thread(target=watch, daemon=True), threading.Thread(target=generate, daemon=True)]
    for x in th:
        x.start()
    ids = {}
    for name, at, gpus, elastic, work in sorted(JOBS, key=lambda j: j[1]):
        pause = t0 + at * day - time.monotonic()
        if pause > 0:
            time.sleep(pause)
        body = {"argv": ["python3", me, "job", d, name, "%.3f" % (work * day)], "cwd": d,
                "gpus": gpus, "name": name, "checkpoint_signal": "SIGUSR1",
                "grace_s": GRACE, "env": {"PATH": "/usr/bin:/bin"}}
        if elastic:
            body.update(min_gpus=1, max_gpus=gpus)
        ids[name] = call(url, "POST", "/v1/jobs", user, body)["id"]
    final = ("completed", "failed", "cancelled", "timeout")
    deadline = time.monotonic() + 4 * day + 60
    while True:
        jobs = {n: call(url, "GET", "/v1/jobs/%d" % i, admin) for n, i in ids.items()}
        if all(j["state"] in final for j in jobs.values()) and time.monotonic() - t0 >= day:
            break
        if time.monotonic() > deadline:
            break
        time.sleep(0.1)
    t_end = time.time()
    stop.set()
    res = {"t0_us": int(t0_wall * 1e6), "end_us": int(t_end * 1e6), "day_s": day,
           "jobs": jobs, "spec": {n: [at, g, e, w] for n, at, g, e, w in JOBS},
           "inference": call(url, "GET", "/v1/inference", admin),
           "history": call(url, "GET", "/v1/inference/history", admin),
           "service": call(url, "GET", "/v1/services/%d" % sid, admin),
           "requests": sent[0], "requests_failed": failed[0]}
    json.dump(res, open(out, "w"), indent=1)


# ---- the simulation of a live run, and the comparison


def integ(hist, t0, t1, f):
    """The integral of f(record) over [t0, t1] (us), the series being steps."""
    tot, rows = 0.0, hist["changes"]
    for i, r in enumerate(rows):
        a = max(r["t_us"], t0)
        b = min(rows[i + 1]["t_us"] if i + 1 < len(rows) else t1, t1)
        if b > a:
            tot += f(r) * (b - a) / 1e6
    return tot


def figures_live(run):
    h, t0 = run["history"], run["t0_us"]
    jobs = list(run["jobs"].values())
    last = max(j["end_us"] for j in jobs)
    gpus = run["inference"]["pool_gpus"] // max(1, run["inference"]["pool_servers"])
    lat = sorted(r["reclaim_s"] for r in h["changes"] if r["reclaim_s"] is not None and r["t_us"] >= t0)
    jct = [(j["end_us"] - j["submit_us"]) / 1e6 for j in jobs]
    return {"restarts": sum(j["attempt"] - 1 for j in jobs),
            "reclaim_p50_s": lat[len(lat) // 2] if lat else 0.0,
            "reclaim_avg_s": sum(lat) / len(lat) if lat else 0.0, "shortfalls": len(lat), "reclaim_max_s": lat[-1] if lat else 0.0,
            "lent_gpu_s": integ(h, t0, last, lambda r: gpus * r["lent_servers"]),
            "short_server_s": integ(h, t0, last, lambda r: max(0, r["demand_servers"] - r["ready_servers"])),
            "avg_jct_s": sum(jct) / len(jct), "makespan_s": (last - t0) / 1e6,
            "pool_gpus": run["inference"]["pool_gpus"]}


def sim_inputs(run, d, tag):
    t0 = run["t0_us"]
    dem = os.path.join(d, tag + "-demand.csv")
    with open(dem, "w") as f:
        f.write("time_s,servers\n")
        rows, prev = [], None
        for r in run["history"]["changes"]:
            t = max(0, r["t_us"] - t0)
            if rows and rows[-1][0] == t:  # before the day began: the state at its start
                rows.pop()
                prev = rows[-1][1] if rows else None
            if r["demand_servers"] != prev:
                rows.append((t, r["demand_servers"]))
                prev = r["demand_servers"]
        for t, s in rows:
            f.write("%d.%06d,%d\n" % (t // 1000000, t % 1000000, s))
    tr = os.path.join(d, tag + "-trace.csv")
    with open(tr, "w") as f:
        f.write("job_id,arrival_s,duration_s,num_gpus,min_gpus,max_gpus\n")
        for n, j in run["jobs"].items():
            at, g, el, w = run["spec"][n]
            a = max(0, j["submit_us"] - t0)
            f.write("%s,%d.%06d,%.3f,%d,%s,%s\n" % (n, a // 1000000, a % 1000000, w * run["day_s"], g,
                                                     1 if el else "", g if el else ""))
    return dem, tr


def figures_sim(berth, cluster, policy, dem, tr):
    out = subprocess.run([berth, "sim", "--cluster", cluster, "--trace", tr, "--policy", policy,
                          "--inference", dem, "--loan-headroom", "0", "--fixed-speed", "--json"],
                         check=True, capture_output=True, text=True).stdout
    s = json.loads(out)
    i = s["inference"]
    return {"restarts": s["restarts"], "reclaim_p50_s": None, "reclaim_avg_s": i["reclaim_latency_avg_s"],
            "reclaim_max_s": i["reclaim_latency_max_s"], "lent_gpu_s": i["loaned_gpu_hours"] * 3600,
            "short_server_s": i["short_server_hours"] * 3600, "avg_jct_s": s["avg_jct_s"],
            "makespan_s": s["makespan_s"]}


def compare(berth, cluster, grace, tick, day, outs):
    grace, tick, day = float(grace), float(tick), float(day)
    scale = 86400.0 / day  # one live second is this many seconds of the modelled day
    d = os.path.dirname(outs[0]) or "."
    rows, fails = {}, []
    for o in outs:
        run = json.load(open(o))
        pol = run["inference"]["policy"]
        dem, tr = sim_inputs(run, d, pol)
        rows[pol] = (figures_live(run), figures_sim(berth, cluster, pol, dem, tr))
    bound = grace + tick

    def fmt(v, k):
        if v is None:
            return "-"
        if k == "lent_gpu_s":
            return "%.2f" % (v * scale / 3600)  # scaled GPU-hours
        if k == "short_server_s":
            return "%.3f" % (v * scale / 3600)
        if k == "restarts":
            return "%d" % v
        return "%.3f" % v

    names = [("reclaim_p50_s", "reclaim latency p50 (s, live time)"),
             ("reclaim_avg_s", "reclaim latency mean (s, live time)"),
             ("reclaim_max_s", "reclaim latency max (s, live time)"),
             ("restarts", "training restarts (reclaimed borrowers)"),
             ("lent_gpu_s", "lent GPU-hours (scaled to 24 h)"),
             ("short_server_s", "inference shortfall (server-hours, scaled)"),
             ("avg_jct_s", "training avg JCT (s, live time)"),
             ("makespan_s", "training makespan (s, live time)")]
    print("sim<->live, day of %.0f s = 24 h (x%.0f), grace %.1f s, tick %.3f s" % (day, scale, grace, tick))
    print("%-44s" % "figure" + "".join("%15s%15s" % (p + " live", p + " sim") for p in rows))
    for k, label in names:
        print("%-44s" % label + "".join("%15s%15s" % (fmt(lv[k], k), fmt(sv[k], k)) for lv, sv in rows.values()))
    # the tolerances (docs/design.md "Sim<->live parity")
    for pol, (lv, sv) in rows.items():
        if lv["reclaim_max_s"] > bound:
            fails.append("%s: live reclaim max %.3f s > grace + tick %.3f s" % (pol, lv["reclaim_max_s"], bound))
        if sv["reclaim_max_s"] > bound:
            fails.append("%s: sim reclaim max %.3f s > %.3f s" % (pol, sv["reclaim_max_s"], bound))
        if abs(lv["restarts"] - sv["restarts"]) > 1:
            fails.append("%s: restarts live %d, sim %d (at most 1 apart)" % (pol, lv["restarts"], sv["restarts"]))
        # each side integrates over its own run (to its last job's end): a longer live run
        # lends at most the pool for the extra time, and each rise may lag by the bound
        lent_tol = (0.05 * max(lv["lent_gpu_s"], sv["lent_gpu_s"])
                    + lv["pool_gpus"] * (abs(lv["makespan_s"] - sv["makespan_s"]) + bound))
        if abs(lv["lent_gpu_s"] - sv["lent_gpu_s"]) > lent_tol:
            fails.append("%s: lent GPU-s live %.1f, sim %.1f (tolerance %.1f)" % (pol, lv["lent_gpu_s"], sv["lent_gpu_s"], lent_tol))
        short_tol = max(lv["shortfalls"], 1) * bound
        for who, v in (("live", lv), ("sim", sv)):
            if v["short_server_s"] > short_tol:
                fails.append("%s: %s shortfall %.2f server-s > shortfalls x bound %.2f" % (pol, who, v["short_server_s"], short_tol))
        jct_tol = 0.15 * sv["avg_jct_s"] + 1.0
        if abs(lv["avg_jct_s"] - sv["avg_jct_s"]) > jct_tol:
            fails.append("%s: avg JCT live %.2f s, sim %.2f s (tolerance %.2f s)" % (pol, lv["avg_jct_s"], sv["avg_jct_s"], jct_tol))
    if len(rows) == 2:
        (la, sa), (lb, sb) = rows.get("aryl"), rows.get("aryl-base")
        gl, gs = lb["avg_jct_s"] / la["avg_jct_s"], sb["avg_jct_s"] / sa["avg_jct_s"]
        print("%-44s%15.2fx%14.2fx" % ("aryl-base / aryl avg JCT, live and sim", gl, gs))
        if abs(gl - gs) > 0.15 * gs:
            fails.append("JCT gain of aryl over aryl-base: live %.2fx, sim %.2fx (more than 15 %% apart)" % (gl, gs))
    for f in fails:
        print("PARITY MISSED " + f)
    sys.exit(1 if fails else 0)


GRACE = float(os.environ.get("DIURNAL_GRACE_S", "3"))

if __name__ == "__main__":

    a = sys.argv[1:]
    if a[0] == "job":
        job(a[1], a[2], float(a[3]))
    elif a[0] == "live":
        live(*a[1:7])
    elif a[0] == "compare":
        compare(a[1], a[2], a[3], a[4], a[5], a[6:])
    else:
        sys.exit("usage: diurnal.py job|live|compare ...")
