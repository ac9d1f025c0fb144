#!/usr/bin/env bash
# End-to-end tests of `berth trace` (stats, convert, slice, formats) as a user runs them:
# figures on a hand-made trace and on the real Philly file, --json, byte-exact conversion,
# slices and their determinism, exit codes 2 for bad input and 1 for failed writes.
# Usage: bash tests/cli_trace.sh PATH/TO/berth SRC_DIR SHARED_DIR
set -u
BERTH=${1:?usage: cli_trace.sh BERTH SRC_DIR SHARED_DIR}
SHARED=${3:-}
. "${2:?usage: cli_trace.sh BERTH SRC_DIR SHARED_DIR}/tests/cli_lib.sh"
# expect NAME CODE ARGS...: `berth ARGS` exits CODE (stdout in $W/out, stderr in $W/err)
expect() {
    local name=$1 code=$2
    shift 2
    "$BERTH" "$@" >"$W/out" 2>"$W/err"
    local rc=$?
    if [ "$rc" -eq "$code" ]; then
        ok "$name (exit $rc)"
    else
        bad "$name: exit $rc, expected $code; stderr: $(head -c 300 "$W/err")"
    fi
}

# A hand-made trace: durations 1 2 3 4 10 s, GPU time 1 4 12 2 2.5 GPU-s, arrivals 0..20 s.
cat >"$W/tiny.csv" <<'EOF'
job_id,arrival_s,duration_s,num_gpus,user,queue,gpu_share
a,10,1,1,u1,q1,1
b,0,2,2,u2,q1,1
c,5,3,4,u1,q2,1
d,20,4,1,u3,,0.5
e,15,10,1,,q2,0.25
EOF

# --- formats and help -----------------------------------------------------------------------
expect "formats" 0 trace formats
check "formats: native listed" grep -qx native "$W/out"
check "formats: philly-pollux listed" grep -qx philly-pollux "$W/out"
expect "--help" 0 trace --help
cp "$W/out" "$W/help"
for flag in stats convert slice formats --format --lenient --json --top --from --to --queue \
    --user --sample --count --seed --rebase --help; do
    check "--help mentions $flag" grep -q -- "$flag" "$W/help"
done
expect "stats --help" 0 trace stats --help
check "stats --help: same help" cmp -s "$W/help" "$W/out"
expect "berth help trace" 0 help trace
check "berth help trace: same help" cmp -s "$W/help" "$W/out"
expect "no subcommand" 2 trace
expect "unknown subcommand" 2 trace nosuch
has "$W/err" "unknown subcommand 'nosuch'" "unknown subcommand: named"

# --- stats ----------------------------------------------------------------------------------
expect "stats tiny" 0 trace stats "$W/tiny.csv"
has "$W/out" "jobs            5" "stats: job count"
has "$W/out" "1: 3 · 2: 1 · 4: 1 (40.00 % multi-GPU)" "stats: GPUs per job (fractional jobs in the 1 bin)"
has "$W/out" "2 jobs, share of a GPU median 0.38, p90 0.47, range 0.25-0.5" "stats: fractional jobs"
has "$W/out" "min 1, median 3, p90 7.6, p99 9.76, max 10, mean 4" "stats: exact percentiles"
has "$W/out" "first 0, last 20, span 20" "stats: arrival span"
check "stats: nothing on stderr" [ ! -s "$W/err" ]
expect "stats --top 1" 0 trace stats "$W/tiny.csv" --top 1
has "$W/out" "... and 2 more" "stats --top 1: the rest counted"
expect "stats --json" 0 trace stats --json "$W/tiny.csv"
check "stats --json: one line" [ "$(wc -l <"$W/out")" -eq 1 ]
if command -v python3 >/dev/null; then
    check "stats --json: figures" python3 -c '
