#!/bin/sh
# tests/cli/fcm.sh HAZE DATADIR - exit codes, messages and outputs of
# `haze fcm` and `haze fcm predict` (DATADIR: the repository's data/).
set -u
haze=$1
iris=$2/iris.csv
. "$(dirname "$0")/lib.sh"
scratch
H="$haze --backend cpu"
check 0 "fcm --help" $H fcm --help
grep -q "usage: haze fcm" "$tmp/out" || fail "help text"
check 0 "fcm predict --help" $H fcm predict --help
check 0 "fit iris" $H fcm "$iris" -c 3 --seed 1 -o "$tmp/c.csv" --memberships "$tmp/u.csv" --labels "$tmp/l.csv"
[ "$(wc -l <"$tmp/c.csv")" = 4 ] || fail "centres file has not 3 rows + header"
[ "$(wc -l <"$tmp/u.csv")" = 150 ] || fail "memberships file has not 150 rows"
[ "$(wc -l <"$tmp/l.csv")" = 151 ] || fail "labels file has not 150 rows + header"
check 0 "fit iris --json" $H fcm "$iris" -c 3 --seed 1 --json --tol 1e-9
grep -q '"iterations": [0-9]' "$tmp/out" || fail "json iterations"
grep -Eq '"fit_timings": \{"check": [0-9.]+, "setup": [0-9.]+, "seeding": [0-9.]+, "iterations": [0-9.]+, "finish": [0-9.]+\}' "$tmp/out" ||
    fail "json fit_timings"
grep -q '"objective": 60.5057' "$tmp/out" || { echo "FAIL: iris objective"; cat "$tmp/out"; fails=$((fails + 1)); }
check 0 "fit with centres as init" $H fcm "$iris" -c 3 --init "$tmp/c.csv" --precision single
check 0 "fit with memberships as init" $H fcm "$iris" -c 3 --init "$tmp/u.csv" --stop objective
check 0 "gk, kmeans++" $H fcm "$iris" -c 3 --metric gk --init kmeans++ --max-iter 20
check 0 "predict" $H fcm predict "$tmp/c.csv" "$iris" -o "$tmp/p.csv"
[ "$(wc -l <"$tmp/p.csv")" = 150 ] || fail "predict rows"
check 0 "a fit stopped by --max-iter" $H fcm "$iris" -c 3 --max-iter 5
grep_err "warning: fcm: not converged after 5 iterations" "not converged: a warning"
check 0 "--tol 0: the count is the rule" $H fcm "$iris" -c 3 --max-iter 5 --tol 0
grep -q "not converged after" "$err" && fail "--tol 0: no warning for a fit that cannot converge"
check 0 "predict --labels - alone" $H fcm predict "$tmp/c.csv" "$iris" --labels -
[ "$(head -1 "$out")" = label ] || fail "predict --labels -: the labels on stdout, not the memberships"
if [ -w /dev/full ]; then # a full disk is the run's failure, not bad input
    check 3 "fcm -o /dev/full" $H fcm "$iris" -c 3 -o /dev/full
    grep_err "/dev/full: cannot write output: No space left on device" "fcm: a full device's reason"
