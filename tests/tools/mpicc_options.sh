#!/bin/sh
# mpicc's own options, checked on what it prints (-show, -compile-info, ...) and
# on what it really runs (a fake compiler that records its arguments).
# usage: mpicc_options.sh show|override|version MPICC INCDIR LIBDIR DEFAULT_CC
set -u
case_=$1 mpicc=$2 incdir=$3 libdir=$4 default_cc=$5
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sluice-mpicc.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
unset SLUICE_CC MPICH_CC
fail() { echo "FAIL: $*" >&2; exit 1; }
has() { case $1 in *"$2"*) return 0 ;; esac; return 1; }
first_word() { set -- $1; printf '%s' "$1"; }

# A compiler that writes each argument on its own line to $tmp/args.
cat > "$tmp/fakecc" <<'FAKE'
#!/bin/sh
: > "$FAKECC_LOG"
for a in "$@"; do printf '%s\n' "$a" >> "$FAKECC_LOG"; done
echo "fakecc version 1.0"
FAKE
chmod +x "$tmp/fakecc"
FAKECC_LOG=$tmp/args
export FAKECC_LOG

case $case_ in
show)
    out=$("$mpicc" -show foo.c -o foo) || fail "mpicc -show: exit status $?"
    echo "link:    $out"
    has "$out" " -I$incdir " || fail "no -I$incdir in: $out"
    has "$out" " foo.c -o foo " || fail "arguments not passed in order: $out"
    has "$out" " -L$libdir " || fail "no -L$libdir in: $out"
    has "$out" "-Wl,-rpath,$libdir " || fail "no rpath in: $out"
    has "$out" " -lsluice -lpthread -lrt" || fail "no -lsluice -lpthread -lrt in: $out"
    has "${out%% -L*}" "foo.c" || fail "link flags before the sources: $out"
    [ "$(first_word "$out")" = "$default_cc" ] || fail "compiler is not $default_cc: $out"
    for opt in -c -S -E -M -MM; do
        out=$("$mpicc" -show $opt foo.c) || fail "mpicc -show $opt: exit status $?"
        has "$out" " -I$incdir " || fail "$opt: no -I in: $out"
        has "$out" "-lsluice" && fail "$opt: link flags in: $out"
        has "$out" "-L" && fail "$opt: -L in: $out"
    done
    echo "compile: $out"
    # -MD/-MMD write dependencies while compiling and linking: they do not stop the link.
    out=$("$mpicc" -show -MD -MF foo.d foo.c -o foo)
    has "$out" "-lsluice" || fail "-MD must not stop linking: $out"
    # An argument with a space and a quote is shown quoted for the shell.
    out=$("$mpicc" -show "-DMSG=\"a b's\"" -c foo.c)
    has "$out" "'-DMSG=\"a b'\\''s\"'" || fail "argument not quoted: $out"
    # -compile-info / -link-info: compiler and flags, no user arguments.
    out=$("$mpicc" -compile-info) || fail "-compile-info: exit status $?"
    echo "compile-info: $out"
    [ "$(first_word "$out")" = "$default_cc" ] || fail "-compile-info: $out"
    has "$out" " -I$incdir" || fail "-compile-info without -I: $out"
    has "$out" "-l" && fail "-compile-info with libraries: $out"
    [ "$("$mpicc" -compile_info)" = "$out" ] || fail "-compile_info differs from -compile-info"
    out=$("$mpicc" -link-info) || fail "-link-info: exit status $?"
    echo "link-info: $out"
    has "$out" " -I$incdir -" || fail "-link-info without -I: $out"
    has "$out" " -L$libdir -Wl,-rpath,$libdir -lsluice -lpthread -lrt" || fail "-link-info: $out"
    [ "$("$mpicc" -link_info)" = "$out" ] || fail "-link_info differs from -link-info"
    # Really running: the arguments reach the compiler unchanged, link flags last.
    "$mpicc" -cc="$tmp/fakecc" "-DMSG=a b" '$HOME' foo.c -o foo >/dev/null || fail "fakecc run"
    printf '%s\n' "-I$incdir" "-DMSG=a b" '$HOME' foo.c -o foo "-L$libdir" \
        "-Wl,-rpath,$libdir" -lsluice -lpthread -lrt > "$tmp/want"
    # (sanitizer builds add their flags around these; PMIx builds add libpmix
    # after -lrt, cut off here)
    sed '/^-lrt$/q' "$tmp/args" | grep -v -e '^-fsanitize' -e '^-fno-omit-frame-pointer' > "$tmp/got"
    cmp -s "$tmp/want" "$tmp/got" || { diff "$tmp/want" "$tmp/got" >&2; fail "arguments changed"; }
    # Errors and help.
    "$mpicc" >/dev/null 2>&1 && fail "mpicc without arguments must fail"
    out=$("$mpicc" -help) || fail "-help: exit status $?"
    has "$out" "-show" && has "$out" "-cc=" && has "$out" "$incdir" || fail "-help: $out"
    ;;
