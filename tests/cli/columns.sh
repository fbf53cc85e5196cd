#!/bin/sh
# tests/cli/columns.sh HAZE TESTDATA - input columns are matched to a model's
# inputs by name when the table has a header, by order when it has none:
# `haze fis eval`, `haze fcm predict` and `haze fnn predict`, each with a
# swapped header, a missing name, an unknown extra column (an error, or left
# out with --ignore-extra) and no header.
set -u
haze=$1
tip=$2/fis/tipper.fis # inputs service, food
. "$(dirname "$0")/lib.sh"
scratch
H="$haze --backend cpu"
same() { # same FILE1 FILE2 DESCRIPTION
    if cmp -s "$1" "$2"; then echo "ok: $3"; else
        echo "FAIL: $3"; diff "$1" "$2" | head -5; fails=$((fails + 1))
    fi
}
differ() { # differ FILE1 FILE2 DESCRIPTION
    if cmp -s "$1" "$2"; then echo "FAIL: $3: the same"; fails=$((fails + 1)); else echo "ok: $3"; fi
}

# --- fis eval
printf 'service,food\n2,1\n4,5\n9,2\n' >"$tmp/tip.csv"
printf 'food,service\n1,2\n5,4\n2,9\n' >"$tmp/tip_swapped.csv"
printf '2,1\n4,5\n9,2\n' >"$tmp/tip_plain.csv"
printf '1,2\n5,4\n2,9\n' >"$tmp/tip_plain_swapped.csv"
printf 'service,quality\n2,1\n' >"$tmp/tip_missing.csv"
printf 'id,food,service\n7,1,2\n8,5,4\n9,2,9\n' >"$tmp/tip_extra.csv"
check 0 "fis: header in the model's order" $H fis eval "$tip" "$tmp/tip.csv" -o "$tmp/f1.csv"
check 0 "fis: swapped header" $H fis eval "$tip" "$tmp/tip_swapped.csv" -o "$tmp/f2.csv"
same "$tmp/f1.csv" "$tmp/f2.csv" "fis: a swapped header feeds each input its own column"
grep -q '^7.01687' "$tmp/f2.csv" || fail "fis: tipper(2,1) is not 7.0169"
check 0 "fis: no header" $H fis eval "$tip" "$tmp/tip_plain.csv" -o "$tmp/f3.csv"
same "$tmp/f1.csv" "$tmp/f3.csv" "fis: no header, by position"
check 0 "fis: no header, other order" $H fis eval "$tip" "$tmp/tip_plain_swapped.csv" -o "$tmp/f4.csv"
differ "$tmp/f1.csv" "$tmp/f4.csv" "fis: without a header the order counts"
check 2 "fis: missing name" $H fis eval "$tip" "$tmp/tip_missing.csv" -o "$tmp/never.csv"
grep_err "no column for the input 'food' of the model" "fis: missing name message"
grep_err "quality" "fis: missing name message lists the header"
absent "$tmp/never.csv" "fis: missing name"
check 2 "fis: unknown column" $H fis eval "$tip" "$tmp/tip_extra.csv" -o "$tmp/never.csv"
grep_err "column 'id' is not among the inputs" "fis: unknown column message"
grep_err "ignore-extra" "fis: unknown column message names the option"
check 0 "fis: --ignore-extra" $H fis eval "$tip" "$tmp/tip_extra.csv" --ignore-extra -o "$tmp/f5.csv"
same "$tmp/f1.csv" "$tmp/f5.csv" "fis: --ignore-extra leaves the column out"
printf '7,1,2\n' >"$tmp/tip_plain3.csv"
check 2 "fis: no header, three columns" $H fis eval "$tip" "$tmp/tip_plain3.csv" -o "$tmp/never.csv"
grep_err "3 columns, but the model" "fis: column count message"

