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
# berth's figures (2026-12-02, DAY=240, loaded 2-core VM; live / sim):
#   figure                              aryl              aryl-base
#   reclaim latency p50 / max (s)       0.020 / 0.022, 0  0.020 / 0.020, 0
#   training restarts                   1 / 1             0 / 0
#   lent GPU-hours (scaled to 24 h)     34.52 / 34.35     0 / 0
#   inference shortfall (server-h)      0.009 / 0         0.006 / 0
#   training avg JCT (s)                56.8 / 56.1       149.5 / 148.1
#   makespan (s)                        218.8 / 218.4     316.8 / 314.4
#   aryl-base / aryl avg JCT            2.63x / 2.64x
# The simulator reclaims within its pass (0 s); berthd needs a tick for a borrower that
# checkpoints at once. A longer day shrinks the gaps: with D = 40 s the live JCTs are 4-8 %
# above the sim's (each start's tick and launch), here about 1 %.
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
