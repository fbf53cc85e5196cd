#!/bin/bash
# Runs one GPU test program again and again while two other GPU test
# programs start beside it each time, to catch host/stream races that only
# show under contention (docs/fnn.md). Needs a CUDA build in build-gpu.
#
#   scripts/gpu-stress.sh [SECONDS] [TEST] [LOAD1] [LOAD2]
#
# Defaults: 300 s, test_fnn_cuda beside test_fcm_cuda and test_fuzzy_cuda.
# Prints "stress: F fail of N"; the output of each failing run is kept in
# build-gpu/stress-failN.log. Exit status 1 if any run failed.
set -u
limit=${1:-300}
test=${2:-test_fnn_cuda}
load1=${3:-test_fcm_cuda}
load2=${4:-test_fuzzy_cuda}
dir=build-gpu/tests
for t in "$test" "$load1" "$load2"; do
    [ -x "$dir/$t" ] || { echo "gpu-stress: $dir/$t not built" >&2; exit 2; }
done
start=$SECONDS
fails=0
runs=0
while [ $((SECONDS - start)) -lt "$limit" ]; do
    ("$dir/$load1" >/dev/null 2>&1 &)
    ("$dir/$load2" >/dev/null 2>&1 &)
    runs=$((runs + 1))
    if ! "$dir/$test" >build-gpu/stress-last.log 2>&1; then
        fails=$((fails + 1))
        cp build-gpu/stress-last.log "build-gpu/stress-fail$fails.log"
    fi
done
wait
echo "stress: $fails fail of $runs"
[ "$fails" -eq 0 ]