# --- names in Windows-1252 (MATLAB on a Western European Windows, a
# spreadsheet's CSV) match the same names in UTF-8, either way round
printf "[System]\nName='enc'\n[Input1]\nName='Posi\347\343o'\nRange=[0 1]\nNumMFs=2\n" >"$tmp/w.fis"
printf "MF1='b':'trimf',[0 0 1]\nMF2='a':'trimf',[0 1 1]\n[Output1]\nName='Sa\355da'\n" >>"$tmp/w.fis"
printf "Range=[0 10]\nNumMFs=2\nMF1='x':'trimf',[0 2 5]\nMF2='y':'trimf',[5 8 10]\n" >>"$tmp/w.fis"
printf '[Rules]\n1, 1 (1) : 1\n2, 2 (1) : 1\n' >>"$tmp/w.fis"
printf 'Posi\303\247\303\243o\n0.3\n' >"$tmp/u8.csv"
printf 'Posi\347\343o\n0.3\n' >"$tmp/w.csv"
check 0 "fis: a Windows-1252 model, a UTF-8 header" $H fis eval "$tmp/w.fis" "$tmp/u8.csv" -o "$tmp/e1.csv"
grep_err "w.fis:4: not UTF-8 text: read as Windows-1252" "fis: the Windows-1252 model's warning"
check 0 "fis: a Windows-1252 model and header" $H fis eval "$tmp/w.fis" "$tmp/w.csv" -o "$tmp/e2.csv"
same "$tmp/e1.csv" "$tmp/e2.csv" "fis: the two encodings give the same outputs"
grep -q "^Sa$(printf '\303\255')da\$" "$tmp/e1.csv" || fail "fis: the output's name is written in UTF-8"

# --- fcm predict: the fit writes the data's header above the centres
printf 'a,b\n0,0\n0.2,0.1\n0.1,0.3\n5,9\n5.2,9.1\n4.9,8.8\n' >"$tmp/pts.csv"
check 0 "fcm: fit with a header" $H fcm "$tmp/pts.csv" -c 2 --seed 1 -o "$tmp/c.csv"
head -1 "$tmp/c.csv" | grep -q '^a,b$' || fail "fcm: centres lack the header a,b"
printf 'a,b\n0,1\n5,8\n3,3\n' >"$tmp/new.csv"
printf 'b,a\n1,0\n8,5\n3,3\n' >"$tmp/new_swapped.csv"
printf '0,1\n5,8\n3,3\n' >"$tmp/new_plain.csv"
printf 'a,c\n0,1\n' >"$tmp/new_missing.csv"
printf 'b,id,a\n1,1,0\n8,2,5\n3,3,3\n' >"$tmp/new_extra.csv"
check 0 "fcm predict: header" $H fcm predict "$tmp/c.csv" "$tmp/new.csv" -o "$tmp/u1.csv"
check 0 "fcm predict: swapped header" $H fcm predict "$tmp/c.csv" "$tmp/new_swapped.csv" -o "$tmp/u2.csv"
same "$tmp/u1.csv" "$tmp/u2.csv" "fcm predict: a swapped header is matched by name"
check 0 "fcm predict: no header" $H fcm predict "$tmp/c.csv" "$tmp/new_plain.csv" -o "$tmp/u3.csv"
same "$tmp/u1.csv" "$tmp/u3.csv" "fcm predict: no header, by position"
check 2 "fcm predict: missing name" $H fcm predict "$tmp/c.csv" "$tmp/new_missing.csv" -o "$tmp/never.csv"
grep_err "no column for the feature 'b' of the centres file" "fcm predict: missing name message"
check 2 "fcm predict: unknown column" $H fcm predict "$tmp/c.csv" "$tmp/new_extra.csv" -o "$tmp/never.csv"
grep_err "column 'id' is not among the features" "fcm predict: unknown column message"
check 0 "fcm predict: --ignore-extra" $H fcm predict "$tmp/c.csv" "$tmp/new_extra.csv" --ignore-extra -o "$tmp/u4.csv"
same "$tmp/u1.csv" "$tmp/u4.csv" "fcm predict: --ignore-extra leaves the column out"
absent "$tmp/never.csv" "fcm predict: failed runs"

