#!/usr/bin/env bash
# berthd's Slurm executor places by Slurm's own topology (issue 36): the mini cluster runs
# TopologyPlugin=topology/tree (tests/slurm/cluster.sh, BERTH_SLURM_TOPOLOGY=tree) with the
# leaf switches r1 (n1 V100x4, n3 A100x8) and r2 (n2 V100x4, n4 A100x8) under spine. berthd
# reads `scontrol show topology` at start (leaf = rack, its parent = block), so that
#   - GET /v1/nodes gives each node its leaf switch as rack and spine as block;
#   - an 8-GPU V100 job with topology rack waits with reason Topology: each leaf has 4 V100;
#   - an 8-GPU V100 job with topology block runs on n1 and n2 (both under spine), ranks in
#     order in BERTH_RANK_HOSTS (n1 four times, then n2), and Slurm's job holds exactly those
#     nodes (squeue's node list): Slurm keeps the nodes berth gives it;
#   - with 4 A100 idle on n3 (r1) and 4 on n4 (r2), an 8-GPU A100 job with topology rack
#     waits with reason Topology, and starts on one node once one frees;
#   - sbatch --switches=1 jobs are adopted with topology rack when a rack can hold them, and
#     with topology_preferred rack (logged) when none can;
#   - the same 8-GPU V100 job with topology_preferred rack (no rack holds it) still runs,
#     spanning the block.
# Skips, saying why, without Slurm or libslurm or root, unless BERTH_REQUIRE names slurm.
# Usage: bash tests/berthd_slurm_topology.sh BERTH SRC_DIR SHARED_DIR BERTHD
set -u
BERTH=${1:?usage: berthd_slurm_topology.sh BERTH SRC SHARED BERTHD}
SRC=${2:?usage: berthd_slurm_topology.sh BERTH SRC SHARED BERTHD}
. "$SRC/tests/cli_lib.sh"
. "$SRC/tests/lib_berthd.sh"
. "$SRC/tests/slurm/require.sh"
slurm_require berthd_slurm_topology "$(dirname "$BERTH")/tests/slurm_api_test"

export BERTH_SLURM_TOPOLOGY=tree
slurm_berthd_cluster
scontrol show topology >"$W/topo.txt" 2>&1
grep -q "SwitchName=spine" "$W/topo.txt" && ok "slurmctld runs topology/tree (scontrol show topology)" ||
    bad "scontrol show topology: $(head -c 300 "$W/topo.txt")"

start_berthd --executor slurm --policy fifo --slurm-partitions gpu
has "$W/berthd.log" "slurm topology: 3 switches or blocks; 4 of 4 nodes in a rack or block" \
    "berthd reads Slurm's topology: every node in a rack"
for nrb in n1:r1:spine n2:r2:spine n3:r1:spine n4:r2:spine; do
    IFS=: read -r n r b <<<"$nrb"
    got="$(node_field "$n" rack):$(node_field "$n" block)"
    [ "$got" = "$r:$b" ] && ok "GET /v1/nodes: $n is in rack $r, block $b" ||
        bad "$n: rack:block $got, expected $r:$b"
done

# a rack has 4 V100: 8 of them in one rack can never be had, so berth refuses it at submission
# or leaves it waiting with reason Topology (both keep it off Slurm)
hosts_job() { # hosts_job NAME [FILE]: an argv writing the ranks' hosts, then waiting for $J/FILE (go)
    echo '"argv":["sh","-c","echo \"$BERTH_RANK_HOSTS\" >'"$J/$1"'.hosts; until [ -e '"$J/${2:-go}"' ]; do sleep 0.1; done"],"cwd":"'"$J"'"'
}
api POST /v1/jobs '{'"$(hosts_job r)"',"gpus":8,"gpu_type":"v100","topology":"rack"}' >/dev/null
case $(status) in
201)
    R=$(jf id)
    reason_is() { api GET "/v1/jobs/$R" "" "$ROOT" >/dev/null && [ "$(jf reason)" = Topology ]; }
    wait_for 60 "job $R's reason Topology" reason_is &&
        ok "8 V100 with topology rack wait, reason Topology: $(jf why)"
    [ "$(jf state)" = pending ] && ok "and stay pending" || bad "state $(jf state)"
    api POST "/v1/jobs/$R/cancel" "" >/dev/null
    ;;
400) ok "8 V100 with topology rack are refused: $(head -c 200 "$W/body")" ;;
*) bad "8 V100 with topology rack: $(status) $(head -c 300 "$W/body")" ;;
esac

B=$(submit '{'"$(hosts_job b)"',"gpus":8,"gpu_type":"v100","topology":"block"}')
wait_state "$B" running 60
wait_for 60 "job $B's hosts file" test -s "$J/b.hosts"
[ "$(cat "$J/b.hosts")" = "n1,n1,n1,n1,n2,n2,n2,n2" ] &&
    ok "8 V100 with topology block run on n1 and n2, ranks in order" ||
    bad "BERTH_RANK_HOSTS: $(cat "$J/b.hosts")"
sid=$(field "$B" slurm_job)
[ "$(sq "$sid" %N)" = "n[1-2]" ] && ok "Slurm's job $sid holds exactly n[1-2]" ||
    bad "squeue nodes of $sid: $(sq "$sid" '%N %T %r')"
[ "$(field "$B" span)" = block ] && ok "berth says it spans a block" || bad "span $(field "$B" span)"
touch "$J/go"
wait_final "$B"
[ "$(state_of "$B")" = completed ] && ok "it completes" || bad "B: $(state_of "$B")"

