#!/bin/sh
# Runs one of ScaLAPACK's own test programs, as Debian builds them against
# MPICH (package scalapack-mpi-test), unchanged on Sluice's MPICH ABI
# library: an application suite written by others, checking its numerical
# results itself.  The program runs in a scratch directory holding links to
# its input files; the test fails on a non-zero exit, on any check the
# program reports failed, or when it reports no passed check at all.
# Exit 77 (skipped) when the package is not installed.
# usage: scalapack_run.sh <libdir> <sluicerun> <ranks, or virtual hosts
#        such as a:2,b:2> <program, relative to
#        the mpich-tests directory, e.g. xdlu or PBLAS/dpb1tst> [exit status:
#        0, or 255 for the BLACS tests, which end by testing BLACS_ABORT]
set -u
libdir=$1 run=$2 np=$3 prog=$4 want=${5:-0}
here=$(cd "$(dirname "$0")" && pwd)
base=/usr/lib/x86_64-linux-gnu/scalapack/mpich-tests
exe=$base/$prog
if [ ! -x "$exe" ]; then
    echo "skipped: $exe is not installed (Debian package scalapack-mpi-test)"
    exit 77
fi
case $np in
*:*) where="--hosts $np" ;; # across virtual hosts: libfabric between them
*) where="-n $np" ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in "$(dirname "$exe")"/*.dat; do ln -s "$f" "$tmp/"; done
cd "$tmp" || exit 1
sh "$here/../mpi/mpich_abi_run.sh" "$libdir" "$exe" \
    "$run" $where --bind-to none "$exe" > out.txt 2>&1
rc=$?
cat out.txt
if [ $rc -ne "$want" ]; then
    echo "scalapack_run: $prog exited with $rc, not $want"
    exit 1
fi
# failures as the programs word them: a check line saying FAILED (not
# PBLAS's summary header, not BLACS's "0 FAILED."), a summary with failed
# checks, PBLAS's summary rows (| NAME TOTAL PASSED FAILED SKIPPED), the
# eigensolvers' own words
if grep -v -E 'SUBROUTINE| 0 FAILED\.' out.txt |
       grep -E -q '\bFAILED\b|\b[1-9][0-9]* tests? completed and failed|Test Failed|[1-9][0-9]* tests? failed' ||
   awk '$1 == "|" && NF == 6 && $5 + 0 > 0 { bad = 1 } END { exit !bad }' out.txt; then
    echo "scalapack_run: $prog reports failed checks"
    exit 1
fi
if ! grep -E -q 'PASSED|passed' out.txt; then
    echo "scalapack_run: $prog reports no passed check"
    exit 1
fi
echo "scalapack_run: $prog passed ($(grep -c 'PASSED' out.txt) checks reported PASSED)"
