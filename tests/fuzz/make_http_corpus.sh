#!/usr/bin/env bash
# Makes fuzz_http's seed corpus and dictionary: one valid request per route of
# src/live/http/routes.c (each after the submission it needs), sequences that take jobs through
# their states (scheduled, preempted, cancelled while running, ended), and malformed requests
# (bad JSON, unknown fields, out-of-range values, bad ids, bad query arguments, callers that
# may not). The input format is fuzz_http.c's: records separated by lines "--", each
# "METHOD CALLER TARGET" then the body; "$N" in a path is this input's N-th submission.
# Files of REGRESS_DIR (minimised inputs of past findings) are copied in as seeds too.
# Usage: bash tests/fuzz/make_http_corpus.sh OUTDIR [REGRESS_DIR]
#   writes OUTDIR/{seed/,dict} and makes OUTDIR/{work,artifacts}/
set -eu
OUT=${1:?usage: make_http_corpus.sh OUTDIR [REGRESS_DIR]}
REGRESS=${2:-}
rm -rf "$OUT/seed"
mkdir -p "$OUT/seed" "$OUT/work" "$OUT/artifacts"
S=$OUT/seed

# seed NAME: the seed NAME from stdin
seed() { cat >"$S/$1"; }

JOB='{"argv":["sleep","60"],"gpus":1,"est_s":60}'

# ---- one valid request per route ---------------------------------------------------------
seed ok-submit <<EOF
POST user /v1/jobs
$JOB
EOF
seed ok-submit-full <<'EOF'
POST admin /v1/jobs
{"argv":["python","train.py"],"cwd":"/tmp","env":{"A":"1","B":"two"},"gpus":2,"gpu_type":"v100","min_gpus":1,"max_gpus":4,"queue":"q1","priority":5,"checkpoint_signal":"SIGUSR1","grace_s":10,"est_s":120,"total_steps":1000,"name":"train","hold":false,"single_server":true,"job_type":"ResNet-18","cpus":2.5,"mem_mib":4096}
EOF
seed ok-submit-shell <<'EOF'
POST user /v1/jobs
{"argv":["echo hi; sleep 1"],"shell":true,"gpus":1,"gpu_share":0.5,"gpu_mem_mib":2048}
EOF
seed ok-submit-cpu <<'EOF'
POST local /v1/jobs
{"argv":["true"],"gpus":0,"cpus":1,"mem_mib":100}
EOF
seed ok-list <<EOF
POST user /v1/jobs
$JOB
--
GET user /v1/jobs?state=pending,held,running&user=root&queue=&limit=10&all=1
EOF
seed ok-show <<EOF
POST user /v1/jobs
$JOB
--
GET user /v1/jobs/\$0
EOF
seed ok-cancel <<EOF
POST user /v1/jobs
$JOB
--
POST user /v1/jobs/\$0/cancel
EOF
seed ok-hold-release <<EOF
POST user /v1/jobs
$JOB
--
POST user /v1/jobs/\$0/hold
--
GET admin /v1/jobs/\$0
--
POST admin /v1/jobs/\$0/release
EOF
seed ok-progress <<EOF
POST user /v1/jobs
{"argv":["train"],"gpus":1,"total_steps":100}
--
POST job /v1/jobs/\$0/progress
{"step":10,"metric":0.5,"time":1700000000}
--
POST user /v1/jobs/\$0/progress
{"step":20}
EOF
seed ok-logs <<EOF
POST user /v1/jobs
$JOB
--
TICK
--
GET user /v1/jobs/\$0/logs?stream=stdout&offset=0
--
GET user /v1/jobs/\$0/logs?stream=stderr&offset=5
EOF
seed ok-nodes <<EOF
POST user /v1/jobs
$JOB
--
TICK
--
GET user /v1/nodes
EOF
seed ok-policies <<'EOF'
GET user /v1/policies
EOF
seed ok-health <<'EOF'
GET admin /v1/health
EOF

