#!/bin/sh
# tests/cli/plot.sh HAZE PLOT_PROBE DATADIR - the pictures of the haze
# commands: each is rendered, read back (tests/plot_probe.c) and checked for
# what can be checked without eyes: its size, that it is not blank, and the
# expected colours in the expected regions. Bad plot options exit 1 with a
# message. Built without plotting (no cairo), the plot options must say so
# and exit 1, and nothing else is checked.
set -u
haze=$1
probe=$2
data=$3
. "$(dirname "$0")/lib.sh"
scratch
H="$haze --backend cpu"
# sanitized builds: cairo's font caches live until exit (tests/lsan.supp)
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$(cd "$(dirname "$0")/.." && pwd)/lsan.supp"

# the palette (cli/plot.c): blue, orange, green; the ink; viridis' ends
blue=1f77b4 orange=ff7f0e green=2ca02c ink=333333 dark=440154 yellow=fde725

count() { # count FILE COLOUR TOL X0 Y0 X1 Y1: pixels of that colour in the region
    "$probe" "$@" 2>/dev/null || echo -1
}
some() { # some FILE COLOUR X0 Y0 X1 Y1 DESCRIPTION: at least 20 such pixels
    n=$(count "$1" count "$2" 24 "$3" "$4" "$5" "$6")
    [ "$n" -ge 20 ] || fail "$7: $n pixels of #$2 in [$3,$5] x [$4,$6] of $1"
}
none() { # none FILE COLOUR X0 Y0 X1 Y1 DESCRIPTION: no such pixel
    n=$(count "$1" count "$2" 24 "$3" "$4" "$5" "$6")
    [ "$n" -eq 0 ] || fail "$7: $n pixels of #$2 in [$3,$5] x [$4,$6] of $1"
}
size_is() { # size_is FILE "W H" DESCRIPTION
    got=$("$probe" "$1" size 2>&1)
    [ "$got" = "$2" ] || fail "$3: size '$got', want '$2'"
}
not_blank() { # not_blank FILE DESCRIPTION: more than a handful of colours
    n=$("$probe" "$1" colours 2>/dev/null || echo 0)
    [ "$n" -gt 50 ] || fail "$2: only $n colours"
}

# A model of one input, for the surface that cannot be drawn.
cat >"$tmp/one.fis" <<'FIS'
[System]
Name='one'
Type='mamdani'
NumInputs=1
NumOutputs=1
NumRules=1
AndMethod='min'
OrMethod='max'
ImpMethod='min'
AggMethod='max'
DefuzzMethod='centroid'

[Input1]
Name='x'
Range=[0 1]
NumMFs=1
MF1='lo':'trimf',[0 0 1]

[Output1]
Name='y'
Range=[0 1]
NumMFs=1
MF1='lo':'trimf',[0 0 1]

[Rules]
1, 1 (1) : 1
FIS

$H fis plot "$data/tipper.fis" -o "$tmp/probe.png" >"$out" 2>"$err"
if grep -q "built without plotting support" "$err"; then
    echo "built without plotting: the plot options must refuse"
    check 1 "fis plot without cairo" $H fis plot "$data/tipper.fis" -o "$tmp/m.png"
    grep_err "built without plotting support" "fis plot without cairo"
    check 1 "fis surface --plot without cairo" $H fis surface "$data/tipper.fis" --plot "$tmp/s.png"
    grep_err "built without plotting support" "surface without cairo"
    check 1 "fcm --plot without cairo" $H fcm "$data/iris.csv" -c 3 --plot "$tmp/f.png"
    grep_err "built without plotting support" "fcm without cairo"
    check 1 "edge --side-by-side without cairo" $H edge "$data/edge_camera.png" -o "$tmp/e.png" --side-by-side "$tmp/s.png"
    absent "$tmp/e.png" "edge without cairo"
    check 1 "fuzzy eval --plot without cairo" $H fuzzy eval 'tri(1,2,3)' --plot "$tmp/z.png"
    grep_err "built without plotting support" "fuzzy without cairo"
    check 1 "fnn train --plot without cairo" $H fnn train "$data/iris.csv" --target petal_width -o "$tmp/x.fnn" --plot "$tmp/f.png"
    grep_err "built without plotting support" "fnn without cairo"
    absent "$tmp/x.fnn" "fnn without cairo"
    check 1 "prec --plot without cairo" $H prec "$data/../examples/prec/fixed_point.g" --plot "$tmp/p.png"
    grep_err "built without plotting support" "prec without cairo"
    check 1 "fis rules -o without cairo" $H fis rules "$data/tipper.fis" --at 2,1 -o "$tmp/r.png"
    grep_err "built without plotting support" "fis rules without cairo"
    check 0 "fis rules, text, without cairo" $H fis rules "$data/tipper.fis" --at 2,1
    check 1 "demo --plot without cairo" $H demo --plot "$tmp/d.png"
    grep_err "built without plotting support" "demo without cairo"
    [ "$fails" = 0 ] && echo "all plot tests passed (built without plotting)"
    exit $((fails > 0))
