#!/usr/bin/env bash
# A Slurm 22.05 mini cluster on loopback for berth's Slurm tests: munged, slurmctld and four
# slurmd (-N) with fake typed GPUs, all under BASE_DIR; nothing system-wide is touched.
# Usage: tests/slurm/cluster.sh up|down|status BASE_DIR
#   up      writes BASE_DIR/etc (slurm.conf, gres.conf, job_submit.lua, cli_filter.lua),
#           starts the daemons, waits until the four nodes are idle; does nothing when the
#           cluster is already up
#   down    stops everything it started, by recorded pid, and the jobs' stray processes
#   status  says which daemons run; exit 0 only when all of them do
# Clients use the cluster with: export SLURM_CONF=BASE_DIR/etc/slurm.conf
# Env: BERTH_SLURM_PORT (default 26817): slurmctld's port; the nodes use the next four.
#      "auto": five free consecutive ports from 20000-32000, below Linux's ephemeral range
#      (a port the kernel gave a client or a listener on port 0 would make slurmctld fail)
#      BERTH_SLURM_TOPOLOGY=tree: TopologyPlugin=topology/tree with topology.conf's leaf
#      switches r1 (n1, n3) and r2 (n2, n4) under the switch spine (each leaf holds one V100
#      and one A100 node: a gang of one type over two nodes must cross leaves)
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
die() {
    echo "cluster.sh: $*" >&2
    exit 1
}
[ $# = 2 ] || die "usage: cluster.sh up|down|status BASE_DIR"
cmd=$1
mkdir -p "$2" || die "cannot create $2"
B=$(cd "$2" && pwd)
port=${BERTH_SLURM_PORT:-26817}
nodes="n1 n2 n3 n4"
conf=$B/etc/slurm.conf

# alive PID: the process exists and is not a zombie (PID 1 may reap late)
alive() {
    [ -n "$1" ] && [ -r "/proc/$1/stat" ] || return 1
    local st
    st=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
    [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}
pidof_file() { [ -r "$1" ] && tr -dc 0-9 <"$1"; }
pidfiles() {
    local n
    echo "$B/munge/munged.pid"
    echo "$B/run/slurmctld.pid"
    for n in $nodes; do echo "$B/run/slurmd-$n.pid"; done
}

status() {
    local f p all=0
    for f in $(pidfiles); do
        p=$(pidof_file "$f")
        if alive "$p"; then
            echo "running  $(basename "$f" .pid) (pid $p)"
        else
            echo "stopped  $(basename "$f" .pid)"
            all=1
        fi
    done
    return $all
}

# stop PID: TERM, then KILL after 3 s; returns when it is gone
stop() {
    local p=$1 i
    alive "$p" || return 0
    kill -TERM "$p" 2>/dev/null
    for i in $(seq 30); do
        alive "$p" || return 0
        sleep 0.1
    done
    kill -KILL "$p" 2>/dev/null
    for i in $(seq 20); do
        alive "$p" || return 0
        sleep 0.1
    done
    echo "cluster.sh: pid $p does not die" >&2
}

# the jobs' processes (slurmstepd and what it started) carry SLURM_CONF of this cluster
strays() {
    local f p
    for f in $(grep -lzxF "SLURM_CONF=$conf" /proc/[0-9]*/environ 2>/dev/null); do
        p=${f#/proc/}
        p=${p%/environ}
        [ "$p" = $$ ] && continue
        if [ "$({ cat "/proc/$p/comm"; } 2>/dev/null)" = slurmstepd ] ||
            { grep -qz '^SLURM_JOB_ID=' "$f"; } 2>/dev/null; then
            echo "$p"
        fi
    done
}

down() {
    local f p n
    p=$(pidof_file "$B/run/slurmctld.pid")
    stop "$p"
    for n in $nodes; do stop "$(pidof_file "$B/run/slurmd-$n.pid")"; done
    for p in $(strays); do kill -KILL "$p" 2>/dev/null; done
    stop "$(pidof_file "$B/munge/munged.pid")"
    for f in $(pidfiles); do rm -f "$f"; done
    n=$(strays | wc -l)
    [ "$n" = 0 ] || die "$n job processes of $conf survive"
    return 0
}

need() {
    local c
    for c in "$@"; do
        command -v "$c" >/dev/null 2>&1 || [ -x "/usr/sbin/$c" ] ||
            die "$c not found: install Slurm (apt-get install munge slurmctld slurmd slurm-client libslurm-dev)"
    done
}

# A base port whose five ports nobody holds, from a random start in 20000-32000.
free_base() {
    python3 - <<'PY'
import random, socket
for _ in range(500):
    b = random.randrange(20000, 32000 - 5)
    taken = False
    for p in range(b, b + 5):
        s = socket.socket()
        try:
            s.bind(("0.0.0.0", p))
        except OSError:
            taken = True
        s.close()
        if taken:
            break
    if not taken:
        print(b)
        break
PY
}

write_config() {
    local me uid n i proctrack=proctrack/linuxproc
    if [ "$port" = auto ]; then
        port=$(free_base)
        [ -n "$port" ] || die "no five free ports in 20000-32000"
    fi
    me=$(id -un)
    uid=$(id -u)
    # cgroup v1's freezer kills a job's whole tree; linuxproc lets children forked during a
    # kill at launch escape (the job then stays COMPLETING while they live)
    if [ "$uid" = 0 ] && [ -d /sys/fs/cgroup/freezer ] && [ -w /sys/fs/cgroup/freezer ]; then
        proctrack=proctrack/cgroup
    fi
    mkdir -p "$B/etc" "$B/state" "$B/run" "$B/log" "$B/spool" "$B/munge" "$B/jobs"
    for n in $nodes; do
        mkdir -p "$B/dev/$n" "$B/spool/$n"
        for i in 0 1 2 3 4 5 6 7; do ln -sfn /dev/null "$B/dev/$n/nvidia$i"; done
    done
    chmod 1777 "$B/jobs"
    cat >"$conf" <<EOF
# written by berth's tests/slurm/cluster.sh: a private mini cluster on loopback
ClusterName=berthtest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$port
SlurmUser=$me
SlurmdUser=$me
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$B/munge/munge.socket.2
StateSaveLocation=$B/state
SlurmdSpoolDir=$B/spool/%n
SlurmctldPidFile=$B/run/slurmctld.pid
SlurmdPidFile=$B/run/slurmd-%n.pid
SlurmctldLogFile=$B/log/slurmctld.log
SlurmdLogFile=$B/log/slurmd-%n.log
SlurmdParameters=config_overrides
CommunicationParameters=NoInAddrAny
ProctrackType=$proctrack
TaskPlugin=task/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
GresTypes=gpu,mps,shard
SchedulerType=sched/builtin
SchedulerParameters=batch_sched_delay=0
$([ "${BERTH_SLURM_TOPOLOGY:-}" = tree ] && echo "TopologyPlugin=topology/tree")
JobSubmitPlugins=lua
CliFilterPlugins=lua
MailProg=/bin/true
ReturnToService=2
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MaxJobCount=50000
MinJobAge=300
# SIGTERM to SIGKILL on a cancel or requeue (Slurm's default is 30 s): the checkpoint grace
# berthd's slurm executor gives jobs, and the longest a cancelled job may stay COMPLETING
KillWait=5
NodeName=n1 NodeHostname=localhost NodeAddr=127.0.0.1 Port=$((port + 1)) CPUs=8 RealMemory=16000 Gres=gpu:v100:4 Features=v100,gpu
NodeName=n2 NodeHostname=localhost NodeAddr=127.0.0.1 Port=$((port + 2)) CPUs=8 RealMemory=16000 Gres=gpu:v100:4 Features=v100,gpu
NodeName=n3 NodeHostname=localhost NodeAddr=127.0.0.1 Port=$((port + 3)) CPUs=16 RealMemory=32000 Gres=gpu:a100:8,mps:800 Features=a100,gpu
NodeName=n4 NodeHostname=localhost NodeAddr=127.0.0.1 Port=$((port + 4)) CPUs=16 RealMemory=32000 Gres=gpu:a100:8,shard:32 Features=a100,gpu
PartitionName=gpu Nodes=n[1-4] Default=YES MaxTime=INFINITE State=UP
# for berthd --slurm-partitions (tests/berthd_slurm_ops.sh): berth schedules one, Slurm the other
PartitionName=v100 Nodes=n[1-2] MaxTime=INFINITE State=UP
PartitionName=a100 Nodes=n[3-4] MaxTime=INFINITE State=UP
EOF
    cat >"$B/etc/cgroup.conf" <<EOF
CgroupPlugin=cgroup/v1
CgroupMountpoint=/sys/fs/cgroup
ConstrainCores=no
ConstrainRAMSpace=no
ConstrainDevices=no
EOF
    cat >"$B/etc/gres.conf" <<EOF
AutoDetect=off
NodeName=n1 Name=gpu Type=v100 File=$B/dev/n1/nvidia[0-3]
NodeName=n2 Name=gpu Type=v100 File=$B/dev/n2/nvidia[0-3]
NodeName=n3 Name=gpu Type=a100 File=$B/dev/n3/nvidia[0-7]
NodeName=n3 Name=mps Count=800 File=$B/dev/n3/nvidia[0-7]
NodeName=n4 Name=gpu Type=a100 File=$B/dev/n4/nvidia[0-7]
NodeName=n4 Name=shard Count=32 File=$B/dev/n4/nvidia[0-7]
EOF
    case ${BERTH_SLURM_TOPOLOGY:-} in
    tree) printf '%s\n' '# written by tests/slurm/cluster.sh (BERTH_SLURM_TOPOLOGY=tree)' \
        'SwitchName=r1 Nodes=n1,n3' 'SwitchName=r2 Nodes=n2,n4' 'SwitchName=spine Switches=r1,r2' \
        >"$B/etc/topology.conf" ;;
    "") rm -f "$B/etc/topology.conf" ;;
    *) die "BERTH_SLURM_TOPOLOGY=${BERTH_SLURM_TOPOLOGY}: expected tree or nothing" ;;
    esac
    cp "$src/contrib/slurm/job_submit.lua" "$B/etc/job_submit.lua"
    cp "$src/contrib/slurm/cli_filter.lua" "$B/etc/cli_filter.lua"
    echo "$uid" >"$B/etc/berth_admin_uids.txt"
}

