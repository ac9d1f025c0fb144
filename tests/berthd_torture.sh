#!/usr/bin/env bash
# berthd's crash torture: a seeded mixed workload from three concurrent clients (submit, some
# held; cancel, hold, release; jobs that checkpoint on their signal, ignore it until SIGKILL,
# or die of it; short and longer jobs; various exit codes) under a preemptive policy, while
# berthd is SIGKILLed 50 times at random moments (some while a request is in flight, some
# again while it recovers) and restarted on the same state dir. Then the workload drains and
# tests/torture.py checks berthd's promise: every acknowledged request's effect survived, no
# job ran twice, every job ended (or is held), and every final state is in the journal and
# stays as it is across a restart. BERTH_TORTURE_SEED sets the seed (2; "random" draws one),
# BERTH_TORTURE_KILLS the number of kills (50), BERTH_TORTURE_KEEP a folder to copy the
# scratch folder (state, logs, markers, every request) to. Usage: as berthd_api.sh.
set -u
. "$(dirname "$0")/cli_lib.sh"
. "$(dirname "$0")/lib_berthd.sh"
TORTURE=$(dirname "$0")/torture.py
# bash reports each berthd it reaps after a SIGKILL ("... Killed  "$BERTHD" ..."): 50 lines
# that say nothing the summary does not
exec 2> >(grep --line-buffered -v 'Killed *"\$BERTHD"' >&2)
command -v python3 >/dev/null || skip_test python3 "python3 is not installed"
command -v flock >/dev/null || skip_test flock "flock (util-linux) is not installed"

# a fixed seed by default (las with a 1-s quantum: the most preemptions), so that make test
# plays the same workload each time; BERTH_TORTURE_SEED=random draws one
SEED=${BERTH_TORTURE_SEED:-2}
[ "$SEED" = random ] && SEED=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
KILLS=${BERTH_TORTURE_KILLS:-50}
RANDOM=$SEED
if [ $((SEED % 2)) = 0 ]; then FLAGS=(--gpus 1x4:v100 --policy las --quantum 1)
else FLAGS=(--gpus 1x4:v100 --policy srtf); fi
echo "torture: seed $SEED (BERTH_TORTURE_SEED=$SEED reruns it), $KILLS kills, berthd ${FLAGS[*]}"

# The job: markers in $W/markers ("start ID ATTEMPT RESUME" when an attempt starts, "done ID
# ATTEMPT" when its work is done, "overlap ID ATTEMPT" when another attempt of it still holds
# its lock). Its work is TICKS sleeps of 0.1 s, counted in $W/ck/ID, so a resumed attempt goes
# on from there; the done line is its last checkpoint (a resumed attempt that finds it only
# exits). MODE: ckpt exits 0 on the checkpoint signal, ignore sleeps through it until the
# SIGKILL at the grace's end, plain dies of it. Usage: job.sh MODE TICKS CODE SIGNAL
mkdir -m 1777 "$W/ck" "$W/lk"
: >"$W/markers"
chmod 666 "$W/markers"
cat >"$W/job.sh" <<SH
id=\$BERTH_JOB_ID a=\$BERTH_ATTEMPT M=$W/markers
exec 9>>"$W/lk/\$id"
flock -n 9 || echo "overlap \$id \$a" >>\$M
echo "start \$id \$a \${BERTH_RESUME:-0}" >>\$M
grep -q "^done \$id " \$M && exit "\$3"
case \$1 in
ckpt) trap 'echo "ckpt \$id \$a" >>\$M; exit 0' "\$4" ;;
ignore) trap '' "\$4" ;;
esac
i=\$(cat "$W/ck/\$id" 2>/dev/null)
i=\${i:-0}
while [ "\$i" -lt "\$2" ]; do
    sleep 0.1
    i=\$((i + 1))
    echo "\$i" >"$W/ck/\$id"
done
trap '' "\$4"
echo "done \$id \$a" >>\$M
exit "\$3"
SH
chmod 644 "$W/job.sh"
export ALICE BOB ROOT ALICE_USER BOB_USER OPS_USER

