#!/bin/sh
# scripts/golden/fis/fuzzylite_engines.sh - small fuzzylite engines written
# for haze's tests, with the outputs of the installed `fuzzylite` binary
# (Debian package fuzzylite, 6.0) on a grid of inputs evaluated in order:
#   activation_*.fll  one engine under each activation method and parameters
#                     (General, First, Last, Highest, Lowest, Proportional,
#                     Threshold), with ties between rule degrees;
#   functions.fll     Function terms: every operator and function, inputs,
#                     outputs computed before, x;
#   lockprev.fll      lock-previous outputs with rows where no rule fires;
#   connectives.fll   rules mixing 'and' and 'or', with parentheses, under
#                     norms that are not associative in floating point, and
#                     NormalizedSum aggregation past 1.
# Writes tests/data/fis/fuzzylite-haze/NAME.fll and NAME.fld.
set -eu
dst="$(cd "$(dirname "$0")/../../.." && pwd)/tests/data/fis/fuzzylite-haze"
command -v fuzzylite >/dev/null || { echo "needs fuzzylite (Debian package fuzzylite)" >&2; exit 1; }
mkdir -p "$dst"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

# name, then the inputs file (.fld with a header) in $tmp
run() {
    fuzzylite -i "$dst/$1.fll" -of fld -d "$tmp" -o "$dst/$1.fld" -decimals 9
}

# an input on [0, 1] with the terms lo (falling ramp) and hi (rising ramp)
ramp_input() { # NAME
    cat <<END
InputVariable: $1
  enabled: true
  range: 0.000 1.000
  lock-range: false
  term: lo Ramp 1.000 0.000
  term: hi Ramp 0.000 1.000
END
}

activation() { # TAG "ACTIVATION"
    cat >"$dst/activation_$1.fll" <<END
Engine: activation
InputVariable: a
  enabled: true
  range: 0.000 1.000
  lock-range: false
  term: lo Triangle -0.500 0.000 0.500
  term: mid Triangle 0.000 0.500 1.000
  term: hi Triangle 0.500 1.000 1.500
$(ramp_input b)
OutputVariable: m
  enabled: true
  range: 0.000 1.000
  lock-range: false
  aggregation: Maximum
  defuzzifier: Centroid 200
  default: nan
  lock-previous: false
  term: low Triangle 0.000 0.250 0.500
  term: med Triangle 0.250 0.500 0.750
  term: high Triangle 0.500 0.750 1.000
OutputVariable: s
  enabled: true
  range: 0.000 10.000
  lock-range: false
  aggregation: none
  defuzzifier: WeightedAverage TakagiSugeno
  default: nan
  lock-previous: false
  term: one Constant 1.000
  term: five Constant 5.000
  term: nine Constant 9.000
RuleBlock: rules
  enabled: true
  conjunction: Minimum
  disjunction: Maximum
  implication: Minimum
  activation: $2
  rule: if a is lo then m is low and s is one
  rule: if a is mid then m is med and s is five
  rule: if a is hi then m is high and s is nine
  rule: if a is lo and b is hi then m is med and s is nine
  rule: if a is mid or b is lo then m is high and s is one
  rule: if b is hi then m is low and s is five
  rule: if b is hi then m is high and s is nine
  rule: if a is mid then m is low and s is one with 0.500
  rule: if a is hi then m is med and s is five
  rule: if a is very mid then m is somewhat high and s is nine
END
    awk 'BEGIN { print "a b"
        for (i = 0; i <= 16; i++) for (j = 0; j <= 16; j++) printf "%.9f %.9f\n", i / 16, j / 16 }' >"$tmp"
    run "activation_$1"
}
activation general "General"
activation first "First"
activation first_2 "First 2 0.3"
activation last "Last"
activation last_3 "Last 3 0.25"
activation highest_1 "Highest 1"
activation highest_3 "Highest 3"
activation lowest_1 "Lowest 1"
activation lowest_2 "Lowest 2"
activation proportional "Proportional"
activation threshold "Threshold"
activation threshold_gt "Threshold > 0.4"
activation threshold_le "Threshold <= 0.5"
activation threshold_eq "Threshold == 0.5"
activation threshold_ne "Threshold != 0.25"
activation threshold_lt "Threshold < 0.3"