start_munge() {
    local key=$B/munge/munge.key run=()
    if [ "$(id -u)" = 0 ]; then
        id munge >/dev/null 2>&1 || die "user munge missing (install the munge package)"
        run=(runuser -u munge --)
    fi
    if [ ! -s "$key" ]; then
        dd if=/dev/urandom of="$key" bs=1024 count=1 status=none || die "cannot write $key"
    fi
    chmod 0711 "$B/munge"
    chmod 0400 "$key"
    if [ "$(id -u)" = 0 ]; then
        chown -R munge: "$B/munge"
        runuser -u munge -- test -x "$B/munge" ||
            die "user munge cannot reach $B/munge: make every folder above it searchable (chmod o+x)"
    fi
    "${run[@]}" /usr/sbin/munged --socket="$B/munge/munge.socket.2" --key-file="$key" \
        --pid-file="$B/munge/munged.pid" --log-file="$B/munge/munged.log" \
        --seed-file="$B/munge/munged.seed" ||
        die "munged did not start (see $B/munge/munged.log)"
}

# wait_for SECONDS WHAT COMMAND...: polls every 0.05 s
wait_for() {
    local t=$1 what=$2 i
    shift 2
    for i in $(seq $((t * 20))); do
        "$@" >/dev/null 2>&1 && return 0
        sleep 0.05
    done
    die "$what within $t s (logs in $B/log)"
}
all_idle() {
    local s
    s=$(sinfo -h -N -o '%N %t' 2>/dev/null | sort -u) || return 1
    [ "$(echo "$s" | grep -c ' idle$')" = 4 ]
}

