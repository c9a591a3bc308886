#!/bin/sh
# Apply the slow-sink patch to a BookSim 2 source tree and build it, in a
# scratch copy (BookSim's code is not part of Sluice).
#   sim/booksim/build.sh BOOKSIM_SRC SCRATCH_DIR
# BOOKSIM_SRC is a BookSim 2 checkout (the one the patch was made against:
# stock master 28f43299, shipped as ../shared/reference/booksim2).  The
# patched binary is SCRATCH_DIR/booksim2/src/booksim.  Needs g++, make, flex
# and bison.  Exit status 0 on success; 77 (the "skipped" code ctest is told
# about) when BOOKSIM_SRC or a build tool is missing.
set -eu
if [ $# -ne 2 ]; then
    sed -n '2,10p' "$0" >&2
    exit 2
fi
src=$1 dst=$2
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -f "$src/src/trafficmanager.cpp" ]; then
    echo "build.sh: no BookSim source at $src: skipped" >&2
    exit 77
fi
for tool in g++ make flex bison patch; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "build.sh: $tool not found: skipped" >&2
        exit 77
    fi
done
rm -rf "$dst/booksim2"
mkdir -p "$dst"
cp -R "$src" "$dst/booksim2"
cd "$dst/booksim2"
# Start from sources only, whatever was built in the shipped tree.
(cd src && make clean >/dev/null 2>&1 || true)
patch -p1 --forward --quiet < "$here/slow_sink.patch"
cd src
make -j"${JOBS:-2}" >build.log 2>&1 || { tail -20 build.log >&2; exit 1; }
echo "$dst/booksim2/src/booksim"
