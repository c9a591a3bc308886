#!/bin/sh
# The cost of posting a collective (the application thread's time in the
# non-blocking call: build or cache lookup, then the host executor's start
# or the offload executor's compile), per variant and rank count, host
# against offload, at a few sizes (bench/mpi_coll.c overlap mode, post_us
# column; medians of ROUNDS alternated runs).
# usage: [NPS="2 4 8"] [SIZES="4 65536"] sh bench/offload_post.sh [ROUNDS (3)] [BUILD_DIR (build)]
set -u
median_awk=$(cat "$(dirname "$0")/median.awk")
rounds=${1:-3}
build=${2:-build}
nps=${NPS:-2 4 8}
sizes=${SIZES:-4 65536}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$build/bin/mpicc" -O2 -o "$tmp/mc" "$(dirname "$0")/mpi_coll.c" || exit 1
max=0
for s in $sizes; do [ "$s" -gt "$max" ] && max=$s; done
# kind:variant pairs (SLUICE_COLL_<KIND>=variant)
cases=${CASES:-"ibcast:kary ibcast:knomial ibcast:chain ibcast:flat ibcast:scatter_allgather ibcast:roundopt
iallreduce:butterfly iallreduce:dissemination iallreduce:ring iallreduce:reduce_bcast
ialltoall:pairwise ialltoall:bruck iallgather:ring iallgather:butterfly iallgather:dissemination
ibarrier:butterfly ibarrier:dissemination"}
for r in $(seq "$rounds"); do
    for np in $nps; do
        bind=core
        [ "$np" -gt "$(nproc)" ] && bind=none
        for c in $cases; do
            mode=${c%%:*} var=${c#*:}
            env=$(echo "${mode#i}" | tr a-z A-Z)
            for ex in host offload; do
                env "SLUICE_COLL_$env=$var" SLUICE_COLL_EXECUTOR=$ex ITERS=40 \
                    timeout 300 "$build/bin/sluicerun" -n "$np" --bind-to "$bind" "$tmp/mc" "$mode" "$max" 2>/dev/null |
                    awk -v np="$np" -v c="$c" -v ex="$ex" -v sz=" $sizes " \
                        'index(sz, " " $1 " ") {print np, c, ex, $1, $5}'
            done
        done
    done
done > "$tmp/all"
echo "# time in the post call, us (median of $rounds rounds), $(date -u +%Y-%m-%d), commit $(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null)"
awk "$median_awk"'
{ k = $1 " " $2 " " $4; v[k, $3, ++n[k, $3]] = $5; keys[k] = 1 }
END {
    printf "%5s %-28s %9s %10s %10s\n", "ranks", "call:variant", "bytes", "host", "offload"
    for (k in keys) {
        split(k, f, " ")
        q = n[k, "host"]; delete a; for (i = 1; i <= q; i++) a[i] = v[k, "host", i]
        h = q ? median(a, q) : -1
        q = n[k, "offload"]; delete a; for (i = 1; i <= q; i++) a[i] = v[k, "offload", i]
        o = q ? median(a, q) : -1
        printf "%5d %-28s %9d %10.2f %10.2f\n", f[1], f[2], f[3], h, o
    }
}' "$tmp/all" | sort -k1,1n -k2,2 -k3,3n
