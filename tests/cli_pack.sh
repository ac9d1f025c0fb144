#!/usr/bin/env bash
# CLI test for `berth pack`: summary, --json, --out CSV, determinism with a seed, exit code 2
# for bad flags and files; the openb run when the shared folder has it.
# Usage: bash tests/cli_pack.sh PATH/TO/berth SRC_DIR SHARED_DIR
set -u
BERTH=${1:?usage: cli_pack.sh BERTH SRC_DIR SHARED_DIR}
SHARED=${3:-}
. "${2:?usage: cli_pack.sh BERTH SRC_DIR SHARED_DIR}/tests/cli_lib.sh"
TMP=$W

# exit2 NAME PATTERN ARGS...: exit code 2 and PATTERN on stderr
exit2() {
    local name=$1 pat=$2
    shift 2
    "$BERTH" pack "$@" >/dev/null 2>"$TMP/err"
    local rc=$?
    if [ $rc -eq 2 ] && grep -q -- "$pat" "$TMP/err"; then ok "$name"; else
        bad "$name (rc $rc: $(cat "$TMP/err"))"; fi
}

printf 'sn,cpu_milli,memory_mib,gpu,model\nn0,32000,65536,2,t4\nn1,32000,65536,2,t4\n' >"$TMP/nodes.csv"
{
    echo "name,cpu_milli,memory_mib,num_gpu,gpu_milli"
    for i in $(seq 1 12); do echo "p$i,2000,1024,1,$(( (i % 5 + 1) * 150 ))"; done
    echo "w1,4000,1024,2,1000"
} >"$TMP/pods.csv"
A=(--cluster "$TMP/nodes.csv" --trace "$TMP/pods.csv")

check "summary" bash -c "'$BERTH' pack ${A[*]} | grep -q 'scorer fgd: 13 pods on 4 GPUs'"
check "json" bash -c "'$BERTH' pack ${A[*]} --scorer best-fit --json | grep -q '\"scorer\":\"best-fit\",.*\"pods\":13'"
check "csv" bash -c "'$BERTH' pack ${A[*]} --out '$TMP/o.csv' >/dev/null &&
    head -1 '$TMP/o.csv' | grep -qx 'pct,tried,placed,failed,requested_gpus,allocated_gpus,alloc_ratio,frag_gpus,frag_ratio' &&
    [ \$(wc -l <'$TMP/o.csv') -gt 50 ]"
"$BERTH" pack "${A[@]}" --scorer random --shuffle --seed 9 --json >"$TMP/r1"
"$BERTH" pack "${A[@]}" --scorer random --shuffle --seed 9 --json >"$TMP/r2"
check "seeded runs are identical" cmp -s "$TMP/r1" "$TMP/r2"
check "help" bash -c "'$BERTH' pack --help | grep -q 'usage: berth pack'"

exit2 "unknown scorer" "--scorer: unknown scorer 'worst'" "${A[@]}" --scorer worst
exit2 "bad seed" "--seed: expected a whole number" "${A[@]}" --seed -1
exit2 "bad tune" "--tune: expected a number" "${A[@]}" --tune x
exit2 "missing trace" "--trace FILE is required" --cluster "$TMP/nodes.csv"
exit2 "unknown flag" "unknown flag '--bogus'" "${A[@]}" --bogus
one_error "pack --bogus" "berth pack: unknown flag '--bogus'" -- "$BERTH" pack "${A[@]}" --bogus
one_error "pack --tune 200" "berth pack: --tune: expected a number from 0 to 100, found '200'" -- "$BERTH" pack "${A[@]}" --tune 200
exit2 "missing file" "nope.csv" --cluster "$TMP/nodes.csv" --trace "$TMP/nope.csv"
printf 'name,cpu_milli,memory_mib,num_gpu,gpu_milli\np1,x,1,1,100\n' >"$TMP/bad.csv"
exit2 "bad row names file and line" "bad.csv:2" --cluster "$TMP/nodes.csv" --trace "$TMP/bad.csv"

D=$SHARED/traces/alibaba-openb-2023
if [ -n "$SHARED" ] && [ -r "$D/openb_pod_list_default.csv" ]; then
    check "openb default, fgd" bash -c "'$BERTH' pack --cluster '$D/openb_node_list_gpu_node.csv' \
        --trace '$D/openb_pod_list_default.csv' --json | grep -q '\"pods\":8152'"
else
    echo "SKIP openb traces not found, skipped"
fi

finish
