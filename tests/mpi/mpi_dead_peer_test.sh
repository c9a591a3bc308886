#!/bin/sh
# A dead rank turns into errors on the survivor (mpi_dead_peer_test.c):
# every call towards it returns an error within a few seconds, the survivor
# finalizes, the job ends with the killed rank's status (137) and leaves
# nothing in /dev/shm.  SLUICE_COLL_EXECUTOR and SLUICE_SHORT_MAX come from
# the environment.
# usage: mpi_dead_peer_test.sh SLUICERUN MPI_DEAD_PEER_TEST_EXE
run=${1:?sluicerun}; exe=${2:?mpi_dead_peer_test}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; echo "--- output:"; cat "$tmp/out"; exit 1; }
before=$(ls /dev/shm 2>/dev/null | grep -c '^sluice-')
"$run" -n 2 --timeout 60 --grace 45 --bind-to none "$exe" >"$tmp/out" 2>&1
rc=$?
[ "$rc" -eq 137 ] || fail "exit status $rc, expected 137 (the killed rank's)"
grep -q "^FAIL" "$tmp/out" && fail "a call succeeded"
for what in recv irecv anyrecv ibcast allreduce; do
    line=$(grep "^rank 0: $what: class" "$tmp/out") || fail "no result for $what"
    secs=$(echo "$line" | sed 's/.* after \([0-9.]*\) s$/\1/')
    awk -v s="$secs" 'BEGIN { exit !(s < 10) }' || fail "$what took $secs s"
done
grep -q "^rank 0: selfany: pending until its message, then received" "$tmp/out" ||
    fail "the any-source receive on SELF"
grep -q "^rank 0: finalized" "$tmp/out" || fail "the survivor did not finalize"
grep -q "still alive" "$tmp/out" && fail "the survivor had to be killed"
echo "$(grep -c '^rank 0: .*: class' "$tmp/out") calls failed in time; the survivor finalized"
cat "$tmp/out"
