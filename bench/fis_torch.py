#!/usr/bin/env python3
"""bench/fis_torch.py - batched Mamdani inference as a PyTorch user would write it.

The competitor of `haze fis eval` in bench/e2e_fis.py. Reads a MATLAB .fis
(Mamdani; trimf, trapmf, gaussmf; min/max/min/max/centroid), the inputs
from a CSV (numpy.loadtxt) or .npy, evaluates every row on the GPU in
float64 with MATLAB's rules (inputs clamped to their ranges, the output
range sampled at --points points, mid-range where no rule fires), in
chunks of rows that fit the device, and writes the outputs as CSV
(numpy.savetxt, "%.17g") or .npy.

    python3 bench/fis_torch.py MODEL.fis INPUTS.{csv,npy} -o OUT.{csv,npy}
        [--points 101] [--chunk 1048576]

It prints one line of JSON: the times of its parts (import, read, upload,
inference, download, write), each after a device synchronisation.
"""
import argparse
import json
import re
import sys
import time

T0 = time.perf_counter()
import numpy as np  # noqa: E402
import torch  # noqa: E402

T_IMPORT = time.perf_counter() - T0


def sync():
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def read_fis(path):
    """Sections of a .fis file as dicts of key -> value text."""
    secs, cur = [], None
    for line in open(path, encoding="utf-8"):
        line = line.split("%")[0].strip()
        if not line:
            continue
        if line.startswith("["):
            cur = {"_name": line.strip("[]"), "_rules": []}
            secs.append(cur)
        elif cur is not None and cur["_name"] == "Rules":
            cur["_rules"].append(line)
        elif cur is not None and "=" in line:
            k, v = line.split("=", 1)
            cur[k.strip()] = v.strip()
    return secs


def parse_mf(text):
    m = re.match(r"'([^']*)'\s*:\s*'([^']*)'\s*,\s*\[([^\]]*)\]", text)
    return m.group(2), [float(t) for t in m.group(3).split()]


def mf_eval(kind, p, x):
    if kind == "trimf":
        a, b, c = p
        left = (x - a) / (b - a) if b != a else (x >= b).to(x.dtype)
        right = (c - x) / (c - b) if c != b else (x <= b).to(x.dtype)
        return torch.clamp(torch.minimum(left, right), min=0.0)
    if kind == "trapmf":
        a, b, c, d = p
        left = (x - a) / (b - a) if b != a else (x >= a).to(x.dtype)
        right = (d - x) / (d - c) if d != c else (x <= d).to(x.dtype)
        return torch.clamp(torch.minimum(torch.minimum(left, right), torch.ones_like(x)), min=0.0)
    if kind == "gaussmf":
        s, c = p
        return torch.exp(-((x - c) ** 2) / (2.0 * s * s))
    raise SystemExit("fis_torch: membership function %s not written here" % kind)


