#!/bin/sh
# ctest entry sim_booksim_patch: the slow-sink patch applies to the BookSim
# snapshot and builds (build.sh), and the patched BookSim gives the
# hand-checkable answers of sluice-sim's own tests on a 72-node Dragonfly
# (k = 2) whose pairs sit on one router each (nodes 2i <-> 2i+1), so only the
# sinks limit throughput:
#   every node fast                          -> 1.0 flit/cycle/node
#   one node of each pair 4x slower          -> (1 + 1/4) / 2 = 0.625
#   every node 8x slower                     -> 1/8
#   PAR (routing added by the patch), one of each pair 4x slower -> 0.625
# and, on a random sluice-sim pairing, slow nodes lower the throughput and
# PAR takes longer paths than minimal routing.
#   sim/booksim/test_booksim.sh BOOKSIM_SRC WORK_DIR SLUICE_SIM
# Exits 77 (skipped) with a message when BookSim's source or a build tool is
# not at hand.  The build is reused while the patch and build.sh are unchanged.
set -eu
src=$1 work=$2 sim=$3
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -f "$src/src/trafficmanager.cpp" ]; then
    echo "no BookSim source at $src: skipped"
    exit 77
fi
mkdir -p "$work"
stamp="$work/stamp"
# Rebuild when the patch, the build script or the source tree's path changes.
want=$( (cat "$here/slow_sink.patch" "$here/build.sh"; cd "$src" && pwd -P) | cksum)
bin="$work/booksim2/src/booksim"
if [ ! -x "$bin" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    rm -f "$stamp"
    st=0
    "$here/build.sh" "$src" "$work" >/dev/null || st=$?
    [ $st -eq 77 ] && exit 77
    [ $st -ne 0 ] && { echo "FAIL: build.sh exited $st"; exit 1; }
    echo "$want" >"$stamp"
fi
fail=0
# run NAME EXPECTED TOLERANCE PAIRFILE [key=value...]: BookSim's throughput
# within tolerance
run() {
    name=$1 exp=$2 tol=$3 pf=$4
    shift 4
    out=$("$bin" "$here/sluice_dragonfly.cfg" k=2 sluice_pairs_file="$pf" \
        sluice_warmup=2000 sluice_iter=2000 sluice_max_cycles=6000 "$@" | grep '^sluice_result') || true
    thr=$(echo "$out" | awk '{print $3}')
    if [ -z "$thr" ] || ! awk -v t="$thr" -v e="$exp" -v tol="$tol" 'BEGIN { d = t - e; if (d < 0) d = -d; exit !(d <= tol) }'; then
        echo "FAIL $name: throughput '$thr', expected $exp +- $tol ($out)"
        fail=1
    else
        echo "ok $name: throughput $thr (expected $exp +- $tol)"
    fi
}
p=$work/pairs
awk 'BEGIN { for (i = 0; i < 72; i++) print i, (i % 2 ? i - 1 : i + 1), 1 }' >"$p.fast"
awk 'BEGIN { for (i = 0; i < 72; i++) print i, (i % 2 ? i - 1 : i + 1), (i % 2 ? 1 : 4) }' >"$p.half4"
awk 'BEGIN { for (i = 0; i < 72; i++) print i, (i % 2 ? i - 1 : i + 1), 8 }' >"$p.all8"
run all_fast 1.0 0.01 "$p.fast"
run half_4x_slower 0.625 0.01 "$p.half4"
run all_8x_slower 0.125 0.002 "$p.all8"
run par_half_4x_slower 0.625 0.01 "$p.half4" routing_function=par num_vcs=6
# A random sluice-sim pairing (seed 3): 7 of the 72 nodes (10%) 8x slower
# deliver less than the same pairing without slow nodes.
"$sim" --a 4 --p 2 --h 2 --seed 3 --slow-frac 0.1 --slow-factor 8 --warmup 0 --iter 1 \
    --max-cycles 1 --no-check --pairs-out "$p.rand" >/dev/null
n=$(awk '$3 == 8' "$p.rand" | wc -l)
[ "$n" -eq 7 ] || { echo "FAIL: sluice-sim wrote $n slow nodes, expected round(0.1 * 72) = 7"; fail=1; }
awk '{ print $1, $2, 1 }' "$p.rand" >"$p.rand0"
run random_pairing_no_slow 0.5 0.5 "$p.rand0"
t0=$thr
run random_pairing_10pct_8x 0.5 0.5 "$p.rand"
if awk -v a="$thr" -v b="$t0" 'BEGIN { exit !(a < b) }'; then
    echo "ok slow nodes lower the random pairing's throughput ($thr < $t0)"
else
    echo "FAIL: slow nodes did not lower the random pairing's throughput ($thr vs $t0)"
    fail=1
fi
# PAR (added by the patch) on the same random pairing: some traffic goes
# non-minimally, so packets cross more routers than under minimal routing.
hops() { "$bin" "$here/sluice_dragonfly.cfg" k=2 sluice_pairs_file="$p.rand0" sluice_warmup=2000 \
    sluice_iter=2000 sluice_max_cycles=6000 "$@" | awk '/^sluice_result/ { print $5 }'; }
hp=$(hops routing_function=par num_vcs=6)
hm=$(hops routing_function=min num_vcs=2)
if [ -n "$hp" ] && [ -n "$hm" ] && awk -v a="$hp" -v b="$hm" 'BEGIN { exit !(a > b + 0.2) }'; then
    echo "ok PAR routes non-minimally under load ($hp hops vs $hm minimal)"
else
    echo "FAIL: PAR hops '$hp' not above minimal routing's '$hm' + 0.2"
    fail=1
fi
[ $fail -eq 0 ] && echo "booksim patch: all checks passed"
exit $fail
