#!/bin/sh
# tests/cli/threads.sh HAZE - the CLI's OpenMP waiting policy: with more than
# one thread and no policy set by the user, haze runs with
# OMP_WAIT_POLICY=passive (libgomp then shows GOMP_SPINCOUNT = '0' under
# OMP_DISPLAY_ENV=verbose); a policy the user set is kept, and one thread
# needs none. Nothing to check where the OpenMP runtime is not libgomp.
set -u
haze=$1
. "$(dirname "$0")/lib.sh"
scratch
spin() { # the last GOMP_SPINCOUNT libgomp showed
    sed -n "s/.*GOMP_SPINCOUNT = '\([0-9]*\)'.*/\1/p" "$err" | tail -n 1
}
check 0 "two threads" env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT OMP_DISPLAY_ENV=verbose \
    "$haze" --threads 2 --version
if [ -z "$(spin)" ]; then
    echo "skip: the OpenMP runtime is not libgomp"
    exit 0
fi
[ "$(spin)" = 0 ] || fail "two threads: passive waiting (GOMP_SPINCOUNT $(spin))"
grep_out "^haze [0-9]" "two threads: the command ran"
check 0 "the user's policy" env -u GOMP_SPINCOUNT OMP_WAIT_POLICY=active OMP_DISPLAY_ENV=verbose \
    "$haze" --threads 2 --version
[ "$(spin)" != 0 ] || fail "the user's OMP_WAIT_POLICY=active was replaced"
check 0 "the user's spin count" env -u OMP_WAIT_POLICY GOMP_SPINCOUNT=1234 OMP_DISPLAY_ENV=verbose \
    "$haze" --threads=2 --version
[ "$(spin)" = 1234 ] || fail "the user's GOMP_SPINCOUNT was replaced"
check 0 "one thread" env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT OMP_DISPLAY_ENV=verbose \
    "$haze" --threads 1 --version
[ "$(spin)" != 0 ] || fail "one thread: ran a second time"
# results: the same bytes with the default threads, one and two
check 0 "fcm, 2 threads" "$haze" --backend cpu --threads 2 fcm "$(dirname "$0")/../data/fcm/blobs_data.csv" -c 4 --json
cp "$out" "$out.2"
check 0 "fcm, 1 thread" "$haze" --backend cpu --threads 1 fcm "$(dirname "$0")/../data/fcm/blobs_data.csv" -c 4 --json
# times differ from run to run
untimed() { sed -e 's/"seconds": [0-9.e+-]*//' -e '/"timings": /d' -e '/"fit_timings": /d' "$1"; }
untimed "$out" > "$out.a"
untimed "$out.2" > "$out.b"
cmp -s "$out.a" "$out.b" || fail "fcm: 1 and 2 threads differ"
[ "$fails" = 0 ] && echo "all CLI checks passed" && exit 0
echo "$fails CLI checks failed"
exit 1
