#!/bin/sh
# Install the Debian packages Sluice needs to build, test and benchmark
# (skips apt entirely when everything is already there).
#   build: gcc, make, cmake          tests: mpich (Hydra launcher, PMI-1 peer)
#   benchmarks: mpich, openmpi-bin (bench/mpi_compare.sh), libfftw3-dev (bench/fft3d.c),
#   netpipe-mpich2 and netpipe-openmpi (NetPIPE, bench/netpipe_compare.sh; its
#   integrity mode also in tests/apps)
#   simulator figures: gnuplot-nox; the BookSim cross-check (sim/booksim): flex, bison
#   fuzz targets (tests/fuzz, scripts/fuzz.sh): clang and its runtime with libFuzzer
#   PMIx client (src/boot/boot_pmix.c): libpmix-dev; its tests run under
#   Open MPI's mpirun (openmpi-bin) and a one-node Slurm (slurm-wlm, munge;
#   scripts/slurm_local.sh starts its own daemons; the system ones are not used)
#   reachable memory at exit (tests mpi_reachable, ptl_put_get_reachable): valgrind
#   Fortran bindings (src/fortran): python3 generates them, gfortran builds
#   mpi.mod and the Fortran tests
#   libfabric transport (src/wire/ofi.c): libfabric-dev; libfabric-bin has fi_info
#   and fi_pingpong (bench/ofi_compare.sh)
#   applications built against MPICH, run on Sluice's MPICH ABI library
#   (tests/apps): scalapack-mpi-test, ScaLAPACK's own test programs
set -eu
pkgs="build-essential cmake mpich libmpich-dev openmpi-bin libopenmpi-dev gnuplot-nox libfftw3-dev flex bison clang libclang-rt-14-dev libpmix-dev slurm-wlm munge valgrind gfortran python3 libfabric-dev libfabric-bin scalapack-mpi-test netpipe-mpich2 netpipe-openmpi"
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
