#!/bin/sh
# Every rank of one virtual host killed mid-transfer (host_kill_test.c): the
# survivors' receives fail within 5 s and nothing hangs.
# usage: host_kill_test.sh SLUICERUN HOST_KILL_TEST_EXE
run=${1:?sluicerun}; exe=${2:?host_kill_test}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; echo "--- output:"; cat "$tmp/out"; exit 1; }
"$run" --hosts a:2,b:2 --timeout 60 --grace 30 --bind-to none "$exe" >"$tmp/out" 2>&1
rc=$?
[ "$rc" -ne 0 ] || fail "exit status 0 after a host was killed"
[ "$rc" -ne 124 ] || fail "the job hung (timeout)"
grep -q "FAIL" "$tmp/out" && fail "a survivor failed"
[ "$(grep -c 'receive failed' "$tmp/out")" -eq 2 ] || fail "not both survivors got an error"
grep -q "Sanitizer" "$tmp/out" && fail "sanitizer report"
grep 'receive failed' "$tmp/out"
echo "host killed: both survivors failed in time (exit $rc)"
