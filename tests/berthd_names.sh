#!/usr/bin/env bash
# Names that show what they are (docs/api.md, "Names"; util/name.h): every name berthd takes
# over HTTP (a job's name, queue, gpu_type, job_type; a service's name) is refused with a 400
# naming its field when it holds a control, invisible or separator code point, one of each
# class refused here, and nothing is made; invalid UTF-8 is refused; valid non-ASCII names
# ("résumé", "数据") are taken and printed as they are by berth queue. As root: a token file
# naming an account whose name holds U+200B stops berthd, and that account is refused on the
# Unix socket. Usage: berthd_names.sh BERTH SRC SHARED BERTHD
set -u
. "$(dirname "$0")/cli_lib.sh"
. "$(dirname "$0")/lib_berthd.sh"

start_berthd --gpus 1x4:v100 --policy fifo
njobs() { api GET '/v1/jobs?all=1' "" "$ROOT" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["jobs"]))'; }
BEFORE=$(njobs)
# one code point of each refused class (its \u escape), the field it goes in rotating
fields=(name queue gpu_type job_type)
i=0 nbad=0
for cp in 0001 001f 007f 0085 009f 00ad 034f 061c 115f 1160 17b4 17b5 180b 180e 180f 200b 200c \
    200d 200e 200f 2028 2029 202a 202e 2060 2062 2064 2066 2069 206f 3164 fe00 fe0f feff ffa0 \
    fff9 fffb 'db40\udc01' 'db40\udc20' 'db40\udd00' 'db43\uddef' 'db43\udfff'; do
    f=${fields[$((i % 4))]}
    i=$((i + 1))
    api POST /v1/jobs '{"argv":["true"],"hold":true,"'"$f"'":"bob\u'"$cp"'x"}' >/dev/null
    [ "$(status)" = 400 ] && [ "$(jf field)" = "$f" ] && grep -q 'at byte 3' "$W/body" || {
        bad "\\u$cp in $f: want 400 naming $f at byte 3: $(status) $(cat "$W/body")"
        nbad=$((nbad + 1))
    }
done
[ "$nbad" = 0 ] && ok "$i names with a control, invisible or separator code point refused, 400 naming the field"
[ "$(njobs)" = "$BEFORE" ] && ok "no job made by the refused submissions" || bad "jobs: $BEFORE before, $(njobs) after"
api POST /v1/jobs '{"argv":["true"],"hold":true,"name":"a\u200bb"}' >/dev/null
has "$W/body" "U+200B at byte 1" "the 400 names the code point and where it is"
api POST /v1/jobs '{"argv":["true"],"hold":true,"name":"x\u0000y"}' >/dev/null
[ "$(status)" = 400 ] && ok "U+0000 in a name refused (400: JSON without NUL)" || bad "NUL: $(status) $(cat "$W/body")"
# invalid UTF-8 (a stray continuation byte, an overlong '/', a lone surrogate): no name of it
printf '{"argv":["true"],"hold":true,"name":"a\x80b"}' >"$W/raw1"
printf '{"argv":["true"],"hold":true,"queue":"\xc0\xaf"}' >"$W/raw2"
printf '{"argv":["true"],"hold":true,"name":"a\\ud800b"}' >"$W/raw3"
for r in raw1 raw2 raw3; do
    curl -s -o "$W/body" -w '%{http_code}' -X POST -H "Authorization: Bearer $ALICE" --data-binary "@$W/$r" "$URL/v1/jobs" >"$W/status"
    [ "$(status)" = 400 ] || bad "invalid UTF-8 ($r): $(status) $(cat "$W/body")"
done
ok "invalid UTF-8 in a name refused (400: the body is not JSON)"
[ "$(njobs)" = "$BEFORE" ] && ok "still no job made" || bad "jobs: $BEFORE before, $(njobs) after"
# a service's name (an admin's): the same rule
api POST /v1/services '{"name":"svc\u200b","argv":["true"]}' "$ROOT" >/dev/null
[ "$(status)" = 400 ] && [ "$(jf field)" = name ] && ok "a service name with U+200B refused (400 naming name)" ||
    bad "service: $(status) $(cat "$W/body")"
# valid names outside ASCII are names like any
api POST /v1/jobs '{"argv":["true"],"hold":true,"name":"résumé","queue":"数据"}' >/dev/null
[ "$(status)" = 201 ] && ok "the name résumé and the queue 数据 are accepted (201)" || bad "non-ASCII: $(status) $(cat "$W/body")"
J=$(jf id)
api GET "/v1/jobs/$J" >/dev/null
[ "$(jf name)" = résumé ] && [ "$(jf queue)" = 数据 ] && ok "and kept as they are" || bad "kept: $(cat "$W/body")"
"$BERTH" queue --server "$URL" --token "$ALICE" --all >"$W/q" 2>&1
grep -q "résumé" "$W/q" && grep -q "数据" "$W/q" && ok "berth queue prints them as they are" || bad "queue: $(cat "$W/q")"
api POST "/v1/jobs/$J/cancel" >/dev/null
stop_berthd

# user names: an account whose name holds U+200B ("berth-t-zw" + U+200B + "x") looks like
# another in every table: berthd refuses a token naming it, and the socket refuses it
if [ "$MULTI" = 1 ]; then
    ZW=$(printf 'berth-t-zw\xe2\x80\x8bx')
    id -u "$ZW" >/dev/null 2>&1 || useradd -M -r -s /usr/sbin/nologin --badname "$ZW" 2>/dev/null
    if ! id -u "$ZW" >/dev/null 2>&1; then
        absent useradd "an account named with U+200B: useradd --badname refused it"
    else
        cp "$W/tokens" "$W/tokens.ok"
        printf 'zwtoken0123456789abc %s\n' "$ZW" >>"$W/tokens"
        expect_rc 2 "a token naming an account with U+200B stops berthd" -- "$BERTHD" --tokens "$W/tokens" --gpus 1x1:v100 --state-dir "$W/st9" --port 0
        has "$W/err" "tokens:4: user: U+200B at byte 10" "it names the file, the line, the field and the code point"
        cp "$W/tokens.ok" "$W/tokens"
        start_berthd --gpus 1x4:v100 --policy fifo
        UBERTH=$(reach "$BERTH")
        runuser -u "$ZW" -- "$UBERTH" queue --socket "$W/st/berthd.sock" >"$W/c" 2>&1
        has "$W/c" "HTTP 401" "that account is refused on the Unix socket"
        stop_berthd
    fi
    userdel "$ZW" 2>/dev/null
else
    absent root "user names: making an account named with U+200B needs root"
fi
finish
