#!/usr/bin/env python3
"""bench/edge_torch.py - FIRE edge detection over a folder of frames, as a
PyTorch (or CuPy) user would write it.

The competitor of `haze edge FRAMES... -o OUT/` in bench/e2e_edge.py. The
same integer arithmetic as haze (docs/edge.md, "Exactness"), written over an
array module so that PyTorch, CuPy and NumPy all run it:

  - luminance of a colour frame: Y = (299 R + 587 G + 114 B + 500) // 1000;
  - the eight differences to the neighbours (NW, N, NE, W, E, SW, S, SE),
    borders replicated;
  - memberships in 1/1024 steps, rounded down:
    positive(d) = clip((d + T) * 1024 // 2T, 0, 1024), negative(d) =
    positive(-d);
  - the eight rules' sums S of six memberships, S_max = max over the rules;
  - the output byte from a table over S = 0..6144 (C x the centroid of the
    256-point aggregate max(min(S, 6 black(k)), min(6144 - S, 6 white(k))),
    rounded half up, clipped to 255): the byte depends on S alone, so the
    table is the 256-point defuzzification done once per value of S.

So the bytes are haze's, exactly. Frames are decoded with Pillow (imageio or
scikit-image if Pillow is missing) on a pool of --threads threads, a window
of frames ahead of the device; each frame goes up, through FIRE and back,
and is encoded to PNG (zlib level 1, as haze writes it) and written by the
pool while the next frames are detected. Results go to OUT/<name>.png, the
layout `haze edge` writes.

    python3 bench/edge_torch.py IN_DIR|FRAME... -o OUT/ [--backend torch|cupy|numpy]
        [--threads N] [--spread 64] [--black-width 128] [--scale 2]

It prints one line of JSON: the frame count and the seconds of its parts:
import, decode, encode and write (summed over the pool's threads), upload,
kernel and download (on the calling thread, each after a device
synchronisation), and total (the wall time from the start).
"""
import argparse
import collections
import concurrent.futures
import io
import json
import os
import sys
import time
import warnings

T0 = time.perf_counter()
import numpy as np  # noqa: E402

# the image library: Pillow, else imageio, else scikit-image
try:
    from PIL import Image

    LIB = "pillow"
except ImportError:  # pragma: no cover - where Pillow is missing
    Image = None
    try:
        import imageio.v3 as iio

        LIB = "imageio"
    except ImportError:
        import skimage.io as skio

        LIB = "skimage"

# torch.from_numpy warns once about the read-only arrays Pillow hands out;
# nothing writes to them
warnings.filterwarnings("ignore", message="The given NumPy array is not writable")

EXTS = (".png", ".jpg", ".jpeg", ".pgm", ".ppm")

# The eight rules (Fig. 1 of the FIRE paper): per neighbour NW, N, NE, W, E,
# SW, S, SE, 0 unused, 1 negative, 2 positive.
RULES = ((1, 1, 1, 0, 0, 2, 2, 2), (2, 2, 2, 0, 0, 1, 1, 1), (1, 0, 2, 1, 2, 1, 0, 2),
         (2, 0, 1, 2, 1, 2, 0, 1), (1, 1, 0, 1, 2, 0, 2, 2), (2, 2, 0, 2, 1, 0, 1, 1),
         (0, 1, 1, 2, 1, 2, 2, 0), (0, 2, 2, 1, 2, 1, 1, 0))
Q = 1024
SMAX = 6 * Q