# --- fnn predict: the model file keeps its inputs' names
{
    echo "x1,x2,y"
    i=0
    while [ $i -lt 40 ]; do
        echo "$((i % 7)),$((i % 5)),$(((i % 7) + 2 * (i % 5)))"
        i=$((i + 1))
    done
} >"$tmp/train.csv"
check 0 "fnn: train" $H --quiet fnn train "$tmp/train.csv" --target y --epochs 2 -o "$tmp/m.fnn"
printf 'x1,x2\n1,4\n6,0\n3,2\n' >"$tmp/q.csv"
printf 'x2,x1\n4,1\n0,6\n2,3\n' >"$tmp/q_swapped.csv"
printf '1,4\n6,0\n3,2\n' >"$tmp/q_plain.csv"
printf 'x1,x3\n1,4\n' >"$tmp/q_missing.csv"
printf 'x2,y,x1\n4,9,1\n0,6,6\n2,7,3\n' >"$tmp/q_target.csv"
printf 'x2,id,x1\n4,1,1\n0,2,6\n2,3,3\n' >"$tmp/q_extra.csv"
check 0 "fnn predict: header" $H fnn predict "$tmp/m.fnn" "$tmp/q.csv" -o "$tmp/p1.csv"
check 0 "fnn predict: swapped header" $H fnn predict "$tmp/m.fnn" "$tmp/q_swapped.csv" -o "$tmp/p2.csv"
same "$tmp/p1.csv" "$tmp/p2.csv" "fnn predict: a swapped header is matched by name"
check 0 "fnn predict: no header" $H fnn predict "$tmp/m.fnn" "$tmp/q_plain.csv" -o "$tmp/p3.csv"
same "$tmp/p1.csv" "$tmp/p3.csv" "fnn predict: no header, by position"
check 0 "fnn predict: target column among the inputs" $H fnn predict "$tmp/m.fnn" "$tmp/q_target.csv" -o "$tmp/p4.csv"
same "$tmp/p1.csv" "$tmp/p4.csv" "fnn predict: the target is not an input"
grep_err "RMSE" "fnn predict: the target column is scored"
check 2 "fnn predict: missing name" $H fnn predict "$tmp/m.fnn" "$tmp/q_missing.csv" -o "$tmp/never.csv"
grep_err "no column for the input 'x2' of the model" "fnn predict: missing name message"
check 2 "fnn predict: unknown column" $H fnn predict "$tmp/m.fnn" "$tmp/q_extra.csv" -o "$tmp/never.csv"
grep_err "column 'id' is not among the inputs" "fnn predict: unknown column message"
check 0 "fnn predict: --ignore-extra" $H fnn predict "$tmp/m.fnn" "$tmp/q_extra.csv" --ignore-extra -o "$tmp/p5.csv"
same "$tmp/p1.csv" "$tmp/p5.csv" "fnn predict: --ignore-extra leaves the column out"
absent "$tmp/never.csv" "fnn predict: failed runs"
# a model file of version 1 stored names with blanks and quotes as '_'
{
    echo "x 1,x2,y"
    tail -n +2 "$tmp/train.csv"
} >"$tmp/train_blank.csv"
check 0 "fnn: train, a name with a blank" $H --quiet fnn train "$tmp/train_blank.csv" --target y --epochs 2 -o "$tmp/b.fnn"
sed 's/^names .*/names x_1 x2/' "$tmp/b.fnn" >"$tmp/b1.fnn"
printf 'x2,x 1\n4,1\n0,6\n2,3\n' >"$tmp/qb.csv"
check 0 "fnn predict: 'x 1' finds the stored 'x_1'" $H fnn predict "$tmp/b1.fnn" "$tmp/qb.csv" -o "$tmp/p6.csv"
check 0 "fnn predict: the same model, names as written" $H fnn predict "$tmp/b.fnn" "$tmp/qb.csv" -o "$tmp/p7.csv"
same "$tmp/p6.csv" "$tmp/p7.csv" "fnn predict: names stored with '_' match"

