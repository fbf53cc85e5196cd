#!/bin/sh
# tests/cli/fnn.sh HAZE LETTER.csv - `haze fnn`: a small train/predict/info/
# export round, then exit codes and messages on bad input (nothing written).
set -u
haze=$1
letter=$2
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$tmp/out
err=$tmp/err
. "$(dirname "$0")/lib.sh"
head -601 "$letter" >"$tmp/train.csv"
{ head -1 "$letter"; sed -n '16002,16201p' "$letter"; } >"$tmp/test.csv"

check 0 "fnn --help" "$haze" fnn --help
check 0 "fnn train --help" "$haze" fnn train --help
check 1 "fnn without subcommand" "$haze" fnn
check 1 "fnn unknown subcommand" "$haze" fnn frob
check 1 "train without --target" "$haze" fnn train "$tmp/train.csv" -o "$tmp/m"
check 1 "train without -o" "$haze" fnn train "$tmp/train.csv" --target lettr
check 1 "train bad --epochs" "$haze" fnn train "$tmp/train.csv" --target lettr --epochs x -o "$tmp/m"
check 0 "train letter subset" "$haze" --backend cpu fnn train "$tmp/train.csv" --target lettr --classes \
    --epochs 2 -o "$tmp/m"
grep -q "epoch   2  rules" "$tmp/err" || fail "no progress line per epoch"
check 0 "predict with truth column" "$haze" --backend cpu fnn predict "$tmp/m" "$tmp/test.csv" -o "$tmp/p.csv"
grep_err "accuracy" "predict reports accuracy"
[ "$(wc -l <"$tmp/p.csv")" = 201 ] || { echo "FAIL: predict wrote $(wc -l <"$tmp/p.csv") lines"; fails=$((fails + 1)); }
cut -d, -f2- "$tmp/test.csv" >"$tmp/features.csv"
check 0 "predict without truth column" "$haze" fnn predict "$tmp/m" "$tmp/features.csv"
check 0 "info" "$haze" fnn info "$tmp/m"
grep -q "^rules" "$tmp/out" || fail "info lacks rules"
check 0 "export" "$haze" fnn export "$tmp/m" -o "$tmp/m.fis"
grep -q "DefuzzMethod='wtaver'" "$tmp/m.fis" || fail "fis text"
check 0 "train with --scale global" "$haze" fnn train "$tmp/train.csv" --target lettr --classes --epochs 1 \
    --scale global -o "$tmp/g"
check 1 "bad --scale" "$haze" fnn train "$tmp/train.csv" --target lettr --classes --scale odd -o "$tmp/bad0"
check 0 "train with --width" "$haze" --backend cpu fnn train "$tmp/train.csv" --target lettr --classes \
    --epochs 1 --rate 0 --width 0.8 -o "$tmp/fw"
awk '$1 == "s" { for (i = 2; i <= NF; i++) if ($i != "0.80000000000000004") bad = 1; n++ }
     END { exit !(n > 1 && !bad) }' "$tmp/fw" || fail "--width not the width of every rule"
check 0 "train with --beta alone" "$haze" --backend cpu fnn train "$tmp/train.csv" --target lettr --classes \
    --epochs 1 --rate 0 --beta 0.8 -o "$tmp/fb"
awk '$1 == "s" { for (i = 2; i <= NF; i++) w[$i] = 1 } END { n = 0; for (k in w) n++; exit !(n > 2) }' \
    "$tmp/fb" || fail "--beta alone does not select the distance rule"
check 1 "bad --width" "$haze" fnn train "$tmp/train.csv" --target lettr --classes --width x -o "$tmp/bad0"
check 2 "negative --width" "$haze" fnn train "$tmp/train.csv" --target lettr --classes --width -1 -o "$tmp/bad0"
absent "$tmp/bad0" "bad --width"
check 0 "regression train" "$haze" fnn train "$tmp/features.csv" --target 0 --epochs 2 -o "$tmp/r"
check 0 "regression predict" "$haze" fnn predict "$tmp/r" "$tmp/features.csv" -o "$tmp/r.csv"
grep_err "RMSE" "regression predict reports RMSE"
head -1 "$tmp/r.csv" | grep -q "x.box" || fail "regression output header"