fi
# Gustafson-Kessel model through files: predict with the written norms gives
# the fit's own memberships U(K) of V(K) back
check 0 "gk fit with --norms" $H fcm "$iris" -c 3 --metric gk --max-iter 15 --tol 0 -o "$tmp/gc.csv" --norms "$tmp/gn.csv" --memberships "$tmp/gu.csv"
[ "$(wc -l <"$tmp/gn.csv")" = 3 ] || fail "norms file has not 3 rows"
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
# a bad option value is a usage error (exit 1), as a malformed one
check 1 "c < 2" $H fcm "$iris" -c 1 -o "$tmp/o4.csv"
grep_err "at least 2 clusters" "c < 2 message"
absent "$tmp/o4.csv" "c < 2"
check 2 "c > N" $H fcm "$tmp/nan.csv" -c 5 -o "$tmp/o5.csv" 2>/dev/null
check 2 "c > N (clean data)" $H fcm "$iris" -c 151 -o "$tmp/o5.csv"
grep_err "151 clusters for only 150 points" "c > N message"
absent "$tmp/o5.csv" "c > N"
check 1 "m = 1" $H fcm "$iris" -c 3 -m 1 -o "$tmp/o6.csv"
grep_err "finite number > 1" "m = 1 message"
absent "$tmp/o6.csv" "m = 1"
check 1 "m < 1" $H fcm "$iris" -c 3 -m 0.5
check 2 "missing file" $H fcm "$tmp/none.csv" -c 2
printf '1,2\n3,4\n' >"$tmp/d2.csv"
check 2 "predict: D mismatch" $H fcm predict "$tmp/c.csv" "$tmp/d2.csv" -o "$tmp/o7.csv"
grep_err "d2.csv: 2 columns" "D mismatch message"
absent "$tmp/o7.csv" "D mismatch"
check 2 "--init of the wrong shape" $H fcm "$iris" -c 3 --init "$tmp/d2.csv"
grep_err "neither" "init shape message"
# each subcommand its own help
check 0 "fcm --help" $H fcm --help
grep_out "kmeans++ (default" "fcm help: the default start"
grep_out "predict --help" "fcm help points to predict's"
check 0 "fcm predict --help" $H fcm predict --help
grep_out "usage: haze fcm predict CENTERS" "predict help"
if grep -q -- "--clusters" "$out"; then echo "FAIL: predict help is the fit's"; fails=$((fails + 1)); fi
check 0 "fcm predict -h" $H fcm predict -h
grep_out "usage: haze fcm predict CENTERS" "predict -h"
# --seed: the whole 64-bit range, nothing clamped
check 1 "--seed beyond 64 bits" $H fcm "$iris" -c 3 --seed 99999999999999999999999
grep_err "18446744073709551615" "--seed range message"
check 1 "--seed 2^64" $H fcm "$iris" -c 3 --seed 18446744073709551616
check 1 "--seed -1" $H fcm "$iris" -c 3 --seed -1
check 1 "--seed +5" $H fcm "$iris" -c 3 --seed +5
check 0 "--seed 2^64-1" $H fcm "$iris" -c 3 --seed 18446744073709551615 -o "$tmp/cs.csv"
# results on stdout push the summary (text or JSON) to stderr: every option
# that can write to stdout, alone and with --json; stdout then holds only the table
only_table() { # only_table DESCRIPTION: no summary line on stdout, the summary on stderr
    if grep -q -e "partition coefficient" -e "iterations" -e "centres:" "$out"; then
        echo "FAIL: $1: summary on stdout"; fails=$((fails + 1))
    fi
    grep -q -e "partition coefficient" -e '"iterations"' "$err" || fail "$1: no summary on stderr"
}
for opt in -o --memberships --labels; do
    for js in "" --json; do
        check 0 "$opt - $js" $H fcm "$iris" -c 3 $opt - $js
        only_table "$opt - $js"
    done
done
for js in "" --json; do
    check 0 "--norms - $js" $H fcm "$iris" -c 3 --metric gk --max-iter 10 --norms - $js
    only_table "--norms - $js"
    [ "$(wc -l <"$out")" = 3 ] || fail "--norms - rows"
done
check 0 "-o - with files for the rest" $H fcm "$iris" -c 3 -o - --memberships "$tmp/m1.csv" --labels "$tmp/l1.csv"
only_table "-o - with files"
[ "$(wc -l <"$out")" = 4 ] || fail "-o - rows"
check 0 "files only: summary on stdout" $H fcm "$iris" -c 3 -o "$tmp/c2.csv" --memberships "$tmp/m2.csv"
grep_out "partition coefficient" "summary on stdout without -"
check 0 "--json alone on stdout" $H fcm "$iris" -c 3 --json
grep_out '"degenerate": \[\]' "json degenerate of a good fit"
check 1 "two results on stdout" $H fcm "$iris" -c 3 -o - --memberships -
check 1 "two results on stdout (labels)" $H fcm "$iris" -c 3 --labels - --memberships "-"
check 1 "predict: two results on stdout" $H fcm predict "$tmp/c.csv" "$iris" -o - --labels -
check 0 "predict: labels to stdout, memberships to a file" $H fcm predict "$tmp/c.csv" "$iris" -o "$tmp/pm.csv" --labels -
[ "$(wc -l <"$out")" = 151 ] || fail "predict --labels - rows"
# predict refuses data whose squared distances overflow, as the fit does
printf '1,2,3,4\n1e308,2,3,4\n' >"$tmp/huge.csv"
check 2 "predict: 1e308" $H fcm predict "$tmp/c.csv" "$tmp/huge.csv" -o "$tmp/o9.csv"
grep_err "overflow" "predict overflow message"
absent "$tmp/o9.csv" "predict overflow"
printf '1,2,3,4\n1e308,2,3,4\n5,6,7,8\n' >"$tmp/huge3.csv"
check 2 "fit: 1e308" $H fcm "$tmp/huge3.csv" -c 2 -o "$tmp/o10.csv"
grep_err "overflow" "fit overflow message"
absent "$tmp/o10.csv" "fit overflow"
check 1 "predict: m = 0.5" $H fcm predict "$tmp/c.csv" "$iris" -m 0.5
grep_err "finite number > 1" "predict m = 0.5 message"
# degenerate results: random memberships collapse on 32 features (16 blobs);
# the default start does not
awk 'BEGIN { srand(3); for (j = 0; j < 16; j++) for (k = 0; k < 32; k++) mu[j, k] = 100 * rand();
             for (i = 0; i < 480; i++) { j = i % 16; line = "";
                 for (k = 0; k < 32; k++) line = line (k ? "," : "") (mu[j, k] + rand() + rand() - 1);
                 print line } }' >"$tmp/b32.csv"
