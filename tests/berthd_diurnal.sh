#!/usr/bin/env bash
# The seed system end to end (issue 17 item 6): one day of an inference service beside a
# stream of training jobs, squeezed into DIURNAL_DAY_S seconds (default 40), on two berthds
# at once with the same fake cluster (one 2-GPU training server, three 2-GPU inference
# servers) — one under aryl, one under aryl-base — and the same day replayed by berth sim.
# tests/diurnal.py drives each: a toy inference service (python3 http.server replicas of 2
# GPUs, 1..3, target 10 req/s each, reporting the requests/s they served), a load generator
# on a diurnal curve (5 req/s at the trough, 28 at the peak, half a day later), and 7 training
# jobs, rigid and elastic, that checkpoint on SIGUSR1 and resume from their checkpoint file.
# Checked: under aryl the idle inference servers are lent at the trough and all reclaimed at
# the peak (a borrower preempted, resumed from its checkpoint); under aryl-base nothing is
# lent; every job completes and finishes exactly once; each reclaim (demand rise -> servers
# free of training, measured by berthd at its tick) takes at most grace + one tick, and the
# service has its wanted replicas running within that bound plus one more tick; then the
# demand berthd recorded (GET /v1/inference/history) and the submission times become
# `berth sim --inference FILE --trace FILE` inputs and the figures are printed side by side
# with the tolerances of docs/design.md ("Sim<->live parity") asserted.
# Usage: as berthd_api.sh (env DIURNAL_DAY_S, DIURNAL_GRACE_S).
set -u
. "$(dirname "$0")/cli_lib.sh"
. "$(dirname "$0")/lib_berthd.sh"
SRC=$2
DAY=${DIURNAL_DAY_S:-40}
export DIURNAL_GRACE_S=${DIURNAL_GRACE_S:-3}
TICK=0.02
cat >"$W/cl.json" <<'EOF'
{"name": "diurnal", "servers": [
 {"name": "train-0", "gpu_type": "v100", "gpus": 2, "pool": "training"},
 {"name": "infer-0", "gpu_type": "v100", "gpus": 2, "pool": "inference"},
 {"name": "infer-1", "gpu_type": "v100", "gpus": 2, "pool": "inference"},
 {"name": "infer-2", "gpu_type": "v100", "gpus": 2, "pool": "inference"}]}
EOF
PYS=$(reach "$SRC/tests/diurnal.py")
reach "$SRC/tests/toy_replica.py" >/dev/null # beside it: the service's replicas

# berthd 1: aryl (start_berthd's); berthd 2: aryl-base, beside it
start_berthd --gpus "$W/cl.json" --policy aryl --policy-arg loan_headroom=0
URL1=$URL
BPID2=""
trap 'stop_berthd KILL; [ -n "$BPID2" ] && kill -KILL "$BPID2" 2>/dev/null; cleanup_jobs; rm -rf "$W"' EXIT
"$BERTHD" --tokens "$W/tokens" --port 0 --port-file "$W/port2" --state-dir "$W/st2" --tick $TICK \
    --gpus "$W/cl.json" --policy aryl-base >>"$W/berthd2.log" 2>&1 &
BPID2=$!
wait_for 60 "the second berthd's port file" test -s "$W/port2" || { finish; exit 1; }
URL2=http://127.0.0.1:$(cat "$W/port2")

mkdir -p "$W/run-aryl" "$W/run-base" && chmod 1777 "$W/run-aryl" "$W/run-base"
t0=$SECONDS
python3 "$PYS" live "$URL1" "$ROOT" "$ALICE" "$W/run-aryl" "$DAY" "$W/aryl.json" >"$W/drive-aryl.log" 2>&1 &
D1=$!
python3 "$PYS" live "$URL2" "$ROOT" "$ALICE" "$W/run-base" "$DAY" "$W/base.json" >"$W/drive-base.log" 2>&1 &
D2=$!
wait "$D1" && ok "the aryl day ran ($(($SECONDS - t0)) s)" || bad "aryl driver: $(tail -5 "$W/drive-aryl.log")"
wait "$D2" && ok "the aryl-base day ran" || bad "aryl-base driver: $(tail -5 "$W/drive-base.log")"
[ -s "$W/aryl.json" ] && [ -s "$W/base.json" ] || { finish; exit 1; }

# ---- the live checks, on what berthd reported (the jobs, the inference history, the service)
check_run() { # check_run JSON RUNDIR STATEDIR LENDS
    python3 - "$@" "$DIURNAL_GRACE_S" "$TICK" <<'PY'
import glob, json, os, sys
run, d, st, lends = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3], sys.argv[4] == "1"
grace, tick = float(sys.argv[5]), float(sys.argv[6])
pol, day, t0 = run["inference"]["policy"], run["day_s"], run["t0_us"]
def say(ok, what):
    print(("ok   " if ok else "FAIL ") + pol + ": " + what)
