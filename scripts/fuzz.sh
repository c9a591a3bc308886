#!/bin/sh
# Long libFuzzer runs of every target in tests/fuzz (docs/RELIABILITY.md).
#   scripts/fuzz.sh [seconds per target, default 600; 0: no limit] [target...]
# Environment: FUZZ_RUNS (inputs per target, default 0: no limit; a target
# stops at whichever of the two limits comes first), FUZZ_BUILD (build
# directory, default build-fuzz; a relative path is inside the tree),
# FUZZ_TIMEOUT (seconds an input may run before it counts as a hang,
# default 10: raise it on a loaded machine, where a niced fuzzer can wait
# longer than that for the CPU or a write to its log).
# Builds FUZZ_BUILD (CC=clang, -DSLUICE_FUZZ=ON) if needed.  New inputs go
# to $FUZZ_BUILD/fuzz/out/<target>, crashes to $FUZZ_BUILD/fuzz/artifacts/
# <target>/ (add each, once fixed, to tests/fuzz/corpus/<target>/).  Runs
# niced; one target at a time.  Prints executions per target.
set -eu
cd "$(dirname "$0")/.."
secs=${1:-600}
[ $# -gt 0 ] && shift
runs=${FUZZ_RUNS:-0}
b=${FUZZ_BUILD:-build-fuzz}
targets=${*:-"wire ptl_target pmi_server pmi_client param sched"}
command -v clang >/dev/null || { echo "fuzz.sh: clang is needed (scripts/deps.sh)"; exit 1; }
if [ ! -f "$b/CMakeCache.txt" ]; then
    CC=clang cmake -S . -B "$b" -DSLUICE_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
nice -n 10 cmake --build "$b" -j 2 --target fuzz_all >/dev/null
fail=0
for t in $targets; do
    rc=0
    t0=$(date +%s)
    nice -n 10 sh tests/fuzz/run_fuzz.sh "$b/fuzz/fuzz_$t" "tests/fuzz/corpus/$t" \
        "$b/fuzz/out/$t" "$runs" "$secs" >"$b/fuzz/$t.last" 2>&1 || rc=$?
    el=$(($(date +%s) - t0))
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$b/fuzz/out/$t.log" | grep -o '[0-9]*$' || true)
    if [ "$rc" -eq 0 ]; then
        echo "fuzz_$t: ${execs:-?} executions in ${el} s, no crash ($(date -u +%Y-%m-%d))"
    else
        fail=1
        echo "fuzz_$t: CRASH after ${execs:-?} executions; see $b/fuzz/$t.last and $b/fuzz/artifacts/$t/"
    fi
done
exit "$fail"
