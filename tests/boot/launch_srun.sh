#!/bin/sh
# Sluice programs under Slurm's srun, on a one-node Slurm set up for the test
# by scripts/slurm_local.sh and torn down after it:
#   launch_srun.sh SLURM_LOCAL_SH BOOT_KVS PINGPONG
# srun --mpi=pmix (the PMIx client) and srun --mpi=pmi2 (the PMI-1 client:
# Slurm's pmi2 plugin also answers the PMI-1 wire protocol) each start
# boot_kvs (rank, size, put/fence/get, job key) and boot_launch_pingpong
# (MPI data checked) on 2 ranks, and the ping-pong once more on 4 (more
# ranks than CPUs: srun --overcommit).
# Exits 77 (ctest's SKIP_RETURN_CODE), saying why, when not root, when slurm-wlm
# or munge is not installed, or when the daemons cannot start here.  Never
# hangs: every srun has a deadline (--immediate for the allocation, timeout
# for the run), and the daemons are stopped on every way out.
set -u
slurm_local=$1
kvs=$2
pingpong=$3

skip() {
    echo "SKIP: $*"
    exit 77
}

[ "$(id -u)" -eq 0 ] || skip "the local Slurm runs as root (SlurmUser=root); not root"
PATH=$PATH:/usr/sbin
for p in munged mungekey slurmctld slurmd srun sinfo; do
    command -v "$p" >/dev/null 2>&1 ||
        skip "$p not installed (Debian packages slurm-wlm and munge; scripts/deps.sh)"
done

dir=$(mktemp -d /tmp/sluice-slurm.XXXXXX) || skip "cannot create a temporary directory"
started=no
cleanup() {
    if [ "$started" = yes ]; then
        sh "$slurm_local" stop "$dir" || echo "launch_srun: stopping Slurm failed" >&2
    else
        rm -rf "$dir"
    fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

if ! sh "$slurm_local" start "$dir"; then
    # start printed the reason and the logs, stopped what it started, removed dir
    started=gone
    skip "the one-node Slurm did not start on this machine (see above)"
fi
started=yes
export SLURM_CONF="$dir/slurm.conf"

plugins=$(srun --mpi=list 2>&1)
echo "srun --mpi=list: $(echo "$plugins" | tr '\n\t' '  ')"

passed=0
failed=0
run() { # mpi-plugin ranks program args...
    plugin=$1
    n=$2
    shift 2
    echo "=== srun --mpi=$plugin -n $n $(basename "$1") $2 $3"
    # -O: more tasks than CPUs; -I20: fail instead of waiting for an
    # allocation; -t 2: Slurm's own limit (minutes); timeout: ours
    if timeout -k 5 45 srun --mpi="$plugin" -O -I20 -t 2 -n "$n" "$@"; then
        passed=$((passed + 1))
    else
        echo "FAILED (exit status $?): srun --mpi=$plugin -n $n $*"
        failed=$((failed + 1))
    fi
}

ran=0
for plugin in pmix pmi2; do
    case $plugin in pmix) client=pmix ;; pmi2) client=pmi1 ;; esac
    if ! echo "$plugins" | grep -qw "$plugin"; then
        echo "srun has no $plugin plugin here: its cases are not run"
        continue
    fi
    ran=1
    run $plugin 2 "$kvs" $client 2
    run $plugin 2 "$pingpong" $client 2
    run $plugin 4 "$pingpong" $client 4
done
[ $ran -eq 1 ] || skip "srun has neither the pmix nor the pmi2 plugin"
echo "srun: $passed passed, $failed failed"
if [ $failed -ne 0 ]; then
    for log in slurmctld.log slurmd.log; do
        echo "--- $log (last lines)"
        tail -n 20 "$dir/$log"
    done
    exit 1
fi
exit 0
