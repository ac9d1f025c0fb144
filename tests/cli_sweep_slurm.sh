#!/usr/bin/env bash
# berth sweep --slurm on the Slurm mini cluster (tests/slurm/cluster.sh): the grid of
# tests/cli_sweep.sh (4 policies x 3 seeds x 2 clusters) submitted as one Slurm job array, one
# task per cell, waited for and gathered: the same table, byte for byte, as the same grid run
# here with -j2; a rerun submits nothing; cells removed are the only ones a new array runs; an
# interrupted sweep cancels its array. Part of the Slurm suite (label slurm: make test-slurm);
# skips, saying why, without Slurm or root unless BERTH_REQUIRE names slurm.
# Usage: bash tests/cli_sweep_slurm.sh PATH/TO/berth SRC_DIR SHARED_DIR
set -u
BERTH=${1:?usage: cli_sweep_slurm.sh BERTH SRC_DIR SHARED_DIR}
SRC=${2:?usage: cli_sweep_slurm.sh BERTH SRC_DIR SHARED_DIR}
. "$SRC/tests/cli_lib.sh"
API=$(dirname "$BERTH")/tests/slurm_api_test

. "$SRC/tests/slurm/require.sh"
slurm_require cli_sweep_slurm "$API"

export BERTH_SLURM_PORT=auto
C=$W/cluster
chmod 0755 "$W"
trap 'bash "$SRC/tests/slurm/cluster.sh" down "$C" >/dev/null; rm -rf "$W"' EXIT
expect_rc 0 "cluster up" -- bash "$SRC/tests/slurm/cluster.sh" up "$C"
[ "$failn" = 0 ] || { cat "$W/out" "$W/err"; tail -20 "$C"/log/*.log; finish; exit 1; }
export SLURM_CONF=$C/etc/slurm.conf

cat >"$W/grid.txt" <<'G'
policy  fifo sjf las tiresias-dlas
cluster small=8x4:v100 big=16x4:v100
gen     gv="--profile gavel --jobs 120 --rate 40"
seed    1-3
G
expect_rc 0 "the grid here with -j2" -- "$BERTH" sweep "$W/grid.txt" --out "$W/local" -j2
expect_rc 0 "the grid as a Slurm job array" -- "$BERTH" sweep "$W/grid.txt" --out "$W/slurm" --slurm --time 600
has "$W/out" "24 cells: 24 run now, 0 done before, 0 failed" "every cell ran on Slurm"
has "$W/err" "as Slurm job array" "it says which array"
ID=$(cat "$W/slurm/slurm/job_id" 2>/dev/null)
[ -n "$ID" ] && ok "the array's id is kept: $ID" || bad "no slurm/job_id"
cmp -s "$W/local/results.csv" "$W/slurm/results.csv" && cmp -s "$W/local/summary.csv" "$W/slurm/summary.csv" &&
    ok "the same table as the sweep here, byte for byte" ||
    bad "the tables differ: $(diff "$W/local/results.csv" "$W/slurm/results.csv" | head -5)"
n=$(ls "$W/slurm/slurm/${ID}_"*.out 2>/dev/null | wc -l)
[ "$n" = 24 ] && ok "24 array tasks wrote their output" || bad "$n task outputs"
[ -z "$(squeue -h -j "$ID" 2>/dev/null)" ] && ok "no task of the array is left in Slurm" || bad "tasks left: $(squeue -h -j "$ID")"

expect_rc 0 "a rerun with --slurm" -- "$BERTH" sweep "$W/grid.txt" --out "$W/slurm" --slurm
has "$W/out" "0 run now, 24 done before" "submits nothing when every cell is done"
[ "$(cat "$W/slurm/slurm/job_id")" = "$ID" ] && ok "no new array" || bad "a new array was submitted"

rm -rf "$W/slurm/cells/las.big.gv.base.s2" "$W/slurm/cells/fifo.small.gv.base.s1" "$W/slurm/cells/sjf.big.gv.base.s3"
expect_rc 0 "three cells removed" -- "$BERTH" sweep "$W/grid.txt" --out "$W/slurm" --slurm
has "$W/out" "3 run now, 21 done before" "only they run again"
ID2=$(cat "$W/slurm/slurm/job_id")
[ "$ID2" != "$ID" ] && [ "$(ls "$W/slurm/slurm/${ID2}_"*.out | wc -l)" = 3 ] && ok "as a new array of 3 tasks" || bad "array $ID2"
cmp -s "$W/local/results.csv" "$W/slurm/results.csv" && ok "and the table is the same" || bad "table after the rerun"

# interrupted: the array is cancelled
cat >"$W/slow.txt" <<'G'
policy las
cluster small=8x4:v100
gen gv="--profile gavel --jobs 4000 --rate 40"
seed 1-8
G
"$BERTH" sweep "$W/slow.txt" --out "$W/int" --slurm >"$W/int.out" 2>&1 &
pid=$!
wait_for 120 "the slow array to be submitted" test -s "$W/int/slurm/job_id"
ID3=$(cat "$W/int/slurm/job_id")
kill -INT "$pid"
wait "$pid"
rc=$?
[ "$rc" = 130 ] && ok "SIGINT: exit 130" || bad "interrupted: exit $rc: $(tail -3 "$W/int.out")"
grep -q "Slurm job array $ID3 cancelled" "$W/int.out" && ok "it says the array was cancelled" || bad "$(tail -3 "$W/int.out")"
wait_for 60 "the cancelled array to leave Slurm" bash -c "[ -z \"\$(squeue -h -j $ID3 -t PD,R,CG 2>/dev/null)\" ]" &&
    ok "no task of the cancelled array runs"
finish
