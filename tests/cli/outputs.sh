#!/bin/sh
# tests/cli/outputs.sh HAZE SOURCE_DIR - how the tool writes its outputs: special
# files are written through, links followed, modes kept, temporaries removed
# on SIGTERM, the outputs of one command land together, a failed write to
# standard output is exit 3, JSON stays valid for any file name.
set -u
haze=$1
src=$2
data=$src/tests/data
tmp=$(mktemp -d)
fails=0
out=$tmp/out
err=$tmp/err
. "$(dirname "$0")/lib.sh"
fail() fail "$1"
mode_of() { stat -c %a "$1"; }
temps_in() { ls -A "$1" | grep -c '\.tmp' ; }
printf '1,2\n3,4\n5,6\n7,8\n9,9\n' > "$tmp/d.csv"
fcm() { "$haze" --quiet fcm "$tmp/d.csv" -c 2 --seed 1 "$@"; }

# a FIFO stays a FIFO and gets the data
mkfifo "$tmp/fifo"
cat "$tmp/fifo" > "$tmp/from_fifo" &
reader=$!
check 0 "-o FIFO" fcm -o "$tmp/fifo"
if [ "$got" = 0 ] && [ -p "$tmp/fifo" ]; then
    wait $reader # the writer closed: the reader has its end of file
    grep -q ',' "$tmp/from_fifo" || fail "-o FIFO: the reader got nothing"
else
    kill $reader # nobody opened the FIFO: the reader would wait forever
    [ -p "$tmp/fifo" ] || fail "-o FIFO replaced the FIFO"
fi
# a character device is written through, never replaced. The devices are
# made here (as root), so that a tool that replaced them would not replace
# the system's /dev/null.
if mknod "$tmp/null" c 1 3 2> /dev/null; then
    check 0 "-o a character device" fcm -o "$tmp/null"
    [ -c "$tmp/null" ] || fail "-o a character device replaced the device"
    ln -s null "$tmp/null_link"
    check 0 "-o link to a character device" fcm -o "$tmp/null_link"
    [ -L "$tmp/null_link" ] && [ -c "$tmp/null" ] || fail "-o link to a device"
    if mknod "$tmp/full" c 1 7 2> /dev/null; then
        check 3 "-o a full device" fcm -o "$tmp/full"
        grep_err "No space" "-o a full device: why"
        [ -c "$tmp/full" ] || fail "-o a full device replaced the device"
    fi
fi
# a link to a regular file: the target is rewritten, the link stays
echo old > "$tmp/real.csv"
ln -s real.csv "$tmp/link.csv"
check 0 "-o symlink" fcm -o "$tmp/link.csv"
[ -L "$tmp/link.csv" ] || fail "-o symlink replaced the link"
grep -q ',' "$tmp/real.csv" || fail "-o symlink: the target was not rewritten"
# modes: an existing file keeps its mode, a new one follows the umask
echo old > "$tmp/private.csv"
chmod 600 "$tmp/private.csv"
check 0 "-o 0600 file" fcm -o "$tmp/private.csv"
[ "$(mode_of "$tmp/private.csv")" = 600 ] || fail "0600 file became $(mode_of "$tmp/private.csv")"
chmod 640 "$tmp/private.csv"
check 0 "-o 0640 file" fcm -o "$tmp/private.csv"
[ "$(mode_of "$tmp/private.csv")" = 640 ] || fail "0640 file became $(mode_of "$tmp/private.csv")"
(umask 077 && fcm -o "$tmp/u077.csv" > "$out") || fail "umask 077 run"
[ "$(mode_of "$tmp/u077.csv")" = 600 ] || fail "umask 077 gave $(mode_of "$tmp/u077.csv")"
(umask 002 && fcm -o "$tmp/u002.csv" > "$out") || fail "umask 002 run"
[ "$(mode_of "$tmp/u002.csv")" = 664 ] || fail "umask 002 gave $(mode_of "$tmp/u002.csv")"
# a folder is not an output file
mkdir "$tmp/dir.csv"
check 2 "-o a folder" fcm -o "$tmp/dir.csv"
# a name of 250 bytes (the most a folder takes is 255)
long=$(printf '%0250d' 0)
check 0 "-o a 250-byte name" fcm -o "$tmp/$long"
[ -s "$tmp/$long" ] || fail "250-byte name not written"
[ "$(temps_in "$tmp")" = 0 ] || fail "temporaries left behind: $(ls -A "$tmp")"

