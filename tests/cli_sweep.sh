#!/usr/bin/env bash
# berth sweep: a grid of 4 policies x 3 seeds x 2 clusters on a generated workload run here
# with -j2 (every cell a berth sim run, its folder named for it, the table a row per cell and
# its groups' means and 95 % intervals matching a berth sim run by hand); the same table with
# -j1 and a fresh folder; a rerun runs nothing; an interrupted sweep resumes and gives the
# same table; a changed cell command runs again; a failing cell is reported and retried;
# resampled traces; bad grids (FILE:LINE) and flags. The Slurm array: tests/cli_sweep_slurm.sh.
# Usage: bash tests/cli_sweep.sh PATH/TO/berth SRC_DIR SHARED_DIR
set -u
BERTH=${1:?usage: cli_sweep.sh BERTH SRC_DIR SHARED_DIR}
SRC=${2:?usage: cli_sweep.sh BERTH SRC_DIR SHARED_DIR}
SHARED=${3:-}
. "$SRC/tests/cli_lib.sh"

cat >"$W/grid.txt" <<'G'
# 4 policies x 3 seeds x 2 clusters on one generated workload
policy  fifo sjf las tiresias-dlas
cluster small=8x4:v100 big=16x4:v100
gen     gv="--profile gavel --jobs 120 --rate 40"
seed    1-3
G
expect_rc 0 "a 4 x 3 x 2 sweep with -j2" -- "$BERTH" sweep "$W/grid.txt" --out "$W/a" -j2
has "$W/out" "24 cells: 24 run now, 0 done before, 0 failed" "it says what it ran"
rows=$(($(wc -l <"$W/a/results.csv") - 1))
[ "$rows" = 24 ] && ok "results.csv: 24 rows" || bad "results.csv: $rows rows"
[ "$(ls -d "$W/a/cells"/*.s[0-9] | wc -l)" = 24 ] && ok "a folder per cell" || bad "cell folders: $(ls "$W/a/cells" | head)"
[ "$(ls "$W/a/traces" | wc -l)" = 3 ] && ok "the workload generated once per seed" || bad "traces: $(ls "$W/a/traces")"
grep -q '^cell,policy,cluster,workload,flags,seed,status,jobs,completed,avg_jct_s,' "$W/a/results.csv" &&
    ok "results.csv's header" || bad "results.csv header: $(head -1 "$W/a/results.csv")"
[ -s "$W/a/results.json" ] && [ -s "$W/a/summary.csv" ] && [ -s "$W/a/report.html" ] &&
    ok "results.json, summary.csv and report.html" || bad "missing outputs: $(ls "$W/a")"

# one cell by hand: the same numbers as berth sim
"$BERTH" gen --profile gavel --jobs 120 --rate 40 --seed 2 --out "$W/g2.csv"
cmp -s "$W/g2.csv" "$W/a/traces/gv.s2.csv" && ok "the seed-2 workload is berth gen --seed 2's" || bad "the generated workload differs"
"$BERTH" sim --cluster 16x4:v100 --trace "$W/g2.csv" --policy las --seed 2 --json >"$W/hand.json"
python3 - "$W/hand.json" "$W/a/results.csv" "$W/a/summary.csv" <<'PY' && ok "cell las.big.gv.base.s2 and its group's mean and CI are berth sim's numbers" || bad "the table disagrees with berth sim"
import csv, json, math, statistics, sys
hand = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
cell = [r for r in rows if r["cell"] == "las.big.gv.base.s2"][0]
assert abs(float(cell["avg_jct_s"]) - hand["avg_jct_s"]) < 1e-3, (cell["avg_jct_s"], hand["avg_jct_s"])
assert int(cell["preemptions"]) == hand["preemptions"]
vals = [float(r["avg_jct_s"]) for r in rows if r["policy"] == "las" and r["cluster"] == "big"]
g = [r for r in csv.DictReader(open(sys.argv[3])) if r["policy"] == "las" and r["cluster"] == "big"][0]
m = statistics.mean(vals); ci = 4.302652729911275 * statistics.stdev(vals) / math.sqrt(3)
assert abs(float(g["avg_jct_s_mean"]) - m) < 1e-3 * max(1, m), (g["avg_jct_s_mean"], m)
assert abs(float(g["avg_jct_s_ci95"]) - ci) < 1e-3 * max(1, ci), (g["avg_jct_s_ci95"], ci)
PY

