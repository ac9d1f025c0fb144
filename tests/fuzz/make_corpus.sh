#!/usr/bin/env bash
# Makes the fuzzers' seed corpora: for each format, small valid files (from `berth gen` and by
# hand) and broken variants of them (truncated, bad numbers, wrong widths, stray bytes), plus
# a libFuzzer dictionary. Everything is generated here; nothing is copied from elsewhere.
# Usage: bash tests/fuzz/make_corpus.sh PATH/TO/berth OUTDIR FORMAT...
#   writes OUTDIR/FORMAT/{seed/,dict} and makes OUTDIR/FORMAT/{work,artifacts}/
set -eu
BERTH=${1:?usage: make_corpus.sh BERTH OUTDIR FORMAT...}
OUT=${2:?usage: make_corpus.sh BERTH OUTDIR FORMAT...}
shift 2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# variants SRC DIR NAME: broken copies of the valid file SRC as DIR/NAME-*
variants() {
    local src=$1 dir=$2 name=$3 size
    size=$(wc -c <"$src")
    head -c $((size / 2)) "$src" >"$dir/$name-half"
    head -c $((size - 1)) "$src" >"$dir/$name-lastbyte"
    head -n 1 "$src" >"$dir/$name-header-only"
    tail -n +2 "$src" >"$dir/$name-no-header"
    sed '2s/[0-9][0-9]*/1e300/' "$src" >"$dir/$name-1e300"
    sed '2s/[0-9][0-9]*/-5/' "$src" >"$dir/$name-neg"
    sed '2s/[0-9][0-9]*/99999999999999999999/' "$src" >"$dir/$name-huge"
    sed '2s/[0-9]/x/' "$src" >"$dir/$name-letter"
    sed '2s/$/,extra/' "$src" >"$dir/$name-wide"
    sed '2s/,[^,]*$//' "$src" >"$dir/$name-narrow"
    sed '2s/,/,"/' "$src" >"$dir/$name-quote"
    sed '2s/,/,\xff\xfe\xc3/' "$src" >"$dir/$name-bytes"
    sed "2s/,[^,]*\$/,$(printf 'x%.0s' $(seq 300))/" "$src" >"$dir/$name-long-field"
    sed 's/$/\r/' "$src" >"$dir/$name-crlf"
    { printf '\xef\xbb\xbf'; cat "$src"; } >"$dir/$name-bom"
    { head -n 2 "$src"; printf '\n\n'; tail -n +3 "$src"; } >"$dir/$name-blank"
    { cat "$src"; sed -n 2p "$src"; } >"$dir/$name-dup"
}

native_seeds() {
    local d=$1
    "$BERTH" gen --profile gavel --jobs 5 --seed 1 --out "$d/gen-gavel"
    "$BERTH" gen --profile philly --jobs 8 --seed 2 --out "$d/gen-philly"
    printf 'job_id,arrival_s,duration_s,num_gpus,job_type,total_steps,user,queue,gpu_type,min_gpus,max_gpus,gpu_share,gpu_mem_mib,priority,single_server\n"j,1",0.000001,1.5,4,"bert ""large""",100,u,q,v100|a100,2,8,1,16384,-3,1\nj2,7,0.25,1,,,,,,,,0.125,,,\nj3,8,3600,2,resnet,,alice,vc1,k80,,,,,5,false\n' >"$d/all-columns"
    printf 'num_gpus,x_note,duration_s,job_id,arrival_s\n1,"multi\nline",10,a,0\n8,,20.5,b,1.25\n' >"$d/reordered"
    printf 'job_id,arrival_s,duration_s,num_gpus,gpu_share\n1,0,1,1,0.5\n2,0,1,2,1\n3,1,2,1,1.0\n' >"$d/share"
    printf 'job_id,arrival_s,duration_s,num_gpus\n1,0,0,1\n2,-1,1,1\n3,0,1,0\n4,1e12,1,1\n5,0,1,1000001\n' >"$d/bad-rows"
    printf 'job_id,arrival_s,duration_s,bogus\n1,0,1,1\n' >"$d/bad-header"
    printf 'job_id,job_id,arrival_s,duration_s,num_gpus\n' >"$d/dup-column"
    : >"$d/empty"
    variants "$d/gen-philly" "$d" gen-philly
    variants "$d/all-columns" "$d" all-columns
}

