#!/bin/sh
# Memory per rank and start-up time as the job grows: Sluice (default wire,
# and with SLUICE_FLOWCTL=dynamic), MPICH and Open MPI, bench/mpi_mem.c
# built by each one's mpicc, the implementations alternated in every round
# and at every job size.  Prints, for the phases "after MPI_Init" and
# "after MPI_Alltoall", per job size the median over the ranks (and the
# largest rank) of: shared-memory mappings (mapped size, Rss, Pss),
# other shared file mappings, private resident memory (RssAnon), VmRSS,
# page tables (VmPTE), and the job's /dev/shm use per rank (statvfs during the run minus before).
# Then the start-up time: MPI_Init entry of the first rank to the barrier
# exit of the last, the per-rank median, and the launcher's wall time.
# Every run is time-limited (TIMEOUT s): a run that does not finish is
# reported as "timeout" (or "fail"), not waited for.  With ROUNDS > 1 every
# number is the median over the rounds.
# MPIS may also name sluice-lease: static, short rings leased to
# SLUICE_FAST_PEERS=${FAST_PEERS:-4} senders per receiver.
# usage: [NP="2 16 64 128 256"] [MPIS="sluice sluice-dyn mpich ompi"]
#        [MODES="mem startup"] [TIMEOUT=600] [BIND=none] [KEEP=file]
#        sh bench/mem_scale.sh [ROUNDS (1)] [BUILD_DIR (build)]
# smoke: NP="2 4" sh bench/mem_scale.sh 1 build
set -u
median_awk=$(cat "$(dirname "$0")/median.awk")
rounds=${1:-1}
build=${2:-build}
nps=${NP:-2 16 64 128 256}
mpis=${MPIS:-sluice sluice-dyn mpich ompi}
modes=${MODES:-mem startup}
limit=${TIMEOUT:-600}
bind=${BIND:-none}
src=$(dirname "$0")/mpi_mem.c
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] && cp "$tmp/all" "$KEEP"; rm -rf "$tmp"' EXIT
names=""
for nm in $mpis; do
    case $nm in
    sluice | sluice-dyn | sluice-lease)
        [ -x "$tmp/sluice" ] || "$build/bin/mpicc" -O2 -o "$tmp/sluice" "$src" || exit 1
        names="$names $nm" ;;
    mpich) mpicc.mpich -O2 -o "$tmp/mpich" "$src" 2>/dev/null && names="$names mpich" ;;
    ompi) mpicc.openmpi -O2 -o "$tmp/ompi" "$src" 2>/dev/null && names="$names ompi" ;;
    esac
