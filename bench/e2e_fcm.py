#!/usr/bin/env python3
"""bench/e2e_fcm.py - fuzzy c-means as a whole job: `haze fcm` against PyTorch.

The job: a float32 .npy of N points (16 Gaussian blobs in D dimensions,
made once and kept), K clusters, a fixed number of iterations (tolerance
0), k-means++ start, centres written to a .npy. Every command runs as its
own process, as a user runs it; its wall time is the job's time, its
maximum resident set the memory peak (wait4). The file is in the page
cache (read once before the first run). Rows:

  haze                 haze fcm DATA -c K --precision single --tol 0 --max-iter N -o C.npy
  haze (given start)   the same from the centres C0.npy: the seeding's share
  torch eager          bench/fcm_torch.py: NumPy load, k-means++ and the iterations in PyTorch
  torch.compile        the same with the iteration through torch.compile

Before timing, haze and the PyTorch script run from the same start (C0.npy)
and their centres must agree (relative 1e-3 of the data's spread: both
compute in float32, in different orders). The floors: reading the file at
page-cache speed (one read(2) into a touched buffer), the host-to-device
copy at the bus rate (pinned memory, measured with PyTorch), and the
kernel time of the iterations (haze's N iterations less its first few).

    python3 bench/e2e_fcm.py [--haze build/haze] [--points 10000000]
        [--features 32] [--clusters 16] [--iters 55] [--reps 3] [--dir /tmp]
"""
import argparse
import json
import os
import sys

import numpy as np

from e2e_util import best_of, peak_mb, pinned_rate, read_floor, run

HERE = os.path.dirname(os.path.abspath(__file__))


def make_data(path, n, d, k, seed=7):
    if os.path.exists(path):
        a = np.load(path, mmap_mode="r")
        if a.shape == (n, d) and a.dtype == np.float32:
            return
    rng = np.random.default_rng(seed)
    centres = rng.uniform(-10.0, 10.0, (k, d)).astype(np.float32)
    out = np.lib.format.open_memmap(path + ".part", mode="w+", dtype=np.float32, shape=(n, d))
    chunk = 1 << 20
    for s in range(0, n, chunk):
        e = min(n, s + chunk)
        lab = rng.integers(0, k, e - s)
        out[s:e] = centres[lab] + rng.standard_normal((e - s, d), dtype=np.float32)
    out.flush()
    del out
    os.replace(path + ".part", path)


