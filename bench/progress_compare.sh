#!/bin/sh
# The progress benchmark of paper 003 §5.2 (bench/mpi_progress.c, Figure 8)
# for Figures 9(a), 9(b), 10(a) and 10(b), side by side: Sluice automatic,
# Sluice forced to the traditional sender-initiated rendezvous
# (SLUICE_PROTOCOL=traditional), MPICH and Open MPI where installed, the same
# source built by each mpicc.  One table per figure: the median time per
# iteration of each, the paper's two formula values (from C(x) and T(msize)
# measured in the first column's runs), and ratios against MPICH.
#
# The machine is shared: all figures run PROGRESS_REPEATS times (default 3,
# 1 with --quick), one round after the other with the implementations
# interleaved, and every number shown is the smallest over the repeats (load
# spoils a run, never speeds one up).  Ranks are not bound (--bind-to none
# for all three), or bound to a core each with PROGRESS_BIND=core (as
# bench/mpi_compare.sh does; with background load on the machine, unbound
# Sluice ranks were seen to lose hundreds of microseconds per message where
# bound ones did not).
# PROGRESS_TIMEOUT (default 300 s) bounds each run: a failing run is
# reported with its command and its numbers are left out ("-" if no run of
# a row succeeded); an implementation that hangs is reported and not run
# again, so it costs the limit once.
# PROGRESS_STAT=min (or mean) tabulates the fastest 10 iterations in a row
# (or the mean) instead of the median; PROGRESS_ARGS adds arguments to every
# run (e.g. "--iters 1000", the paper's count).
# usage: sh bench/progress_compare.sh [BUILD_DIR (default build)] [--quick]
set -u
build=build
quick=
for a in "$@"; do
    case $a in
    --quick) quick=--quick ;;
    *) build=$a ;;
    esac
done
limit=${PROGRESS_TIMEOUT:-300}
bind=${PROGRESS_BIND:-none}
case $bind in
core) mpich_bind="-bind-to core" ;;
none) mpich_bind= ;;
*) echo "PROGRESS_BIND must be none or core"; exit 2 ;;
esac
repeats=${PROGRESS_REPEATS:-3}
[ -n "$quick" ] && repeats=${PROGRESS_REPEATS:-1}
stat=${PROGRESS_STAT:-median} # or min: which per-iteration time the tables show
case $stat in min) col=7 ;; mean) col=6 ;; *) stat=median col=5 ;; esac
src=$(dirname "$0")/mpi_progress.c
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

compile() { # name mpicc
    if ! command -v "$2" >/dev/null 2>&1 && [ ! -x "$2" ]; then
        echo "# $1 skipped: no $2"; return
    fi
    "$2" -O2 -o "$tmp/$1" "$src" -lm 2> "$tmp/$1.cc" ||
        { echo "# $1 skipped: $2 failed:"; sed 's/^/#   /' "$tmp/$1.cc"; return; }
    echo "$1" >> "$tmp/built"
}
compile sluice "$build/bin/mpicc"
compile mpich mpicc.mpich
compile openmpi mpicc.openmpi
[ -f "$tmp/built" ] || { echo "nothing built"; exit 1; }
built=$(tr '\n' ' ' < "$tmp/built")

names=
for n in $built; do
    case $n in
    sluice) names="$names sluice sluice-trad" ;;
    *) names="$names $n" ;;
    esac
done

echo "# $(nproc) CPUs, ranks bound: $bind, load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -f "$tmp/sluice" ] && ! "$build/bin/sluice_info" 2>/dev/null | grep -q SLUICE_PROTOCOL; then
    echo "# note: this Sluice build does not list SLUICE_PROTOCOL (sluice_info): the"
    echo "#   sluice-trad column runs the default protocols, like the sluice column"
fi

launch() { # name fig repeat -> $tmp/name.fig.repeat.out; non-zero on failure
    n=$1 f=$2 rep=$3 out=$tmp/$1.$2.$3
    [ -f "$tmp/$n.hung" ] && return 1 # one hang costs the limit once, not every run
    case $n in
    sluice) set -- "$build/bin/mpirun" -n 2 --bind-to "$bind" "$tmp/sluice" ;;
    sluice-trad) set -- env SLUICE_PROTOCOL=traditional "$build/bin/mpirun" -n 2 --bind-to "$bind" \
                     "$tmp/sluice" ;;
    mpich) set -- mpiexec.mpich -launcher fork $mpich_bind -n 2 "$tmp/mpich" ;;
    openmpi) set -- mpirun.openmpi --allow-run-as-root --oversubscribe --bind-to "$bind" -n 2 \
                 "$tmp/openmpi" ;;
    esac
    # a hung implementation is reported, not waited for
    timeout -k 10 "$limit" "$@" --fig "$f" $quick ${PROGRESS_ARGS:-} > "$out.out" 2> "$out.err"
    rc=$?
    if [ $rc -ne 0 ] || ! grep -q '^# mpi_progress: ok' "$out.out"; then
        why="exit status $rc"
        if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
            why="timed out after ${limit} s; not run again"
            touch "$tmp/$n.hung"
        fi
        echo "# $n failed on figure $f, run $rep ($why): $* --fig $f $quick ${PROGRESS_ARGS:-}"
        sed 's/^/#   /' "$out.err" | head -20
        mv "$out.out" "$out.failed"
        return 1
    fi
}

