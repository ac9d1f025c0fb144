#!/usr/bin/env bash
# The job side of berth's live daemon, as berthd will drive it: the Python client's unit
# tests, the C header under strict compilers, and examples/pytorch/train.py preempted
# halfway by its checkpoint signal and resumed with BERTH_RESUME=1 (needs python3-torch).
# Usage: bash tests/cli_jobside.sh PATH/TO/berth SRC_DIR SHARED_DIR
set -u
SRC=${2:?usage: cli_jobside.sh BERTH SRC_DIR SHARED_DIR}
. "$SRC/tests/cli_lib.sh"
export PYTHONDONTWRITEBYTECODE=1 # leave no __pycache__ in the source tree
unset BERTH_JOB_ID BERTH_API BERTH_JOB_TOKEN BERTH_PROGRESS_FILE BERTH_RESUME \
    BERTH_CHECKPOINT_SIGNAL BERTH_GRACE_S WORLD_SIZE RANK LOCAL_RANK

# --- (a) berth_client.py unit tests: file and HTTP reports, rate limit, signal, no-op
if (cd "$SRC/clients/python" && python3 -m unittest test_berth_client) >"$W/unit.log" 2>&1; then
    ok "berth_client unit tests ($(grep -o 'Ran [0-9]* tests' "$W/unit.log"))"
else
    bad "berth_client unit tests:"
    cat "$W/unit.log"
fi

# --- the C header compiles alone under strict C11, and refuses a non-POSIX build clearly
cat >"$W/jc.c" <<'EOF'
#include "berth/job_client.h"
int main(void)
{
    struct berth_job_client j;
    return berth_job_client_open(&j) < 0;
}
EOF
for flags in "-std=c11 -pedantic -D_POSIX_C_SOURCE=200809L" "-std=gnu11"; do
    # shellcheck disable=SC2086 # flags are words
    if cc $flags -Wall -Wextra -Werror -I"$SRC/include" "$W/jc.c" -o "$W/jc" 2>"$W/cc.err"; then
        ok "job_client.h compiles with $flags"
    else
        bad "job_client.h with $flags: $(head -c 400 "$W/cc.err")"
    fi
done
cc -std=c11 -I"$SRC/include" "$W/jc.c" -o "$W/jc" 2>"$W/cc.err"
has "$W/cc.err" "job_client.h needs POSIX" "job_client.h says what a strict non-POSIX build lacks"
if command -v c++ >/dev/null; then
    cp "$W/jc.c" "$W/jc.cc"
    check "job_client.h compiles as C++11" \
        c++ -std=c++11 -pedantic -Wall -Wextra -Werror -I"$SRC/include" "$W/jc.cc" -o "$W/jc"
else
    echo "SKIP job_client.h as C++: no c++ compiler here (apt-get install g++)"
fi

# --- (b) train.py preempted and resumed as berthd does it
TPY=""
for py in ${BERTH_PYTHON:-} python3 /usr/bin/python3; do
    if "$py" -c "import torch" 2>/dev/null; then
        TPY=$py
        break
    fi
done
[ -n "$TPY" ] ||
    skip_test torch "train.py: python3-torch is not installed (make test installs it; apt-get install python3-torch)"
