#!/bin/sh
# Every variant of each collective (forced with SLUICE_COLL_<KIND>) timed
# by bench/mpi_coll.c at a few sizes, so the default table in
# src/coll/select.c can be justified by measurement (docs/COLL.md).
# Prints one line per (collective, variant): latency us at each size.
# usage: [NP=4] [BIND=none] [SIZES="16 1024 65536 1048576"] [KINDS="bcast ..."]
#        sh bench/coll_variants.sh [BUILD_DIR (build)]
set -u
build=${1:-build}
np=${NP:-4}
bind=${BIND:-none}
sizes=${SIZES:-16 1024 65536 1048576}
kinds=${KINDS:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$build/bin/mpicc" -O2 -o "$tmp/coll" "$(dirname "$0")/mpi_coll.c" || exit 1
echo "# $np ranks, bound: $bind, latency us per call ($(date -u +%Y-%m-%d), commit $(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null))"
printf "%-10s %-28s" collective variant
for s in $sizes; do printf " %10s" "$s B"; done
printf "\n"
for spec in "barrier:dissemination butterfly pairwise reduce_bcast" \
            "bcast:knomial knomial:k=4 kary:k=2 chain flat knomial:seg=65536,window=4 \
             scatter_allgather roundopt roundopt:seg=16384" \
            "allreduce:butterfly dissemination reduce_bcast ring" \
            "reduce:knomial kary:k=2 chain flat knomial:seg=65536" \
            "allgather:ring butterfly pairwise dissemination gather_bcast" \
            "alltoall:pairwise pairwise:window=1 bruck"; do
    kind=${spec%%:*}
    [ -n "$kinds" ] && case " $kinds " in *" $kind "*) ;; *) continue ;; esac
    var=SLUICE_COLL_$(echo "$kind" | tr a-z A-Z)
    for v in ${spec#*:}; do
        printf "%-10s %-28s" "$kind" "$v"
        for s in $sizes; do
            [ "$kind" = barrier ] && [ "$s" != "$(echo $sizes | cut -d' ' -f1)" ] && { printf " %10s" "-"; continue; }
            t=$(env "$var=$v" timeout 300 "$build/bin/mpirun" -n "$np" --bind-to "$bind" "$tmp/coll" "$kind" "$s" "$s" 2>/dev/null | awk 'NF == 2 {print $2}')
            printf " %10s" "${t:--}"
        done
        printf "\n"
    done
done
