#!/bin/sh
# tests/cli/adversarial.sh HAZE DATA - inputs the other CLI tests do not try:
# numbers at the edges of the formats, intervals inverted by less than an ulp,
# tables written by other tools. Each block names the defect it guards.
set -u
haze=$1
data=$2
fails=0
out=/tmp/haze-adv-out.$$
err=/tmp/haze-adv-err.$$
tmp=/tmp/haze-adv-tmp.$$
. "$(dirname "$0")/lib.sh"
: "$data"

# --- fuzzy eval
# an interval's ends are compared exactly, as tri's parameters are (their enclosures overlap)
check 2 "interval inverted by less than an ulp" "$haze" fuzzy eval "[0.30000000000000001,0.3]"
grep_err "expression:1: inverted interval" "inverted interval message"
check 2 "interval of tiny numbers inverted" "$haze" fuzzy eval "[1e-400,-1e-400]"
check 0 "interval of equal tiny numbers" "$haze" fuzzy eval "[1e-400,1e-400]" --cuts 1 --format csv --exact
grep_out "^1,0x0p+0,0x0.0000000000001p-1022$" "tiny interval enclosed"
check 0 "interval of long decimals" "$haze" fuzzy eval "[0.3, 0.30000000000000001]" --cuts 1 --format csv --exact
grep_out "^1,0x1.3333333333333p-2,0x1.3333333333334p-2$" "interval enclosure"
# a literal beyond single precision is bad input (exit 2), as one beyond the doubles is
check 2 "literal beyond single" "$haze" fuzzy eval "1e39" --precision single
grep_err "expression:1: number out of range of single precision" "single literal message"
check 2 "interval beyond single" "$haze" fuzzy eval "2*[1,1e39]" --precision single
grep_err "expression:3: interval out of range of single precision" "single interval message"
check 2 "let beyond single" "$haze" fuzzy eval "x" --let "x=-1e39" --precision single
# a square root of an unbounded number is unbounded in every encoding, never empty (NaN)
for enc in lu mr mi; do
    check 0 "sqrt of a half-line $enc" "$haze" fuzzy eval "sqrt(1/[0,1])" --div-zero hull \
        --encoding $enc --cuts 3 --format csv
    grep -q nan "$out" && { echo "FAIL: sqrt of a half-line $enc: empty cut"; cat "$out"; fails=$((fails + 1)); }
done

# a batch whose every line is bad writes no (empty) output file
printf '2*(\n\n# c\nsqrt(-1)\n' >"$tmp.b"
rm -f "$tmp.res"
check 2 "batch of bad lines only" "$haze" fuzzy eval --batch "$tmp.b" -o "$tmp.res"
grep_err "2 of 2 lines" "all lines failed"
absent "$tmp.res" "output of a batch of bad lines only"

# --- header names written back: quoted where the reader would split or drop them
printf '"x,1","y ""q""","#z"\n1,2,3\n1.1,2.1,3\n5,6,3\n5.2,6.1,3\n' >"$tmp.csv"
check 0 "fcm fit on quoted names" "$haze" fcm "$tmp.csv" -c 2 -o "$tmp.c.csv"
grep -q '^"x,1","y ""q""","#z"$' "$tmp.c.csv" || { echo "FAIL: centres header not quoted"; cat "$tmp.c.csv"; fails=$((fails + 1)); }
check 0 "fcm predict reads its own centres back" "$haze" fcm predict "$tmp.c.csv" "$tmp.csv"

# --- --ignore-extra leaves out a column of text (an id column), which is read in no other way
printf 'id,food,service\nA1,1,2\nB2,4,5\n' >"$tmp.id.csv"
check 0 "fis eval with a text id column" "$haze" fis eval "$data/fis/tipper.fis" "$tmp.id.csv" --ignore-extra
grep_out "^7.01687914" "fis eval result next to an id column"
check 2 "text id column without --ignore-extra" "$haze" fis eval "$data/fis/tipper.fis" "$tmp.id.csv"
grep_err "not among the inputs" "unknown column message"
printf 'id,food,service\nA1,1,x\n' >"$tmp.id2.csv"
check 2 "text in an input column" "$haze" fis eval "$data/fis/tipper.fis" "$tmp.id2.csv" --ignore-extra
grep_err "id2.csv:2: column 3 (service): expected a number" "text input message"
printf 'x,y\n1,2\n1.1,2.1\n5,6\n5.2,6.1\n' >"$tmp.xy.csv"
check 0 "fcm fit for predict" "$haze" fcm "$tmp.xy.csv" -c 2 -o "$tmp.xy.c.csv"
printf 'name,y,x\nfirst,2,1\nsecond,6,5\n' >"$tmp.xy2.csv"
check 0 "fcm predict with a text id column" "$haze" fcm predict "$tmp.xy.c.csv" "$tmp.xy2.csv" --ignore-extra
printf 'x,y,t\n1,2,0.5\n2,1,1.5\n3,3,2\n4,1,3\n5,2,4\n' >"$tmp.r.csv"
check 0 "fnn train for predict" "$haze" fnn train "$tmp.r.csv" --target t --validation 0 -o "$tmp.r.fnn"
printf 'who,y,x\nann,2,1\nbob,1,2\n' >"$tmp.r2.csv"
check 0 "fnn predict with a text id column" "$haze" fnn predict "$tmp.r.fnn" "$tmp.r2.csv" --ignore-extra
printf 'x,y,t\n1,2,a\n' >"$tmp.r3.csv"
check 2 "fnn predict with text in a numeric target" "$haze" fnn predict "$tmp.r.fnn" "$tmp.r3.csv"
grep_err "r3.csv:2: column 3 (t): expected a number" "numeric target message"

# an expression that starts with '-' comes after -- (as --help says)
check 0 "expression starting with '-' after --" "$haze" fuzzy eval --cuts 1 --format csv -- "-0.1*2"
grep_out "^1,-0.2" "negative expression after --"

# fnn info names the format of the file it read (it printed the current one)
check 0 "fnn info on a version 1 model" "$haze" fnn info "$data/../../fuzz/corpus/fuzz_fnn_model/seed-classifier"
grep_out "(format version 1)" "fnn info version of a version 1 file"
check 0 "fnn model for info" "$haze" fnn train "$tmp.r.csv" --target t --validation 0 --epochs 1 -o "$tmp.v2.fnn"
check 0 "fnn info on a version 2 model" "$haze" fnn info "$tmp.v2.fnn"
grep_out "(format version 2)" "fnn info version of a version 2 file"

# --- fis surface over the widest finite ranges: grid points stay finite
# (l + k (h - l) / (n - 1) gave inf and NaN coordinates)
sed 's/Range=\[0 10\]/Range=[-1e308 1e308]/' "$data/fis/tipper.fis" >"$tmp.huge.fis"
check 0 "fis surface on [-1e308, 1e308]" "$haze" fis surface "$tmp.huge.fis" --grid 5
if cut -d, -f1,2 "$out" | grep -qi "inf\|nan"; then
    echo "FAIL: fis surface grid has inf or nan coordinates"; fails=$((fails + 1))
fi
grep_out "^-1e+308,-1e+308," "surface grid starts at the range's lower ends"
grep_out "^1e+308,1e+308," "surface grid ends at the range's upper ends"

rm -f "$out" "$err" "$tmp"*
[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