# ---- life cycles ------------------------------------------------------------------------
seed life-run-exit <<EOF
POST user /v1/jobs
{"argv":["train"],"gpus":2,"total_steps":100,"est_s":100}
--
TICK
--
GET user /v1/jobs/\$0
--
TICK run ok
{"step": 5, "metric": 1.5}
{"step": 9}
--
POST job /v1/jobs/\$0/progress
{"step":50}
--
TICK exit0
--
GET user /v1/jobs/\$0/logs
--
GET user /v1/jobs?all=1
EOF
seed life-preempt <<'EOF'
POST user /v1/jobs
{"argv":["long"],"gpus":8,"est_s":100000}
--
TICK
--
TICK
--
POST user /v1/jobs
{"argv":["short"],"gpus":4,"est_s":1}
--
TICK
--
TICK signal
--
TICK
--
GET admin /v1/nodes
--
GET user /v1/jobs/$0
--
GET user /v1/jobs/$1
EOF
seed life-cancel-running <<'EOF'
POST user /v1/jobs
{"argv":["x"],"gpus":1,"grace_s":0}
--
TICK
--
TICK
--
POST admin /v1/jobs/$0/cancel
--
TICK
--
TICK
--
GET user /v1/jobs/$0
--
POST user /v1/jobs/$0/cancel
EOF
seed life-launch-fail <<'EOF'
POST user /v1/jobs
{"argv":["x"],"gpus":1}
--
TICK run fail
--
TICK run again
--
TICK lost
--
TICK exit1
--
GET user /v1/jobs/$0
EOF
seed life-other-limits <<'EOF'
POST other /v1/jobs
{"argv":["a"],"gpus":4}
--
POST other /v1/jobs
{"argv":["b"],"gpus":2}
--
TICK
--
POST other /v1/jobs/$1/hold
--
POST other /v1/jobs/$1/release
--
POST other /v1/jobs/$0/cancel
--
TICK
--
GET other /v1/jobs?user=berthfuzz-other
--
POST user /v1/jobs/$1/cancel
EOF
seed life-elastic <<'EOF'
POST user /v1/jobs
{"argv":["e"],"gpus":2,"min_gpus":1,"max_gpus":8,"job_type":"ResNet-18","total_steps":1000}
--
TICK
--
TICK
--
GET user /v1/jobs/$0
EOF

# ---- every policy (a first line POLICY NAME; the names of `berth policy list`: a name
# that is gone makes its seed uninteresting, nothing fails) --------------------------------
POLICIES="fifo fifo-skip sjf srtf las gavel-fifo gavel-max-min gavel-max-min-perf themis-ftf
tiresias-dlas tiresias-dlas-gpu blox-las blox-fifo specon spread aryl aryl-loan aryl-elastic
aryl-base salus-fifo salus-srtf salus-pack salus-fair goodput goodput-hetero"
for p in $POLICIES; do
    seed "policy-$p" <<EOF
POLICY $p
--
POST user /v1/jobs
{"argv":["a"],"gpus":4,"est_s":1000,"job_type":"ResNet-18","total_steps":500}
--
POST other /v1/jobs
{"argv":["b"],"gpus":2,"min_gpus":1,"max_gpus":4,"est_s":10,"job_type":"A3C"}
--
POST user /v1/jobs
{"argv":["c"],"gpus":1,"gpu_share":0.5,"est_s":5}
--
TICK
--
POST job /v1/jobs/\$0/progress
{"step":100}
--
POST user /v1/jobs
{"argv":["d"],"gpus":8,"est_s":1}
--
TICK
--
POST admin /v1/jobs/\$1/cancel
--
TICK signal
--
GET user /v1/nodes
--
GET user /v1/jobs/\$3
EOF
done

