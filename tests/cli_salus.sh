#!/usr/bin/env bash
# End-to-end tests of the salus policies through `berth sim`: listed by `berth policies`,
# every policy runs a small trace to the end under --check (and twice the same), the memory
# columns are read, refusals say which job and line, and the real Philly trace's 1-GPU jobs
# finish under every salus policy.
# Usage: cli_salus.sh PATH/TO/berth SRC_DIR SHARED_DIR
set -u
BERTH=$1 SRC=$2 SHARED=$3
. "$SRC/tests/cli_lib.sh"

printf 'job_id,arrival_s,duration_s,num_gpus,persist_mib,ephem_mib,job_type\n' >"$W/t.csv"
for i in $(seq 0 39); do
    printf 'j%d,%d,%d,1,%s,%s,%s\n' "$i" $((i * 7)) $((30 + (i * 37) % 500)) \
        "$([ $((i % 3)) = 0 ] && echo 900)" "$([ $((i % 3)) = 0 ] && echo 5000)" \
        "$([ $((i % 3)) = 1 ] && echo 'ResNet-50 (batch size 64)')" >>"$W/t.csv"
done

expect_rc 0 "policies" -- "$BERTH" policies
for p in salus-fifo salus-srtf salus-pack salus-fair; do has "$W/out" "$p" "policies lists $p"; done
for p in salus-fifo salus-srtf salus-pack salus-fair; do
    expect_rc 0 "$p runs" -- "$BERTH" sim --cluster 4x1:v100 --trace "$W/t.csv" --policy $p \
        --check --colocate-speed 0.7 --json
    cp "$W/out" "$W/$p.json"
    has "$W/out" '"completed": 40' "$p: all 40 jobs complete"
    expect_rc 0 "$p again" -- "$BERTH" sim --cluster 4x1:v100 --trace "$W/t.csv" --policy $p \
        --check --colocate-speed 0.7 --json
    python3 - "$W/out" "$W/$p.json" <<'PY' && ok "$p: deterministic" || bad "$p: two runs differ"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for d in (a, b):
    for k in ("wall_s", "events_per_s"):
        d.pop(k, None)
assert a == b and a["jobs"] == 40
PY
done
python3 - "$W" <<'PY' && ok "srtf and pack beat fifo on average JCT; fifo and pack never preempt" || bad "salus policies' character"
import json, sys
d = {p: json.load(open("%s/salus-%s.json" % (sys.argv[1], p))) for p in ("fifo", "srtf", "pack", "fair")}
assert d["srtf"]["avg_jct_s"] < d["fifo"]["avg_jct_s"], d
assert d["pack"]["avg_jct_s"] < d["fifo"]["avg_jct_s"], d
assert d["fifo"]["preemptions"] == 0 and d["pack"]["preemptions"] == 0, d
PY

printf 'job_id,arrival_s,duration_s,num_gpus\na,0,10,1\nb,1,10,2\n' >"$W/gang.csv"
expect_rc 2 "a gang is refused as bad input, before the run" -- "$BERTH" sim --cluster 1x4:v100 --trace "$W/gang.csv" --policy salus-srtf
has "$W/err" "gang.csv:3: job b: the salus policies run 1-GPU jobs" "the refusal names the file, line and job"
printf 'job_id,arrival_s,duration_s,num_gpus,persist_mib,ephem_mib\na,0,10,1,30000,9000\n' >"$W/big.csv"
expect_rc 2 "a job larger than any GPU is refused as bad input" -- "$BERTH" sim --cluster 1x1:v100 --trace "$W/big.csv" --policy salus-pack
has "$W/err" "big.csv:2: job a: needs 39000 MiB of GPU memory" "the memory refusal names the file, line and job"
printf 'job_id,arrival_s,duration_s,num_gpus,persist_mib\na,0,10,1,x\n' >"$W/badmem.csv"
expect_rc 2 "a bad persist_mib" -- "$BERTH" sim --cluster 1x1:v100 --trace "$W/badmem.csv" --policy salus-pack
has "$W/err" "badmem.csv:2: column persist_mib: expected a memory size in MiB >= 0" "bad persist_mib names file, line, column"

PHILLY=$SHARED/traces/philly-pollux/philly.csv
if [ -f "$PHILLY" ]; then
    "$BERTH" trace convert "$PHILLY" "$W/philly.csv" --format philly-pollux 2>/dev/null
    python3 - "$W/philly.csv" "$W/philly1.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
with open(sys.argv[2], "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=rows[0].keys())
    w.writeheader()
    w.writerows(r for r in rows if r["num_gpus"] == "1")
PY
    n=$(($(wc -l <"$W/philly1.csv") - 1))
    for p in salus-fifo salus-srtf salus-pack salus-fair; do
        "$BERTH" sim --cluster 64x8:v100 --trace "$W/philly1.csv" --policy $p --json >"$W/p.json" 2>"$W/err" &&
            grep -q "\"completed\": $n," "$W/p.json" && ok "philly's $n 1-GPU jobs complete under $p" ||
            bad "philly under $p: $(cat "$W/err")"
    done
else
    echo "SKIP $PHILLY absent; real-trace checks skipped"
fi

finish