fi

# --- fis plot: one panel per variable, 2 across, 720 x 380 each, a title row
check 0 "fis plot tipper" $H fis plot "$data/tipper.fis" -o "$tmp/mfs.png"
size_is "$tmp/mfs.png" "1440 794" "fis plot tipper"
not_blank "$tmp/mfs.png" "fis plot tipper"
# service (top left): poor, good, excellent; food (top right): rancid,
# delicious, no third set; tip (bottom left); the fourth panel is empty
some "$tmp/mfs.png" $blue 0 0.05 0.5 0.52 "service: poor"
some "$tmp/mfs.png" $green 0 0.05 0.5 0.52 "service: excellent"
some "$tmp/mfs.png" $orange 0.5 0.05 1 0.52 "food: delicious"
none "$tmp/mfs.png" $green 0.5 0.05 1 0.52 "food has two sets"
some "$tmp/mfs.png" $green 0 0.55 0.5 1 "tip: generous"
none "$tmp/mfs.png" $blue 0.5 0.55 1 1 "the fourth panel is empty"
none "$tmp/mfs.png" $ink 0.5 0.55 1 1 "the fourth panel has no axes"
# poor sits left of excellent: blue in the left third of the service axis only
none "$tmp/mfs.png" $blue 0.3 0.2 0.4 0.35 "service: poor is gone on the right"
check 0 "fis plot --var food" $H fis plot "$data/tipper.fis" --var food -o "$tmp/food.png"
size_is "$tmp/food.png" "720 380" "fis plot --var food"
some "$tmp/food.png" $orange 0 0 1 1 "--var food: delicious"
none "$tmp/food.png" $green 0 0 1 1 "--var food: no third set"
check 0 "fis plot --var out1 (.fll)" $H fis plot "$data/tipper_hybrid.fll" --var out1 -o "$tmp/o.png"
not_blank "$tmp/o.png" "fis plot of a .fll output"
check 0 "fis plot to SVG" $H fis plot "$data/tipper.fis" -o "$tmp/mfs.svg"
grep -q "<svg" "$tmp/mfs.svg" || fail "fis plot to SVG: no <svg"
check 0 "fis plot to PDF" $H fis plot "$data/tipper.fis" -o "$tmp/mfs.pdf"
head -c 5 "$tmp/mfs.pdf" | grep -q "%PDF-" || fail "fis plot to PDF: no %PDF-"
check 1 "fis plot --var unknown" $H fis plot "$data/tipper.fis" --var speed -o "$tmp/x.png"
grep_err "no such variable (inputs service, food; outputs tip)" "fis plot --var unknown"
absent "$tmp/x.png" "fis plot --var unknown"
check 1 "fis plot without -o" $H fis plot "$data/tipper.fis"
grep_err "plot: -o OUT.png" "fis plot without -o"
check 1 "fis plot -o x.gif" $H fis plot "$data/tipper.fis" -o "$tmp/x.gif"
grep_err "unknown picture type (write .png, .svg or .pdf)" "fis plot -o x.gif"
check 1 "fis eval --var" $H fis eval "$data/tipper.fis" --var food
grep_err "is for fis plot" "fis eval --var"

