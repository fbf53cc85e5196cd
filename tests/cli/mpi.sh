#!/bin/sh
# tests/cli/mpi.sh HAZE WITH_MPI MPIRUN DATADIR - `mpirun -np R haze fcm` for R = 1, 2
# and 3 against the plain run: the same outputs byte for byte (centres,
# memberships, labels, norms, the JSON summary but its timings), from a .npy
# file (each rank reads its rows) and from CSV (rank 0 reads and sends);
# a failure on one rank makes every rank exit with one code and one message.
# Exit 77 (skipped) without mpirun or for a haze built without MPI
# (WITH_MPI: ON when it was).
set -u
haze=$1
with_mpi=$2
mpirun=$3
data=$4
. "$(dirname "$0")/lib.sh"
if [ "$with_mpi" != ON ]; then
    echo "skip: haze was built without MPI (HAZE_MPI)"
    exit 77
fi
if [ -z "$mpirun" ] || ! command -v "$mpirun" >/dev/null 2>&1; then
    echo "skip: no mpirun"
    exit 77
fi
# Open MPI refuses root unless told (CI containers run as root), and may not
# use cross-memory attach in a container.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1
scratch
H="$haze --backend cpu --quiet"
run() { # run R ARGS...: haze under mpirun with R processes (more than the cores)
    r=$1; shift
    # In a sanitizer build, Open MPI's own allocations (its plugins are
    # unloaded before LeakSanitizer looks) are not haze's leaks.
    ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0" \
        "$mpirun" --oversubscribe -np "$r" $H "$@"
}

# 5000 points in three blobs (5 tiles of 1024 rows: parts of 1 to 3 tiles),
# made with a Park-Miller generator (exact in awk's doubles)
awk 'BEGIN { s = 7; print "a,b,c"
    for (i = 0; i < 5000; i++) { line = ""
        for (k = 0; k < 3; k++) { s = (s * 16807) % 2147483647
            line = line (k ? "," : "") sprintf("%.6f", (i % 3) * 4 + k + s / 2147483647) }
        print line } }' >"$tmp/big.csv"
# a float64 .npy of 5000 x 3: the memberships of a plain fit of it
check 0 "make a .npy" $H fcm "$tmp/big.csv" -c 3 --max-iter 3 --memberships "$tmp/big.npy" -o "$tmp/v0.csv"

same() { # same DESCRIPTION R ARGS...: outputs of R processes equal the plain run's
    what=$1; r=$2; shift 2
    rm -f "$tmp"/p_* "$tmp"/m_*
    $H fcm "$@" -o "$tmp/p_c.csv" --memberships "$tmp/p_u.csv" --labels "$tmp/p_l.csv" --json \
        >"$tmp/p_json" 2>"$err" || { fail "$what: the plain run failed"; cat "$err"; return; }
    check 0 "$what, $r processes" run "$r" fcm "$@" -o "$tmp/m_c.csv" --memberships "$tmp/m_u.csv" \
        --labels "$tmp/m_l.csv" --json
    cp "$out" "$tmp/m_json"
    for f in c.csv u.csv l.csv; do
        cmp -s "$tmp/p_$f" "$tmp/m_$f" || fail "$what, $r processes: $f differs from the plain run"
    done
    grep -v '"seconds"\|"timings"\|"fit_timings"' "$tmp/p_json" >"$tmp/p_j"
    grep -v '"seconds"\|"timings"\|"fit_timings"' "$tmp/m_json" >"$tmp/m_j"
    cmp -s "$tmp/p_j" "$tmp/m_j" || { fail "$what, $r processes: JSON summary differs"; diff "$tmp/p_j" "$tmp/m_j"; }
}

for r in 1 2 3; do
    same "npy, kmeans++" "$r" "$tmp/big.npy" -c 3 --seed 5
    same "csv, kmeans++" "$r" "$tmp/big.csv" -c 4 --seed 2 --tol 1e-9
    same "csv, random start, objective rule" "$r" "$tmp/big.csv" -c 3 --init random --stop objective
    same "csv, centres from a file" "$r" "$tmp/big.csv" -c 3 --init "$tmp/v0.csv"
    same "npy, memberships from a file, single" "$r" "$tmp/big.npy" -c 3 --init "$tmp/big.npy" --precision single
    same "npy, gk" "$r" "$tmp/big.npy" -c 2 --metric gk --max-iter 20
    same "iris (one tile: empty ranks)" "$r" "$data/iris.csv" -c 3 --seed 1
