#!/bin/sh
# Runs an MPICH-built program on Sluice's MPICH ABI library: the dynamic
# loader must resolve the program's libmpich.so.12 into <libdir> (checked
# with ldd, which resolves as the program's start will), then the command
# runs with LD_LIBRARY_PATH=<libdir> (docs/TOOLS.md, "MPICH binaries").
# usage: mpich_abi_run.sh <libdir> <program> <command: sluicerun ... program args...>
set -eu
libdir=$1 prog=$2
shift 2
LD_LIBRARY_PATH=$libdir
export LD_LIBRARY_PATH
if ! ldd "$prog" | grep -q "libmpich.so.12 => $libdir/libmpich.so.12 "; then
  echo "mpich_abi_run: $prog does not load $libdir/libmpich.so.12:"
  ldd "$prog"
  exit 1
fi
exec "$@"
