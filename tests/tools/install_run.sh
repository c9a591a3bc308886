#!/bin/sh
# cmake --install into a temporary prefix, check the layout, build and run
# ptl_hello with the installed mpicc/mpirun/mpiexec, then move the whole
# prefix (to a path with a space) and do it again: the install is relocatable.
# Also a shared-library user (mpicc ... -lportals) runs without LD_LIBRARY_PATH,
# and an MPICH-built program on the installed libmpich.so.12.
# usage: install_run.sh CMAKE BUILD_DIR SOURCE_DIR LIBDIR INCLUDEDIR BINDIR
set -u
cmake=$1 build=$2 srcdir=$3 libdir=$4 incdir=$5 bindir=$6
here=$srcdir/tests/tools
src=$here/ptl_hello.c
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sluice-install.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
unset SLUICE_CC MPICH_CC LD_LIBRARY_PATH
fail() { echo "FAIL: $*" >&2; exit 1; }
has() { case $1 in *"$2"*) return 0 ;; esac; return 1; }

prefix=$tmp/prefix
"$cmake" --install "$build" --prefix "$prefix" > "$tmp/install.log" 2>&1 \
    || { cat "$tmp/install.log"; fail "cmake --install: status $?"; }

# Layout.
for f in "$bindir/mpicc" "$bindir/mpirun" "$bindir/mpiexec" "$bindir/sluicerun" \
         "$bindir/sluice_info" "$incdir/portals4.h" "$incdir/pmi.h" "$libdir/libsluice.a" \
         "$libdir/libportals.so" "$libdir/libportals.so.4" "$libdir/libpmi.so" \
         "$libdir/libpmi.so.1"; do
    [ -e "$prefix/$f" ] || { cat "$tmp/install.log"; fail "not installed: $f"; }
done
if [ -e "$srcdir/include/mpi.h" ]; then
    [ -e "$prefix/$incdir/mpi.h" ] || fail "include/mpi.h exists but is not installed"
fi
for f in "$bindir/mpicc" "$bindir/sluicerun" "$bindir/sluice_info"; do
    [ -x "$prefix/$f" ] || fail "$f is not executable"
done
for alias in mpirun mpiexec; do
    [ -L "$prefix/$bindir/$alias" ] || fail "$alias is not a symlink"
    [ "$(readlink "$prefix/$bindir/$alias")" = sluicerun ] || fail "$alias does not point to sluicerun"
done
if grep -q "$build" "$prefix/$bindir/mpicc"; then fail "installed mpicc refers to the build tree"; fi
if command -v readelf >/dev/null 2>&1; then
    readelf -d "$prefix/$bindir/sluicerun" | grep -E 'R(UN)?PATH' | grep -qF "\$ORIGIN/../$libdir" \
        || fail "sluicerun has no RPATH \$ORIGIN/../$libdir: $(readelf -d "$prefix/$bindir/sluicerun" | grep PATH)"
fi
"$prefix/$bindir/sluice_info" > /dev/null || fail "installed sluice_info"
# The MPICH ABI library (not in sanitizer builds), in a directory of its
# own and without the libmpich.so link-time name (docs/TOOLS.md).
abi=$libdir/sluice-mpich
if [ -e "$build/lib/sluice-mpich/libmpich.so.12" ]; then
    [ -f "$prefix/$abi/libmpich.so.12" ] || fail "not installed: $abi/libmpich.so.12"
    [ "$(readlink "$prefix/$abi/libmpi.so.12")" = libmpich.so.12 ] \
        || fail "$abi/libmpi.so.12 is not a symlink to libmpich.so.12"
    [ ! -e "$prefix/$abi/libmpich.so" ] || fail "$abi/libmpich.so installed"
    [ ! -e "$prefix/$libdir/libmpich.so.12" ] || fail "libmpich.so.12 installed in $libdir"
    if [ -e "$build/lib/sluice-mpich/libmpichfort.so.12" ]; then # the Fortran bindings' name
        [ -f "$prefix/$abi/libmpichfort.so.12" ] || fail "not installed: $abi/libmpichfort.so.12"
        [ "$(readlink "$prefix/$abi/libmpifort.so.12")" = libmpichfort.so.12 ] \
            || fail "$abi/libmpifort.so.12 is not a symlink to libmpichfort.so.12"
        [ ! -e "$prefix/$abi/libmpichfort.so" ] || fail "$abi/libmpichfort.so installed"
    fi
