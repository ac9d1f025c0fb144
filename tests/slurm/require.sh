# Sourced by the Slurm tests (tests/cli_slurm.sh, tests/berthd_slurm.sh) after cli_lib.sh:
# slurm_require NAME API checks what a mini cluster needs (the Slurm daemons and clients,
# berth's libslurm build whose test program is API, root) and otherwise skips test NAME
# saying why (CTest: skipped), or fails it where BERTH_REQUIRE names slurm (make test-slurm,
# CI), so that it cannot skip silently there.
slurm_skip() { # slurm_skip NAME WHY...
    local name=$1
    shift
    skip_test slurm "$name: $*"
}
slurm_require() { # slurm_require NAME API
    local c
    for c in munged slurmctld slurmd scontrol sbatch; do
        command -v "$c" >/dev/null 2>&1 || [ -x "/usr/sbin/$c" ] ||
            slurm_skip "$1" "$c not installed (apt-get install munge slurmctld slurmd slurm-client libslurm-dev)"
    done
    [ -x "$2" ] ||
        slurm_skip "$1" "$2 not built (libslurm 22.05 not found when configuring: apt-get install libslurm-dev, then rebuild)"
    [ "$(id -u)" = 0 ] || slurm_skip "$1" "the mini cluster runs jobs as other users and needs root"
}
# slurm_berthd_cluster: for the berthd tests (after lib_berthd.sh): brings up a mini cluster
# in $W/cluster ($C) on free ports, exports SLURM_CONF, makes the jobs' folder $J (Slurm runs
# them as root here), and on exit stops berthd and the cluster; a failed start fails the test
slurm_berthd_cluster() {
    export BERTH_SLURM_PORT=auto # five free ports below the ephemeral range
    C=$W/cluster
    chmod 0755 "$W"
    trap 'stop_berthd KILL; bash "$SRC/tests/slurm/cluster.sh" down "$C" >/dev/null; rm -rf "$W"' EXIT
    bash "$SRC/tests/slurm/cluster.sh" up "$C" >"$W/up.log" 2>&1 || {
        bad "cluster up: $(tail -5 "$W/up.log")"
        finish
        exit 1
    }
    export SLURM_CONF=$C/etc/slurm.conf
    J=$W/jobs
    mkdir -p "$J" && chmod 0777 "$J"
}
# The berthd Slurm tests' job helpers (after lib_berthd.sh). submit BODY: the new job's id;
# sq SLURM_ID FORMAT: squeue's fields of a Slurm job; notes ID: the job's history notes, one
# a line
submit() { api POST /v1/jobs "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])'; }
sq() { squeue -h -j "$1" -o "$2" 2>/dev/null; }
notes() {
    api GET "/v1/jobs/$1" "" "$ROOT" >/dev/null
    python3 -c 'import json,sys; [print(h["note"]) for h in json.load(open(sys.argv[1]))["history"]]' "$W/body"
}
# field ID FIELD: a field of berth's job ID; adopted SLURM_ID: berth's job id of the adopted
# Slurm job (empty: none yet); is_adopted SLURM_ID; over ID: the berth job has ended
field() { api GET "/v1/jobs/$1" "" "$ROOT" >/dev/null && jf "$2"; }
adopted() {
    api GET "/v1/jobs?all=1" "" "$ROOT" >/dev/null
    python3 -c 'import json,sys
for j in json.load(open(sys.argv[1]))["jobs"]:
    if j.get("slurm_job") == int(sys.argv[2]): print(j["id"])' "$W/body" "$1" 2>/dev/null
}
is_adopted() { [ -n "$(adopted "$1")" ]; }
over() { case $(field "$1" state) in completed | failed | cancelled | timeout) return 0 ;; esac; return 1; }
# state_of ID: berth job ID's state; final ID: it has ended; wait_final ID: waits (60 s) for
# that, saying where it stands if it does not; until_go FILE: an argv that waits for $J/FILE;
# node_field NODE FIELD: a field of GET /v1/nodes for one node
state_of() { api GET "/v1/jobs/$1" "" "$ROOT" >/dev/null && jf state; }
final() { case $(state_of "$1") in completed | failed | cancelled) return 0 ;; esac; return 1; }
wait_final() {
    wait_for 60 "job $1 to end" final "$1" ||
        echo "  job $1 is $(state_of "$1"); squeue: $(squeue -h -o '%i %T %r %N' | tr '\n' '|'); berthd: $(tail -5 "$W/berthd.log" | tr '\n' '|')"
}
until_go() { echo '"argv":["sh","-c","until [ -e '"$J/$1"' ]; do sleep 0.1; done"]'; }
node_field() {
    api GET /v1/nodes "" >/dev/null
    python3 -c 'import json,sys
for n in json.load(open(sys.argv[1]))["nodes"]:
    if n["name"] == sys.argv[2]: print(n[sys.argv[3]])' "$W/body" "$1" "$2"
}
