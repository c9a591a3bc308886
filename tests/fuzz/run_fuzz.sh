#!/bin/sh
# run_fuzz.sh EXE CORPUS OUT RUNS SECONDS
# One libFuzzer run: the seed corpus (read only) and OUT (new inputs; made
# empty first) are loaded, then RUNS inputs are tried (0: no limit) for at
# most SECONDS (0: no limit).  A crash leaves its input in
# OUT/../../artifacts/<target>/crash-* and fails.  An input running longer than
# FUZZ_TIMEOUT seconds (default 10) is a hang.  Used by ctest (-L fuzz) and scripts/fuzz.sh.
set -eu
exe=$1 corpus=$2 out=$3 runs=$4 secs=$5
rm -rf "$out"
mkdir -p "$out"
art=$(dirname "$(dirname "$out")")/artifacts/$(basename "$out")/ # OUT/../../artifacts/<target>/
mkdir -p "$art"
set -- -seed=1 -max_len=4096 -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 -print_final_stats=1 \
       -artifact_prefix="$art"
[ "$runs" != 0 ] && set -- "$@" -runs="$runs"
[ "$secs" != 0 ] && set -- "$@" -max_total_time="$secs"
# The library logs an error for much of the hostile input it refuses
# (lines starting "sluice"): kept in OUT.log, left out of what is shown.
rc=0
"$exe" "$@" "$out" "$corpus" >"$out.log" 2>&1 || rc=$?
grep -v '^sluice' "$out.log" | tail -n 60
exit "$rc"
