#!/bin/sh
# Run a Sluice program under Open MPI's mpirun, which serves PMIx to its
# ranks (the PMIx client of src/boot connects to it), for ctest:
#   launch_mpirun.sh SECONDS NP PROGRAM [ARGS...]
# Exits 77 (ctest's SKIP_RETURN_CODE) with a message when Open MPI's mpirun
# is not installed; the job is killed after SECONDS (a hang is a failure).
# The flags are the ones docs/LAUNCHER.md ("PMIx") gives for running by hand.
set -u
secs=$1
np=$2
shift 2
mpirun=""
for c in mpirun.openmpi orterun; do
    if command -v "$c" >/dev/null 2>&1; then
        mpirun=$(command -v "$c")
        break
    fi
done
if [ -z "$mpirun" ]; then
    echo "SKIP: Open MPI's mpirun (mpirun.openmpi, Debian package openmpi-bin) is not installed"
    exit 77
fi
# --allow-run-as-root: CI runs as root, which mpirun refuses by default.
# --oversubscribe: more ranks than cores (4 ranks on 2 cores).
# --bind-to none: ctest runs jobs side by side, and bound ranks of two jobs
#   on one core do not yield to each other (as sluicerun --bind-to none).
exec timeout -k 5 "$secs" "$mpirun" --allow-run-as-root --oversubscribe --bind-to none \
    -np "$np" "$@"
