#!/usr/bin/env bash
# Makes the fuzzers' seed corpora: for each format, small valid files (from `berth gen`,
# rewritten into the format's layout, and by hand after the loaders' documented layouts)
# and broken variants of them (truncated, bad numbers, wrong widths, stray bytes, each field
# in turn spoiled), plus a libFuzzer dictionary. Everything is generated here; nothing is
# copied from elsewhere. Valid seeds (named ok-*) are loaded once with `berth trace stats` to
# check they still are; one that fails is reported (the corpus is written all the same).
# pai2020 takes two tables: its seeds are the job table, a line "--", then the task table, the
# shape fuzz_loader.c splits back into two files.
# Usage: bash tests/fuzz/make_corpus.sh PATH/TO/berth OUTDIR FORMAT...
#   writes OUTDIR/FORMAT/{seed/,dict} and makes OUTDIR/FORMAT/{work,artifacts}/
set -eu
BERTH=${1:?usage: make_corpus.sh BERTH OUTDIR FORMAT...}
OUT=${2:?usage: make_corpus.sh BERTH OUTDIR FORMAT...}
shift 2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
TAB=$(printf '\t')
FMT= # the format whose seeds are being made
NBAD=0

# ok FILE [PATH]: FILE is meant to load strictly as $FMT (PATH: what to load instead).
ok() {
    if ! "$BERTH" trace stats "${2:-$1}" --format "$FMT" >/dev/null 2>"$TMP/err"; then
        echo "make_corpus.sh: warning: valid $FMT seed ${1##*/} does not load: $(head -c 300 "$TMP/err")" >&2
        NBAD=$((NBAD + 1))
    fi
}

# variants SRC DIR NAME [SEP]: broken copies of the valid file SRC as DIR/NAME-*
variants() {
    local src=$1 dir=$2 name=$3 s=${4:-,} size
    size=$(wc -c <"$src")
    head -c $((size / 2)) "$src" >"$dir/$name-half"
    head -c $((size - 1)) "$src" >"$dir/$name-lastbyte"
    head -n 1 "$src" >"$dir/$name-header-only"
    tail -n +2 "$src" >"$dir/$name-no-header"
    sed '2s/[0-9][0-9]*/1e300/' "$src" >"$dir/$name-1e300"
    sed '2s/[0-9][0-9]*/-5/' "$src" >"$dir/$name-neg"
    sed '2s/[0-9][0-9]*/99999999999999999999/' "$src" >"$dir/$name-huge"
    sed '2s/[0-9]/x/' "$src" >"$dir/$name-letter"
    sed "2s/\$/${s}extra/" "$src" >"$dir/$name-wide"
    sed "2s/${s}[^${s}]*\$//" "$src" >"$dir/$name-narrow"
    sed "2s/$s/$s\"/" "$src" >"$dir/$name-quote"
    sed "2s/$s/$s\xff\xfe\xc3/" "$src" >"$dir/$name-bytes"
    sed "2s/${s}[^${s}]*\$/$s$(printf 'x%.0s' $(seq 300))/" "$src" >"$dir/$name-long-field"
    sed 's/$/\r/' "$src" >"$dir/$name-crlf"
    { printf '\xef\xbb\xbf'; cat "$src"; } >"$dir/$name-bom"
    { head -n 2 "$src"; printf '\n\n'; tail -n +3 "$src"; } >"$dir/$name-blank"
    { cat "$src"; sed -n 2p "$src"; } >"$dir/$name-dup"
    # line 2 with each field in turn spoiled (a bad value, or empty)
    awk -F"$s" -v OFS="$s" -v out="$dir/$name-f" '
        BEGIN { nb = split("1e300|-5|99999999999999999999|x|0|nan|1.5|-0|inf| 7|0x10|\377", bad, "|") }
        { line[NR] = $0 }
        END {
            if (NR < 2) exit
            n = split(line[2], f, FS)
            for (k = 1; k <= n && k <= 17; k++)
                for (j = 0; j < 2; j++) {
                    file = out k (j ? "-empty" : "-bad")
                    for (i = 1; i <= NR; i++) {
                        if (i != 2) { print line[i] > file; continue }
                        r = ""
                        for (m = 1; m <= n; m++)
                            r = r (m > 1 ? OFS : "") (m == k ? (j ? "" : bad[(k % nb) + 1]) : f[m])
                        print r > file
                    }
                    close(file)
                }
        }' "$src"
}

# awk: civil(s) = "YYYY-mm-dd HH:MM:SS" for s seconds since 1970 (UTC, whole seconds)
AWK_CIVIL='
function civil(s,   z, r, era, doe, yoe, y, doy, mp, d, m) {
    z = int(s / 86400); r = s - z * 86400
    z += 719468; era = int(z / 146097); doe = z - era * 146097
    yoe = int((doe - int(doe / 1460) + int(doe / 36524) - int(doe / 146096)) / 365)
    y = yoe + era * 400; doy = doe - (365 * yoe + int(yoe / 4) - int(yoe / 100))
    mp = int((5 * doy + 2) / 153); d = doy - int((153 * mp + 2) / 5) + 1
    m = mp < 10 ? mp + 3 : mp - 9; y += (m <= 2)
    return sprintf("%04d-%02d-%02d %02d:%02d:%02d", y, m, d, int(r / 3600), int(r / 60) % 60,
                   r % 60)
}'

# gen N SEED: N generated jobs as $TMP/gen.csv (job_id,arrival_s,duration_s,num_gpus,queue)
gen() {
    "$BERTH" gen --profile philly --jobs "$1" --seed "$2" --out "$TMP/gen.csv"
}

native_seeds() {
    local d=$1
    "$BERTH" gen --profile gavel --jobs 5 --seed 1 --out "$d/ok-gen-gavel"
    "$BERTH" gen --profile philly --jobs 8 --seed 2 --out "$d/ok-gen-philly"
    printf 'job_id,arrival_s,duration_s,num_gpus,job_type,total_steps,user,queue,gpu_type,min_gpus,max_gpus,gpu_share,gpu_mem_mib,priority,single_server,cpus,mem_mib\n"j,1",0.000001,1.5,4,"bert ""large""",100,u,q,v100|a100,2,8,1,16384,-3,1,8.5,4096\nj2,7,0.25,1,,,,,,,,0.125,,,,,\nj3,8,3600,2,resnet,,alice,vc1,k80,,,,,5,false,0.001,1\n' >"$d/ok-all-columns"
    printf 'num_gpus,x_note,duration_s,job_id,arrival_s\n1,"multi\nline",10,a,0\n8,,20.5,b,1.25\n' >"$d/ok-reordered"
    printf 'job_id,arrival_s,duration_s,num_gpus,cpus,mem_mib,single_server\nc1,0,10,0,4,1024,\nc2,1,5,0,,512,1\nc3,1,5,0,0.5,,\ng1,2,3,1,,,\n' >"$d/ok-cpu-only"
    printf 'job_id,arrival_s,duration_s,num_gpus,gpu_share\n1,0,1,1,0.5\n2,0,1,2,1\n3,1,2,1,1.0\n' >"$d/ok-share"
    printf 'job_id,arrival_s,duration_s,num_gpus\n1,0,0,1\n2,-1,1,1\n3,0,1,0\n4,1e12,1,1\n5,0,1,1000001\n' >"$d/bad-rows"
    printf 'job_id,arrival_s,duration_s,bogus\n1,0,1,1\n' >"$d/bad-header"
    printf 'job_id,job_id,arrival_s,duration_s,num_gpus\n' >"$d/dup-column"
    : >"$d/empty"
    variants "$d/ok-gen-philly" "$d" gen-philly
    variants "$d/ok-all-columns" "$d" all-columns
}