TRAIN="$SRC/examples/pytorch/train.py"
N=300
ARGS=(--steps "$N" --hidden 64 --report-every 10 --log-every 100000)
# last_step FILE: the step of the file's last whole line (a line is whole once its newline
# is written), cheaply enough to poll
last_step() { head -n "$(wc -l <"$1")" "$1" | tail -n 1 | sed -n 's/.*"step": *\([0-9]*\).*/\1/p'; }
# steps FILE: the steps of the progress file's whole lines, one per line, read as berthd does
steps() { "$TPY" -c 'import sys; sys.path.insert(0, sys.argv[1]); import berth_client as b
print("\n".join(str(x["step"]) for x in b.read_progress(sys.argv[2])))' "$SRC/clients/python" "$1"; }
# done_field OUT NAME: the value after NAME on train.py's "done:" line
done_field() { sed -n "s/.*done:.* $2 \([^ ]*\).*/\1/p" "$1"; }

# reference: uninterrupted, outside berth (no BERTH_* variables: reports are a no-op)
mkdir "$W/ref" && cd "$W/ref" || exit 1
expect_rc 0 "train.py runs outside berth" -- "$TPY" "$TRAIN" "${ARGS[@]}" --ckpt "$W/ref/ckpt.pt"
cp "$W/out" "$W/ref.out"
check "outside berth it writes only its checkpoint" [ "$(ls "$W/ref")" = "ckpt.pt" ]

# first run, under berth's variables, slowed so that the signal lands halfway (0.04 s a
# step: 6 s from halfway to the end, for the signal to land on a loaded machine)
export BERTH_JOB_ID=t1 BERTH_PROGRESS_FILE="$W/progress.jsonl" BERTH_CHECKPOINT_SIGNAL=SIGUSR1 \
    BERTH_GRACE_S=20 WORLD_SIZE=1 RANK=0 LOCAL_RANK=0
cd "$W" || exit 1
t0=$(date +%s)
setsid "$TPY" "$TRAIN" "${ARGS[@]}" --ckpt "$W/ckpt.pt" --step-time 0.04 >"$W/run1.out" 2>&1 &
pid=$!
reached=0
while kill -0 "$pid" 2>/dev/null && [ $(($(date +%s) - t0)) -lt 90 ]; do
    last=$( [ -f "$BERTH_PROGRESS_FILE" ] && last_step "$BERTH_PROGRESS_FILE")
    if [ "${last:-0}" -ge $((N / 2)) ]; then
        reached=1
        break
    fi
    sleep 0.05
done
check "first run reached step $((N / 2)) (last reported: ${last:-none})" [ "$reached" = 1 ]
ts=$(date +%s%N)
kill -s USR1 -- "-$pid" # berthd signals the job's process group
wait "$pid"
rc=$?
took_ms=$((($(date +%s%N) - ts) / 1000000))
check "first run exits 0 on SIGUSR1 (exit $rc): $(tail -n 2 "$W/run1.out")" [ "$rc" = 0 ]
check "first run stopped within BERTH_GRACE_S (${took_ms} ms)" [ "$took_ms" -lt 20000 ]
S=$(sed -n 's/.*checkpoint at step \([0-9]*\) on request.*/\1/p' "$W/run1.out")
S=${S:-none}
in_range=0
[ "$S" != none ] && [ "$S" -ge $((N / 2)) ] && [ "$S" -lt $N ] && in_range=1
check "first run checkpointed at step $S, past halfway and before the end" [ "$in_range" = 1 ]
check "the checkpoint file is there" [ -f "$W/ckpt.pt" ]
check "no temporary checkpoint is left" [ -z "$(find "$W" -name '*.tmp.*')" ]
steps "$BERTH_PROGRESS_FILE" >"$W/steps1"
n1=$(wc -l <"$W/steps1")
check "first run's last progress line is the checkpoint step" [ "$(tail -n 1 "$W/steps1")" = "$S" ]

# restart after the preemption: BERTH_RESUME=1, same checkpoint path
BERTH_RESUME=1 "$TPY" "$TRAIN" "${ARGS[@]}" --ckpt "$W/ckpt.pt" >"$W/run2.out" 2>&1
rc=$?
check "resumed run exits 0 (exit $rc): $(tail -n 2 "$W/run2.out")" [ "$rc" = 0 ]
# (train.py reads the step it resumes from out of the checkpoint)
has "$W/run2.out" "resumed from step $S " "resumed run continued from the checkpoint's step"
check "resumed run finished all $N steps" [ "$(done_field "$W/run2.out" step)" = $N ]
steps "$BERTH_PROGRESS_FILE" >"$W/steps"
tail -n +$((n1 + 1)) "$W/steps" >"$W/steps2"
first2=$(head -n 1 "$W/steps2")
follows=0
[ "$S" != none ] && [ "${first2:-0}" -gt "$S" ] && [ "${first2:-0}" -le $((S + 10)) ] && follows=1
check "resumed run's first report (${first2:-none}) follows the checkpoint step ($S), not 0" \
    [ "$follows" = 1 ]
check "resumed run's last report is step $N" [ "$(tail -n 1 "$W/steps2")" = $N ]
# steps never go back across both runs; they repeat only where run 1 reported its checkpoint
check "progress steps are monotone across the restart" sort -n -c "$W/steps"
check "steps repeat only at the checkpoint" [ -z "$(uniq -d "$W/steps" | grep -vx "$S")" ]
check "every progress line is whole and has a time" "$TPY" -c '
import json, sys
for line in open(sys.argv[1]):
    x = json.loads(line)
    assert set(x) <= {"step", "metric", "time"} and "time" in x, line' "$BERTH_PROGRESS_FILE"

# the same model as the uninterrupted run: same last loss and evaluation loss
for f in loss eval_loss; do
    a=$(done_field "$W/ref.out" $f) b=$(done_field "$W/run2.out" $f)
    check "$f after preempt+resume ($b) matches the uninterrupted run ($a)" "$TPY" -c \
        'import sys; a, b = map(float, sys.argv[1:]); sys.exit(abs(a - b) > 1e-6 * max(1, abs(a)))' \
        "${a:-nan}" "${b:-0}"
done
echo "timing: $(($(date +%s) - t0)) s from the first run's start to here;" \
    "signal to exit ${took_ms} ms"
finish
