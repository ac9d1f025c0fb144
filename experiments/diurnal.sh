#!/usr/bin/env bash
# Aryl live against its simulation (issue 17 item 6): the diurnal scenario of
# tests/berthd_diurnal.sh with a longer day — a 2-GPU inference service of 1..3 replicas
# following a day-night load, seven rigid and elastic training jobs, two berthds (aryl,
# aryl-base) on a fake cluster of one training and three inference servers — and the same
# day replayed by `berth sim --inference` with the demand berthd recorded. Prints the live
# checks and the side-by-side table (reclaim latency, preemptions, lent GPU-hours and the
# inference shortfall scaled to 24 h, training JCT and makespan under aryl and aryl-base),
# and fails when a figure leaves the tolerance of docs/design.md ("Sim⇄live parity").
# The day lasts DAY seconds of wall time (default 240: 1 s = 6 min of the modelled day).
#
# Usage: bash experiments/diurnal.sh [BUILD_DIR]   (env DAY, GRACE; KEEP=DIR keeps the
#        runs' JSON and the simulator's CSV inputs there)
set -eu
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "$BUILD" && pwd)
[ -x "$BUILD/berthd" ] && [ -x "$BUILD/berth" ] || { echo "build first: make build" >&2; exit 2; }
DIURNAL_DAY_S=${DAY:-240} DIURNAL_GRACE_S=${GRACE:-3} DIURNAL_KEEP=${KEEP:-} \
    bash "$ROOT/tests/berthd_diurnal.sh" "$BUILD/berth" "$ROOT" "$ROOT/../shared" "$BUILD/berthd"