philly_pollux_seeds() {
    local d=$1
    gen 8 3
    # the generated jobs as Philly rows, submitted from 2017-10-01
    awk -F, "$AWK_CIVIL"'
        NR == 1 { print "timestamp,duration,num_gpus,gpu_time,cluster"; next }
        { printf "%s,%s.0,%s,%s.0,%s\n", civil(1506816000 + $2), $3, $4, $3 * $4, $5 }' \
        "$TMP/gen.csv" >"$d/ok-gen"
    printf 'timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-09 07:01:55,66.0,1,66.0,11cb48\n2017-10-09 06:13:03,2951.5,2,5903.0,6214e9\n2017-12-31 23:59:59,0.5,128,64.0,103959\n' >"$d/ok-unsorted"
    printf 'timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-09T07:01:55,1e3,4,4000,vc\n2017-02-30 07:01:55,1,1,1,vc\n2017-10-09 25:00:00,1,1,1,vc\n2017-10-09 07:01:55,0,1,0,vc\n2017-10-09 07:01:55,5,0,0,vc\n' >"$d/bad-rows"
    printf 'timestamp,duration,gpus,gpu_time,cluster\n2017-10-09 07:01:55,66.0,1,66.0,11cb48\n' >"$d/bad-header"
    : >"$d/empty"
    variants "$d/ok-gen" "$d" gen
    variants "$d/ok-unsorted" "$d" unsorted
}

tiresias_seeds() {
    local d=$1
    gen 8 4
    awk -F, '
        BEGIN { split("vgg19 vgg16 vgg11 resnet50 resnet101 alexnet inception3 googlenet", m, " ") }
        NR == 1 { print "job_id,num_gpu,submit_time,iterations,model_name,duration,interval"; next }
        { printf "%d,%s,%s,%d,%s,%s,%d\n", $1 - 1, $4, $2, 100 * NR, m[NR % 8 + 1], $3, NR * 7 }' \
        "$TMP/gen.csv" >"$d/ok-gen"
    printf '\xef\xbb\xbfjob_id,num_gpu,submit_time,iterations,model_name,duration,interval\r\n0,1,0,606,vgg19,164,30\r\n1,8,30,133,vgg11,147,23\r\n2,2,53.25,,,0.5,26\r\n' >"$d/ok-60job"
    printf 'job_id,num_gpu,submit_time,start_time,duration,model_size,aggr_interval,model_name,model_scale\n10,12,11,14,20,400,0,vgg19,1\n' >"$d/ok-tf-job"
    printf 'duration,submit_time,num_gpu,job_id\n7,1,2,x\n' >"$d/ok-min"
    printf 'duration\n121\n122\n124\n' >"$d/yarn-gput"
    printf 'job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n0,1,0,606,vgg19,164,30\n1,1,0,606,vgg19,164\n,1,0,606,vgg19,164,30\n1,0,0,606,vgg19,164,30\n1,2.5,0,606,vgg19,164,30\n1,1,\xff\xfe,606,vgg19,164,30\n1,1,0,606,vgg19,,30\n1,1,0,-1,vgg19,164,30\n0,1,0,606,vgg19,164,30\n' >"$d/bad-rows"
    printf 'job_id,submit_time,duration\n1,0,5\n' >"$d/bad-header"
    printf 'job_id,num_gpu,submit_time,duration,num_gpu\n' >"$d/dup-column"
    : >"$d/empty"
    variants "$d/ok-gen" "$d" gen
    variants "$d/ok-60job" "$d" 60job
}

pollux_seeds() {
    local d=$1
    gen 8 5
    awk -F, '
        BEGIN { split("bert cifar10 deepspeech2 imagenet ncf yolov3", a, " ") }
        NR == 1 { print "name,time,application,num_replicas,batch_size,duration"; next }
        { app = a[NR % 6 + 1]; printf "%s-%d,%s,%s,%s,%d,%s\n", app, $1 - 1, $2, app, $4, 64 * $4, $3 }' \
        "$TMP/gen.csv" >"$d/ok-gen"
    printf 'name,time,application,num_replicas,batch_size,duration\ncifar10-0,0,cifar10,1,128,1234.5\nimagenet-1,12.25,imagenet,48,12800,86400\n"ncf,2",100,ncf,4,256,60\n' >"$d/ok-sample"
    printf 'duration,batch_size,num_replicas,application,time,name\n5,64,2,bert,1,b\n' >"$d/ok-reordered"
    printf 'name,time,application,num_replicas,batch_size\ncifar10-0,0,cifar10,1,128\n' >"$d/no-duration"
    printf 'name,time,application,num_replicas,batch_size,duration\ncifar10-0,0,cifar10,1,128,60\na,0,cifar10,1,128\n,0,cifar10,1,128,60\na,-5,cifar10,1,128,60\na,0,,1,128,60\na,0,cifar10,0,128,60\na,0,cifar10,1,12.8,60\na,0,cifar10,1,128,0\na,0,cifar10,1,128,\xff\n' >"$d/bad-rows"
    printf 'name,time,app,num_replicas,batch_size,duration\n' >"$d/bad-header"
    : >"$d/empty"
    variants "$d/ok-gen" "$d" gen
    variants "$d/ok-sample" "$d" sample
}

