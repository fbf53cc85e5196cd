#!/bin/sh
# examples/prec/crossover.sh HAZE - the crossover analysis of Linderman et
# al., CGO 2010, Sec. 4.1: for each boundary B, the bound on the rounding
# error of log(1 + exp(x)) over [-B, B] next to the error of approximating it
# by x (and by 0 at -B, the same size) at B. Past the crossover the
# approximation is as accurate as the computation.
set -eu
haze=${1:-haze}
dir=$(dirname "$0")
tmp=${TMPDIR:-/tmp}/crossover.$$.g
trap 'rm -f "$tmp"' EXIT
printf '%4s %14s %14s %14s %14s %14s\n' B approx float x87 double gpu
for b in 2 4 6 8 10 12 14 16 18 20 24 30; do
    line=$(printf '%4s' "$b")
    approx=
    for m in float x87 double gpu; do
        sh "$dir/make_log1pexp.sh" $m $b > "$tmp"
        out=$("$haze" prec --json --bisect x_m=64 "$tmp")
        err=$(echo "$out" | sed -n 's/.*"goal": "y - y_m in ?", "lo": "[^"]*", "hi": "\([^"]*\)".*/\1/p')
        [ -n "$approx" ] || approx=$(echo "$out" | sed -n 's/.*"goal": "log(1 + exp(b_m)) - b_m in ?", "lo": "[^"]*", "hi": "\([^"]*\)".*/\1/p')
        line="$line $(printf '%14.4g' "$err")"
    done
    printf '%s %14.4g%s\n' "$(printf '%4s' "$b")" "$approx" "${line#????}"
done
