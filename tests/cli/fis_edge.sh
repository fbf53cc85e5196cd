#!/bin/sh
# tests/cli/fis_edge.sh HAZE DATA - exit codes, messages and outputs of
# `haze fis` and `haze edge`; bad input must exit 2, name the file and line,
# and leave no output behind.
set -u
haze=$1
data=$2
tmp=$(mktemp -d)
fails=0
out=$tmp/out
err=$tmp/err
. "$(dirname "$0")/lib.sh"
tip=$data/fis/tipper.fis
check 0 "fis --help" "$haze" fis --help
check 1 "fis without subcommand" "$haze" fis
check 1 "fis unknown subcommand" "$haze" fis frob "$tip"
check 1 "fis eval bad --mode" "$haze" fis eval --mode excel "$tip" -
check 1 "fis eval bad --points" "$haze" fis eval --points 1 "$tip" -
check 0 "fis info" "$haze" fis info "$tip"
grep -q "service" "$tmp/out" || fail "info lacks input name"
printf '2,1\n4,5\n7,8\n1,2\n' > "$tmp/in.csv"
check 0 "fis eval" "$haze" fis eval "$tip" "$tmp/in.csv" -o "$tmp/tips.csv"
grep -q "^7.0168" "$tmp/tips.csv" || { echo "FAIL: tipper value"; cat "$tmp/tips.csv"; fails=$((fails + 1)); }
printf '2 1\n' | "$haze" fis eval "$tip" > "$tmp/out" 2>/dev/null
grep -q "^7.0168" "$tmp/out" || fail "eval from stdin"
check 0 "fis eval --mode exact" "$haze" fis eval --mode exact "$tip" "$tmp/in.csv" -o "$tmp/exact.csv"
# [1 2]: the closed-form centroid (MATLAB's 101 points give 5.5586)
grep -q "^5.55394" "$tmp/exact.csv" || { echo "FAIL: exact tipper value"; cat "$tmp/exact.csv"; fails=$((fails + 1)); }
printf "0.5\n" > "$tmp/in1.csv"
printf "[System]\n[Input1]\nRange=[0 1]\nNumMFs=1\nMF1='a':'trimf',[0 1 2]\n[Output1]\nRange=[0 10]\nNumMFs=1\nMF1='bump':'gaussmf',[1 5]\n[Rules]\n1, 1 (1) : 1\n" > "$tmp/g.fis"
check 2 "fis eval --mode exact on gaussmf output" "$haze" fis eval --mode exact "$tmp/g.fis" "$tmp/in1.csv" -o "$tmp/g.csv"
grep_err "bump" "exact refusal names the MF"
absent "$tmp/g.csv" "exact refusal"
check 0 "fis surface" "$haze" fis surface "$tip" --grid 5 -o "$tmp/surf.csv"
[ "$(grep -c . "$tmp/surf.csv")" = 26 ] || fail "surface rows"
check 0 "fis convert" "$haze" fis convert "$tip" -o "$tmp/copy.fis"
check 0 "converted model evaluates" "$haze" fis eval "$tmp/copy.fis" "$tmp/in.csv" -o "$tmp/tips2.csv"
cmp -s "$tmp/tips.csv" "$tmp/tips2.csv" || fail "converted model differs"
# bad input: exit 2, file and line named, nothing written
printf '[System]\nNumInputs=1\nNumOutputs=1\n[Input1]\nRange=[0 1]\nMF1=%s\n' "'a':'trimf',[0 x 1]" > "$tmp/bad.fis"
check 2 "malformed model" "$haze" fis eval "$tmp/bad.fis" "$tmp/in.csv" -o "$tmp/never.csv"
grep_err "bad.fis:6:" "malformed model names the line"
absent "$tmp/never.csv" "malformed model"
printf '1,2,3\n' > "$tmp/three.csv"
check 2 "wrong input columns" "$haze" fis eval "$tip" "$tmp/three.csv" -o "$tmp/never.csv"
absent "$tmp/never.csv" "wrong input columns"
printf '1,2\n3,abc\n' > "$tmp/badin.csv"
check 2 "non-numeric input" "$haze" fis eval "$tip" "$tmp/badin.csv" -o "$tmp/never.csv"
grep_err "badin.csv:2" "non-numeric input names the line"
check 2 "missing model" "$haze" fis info "$tmp/none.fis"
check 2 "missing fll model" "$haze" fis info "$tmp/model.fll"
# fuzzylite engines
fl=$data/fis/fuzzylite
printf '0.1\n0.4\n0.8\n' > "$tmp/amb.csv"
check 0 "fis eval .fll" "$haze" fis eval "$fl/mamdani_SimpleDimmer.fll" "$tmp/amb.csv" -o "$tmp/dim.csv"
check 0 "fis info .fll" "$haze" fis info "$fl/hybrid_tipper.fll"
check 0 "fis convert .fll" "$haze" fis convert "$fl/mamdani_SimpleDimmer.fll" -o "$tmp/dim.fis"
check 0 "converted .fll evaluates" "$haze" fis eval "$tmp/dim.fis" "$tmp/amb.csv" --mode fuzzylite --points 200 -o "$tmp/dim2.csv"
cmp -s "$tmp/dim.csv" "$tmp/dim2.csv" || fail "converted .fll differs"
check 2 "fis convert of an inexpressible .fll" "$haze" fis convert "$fl/hybrid_tipper.fll" -o "$tmp/never.fis"
grep_err "cannot be written as .fis: outputs mixing" "inexpressible .fll says why"
absent "$tmp/never.fis" "inexpressible .fll"
printf 'InputVariable: a\n  term: t Triangle 0 0.5 1\n  term: u Wiggle 1 2\n' > "$tmp/bad.fll"
check 2 "malformed .fll" "$haze" fis eval "$tmp/bad.fll" "$tmp/amb.csv" -o "$tmp/never.csv"
grep_err "bad.fll:3:" "malformed .fll names the line"
absent "$tmp/never.csv" "malformed .fll"
check 1 "fis eval --mode fuzzylite accepted, bad --points" "$haze" fis eval --mode fuzzylite --points 1 "$tip" -
# edge
img=$data/edge/camera.png
check 0 "edge --help" "$haze" edge --help
check 1 "edge without -o" "$haze" edge "$img"
check 1 "edge bad --kernel" "$haze" edge "$img" -o "$tmp/e.png" --kernel gpu
check 1 "edge bad --spread" "$haze" edge "$img" -o "$tmp/e.png" --spread 0
check 0 "edge" "$haze" edge "$img" -o "$tmp/e.png"
check 0 "edge reference kernel" "$haze" edge "$img" -o "$tmp/r.png" --kernel reference
cmp -s "$tmp/e.png" "$tmp/r.png" || fail "fast and reference differ"
check 0 "edge pgm" "$haze" edge "$img" -o "$tmp/e.pgm"
cmp -s "$tmp/e.pgm" "$data/edge/camera_fire.pgm" || fail "edge image differs from golden"
mkdir "$tmp/frames"
check 0 "edge batch" "$haze" edge "$img" "$data/edge/coins.ppm" "$data/edge/hubble.jpg" -o "$tmp/frames"
[ -f "$tmp/frames/coins.png" ] && [ -f "$tmp/frames/hubble.png" ] || fail "batch outputs"
check 1 "edge batch to a file" "$haze" edge "$img" "$img" -o "$tmp/x.png"
printf 'P5 4 4 255\nab' > "$tmp/trunc.pgm"
check 2 "truncated image" "$haze" edge "$tmp/trunc.pgm" -o "$tmp/never.png"
grep_err "trunc.pgm" "truncated image names the file"
absent "$tmp/never.png" "truncated image"
mkdir "$tmp/frames2"
check 2 "one bad frame writes nothing" "$haze" edge "$img" "$tmp/trunc.pgm" -o "$tmp/frames2"
absent "$tmp/frames2/camera.png" "one bad frame"
# frames are read on several threads; the first bad frame in input order is
# the one named, whichever thread met its error first
for i in 1 2 3 4 5; do
    check 2 "first bad frame of a batch" "$haze" edge --threads 4 "$img" "$tmp/trunc.pgm" "$data/edge/coins.ppm" \
        "$tmp/missing.png" "$data/edge/hubble.jpg" -o "$tmp/frames2"
    grep_err "trunc.pgm" "the first bad frame is named"
    grep -q "missing.png" "$err" && fail "a later bad frame was named"