gavel_seeds() {
    local d=$1
    gen 8 6
    # 10 fields (Gavel today) and 12 (Shockwave), one job per generated row
    awk -F, -v OFS='\t' '
        BEGIN { n = split("ResNet-50 (batch size 64)|LM (batch size 20)|CycleGAN|Transformer (batch size 128)|Recommendation (batch size 8192)|A3C|ResNet-18 (batch size 32)", t, "|") }
        NR > 1 { print t[NR % n + 1], "python3 main.py --batch_size %s", "wd", "--num_steps", NR % 2, 1000 * NR, $4, 1 + (NR % 3) / 2, -1, $2 }' \
        "$TMP/gen.csv" >"$d/ok-gen10"
    awk -F, -v OFS='\t' '
        NR > 1 { print "LM (batch size 10)", "cmd", "wd", "--steps", 1, 1000 * NR, $4, "gns", 1, "-1.000000", $3, $2 }' \
        "$TMP/gen.csv" >"$d/ok-gen12"
    printf 'ResNet-50 (batch size 64)\tcd %%s/x && python3 main.py -b 64 %%s/data\timage_classification/imagenet\t--num_minibatches\t1\t43948\t1\t1.0\t-1\t0.0\nLM (batch size 20)\tpython3 main.py --cuda --batch_size 20\tlanguage_modeling\t--steps\t0\t1000000\t4\t5.0\t1.2\t12.5\nCycleGAN\tcmd\twd\t--n_steps\t1\t55992\t8\t0.5\t-1.000000\t3600.000001\r\n\nTransformer (batch size 256)\tcmd \twd\t-step\t1\t19178\t16\t1\t-1\t7' >"$d/ok-sample10"
    printf '\xef\xbb\xbfTransformer (batch size 128)\tcd %%s/translation && python3 train.py -batch_size 128\t-step\t1\t14612\t0.000000\t1\nRecommendation (batch size 8192)\tcd %%s/recommendation && python3 train.py --batch_size 8192\t-n\t1\t1550\t11.000000\t1\n' >"$d/ok-sample7"
    printf 'LM (batch size 10)\tpython3 main.py --cuda --batch_size 10\tlanguage_modeling\t--steps\t1\t134583\t1\tgns\t1\t-1.000000\t1418\t0\nMy \xff\xfe model\tcmd\twd\t-n\t0\t143450\t2\taccordion\t1.5\t-1.000000\t3338.25\t55\n' >"$d/ok-sample12"
    printf 'ResNet-50 (batch size 64)\tcmd\twd\t-n\t1\t100\t1\t1\t-1\t0\nFoo\tcmd\twd\t-n\t1\t100\t1\t1\t-1\t0\nResNet-50 (batch size 64)\tcmd\twd\t-n\t2\t100\t1\t1\t-1\t0\nResNet-50 (batch size 64)\tcmd\twd\t-n\t1\t12.5\t1\t1\t-1\t0\nTransformer (batch size 256)\tcmd\twd\t-n\t1\t9000000000000000000\t1\t1\t-1\t0\nResNet-50 (batch size 64)\tcmd\twd\t-n\t1\t100\t1\t0\t-1\t0\nResNet-50 (batch size 64)\tcmd\twd\t-n\t1\t100\t1\t1\tnone\t0\nResNet-50 (batch size 64)\tcmd\n' >"$d/bad-rows"
    printf 'CycleGAN\tc\t-n\t1\t10\t0\t1\nCycleGAN\tc\t-n\t1\t10\t0\tx\n' >"$d/bad-rows7"
    printf '\n\na\tb\tc\td\te\tf\tg\th\nResNet-50 (batch size 64)\tcmd\twd\t-n\t1\t100\t1\t1\t-1\t0\n' >"$d/eight-fields"
    printf '\n\r\n\n' >"$d/blank"
    : >"$d/empty"
    variants "$d/ok-gen10" "$d" gen10 "$TAB"
    variants "$d/ok-gen12" "$d" gen12 "$TAB"
    variants "$d/ok-sample7" "$d" sample7 "$TAB"
}

philly_seeds() {
    local d=$1
    gen 8 7
    # the generated jobs as cluster_job_log objects, submitted from 2017-10-01
    awk -F, "$AWK_CIVIL"'
        NR == 1 { print "["; next }
        { s0 = 1506816000 + $2; st = s0 + 5 + NR % 3; en = st + $3; g = ""
          for (k = 0; k < $4; k++) g = g (k ? ", " : "") "\"gpu" k % 8 "\""
          printf "%s  {\"status\": \"%s\", \"vc\": \"%s\", \"jobid\": \"application_1506638472019_%d\", \"user\": \"u%d\", \"submitted_time\": \"%s\", \"attempts\": [{\"start_time\": \"%s\", \"end_time\": \"%s\", \"detail\": [{\"ip\": \"m%d\", \"gpus\": [%s]}]}]}",
              (NR > 2 ? ",\n" : ""), (NR % 3 ? "Pass" : "Killed"), $5, $1, NR % 4, civil(s0),
              civil(st), civil(en), NR, g }
        END { print "\n]" }' "$TMP/gen.csv" >"$d/ok-gen"
    cat >"$d/ok-sample" <<'EOF'
[
  {"status": "Pass", "vc": "vc1", "jobid": "app_1", "user": "alice",
   "submitted_time": "2017-10-01 00:00:10", "attempts": [{"start_time": "2017-10-01 00:01:00", "end_time": "2017-10-01 00:02:40", "detail": [{"ip": "m1", "gpus": ["gpu0", "gpu1"]}, {"ip": "m2", "gpus": ["gpu3"]}]}]},
  {"status": "Killed", "vc": "vc1", "jobid": "app_3", "user": "bob",
   "submitted_time": "2017-10-01 00:00:01", "attempts": []},
  {
    "status": "Failed",
    "vc": "v\\",
    "jobid": "app_2",
    "user": "b\"o}b{ [\u00e9",
    "submitted_time": "2017-10-01 00:00:05",
    "attempts": [
      {"start_time": "2017-10-01 00:00:20", "end_time": "2017-10-01 00:00:50",
       "detail": []},
      {"start_time": null, "end_time": "None",
       "detail": [{"ip": "m3", "gpus": ["gpu0", "gpu1", "gpu2", "gpu3"]}]},
      {"start_time": "2017-10-01 00:10:00", "end_time": "2017-10-01 00:15:00",
       "detail": [{"ip": "m4", "gpus": ["gpu0", "gpu1", "gpu2", "gpu3", "gpu4", "gpu5"]}]}
    ]
  },
  {"status": "Pass", "vc": "vc2", "jobid": "app_4", "user": "c", "submitted_time": "2017-10-01 00:00:30", "attempts": [{"start_time": "2017-10-01 00:01:00", "end_time": null, "detail": [{"ip": "m1", "gpus": ["gpu0"]}]}]},
  {"status": "Pass", "vc": "vc2", "jobid": "app_5", "user": "c", "submitted_time": "2017-10-01 00:00:30", "attempts": [{"end_time": "2017-10-01 00:01:00", "detail": [{"ip": "m1", "gpus": ["gpu0"]}]}]},
  {"status": "Pass", "vc": "vc2", "jobid": "app_7", "user": "c", "submitted_time": "2017-10-01 00:00:30", "attempts": [{"start_time": "2017-10-01 00:01:00", "end_time": "2017-10-01 00:01:00", "detail": [{"ip": "m1", "gpus": ["gpu0"]}]}]},
  {"status": "Pass", "vc": "vc3", "jobid": "app_9", "user": "d", "submitted_time": "2017-10-02 00:00:00", "attempts": [{"start_time": "2017-10-02 01:00:00", "detail": [{"ip": "m5", "gpus": ["gpu0", "gpu1"]}]}, {"start_time": "2017-10-02 23:59:30", "end_time": "2017-10-03 00:00:30", "detail": [{"ip": "m6", "gpus": ["gpu7"]}]}]},
  {"status": "Killed", "vc": "vc3", "jobid": "app_10", "user": null,
   "submitted_time": "2017-09-30 00:00:00", "attempts": null}
]
EOF
    printf '[{"jobid": "a", "submitted_time": "2017-10-01 00:00:00", "attempts": [{"start_time": "2017-10-01 00:00:00", "end_time": "2017-10-01 00:00:07", "detail": [{"gpus": ["g"]}]}]},\n {"jobid": "b", "submitted_time": "yesterday"},\n {"jobid": "c" "submitted_time": 1},\n {"jobid": "d", "submitted_time": "2017-10-01 00:00:04", "attempts": [{"start_time": "2017-10-01 00:00:09", "end_time": "2017-10-01 00:00:08"}]},\n {"jobid": 5, "submitted_time": "2017-10-01 00:00:02", "attempts": [3, {"detail": [{"gpus": "gpu0"}]}]},\n {"jobid": "f", "submitted_time": "2017-10-01 00:00:02", "attempts": []}]' >"$d/bad-objects"
    printf '[\n' >"$d/open"
    printf '[{"jobid": "a", "attempts": [{"detail": [{"gpus": ["g' >"$d/cut-string"
    # shellcheck disable=SC1003 # a backslash at the end of the file
    printf '[{"jobid": "a\\' >"$d/cut-escape"
    printf '[{}]' >"$d/empty-object"
    printf '[]' >"$d/empty-array"
    printf '{"jobid": "a"}' >"$d/not-array"
    printf '[1, "x", null, true, [[[[]]]]]' >"$d/not-objects"
    printf '[{"jobid": "a"},]' >"$d/trailing-comma"
    printf '[{"jobid": "a"}] junk' >"$d/trailing-junk"
    { printf '[{"a": '; printf '[%.0s' $(seq 3000); printf ']%.0s' $(seq 3000); printf '}]'; } >"$d/deep"
    printf '[{"jobid": "\\ud800", "user": "\\u0000", "vc": "\xff\xfe"}]' >"$d/bad-unicode"
    : >"$d/empty"
    variants "$d/ok-gen" "$d" gen
}

