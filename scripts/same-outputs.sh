#!/usr/bin/env bash
# Are berth's results unchanged? Builds berth at a reference commit (a git worktree in a
# temporary folder) and runs the same matrix with it and with the working tree's build:
# the real Philly trace under every policy and placement, generated Gavel workloads (plain
# and elastic) under every policy and time mode, Aryl with an inference pool, the Salus
# policies on 1-GPU jobs, openb with departures and berth pack's scorers. Every --out file
# (jobs.csv, series.csv, summary.json), the --json summary without wall_s, the exit status
# and stderr must be byte-identical. A refactoring commit runs it against its parent.
#
# Usage: scripts/same-outputs.sh [REF [BERTH]]   REF: a commit (default HEAD); BERTH: the
# binary to check (default: build/berth, rebuilt with make build). Env: KEEP=DIR keeps the
# two result trees there; SHARED=DIR the shared folder (default ../shared).
set -euo pipefail
cd "$(dirname "$0")/.."
REF=${1:-HEAD}
NEW=${2:-}
SHARED=${SHARED:-../shared}
TR=$SHARED/traces
T=$(mktemp -d)
cleanup() {
    git worktree remove --force "$T/ref" >/dev/null 2>&1 || true
    rm -rf "$T"
}
trap cleanup EXIT

if [ -z "$NEW" ]; then
    make build >/dev/null
    NEW=build/berth
fi
NEW=$(readlink -f "$NEW")
echo "same-outputs: $NEW against $(git rev-parse --short "$REF")"
git worktree add --detach "$T/ref" "$REF" >/dev/null 2>&1
cmake -S "$T/ref" -B "$T/ref-build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DBERTH_SHARED_DIR="$(readlink -f "$SHARED")" >/dev/null
cmake --build "$T/ref-build" -j2 --target berth_cli >/dev/null
OLD=$T/ref-build/berth

# ---- inputs ---------------------------------------------------------------------------------
I=$T/in
mkdir -p "$I"
"$NEW" gen --profile gavel --jobs 1000 --rate 30 --seed 1 --out "$I/gavel.csv"
"$NEW" gen --profile gavel --jobs 600 --rate 12 --seed 2 --elastic 8 --out "$I/elastic.csv"
"$NEW" gen --profile philly --jobs 3000 --rate 60 --seed 3 --out "$I/phgen.csv"
# 1-GPU jobs for the Salus policies (they refuse gangs)
awk -F, 'NR == 1 || $4 == 1' "$I/gavel.csv" >"$I/onegpu.csv"
cat >"$I/aryl.json" <<'JSON'
{"servers": [
  {"gpu_type": "v100", "gpus": 8, "count": 8, "pool": "training"},
  {"gpu_type": "v100", "gpus": 8, "count": 8, "pool": "inference"}]}
JSON
cat >"$I/mem.json" <<'JSON'
{"servers": [{"gpu_type": "v100", "gpus": 1, "count": 6, "gpu_mem_mib": 16384}]}
JSON
POLICIES=$("$OLD" policies | awk '/^placements/ {exit} /^  [a-z]/ {print $1}')
NONSALUS=$(printf '%s\n' $POLICIES | grep -v '^salus-')
PHILLY=$TR/philly-pollux/philly.csv
TPUT=$TR/gavel/simulation_throughputs.json
OPENB=$TR/alibaba-openb-2023

# ---- the matrix: one line per case, NAME ARGS... ------------------------------------------
M=$T/matrix
: >"$M"
case_() { printf '%s\n' "$*" >>"$M"; }
if [ -f "$PHILLY" ]; then
    for p in $NONSALUS; do case_ "philly-$p sim --cluster philly --trace $PHILLY --policy $p"; done
    for pl in spread best-fit; do
        case_ "philly-fifo-skip-$pl sim --cluster philly --trace $PHILLY --policy fifo-skip --placement $pl"
    done
    case_ "philly-las-restart sim --cluster philly --trace $PHILLY --policy las --quantum 600 --restart-cost helios"
else
    echo "same-outputs: no $PHILLY: the Philly cases are left out" >&2
fi
for p in $NONSALUS; do case_ "gavel-$p sim --cluster gavel --trace $I/gavel.csv --policy $p"; done
for p in gavel-fifo gavel-max-min gavel-max-min-perf themis-ftf fifo las; do
    case_ "gavelmode-$p sim --cluster gavel --trace $I/gavel.csv --policy $p --mode gavel"
