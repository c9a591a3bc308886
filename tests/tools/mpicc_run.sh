#!/bin/sh
# Build tests/tools/ptl_hello.c with mpicc (one step, and -c then link) and run
# it under mpirun -n 2 and mpiexec -n 3; check what every rank printed.
# usage: mpicc_run.sh MPICC MPIRUN MPIEXEC SOURCE
set -u
mpicc=$1 mpirun=$2 mpiexec=$3 src=$4
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sluice-mpicc-run.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
unset SLUICE_CC MPICH_CC
fail() { echo "FAIL: $*" >&2; exit 1; }

"$mpicc" -O1 -Wall -o "$tmp/hello" "$src" || fail "mpicc -o hello $src"
"$mpicc" -c "$src" -o "$tmp/hello.o" || fail "mpicc -c"
"$mpicc" "$tmp/hello.o" -o "$tmp/hello2" || fail "mpicc hello.o (link)"

check() { # check N OUTFILE
    n=$1 i=0
    while [ "$i" -lt "$n" ]; do
        l=$(( (i + n - 1) % n ))
        want=$(printf 'ptl_hello: rank %d of %d got 0x%x from rank %d' "$i" "$n" $((0x5100000 + l)) "$l")
        grep -qxF "$want" "$2" || { cat "$2" >&2; fail "missing line: $want"; }
        i=$((i + 1))
    done
    [ "$(wc -l < "$2")" -eq "$n" ] || { cat "$2" >&2; fail "expected $n lines"; }
}
"$mpirun" -n 2 --timeout 30 "$tmp/hello" > "$tmp/out2" || { cat "$tmp/out2"; fail "mpirun -n 2: status $?"; }
check 2 "$tmp/out2"
cat "$tmp/out2"
"$mpiexec" -n 3 --timeout 30 "$tmp/hello2" > "$tmp/out3" || { cat "$tmp/out3"; fail "mpiexec -n 3: status $?"; }
check 3 "$tmp/out3"
cat "$tmp/out3"
echo "ok"
