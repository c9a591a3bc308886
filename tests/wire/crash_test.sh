#!/bin/sh
# Kill a rank with SIGKILL and check that sluicerun reports it, exits with
# 128+9, and that nothing of the job is left in /dev/shm.
# usage: crash_test.sh SLUICERUN CRASH_TEST_EXE
run=${1:?sluicerun}; exe=${2:?crash_test}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; echo "--- output:"; cat "$tmp/out"; exit 1; }

leftovers() { ls /dev/shm 2>/dev/null | grep "^sluice-$1-" ; }

# 1. A rank dies while the segment names still exist (before attach).
SLUICE_TEST_CRASH=1:wire-created "$run" -n 3 --grace 1 "$exe" "$tmp/key" init >"$tmp/out" 2>&1
rc=$?
[ "$rc" -eq 137 ] || fail "init crash: exit status $rc, expected 137"
grep -q "rank 1" "$tmp/out" || fail "init crash: sluicerun did not name rank 1"
key=$(cat "$tmp/key")
[ ${#key} -eq 32 ] || fail "no job key recorded"
[ -z "$(leftovers "$key")" ] || fail "init crash left segments: $(leftovers "$key")"
echo "init crash: exit 137, rank 1 named, /dev/shm clean (job $key)"

# 2. A rank dies in the middle of the run.
"$run" -n 2 --grace 5 "$exe" "$tmp/key" run >"$tmp/out" 2>&1
rc=$?
[ "$rc" -eq 137 ] || fail "run crash: exit status $rc, expected 137"
grep -q "peer death detected" "$tmp/out" || fail "survivor's wire did not report the dead peer"
key=$(cat "$tmp/key")
[ -z "$(leftovers "$key")" ] || fail "run crash left segments: $(leftovers "$key")"
echo "run crash: exit 137, survivor got SL_ERR_PEER_DEAD, /dev/shm clean (job $key)"
# 3. A rank dies in the middle of its part of a split bulk copy.
SLUICE_TEST_CRASH=1:split-help SLUICE_BULK_SPLIT=262144 "$run" -n 2 --grace 5 "$exe" "$tmp/key" split \
    >"$tmp/out" 2>&1
rc=$?
[ "$rc" -eq 137 ] || fail "split crash: exit status $rc, expected 137"
grep -q "split copy failed with SL_ERR_PEER_DEAD" "$tmp/out" || fail "split crash: no SL_ERR_PEER_DEAD"
key=$(cat "$tmp/key")
[ -z "$(leftovers "$key")" ] || fail "split crash left segments: $(leftovers "$key")"
echo "split crash: exit 137, the copying rank got SL_ERR_PEER_DEAD, /dev/shm clean (job $key)"
echo "1 passed, 0 failed"
