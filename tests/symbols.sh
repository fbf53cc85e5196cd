#!/bin/sh
# tests/symbols.sh LIBHAZE.a [LIBHAZE.so] - lists the strong global symbols
# the library defines outside its two name spaces (haze_ for the API,
# haze__ for what the modules share) and the test or benchmark hooks inside
# them, and fails (exit 1) if there is any. A static library that defines
# `transpose` or `fire_k1` breaks a program with a function of that name;
# hooks belong in the development library (dev/), which is never installed.
#
# nm's classes: upper case is global; U (undefined), W/V (weak) and the
# local lower-case classes are not definitions that can clash. C++ names
# are demangled before they are matched. Kernels and helpers get internal
# linkage with `static`: nvcc compiles an anonymous namespace into a global
# namespace with a per-file name, so what it holds stays global.
set -u
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: $0 LIBHAZE.a [LIBHAZE.so]" >&2
    exit 2
fi
for f in "$@"; do
    if [ ! -r "$f" ]; then
        echo "$0: cannot read $f" >&2
        exit 2
    fi
done

# What the compilers put there on their own, allowed with the reason.
#   __cudaRegisterLinkedBinary_*, __fatbinwrap_*, __nv_module_id_*,
#   __nv_cudaEntityRegisterCallback, __cuda_*: nvcc's registration of each
#     translation unit's device code with the CUDA runtime (one per object);
#   __nv_static_*, __nv_reg_*: the same, for -rdc builds;
#   _GLOBAL__sub_I_*, _GLOBAL__I_*: static constructors of C++ units;
#   typeinfo / vtable / guard variable / __cxa_* / std::: what C++ emits for
#     the CUB templates it instantiates (weak or COMDAT in practice);
#   __bss_start, _edata, _end, _init, _fini, __dso_handle, _DYNAMIC,
#     __TMC_END__, __GNU_EH_FRAME_HDR, _GLOBAL_OFFSET_TABLE_: the linker's
#     own symbols in a shared object;
#   cuda*, __cudart*, cudaGetErrorString ... when cudart_static is linked
#     into the shared object: NVIDIA's runtime, not haze's code (the .so is
#     checked for haze's names only, see below).
#   .gomp_critical_user_haze_*: the lock GCC makes for an OpenMP
#     `critical (haze_...)` section (a common symbol named after it);
#   __odr_asan.*, ___asan_gen_*, __asan_*, __ubsan_*, __tsan_*, __sancov_*:
#     what a sanitizer build adds (AddressSanitizer's one-definition-rule
#     indicator beside each global, its generated names and hooks); never
#     in a release build.
allowed='^(\.gomp_critical_user_haze_|__odr_asan\.|___asan_gen_|__asan_|__ubsan_|__tsan_|__sancov_|__cudaRegisterLinkedBinary_|__fatbinwrap_|__nv_module_id_|__nv_cudaEntityRegisterCallback|__cuda_|__nv_static_|__nv_reg_|_GLOBAL__sub_I_|_GLOBAL__I_|typeinfo |vtable |guard variable |__cxa_|std::|__bss_start$|_edata$|_end$|_init$|_fini$|__dso_handle$|_DYNAMIC$|__TMC_END__$|__GNU_EH_FRAME_HDR$|_GLOBAL_OFFSET_TABLE_$)'
# Internal names (haze__) that are hooks for tests and benchmarks, not the
# engine: a test entry, a timing probe or statistics, a forced configuration
# (an _ex variant that takes one), a benchmark's measurement. They belong in
# dev/ as haze_dev_* functions.
hooks='^haze__(.*_)?(test|tests|testing|timing|timed|time|force|forced|bench|stats|clock_khz|copy_bw|sort_method)(_|$)|^haze__.*_ex$'
# Public names (haze_, one underscore) must be declared in include/haze/:
# anything else is an internal function under the public prefix.
here=$(cd "$(dirname "$0")" && pwd)
api=$(mktemp) || exit 2
if [ -d "$here/../include/haze" ]; then
    grep -ohw 'haze_[A-Za-z0-9_]*' "$here"/../include/haze/*.h | sort -u >"$api"
fi
[ -s "$api" ] || echo - >"$api" # awk reads it first: never empty

tmp=$(mktemp) || exit 2
trap 'rm -f "$tmp" "$api"' EXIT
bad=0
for lib in "$@"; do
    case "$lib" in
    *.so | *.so.*)
        # the dynamic symbol table: what a program can bind to
        nm -D --defined-only -C "$lib" 2>/dev/null >"$tmp"
        ;;
    *)
        nm --defined-only -C "$lib" 2>/dev/null >"$tmp"
        ;;
    esac
    # "ADDRESS CLASS NAME" (the name may hold spaces once demangled)
    out=$(awk -v allowed="$allowed" -v hooks="$hooks" -v so="$lib" '
        FNR == NR { if ($0 != "-") { api[$0] = 1; napi++ } next }
        /:$/ { obj = $0; sub(/:$/, "", obj); next }
        NF < 3 { next }
        {
            cls = $2
            name = $0
            sub(/^[^ ]+ [^ ]+ /, "", name)
            if (cls !~ /^[A-Z]$/ || cls == "U" || cls == "W" || cls == "V") next
            anon = name ~ /^\(anonymous namespace\)::/ || name ~ /_GLOBAL__N_/
            base = name
            sub(/^\(anonymous namespace\)::/, "", base)
            sub(/\(.*$/, "", base) # a demangled function: its name
            if (base ~ allowed) next
            if (so ~ /\.so/ && base !~ /^haze_/) {
                # the shared object exports only what is visible: the
                # runtime libraries linked into it are not haze code
                if (base ~ /^(cuda|__cudart|cu[A-Z]|__cuda|_Z)/) next
            }
            why = ""
            if (anon)
                why = "anonymous namespace, which nvcc turns into a global name: make it static"
            else if (base !~ /^haze_/) why = "outside haze_/haze__"
            else if (base ~ hooks) why = "test or benchmark hook"
            else if (base !~ /^haze__/ && napi && !(base in api))
                why = "haze_ name not in include/haze/"
            if (why != "") printf "%s: %s %s (%s)\n", (obj != "" ? obj : so), cls, name, why
        }' "$api" "$tmp")
    if [ -n "$out" ]; then
        echo "$out"
        bad=1
    fi
done
if [ $bad -ne 0 ]; then
    echo "symbols.sh: strong global symbols outside haze_/haze__ or hooks (above)" >&2
    exit 1
fi
echo "symbols.sh: no strong global symbols outside haze_/haze__, no hooks"
