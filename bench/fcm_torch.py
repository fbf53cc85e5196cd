#!/usr/bin/env python3
"""bench/fcm_torch.py - fuzzy c-means as a PyTorch user would write it.

The competitor of `haze fcm` in bench/e2e_fcm.py: load a .npy with NumPy,
move it to the GPU, seed the centres with k-means++ (or read them from a
file), run a fixed number of iterations of Bezdek's updates (m = 2,
Euclidean), write the centres as .npy. Eager by default; --compile runs
the iteration through torch.compile.

    python3 bench/fcm_torch.py DATA.npy -c K --max-iter N [--init C.npy]
                               [--seed S] [--compile] -o CENTRES.npy

It prints one line of JSON: the times of its parts (import, read, upload,
seeding, iterations, download and write, all measured after a device
synchronisation) and the final objective.
"""
import argparse
import json
import sys
import time

T0 = time.perf_counter()
import numpy as np  # noqa: E402
import torch  # noqa: E402

T_IMPORT = time.perf_counter() - T0


def sync():
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def kmeanspp(x, k, gen):
    """Plain k-means++: each next centre drawn with probability D(x)^2."""
    n = x.shape[0]
    first = torch.randint(n, (1,), generator=gen, device=x.device)
    centres = [x[first[0]]]
    d2 = ((x - centres[0]) ** 2).sum(1)
    for _ in range(1, k):
        cdf = torch.cumsum(d2.double(), 0)
        r = torch.rand(1, generator=gen, device=x.device, dtype=torch.float64) * cdf[-1]
        i = torch.searchsorted(cdf, r).clamp(max=n - 1)
        c = x[i[0]]
        centres.append(c)
        d2 = torch.minimum(d2, ((x - c) ** 2).sum(1))
    return torch.stack(centres)


def fcm_step(x, xx, v):
    """One iteration, m = 2: memberships from the centres v, then new centres."""
    d2 = (xx[:, None] - 2.0 * (x @ v.T) + (v * v).sum(1)[None, :]).clamp_min(1e-12)
    inv = 1.0 / d2
    u = inv / inv.sum(1, keepdim=True)
    um = u * u
    v = (um.T @ x) / um.sum(0)[:, None]
    return v, (um * d2).sum()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("-c", type=int, required=True)
    ap.add_argument("--max-iter", type=int, default=55)
    ap.add_argument("--init")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--compile", action="store_true")
    ap.add_argument("-o", required=True)
    a = ap.parse_args()
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    t = {"import": T_IMPORT}

    s = time.perf_counter()
    host = np.load(a.data)
    t["read"] = time.perf_counter() - s

    s = time.perf_counter()
    x = torch.from_numpy(host).to(dev)
    sync()
    t["upload"] = time.perf_counter() - s

    s = time.perf_counter()
    if a.init:
        v = torch.from_numpy(np.load(a.init).astype(host.dtype)).to(dev)
    else:
        gen = torch.Generator(device=dev)
        gen.manual_seed(a.seed)
        v = kmeanspp(x, a.c, gen)
    xx = (x * x).sum(1)
    sync()
    t["seeding"] = time.perf_counter() - s

    step = torch.compile(fcm_step) if a.compile else fcm_step
    s = time.perf_counter()
    obj = None
    for _ in range(a.max_iter):
        v, obj = step(x, xx, v)
    sync()
    t["iterations"] = time.perf_counter() - s

    s = time.perf_counter()
    np.save(a.o, v.double().cpu().numpy())
    obj = float(obj)
    t["write"] = time.perf_counter() - s
    t["total"] = time.perf_counter() - T0
    print(json.dumps({"device": dev, "times": t, "objective": obj}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