def fire_table(spread, black_width, scale):
    """The output byte for every rule sum S (0..6144): the 256-point
    min-implication, max-aggregation and centroid, times C, rounded."""
    k = np.arange(256, dtype=np.int64)
    black = np.where(k < black_width, (black_width - k) * Q // black_width, 0)
    white = black[::-1]
    s = np.arange(SMAX + 1, dtype=np.int64)[:, None]
    agg = np.maximum(np.minimum(s, 6 * black[None, :]), np.minimum(SMAX - s, 6 * white[None, :]))
    num, den = (agg * k[None, :]).sum(axis=1), agg.sum(axis=1)
    return np.minimum((2 * scale * num + den) // (2 * den), 255).astype(np.uint8)


class Xp:
    """The few calls that differ between NumPy/CuPy and PyTorch."""

    def __init__(self, backend):
        self.backend = backend
        self.torch = None
        if backend == "torch":
            import torch

            self.torch = torch
            self.dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
            self.m = torch
        elif backend == "cupy":
            import cupy

            self.m = cupy
        else:
            self.m = np

    def name(self):
        if self.torch is not None:
            t = self.torch
            return "torch %s on %s" % (t.__version__, t.cuda.get_device_name(0)
                                       if self.dev.type == "cuda" else "cpu")
        if self.backend == "cupy":
            return "cupy %s on %s" % (self.m.__version__,
                                      self.m.cuda.runtime.getDeviceProperties(0)["name"].decode())
        return "numpy %s on the cpu" % np.__version__

    def sync(self):
        if self.torch is not None:
            if self.dev.type == "cuda":
                self.torch.cuda.synchronize()
        elif self.backend == "cupy":
            self.m.cuda.Stream.null.synchronize()

    def up(self, a):
        if self.torch is not None:
            return self.torch.from_numpy(a).to(self.dev)
        if self.backend == "cupy":
            return self.m.asarray(a)
        return a

    def down(self, a):
        if self.torch is not None:
            return a.cpu().numpy()
        if self.backend == "cupy":
            return self.m.asnumpy(a)
        return a

    def cat(self, parts, axis):
        if self.torch is not None:
            return self.torch.cat(parts, dim=axis)
        return self.m.concatenate(parts, axis=axis)

    def i32(self, a):
        return a.to(self.torch.int32) if self.torch is not None else a.astype(self.m.int32)

    def clip(self, a, lo, hi):
        if self.torch is not None:
            return self.torch.clamp(a, lo, hi)
        return self.m.clip(a, lo, hi)

    def maximum(self, a, b):
        return self.m.maximum(a, b)

    def take(self, table, idx):
        if self.torch is not None:
            return table[idx.long()]
        return table[idx]


def luminance(x, frame):
    """BT.601 luminance in integers, as haze reads a colour image."""
    if frame.ndim == 2:
        return x.i32(frame)
    f = x.i32(frame)
    return (299 * f[:, :, 0] + 587 * f[:, :, 1] + 114 * f[:, :, 2] + 500) // 1000


def fire(x, g, spread, table):
    """FIRE on the grey frame g (int32, H x W, on the device): uint8 H x W."""
    up = x.cat([g[:1], g[:-1]], 0)
    dn = x.cat([g[1:], g[-1:]], 0)

    def left(a):
        return x.cat([a[:, :1], a[:, :-1]], 1)

    def right(a):
        return x.cat([a[:, 1:], a[:, -1:]], 1)

    nbrs = (left(up), up, right(up), left(g), right(g), left(dn), dn, right(dn))
    pos, neg = [], []
    for v in nbrs:
        d = v - g
        pos.append(x.clip((d + spread) * Q // (2 * spread), 0, Q))
        neg.append(x.clip((spread - d) * Q // (2 * spread), 0, Q))
    best = None
    for rule in RULES:
        s = None
        for m, a in enumerate(rule):
            if a:
                t = neg[m] if a == 1 else pos[m]
                s = t if s is None else s + t
        best = s if best is None else x.maximum(best, s)
    return x.take(table, best)


def decode(path):
    """The frame as a NumPy array: H x W (grey) or H x W x 3 (RGB), uint8."""
    if LIB == "pillow":
        with Image.open(path) as im:
            if im.mode not in ("L", "RGB"):
                im = im.convert("L" if im.mode in ("LA", "I;16", "I") else "RGB")
            a = np.asarray(im)
    elif LIB == "imageio":
        a = iio.imread(path)
    else:
        a = skio.imread(path)
    if a.ndim == 3 and a.shape[2] in (2, 4):  # alpha dropped
        a = a[:, :, :-1] if a.shape[2] == 4 else a[:, :, 0]
    if a.dtype != np.uint8:
        raise SystemExit("edge_torch: %s: only 8-bit frames are written here" % path)
    return np.ascontiguousarray(a)


def encode(y):
    """PNG bytes of the grey frame y, zlib level 1 (haze's level)."""
    buf = io.BytesIO()
    if LIB == "pillow":
        Image.fromarray(y, "L").save(buf, "PNG", compress_level=1)
    elif LIB == "imageio":
        iio.imwrite(buf, y, extension=".png")
    else:
        import imageio.v3 as iio2  # scikit-image writes through imageio

        iio2.imwrite(buf, y, extension=".png")
    return buf.getvalue()


def frame_list(inputs):
    if len(inputs) == 1 and os.path.isdir(inputs[0]):
        d = inputs[0]
        return [os.path.join(d, f) for f in sorted(os.listdir(d)) if f.lower().endswith(EXTS)]
    return list(inputs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("inputs", nargs="+", help="a folder of frames, or the frames")
    ap.add_argument("-o", "--output", required=True, help="folder for OUT/<name>.png")
    ap.add_argument("--backend", choices=("torch", "cupy", "numpy"), default="torch")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--spread", type=int, default=64)
    ap.add_argument("--black-width", type=int, default=128)
    ap.add_argument("--scale", type=int, default=2)
    a = ap.parse_args()
    x = Xp(a.backend)
    t_import = time.perf_counter() - T0
    paths = frame_list(a.inputs)
    names = [os.path.splitext(os.path.basename(p))[0] for p in paths]
    if len(set(names)) != len(names):
        sys.exit("edge_torch: two inputs with the same name")
    os.makedirs(a.output, exist_ok=True)
    table = x.up(fire_table(a.spread, a.black_width, a.scale))
    tm = dict(decode=0.0, upload=0.0, kernel=0.0, download=0.0, encode=0.0, write=0.0)

    def load(p):
        t = time.perf_counter()
        f = decode(p)
        return f, time.perf_counter() - t

    def save(y, name):
        t = time.perf_counter()
        data = encode(y)
        t1 = time.perf_counter()
        with open(os.path.join(a.output, name + ".png"), "wb") as fp:
            fp.write(data)
        return t1 - t, time.perf_counter() - t1

    ahead = 2 * max(1, a.threads)
    with concurrent.futures.ThreadPoolExecutor(max(1, a.threads)) as pool:
        loads, saves = collections.deque(), collections.deque()
        nxt = 0
        for i in range(len(paths)):
            while nxt < len(paths) and len(loads) < ahead:
                loads.append(pool.submit(load, paths[nxt]))
                nxt += 1
            while len(saves) > ahead:  # results not yet written: a bounded queue
                te, tw = saves.popleft().result()
                tm["encode"] += te
                tm["write"] += tw
            frame, td = loads.popleft().result()
            tm["decode"] += td
            t = time.perf_counter()
            dev = x.up(frame)
            x.sync()
            t1 = time.perf_counter()
            y = fire(x, luminance(x, dev), a.spread, table)
            x.sync()
            t2 = time.perf_counter()
            host = x.down(y)
            t3 = time.perf_counter()
            tm["upload"] += t1 - t
            tm["kernel"] += t2 - t1
            tm["download"] += t3 - t2
            saves.append(pool.submit(save, host, names[i]))
        while saves:
            te, tw = saves.popleft().result()
            tm["encode"] += te
            tm["write"] += tw
    times = dict(import_=t_import, **tm)
    times["total"] = time.perf_counter() - T0
    times = {k.rstrip("_"): round(v, 6) for k, v in times.items()}
    print(json.dumps({"frames": len(paths), "library": LIB, "device": x.name(),
                      "threads": a.threads, "times": times}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
