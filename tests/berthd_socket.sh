#!/usr/bin/env bash
# Who may use berthd's Unix socket (docs/security.md, "Identity"; socket_rule.h): by default
# every account; --socket-users LIST lets only the accounts and @groups listed (and root,
# berthd's account, the token file's admins) in, others get 403 saying why; with
# --socket-requires-token an account needs a line of the token file, so removing a user's
# token and SIGHUP ends their socket access too. A list naming no account or no group stops
# berthd. Needs root (other accounts on the socket). Usage: berthd_socket.sh BERTH SRC SHARED BERTHD
set -u
. "$(dirname "$0")/cli_lib.sh"
. "$(dirname "$0")/lib_berthd.sh"

[ "$MULTI" = 1 ] || skip_test root "other accounts on the Unix socket need berthd to run as root"
SOCK=$W/st/berthd.sock
# sock_as USER PATH: the status of GET PATH on the socket as USER; the body in $W/body
sock_as() {
    runuser -u "$1" -- curl -s --max-time 30 -o - -w '\n%{http_code}' --unix-socket "$SOCK" "http://localhost$2" >"$W/resp" 2>&1
    sed '$d' "$W/resp" >"$W/body"
    tail -n 1 "$W/resp"
}
GRP=berth-t-sock
getent group "$GRP" >/dev/null || groupadd -r "$GRP" 2>/dev/null || getent group "$GRP" >/dev/null ||
    { bad "cannot create the test group $GRP"; finish; exit 1; }

# ---- the default: every account -------------------------------------------------------
start_berthd --gpus 1x4:v100 --policy fifo
[ "$(sock_as nobody /v1/health)" = 200 ] && ok "by default any account (nobody) may use the socket" || bad "nobody by default: $(cat "$W/resp")"
stop_berthd

# ---- --socket-users: the accounts and groups listed ------------------------------------
start_berthd --gpus 1x4:v100 --policy fifo --socket-users "$ALICE_USER,@$GRP"
[ "$(sock_as "$ALICE_USER" /v1/health)" = 200 ] && ok "a listed account (alice) is served on the socket" || bad "alice: $(cat "$W/resp")"
[ "$(sock_as "$BOB_USER" /v1/health)" = 403 ] && ok "an account not listed (bob) gets 403" || bad "bob: $(cat "$W/resp")"
[ "$(jf field)" = caller ] || bad "the 403's field: $(cat "$W/body")"
has "$W/body" "account '$BOB_USER' may not use berthd's Unix socket: it is not in --socket-users" "the 403 names the account and why"
[ "$(sock_as nobody /v1/jobs)" = 403 ] && ok "nobody gets 403" || bad "nobody: $(cat "$W/resp")"
[ "$(sock_as "$OPS_USER" /v1/health)" = 200 ] && ok "the token file's admin (ops) is served, unlisted" || bad "ops: $(cat "$W/resp")"
curl -s -o /dev/null -w '%{http_code}' --unix-socket "$SOCK" http://localhost/v1/health >"$W/status"
[ "$(status)" = 200 ] && ok "root is served" || bad "root: $(status)"
UBERTH=$(reach "$BERTH")
runuser -u "$BOB_USER" -- "$UBERTH" submit --socket "$SOCK" -g 0 -- true >"$W/c" 2>&1
rc=$?
[ "$rc" = 1 ] && has "$W/c" "HTTP 403: caller: account '$BOB_USER'" "berth submit as bob: exit 1 and the reason" || bad "bob's submit: exit $rc: $(cat "$W/c")"
api GET '/v1/jobs?all=1' "" "$ROOT" >/dev/null
[ "$(jf jobs)" = "[]" ] && ok "bob's refused submission made nothing" || bad "jobs: $(cat "$W/body")"
api GET /v1/health "" "$BOB" >/dev/null
[ "$(status)" = 200 ] && ok "bob's token still works over TCP (the list is the socket's)" || bad "bob TCP: $(status)"
usermod -a -G "$GRP" "$BOB_USER"
[ "$(sock_as "$BOB_USER" /v1/health)" = 200 ] && ok "once bob is in @$GRP he is served" || bad "bob in the group: $(cat "$W/resp")"
gpasswd -d "$BOB_USER" "$GRP" >/dev/null 2>&1
[ "$(sock_as "$BOB_USER" /v1/health)" = 403 ] && ok "and refused again once out of it" || bad "bob out of the group: $(cat "$W/resp")"
stop_berthd
expect_rc 2 "--socket-users naming no account stops berthd" -- "$BERTHD" --tokens "$W/tokens" --gpus 1x1:v100 --state-dir "$W/st9" --port 0 --socket-users "$ALICE_USER,no-such-account-berth"
has "$W/err" "--socket-users: 'no-such-account-berth' is not a Unix account" "it names the entry"
expect_rc 2 "--socket-users naming no group stops berthd" -- "$BERTHD" --tokens "$W/tokens" --gpus 1x1:v100 --state-dir "$W/st9" --port 0 --socket-users @no-such-group-berth
has "$W/err" "--socket-users: @no-such-group-berth: no such group" "it names the group"

# ---- --socket-requires-token: revoking the token ends the socket access --------------------
cp "$W/tokens" "$W/tokens.full"
start_berthd --gpus 1x4:v100 --policy fifo --socket-requires-token
[ "$(sock_as "$BOB_USER" /v1/health)" = 200 ] && ok "bob, who has a token, is served on the socket without sending it" || bad "bob with a token: $(cat "$W/resp")"
[ "$(sock_as nobody /v1/health)" = 403 ] && has "$W/body" "none names it" "nobody, without a token line, gets 403 and why" || bad "nobody: $(cat "$W/resp")"
grep -v "^bobtoken" "$W/tokens.full" >"$W/tokens"
kill -HUP "$BPID"
wait_for 10 "the reload's log line" grep -q "SIGHUP: reloaded" "$W/berthd.log"
[ "$(sock_as "$BOB_USER" /v1/health)" = 403 ] && ok "after bob's token is removed and SIGHUP, bob's socket requests get 403" || bad "bob revoked: $(cat "$W/resp")"
has "$W/body" "account '$BOB_USER' may not use berthd's Unix socket: with --socket-requires-token" "the 403 says why"
[ "$(sock_as "$ALICE_USER" /v1/health)" = 200 ] && ok "alice, whose token stays, is still served" || bad "alice: $(cat "$W/resp")"
api GET /v1/health "" "$BOB" >/dev/null
[ "$(status)" = 401 ] && ok "and bob's token is gone over TCP too (401)" || bad "bob TCP: $(status)"
cp "$W/tokens.full" "$W/tokens"
stop_berthd
# the same as a config line
printf 'socket-requires-token yes\n' >"$W/conf"
grep -v "^bobtoken" "$W/tokens.full" >"$W/tokens"
start_berthd --gpus 1x4:v100 --policy fifo --config "$W/conf"
[ "$(sock_as "$BOB_USER" /v1/health)" = 403 ] && ok "socket-requires-token yes in the config file: the same" || bad "config: $(cat "$W/resp")"
cp "$W/tokens.full" "$W/tokens"
stop_berthd
printf 'socket-requires-token maybe\n' >"$W/conf"
expect_rc 2 "a config value other than yes or no is refused" -- "$BERTHD" --tokens "$W/tokens" --gpus 1x1:v100 --state-dir "$W/st9" --port 0 --config "$W/conf"
has "$W/err" "expected yes or no" "it says what it expects"
finish
