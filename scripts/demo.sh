#!/bin/sh
# Build Sluice (Release) and run the demonstration: the wire's packet
# latency and bulk get bandwidth on 2 ranks and on 4 ranks (two pairs at
# once, oversubscribing the 2 cores), each beside its floor measured in the
# same run, then the Portals 4 engine's put latency and get bandwidth beside
# the wire's.
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)" >/dev/null
bin=build/bin
for n in 2 4; do
    echo "=== $n ranks: packet latency"
    "$bin/sluicerun" -n "$n" "$bin/wire_pingpong"
    echo "=== $n ranks: get bandwidth"
    "$bin/sluicerun" -n "$n" "$bin/wire_getbw"
done
echo "=== 2 ranks: the Portals 4 engine over the wire (put latency, get bandwidth)"
"$bin/sluicerun" -n 2 "$bin/ptl_bench"
echo "=== 2 ranks: get bandwidth on the staged path (SLUICE_CMA=0)"
SLUICE_CMA=0 "$bin/sluicerun" -n 2 "$bin/wire_getbw"
"$bin/sluice_info" | head -n 8
