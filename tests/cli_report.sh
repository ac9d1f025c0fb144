#!/usr/bin/env bash
# berth report and berth sim --report: one self-contained HTML file with every chart inline
# (counted, titles checked, no script, the same bytes twice), --format svg (one well-formed
# file per chart), labels, folders of older berth sims (no events.csv, groups.csv), bad
# folders and flags (exit 2 naming the file, line and column), and the real Philly trace
# under four policies: a report under 2 MB that headless Chromium renders with every chart
# (its DOM counted) and a PNG screenshot kept under the build folder's test-artefacts/.
# Usage: bash tests/cli_report.sh PATH/TO/berth SRC_DIR SHARED_DIR
set -u
BERTH=${1:?usage: cli_report.sh BERTH SRC_DIR SHARED_DIR}
SRC=${2:?usage: cli_report.sh BERTH SRC_DIR SHARED_DIR}
SHARED=${3:-}
. "$SRC/tests/cli_lib.sh"
NCHARTS=9
TITLES=("Job completion time (CDF)" "Waiting time (CDF)" "Busy GPUs over time"
    "Pending jobs over time" "GPU utilisation by GPU type" "Job completion time by gang size"
    "Finish-time fairness: distribution of ρ" "Fairness: Jain&#39;s index of ρ"
    "Preemptions over time")

# check_page FILE WHAT: the page holds NCHARTS charts with their titles, a summary row per run
check_page() {
    python3 - "$1" "$NCHARTS" "${TITLES[@]}" <<'PY' && ok "$2: $NCHARTS charts with their titles, no script" || bad "$2: $(cat "$W/py.err" 2>/dev/null)"
import re, sys
page = open(sys.argv[1], encoding="utf-8").read()
want = int(sys.argv[2])
charts = re.findall(r'<svg xmlns="http://www.w3.org/2000/svg" class="chart" data-chart="([a-z-]+)"', page)
titles = re.findall(r'<title id="[a-z-]+-title">([^<]*)</title>', page)
err = []
if len(charts) != want: err.append("%d charts" % len(charts))
for t in sys.argv[3:]:
    if t not in titles: err.append("no chart titled " + t)
if "<script" in page: err.append("a script")
if "Content-Security-Policy" not in page: err.append("no CSP")
if 'id="summary-table"' not in page: err.append("no summary table")
open(sys.argv[1] + ".err", "w").write("; ".join(err))
if err:
    open(sys.argv[1].rsplit("/", 1)[0] + "/py.err", "w").write("; ".join(err))
sys.exit(1 if err else 0)
PY
}

"$BERTH" gen --profile gavel --jobs 300 --rate 25 --seed 3 --out "$W/g.csv" || bad "berth gen"
for p in fifo las; do
    "$BERTH" sim --cluster gavel --trace "$W/g.csv" --policy $p --out "$W/$p" >/dev/null ||
        bad "berth sim --policy $p --out"
done
for f in events.csv groups.csv; do
    [ -s "$W/las/$f" ] && ok "--out writes $f" || bad "--out has no $f"
done
head -1 "$W/las/events.csv" | grep -qx 'time_s,preemptions,migrations,resizes' &&
    ok "events.csv's header" || bad "events.csv: $(head -1 "$W/las/events.csv")"
grep -q '^gpu_type,v100,[0-9]*,[0-9]*,[0-9.]*,[0-9.]*,[0-9.]*,36,' "$W/las/groups.csv" &&
    ok "groups.csv: the v100s with their 36 GPUs (gavel:36:36:36)" || bad "groups.csv: $(head -3 "$W/las/groups.csv")"

expect_rc 0 "berth report of two folders" -- "$BERTH" report "$W/fifo" "$W/las" -o "$W/r.html"
check_page "$W/r.html" "the report"
grep -q '<td class="l">fifo</td>' "$W/r.html" && grep -q '<td class="l">las</td>' "$W/r.html" &&
    ok "a summary row per run, named by its folder" || bad "summary rows"
"$BERTH" report "$W/fifo" "$W/las" >"$W/r2.html" 2>"$W/err"
cmp -s "$W/r.html" "$W/r2.html" && ok "the same runs give the same bytes (stdout without --out)" ||
    bad "the report differs between two writes"
"$BERTH" report "$W/fifo" "$W/las" --label 'FIFO <baseline>' --title 'Gavel & co' -o "$W/r3.html"
grep -q 'FIFO &lt;baseline&gt;' "$W/r3.html" && grep -q '<title>Gavel &amp; co</title>' "$W/r3.html" &&
    ! grep -q 'FIFO <baseline>' "$W/r3.html" && ok "--label and --title, escaped" ||
    bad "--label/--title: $(grep -o 'FIFO[^<]*' "$W/r3.html" | head -2)"