# Row by row, the smallest value of each column over the repeats that
# succeeded (a burst of load on the shared machine spoils a run, it never
# speeds one up); comment lines from the first of them.
merge() { # name fig
    set -- "$1" "$2" $(ls "$tmp/$1.$2".*.out 2>/dev/null)
    [ $# -gt 2 ] || return 1
    n=$1 f=$2; shift 2
    awk -v f="$f" '
        FNR == 1 { file++ }
        /^#/ { if (file == 1) print; next }
        $1 == f {
            k = $1 " " $2 " " $3
            if (!(k in row)) { order[++nk] = k; row[k] = $0; next }
            split(row[k], o)
            line = $1 " " $2 " " $3
            for (i = 4; i <= NF; i++) line = line " " (($i != "-" && $i + 0 < o[i] + 0) ? $i : o[i])
            row[k] = line
        }
        END { for (i = 1; i <= nk; i++) print row[order[i]] }' "$@" > "$tmp/$n.$f.out"
}

# repeats outermost: the runs of one figure are spread over the whole job,
# so a burst of load on the machine spoils at most some of them
for r in $(seq "$repeats"); do
    for f in 9a 9b 10a 10b; do
        for n in $names; do launch "$n" "$f" "$r"; done
    done
done
for f in 9a 9b 10a 10b; do
    ran=
    for n in $names; do merge "$n" "$f" && ran="$ran $n"; done
    [ -n "$ran" ] || { echo "# figure $f: nothing ran"; echo; continue; }
    ref=${ran# }; ref=${ref%% *}
    grep '^# figure\|^# ideal' "$tmp/$ref.$f.out"
    iters=$(sed -n 's/.* \([0-9]*\) iterations per row.*/\1/p' "$tmp/$ref.$f.out")
    echo "# us per iteration, $stat of $iters iterations (best of $repeats runs);" \
         "ideal and no_ovl from C(x), T(msize) of the $ref runs; ratio: / MPICH"
    printf '%-20s %8s' config bytes
    for n in $names; do printf ' %11s' "$n"; done
    printf ' %9s %9s' ideal no_ovl
    for n in $names; do [ "$n" = mpich ] || printf ' %11s' "$n/mp"; done
    echo
    # rows in the order the reference printed them: config and size
    awk -v f="$f" '$1 == f {print $2, $3}' "$tmp/$ref.$f.out" | while read -r cfg bytes; do
        printf '%-20s %8s' "$cfg" "$bytes"
        for n in $names; do
            v=$(awk -v f="$f" -v c="$cfg" -v b="$bytes" '$1==f && $2==c && $3==b {print $k}' \
                k=$col "$tmp/$n.$f.out" 2>/dev/null)
            printf ' %11s' "${v:--}"
        done
        awk -v f="$f" -v c="$cfg" -v b="$bytes" \
            '$1==f && $2==c && $3==b {printf " %9s %9s", $8, $9}' "$tmp/$ref.$f.out"
        m=$(awk -v f="$f" -v c="$cfg" -v b="$bytes" '$1==f && $2==c && $3==b {print $k}' \
            k=$col "$tmp/mpich.$f.out" 2>/dev/null)
        for n in $names; do
            [ "$n" = mpich ] && continue
            v=$(awk -v f="$f" -v c="$cfg" -v b="$bytes" '$1==f && $2==c && $3==b {print $k}' \
                k=$col "$tmp/$n.$f.out" 2>/dev/null)
            if [ -n "$v" ] && [ -n "$m" ]; then
                awk -v a="$v" -v b="$m" 'BEGIN{printf " %11.2f", a/b}'
            else printf ' %11s' -; fi
        done
        echo
    done
    echo
done

echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
# what the formulas were made of, per implementation
echo "# C(1) measured, us (requested 18), first run of figures 9a 9b 10a 10b"
for n in $names; do
    printf '%-12s' "$n"
    for f in 9a 9b 10a 10b; do
        v=$(sed -n 's/.*C(1) = \([0-9.]*\) us.*/\1/p' "$tmp/$n.$f.out" 2>/dev/null)
        printf ' %7s' "${v:--}"
    done
    echo
done
echo "# T(msize): plain ping-pong, fastest half round trip, us (first figure with the size)"
printf '%8s' bytes; for n in $names; do printf ' %11s' "$n"; done; echo
sizes=$(cat "$tmp"/*.out | awk '$1 ~ /^(9a|9b|10a|10b)$/ {print $3}' | sort -n | uniq)
for s in $sizes; do
    printf '%8s' "$s"
    for n in $names; do
        v=$(for f in 9a 9b 10a 10b; do cat "$tmp/$n.$f.out" 2>/dev/null; done |
            awk -v s="$s" '$1 ~ /^(9a|9b|10a|10b)$/ && $3==s {print $4; exit}')
        printf ' %11s' "${v:--}"
    done
    echo
done