# --- the columns a job reads: fcm --columns/--drop, fnn train --inputs/--drop
printf 'id,x,y,species\nA1,1,2,setosa\nA2,2,3,setosa\nA3,8,9,virginica\nA4,9,8,virginica\n' >"$tmp/lab.csv"
printf 'x,y\n1,2\n2,3\n8,9\n9,8\n' >"$tmp/xy.csv"
printf 'y,x\n2,1\n3,2\n9,8\n8,9\n' >"$tmp/yx.csv"
check 2 "fcm: a column of labels" $H fcm "$tmp/lab.csv" -c 2
grep_err "lab.csv:2: column 1 (id): expected a number" "fcm: the text column is named"
grep_err "leave this one out with --drop id, or give the features with --columns LIST" "fcm: the message says what to do"
# a pandas index (no name) and a trailing delimiter: the column by its number
printf ',x,y\n0,1,2\n1,2,3\n2,8,9\n3,a,8\n' >"$tmp/pd.csv"
check 2 "fcm: text in a column without a name" $H fcm "$tmp/pd.csv" -c 2
grep_err "pd.csv:5: column 2 (x): expected a number" "fcm: the column named"
printf 'x,y,\n1,2,\n2,3,\n8,9,\n' >"$tmp/trail.csv"
check 2 "fcm: a trailing delimiter" $H fcm "$tmp/trail.csv" -c 2
grep_err "leave this one out with --drop 2," "fcm: an unnamed column by its number"
check 0 "fcm: --drop the empty column" $H fcm "$tmp/trail.csv" -c 2 --drop 2
check 0 "fcm: --drop id,species" $H fcm "$tmp/lab.csv" -c 2 --drop id,species -o "$tmp/cd.csv"
check 0 "fcm: the same data without those columns" $H fcm "$tmp/xy.csv" -c 2 -o "$tmp/cx.csv"
same "$tmp/cd.csv" "$tmp/cx.csv" "fcm: --drop gives the fit of the columns kept, names included"
check 0 "fcm: --columns by number" $H fcm "$tmp/lab.csv" -c 2 --columns 1-2 -o "$tmp/cn.csv"
same "$tmp/cn.csv" "$tmp/cx.csv" "fcm: --columns 1-2"
check 0 "fcm: --columns in another order" $H fcm "$tmp/lab.csv" -c 2 --columns y,x -o "$tmp/co.csv"
check 0 "fcm: the same order in the file" $H fcm "$tmp/yx.csv" -c 2 -o "$tmp/cy.csv"
same "$tmp/co.csv" "$tmp/cy.csv" "fcm: --columns keeps the order it lists"
check 0 "fcm predict: centres of the columns kept" $H fcm predict "$tmp/cd.csv" "$tmp/lab.csv" --ignore-extra -o "$tmp/pu.csv"
check 2 "fcm: --columns names a missing column" $H fcm "$tmp/lab.csv" -c 2 --columns x,z -o "$tmp/never.csv"
grep_err "lab.csv:1: no column 'z' to keep (the header names id, x, y, species)" "fcm: missing column message"
check 2 "fcm: --drop past the last column" $H fcm "$tmp/lab.csv" -c 2 --drop 0,3,4 -o "$tmp/never.csv"
grep_err "no column 4 to leave out: the file has 4 columns, numbered from 0" "fcm: column number message"
check 2 "fcm: a column kept twice" $H fcm "$tmp/lab.csv" -c 2 --columns x,1 -o "$tmp/never.csv"
grep_err "column 1 (x) is kept twice" "fcm: kept twice message"
check 2 "fcm: nothing left" $H fcm "$tmp/xy.csv" -c 2 --drop x,y -o "$tmp/never.csv"
grep_err "every column is left out" "fcm: nothing left message"
# a headerless file whose first column is text: left out by number, the first line is data
printf 'a,1,2\nb,2,3\nc,8,9\nd,9,8\n' >"$tmp/plain_lab.csv"
check 0 "fcm: --drop 0 of a file without a header" $H fcm "$tmp/plain_lab.csv" -c 2 --drop 0 --json -o "$tmp/cp.csv"
grep -q '"points": 4' "$out" || fail "fcm: the first line of a file without a header is a point"
absent "$tmp/never.csv" "fcm: failed column choices"
# a header that names a column twice: the centres keep it, and predict reads the same file back
printf 'network,1,1,2\n1,2,3,4\n2,3,4,5\n8,8,8,8\n9,9,9,8\n' >"$tmp/dup.csv"
check 0 "fcm: a header with a name twice" $H fcm "$tmp/dup.csv" -c 2 -o "$tmp/dupc.csv"
check 0 "fcm predict: the same header back" $H fcm predict "$tmp/dupc.csv" "$tmp/dup.csv" -o "$tmp/dupu.csv"
printf '1,1,network,2\n1,2,3,4\n' >"$tmp/dup_other.csv"
check 2 "fcm predict: a name twice in another order" $H fcm predict "$tmp/dupc.csv" "$tmp/dup_other.csv" -o "$tmp/never.csv"
grep_err "the header names '1' twice" "fcm predict: ambiguous name message"
# one column with a quoted name (R's write.csv of one vector)
printf '"value"\r\n112\r\n118\r\n132\r\n129\r\n' >"$tmp/one.csv"
check 0 "fcm: one quoted column" $H fcm "$tmp/one.csv" -c 2 -o "$tmp/onec.csv"
[ "$(head -1 "$tmp/onec.csv")" = value ] || fail "fcm: the quoted name is read without its quotes"
check 0 "fcm predict: one quoted column back" $H fcm predict "$tmp/onec.csv" "$tmp/one.csv" -o "$tmp/oneu.csv"
# fnn train: an id column left out, or the inputs named
{
    echo "id,x1,x2,y"
    i=0
    while [ $i -lt 40 ]; do
        echo "row$i,$((i % 7)),$((i % 5)),$(((i % 7) + 2 * (i % 5)))"
        i=$((i + 1))
    done
} >"$tmp/train_id.csv"
check 2 "fnn train: an id column" $H --quiet fnn train "$tmp/train_id.csv" --target y --epochs 2 -o "$tmp/never.fnn"
grep_err "leave this one out with --drop id, or give the inputs with --inputs LIST" "fnn train: what to do"
check 0 "fnn train: --drop id" $H --quiet fnn train "$tmp/train_id.csv" --target y --epochs 2 --drop id -o "$tmp/md.fnn"
same "$tmp/m.fnn" "$tmp/md.fnn" "fnn train: --drop id gives the model of the file without it"
check 0 "fnn train: --inputs" $H --quiet fnn train "$tmp/train_id.csv" --target 3 --epochs 2 --inputs x1,x2 -o "$tmp/mi.fnn"
same "$tmp/m.fnn" "$tmp/mi.fnn" "fnn train: --inputs x1,x2 with the target by number"
check 1 "fnn train: --drop the target" $H fnn train "$tmp/train_id.csv" --target y --drop id,y -o "$tmp/never.fnn"
check 1 "fnn train: --inputs lists the target" $H fnn train "$tmp/train_id.csv" --target y --inputs x1,y -o "$tmp/never.fnn"
absent "$tmp/never.fnn" "fnn train: failed column choices"