# --- fis surface --plot: heat map with a colour bar, 640 x 500
check 0 "fis surface --plot" $H fis surface "$data/tipper.fis" --plot "$tmp/s.png" -o "$tmp/s.csv"
size_is "$tmp/s.png" "640 500" "fis surface --plot"
not_blank "$tmp/s.png" "fis surface --plot"
[ "$(wc -l <"$tmp/s.csv")" = 1682 ] || fail "surface --plot: the table has not 41 x 41 rows + header"
# poor service and rancid food (bottom left) give the least tip, excellent
# service and delicious food (top right) the most
some "$tmp/s.png" $dark 0.13 0.7 0.25 0.85 "surface: low tip bottom left"
some "$tmp/s.png" $yellow 0.7 0.1 0.8 0.2 "surface: high tip top right"
none "$tmp/s.png" $yellow 0.13 0.7 0.25 0.85 "surface: no high tip bottom left"
# the same with the inputs swapped: the table's columns stay, the grid turns
# (service 0, food 2.5: row 6 of the plain grid, row 2 of the turned one)
check 0 "fis surface --grid 5" $H fis surface "$data/tipper.fis" --grid 5
plain=$(sed -n 7p "$out")
check 0 "fis surface --inputs food,service" $H fis surface "$data/tipper.fis" --inputs food,service --grid 5
[ "$(sed -n 3p "$out")" = "$plain" ] || fail "surface --inputs: row 2 is '$(sed -n 3p "$out")', want '$plain'"
check 1 "fis surface --plot, one input" $H fis surface "$tmp/one.fis" --plot "$tmp/one.png"
grep_err "the model has 1 input; a surface needs two" "surface of one input"
absent "$tmp/one.png" "surface of one input"
check 1 "fis surface --inputs unknown" $H fis surface "$data/tipper.fis" --inputs food,speed
grep_err "no such input (inputs service, food)" "surface --inputs unknown"
check 1 "fis surface --hold on the grid" $H fis surface "$data/tipper.fis" --hold food=3
grep_err "that input is on the grid" "surface --hold food"
check 1 "fis surface --plot .txt" $H fis surface "$data/tipper.fis" --plot "$tmp/s.txt"
grep_err "unknown picture type" "surface --plot .txt"

# --- fcm --plot: two clear clusters of 2 features; clusters and objective
awk 'BEGIN { print "a,b"; s = 1; for (i = 0; i < 200; i++) {
    s = (s * 1103515245 + 12345) % 2147483648; u = s / 2147483648;
    s = (s * 1103515245 + 12345) % 2147483648; v = s / 2147483648;
    if (i % 2) printf "%.4f,%.4f\n", u, v; else printf "%.4f,%.4f\n", 8 + u, 8 + v } }' >"$tmp/two.csv"
check 0 "fcm --plot" $H fcm "$tmp/two.csv" -c 2 --plot "$tmp/f.png" -o "$tmp/c.csv"
size_is "$tmp/f.png" "1440 420" "fcm --plot"
not_blank "$tmp/f.png" "fcm --plot"
# one cluster bottom left, the other top right of the left panel, each one
# colour; the centres' crosses in ink; the objective (blue) on the right
bl_blue=$(count "$tmp/f.png" count $blue 24 0.05 0.6 0.15 0.95)
bl_orange=$(count "$tmp/f.png" count $orange 24 0.05 0.6 0.15 0.95)
tr_blue=$(count "$tmp/f.png" count $blue 24 0.28 0.05 0.385 0.4)
tr_orange=$(count "$tmp/f.png" count $orange 24 0.28 0.05 0.385 0.4)
if [ "$bl_blue" -ge 20 ]; then
    [ "$bl_orange" -lt 5 ] && [ "$tr_orange" -ge 20 ] && [ "$tr_blue" -lt 5 ] ||
        fail "fcm --plot: clusters not one colour each ($bl_blue $bl_orange $tr_blue $tr_orange)"
else
    [ "$bl_orange" -ge 20 ] && [ "$tr_blue" -ge 20 ] && [ "$tr_orange" -lt 5 ] ||
        fail "fcm --plot: clusters not one colour each ($bl_blue $bl_orange $tr_blue $tr_orange)"
