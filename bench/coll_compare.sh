#!/bin/sh
# Collectives: Sluice against MPICH and Open MPI (bench/mpi_coll.c built by
# each one's mpicc), the three alternated in every round.  Blocking modes
# print per size the median latency of each and the median per-round
# ratio of Sluice to the better of MPICH and Open MPI; overlap modes
# (ibcast, iallreduce, ...) print overlap % and the CPU time spent in the
# calls, per implementation.  OFFLOAD=1 adds a column "offload": Sluice
# with every collective on the offload executor (SLUICE_COLL_EXECUTOR);
# SCHED=1 a column "sched": Sluice with small blocking calls on schedules
# too (SLUICE_COLL_DIRECT_MAX=-1, no direct path; docs/COLL.md).
# usage: [MODES="barrier bcast allreduce ..."] [NP=2] [MAX=4194304] [BIND=core|none] [OFFLOAD=1] [SCHED=1]
#        sh bench/coll_compare.sh [ROUNDS (3)] [BUILD_DIR (build)]
set -u
median_awk=$(cat "$(dirname "$0")/median.awk")
rounds=${1:-3}
build=${2:-build}
modes=${MODES:-barrier bcast allreduce alltoall allgather reduce}
np=${NP:-2}
max=${MAX:-4194304}
bind=${BIND:-core}
src=$(dirname "$0")/mpi_coll.c
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] && cp "$tmp/all" "$KEEP"; rm -rf "$tmp"' EXIT
"$build/bin/mpicc" -O2 -o "$tmp/sluice" "$src" || exit 1
names=sluice
[ -n "${OFFLOAD:-}" ] && names="$names offload"
[ -n "${SCHED:-}" ] && names="$names sched"
mpicc.mpich -O2 -o "$tmp/mpich" "$src" 2>/dev/null && names="$names mpich"
mpicc.openmpi -O2 -o "$tmp/ompi" "$src" 2>/dev/null && names="$names ompi"
over=""
[ "$np" -gt "$(nproc)" ] && over=1
run() { # name mode
    case $1 in
    sluice) timeout 900 "$build/bin/mpirun" -n "$np" --bind-to "$bind" "$tmp/sluice" "$2" "$max" ;;
    offload) SLUICE_COLL_EXECUTOR=offload timeout 900 "$build/bin/mpirun" -n "$np" \
                 --bind-to "$bind" "$tmp/sluice" "$2" "$max" ;;
    sched) SLUICE_COLL_DIRECT_MAX=-1 timeout 900 "$build/bin/mpirun" -n "$np" \
               --bind-to "$bind" "$tmp/sluice" "$2" "$max" ;;
    mpich) timeout 900 mpiexec.mpich -launcher fork -bind-to "$bind" -n "$np" "$tmp/mpich" "$2" "$max" ;;
    ompi) timeout 900 mpirun.openmpi --allow-run-as-root ${over:+--oversubscribe} \
              --bind-to "$bind" -n "$np" "$tmp/ompi" "$2" "$max" ;;
    esac
}
for r in $(seq "$rounds"); do
    for m in $modes; do
        for nm in $names; do
            run "$nm" "$m" 2>/dev/null | awk -v r="$r" -v m="$m" -v nm="$nm" \
                'NF >= 2 {printf "%s %s %s", r, m, nm; for (i = 1; i <= NF; i++) printf " %s", $i; printf "\n"}'
        done
    done
done > "$tmp/all"
echo "# $np ranks, bound: $bind, $rounds alternated rounds, $(date -u +%Y-%m-%d), commit $(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null)"
for m in $modes; do
    case $m in
    i*) echo "# $m: overlap % (no MPI_Test while computing) / CPU us in the calls, medians" ;;
    *) echo "# $m: latency us (medians); ratio = median over rounds of sluice / min(mpich, ompi)" ;;
    esac
    awk -v m="$m" -v names="$names" "$median_awk"'
    $2 != m { next }
    { v[$3, $4, $1] = $5; c[$3, $4, $1] = $7; sizes[$4] = 1; rounds[$1] = 1 }
    END {
        n = split(names, nm, " "); nb = substr(m, 1, 1) == "i"
        printf "%9s", "bytes"
        for (x = 1; x <= n; x++) printf " %14s", nm[x]
        if (!nb) printf " %9s", "ratio"
        printf "\n"
        k = 0; for (s in sizes) ss[++k] = s + 0
        for (i = 2; i <= k; i++) { t = ss[i]; for (j = i - 1; j >= 1 && ss[j] > t; j--) ss[j + 1] = ss[j]; ss[j + 1] = t }
        for (i = 1; i <= k; i++) {
            s = ss[i]; printf "%9d", s
            for (x = 1; x <= n; x++) {
                q = 0; delete a; delete b
                for (r in rounds) if ((nm[x], s, r) in v) { a[++q] = v[nm[x], s, r]; b[q] = c[nm[x], s, r] }
                if (!q) printf " %14s", "-"
                else if (nb) printf " %7.1f/%6.2f", median(a, q), median(b, q)
                else printf " %14.2f", median(a, q)
            }
            if (!nb) {
                q = 0; delete a
                for (r in rounds) {
                    best = -1
                    for (x = 2; x <= n; x++) if (nm[x] != "offload" && nm[x] != "sched" && (nm[x], s, r) in v && (best < 0 || v[nm[x], s, r] < best)) best = v[nm[x], s, r]
                    if (("sluice", s, r) in v && best > 0) a[++q] = v["sluice", s, r] / best
                }
                printf " %9.2f", q ? median(a, q) : -1
            }
            printf "\n"
        }
    }' "$tmp/all"
done
