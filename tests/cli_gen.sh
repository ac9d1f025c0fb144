#!/usr/bin/env bash
# CLI test for `berth gen`: valid native CSV on stdout and with --out, determinism, --help,
# and exit code 2 for bad flags and values.
# Usage: bash tests/cli_gen.sh PATH/TO/berth SRC_DIR SHARED_DIR
set -u
BERTH=${1:?usage: cli_gen.sh BERTH SRC_DIR SHARED_DIR}
. "${2:?usage: cli_gen.sh BERTH SRC_DIR SHARED_DIR}/tests/cli_lib.sh"
TMP=$W

# valid_csv FILE N HEADER: header as given, N rows, ids 1..N, whole-second arrivals from 0 and
# non-decreasing, durations >= 1, GPU counts >= 1, every row as wide as the header
valid_csv() {
    awk -F, -v n="$2" -v header="$3" '
        NR == 1 { if ($0 != header) { print "bad header: " $0; exit 1 } nf = NF; next }
        {
            if (NF != nf) { print "line " NR ": " NF " fields"; exit 1 }
            if ($1 != NR - 1) { print "line " NR ": id " $1; exit 1 }
            if ($2 !~ /^[0-9]+$/ || $3 !~ /^[0-9]+$/ || $4 !~ /^[0-9]+$/) {
                print "line " NR ": not whole numbers: " $0; exit 1
            }
            if (NR == 2 && $2 != 0) { print "first arrival " $2; exit 1 }
            if ($2 + 0 < last) { print "line " NR ": arrival goes back"; exit 1 }
            if ($3 + 0 < 1 || $4 + 0 < 1) { print "line " NR ": " $0; exit 1 }
            last = $2 + 0
        }
        END { if (NR - 1 != n) { print NR - 1 " rows, expected " n; exit 1 } }
    ' "$1"
}

# expect_exit NAME CODE STDERR_PATTERN ARGS...: berth gen ARGS exits CODE, stderr matches
expect_exit() {
    local name=$1 code=$2 pattern=$3
    shift 3
    "$BERTH" gen "$@" >"$TMP/out" 2>"$TMP/err"
    local rc=$?
    if [ "$rc" -eq "$code" ] && grep -q -- "$pattern" "$TMP/err"; then
        ok "$name"
    else
        bad "$name (exit $rc, stderr: $(head -c 300 "$TMP/err"))"
    fi
}

# stdout, default profile (philly): a queue column with the VC names
"$BERTH" gen --jobs 200 >"$TMP/a.csv" 2>"$TMP/err"
check "stdout: exit 0" [ $? -eq 0 ]
check "stdout: valid philly CSV" valid_csv "$TMP/a.csv" 200 "job_id,arrival_s,duration_s,num_gpus,queue"
check "stdout: nothing on stderr" [ ! -s "$TMP/err" ]
check "philly: queues are 6-hex-digit VCs" \
    awk -F, 'NR > 1 && $5 !~ /^[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]$/ { exit 1 }' "$TMP/a.csv"
check "default: 1000 jobs" bash -c "[ \$('$BERTH' gen | wc -l) -eq 1001 ]"

# --out writes the same bytes as stdout
"$BERTH" gen --jobs 200 --out "$TMP/b.csv"
check "--out: exit 0" [ $? -eq 0 ]
check "--out: same bytes as stdout" cmp -s "$TMP/a.csv" "$TMP/b.csv"
"$BERTH" gen --jobs=200 --seed 1 --profile philly --rate 0 --out="$TMP/c.csv"
check "explicit defaults, --flag=value form: same bytes" cmp -s "$TMP/a.csv" "$TMP/c.csv"

# gavel: no queue column, 1/2/4/8 GPUs, durations in [1897, 600000]
"$BERTH" gen --profile gavel --jobs 500 --seed 5 --out "$TMP/g1.csv"
check "gavel: valid CSV" valid_csv "$TMP/g1.csv" 500 "job_id,arrival_s,duration_s,num_gpus,job_type,total_steps"
check "gavel: every job has a Gavel job type and steps" \
    awk -F, 'NR > 1 && ($5 == "" || $6 !~ /^[0-9]+$/ || $6 < 1) { exit 1 }' "$TMP/g1.csv"
# run by steps on V100s, every job takes its duration (steps = ceil(duration x V100 rate))
"$BERTH" sim --cluster 64x8:v100 --trace "$TMP/g1.csv" --policy fifo --out "$TMP/gs" >/dev/null
check "gavel: by steps on V100 each job runs its duration, to the second" \
    awk -F, 'NR == FNR { if (FNR > 1) d[$1] = $3; next }
             FNR > 1 { r = $7 - d[$1]; if (r < -1 || r > 1) { print $1, $7, d[$1]; exit 1 } }' \
    "$TMP/g1.csv" "$TMP/gs/jobs.csv"