done
for p in blox-las blox-fifo las; do
    case_ "bloxmode-$p sim --cluster gavel --trace $I/gavel.csv --policy $p --mode blox"
    case_ "rounds-$p sim --cluster gavel --trace $I/gavel.csv --policy $p --mode rounds --round 120"
done
for p in tiresias-dlas tiresias-dlas-gpu; do
    case_ "tiresias-limits-$p sim --cluster tiresias --trace $I/gavel.csv --policy $p --queue-limits 600,3600,7200"
done
for p in goodput goodput-hetero aryl aryl-elastic aryl-base srtf; do
    case_ "elastic-$p sim --cluster gavel --trace $I/elastic.csv --policy $p --restart-cost 30"
done
for p in aryl aryl-loan aryl-elastic aryl-base; do
    case_ "infer-$p sim --cluster $I/aryl.json --trace $I/elastic.csv --policy $p --inference diurnal:0.9,0.3,24,600"
done
for p in $POLICIES; do
    case "$p" in salus-*) ;; *) continue ;; esac
    case_ "salus-$p sim --cluster $I/mem.json --trace $I/onegpu.csv --policy $p --colocate-speed 0.8"
done
if [ -f "$TPUT" ]; then
    for p in fifo las gavel-max-min-perf goodput-hetero; do
        case_ "tput-$p sim --cluster gavel --trace $I/gavel.csv --policy $p --throughputs $TPUT"
    done
    case_ "fixed-las sim --cluster gavel --trace $I/gavel.csv --policy las --fixed-speed --spread-penalty 0.7"
fi
for p in fifo sjf las tiresias-dlas specon spread; do
    case_ "phgen-$p sim --cluster 16x8:v100 --trace $I/phgen.csv --policy $p"
done
if [ -d "$OPENB" ]; then
    for p in fifo-skip las specon; do
        case_ "openb-$p sim --cluster $OPENB/openb_node_list_gpu_node.csv --trace $OPENB/openb_pod_list_gpushare40.csv --policy $p"
    done
    for s in fgd best-fit first-fit dot-product random fgd-k8s; do
        case_ "pack-$s pack --cluster $OPENB/openb_node_list_gpu_node.csv --trace $OPENB/openb_pod_list_default.csv --scorer $s --json"
    done
    case_ "pack-fgd-tuned pack --cluster $OPENB/openb_node_list_gpu_node.csv --trace $OPENB/openb_pod_list_multigpu50.csv --shuffle --tune 1.3 --seed 42 --json"
else
    echo "same-outputs: no $OPENB: the openb cases are left out" >&2
fi

# ---- run it with both binaries --------------------------------------------------------------
run_all() { # run_all BERTH DIR
    local b=$1 d=$2 name cmd
    mkdir -p "$d"
    while read -r name cmd args; do
        mkdir -p "$d/$name"
        local extra=()
        [ "$cmd" = sim ] && extra=(--out "$d/$name/out" --json)
        set +e
        # shellcheck disable=SC2086
        "$b" "$cmd" $args "${extra[@]}" >"$d/$name/stdout" 2>"$d/$name/stderr"
        echo $? >"$d/$name/rc"
        set -e
        # wall_s and events_per_s are the figures that differ from run to run; each goes
        # with the comma before it (or, first in its object, after it): the JSON stays valid
        sed -i -E 's/, ?"(wall_s|events_per_s)": ?[0-9.e+-]+//g;
            s/"(wall_s|events_per_s)": ?[0-9.e+-]+(, ?)?//g' "$d/$name/stdout"
        sed -i "s#$d/$name#OUT#g" "$d/$name/stderr"
    done <"$M"
}
N=$(wc -l <"$M")
t0=$(date +%s)
run_all "$OLD" "$T/old"
t1=$(date +%s)
run_all "$NEW" "$T/new"
t2=$(date +%s)
[ -n "${KEEP:-}" ] && mkdir -p "$KEEP" && cp -r "$T/old" "$T/new" "$KEEP/"
bad=0
while read -r name _; do
    if ! diff -r "$T/old/$name" "$T/new/$name" >"$T/diff" 2>&1; then
        echo "DIFFERENT $name:"
        head -20 "$T/diff"
        bad=$((bad + 1))
    elif [ "$(cat "$T/new/$name/rc")" != 0 ]; then
        echo "note: $name exits $(cat "$T/new/$name/rc") in both builds: $(head -c 300 "$T/new/$name/stderr")"
    fi
done <"$M"
echo "same-outputs: $N cases, $bad different (reference $((t1 - t0)) s, new $((t2 - t1)) s)"
[ "$bad" = 0 ]
