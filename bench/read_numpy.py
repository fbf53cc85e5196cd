#!/usr/bin/env python3
"""bench/read_numpy.py - NumPy reading the files bench_read reads.

For each file: numpy.load (.npy) or numpy.loadtxt (CSV; the delimiter
guessed from the first line, as haze guesses it), the best of a few runs
(one for loadtxt), wall and CPU time as bench_read gives them, and the
checksum bench_read prints (the sum and the xor of the
values' bit patterns, float64 for CSV and float64 .npy files, float32 for
float32 .npy files) so the two can be compared by eye or by a script.

    python3 bench/read_numpy.py [--reps R] FILE...
"""
import os
import sys
import time

import numpy as np


def checksum(a):
    bits = a.view(np.uint32 if a.dtype == np.float32 else np.uint64).ravel()
    s = int(bits.astype(np.uint64).sum(dtype=np.uint64))
    x = int(np.bitwise_xor.reduce(bits.astype(np.uint64)))
    return s, x


def read(path):
    if path.endswith(".npy"):
        return np.load(path)
    with open(path, "r", encoding="utf-8") as f:
        first = f.readline()
    delim = "," if "," in first else ";" if ";" in first else "\t" if "\t" in first else None
    return np.loadtxt(path, delimiter=delim, dtype=np.float64, ndmin=2)


def main():
    args = sys.argv[1:]
    reps = 3
    if len(args) >= 2 and args[0] == "--reps":
        reps = int(args[1])
        args = args[2:]
    if not args:
        print(__doc__)
        return 2
    print("read_numpy: NumPy %s, best of %d runs, files in the page cache" % (np.__version__, reps))
    for path in args:
        mb = os.path.getsize(path) / 1e6
        best, cpu, a = float("inf"), float("inf"), None
        for _ in range(reps if path.endswith(".npy") else 1):
            t0, c0 = time.perf_counter(), time.process_time()
            a = read(path)
            best = min(best, time.perf_counter() - t0)
            cpu = min(cpu, time.process_time() - c0)
        name = "numpy.load" if path.endswith(".npy") else "numpy.loadtxt"
        s, x = checksum(a)
        print("%s (%.1f MB)\n  %-36s %8s %9s %8s %9s\n  %-36s %8.4f %9.1f %8.4f %9.1f\n"
              "  values: sum %016x xor %016x"
              % (path, mb, "reader", "wall s", "MB/s", "CPU s", "MB/CPU-s", name, best, mb / best,
                 cpu, mb / cpu, s, x))
    return 0


if __name__ == "__main__":
    sys.exit(main())