fi
echo "layout: ok"

run_in() { # run_in PREFIX
    p=$1
    out=$("$p/$bindir/mpicc" -show x.c) || fail "mpicc -show in $p"
    has "$out" "-I$p/$incdir" || fail "mpicc -show does not use $p/$incdir: $out"
    has "$out" "-L$p/$libdir" || fail "mpicc -show does not use $p/$libdir: $out"
    sh "$here/mpicc_run.sh" "$p/$bindir/mpicc" "$p/$bindir/mpirun" "$p/$bindir/mpiexec" "$src" \
        || fail "build and run with the tools in $p"
    # A program linked with the shared libportals finds it through mpicc's rpath.
    "$p/$bindir/mpicc" -o "$tmp/hello_so" "$src" -lportals || fail "mpicc ... -lportals"
    if command -v readelf >/dev/null 2>&1; then
        readelf -d "$tmp/hello_so" | grep NEEDED | grep -q 'libportals\.so\.4' \
            || fail "hello_so does not use libportals.so.4"
    fi
    "$p/$bindir/mpiexec" -n 2 --timeout 30 "$tmp/hello_so" > "$tmp/so.out" \
        || { cat "$tmp/so.out"; fail "hello_so under mpiexec"; }
    [ "$(grep -c '^ptl_hello: rank' "$tmp/so.out")" -eq 2 ] || { cat "$tmp/so.out"; fail "hello_so output"; }
    echo "shared libportals user in $p: ok"
    # An MPICH-built program runs on the installed MPICH ABI library.
    mpich_prog=$build/tests/mpi/mpi_mpichabi_mpich
    if [ -e "$p/$abi/libmpich.so.12" ] && [ -x "$mpich_prog" ]; then
        LD_LIBRARY_PATH="$p/$abi" "$p/$bindir/mpiexec" -n 2 --timeout 30 "$mpich_prog" sluice \
            > "$tmp/abi.out" 2>&1 || { cat "$tmp/abi.out"; fail "MPICH-built program on $p/$abi"; }
        echo "MPICH-built program on $p/$abi: ok"
    fi
    # ... and an MPICH-built Fortran program (libmpichfort.so.12 too)
    fort_prog=$build/tests/fortran/fortran_p2p_f77_mpich
    if [ -e "$p/$abi/libmpichfort.so.12" ] && [ -x "$fort_prog" ]; then
        LD_LIBRARY_PATH="$p/$abi" ldd "$fort_prog" | grep -q "libmpichfort.so.12 => $p/$abi/" \
            || fail "$fort_prog does not load $p/$abi/libmpichfort.so.12"
        LD_LIBRARY_PATH="$p/$abi" "$p/$bindir/mpiexec" -n 2 --timeout 30 "$fort_prog" \
            > "$tmp/fabi.out" 2>&1 || { cat "$tmp/fabi.out"; fail "MPICH-built Fortran program on $p/$abi"; }
        echo "MPICH-built Fortran program on $p/$abi: ok"
    fi
}
run_in "$prefix"

moved="$tmp/moved dir/sluice"
mkdir -p "$tmp/moved dir"
mv "$prefix" "$moved" || fail "moving the install"
run_in "$moved"
# Called through a symlink from elsewhere, mpicc still finds its own prefix.
ln -s "$moved/$bindir/mpicc" "$tmp/mpicc-link"
out=$("$tmp/mpicc-link" -show x.c)
has "$out" "-I$moved/$incdir" || fail "mpicc through a symlink: $out"
# Found through PATH, and run with a relative path from inside the prefix.
out=$(PATH="$moved/$bindir:$PATH" mpicc -show x.c)
has "$out" "-I$moved/$incdir" || fail "mpicc from PATH: $out"
out=$(cd "$moved" && "./$bindir/mpicc" -show x.c)
has "$out" "-I$moved/$incdir" || fail "mpicc by a relative path: $out"
echo "ok"
