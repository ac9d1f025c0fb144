#!/usr/bin/env bash
# Progress bars: on a terminal (a pseudo-terminal made with python's pty), berth sim, pack,
# trace convert, sweep and compare draw a bar with a share, a count, a rate and a time left on
# stderr, and erase it when done; with stderr not a terminal, or under --quiet or --json,
# nothing of it appears, and stdout is the same either way.
# Usage: bash tests/cli_progress.sh PATH/TO/berth SRC_DIR SHARED_DIR
set -u
BERTH=${1:?usage: cli_progress.sh BERTH SRC_DIR SHARED_DIR}
SRC=${2:?usage: cli_progress.sh BERTH SRC_DIR SHARED_DIR}
. "$SRC/tests/cli_lib.sh"

# on_tty OUT ARGS...: runs berth ARGS with stdout and stderr on a pseudo-terminal, everything
# it wrote there in OUT
on_tty() {
    local out=$1
    shift
    python3 - "$out" "$BERTH" "$@" <<'PY'
import os, pty, sys
out = sys.argv[1]
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
data = b""
while True:
    try:
        chunk = os.read(fd, 65536)
    except OSError:
        break
    if not chunk:
        break
    data += chunk
_, status = os.waitpid(pid, 0)
open(out, "wb").write(data)
sys.exit(os.waitstatus_to_exitcode(status))
PY
}
# bar FILE UNIT: a drawn bar ("[####....] 100% 2000/2000 jobs, ... jobs/s, ETA") is in FILE
bar() { grep -aqE "\[[#.]{28}\] +[0-9]+% [0-9.kMG]+/[0-9.kMG]+ $2, [0-9.kMG]+ $2/s, ETA" "$1"; }

"$BERTH" gen --profile gavel --jobs 3000 --rate 20 --seed 4 --out "$W/p.csv"
on_tty "$W/tty" sim --cluster 8x8:v100 --trace "$W/p.csv" --policy las || bad "sim on a terminal"
bar "$W/tty" jobs && ok "berth sim on a terminal: a bar counting jobs" || bad "no bar: $(head -c 300 "$W/tty" | od -c | head -3)"
grep -aq $'\r\033\[K' "$W/tty" && ok "the bar is redrawn on one line and erased" || bad "no redraw"
grep -aq 'avg JCT' "$W/tty" && ok "and the table after it" || bad "no table"
"$BERTH" sim --cluster 8x8:v100 --trace "$W/p.csv" --policy las >"$W/out" 2>"$W/err" || bad "sim piped"
[ ! -s "$W/err" ] && ok "stderr not a terminal: no bar" || bad "a bar in a pipe: $(head -c 200 "$W/err")"
on_tty "$W/q" sim --cluster 8x8:v100 --trace "$W/p.csv" --policy las --quiet
! grep -aq '\[#' "$W/q" && ok "--quiet: no bar on a terminal" || bad "a bar under --quiet"
on_tty "$W/j" sim --cluster 8x8:v100 --trace "$W/p.csv" --policy las --json
! grep -aq '\[#' "$W/j" && ok "--json: no bar on a terminal" || bad "a bar under --json"

on_tty "$W/c" trace convert "$W/p.csv" "$W/p2.csv"
bar "$W/c" bytes && ok "berth trace convert: a bar counting bytes" || bad "convert: $(head -c 200 "$W/c")"
cmp -s "$W/p.csv" "$W/p2.csv" && ok "and the conversion is whole" || bad "converted file differs"
on_tty "$W/cq" trace convert "$W/p.csv" "$W/p3.csv" --quiet
! grep -aq '\[#' "$W/cq" && ok "trace convert --quiet: no bar" || bad "a bar under --quiet"

printf 'sn,cpu_milli,memory_mib,gpu,model\n' >"$W/nodes.csv"
for i in $(seq 1 300); do echo "n$i,64000,262144,8,v100" >>"$W/nodes.csv"; done
{
    echo "name,cpu_milli,memory_mib,num_gpu,gpu_milli"
    for i in $(seq 1 4000); do echo "p$i,1000,1024,1,$(( (i % 7 + 1) * 100 ))"; done
} >"$W/pods.csv"
on_tty "$W/pk" pack --cluster "$W/nodes.csv" --trace "$W/pods.csv" --scorer best-fit
bar "$W/pk" pods && ok "berth pack: a bar counting pods" || bad "pack: $(head -c 300 "$W/pk")"

printf 'policy fifo las\ncluster 4x8:v100\ntrace p.csv\nseed 1 2\nresample 0.2\n' >"$W/grid.txt"
on_tty "$W/sw" sweep "$W/grid.txt" --out "$W/sw.d" -j2 || bad "sweep on a terminal"
bar "$W/sw" cells && ok "berth sweep: a bar counting cells" || bad "sweep: $(head -c 300 "$W/sw")"
"$BERTH" sweep "$W/grid.txt" --out "$W/sw2.d" -j2 >"$W/out" 2>"$W/err"
[ ! -s "$W/err" ] && ok "sweep in a pipe: nothing on stderr" || bad "sweep stderr: $(head -c 200 "$W/err")"
on_tty "$W/cm" compare --cluster 4x8:v100 --trace "$W/p.csv" --policies fifo,sjf --seeds 2 --resample 0.1 -j2
bar "$W/cm" cells && ok "berth compare: a bar counting runs" || bad "compare: $(head -c 300 "$W/cm")"
finish
