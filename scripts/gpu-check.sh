#!/bin/bash
# scripts/gpu-check.sh [DEBS_DIR] [OUT_DIR] - on a machine with an NVIDIA GPU:
# build haze with CUDA, run the whole test suite (GPU tests must run, not
# skip), run the benchmarks, and print a summary table last.
#
# Machines without a package registry: download the missing Debian packages
# elsewhere with scripts/fetch-gpu-deps.sh, bring the folder along and pass it
# as DEBS_DIR; they are unpacked into a private prefix, nothing is installed.
# Environment: HAZE_BENCH_FILTER=regex runs only matching benchmarks;
# HAZE_SKIP_TESTS=1 / HAZE_SKIP_BENCH=1 skip a phase; HAZE_TARGETS="a b" builds only
# those targets; HAZE_TEST_FILTER=regex runs only matching tests; HAZE_BENCH_ARGS (e.g. --quick) and
# HAZE_BENCH_TIMEOUT (seconds, default 300) apply to every benchmark; JOBS sets parallelism.
set -uo pipefail
cd "$(dirname "$0")/.."
debs=${1:-.debs}
out=${2:-gpu-check-out}
mkdir -p "$out"
jobs=${JOBS:-$(nproc)}
prefix=/tmp/haze-deps

if [ -d "$debs" ] && ls "$debs"/*.deb >/dev/null 2>&1; then
    mkdir -p "$prefix"
    for f in "$debs"/*.deb; do dpkg -x "$f" "$prefix"; done
    # Debian's multiarch paths inside the prefix
    export CMAKE_PREFIX_PATH="$prefix/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
    export CMAKE_LIBRARY_PATH="$prefix/usr/lib/x86_64-linux-gnu"
    export CMAKE_INCLUDE_PATH="$prefix/usr/include:$prefix/usr/include/x86_64-linux-gnu"
    export LD_LIBRARY_PATH="$prefix/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export PATH="$PATH:$prefix/usr/bin"
    export LIBRARY_PATH="$prefix/usr/lib/x86_64-linux-gnu${LIBRARY_PATH:+:$LIBRARY_PATH}"
fi

nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | tee "$out/gpu.txt"
t0=$(date +%s)
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DHAZE_CUDA=ON >"$out/configure.log" 2>&1 ||
    { tail -30 "$out/configure.log"; exit 1; }
# shellcheck disable=SC2086
cmake --build build-gpu -j "$jobs" ${HAZE_TARGETS:+--target $HAZE_TARGETS} >"$out/build.log" 2>&1 ||
    { grep -E "error|Error" "$out/build.log" | head -40; exit 1; }
t_build=$(( $(date +%s) - t0 ))
grep -E "registers|spill" "$out/build.log" >"$out/ptxas.txt" || true
./build-gpu/haze info | tee "$out/info.txt"

tests="not run"
if [ "${HAZE_SKIP_TESTS:-0}" != 1 ]; then
    t0=$(date +%s)
    ctest --test-dir build-gpu --output-on-failure -j 4 --timeout 900 ${HAZE_TEST_FILTER:+-R "$HAZE_TEST_FILTER"} \
        >"$out/ctest.log" 2>&1
    t_test=$(( $(date +%s) - t0 ))
    grep -E "tests passed|tests failed|\(Failed\)|\(Skipped\)|Timeout|Not Run" "$out/ctest.log" | tail -20
    tests=$(grep -E "tests passed" "$out/ctest.log" | tail -1)
    skipped=$(grep -c "(Skipped)" "$out/ctest.log" || true)
    tests="$tests, $skipped skipped (${t_test}s)"
fi

declare -a bench_rows=()
if [ "${HAZE_SKIP_BENCH:-0}" != 1 ] && [ -d build-gpu/bench ]; then
    for b in build-gpu/bench/bench_*; do
        [ -x "$b" ] || continue
        name=$(basename "$b")
        if [ -n "${HAZE_BENCH_FILTER:-}" ] && ! echo "$name" | grep -Eq "$HAZE_BENCH_FILTER"; then continue; fi
        t0=$(date +%s)
        # shellcheck disable=SC2086
        timeout "${HAZE_BENCH_TIMEOUT:-300}" "$b" ${HAZE_BENCH_ARGS:-} >"$out/$name.txt" 2>&1
        rc=$?
        dt=$(( $(date +%s) - t0 ))
        echo "=== $name (exit $rc, ${dt}s)"; cat "$out/$name.txt"
        bench_rows+=("$(printf '%-28s exit %-3s %5ss' "$name" "$rc" "$dt")")
    done
fi

echo
echo "================ haze gpu-check summary ================"
printf '%-16s %s\n' "gpu" "$(head -1 "$out/gpu.txt" 2>/dev/null)"
printf '%-16s %ss\n' "build" "$t_build"
printf '%-16s %s\n' "tests" "$tests"
for r in "${bench_rows[@]+"${bench_rows[@]}"}"; do printf '%-16s %s\n' "bench" "$r"; done