done
shm_used() { df -B1 --output=used /dev/shm | tail -n 1 | tr -d ' '; }
shm_free() { df -B1 --output=avail /dev/shm | tail -n 1 | tr -d ' '; }
run() { # name np mode
    case $1 in
    sluice) SLUICE_FLOWCTL=static timeout -k 10 "$limit" "$build/bin/mpirun" -n "$2" \
                --bind-to "$bind" "$tmp/sluice" "$3" ;;
    sluice-dyn) SLUICE_FLOWCTL=dynamic timeout -k 10 "$limit" "$build/bin/mpirun" -n "$2" \
                --bind-to "$bind" "$tmp/sluice" "$3" ;;
    sluice-lease) SLUICE_FLOWCTL=static SLUICE_FAST_PEERS=${FAST_PEERS:-4} timeout -k 10 "$limit" \
                "$build/bin/mpirun" -n "$2" --bind-to "$bind" "$tmp/sluice" "$3" ;;
    mpich) timeout -k 10 "$limit" mpiexec.mpich -launcher fork -bind-to "$bind" -n "$2" \
               "$tmp/mpich" "$3" ;;
    ompi) timeout -k 10 "$limit" mpirun.openmpi --allow-run-as-root --oversubscribe \
              --bind-to "$bind" -n "$2" "$tmp/ompi" "$3" ;;
    esac
}
now_ns() { date +%s%N; }
{
    echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null), $(nproc) CPUs, bound: $bind, $rounds round(s), at most ${limit}s per run"
    echo "# sluice: SLUICE_FLOWCTL=static, sluice-dyn: SLUICE_FLOWCTL=dynamic, sluice-lease: static with SLUICE_FAST_PEERS=${FAST_PEERS:-4}; settings the library reads:"
    if [ -x "$build/bin/sluice_info" ]; then
        if "$build/bin/sluice_info" --settings 2>/dev/null | grep -q SLUICE_FLOWCTL; then
            echo "#   SLUICE_FLOWCTL is a setting of this build"
        else
            echo "#   SLUICE_FLOWCTL is NOT a setting of this build (sluice_info --settings): both columns run the same static wire"
        fi
    fi
    echo "# /dev/shm before: $(df -h /dev/shm | tail -n 1)"
} > "$tmp/head"
cat "$tmp/head" >&2
for r in $(seq "$rounds"); do
    for np in $nps; do
        for m in $modes; do
            for nm in $names; do
                base=$(shm_used)
                t0=$(now_ns)
                DEVSHM_BASE=$base run "$nm" "$np" "$m" > "$tmp/out" 2> "$tmp/err"
                rc=$?
                t1=$(now_ns)
                left=$(( $(shm_used) - base ))
                echo "# round $r np $np $m $nm: exit $rc, $(( (t1 - t0) / 1000000 )) ms, /dev/shm left after the job $left B, free $(shm_free) B" >&2
                if [ "$rc" -ne 0 ]; then
                    why=fail
                    [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && why=timeout
                    echo "$r $np $nm $m $why $rc"
                    tail -n 3 "$tmp/err" | sed "s/^/#   $nm: /" >&2
                    continue
                fi
                awk -v r="$r" -v np="$np" -v nm="$nm" -v m="$m" -v wall=$(( (t1 - t0) / 1000 )) '
                    $1 == "mem" { print r, np, nm, "mem", $2, $3, $4, $5, $6 }
                    $1 == "devshm" { print r, np, nm, "mem", $2, "devshm", $3 / np, $3 / np, $3 / np }
                    $1 == "startup" { print r, np, nm, "startup", $2, $3, $4, wall }
                ' "$tmp/out"
                [ "$left" -gt 0 ] && echo "$r $np $nm $m left $left"
            done
        done
    done
done > "$tmp/all"
cat "$tmp/head"
awk -v names="$names" -v nps="$nps" "$median_awk"'
function cell(key, k,   q, r, a) {
    q = 0
    for (r = 1; r <= R; r++) if ((key, r) in v) a[++q] = v[key, r]
    return q ? median(a, q) : ""
}
function failed(np, nm, m,   r, s) {
    s = ""
    for (r = 1; r <= R; r++) if ((np, nm, m, r) in bad) s = bad[np, nm, m, r]
    return s
}
$4 == "mem" && NF == 9 { for (i = 7; i <= 9; i++) v[$2, $3, $5, $6, i, $1] = $i; if ($1 > R) R = $1; next }
$4 == "startup" && NF == 8 { for (i = 6; i <= 8; i++) v[$2, $3, "startup", i, $1] = $i; if ($1 > R) R = $1; next }
$5 == "timeout" || $5 == "fail" { bad[$2, $3, $4, $1] = $5; if ($1 > R) R = $1; next }
$5 == "left" { left[$2, $3] = $6 }
END {
    n = split(names, nm, " "); k = split(nps, np, " ")
    split("shm_size shm_rss shm_pss oth_size oth_rss oth_pss rss_anon vm_rss vm_pte devshm", met, " ")
    what["shm_size"] = "shared-memory mappings (/dev/shm, SYSV, memfd): mapped size"
    what["shm_rss"] = "shared-memory mappings: resident (Rss; pages of peers\047 segments count in every rank that touched them)"
    what["shm_pss"] = "shared-memory mappings: proportional (Pss; summed over ranks = the job\047s resident shared memory)"
    what["oth_size"] = "other shared file mappings (e.g. under /tmp): mapped size"
    what["oth_rss"] = "other shared file mappings: Rss"
    what["oth_pss"] = "other shared file mappings: Pss"
    what["rss_anon"] = "private resident memory (RssAnon)"
    what["vm_rss"] = "all resident memory (VmRSS)"
    what["vm_pte"] = "page tables (VmPTE)"
    what["devshm"] = "job\047s /dev/shm use (statvfs during the run - before) / ranks"
    for (ph = 1; ph <= 2; ph++) {
        phase = ph == 1 ? "init" : "alltoall"
        for (x = 1; x <= 10; x++) {
            mt = met[x]
            if (mt ~ /^oth/) { any = 0; for (key in v) { split(key, kk, SUBSEP); if (kk[4] == mt && v[key] >= 65536) any = 1 } if (!any) continue }
            printf "\n# after MPI_%s: %s; MiB per rank, median over ranks (max)\n", phase == "init" ? "Init" : "Alltoall", what[mt]
            printf "%6s", "ranks"; for (j = 1; j <= n; j++) printf " %19s", nm[j]; printf "\n"
            for (i = 1; i <= k; i++) {
                printf "%6d", np[i]
                for (j = 1; j <= n; j++) {
                    md = cell(np[i] SUBSEP nm[j] SUBSEP phase SUBSEP mt SUBSEP 8)
                    mx = cell(np[i] SUBSEP nm[j] SUBSEP phase SUBSEP mt SUBSEP 9)
                    if (md == "") { f = failed(np[i], nm[j], "mem"); printf " %19s", f == "" ? "-" : f }
                    else printf " %19s", sprintf("%.2f (%.2f)", md / 1048576, mx / 1048576)
                }
                printf "\n"
            }
        }
    }
    for (x = 6; x <= 8; x++) {
        if (x == 6) printf "\n# start-up: first rank\047s MPI_Init entry to the last rank\047s exit from the first MPI_Barrier, ms\n"
        if (x == 7) printf "\n# start-up: per-rank MPI_Init entry to barrier exit, median over ranks, ms\n"
        if (x == 8) printf "\n# whole job: wall time of the launcher (start, init, barrier, finalize, exit), ms\n"
        printf "%6s", "ranks"; for (j = 1; j <= n; j++) printf " %12s", nm[j]
        for (j = 1; j <= n; j++) if (nm[j] != "sluice") printf " %12s", "sluice/" nm[j]
        printf "\n"
        for (i = 1; i <= k; i++) {
            printf "%6d", np[i]
            for (j = 1; j <= n; j++) {
                c = cell(np[i] SUBSEP nm[j] SUBSEP "startup" SUBSEP x)
                if (c == "") { f = failed(np[i], nm[j], "startup"); printf " %12s", f == "" ? "-" : f }
                else printf " %12.1f", c / 1000
            }
            for (j = 1; j <= n; j++) {
                if (nm[j] == "sluice") continue
                q = 0; delete a
                for (r = 1; r <= R; r++) {
                    s = np[i] SUBSEP "sluice" SUBSEP "startup" SUBSEP x SUBSEP r
                    o = np[i] SUBSEP nm[j] SUBSEP "startup" SUBSEP x SUBSEP r
                    if ((s in v) && (o in v) && v[o] > 0) a[++q] = v[s] / v[o]
                }
                printf " %12s", q ? sprintf("%.2f", median(a, q)) : "-"
            }
            printf "\n"
        }
    }
    for (key in left) { split(key, kk, SUBSEP); printf "# warning: %s at %d ranks left %d bytes in /dev/shm\n", kk[2], kk[1], left[key] }
}' "$tmp/all"
