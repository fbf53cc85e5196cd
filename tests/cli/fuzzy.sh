#!/bin/sh
# tests/cli/fuzzy.sh HAZE - `haze fuzzy eval`: results, exit codes and messages.
set -u
haze=$1
fails=0
out=/tmp/haze-fuzzy-out.$$
err=/tmp/haze-fuzzy-err.$$
. "$(dirname "$0")/lib.sh"
has() { # has FILE PATTERN DESCRIPTION
    if ! grep -q -- "$2" "$1"; then echo "FAIL: $3: lacks '$2'"; cat "$1"; fails=$((fails + 1)); fi
}
check 0 "help" "$haze" fuzzy --help
has $out "usage: haze fuzzy eval" "help text"
check 0 "issue example" "$haze" fuzzy eval "(a*b + c)/d" --let "a=tri(1,2,3)" --let "b=gauss(5,0.5,3)" \
    --let "c=trap(0,1,2,3)" --let d=4 --encoding mr --format csv
has $out "alpha,lower,upper,midpoint,radius" "csv header"
# the kernel (alpha = 1) of (2*5 + [1,2])/4 is [2.75, 3] in lower-upper, exactly
check 0 "exact kernel" "$haze" fuzzy eval "(a*b + c)/d" --let "a=tri(1,2,3)" --let "b=gauss(5,0.5,3)" \
    --let "c=trap(0,1,2,3)" --let d=4 --exact --format csv
has $out "^1,0x1.6p+1,0x1.8p+1$" "lu kernel bounds"
# 0.1 is enclosed, not rounded: the bounds differ by one ulp
check 0 "decimal enclosure" "$haze" fuzzy eval "0.1" --cuts 1 --exact --format csv
has $out "0x1.9999999999999p-4,0x1.999999999999ap-4" "0.1 enclosure"
check 0 "hex float and single" "$haze" fuzzy eval "0x1p-3 * [1,2]" --precision single --cuts 2 --format json
has $out '"precision": "single"' "json output"
check 0 "sqrt on mi" "$haze" fuzzy eval "sqrt(tri(1,4,9))" --encoding mi
printf 'a=tri(1,2,3); b=2; a*b\n\n# comment\nlet x=[1,2]; x-x\n' >$out.in
check 0 "batch" "$haze" fuzzy eval --batch $out.in --format csv
has $out "^1,4,4$" "batch first line"
check 0 "batch from stdin" sh -c "printf '1+1\n' | '$haze' fuzzy eval --batch -"
# decimal membership parameters are enclosed: the kernels contain 0.3 and -1.91
check 0 "decimal tri" "$haze" fuzzy eval "tri(0.2,0.3,0.4)" --exact --format csv
has $out "^1,0x1.3333333333333p-2,0x1.3333333333334p-2$" "tri kernel encloses 0.3"
check 0 "decimal gauss" "$haze" fuzzy eval "gauss(0.3,0.1,3)" --exact --format csv
has $out "^1,0x1.3333333333333p-2,0x1.3333333333334p-2$" "gauss kernel encloses 0.3"
check 0 "decimal trap" "$haze" fuzzy eval "trap(-9.01,-8.51,-1.91,3.34)" --exact --format csv --cuts 1
has $out "^1,-0x1.1051eb851eb86p+3,-0x1.e8f5c28f5c28fp+0$" "trap kernel encloses [-8.51, -1.91]"
check 0 "decimal tri single mi" "$haze" fuzzy eval "tri(0.2,0.3,0.4)" --exact --format csv \
    --precision single --encoding mi --cuts 1
has $out "^1,0x1.333332p-2,0x1.333336p-2," "single kernel encloses 0.3"
check 2 "parameters out of order by less than an ulp" "$haze" fuzzy eval "tri(0.30000000000000001,0.3,1)"
has $err "ordered" "order message"
# bad input: exit 2 and a column
check 2 "parse error" "$haze" fuzzy eval "1 + (2 *"
has $err "expression:9:" "parse error column"
check 2 "unknown name" "$haze" fuzzy eval "a + 1"
has $err "expression:1: unknown name" "unknown name message"
check 2 "zero in divisor" "$haze" fuzzy eval "1/[-1,2]"
has $err "divisor" "divisor message"
check 2 "inverted interval" "$haze" fuzzy eval "[2,1]"
check 2 "bad membership" "$haze" fuzzy eval "tri(3,2,1)"
check 2 "negative sigma" "$haze" fuzzy eval "gauss(0,-1,3)"
check 2 "gauss parameters that overflow" "$haze" fuzzy eval "gauss(1e308,1e308,3)"
has $err "gauss parameters overflow double precision" "gauss overflow message"
check 2 "non-finite" "$haze" fuzzy eval "1e999"
check 2 "bad let" "$haze" fuzzy eval "a" --let "a=tri(1,2"
has $err "^haze: --let 1:10:" "let column"
printf '1+1\n2*(3\n' >$out.in
check 2 "batch error line" "$haze" fuzzy eval --batch $out.in
has $err "$out.in:2:" "batch line number"
check 2 "missing batch file" "$haze" fuzzy eval --batch /nonexistent/file
# nesting deeper than the parser's limit: a message with line and column, no crash
awk 'BEGIN { print "1+1"; s = ""; for (i = 0; i < 30000; i++) s = s "("; print s "1" }' >$out.in
check 2 "deep nesting" "$haze" fuzzy eval --batch $out.in
has $err "$out.in:2:1001: expression nested too deeply" "depth limit message"
# overflow: the same in every encoding, an enclosure with unbounded cuts and a true warning
for enc in lu mr mi; do
    check 0 "overflow $enc" "$haze" fuzzy eval "1e308*10" --encoding $enc --format json --cuts 1
    has $err "expression:6: warning: the result overflows double precision" "overflow warning $enc"
    has $out '"upper": "inf"' "JSON infinity as a string ($enc)"
    grep -Eq '(: |\[)-?(inf|nan)' $out && fail "bare inf/nan in JSON ($enc)"
    grep -q warning $out && fail "warning on stdout ($enc)"
