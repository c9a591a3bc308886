#!/bin/sh
# Paired rounds for leased short-message channels at 2 ranks: per round, a
# base build (e.g. main), then this build with SLUICE_FAST_PEERS=0 ("off")
# and =1 ("on"), the order reversed every other round; prints every round
# (stderr) and the medians and the median per-round ratios on/off and
# off/base (stdout).  MODE lat: bench/mpi_lat8.c, one-way us (N round
# trips); MODE bw: bench/mpi_bw.c, windowed MB/s (N windows of 64).
# usage: sh bench/lease_ab.sh ROUNDS lat|bw SIZE N BASE_BUILD LEASE_BUILD
set -u
R=$1 M=$2 SZ=$3 N=$4 BASE=$5 NEW=$6
if [ "$M" = lat ]; then k=lat8 src=mpi_lat8.c; else k=bw src=mpi_bw.c; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$BASE/bin/mpicc" -O2 -o "$tmp/base" "$(dirname "$0")/$src" || exit 1
"$NEW/bin/mpicc" -O2 -o "$tmp/new" "$(dirname "$0")/$src" || exit 1
run() { # base|off|on
    case $1 in
    base) timeout 120 "$BASE/bin/mpirun" -n 2 "$tmp/base" "$N" "$SZ" ;;
    off) SLUICE_FAST_PEERS=0 timeout 120 "$NEW/bin/mpirun" -n 2 "$tmp/new" "$N" "$SZ" ;;
    on) SLUICE_FAST_PEERS=1 timeout 120 "$NEW/bin/mpirun" -n 2 "$tmp/new" "$N" "$SZ" ;;
    esac | awk -v k=$k '$1==k {print $2}'
}
for r in $(seq "$R"); do
    if [ $((r % 2)) = 1 ]; then ord="base off on"; else ord="on off base"; fi
    for x in $ord; do eval "v_$x=\$(run $x)"; done
    echo "$r $SZ ${v_base:-nan} ${v_off:-nan} ${v_on:-nan}"
done | tee /dev/stderr | awk -v m="$M" '
function med(a, n,  i, j, t) {
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ n++; b[n] = $3; o[n] = $4; l[n] = $5; r1[n] = $5 / $4; r2[n] = $4 / $3; sz = $2 }
END { printf "%s %s B, %d rounds: median base %.3f, off %.3f, on %.3f; median per-round ratio on/off %.3f, off/base %.3f\n", m, sz, n, med(b, n), med(o, n), med(l, n), med(r1, n), med(r2, n) }'