# a Takagi-Sugeno output of functions.fll with one Function term f
fn_output() { # NAME DEFUZZIFIER-TYPE "EXPRESSION"
    cat <<END
OutputVariable: $1
  enabled: true
  range: -1000.000 1000.000
  lock-range: false
  aggregation: none
  defuzzifier: WeightedAverage $2
  default: nan
  lock-previous: false
  term: f Function $3
END
}

{
    cat <<'END'
Engine: functions
InputVariable: a
  enabled: true
  range: -10.000 10.000
  lock-range: false
  term: near Function exp(~((x - 1)^2) / 8)
  term: far Function 1 - exp(~((x - 1) ^ 2) / 8)
InputVariable: b
  enabled: true
  range: 0.500 4.000
  lock-range: false
  term: any Triangle 0 1 2
OutputVariable: mam
  enabled: true
  range: 0.000 1.000
  lock-range: false
  aggregation: Maximum
  defuzzifier: Centroid 100
  default: nan
  lock-previous: false
  term: bump Function max(0, 1 - fabs(x - 0.3) * 4)
  term: ramp Function min(1, max(0, (x - 0.5) * 2))
END
    fn_output o1 TakagiSugeno 'a + b * 2 - a / b'
    fn_output o2 TakagiSugeno 'a % b + fmod(a, b) + 2^3^0.5 - 8/2/2 - 2-3-4'
    fn_output o3 TakagiSugeno '~a^2 + ~2^2 + 2^~1 + !0 + 10-2*3^2/~4'
    fn_output o4 TakagiSugeno 'sin(a) * cos(b) + tan(b / 4) - atan2(a, b) + atan(a)'
    fn_output o5 TakagiSugeno 'exp(b) + log(b) + log10(b) + sqrt(b) + log1p(b) + acosh(b + 1) + asinh(a) + atanh(b / 5)'
    fn_output o6 TakagiSugeno 'abs(a) + fabs(~a) + floor(a) + ceil(a) + round(a) + round(~a * 1.5)'
    fn_output o7 TakagiSugeno 'min(a, b) + max(a, b) * 10 + pow(b, a / 5)'
    fn_output o8 TakagiSugeno 'gt(a, b) + ge(a, b) * 2 + eq(a, 1) * 4 + neq(a, b) * 8 + le(a, 0) * 16 + lt(a, b) * 32'
    fn_output o9 TakagiSugeno '(gt(a, 0) and lt(a, 5) or !gt(a, ~5)) + (1 or 0 and 0) * 2 + (0 and 1 or 1) * 4'
    fn_output o10 TakagiSugeno 'o1 * 2 - o7 + x + mam'
    fn_output o11 TakagiSugeno 'sinh(b) + cosh(b / 2) + tanh(a) + acos(b / 5) + asin(b / 5)'
    fn_output o12 Automatic 'x * 100 + a'
    cat <<'END'
RuleBlock: rules
  enabled: true
  conjunction: Minimum
  disjunction: Maximum
  implication: Minimum
  activation: General
  rule: if a is near then mam is bump
  rule: if a is far then mam is ramp
  rule: if a is any then o1 is f and o2 is f and o3 is f and o4 is f and o5 is f and o6 is f
  rule: if b is any then o7 is f and o8 is f and o9 is f and o10 is f and o11 is f
  rule: if a is near then o12 is f with 0.5
END
} >"$dst/functions.fll"
awk 'BEGIN { print "a b"
    for (i = 0; i <= 80; i++) for (j = 0; j <= 7; j++) printf "%.9f %.9f\n", -10 + i / 4, 0.5 + j / 2 }' >"$tmp"
run functions

