#!/bin/sh
# tests/fault/run.sh HAZE SHIM SRC - fault injection: runs representative
# commands with the Nth allocation failing (fault_alloc.c, LD_PRELOAD), N
# swept over every allocation of the command (or an even sample of
# HAZE_FAULT_RUNS of them, 100 by default), and asserts for each run: no
# signal and no hang; exit 0 with the output of the run without a failure
# (the allocation was one haze can do without), or exit 3 with "out of
# memory" in the message; and no temporary file left beside the outputs.
# A second pass makes every allocation from the Nth on fail (memory that has
# run out), on a sample of N. HAZE_FAULT_ONLY=PATTERN runs only the commands
# whose names match.
set -u
haze=$1
shim=$2
src=$3
runs=${HAZE_FAULT_RUNS:-100}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
total=0

# the inputs: small, so that a sweep is quick
head -n 41 "$src/data/letter-demo.csv" >"$tmp/letters.csv"
printf 'service,food\n1,2\n5,5\n9,8\n3,7\n' >"$tmp/tips.csv"
cp "$src/data/iris.csv" "$tmp/iris.csv"
cp "$src/data/tipper.fis" "$tmp/tipper.fis"
cp "$src/data/tipper_hybrid.fll" "$tmp/tipper.fll"
cp "$src/data/edge_camera.png" "$tmp/camera.png"
cp "$src/examples/prec/fixed_point.g" "$tmp/fixed.g"
printf '(FPCore (x) :pre (<= 1 x 2) (sqrt (+ (* x x) 1)))\n' >"$tmp/f.fpcore"
mkdir "$tmp/out"
HAZE_THREADS=1 HAZE_BACKEND=cpu "$haze" fnn train "$tmp/letters.csv" --target lettr --classes \
    --epochs 1 -o "$tmp/model.fnn" >/dev/null 2>&1 || { echo "FAIL: making the model"; exit 1; }

# name|command line (run with `sh -c` in $tmp/out; $H is haze with the shim,
# which the shell and timeout do without)
cat >"$tmp/commands" <<'EOF'
fis eval|$H fis eval ../tipper.fis ../tips.csv -o tips.out
fis eval fll|$H fis eval ../tipper.fll ../tips.csv -o tips.out
fcm|$H fcm ../iris.csv -c 3 --seed 1 --max-iter 5 -o centres.csv --memberships u.csv
fnn train|$H fnn train ../letters.csv --target lettr --classes --epochs 1 -o m.fnn
fnn predict|$H fnn predict ../model.fnn ../letters.csv -o p.csv
prec|$H prec --engine both ../fixed.g -o prec.txt
prec fpcore|$H prec ../f.fpcore
fuzzy eval|$H fuzzy eval "(a*b + c)/d" --let "a=tri(1,2,3)" --let "b=gauss(5,0.5,3)" --let "c=trap(0,1,2,3)" --let d=0.1 --cuts 4
edge|$H edge ../camera.png -o e.png
EOF

# run ENV... : runs the current command in $tmp/out, output in $tmp/run.*
run() {
    rm -rf "$tmp/out" && mkdir "$tmp/out"
    (cd "$tmp/out" && env H="env LD_PRELOAD=$shim $haze" HAZE_THREADS=1 HAZE_BACKEND=cpu "$@" \
        timeout 60 sh -c "$cmd" >"$tmp/run.out" 2>"$tmp/run.err")
    rc=$?
}

# what a run wrote (standard output, then its files), without timings
outputs() {
    (cat "$tmp/run.out" && cd "$tmp/out" && cat ./* 2>/dev/null) | sed 's/, [0-9.e+-]* s$//'
}

while IFS='|' read -r name cmd; do
    case "$name" in ${HAZE_FAULT_ONLY:-*}) ;; *) continue ;; esac
    run HAZE_FAULT_N=0 HAZE_FAULT_COUNT="$tmp/count"
    if [ "$rc" -ne 0 ]; then
        echo "FAIL: $name: exit $rc without a fault"
        cat "$tmp/run.err"
        fails=$((fails + 1))
        continue
    fi
    outputs >"$tmp/base.files"
    n=$(cat "$tmp/count")
    step=$(((n + runs - 1) / runs))
    [ "$step" -ge 1 ] || step=1
    ok=0
    nomem=0
    for sticky in 0 1; do
        i=1
        [ "$sticky" = 1 ] && i=$((step / 2 + 1)) && step=$((step * 4))
        while [ "$i" -le "$n" ]; do
            total=$((total + 1))
            run HAZE_FAULT_N=$i HAZE_FAULT_STICKY=$sticky
            left=$(cd "$tmp/out" && ls -A | grep '\.tmp\.' || true)
            why=""
            if [ "$rc" -ge 124 ]; then
                why="exit $rc (signal or hang)"
            elif [ -n "$left" ]; then
                why="temporary file left: $left"
            elif [ "$rc" -eq 3 ]; then
                grep -q "out of memory" "$tmp/run.err" || why="exit 3 without 'out of memory'"
                nomem=$((nomem + 1))
            elif [ "$rc" -eq 0 ]; then
                outputs >"$tmp/run.files"
                if ! cmp -s "$tmp/run.files" "$tmp/base.files"; then
                    why="exit 0 with a different output"
                fi
                ok=$((ok + 1))
            else
                why="exit $rc"
            fi
            if [ -n "$why" ]; then
                echo "FAIL: $name: allocation $i of $n failing (sticky $sticky): $why"
                head -c 600 "$tmp/run.err"
                fails=$((fails + 1))
            fi
            i=$((i + step))
        done
    done
    echo "$name: $n allocations; $((ok + nomem)) faults: $nomem out of memory, $ok absorbed"
done <"$tmp/commands"

echo "$total fault runs, $fails failed"
[ "$fails" -eq 0 ]
