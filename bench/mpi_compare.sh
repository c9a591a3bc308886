#!/bin/sh
# Build bench/mpi_pingpong.c (0 B - 16 MiB) with Sluice's mpicc and, where installed, with
# MPICH's and Open MPI's, run each on 2 ranks bound to cores, and print one
# table of latency and bandwidth with ratios against MPICH (same run, so the
# ratios mean something on a shared machine).
# Column sluice-am: Sluice with the buffer from MPI_Alloc_mem (its shared
# heap: memcpy instead of cross-memory attach); MPICH and Open MPI gain
# nothing from MPI_Alloc_mem on shared memory, so they run once.
# usage: sh bench/mpi_compare.sh [BUILD_DIR (default build)] [--quick]
set -u
build=${1:-build}
quick=${2:-}
src=$(dirname "$0")/mpi_pingpong.c
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() { # name mpicc launcher...   (extra arguments of the benchmark in $extra)
    name=$1 cc=$2; shift 2
    if ! command -v "$cc" >/dev/null 2>&1 && [ ! -x "$cc" ]; then
        echo "# $name skipped: no $cc"; return
    fi
    "$cc" -O2 -o "$tmp/$name" "$src" || { echo "# $name skipped: $cc failed"; return; }
    # a hung implementation is reported, not waited for
    timeout 300 "$@" "$tmp/$name" $max $quick $extra > "$tmp/$name.out" 2> "$tmp/$name.err" ||
        { echo "# $name failed:"; sed 's/^/#   /' "$tmp/$name.err"; return; }
    echo "$name" >> "$tmp/ran"
}
max=16777216
extra=
run sluice "$build/bin/mpicc" "$build/bin/mpirun" -n 2
extra=--alloc-mem
run sluice-am "$build/bin/mpicc" "$build/bin/mpirun" -n 2
extra=
run mpich mpicc.mpich mpiexec.mpich -launcher fork -bind-to core -n 2
run openmpi mpicc.openmpi mpirun.openmpi --allow-run-as-root --oversubscribe --bind-to core -n 2
[ -f "$tmp/ran" ] || { echo "nothing ran"; exit 1; }
names=$(cat "$tmp/ran" | tr '\n' ' ')
for kind in lat bw rate; do
    case $kind in
    lat) echo "# one-way latency, us (ratio: / MPICH)" ;;
    bw) echo "# bandwidth, MB/s (ratio: / MPICH)" ;;
    rate) echo "# message rate: us per 8-byte message, windows of 64 (ratio: / MPICH)" ;;
    esac
    printf '%10s' bytes; for n in $names; do printf ' %10s' "$n"; done
    for n in $names; do [ "$n" = mpich ] || printf ' %10s' "$n/mpich"; done; echo
    sizes=$(cat "$tmp"/*.out | awk -v k=$kind '$1==k {print $2}' | sort -n | uniq)
    for s in $sizes; do
        printf '%10s' "$s"
        for n in $names; do
            v=$(awk -v k=$kind -v s=$s '$1==k && $2==s {print $3}' "$tmp/$n.out")
            printf ' %10s' "${v:--}"
        done
        m=$(awk -v k=$kind -v s=$s '$1==k && $2==s {print $3}' "$tmp/mpich.out" 2>/dev/null)
        for n in $names; do
            [ "$n" = mpich ] && continue
            v=$(awk -v k=$kind -v s=$s '$1==k && $2==s {print $3}' "$tmp/$n.out")
            if [ -n "$v" ] && [ -n "$m" ]; then awk -v a="$v" -v b="$m" 'BEGIN{printf " %10.2f", a/b}'
            else printf ' %10s' -; fi
        done
        echo
    done
done
