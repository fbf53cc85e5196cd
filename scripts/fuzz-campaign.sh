#!/bin/bash
# scripts/fuzz-campaign.sh [FUZZ_DIR] [WORK_DIR] - the long fuzzing run of
# docs/fuzzing.md: every target of FUZZ_DIR (default build-fuzz/fuzz, built
# with -DHAZE_FUZZ=ON) runs RUNS executions in all (default 10^7), shared by
# PROCS processes a target (default: the cores, split over the targets) that
# work on one corpus each, started from fuzz/corpus/<target>. The corpora and
# logs are kept in WORK_DIR (default /dev/shm/haze-fuzz); the targets'
# temporary files go to FUZZ_TMP (default /dev/shm, a tmpfs). Prints a table
# of executions, time, corpus, coverage and findings per target (counting
# every earlier run in WORK_DIR too, so a campaign may be done in parts);
# failing inputs are left in WORK_DIR/<target>/ as crash-*, leak-*,
# timeout-*, oom-*. Environment: RUNS, PROCS, and RUNS_<target>,
# PROCS_<target> for one target (e.g. PROCS_image=12); TARGETS ("fis prec
# ..."), MAX_LEN (4096), TIMEOUT (seconds one input may take, default 10:
# raise it on a machine busy with other work), TIME_LIMIT (seconds a process
# may run at most; 0: none).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
fz=$(cd "${1:-build-fuzz/fuzz}" && pwd)
work=${2:-/dev/shm/haze-fuzz}
runs=${RUNS:-10000000}
targets=${TARGETS:-fis prec table fnn_model image fuzzy_expr}
ntargets=$(echo "$targets" | wc -w)
procs=${PROCS:-$(( ($(nproc) + ntargets - 1) / ntargets ))}
maxlen=${MAX_LEN:-4096}
limit=${TIME_LIMIT:-0}
extra=()
[ "$limit" != 0 ] && extra=(-max_total_time="$limit")
mkdir -p "$work" && work=$(cd "$work" && pwd)
echo "fuzz campaign: $runs executions per target, $procs processes each (unless set per target), -max_len=$maxlen, $(nproc) cores"
t_start=$SECONDS
for t in $targets; do
    bin=$fz/fuzz_$t
    [ -x "$bin" ] || { echo "no $bin" >&2; exit 2; }
    d=$work/$t
    tmp=${FUZZ_TMP:-/dev/shm}/haze-fuzz-tmp/$t
    mkdir -p "$d/corpus" "$tmp"
    cp -n fuzz/corpus/fuzz_"$t"/* "$d/corpus/" 2>/dev/null
    rv=RUNS_$t pv=PROCS_$t
    np=${!pv:-$procs}
    per=$(( (${!rv:-$runs} + np - 1) / np ))
    stamp=$(date +%s)
    for p in $(seq 1 "$np"); do
        # each process runs its share; all read and grow the one corpus
        (cd "$d" && TMPDIR=$tmp exec "$bin" corpus -runs="$per" -max_len="$maxlen" -timeout="${TIMEOUT:-10}" \
            -rss_limit_mb=4096 -print_final_stats=1 -reload=30 -seed="$stamp$p" \
            "${extra[@]}" >"$d/log.$stamp.$p" 2>&1) &
    done
done
wait
secs=$((SECONDS - t_start))
printf '%-12s %12s %8s %8s %s\n' target executions corpus cov found
for t in $targets; do
    d=$work/$t
    n=0 cov=0
    for f in "$d"/log.*; do
        e=$(sed -n 's/^stat::number_of_executed_units: *//p' "$f" | tail -1)
        n=$((n + ${e:-0}))
        c=$(grep -Eo 'cov: [0-9]+' "$f" | tail -1 | grep -Eo '[0-9]+')
        [ "${c:-0}" -gt "$cov" ] && cov=$c
    done
    found=$(find "$d" -maxdepth 1 \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
    printf '%-12s %12s %8s %8s %s\n' "fuzz_$t" "$n" "$(find "$d/corpus" -type f | wc -l)" "$cov" \
        "$(if [ "$found" = 0 ]; then echo nothing; else
            find "$d" -maxdepth 1 \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) \
                -printf '%f ' | head -c 300; fi)"
done
echo "this run's wall time ${secs}s (executions: every run in $work)"