# SIGTERM while the output's temporary exists: it is removed. The input is a
# FIFO nobody writes to, so fcm waits with its outputs' temporaries created.
mkdir "$tmp/sig"
mkfifo "$tmp/sig/in.csv"
echo old > "$tmp/sig/c.csv"
"$haze" --quiet fcm "$tmp/sig/in.csv" -c 2 -o "$tmp/sig/c.csv" --memberships "$tmp/sig/m.csv" &
pid=$!
n=0
while [ "$(temps_in "$tmp/sig")" -lt 2 ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
[ "$(temps_in "$tmp/sig")" = 2 ] || fail "SIGTERM: the temporaries did not appear"
kill -TERM $pid
wait $pid
rc=$?
[ "$rc" = 143 ] || fail "SIGTERM: exit $rc, want 143 (killed by the signal)"
[ "$(temps_in "$tmp/sig")" = 0 ] || fail "SIGTERM left $(ls -A "$tmp/sig")"
[ "$(cat "$tmp/sig/c.csv")" = old ] || fail "SIGTERM changed the output"
absent "$tmp/sig/m.csv" "SIGTERM"

# all outputs of a command land together or none does
echo old > "$tmp/c.csv"
check 2 "fcm with a missing folder for --memberships" fcm -o "$tmp/c.csv" --memberships "$tmp/missing/m.csv"
grep_err "missing" "missing folder named"
[ "$(cat "$tmp/c.csv")" = old ] || fail "fcm rewrote c.csv although --memberships failed"
check 2 "fcm predict with a missing folder for --labels" "$haze" fcm predict "$tmp/real.csv" "$tmp/d.csv" -o "$tmp/c.csv" --labels "$tmp/missing/l.csv"
[ "$(cat "$tmp/c.csv")" = old ] || fail "fcm predict rewrote c.csv although --labels failed"
check 2 "fcm with one file named twice" fcm -o "$tmp/c.csv" --memberships "$tmp/./c.csv"
grep_err "twice" "the same output twice"
[ "$(cat "$tmp/c.csv")" = old ] || fail "fcm wrote c.csv although it was named twice"
check 0 "fcm with three outputs" fcm -o "$tmp/c.csv" --memberships "$tmp/m.csv" --labels "$tmp/l.csv"
[ -s "$tmp/m.csv" ] && [ -s "$tmp/l.csv" ] && grep -q ',' "$tmp/c.csv" || fail "three outputs"
[ "$(temps_in "$tmp")" = 0 ] || fail "temporaries left behind: $(ls -A "$tmp")"

# a full standard output is a runtime error (exit 3) with a message
printf 'a,b,y\n0,0,0\n0,1,1\n1,0,1\n1,1,0\n0.5,0.5,0.5\n' > "$tmp/t.csv"
check 0 "fnn train (a model for fnn info)" "$haze" --quiet fnn train "$tmp/t.csv" --target y -o "$tmp/m.fnn"
if [ -c /dev/full ]; then
    for args in "info" "fcm $tmp/d.csv -c 2" "fcm $tmp/d.csv -c 2 --json" \
        "fis info $data/fis/tipper.fis" "fis eval $data/fis/tipper.fis $tmp/d.csv" \
        "fuzzy eval 1+2" "prec $src/examples/prec/fixed_point.g" "help" "--version" \
        "fcm --help" "fnn info $tmp/m.fnn"; do
        # shellcheck disable=SC2086
        "$haze" --quiet $args > /dev/full 2> "$err"
        rc=$?
        [ $rc = 3 ] || fail "'$args' > /dev/full: exit $rc, want 3"
        grep -q "standard output" "$err" || fail "'$args' > /dev/full: no message"
    done
fi

# JSON with a file name that is not UTF-8: still valid, U+FFFD in its place
bad=$(printf 'x\377y.csv')
cp "$tmp/d.csv" "$tmp/$bad"
check 0 "fcm --json, non-UTF-8 name" "$haze" fcm "$tmp/$bad" -c 2 --json
grep -q 'x\\ufffdy.csv' "$out" || fail "non-UTF-8 name not escaped: $(head -2 "$out")"
if LC_ALL=C grep -q "$(printf '\377')" "$out"; then fail "raw 0xFF byte in JSON"; fi
if command -v python3 > /dev/null; then
    python3 -c 'import json,sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$out" ||
        fail "fcm --json is not valid JSON"
fi
uname=$(printf 'caf\303\251.csv')
cp "$tmp/d.csv" "$tmp/$uname"
check 0 "fcm --json, UTF-8 name" "$haze" fcm "$tmp/$uname" -c 2 --json
grep -q "$uname" "$out" || fail "valid UTF-8 name not kept as it is"

cp "$src/examples/prec/fixed_point.g" "$tmp/$bad"
check 0 "prec --json, non-UTF-8 name" "$haze" prec --json "$tmp/$bad"
grep -q 'x\\ufffdy.csv' "$out" || fail "prec --json: non-UTF-8 name not escaped"

# results on stdout, everything else on stderr
check 0 "prec -o FILE: nothing on stdout" "$haze" prec "$src/examples/prec/fixed_point.g" -o "$tmp/p.txt"
[ -s "$out" ] && fail "prec -o FILE printed on stdout: $(cat "$out")"
grep -q "exact" "$tmp/p.txt" || fail "prec -o FILE: no result in the file"
check 0 "info: nothing on stderr" "$haze" info
[ -s "$err" ] && fail "info wrote on stderr: $(cat "$err")"
check 0 "demo" "$haze" demo
grep_out "FIRE edges" "demo's tour on stdout"
grep -q "camera.png" "$err" && fail "demo shows its temporary files: $(cat "$err")"

# edge: the extension decides the format, or the name is refused
cam=$src/data/edge_camera.png
check 0 "edge -o .jpg" "$haze" --quiet edge "$cam" -o "$tmp/e.jpg"
[ "$(head -c 2 "$tmp/e.jpg" | od -An -tx1 | tr -d ' ')" = ffd8 ] || fail "edge -o .jpg did not write JPEG"
check 0 "edge -o .ppm" "$haze" --quiet edge "$cam" -o "$tmp/e.ppm"
[ "$(head -c 2 "$tmp/e.ppm")" = P6 ] || fail "edge -o .ppm did not write PPM"
check 0 "edge -o .pgm" "$haze" --quiet edge "$cam" -o "$tmp/e.pgm"
[ "$(head -c 2 "$tmp/e.pgm")" = P5 ] || fail "edge -o .pgm did not write PGM"
check 0 "edge -o .png" "$haze" --quiet edge "$cam" -o "$tmp/e.png"
[ "$(head -c 4 "$tmp/e.png" | tail -c 3)" = PNG ] || fail "edge -o .png did not write PNG"
check 0 "edge reads its JPEG back" "$haze" --quiet edge "$tmp/e.jpg" -o "$tmp/e2.pgm"
check 1 "edge -o .gif" "$haze" edge "$cam" -o "$tmp/e.gif"
grep_err "unknown image type" "edge -o .gif: why"
absent "$tmp/e.gif" "edge -o .gif"
# edge into a folder: created when named with '/', two inputs of one name refused
mkdir "$tmp/a" "$tmp/b"
cp "$cam" "$tmp/a/x.png"
cp "$tmp/e.pgm" "$tmp/b/x.pgm"
check 1 "edge: two inputs with one output name" "$haze" edge "$tmp/a/x.png" "$tmp/b/x.pgm" -o "$tmp/outdir/"
grep_err "both be written to" "edge: same output name: why"
absent "$tmp/outdir" "edge: same output name"
check 0 "edge -o DIR/ creates the folder" "$haze" edge "$tmp/a/x.png" -o "$tmp/outdir/"
[ -s "$tmp/outdir/x.png" ] || fail "edge -o DIR/: no DIR/x.png"
grep_err "x.png" "edge names what it wrote on stderr"
[ -s "$out" ] && fail "edge printed to stdout: $(cat "$out")"
check 1 "edge batch into a missing folder without '/'" "$haze" edge "$tmp/a/x.png" "$tmp/e.pgm" -o "$tmp/nodir"
grep_err "nodir/" "edge: how to create the folder"
check 2 "edge -o DIR/ in a missing parent" "$haze" edge "$tmp/a/x.png" -o "$tmp/no/such/"
grep_err "mkdir -p" "edge: missing parent: how"
printf 'P5 4 4 255\nabc' > "$tmp/bad.pgm"
check 2 "edge batch with a bad input" "$haze" edge "$tmp/a/x.png" "$tmp/bad.pgm" -o "$tmp/batch/"
absent "$tmp/batch" "edge batch with a bad input"
check 0 "edge batch --format jpg" "$haze" --quiet edge "$tmp/a/x.png" "$tmp/e.pgm" -o "$tmp/outdir" --format jpg
[ -s "$tmp/outdir/x.jpg" ] && [ -s "$tmp/outdir/e.jpg" ] || fail "edge batch --format jpg"

# haze help COMMAND is the command's help
check 0 "help fcm" "$haze" help fcm
grep_out "usage: haze fcm" "help fcm prints fcm's help"
check 0 "help fis eval" "$haze" help fis eval
grep_out "usage: haze fis" "help fis eval"
check 0 "help" "$haze" help
grep_out "Commands:" "help alone"
check 1 "help of an unknown command" "$haze" help frob
grep_err "unknown command 'frob'" "help frob: why"

rm -rf "$tmp"
[ "$fails" = 0 ] && echo "all output checks passed" && exit 0
echo "$fails output checks failed"
exit 1