done
check 0 "overflow single" "$haze" fuzzy eval "3e38*10" --precision single --cuts 1 --format csv
has $err "overflows single precision" "single overflow warning"
has $out "^1,3.4028234663852882e+38,inf$" "single overflow bounds (the lower bound's digits below it)"
# division by a divisor containing 0: an error by default, the IEEE 1788 hull on request
check 2 "zero in divisor mr" "$haze" fuzzy eval "1/[-1,2]" --encoding mr
has $err "divisor's support contains 0" "divisor message mr"
check 0 "div-zero hull lu" "$haze" fuzzy eval "1/[0,2]" --div-zero hull --cuts 1 --format csv
has $out "^1,0.5,inf$" "half-line hull"
check 0 "div-zero hull mi" "$haze" fuzzy eval "1/tri(-1,1,3)" --div-zero hull --encoding mi --format csv
has $out "^1,0.99999999999999956,1.0000000000000007,1," "kernel of the hull (digits outward)"
has $out "^0.25,-inf,inf," "whole line where the cut contains 0"
# decimal bounds are rounded outward: 0x1.999999999999ap-3 is 0.2000000000000000111...,
# whose %.17g (0.20000000000000001) lies below it, so the upper bound's digits are the next double's
check 0 "decimal bounds outward" "$haze" fuzzy eval --format csv --cuts 1 -- '0x1.999999999999ap-3'
has $out "^1,0.20000000000000001,0.20000000000000004$" "an upper bound's digits never below it"
# an unbounded numerator over an unbounded divisor that excludes 0 holds the quotient (-1e309/1e309 = -1)
check 0 "inf over inf" "$haze" fuzzy eval --format csv --cuts 1 -- '(-1e308*10)/(1e308*10)'
has $out "^1,-inf,-0$" "inf / inf: the hull, not an empty cut"
# the default levels are (N-k)/N rounded down: tri(0,1,2) at 4/5 holds [0.8, 1.2]
check 0 "levels rounded down" "$haze" fuzzy eval --format csv --exact --cuts 5 -- 'tri(0,1,2)'
has $out "^0.79999999999999993,0x1.9999999999999p-1,0x1.3333333333334p+0$" "the 4/5-cut holds [0.8, 1.2]"
check 2 "div-zero hull keeps sqrt errors" "$haze" fuzzy eval "sqrt(-1)" --div-zero hull
check 1 "bad div-zero" "$haze" fuzzy eval 1 --div-zero maybe
# a batch goes on after a bad line, writes the others and exits 2
printf '1+1\n2*(3\nsqrt(-4)\n5\n' >$out.in
rm -f $out.res
check 2 "batch goes on" "$haze" fuzzy eval --batch $out.in --format csv --cuts 1 -o $out.res
has $err "$out.in:2:5: expected ')'" "first bad line"
has $err "$out.in:3:1: square root" "second bad line"
has $err "2 of 4 lines" "batch summary"
has $out.res "^1,2,2$" "good line before"
has $out.res "^1,5,5$" "good line after"
# results go to stdout, everything else to stderr
for args in "1/[-1,2]" "[2,1]" "1 + (2" "--cuts 99 1" "--div-zero x 1"; do
    # shellcheck disable=SC2086
    "$haze" fuzzy eval $args >$out 2>$err
    [ -s $out ] && { echo "FAIL: '$args' wrote to stdout"; cat $out; fails=$((fails + 1)); }
    [ -s $err ] || fail "'$args' wrote no message"
done
printf '1\n2*(\n' | "$haze" fuzzy eval --batch - --format csv >$out 2>$err
grep -q "haze:" $out && fail "batch message on stdout"
has $out "^alpha,lower,upper$" "batch results on stdout"
# usage: exit 1
check 1 "no action" "$haze" fuzzy
check 1 "cuts out of range" "$haze" fuzzy eval 1 --cuts 65
check 1 "bad encoding" "$haze" fuzzy eval 1 --encoding xy
check 1 "bad precision" "$haze" fuzzy eval 1 --precision half
check 1 "expr and batch" "$haze" fuzzy eval 1 --batch $out.in
# output file written whole or not at all
rm -f $out.res
check 2 "failed output not created" "$haze" fuzzy eval "1/0" -o $out.res
[ -e $out.res ] && fail "output file left behind"
check 0 "output file" "$haze" fuzzy eval "1" -o $out.res
has $out.res "alpha" "output file content"
rm -f $out $err $out.in $out.res
[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