import json, sys
o = json.load(open(sys.argv[1]))
d = o["duration_s"]
assert o["jobs"] == 5 and o["multi_gpu_jobs"] == 2 and o["fractional_jobs"] == 2
assert abs(d["p90"] - 7.6) < 1e-9 and abs(d["p99"] - 9.76) < 1e-9 and d["max"] == 10
assert [b["gpus"] for b in o["gpus_per_job"]] == [1, 2, 4]
assert [(q["name"], q["jobs"]) for q in o["queues"]] == [("q1", 2), ("q2", 2)]
assert o["jobs_without_queue"] == 1 and abs(o["gpu_hours"]["total"] - 21.5 / 3600) < 1e-12
' "$W/out"
fi
printf 'job_id,arrival_s,duration_s,num_gpus\n1,0,10,1\n2,0,abc,1\n3,5,10,2\n' >"$W/bad.csv"
expect "stats: a bad row fails" 2 trace stats "$W/bad.csv"
has "$W/err" "bad.csv:3: column duration_s" "stats: bad row named FILE:LINE and column"
expect "stats --lenient" 0 trace stats --lenient "$W/bad.csv"
has "$W/err" "1 of 3 rows left out" "stats --lenient: what was left out on stderr"
has "$W/out" "jobs            2" "stats --lenient: the good rows"
expect "stats: missing file" 2 trace stats "$W/none.csv"
expect "stats: unknown format" 2 trace stats "$W/tiny.csv" --format nope
has "$W/err" "unknown trace format 'nope'" "stats: unknown format named"
expect "stats: wrong format" 2 trace stats "$W/tiny.csv" --format philly-pollux
expect "stats: no file" 2 trace stats
expect "stats: two files" 2 trace stats "$W/tiny.csv" "$W/tiny.csv"
has "$W/err" "unexpected argument" "stats: extra argument named"
expect "stats: unknown flag" 2 trace stats "$W/tiny.csv" --bogus
has "$W/err" "unknown flag '--bogus'" "stats: unknown flag named"
expect "stats: a slice flag" 2 trace stats "$W/tiny.csv" --from 3
has "$W/err" "--from is not a flag of this command" "stats: flag of another subcommand"
expect "stats: --top needs a value" 2 trace stats "$W/tiny.csv" --top
expect "stats: --top not a number" 2 trace stats "$W/tiny.csv" --top x
one_error "stats --bogus" "berth trace stats: unknown flag '--bogus'" -- "$BERTH" trace stats "$W/tiny.csv" --bogus
one_error "stats --from" "berth trace stats: --from is not a flag of this command" -- "$BERTH" trace stats "$W/tiny.csv" --from 3
one_error "stats --top x" "berth trace stats: --top: expected a whole number >= 0, found 'x'" -- "$BERTH" trace stats "$W/tiny.csv" --top x
one_error "slice --count 0" "berth trace slice: --count: expected a whole number >= 1, found '0'" -- "$BERTH" trace slice "$W/tiny.csv" - --count 0

# --- convert --------------------------------------------------------------------------------
"$BERTH" gen --profile philly --jobs 300 --seed 4 --out "$W/gen.csv"
expect "convert gen output" 0 trace convert "$W/gen.csv" "$W/gen2.csv"
check "convert: native in, same bytes out" cmp -s "$W/gen.csv" "$W/gen2.csv"
expect "convert to stdout" 0 trace convert "$W/gen.csv" -
check "convert -: same bytes on stdout" cmp -s "$W/gen.csv" "$W/out"
cat >"$W/philly.csv" <<'EOF'
timestamp,duration,num_gpus,gpu_time,cluster
2017-10-09 07:01:55,66.0,1,66.0,11cb48
2017-10-09 06:13:03,2951.5,2,5903.0,6214e9
EOF
expect "convert philly-pollux" 0 trace convert "$W/philly.csv" - --format philly-pollux
printf 'job_id,arrival_s,duration_s,num_gpus,queue\n1,2932,66,1,11cb48\n2,0,2951.5,2,6214e9\n' \
    >"$W/philly-native.csv"
