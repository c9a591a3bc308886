#!/bin/sh
# Regenerate the committed results of sim/ (see README.md) with exactly the
# commands used for them.  Runs are cached in <dir>/runs.csv (delete it to
# recompute), so an interrupted sweep resumes where it stopped.  One process,
# about 3 hours of one core on the 2-core CI-class machine (flit engine of
# the sim-speed branch: ~30-60 s per 5,256-node flit run); of it, the packet
# mode's 5,256-node sweeps (204 runs, three pairings per point) took about 52
# minutes of CPU.
# Usage: sim/run_figures.sh [path/to/sluice-sim]
set -e
S=${1:-build/bin/sluice-sim}
R=$(dirname "$0")/results
mkdir -p "$R/flit" "$R/packet"
run() { nice -n 19 "$S" --no-check "$@"; }
# Flit-level reference mode, 5,256 nodes: Fig. 1 (one pairing per point), the RDRP-30
# summary and Fig. 4 at 0 and 1% (two pairings), Fig. 5 (one pairing).
run --flit --figure 1 --seeds 1 --max-cycles 30000 --pcts 0,0.02,0.1,0.5,1 --out "$R/flit"
run --flit --figure summary --seeds 2 --max-cycles 30000 --out "$R/flit"
run --flit --figure 4 --seeds 2 --max-cycles 30000 --pcts 0,1 --out "$R/flit"
run --flit --figure 5 --seeds 1 --max-cycles 30000 --out "$R/flit"
# Flit-level mode, 1,056 nodes: Figs. 5, 4, 1 and the BookSim validation.
run --flit --small --figure 5 --seeds 2 --out "$R/flit"
run --flit --small --figure summary --seeds 2 --out "$R/flit"
run --flit --validate --max-cycles 30000 --out "$R/flit"
run --flit --small --figure 4 --seeds 1 --pcts 0,0.1,0.5,1,2 --out "$R/flit"
run --flit --small --figure 1 --seeds 2 --pcts 0,0.1,0.5,1,2 --out "$R/flit"
# Packet-granular fast mode: the flit mode's 1,056-node points (validation of the
# packet mode against the flit mode), the BookSim validation, then 5,256 nodes
# (three pairings per point since the sim-seeds branch).
run --small --figure 5 --seeds 2 --out "$R/packet"
run --small --figure summary --seeds 2 --out "$R/packet"
run --small --figure 4 --seeds 1 --pcts 0,0.1,0.5,1,2 --out "$R/packet"
run --small --figure 1 --seeds 2 --pcts 0,0.1,0.5,1,2 --out "$R/packet"
run --validate --big --max-cycles 30000 --out "$R/packet"
run --figure 1 --seeds 3 --pcts 0,0.02,0.1,0.5,1 --out "$R/packet"
run --figure 5 --seeds 3 --out "$R/packet"
run --figure summary --seeds 3 --out "$R/packet"
run --figure 4 --seeds 3 --pcts 0,0.1,0.5,1,2 --out "$R/packet"
# PNGs (needs gnuplot).
for d in flit packet; do
    for sfx in "" _1056; do gnuplot -e "dir='$R/$d'; sfx='$sfx'" "$(dirname "$0")/results/plot.gp"; done
done
