#!/bin/sh
# NetPIPE's integrity mode (-i: every message's bytes checked by the
# receiver) with Debian's MPICH-built NPmpich2 (package netpipe-mpich2),
# unchanged on Sluice's MPICH ABI library: every size from 1 byte to 4 MiB,
# each also 1 byte above (unaligned lengths).  The test fails on a non-zero
# exit, on any size not reported "Integrity check passed", or when fewer
# than 35 sizes were checked.  Exit 77 (skipped) without the package.
# usage: netpipe_run.sh <libdir> <sluicerun> <ranks, or virtual hosts such
#        as a:1,b:1> [NetPIPE options (-a: receives posted before the send,
#        -2 -a: both directions at once, -S: synchronous sends)]
set -u
libdir=$1 run=$2 np=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
exe=$(command -v NPmpich2) || { echo "skipped: NPmpich2 is not installed (netpipe-mpich2)"; exit 77; }
case $np in
*:*) where="--hosts $np" ;;
*) where="-n $np" ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
sh "$here/../mpi/mpich_abi_run.sh" "$libdir" "$exe" \
    "$run" $where --bind-to none "$exe" -i "$@" -u 4194304 -o "$tmp/np.out" > out.txt 2>&1
rc=$?
cat out.txt
[ $rc -eq 0 ] || { echo "netpipe_run: exit status $rc"; exit 1; }
# one line per size: "N: <bytes> bytes <n> times -->  Integrity check passed"
sizes=$(grep -c -- '-->' out.txt)
ok=$(grep -c -- '-->  *Integrity check passed' out.txt)
[ "$sizes" -ge 35 ] || { echo "netpipe_run: only $sizes sizes checked"; exit 1; }
[ "$ok" -eq "$sizes" ] || { echo "netpipe_run: $((sizes - ok)) of $sizes sizes failed the check"; exit 1; }
echo "netpipe_run: $ok sizes passed the integrity check"
