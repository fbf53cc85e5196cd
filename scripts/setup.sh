#!/bin/sh
# scripts/setup.sh - the first README command: install the dependencies,
# build haze (with CUDA if nvcc is present) and run `haze demo`.
set -eu
cd "$(dirname "$0")/.."
sh scripts/install-deps.sh
py=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3)}
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DHAZE_TESTS=OFF -DHAZE_BENCH=OFF \
    -DHAZE_PYTHON=ON -DPython3_EXECUTABLE="$py"
cmake --build build -j "$(nproc)"
./build/haze demo
# The Python package, from the same build (setup.py reuses build/), for the
# system's Python: Debian marks it externally managed, hence the flag.
HAZE_BUILD_DIR=$PWD/build "$py" -m pip install --no-build-isolation --no-deps --no-index \
    --break-system-packages --root-user-action=ignore --quiet .
(cd / && "$py" -c "import haze; haze.demo()")
