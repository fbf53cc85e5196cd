#!/bin/sh
# tests/check_fnn_symbols.sh LIB - the SONFIN objects (fnn*.o) of the static
# library LIB define no strong global symbol outside haze_/haze__ (kernels
# and device helpers have internal linkage) and none of the test and timing
# hooks that live in the development library (dev/fnn_dev.h). Exit 77
# (skipped) without nm.
lib=$1
command -v nm >/dev/null 2>&1 || { echo "no nm: skipped"; exit 77; }
[ -f "$lib" ] || { echo "no library $lib"; exit 1; }
syms=$(nm -C --defined-only "$lib") || exit 1
# "OBJECT.o:" heads each member; strong globals are upper-case types other
# than weak ones (V, W)
bad=$(printf '%s\n' "$syms" | awk '
    /:$/ { obj = $0; next }
    obj ~ /^fnn/ && $2 ~ /^[A-UX-Z]$/ {
        name = $0
        sub(/^[^ ]* [^ ]* /, "", name)
        if (name !~ /^haze__?[a-z]/) print obj " " name
    }')
hooks=$(printf '%s\n' "$syms" | grep -E 'haze__fnn_cuda_(set_|step_time|cluster_step_time|register_config|uses_cluster|choice|math_ulps)|haze_dev_' || true)
status=0
if [ -n "$bad" ]; then
    echo "strong global symbols outside haze_/haze__ in the fnn objects:"
    printf '%s\n' "$bad"
    status=1
fi
if [ -n "$hooks" ]; then
    echo "test or timing hooks in the library:"
    printf '%s\n' "$hooks"
    status=1
fi
[ $status = 0 ] && echo "fnn objects: no foreign strong symbols, no hooks"
exit $status