# a decimal comma (a semicolon-separated file from Excel in much of Europe) is named as such
printf 'a;b\n1,5;2,0\n3,1;4,2\n' >"$tmp/eu.csv"
check 2 "fcm: decimal commas" $H fcm "$tmp/eu.csv" -c 2
grep_err "a decimal comma? Numbers are read with a decimal point" "fcm: the decimal comma's hint"

# --init FILE: start centres with a header are matched to the data's columns by name
printf 'x,y\n2,3\n9,8\n' >"$tmp/st.csv"
printf 'y,x\n3,2\n8,9\n' >"$tmp/st_swapped.csv"
printf 'x,z\n2,3\n9,8\n' >"$tmp/st_bad.csv"
check 0 "fcm --init: centres with a header" $H fcm "$tmp/xy.csv" -c 2 --init "$tmp/st.csv" -o "$tmp/si1.csv"
check 0 "fcm --init: the header in another order" $H fcm "$tmp/xy.csv" -c 2 --init "$tmp/st_swapped.csv" -o "$tmp/si2.csv"
same "$tmp/si1.csv" "$tmp/si2.csv" "fcm --init: a swapped header is matched by name"
check 2 "fcm --init: a name the data lacks" $H fcm "$tmp/xy.csv" -c 2 --init "$tmp/st_bad.csv" -o "$tmp/never.csv"
grep_err "no column for the feature 'y' of the data" "fcm --init: the missing name"
absent "$tmp/never.csv" "fcm --init: a failed match"