helios_seeds() {
    local d=$1
    gen 8 8
    awk -F, -v OFS=, "$AWK_CIVIL"'
        BEGIN { split("COMPLETED CANCELLED FAILED TIMEOUT NODE_FAIL", st, " ") }
        NR == 1 { print "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue"; next }
        { s0 = 1591660800 + $2; q = NR % 4 * 30
          print 1425500 + $1, "u" NR % 3, $5, $4, 4 * $4, int(($4 + 7) / 8), st[NR % 5 + 1], civil(s0), civil(s0 + q), civil(s0 + q + $3), $3, q }
        END { print 1425600, "uc", "vcX", 0, 4, 1, "COMPLETED", civil(1591660800), civil(1591660800), civil(1591660810), 10, 0
              print 1425601, "uc", "vcX", 8, 64, 1, "CANCELLED", civil(1591660800), "", "", "", "" }' \
        "$TMP/gen.csv" >"$d/ok-gen"
    printf 'job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n1425511,uXBbc,vcJkd,1,1,1,COMPLETED,2020-06-09 18:41:01,2020-06-09 18:41:01,2020-06-10 04:55:09,36848,0\n1425512,uVMrF,vchbv,4,16,1,FAILED,2020-06-09 18:41:27,2020-06-09 18:41:27,2020-06-09 18:45:36,249,0\n1425513,uzqls,vcpDC,0,1,1,CANCELLED,2020-06-09 18:41:28,2020-06-09 18:41:28,2020-06-17 14:15:21,675233,0\n1425514,uA,vcX,8,64,1,CANCELLED,2020-06-09 18:40:00,2020-06-09 18:50:00,2020-06-09 18:50:00,0,600\n1425515,uA,vcX,8,64,1,CANCELLED,2020-06-09 18:40:00,,,,\n1425516,"u,C",vcY,16,128.5,2,TIMEOUT,2020-06-10 00:00:00,2020-06-10 00:00:00,2020-06-10 02:00:00,7200.5,0\r\n' >"$d/ok-sample"
    printf 'duration,extra,submit_time,gpu_num,job_id\n60,?,2020-06-09 00:00:10,2.0,b\n30,?,2020-06-09 00:00:00,2,a\n' >"$d/ok-reordered"
    printf 'job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n0,u,vc,1,1,1,COMPLETED,2020-06-09 18:41:01,,,10,0\n1,u,vc,1,1,1,COMPLETED,2020-06-09 18:41:01,,,10\n1,u,vc,-1,1,1,COMPLETED,2020-06-09 18:41:01,,,10,0\n1,u,vc,1.5,1,1,COMPLETED,2020-06-09 18:41:01,,,10,0\n1,u,vc,1,1,1,COMPLETED,2020-06-09T18:41,,,10,0\n1,u,vc,1,x,1,COMPLETED,2020-06-09 18:41:01,,,10,0\n1,u,vc,1,1,1,COMPLETED,2020-06-09 18:41:01,,,-3,0\n,u,vc,1,1,1,COMPLETED,2020-06-09 18:41:01,,,3,0\n0,u,vc,1,1,1,COMPLETED,2020-02-30 18:41:01,,,3,0\n' >"$d/bad-rows"
    printf 'job_id,user,vc,gpu_num,cpu_num,submit_time\n' >"$d/bad-header"
    printf 'job_id,gpu_num,submit_time,duration,gpu_num\n' >"$d/dup-column"
    : >"$d/empty"
    variants "$d/ok-gen" "$d" gen
    variants "$d/ok-sample" "$d" sample
}

