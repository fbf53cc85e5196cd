#!/bin/sh
# bench/threads.sh [-r RUNS] HAZE [HAZE...] - wall time of CLI jobs with one
# and with two CPU threads (`haze --backend cpu --threads N`) and with the
# default thread count (no --threads), the median of RUNS runs (default 5),
# for each haze binary given (for example the build of main and the build of
# a branch). Prints: binary, workload, seconds with 1 thread, with 2 threads,
# their ratio (above 1: the second thread slows the job down), seconds with
# the default and its ratio to 1 thread.
#
# The workloads: `haze prec` on scripts of examples/prec and tests/data/prec
# (small: a few ms; large: seconds) and `haze fcm` on the iris data (150 x 4),
# on 20,000 x 8 and on 200,000 x 16 generated points. The environment is
# passed on as it is: run it with OMP_WAIT_POLICY or GOMP_SPINCOUNT set to
# compare waiting policies (the CLI sets OMP_WAIT_POLICY=passive itself when
# neither is set).
set -eu
runs=5
if [ "${1:-}" = "-r" ]; then
    runs=$2
    shift 2
fi
[ $# -ge 1 ] || {
    echo "usage: $0 [-r RUNS] HAZE [HAZE...]" >&2
    exit 1
}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/haze-threads.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# n x d points around c centres, deterministic (awk's own generator, seed 1)
gen() {
    awk -v n="$1" -v d="$2" -v c="$3" 'BEGIN {
        srand(1)
        for (j = 0; j < c; j++) for (k = 0; k < d; k++) ctr[j, k] = 20 * rand() - 10
        for (i = 0; i < n; i++) {
            j = int(rand() * c); line = ""
            for (k = 0; k < d; k++) line = line (k ? "," : "") sprintf("%.6f", ctr[j, k] + 2 * (rand() + rand() + rand() - 1.5))
            print line
        }
    }'
}
gen 20000 8 8 > "$tmp/medium.csv"
gen 200000 16 16 > "$tmp/large.csv"

now() { date +%s%N; }

# one run of the command: wall microseconds (stops the benchmark if it fails)
once() {
    t0=$(now)
    "$@" > /dev/null 2> "$tmp/err" || {
        echo "$0: failed: $*" >&2
        cat "$tmp/err" >&2
        exit 1
    }
    t1=$(now)
    echo $(((t1 - t0) / 1000))
}

median() {
    sort -n "$1" | awk '{ a[NR] = $1 } END { printf "%.4f", a[int((NR + 1) / 2)] / 1e6 }'
}

# median wall seconds of $runs runs with 1 thread, 2 threads and the default
# (no --threads), in turn (all see the same load): prints "T1 T2 TD"
pair() {
    : > "$tmp/t1"
    : > "$tmp/t2"
    : > "$tmp/td"
    i=0
    while [ $i -lt "$runs" ]; do
        once "$haze" --backend cpu --threads 1 "$@" >> "$tmp/t1"
        once "$haze" --backend cpu --threads 2 "$@" >> "$tmp/t2"
        once "$haze" --backend cpu "$@" >> "$tmp/td"
        i=$((i + 1))
    done
    echo "$(median "$tmp/t1") $(median "$tmp/t2") $(median "$tmp/td")"
}

P=$root/tests/data/prec
E=$root/examples/prec
F=$root/tests/data/fcm
printf '%-22s %-30s %9s %9s %7s %9s %7s\n' binary workload "1 thread" "2 threads" ratio default ratio
for haze in "$@"; do
    name=$haze
    while IFS='|' read -r label args; do
        [ -n "$label" ] || continue
        # shellcheck disable=SC2046,SC2086 # args and the times are split on purpose
        set -- $(pair $args)
        [ $# -eq 3 ] || exit 1
        printf '%-22s %-30s %9s %9s %7s %9s %7s\n' "$name" "$label" "$1" "$2" \
            "$(awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b / a }')" "$3" \
            "$(awk -v a="$1" -v b="$3" 'BEGIN { printf "%.2f", b / a }')"
    done << EOF
prec sine (small)|prec $P/bench/sine.g
prec doppler1|prec $P/bench/doppler1.g
prec kepler0|prec $P/bench/kepler0.g
prec fixed_point (example)|prec $E/fixed_point.g
prec iir_stable_30 (example)|prec $E/iir_stable_30.g
prec horner150 (large)|prec $P/long/horner150.g
prec doppler1 --bisect 64x64|prec $P/bench/doppler1.g --refine 0 --bisect u_m=64 --bisect T_m=64
fcm iris 150x4 c=3|fcm $F/iris_data.csv -c 3
fcm blobs 600x5 c=4|fcm $F/blobs_data.csv -c 4
fcm 20000x8 c=8|fcm $tmp/medium.csv -c 8 --tol 0 --max-iter 30
fcm 200000x16 c=16|fcm $tmp/large.csv -c 16 --tol 0 --max-iter 10
EOF
done
