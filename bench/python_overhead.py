"""What the Python package adds to a haze call: the same call timed from C
(bench/api_time, the library called directly) and through ``import haze``,
on the same data file, machine and backend, in one run.

    python3 bench/python_overhead.py BUILD_DIR [--quick]

BUILD_DIR holds bench/api_time and python/haze (the staged package). The
workloads are the issue's: a 10^6-row batch through the tipper (host arrays
in and out), and FCM.fit on 10^7 x 32 float32 points, 16 clusters, 20
iterations from a k-means++ start (--quick: 10^6 points). Each is the best of
several calls; the package's call converts nothing (float64 rows, float32
points in C order) and the C call asks for the memberships as FCM.fit does.
"""

import os
import subprocess
import sys
import tempfile
import time

import numpy as np

build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
quick = "--quick" in sys.argv
sys.path.insert(0, os.path.join(build, "python"))
import haze  # noqa: E402

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
api_time = os.path.join(build, "bench", "api_time")
model = os.path.join(root, "data", "tipper.fis")


def c_time(*args):
    out = subprocess.run([api_time, *map(str, args)], check=True, capture_output=True,
                         text=True).stdout
    return float(out.split()[1])


def py_best(fn, reps):
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


rows = []
ctx = haze.default_context()
with tempfile.TemporaryDirectory() as tmp:
    rng = np.random.default_rng(1)
    n = 10**6
    X = np.ascontiguousarray(rng.uniform(0, 10, (n, 2)))
    np.save(os.path.join(tmp, "rows.npy"), X)
    fis = haze.FIS.load(model)
    out = fis.eval(X)  # warm-up (and the plan is built)
    tc = c_time("fis", model, os.path.join(tmp, "rows.npy"), 7)
    tp = py_best(lambda: fis.eval(X, out=out), 7)  # into one array, as the C call does
    rows.append((f"tipper, {n:.0e} rows, host arrays", tc, tp))

    npts = 10**6 if quick else 10**7
    P = rng.standard_normal((npts, 32), dtype=np.float32)
    P += (np.arange(npts) % 16)[:, None].astype(np.float32) * 3
    np.save(os.path.join(tmp, "points.npy"), P)
    est = haze.FCM(n_clusters=16, max_iter=20, tol=0, random_state=3)
    est.fit(P)  # warm-up
    reps = 5
    tc = c_time("fcm", os.path.join(tmp, "points.npy"), 16, 20, reps, 3)
    tp = py_best(lambda: est.fit(P), reps)
    rows.append((f"FCM.fit {npts:.0e} x 32 f32, c 16, 20 it", tc, tp))

dev = ctx.device_info()["name"] if ctx.backend == "cuda" else f"{ctx.threads} CPU threads"
print(f"haze {haze.__version__}: Python package against the C API, backend {ctx.backend} ({dev})")
print(f"{'workload':<40} {'C API':>10} {'Python':>10} {'ratio':>7} {'overhead':>9}")
for name, tc, tp in rows:
    print(f"{name:<40} {tc * 1e3:>8.2f}ms {tp * 1e3:>8.2f}ms {tp / tc:>7.3f} "
          f"{(tp / tc - 1) * 100:>8.1f}%")
print("goal: at most 5% over the C call (best of several calls each)")
