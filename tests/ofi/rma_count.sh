#!/bin/sh
# usage: rma_count.sh on|off <sluicerun> <launcher args...> <program> <args...>
# Runs the job with SLUICE_OFI_RMA=<mode> and SLUICE_STATS=1, then checks the
# wire counters every rank prints at its end: copies through libfabric
# happened (ofi_bulk_ops > 0 summed over the ranks), and all of them went by
# fi_read/fi_write (on) or none did (off), so the mode asked for is the one
# that moved the data.
set -u
mode=$1
shift
out=$(mktemp)
trap 'rm -f "$out"' EXIT
SLUICE_OFI_RMA=$mode SLUICE_STATS=1 "$@" 2>"$out"
rc=$?
if [ $rc -ne 0 ]; then
    cat "$out" >&2
    echo "rma_count: the job failed ($rc)" >&2
    exit 1
fi
sums=$(awk '/wire stats:/ {
    for (i = 1; i <= NF; i++) {
        split($i, kv, "=")
        if (kv[1] == "ofi_bulk_ops") b += kv[2]
        if (kv[1] == "ofi_rma_ops") r += kv[2]
    }
    n++
} END { printf "%d %d %d", n, b, r }' "$out")
set -- $sums
echo "rma_count: $1 ranks, $2 copies through libfabric, $3 by fi_read/fi_write (SLUICE_OFI_RMA=$mode)"
[ "$1" -gt 0 ] || { echo "rma_count: no wire stats printed" >&2; exit 1; }
[ "$2" -gt 0 ] || { echo "rma_count: no copy went through libfabric" >&2; exit 1; }
if [ "$mode" = on ]; then
    [ "$3" -eq "$2" ] || { echo "rma_count: not every copy used RMA" >&2; exit 1; }
else
    [ "$3" -eq 0 ] || { echo "rma_count: copies used RMA with SLUICE_OFI_RMA=off" >&2; exit 1; }
fi
