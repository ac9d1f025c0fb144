#!/usr/bin/env bash
# A job's spool folder is its account's: whatever it leaves there (a hard link to a root
# file, a symlink, a FIFO) must not make root open, chown, append to or truncate another
# file when the job's next attempt starts (issue 34, H2). The shim opens each attempt's
# logs as the job's account and takes a name that is not the account's own plain file with
# one link as a new file; the progress file is checked the same way. The hard link is made
# here by root, as the job itself would where fs.protected_hardlinks=0. Usage: as
# berthd_api.sh.
set -u
. "$(dirname "$0")/cli_lib.sh"
. "$(dirname "$0")/lib_berthd.sh"

[ "$MULTI" = 1 ] || skip_test root "jobs as another account need berthd to run as root"
start_berthd --gpus 1x1:a100 --policy srtf --log-cap 4K
# the victims: root's own files, that no job may take or change
for v in victim-out victim-err victim-prog; do
    printf 'root secret %s\n' "$v" >"$W/$v"
    chmod 600 "$W/$v"
done
before=$(stat -c '%U %a %s %h' "$W/victim-out" "$W/victim-err" "$W/victim-prog" | tr '\n' ' ')
cat >"$W/a.sh" <<SH
echo "attempt \$BERTH_ATTEMPT"
if [ "\${BERTH_RESUME:-0}" = 1 ]; then
    # past the 4K cap: the shim compacts the log it writes, never a file it did not make
    i=0; while [ \$i -lt 400 ]; do echo "attempt 2 line \$i of output"; i=\$((i+1)); done
    exit 0
fi
ln -sf "$W/victim-err" "\$(dirname "\$BERTH_PROGRESS_FILE")/stderr.log"
: > "$W/ready"
while :; do sleep 0.05; done
SH
chmod 755 "$W/a.sh"
api POST /v1/jobs '{"argv":["sh","'"$W/a.sh"'"],"est_s":1000,"grace_s":1}' >/dev/null
A=$(jf id)
SP=$(dirname "$(spool "$A" stdout.log)")
wait_state "$A" running && ok "the job runs"
wait_for 30 "the job's first attempt to link its stderr log" test -e "$W/ready"
[ -L "$SP/stderr.log" ] && ok "the job put a symlink where its stderr log was" || bad "no symlink: $(ls -l "$SP")"
# what a job does where hard links are not protected: its logs and progress file become
# names of root's files
ln -f "$W/victim-out" "$SP/stdout.log" && ln -f "$W/victim-prog" "$SP/progress.jsonl" &&
    ok "the spool's stdout.log and progress.jsonl are hard links to root's files" || bad "cannot link"
# a shorter job preempts it; its second attempt opens the logs again
api POST /v1/jobs '{"argv":["true"],"est_s":1}' >/dev/null
B=$(jf id)
wait_state "$B" completed && ok "a shorter job preempted it"
wait_state "$A" completed && ok "the second attempt ran to its end"
after=$(stat -c '%U %a %s %h' "$W/victim-out" "$W/victim-err" "$W/victim-prog" | tr '\n' ' ')
[ "$after" = "$before" ] && ok "root's files keep their owner, mode, size and links ($after)" ||
    bad "root's files changed: before $before, after $after"
for v in victim-out victim-err victim-prog; do
    [ "$(cat "$W/$v")" = "root secret $v" ] || bad "$v was written: $(head -c 200 "$W/$v")"
done
grep -q "attempt" "$W/victim-out" "$W/victim-err" && bad "the job's output went into root's file" ||
    ok "no output of the job in root's files"
for f in stdout.log stderr.log progress.jsonl; do
    st=$(stat -c '%F %U %h' "$SP/$f")
    [ "$st" = "regular file $ALICE_USER 1" ] || [ "$st" = "regular empty file $ALICE_USER 1" ] &&
        ok "$f is a file of the job's own with one name ($st)" || bad "$f: $st"
done
has "$SP/stdout.log" "attempt 2 line 399 of output" "the second attempt's output is in its new log"
[ "$(stat -c %s "$SP/stdout.log")" -le 4200 ] && ok "the cap compacted the new log" ||
    bad "log size $(stat -c %s "$SP/stdout.log")"
has "$SP/stdout.log" "dropped here" "the compacted log says what was dropped"
BERTH_SERVER=$URL BERTH_TOKEN=$ALICE "$BERTH" logs "$A" >"$W/logs" 2>&1
has "$W/logs" "attempt 2 line 399" "berth logs shows the new log"
stop_berthd
finish
