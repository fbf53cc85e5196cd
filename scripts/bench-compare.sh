#!/bin/bash
# scripts/bench-compare.sh OLD_TREE [BENCH...] - before/after on one machine,
# in one run: builds OLD_TREE (the source tree of an earlier commit, e.g.
# `git archive REV | tar -x -C old`) in build-old and this tree in build-gpu
# (HAZE_SKIP_BUILD=1 reuses both), then runs each benchmark (default: all
# that both trees have) from both trees, alternately old, new, old, new, so
# that drift of the machine's clocks or load hits both, and prints both
# outputs one after the other. HAZE_BENCH_ARGS (default --quick) goes to every
# benchmark; HAZE_CUDA_ARCHS narrows both builds (e.g. 90); JOBS sets the
# build's parallelism; HAZE_DEBS names the folder of scripts/fetch-gpu-deps.sh
# (default .debs). Output: OUT_DIR (default bench-compare-out).
set -uo pipefail
cd "$(dirname "$0")/.."
old=${1:?usage: scripts/bench-compare.sh OLD_TREE [BENCH...]}
shift
out=${OUT_DIR:-bench-compare-out}
mkdir -p "$out"
. scripts/gpu-env.sh "${HAZE_DEBS:-.debs}"
jobs=${JOBS:-$(nproc)}
args=${HAZE_BENCH_ARGS---quick}
build() { # build SRC DIR
    cmake -S "$1" -B "$2" -DCMAKE_BUILD_TYPE=Release -DHAZE_CUDA=ON -DHAZE_TESTS=OFF -DHAZE_BENCH=ON \
        ${HAZE_CUDA_ARCHS:+-DCMAKE_CUDA_ARCHITECTURES="$HAZE_CUDA_ARCHS"} >"$out/configure-$(basename "$2").log" 2>&1 &&
        cmake --build "$2" -j "$jobs" >"$out/build-$(basename "$2").log" 2>&1
}
if [ "${HAZE_SKIP_BUILD:-0}" != 1 ]; then
    build "$old" build-old & p1=$!
    build . build-gpu & p2=$!
    wait $p1 || { echo "the old tree did not build: $out/build-build-old.log"; exit 1; }
    wait $p2 || { echo "this tree did not build: $out/build-build-gpu.log"; exit 1; }
fi
benches=("$@")
if [ ${#benches[@]} = 0 ]; then
    for b in build-gpu/bench/bench_*; do
        n=$(basename "$b")
        [ -x "build-old/bench/$n" ] && benches+=("$n")
    done
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1
for n in "${benches[@]}"; do
    for round in 1 2; do
        for side in old gpu; do
            # shellcheck disable=SC2086
            timeout "${HAZE_BENCH_TIMEOUT:-300}" "build-$side/bench/$n" $args >"$out/$n.$side.$round.txt" 2>&1
        done
    done
    for side in old gpu; do
        echo "=== $n: $([ $side = old ] && echo "before ($old)" || echo "after (this tree)"), second round"
        cat "$out/$n.$side.2.txt"
    done
done
