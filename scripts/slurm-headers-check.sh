#!/bin/sh
# Compiles src/slurmapi/slurm_api.c (-Wall -Wextra -Werror) against another generation's
# libslurm headers, and lists the libslurm symbols it needs that a libslurm.a (optional)
# lacks: the check that the wrapper builds for a Slurm this machine does not run (Debian 13's
# 24.11 on Debian 12). Get the headers with apt-get download libslurm-dev/trixie (a trixie
# line in a separate sources.list) and dpkg-deb -x PACKAGE DIR. docs/slurm.md "The wrapper".
# Usage: scripts/slurm-headers-check.sh DIR   (DIR/usr/include/slurm/slurm.h, and
#        DIR/usr/lib/*/libslurm.a when there)
set -eu
root=${1:?usage: slurm-headers-check.sh DIR (an unpacked libslurm-dev)}
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
grep -h '^#define SLURM_VERSION_NUMBER' "$root/usr/include/slurm/slurm_version.h"
${CC:-cc} -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -c "$src/src/slurmapi/slurm_api.c" \
    -isystem "$root/usr/include" -I"$src/src" -I"$src/include" -o "$tmp/slurm_api.o"
echo "slurm_api.c compiles against $root/usr/include"
for a in "$root"/usr/lib/*/libslurm.a; do
    [ -f "$a" ] || continue
    nm -g --defined-only "$a" 2>/dev/null | awk '{print $3}' | sort -u >"$tmp/have"
    nm -u "$tmp/slurm_api.o" | awk '$2 ~ /^slurm_/ {print $2}' | sort -u >"$tmp/need"
    missing=$(comm -23 "$tmp/need" "$tmp/have")
    [ -z "$missing" ] || { echo "not in $a: $missing" >&2; exit 1; }
    echo "every libslurm symbol it needs is in $a"
done