done
absent "$tmp/frames2/coins.png" "a batch with bad frames"
# the batch's results are those of one frame at a time
mkdir "$tmp/frames3"
check 0 "edge batch on one thread" "$haze" edge --threads 1 "$img" "$data/edge/coins.ppm" "$data/edge/hubble.jpg" -o "$tmp/frames3"
for f in camera coins hubble; do cmp -s "$tmp/frames/$f.png" "$tmp/frames3/$f.png" || fail "$f: batch differs by threads"; done
# results are written on several threads while later frames are detected:
# twelve frames, the same files as one thread writes, in PNG and JPEG
mkdir "$tmp/many" "$tmp/many1" "$tmp/many4"
set --
for i in 1 2 3 4 5 6; do
    cp "$img" "$tmp/many/a$i.pgm"
    cp "$data/edge/coins.ppm" "$tmp/many/b$i.ppm"
    set -- "$@" "$tmp/many/a$i.pgm" "$tmp/many/b$i.ppm"
done
for fmt in png jpg; do
    check 0 "twelve frames, one thread ($fmt)" "$haze" edge --threads 1 --format $fmt "$@" -o "$tmp/many1"
    check 0 "twelve frames, four threads ($fmt)" "$haze" edge --threads 4 --format $fmt "$@" -o "$tmp/many4"
    for i in 1 2 3 4 5 6; do
        for f in a$i b$i; do
            cmp -s "$tmp/many1/$f.$fmt" "$tmp/many4/$f.$fmt" || fail "$f.$fmt: written differently on four threads"
        done
    done
