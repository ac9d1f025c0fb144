#!/bin/sh
# Installs the Debian 12 packages berth needs to build and test, and nothing when they are
# already there. Run as root (or with sudo available). Used by `make` and by .ci/run.
set -eu
need="gcc make cmake pkg-config libjansson-dev libglpk-dev python3 ${BERTH_EXTRA_PACKAGES:-}"
# berthd: HTTP server, journal, the CLI's HTTP client; curl and procps (pgrep) for its tests
need="$need libmicrohttpd-dev libsqlite3-dev libcurl4-openssl-dev curl procps"
missing=""
for p in $need; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0
echo "berth: installing missing packages:$missing"
if [ "$(id -u)" = 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
else
    echo "berth: please install as root: apt-get install -y$missing" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# Slurm's and munge's postinst scripts would start system daemons against an absent
# system-wide configuration: a temporary policy-rc.d (exit 101) forbids it
rcd=/usr/sbin/policy-rc.d
if [ ! -e "$rcd" ]; then
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$rcd" >/dev/null && $SUDO chmod 755 "$rcd"
    trap '$SUDO rm -f "$rcd"' EXIT
fi
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends $missing
