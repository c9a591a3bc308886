#!/bin/sh
# Runs an MPICH-built program on Sluice's MPICH ABI library: the dynamic
# loader must resolve the program's libmpich.so.12 (and libmpichfort.so.12,
# if it loads that) into <libdir> (checked
# with ldd, which resolves as the program's start will), then the command
# runs with LD_LIBRARY_PATH=<libdir> (docs/TOOLS.md, "MPICH binaries").
# usage: mpich_abi_run.sh <libdir> <program> <command: sluicerun ... program args...>
set -eu
libdir=$1 prog=$2
shift 2
LD_LIBRARY_PATH=$libdir
export LD_LIBRARY_PATH
deps=$(ldd "$prog")
if ! echo "$deps" | grep -q "libmpich.so.12 => $libdir/libmpich.so.12 "; then
  echo "mpich_abi_run: $prog does not load $libdir/libmpich.so.12:"
  echo "$deps"
  exit 1
fi
# a Fortran program's bindings library too (MPICH's own would call into
# MPICH's internals)
if echo "$deps" | grep -q "libmpichfort.so.12" &&
   ! echo "$deps" | grep -q "libmpichfort.so.12 => $libdir/libmpichfort.so.12 "; then
  echo "mpich_abi_run: $prog does not load $libdir/libmpichfort.so.12:"
  echo "$deps"
  exit 1
fi
exec "$@"