jobs = run["jobs"]
bad = {n: j["state"] for n, j in jobs.items() if j["state"] != "completed"}
say(not bad, "all %d training jobs completed%s" % (len(jobs), " (not: %s)" % bad if bad else ""))
done = open(os.path.join(d, "done")).read().split("\n") if os.path.exists(os.path.join(d, "done")) else []
count = {n: sum(1 for l in done if l.split()[1:2] == [n]) for n in jobs}
say(all(c == 1 for c in count.values()), "every job finished exactly once %s" % count)
pre = [n for n, j in jobs.items() if j["attempt"] > 1]
for n in pre:
    log = open(os.path.join(st, "spool", str(jobs[n]["id"]), "stdout.log")).read()
    starts = [l for l in log.split("\n") if l.startswith("start ")]
    last = float(starts[-1].split("resume_from=")[1]) if starts else 0.0
    say(len(starts) == jobs[n]["attempt"] and last > 0,
        "%s was preempted (%d attempts) and resumed from its checkpoint (%.2f s of work done)" % (n, jobs[n]["attempt"], last))
h = run["history"]["changes"]
rel = lambda r: (r["t_us"] - t0) / 1e6
trough = [r for r in h if rel(r) <= 0.1 * day]
lent_trough = max([r["lent_servers"] for r in trough] or [0])
peak = [r for r in h if 0.45 * day <= rel(r) <= 0.55 * day]
# the state at the peak: the last record before it, and every record inside it
at_peak = [r for r in h if rel(r) < 0.45 * day][-1:] + peak
svc = run["service"]
if lends:
    say(lent_trough == 2, "2 inference servers lent at the trough (max lent in the first tenth of the day: %d)" % lent_trough)
    say(at_peak and all(r["demand_servers"] == 3 and r["lent_servers"] == 0 for r in at_peak),
        "at the peak the demand is 3 servers and none is lent: %s" % [(round(rel(r), 2), r["demand_servers"], r["lent_servers"]) for r in at_peak])
    notes = [h2["note"] for j in jobs.values() for h2 in j["history"]]
    # reclaimed: preempted and requeued, or moved at once to a free training server
    moved = any("preempted by the aryl policy" in x or x.startswith("migrated to ") for x in notes)
    say(moved and bool(pre), "a borrower was reclaimed by aryl (preempted or migrated) and restarted (%s)%s"
        % (pre, "" if moved else ": %s" % notes))
else:
    say(all(r["lent_servers"] == 0 for r in h), "aryl-base lends nothing")
lat = [r["reclaim_s"] for r in h if r["reclaim_s"] is not None]
mx = max(lat or [0.0])
say(mx <= grace + tick, "every reclaim took at most grace + one tick (%.2f s): max %.3f s over %d" % (grace + tick, mx, len(lat)))
su = svc["max_scale_up_s"] or 0.0
say(su <= grace + 2 * tick, "the service had its wanted replicas running within grace + 2 ticks (%.2f s): max scale-up %.3f s" % (grace + 2 * tick, su))
say(svc["scale_ups"] >= 2 and svc["crash_loop"] in (None, ""), "the service scaled up %d times, no crash loop" % svc["scale_ups"])
print("MEASURED %s: requests %d sent, %d failed (no replica serving yet)" % (pol, run["requests"], run["requests_failed"]))
PY
}
check_run "$W/aryl.json" "$W/run-aryl" "$W/st" 1 >"$W/check.txt"
check_run "$W/base.json" "$W/run-base" "$W/st2" 0 >>"$W/check.txt"
cat "$W/check.txt"
pass=$((pass + $(grep -c '^ok ' "$W/check.txt")))
failn=$((failn + $(grep -c '^FAIL ' "$W/check.txt")))
grep -qE '^(ok|FAIL) ' "$W/check.txt" || bad "the live checks did not run: $(tail -5 "$W/check.txt")"

# ---- the same days in berth sim, side by side, with the tolerances asserted
python3 "$PYS" compare "$BERTH" "$W/cl.json" "$DIURNAL_GRACE_S" $TICK "$DAY" "$W/aryl.json" "$W/base.json" >"$W/cmp.txt" 2>&1 &&
    ok "sim<->live parity holds within the tolerances" || bad "parity: $(grep -v '^PARITY' "$W/cmp.txt" | tail -3)"
cat "$W/cmp.txt"
[ -n "${DIURNAL_KEEP:-}" ] && cp "$W"/*.json "$W"/*.csv "$DIURNAL_KEEP"/ 2>/dev/null
stop_berthd
kill -TERM "$BPID2" 2>/dev/null && wait "$BPID2" && ok "the second berthd stopped cleanly" || bad "berthd 2 exit: $(tail -3 "$W/berthd2.log")"
BPID2=""
! grep -q Sanitizer "$W/berthd2.log" || bad "sanitizer report (berthd 2): $(grep -A5 Sanitizer "$W/berthd2.log" | head -20)"
finish
