# tests/cli/lib.sh - helpers shared by the CLI test scripts, which source it
# with `. "$(dirname "$0")/lib.sh"` and then call `scratch`, or set fails=0
# and $out and $err (the files that receive the last command's stdout and
# stderr) themselves.
scratch() { # scratch: fails=0, a folder $tmp removed at exit, $out and $err in it
    fails=0
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    out=$tmp/out
    err=$tmp/err
}
fail() { # fail DESCRIPTION: counts a failed check
    echo "FAIL: $1"; fails=$((fails + 1))
}
check() { # check WANT_CODE DESCRIPTION CMD...
    want=$1; what=$2; shift 2
    "$@" >"$out" 2>"$err"
    got=$?
    if [ "$got" != "$want" ]; then
        echo "FAIL: $what: exit $got, want $want"; cat "$err"; fails=$((fails + 1))
    else
        echo "ok: $what"
    fi
}
grep_out() { # grep_out PATTERN DESCRIPTION
    grep -q -- "$1" "$out" || fail "$2: stdout lacks '$1'"
}
grep_err() { # grep_err PATTERN DESCRIPTION
    if ! grep -q -- "$1" "$err"; then echo "FAIL: $2: stderr lacks '$1'"; cat "$err"; fails=$((fails + 1)); fi
}
absent() { # absent FILE DESCRIPTION
    if [ -e "$1" ]; then echo "FAIL: $2: $1 was written"; fails=$((fails + 1)); fi
}
