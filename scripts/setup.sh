#!/bin/sh
# scripts/setup.sh - the first README command: install the dependencies,
# build haze (with CUDA if nvcc is present) and run `haze demo`.
set -eu
cd "$(dirname "$0")/.."
sh scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DHAZE_TESTS=OFF
cmake --build build -j "$(nproc)"
./build/haze demo