# berthd as start_berthd runs it, killed after DELAY s: a crash in the middle of recovery
kill_in_recovery() {
    rm -f "$W/port"
    "$BERTHD" --tokens "$W/tokens" --port 0 --port-file "$W/port" --state-dir "$W/st" \
        --tick 0.02 "${FLAGS[@]}" >>"$W/berthd.log" 2>&1 &
    local pid=$!
    sleep "$1"
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    echo "berthd: (torture) killed $1 s after its start" >>"$W/berthd.log"
}

T0=$SECONDS
start_berthd "${FLAGS[@]}"
python3 "$TORTURE" run "$W" "$SEED" "$KILLS" >"$W/driver.log" 2>&1 &
DRIVER=$!
trap 'touch "$W/stop"; kill "$DRIVER" 2>/dev/null; stop_berthd KILL; cleanup_jobs; rm -rf "$W"' EXIT
killed=0
for gen in $(seq 0 $((KILLS - 1))); do
    echo "$gen $BPID" >"$W/bpid.tmp" && mv "$W/bpid.tmp" "$W/bpid"
    wait_for 120 "the driver's kill $gen of berthd" test -e "$W/killed.$gen" || break
    stop_berthd KILL # reaps it
    killed=$((killed + 1))
    recov=$(cat "$W/killed.$gen")
    [ "$recov" = -1 ] || kill_in_recovery "$recov"
    start_berthd "${FLAGS[@]}"
done
echo "$KILLS $BPID" >"$W/bpid.tmp" && mv "$W/bpid.tmp" "$W/bpid"
[ "$killed" = "$KILLS" ] && ok "berthd SIGKILLed $killed times and restarted ($((SECONDS - T0)) s)" ||
    bad "only $killed kills of $KILLS: $(tail -3 "$W/driver.log")"
touch "$W/stop"
wait_for 120 "the clients to stop" eval '! kill -0 $DRIVER 2>/dev/null'
wait "$DRIVER" && ok "the clients ran" || bad "the driver failed: $(tail -5 "$W/driver.log")"

# drain: every job ends, except those held
T1=$SECONDS
left() { # the jobs pending or running, as "ID:state" words
    api GET "/v1/jobs?state=pending,running" "" "$ROOT" >/dev/null
    python3 -c 'import json,sys; print(" ".join("%d:%s" % (j["id"], j["state"]) for j in json.load(open(sys.argv[1]))["jobs"]))' "$W/body"
}
drained() { local l; l=$(left) && [ "$(status)" = 200 ] && [ -z "$l" ]; }
if wait_for 240 "the workload to drain" drained; then ok "the workload drained in $((SECONDS - T1)) s"
else echo "still pending or running: $(left)"; fi
python3 "$TORTURE" snapshot "$W" "$W/before.json" || bad "the snapshot before the stop failed"
stop_berthd
shims=$(pgrep -f -- "--shim $W/st/" | tr '\n' ' ')
[ -z "$shims" ] && ok "no attempt runs once every job is over or held" ||
    bad "attempts still run (shims $shims): $(for p in $shims; do tr '\0' ' ' </proc/$p/cmdline; echo; done)"
python3 "$TORTURE" journal "$W" "$W/journal.json" || bad "reading the journal failed"
start_berthd "${FLAGS[@]}"
python3 "$TORTURE" snapshot "$W" "$W/after.json" || bad "the snapshot after the restart failed"
stop_berthd

