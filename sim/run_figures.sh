#!/bin/sh
# Regenerate the committed results of sim/ (see README.md) with exactly the
# commands used for them.  Runs are cached in <dir>/runs.csv (delete it to
# recompute), so an interrupted sweep resumes where it stopped.  One process,
# about 2.5 hours of one core on the 2-core CI-class machine.
# Usage: sim/run_figures.sh [path/to/sluice-sim]
set -e
S=${1:-build/bin/sluice-sim}
R=$(dirname "$0")/results
mkdir -p "$R/flit" "$R/packet"
run() { nice -n 19 "$S" --no-check "$@"; }
# Flit-level reference mode, 5,256 nodes: Fig. 1 and the RDRP-30 summary (one pairing per point).
run --flit --figure 1 --seeds 1 --max-cycles 30000 --pcts 0,0.02,0.1,0.5,1 --out "$R/flit"
run --flit --figure 5 --seeds 1 --max-cycles 30000 --limits 30 --out "$R/flit"
run --flit --figure 4 --seeds 1 --max-cycles 30000 --pcts 0,1 --out "$R/flit"
# Flit-level mode, 1,056 nodes: Figs. 5, 4, 1 and the BookSim validation.
run --flit --small --figure 5 --seeds 2 --out "$R/flit"
run --flit --validate --max-cycles 30000 --out "$R/flit"
run --flit --small --figure 4 --seeds 1 --pcts 0,0.1,0.5,1,2 --out "$R/flit"
run --flit --small --figure 1 --seeds 2 --pcts 0,0.1,0.5,1,2 --out "$R/flit"
# Packet-granular fast mode, 5,256 nodes.
run --validate --big --max-cycles 30000 --out "$R/packet"
run --figure 1 --seeds 2 --pcts 0,0.02,0.1,0.5,1 --out "$R/packet"
run --figure 5 --seeds 1 --out "$R/packet"
run --figure 4 --seeds 1 --pcts 0,0.1,0.5,1,2 --out "$R/packet"
# PNGs (needs gnuplot).
for d in flit packet; do
    for sfx in "" _1056; do gnuplot -e "dir='$R/$d'; sfx='$sfx'" "$(dirname "$0")/results/plot.gp"; done
done
