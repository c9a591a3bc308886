#!/bin/sh
# Long libFuzzer runs of every target in tests/fuzz (docs/RELIABILITY.md).
#   scripts/fuzz.sh [seconds per target, default 600] [target...]
# Builds build-fuzz (CC=clang, -DSLUICE_FUZZ=ON) if needed.  New inputs go
# to build-fuzz/fuzz/out/<target>, crashes to build-fuzz/fuzz/artifacts/
# <target>/ (add each, once fixed, to tests/fuzz/corpus/<target>/).  Runs
# niced; one target at a time.  Prints executions per target.
set -eu
cd "$(dirname "$0")/.."
secs=${1:-600}
[ $# -gt 0 ] && shift
targets=${*:-"wire ptl_target pmi_server pmi_client param sched"}
command -v clang >/dev/null || { echo "fuzz.sh: clang is needed (scripts/deps.sh)"; exit 1; }
if [ ! -f build-fuzz/CMakeCache.txt ]; then
    CC=clang cmake -S . -B build-fuzz -DSLUICE_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
nice -n 10 cmake --build build-fuzz -j 2 --target fuzz_all >/dev/null
fail=0
for t in $targets; do
    rc=0
    nice -n 10 sh tests/fuzz/run_fuzz.sh "build-fuzz/fuzz/fuzz_$t" "tests/fuzz/corpus/$t" \
        "build-fuzz/fuzz/out/$t" 0 "$secs" >"build-fuzz/fuzz/$t.last" 2>&1 || rc=$?
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "build-fuzz/fuzz/out/$t.log" | grep -o '[0-9]*$' || true)
    if [ "$rc" -eq 0 ]; then
        echo "fuzz_$t: ${execs:-?} executions in ${secs} s, no crash ($(date -u +%Y-%m-%d))"
    else
        fail=1
        echo "fuzz_$t: CRASH after ${execs:-?} executions; see build-fuzz/fuzz/$t.last and build-fuzz/fuzz/artifacts/$t/"
    fi
done
exit "$fail"
