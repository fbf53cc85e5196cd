#!/bin/sh
# scripts/fnn/quality.sh [HAZE] [DATASETS (default out/datasets)] - the SONFIN quality runs of
# docs/fnn.md: test accuracy, rules and training time on Letter (UCI split),
# sklearn digits (first 1500 rows train, last 297 test) and MNIST (60000 /
# 10000, on 50 principal components), each next to the 1-nearest-neighbour baseline of knn.py. Letter
# needs only this repository; digits and MNIST need scripts/get-datasets.sh
# first (skipped otherwise). Uses the backend HAZE_BACKEND picks (GPU if any).
# These are the hand-tuned settings of the tables in docs/fnn.md, measured
# before the defaults changed: every option is spelt out (--width 0 is the
# distance rule, --validation 0 trains on every row and keeps the last epoch).
# scripts/fnn/compare.py runs the defaults.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
haze=${1:-$root/build/haze}
dir=${2:-$root/out/datasets}
py=${PYTHON:-python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() { # run NAME TRAIN TEST TARGET HEAD TAIL TRAIN-OPTIONS...
    name=$1 train=$2 test=$3 target=$4 head=$5 tail=$6
    shift 6
    echo "== $name"
    start=$(date +%s.%N)
    "$haze" fnn train "$train" --target "$target" --classes $head "$@" -o "$tmp/$name.fnn"
    end=$(date +%s.%N)
    "$haze" fnn predict "$tmp/$name.fnn" "$test" $tail -o "$tmp/$name.pred"
    "$haze" fnn info "$tmp/$name.fnn" | grep '^rules'
    echo "training time: $(awk "BEGIN { print $end - $start }") s"
    "$py" "$root/scripts/fnn/knn.py" "$train" "$test" --target "$target" $head $tail ${KNN_SCALE:-}
}

letter=$root/data/letter-recognition.csv
run letter "$letter" "$letter" lettr "--head 16000" "--tail 4000" \
    --epochs 15 --threshold 0.6 --width 0 --beta 0.8 --rate 0.02 --validation 0
if [ -f "$dir/digits.csv" ]; then
    # fixed rule widths (--width); digits.sh adds a stratified split and seeds
    KNN_SCALE="--scale global" run digits "$dir/digits.csv" "$dir/digits.csv" label "--head 1500" "--tail 297" \
        --epochs 10 --threshold 0.8 --width 1.0 --rate 0.02 --scale global --validation 0
fi
if [ -f "$dir/mnist-train.npy" ]; then
    # 50 principal components fitted on the training images (docs/fnn.md)
    [ -f "$dir/mnist-pca50-test.npy" ] ||
        "$py" "$root/scripts/fnn/pca.py" 50 "$dir/mnist-train.npy" "$dir/mnist-test.npy" \
            "$dir/mnist-pca50-train.npy" "$dir/mnist-pca50-test.npy"
    KNN_SCALE="--scale global" run mnist "$dir/mnist-pca50-train.npy" "$dir/mnist-pca50-test.npy" 50 "" "" \
        --epochs 15 --threshold 0.35 --width 0 --beta 0.8 --rate 0.02 --scale global --validation 0
fi
