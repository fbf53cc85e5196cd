#!/bin/sh
# tests/cli/fcm.sh HAZE DATADIR - exit codes, messages and outputs of
# `haze fcm` and `haze fcm predict` (DATADIR: the repository's data/).
set -u
haze=$1
iris=$2/iris.csv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
out=$tmp/out
err=$tmp/err
. "$(dirname "$0")/lib.sh"
H="$haze --backend cpu"
check 0 "fcm --help" $H fcm --help
grep -q "usage: haze fcm" "$tmp/out" || { echo "FAIL: help text"; fails=$((fails + 1)); }
check 0 "fcm predict --help" $H fcm predict --help
check 0 "fit iris" $H fcm "$iris" -c 3 --seed 1 -o "$tmp/c.csv" --memberships "$tmp/u.csv" --labels "$tmp/l.csv"
[ "$(wc -l <"$tmp/c.csv")" = 4 ] || { echo "FAIL: centres file has not 3 rows + header"; fails=$((fails + 1)); }
[ "$(wc -l <"$tmp/u.csv")" = 150 ] || { echo "FAIL: memberships file has not 150 rows"; fails=$((fails + 1)); }
[ "$(wc -l <"$tmp/l.csv")" = 151 ] || { echo "FAIL: labels file has not 150 rows + header"; fails=$((fails + 1)); }
check 0 "fit iris --json" $H fcm "$iris" -c 3 --seed 1 --json --tol 1e-9
grep -q '"iterations": [0-9]' "$tmp/out" || { echo "FAIL: json iterations"; fails=$((fails + 1)); }
grep -q '"objective": 60.5057' "$tmp/out" || { echo "FAIL: iris objective"; cat "$tmp/out"; fails=$((fails + 1)); }
check 0 "fit with centres as init" $H fcm "$iris" -c 3 --init "$tmp/c.csv" --precision single
check 0 "fit with memberships as init" $H fcm "$iris" -c 3 --init "$tmp/u.csv" --stop objective
check 0 "gk, kmeans++" $H fcm "$iris" -c 3 --metric gk --init kmeans++ --max-iter 20
check 0 "predict" $H fcm predict "$tmp/c.csv" "$iris" -o "$tmp/p.csv"
[ "$(wc -l <"$tmp/p.csv")" = 150 ] || { echo "FAIL: predict rows"; fails=$((fails + 1)); }
# Gustafson-Kessel model through files: predict with the written norms gives
# the fit's own memberships U(K) of V(K) back
check 0 "gk fit with --norms" $H fcm "$iris" -c 3 --metric gk --max-iter 15 --tol 0 -o "$tmp/gc.csv" --norms "$tmp/gn.csv" --memberships "$tmp/gu.csv"
[ "$(wc -l <"$tmp/gn.csv")" = 3 ] || { echo "FAIL: norms file has not 3 rows"; fails=$((fails + 1)); }
check 0 "gk predict --norms" $H fcm predict "$tmp/gc.csv" "$iris" --norms "$tmp/gn.csv" -o "$tmp/gp.csv"
if ! paste -d, "$tmp/gu.csv" "$tmp/gp.csv" | awk -F, '{ for (j = 1; j <= 3; j++) { e = $j - $(j + 3); if (e < 0) e = -e; if (e > 1e-9) bad = 1 } } END { exit bad }'; then
    echo "FAIL: gk predict differs from the fit's memberships"; fails=$((fails + 1))
