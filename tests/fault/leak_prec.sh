#!/bin/sh
# tests/fault/leak_prec.sh HAZE SHIM SRC - memory lost when an allocation
# fails while `haze prec` reads and starts to analyse a script: the Nth
# allocation fails (fault_alloc.c), N over the first allocations of a Gappa
# and an FPCore script (the reader's and the first sub-box's), and valgrind
# reports no block definitely lost. Out of memory inside MPFR unwinds to the
# guard of the call (haze__mp_run); what the reader or the engine allocated
# for themselves must be freed by it.
set -u
haze=$1
shim=$2
src=$3
vg=$(command -v valgrind) || { echo "valgrind not found: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$src/examples/prec/fixed_point.g" "$tmp/fixed.g"
printf '(FPCore (x) :pre (<= 1 x 2) (sqrt (+ (* x x) 1)))\n' >"$tmp/f.fpcore"
# the shim must be loaded (a path it cannot open is only a warning of ld.so)
(cd "$tmp" && HAZE_THREADS=1 HAZE_BACKEND=cpu HAZE_FAULT_N=0 HAZE_FAULT_COUNT="$tmp/count" \
    LD_PRELOAD="$shim" "$haze" prec fixed.g >/dev/null) || { echo "FAIL: prec without a fault"; exit 1; }
[ "$(cat "$tmp/count" 2>/dev/null || echo 0)" -gt 0 ] || { echo "FAIL: the shim counted nothing"; exit 1; }
fails=0
runs=0
for f in fixed.g f.fpcore; do
    n=1
    while [ "$n" -le 120 ]; do
        runs=$((runs + 1))
        (cd "$tmp" && HAZE_THREADS=1 HAZE_BACKEND=cpu HAZE_FAULT_N=$n LD_PRELOAD="$shim" \
            "$vg" -q --soname-synonyms=somalloc=nouserintercepts --leak-check=full \
            --errors-for-leak-kinds=definite --error-exitcode=99 "$haze" prec "$f" \
            >/dev/null 2>"$tmp/vg.err")
        if [ $? -eq 99 ]; then
            echo "FAIL: prec $f: allocation $n failing: memory lost"
            grep -A8 "definitely lost in" "$tmp/vg.err" | head -20
            fails=$((fails + 1))
        fi
        n=$((n + 3))
    done
done
echo "$runs runs, $fails with memory lost"
[ "$fails" -eq 0 ]
