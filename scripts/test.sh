#!/bin/sh
# scripts/test.sh [--sanitize] - the second README command: build haze and
# run the whole test suite (without a GPU, the CUDA build is narrowed to
# sm_75 and sm_90; HAZE_CI_CUDA_ARCHS chooses). --sanitize builds the CPU code with
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
    # The CUDA architectures (where nvcc is found): HAZE_CI_CUDA_ARCHS, e.g.
    # "90", or "fat" for the default build of every major architecture
    # (README). Unset: the fat build where a GPU answers; without one (CI)
    # nothing runs the device code, and the oldest architecture and Hopper
    # compile every guarded kernel's both sides in a fraction of the time.
    archs=${HAZE_CI_CUDA_ARCHS:-}
    if [ -z "$archs" ] && ! nvidia-smi -L >/dev/null 2>&1; then
        archs="75-real;90"
    fi
    if [ -z "$archs" ] || [ "$archs" = fat ]; then
        archs_arg=-UCMAKE_CUDA_ARCHITECTURES # the project's default
    else
        archs_arg=-DCMAKE_CUDA_ARCHITECTURES=$archs
    fi
    cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DHAZE_WERROR=ON "$archs_arg"
fi
cmake --build "$dir" -j "$jobs"
ctest --test-dir "$dir" --output-on-failure -j "$jobs"
