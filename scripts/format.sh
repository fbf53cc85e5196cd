#!/bin/sh
# scripts/format.sh [--check] - formats every C, CUDA and header file with
# the project's .clang-format; --check only reports files that differ.
set -eu
cd "$(dirname "$0")/.."
files=$(git ls-files '*.c' '*.h' '*.cu' '*.cuh')
if [ "${1:-}" = "--check" ]; then
    # shellcheck disable=SC2086
    clang-format --dry-run -Werror $files
else
    # shellcheck disable=SC2086
    clang-format -i $files
fi
