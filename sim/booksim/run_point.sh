#!/bin/sh
# Run one sluice-sim configuration in patched BookSim on the same pairing and
# slow nodes: sluice-sim writes them (--pairs-out), BookSim reads them.
#   sim/booksim/run_point.sh SLUICE_SIM BOOKSIM K SEED SLOW_FRAC SLOW_FACTOR [key=value ...]
# K = nodes per router (4: 1,056 nodes, 6: 5,256 nodes).  Extra key=value
# arguments go to BookSim (e.g. sluice_max_cycles=30000).  Prints BookSim's
# per-iteration lines and its "sluice_result" line.
set -eu
if [ $# -lt 6 ]; then
    sed -n '2,8p' "$0" >&2
    exit 2
fi
sim=$1 booksim=$2 k=$3 seed=$4 frac=$5 factor=$6
shift 6
here=$(cd "$(dirname "$0")" && pwd)
pairs=$(mktemp /tmp/sluice-pairs.XXXXXX)
trap 'rm -f "$pairs"' EXIT
a=$((2 * k))
# A 1-cycle run is enough to write the pairing (drawn before any routing).
"$sim" --a "$a" --p "$k" --h "$k" --seed "$seed" --slow-frac "$frac" --slow-factor "$factor" \
    --warmup 0 --iter 1 --max-cycles 1 --no-check --pairs-out "$pairs" >/dev/null
"$booksim" "$here/sluice_dragonfly.cfg" k="$k" sluice_pairs_file="$pairs" seed="$seed" "$@" |
    grep -E '^sluice(:|_iter |_result )'
