#!/bin/sh
# scripts/test.sh [--sanitize] - the second README command: build haze and
# run the whole test suite (HAZE_CI_CUDA_ARCHS narrows the CUDA architectures
# built). --sanitize builds the CPU code with
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
    # HAZE_CI_CUDA_ARCHS (e.g. 90) narrows the CUDA build where nvcc is found;
    # unset, the default fat build (every major architecture, README).
    cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DHAZE_WERROR=ON \
        ${HAZE_CI_CUDA_ARCHS:+-DCMAKE_CUDA_ARCHITECTURES="$HAZE_CI_CUDA_ARCHS"}
fi
cmake --build "$dir" -j "$jobs"
ctest --test-dir "$dir" --output-on-failure -j "$jobs"
