#!/bin/sh
# Run mpi_eq_overflow_test with a 16-event point-to-point queue: the job must
# end with status 75 and rank 1 must say why (see the test program).
# usage: mpi_eq_overflow.sh SLUICERUN TEST_EXE
run=${1:?sluicerun}; exe=${2:?test}
out=$(SLUICE_P2P_EQ_SIZE=16 "$run" -n 2 --timeout 60 "$exe" 2>&1)
rc=$?
echo "$out"
[ "$rc" -eq 75 ] || { echo "FAIL: exit status $rc, expected 75"; exit 1; }
echo "$out" | grep -q "dropped incoming message(s): its event queue (16 events" ||
    { echo "FAIL: no reason given"; exit 1; }
echo "event queue overflow: exit 75 with the reason"