philly_seeds() {
    local d=$1
    "$BERTH" gen --profile philly --jobs 8 --seed 3 --out "$TMP/p.csv"
    # the generated jobs as Philly rows, submitted from 2017-10-01 (one day of arrivals)
    awk -F, 'NR == 1 { print "timestamp,duration,num_gpus,gpu_time,cluster"; next }
        { a = int($2) % (27 * 86400); d = 1 + int(a / 86400); a %= 86400
          printf "2017-10-%02d %02d:%02d:%02d,%s.0,%s,%s.0,%s\n", d, a / 3600, (a / 60) % 60,
              a % 60, $3, $4, $3 * $4, $5 }' "$TMP/p.csv" >"$d/gen-philly"
    printf 'timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-09 07:01:55,66.0,1,66.0,11cb48\n2017-10-09 06:13:03,2951.5,2,5903.0,6214e9\n2017-12-31 23:59:59,0.5,128,64.0,103959\n' >"$d/unsorted"
    printf 'timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-09T07:01:55,1e3,4,4000,vc\n2017-02-30 07:01:55,1,1,1,vc\n2017-10-09 25:00:00,1,1,1,vc\n2017-10-09 07:01:55,0,1,0,vc\n2017-10-09 07:01:55,5,0,0,vc\n' >"$d/bad-rows"
    printf 'timestamp,duration,gpus,gpu_time,cluster\n2017-10-09 07:01:55,66.0,1,66.0,11cb48\n' >"$d/bad-header"
    : >"$d/empty"
    variants "$d/gen-philly" "$d" gen-philly
    variants "$d/unsorted" "$d" unsorted
}

dict() {
    local f=$1
    shift
    printf '"%s"\n' , '\x0a' '\x0d\x0a' '\"' '\"\"' '0' '1' '-1' '0.5' '1e300' '99999999999999999999' \
        '\xef\xbb\xbf' '\xff' "$@" >"$f"
}

for fmt in "$@"; do
    dir="$OUT/$fmt"
    rm -rf "$dir/seed"
    mkdir -p "$dir/seed" "$dir/work" "$dir/artifacts"
    case $fmt in
    native)
        native_seeds "$dir/seed"
        dict "$dir/dict" job_id arrival_s duration_s num_gpus job_type total_steps user queue \
            gpu_type min_gpus max_gpus gpu_share gpu_mem_mib priority single_server x_ true false
        ;;
    philly-pollux)
        philly_seeds "$dir/seed"
        dict "$dir/dict" timestamp duration num_gpus gpu_time cluster '2017-10-09 07:01:55' \
            ':' '-' ' '
        ;;
    *) # auto, or a format this script does not know yet: every seed we can make
        mkdir -p "$TMP/n" "$TMP/p"
        native_seeds "$TMP/n"
        philly_seeds "$TMP/p"
        for f in "$TMP"/n/*; do cp "$f" "$dir/seed/native-${f##*/}"; done
        for f in "$TMP"/p/*; do cp "$f" "$dir/seed/philly-${f##*/}"; done
        rm -rf "$TMP/n" "$TMP/p"
        dict "$dir/dict" job_id arrival_s duration_s num_gpus gpu_share queue user timestamp \
            duration gpu_time cluster
        [ "$fmt" = auto ] || echo "make_corpus.sh: no seeds of its own for '$fmt' yet; using all" >&2
        ;;
    esac
    echo "$fmt: $(ls "$dir/seed" | wc -l) seeds in $dir/seed"
done