fi
check 0 "euclidean predict differs from gk" $H fcm predict "$tmp/gc.csv" "$iris" -o "$tmp/ge.csv"
if cmp -s "$tmp/ge.csv" "$tmp/gp.csv"; then echo "FAIL: --norms was ignored"; fails=$((fails + 1)); fi
check 1 "--norms without gk" $H fcm "$iris" -c 3 --norms "$tmp/n0.csv"
absent "$tmp/n0.csv" "--norms without gk"
check 2 "predict: norms of the wrong shape" $H fcm predict "$tmp/gc.csv" "$iris" --norms "$tmp/gc.csv" -o "$tmp/o8.csv"
grep_err "need 3 rows" "norms shape message"
absent "$tmp/o8.csv" "norms shape"
awk -F, 'NR == 2 { $1 = -1 } { print }' OFS=, "$tmp/gn.csv" >"$tmp/gbad.csv"
check 2 "predict: norm not positive definite" $H fcm predict "$tmp/gc.csv" "$iris" --norms "$tmp/gbad.csv"
grep_err "row 2, column 1" "norm diagonal message"
# usage errors: exit 1
check 1 "no data file" $H fcm -c 3
check 1 "no -c" $H fcm "$iris"
check 1 "unknown option" $H fcm "$iris" -c 3 --frobnicate
check 1 "bad --metric" $H fcm "$iris" -c 3 --metric manhattan
check 1 "bad --precision" $H fcm "$iris" -c 3 --precision half
check 1 "predict without data" $H fcm predict "$tmp/c.csv"
# bad input: exit 2, message names file/line/column, nothing written
printf 'a,b\n1,2\n3,x\n4,5\n' >"$tmp/text.csv"
check 2 "non-numeric field" $H fcm "$tmp/text.csv" -c 2 -o "$tmp/o1.csv"
grep_err "text.csv:3: column 2" "non-numeric message"
absent "$tmp/o1.csv" "non-numeric"
printf '1,2\n3\n4,5\n' >"$tmp/ragged.csv"
check 2 "ragged rows" $H fcm "$tmp/ragged.csv" -c 2 -o "$tmp/o2.csv"
grep_err "ragged.csv:2" "ragged message"
absent "$tmp/o2.csv" "ragged"
printf '1,2\n3,inf\n4,5\n' >"$tmp/inf.csv"
check 2 "infinite value" $H fcm "$tmp/inf.csv" -c 2 -o "$tmp/o3.csv"
grep_err "inf.csv:2: column 2" "inf message"
absent "$tmp/o3.csv" "inf"
printf '1,2\nnan,3\n4,5\n' >"$tmp/nan.csv"
check 2 "NaN value" $H fcm "$tmp/nan.csv" -c 2
grep_err "nan.csv:2: column 1" "NaN message"
: >"$tmp/empty.csv"
check 2 "empty file" $H fcm "$tmp/empty.csv" -c 2
grep_err "empty.csv" "empty message"
check 2 "c < 2" $H fcm "$iris" -c 1 -o "$tmp/o4.csv"
absent "$tmp/o4.csv" "c < 2"
check 2 "c > N" $H fcm "$tmp/nan.csv" -c 5 -o "$tmp/o5.csv" 2>/dev/null
check 2 "c > N (clean data)" $H fcm "$iris" -c 151 -o "$tmp/o5.csv"
grep_err "151 clusters for only 150 points" "c > N message"
absent "$tmp/o5.csv" "c > N"
check 2 "m = 1" $H fcm "$iris" -c 3 -m 1 -o "$tmp/o6.csv"
absent "$tmp/o6.csv" "m = 1"
check 2 "m < 1" $H fcm "$iris" -c 3 -m 0.5
check 2 "missing file" $H fcm "$tmp/none.csv" -c 2
printf '1,2\n3,4\n' >"$tmp/d2.csv"
check 2 "predict: D mismatch" $H fcm predict "$tmp/c.csv" "$tmp/d2.csv" -o "$tmp/o7.csv"
grep_err "d2.csv: 2 columns" "D mismatch message"
absent "$tmp/o7.csv" "D mismatch"
check 2 "--init of the wrong shape" $H fcm "$iris" -c 3 --init "$tmp/d2.csv"
grep_err "neither" "init shape message"
[ "$fails" = 0 ] && echo "all fcm CLI checks passed" && exit 0
echo "$fails fcm CLI checks failed"
exit 1
