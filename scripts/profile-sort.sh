#!/bin/sh
# scripts/profile-sort.sh - the DRAM bytes that each GPU sort-by-key method
# really moves, read by Nsight Compute (dram__bytes_read/write summed over
# every kernel of one sort of 2^LG single-precision fuzzy numbers), next to
# the bytes the library counts for it and its DRAM-segment model of them
# (docs/fuzzy.md, "Sort-by-key").
#
# usage: scripts/profile-sort.sh [BUILD_DIR] [LG] [RAW_DIR]
#        (default build-gpu, 24; RAW_DIR keeps Nsight Compute's CSV of each run)
set -eu
build=${1:-build-gpu}
lg=${2:-24}
raw=${3:-}
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
bench="$build/bench/bench_fuzzy_sort"
[ -x "$ncu" ] || { echo "profile-sort: Nsight Compute (ncu) not found" >&2; exit 2; }
[ -x "$bench" ] || { echo "profile-sort: $bench not built" >&2; exit 2; }
printf '%-14s %8s %8s | %10s %10s %10s\n' number counted model dram_read dram_write dram_total
# encoding (0 lu, 1 mr), N, method (1 gather, 2 records)
for c in "0 1 2" "0 1 1" "1 2 2" "1 2 1" "0 2 2" "0 2 1" "1 3 2" "1 3 1" "1 4 1" "0 3 1" \
    "1 5 1" "1 6 1" "0 4 1" "0 8 1" "0 16 1"; do
    set -- $c
    per=$(( $1 == 0 ? 8 * $2 : 4 * ($2 + 1) ))
    m=$( [ "$3" = 2 ] && echo r || echo g )
    name=$( [ "$1" = 0 ] && echo lu || echo mr )
    out=$("$ncu" --csv --page raw --print-units base \
        --metrics dram__bytes_read.sum,dram__bytes_write.sum \
        "$bench" --one "$1" "$2" "$lg" "$3" 2>&1 || true)
    [ -z "$raw" ] || printf '%s\n' "$out" >"$raw/$name-$2-$m.csv"
    counted=$(printf '%s\n' "$out" | sed -n 's/.* elements\/s, \([0-9.]*\) bytes per element.*/\1/p')
    model=$(printf '%s\n' "$out" | sed -n 's/.*counted (\([0-9.]*\) as DRAM segments.*/\1/p')
    # raw page, base units (bytes): a header row naming the metrics, a units
    # row, one row per kernel
    printf '%s\n' "$out" | awk -F'","' -v n="$((1 << lg))" -v name="$name N=$2 ${per}B $m" \
        -v counted="$counted" -v model="$model" '
        /^"ID"/ { for (i = 1; i <= NF; i++) { if ($i ~ /dram__bytes_read.sum/) r = i;
                                              if ($i ~ /dram__bytes_write.sum/) w = i } next }
        r && /^"[0-9]/ { gsub(/[",]/, "", $r); gsub(/[",]/, "", $w); rd += $r; wr += $w; k++ }
        END { printf "%-14s %8s %8s | %10.1f %10.1f %10.1f   (%d kernels, per element)\n", name,
                     counted, model, rd / n, wr / n, (rd + wr) / n, k }'
done
