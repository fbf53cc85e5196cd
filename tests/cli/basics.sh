#!/bin/sh
# tests/cli/basics.sh HAZE - exit codes and messages of the command-line tool.
set -u
haze=$1
fails=0
out=/tmp/haze-cli-out.$$
err=/tmp/haze-cli-err.$$
. "$(dirname "$0")/lib.sh"
check 0 "--help" "$haze" --help
check 0 "--version" "$haze" --version
grep -q "^haze [0-9]" "$out" || fail "version text"
check 1 "no command" "$haze"
check 1 "unknown command" "$haze" frobnicate
grep_err "unknown command 'frobnicate'" "unknown command message"
check 1 "bad --backend" "$haze" --backend tpu info
check 1 "bad --threads" "$haze" --threads zero info
check 0 "info" "$haze" info
check 0 "info --help" "$haze" info --help
check 0 "info on cpu" "$haze" --backend cpu --threads 2 info
grep -q "backend *cpu (2 threads)" "$out" || fail "cpu context line"
check 0 "global option after the command" "$haze" info --backend=cpu
if ! "$haze" info | grep -q "available, [0-9]* device"; then
    # no usable GPU here: asking for one must fail with exit 3 and say why
    check 3 "cuda without a GPU" "$haze" --backend cuda info
    grep_err "backend 'cuda' requested" "cuda without a GPU message"
    HAZE_BACKEND=cuda check 3 "HAZE_BACKEND=cuda without a GPU" "$haze" info
    grep_err "HAZE_BACKEND" "env message"
fi
HAZE_BACKEND=bogus check 2 "HAZE_BACKEND=bogus" "$haze" info
check 0 "demo" "$haze" --quiet demo
rm -f "$out" "$err"
[ "$fails" = 0 ] && echo "all CLI checks passed" && exit 0
echo "$fails CLI checks failed"
exit 1
