#!/bin/sh
# The launcher dies (SIGKILL) while rank 0 waits in a boot fence: rank 0 must
# report SL_ERR_PEER_DEAD within 10 s instead of hanging.  Under Open MPI's
# mpirun (the PMIx client); exits 77 (SKIP) when openmpi-bin is not installed.
#   launcher_loss.sh PROGRAM
# Kills only what it started: mpirun by its PID, the ranks by the PIDs they
# wrote.
set -u
prog=$1
mpirun=$(command -v mpirun.openmpi || command -v orterun) ||
    { echo "SKIP: Open MPI's mpirun (openmpi-bin) is not installed"; exit 77; }
dir=$(mktemp -d /tmp/sluice-loss.XXXXXX) || exit 1
launcher=""
cleanup() {
    [ -n "$launcher" ] && kill -KILL "$launcher" 2>/dev/null
    if [ -f "$dir/pids" ]; then
        while read -r _ pid; do kill -KILL "$pid" 2>/dev/null; done < "$dir/pids"
    fi
    rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

"$mpirun" --allow-run-as-root --oversubscribe --bind-to none -np 2 "$prog" "$dir" \
    > "$dir/out" 2>&1 &
launcher=$!
wait_for() { # what tenths
    i=0
    while [ $i -lt "$2" ]; do
        [ "$(cat "$dir/state" 2>/dev/null)" = "$1" ] && return 0
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}
wait_for fencing 200 || { echo "FAIL: rank 0 never reached the fence"; cat "$dir/out"; exit 1; }
sleep 0.5 # let the fence request reach the server
kill -KILL "$launcher"
wait "$launcher" 2>/dev/null
launcher=""
if wait_for SL_ERR_PEER_DEAD 100; then
    echo "rank 0's fence after the launcher died: SL_ERR_PEER_DEAD"
    exit 0
fi
echo "FAIL: rank 0's fence after the launcher died: '$(cat "$dir/state" 2>/dev/null)'"
exit 1