# ---- malformed ---------------------------------------------------------------------------
seed bad-json <<'EOF'
POST user /v1/jobs
{"argv":["x"],
EOF
seed bad-dup <<'EOF'
POST user /v1/jobs
{"argv":["x"],"argv":["y"]}
EOF
seed bad-unknown <<'EOF'
POST user /v1/jobs
{"argv":["x"],"gpuz":1}
EOF
seed bad-values <<'EOF'
POST user /v1/jobs
{"argv":[""],"gpus":-1}
--
POST user /v1/jobs
{"argv":["x"],"gpus":99999}
--
POST user /v1/jobs
{"argv":["x"],"gpu_share":0.5,"gpus":2}
--
POST user /v1/jobs
{"argv":["x"],"gpu_type":"a100|v100"}
--
POST user /v1/jobs
{"argv":["x"],"cwd":"relative"}
--
POST user /v1/jobs
{"argv":["x"],"checkpoint_signal":"9"}
--
POST user /v1/jobs
{"argv":["x"],"name":"a\u0007b"}
--
POST user /v1/jobs
{"argv":["x"],"env":{"A=B":"c"}}
--
POST user /v1/jobs
{"argv":["x\u0000y"]}
--
POST user /v1/jobs
[1,2,3]
EOF
seed bad-ids <<'EOF'
GET user /v1/jobs/0
--
GET user /v1/jobs/99999999999999999999999
--
GET user /v1/jobs/18446744073709551615
--
GET user /v1/jobs/007
--
GET user /v1/jobs/1x
--
POST user /v1/jobs/4294967297/cancel
--
GET user /v1/jobs/%31
--
GET user /v1/jobs/
EOF
seed bad-query <<'EOF'
GET user /v1/jobs?state=bogus
--
GET user /v1/jobs?limit=0
--
GET user /v1/jobs?limit=abc&limit=5
--
GET user /v1/jobs?state=,,,&all
--
GET user /v1/jobs/1/logs?stream=nope
--
GET user /v1/jobs/1/logs?offset=-1
--
GET user /v1/jobs?user=%ff%00x&queue=a+b
EOF
seed bad-callers <<'EOF'
POST user /v1/jobs
{"argv":["x"]}
--
POST other /v1/jobs/$0/cancel
--
GET other /v1/jobs/$0/logs
--
POST job /v1/jobs/$0/cancel
--
POST job /v1/jobs/$1/progress
{"step":1}
--
GET nobody /v1/health
--
DELETE admin /v1/jobs/$0
--
PUT admin /v1/jobs
EOF
seed bad-progress <<'EOF'
POST user /v1/jobs
{"argv":["x"]}
--
POST job /v1/jobs/$0/progress
{"step":-1}
--
POST job /v1/jobs/$0/progress
{"step":1,"metric":"x"}
--
POST job /v1/jobs/$0/progress
{"step":1,"time":1e300}
--
POST job /v1/jobs/$0/progress
{"step":1,"extra":2}
--
POST admin /v1/jobs/$0/cancel
--
POST job /v1/jobs/$0/progress
{"step":2}
EOF
seed bad-conflicts <<'EOF'
POST user /v1/jobs
{"argv":["x"],"hold":true}
--
POST user /v1/jobs/$0/hold
--
POST user /v1/jobs/$0/cancel
--
POST user /v1/jobs/$0/release
--
POST user /v1/jobs/$0/cancel
EOF

if [ -n "$REGRESS" ] && [ -d "$REGRESS" ]; then
    for f in "$REGRESS"/*; do
        [ -f "$f" ] && [ "${f##*/}" != README ] && cp "$f" "$S/regress-${f##*/}"
    done
fi

# ---- the dictionary ----------------------------------------------------------------------
{
    for w in $POLICIES POLICY GET POST PUT DELETE admin user other local job TICK run exit0 exit1 signal lost \
        ok again fail /v1/jobs /v1/nodes /v1/policies /v1/health /cancel /hold /release \
        /progress /logs '$0' '$1' '$2' '?state=' '&limit=' '&all=1' '&user=' '&queue=' \
        '?stream=stdout' '?stream=stderr' '&offset=' pending held running completed failed \
        cancelled '"argv"' '"cwd"' '"env"' '"gpus"' '"gpu_type"' '"gpu_share"' \
        '"gpu_mem_mib"' '"min_gpus"' '"max_gpus"' '"queue"' '"priority"' \
        '"checkpoint_signal"' '"grace_s"' '"est_s"' '"total_steps"' '"name"' '"hold"' \
        '"shell"' '"single_server"' '"job_type"' '"cpus"' '"mem_mib"' '"step"' '"metric"' \
        '"time"' true false null v100 SIGUSR1 SIGKILL ResNet-18 A3C '\u0000' '\ud800' 1e308 \
        9223372036854775807 -9223372036854775808 18446744073709551615; do
        # libFuzzer's dictionary syntax: "..." with \\ and \" escaped
        printf '"%s"\n' "$(printf '%s' "$w" | sed 's/\\/\\\\/g; s/"/\\"/g')"
    done
    printf '"\\x0a--\\x0a"\n'
} >"$OUT/dict"
echo "make_http_corpus.sh: $(ls "$S" | wc -l) seeds in $S"
