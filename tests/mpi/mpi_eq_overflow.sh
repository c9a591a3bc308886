#!/bin/sh
# Run mpi_eq_overflow_test with a 16-event point-to-point queue: the job must
# end with status 75 and rank 1 must say why (see the test program).  The
# short-message ring is cut to 64 lines so that most of the 300 messages
# reach the engine (the rest is taken back from the ring and resent there).
# usage: mpi_eq_overflow.sh SLUICERUN TEST_EXE
run=${1:?sluicerun}; exe=${2:?test}
out=$(SLUICE_P2P_EQ_SIZE=16 SLUICE_SHORT_RING=4096 "$run" -n 2 --timeout 60 "$exe" 2>&1)
rc=$?
echo "$out"
[ "$rc" -eq 75 ] || { echo "FAIL: exit status $rc, expected 75"; exit 1; }
echo "$out" | grep -q "dropped incoming message(s): its event queue (16 events" ||
    { echo "FAIL: no reason given"; exit 1; }
echo "event queue overflow: exit 75 with the reason"