# the same table with -j1, in a fresh folder: deterministic
expect_rc 0 "the same grid with -j1" -- "$BERTH" sweep "$W/grid.txt" --out "$W/b" -j1 --quiet
cmp -s "$W/a/results.csv" "$W/b/results.csv" && cmp -s "$W/a/summary.csv" "$W/b/summary.csv" &&
    ok "-j1 and -j2 give the same table, byte for byte" || bad "the tables differ: $(diff "$W/a/results.csv" "$W/b/results.csv" | head -3)"

# a rerun runs nothing
touch -d '2000-01-01' "$W/a/cells"/*/summary.json
expect_rc 0 "a rerun" -- "$BERTH" sweep "$W/grid.txt" --out "$W/a" -j2
has "$W/out" "0 run now, 24 done before" "a rerun runs no cell"
[ -z "$(find "$W/a/cells" -name summary.json -newer "$W/grid.txt")" ] && ok "no cell's results were rewritten" || bad "a cell ran again"

# interrupted, then resumed: the same table as a sweep that ran through (cells of about a
# second each, so that the sweep is stopped with most of them to go)
cat >"$W/slow.txt" <<'G'
policy las
cluster small=8x4:v100
gen gv="--profile gavel --jobs 1500 --rate 40"
seed 1-8
G
"$BERTH" sweep "$W/slow.txt" --out "$W/c" -j1 --quiet >"$W/c.out" 2>&1 &
pid=$!
wait_for 300 "two cells of the sweep to be interrupted" bash -c "[ \$(ls -d '$W/c/cells'/*.s[0-9] 2>/dev/null | wc -l) -ge 2 ]"
kill -INT "$pid"
wait "$pid"
rc=$?
[ "$rc" = 130 ] && ok "SIGINT: exit 130" || bad "interrupted sweep exited $rc: $(tail -3 "$W/c.out")"
done_before=$(ls -d "$W/c/cells"/*.s[0-9] | wc -l)
[ "$done_before" -lt 8 ] && ok "it stopped after $done_before cells" || bad "it ran every cell before the signal"
[ -z "$(ls -d "$W/c/cells"/*.part 2>/dev/null)" ] && ok "no half-written cell is left" || bad "a .part folder is left"
ps -eo ppid= | grep -qx " *$pid" && bad "a child of the sweep lives on" || ok "no child of the interrupted sweep lives on"
expect_rc 0 "the resumed sweep" -- "$BERTH" sweep "$W/slow.txt" --out "$W/c" -j2
has "$W/out" "$done_before done before" "the resume skips the $done_before cells done"
expect_rc 0 "the same sweep without interruption" -- "$BERTH" sweep "$W/slow.txt" --out "$W/d" -j2
cmp -s "$W/c/results.csv" "$W/d/results.csv" && ok "the resumed sweep's table is the same" ||
    bad "the resumed table differs: $(diff "$W/c/results.csv" "$W/d/results.csv" | head -3)"

# a changed command runs its cells again
echo "sim --restart-cost 5" >>"$W/grid.txt"
expect_rc 0 "a grid whose cells' command changed" -- "$BERTH" sweep "$W/grid.txt" --out "$W/a" -j2
has "$W/out" "24 run now, 0 done before" "changed cells run again"
grep -q -- '--restart-cost' "$W/a/cells/fifo.small.gv.base.s1/command.txt" && ok "command.txt records the command" || bad "command.txt"

# a failing cell: reported, its reason kept, retried by the next sweep
cat >"$W/fail.txt" <<'G'
policy fifo salus-fifo
cluster 4x4:v100
gen gv="--profile gavel --jobs 30 --rate 10"
G
expect_rc 1 "a cell that fails" -- "$BERTH" sweep "$W/fail.txt" --out "$W/f" -j2
has "$W/err" "failed: salus-fifo.4x4-v100.gv.base.s1: traces/gv.s1.csv" "the failure is named with its reason"
[ -f "$W/f/cells/salus-fifo.4x4-v100.gv.base.s1.failed" ] && ok "CELL.failed holds it" || bad "no .failed file"
grep -q 'salus-fifo.4x4-v100.gv.base.s1,salus-fifo,.*the salus policies run 1-GPU jobs' "$W/f/results.csv" &&
    ok "results.csv says why in the status column" || bad "results.csv status: $(grep salus "$W/f/results.csv")"
expect_rc 1 "the next sweep retries it" -- "$BERTH" sweep "$W/fail.txt" --out "$W/f" -j2
has "$W/out" "2 cells: 0 run now, 1 done before, 1 failed" "and it fails again"

# resampled trace files (bootstrap), relative paths from the grid's folder
"$BERTH" gen --profile gavel --jobs 80 --rate 30 --seed 9 --out "$W/t.csv"
printf 'policy fifo las\ncluster 8x4:v100\ntrace t.csv\nseed 1 2\nresample bootstrap\n' >"$W/boot.txt"
expect_rc 0 "a bootstrap-resampled trace" -- "$BERTH" sweep "$W/boot.txt" --out "$W/r" -j2
[ "$(($(wc -l <"$W/r/traces/t.s1.csv") - 1))" = 80 ] && ok "a resample has the trace's 80 jobs" || bad "resample size"
grep -q '#2,' "$W/r/traces/t.s1.csv" && ok "drawn with replacement: copies named ID#2" || bad "no copy in the bootstrap"
cmp -s "$W/r/traces/t.s1.csv" "$W/r/traces/t.s2.csv" && bad "two seeds gave the same resample" || ok "each seed its own resample"

# bad grids and flags
printf 'policy fifo nope\ncluster 4x4:v100\ngen gv="--jobs 5"\n' >"$W/bad1.txt"
expect_rc 2 "an unknown policy" -- "$BERTH" sweep "$W/bad1.txt" --out "$W/x"
has "$W/err" "bad1.txt:1: policy: unknown policy 'nope'" "it names FILE:LINE and the dimension"
printf 'policy fifo\ncluster 4x4:v100\ngen gv="--jobs 5"\nflags x="--restart-cost abc"\n' >"$W/bad2.txt"
expect_rc 2 "a bad berth sim flag in flags" -- "$BERTH" sweep "$W/bad2.txt" --out "$W/x"
has "$W/err" "bad2.txt:4: a flag of berth sim:" "checked by berth sim's parser before anything runs"
[ -z "$(ls "$W/x/cells" 2>/dev/null)" ] && ok "nothing ran" || bad "cells ran for a bad grid"
printf 'policy fifo\ncluster 4x4:v100\ngen gv="--jobs 5 --profile nope"\n' >"$W/bad3.txt"
expect_rc 2 "a bad berth gen flag" -- "$BERTH" sweep "$W/bad3.txt" --out "$W/x3"
has "$W/err" "making" "the failed input is named"
one_error "no grid" "expected a GRID file" -- "$BERTH" sweep --out "$W/x"
one_error "no --out" "--out DIR is required" -- "$BERTH" sweep "$W/grid.txt"
one_error "--partition without --slurm" "--partition goes with --slurm" -- "$BERTH" sweep "$W/grid.txt" --out "$W/x" --partition p
one_error "-j 0" "-j" -- "$BERTH" sweep "$W/grid.txt" --out "$W/x" -j 0
expect_rc 2 "--cell out of range" -- "$BERTH" sweep "$W/grid.txt" --out "$W/a" --cell 99
has "$W/err" "--cell 99: the grid has 24 cells (0 to 23)" "it says the range"
finish