up() {
    need munged slurmctld slurmd scontrol sinfo
    # slurmd 24.11 binds its port at this machine's own name, whatever NodeAddr says; a root
    # made by debootstrap (a chroot, a container) has no /etc/hosts line for it
    getent hosts "$(hostname)" >/dev/null ||
        die "this machine's name $(hostname) does not resolve (slurmd 24.11 binds to it): add \"127.0.0.1 $(hostname)\" to /etc/hosts (127.0.0.1, the nodes' NodeAddr: at 127.0.1.1 slurmctld cannot reach them and jobs never launch nor finish)"
    if status >/dev/null; then
        echo "cluster.sh: already up in $B"
        return 0
    fi
    down >/dev/null 2>&1
    write_config
    export SLURM_CONF=$conf
    start_munge
    wait_for 30 "munged did not answer" test -S "$B/munge/munge.socket.2"
    /usr/sbin/slurmctld -c || die "slurmctld did not start (see $B/log/slurmctld.log)"
    wait_for 60 "slurmctld did not answer" scontrol ping
    local n
    for n in $nodes; do
        /usr/sbin/slurmd -N "$n" || die "slurmd $n did not start (see $B/log/slurmd-$n.log)"
    done
    wait_for 60 "the four nodes were not idle" all_idle
    echo "cluster.sh: up in $B (export SLURM_CONF=$conf)"
}

case $cmd in
up) up ;;
down) down && echo "cluster.sh: down in $B" ;;
status) status ;;
*) die "unknown command '$cmd': up|down|status" ;;
esac