acme_seeds() {
    local d=$1
    gen 8 9
    # Seren (offsets +08:00) and Kalos (+00:00, memory and more time columns)
    awk -F, -v OFS=, "$AWK_CIVIL"'
        BEGIN { split("Pretrain SFT Evaluation Debug MLLM Other", ty, " "); split("COMPLETED FAILED CANCELLED", st, " ") }
        NR == 1 { print "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,queue,gpu_time"; next }
        { s0 = 1677628800 + $2; q = NR % 3 * 10
          print 5778400 + $1, "u" NR % 4, int(($4 + 7) / 8), $4, 16 * $4, ty[NR % 6 + 1], st[NR % 3 + 1], civil(s0) "+08:00", civil(s0 + q) "+08:00", civil(s0 + q + $3) "+08:00", $3, q, $3 * $4 ".0" }' \
        "$TMP/gen.csv" >"$d/ok-gen-seren"
    awk -F, -v OFS=, "$AWK_CIVIL"'
        NR == 1 { print "job_id,user,node_num,gpu_num,cpu_num,mem_per_pod_GB,shared_mem_per_pod,type,state,submit_time,start_time,end_time,fail_time,stop_time,duration,queue,gpu_time"; next }
        { s0 = 1684281600 + $2; q = NR % 3 * 10; n = int(($4 + 7) / 8)
          print "dlc" $1 "x" NR, "uf" NR, n, $4, 120 * n, 250.5 * n, "100.0", "Other", "COMPLETED", civil(s0) "+00:00", civil(s0 + q) "+00:00", civil(s0 + q + $3) "+00:00", "", "", q + $3, q ".0", $3 * $4 ".0" }' \
        "$TMP/gen.csv" >"$d/ok-gen-kalos"
    printf 'job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,queue,gpu_time\n5778432,u5907,1,8,128,Other,FAILED,2023-03-01 00:18:22+08:00,2023-03-01 00:18:54+08:00,2023-03-01 00:20:51+08:00,117,32,936.0\n5778469,u5907,1,8,128,Other,COMPLETED,2023-03-01 00:23:58+08:00,2023-03-01 00:24:11+08:00,2023-03-01 01:09:04+08:00,2693,13,21544.0\n5778470,u1,1,0,4,Other,COMPLETED,2023-02-28 23:00:00+08:00,2023-02-28 23:00:00+08:00,2023-02-28 23:00:10+08:00,10,0,0.0\n5778471,u2,2,16,256,Pretrain,COMPLETED,2023-02-28 16:20:00+00:00,2023-02-28 16:20:00+00:00,2023-02-28 17:20:00+00:00,3601,0,57616.0\n' >"$d/ok-seren"
    printf 'job_id,user,node_num,gpu_num,cpu_num,mem_per_pod_GB,shared_mem_per_pod,type,state,submit_time,start_time,end_time,fail_time,stop_time,duration,queue,gpu_time\ndlctk696s0jbvitv,uf794,8,64,960,1000,100.0,Other,FAILED,2023-05-17 11:00:58+00:00,2023-05-17 11:01:08+00:00,2023-05-17 11:01:16+00:00,2023-05-17 11:01:16+00:00,,18,10.0,1152.0\ndlcx,uA,1,8,120,,,SFT,CANCELLED,2023-05-17 09:29:00+00:00,,,,2023-05-17 09:29:30+00:00,30,,240.0\ndlcy,uB,1,0,4,16,,Debug,COMPLETED,2023-05-17 09:00:00+00:00,2023-05-17 09:00:00+00:00,2023-05-17 09:01:00+00:00,,,60,0.0,0.0\ndlcz,uC,1,4.0,60,250.5,,Evaluation,COMPLETED,2023-05-17 10:00:00+00:00,2023-05-17 10:00:30+00:00,2023-05-17 10:05:00.25+00:00,,,300,30.0,1200.0\ndlcw,uC,1,4,60,250.5,,Evaluation,FAILED,2023-05-17 09:00:00+00:00,2023-05-17 09:00:30+00:00,2023-05-17 09:00:30+00:00,,,30,30.0,120.0\n' >"$d/ok-kalos"
    printf 'job_id,gpu_num,submit_time,duration\na,1,2023-03-01 00:00:00+08:00,60\nb,2,2023-03-01 00:00:00-05:30,0\nc,4,2023-03-01 00:00:00Z,7.5\n' >"$d/ok-duration-only"
    printf 'job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,queue,gpu_time\n1,u,1,8,128,Other,FAILED,2023-03-01 00:18:22+08:00,2023-03-01 00:18:54+08:00,2023-03-01 00:20:51+08:00,117,32,936.0\n2,u,1,8,128,Other,FAILED,2023-03-01 00:18:22+25:00,2023-03-01 00:18:54+08:00,2023-03-01 00:20:51+08:00,117,32,936.0\n3,u,1,8,128,Other,FAILED,2023-03-01 00:18:22,2023-03-01 00:18:54+08:00,2023-03-01 00:20:51+08:00,117,32,936.0\n4,u,1,8,128,Other,FAILED,2023-03-01 00:18:22+08:00,2023-03-01 00:20:54+08:00,2023-03-01 00:20:51+08:00,117,32,936.0\n5,u,1,-8,128,Other,FAILED,2023-03-01 00:18:22+08:00,2023-03-01 00:18:54+08:00,2023-03-01 00:20:51+08:00,117,32,936.0\n' >"$d/bad-rows"
    printf 'job_id,user,node_num,gpu_num\n' >"$d/bad-header"
    : >"$d/empty"
    variants "$d/ok-gen-seren" "$d" gen-seren
    variants "$d/ok-gen-kalos" "$d" gen-kalos
}

openb_seeds() {
    local d=$1
    gen 8 10
    awk -F, -v OFS=, '
        BEGIN { split("1000 500 250 460 100 1000", sh, " "); split("|V100M16|V100M32|T4|G2|V100M16|V100M32|nan|P100", sp, "|"); split("LS BE Burstable Guaranteed", qo, " ") }
        NR == 1 { print "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time"; next }
        { g = $4 > 8 ? 8 : $4
          print "openb-pod-" sprintf("%04d", $1), 4000 * g, 16384 * g, g, g == 1 ? sh[NR % 6 + 1] : 1000, sp[NR % 5 + 1], qo[NR % 4 + 1], NR % 2 ? "Running" : "Succeeded", $2, NR % 4 ? $2 + $3 : "", $2 }
        END { print "openb-pod-cpu", 2000, 4096, 0, 0, "", "LS", "Running", 5, 50, 5 }' \
        "$TMP/gen.csv" >"$d/ok-gen"
    printf 'name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\np0,12000,16384,1,1000,,LS,Running,100,500,100\np1,6000,12288,1,460,,BE,Running,200,,200\np2,88000,327680,8,1000,nan,Burstable,Succeeded,300,1300,300\np3,4000,8192,0,0,,LS,Running,400,900,400\np4,16000,32768,1,1000,V100M16|V100M32|V100M32,LS,Running,450,450,\np5,2000,4096,2,1000,G2|t4,Guaranteed,Pending,460,2000,\np6,1000,1024,1,100,,BE,Pending,2000,,\n' >"$d/ok-sample"
    printf 'name,cpu_milli,memory_mib,num_gpu,gpu_milli\nm0,12000,16384,1,1000\nm1,6000,12288,1,460\nm2,0,0,0,0\nm3,64200,263168,8,1000\n' >"$d/ok-multigpu"
    printf 'name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\ng,1000,1024,1,500,,LS,Running,0,10,0\nb,1000,1024,-5,500,,LS,Running,0,10,0\nb,1000,1024,1,0,,LS,Running,0,10,0\nb,1000,1024,2,500,,LS,Running,0,10,0\nb,1000,1024,1,500,a||b,LS,Running,0,10,0\nb,1000,1024,1,500,,LS,Running,,10,0\nb,1000,1024,1,500,,LS,Running,0,-5,0\nb,1000,x,1,500,,LS,Running,0,10,0\n,1000,1024,1,500,,LS,Running,0,10,0\nb,1000,10' >"$d/bad-rows"
    printf 'name,cpu_milli,memory_mib,num_gpu,gpu_milli,deletion_time\n' >"$d/bad-header"
    printf 'name,cpu_milli,memory_mib,num_gpu,gpu_milli,name\n' >"$d/dup-column"
    printf 'name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"p,1,1,1,1000\n' >"$d/open-quote"
    : >"$d/empty"
    variants "$d/ok-gen" "$d" gen
    variants "$d/ok-sample" "$d" sample
}

