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
# those targets; HAZE_TEST_FILTER=regex runs only matching tests (HAZE_CTEST_JOBS at once, default 4); HAZE_BENCH_ARGS (e.g. --quick) and
# HAZE_BENCH_TIMEOUT (seconds, default 300) apply to every benchmark; JOBS sets parallelism;
# bench/e2e_fis.py also runs its long CSV job on HAZE_E2E_FIS_BIG rows (default 1e8; 0: none).
# HAZE_CUDA_ARCHS narrows the build (CMAKE_CUDA_ARCHITECTURES, e.g. 90; default:
# the fat build of CMakeLists.txt); HAZE_BUILD_DIR (default build-gpu) is the build folder,
# HAZE_SKIP_BUILD=1 uses it as it is.
# NVIDIA's checker: every GPU test (tests/test_*_cuda) runs under compute-sanitizer's
# memcheck (with leak check), racecheck, synccheck and initcheck, and the summary
# counts the errors of each. HAZE_SANITIZE=quick (default: HAZE_TEST_QUICK=1, fewer
# random cases), full, or 0 (skip); HAZE_SANITIZE_TOOLS="memcheck ..." picks tools;
# HAZE_SANITIZE_TESTS="test_fnn_cuda test_fcm_cuda:test_gk ..." picks runs; HAZE_SANITIZE_JOBS (default 4
# per GPU) runs that many at once, spread over the machine's GPUs; HAZE_SANITIZE_TIMEOUT (seconds,
# default 1200) per run; racecheck runs the programs' tests named in HAZE_SANITIZE_SPLIT (default: the
# four slowest) in HAZE_SANITIZE_PARTS parts (default 4) at once, each with a share of the cases.
set -uo pipefail
cd "$(dirname "$0")/.."
debs=${1:-.debs}
out=${2:-gpu-check-out}
mkdir -p "$out"
jobs=${JOBS:-$(nproc)}
bdir=${HAZE_BUILD_DIR:-build-gpu}

. scripts/gpu-env.sh "$debs"

nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | tee "$out/gpu.txt"
t0=$(date +%s)
t_build="skipped"
if [ "${HAZE_SKIP_BUILD:-0}" != 1 ]; then
    # the Python package for the python3 on PATH (the one with NumPy and pytest)
    cmake -S . -B "$bdir" -DCMAKE_BUILD_TYPE=Release -DHAZE_CUDA=ON \
        -DPython3_EXECUTABLE="$(command -v python3)" \
        ${HAZE_CUDA_ARCHS:+-DCMAKE_CUDA_ARCHITECTURES="$HAZE_CUDA_ARCHS"} >"$out/configure.log" 2>&1 ||
        { tail -30 "$out/configure.log"; exit 1; }
    # shellcheck disable=SC2086
    cmake --build "$bdir" -j "$jobs" ${HAZE_TARGETS:+--target $HAZE_TARGETS} >"$out/build.log" 2>&1 ||
        { grep -E "error|Error" "$out/build.log" | head -40; exit 1; }
    t_build="$(( $(date +%s) - t0 ))s"
    grep -E "registers|spill" "$out/build.log" >"$out/ptxas.txt" || true
fi
"$bdir"/haze info | tee "$out/info.txt"

tests="not run"
if [ "${HAZE_SKIP_TESTS:-0}" != 1 ]; then
    t0=$(date +%s)
    ctest --test-dir "$bdir" --output-on-failure -j "${HAZE_CTEST_JOBS:-4}" --timeout 900 ${HAZE_TEST_FILTER:+-R "$HAZE_TEST_FILTER"} \
        >"$out/ctest.log" 2>&1
    t_test=$(( $(date +%s) - t0 ))
    grep -E "tests passed|tests failed|\(Failed\)|\(Skipped\)|Timeout|Not Run" "$out/ctest.log" | tail -20
    tests=$(grep -E "tests passed" "$out/ctest.log" | tail -1)
    skipped=$(grep -c "(Skipped)" "$out/ctest.log" || true)
    tests="$tests, $skipped skipped (${t_test}s)"
