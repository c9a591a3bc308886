#!/bin/sh
# Between two hosts over TCP on this machine: Sluice with its two ranks on
# two virtual hosts (sluicerun --hosts a:1,b:1: the ofi transport, libfabric
# tcp over loopback) against MPICH forced onto TCP (UCX_TLS=tcp,self and
# MPIR_CVAR_NOLOCAL=1, so its own shared memory is not used either) and
# Open MPI forced onto TCP (--mca btl tcp,self --mca pml ob1), all running
# bench/mpi_pingpong.c in the same run (Sluice three times: bulk copies by
# fi_read/fi_write, SLUICE_OFI_RMA=on, the "sluice" column the ratios use,
# and by tagged messages, "sluice_tagged"; and over libfabric's sockets
# provider, "sluice_sockets"); and the provider's own floor,
# fi_pingpong (tcp, rdm, msg mode) from libfabric-bin.  Prints latency,
# bandwidth and message-rate tables with ratios against the better of MPICH
# and Open MPI, and Sluice's latency over fi_pingpong's.
# usage: sh bench/ofi_compare.sh [BUILD_DIR (default build)] [--quick]
set -u
build=${1:-build}
quick=${2:-}
src=$(dirname "$0")/mpi_pingpong.c
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
max=4194304
run() { # name mpicc launcher...
    name=$1 cc=$2; shift 2
    if ! command -v "$cc" >/dev/null 2>&1 && [ ! -x "$cc" ]; then
        echo "# $name skipped: no $cc"; return
    fi
    "$cc" -O2 -o "$tmp/$name" "$src" || { echo "# $name skipped: $cc failed"; return; }
    timeout 300 "$@" "$tmp/$name" $max $quick > "$tmp/$name.out" 2> "$tmp/$name.err" ||
        { echo "# $name failed:"; sed 's/^/#   /' "$tmp/$name.err" | head -20; return; }
    echo "$name" >> "$tmp/ran"
}
run sluice "$build/bin/mpicc" env SLUICE_OFI_RMA=on "$build/bin/sluicerun" --hosts a:1,b:1 --bind-to core
run sluice_tagged "$build/bin/mpicc" env SLUICE_OFI_RMA=off "$build/bin/sluicerun" --hosts a:1,b:1 \
    --bind-to core
run sluice_sockets "$build/bin/mpicc" env SLUICE_OFI_PROVIDER=sockets "$build/bin/sluicerun" \
    --hosts a:1,b:1 --bind-to core
run mpich mpicc.mpich env UCX_TLS=tcp,self MPIR_CVAR_NOLOCAL=1 \
        mpiexec.mpich -launcher fork -bind-to core -n 2
run openmpi mpicc.openmpi mpirun.openmpi --allow-run-as-root --oversubscribe --bind-to core \
    --mca btl tcp,self --mca pml ob1 --mca btl_tcp_if_include lo -n 2
[ -f "$tmp/ran" ] || { echo "nothing ran"; exit 1; }

# fi_pingpong: its own server and client over loopback; "lat SIZE USEC" and
# "bw SIZE MBPS" lines like mpi_pingpong's (its usec/xfer and MB/sec as it
# prints them; its first size also pays for the connection)
if command -v fi_pingpong >/dev/null 2>&1; then
    port=$((47000 + $$ % 1000))
    iters=2000; [ -n "$quick" ] && iters=200
    fi_pingpong -p tcp -e rdm -I $iters -B $port > "$tmp/fi_srv.out" 2>&1 &
    srv=$!
    sleep 0.5
    timeout 120 fi_pingpong -p tcp -e rdm -I $iters -P $port 127.0.0.1 > "$tmp/fi.raw" 2>&1
    wait $srv 2>/dev/null
    # columns: bytes (64, 1k, 1m...) #sent #ack total time MB/sec usec/xfer Mxfers/sec
    awk '$1 ~ /^[0-9]+[km]?$/ && NF >= 8 {
        n = $1 + 0; if ($1 ~ /k$/) n *= 1024; if ($1 ~ /m$/) n *= 1048576
        print "lat", n, $7; print "bw", n, $6 }' "$tmp/fi.raw" > "$tmp/fi_pingpong.out"
    [ -s "$tmp/fi_pingpong.out" ] && echo fi_pingpong >> "$tmp/ran" ||
        { echo "# fi_pingpong failed:"; sed 's/^/#   /' "$tmp/fi.raw" | head; }
fi
names=$(cat "$tmp/ran" | tr '\n' ' ')
val() { awk -v k=$1 -v s=$2 '$1==k && $2==s {print $3}' "$tmp/$3.out" 2>/dev/null; }
for kind in lat bw rate; do
    case $kind in
    lat) echo "# one-way latency, us (best: the lower of MPICH and Open MPI; sluice/fi: over fi_pingpong)" ;;
    bw) echo "# bandwidth, MB/s (best: the higher of MPICH and Open MPI)" ;;
    rate) echo "# message rate: us per 8-byte message, windows of 64" ;;
    esac
    printf '%10s' bytes; for n in $names; do printf ' %11s' "$n"; done
    printf ' %11s %11s\n' sluice/best sluice/fi
    sizes=$(cat "$tmp"/*.out | awk -v k=$kind '$1==k {print $2}' | sort -n | uniq)
    for s in $sizes; do
        printf '%10s' "$s"
        for n in $names; do v=$(val $kind $s $n); printf ' %11s' "${v:--}"; done
        a=$(val $kind $s mpich); b=$(val $kind $s openmpi); me=$(val $kind $s sluice)
        fi=$(val $kind $s fi_pingpong)
        awk -v k=$kind -v a="$a" -v b="$b" -v me="$me" -v fi="$fi" 'BEGIN {
            best = a; if (b != "" && (best == "" || (k == "bw" ? b > best : b < best))) best = b
            if (me != "" && best != "") printf " %11.2f", me / best; else printf " %11s", "-"
            if (me != "" && fi != "" && k != "rate") printf " %11.2f\n", me / fi; else printf " %11s\n", "-"
        }'
    done
done