check "convert philly-pollux: native rows" cmp -s "$W/philly-native.csv" "$W/out"
expect "convert philly-pollux, detected" 0 trace convert "$W/philly.csv" "$W/p2.csv"
check "convert, detected: same rows" cmp -s "$W/philly-native.csv" "$W/p2.csv"
expect "convert tiny" 0 trace convert "$W/tiny.csv" "$W/tiny2.csv"
expect "convert round trip" 0 trace stats "$W/tiny2.csv"
has "$W/out" "min 1, median 3, p90 7.6, p99 9.76, max 10, mean 4" "convert: the same figures"
echo keep >"$W/keep.csv"
expect "convert: bad input" 2 trace convert "$W/bad.csv" "$W/keep.csv"
check "convert: bad input leaves OUT untouched" grep -qx keep "$W/keep.csv"
expect "convert --lenient" 0 trace convert --lenient "$W/bad.csv" "$W/lenient.csv"
check "convert --lenient: 2 jobs" [ "$(wc -l <"$W/lenient.csv")" -eq 3 ]
expect "convert: one argument" 2 trace convert "$W/tiny.csv"
has "$W/err" "expected IN and OUT" "convert: missing OUT named"
expect "convert: --json is not its flag" 2 trace convert "$W/tiny.csv" - --json
expect "convert: OUT in a missing folder" 2 trace convert "$W/tiny.csv" "$W/no/such/x.csv"
if [ -w /dev/full ]; then
    expect "convert to /dev/full" 1 trace convert "$W/gen.csv" /dev/full
    has "$W/err" "write error" "convert to /dev/full: write error"
fi

# --- slice ----------------------------------------------------------------------------------
expect "slice window" 0 trace slice "$W/tiny.csv" "$W/s.csv" --from 5 --to 20
check "slice window: a c e" [ "$(cut -d, -f1 "$W/s.csv" | tail -n +2 | tr '\n' ' ')" = "a c e " ]
has "$W/err" "kept 3 of 5 jobs" "slice: kept count on stderr"
expect "slice --rebase" 0 trace slice "$W/tiny.csv" - --from=5 --to=20 --rebase
check "slice --rebase: arrivals 5 0 10" \
    [ "$(cut -d, -f2 "$W/out" | tail -n +2 | tr '\n' ' ')" = "5 0 10 " ]
expect "slice --queue list" 0 trace slice "$W/tiny.csv" - --queue q2,q1
check "slice --queue q2,q1: a b c e" \
    [ "$(cut -d, -f1 "$W/out" | tail -n +2 | tr '\n' ' ')" = "a b c e " ]
expect "slice --queue --user" 0 trace slice "$W/tiny.csv" - --queue q2 --user u1 --user u3
check "slice --queue q2 --user u1,u3: c" [ "$(cut -d, -f1 "$W/out" | tail -n +2)" = "c" ]
"$BERTH" gen --profile philly --jobs 2000 --seed 9 --out "$W/big.csv"
expect "slice --count" 0 trace slice "$W/big.csv" "$W/c1.csv" --count 100 --seed 5
check "slice --count: 100 jobs" [ "$(wc -l <"$W/c1.csv")" -eq 101 ]
check "slice --count: file order" bash -c "tail -n +2 '$W/c1.csv' | cut -d, -f1 | sort -n -c"
"$BERTH" trace slice "$W/big.csv" "$W/c2.csv" --count 100 --seed 5 2>/dev/null
check "slice: same seed, same jobs" cmp -s "$W/c1.csv" "$W/c2.csv"
"$BERTH" trace slice "$W/big.csv" "$W/c3.csv" --count 100 --seed 6 2>/dev/null
check "slice: other seed, other jobs" bash -c "! cmp -s '$W/c1.csv' '$W/c3.csv'"
expect "slice --sample" 0 trace slice "$W/big.csv" - --sample 0.25
check "slice --sample 0.25: 500 jobs" [ "$(wc -l <"$W/out")" -eq 501 ]
q=$(awk -F, 'NR == 2 { print $5 }' "$W/big.csv")
n=$(awk -F, -v q="$q" 'NR > 1 && $5 == q' "$W/big.csv" | wc -l)
expect "slice a generated VC" 0 trace slice "$W/big.csv" - --queue "$q"
check "slice --queue $q: its $n jobs" [ "$(wc -l <"$W/out")" -eq $((n + 1)) ]
expect "slice: --sample and --count" 2 trace slice "$W/big.csv" - --sample 0.5 --count 3
has "$W/err" "found both" "slice: both sampling flags named"
expect "slice: --sample 0" 2 trace slice "$W/big.csv" - --sample 0
expect "slice: --sample 1.5" 2 trace slice "$W/big.csv" - --sample 1.5
expect "slice: --sample abc" 2 trace slice "$W/big.csv" - --sample abc
expect "slice: --count 0" 2 trace slice "$W/big.csv" - --count 0
expect "slice: --count -1" 2 trace slice "$W/big.csv" - --count -1
expect "slice: --seed x" 2 trace slice "$W/big.csv" - --seed x
expect "slice: --from abc" 2 trace slice "$W/big.csv" - --from abc
has "$W/err" "--from: expected a number of seconds" "slice: --from named"
expect "slice: --to before --from" 2 trace slice "$W/big.csv" - --from 10 --to 5
expect "slice: empty --queue" 2 trace slice "$W/big.csv" - --queue ,
expect "slice: nothing kept" 2 trace slice "$W/tiny.csv" "$W/keep.csv" --queue nope
has "$W/err" "keeps no job" "slice: nothing kept, said so"
check "slice: nothing kept leaves OUT untouched" grep -qx keep "$W/keep.csv"
expect "slice: --json is not its flag" 2 trace slice "$W/tiny.csv" - --json