fi

# ------------------------------------------------ compute-sanitizer
# A run is a test program, or PROGRAM:test_a,test_b for some of its tests
# (HAZE_TEST_ONLY). Quick mode: fewer random cases, and the two long GPU
# tests in parts that together hold every one of their tests (the SONFIN
# register, cluster, launch and mini-batch kernels; the c-means fixed-shape,
# fast, Gustafson-Kessel, streamed and seeding paths), the slowest first.
declare -a san_rows=()
san=${HAZE_SANITIZE:-quick}
san_tools=${HAZE_SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}
san_total=0
if [ "$san" != 0 ]; then
    cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    all=$(cd "$bdir"/tests && ls test_*_cuda 2>/dev/null | tr '\n' ' ')
    if [ "$san" = quick ]; then
        # one run per test of the two long programs, the slowest first
        quick=""
        for t in test_register_online test_cluster_online test_cluster_threads test_switches_per_context \
            test_gpufnn_baseline test_atm_online test_atm_batch test_many_rules test_fixed_width \
            test_math test_step_time test_two_devices test_search_cache_grows test_exchange_forms test_fire_variants_agree; do
            quick+=" test_fnn_cuda:$t"
        done
        for t in test_streaming test_seeding test_sizes test_accuracy test_hard_data test_kept_share \
            test_pipeline test_gk test_fuzzifier test_degenerate test_no_shape; do
            quick+=" test_fcm_cuda:$t"
        done
        for t in $all; do case $t in test_fnn_cuda | test_fcm_cuda) ;; *) quick+=" $t" ;; esac; done
        san_tests=${HAZE_SANITIZE_TESTS:-$quick}
    else
        san_tests=${HAZE_SANITIZE_TESTS:-$all}
    fi
    mkdir -p "$out/san"
    # one run: its log, then "errors warnings exit" in a .res file
    # runs are spread over the machine's GPUs (round robin by run number)
    ngpu=$(nvidia-smi -L 2>/dev/null | grep -c "^GPU" || true)
    [ "${ngpu:-0}" -ge 1 ] || ngpu=1
    # HAZE_SANITIZE_GPUS="1 2 3" keeps the runs off the other GPUs
    san_gpus=${HAZE_SANITIZE_GPUS:-$(seq -s ' ' 0 $((ngpu - 1)))}
    san_one() {
        local g=($san_gpus)
        local gpu=${g[$(($1 % ${#g[@]}))]}
        shift
        local tool=$1 run=$2 part= t only= opts=() name
        # PROGRAM[:tests][@k/n]: part k of n of the cases (HAZE_TEST_PART)
        case $run in *@*) part=${run##*@} run=${run%@*} ;; esac
        t=${run%%:*}
        [ "$run" != "$t" ] && only=${run#*:}
        name=$(echo "$run" | tr ':,' '._')${part:+.part$(echo "$part" | tr / -)}
        local log="$out/san/$name.$tool.log"
        case $tool in
        memcheck) opts=(--leak-check full) ;;
        racecheck) opts=(--racecheck-report all --num-cuda-barriers 4) ;;
        synccheck) opts=(--num-cuda-barriers 4) ;; # the SONFIN cluster kernels' 2 mbarriers per block
        esac
        # synccheck cannot follow the SONFIN cluster kernels' st.async exchange
        # (transaction barriers of every block of the cluster): it checks their
        # other form, the cluster's barrier, which gives the same bits
        local xchg=
        [ "$tool" = synccheck ] && xchg=barrier
        if [ "$san" = quick ]; then export HAZE_TEST_QUICK=1; fi
        # racecheck runs the shared-memory kernels thousands of times slower:
        # the SONFIN cases with fewer samples (tests/test_fnn_cuda.c)
        if [ "$san" = quick ] && [ "$tool" = racecheck ]; then export HAZE_TEST_SMALL=1; fi
        # several runs share the machine: few CPU threads each
        local t0=$SECONDS
        CUDA_VISIBLE_DEVICES=$gpu HAZE_TEST_FNN_EXCHANGE=$xchg HAZE_TEST_ONLY=$only HAZE_TEST_PART=$part HAZE_THREADS=${HAZE_THREADS:-2} OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} \
            timeout "${HAZE_SANITIZE_TIMEOUT:-1200}" "$cs" --tool "$tool" "${opts[@]}" --print-limit 20 \
            "$bdir/tests/$t" >"$log" 2>&1
        local rc=$? n w=0 secs=$((SECONDS - t0))
        if [ "$tool" = racecheck ]; then
            n=$(sed -n 's/.*RACECHECK SUMMARY: .*(\([0-9]*\) errors, \([0-9]*\) warnings).*/\1/p' "$log" | tail -1)
            w=$(sed -n 's/.*RACECHECK SUMMARY: .*(\([0-9]*\) errors, \([0-9]*\) warnings).*/\2/p' "$log" | tail -1)
        else
            n=$(grep -Eo "ERROR SUMMARY: [0-9]+" "$log" | tail -1 | grep -Eo "[0-9]+$")
        fi
        echo "${n:--} ${w:-0} $rc $secs" >"$out/san/$name.$tool.res"
        # the log's verdict on stdout too (only a few files come back from some machines)
        echo "san: $name $tool: ${n:--} errors, ${w:-0} warnings, exit $rc, ${secs}s"
        [ "$rc" != 0 ] && [ "$rc" != 77 ] && [ "$rc" != 124 ] && grep -E "FAILED|ERROR|error:|\[  FAILED" "$log" | head -5
        return 0
    }
    export -f san_one
    export cs san out bdir ngpu san_gpus
    t0=$(date +%s)
    i=0
    # racecheck's slowest runs go in parts (HAZE_SANITIZE_SPLIT, HAZE_SANITIZE_PARTS of each)
    san_split=${HAZE_SANITIZE_SPLIT-test_fnn_cuda:test_register_online test_fnn_cuda:test_cluster_threads test_fnn_cuda:test_exchange_forms test_fcm_cuda:test_seeding}
    san_parts=${HAZE_SANITIZE_PARTS:-4}
    for t in $san_tests; do for tool in $san_tools; do
        if [ "$tool" = racecheck ] && [[ " $san_split " == *" $t "* ]]; then
            for k in $(seq 1 "$san_parts"); do echo "$i $tool $t@$k/$san_parts"; i=$((i + 1)); done
        else
            echo "$i $tool $t"; i=$((i + 1))
        fi
    done; done |
        xargs -P "${HAZE_SANITIZE_JOBS:-$((4 * $(echo $san_gpus | wc -w)))}" -n 3 bash -c 'san_one "$0" "$1" "$2"'
    t_san=$(( $(date +%s) - t0 ))
    lw=16
    for t in $san_tests; do [ ${#t} -gt $lw ] && lw=${#t}; done
    san_rows+=("$(printf '%-*s' "$lw" "errors ($san)"; for tool in $san_tools; do printf ' %14s' "$tool"; done)")
    for t in $san_tests; do
        name=$(echo "$t" | tr ':,' '._')
        row=$(printf '%-*s' "$lw" "$t")
        for tool in $san_tools; do
            if [ -f "$out/san/$name.$tool.res" ]; then
                read -r n w rc secs <"$out/san/$name.$tool.res" || { n=-; w=0; rc=?; secs=?; }
            elif compgen -G "$out/san/$name.part*.$tool.res" >/dev/null; then
                # the parts of a split run: errors and times added, the worst exit
                n=0 w=0 rc=0 secs=0
                for f in "$out/san/$name".part*."$tool".res; do
                    read -r pn pw prc psecs <"$f" || { pn=-; prc=?; }
                    if [ "$pn" = - ] || [ "$n" = - ]; then n=-; else n=$((n + pn)); fi
                    w=$((w + ${pw:-0}))
                    [ "$prc" != 0 ] && [ "$rc" != 124 ] && rc=$prc
                    [[ "$psecs" =~ ^[0-9]+$ ]] && secs=$((secs + psecs))
                done
            else
                n=-; w=0; rc=?; secs=?
            fi
            cell=$n
            [ "$w" != 0 ] && cell="$n+${w}w"
            case $rc in
            0) ;;
            77) cell="$cell skip" ;;
            124) cell="timeout" ;;
            *) cell="$cell exit$rc" ;;
            esac
            # no count, or the test failing under the tool, counts as one error
            if [ "$n" = - ] || { [ "$rc" != 0 ] && [ "$rc" != 77 ]; }; then
                san_total=$((san_total + 1))
            fi
            [ "$n" != - ] && san_total=$((san_total + n))
            row+=$(printf ' %14s' "$cell ${secs}s")
        done
        san_rows+=("$row")
    done
    san_rows+=("$(printf '%-*s %s' "$lw" "total errors" "$san_total (${t_san}s; logs in $out/san)")")
