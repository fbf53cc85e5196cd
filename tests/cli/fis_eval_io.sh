#!/bin/sh
# tests/cli/fis_eval_io.sh HAZE DATA - `haze fis eval` from CSV to CSV at
# size: a table large enough for several blocks of output text on several
# threads gives the same bytes on one thread and on three, the same bytes
# as printf's "%.17g" of each value (awk reads each back and prints it
# again), the same bytes for its first rows alone and with HAZE_SYNC=1;
# --json says how many rows and where the time went, on stdout with -o and
# on stderr when the results go to stdout.
set -u
haze=$1
data=$2
. "$(dirname "$0")/lib.sh"
scratch
tip=$data/fis/tipper.fis
# 150,000 rows of service,food in [0, 10], 3 decimals; columns in the
# model's order (read in place) and swapped (copied)
awk 'BEGIN { print "service,food"; x = 7; for (i = 0; i < 150000; i++) {
    x = (x * 1103515245 + 12345) % 2147483648; a = (x % 10001) / 1000
    x = (x * 1103515245 + 12345) % 2147483648; b = (x % 10001) / 1000
    printf "%.3f,%.3f\n", a, b } }' > "$tmp/in.csv"
awk -F, 'NR == 1 { print "food,service"; next } { print $2 "," $1 }' "$tmp/in.csv" > "$tmp/swapped.csv"
check 0 "1 thread" "$haze" --backend cpu --threads 1 fis eval "$tip" "$tmp/in.csv" -o "$tmp/t1.csv"
check 0 "3 threads" "$haze" --backend cpu --threads 3 fis eval "$tip" "$tmp/in.csv" -o "$tmp/t3.csv"
cmp -s "$tmp/t1.csv" "$tmp/t3.csv" || fail "1 and 3 threads write different bytes"
[ "$(wc -l < "$tmp/t3.csv")" -eq 150001 ] || fail "not 150,000 rows and a header"
check 0 "columns swapped" "$haze" --backend cpu --threads 3 fis eval "$tip" "$tmp/swapped.csv" -o "$tmp/sw.csv"
cmp -s "$tmp/t1.csv" "$tmp/sw.csv" || fail "swapped columns give other outputs"
head -n 1001 "$tmp/in.csv" > "$tmp/in1000.csv"
check 0 "the first 1000 rows" "$haze" --backend cpu fis eval "$tip" "$tmp/in1000.csv" -o "$tmp/h.csv"
head -n 1001 "$tmp/t3.csv" | cmp -s - "$tmp/h.csv" || fail "the first 1000 rows alone differ"
awk 'NR > 1 { printf "%.17g\n", $1 + 0 }' "$tmp/t3.csv" > "$tmp/awk.txt"
tail -n +2 "$tmp/t3.csv" | cmp -s - "$tmp/awk.txt" || fail "values are not printf's %.17g"
check 0 "HAZE_SYNC=1" env HAZE_SYNC=1 "$haze" --backend cpu --threads 3 fis eval "$tip" "$tmp/in.csv" -o "$tmp/sync.csv"
cmp -s "$tmp/t1.csv" "$tmp/sync.csv" || fail "HAZE_SYNC=1 writes other bytes"
ls -a "$tmp" | grep -q '^\.haze-' && fail "a temporary file was left"
# in blocks of a few kilobytes of text (HAZE_BLOCK_BYTES; 64 MiB without):
# the same bytes; a bad value in a late block is named by its line, exit 2,
# and leaves no output (nor a temporary file), an older one untouched
check 0 "blocks of 4000 bytes" env HAZE_BLOCK_BYTES=4000 "$haze" --backend cpu --threads 3 fis eval "$tip" "$tmp/in.csv" -o "$tmp/b.csv"
cmp -s "$tmp/t1.csv" "$tmp/b.csv" || fail "blocks of 4000 bytes write other bytes"
check 0 "blocks of 4000 bytes, one thread" env HAZE_BLOCK_BYTES=4000 "$haze" --backend cpu --threads 1 fis eval "$tip" "$tmp/in.csv" -o "$tmp/b1.csv"
cmp -s "$tmp/t1.csv" "$tmp/b1.csv" || fail "blocks of 4000 bytes on one thread (the stages in turn) write other bytes"
check 0 "blocks of 7 bytes" env HAZE_BLOCK_BYTES=7 "$haze" --backend cpu fis eval "$tip" "$tmp/in1000.csv" -o "$tmp/b7.csv"
cmp -s "$tmp/h.csv" "$tmp/b7.csv" || fail "blocks of 7 bytes write other bytes"
awk 'NR == 140001 { print "1.5,x"; next } { print }' "$tmp/in.csv" > "$tmp/late.csv"
echo "older" > "$tmp/late_out.csv"
check 2 "a bad value in a late block" env HAZE_BLOCK_BYTES=4000 "$haze" --backend cpu fis eval "$tip" "$tmp/late.csv" -o "$tmp/late_out.csv"
grep_err 'late.csv:140001: column 2 (food): expected a number' "the late block's line"
[ "$(cat "$tmp/late_out.csv")" = older ] || fail "a failed job changed the older output"
# reading and writing on contexts of their own (as with a GPU): the same
# bytes, the same message
check 0 "reading and writing threads 2,1" env HAZE_PIPELINE_THREADS=2,1 HAZE_BLOCK_BYTES=4000 "$haze" --backend cpu --threads 3 fis eval "$tip" "$tmp/in.csv" -o "$tmp/p21.csv"
cmp -s "$tmp/t1.csv" "$tmp/p21.csv" || fail "reading and writing threads 2,1 write other bytes"
check 2 "a late bad value, threads 2,1" env HAZE_PIPELINE_THREADS=2,1 HAZE_BLOCK_BYTES=4000 "$haze" --backend cpu fis eval "$tip" "$tmp/late.csv" -o "$tmp/late_out.csv"
grep_err 'late.csv:140001: column 2 (food): expected a number' "the late block's line, threads 2,1"
[ "$(cat "$tmp/late_out.csv")" = older ] || fail "a failed job changed the older output (threads 2,1)"
check 2 "the same at once" "$haze" --backend cpu fis eval "$tip" "$tmp/late.csv" -o "$tmp/late2.csv"
grep_err 'late.csv:140001: column 2 (food): expected a number' "the line, read at once"
absent "$tmp/late2.csv" "a failed job's output"
ls -a "$tmp" | grep -q '^\.haze-' && fail "a temporary file was left after a failure"
# text in two inputs' columns: the first such line of the file is named,
# read whole (a .npy output) or in blocks
awk -F, 'NR == 5 { print $1 ",y"; next } NR == 900 { print "x," $2; next } { print }' "$tmp/in1000.csv" > "$tmp/text2.csv"
for bb in 0 4000; do
    check 2 "text in two columns, blocks of $bb bytes" env HAZE_BLOCK_BYTES=$bb "$haze" --backend cpu fis eval "$tip" "$tmp/text2.csv" -o "$tmp/text2.out.csv"
    grep_err 'text2.csv:5: column 2 (food): expected a number' "the first text line (blocks of $bb)"
