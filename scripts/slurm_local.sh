#!/bin/sh
# A one-node Slurm on this machine, for testing Sluice under srun
# (tests/boot/launch_srun.sh; docs/LAUNCHER.md, "Slurm"):
#   slurm_local.sh start DIR   set up munge + slurmctld + slurmd with all their
#                              state in DIR (created; must not exist or be empty)
#   slurm_local.sh stop DIR    stop the daemons started in DIR, by their PID
#                              files only, and remove DIR
#   slurm_local.sh env DIR     print the environment srun needs (SLURM_CONF=...)
# Needs root (SlurmUser=root) and Debian's slurm-wlm and munge
# (scripts/deps.sh).  Nothing outside DIR is touched: its own munge key and
# socket, its own slurm.conf, ports SLUICE_SLURM_PORT and the next one
# (default: chosen from the PID, so two runs side by side rarely collide).
# The node is this host with `nproc` CPUs, ProctrackType=proctrack/linuxproc
# and TaskPlugin=task/none (no cgroups needed).  Exit status 0 when the node
# is up (start) or everything is stopped (stop); otherwise the reason and the
# logs' last lines are printed, and start leaves nothing running.
set -u

die() {
    echo "slurm_local: $*" >&2
    exit 1
}

[ $# -eq 2 ] || die "usage: slurm_local.sh start|stop|env DIR"
cmd=$1
dir=$2
case $dir in /*) ;; *) dir=$(pwd)/$dir ;; esac
marker="$dir/.sluice-slurm-local"

# ---- stop: only the PIDs this script wrote, and only if they are still ours -------------
# The PID in DIR/<name>.pid when that process still runs <name> (a recycled
# PID belongs to someone else), else nothing.
our_pid() { # name
    pid=$(cat "$dir/$1.pid" 2>/dev/null) || return 0
    case $pid in '' | *[!0-9]*) return 0 ;; esac
    comm=$(cat "/proc/$pid/comm" 2>/dev/null) || return 0
    case $comm in "$1"*) echo "$pid" ;; esac
}

# TERM, up to 10 s to exit (each daemon takes 2-4 s), then KILL.
stop_pids() { # pid...
    [ $# -gt 0 ] || return 0
    kill -TERM "$@" 2>/dev/null
    i=0
    while [ $i -lt 100 ]; do
        alive=""
        for p in "$@"; do kill -0 "$p" 2>/dev/null && alive="$alive $p"; done
        [ -z "$alive" ] && return 0
        sleep 0.1
        i=$((i + 1))
    done
    # shellcheck disable=SC2086
    kill -KILL $alive 2>/dev/null
    return 0
}

# slurmstepd processes of this cluster (one per job step, forked by our
# slurmd; they inherit SLURM_CONF=DIR/slurm.conf).  A step still finishing
# when slurmd and slurmctld go away retries its completion message for
# minutes, so stop_all ends those too.
our_stepds() {
    for p in /proc/[0-9]*; do
        [ "$(cat "$p/comm" 2>/dev/null)" = slurmstepd ] || continue
        { tr '\0' '\n' < "$p/environ"; } 2>/dev/null | grep -qx "SLURM_CONF=$dir/slurm.conf" &&
            echo "${p#/proc/}"
    done
}

# Jobs first (up to 10 s for running steps to finish and report), then
# Slurm's daemons and any step left, then munge, which they use until they exit.
stop_all() {
    if [ -n "$(our_pid slurmctld)" ]; then
        deadline=$(($(date +%s) + 10))
        while [ "$(date +%s)" -lt $deadline ] &&
            [ -n "$(SLURM_CONF="$dir/slurm.conf" timeout 3 squeue -h -o %i 2>/dev/null)" ]; do
            sleep 0.2
        done
    fi
    # shellcheck disable=SC2046
    stop_pids $(our_pid slurmd) $(our_pid slurmctld) $(our_stepds)
    # shellcheck disable=SC2046
    stop_pids $(our_pid munged)
}

if [ "$cmd" = stop ]; then
    [ -f "$marker" ] || die "$dir was not made by slurm_local.sh start; not touching it"
    stop_all
    rm -rf "$dir"
    exit 0
fi

if [ "$cmd" = env ]; then
    echo "SLURM_CONF=$dir/slurm.conf"
    exit 0
fi

[ "$cmd" = start ] || die "unknown command '$cmd' (start, stop or env)"

# ---- start --------------------------------------------------------------------------------
[ "$(id -u)" -eq 0 ] || die "needs root (SlurmUser=root)"
for p in munged mungekey slurmctld slurmd srun sinfo; do
    command -v "$p" >/dev/null 2>&1 || [ -x "/usr/sbin/$p" ] ||
        die "$p not found (apt-get install slurm-wlm munge)"
done
PATH=$PATH:/usr/sbin
if [ -e "$dir" ] && [ -n "$(ls -A "$dir" 2>/dev/null)" ]; then
    die "$dir exists and is not empty"
fi
mkdir -p "$dir/spool" "$dir/state" || die "cannot create $dir"
chmod 700 "$dir"
touch "$marker"

fail() {
    echo "slurm_local: $*" >&2
    for log in munged.log slurmctld.log slurmd.log; do
        [ -s "$dir/$log" ] && { echo "--- $log (last lines)" >&2; tail -n 15 "$dir/$log" >&2; }
    done
    stop_all
    rm -rf "$dir"
    exit 1
}

# ports: SLUICE_SLURM_PORT (and +1), else from the PID in 20000..39998
port=${SLUICE_SLURM_PORT:-$((20000 + ($$ % 10000) * 2))}
case $port in '' | *[!0-9]*) die "SLUICE_SLURM_PORT must be a number" ;; esac

# munge: a fresh key, its own socket; --force because root owns everything
mungekey --create --keyfile="$dir/munge.key" >/dev/null 2>&1 ||
    dd if=/dev/urandom of="$dir/munge.key" bs=1024 count=1 2>/dev/null ||
    fail "cannot create a munge key"
chmod 400 "$dir/munge.key"
munged --force --key-file="$dir/munge.key" --socket="$dir/munge.sock" \
    --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" \
    --seed-file="$dir/munge.seed" || fail "munged did not start"
i=0
until munge -n -S "$dir/munge.sock" 2>/dev/null | unmunge -S "$dir/munge.sock" >/dev/null 2>&1; do
    i=$((i + 1))
    [ $i -lt 50 ] || fail "munged does not answer on $dir/munge.sock"
    sleep 0.1
done

host=$(hostname -s)
cpus=$(nproc)
cat > "$dir/slurm.conf" <<EOF
# generated by scripts/slurm_local.sh for a one-node test cluster
ClusterName=sluicetest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge.sock
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
MinJobAge=10
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=10 State=UP OverSubscribe=YES
EOF
export SLURM_CONF="$dir/slurm.conf"

# -i: ignore any saved state (there is none in a fresh DIR); daemons fork
slurmctld -i || fail "slurmctld did not start"
slurmd || fail "slurmd did not start"

i=0
while :; do
    state=$(sinfo -h -o %T 2>/dev/null | head -n 1)
    case $state in idle* | mixed* | allocated*) break ;; esac
    i=$((i + 1))
    [ $i -lt 300 ] || fail "the node did not come up within 30 s (state '${state:-none}')"
    sleep 0.1
done
echo "slurm_local: node $host up ($cpus CPUs), SLURM_CONF=$dir/slurm.conf"
exit 0
