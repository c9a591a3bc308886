#!/bin/sh
# The progress benchmark of paper 003 §5.2 (bench/mpi_progress.c, Figure 8)
# for Figures 9(a), 9(b), 10(a) and 10(b), side by side: Sluice automatic,
# Sluice forced to the traditional sender-initiated rendezvous
# (SLUICE_PROTOCOL=traditional), MPICH and Open MPI where installed, the same
# source built by each mpicc.  One table per figure: median time per
# iteration for each, the paper's two formula values (from C(x) and T(msize)
# measured in the first column's run), and ratios against MPICH.  Each
# figure runs every implementation in turn, so the columns of one table were
# measured minutes apart at most on a shared machine.  Ranks are not bound
# (--bind-to none for all three: a shared 2-core machine); PROGRESS_TIMEOUT
# (default 300 s) bounds each run, and a hung or failing implementation is
# reported and shown as "-", not waited for.  PROGRESS_STAT=min (or mean)
# tabulates the fastest (or mean) iteration instead of the median;
# PROGRESS_ARGS adds arguments to every run (e.g. "--iters 1000", the paper's).
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

echo "# $(uname -n), $(nproc) CPUs, load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -f "$tmp/sluice" ] && ! "$build/bin/sluice_info" 2>/dev/null | grep -q SLUICE_PROTOCOL; then
    echo "# note: this Sluice build does not list SLUICE_PROTOCOL (sluice_info): the"
    echo "#   sluice-trad column runs the default protocols, like the sluice column"
fi

launch() { # name fig -> $tmp/name.fig.out; returns non-zero on failure
    n=$1 f=$2 out=$tmp/$1.$2
    case $n in
    sluice) set -- "$build/bin/mpirun" -n 2 --bind-to none "$tmp/sluice" ;;
    sluice-trad) set -- env SLUICE_PROTOCOL=traditional "$build/bin/mpirun" -n 2 --bind-to none \
                     "$tmp/sluice" ;;
    mpich) set -- mpiexec.mpich -launcher fork -n 2 "$tmp/mpich" ;;
    openmpi) set -- mpirun.openmpi --allow-run-as-root --oversubscribe --bind-to none -n 2 \
                 "$tmp/openmpi" ;;
    esac
    # a hung implementation is reported, not waited for
    timeout -k 10 "$limit" "$@" --fig "$f" $quick ${PROGRESS_ARGS:-} > "$out.out" 2> "$out.err"
    rc=$?
    if [ $rc -ne 0 ] || ! grep -q '^# mpi_progress: ok' "$out.out"; then
        [ $rc -eq 124 ] && why="timed out after ${limit} s" || why="exit status $rc"
        echo "# $n failed on figure $f ($why): $* --fig $f $quick ${PROGRESS_ARGS:-}"
        sed 's/^/#   /' "$out.err" | head -20
        mv "$out.out" "$out.failed"
        return 1
    fi
}

for f in 9a 9b 10a 10b; do
    ran=
    for n in $names; do launch "$n" "$f" && ran="$ran $n"; done
    [ -n "$ran" ] || { echo "# figure $f: nothing ran"; echo; continue; }
    ref=${ran# }; ref=${ref%% *}
    grep '^# figure\|^# ideal' "$tmp/$ref.$f.out"
    iters=$(sed -n 's/.* \([0-9]*\) iterations per row.*/\1/p' "$tmp/$ref.$f.out")
    echo "# us per iteration, $stat of $iters iterations; ideal and no_ovl from C(x), T(msize) of the $ref run; ratio: / MPICH"
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
            if [ -n "$v" ] && [ -n "$m" ]; then awk -v a="$v" -v b="$m" 'BEGIN{printf " %11.2f", a/b}'
            else printf ' %11s' -; fi
        done
        echo
    done
    echo
done

# what the formulas were made of, per implementation
echo "# C(1) measured in each run, us (requested 18): figures 9a 9b 10a 10b"
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
        v=$(for f in 9a 9b 10a 10b; do cat "$tmp/$n.$f.out" 2>/dev/null; done | awk -v s="$s" '$1 ~ /^(9a|9b|10a|10b)$/ && $3==s {print $4; exit}')
        printf ' %11s' "${v:--}"
    done
    echo
done
