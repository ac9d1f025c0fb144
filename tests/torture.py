#!/usr/bin/env python3
"""The driver of tests/berthd_torture.sh (Python 3 standard library only).

  torture.py run W SEED KILLS      clients and the killer, until W/stop exists
  torture.py snapshot W OUT        every job as the API shows it, into OUT (JSON)
  torture.py journal W OUT         every job document of W/st/journal.db (read-only)
  torture.py check W               the checks; prints "ok ..." / "FAIL ..." lines and a summary

berthd listens on the port in W/port (rewritten at each restart); the tokens come from the
environment (ALICE, BOB, ROOT, and ALICE_USER, BOB_USER, OPS_USER the accounts they name).

The run: three clients (alice, bob, and ops with the admin token) submit jobs (some held;
each with its own checkpoint signal, grace, length and exit code), cancel, hold and release
them, and log every request: its answer when berthd answered (acknowledged: 2xx, or refused
with 4xx/5xx: no effect), "refused" when no berthd listened (no effect), "unknown" when the
connection was cut after the request went out (it may or may not have taken effect). The
killer SIGKILLs berthd KILLS times: after a random delay, or while a client's mutating
request is in flight (after it was sent, before its answer). Each kill is announced in
W/killed.N; the shell restarts berthd (start_berthd) and writes W/bpid with the next
generation. Everything is seeded (SEED); the timing, of course, is the machine's.
"""
import http.client
import json
import os
import random
import re
import signal
import sqlite3
import sys
import threading
import time

INF = float("inf")


def now():
    return time.time()


class Api:
    def __init__(self, w):
        self.w = w

    def port(self):
        try:
            with open(os.path.join(self.w, "port")) as f:
                p = f.read().strip()
            return int(p) if p else None
        except (OSError, ValueError):
            return None

    def call(self, method, path, body=None, token=None, hook=None, timeout=60):
        """(status, parsed body): status an int when berthd answered, "refused" when nothing
        listened (the request had no effect), "unknown" when the connection broke after the
        request was sent."""
        port = self.port()
        if port is None:
            return "refused", None
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        try:
            conn.connect()
        except OSError:
            conn.close()
            return "refused", None
        data = json.dumps(body).encode() if body is not None else None
        try:
            conn.request(method, path, body=data,
                         headers={"Authorization": "Bearer " + token,
                                  "Content-Type": "application/json"})
            if hook:
                hook()
            resp = conn.getresponse()
            raw = resp.read()
        except (OSError, http.client.HTTPException):
            conn.close()
            return "unknown", None
        conn.close()
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = raw.decode(errors="replace")
        return resp.status, parsed


# ---- run -----------------------------------------------------------------------------


