#!/bin/sh
# Build Sluice and run every test: the normal build (all tests, including the
# simulator's small cases and the benchmark smoke runs), then the ASan+UBSan
# build and the TSan build of the library tests.
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh
jobs=$(nproc)

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j "$jobs"
ctest --test-dir build -j 2 --output-on-failure

echo "=== ASan + UBSan build"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DSLUICE_SANITIZE=address
cmake --build build-asan -j "$jobs"
ctest --test-dir build-asan -j 2 --output-on-failure -LE sim

echo "=== TSan build"
cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=Debug -DSLUICE_SANITIZE=thread
cmake --build build-tsan -j "$jobs"
ctest --test-dir build-tsan -j 2 --output-on-failure -LE 'sim|mpich|hydra'
