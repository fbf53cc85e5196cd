#!/bin/sh
# scripts/golden/fnn/make-golden.sh HAZE - regenerates tests/data/fnn/: a small
# SONFIN classifier trained by haze on the first 300 rows of Letter, its
# Sugeno .fis export, 60 inputs (rows 16001-16060) and the outputs that
# Octave's fuzzy-logic-toolkit (evalfis) computes from the .fis file.
# Needs octave and octave-fuzzy-logic-toolkit; the tests only read the results.
set -eu
haze=${1:-build/haze}
root=$(cd "$(dirname "$0")/../../.." && pwd)
out=$root/tests/data/fnn
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
head -301 "$root/data/letter-recognition.csv" >"$tmp/train.csv"
"$haze" --backend cpu --quiet fnn train "$tmp/train.csv" --target lettr --classes --epochs 3 \
    --threshold 0.2 --seed 5 -o "$out/golden.model"
"$haze" --quiet fnn export "$out/golden.model" -o "$out/golden.fis"
# inputs: the 16 features of rows 16001..16060 (no header, no label)
sed -n '16002,16061p' "$root/data/letter-recognition.csv" | cut -d, -f2- >"$out/golden-inputs.csv"
octave --no-gui --quiet --eval "
  pkg load fuzzy-logic-toolkit;
  fis = readfis('$out/golden.fis');
  x = dlmread('$out/golden-inputs.csv', ',');
  y = evalfis(x, fis);
  fid = fopen('$out/golden-octave.csv', 'w');
  for i = 1:rows(y)
    fprintf(fid, '%.17g', y(i, 1)); fprintf(fid, ',%.17g', y(i, 2:end)); fprintf(fid, '\n');
  end
  fclose(fid);"
echo "golden files written to $out"