class Run:
    def __init__(self, w, seed, kills):
        self.w, self.seed, self.kills = w, seed, kills
        self.api = Api(w)
        self.lock = threading.Lock()
        self.log = open(os.path.join(w, "ops.jsonl"), "a", buffering=1)
        self.klog = open(os.path.join(w, "kills.jsonl"), "a", buffering=1)
        self.armed = None  # the generation whose kill waits for an in-flight request
        self.after = None  # (generation, delay): its kill comes that long after an answer
        self.bpid = None   # (generation, pid) of the berthd now serving
        self.job_sh = os.path.join(w, "job.sh")
        self.seq = 0

    def stopped(self):
        return os.path.exists(os.path.join(self.w, "stop"))

    def record(self, rec):
        with self.lock:
            self.log.write(json.dumps(rec) + "\n")

    # -- the killer --
    def read_bpid(self):
        try:
            with open(os.path.join(self.w, "bpid")) as f:
                gen, pid = f.read().split()
            return int(gen), int(pid)
        except (OSError, ValueError):
            return None

    def kill(self, gen, pid, how):
        """SIGKILLs berthd generation gen once (the first caller wins); waits until it is
        dead (gone or a zombie), then announces it for the shell."""
        with self.lock:
            if self.bpid is None or self.bpid[0] != gen:
                return False
            self.bpid = None
            self.armed = self.after = None
        t = now()
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        end = now() + 30
        while now() < end:
            try:
                with open("/proc/%d/stat" % pid) as f:
                    st = f.read().rsplit(")", 1)[1].split()[0]
                if st in ("Z", "X"):
                    break
            except OSError:
                break
            time.sleep(0.005)
        rng = random.Random(self.seed * 7919 + gen)
        # now and then a second kill while the next berthd recovers (before it serves)
        recov = round(rng.uniform(0.0, 0.4), 3) if rng.random() < 0.15 else -1
        self.klog.write(json.dumps({"gen": gen, "how": how, "t": t, "recovery_kill": recov}) + "\n")
        tmp = os.path.join(self.w, "killed.%d.tmp" % gen)
        with open(tmp, "w") as f:
            f.write("%s\n" % recov)
        os.rename(tmp, os.path.join(self.w, "killed.%d" % gen))
        return True

    def inflight_hook(self, rng):
        def hook():
            with self.lock:
                target = self.bpid if self.armed is not None and self.bpid and \
                    self.armed == self.bpid[0] else None
            if target:
                time.sleep(rng.uniform(0.0, 0.004))
                self.kill(target[0], target[1], "in flight")
        return hook

    def on_ack(self):
        """A client's mutating request was acknowledged: when the killer waits for one, berthd
        dies a moment later (is the acknowledged effect durable?)."""
        with self.lock:
            if self.after is None or not self.bpid or self.after[0] != self.bpid[0]:
                return
            gen, d = self.after
            self.after = None
            pid = self.bpid[1]
        threading.Timer(d, self.kill, (gen, pid, "%.3f s after an acknowledged request" % d)).start()

    def killer(self):
        rng = random.Random(self.seed * 31 + 1)
        for gen in range(self.kills):
            end = now() + 120
            while True:
                b = self.read_bpid()
                if b and b[0] == gen:
                    break
                if now() > end or self.stopped():
                    self.klog.write(json.dumps({"gen": gen, "error": "no berthd"}) + "\n")
                    return
                time.sleep(0.01)
            with self.lock:
                self.bpid = b
            r = rng.random()
            if r < 0.5:  # while a mutating request is in flight, or just after one's answer
                with self.lock:
                    if r < 0.25:
                        self.armed = gen
                    else:
                        self.after = (gen, round(rng.uniform(0.0, 0.6), 3))
                end = now() + 4
                while now() < end:
                    with self.lock:
                        if self.bpid is None:
                            break
                    time.sleep(0.005)
                with self.lock:
                    alive, self.after = self.bpid is not None, None
                if alive:
                    time.sleep(0.7)  # a kill after an answer may still be on its timer
                    self.kill(gen, b[1], "timed (no request came)")
            else:
                d = rng.uniform(0.0, 0.15) if r < 0.65 else rng.uniform(0.15, 2.5)
                time.sleep(d)
                self.kill(gen, b[1], "timed %.3f s" % d)

    # -- the clients --
    def job_body(self, rng, client):
        self.seq += 1
        name = "t-%s-%d" % (client, self.seq)
        mode = rng.choices(["ckpt", "ignore", "plain"], [4, 3, 3])[0]
        long_ = rng.random() < (0.6 if mode == "ignore" else 0.35)
        ticks = rng.randint(15, 50) if long_ else rng.randint(0, 8)
        code = 0 if rng.random() < 0.8 else rng.choice([1, 3, 42])
        sig = rng.choice(["SIGTERM", "SIGTERM", "SIGUSR1"])
        body = {"argv": ["/bin/sh", self.job_sh, mode, str(ticks), str(code), sig[3:]],
                "name": name,
                "gpus": rng.choice([1, 1, 2, 2, 3, 4]),
                "checkpoint_signal": sig,
                # a job that ignores its signal holds its GPUs through the grace: longer ones
                "grace_s": round(rng.uniform(2.0, 5.0) if mode == "ignore" else
                                 rng.uniform(0.3, 2.0), 1),
                "est_s": 100.0 if long_ else round(max(ticks, 1) / 10, 1)}
        if rng.random() < 0.15:
            body["hold"] = True
        return body

    def client(self, ci, cname, token, admin, account, budget):
        rng = random.Random(self.seed * 1000 + ci)
        hook = self.inflight_hook(random.Random(self.seed * 1000 + ci + 500))
        submitted = cancels = 0
        # the submissions come spread over the kills (under a second apart each), the other
        # requests between them; a quarter of a client's jobs at most are cancelled
        rate = budget / (self.kills * 0.7)
        next_sub = now() + rng.expovariate(rate * 3)
        while not self.stopped():
            time.sleep(rng.uniform(0.02, 0.4))
            if submitted < budget and now() >= next_sub:
                next_sub = now() + rng.expovariate(rate)
                with self.lock:
                    body = self.job_body(rng, cname)
                t0 = now()
                st, resp = self.api.call("POST", "/v1/jobs", body, token, hook)
                t1 = now()
                submitted += 1
                if st == 201:
                    self.on_ack()
                self.record({"c": cname, "op": "submit", "name": body["name"], "req": body,
                             "account": account, "t0": t0, "t1": t1, "status": st,
                             "resp": resp})
                continue
            if rng.random() < 0.3:
                continue
            st, resp = self.api.call("GET", "/v1/jobs", None, token)
            if st != 200 or not isinstance(resp, dict):
                continue
            mine = [j for j in resp["jobs"] if admin or j["user"] == account]
            kind = rng.choices(["cancel", "hold", "release"],
                               [1 if cancels < budget // 4 else 0, 2, 3])[0]
            cancels += kind == "cancel"
            want = {"cancel": ("pending", "held", "running"), "hold": ("pending",),
                    "release": ("held",)}[kind]
            cands = [j["id"] for j in mine if j["state"] in want]
            # most often a preempted one, whose attempt may still be stopping (in its grace)
            back = [j["id"] for j in mine if j["state"] == "pending" and j["attempt"] > 0]
            if kind != "release" and back and rng.random() < 0.6:
                cands = back
            if not cands:
                if not mine or rng.random() < 0.8:
                    continue
                cands = [j["id"] for j in mine]  # a refused one now and then (409)
            jid = rng.choice(cands)
            t0 = now()
            st, resp = self.api.call("POST", "/v1/jobs/%d/%s" % (jid, kind), {}, token, hook)
            t1 = now()
            if st == 200:
                self.on_ack()
            self.record({"c": cname, "op": kind, "job": jid, "t0": t0, "t1": t1, "status": st,
                         "resp": resp})

    def main(self):
        env = os.environ
        clients = [("alice", env["ALICE"], False, env["ALICE_USER"], 30),
                   ("bob", env["BOB"], False, env["BOB_USER"], 30),
                   ("ops", env["ROOT"], True, env["OPS_USER"], 20)]
        ts = [threading.Thread(target=self.client, args=(i,) + c, daemon=True)
              for i, c in enumerate(clients)]
        for t in ts:
            t.start()
        k = threading.Thread(target=self.killer, daemon=True)
        k.start()
        while not self.stopped():
            time.sleep(0.05)
        for t in ts:
            t.join(90)
        k.join(5)
        return 0


# ---- snapshot and journal ----------------------------------------------------------------


def snapshot(w, out):
    api = Api(w)
    tok = os.environ["ROOT"]
    st, resp = api.call("GET", "/v1/jobs?all=1", None, tok)
    if st != 200:
        print("FAIL snapshot: GET /v1/jobs?all=1 answered %s" % st)
        return 1
    jobs = {}
    for s in resp["jobs"]:
        st, j = api.call("GET", "/v1/jobs/%d" % s["id"], None, tok)
        if st != 200:
            print("FAIL snapshot: GET /v1/jobs/%d answered %s" % (s["id"], st))
            return 1
        j["list"] = s
        jobs[str(s["id"])] = j
    with open(out, "w") as f:
        json.dump(jobs, f)
    return 0


def journal(w, out):
    db = sqlite3.connect("file:%s?mode=ro" % os.path.join(w, "st", "journal.db"), uri=True)
    docs = {str(i): json.loads(d) for i, d in db.execute("SELECT id, doc FROM jobs")}
    db.close()
    with open(out, "w") as f:
        json.dump(docs, f)
    return 0


# ---- check -----------------------------------------------------------------------------


class Check:
    def __init__(self, w):
        self.w = w
        self.npass = self.nfail = 0
        self.suspects = set()

    def ok(self, msg):
        self.npass += 1
        print("ok   " + msg)

    def bad(self, msg):
        self.nfail += 1
        print("FAIL " + msg)

    def expect(self, problems, what, limit=12):
        for m in problems:
            g = re.match(r"job (\d+)", m)
            if g:
                self.suspects.add(int(g.group(1)))
        if problems:
            self.bad("%s: %d problems: %s" % (what, len(problems), "; ".join(problems[:limit])))
        else:
            self.ok(what)

    def load(self, name):
        with open(os.path.join(self.w, name)) as f:
            return json.load(f)

    def main(self):
        w = self.w
        ops = [json.loads(l) for l in open(os.path.join(w, "ops.jsonl"))]
        kills = [json.loads(l) for l in open(os.path.join(w, "kills.jsonl"))]
        before, after, jdocs = self.load("before.json"), self.load("after.json"), \
            self.load("journal.json")
        jobs = {int(k): v for k, v in before.items()}
        marks = [l.split() for l in open(os.path.join(w, "markers")) if l.strip()]

        def acked(o):
            return isinstance(o["status"], int) and 200 <= o["status"] < 300

        def maybe(o):  # may have taken effect
            return acked(o) or o["status"] == "unknown"

        # 1. every acknowledged submission's job exists, with its fields; none twice
        subs = [o for o in ops if o["op"] == "submit"]
        by_name = {}
        for jid, j in jobs.items():
            by_name.setdefault(j["name"], []).append(jid)
        names = {o["name"]: o for o in subs}
        p, ids = [], {}
        for o in subs:
            if not acked(o):
                continue
            r, req = o["resp"], o["req"]
            jid = r.get("id") if isinstance(r, dict) else None
            if o["status"] != 201 or jid is None:
                p.append("%s answered %s %s" % (o["name"], o["status"], r))
                continue
            if jid in ids:
                p.append("job id %d given to %s and %s" % (jid, ids[jid], o["name"]))
            ids[jid] = o["name"]
            want_state = "held" if req.get("hold") else "pending"
            if r.get("state") != want_state:
                p.append("%s: answered state %s, want %s" % (o["name"], r.get("state"), want_state))
            j = jobs.get(jid)
            if not j:
                p.append("job %d (%s, acknowledged) is gone" % (jid, o["name"]))
                continue
            for k in ("name", "argv", "gpus", "checkpoint_signal", "grace_s", "est_s"):
                if k == "est_s" and any("re-estimated" in h["note"] for h in j["history"]):
                    continue  # --est-overrun changed it, and said so
                if j.get(k) != req[k]:
                    p.append("job %d: %s is %r, submitted %r" % (jid, k, j.get(k), req[k]))
            if j["user"] != o["account"]:
                p.append("job %d: user %s, want %s" % (jid, j["user"], o["account"]))
            h0 = j["history"][0] if j["history"] else {}
            if h0.get("state") != want_state or not h0.get("note", "").startswith("submitted"):
                p.append("job %d: first history entry %s, want submitted %s" % (jid, h0, want_state))
            if not (int(o["t0"] * 1e6) - 1000 <= j["submit_us"] <= int(o["t1"] * 1e6) + 1000):
                p.append("job %d: submit_us %d outside its request [%d, %d]" %
                         (jid, j["submit_us"], o["t0"] * 1e6, o["t1"] * 1e6))
        self.expect(p, "every acknowledged submission (%d) is a job with its fields and an id of "
                    "its own" % len(ids))
        p = []
        for jid, j in jobs.items():
            o = names.get(j["name"])
            if not o:
                p.append("job %d (%s) was never submitted" % (jid, j["name"]))
            elif o["status"] not in ("unknown",) and not acked(o):
                p.append("job %d (%s): its submission was refused (%s) yet it exists" %
                         (jid, j["name"], o["status"]))
            if len(by_name.get(j["name"], [])) > 1:
                p.append("submission %s made jobs %s" % (j["name"], by_name[j["name"]]))
        self.expect(p, "every job (%d) comes from one submission, acknowledged or unanswered, "
                    "and from one only" % len(jobs))
        unknown_made = sum(1 for o in subs if o["status"] == "unknown" and o["name"] in by_name)

        per_job = {}
        for o in ops:
            if o["op"] != "submit":
                per_job.setdefault(o["job"], []).append(o)

        def started_after(j, t):
            return [h for h in j["history"] if h["time_us"] > t * 1e6 and
                    re.match(r"attempt \d+ started", h["note"])]

        # 2. cancel, hold, release
        p = []
        for o in ops:
            if o["op"] == "submit" or not acked(o):
                continue
            jid, j = o["job"], jobs.get(o["job"])
            if not j:
                p.append("%s of job %d acknowledged, the job is gone" % (o["op"], jid))
                continue
            others = [x for x in per_job.get(jid, []) if x is not o and maybe(x)]

            def later(kinds):  # requests of those kinds that may have acted after o
                return [x for x in others if x["op"] in kinds and
                        (x["t1"] if acked(x) else INF) > o["t0"]]
            ans = (o["resp"] or {}).get("state") if isinstance(o["resp"], dict) else None
            if o["op"] == "cancel":
                if ans not in ("cancelled", "running", "pending", "held"):
                    p.append("cancel of job %d answered state %s" % (jid, ans))
                if j["state"] != "cancelled":
                    p.append("job %d: cancel acknowledged at %.3f (answer %s), it ended %s" %
                             (jid, o["t1"], ans, j["state"]))
                if started_after(j, o["t1"]):
                    p.append("job %d: an attempt started after its cancel was acknowledged: %s" %
                             (jid, started_after(j, o["t1"])))
            elif o["op"] == "hold":
                if ans != "held":
                    p.append("hold of job %d answered state %s" % (jid, ans))
                if not later(("release", "cancel")) and j["state"] != "held":
                    c = [x for x in others if x["op"] == "cancel" and acked(x) and
                         x["t1"] <= o["t0"]]
                    p.append("job %d: held (acknowledged at %.3f), never released since, is %s%s" %
                             (jid, o["t1"], j["state"],
                              ": the hold was acknowledged after its cancel was (at %.3f)" %
                              c[0]["t1"] if c else ""))
                if not later(("release",)) and started_after(j, o["t1"]):
                    p.append("job %d: an attempt started after its hold: %s" %
                             (jid, started_after(j, o["t1"])))
            elif o["op"] == "release":
                if ans != "pending":
                    p.append("release of job %d answered state %s" % (jid, ans))
                if not later(("hold",)) and j["state"] == "held":
                    p.append("job %d: released (acknowledged at %.3f), is held" % (jid, o["t1"]))
        for o in subs:
            if acked(o) and o["req"].get("hold"):
                jid = o["resp"]["id"]
                j = jobs.get(jid)
                if j and not [x for x in per_job.get(jid, []) if maybe(x)] and \
                        (j["state"] != "held" or j["attempt"] != 0):
                    p.append("job %d: submitted held, never released, is %s after %d attempts" %
                             (jid, j["state"], j["attempt"]))
        n = {k: sum(1 for o in ops if o["op"] == k and acked(o)) for k in
             ("cancel", "hold", "release")}
        self.expect(p, "every acknowledged cancel (%d), hold (%d) and release (%d) took effect "
                    "and stayed" % (n["cancel"], n["hold"], n["release"]))

        # 3. no job ran twice
        starts, dones, p = {}, {}, []
        for m in marks:
            if m[0] == "overlap":
                p.append("job %s attempt %s started while another attempt of it ran" % (m[1], m[2]))
            elif m[0] == "start":
                starts.setdefault(int(m[1]), []).append((int(m[2]), m[3]))
            elif m[0] == "done":
                dones[int(m[1])] = dones.get(int(m[1]), 0) + 1
        for jid, a in sorted(starts.items()):
            j = jobs.get(jid)
            if not j:
                p.append("markers of job %d, which berthd does not know" % jid)
                continue
            nums = [x[0] for x in a]
            if len(set(nums)) != len(nums):
                p.append("job %d: attempts started %s (one twice)" % (jid, sorted(nums)))
            if max(nums) > j["attempt"]:
                p.append("job %d: attempt %d ran, berthd counts %d" % (jid, max(nums), j["attempt"]))
            for k, r in a:
                if r != "1" and any(x < k for x in nums):
                    p.append("job %d: attempt %d ran after an earlier one without BERTH_RESUME=1"
                             % (jid, k))
        for jid, j in jobs.items():
            d = dones.get(jid, 0)
            if j["state"] in ("completed", "failed") and d != 1:
                p.append("job %d is %s with %d done lines" % (jid, j["state"], d))
            elif d > 1:
                p.append("job %d (%s): %d done lines" % (jid, j["state"], d))
            if j["attempt"] == 0 and jid in starts:
                p.append("job %d ran but berthd counts no attempt" % jid)
            hist = j["history"]
            fin = [i for i, h in enumerate(hist) if h["state"] in ("completed", "failed",
                                                                    "cancelled")]
            if fin and (fin[0] != len(hist) - 1 or len(fin) > 1):
                p.append("job %d: history goes on after its end: %s" %
                         (jid, [h["note"] for h in hist[fin[0]:]]))
        self.expect(p, "no job ran twice: %d start markers, each attempt once, no overlap, one "
                    "done line per finished job" % sum(len(a) for a in starts.values()))

        # 4. every job is over or held, with its exit as the job chose it
        p = []
        for jid, j in jobs.items():
            st = j["state"]
            if st not in ("completed", "failed", "cancelled", "held"):
                p.append("job %d is %s: %s" % (jid, st, j.get("why")))
                continue
            code = int(j["argv"][4])
            if st == "completed" and (code != 0 or j["exit_code"] != 0):
                p.append("job %d completed with exit_code %s, it exits %d" %
                         (jid, j["exit_code"], code))
            if st == "failed" and (code == 0 or j["exit_code"] != code):
                p.append("job %d failed with exit_code %s signal %s, it exits %d: %s" %
                         (jid, j["exit_code"], j["exit_signal"], code, j["history"][-3:]))
            if st != "held" and not j["end_us"]:
                p.append("job %d is %s with no end_us" % (jid, st))
        self.expect(p, "every job is completed, failed, cancelled or held, with the exit it chose")

        # 5. the journal holds what the API said; a restart changes no final state
        p = []
        for k, j in before.items():
            d = jdocs.get(k)
            if not d:
                p.append("job %s is not in the journal" % k)
                continue
            for f in ("state", "end_us", "attempt", "exit_code", "exit_signal", "name"):
                if d.get(f) != j.get(f):
                    p.append("job %s: journal %s=%r, the API said %r" % (k, f, d.get(f), j.get(f)))
        for k in jdocs:
            if k not in before:
                p.append("the journal has job %s, the API did not show it" % k)
        self.expect(p, "the journal (read after the last stop) holds every job's state and end "
                    "time as the API showed them")
        p = []
        for k, j in before.items():
            a = after.get(k)
            if not a:
                p.append("job %s gone after a restart" % k)
                continue
            for f in ("state", "end_us", "start_us", "attempt", "exit_code"):
                if a.get(f) != j.get(f):
                    p.append("job %s: %s %r before the restart, %r after" % (k, f, j.get(f),
                                                                            a.get(f)))
            if len(a["history"]) != len(j["history"]):
                p.append("job %s: the restart added to its history: %s" %
                         (k, [h["note"] for h in a["history"][len(j["history"]):]]))
        self.expect(p, "a restart changes no job's state, end_us, attempt or history")

        # the summary
        kinds = ("submit", "cancel", "hold", "release")
        cnt = {k: {"acked": 0, "rejected": 0, "unknown": 0, "refused": 0} for k in kinds}
        for o in ops:
            s = o["status"]
            c = cnt[o["op"]]
            if acked(o):
                c["acked"] += 1
            elif isinstance(s, int):
                c["rejected"] += 1
            else:
                c[s] += 1
        states = {}
        for j in jobs.values():
            states[j["state"]] = states.get(j["state"], 0) + 1
        notes = [h["note"] for j in jobs.values() for h in j["history"]]

        def count(pat):
            return sum(1 for n in notes if re.search(pat, n))
        hows = {}
        for k in kills:
            h = re.sub(r"[0-9.]+ s", "N s", k.get("how", k.get("error", "?")))
            hows[h] = hows.get(h, 0) + 1
        print("summary: %d kills of berthd (%s), %d more during recovery" %
              (len([k for k in kills if "how" in k]),
               ", ".join("%s %d" % kv for kv in sorted(hows.items())),
               sum(1 for k in kills if k.get("recovery_kill", -1) >= 0)))
        for k in kinds:
            c = cnt[k]
            print("summary: %-7s %3d acknowledged, %3d refused by berthd (4xx/5xx), %2d unanswered"
                  " (unknown), %2d not delivered (berthd down)" %
                  (k, c["acked"], c["rejected"], c["unknown"], c["refused"]))
        print("summary: %d unanswered submissions took effect, %d did not" %
              (unknown_made, cnt["submit"]["unknown"] - unknown_made))
        print("summary: %d jobs (%s); %d attempts, %d resumed (BERTH_RESUME=1); %d preemptions, "
              "%d SIGKILLs after a grace; %d re-adopted, %d requeued and %d ended while berthd "
              "was down" %
              (len(jobs), ", ".join("%s %d" % kv for kv in sorted(states.items())),
               sum(j["attempt"] for j in jobs.values()),
               sum(1 for a in starts.values() for x in a if x[1] == "1"),
               count(r"^preempted by"), count(r"^grace period over"), count(r"^re-adopted"),
               count(r"requeued after a restart|while berthd was down: requeued"),
               count(r"^ended while berthd was down")))
        for jid in sorted(self.suspects)[:10]:  # what the failed checks name, in full
            j = jobs.get(jid)
            if not j:
                continue
            print("job %d (%s, argv %s, grace %s): %s, attempt %d; its requests: %s" %
                  (jid, j["name"], j["argv"][2:], j["grace_s"], j["state"], j["attempt"],
                   ["%s %s %.3f-%.3f" % (o["op"], o["status"], o["t0"], o["t1"])
                    for o in per_job.get(jid, [])] +
                   ["submit %s %.3f-%.3f" % (o["status"], o["t0"], o["t1"]) for o in subs
                    if o["name"] == j["name"]]))
            for h in j["history"]:
                print("  %.3f %-9s %s" % (h["time_us"] / 1e6, h["state"], h["note"]))
            print("  markers: %s" % [" ".join(m) for m in marks if len(m) > 1 and m[1] == str(jid)])
        print("kills at: %s" % " ".join("%.3f" % k["t"] for k in kills if "t" in k))
        print("checks: %d passed, %d failed" % (self.npass, self.nfail))
        return 1 if self.nfail else 0


def main(argv):
    if len(argv) >= 4 and argv[1] == "run":
        return Run(argv[2], int(argv[3]), int(argv[4])).main()
    if len(argv) == 4 and argv[1] == "snapshot":
        return snapshot(argv[2], argv[3])
    if len(argv) == 4 and argv[1] == "journal":
        return journal(argv[2], argv[3])
    if len(argv) == 3 and argv[1] == "check":
        return Check(argv[2]).main()
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
