#!/bin/sh
# Build Sluice and run every test: the normal build (all tests, including the
# simulator's small cases and the benchmark smoke runs), then the ASan+UBSan
# build and the TSan build of the library tests; then, where clang can link
# libFuzzer, the fuzz targets (tests/fuzz) for a short fixed number of inputs
# each (docs/RELIABILITY.md; scripts/fuzz.sh runs them long).
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh
jobs=$(nproc)

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j "$jobs"
ctest --test-dir build -j 2 --output-on-failure

# The sanitizer runs leave out the ofi twins (label ofi_twin: the Portals,
# p2p and MPI suites again over libfabric, about 200 tests that would double
# their time); the libfabric transport's own tests (label ofi: the 2x2
# virtual-host jobs over every protocol, authentication, a host killed) run.
echo "=== ASan + UBSan build"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DSLUICE_SANITIZE=address
cmake --build build-asan -j "$jobs"
ctest --test-dir build-asan -j 2 --output-on-failure -LE 'sim|scale|ofi_twin'

# The pmix label (the PMIx client under mpirun and srun, tests/boot) stays out
# of the TSan run: libpmix's progress thread is not instrumented.
echo "=== TSan build"
cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=Debug -DSLUICE_SANITIZE=thread
cmake --build build-tsan -j "$jobs"
ctest --test-dir build-tsan -j 2 --output-on-failure -LE 'sim|mpich|hydra|pmix|scale|ofi_twin'

if command -v clang >/dev/null 2>&1 &&
   printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' |
   clang -x c -fsanitize=fuzzer -o /dev/null - >/dev/null 2>&1; then
    echo "=== libFuzzer targets (short runs)"
    CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSLUICE_FUZZ=ON
    cmake --build build-fuzz -j "$jobs" --target fuzz_all
    ctest --test-dir build-fuzz -j 2 --output-on-failure -L fuzz
else
    echo "=== libFuzzer targets skipped: clang cannot link libFuzzer here"
fi
