#!/bin/sh
# tests/downstream/run.sh BUILD SRC CMAKE CC - installs haze from BUILD into a
# temporary prefix (never the configured one), then builds and runs a
# downstream program that uses the inline interval functions (fma: libm)
# against the shared and the static library, with find_package(haze) and
# with pkg-config. The .pc file is used as installed: it must find its
# prefix itself.
set -eu
build=$1 src=$2 cmake=$3 cc=$4
tmp=$(mktemp -d "${TMPDIR:-/tmp}/haze-downstream-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$cmake" --install "$build" --prefix "$tmp/prefix" >/dev/null
"$cmake" -S "$src" -B "$tmp/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_BUILD_TYPE=Release >"$tmp/configure.log" 2>&1 || { cat "$tmp/configure.log"; exit 1; }
"$cmake" --build "$tmp/build" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 1; }
"$tmp/build/use_shared"
"$tmp/build/use_static"
if ! command -v pkg-config >/dev/null 2>&1; then
    echo "downstream: find_package works; pkg-config is not installed here, its check is skipped"
    exit 0
fi
pcdir=$(ls -d "$tmp/prefix"/lib*/pkgconfig "$tmp/prefix"/lib*/*/pkgconfig 2>/dev/null | head -n 1)
libdir=$(dirname "$pcdir")
export PKG_CONFIG_PATH="$pcdir"
unset PKG_CONFIG_LIBDIR PKG_CONFIG_SYSROOT_DIR
pkg-config --exists haze
# the prefix it reports must be the temporary one
inc=$(pkg-config --variable=includedir haze)
[ -f "$inc/haze/haze.h" ] || { echo "downstream: haze.pc points at $inc, not at the install"; exit 1; }
# shared: only what Libs gives (libm included)
"$cc" "$src/main.c" -o "$tmp/use_pc" $(pkg-config --cflags haze) $(pkg-config --libs haze)
LD_LIBRARY_PATH="$libdir" "$tmp/use_pc"
# static: the archive in place of -lhaze, then Libs.private
"$cc" "$src/main.c" -o "$tmp/use_pc_static" $(pkg-config --cflags haze) \
    $(pkg-config --static --libs haze | sed 's/-lhaze\( \|$\)/-l:libhaze.a\1/')
"$tmp/use_pc_static"
echo "downstream: find_package and pkg-config, shared and static, all work"