fi

declare -a bench_rows=()
if [ "${HAZE_SKIP_BENCH:-0}" != 1 ] && [ -d "$bdir"/bench ]; then
    for b in "$bdir"/bench/bench_*; do
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

# the Python package's overhead over the C API (bench/python_overhead.py)
if [ "${HAZE_SKIP_BENCH:-0}" != 1 ] && [ -x "$bdir"/bench/api_time ] && [ -d "$bdir"/python/haze ] &&
    { [ -z "${HAZE_BENCH_FILTER:-}" ] || echo python_overhead | grep -Eq "$HAZE_BENCH_FILTER"; }; then
    t0=$(date +%s)
    timeout "${HAZE_BENCH_TIMEOUT:-300}" python3 bench/python_overhead.py "$bdir" >"$out/python_overhead.txt" 2>&1
    rc=$?
    dt=$(( $(date +%s) - t0 ))
    echo "=== python_overhead (exit $rc, ${dt}s)"; cat "$out/python_overhead.txt"
    bench_rows+=("$(printf '%-28s exit %-3s %5ss' python_overhead "$rc" "$dt")")
fi

# whole jobs against PyTorch scripts (bench/e2e_*.py; where PyTorch is installed)
if [ "${HAZE_SKIP_BENCH:-0}" != 1 ] && [ -x "$bdir"/haze ] && python3 -c "import torch" 2>/dev/null; then
    for e in e2e_fcm e2e_fis e2e_edge; do
        if [ -n "${HAZE_BENCH_FILTER:-}" ] && ! echo "$e" | grep -Eq "$HAZE_BENCH_FILTER"; then continue; fi
        t0=$(date +%s)
        extra=""
        [ "$e" = e2e_fis ] && extra="--big ${HAZE_E2E_FIS_BIG:-100000000}" # the goal's long CSV job
        # shellcheck disable=SC2086
        timeout "${HAZE_BENCH_TIMEOUT:-300}" python3 "bench/$e.py" --haze "$bdir/haze" $extra >"$out/$e.txt" 2>&1
        rc=$?
        dt=$(( $(date +%s) - t0 ))
        echo "=== $e (exit $rc, ${dt}s)"; cat "$out/$e.txt"
        bench_rows+=("$(printf '%-28s exit %-3s %5ss' "$e" "$rc" "$dt")")
    done
fi

echo
echo "================ haze gpu-check summary ================"
printf '%-16s %s\n' "gpu" "$(head -1 "$out/gpu.txt" 2>/dev/null)"
printf '%-16s %s\n' "build" "$t_build"
printf '%-16s %s\n' "tests" "$tests"
for r in "${bench_rows[@]+"${bench_rows[@]}"}"; do printf '%-16s %s\n' "bench" "$r"; done
if [ "${#san_rows[@]}" -gt 0 ]; then
    echo "---------------- compute-sanitizer (errors per test and tool)"
    for r in "${san_rows[@]}"; do echo "$r"; done
fi
[ "$san_total" = 0 ]
