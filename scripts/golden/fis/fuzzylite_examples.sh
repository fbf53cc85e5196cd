#!/bin/sh
# scripts/golden/fis/fuzzylite_examples.sh [EXAMPLES_DIR] - copies the 18
# example engines of Debian's fuzzylite package (6.0) that come with reference
# data (.fll + .fld, made by fuzzylite itself) into tests/data/fis/fuzzylite/,
# keeping the header and every 8th row of each .fld so that the test data
# stays small. Files are named DIR_SUBDIR_NAME after their place in
# examples/. fuzzylite's examples are LGPL-3+ (see README.md there).
set -eu
src=${1:-/usr/share/doc/fuzzylite/examples}
dst="$(cd "$(dirname "$0")/../../.." && pwd)/tests/data/fis/fuzzylite"
mkdir -p "$dst"
cd "$src"
for fld in $(find . -name '*.fld' ! -path './original/*' | sort); do
    base=${fld#./}
    base=${base%.fld}
    name=$(echo "$base" | tr / _)
    cp "$base.fll" "$dst/$name.fll"
    awk 'NR == 1 || (NR - 2) % 8 == 0' "$fld" >"$dst/$name.fld"
done
ls "$dst" | wc -l
