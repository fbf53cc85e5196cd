#!/bin/sh
# scripts/test.sh [--sanitize] - the second README command: build haze and
# run the whole test suite. --sanitize builds the CPU code with
# AddressSanitizer and UndefinedBehaviorSanitizer in build-san/ instead.
set -eu
cd "$(dirname "$0")/.."
jobs=$(nproc)
if [ "${1:-}" = "--sanitize" ]; then
    dir=build-san
    cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Debug -DHAZE_CUDA=OFF -DHAZE_ASAN=ON -DHAZE_UBSAN=ON \
        -DHAZE_BENCH=OFF
    export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
    export HAZE_TEST_QUICK=1 # sanitized code is slow: fewer random cases
else
    dir=build-test
    cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DHAZE_WERROR=ON
fi
cmake --build "$dir" -j "$jobs"
ctest --test-dir "$dir" --output-on-failure -j "$jobs"
