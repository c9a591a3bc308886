#!/bin/sh
# Build Sluice (Release) and run the demonstration: an MPI run on 4 ranks
# (two pairs at once on the 2 cores) showing latency, bandwidth and
# overlap, the same source built with Sluice's, MPICH's and Open MPI's
# mpicc, side by side; then the progress benchmark of paper 003 (Figures 9
# and 10) against the paper's formulas.  Ratios matter, not absolute times:
# the machine is shared.
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)" >/dev/null
echo "=== MPI on 4 ranks: latency, bandwidth, overlap (Sluice, MPICH, Open MPI)"
sh bench/demo_compare.sh build 4
if [ -f bench/progress_compare.sh ]; then
    echo "=== the progress benchmark of paper 003, 2 ranks"
    PROGRESS_REPEATS=1 PROGRESS_BIND=core sh bench/progress_compare.sh build
fi
build/bin/sluice_info | head -n 8
