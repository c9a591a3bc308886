#!/bin/sh
# Paper 002's application (bench/fft3d.c): a slab-decomposed 3D FFT whose
# transpose is one blocking MPI_Alltoall, or a pipelined MPI_Ialltoall per
# plane overlapped with the next plane's FFT (no MPI_Test in between), with
# Sluice, MPICH and Open MPI, alternated.  Prints the best time per
# transform of each, ms.
# usage: [N=128] [NPS="2 4"] sh bench/fft_compare.sh [ROUNDS (3)] [BUILD_DIR (build)]
set -u
rounds=${1:-3}
build=${2:-build}
n=${N:-128}
nps=${NPS:-2 4}
src=$(dirname "$0")/fft3d.c
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$build/bin/mpicc" -O2 -o "$tmp/sluice" "$src" -lfftw3 -lm || { echo "needs libfftw3-dev"; exit 1; }
names=sluice
mpicc.mpich -O2 -o "$tmp/mpich" "$src" -lfftw3 -lm 2>/dev/null && names="$names mpich"
mpicc.openmpi -O2 -o "$tmp/ompi" "$src" -lfftw3 -lm 2>/dev/null && names="$names ompi"
run() { # name np mode
    bind=core
    [ "$2" -gt "$(nproc)" ] && bind=none
    case $1 in
    sluice) timeout 600 "$build/bin/mpirun" -n "$2" --bind-to $bind "$tmp/sluice" "$3" "$n" 3 ;;
    mpich) timeout 600 mpiexec.mpich -launcher fork -bind-to $bind -n "$2" "$tmp/mpich" "$3" "$n" 3 ;;
    ompi) timeout 600 mpirun.openmpi --allow-run-as-root --oversubscribe --bind-to $bind -n "$2" \
              "$tmp/ompi" "$3" "$n" 3 ;;
    esac
}
for r in $(seq "$rounds"); do
    for np in $nps; do
        for m in blocking pipelined; do
            for nm in $names; do
                run "$nm" "$np" "$m" 2>/dev/null | awk -v nm="$nm" 'NF == 4 {print nm, $1, $3, $4}'
            done
        done
    done
done > "$tmp/all"
echo "# 3D FFT of $n^3 complex doubles, best of 3 transforms per run, min over $rounds rounds, ms ($(date -u +%Y-%m-%d))"
printf "%6s %10s" ranks mode
for nm in $names; do printf " %9s" "$nm"; done
printf "\n"
for np in $nps; do
    for m in blocking pipelined; do
        printf "%6s %10s" "$np" "$m"
        for nm in $names; do
            awk -v nm="$nm" -v m="$m" -v np="$np" '$1 == nm && $2 == m && $3 == np {
                if (!c || $4 < b) b = $4; c++ } END { if (c) printf " %9.2f", b * 1000; else printf " %9s", "-" }' "$tmp/all"
        done
        printf "\n"
    done
done
