#!/usr/bin/env bash
# berth's client commands when berthd is simply down (docs/man/berth.1, "SERVER"): the
# message names where the CLI looked (the URL, the socket path) and the system's reason,
# and asks whether berthd runs, with the exit status of a call that cannot connect (1); "no
# token" (exit 2) only when a server answers there to take one. Usage: cli_down.sh BERTH SRC SHARED
set -u
. "$(dirname "$0")/cli_lib.sh"
BERTH=$1
unset BERTH_SERVER BERTH_TOKEN BERTH_SOCKET
export BERTH_CONFIG=$W/no-config HOME=$W
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
P=$(free_port)
URL=http://127.0.0.1:$P
MSG="berthd is not answering at"
HINT="is it running? (berthd --help)"
# down_check DESCRIPTION WANT -- command...: exit 1, one line on stderr saying WANT and the hint
down_check() {
    local what=$1 want=$2
    shift 3
    "$@" >"$W/out" 2>"$W/err"
    local rc=$?
    [ "$rc" = 1 ] && [ "$(wc -l <"$W/err")" = 1 ] && grep -qF -- "$want" "$W/err" && grep -qF -- "$HINT" "$W/err" &&
        ! grep -q "no token" "$W/err" && ok "$what: exit 1, '$want'" ||
        bad "$what: exit $rc, want 1 and '$want ... $HINT': $(cat "$W/err")"
}
down_check "a port with nothing listening, with a token" "$MSG $URL (Connection refused)" -- \
    "$BERTH" queue --server "$URL" --token sometoken
down_check "the same without a token: not 'no token'" "$MSG $URL (Connection refused)" -- \
    "$BERTH" queue --server "$URL"
down_check "BERTH_SERVER, no token (berth submit)" "$MSG $URL (Connection refused)" -- \
    env BERTH_SERVER="$URL" "$BERTH" submit -g 0 -- true
down_check "a --socket path that does not exist" "$MSG $W/nope/berthd.sock (No such file or directory)" -- \
    "$BERTH" queue --socket "$W/nope/berthd.sock"
# a socket file nobody listens on any more (berthd killed): refused
python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$W/stale.sock"
down_check "a stale socket file" "$MSG $W/stale.sock (Connection refused)" -- "$BERTH" nodes --socket "$W/stale.sock"
# nothing named: the socket (BERTH_SOCKET) and then the config file's server, both named
printf 'server %s\n' "$URL" >"$W/client.conf"
down_check "no server named: the socket and the config file's server, both tried" \
    "$MSG $W/nope.sock (No such file or directory) nor at $URL (Connection refused)" -- \
    env BERTH_SOCKET="$W/nope.sock" BERTH_CONFIG="$W/client.conf" "$BERTH" queue
# a server that listens, and no token: that is "no token" (exit 2), as before
python3 - "$W/lport" <<'PY' &
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(16)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
s.settimeout(60)
try:
    while True:
        c, _ = s.accept(); c.close()
except Exception:
    pass
PY
LPID=$!
wait_for 10 "the listener" test -s "$W/lport"
expect_rc 2 "a server that listens, no token" -- "$BERTH" queue --server "http://127.0.0.1:$(cat "$W/lport")"
has "$W/err" "no token: give --token" "it says no token"
kill "$LPID" 2>/dev/null
wait "$LPID" 2>/dev/null
finish
