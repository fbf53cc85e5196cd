#!/bin/sh
# scripts/fetch-gpu-deps.sh [DIR] - downloads (does not install) the Debian
# packages that a GPU machine without a package registry lacks: headers of
# MPFR and GMP, MPFI, cmocka, fast_float, {fmt}, and the peers the benchmarks compare with
# (fuzzylite, gappa). scripts/gpu-check.sh unpacks them into a private prefix
# there. DIR defaults to .debs (ignored by git).
set -eu
cd "$(dirname "$0")/.."
dir=${1:-.debs}
mkdir -p "$dir"
cd "$dir"
apt-get download libmpfr-dev libmpfr6 libgmp-dev libgmp10 libgmpxx4ldbl libmpfi-dev libmpfi-dev-common libmpfi0 \
    libcmocka-dev libcmocka0 fuzzylite libfuzzylite6.0 gappa libfast-float-dev libfmt-dev
ls -l