# --- the real Philly trace (research/trace-formats.md section 2) ----------------------------
P="$SHARED/traces/philly-pollux/philly.csv"
if [ -n "$SHARED" ] && [ -r "$P" ]; then
    expect "philly stats" 0 trace stats "$P" --format philly-pollux
    has "$W/out" "jobs            82,247" "philly: 82,247 jobs"
    has "$W/out" "1: 76,627 · 2: 1,818 · 4: 1,870 · 8: 1,643 · 12: 7 · 16: 199 · 24: 7 · 32: 67 · 64: 6 · 128: 3 (6.83 % multi-GPU)" \
        "philly: GPUs per job"
    has "$W/out" "min 1, median 1,144, p90 11,265, p99 254,758, max 4,628,226, mean 13,136" \
        "philly: durations"
    has "$W/out" "median 0.33 GPU-h, p99 286, total 978,078 GPU-h" "philly: GPU time"
    has "$W/out" "(108.9 d)" "philly: span"
    sed -n '/^  queues/,+4p' "$W/out" >"$W/vcs"
    printf '  queues          15\n    6214e9     41,226\n    11cb48     16,091\n    6c71a0      9,953\n    b436b2      7,423\n' >"$W/vcs-want"
    check "philly: 15 VCs, largest first" cmp -s "$W/vcs" "$W/vcs-want"
    expect "philly slice" 0 trace slice "$P" "$W/ps.csv" --queue 6214e9 --count 1000 --seed 2
    expect "philly slice stats" 0 trace stats "$W/ps.csv"
    has "$W/out" "6214e9      1,000" "philly slice: 1,000 jobs of 6214e9"
else
    echo "SKIP $P not found; skipping the Philly checks"
fi

# --- the openb default pod list (research/trace-formats.md section 4) --------------------
O="$SHARED/traces/alibaba-openb-2023/openb_pod_list_default.csv"
if [ -n "$SHARED" ] && [ -r "$O" ]; then
    expect "openb stats" 0 trace stats "$O"
    has "$W/out" "jobs            8,152" "openb: 8,152 pods"
    has "$W/out" "0: 1,088 · 1: 6,989 · 2: 16 · 4: 15 · 8: 44" "openb: num_gpu histogram"
    has "$W/out" "3,078 jobs, share of a GPU median 0.47, p90 0.81, range 0.05-0.81" \
        "openb: sharing pods and their gpu_milli"
    has "$W/out" "median 540, p90 6,573, p99 96,510, max 12,537,496" "openb: lifetime percentiles"
    has "$W/out" "(149.3 d)" "openb: span"
    for q in "LS              4,647" "BE              3,398" "Burstable         100" \
        "Guaranteed          7" "Running        5,193" "Failed         1,870" \
        "Pending          897" "Succeeded        192"; do
        has "$W/out" "$q" "openb: $q"
    done
else
    echo "SKIP $O absent; openb figures skipped"
fi

finish