fi
some "$tmp/f.png" $ink 0.05 0.6 0.15 0.95 "fcm --plot: a centre bottom left"
some "$tmp/f.png" $blue 0.55 0.1 1 0.9 "fcm --plot: the objective"
[ "$(wc -l <"$tmp/c.csv")" = 3 ] || fail "fcm --plot: the centres file"
check 0 "fcm --plot, 4 features (principal components)" $H fcm "$data/iris.csv" -c 3 --plot "$tmp/iris.png"
grep -q . "$tmp/iris.png" || fail "fcm --plot iris: empty"
not_blank "$tmp/iris.png" "fcm --plot iris"
check 0 "fcm --plot, float32 .npy in single precision" $H --quiet fcm "$data/../examples/data/blobs32.npy" -c 4 --precision single --max-iter 5 --plot "$tmp/b32.png"
not_blank "$tmp/b32.png" "fcm --plot of float32 data"
check 1 "fcm --plot .jpg" $H fcm "$data/iris.csv" -c 3 --plot "$tmp/f.jpg"
grep_err "unknown picture type" "fcm --plot .jpg"

# --- edge --side-by-side: the photo (dark hair) left, the edges (mostly white) right
check 0 "edge --side-by-side" $H edge "$data/edge_camera.png" -o "$tmp/e.png" --side-by-side "$tmp/sbs.png"
size_is "$tmp/sbs.png" "1080 476" "edge --side-by-side"
not_blank "$tmp/sbs.png" "edge --side-by-side"
[ "$(count "$tmp/sbs.png" count 202020 40 0.02 0.2 0.48 0.6)" -ge 2000 ] ||
    fail "edge --side-by-side: the photo's dark hair is not on the left"
[ "$(count "$tmp/sbs.png" count 202020 40 0.52 0.2 0.98 0.6)" -lt 500 ] ||
    fail "edge --side-by-side: the edges are not mostly light"
[ "$(count "$tmp/sbs.png" count ffffff 8 0.52 0.1 0.98 0.95)" -ge 50000 ] ||
    fail "edge --side-by-side: the edges' background is not white"
[ -s "$tmp/e.png" ] || fail "edge --side-by-side: the edge image was not written"
check 1 "edge --side-by-side, two inputs" $H edge "$data/edge_camera.png" "$data/edge_camera.png" -o "$tmp/d/" --side-by-side "$tmp/x.png"
grep_err "takes one input image" "edge --side-by-side, two inputs"
check 1 "edge --side-by-side .bmp" $H edge "$data/edge_camera.png" -o "$tmp/e2.png" --side-by-side "$tmp/x.bmp"
absent "$tmp/e2.png" "edge --side-by-side .bmp"

# --- fis rules: a row per rule, the aggregate below; the same value as fis eval
red=d62728
check 0 "fis rules --at 2,1" $H fis rules "$data/tipper.fis" --at 2,1 -o "$tmp/rules.png"
grep_out "tip = 7.0168791431267721" "fis rules: the value of fis eval"
grep_out "   1  1  " "fis rules: rule 1 fires fully"
size_is "$tmp/rules.png" "600 314" "fis rules"
not_blank "$tmp/rules.png" "fis rules"
some "$tmp/rules.png" $blue 0 0.11 0.33 0.33 "fis rules: service is poor, filled to its degree"
some "$tmp/rules.png" $red 0 0.11 0.33 0.33 "fis rules: the input's line"
some "$tmp/rules.png" $orange 0.67 0.11 1 0.33 "fis rules: rule 1 implies cheap"
none "$tmp/rules.png" $orange 0.67 0.56 1 0.77 "fis rules: rule 3 hardly fires"
some "$tmp/rules.png" $orange 0.67 0.78 1 1 "fis rules: the aggregate"
some "$tmp/rules.png" $red 0.67 0.78 1 1 "fis rules: the defuzzified value"
check 0 "fis rules, text only" $H fis rules "$data/tipper.fis" --at 4,5
grep_out "tip = 14.458" "fis rules --at 4,5"
check 0 "fis rules of a .fll" $H fis rules "$data/tipper_hybrid.fll" --at 2,1 -o "$tmp/rules2.png"
not_blank "$tmp/rules2.png" "fis rules of a .fll"
check 1 "fis rules --at, one value short" $H fis rules "$data/tipper.fis" --at 2 -o "$tmp/r.png"
grep_err "expected 2 numbers, one per input (inputs service, food)" "fis rules --at 2"
absent "$tmp/r.png" "fis rules --at 2"
check 1 "fis rules --at x,1" $H fis rules "$data/tipper.fis" --at x,1
check 1 "fis rules without --at" $H fis rules "$data/tipper.fis"
grep_err "rules: --at V1,V2,... is required" "fis rules without --at"

