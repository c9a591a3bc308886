#!/bin/sh
# Build Sluice (Release) and run the demonstration: an MPI run on 4 ranks
# (two pairs at once on the 2 cores) showing latency, bandwidth and
# overlap, the same source built with Sluice's, MPICH's and Open MPI's
# mpicc, side by side; collectives (allreduce latency, iallreduce overlap)
# on 2 ranks one per core and on 4 oversubscribed; then the progress
# benchmark of paper 003 (Figures 9 and 10) against the paper's formulas.  Ratios matter, not absolute times:
# the machine is shared.
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)" >/dev/null
echo "=== MPI on 4 ranks: latency, bandwidth, overlap (Sluice, MPICH, Open MPI)"
sh bench/demo_compare.sh build 4
echo "=== collectives, 2 ranks one per core: blocking MPI_Allreduce latency, and the overlap of"
echo "    MPI_Iallreduce with computation that makes no MPI call (OSU's measure; cpu = us inside the calls)"
MODES="allreduce iallreduce" NP=2 MAX=1048576 sh bench/coll_compare.sh 1 build
echo "=== the same on 4 ranks, oversubscribed (2 per core: ranks, their progress threads and the"
echo "    computation share the cores, so these rows measure scheduling as much as the library)"
ITERS=100 MODES="allreduce iallreduce" NP=4 BIND=none MAX=65536 sh bench/coll_compare.sh 1 build
if [ -f bench/progress_compare.sh ]; then
    echo "=== the progress benchmark of paper 003, 2 ranks"
    PROGRESS_REPEATS=1 PROGRESS_BIND=core sh bench/progress_compare.sh build
fi
build/bin/sluice_info | head -n 8
