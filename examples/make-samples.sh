#!/usr/bin/env bash
# Regenerates the small sample traces in examples/ with berth's own generator (the real
# traces in ../shared/traces are never copied into the repository).
# Usage: examples/make-samples.sh PATH/TO/berth
set -euo pipefail
BERTH=${1:-build/berth}
HERE=$(cd "$(dirname "$0")" && pwd)
"$BERTH" gen --profile philly --jobs 500 --seed 1 --out "$HERE/philly-sample.csv"
"$BERTH" gen --profile gavel --jobs 200 --rate 30 --seed 1 --out "$HERE/gavel-sample.csv"
