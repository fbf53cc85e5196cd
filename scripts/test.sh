#!/bin/sh
# scripts/test.sh [--sanitize|--tsan] - the second README command: build haze
# and run the whole test suite (without a GPU, the CUDA build is narrowed to
# sm_75 and sm_90; HAZE_CI_CUDA_ARCHS chooses). --sanitize builds the CPU code with
# AddressSanitizer and UndefinedBehaviorSanitizer in build-san/ instead.
# --tsan builds it with ThreadSanitizer in build-tsan/ and runs the tests
# whose threads share contexts and objects (label "threads"; a test that
# starts no thread cannot race). It is built without OpenMP: libgomp is not
# built with ThreadSanitizer, which then cannot see its barriers and reports
# races that are not there.
set -eu
cd "$(dirname "$0")/.."
jobs=$(nproc)
# The Python that the package is built for and tested with: $PYTHON, else
# Debian's (where apt-get put NumPy and pytest), else the first on PATH.
py=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3 || true)}
py_arg=""
[ -n "$py" ] && py_arg="-DPython3_EXECUTABLE=$py"
targets=""
labels=""
if [ "${1:-}" = "--tsan" ]; then
    dir=build-tsan
    cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHAZE_CUDA=OFF -DHAZE_TSAN=ON \
        -DHAZE_OPENMP=OFF -DHAZE_BENCH=OFF -DHAZE_PYTHON=OFF
    export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
    targets="--target test_core test_core_text test_threads"
    labels="-L threads"
elif [ "${1:-}" = "--sanitize" ]; then
    dir=build-san
    cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Debug -DHAZE_CUDA=OFF -DHAZE_ASAN=ON -DHAZE_UBSAN=ON \
        -DHAZE_BENCH=OFF -DHAZE_PYTHON=OFF # (a sanitized library cannot load into python)
    export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
    export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp" # cairo's font caches (plots)
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
    cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DHAZE_WERROR=ON "$archs_arg" $py_arg
fi
# shellcheck disable=SC2086 # $targets and $labels are lists of words
cmake --build "$dir" -j "$jobs" $targets
# shellcheck disable=SC2086
ctest --test-dir "$dir" --output-on-failure -j "$jobs" $labels
