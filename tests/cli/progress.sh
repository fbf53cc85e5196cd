#!/bin/sh
# tests/cli/progress.sh HAZE DATADIR - the progress line of long jobs
# (cli/progress.c): nothing when stderr is not a terminal (outputs and
# messages the same with and without it), and on a pseudo-terminal one line
# on stderr, redrawn with '\r' and cleared at the end, for fcm, fnn train,
# edge, fis eval and prec; nothing with --quiet or before the delay.
# HAZE_PROGRESS_DELAY=0 shows the line from the start, so that the jobs can
# stay short. DATADIR: the repository's data/.
set -u
haze=$1
data=$2
. "$(dirname "$0")/lib.sh"
scratch
H="$haze --backend cpu"

# the jobs, each writing its results to $tmp/r.* (stdout to $tmp/r.out)
awk 'BEGIN { srand(7); print "service,food";
             for (i = 0; i < 150000; i++) printf "%.4f,%.4f\n", 10 * rand(), 10 * rand() }' \
    >"$tmp/rows.csv"
cp "$data/edge_camera.png" "$tmp/a.png"
cp "$data/edge_camera.png" "$tmp/b.png"
job() { # job NAME: prints the command line of job NAME
    case $1 in
    fcm) echo "$H fcm $data/iris.csv -c 3 --seed 1 --tol 0 --max-iter 300 -o $tmp/r.csv" ;;
    fnn) echo "$H fnn train $data/letter-demo.csv --target lettr --classes --epochs 2 -o $tmp/r.fnn" ;;
    edge) echo "$H edge $tmp/a.png $tmp/b.png -o $tmp/r.d/" ;;
    fis) echo "$H fis eval $data/tipper.fis $tmp/rows.csv -o $tmp/r.csv" ;;
    prec) echo "$H prec $data/prec_fixed_point.g --engine ia" ;;
    esac
}
prefix() { # the progress line's start for job NAME (a grep pattern)
    case $1 in
    fcm) echo "fcm: \(seeding\|starting\|iteration\)" ;;
    fnn) echo "fnn: epoch" ;;
    fis) echo "fis eval: " ;;
    *) echo "$1: " ;;
    esac
}
results() { # the results of the last job, as one text
    # the summaries' times (fcm, prec) vary from run to run
    [ -e "$tmp/r.out" ] && sed 's/[0-9.]* s$/T s/' "$tmp/r.out"
    for f in "$tmp/r.csv" "$tmp/r.fnn" "$tmp/r.d/a.png" "$tmp/r.d/b.png"; do
        [ -e "$f" ] && od -c "$f"
    done
    rm -rf "$tmp/r.out" "$tmp/r.csv" "$tmp/r.fnn" "$tmp/r.d"
}

# Runs a command line with stderr on a pseudo-terminal and stdout in
# $tmp/r.out; what the terminal showed lands in $tmp/tty.
if command -v script >/dev/null 2>&1; then
    on_tty() { script -qec "$1 >$tmp/r.out" /dev/null </dev/null >"$tmp/tty" 2>&1; }
elif command -v python3 >/dev/null 2>&1; then
    on_tty() {
        python3 -c 'import os, pty, sys
with open(sys.argv[2], "wb") as f:
    def rd(fd):
        b = os.read(fd, 4096); f.write(b); return b
    st = pty.spawn(["sh", "-c", sys.argv[1]], rd)
sys.exit(os.waitstatus_to_exitcode(st))' "$1 >$tmp/r.out" "$tmp/tty" </dev/null
    }
else
    echo "skipped: neither script (util-linux) nor python3 to make a pseudo-terminal"
    exit 0
fi

for j in fcm fnn edge fis prec; do
    cmd=$(job $j)
    p=$(prefix $j)
    # not a terminal: the same results and messages with the line asked for
    # from the start, and no '\r' anywhere
    # shellcheck disable=SC2086
    $cmd >"$tmp/r.out" 2>"$tmp/e1"
    rc1=$?
    results >"$tmp/res1"
    # shellcheck disable=SC2086
    HAZE_PROGRESS_DELAY=0 $cmd >"$tmp/r.out" 2>"$tmp/e2"
    rc2=$?
    results >"$tmp/res2"
    [ "$rc1" = 0 ] && [ "$rc2" = 0 ] || fail "$j: exit $rc1 / $rc2"
    cmp -s "$tmp/res1" "$tmp/res2" || fail "$j: results differ with HAZE_PROGRESS_DELAY=0"
    sed 's/[0-9.]* s\b//g; s/[0-9.]* samples\/s//g' "$tmp/e1" >"$tmp/e1n"
    sed 's/[0-9.]* s\b//g; s/[0-9.]* samples\/s//g' "$tmp/e2" >"$tmp/e2n"
    cmp -s "$tmp/e1n" "$tmp/e2n" || fail "$j: stderr differs when it is not a terminal"
    if tr '\r' '\001' <"$tmp/e2" | grep -q "$(printf '\001')"; then fail "$j: '\\r' on stderr, not a terminal"; fi

    # a terminal: the line, redrawn in place, and the same results
    HAZE_PROGRESS_DELAY=0 on_tty "$cmd" || fail "$j on a terminal: exit $?"
    results >"$tmp/res3"
    cmp -s "$tmp/res1" "$tmp/res3" || fail "$j on a terminal: results differ"
    tr '\r' '\n' <"$tmp/tty" >"$tmp/lines"
    if grep -q "^$p" "$tmp/lines"; then echo "ok: $j: progress line"; else
        fail "$j on a terminal: no line starting '$p'"; od -c "$tmp/tty" | head -20; fi
    # cleared: the last progress text on the screen is overwritten with blanks
    # and followed by no other redraw
    last=$(grep -n "^$p" "$tmp/lines" | tail -1 | cut -d: -f1)
    if [ -n "$last" ]; then
        next=$(sed -n "$((last + 1))p" "$tmp/lines")
        case $next in
        *[!\ ]* | "") fail "$j on a terminal: the line is not cleared ('$next')" ;;
        esac
    fi
    # --quiet, or a delay longer than the job: nothing
    HAZE_PROGRESS_DELAY=0 on_tty "$haze --quiet ${cmd#$haze }" || fail "$j --quiet: exit $?"
    results >/dev/null
    if grep -q "$p" "$tmp/tty" || tr '\r' '\001' <"$tmp/tty" | grep -q "$(printf '\001')."; then
        fail "$j --quiet: progress shown"; fi
    HAZE_PROGRESS_DELAY=100000 on_tty "$cmd" || fail "$j, long delay: exit $?"
    results >/dev/null
    if tr '\r' '\n' <"$tmp/tty" | grep -q "^$p"; then fail "$j, long delay: progress shown"; fi
done

# the line says where the job is
HAZE_PROGRESS_DELAY=0 on_tty "$(job edge)"
results >/dev/null
tr '\r' '\n' <"$tmp/tty" | grep -q "^edge: reading frame 1/2" || fail "edge: no 'reading frame 1/2'"
HAZE_PROGRESS_DELAY=0 on_tty "$(job fnn)"
results >/dev/null
tr '\r' '\n' <"$tmp/tty" | grep -q "^fnn: epoch 1/2" || fail "fnn: no 'epoch 1/2'"
HAZE_PROGRESS_DELAY=0 on_tty "$(job prec)"
results >/dev/null
tr '\r' '\n' <"$tmp/tty" | grep -q "^prec: \(box\|analysing\)" || fail "prec: no 'box' or 'analysing'"

[ "$fails" = 0 ] && echo "all progress checks passed"
[ "$fails" = 0 ]