override)
    out=$("$mpicc" -cc=clang -show foo.c -o foo)
    echo "-cc=clang: $out"
    [ "$(first_word "$out")" = clang ] || fail "-cc=clang not used: $out"
    has "$out" " -I$incdir " && has "$out" "-lsluice" || fail "-cc=clang lost flags: $out"
    out=$(SLUICE_CC=sluice-test-cc "$mpicc" -show foo.c)
    [ "$(first_word "$out")" = sluice-test-cc ] || fail "SLUICE_CC not used: $out"
    out=$(MPICH_CC=mpich-test-cc "$mpicc" -show foo.c)
    [ "$(first_word "$out")" = mpich-test-cc ] || fail "MPICH_CC not used: $out"
    out=$(MPICH_CC=mpich-test-cc SLUICE_CC=sluice-test-cc "$mpicc" -show foo.c)
    [ "$(first_word "$out")" = sluice-test-cc ] || fail "SLUICE_CC must win over MPICH_CC: $out"
    out=$(SLUICE_CC=sluice-test-cc "$mpicc" -cc=clang -show foo.c)
    [ "$(first_word "$out")" = clang ] || fail "-cc= must win over SLUICE_CC: $out"
    out=$(SLUICE_CC="ccache gcc" "$mpicc" -show -c foo.c)
    has "$out" "ccache gcc -" || fail "a compiler with arguments: $out"
    out=$("$mpicc" -cc=clang -compile-info)
    [ "$(first_word "$out")" = clang ] || fail "-cc= with -compile-info: $out"
    # The override is really run.
    SLUICE_CC=$tmp/fakecc "$mpicc" -c foo.c >/dev/null || fail "SLUICE_CC=fakecc did not run"
    grep -qx foo.c "$tmp/args" || fail "fakecc did not get foo.c"
    if command -v clang >/dev/null 2>&1; then
        printf '#include <portals4.h>\n#include <pmi.h>\nint main(void) { return PMI_SUCCESS; }\n' \
            > "$tmp/t.c"
        "$mpicc" -cc=clang -c "$tmp/t.c" -o "$tmp/t.o" || fail "compiling with -cc=clang"
        echo "compiled with clang: ok"
    fi
    ;;
version)
    out=$("$mpicc" -cc="$tmp/fakecc" -v) || fail "-v: exit status $?"
    echo "$out"
    has "$out" "mpicc for Sluice version " || fail "-v does not print the Sluice version: $out"
    has "$out" "fakecc version 1.0" || fail "-v did not run the compiler: $out"
    [ "$(cat "$tmp/args" | grep -v -e '^-fsanitize' -e '^-fno-omit')" = "$(printf '%s\n' "-I$incdir" -v)" ] \
        || fail "-v alone must not link: $(cat "$tmp/args")"
    out=$("$mpicc" -cc="$tmp/fakecc" --version) || fail "--version: exit status $?"
    has "$out" "mpicc for Sluice version " || fail "--version: $out"
    grep -qx -- --version "$tmp/args" || fail "--version not passed to the compiler"
    grep -q -- -lsluice "$tmp/args" && fail "--version alone must not link"
    # With the real compiler.
    out=$("$mpicc" -v 2>&1) || fail "mpicc -v with the real compiler: exit status $?"
    has "$out" "version" || fail "mpicc -v: $out"
    "$mpicc" -v -show foo.c -o foo | grep -q -- -lsluice || fail "-v with a source must link"
    ;;
*) fail "unknown case $case_" ;;
esac
echo "ok"
