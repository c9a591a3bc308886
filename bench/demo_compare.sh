#!/bin/sh
# The demonstration program (bench/mpi_demo.c) on N ranks (default 4: two
# pairs at once on this 2-core machine), built with Sluice's mpicc and,
# where installed, MPICH's and Open MPI's, and printed side by side:
# latency, bandwidth and overlap, with ratios against MPICH.
# usage: sh bench/demo_compare.sh [BUILD_DIR (default build)] [N] [--quick]
set -u
build=${1:-build}
n=${2:-4}
quick=${3:-}
src=$(dirname "$0")/mpi_demo.c
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() { # name mpicc launcher...
    name=$1 cc=$2; shift 2
    if ! command -v "$cc" >/dev/null 2>&1 && [ ! -x "$cc" ]; then
        echo "# $name skipped: no $cc"; return
    fi
    "$cc" -O2 -o "$tmp/$name" "$src" || { echo "# $name skipped: $cc failed"; return; }
    timeout 600 "$@" "$tmp/$name" $quick > "$tmp/$name.out" 2> "$tmp/$name.err" ||
        { echo "# $name failed or timed out:"; sed 's/^/#   /' "$tmp/$name.err" | head -5; return; }
    echo "$name" >> "$tmp/ran"
}
run sluice "$build/bin/mpicc" "$build/bin/mpirun" -n "$n"
run mpich mpicc.mpich mpiexec.mpich -launcher fork -n "$n"
run openmpi mpicc.openmpi mpirun.openmpi --allow-run-as-root --oversubscribe -n "$n"
[ -f "$tmp/ran" ] || { echo "nothing ran"; exit 1; }
names=$(tr '\n' ' ' < "$tmp/ran")
first=$(head -n 1 "$tmp/ran")
# value SECTION KEY NAME: column 2 (latency, bandwidth) or the overlap's
# "T hidden" of one implementation's output
value() {
    awk -v sec="$1" -v key="$2" '
        /^# / { s = substr($2, 1, 1) }
        s == sec && !/^#/ && $1 == key { print (sec == 3 ? $NF : $2) }
        s == sec && !/^#/ && sec == 3 && $1" "$2 == key { print $NF }' "$tmp/$3.out"
}
for sec in 1 2 3; do
    grep "^# $sec\\." "$tmp/$first.out" | sed 's/, mean over pairs//'
    case $sec in 1) unit="us" ;; 2) unit="MB/s" ;; 3) unit="hidden" ;; esac
    printf '%-16s' "$( [ $sec = 3 ] && echo order || echo bytes)"
    for nm in $names; do printf ' %10s' "$nm"; done
    [ $sec = 3 ] || for nm in $names; do [ "$nm" = mpich ] || printf ' %12s' "$nm/mpich"; done
    echo
    keys=$(awk -v sec=$sec '/^# / { s = substr($2, 1, 1); next }
        s == sec && /^ *[0-9]/ { print $1 } s == sec && /first/ { print $1 "_" $2 }' "$tmp/$first.out")
    for k in $keys; do
        key=$(echo "$k" | tr '_' ' ')
        printf '%-16s' "$key"
        for nm in $names; do printf ' %10s' "$(value $sec "$key" "$nm" | head -n 1)"; done
        if [ $sec != 3 ]; then
            m=$(value $sec "$key" mpich 2>/dev/null | head -n 1)
            for nm in $names; do
                [ "$nm" = mpich ] && continue
                v=$(value $sec "$key" "$nm" | head -n 1)
                if [ -n "$v" ] && [ -n "$m" ]; then awk -v a="$v" -v b="$m" 'BEGIN{printf " %12.2f", a/b}'
                else printf ' %12s' -; fi
            done
        fi
        echo
    done
    [ $sec = 3 ] && for nm in $names; do
        echo "#   $nm: $(grep '^# 3\.' "$tmp/$nm.out" | sed 's/^# 3\. overlap: //')"
    done
done
