#!/bin/sh
# A newcomer's entry point, for a bare Debian 12 machine that has no compiler and no make
# (the README's quick start): installs the build tools and libraries berth needs (as root,
# or through sudo), then runs the make target of the same name.
#   sh quickstart.sh demo    build, then simulate 20,000 Philly-like jobs under las
#   sh quickstart.sh test    build, then run every test (plain and sanitized builds)
# Any other make target works the same way (sh quickstart.sh test-slurm, install, ...).
set -eu
cd "$(dirname "$0")"
if [ $# -eq 0 ]; then
    sed -n '2,7s/^# \{0,1\}//p' "$0" >&2
    exit 2
fi
sh scripts/install-deps.sh
exec make "$@"
