#!/bin/sh
# scripts/fnn/digits.sh [HAZE] [DATASETS (default out/datasets)] - SONFIN on
# scikit-learn's digits (1797 images of 8 x 8 pixels, 0..16, ten classes)
# from the CLI, end to end, on the CPU backend: for two hold-out splits it
# trains `haze fnn train`, predicts the test rows with `haze fnn predict`, and
# prints test accuracy, rules and training time next to the 1-nearest-
# neighbour baseline of knn.py on the same rows and the same scaling.
#   split "tail":   first 1500 rows train, last 297 test (the split of
#                   quality.sh; contiguous, not stratified)
#   split "strat":  train_test_split(test_size=0.25, random_state=0,
#                   stratify=label) by split.py: 1347 / 450
# Settings (docs/fnn.md, "sklearn digits"): one global z-score for all
# pixels, a fixed width 1.0 for every new rule (--width), threshold 0.8.
# Environment: SEEDS (default "1") lists the shuffle seeds to run, THREADS
# (default 1) the CPU threads, PYTHON the interpreter with numpy and sklearn.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
haze=${1:-$root/build/haze}
dir=${2:-$root/out/datasets}
py=${PYTHON:-python3}
seeds=${SEEDS:-1}
threads=${THREADS:-1}
settings="--epochs 10 --threshold 0.8 --width 1.0 --rate 0.02 --scale global --validation 0"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$dir"
[ -f "$dir/digits.csv" ] || "$py" "$root/scripts/fnn/convert.py" sklearn digits "$dir/digits.csv"
"$py" "$root/scripts/fnn/split.py" "$dir/digits.csv" "$tmp/strat-train.csv" "$tmp/strat-test.csv" \
    --target label --test-size 0.25 --seed 0 >/dev/null

run() { # run NAME TRAIN TEST HEAD TAIL
    name=$1 train=$2 test=$3 head=$4 tail=$5
    echo "== digits, split $name: haze fnn train ... $head $settings"
    "$py" "$root/scripts/fnn/knn.py" "$train" "$test" --target label $head $tail --scale global
    for seed in $seeds; do
        start=$(date +%s.%N)
        "$haze" --quiet --backend cpu --threads "$threads" fnn train "$train" --target label \
            --classes $head $settings --seed "$seed" -o "$tmp/$name.fnn"
        end=$(date +%s.%N)
        "$haze" --backend cpu fnn predict "$tmp/$name.fnn" "$test" $tail -o "$tmp/$name.pred" \
            2>"$tmp/acc"
        acc=$(sed -n 's/.*accuracy \([0-9.]*%\).*/\1/p' "$tmp/acc")
        rules=$("$haze" fnn info "$tmp/$name.fnn" | awk '$1 == "rules" { print $2 }')
        echo "SONFIN seed $seed: test accuracy $acc, $rules rules," \
            "training $(awk "BEGIN { printf \"%.2f\", $end - $start }") s wall ($threads thread)"
    done
}

run tail "$dir/digits.csv" "$dir/digits.csv" "--head 1500" "--tail 297"
run strat "$tmp/strat-train.csv" "$tmp/strat-test.csv" "" ""