# pai JOBS TASKS OUT: the two tables as one fuzz input (jobs, a line "--", tasks)
pai() {
    { cat "$1"; printf -- '--\n'; cat "$2"; } >"$3"
}

pai2020_seeds() {
    local d=$1 v f
    gen 8 11
    # one job row and one or two task rows per generated job
    awk -F, -v jobs="$TMP/j" -v tasks="$TMP/t" '
        BEGIN { split("V100 T4 P100 MISC V100M32", ty, " ") }
        NR > 1 { s0 = 1000 + $2; st = s0 + 5; en = st + $3; g = $4 > 1 ? 100 : 50 * (1 + NR % 2)
                 printf "j%d,inst%d,user%d,Terminated,%d.0,%d.0\n", $1, $1, NR % 3, s0, en > jobs
                 printf "j%d,worker,%d.0,Terminated,%d.0,%d.0,600.0,29.296875,%d.0,%s\n", $1, $4, st, en, g, ty[NR % 5 + 1] > tasks
                 if (NR % 2) printf "j%d,ps,1.0,Terminated,%d.0,%d.0,400.0,2.0,,\n", $1, st - 1, en > tasks }' \
        "$TMP/gen.csv"
    ok "$TMP/j" "$TMP/j,$TMP/t"
    pai "$TMP/j" "$TMP/t" "$d/ok-gen"
    printf 'j1,i1,userA,Terminated,50.0,1000.0\nj2,i2,userB,Terminated,1000.0,1600.0\nj3,i3,userA,Terminated,1900.0,2950.0\nj4,i4,userC,Terminated,2990.0,3100.0\nj5,i5,userA,Terminated,3990.0,4100.0\nj6,i6,userA,Failed,4990.0,5100.0\nj7,i7,userA,Running,5990.0,\nj8,i8,userA,Terminated,6990.0,7100.0\nj9,i9,userA,Terminated,7990.0,7999.0\nj10,i10,userB,Terminated,8990.0,9000.0\nj11,i11,userB,Terminated,9990.0,9999.0\nj12,i12,,Terminated,9995.0,10600.5\nj13,i13,userA,Terminated,10990.0,11500.0\nj14,i14,userA,Terminated,11990.0,\n' >"$TMP/sj"
    printf 'j1,worker,2.0,Terminated,100.0,200.0,600.0,29.296875,50.0,V100\nj1,ps,1.0,Terminated,90.0,200.0,400.0,2.0,,\nj2,tensorflow,1.0,Terminated,1010.0,1600.0,50.0,0.5,25.0,MISC\nj3,worker,3.0,Terminated,1950.0,,800.0,1.0,50.0,T4\nj4,worker,1.0,Terminated,3000.0,3100.0,100.0,1.0,100.0,V100\nj4,evaluator,1.0,Terminated,3005.0,3100.0,100.0,1.0,100.0,P100\nj5,tensorflow,1.0,Terminated,4000.0,4100.0,600.0,4.0,,\nj6,tensorflow,1.0,Failed,5000.0,5100.0,600.0,4.0,100.0,T4\nj7,tensorflow,1.0,Running,6000.0,,600.0,4.0,100.0,T4\nj8,tensorflow,1.0,Waiting,0.0,,600.0,4.0,100.0,\nj8,worker,1.0,Waiting,,,600.0,4.0,100.0,\nj9,tensorflow,1.0,Terminated,8000.0,8100.0,600.0,4.0,100.0,T4\nj10,tensorflow,1.0,Terminated,9000.0,9000.0,600.0,4.0,100.0,T4\norphan,tensorflow,1.0,Terminated,1.0,2.0,600.0,4.0,100.0,T4\norphan,ps,1.0,Terminated,1.0,2.0,600.0,4.0,,\nj12,worker,8.0,Terminated,10000.0,10500.0,100.0,1.0,100.0,CPU\nj13,worker,0.0,Terminated,11000.0,11500.0,100.0,1.0,100.0,T4\nj14,tensorflow,1.0,Terminated,12000.0,,100.0,1.0,100.0,T4\n' >"$TMP/st"
    ok "$TMP/sj" "$TMP/sj,$TMP/st"
    pai "$TMP/sj" "$TMP/st" "$d/ok-sample"
    # the .header lines as first rows
    { echo job_name,inst_id,user,status,start_time,end_time; cat "$TMP/sj"; } >"$TMP/hj"
    { echo job_name,task_name,inst_num,status,start_time,end_time,plan_cpu,plan_mem,plan_gpu,gpu_type; cat "$TMP/st"; } >"$TMP/ht"
    ok "$TMP/hj" "$TMP/hj,$TMP/ht"
    pai "$TMP/hj" "$TMP/ht" "$d/ok-headers"
    printf '\xff\xfe\x80,i,\xc3\x28,Terminated,6.0,20.0\nbig,i,u,Terminated,5.0,20.0\n' >"$TMP/xj"
    printf '\xff\xfe\x80,w,1.0,Terminated,10.0,20.0,100.0,1.0,100.0,T4\nbig,w,1000000,Terminated,10.0,20.0,1e7,1e6,6400,T4\n' >"$TMP/xt"
    pai "$TMP/xj" "$TMP/xt" "$d/odd-bytes-big"
    printf 'b,i,u,Terminated,5.0,20.0\n,i,u,Terminated,5.0,20.0\nb,i,u,Terminated,x,20.0\nb,i,u,Terminated,1e300,20.0\nb,i,u,Terminated,5.0,-5\nf,i,u,Failed,,x\nw,i,u,Waiting,1e300,\nz,i,u,Zombie,5.0,6.0\nb,i,u,Termin' >"$TMP/bj"
    printf 'b,w,1.0,Terminated,10.0,20.0,100.0,1.0,100.0,T4\nb,w,1.5,Terminated,10.0,20.0,100.0,1.0,100.0,T4\nb,w,1.0,Terminated,10.0,20.0,1e300,1.0,100.0,T4\nb,w,1.0,Terminated,10.0,20.0,100.0,abc,100.0,T4\nb,w,1.0,Terminated,10.0,20.0,100.0,1.0,-5,T4\nb,w,1.0,Terminated,99999999999999999999,20.0,100.0,1.0,100.0,T4\nb,w,1.0,Terminated,10.0,20.0,100.0,1.0,100.0,V 100\n,w,1.0,Terminated,10.0,20.0,100.0,1.0,100.0,T4\nb,w,1.0\n' >"$TMP/bt"
    pai "$TMP/bj" "$TMP/bt" "$d/bad-rows"
    pai "$TMP/st" "$TMP/sj" "$d/swapped"
    printf '\n\n' >"$TMP/blank"
    pai "$TMP/blank" "$TMP/st" "$d/blank-jobs"
    : >"$TMP/none"
    pai "$TMP/sj" "$TMP/none" "$d/no-tasks"
    pai "$TMP/none" "$TMP/none" "$d/both-empty"
    printf 'timestamp,duration,num_gpus,gpu_time,cluster\n' >"$TMP/wrong"
    pai "$TMP/wrong" "$TMP/st" "$d/wrong-jobs"
    cp "$TMP/sj" "$d/no-separator"
    : >"$d/empty"
    # broken variants of one table, the other kept whole
    for v in j t; do
        rm -rf "$TMP/v"
        mkdir "$TMP/v"
        variants "$TMP/s$v" "$TMP/v" s
        for f in "$TMP"/v/*; do
            if [ $v = j ]; then pai "$f" "$TMP/st" "$d/jobs-${f##*/}"; else pai "$TMP/sj" "$f" "$d/tasks-${f##*/}"; fi
        done
    done
    rm -rf "$TMP/v"
}

