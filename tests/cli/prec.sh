#!/bin/sh
# tests/cli/prec.sh HAZE SRCDIR - exit codes and messages of `haze prec`.
set -u
haze=$1
src=$2
fails=0
tmp=${TMPDIR:-/tmp}/haze-prec-cli.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
out=$tmp/out
err=$tmp/err
. "$(dirname "$0")/lib.sh"
script() { printf '%b' "$2" > "$tmp/$1"; }

check 0 "prec --help" "$haze" prec --help
grep_out "usage: haze prec" "help text"
check 1 "prec without a script" "$haze" prec
check 1 "prec with a bad engine" "$haze" prec --engine xx "$src/examples/prec/fixed_point.g"
check 0 "fixed-point example" "$haze" prec --engine ia "$src/examples/prec/fixed_point.g"
grep_out "exact \[-9b-5, 9b-5\]" "interval engine bound"
check 0 "fixed-point example, affine" "$haze" prec --engine aa "$src/examples/prec/fixed_point.g"
grep_out "exact \[-7b-5, 7b-5\]" "affine engine bound"
check 0 "json output" "$haze" prec --json "$src/examples/prec/fixed_point.g"
grep_out '"hi_exact": "7b-5"' "json bound"
grep -q box_results "$out" && fail "json output: box_results without bisection"
# bisected: one record per box, the old keys as they were
check 0 "json output, bisected" "$haze" prec --json --bisect x1_m=4 --bisect x2_m=2 "$src/examples/prec/fixed_point.g"
grep_out '"boxes": [0-9]*, "seconds"' "json, bisected: the count of sub-boxes"
grep_out '"hi_exact": "7b-5"' "json, bisected: the bound"
grep_out '{"box": 7, "ranges": {"x1_m": \[5, 10\], "x2_m": \[0, 5\]}, "enclosures": \[\[' "json, bisected: the last box"
[ "$(grep -c '{"box": ' "$out")" = 8 ] || fail "json, bisected: 8 boxes"
check 0 "output file" "$haze" prec -o "$tmp/res.txt" "$src/examples/prec/fixed_point.g"
grep -q "7b-5" "$tmp/res.txt" || fail "-o file"
script proved.g 'y = float<ieee_64,ne>(x);\n{ x in [1,2] -> |y - x| <= 1b-52 }\n'
check 0 "a stated bound that holds" "$haze" prec "$tmp/proved.g"
grep_out "proved" "proved line"
script unproved.g 'y = float<ieee_64,ne>(x);\n{ x in [1,2] -> |y - x| <= 1b-60 }\n'
check 4 "a stated bound that does not hold (exit 4, not the usage code 1)" "$haze" prec "$tmp/unproved.g"
grep_out "NOT PROVED" "not proved line"
check 0 "bisection option" "$haze" prec --bisect x=4 --refine 0 "$tmp/proved.g"
grep_out "4 sub-boxes" "bisection count"
check 1 "refinement budget not a number" "$haze" prec --refine lots "$tmp/proved.g"
check 1 "negative refinement budget" "$haze" prec --refine -3 "$tmp/proved.g"
check 0 "refinement option" "$haze" prec --refine 16 "$tmp/proved.g"
check 1 "bisection of an unknown variable" "$haze" prec --bisect q=4 "$tmp/proved.g"
script syntax.g 'y = x +;\n{ x in [0,1] -> y in ? }\n'
check 2 "syntax error" "$haze" prec "$tmp/syntax.g"
grep_err "syntax.g:1:8:" "syntax error position"
script undef.g 'y = x * z;\n{ x in [0,1] -> y in ? }\n'
check 2 "undefined variable" "$haze" prec "$tmp/undef.g"
grep_err "undef.g:1:9: undefined variable 'z'" "undefined variable message"
script unsup.g 'y = tan(x);\n{ x in [0,1] -> y in ? }\n'
check 2 "unsupported operator" "$haze" prec "$tmp/unsup.g"
grep_err "unsup.g:1:5: unknown function 'tan'" "unsupported message"
script empty.g 'y = x;\n{ x in [2,1] -> y in ? }\n'
check 2 "inverted range" "$haze" prec "$tmp/empty.g"
grep_err "empty.g:2:8: empty range" "inverted range message"
script div.g 'y = 1 / x;\n{ x in [-1,1] -> y in ? }\n'
check 2 "division by a range containing zero" "$haze" prec "$tmp/div.g"
grep_err "div.g:1:7: division by a range that contains zero" "division message"
check 2 "missing file" "$haze" prec "$tmp/none.g"
check 2 "FPCore loop without --unroll" "$haze" prec "$src/tests/data/prec/fpcore/newton.fpcore"
grep_err "use --unroll" "loop message"
check 0 "FPCore loop unrolled" "$haze" prec --unroll "$src/tests/data/prec/fpcore/newton.fpcore"
check 2 "FPCore loop beyond the unroll limit" "$haze" prec --unroll=3 "$src/tests/data/prec/fpcore/newton.fpcore"
check 1 "bad --unroll" "$haze" prec --unroll=x "$src/tests/data/prec/fpcore/newton.fpcore"
check 2 "FPCore beyond --max-ops" "$haze" prec --unroll --max-ops 5 "$src/tests/data/prec/fpcore/newton.fpcore"
grep_err "more than 5 operations" "max-ops message"
check 1 "bad --max-ops" "$haze" prec --unroll --max-ops 0 "$src/tests/data/prec/fpcore/newton.fpcore"
# an FPCore :pre conjunct that relates expressions is not used: a warning on
# stderr naming it (and in the JSON), the result alone on stdout
script rel.fpcore '(FPCore (a b c) :pre (and (<= 1 a 2) (<= 1 b 2) (<= 0 c 1) (> (+ a b) c) (< a b)) (- (+ a b) c))\n'
check 0 "FPCore :pre with relations" "$haze" prec "$tmp/rel.fpcore"
grep_err "warning: .*rel.fpcore:1:60: :pre constraint (> (+ a b) c) is not used" "unused :pre conjunct named"
grep_err "(< a b) is not used" "unused relation between two arguments named"
if grep -q "warning" "$out"; then echo "FAIL: warning on stdout"; fails=$((fails + 1)); fi
grep_out "rounded - exact" "result on stdout"
check 0 "FPCore :pre with relations, JSON" "$haze" prec --json "$tmp/rel.fpcore"
grep_out '"warnings": \[".*(> (+ a b) c) is not used' "warnings in JSON"
script box.fpcore '(FPCore (a) :pre (and (<= 1 a 2) (< 0 1)) (* a a))\n'
check 0 "FPCore :pre of ranges only" "$haze" prec "$tmp/box.fpcore"
if grep -q "warning" "$err"; then echo "FAIL: a warning for ranges only"; cat "$err"; fails=$((fails + 1)); fi
check 0 "prec --json, no warnings" "$haze" prec --json "$tmp/box.fpcore"
grep_out '"warnings": \[\]' "empty warnings list"
# Gappa idioms haze does not take, each named (CRlibm's and Gappa's own scripts)
printf 'x = float<ieee_64,ne>(x_);\ny = float<ieee_64,ne>(x * x);\n{ x in [0.5, 2] -> y - x*x in ? }\n' >"$tmp/defrange.g"
check 2 "a range on a defined name" "$haze" prec "$tmp/defrange.g"
grep_err "defrange.g:3:3: 'x' is defined (on line 1), and ranges are given to inputs only" "a defined name's range: message"
printf 'a = mul_rel<53>(x, y);\n{ x in [1,2] /\\ y in [1,2] -> a in ? }\n' >"$tmp/rel.g"
check 2 "a relative rounding" "$haze" prec "$tmp/rel.g"
grep_err "relative rounding operator mul_rel<p> is not supported" "relative rounding: message"
printf '{ x in [1,2] /\\ @FIX(x, -3) -> x in ? }\n' >"$tmp/fix.g"
check 2 "@FIX" "$haze" prec "$tmp/fix.g"
grep_err "@FIX and @FLT predicates are not supported" "@FIX: message"
[ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
