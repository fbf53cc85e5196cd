#!/bin/sh
# scripts/profile-fcm.sh - Nsight Compute on the fuzzy c-means iteration
# kernel at 10^7 points x 32 features x 16 clusters (float32): one steady
# iteration with the default stopping rule and one with the objective's.
# Prints per launch the time, the warp instructions per point, issue
# activity, occupancy, DRAM throughput and the top warp stall reasons.
#
# usage: scripts/profile-fcm.sh [BENCH] [KERNEL_REGEX] [REPORT_DIR]
#        (default build-gpu/bench/bench_fcm, shape_kernel; REPORT_DIR keeps
#        the text of Nsight Compute's details page and a SASS-level listing)
#        BENCH_FCM_NO_SHAPE=1 scripts/profile-fcm.sh BENCH fast_kernel profiles the
#        fast kernel on the same iterations (the bench sets the switch of
#        dev/fcm_dev.h on its GPU context; BENCH_FCM_KEEP_EIGHTHS and
#        BENCH_FCM_NO_PIPELINE pass through the same way)
set -eu
bench=${1:-build-gpu/bench/bench_fcm}
kern=${2:-shape_kernel}
dir=${3:-}
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
[ -x "$ncu" ] || { echo "profile-fcm: Nsight Compute (ncu) not found" >&2; exit 2; }
[ -x "$bench" ] || { echo "profile-fcm: $bench not built" >&2; exit 2; }
rep=${TMPDIR:-/tmp}/profile-fcm.$$
# The bench's first row ("large", default rule) runs iterations 1..6, the
# second ("large obj") 1..6 again: the 3rd kernel launch of each is steady.
BENCH_FCM_ONLY="large" BENCH_FCM_GPU_ONLY=1 "$ncu" --set full --import-source no \
    -k "regex:$kern" --launch-skip 2 --launch-count 6 -o "$rep" "$bench" >/dev/null 2>&1 || true
[ -f "$rep.ncu-rep" ] || { echo "profile-fcm: no report" >&2; exit 1; }
"$ncu" --import "$rep.ncu-rep" --csv --page raw --print-units base --metrics \
gpu__time_duration.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,\
sm__warps_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum,dram__bytes_write.sum,\
launch__registers_per_thread,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,\
smsp__average_warp_latency_issue_stalled_barrier,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,\
smsp__pcsamp_warps_issue_stalled_long_scoreboard,smsp__pcsamp_warps_issue_stalled_short_scoreboard,\
smsp__pcsamp_warps_issue_stalled_wait,smsp__pcsamp_warps_issue_stalled_math_pipe_throttle,\
smsp__pcsamp_warps_issue_stalled_mio_throttle,smsp__pcsamp_warps_issue_stalled_lg_throttle,\
smsp__pcsamp_warps_issue_stalled_not_selected,smsp__pcsamp_warps_issue_stalled_selected,\
smsp__pcsamp_warps_issue_stalled_barrier,smsp__pcsamp_warps_issue_stalled_dispatch_stall,\
smsp__pcsamp_warps_issue_stalled_no_instructions,smsp__pcsamp_warps_issue_stalled_imc_miss \
    >"$rep.csv"
awk -F'","' -v n=10000000 '
    NR == 1 { for (i = 1; i <= NF; i++) h[i] = $i; next }
    /^"[0-9]/ {
        for (i = 1; i <= NF; i++) { gsub(/[",]/, "", $i); v[h[i]] = $i }
        printf "launch %s: %.1f us, %.1f warp instr/point, issue %.0f%%, warps %.0f%%, regs %s, " \
               "DRAM %.1f+%.1f B/point (%.0f GB/s), smem wavefronts %.1f/point\n",
               $1, v["gpu__time_duration.sum"] / 1e3, v["smsp__inst_executed.sum"] / n,
               v["smsp__issue_active.avg.pct_of_peak_sustained_active"],
               v["sm__warps_active.avg.pct_of_peak_sustained_active"],
               v["launch__registers_per_thread"], v["dram__bytes_read.sum"] / n,
               v["dram__bytes_write.sum"] / n,
               (v["dram__bytes_read.sum"] + v["dram__bytes_write.sum"]) / v["gpu__time_duration.sum"],
               v["l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"] / n
        tot = 0
        for (k in v) if (k ~ /pcsamp_warps_issue_stalled/) tot += v[k]
        printf "   stall samples:"
        for (k in v) if (k ~ /pcsamp_warps_issue_stalled/ && v[k] > 0.03 * tot) {
            s = k; sub(/smsp__pcsamp_warps_issue_stalled_/, "", s)
            printf " %s %.0f%%", s, 100 * v[k] / tot
        }
        printf "\n"
    }' "$rep.csv"
if [ -n "$dir" ]; then
    mkdir -p "$dir"
    "$ncu" --import "$rep.ncu-rep" --page details >"$dir/ncu-details.txt" 2>&1 || true
    "$ncu" --import "$rep.ncu-rep" --page source --print-source sass --csv --launch-count 1 \
        >"$dir/ncu-sass.csv" 2>&1 || true
fi
rm -f "$rep.ncu-rep" "$rep.csv"
