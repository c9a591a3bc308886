#!/bin/sh
# SLUICE_TRACE end to end: a 3-rank collective run (reductions with user ops on the
# host executor when their op has no Portals atomic, the others offloaded), mailboxes at the Eq. 2
# minimum so that senders stall for credits; sluicerun must leave one
# merged, valid trace with every kind of event and no per-rank files.
# A second job, the rendezvous tests, must show the p2p protocol steps.
# usage: trace_run.sh SLUICERUN MPI_COLLS_TEST TRACE_CHECK MPI_RNDV_TEST
set -u
run=$1 prog=$2 check=$3 rndv=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
SLUICE_TRACE=$tmp/t.json SLUICE_COLL_EXECUTOR=offload SLUICE_MAILBOX_SLOTS=28 \
    "$run" -n 3 --timeout 100 --bind-to none "$prog" quick >/dev/null || exit 1
ls "$tmp"/t.json.* 2>/dev/null && { echo "per-rank files left behind"; exit 1; }
"$check" "$tmp/t.json" send recv reduce "offloaded run" "triggered xfer" "triggered ctinc" \
    short "credit stall" process_name || exit 1
SLUICE_TRACE=$tmp/p.json "$run" -n 3 --timeout 100 --bind-to none "$rndv" >/dev/null || exit 1
"$check" "$tmp/p.json" RECEIVER_READY recv_rndv send_rndv pull