done
# Ranks that each run several parts of the fit (HAZE_FCM_PARTS_PER_PROCESS:
# on the CPU, the layout --gpus gives a rank with several GPUs): the same
# outputs (a bad count: below)
for k in 2 3; do
    for r in 1 2 3; do
        export HAZE_FCM_PARTS_PER_PROCESS=$k
        same "npy, $k parts a process" "$r" "$tmp/big.npy" -c 3 --seed 5
        same "csv, memberships from a file, $k parts a process" "$r" "$tmp/big.csv" -c 3 --init "$tmp/big.npy"
        same "npy, gk, $k parts a process" "$r" "$tmp/big.npy" -c 2 --metric gk --max-iter 10
        unset HAZE_FCM_PARTS_PER_PROCESS
    done
done

# GK norms and the text summary
$H fcm "$tmp/big.csv" -c 3 --metric gk --max-iter 10 --norms "$tmp/pn.csv" -o "$tmp/pc.csv" >"$tmp/p_txt" 2>"$err"
check 0 "gk norms, 3 processes" run 3 fcm "$tmp/big.csv" -c 3 --metric gk --max-iter 10 --norms "$tmp/mn.csv" -o "$tmp/mc.csv"
cmp -s "$tmp/pn.csv" "$tmp/mn.csv" || fail "gk norms differ"
cmp -s "$tmp/pc.csv" "$tmp/mc.csv" || fail "gk centres differ"
grep -v ' s$' "$tmp/p_txt" >"$tmp/p_t"
grep -v ' s$' "$out" >"$tmp/m_t"
cmp -s "$tmp/p_t" "$tmp/m_t" || { fail "text summary differs"; diff "$tmp/p_t" "$tmp/m_t"; }

# Failures: every rank exits with the same code, one message in all.
one_message() { # one_message PATTERN DESCRIPTION
    grep_err "$1" "$2"
    n=$(grep -c '^haze:' "$err")
    [ "$n" = 1 ] || { fail "$2: $n messages, want 1"; cat "$err"; }
}
check 2 "unreadable file" run 3 fcm "$tmp/none.npy" -c 3
one_message "none.npy: cannot open" "unreadable file"
check 2 "unreadable CSV" run 2 fcm "$tmp/none.csv" -c 3
one_message "none.csv: cannot open" "unreadable CSV"
# a value that is not finite in the rows of the last rank only: its read fails
size=$(wc -c <"$tmp/big.npy")
off=$((size - 8 * 3 * 5000 + 8 * (3 * 4500 + 1)))
cp "$tmp/big.npy" "$tmp/bad.npy"
printf '\000\000\000\000\000\000\370\177' | dd of="$tmp/bad.npy" bs=1 seek="$off" conv=notrunc 2>/dev/null
check 2 "a bad row in the last rank's slice" run 3 fcm "$tmp/bad.npy" -c 3
one_message "row 4501, column 2: not a finite number" "a bad row in the last rank's slice"
check 2 "too many clusters" run 2 fcm "$data/iris.csv" -c 200
one_message "200 clusters for only 150 points" "too many clusters"
check 2 "init file of another shape" run 2 fcm "$tmp/big.csv" -c 3 --init "$data/iris.csv"
one_message "is neither 3 centres" "init file of another shape"
check 1 "--plot under mpirun" run 2 fcm "$tmp/big.csv" -c 3 --plot "$tmp/p.png"
one_message "--plot is not drawn" "--plot under mpirun"
export HAZE_FCM_PARTS_PER_PROCESS=0
check 1 "HAZE_FCM_PARTS_PER_PROCESS=0" run 2 fcm "$tmp/big.npy" -c 3
one_message "HAZE_FCM_PARTS_PER_PROCESS: expected 1 to 64, got '0'" "HAZE_FCM_PARTS_PER_PROCESS=0"
export HAZE_FCM_PARTS_PER_PROCESS=2
check 2 "a bad row, two parts a process" run 3 fcm "$tmp/bad.npy" -c 3
one_message "row 4501, column 2: not a finite number" "a bad row, two parts a process"
unset HAZE_FCM_PARTS_PER_PROCESS
check 2 "an output in a missing folder" run 2 fcm "$tmp/big.csv" -c 3 -o "$tmp/no/c.csv"
grep -c '^haze:' "$err" | grep -qx 1 || { fail "missing folder: not one message"; cat "$err"; }
absent "$tmp/no" "missing folder"
[ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all mpi checks passed"