class Mamdani:
    def __init__(self, path, points, dev):
        secs = read_fis(path)
        sysd = next(s for s in secs if s["_name"] == "System")
        for key, want in (("AndMethod", "'min'"), ("OrMethod", "'max'"), ("ImpMethod", "'min'"),
                          ("AggMethod", "'max'"), ("DefuzzMethod", "'centroid'")):
            if sysd.get(key, want) != want:
                raise SystemExit("fis_torch: %s %s not written here" % (key, sysd[key]))
        self.inputs = [s for s in secs if s["_name"].startswith("Input")]
        self.outputs = [s for s in secs if s["_name"].startswith("Output")]
        self.rules = []
        for r in next(s for s in secs if s["_name"] == "Rules")["_rules"]:
            m = re.match(r"([-\d\s]+),([-\d\s]+)\((\S+)\)\s*:\s*(\d)", r)
            ante = [int(t) for t in m.group(1).split()]
            cons = [int(t) for t in m.group(2).split()]
            self.rules.append((ante, cons, float(m.group(3)), int(m.group(4))))
        self.mfs = lambda s: [parse_mf(s["MF%d" % (k + 1)]) for k in range(int(s["NumMFs"]))]
        self.ranges = [[float(t) for t in s["Range"].strip("[]").split()]
                       for s in self.inputs + self.outputs]
        self.dev = dev
        ni = len(self.inputs)
        self.ygrid, self.ymf = [], []
        for o, s in enumerate(self.outputs):
            lo, hi = self.ranges[ni + o]
            y = torch.linspace(lo, hi, points, dtype=torch.float64, device=dev)
            self.ygrid.append(y)
            self.ymf.append(torch.stack([mf_eval(k, p, y) for k, p in self.mfs(s)]))

    def __call__(self, x):
        ni = len(self.inputs)
        mu = []
        for i, s in enumerate(self.inputs):
            lo, hi = self.ranges[i]
            xi = x[:, i].clamp(lo, hi)
            mu.append([mf_eval(k, p, xi) for k, p in self.mfs(s)])
        fire = []
        for ante, _, w, conn in self.rules:
            terms = []
            for i, a in enumerate(ante):
                if a == 0:
                    continue
                m = mu[i][abs(a) - 1]
                terms.append(1.0 - m if a < 0 else m)
            f = terms[0]
            for t in terms[1:]:
                f = torch.minimum(f, t) if conn == 1 else torch.maximum(f, t)
            fire.append(f * w)
        out = []
        for o in range(len(self.outputs)):
            agg = None
            for r, (_, cons, _, _) in enumerate(self.rules):
                k = cons[o]
                if k == 0:
                    continue
                set_ = self.ymf[o][abs(k) - 1]
                if k < 0:
                    set_ = 1.0 - set_
                clipped = torch.minimum(fire[r][:, None], set_[None, :])
                agg = clipped if agg is None else torch.maximum(agg, clipped)
            y = self.ygrid[o]
            num, den = (agg * y).sum(1), agg.sum(1)
            lo, hi = self.ranges[ni + o]
            out.append(torch.where(den > 0, num / den, torch.full_like(den, (lo + hi) / 2)))
        return torch.stack(out, 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("inputs")
    ap.add_argument("-o", required=True)
    ap.add_argument("--points", type=int, default=101)
    ap.add_argument("--chunk", type=int, default=1 << 20)
    a = ap.parse_args()
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    t = {"import": T_IMPORT}

    s = time.perf_counter()
    if a.inputs.endswith(".npy"):
        host = np.load(a.inputs)
    else:
        with open(a.inputs, encoding="utf-8") as f:
            head = f.readline()
        skip = 1 if re.search(r"[A-Za-z_]", head) else 0
        host = np.loadtxt(a.inputs, delimiter=",", skiprows=skip, ndmin=2)
    host = np.ascontiguousarray(host, dtype=np.float64)
    t["read"] = time.perf_counter() - s

    model = Mamdani(a.model, a.points, dev)
    s = time.perf_counter()
    x = torch.from_numpy(host).to(dev)
    sync()
    t["upload"] = time.perf_counter() - s

    s = time.perf_counter()
    y = torch.cat([model(x[i:i + a.chunk]) for i in range(0, x.shape[0], a.chunk)])
    sync()
    t["inference"] = time.perf_counter() - s

    s = time.perf_counter()
    res = y.cpu().numpy()
    t["download"] = time.perf_counter() - s

    s = time.perf_counter()
    if a.o.endswith(".npy"):
        np.save(a.o, res)
    else:
        names = [s["Name"].strip("'") for s in model.outputs]
        np.savetxt(a.o, res, fmt="%.17g", delimiter=",", header=",".join(names), comments="")
    t["write"] = time.perf_counter() - s
    t["total"] = time.perf_counter() - T0
    print(json.dumps({"device": dev, "rows": int(res.shape[0]), "times": t}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