check 0 "collapse with --init random" $H fcm "$tmp/b32.csv" -c 16 --init random -o "$tmp/cb.csv"
grep_err "warning: fcm: degenerate result" "collapse warning"
grep_err "closer to 1" "collapse advice"
check 0 "collapse, JSON" $H fcm "$tmp/b32.csv" -c 16 --init random --json
grep_out '"degenerate": \["coincident_centres", "uniform_memberships"\]' "collapse in the JSON"
check 0 "default start on 32 features" $H fcm "$tmp/b32.csv" -c 16 -o "$tmp/cb2.csv"
if grep -q "degenerate" "$err"; then echo "FAIL: the default start was flagged"; cat "$err"; fails=$((fails + 1)); fi
# --gpus (one fit over several GPUs): usage errors everywhere, exit 1
check 1 "--gpus without a value" "$haze" fcm "$iris" -c 3 --gpus
check 1 "--gpus bad" "$haze" --gpus two fcm "$iris" -c 3
grep_err "expected all, a number of GPUs" "--gpus bad message"
check 1 "--gpus 0" "$haze" --gpus 0 fcm "$iris" -c 3
check 1 "--gpus list with a hole" "$haze" --gpus 0,,1 fcm "$iris" -c 3
check 1 "--gpus listed twice" "$haze" --gpus=1,0,1 fcm "$iris" -c 3
grep_err "device 1 is listed twice" "--gpus twice message"
check 1 "--gpus not an id" "$haze" --gpus 0,-1 fcm "$iris" -c 3
check 1 "--gpus with --backend cpu" "$haze" --backend cpu --gpus 2 fcm "$iris" -c 3 -o "$tmp/g0.csv"
grep_err "cannot go with --backend cpu" "--gpus with cpu message"
absent "$tmp/g0.csv" "--gpus with cpu"
HAZE_GPUS=lots check 1 "HAZE_GPUS bad" "$haze" fcm "$iris" -c 3
grep_err "HAZE_GPUS" "HAZE_GPUS message"
# HAZE_GPUS gives way to a CPU backend (--backend or HAZE_BACKEND)
HAZE_GPUS=2 check 0 "HAZE_GPUS with --backend cpu" "$haze" --backend cpu fcm "$iris" -c 3 --seed 1 -o "$tmp/g1.csv"
HAZE_GPUS=2 HAZE_BACKEND=cpu check 0 "HAZE_GPUS with HAZE_BACKEND=cpu" "$haze" fcm "$iris" -c 3 --seed 1 -o "$tmp/g2.csv"
cmp -s "$tmp/g1.csv" "$tmp/g2.csv" || fail "HAZE_GPUS changed a CPU fit"
if ! "$haze" info | grep -q "available, [0-9]* device"; then
    # no usable GPU here: asking for some fails with exit 3, says why, writes nothing
    for set in all 2 0,1 3,; do
        check 3 "--gpus $set without a GPU" "$haze" --gpus $set fcm "$iris" -c 3 -o "$tmp/g3.csv"
        grep_err "cuda\|CUDA" "--gpus $set without a GPU message"
        absent "$tmp/g3.csv" "--gpus $set without a GPU"
    done
    HAZE_GPUS=all check 3 "HAZE_GPUS=all without a GPU" "$haze" fcm "$iris" -c 3
else
    # a device that is not there: exit 3, named
    check 3 "--gpus names a missing device" "$haze" --gpus 0,4095 fcm "$iris" -c 3 -o "$tmp/g4.csv"
    grep_err "CUDA device 4095 is not present" "missing device message"
    absent "$tmp/g4.csv" "missing device"
    # one fit over every GPU: the centres of one GPU's to rounding
    check 0 "--gpus 1" "$haze" --gpus 1 fcm "$iris" -c 3 --seed 1 --tol 1e-9 -o "$tmp/g5.csv"
    check 0 "--gpus all" "$haze" --gpus all fcm "$iris" -c 3 --seed 1 --tol 1e-9 -o "$tmp/g6.csv" --labels "$tmp/g6l.csv"
    [ "$(wc -l <"$tmp/g6l.csv")" = 151 ] || fail "--gpus all labels file has not 150 rows + header"
    if ! paste -d, "$tmp/g5.csv" "$tmp/g6.csv" | awk -F, 'NR > 1 { for (j = 1; j <= 4; j++) { e = $j - $(j + 4); if (e < 0) e = -e; if (e > 1e-9) bad = 1 } } END { exit bad }'; then
        echo "FAIL: --gpus all centres differ from one GPU's"; fails=$((fails + 1))
    fi
fi
[ "$fails" = 0 ] && echo "all fcm CLI checks passed" && exit 0
echo "$fails fcm CLI checks failed"
exit 1
