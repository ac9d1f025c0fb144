#!/usr/bin/env bash
# Installing like a C project: `cmake --install` of this build into a temporary prefix, then
# the installed pieces used as a user would: berth sim and berthd --version from the prefix,
# a tiny C program (examples/embed/embed.c) compiled with `pkg-config --cflags --libs berth`
# and run, the man pages read with man, the bash completion loaded, the systemd unit naming
# the installed berthd; a DESTDIR-staged install lands under DESTDIR only; and
# `make uninstall` removes every installed file. The build's own install manifest is kept.
# Usage: bash tests/cli_install.sh PATH/TO/berth SRC_DIR SHARED_DIR
set -u
BERTH=${1:?usage: cli_install.sh BERTH SRC_DIR SHARED_DIR}
SRC=${2:?usage: cli_install.sh BERTH SRC_DIR SHARED_DIR}
. "$SRC/tests/cli_lib.sh"
B=$(cd "$(dirname "$BERTH")" && pwd) # the build folder
P=$W/prefix
MANIFEST=$B/install_manifest.txt
[ -f "$MANIFEST" ] && cp "$MANIFEST" "$W/manifest.saved"
restore() { if [ -f "$W/manifest.saved" ]; then cp "$W/manifest.saved" "$MANIFEST"; else rm -f "$MANIFEST"; fi; }
trap 'restore; rm -rf "$W"' EXIT

expect_rc 0 "cmake --install into a temporary prefix" -- cmake --install "$B" --prefix "$P"
for f in bin/berth sbin/berthd lib/libberth.a include/berth/berth.h include/berth/job_client.h \
    lib/pkgconfig/berth.pc share/man/man1/berth.1 share/man/man8/berthd.8 \
    share/bash-completion/completions/berth lib/systemd/system/berthd.service \
    share/doc/berth/README.md share/doc/berth/examples/embed.c; do
    [ -f "$P/$f" ] && ok "installed $f" || bad "not installed: $f"
done

# the installed README's relative links (docs/sim.md, docs/img/*.svg, CONTRIBUTING.md) resolve
# in the installed copy, as they do in the source tree
links=$(grep -o '](\([^)#:]*\))' "$P/share/doc/berth/README.md" | sed 's/^](//; s/)$//' | sort -u)
[ -n "$links" ] && ok "the installed README has relative links" || bad "no relative links in the installed README"
for l in $links; do
    [ -e "$P/share/doc/berth/$l" ] || bad "the installed README links to $l, which is not installed"
done

# the installed binaries work from the prefix
expect_rc 0 "installed berth sim" -- "$P/bin/berth" sim --cluster 4x4:v100 --trace "$SRC/examples/tiny.csv" --policy sjf --json
has "$W/out" '"completed": 4' "installed berth simulated the 4 jobs of tiny.csv"
expect_rc 0 "installed berthd --version" -- "$P/sbin/berthd" --version
has "$W/out" "berthd " "berthd --version prints its version"
grep -q "^berthd $("$P/bin/berth" version | awk '{print $2}')\$" "$W/out" &&
    ok "berth and berthd report the same version" || bad "versions differ: $(cat "$W/out")"

# a program of the user's own, built with pkg-config against the installed libberth
export PKG_CONFIG_PATH=$P/lib/pkgconfig
expect_rc 0 "pkg-config --cflags --libs berth" -- pkg-config --cflags --libs berth
has "$W/out" "-lberth" "pkg-config gives -lberth"
CC=${CC:-cc}
# a sanitized build installs a sanitized libberth: a program linking it needs the runtime
SAN=""
grep -q '^BERTH_SANITIZE:BOOL=ON' "$B/CMakeCache.txt" 2>/dev/null && SAN="-fsanitize=address,undefined"
# shellcheck disable=SC2046 # word splitting of pkg-config's flags is wanted
expect_rc 0 "embed.c compiles and links against the installed libberth" -- \
    "$CC" -std=c11 -Wall -Wextra -Werror "$P/share/doc/berth/examples/embed.c" \
    $SAN $(pkg-config --cflags --libs berth) -o "$W/embed"
expect_rc 0 "the embedding program runs a simulation" -- "$W/embed" "$SRC/examples/tiny.csv" 4x4:v100 sjf
has "$W/out" "4 completed" "it simulated every job"
"$P/bin/berth" sim --cluster 4x4:v100 --trace "$SRC/examples/tiny.csv" --policy sjf --json >"$W/cli.json" 2>&1
cli_jct=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["avg_jct_s"])' "$W/cli.json")
grep -q "avg JCT $(printf '%.1f' "${cli_jct:-0}") s" "$W/out" &&
    ok "the embedding program's avg JCT equals berth sim's ($cli_jct s)" ||
    bad "embed says '$(cat "$W/out")', berth sim avg_jct_s '$cli_jct'"

# man pages: read with man when it is here (make test installs man-db)
if command -v man >/dev/null; then
    MANPATH=$P/share/man man -P cat berth >"$W/man1" 2>"$W/manerr" && grep -q "berth sim" "$W/man1" &&
        ok "man berth shows the installed page" || bad "man berth: $(head -c 300 "$W/manerr")"
    MANPATH=$P/share/man man -P cat 8 berthd >"$W/man8" 2>"$W/manerr" && grep -q -- "--tokens" "$W/man8" &&
        ok "man 8 berthd shows the installed page" || bad "man berthd: $(head -c 300 "$W/manerr")"
else
    absent man "man is not installed (apt-get install man-db): the pages were installed, not read"
fi

# the bash completion loads and completes berth's subcommands
bash -c ". '$P/share/bash-completion/completions/berth' && complete -p berth" >"$W/out" 2>&1 &&
    ok "the bash completion registers for berth: $(cat "$W/out")" || bad "completion: $(cat "$W/out")"

# the systemd unit starts the installed berthd
grep -q "^ExecStart=$P/sbin/berthd " "$P/lib/systemd/system/berthd.service" &&
    ok "berthd.service runs $P/sbin/berthd" ||
    bad "berthd.service: $(grep ExecStart "$P/lib/systemd/system/berthd.service")"

# uninstall removes every file the manifest lists
n=$(wc -l <"$MANIFEST")
if command -v make >/dev/null; then
    expect_rc 0 "make uninstall" -- make -C "$SRC" uninstall BUILD="$B"
    left=$(find "$P" -type f | wc -l)
    [ "$left" = 0 ] && ok "make uninstall removed all $n installed files" ||
        bad "make uninstall left $left files: $(find "$P" -type f | head -5)"
else
    absent make "make is not installed: make uninstall not tried"
fi

# a staged install (DESTDIR) writes under DESTDIR only, with the prefix's paths inside
expect_rc 0 "DESTDIR-staged install" -- env DESTDIR="$W/stage" cmake --install "$B" --prefix /opt/berth-test
[ -x "$W/stage/opt/berth-test/bin/berth" ] && [ ! -e /opt/berth-test ] &&
    ok "DESTDIR staging: files under $W/stage/opt/berth-test only" || bad "DESTDIR staging went wrong"
grep -q "^ExecStart=/opt/berth-test/sbin/berthd " "$W/stage/opt/berth-test/lib/systemd/system/berthd.service" &&
    ok "the staged unit names the final path" || bad "staged unit: $(grep ExecStart "$W/stage/opt/berth-test/lib/systemd/system/berthd.service")"
finish
