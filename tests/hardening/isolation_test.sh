#!/bin/sh
# A job cannot be joined from outside (issue 26, docs/RELIABILITY.md):
#  1. while a 2-rank job runs, nothing of it is in /dev/shm; its segments
#     (seen through /proc/<pid>/map_files where this user may look) are
#     0600; an outside process that knows the job key, or guesses keys,
#     opens nothing; and the job receives exactly its own messages;
#  2. a rank with another job key cannot join: the job fails, nothing left;
#  3. a segment planted under the job's name with another job key is
#     refused at attach ("does not belong to this job"), nothing left.
# usage: isolation_test.sh SLUICERUN ISOLATION_TEST_EXE
run=${1:?sluicerun}; exe=${2:?isolation_test}
tmp=$(mktemp -d) || exit 1
k2=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
k3=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
jobpid=""
cleanup() {
    [ -n "$jobpid" ] && kill "$jobpid" 2>/dev/null
    for k in "$k2" "$k3"; do rm -f /dev/shm/sluice-"$k"-* 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; for f in "$tmp"/*.out; do echo "--- $f:"; cat "$f"; done; exit 1; }
passed=0

# 1. A running job, probed from outside.
: >"$tmp/job.out" # now: the background job opens it only when it starts
"$run" -n 2 --timeout 60 --bind-to none "$exe" victim "$tmp/go" >>"$tmp/job.out" 2>&1 &
jobpid=$!
i=0
while [ "$(grep -c '^victim rank . pid' "$tmp/job.out")" -lt 2 ] 2>/dev/null; do
    i=$((i + 1))
    [ $i -gt 300 ] && fail "the job did not start"
    kill -0 "$jobpid" 2>/dev/null || fail "the job ended early"
    sleep 0.1
done
key=$(sed -n 's/^victim rank 0 pid [0-9]* key \([0-9a-f]*\)$/\1/p' "$tmp/job.out")
[ ${#key} -eq 32 ] || fail "no job key in the output"
ls /dev/shm | grep -q "$key" && fail "names of the running job are in /dev/shm: $(ls /dev/shm | grep "$key")"
echo "running job: no name with its key in /dev/shm"
seen=0
for pid in $(sed -n 's/^victim rank . pid \([0-9]*\) .*/\1/p' "$tmp/job.out"); do
    for m in /proc/"$pid"/map_files/*; do
        t=$(readlink "$m" 2>/dev/null) || continue
        case "$t" in
        /dev/shm/sluice-"$key"-*)
            mode=$(stat -L -c %a "$m" 2>/dev/null) || continue
            [ "$mode" = 600 ] || fail "segment $t mapped by $pid has mode $mode, not 600"
            seen=$((seen + 1)) ;;
        esac
    done
done
if [ "$seen" -gt 0 ]; then
    echo "running job: $seen mappings of its segments, all mode 0600"
else
    echo "running job: /proc/<pid>/map_files not readable here; mode not checked"
fi
"$exe" probe "$key" >"$tmp/probe.out" 2>&1 || fail "an outside process opened a segment"
cat "$tmp/probe.out"
touch "$tmp/go"
wait "$jobpid"
rc=$?
jobpid=""
[ "$rc" -eq 0 ] || fail "the job failed (exit $rc)"
[ "$(grep -c 'none injected' "$tmp/job.out")" -eq 2 ] || fail "a rank saw unexpected messages"
ls /dev/shm | grep -q "$key" && fail "segments left behind"
echo "running job: each rank received exactly its peer's message"
passed=$((passed + 1))

# 2. Rank 1 runs with another job key: it cannot join.
touch "$tmp/go"
"$run" -n 2 --timeout 30 --bind-to none sh -c \
    "[ \"\$PMI_RANK\" = 1 ] && export SLUICE_JOBKEY=$k2; exec \"$exe\" victim \"$tmp/go\"" \
    >"$tmp/wrongkey.out" 2>&1
rc=$?
[ "$rc" -ne 0 ] || fail "a rank with another job key joined the job"
grep -q "cannot open shared memory of rank" "$tmp/wrongkey.out" || fail "wrong key: no refusal message"
grep -q "none injected" "$tmp/wrongkey.out" && fail "wrong key: a rank ran"
ls /dev/shm | grep -q "$k2" && fail "wrong key: segments left behind"
echo "another job key: refused (exit $rc), nothing left"
passed=$((passed + 1))

# 3. A squatter plants rank 1's segment under the name rank 0 will open,
#    with another job's key in its header; rank 1 itself uses a third key.
"$exe" forge "$k2" 1 >"$tmp/forge.out" 2>&1 || fail "could not plant the segment"
"$run" -n 2 --timeout 30 --bind-to none sh -c \
    "if [ \"\$PMI_RANK\" = 1 ]; then export SLUICE_JOBKEY=$k3; else export SLUICE_JOBKEY=$k2; fi; exec \"$exe\" victim \"$tmp/go\"" \
    >"$tmp/forged.out" 2>&1
rc=$?
"$exe" unlink "$k2" 1 || fail "the planted segment is gone: someone opened it read-write and removed it?"
[ "$rc" -ne 0 ] || fail "the job attached to a planted segment"
grep -q "shared memory of rank 1 does not belong to this job" "$tmp/forged.out" ||
    fail "planted segment: not refused by the job key check"
grep -q "none injected" "$tmp/forged.out" && fail "planted segment: a rank ran"
ls /dev/shm | grep -q -e "$k2" -e "$k3" && fail "planted segment: segments left behind"
echo "planted segment with another job key: refused at attach (exit $rc), nothing left"
passed=$((passed + 1))
echo "$passed passed, 0 failed"