# no header: the target by column number, remembered for predict
tail -n +2 "$tmp/train.csv" | cut -d, -f2- >"$tmp/nohead.csv"
check 0 "train without header" "$haze" fnn train "$tmp/nohead.csv" --target 15 --classes --epochs 1 -o "$tmp/nh"
check 0 "predict without header" "$haze" fnn predict "$tmp/nh" "$tmp/nohead.csv" -o "$tmp/nh.csv"
grep_err "accuracy" "predict without header reports accuracy"

# bad input: exit 2, a message naming the file, nothing written
check 2 "missing target column" "$haze" fnn train "$tmp/train.csv" --target nosuch --classes -o "$tmp/bad1"
grep_err "nosuch" "missing target message"; absent "$tmp/bad1" "missing target"
sed '5s/^\([A-Z]\),[0-9.]*,/\1,abc,/' "$tmp/train.csv" >"$tmp/nonnum.csv"
check 2 "non-numeric value" "$haze" fnn train "$tmp/nonnum.csv" --target lettr --classes -o "$tmp/bad2"
grep_err "nonnum.csv:5" "non-numeric message names line"; absent "$tmp/bad2" "non-numeric"
check 2 "text target without --classes" "$haze" fnn train "$tmp/train.csv" --target lettr -o "$tmp/bad3"
absent "$tmp/bad3" "text target"
{ head -1 "$letter"; grep -m 20 '^Z' "$letter"; } >"$tmp/z.csv"
{ head -1 "$letter"; grep -m 40 '^[AB],' "$letter"; } >"$tmp/ab.csv"
check 0 "train on A and B" "$haze" fnn train "$tmp/ab.csv" --target lettr --classes --epochs 1 -o "$tmp/ab"
# a class the model never saw: predicted, and counted as wrong (as scikit-learn's accuracy_score)
check 0 "class unseen at training" "$haze" fnn predict "$tmp/ab" "$tmp/z.csv" -o "$tmp/z_pred.csv"
grep_err "20 rows of classes the model was not trained on (the first: 'Z', data row 1), counted as wrong" "unseen class warning"
grep_err "accuracy 0.00% (0 of 20)" "unseen classes are wrong"
[ "$(wc -l <"$tmp/z_pred.csv")" = 21 ] || fail "unseen class: every row predicted"
# numbers that are not whole are a regression's target, not classes
printf 'x,medv\n1,24.5\n2,21.6\n3,30\n4,33.4\n5,20\n' >"$tmp/medv.csv"
check 2 "continuous target with --classes" "$haze" fnn train "$tmp/medv.csv" --target medv --classes -o "$tmp/bad4"
grep_err "the target 'medv' holds numbers that are not whole ('24.5', data row 1)" "continuous target message"
absent "$tmp/bad4" "continuous target"
printf 'x,grade\n1,1\n2,2\n3,1\n4,2\n5,1\n6,2\n' >"$tmp/grade.csv"
check 0 "whole numbers are classes" "$haze" --quiet fnn train "$tmp/grade.csv" --target grade --classes --epochs 1 -o "$tmp/grade.fnn"
cut -d, -f1-10 "$tmp/test.csv" >"$tmp/narrow.csv"
check 2 "dimension mismatch" "$haze" fnn predict "$tmp/m" "$tmp/narrow.csv" -o "$tmp/bad5"
grep_err "model" "mismatch message"; absent "$tmp/bad5" "dimension mismatch"
sed '1s/haze-fnn [0-9]*/haze-fnn 7/' "$tmp/m" >"$tmp/v7"
check 2 "model of another version" "$haze" fnn predict "$tmp/v7" "$tmp/test.csv" -o "$tmp/bad6"
grep_err "version 7" "version message"; absent "$tmp/bad6" "version"
head -c 3000 "$tmp/m" >"$tmp/trunc"
check 2 "truncated model" "$haze" fnn info "$tmp/trunc"
grep_err "trunc:" "truncated message names the file"
check 2 "export of a truncated model" "$haze" fnn export "$tmp/trunc" -o "$tmp/bad7.fis"
absent "$tmp/bad7.fis" "export of truncated"
check 2 "missing data file" "$haze" fnn predict "$tmp/m" "$tmp/nosuch.csv"

# each subcommand has its own help
for sub in train predict info export; do
    check 0 "fnn $sub --help" "$haze" fnn "$sub" --help
    grep_out "usage: haze fnn $sub" "$sub help names the subcommand"
done
check 0 "fnn predict -h" "$haze" fnn predict -h
if grep -q -- "--threshold" "$out"; then echo "FAIL: predict help lists train options"; fails=$((fails + 1)); fi