cat >"$dst/lockprev.fll" <<'END'
Engine: lockprev
InputVariable: t
  enabled: true
  range: 0.000 10.000
  lock-range: false
  term: on1 Triangle 1.000 2.000 3.000
  term: on2 Triangle 5.000 6.000 7.000
OutputVariable: y
  enabled: true
  range: 0.000 1.000
  lock-range: false
  aggregation: Maximum
  defuzzifier: Centroid 100
  default: nan
  lock-previous: true
  term: low Triangle 0.000 0.250 0.500
  term: high Triangle 0.500 0.750 1.000
OutputVariable: w
  enabled: true
  range: 0.000 10.000
  lock-range: true
  aggregation: none
  defuzzifier: WeightedAverage TakagiSugeno
  default: 0.500
  lock-previous: true
  term: two Constant 2.000
  term: big Constant 12.000
OutputVariable: d
  enabled: true
  range: -100.000 100.000
  lock-range: false
  aggregation: none
  defuzzifier: WeightedAverage TakagiSugeno
  default: nan
  lock-previous: false
  term: f Function y * 10 + w
OutputVariable: n
  enabled: true
  range: 0.000 1.000
  lock-range: false
  aggregation: Maximum
  defuzzifier: Centroid 100
  default: 0.250
  lock-previous: false
  term: mid Triangle 0.000 0.500 1.000
RuleBlock: rules
  enabled: true
  conjunction: Minimum
  disjunction: Maximum
  implication: Minimum
  activation: General
  rule: if t is on1 then y is low and w is two
  rule: if t is on2 then y is high and w is big and n is mid
  rule: if t is any then d is f
END
awk 'BEGIN { print "t"; print "-1.000000000"
    for (i = 0; i <= 100; i++) printf "%.9f\n", i / 10
    for (i = 40; i >= 0; i--) printf "%.9f\n", i / 4 }' >"$tmp"
run lockprev
{
    cat <<'END'
Engine: connectives
InputVariable: a
  enabled: true
  range: 0.000 1.000
  lock-range: false
  term: lo Ramp 1.000 0.000
  term: mid Triangle 0.000 0.500 1.000
  term: hi Ramp 0.000 1.000
END
    ramp_input b
    ramp_input c
    cat <<'END'
OutputVariable: s
  enabled: true
  range: 0.000 100.000
  lock-range: false
  aggregation: none
  defuzzifier: WeightedSum TakagiSugeno
  default: nan
  lock-previous: false
  term: one Constant 1.000
  term: ten Constant 10.000
  term: hundred Constant 100.000
OutputVariable: m
  enabled: true
  range: 0.000 1.000
  lock-range: false
  aggregation: NormalizedSum
  defuzzifier: Centroid 200
  default: nan
  lock-previous: false
  term: low Triangle 0.000 0.300 0.600
  term: high Triangle 0.400 0.700 1.000
RuleBlock: rules
  enabled: true
  conjunction: AlgebraicProduct
  disjunction: EinsteinSum
  implication: Minimum
  activation: General
  rule: if a is hi or b is hi and c is hi then s is one and m is high
  rule: if (a is hi or b is hi) and c is lo then s is ten and m is low
  rule: if a is lo and (b is hi or (c is hi and a is mid)) then s is hundred and m is high
  rule: if ((a is mid)) then s is one and m is high
  rule: if a is very hi or b is not lo and c is any then s is ten and m is low
  rule: if a is hi and b is hi or c is lo or a is lo and b is lo then s is hundred and m is high
  rule: if a is mid or b is hi or c is hi or a is hi then s is one and m is high
END
} >"$dst/connectives.fll"
awk 'BEGIN { print "a b c"
    for (i = 0; i <= 8; i++) for (j = 0; j <= 8; j++) for (k = 0; k <= 4; k++)
        printf "%.9f %.9f %.9f\n", i / 8, j / 8, k / 4 }' >"$tmp"
run connectives
ls "$dst" | wc -l