# --- fuzzy eval --plot: the result's cuts (blue) right of the operand b (green)
check 0 "fuzzy eval --plot" $H fuzzy eval 'a*b + tri(0,1,2)' --let 'a=tri(1,2,4)' --let 'b=[0.5,1]' --cuts 8 --plot "$tmp/fz.png"
grep_out "0.125    0.6875" "fuzzy eval --plot: the table still on stdout"
size_is "$tmp/fz.png" "760 440" "fuzzy eval --plot"
not_blank "$tmp/fz.png" "fuzzy eval --plot"
some "$tmp/fz.png" $blue 0.35 0.1 0.75 0.85 "fuzzy eval --plot: the result"
some "$tmp/fz.png" $green 0.1 0.1 0.25 0.85 "fuzzy eval --plot: the operand b"
none "$tmp/fz.png" $green 0.35 0.1 0.75 0.85 "fuzzy eval --plot: b is left of the result"
some "$tmp/fz.png" $orange 0.25 0.1 0.6 0.85 "fuzzy eval --plot: the operand a"
check 1 "fuzzy eval --plot --batch" $H fuzzy eval --batch "$tmp/one.fis" --plot "$tmp/b.png"
grep_err "not a --batch" "fuzzy eval --plot --batch"
check 2 "fuzzy eval --plot, bad expression" $H fuzzy eval 'tri(1,2' --plot "$tmp/bad.png"
absent "$tmp/bad.png" "fuzzy eval --plot, bad expression"

# --- fnn train --plot: loss (training blue, held-out orange), accuracy, rules
check 0 "fnn train --plot" $H --quiet fnn train "$data/letter-demo.csv" --target lettr --classes --head 600 --epochs 3 -o "$tmp/l.fnn" --plot "$tmp/fnn.png"
size_is "$tmp/fnn.png" "1440 400" "fnn train --plot"
not_blank "$tmp/fnn.png" "fnn train --plot"
for panel in "0.03 0.33" "0.36 0.66"; do
    set -- $panel
    some "$tmp/fnn.png" $blue "$1" 0.1 "$2" 0.85 "fnn train --plot: training curve in [$1, $2]"
    some "$tmp/fnn.png" $orange "$1" 0.1 "$2" 0.85 "fnn train --plot: held-out curve in [$1, $2]"
done
some "$tmp/fnn.png" $blue 0.7 0.1 1 0.85 "fnn train --plot: the rule count"
none "$tmp/fnn.png" $orange 0.7 0.1 1 0.85 "fnn train --plot: rules have no held-out curve"
[ -s "$tmp/l.fnn" ] || fail "fnn train --plot: no model written"
check 0 "fnn train --plot, regression" $H --quiet fnn train "$data/iris.csv" --target petal_width --epochs 2 --validation 0 -o "$tmp/r.fnn" --plot "$tmp/reg.png"
size_is "$tmp/reg.png" "960 400" "fnn train --plot, regression: no accuracy panel"
none "$tmp/reg.png" $orange 0 0 1 1 "fnn train --plot, regression: no held-out curve without --validation"
check 1 "fnn train --plot .tiff" $H fnn train "$data/iris.csv" --target petal_width -o "$tmp/x.fnn" --plot "$tmp/x.tiff"
absent "$tmp/x.fnn" "fnn train --plot .tiff"
check 2 "fnn train --plot, --epochs 0" $H --quiet fnn train "$data/iris.csv" --target petal_width --epochs 0 -o "$tmp/z.fnn" --plot "$tmp/z.png"
grep_err "nothing to draw" "fnn train --plot, --epochs 0"
absent "$tmp/z.fnn" "fnn train --plot, --epochs 0: the outputs land together or not at all"