# results on stdout, everything else on stderr
check 0 "train to stdout" "$haze" --backend cpu fnn train "$tmp/train.csv" --target lettr --classes --epochs 2 -o -
head -1 "$out" | grep -q "^haze-fnn 2$" || fail "train -o - stdout is not a model"
grep_err "epoch   2" "train progress on stderr"
if grep -q "epoch\|rules, model written" "$out"; then echo "FAIL: train chatter on stdout"; fails=$((fails + 1)); fi
cp "$out" "$tmp/stdout.fnn"
check 0 "info of a model written to stdout" "$haze" fnn info "$tmp/stdout.fnn"
grep_out "^rules" "info on stdout"
[ -s "$err" ] && { echo "FAIL: info wrote to stderr"; cat "$err"; fails=$((fails + 1)); }
check 0 "predict to stdout" "$haze" --backend cpu fnn predict "$tmp/m" "$tmp/test.csv"
[ "$(wc -l <"$out")" = 201 ] || { echo "FAIL: predict stdout has $(wc -l <"$out") lines, want 201"; fails=$((fails + 1)); }
grep_err "accuracy" "predict summary on stderr"
if grep -q "accuracy" "$out"; then echo "FAIL: predict summary on stdout"; fails=$((fails + 1)); fi
check 0 "export to stdout" "$haze" fnn export "$tmp/m" -o -
head -1 "$out" | grep -q "^\[System\]" || fail "export -o - stdout is not a .fis"
if grep -q "exported" "$out"; then echo "FAIL: export chatter on stdout"; fails=$((fails + 1)); fi

# labels come out as they went in, CSV-quoted where needed
printf 'a,b,soil\n' >"$tmp/labels.csv"
i=0
while [ $i -lt 40 ]; do
    k=$((i % 4))
    case $k in
    0) lab='grey soil' ;;
    1) lab='"x, y"' ;;
    2) lab='"say ""hi"""' ;;
    3) lab='café ✓' ;;
    esac
    printf '%d.%d,%d,%s\n' "$k" "$i" "$((k * 10 + i % 3))" "$lab" >>"$tmp/labels.csv"
    i=$((i + 1))
done
check 0 "train on labels with spaces, commas, quotes, UTF-8" "$haze" --backend cpu fnn train \
    "$tmp/labels.csv" --target soil --classes -o "$tmp/lab.fnn"
check 0 "predict on labels with spaces" "$haze" --backend cpu fnn predict "$tmp/lab.fnn" "$tmp/labels.csv" \
    -o "$tmp/lab.csv"
grep_err "accuracy 100.00%" "labels predicted"
tail -n +2 "$tmp/labels.csv" | cut -d, -f3- >"$tmp/lab-want.csv"
tail -n +2 "$tmp/lab.csv" >"$tmp/lab-got.csv"
cmp -s "$tmp/lab-want.csv" "$tmp/lab-got.csv" || {
    echo "FAIL: predicted labels differ from the data's"
    diff "$tmp/lab-want.csv" "$tmp/lab-got.csv" | head -5
    fails=$((fails + 1))
}
check 0 "info lists the labels" "$haze" fnn info "$tmp/lab.fnn"
grep_out 'grey soil,"say ""hi""","x, y"' "info lists the labels as one CSV record"

# a rate that diverges is an error and writes no model; huge data trains
check 2 "train --rate 1e308" "$haze" --backend cpu fnn train "$tmp/features.csv" --target 0 --rate 1e308 \
    -o "$tmp/bad8"
grep_err "diverged" "divergence message"; absent "$tmp/bad8" "divergent training"
check 2 "classifier --rate 1e308" "$haze" --backend cpu fnn train "$tmp/train.csv" --target lettr --classes \
    --epochs 2 --rate 1e308 -o "$tmp/bad9"
absent "$tmp/bad9" "divergent classifier"
sed '3s/^\([A-Z]\),[0-9]*,/\1,1e308,/; 4s/^\([A-Z]\),[0-9]*,/\1,-1e308,/' "$tmp/train.csv" >"$tmp/huge.csv"
check 0 "train on data holding 1e308" "$haze" --backend cpu fnn train "$tmp/huge.csv" --target lettr --classes \
    --epochs 2 -o "$tmp/huge.fnn"
check 0 "info reads the model trained on 1e308" "$haze" fnn info "$tmp/huge.fnn"

[ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all fnn CLI checks passed"
