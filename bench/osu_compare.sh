#!/bin/sh
# Sluice against MPICH (and Open MPI) on the standard micro-benchmark
# patterns (bench/mpi_osu.c: latency, bandwidth, bidirectional bandwidth),
# 2 ranks bound one per core, the implementations alternated in every
# round; prints per size the median value of each and the median of the
# per-round ratios Sluice / MPICH (latency: lower is better; bw, bibw:
# higher).  Compare Sluice commits by passing several build dirs.
# usage: [MODES="lat bw bibw xchg"] [MAX=4194304] [OMPI=1] sh bench/osu_compare.sh [ROUNDS (5)] BUILD_DIR...
set -u
median_awk=$(cat "$(dirname "$0")/median.awk")
rounds=${1:-5}
shift 2>/dev/null || true
[ $# -gt 0 ] || set -- build
modes=${MODES:-lat bw bibw}
max=${MAX:-4194304}
src=$(dirname "$0")/mpi_osu.c
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] && cp "$tmp/all" "$KEEP"; rm -rf "$tmp"' EXIT
names=""
i=0
for b in "$@"; do
    i=$((i + 1))
    "$b/bin/mpicc" -O2 -o "$tmp/s$i" "$src" || { echo "cannot build with $b/bin/mpicc"; exit 1; }
    names="$names s$i"
done
mpicc.mpich -O2 -o "$tmp/mpich" "$src" || { echo "needs mpicc.mpich (apt package libmpich-dev)"; exit 1; }
names="$names mpich"
if [ "${OMPI:-0}" = 1 ] && mpicc.openmpi -O2 -o "$tmp/ompi" "$src" 2>/dev/null; then
    names="$names ompi"
fi
dirs="$*"
run() { # name mode
    case $1 in
    s*) dir=$(echo "$dirs" | awk -v n="${1#s}" '{print $n}')
        timeout 600 "$dir/bin/mpirun" -n 2 --bind-to core "$tmp/$1" "$2" "$max" ;;
    mpich) timeout 600 mpiexec.mpich -launcher fork -bind-to core -n 2 "$tmp/mpich" "$2" "$max" ;;
    ompi) timeout 600 mpirun.openmpi --allow-run-as-root --bind-to core -n 2 "$tmp/ompi" "$2" "$max" ;;
    esac
}
for r in $(seq "$rounds"); do
    for m in $modes; do
        for nm in $names; do
            run "$nm" "$m" 2>/dev/null | awk -v r="$r" -v m="$m" -v nm="$nm" 'NF == 2 {print r, m, nm, $1, $2}'
        done
    done
done > "$tmp/all"
i=0
for b in "$@"; do i=$((i + 1)); echo "# s$i = $b"; done
for m in $modes; do
    case $m in
    lat) what="one-way latency, us" ;;
    xchg) what="time of one exchange (a message each way), us" ;;
    bw) what="bandwidth, MB/s" ;;
    *) what="bidirectional bandwidth, MB/s" ;;
    esac
    echo "# $m: $what; $rounds alternated rounds; ratio = median over rounds of Sluice / MPICH"
    awk -v m="$m" -v names="$names" "$median_awk"'
    $2 != m { next }
    { v[$3, $4, $1] = $5; sizes[$4] = 1; rounds[$1] = 1 }
    END {
        n = split(names, nm, " ")
        printf "%9s", "bytes"
        for (x = 1; x <= n; x++) printf " %10s", nm[x]
        for (x = 1; x <= n; x++) if (nm[x] != "mpich") printf " %9s", nm[x] "/mpich"
        printf "\n"
        k = 0; for (s in sizes) ss[++k] = s + 0
        for (i = 2; i <= k; i++) { t = ss[i]; for (j = i - 1; j >= 1 && ss[j] > t; j--) ss[j + 1] = ss[j]; ss[j + 1] = t }
        for (i = 1; i <= k; i++) {
            s = ss[i]; printf "%9d", s
            for (x = 1; x <= n; x++) {
                c = 0; delete a
                for (r in rounds) if ((nm[x], s, r) in v) a[++c] = v[nm[x], s, r]
                printf " %10.2f", c ? median(a, c) : -1
            }
            for (x = 1; x <= n; x++) {
                if (nm[x] == "mpich") continue
                c = 0; delete a
                for (r in rounds) if ((nm[x], s, r) in v && ("mpich", s, r) in v && v["mpich", s, r] > 0)
                    a[++c] = v[nm[x], s, r] / v["mpich", s, r]
                printf " %9.2f", c ? median(a, c) : -1
            }
            printf "\n"
        }
    }' "$tmp/all"
done
