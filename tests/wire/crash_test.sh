#!/bin/sh
# Kill a rank with SIGKILL and check that sluicerun reports it, exits with
# 128+9, and that nothing of the job is left in /dev/shm; and that a rank
# leaving normally is not reported as a death.
# usage: crash_test.sh SLUICERUN CRASH_TEST_EXE
run=${1:?sluicerun}; exe=${2:?crash_test}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; echo "--- output:"; cat "$tmp/out"; exit 1; }

leftovers() { ls /dev/shm 2>/dev/null | grep "^sluice-$1-" ; }

# check NAME PATTERN WHAT: the job ended with 137, its output has PATTERN
# (WHAT says what that shows) and no segment of it is left.
check() {
    [ "$rc" -eq 137 ] || fail "$1 crash: exit status $rc, expected 137"
    grep -q "$2" "$tmp/out" || fail "$1 crash: no \"$2\" ($3)"
    key=$(cat "$tmp/key")
    [ ${#key} -eq 32 ] || fail "$1 crash: no job key recorded"
    [ -z "$(leftovers "$key")" ] || fail "$1 crash left segments: $(leftovers "$key")"
    echo "$1 crash: exit 137, $3, /dev/shm clean (job $key)"
}

# 1. A rank dies while the segment names still exist (before attach).
SLUICE_TEST_CRASH=1:wire-created "$run" -n 3 --grace 1 "$exe" "$tmp/key" init >"$tmp/out" 2>&1
rc=$?
check init "rank 1" "sluicerun named rank 1"

# 2. A rank dies in the middle of the run.
"$run" -n 2 --grace 5 "$exe" "$tmp/key" run >"$tmp/out" 2>&1
rc=$?
check run "peer death detected" "the survivor got SL_ERR_PEER_DEAD"

# 3. A rank dies in the middle of its part of a split bulk copy.
SLUICE_TEST_CRASH=1:split-help SLUICE_BULK_SPLIT=262144 "$run" -n 2 --grace 5 "$exe" "$tmp/key" split \
    >"$tmp/out" 2>&1
rc=$?
check split "split copy failed with SL_ERR_PEER_DEAD" "the copying rank got SL_ERR_PEER_DEAD"
# 4. No crash: a rank that finalizes and exits first is not a death.
"$run" -n 2 "$exe" "$tmp/key" leave >"$tmp/out" 2>&1
rc=$?
[ "$rc" -eq 0 ] || fail "leave: exit status $rc, expected 0"
grep -q "rank 1 left, no death reported" "$tmp/out" || fail "leave: rank 0 did not finish"
! grep -q "died\|error" "$tmp/out" || fail "leave: a normal exit reported as an error"
echo "leave: exit 0, rank 1 gone without an error"
echo "1 passed, 0 failed"