done
check 2 "text in two columns, read whole" "$haze" --backend cpu fis eval "$tip" "$tmp/text2.csv" -o "$tmp/text2.npy"
grep_err 'text2.csv:5: column 2 (food): expected a number' "the first text line, read whole"
# a full device (where there is one): the write's own reason, from the
# thread that wrote, at once and in blocks (not a stale errno of another
# thread, such as isatty's "Inappropriate ioctl for device")
if [ -w /dev/full ]; then
    for bb in 0 4000; do
        check 3 "-o /dev/full, blocks of $bb bytes" env HAZE_BLOCK_BYTES=$bb "$haze" --backend cpu fis eval "$tip" "$tmp/in.csv" -o /dev/full
        grep_err '/dev/full: cannot write output: No space left on device' "a full device's reason (blocks of $bb)"
    done
fi
# a file that cannot grow past 64 blocks (ulimit -f; SIGXFSZ ignored, so
# write(2) fails with EFBIG): the writer's failure, on its own thread while
# later blocks are read and evaluated, is the one told, and no file is left
for bb in 0 4000; do
    rm -f "$tmp/big.csv"
    pt=1,2 # in blocks: the writer on a context of its own, on a thread of its own
    th=2
    [ $bb = 0 ] && pt=default th=1 # one block, written on this thread
    check 3 "a file size limit, blocks of $bb bytes" sh -c 'trap "" XFSZ; ulimit -f 64; exec "$@"' sh \
        env HAZE_BLOCK_BYTES=$bb HAZE_PIPELINE_THREADS=$pt "$haze" --backend cpu --threads $th fis eval "$tip" "$tmp/in.csv" -o "$tmp/big.csv"
    grep_err 'big.csv: cannot write output: File too large' "the writer's reason (blocks of $bb)"
    [ -e "$tmp/big.csv" ] && fail "a failed write left the output (blocks of $bb)"
    ls -a "$tmp" | grep -q '^\.haze-' && fail "a failed write left a temporary file (blocks of $bb)"