check "gavel: GPU counts and durations in range" \
    awk -F, 'NR > 1 && ($4 !~ /^(1|2|4|8)$/ || $3 < 1897 || $3 > 600000) { exit 1 }' "$TMP/g1.csv"

# determinism
"$BERTH" gen --profile gavel --jobs 500 --seed 5 >"$TMP/g2.csv"
check "same seed: identical" cmp -s "$TMP/g1.csv" "$TMP/g2.csv"
"$BERTH" gen --profile gavel --jobs 500 --seed 6 >"$TMP/g3.csv"
check "other seed: different" bash -c "! cmp -s '$TMP/g1.csv' '$TMP/g3.csv'"
"$BERTH" gen --profile gavel --jobs 500 --seed 5 --rate 30 >"$TMP/g4.csv"
check "other rate: different arrivals" bash -c "! cmp -s '$TMP/g1.csv' '$TMP/g4.csv'"
# --elastic: the same jobs, each with min_gpus 1 and max_gpus max(16, its gang)
"$BERTH" gen --profile gavel --jobs 500 --seed 5 --elastic 16 >"$TMP/g5.csv"
check "--elastic: min_gpus and max_gpus columns" grep -q "^job_id,.*,min_gpus,max_gpus$" "$TMP/g5.csv"
check "--elastic: every job 1..max(16, gang), the rest unchanged" bash -c "paste -d, '$TMP/g1.csv' '$TMP/g5.csv' | awk -F, 'NR > 1 { n++; if (\$13 != 1 || \$14 != (\$4 > 16 ? \$4 : 16)) bad++; for (i = 1; i <= 6; i++) if (\$i != \$(i + 6)) bad++ } END { exit !(n == 500 && !bad) }'"

# --help
"$BERTH" gen --help >"$TMP/help" 2>&1
check "--help: exit 0" [ $? -eq 0 ]
for flag in --profile --jobs --rate --seed --out --help gavel philly --elastic; do
    check "--help mentions $flag" grep -q -- "$flag" "$TMP/help"
done
"$BERTH" help gen >"$TMP/help2" 2>&1
check "berth help gen: exit 0, same help" cmp -s "$TMP/help" "$TMP/help2"

# bad input: exit 2 with a message on stderr, nothing written
expect_exit "unknown flag" 2 "unknown flag '--bogus'" --bogus
expect_exit "unknown short flag" 2 "unknown flag '-x'" -x
expect_exit "missing value" 2 "--jobs: expected a value" --jobs
one_error "gen --bogus" "berth gen: unknown flag '--bogus'" -- "$BERTH" gen --out "$TMP/never.csv" --bogus
check "  ... and nothing written" [ ! -e "$TMP/never.csv" ]
one_error "gen --jobs without its value" "berth gen: --jobs: expected a value" -- "$BERTH" gen --jobs
one_error "gen --elastic 2000" "berth gen: --elastic: expected a largest gang of 1 to 1024 GPUs" -- "$BERTH" gen --elastic 2000
expect_exit "stray argument" 2 "unexpected argument 'extra'" extra
expect_exit "unknown profile" 2 "--profile: unknown profile 'x' (expected gavel, philly or llm)" --profile x
expect_exit "--jobs not a number" 2 "--jobs: expected a whole number" --jobs abc
expect_exit "--jobs negative" 2 "--jobs: expected a whole number" --jobs -3
expect_exit "--jobs 0" 2 "--jobs: expected 1 to 100000000 jobs, found 0" --jobs 0
expect_exit "--jobs too many" 2 "--jobs: expected 1 to 100000000" --jobs 100000001
expect_exit "--rate nan" 2 "--rate:" --rate nan
expect_exit "--elastic too large" 2 "--elastic: expected a largest gang of 1 to 1024 GPUs (0 = inelastic), found '1025'" --elastic 1025
expect_exit "--rate negative" 2 "--rate:" --rate -1
expect_exit "--rate not a number" 2 "--rate:" --rate fast
expect_exit "--seed not a number" 2 "--seed: expected a whole number" --seed 1.5
check "bad input: nothing on stdout" [ ! -s "$TMP/out" ]
echo keep >"$TMP/keep.csv"
expect_exit "bad option keeps --out untouched" 2 "--profile" --profile x --out "$TMP/keep.csv"
check "  ... file still there" grep -q keep "$TMP/keep.csv"
expect_exit "--out in a missing folder" 2 "--out: cannot open" --out "$TMP/no/such/dir/x.csv"

# a failed write is a runtime failure: exit 1
if [ -w /dev/full ]; then
    expect_exit "--out /dev/full: exit 1" 1 "write error" --jobs 20000 --out /dev/full
    "$BERTH" gen --jobs 20000 >/dev/full 2>"$TMP/err"
    rc=$?
    check "stdout to /dev/full: exit 1" [ $rc -eq 1 ]
fi

finish
