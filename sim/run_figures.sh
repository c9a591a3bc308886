#!/bin/sh
# Regenerate every committed result of sim/ (see README.md).  Runs are
# cached in <dir>/runs.csv, so an interrupted sweep resumes where it stopped.
# Usage: sim/run_figures.sh [build/bin/sluice-sim] [seeds]
set -e
SIM=${1:-build/bin/sluice-sim}
SEEDS=${2:-3}
R=$(dirname "$0")/results
mkdir -p "$R/packet" "$R/flit"
# Packet-granular mode, 5,256 nodes (paper's network).
for f in 1 5 4; do nice -n 19 "$SIM" --figure $f --seeds "$SEEDS" --out "$R/packet"; done
nice -n 19 "$SIM" --validate --big --out "$R/packet"
# Flit-level reference mode: BookSim validation and the figures at 1,056 nodes.
nice -n 19 "$SIM" --flit --validate --out "$R/flit"
for f in 5 1 4; do nice -n 19 "$SIM" --flit --small --figure $f --seeds "$SEEDS" --out "$R/flit"; done