done
# lines that end in a carriage return alone (old Mac OS files, such as
# seaborn-data's exercise.csv) are named as such, at once and in blocks;
# CRLF line ends read as LF
printf 'service,food\r1,2\r3,4\r' > "$tmp/mac.csv"
for bb in 0 5; do
    check 2 "old Mac OS line ends, blocks of $bb bytes" env HAZE_BLOCK_BYTES=$bb "$haze" --backend cpu fis eval "$tip" "$tmp/mac.csv" -o "$tmp/mac_out.csv"
    grep_err "mac.csv:1:13: a line that ends in a carriage return alone" "a lone CR named (blocks of $bb)"
done
printf 'service,food\r\n1,2\r\n3,4\r\n' > "$tmp/crlf.csv"
check 0 "CRLF line ends" "$haze" --backend cpu fis eval "$tip" "$tmp/crlf.csv" -o "$tmp/crlf_out.csv"
[ "$(wc -l < "$tmp/crlf_out.csv")" -eq 3 ] || fail "CRLF line ends: not two rows and a header"
# results on standard output are not streamed: a late error leaves stdout empty
check 2 "a late error, results on stdout" env HAZE_BLOCK_BYTES=4000 "$haze" --backend cpu fis eval "$tip" "$tmp/late.csv"
[ -s "$out" ] && fail "a late error left rows on standard output"
# --json: the summary on stdout beside -o, on stderr beside results on stdout
check 0 "--json with -o" "$haze" --backend cpu fis eval "$tip" "$tmp/in1000.csv" -o "$tmp/j.csv" --json
grep_out '"rows": 1000,' "--json"
grep_out '"timings": {"start": [0-9.]*, "read": [0-9.]*, "eval": [0-9.]*, "write": [0-9.]*}' "--json timings"
grep_out '"cpu_timings": {"start": ' "--json cpu_timings"
grep_out '"busy": {"eval": [0-9.]*, "write": [0-9.]*}' "--json busy"
cmp -s "$tmp/j.csv" "$tmp/h.csv" || fail "--json changed the results"
check 0 "--json, results on stdout" "$haze" --backend cpu fis eval "$tip" "$tmp/in1000.csv" --json
cmp -s "$out" "$tmp/h.csv" || fail "--json: stdout holds more than the results"
grep_err '"rows": 1000,' "--json on stderr"
check 1 "--json is for eval" "$haze" fis info "$tip" --json
[ "$fails" = 0 ] && echo "all CLI checks passed" && exit 0
echo "$fails CLI checks failed"
exit 1
