#!/bin/sh
# NetPIPE (an independent ping-pong harness: every size from 1 byte up, each
# also 3 bytes below and above, so unaligned lengths too) on 2 ranks bound
# one per core: the MPICH-built NPmpich2 (Debian netpipe-mpich2) unchanged on
# Sluice's MPICH ABI library and on MPICH 4.0.2, and NPopenmpi (netpipe-
# openmpi) on Open MPI, alternated in every round.  NetPIPE reports each
# size's best trial; this prints per size the median over rounds of each
# one-way time (us) and the medians of the per-round ratios Sluice / MPICH and
# Sluice / Open MPI (below 1: Sluice faster).  Single NetPIPE runs swing by
# 2-3x over stretches of sizes on this shared VM (for MPICH as for Sluice):
# only alternated rounds mean anything.
# usage: [LO=1] [HI=4194304] sh bench/netpipe_compare.sh [ROUNDS (3)] [BUILD_DIR (build)]
set -u
rounds=${1:-3}
build=$(cd "${2:-build}" 2>/dev/null && pwd) || { echo "no build dir ${2:-build}"; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
lo=${LO:-1}
hi=${HI:-4194304}
abi=$(cd "$build/lib/sluice-mpich" 2>/dev/null && pwd) || { echo "no $build/lib/sluice-mpich"; exit 1; }
command -v NPmpich2 >/dev/null || { echo "NPmpich2 missing (Debian package netpipe-mpich2)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
np() { # name round command...
    name=$1 r=$2; shift 2
    timeout 600 "$@" -l "$lo" -u "$hi" -o "$tmp/$name.$r" > "$tmp/$name.$r.log" 2>&1 ||
        { echo "# $name failed in round $r:"; tail -5 "$tmp/$name.$r.log"; }
}
for r in $(seq 1 "$rounds"); do
    LD_LIBRARY_PATH=$abi np sluice "$r" "$build/bin/sluicerun" -n 2 --bind-to core NPmpich2
    np mpich "$r" mpiexec.mpich -launcher fork -bind-to core -n 2 NPmpich2
    if command -v NPopenmpi >/dev/null && command -v mpirun.openmpi >/dev/null; then
        np ompi "$r" mpirun.openmpi --allow-run-as-root --oversubscribe --bind-to core -n 2 NPopenmpi
    fi
done
# columns of a NetPIPE output file: bytes, Mbps, seconds (one way)
for f in "$tmp"/*.[0-9]*; do
    case $f in *.log) continue ;; esac
    n=$(basename "$f"); awk -v n="${n%.*}" -v r="${n##*.}" '{ printf "%s %s %d %.6f\n", n, r, $1, $3 * 1e6 }' "$f"
done > "$tmp/all"
echo "# NetPIPE one-way latency, us (median of $rounds alternated rounds of each size's best trial);"
echo "# ratios: median over rounds of Sluice / MPICH and Sluice / Open MPI"
{ cat "$here/median.awk"; cat <<'AWK'
{ v[$1, $2, $3] = $4; sizes[$3] = 1; rs[$2] = 1 }
END {
    split("sluice mpich ompi", names, " ")
    printf "%10s %10s %10s %10s %9s %9s\n", "bytes", "sluice", "mpich", "ompi", "s/mpich", "s/ompi"
    n = 0; for (s in sizes) list[++n] = s + 0
    for (i = 2; i <= n; i++) { t = list[i]; for (j = i - 1; j >= 1 && list[j] > t; j--) list[j + 1] = list[j]; list[j + 1] = t }
    for (i = 1; i <= n; i++) {
        s = list[i]; printf "%10d", s
        for (k = 1; k <= 3; k++) {
            m = 0; for (r in rs) if ((names[k], r, s) in v) a[++m] = v[names[k], r, s]
            if (m) printf " %10.2f", median(a, m); else printf " %10s", "-"
        }
        for (k = 2; k <= 3; k++) {
            m = 0; for (r in rs) if (("sluice", r, s) in v && (names[k], r, s) in v && v[names[k], r, s] > 0)
                a[++m] = v["sluice", r, s] / v[names[k], r, s]
            if (m) printf " %9.2f", median(a, m); else printf " %9s", "-"
        }
        printf "\n"
    }
}
AWK
} > "$tmp/report.awk"
awk -f "$tmp/report.awk" "$tmp/all"
