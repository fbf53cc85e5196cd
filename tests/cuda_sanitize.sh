#!/bin/sh
# tests/cuda_sanitize.sh TOOL TEST - runs the GPU test TEST under NVIDIA's
# compute-sanitizer TOOL (memcheck with leak check, racecheck, synccheck,
# initcheck) with fewer random cases; fails on any error the tool reports.
# Exit 77 (skipped) without compute-sanitizer or without a GPU.
tool=$1 test=$2
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
[ -x "$cs" ] || { echo "no compute-sanitizer: skipped"; exit 77; }
nvidia-smi -L >/dev/null 2>&1 || { echo "no GPU: skipped"; exit 77; }
case $tool in
memcheck) set -- --leak-check full ;;
racecheck) set -- --racecheck-report all --num-cuda-barriers 4 ;;
synccheck) # the SONFIN cluster kernels in the form synccheck can follow
    # (the cluster's barrier; test_fnn_cuda.c, HAZE_TEST_FNN_EXCHANGE)
    export HAZE_TEST_FNN_EXCHANGE=barrier
    set -- --num-cuda-barriers 4 ;;
*) set -- ;;
esac
HAZE_TEST_QUICK=1 "$cs" --tool "$tool" "$@" --error-exitcode 99 --print-limit 20 "$test"