# tput-gavel: Gavel's throughput table (JSON); tput-lucid: Lucid's colocate_info.csv. Valid
# seeds are generated after the documented layouts (src/io/tput_gavel.c, tput_lucid.c); no
# CLI command loads them, so they are not checked with `ok`.
tput_gavel_seeds() {
    local d=$1
    # 3 GPU types and a spread section, 4 job types, scale factors 1-8, pairs of equal sizes
    awk 'BEGIN {
        nt = split("k80 p100 v100 v100_unconsolidated", ty, " ")
        nc = split("ResNet-50 (batch size 64)|LM (batch size 20)|A3C|CycleGAN", cl, "|")
        printf "{"
        for (t = 1; t <= nt; t++) {
            printf "%s\n    \"%s\": {", (t > 1 ? "," : ""), ty[t]; first = 1
            for (c = 1; c <= nc; c++)
                for (s = 1; s <= 8; s *= 2) {
                    if (c > 2 && s > 1) continue
                    printf "%s\n        \"(\047%s\047, %d)\": {", (first ? "" : ","), cl[c], s; first = 0
                    printf "\"null\": %.15g", (t == 1 && c == 1 && s > 1) ? 0 : (t * 7 + c * 3 + s) / 3.0
                    for (p = 1; p <= nc; p++)
                        if (p <= 2 || s == 1)
                            printf ", \"(\047%s\047, %d)\": [%.15g, %.15g]", cl[p], s, (c + p) / 7.0, (c * p) / 9.0
                    printf "}"
                }
            printf "\n    }"
        }
        print "\n}" }' >"$d/ok-gen"
    printf '{"v100": {"(\047A (batch size 8)\047, 1)": {"null": 4.0, "(\047A (batch size 8)\047, 1)": [1.0, 1.0], "(\047B\047, 1)": [3.0, 2.0]}, "(\047B\047, 1)": {"(\047A (batch size 8)\047, 1)": [2.0, 3.0], "null": 8, "(\047B\047, 1)": [0.0, 0.0]}, "(\047A (batch size 8)\047, 4)": {"null": 10.5}}, "v100_unconsolidated": {"(\047A (batch size 8)\047, 2)": {"null": 5}}, "K80": {"(\047A (batch size 8)\047, 2)": {"null": 0.0}}}\n' >"$d/ok-sample"
    printf '\xef\xbb\xbf{"t": {"(\047x\047, 1000000)": {"null": 1e300}}}' >"$d/ok-bom-big"
    printf '{"v100": {"(\047A\047, 1)": {"null": -1}}}' >"$d/bad-negative"
    printf '{"v100": {"(\047A\047, 1)": {"null": 1, "(\047B\047, 1)": [1, 2, 3]}}}' >"$d/bad-pair"
    printf '{"v100": {"(\047A\047, 01)": {"null": 1}}, "V100": {}}' >"$d/bad-key"
    printf '{"v100": {}, "v100": {}}' >"$d/bad-duplicate"
    printf '{"_unconsolidated": {"(\047A\047, 1)": {}}}' >"$d/bad-type"
    printf '[1, {"a": [null, true, "x"]}]' >"$d/bad-array"
    : >"$d/empty"
    variants "$d/ok-gen" "$d" gen
    variants "$d/ok-sample" "$d" sample
}

tput_lucid_seeds() {
    local d=$1
    # every pair of a few job kinds, as Lucid's profiler wrote them (with its index column)
    awk 'BEGIN {
        n = split("ResNet18 CIFAR-10|MobileNetV3 ImageNet|PointNet ShapeNet|DCGAN LSUN|PPO LunarLander", j, "|")
        print ",model1,dataset1,gpu_num1,batchsize1,amp1,speed1,model2,dataset2,gpu_num2,batchsize2,amp2,speed2,gpu_util,gmem_util,gmem"
        r = 0
        for (a = 1; a <= n; a++) for (b = a; b <= n; b++) for (bs = 32; bs <= 128; bs *= 2) {
            split(j[a], x, " "); split(j[b], y, " ")
            printf "%d,%s,%s,1,%d,%d,%.3f,%s,%s,1,%d,%d,%.3f,%.3f,%.3f,%d\n", r, x[1], x[2], bs, r % 2, 0.5 + (r % 7) / 10, y[1], y[2], bs, (r / 2) % 2, 0.4 + (r % 5) / 8, 30 + r % 50, 10 + r % 20, 2000 + 37 * r
            r++
        } }' >"$d/ok-gen"
    printf 'model1,dataset1,gpu_num1,batchsize1,amp1,speed1,model2,dataset2,gpu_num2,batchsize2,amp2,speed2\r\nVGG,CIFAR-10,1,064,0,1e-3,VGG,CIFAR-10,1,64,0,1.5\r\n\r\n"Bi,LSTM",Wikitext2,1,32,1,0.9,NeuMF,MovieLens,1,128,0,0.95\r\n' >"$d/ok-sample"
    printf '\xef\xbb\xbfspeed2,amp2,batchsize2,gpu_num2,dataset2,model2,speed1,amp1,batchsize1,gpu_num1,dataset1,model1\n1,0,8,1,d,m,1,0,8,1,d,m\n' >"$d/ok-reordered"
    printf ',model1,dataset1,gpu_num1,batchsize1,amp1,speed1,model2,dataset2,gpu_num2,batchsize2,amp2,speed2\n0,a/b,d,1,1,0,1,m,d,1,1,0,1\n1,m,d,2,1,0,1,m,d,1,1,0,1\n2,m,d,1,1,0,0,m,d,1,1,0,1\n3,m,d,1,1,0,1,m,d,1,1,0\n' >"$d/bad-rows"
    printf 'model1,dataset1,gpu_num1,batchsize1,amp1,speed1,model2,dataset2,gpu_num2,batchsize2,amp2\n' >"$d/bad-header"
    printf 'model1,model1\n' >"$d/dup-column"
    : >"$d/empty"
    variants "$d/ok-gen" "$d" gen
    variants "$d/ok-sample" "$d" sample
}