# --format svg: one file per chart, each well-formed XML with its title
expect_rc 0 "--format svg" -- "$BERTH" report "$W/fifo" "$W/las" --format svg -o "$W/svg"
n=$(ls "$W/svg"/*.svg 2>/dev/null | wc -l)
[ "$n" = "$NCHARTS" ] && ok "--format svg: $NCHARTS files" || bad "--format svg: $n files"
python3 - "$W/svg" <<'PY' && ok "each SVG is well-formed XML with a <title>" || bad "an SVG file is not well-formed"
import glob, sys, xml.etree.ElementTree as ET
for f in glob.glob(sys.argv[1] + "/*.svg"):
    t = ET.parse(f).getroot().find("{http://www.w3.org/2000/svg}title")
    assert t is not None and t.text, f
PY

# berth sim --report: the same page, straight from the run
expect_rc 0 "berth sim --report" -- "$BERTH" sim --cluster gavel --trace "$W/g.csv" --policy las --report "$W/s.html"
check_page "$W/s.html" "berth sim --report"
grep -q '(this berth sim run)' "$W/s.html" && ok "sim --report names the run" || bad "sim --report runs table"

# a folder of an older berth sim: no events.csv, no groups.csv: charts say so
cp -r "$W/las" "$W/old" && rm "$W/old/events.csv" "$W/old/groups.csv"
expect_rc 0 "a folder without events.csv and groups.csv" -- "$BERTH" report "$W/old" -o "$W/o.html"
grep -q 'no events.csv' "$W/o.html" && grep -q 'no groups.csv' "$W/o.html" &&
    ok "the charts that need them say they are missing" || bad "older folder: no note"

# bad input
mkdir -p "$W/empty"
expect_rc 2 "a folder without summary.json" -- "$BERTH" report "$W/empty"
has "$W/err" "empty/summary.json" "the error names summary.json"
cp -r "$W/las" "$W/badjobs" && sed -i '3s/^\([^,]*,[^,]*,[^,]*,[^,]*\),[0-9.]*,/\1,12x,/' "$W/badjobs/jobs.csv"
expect_rc 2 "a bad jct_s" -- "$BERTH" report "$W/badjobs"
has "$W/err" "badjobs/jobs.csv:3: column jct_s: expected a number, found \"12x\"" "the error names FILE:LINE: column"
one_error "no folder" "expected one or more" -- "$BERTH" report
one_error "--format svg without --out" "--format svg needs --out DIR" -- "$BERTH" report "$W/las" --format svg
one_error "an unknown --format" "--format: expected html or svg, found 'png'" -- "$BERTH" report "$W/las" --format png
one_error "more labels than folders" "--label: 2 labels for 1 folders" -- "$BERTH" report "$W/las" --label a --label b
one_error "--out twice" "--out" -- "$BERTH" report "$W/las" -o a.html -o b.html

# ---- the real Philly trace, four policies, in a real browser --------------------------------
PHILLY=$SHARED/traces/philly-pollux/philly.csv
if [ ! -f "$PHILLY" ]; then
    absent traces "the Philly run: no $PHILLY"
    finish
    exit
fi
mkdir -p "$W/ph"
for p in fifo sjf las tiresias-dlas; do
    "$BERTH" sim --cluster philly --trace "$PHILLY" --policy $p --out "$W/ph/$p" --quiet >/dev/null ||
        bad "Philly under $p"
done
expect_rc 0 "the Philly report" -- "$BERTH" report "$W/ph/fifo" "$W/ph/sjf" "$W/ph/las" "$W/ph/tiresias-dlas" \
    --title "Philly (82,247 jobs) on 64 x 8 V100" -o "$W/philly.html"
size=$(stat -c %s "$W/philly.html")
[ "$size" -lt 2000000 ] && ok "the Philly report is $size bytes, under 2 MB" || bad "the Philly report is $size bytes"
check_page "$W/philly.html" "the Philly report"
if ! have_chrome; then
    absent chromium "the browser checks: chromium is not installed (make test installs it)"
    finish
    exit
fi
chrome --dump-dom "file://$W/philly.html" >"$W/dom.html"
python3 - "$W/dom.html" "$NCHARTS" <<'PY' && ok "Chromium renders the page: $NCHARTS SVG charts in its DOM, with titles and lines" || bad "Chromium's DOM: $(head -c 300 "$W/dom.html") $(tail -3 "$W/chrome.err")"
import re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
charts = re.findall(r'<svg[^>]*class="chart"', dom)
assert len(charts) == int(sys.argv[2]), len(charts)
assert len(re.findall(r'<title id="[a-z-]+-title">', dom)) == int(sys.argv[2])
assert dom.count("<polyline") >= 4 * 6, dom.count("<polyline")  # a line per run in the line charts
PY
PNG=$(artefact report-philly.png)
rm -f "$PNG"
chrome --window-size=1280,5600 --screenshot="$PNG" "file://$W/philly.html" >/dev/null
if [ -s "$PNG" ] && [ "$(head -c 8 "$PNG" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] &&
    [ "$(stat -c %s "$PNG")" -gt 100000 ]; then
    ok "a screenshot of the Philly report: $PNG ($(stat -c %s "$PNG") bytes)"
else
    bad "no screenshot at $PNG: $(tail -3 "$W/chrome.err")"
fi
finish
