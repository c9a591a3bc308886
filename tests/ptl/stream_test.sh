#!/bin/sh
# stream_test crash: rank 0 dies after the first fragment of a put that
# streams into rank 1's entry; rank 1 must see the put end failed
# (PTL_NI_UNDELIVERABLE) and finalize.  The job's status is the killed
# rank's (137).
# usage: stream_test.sh SLUICERUN STREAM_TEST_EXE
run=${1:?sluicerun}; exe=${2:?stream_test}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; echo "--- output:"; cat "$tmp/out"; exit 1; }
SLUICE_FLOWCTL=static SLUICE_TEST_CRASH=0:mid-message "$run" -n 2 --timeout 40 --grace 30 --bind-to none "$exe" crash \
    >"$tmp/out" 2>&1
rc=$?
[ "$rc" -eq 137 ] || fail "exit status $rc, expected 137 (the killed rank's)"
grep -q "rank 1: the put ended failed" "$tmp/out" || fail "the put did not end failed"
grep -q "rank 1: finalized" "$tmp/out" || fail "the survivor did not finalize"
! grep -q "FAIL \[\|Sanitizer" "$tmp/out" || fail "the survivor failed"
grep "the put ended failed" "$tmp/out"
echo "1 passed, 0 failed"
