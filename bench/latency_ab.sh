#!/bin/sh
# The one-way latency of one or more Sluice builds and MPICH, alternated
# over ROUNDS rounds (bench/mpi_lat8.c built by each mpicc): prints the
# median, min and max of each, and the median of the per-round ratios to
# MPICH.  Comparing two Sluice commits: build each, pass both dirs.
# Message sizes: SIZES="8 1024 4096" (default 8); larger sizes run fewer
# round trips (ROUND_TRIPS * 1024 / size, at least 2,000).
# MODE=bw measures windowed bandwidth instead (bench/mpi_bw.c, 64 in flight,
# MB/s, higher is better; SIZES default 1048576): each point moves
# ROUND_TRIPS MiB (default 4096), in 8 to 5,000 windows.
# usage: [MODE=bw] [SIZES=...] sh bench/latency_ab.sh [ROUNDS (5)] [ROUND_TRIPS (100000)] BUILD_DIR...
set -u
median_awk=$(cat "$(dirname "$0")/median.awk")
mode=${MODE:-lat}
rounds=${1:-5}
if [ "$mode" = bw ]; then
    src=$(dirname "$0")/mpi_bw.c key=bw fmt=%8.0f iters=${2:-4096} sizes=${SIZES:-1048576}
    title="windowed bandwidth (64 in flight), MB/s: $rounds alternated rounds of $iters MiB per point"
else
    src=$(dirname "$0")/mpi_lat8.c key=lat8 fmt=%8.3f iters=${2:-100000} sizes=${SIZES:-8}
    title="one-way latency, us: $rounds alternated rounds of $iters round trips (fewer above 1 KiB)"
fi
shift 2 2>/dev/null || set --
[ $# -gt 0 ] || set -- build
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
i=0
for b in "$@"; do
    i=$((i + 1))
    "$b/bin/mpicc" -O2 -o "$tmp/s$i" "$src" || { echo "cannot build with $b/bin/mpicc"; exit 1; }
done
have_mpich=0
mpicc.mpich -O2 -o "$tmp/mpich" "$src" 2>/dev/null && have_mpich=1
for r in $(seq "$rounds"); do
    for sz in $sizes; do
        if [ "$mode" = bw ]; then # windows of 64 messages
            n=$((iters * 1048576 / 64 / sz))
            [ "$n" -lt 8 ] && n=8
            [ "$n" -gt 5000 ] && n=5000
        else
            n=$iters
            [ "$sz" -gt 1024 ] && n=$((iters * 1024 / sz))
            [ "$n" -lt 2000 ] && n=2000
        fi
        i=0
        for b in "$@"; do
            i=$((i + 1))
            v=$(timeout 120 "$b/bin/mpirun" -n 2 "$tmp/s$i" "$n" "$sz" | awk -v k=$key '$1==k {print $2}')
            echo "$r $sz $b ${v:-nan}"
        done
        if [ $have_mpich = 1 ]; then
            v=$(timeout 120 mpiexec.mpich -launcher fork -bind-to core -n 2 "$tmp/mpich" "$n" "$sz" |
                awk -v k=$key '$1==k {print $2}')
            echo "$r $sz mpich ${v:-nan}"
        fi
    done
done > "$tmp/all"
echo "# $title"
for sz in $sizes; do
awk -v sz="$sz" -v fmt="$fmt" "$median_awk"'
$2 != sz { next }
{ v[$3, $1] = $4; if (!($3 in seen)) { seen[$3] = 1; names[++n] = $3 } rounds[$1] = 1 }
END {
    printf "%-28s %8s %8s %8s %12s\n", sz " bytes: build", "median", "min", "max", "/mpich (med)"
    for (x = 1; x <= n; x++) {
        k = 0; kr = 0; delete a; delete q
        for (r in rounds) {
            if ((names[x], r) in v) a[++k] = v[names[x], r]
            if ((names[x], r) in v && ("mpich", r) in v) q[++kr] = v[names[x], r] / v["mpich", r]
        }
        med = median(a, k); lo = a[1]; hi = a[k]
        printf "%-28s " fmt " " fmt " " fmt, names[x], med, lo, hi
        if (kr && names[x] != "mpich") printf " %12.2f", median(q, kr); else printf " %12s", "-"
        printf "\n"
    }
}' "$tmp/all"
done
