#!/bin/sh
# A peer that ends under Portals operations (peer_end_test.c): killed, every
# operation towards it fails and its death is reported once; finalized and
# gone, operations fail too and nothing is reported as an error.
# usage: peer_end_test.sh SLUICERUN PEER_END_TEST_EXE
run=${1:?sluicerun}; exe=${2:?peer_end_test}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; echo "--- output:"; cat "$tmp/out"; exit 1; }
count() { grep -c "$1" "$tmp/out"; }
# The job's status is the killed rank's: the survivor's own failures (a
# check, a sanitizer report at exit) are found in the output.
clean() { ! grep -q "FAIL \[\|Sanitizer" "$tmp/out"; }

# 1. Rank 1 is killed with operations of rank 0 in flight towards it.
"$run" -n 2 --timeout 40 --grace 30 --bind-to none "$exe" crash >"$tmp/out" 2>&1
rc=$?
[ "$rc" -eq 137 ] || fail "crash: exit status $rc, expected 137 (the killed rank's)"
grep -q "operations in flight failed" "$tmp/out" || fail "crash: in-flight operations did not fail"
grep -q "issued after the death failed" "$tmp/out" || fail "crash: later operations did not fail"
[ "$(count 'rank 1 .* has died')" -eq 1 ] || fail "crash: the death is not reported exactly once"
[ "$(count 'a peer process died')" -eq 0 ] || fail "crash: repeated death messages"
[ "$(count 'sluice\[0\]: error')" -eq 1 ] || fail "crash: errors other than the death"
clean || fail "crash: the survivor failed"
grep -q "rank 0: finalized" "$tmp/out" || fail "crash: the survivor did not finalize"
echo "crash: $(grep 'in flight failed' "$tmp/out" | sed 's/^.*rank 0: //'), death reported once"

# 2. Rank 1 finalizes and exits while a get of rank 0 waits for it.
"$run" -n 2 --timeout 40 --bind-to none "$exe" leave >"$tmp/out" 2>&1
rc=$?
[ "$rc" -eq 0 ] || fail "leave: exit status $rc, expected 0"
grep -q "the get failed" "$tmp/out" || fail "leave: the get did not fail"
[ "$(count 'died')" -eq 0 ] || fail "leave: a normal exit reported as a death"
[ "$(count 'error')" -eq 0 ] || fail "leave: errors logged"
clean || fail "leave: a rank failed"
grep -q "rank 0: finalized" "$tmp/out" || fail "leave: rank 0 did not finalize"
echo "leave: $(grep 'the get failed' "$tmp/out" | sed 's/^.*rank 0: //'), no error logged"
echo "2 passed, 0 failed"
