#!/bin/sh
# bench/mpi_gpus.sh [BUILD] [N] - `mpirun -np R haze --gpus 0,1,2,3 fcm` against
# `haze --gpus 0,1,2,3 fcm` on a host with 4 GPUs (docs/fcm.md, "Processes
# with several GPUs"): with R = 2 (2 GPUs a rank), 3 (1, 1 and 2) and 4 (one
# each) the fit has the same 4 parts in the same order, so the centres,
# memberships and objective must be the same bytes as the one-process run's.
# Prints the wall time of each run and exits 1 when some output differs.
#
# BUILD: the build folder (default build; a build with CUDA and MPI), N: the
# points (default 2e7 x 32 float32, 2.6 GB), made by bench_fcm_multi
# --write-npy with its start centres. GPUS (default 0,1,2,3), MPIRUN (default
# mpirun), ITERS (default 20) and TMPDIR (default /tmp) may be set; CPU=1 runs
# the same on the CPU backend, each rank with 2 parts (HAZE_FCM_PARTS_PER_PROCESS),
# a check of this script where there is no GPU.
set -u
build=${1:-build}
n=${2:-2e7}
gpus=${GPUS:-0,1,2,3}
iters=${ITERS:-20}
mpirun=${MPIRUN:-mpirun}
haze=$build/haze
[ -x "$haze" ] || haze=$build/cli/haze
[ -x "$haze" ] || { echo "no haze in $build"; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/haze-mpi-gpus.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# (containers may refuse Open MPI's cross-memory attach)
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}

"$build/bench/bench_fcm_multi" --write-npy "$tmp/x.npy" --n "$n" || exit 2
args="fcm $tmp/x.npy -c 16 --init $tmp/x.npy.centres.csv --tol 0 --max-iter $iters --json"
if [ "${CPU:-0}" = 1 ]; then
    where="--backend cpu"
    export HAZE_FCM_PARTS_PER_PROCESS=2
else
    where="--gpus $gpus"
fi

t0=$(date +%s.%N)
$haze --quiet $where $args -o "$tmp/c1.npy" --memberships "$tmp/u1.npy" >"$tmp/j1" ||
    { echo "one process failed"; exit 3; }
t1=$(date +%s.%N)
echo "one process, $where: $(awk "BEGIN { printf \"%.2f\", $t1 - $t0 }") s"
grep -v '"seconds"\|"timings"\|"fit_timings"' "$tmp/j1" >"$tmp/s1"

fails=0
for r in 2 3 4; do
    rm -f "$tmp/c2.npy" "$tmp/u2.npy"
    t0=$(date +%s.%N)
    "$mpirun" --allow-run-as-root --oversubscribe -np "$r" $haze --quiet $where $args \
        -o "$tmp/c2.npy" --memberships "$tmp/u2.npy" >"$tmp/j2" ||
        { echo "mpirun -np $r failed"; fails=$((fails + 1)); continue; }
    t1=$(date +%s.%N)
    grep -v '"seconds"\|"timings"\|"fit_timings"' "$tmp/j2" >"$tmp/s2"
    same=yes
    cmp -s "$tmp/c1.npy" "$tmp/c2.npy" || same="NO: centres differ"
    [ "$same" = yes ] && ! cmp -s "$tmp/u1.npy" "$tmp/u2.npy" && same="NO: memberships differ"
    [ "$same" = yes ] && ! cmp -s "$tmp/s1" "$tmp/s2" && same="NO: summary differs"
    echo "mpirun -np $r, $where: $(awk "BEGIN { printf \"%.2f\", $t1 - $t0 }") s, same bytes: $same"
    [ "$same" = yes ] || { fails=$((fails + 1)); diff "$tmp/s1" "$tmp/s2" | head -20; }
done
[ "$fails" = 0 ] || exit 1
echo "all the same"