# a wait for a rack: three 4-GPU A100 jobs fill one A100 node and half the other; one of the
# full node's ends: 8 A100 are idle (4 on n3 in r1, 4 on n4 in r2) but no rack has 8, so an
# 8-GPU A100 job with topology rack waits, reason Topology, off Slurm
rm -f "$J/go"
wj() { echo '"argv":["sh","-c","until [ -e '"$J/$1"' ]; do sleep 0.1; done"],"cwd":"'"$J"'","gpus":4,"gpu_type":"a100"'; }
X1=$(submit "{$(wj go)}") X2=$(submit "{$(wj go)}") X3=$(submit "{$(wj go)}")
for x in $X1 $X2 $X3; do wait_state "$x" running 60; done
on() { field "$1" servers; }
cut=
full=$(for x in $X1 $X2 $X3; do on "$x"; echo; done | sort | uniq -c | awk '$1 == 2 {print $2}')
for x in $X1 $X2 $X3; do [ "$(on "$x")" = "$full" ] && cut=$x; done
[ -n "$cut" ] && ok "three 4-GPU A100 jobs: two share $full" || bad "servers: $(on "$X1") $(on "$X2") $(on "$X3")"
api POST "/v1/jobs/$cut/cancel" "" >/dev/null
wait_final "$cut"
# T waits for its own file: were it the X jobs' go, T could start and end between two polls
T=$(submit '{'"$(hosts_job t tgo)"',"gpus":8,"gpu_type":"a100","topology":"rack"}')
treason() { api GET "/v1/jobs/$T" "" "$ROOT" >/dev/null && [ "$(jf reason)" = Topology ]; }
wait_for 60 "job $T's reason Topology" treason &&
    ok "8 A100 with topology rack wait, reason Topology: $(jf why)"
has "$W/body" "at most 4 of them in one rack" "why says the most one rack has"
[ "$(jf state)" = pending ] && [ -z "$(jf slurm_job | sed 's/None//')" -o "$(sq "$(jf slurm_job)" %T)" != RUNNING ] &&
    ok "it is pending, not running in Slurm" || bad "T: $(jf state) slurm $(jf slurm_job)"
touch "$J/go"
wait_state "$T" running 60
case $(field "$T" servers) in '["n3"]' | '["n4"]') ok "it starts within one rack once one frees: $(field "$T" servers)" ;;
*) bad "T on $(field "$T" servers)" ;; esac
rm -f "$J/go"
touch "$J/tgo"
for x in $X1 $X2 $X3 $T; do wait_final "$x"; done

P=$(submit '{'"$(hosts_job p)"',"gpus":8,"gpu_type":"v100","topology_preferred":"rack"}')
wait_state "$P" running 60
[ "$(field "$P" span)" = block ] && ok "preferred rack (none holds 8 V100): runs spanning the block" ||
    bad "P: span $(field "$P" span) state $(state_of "$P")"
touch "$J/go"
wait_final "$P"

# sbatch --switches=1 (held by job_submit.lua, adopted): the gang within one leaf switch. 8
# A100 over two nodes: a rack has 8 A100 (n3 in r1), so berth requires the rack and runs it
# on one node; 8 V100 over two nodes: no rack has 8 V100, so it is a preference, logged, and
# runs on n1 and n2
rm -f "$J/go"
sbs() { # sbs TYPE: an sbatch job of 2 nodes x 4 GPUs of TYPE with --switches=1
    (cd "$J" && sbatch --parsable -D "$J" -o "$J/sw-$1.out" -J "sw-$1" -N2 --gres="gpu:$1:4" \
        --switches=1 --wrap "until [ -e $J/go ]; do sleep 0.1; done" 2>>"$W/err")
}
for t in a100 v100; do
    sid=$(sbs $t)
    [ -n "$sid" ] || bad "sbatch $t: $(cat "$W/err")"
    wait_for 60 "berthd to adopt Slurm job $sid" is_adopted "$sid"
    id=$(adopted "$sid")
    api GET "/v1/jobs/$id" "" "$ROOT" >/dev/null
    if [ $t = a100 ]; then
        [ "$(jf topology)" = rack ] && ok "sbatch --switches=1, 8 A100: required rack" ||
            bad "a100 switches job: topology $(jf topology) $(head -c 300 "$W/body")"
    else
        [ "$(jf topology)" = None ] && [ "$(jf topology_preferred)" = rack ] &&
            ok "sbatch --switches=1, 8 V100 (no rack holds them): rack preferred" ||
            bad "v100 switches job: $(jf topology)/$(jf topology_preferred)"
        has "$W/berthd.log" "Slurm job $sid: --switches=1 is a preference: topology:" "the log says why"
    fi
    wait_state "$id" running 60
    if [ $t = a100 ]; then
        case $(field "$id" servers) in '["n3"]' | '["n4"]') ok "the A100 gang runs within a rack: $(field "$id" servers)" ;;
        *) bad "the A100 gang on $(field "$id" servers)" ;; esac
    else
        slurm_runs() { [ "$(sq "$sid" %T)" = RUNNING ]; }
        wait_for 30 "Slurm job $sid to run (not to wait for its switch)" slurm_runs
        [ "$(sq "$sid" %N)" = "n[1-2]" ] && ok "the V100 gang runs in Slurm on n[1-2], at once" ||
            bad "the V100 gang: $(sq "$sid" '%T %r %N')"
        scontrol show job "$sid" | grep -q "Switches=2" &&
            ok "its --switches raised to the 2 leaf switches berth placed it on" ||
            bad "switches: $(scontrol show job "$sid" | grep -o 'Switches=[^ ]*')"
    fi
    touch "$J/go"
    wait_final "$id"
    rm -f "$J/go"
done
stop_berthd
finish