# --- missing values: an error that says so, or rows left out with --missing skip
printf 'a,b,species\n1,2,x\n,3,x\n2,3,y\n8,NA,y\n8,9,z\n9,8,z\n' >"$tmp/na.csv"
printf 'a,b\n1,2\n2,3\n8,9\n9,8\n' >"$tmp/na_kept.csv"
check 2 "fcm: a missing value" $H fcm "$tmp/na.csv" -c 2 --drop species
grep_err 'na.csv:3: column 1 (a): expected a number, found ""' "fcm: the missing value's place"
grep_err "leave the rows that have one out with --missing skip" "fcm: the missing value's hint"
check 1 "fcm: --missing odd" $H fcm "$tmp/na.csv" -c 2 --missing odd
check 0 "fcm: --missing skip" $H fcm "$tmp/na.csv" -c 2 --drop species --missing skip -o "$tmp/nac.csv" --memberships "$tmp/nau.csv" --labels "$tmp/nal.csv"
grep_err "2 of 6 rows have a missing value and are left out (the first: data row 2)" "fcm: rows left out told"
check 0 "fcm: the rows without missing values" $H fcm "$tmp/na_kept.csv" -c 2 -o "$tmp/nak.csv" --memberships "$tmp/naku.csv"
same "$tmp/nac.csv" "$tmp/nak.csv" "fcm --missing skip: the fit of the rows kept"
[ "$(sed -n 2p "$tmp/nau.csv")" = "nan,nan" ] || fail "fcm --missing skip: NaN memberships in a row left out"
[ "$(sed -n 3p "$tmp/nau.csv")" = "$(sed -n 2p "$tmp/naku.csv")" ] || fail "fcm --missing skip: memberships in the file's rows"
[ "$(sed -n 3p "$tmp/nal.csv")" = "-1" ] || fail "fcm --missing skip: label -1 for a row left out"
check 0 "fcm predict --missing skip" $H fcm predict "$tmp/nac.csv" "$tmp/na.csv" --ignore-extra --missing skip -o "$tmp/nap.csv"
[ "$(sed -n 4p "$tmp/nap.csv")" = "nan,nan" ] || fail "fcm predict --missing skip: NaN memberships"
[ "$(wc -l <"$tmp/nap.csv")" = 6 ] || fail "fcm predict --missing skip: every row"
printf 'x1,x2,y\n1,2,3\n2,,5\n3,3,6\n4,1,NA\n5,5,10\n6,1,7\n7,2,9\n' >"$tmp/nat.csv"
printf 'x1,x2,y\n1,2,3\n3,3,6\n5,5,10\n6,1,7\n7,2,9\n' >"$tmp/natk.csv"
check 0 "fnn train --missing skip" $H --quiet fnn train "$tmp/nat.csv" --target y --epochs 2 --missing skip -o "$tmp/na1.fnn"
check 0 "fnn train: the rows without missing values" $H --quiet fnn train "$tmp/natk.csv" --target y --epochs 2 -o "$tmp/na2.fnn"
same "$tmp/na1.fnn" "$tmp/na2.fnn" "fnn train --missing skip: the model of the rows kept"
check 0 "fnn predict --missing skip" $H fnn predict "$tmp/na1.fnn" "$tmp/nat.csv" --missing skip -o "$tmp/nap1.csv"
grep_err "1 of 7 rows have a missing input (the first: data row 2): not predicted" "fnn predict: rows not predicted told"
grep_err "RMSE .* over 5 rows" "fnn predict: scored on the rows with an input and a target"
[ "$(sed -n 3p "$tmp/nap1.csv")" = nan ] || fail "fnn predict --missing skip: nan for a row not predicted"
[ "$(wc -l <"$tmp/nap1.csv")" = 8 ] || fail "fnn predict --missing skip: every row"
check 0 "fnn predict: the rows kept" $H fnn predict "$tmp/na1.fnn" "$tmp/natk.csv" -o "$tmp/nap2.csv"
[ "$(sed -n 2p "$tmp/nap1.csv")" = "$(sed -n 2p "$tmp/nap2.csv")" ] || fail "fnn predict --missing skip: the same prediction for a row kept"

[ "$fails" = 0 ] && echo "all column-matching CLI checks passed" && exit 0
echo "$fails column-matching CLI checks failed"
exit 1
