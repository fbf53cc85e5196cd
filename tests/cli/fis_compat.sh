#!/bin/sh
# tests/cli/fis_compat.sh HAZE DATA - `haze fis` on files that MATLAB and
# fuzzylite accept: reader warnings on standard error as "haze: warning:
# FILE:LINE: ...", results alone on standard output, per-subcommand help,
# info with MFs and rules, and convert to a real .fll.
set -u
haze=$1
data=$2
tmp=$(mktemp -d)
fails=0
out=$tmp/out
err=$tmp/err
. "$(dirname "$0")/lib.sh"
tip=$data/fis/tipper.fis
teste=$data/fis/corpus/openfz_qsc_teste.fis
# every subcommand has its own help
for sub in info eval surface convert; do
    check 0 "fis $sub --help" "$haze" fis $sub --help
    grep_out "usage: haze fis $sub" "fis $sub --help names its subcommand"
done
# info: methods, every MF with its parameters, the rules in words
check 0 "fis info" "$haze" fis info "$tip"
grep_out "trapmf *\[0 0 1 3\]" "info prints MF parameters"
grep_out "1. If (service is poor) or (food is rancid) then (tip is cheap) (1)" "info prints rules"
grep_out "aggregation max, defuzzification centroid" "info prints methods"
[ -s "$err" ] && fail "info wrote to stderr"
# MF lines out of order: loaded by position, a warning on stderr only
printf '0,0\n10,-0.5\n' > "$tmp/in.csv"
check 0 "eval of MF lines out of order" "$haze" fis eval "$teste" "$tmp/in.csv"
grep_err "haze: warning: .*openfz_qsc_teste.fis:19: MF4 is the MF line number 2" "warning names file and line"
grep -q "warning" "$out" && fail "warning on stdout"
[ "$(grep -c . "$out")" = 3 ] || { echo "FAIL: eval stdout is not header + 2 rows"; cat "$out"; fails=$((fails + 1)); }
check 0 "surface to stdout" "$haze" fis surface "$teste" --grid 3 -o -
[ "$(grep -c . "$out")" = 10 ] || fail "surface stdout is not header + 9 rows"
grep -q "warning" "$out" && fail "surface warning on stdout"
grep_err "haze: warning:" "surface warns on stderr"
check 0 "convert to stdout" "$haze" fis convert "$teste" -o -
head -1 "$out" | grep -q "^\[System\]" || fail "convert -o - stdout is not the model"
grep_err "haze: warning:" "convert warns on stderr"
# clamped inputs are counted on stderr, not stdout
printf '20,1\n' > "$tmp/far.csv"
check 0 "eval with a clamped input" "$haze" fis eval "$tip" "$tmp/far.csv"
grep_err "clamped" "clamp count on stderr"
grep -q "clamped" "$out" && fail "clamp count on stdout"
# convert -o X.fll writes fuzzylite's language, which haze reads back
check 0 "convert to .fll" "$haze" fis convert "$tip" -o "$tmp/tip.fll" --points 100
grep -q "^Engine: tipper" "$tmp/tip.fll" || { echo "FAIL: .fll is not FuzzyLite Language"; head -3 "$tmp/tip.fll"; fails=$((fails + 1)); }
grep -q "rule: if service is poor or food is rancid then tip is cheap" "$tmp/tip.fll" || fail ".fll rule"
printf '2,1\n4,5\n7,8\n1,2\n' > "$tmp/tin.csv"
check 0 "eval the .fll" "$haze" fis eval "$tmp/tip.fll" "$tmp/tin.csv" -o "$tmp/a.csv"
check 0 "eval the .fis in fuzzylite mode" "$haze" fis eval "$tip" "$tmp/tin.csv" --mode fuzzylite --points 100 -o "$tmp/b.csv"
cmp -s "$tmp/a.csv" "$tmp/b.csv" || { echo "FAIL: .fll round trip differs"; paste "$tmp/a.csv" "$tmp/b.csv"; fails=$((fails + 1)); }
# what fuzzylite cannot say is refused, nothing written
printf "[System]\nNumInputs=1\nNumOutputs=1\n[Input1]\nNumMFs=1\nMF1='a':'trimf',[0 1 2]\n[Output1]\nNumMFs=1\nMF1='b':'trimf',[0 1 2]\n[Rules]\n1, -1 (1) : 1\n" > "$tmp/neg.fis"
check 2 "convert a negated Mamdani consequent to .fll" "$haze" fis convert "$tmp/neg.fis" -o "$tmp/never.fll"
grep_err "cannot be written as .fll: rule 1: a negated Mamdani consequent" "refusal says why"
absent "$tmp/never.fll" "refused .fll"
rm -rf "$tmp"
[ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
