#!/bin/sh
# scripts/golden/prec/gappa.sh - regenerates tests/data/prec/gappa/*.txt: the
# output of Gappa (Debian package gappa, version 1.4.1) on the benchmark
# scripts and the paper's examples, which tests/test_prec.c compares haze's
# bounds with. Needs gappa; CI does not run this script.
set -eu
cd "$(dirname "$0")/../../.."
out=tests/data/prec/gappa
mkdir -p "$out"
for f in tests/data/prec/bench/*.g examples/prec/fixed_point.g examples/prec/iir_stable_10.g \
    examples/prec/iir_paper_10.g; do
    name=$(basename "$f" .g)
    {
        echo "# gappa $(gappa --version 2>&1 | head -1) on $f"
        gappa "$f" 2>&1 | grep -v '^Warning'
    } > "$out/$name.txt"
    echo "$name: $(grep ' in \[' "$out/$name.txt" || echo FAILED)"
done
