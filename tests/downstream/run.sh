#!/bin/sh
# tests/downstream/run.sh BUILD SRC CMAKE CC - installs haze from BUILD into a
# temporary prefix, then builds a downstream project against it twice: with
# find_package(haze) and with pkg-config.
set -eu
build=$1 src=$2 cmake=$3 cc=$4
tmp=$(mktemp -d /tmp/haze-downstream-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
"$cmake" --install "$build" --prefix "$tmp/prefix" >/dev/null
"$cmake" -S "$src" -B "$tmp/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_C_COMPILER="$cc" >/dev/null
"$cmake" --build "$tmp/build" >/dev/null
"$tmp/build/use_shared"
"$tmp/build/use_static"
if ! command -v pkg-config >/dev/null 2>&1; then
    echo "downstream: find_package works; pkg-config is not installed here, its check is skipped"
    exit 0
fi
libdir=$(ls -d "$tmp/prefix"/lib*/pkgconfig | head -n 1)
export PKG_CONFIG_PATH="$libdir"
# the .pc file holds the configured prefix; point it at the temporary one
sed -i "s|^prefix=.*|prefix=$tmp/prefix|" "$libdir/haze.pc"
pkg-config --exists haze
"$cc" "$src/main.c" -o "$tmp/use_pc" $(pkg-config --cflags --libs haze)
LD_LIBRARY_PATH=$(dirname "$libdir") "$tmp/use_pc"
"$cc" "$src/main.c" -o "$tmp/use_pc_static" $(pkg-config --cflags haze) \
    "$(dirname "$libdir")/libhaze.a" $(pkg-config --libs-only-other --libs-only-L --static haze | sed 's/-lhaze//') \
    $(pkg-config --libs --static haze | tr ' ' '\n' | grep -v '^-lhaze$' | tr '\n' ' ')
"$tmp/use_pc_static"
echo "downstream: find_package and pkg-config both work"
