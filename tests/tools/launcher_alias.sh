#!/bin/sh
# mpirun and mpiexec are sluicerun under other names: same help (naming
# sluicerun), same options, same exit-status rules.
# usage: launcher_alias.sh BINDIR
set -u
bindir=$1
fail() { echo "FAIL: $*" >&2; exit 1; }
for name in mpirun mpiexec; do
    run=$bindir/$name
    [ -x "$run" ] || fail "$run missing"
    out=$("$run" --help) || fail "$name --help: status $?"
    [ "$(printf '%s\n' "$out" | head -n 1)" = "$("$bindir/sluicerun" --help | head -n 1)" ] \
        || fail "$name --help differs from sluicerun --help"
    printf '%s\n' "$out" | head -n 1 | grep -q '^Usage: sluicerun ' || fail "$name --help: $out"
    "$run" --version | grep -q sluicerun || fail "$name --version"
    "$run" -n 2 --timeout 20 -l sh -c 'echo hello from $PMI_RANK' > "${TMPDIR:-/tmp}/alias.$$" 2>&1
    st=$?
    out=$(cat "${TMPDIR:-/tmp}/alias.$$"); rm -f "${TMPDIR:-/tmp}/alias.$$"
    [ "$st" -eq 0 ] || fail "$name -n 2: status $st: $out"
    printf '%s\n' "$out" | grep -qx '\[0\] hello from 0' || fail "$name: $out"
    printf '%s\n' "$out" | grep -qx '\[1\] hello from 1' || fail "$name: $out"
    "$run" -np 2 --timeout 20 sh -c 'exit 3' 2>/dev/null
    st=$?
    [ "$st" -eq 3 ] || fail "$name: exit status $st, want 3"
    err=$("$run" --bogus 2>&1 >/dev/null)
    st=$?
    [ "$st" -eq 2 ] || fail "$name --bogus: status $st, want 2"
    case $err in sluicerun:*) ;; *) fail "$name --bogus: $err" ;; esac
    echo "$name: ok"
done
echo "ok"