# --- prec --plot: per step, the interval bound (blue) explodes and the
# affine bound (orange) levels off (the stable filter of docs/prec.md)
check 0 "prec --plot" $H prec "$data/../tests/data/plot/iir_stable_steps_60.g" --plot "$tmp/prec.png" -o "$tmp/prec.txt"
size_is "$tmp/prec.png" "760 440" "prec --plot"
not_blank "$tmp/prec.png" "prec --plot"
grep -q "y59 - y59_m in ?" "$tmp/prec.txt" || fail "prec --plot: the text result"
some "$tmp/prec.png" $blue 0.75 0.08 0.98 0.3 "prec --plot: the interval bound high at the last steps"
none "$tmp/prec.png" $orange 0.75 0.08 0.98 0.3 "prec --plot: the affine bound not high"
some "$tmp/prec.png" $orange 0.75 0.55 0.98 0.8 "prec --plot: the affine bound low at the last steps"
none "$tmp/prec.png" $blue 0.75 0.55 0.98 0.8 "prec --plot: the interval bound not low"
check 1 "prec --plot .eps" $H prec "$data/../tests/data/plot/iir_stable_steps_60.g" --plot "$tmp/p.eps" -o "$tmp/p.txt"
absent "$tmp/p.txt" "prec --plot .eps"

# --- prec --plot with a bisected input: the bound per sub-range (Fig. 4).
# The fixed-point example: the interval enclosure (blue) is wider than the
# affine one (orange) over every sub-range of x1_m
check 0 "prec --plot --bisect" $H prec "$data/../examples/prec/fixed_point.g" --bisect x1_m=8 --plot "$tmp/boxes.png" -o "$tmp/boxes.txt"
size_is "$tmp/boxes.png" "760 394" "prec --plot --bisect"
not_blank "$tmp/boxes.png" "prec --plot --bisect"
grep -q "o_fx-o_m in ?" "$tmp/boxes.txt" || fail "prec --plot --bisect: the text result"
some "$tmp/boxes.png" $blue 0.35 0.1 0.95 0.23 "prec --plot --bisect: the interval enclosure on top"
none "$tmp/boxes.png" $orange 0.35 0.1 0.95 0.23 "prec --plot --bisect: the affine enclosure lower"
some "$tmp/boxes.png" $orange 0.35 0.24 0.95 0.3 "prec --plot --bisect: the affine enclosure's top"
# x^3 over [1, 1000]: nine decades, so log steps; one engine, one colour;
# the bound low at the left, high at the right
check 0 "prec --plot --bisect, log scale" $H prec "$data/../tests/data/plot/cube_boxes.g" --bisect x_m=20 --engine ia --plot "$tmp/cube.png" -o "$tmp/cube.txt"
not_blank "$tmp/cube.png" "prec --plot --bisect, log scale"
some "$tmp/cube.png" $blue 0.8 0.15 0.98 0.3 "prec --plot --bisect: the bound high at large x"
none "$tmp/cube.png" $blue 0.8 0.6 0.98 0.9 "prec --plot --bisect: the bound not low at large x"
some "$tmp/cube.png" $blue 0.1 0.7 0.2 0.9 "prec --plot --bisect: the bound low at small x"
none "$tmp/cube.png" $orange 0 0 1 1 "prec --plot --bisect --engine ia: the interval engine only"

# --- demo --plot: the iris clusters of the tour
check 0 "demo --plot" $H --quiet demo --plot "$tmp/demo.png"
grep_out "the clusters, drawn: $tmp/demo.png" "demo --plot"
size_is "$tmp/demo.png" "1440 420" "demo --plot"
some "$tmp/demo.png" $blue 0.05 0.1 0.38 0.9 "demo --plot: a blue cluster"
some "$tmp/demo.png" $orange 0.05 0.1 0.38 0.9 "demo --plot: an orange cluster"
some "$tmp/demo.png" $green 0.05 0.1 0.38 0.9 "demo --plot: a green cluster"
check 1 "demo --plot .gif" $H demo --plot "$tmp/demo.gif"
grep_err "unknown picture type" "demo --plot .gif"

[ "$fails" = 0 ] && echo "all plot tests passed"
exit $((fails > 0))