dict() {
    local f=$1
    shift
    printf '"%s"\n' , '\x0a' '\x0d\x0a' '\"' '\"\"' '0' '1' '-1' '0.5' '1e300' '99999999999999999999' \
        '\xef\xbb\xbf' '\xff' "$@" >"$f"
}

# seeds FORMAT DIR: writes FORMAT's seeds into DIR and its dictionary as DIR/../dict
seeds() {
    local fmt=$1 d=$2 f
    case $fmt in
    native)
        native_seeds "$d"
        dict "$d/../dict" job_id arrival_s duration_s num_gpus job_type total_steps user queue \
            gpu_type min_gpus max_gpus gpu_share gpu_mem_mib priority single_server cpus \
            mem_mib x_ true false '|'
        ;;
    philly-pollux)
        philly_pollux_seeds "$d"
        dict "$d/../dict" timestamp duration num_gpus gpu_time cluster '2017-10-09 07:01:55' \
            ':' '-' ' '
        ;;
    tiresias)
        tiresias_seeds "$d"
        dict "$d/../dict" job_id num_gpu submit_time iterations model_name duration interval \
            vgg19 resnet50
        ;;
    pollux)
        pollux_seeds "$d"
        dict "$d/../dict" name time application num_replicas batch_size duration cifar10 \
            imagenet bert ncf
        ;;
    gavel)
        gavel_seeds "$d"
        dict "$d/../dict" '\x09' 'ResNet-50 (batch size 64)' 'LM (batch size 20)' CycleGAN A3C \
            'Transformer (batch size 128)' 'Recommendation (batch size 8192)' ' (batch size ' \
            '-1.000000' '%s' gns accordion
        ;;
    philly)
        philly_seeds "$d"
        # shellcheck disable=SC1003 # libFuzzer's escapes, not the shell's
        dict "$d/../dict" '[' ']' '{' '}' ':' '\\' '\\u00e9' null '\"None\"' '\"jobid\": ' \
            '\"vc\": ' '\"user\": ' '\"status\": ' '\"submitted_time\": ' '\"attempts\": ' \
            '\"start_time\": ' '\"end_time\": ' '\"detail\": ' '\"ip\": ' '\"gpus\": ' \
            '\"2017-10-01 00:00:00\"' '\"gpu0\"'
        ;;
    helios)
        helios_seeds "$d"
        dict "$d/../dict" job_id user vc gpu_num cpu_num node_num state submit_time start_time \
            end_time duration queue COMPLETED CANCELLED '2020-06-09 18:41:01'
        ;;
    acme)
        acme_seeds "$d"
        dict "$d/../dict" job_id user node_num gpu_num cpu_num type state submit_time \
            start_time end_time duration queue gpu_time mem_per_pod_GB shared_mem_per_pod \
            fail_time stop_time '2023-03-01 00:18:22+08:00' '+00:00' '+08:00' '-05:30' Z
        ;;
    openb)
        openb_seeds "$d"
        dict "$d/../dict" name cpu_milli memory_mib num_gpu gpu_milli gpu_spec qos pod_phase \
            creation_time deletion_time scheduled_time nan '|' V100M16 LS BE Running
        ;;
    pai2020)
        pai2020_seeds "$d"
        dict "$d/../dict" '--\x0a' '\x0a--\x0a' job_name inst_id task_name inst_num plan_cpu \
            plan_mem plan_gpu gpu_type Terminated Failed Running worker ps MISC CPU V100 T4 \
            '.0'
        ;;
    tput-gavel)
        tput_gavel_seeds "$d"
        dict "$d/../dict" '{' '}' '[' ']' ':' '\"null\": ' '\"v100\"' '\"k80_unconsolidated\"' \
            "('" "', " "', 1)" "', 8)" '(batch size ' '1e-300' '-0.0' true null
        return
        ;;
    tput-lucid)
        tput_lucid_seeds "$d"
        dict "$d/../dict" model1 dataset1 gpu_num1 batchsize1 amp1 speed1 model2 dataset2 \
            gpu_num2 batchsize2 amp2 speed2 gpu_util / ResNet18 CIFAR-10 0.983
        return
        ;;
    *) # auto, or a format this script does not know yet: every one-file seed we can make
        local other
        for other in native philly-pollux tiresias pollux gavel philly helios acme openb; do
            mkdir -p "$TMP/all/$other/seed"
            FMT=$other
            seeds "$other" "$TMP/all/$other/seed"
            FMT=$fmt
            for f in "$TMP/all/$other/seed"/*; do cp "$f" "$d/$other-${f##*/}"; done
            cat "$TMP/all/$other/dict" >>"$TMP/all/dict"
        done
        sort -u "$TMP/all/dict" >"$d/../dict"
        rm -rf "$TMP/all"
        [ "$fmt" = auto ] || echo "make_corpus.sh: no seeds of its own for '$fmt' yet; using all" >&2
        return
        ;;
    esac
    for f in "$d"/ok-*; do
        # pai2020's valid seeds were checked as two tables before they were joined
        [ "$fmt" = pai2020 ] || ok "$f"
    done
}

# formats the registry has that no fuzzer was asked for
for f in $("$BERTH" trace formats); do
    case " $* " in
    *" $f "*) ;;
    *) echo "make_corpus.sh: warning: format '$f' has no fuzzer (add it to BERTH_FUZZ_FORMATS)" >&2 ;;
    esac
done

for fmt in "$@"; do
    dir="$OUT/$fmt"
    rm -rf "$dir/seed"
    mkdir -p "$dir/seed" "$dir/work" "$dir/artifacts"
    FMT=$fmt
    NBAD=0
    seeds "$fmt" "$dir/seed"
    echo "$fmt: $(find "$dir/seed" -type f | wc -l) seeds in $dir/seed$([ $NBAD = 0 ] || echo " ($NBAD valid seeds do not load)")"
done