def haze_split(j):
    """haze's --json times: the reading, the fit's phases ("fit_timings":
    checking the data, setup with the device's context and the upload,
    seeding, iterations, finish) and the writing."""
    t = j.get("timings", {})
    f = j.get("fit_timings")
    if not f:
        return t
    out = {"read": t.get("read", 0.0)}
    out.update(f)
    out["write"] = t.get("write", 0.0)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--haze", default="build/haze")
    ap.add_argument("--points", type=int, default=10_000_000)
    ap.add_argument("--features", type=int, default=32)
    ap.add_argument("--clusters", type=int, default=16)
    ap.add_argument("--iters", type=int, default=55)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--dir", default="/tmp")
    ap.add_argument("--no-compile", action="store_true")
    a = ap.parse_args()
    n, d, k, it = a.points, a.features, a.clusters, a.iters
    data = os.path.join(a.dir, "haze_e2e_fcm_%d_%d.npy" % (n, d))
    make_data(data, n, d, k)
    c0 = os.path.join(a.dir, "haze_e2e_fcm_c0.npy")
    x = np.load(data, mmap_mode="r")
    rng = np.random.default_rng(1)
    np.save(c0, np.asarray(x[np.sort(rng.choice(n, k, replace=False))], dtype=np.float64))
    spread = float(np.abs(np.asarray(x[: min(n, 1 << 20)])).max())
    del x
    py = sys.executable
    torch_cmd = [py, os.path.join(HERE, "fcm_torch.py"), data, "-c", str(k), "--max-iter", str(it)]
    haze_cmd = [a.haze, "--quiet", "fcm", data, "-c", str(k), "--precision", "single", "--tol",
                "0", "--max-iter", str(it), "--json"]
    out_h = os.path.join(a.dir, "haze_e2e_fcm_haze.npy")
    out_t = os.path.join(a.dir, "haze_e2e_fcm_torch.npy")

    size = os.path.getsize(data)
    t_read = read_floor(data)  # also puts the file in the page cache
    rate, gpu = pinned_rate()
    t_bus = size / rate if rate else None

    # the same answer from the same start
    run(haze_cmd + ["--init", c0, "-o", out_h])
    run(torch_cmd + ["--init", c0, "-o", out_t])
    vh, vt = np.load(out_h), np.load(out_t)
    err = float(np.abs(vh - vt).max()) / spread
    print("fuzzy c-means job: %d x %d float32 .npy (%.2f GB, 16 blobs), %d clusters, m = 2, "
          "%d iterations (tolerance 0), k-means++ start, centres to .npy"
          % (n, d, size / 1e9, k, it))
    print("GPU: %s; best of %d runs per row, file in the page cache" % (gpu or "none", a.reps))
    print("same start, haze against torch eager: max |centre difference| = %.2e of the data's "
          "range (%s)" % (err, "agree" if err < 1e-3 else "DISAGREE"))
    if err >= 1e-3:
        return 1

    rows = []
    w, o = best_of(haze_cmd + ["-o", out_h], a.reps)
    jh = json.loads(o)
    rows.append(("haze", w, peak_mb(haze_cmd + ["-o", out_h]), haze_split(jh), jh["objective"]))
    w0, o0 = best_of(haze_cmd + ["--init", c0, "-o", out_h], a.reps)
    j0 = json.loads(o0)
    rows.append(("haze (given start)", w0, None, haze_split(j0), j0["objective"]))
    # kernel time of the iterations: N iterations less 5, scaled to N
    few = [a.haze, "--quiet", "fcm", data, "-c", str(k), "--precision", "single", "--tol", "0",
           "--max-iter", "5", "--json", "--init", c0, "-o", out_h]
    _, of = best_of(few, a.reps)
    j5 = json.loads(of)
    if "fit_timings" in j0 and "fit_timings" in j5:
        # the iterations' own phase: the setup (the device's context, the
        # upload) moves by more than the iterations take
        fit_n, fit_5 = j0["fit_timings"]["iterations"], j5["fit_timings"]["iterations"]
    else:
        fit_n, fit_5 = j0["seconds"], j5["seconds"]
    t_iter = max(0.0, (fit_n - fit_5) * it / (it - 5))
    for name, extra in (("torch eager", []), ("torch.compile", ["--compile"])):
        if extra and a.no_compile:
            continue
        w, o = best_of(torch_cmd + extra + ["-o", out_t], a.reps)
        jt = json.loads(o.strip().splitlines()[-1])
        rows.append((name, w, peak_mb(torch_cmd + extra + ["-o", out_t]), jt["times"],
                     jt["objective"]))

    print("\n%-20s %9s %9s %9s  %s" % ("job", "wall s", "vs haze", "peak MB", "split (s)"))
    base = rows[0][1]
    for name, w, mb, tm, obj in rows:
        split = " ".join("%s %.3f" % (key, v) for key, v in tm.items() if key != "total")
        print("%-20s %9.3f %8.2fx %9s  %s" % (name, w, w / base,
                                             "%.0f" % mb if mb else "-", split))
    floor = t_read + t_iter
    print("\nfloors: read %.3f s (%.1f GB/s, page cache)%s; iterations' kernel time %.3f s "
          "(haze: %d iterations less 5, scaled)"
          % (t_read, size / t_read / 1e9,
             "; upload %.3f s (%.1f GB/s pinned)" % (t_bus, size / t_bus / 1e9) if t_bus else "",
             t_iter, it))
    print("haze / (read + iterations) = %.2fx; torch eager / haze = %.2fx; torch.compile / haze "
          "= %s; peak memory / data = %.2fx"
          % (base / floor, rows[2][1] / base,
             "%.2fx" % (rows[3][1] / base) if len(rows) > 3 else "-",
             rows[0][2] / (size / 1048576.0)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
