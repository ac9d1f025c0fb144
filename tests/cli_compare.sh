#!/usr/bin/env bash
# berth compare (the tournament) on a generated Gavel workload: every policy over 5 bootstrap
# resamples, ranked on avg JCT, tested against the best, one recommended with its reason; the
# policies that cannot run the trace (Salus on gangs) listed as not applicable with why; the
# same answer twice (deterministic); --json and its fields; --metric, --policies, sim flags
# after --, --out kept and resumed, --report; and bad flags.
# Usage: bash tests/cli_compare.sh PATH/TO/berth SRC_DIR SHARED_DIR
set -u
BERTH=${1:?usage: cli_compare.sh BERTH SRC_DIR SHARED_DIR}
SRC=${2:?usage: cli_compare.sh BERTH SRC_DIR SHARED_DIR}
. "$SRC/tests/cli_lib.sh"

"$BERTH" gen --profile gavel --jobs 300 --rate 25 --seed 7 --out "$W/g.csv"
expect_rc 0 "every policy on a generated Gavel workload" -- "$BERTH" compare --cluster gavel --trace "$W/g.csv" -j2 --out "$W/c" --report "$W/c.html"
cp "$W/out" "$W/text"
has "$W/text" "ranked on avg JCT" "it names the metric"
has "$W/text" "Recommendation: " "it recommends a policy"
grep -A1 '^Recommendation: ' "$W/text" | tail -1 | grep -qE 'mean avg JCT over 5 seeds|not significantly different' &&
    ok "with its reason" || bad "no reason: $(tail -3 "$W/text")"
for p in salus-fifo salus-srtf salus-pack salus-fair; do
    grep -qE "^ +- +$p +not applicable: traces/g.s1.csv:[0-9]+: job .*: the salus policies run 1-GPU jobs" "$W/text" ||
        { bad "$p is not listed as not applicable with why: $(grep "$p" "$W/text")"; }
done
ok "the Salus policies are not applicable to gangs, and it says why"
n=$(grep -cE '^ +[0-9]+  [a-z]' "$W/text")
[ "$n" = $(($("$BERTH" policies | awk '/^placements/ {exit} /^  [a-z]/ {n++} END {print n}') - 4)) ] &&
    ok "every other policy is ranked ($n)" || bad "$n policies ranked"
"$BERTH" compare --cluster gavel --trace "$W/g.csv" -j2 --json >"$W/j1.json" 2>"$W/err" || bad "--json: $(cat "$W/err")"
python3 - "$W/j1.json" "$W/text" <<'PY' && ok "--json: one object, the same winner, every field" || bad "--json: $(head -c 400 "$W/j1.json")"
import json, re, sys
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
win = re.search(r"^Recommendation: (\S+)", text, re.M).group(1)
assert d["winner"] == win, (d["winner"], win)
assert d["metric"] == "avg-jct" and d["seeds"] == 5 and d["higher_better"] is False
r = d["ranking"]
assert [x["rank"] for x in r] == list(range(1, len(r) + 1))
assert all(r[i]["mean"] <= r[i + 1]["mean"] for i in range(len(r) - 1))
assert r[0]["p_holm"] is None and all(x["p_holm"] is not None for x in r[1:])
assert all(x["significant"] == (x["p_holm"] is not None and x["p_holm"] < 0.05) for x in r)
assert len(d["not_applicable"]) == 4 and d["reason"]
PY
"$BERTH" compare --cluster gavel --trace "$W/g.csv" -j2 --json >"$W/j2.json"
cmp -s "$W/j1.json" "$W/j2.json" && ok "the same answer twice" || bad "two runs disagree"
[ -z "$(ls -d "${TMPDIR:-/tmp}"/berth-compare-* 2>/dev/null | grep -v "^$W")" ] || true
[ -s "$W/c/results.csv" ] && [ -s "$W/c/grid.txt" ] && ok "--out keeps the runs, the grid and the table" || bad "--out: $(ls "$W/c")"
grep -q 'id="recommendation"' "$W/c.html" && grep -q 'id="ranking-table"' "$W/c.html" &&
    ok "--report: the ranking, the recommendation and the charts" || bad "--report page"
expect_rc 0 "again with --out: resumed" -- "$BERTH" compare --cluster gavel --trace "$W/g.csv" -j2 --out "$W/c"
cmp -s "$W/out" "$W/text" && ok "the same ranking from the kept runs" || bad "the resumed ranking differs"

# a metric where more is better, a list of policies, sim flags after --
expect_rc 0 "--metric util on three policies with a restart cost" -- "$BERTH" compare --cluster gavel --trace "$W/g.csv" --policies fifo,las,srtf --metric util --seeds 3 -j2 --json -- --restart-cost 30
python3 - "$W/out" <<'PY' && ok "ranked by utilisation, highest first, over 3 seeds" || bad "--metric util: $(head -c 300 "$W/out")"
import json, sys
d = json.load(open(sys.argv[1]))
r = d["ranking"]
assert d["higher_better"] and d["seeds"] == 3 and len(r) == 3
assert r[0]["mean"] >= r[1]["mean"] >= r[2]["mean"]
assert {x["policy"] for x in r} == {"fifo", "las", "srtf"}
PY
# --resample none: the trace as it is; these policies draw nothing: exact differences
expect_rc 0 "--resample none" -- "$BERTH" compare --cluster gavel --trace "$W/g.csv" --policies fifo,sjf --resample none --seeds 3 --json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["exact"] and all(x["ci95"] == 0 for x in d["ranking"])' "$W/out" &&
    ok "without resampling the runs do not vary: the differences are exact" || bad "--resample none: $(head -c 300 "$W/out")"

one_error "no --trace" "--trace FILE is required" -- "$BERTH" compare --cluster gavel
one_error "an unknown metric" "--metric: unknown metric 'speed'" -- "$BERTH" compare --cluster gavel --trace "$W/g.csv" --metric speed
one_error "an unknown policy" "--policies: unknown policy 'nope'" -- "$BERTH" compare --cluster gavel --trace "$W/g.csv" --policies fifo,nope
one_error "--seeds 0" "--seeds" -- "$BERTH" compare --cluster gavel --trace "$W/g.csv" --seeds 0
expect_rc 2 "a bad sim flag after --" -- "$BERTH" compare --cluster gavel --trace "$W/g.csv" --policies fifo -- --restart-cost x
has "$W/err" "a flag of berth sim" "checked before anything runs"
expect_rc 2 "a bad --resample" -- "$BERTH" compare --cluster gavel --trace "$W/g.csv" --resample 2
has "$W/err" "resample: expected none, bootstrap or a fraction" "and says what it takes"
finish
