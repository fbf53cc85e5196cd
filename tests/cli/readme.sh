#!/bin/sh
# tests/cli/readme.sh HAZE SOURCE_DIR - runs every haze command that README.md
# shows in a ```sh block, as written, from a scratch folder that sees the
# repository's data/, examples/ and tests/ (so each file the README names must
# be shipped). A block whose lines start with "$ " is a transcript: only those
# lines run. Lines that call scripts, cmake or ctest are left out (the test
# suite itself runs them). Each command must exit 0 unless its line ends in a
# comment "# exit N". Slow training runs are shortened (--epochs 1, --head 2000)
# and said so in the log: the command line is otherwise unchanged.
set -u
haze=$1
src=$2
fails=0
ran=0
work=$(mktemp -d /tmp/haze-readme.XXXXXX)
trap 'rm -rf "$work"' EXIT INT TERM
for d in data examples tests; do ln -s "$src/$d" "$work/$d"; done

# Extract the commands: one per line, continuations joined.
awk '
    /^```sh[ \t]*$/ { inblock = 1; n = 0; transcript = 0; next }
    inblock && /^```/ {
        for (i = 1; i <= n; i++) {
            l = lines[i]
            if (transcript) { if (l !~ /^\$ /) continue; sub(/^\$ /, "", l) }
            print l
        }
        inblock = 0; next
    }
    inblock {
        if (cont) { lines[n] = lines[n] " " $0 } else { lines[++n] = $0 }
        if ($0 ~ /^\$ /) transcript = 1
        cont = ($0 ~ /\\$/)
        if (cont) sub(/[ \t]*\\$/, "", lines[n])
    }
' "$src/README.md" >"$work/commands.txt"

# Built without plotting (no cairo), the plot commands are left out.
noplot=0
"$haze" fis plot "$src/data/tipper.fis" -o "$work/probe.png" 2>&1 | grep -q "without plotting" &&
    noplot=1
while IFS= read -r line; do
    case "$line" in
    *"fis plot "* | *"--plot "* | *"--side-by-side "* | *"fis rules "*" -o "*)
        [ "$noplot" = 1 ] && { echo "(built without plotting, left out: $line)"; continue; } ;;
    esac
    case "$line" in
    "" | "#"*) continue ;;
    sh\ * | cmake\ * | ctest\ * | cat\ *) continue ;;
    esac
    case "$line" in # haze as a command: first, or after a pipe or &&
    haze\ * | *"| haze "* | *"&& haze "*) ;;
    *) continue ;;
    esac
    want=0
    case "$line" in
    *"# exit "[0-9]*) want=$(printf '%s\n' "$line" | sed 's/.*# exit \([0-9]*\).*/\1/') ;;
    esac
    cmd=$line
    case "$cmd" in
    *"fnn train"*)
        cmd=$(printf '%s\n' "$cmd" | sed -e 's/--epochs [0-9]*//' -e 's/--head 16000/--head 2000/' \
            -e 's/ -o / --epochs 1 -o /')
        [ "$cmd" != "$line" ] && echo "(shortened for the test: $cmd)"
        ;;
    esac
    ran=$((ran + 1))
    (
        cd "$work" || exit 99
        haze() { "$haze" "$@"; }
        eval "$cmd"
    ) >"$work/out" 2>"$work/err"
    got=$?
    if [ "$got" != "$want" ]; then
        printf "FAIL: exit %s, want %s: %s\n" "$got" "$want" "$line"
        sed 's/^/    /' "$work/err" | head -20
        fails=$((fails + 1))
    else
        printf "ok: %s\n" "$line"
    fi
done <"$work/commands.txt"

echo "$ran README commands run, $fails failed"
[ "$ran" -gt 10 ] || { echo "FAIL: too few commands found in README.md"; exit 1; }
[ "$fails" -eq 0 ]