done
check 2 "edge rules with the wrong model" "$haze" edge "$img" -o "$tmp/never.png" --rules "$tip"
absent "$tmp/never.png" "wrong model"
# a folder stands for its images (by extension, in any case; hidden files
# and other files left out), in the order of their names
mkdir -p "$tmp/imgdir" "$tmp/noimgdir"
cp "$img" "$tmp/imgdir/b.png"
cp "$data/edge/coins.ppm" "$tmp/imgdir/a.PPM"
echo notes >"$tmp/imgdir/notes.txt"
cp "$img" "$tmp/imgdir/.hidden.png"
check 0 "edge on a folder" "$haze" edge "$tmp/imgdir" -o "$tmp/dirout/"
[ "$(ls "$tmp/dirout" | tr '\n' ' ')" = "a.png b.png " ] || fail "edge on a folder: the outputs are $(ls "$tmp/dirout")"
grep_err "imgdir/a.PPM -> .*dirout/a.png" "edge on a folder: the names, in order"
check 0 "edge on the same files" "$haze" edge "$tmp/imgdir/a.PPM" "$tmp/imgdir/b.png" -o "$tmp/dirout2/"
cmp -s "$tmp/dirout/a.png" "$tmp/dirout2/a.png" && cmp -s "$tmp/dirout/b.png" "$tmp/dirout2/b.png" ||
    fail "edge on a folder differs from its files given one by one"
check 2 "edge on a folder without images" "$haze" edge "$tmp/noimgdir" -o "$tmp/nout/"
grep_err "noimgdir: a folder with no image in it" "edge on an empty folder message"
absent "$tmp/nout" "edge on a folder without images"
check 1 "edge on a folder, -o not a folder" "$haze" edge "$tmp/imgdir" -o "$tmp/dirout3"
grep_err "with a folder of inputs, -o names a folder" "edge on a folder, -o message"
# --gpus: fis eval and edge share their work over the GPUs of the set
check 1 "fis eval --gpus listed twice" "$haze" --gpus 1,1 fis eval "$tip" "$tmp/in.csv" -o "$tmp/never.csv"
grep_err "device 1 is listed twice" "fis eval --gpus twice message"
check 1 "edge --gpus with --backend cpu" "$haze" --backend cpu --gpus 2 edge "$img" -o "$tmp/never.png"
absent "$tmp/never.png" "edge --gpus with --backend cpu"
if ! "$haze" info | grep -q "available, [0-9]* device"; then
    # no usable GPU here: asking for some fails with exit 3, says why, writes nothing
    for set in 2 0,1 3,; do
        check 3 "fis eval --gpus $set without a GPU" "$haze" --gpus $set fis eval "$tip" "$tmp/in.csv" -o "$tmp/never.csv"
        grep_err "CUDA" "fis eval --gpus $set without a GPU message"
        absent "$tmp/never.csv" "fis eval --gpus $set without a GPU"
        check 3 "edge --gpus $set without a GPU" "$haze" --gpus $set edge "$img" -o "$tmp/never.png"
        grep_err "CUDA" "edge --gpus $set without a GPU message"
        absent "$tmp/never.png" "edge --gpus $set without a GPU"
    done
else
    # a device that is not there: exit 3, named, nothing written
    check 3 "fis eval --gpus names a missing device" "$haze" --gpus 0,4095 fis eval "$tip" "$tmp/in.csv" -o "$tmp/never.csv"
    grep_err "CUDA device 4095 is not present" "fis eval missing device message"
    absent "$tmp/never.csv" "fis eval missing device"
    check 3 "edge --gpus names a missing device" "$haze" --gpus 0,4095 edge "$img" -o "$tmp/never.png"
    grep_err "CUDA device 4095 is not present" "edge missing device message"
    absent "$tmp/never.png" "edge missing device"
    # every GPU: one GPU's bytes (rows in order, frames in order)
    awk 'BEGIN { for (i = 0; i < 300000; i++) printf "%.3f,%.3f\n", (i * 7919 % 10007) / 1000.7, (i * 104729 % 10009) / 1000.9 }' > "$tmp/big.csv"
    check 0 "fis eval --gpus 1" "$haze" --gpus 1 fis eval "$tip" "$tmp/big.csv" -o "$tmp/g1.csv"
    check 0 "fis eval --gpus all" "$haze" --gpus all fis eval "$tip" "$tmp/big.csv" -o "$tmp/gall.csv"
    cmp -s "$tmp/g1.csv" "$tmp/gall.csv" || fail "fis eval --gpus all differs from one GPU"
    check 0 "edge --gpus 1" "$haze" --gpus 1 edge "$@" -o "$tmp/gpu1/"
    check 0 "edge --gpus all" "$haze" --gpus all edge "$@" -o "$tmp/gpuall/"
    for i in 1 2 3 4 5 6; do
        for f in a$i b$i; do
            cmp -s "$tmp/gpu1/$f.png" "$tmp/gpuall/$f.png" || fail "$f.png: --gpus all differs from one GPU"
        done
    done
fi
rm -rf "$tmp"
[ "$fails" = 0 ] && echo "all fis/edge CLI checks passed" && exit 0
echo "$fails fis/edge CLI checks failed"
exit 1
