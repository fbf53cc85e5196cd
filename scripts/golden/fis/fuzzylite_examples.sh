#!/bin/sh
# scripts/golden/fis/fuzzylite_examples.sh [EXAMPLES_DIR] - copies the 18
# example engines of Debian's fuzzylite package (6.0) that come with reference
# data (.fll + .fld) into tests/data/fis/fuzzylite/, keeping the inputs of
# the first, every 8th and the last row of each .fld so that the test data
# stays small, and evaluates them again with the installed `fuzzylite`
# binary, in order (takagi-sugeno/approximation has lock-previous outputs,
# which carry a value from one row to the next). Files are named
# DIR_SUBDIR_NAME after their place in examples/. fuzzylite's examples are
# LGPL-3+ (see README.md there).
set -eu
src=${1:-/usr/share/doc/fuzzylite/examples}
dst="$(cd "$(dirname "$0")/../../.." && pwd)/tests/data/fis/fuzzylite"
command -v fuzzylite >/dev/null || { echo "needs fuzzylite (Debian package fuzzylite)" >&2; exit 1; }
mkdir -p "$dst"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
cd "$src"
for fld in $(find . -name '*.fld' ! -path './original/*' | sort); do
    base=${fld#./}
    base=${base%.fld}
    name=$(echo "$base" | tr / _)
    cp "$base.fll" "$dst/$name.fll"
    ni=$(grep -c '^InputVariable:' "$base.fll")
    awk -v ni="$ni" 'function row() { s = $1; for (i = 2; i <= ni; i++) s = s " " $i; return s }
        NR == 1 || (NR - 2) % 8 == 0 { print row(); last = NR; next }
        { pending = row() }
        END { if (NR != last) print pending }' "$fld" >"$tmp"
    fuzzylite -i "$base.fll" -of fld -d "$tmp" -o "$dst/$name.fld" -decimals 9
done
ls "$dst" | wc -l