# A directed case the random schedule seldom hits: a cancel acknowledged while the job's
# preempted attempt is still in its grace (it ignores its signal), then a crash. The attempt
# ends by itself after the restart (within its 30 s grace); the job must end cancelled, that
# attempt its only one, and leave nothing behind in the scheduler.
directed_cancel_in_grace() {
    local A B D=$W/d
    start_berthd --gpus 1x1:v100 --policy srtf --state-dir "$W/st-d"
    cat >"$W/d.sh" <<SH
echo "start \$BERTH_ATTEMPT" >> $D.m
trap '' TERM
echo ready > $D.ready
until [ -e $D.go ]; do sleep 0.05; done
SH
    chmod 644 "$W/d.sh"
    : >"$D.m" && chmod 666 "$D.m"
    api POST /v1/jobs '{"argv":["/bin/sh","'"$W/d.sh"'"],"est_s":1000,"grace_s":30}' >/dev/null
    A=$(jf id)
    wait_state "$A" running && wait_for 30 "job $A to set its trap" test -s "$D.ready" || return
    api POST /v1/jobs '{"argv":["/bin/true"],"est_s":1}' >/dev/null
    B=$(jf id)
    preempted() { api GET "/v1/jobs/$A" >/dev/null && grep -q "preempted by" "$W/body"; }
    wait_for 30 "job $A to be preempted by job $B" preempted || return
    api POST "/v1/jobs/$A/cancel" >/dev/null
    [ "$(status)" = 200 ] || { bad "cancel of job $A in its grace: $(status) $(cat "$W/body")"; return; }
    # the cancel is final: no hold or release may bring the job back, a second cancel is a no-op
    api POST "/v1/jobs/$A/hold" >/dev/null
    [ "$(status)" = 409 ] && has "$W/body" "is being cancelled" "a hold of a job being cancelled: 409" ||
        bad "hold of job $A being cancelled: $(status) $(cat "$W/body")"
    api POST "/v1/jobs/$A/cancel" >/dev/null
    [ "$(status)" = 200 ] && ok "a second cancel: 200" || bad "second cancel of job $A: $(status) $(cat "$W/body")"
    stop_berthd KILL
    start_berthd --gpus 1x1:v100 --policy srtf --state-dir "$W/st-d"
    touch "$D.go"
    idle() { # job B over, job A over, and nothing pending or running in the scheduler
        api GET "/v1/health" "" "$ROOT" >/dev/null
        [ "$(jf pending)" = 0 ] && [ "$(jf running)" = 0 ] || return 1
        api GET "/v1/jobs/$B" "" "$ROOT" >/dev/null && [ "$(jf state)" = completed ] &&
            api GET "/v1/jobs/$A" "" "$ROOT" >/dev/null &&
            case $(jf state) in completed | failed | cancelled) ;; *) false ;; esac
    }
    wait_for 90 "jobs $A and $B to end and the scheduler to be idle" idle || return
    local notes
    notes=$(python3 -c 'import json,sys; print(" | ".join(h["note"] for h in json.load(open(sys.argv[1]))["history"]))' "$W/body")
    [ "$(jf state)" = cancelled ] && [ "$(jf attempt)" = 1 ] && [ "$(wc -l <"$D.m")" = 1 ] &&
        ok "a cancel acknowledged in a preempted attempt's grace, then a crash: the job ends cancelled, never started again" ||
        bad "job $A, cancelled (acknowledged) in its preempted attempt's grace before a crash, is $(jf state) after $(jf attempt) attempts (markers: $(tr '\n' ' ' <"$D.m")): $notes"
    stop_berthd
}
directed_cancel_in_grace

python3 "$TORTURE" check "$W" >"$W/check.out" 2>&1
cat "$W/check.out"
pass=$((pass + $(grep -c '^ok' "$W/check.out")))
failn=$((failn + $(grep -c '^FAIL' "$W/check.out")))
grep -q '^checks:' "$W/check.out" || bad "torture.py check did not finish: $(tail -5 "$W/check.out")"
echo "torture: seed $SEED, $((SECONDS - T0)) s in all"
if [ -n "${BERTH_TORTURE_KEEP:-}" ]; then # the scratch folder, for a closer look
    rm -rf "$BERTH_TORTURE_KEEP" && cp -a "$W" "$BERTH_TORTURE_KEEP" && echo "torture: kept $W in $BERTH_TORTURE_KEEP"
fi
[ "$failn" = 0 ] || { echo "torture: FAILED with seed $SEED (BERTH_TORTURE_SEED=$SEED reruns it); berthd's log ends:"; tail -20 "$W/berthd.log"; }
finish
