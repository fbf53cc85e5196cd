#!/usr/bin/env python3
"""bench/e2e_edge.py - FIRE edge detection over a folder of 4K PNG frames as a
whole job: `haze edge` against PyTorch.

The job: --frames RGB PNG frames of --width x --height (made once, in
parallel, and kept: gradients, shapes that move from frame to frame, sensor
noise, zlib's default level, so the files are as large as a camera's),
FIRE with the default parameters, one grey PNG per frame written to a
folder. Every command runs as its own process, as a user runs it (best of
--reps runs; the frames in the page cache):

  haze (GPU)    haze --threads N edge DIR/*.png -o OUT/ --json   (where a GPU is)
  haze (CPU)    haze --backend cpu --threads N edge ...
  torch         bench/edge_torch.py DIR/*.png -o OUT/ --threads N: Pillow decodes
                and encodes on N threads, the same integer arithmetic on the
                GPU in PyTorch (NumPy on the CPU where PyTorch is missing)
  cupy          the same in CuPy (--cupy, where CuPy imports)

Before timing, every tool's outputs must be the same pixels as haze's (all
frames, decoded). The split: haze's own (`--json`'s "timings": wall seconds
of the phases, and decode / detect / encode seconds summed over the frames,
detect being the upload, kernel and download on a GPU, which bench_edge
beside the haze tool splits where it is built: its kernel and pageable
copy times for a 4K frame); the script's (its JSON line). The GPU's share
is the detection's seconds over the job's wall time. The floor: every core
decoding a frame and encoding its result with Pillow (processes, no GPU,
no files written), scaled to the job; also the per-core rates of Pillow
and of haze's libpng, and the PCIe copies at the pinned rate PyTorch
measures.

    python3 bench/e2e_edge.py [--haze build/haze] [--frames 200] [--width 3840]
        [--height 2160] [--threads CORES] [--reps 2] [--dir /tmp] [--cupy] [--no-cpu]

--frames 1000 is the full goal (about 13 GB of frames and 3.3 GB of results
a tool; haze holds every decoded frame, 8.3 MB each, before writing).
"""
import argparse
import concurrent.futures
import io
import json
import multiprocessing
import os
import re
import subprocess
import shutil
import sys
import time

import numpy as np

from e2e_util import pinned_rate, run

HERE = os.path.dirname(os.path.abspath(__file__))

try:
    from PIL import Image
except ImportError:  # the frames are made and compared with Pillow
    sys.exit("e2e_edge: needs Pillow (python3-pil)")


def make_frame(args):
    """Frame i of a synthetic video: a graded sky and ground, shapes that move
    a few pixels a frame, sensor noise; written at zlib's default level."""
    path, i, w, h = args
    rng = np.random.default_rng(1000 + i)
    scene = np.random.default_rng(7)  # the same shapes in every frame
    y = np.linspace(0.0, 1.0, h, dtype=np.float32)[:, None]
    x = np.linspace(0.0, 1.0, w, dtype=np.float32)[None, :]
    img = np.empty((h, w, 3), np.float32)
    horizon = int(h * 0.55)
    for c, (top, bottom, ground) in enumerate(((70, 170, 90), (110, 200, 120), (180, 235, 60))):
        img[:horizon, :, c] = top + (bottom - top) * y[:horizon] / 0.55 + 10 * x
        img[horizon:, :, c] = ground + 40 * (y[horizon:] - 0.55) + 15 * np.sin(12 * x + c)
    for k in range(60):
        cw, ch = int(scene.integers(w // 40, w // 6)), int(scene.integers(h // 40, h // 5))
        vx, vy = scene.uniform(-6, 6), scene.uniform(-2, 2)
        x0 = int(scene.integers(-cw // 2, w)) + int(vx * i)
        y0 = int(scene.integers(-ch // 2, h)) + int(vy * i)
        x0, y0 = x0 % (w + cw) - cw // 2, y0 % (h + ch) - ch // 2
        colour = scene.uniform(0, 255, 3).astype(np.float32)
        shade = scene.uniform(-60, 60)
        xa, xb, ya, yb = max(0, x0), min(w, x0 + cw), max(0, y0), min(h, y0 + ch)
        if xa >= xb or ya >= yb:
            continue
        yy, xx = np.mgrid[ya:yb, xa:xb].astype(np.float32)
        u, v = (xx - x0) / cw, (yy - y0) / ch
        grad = (colour[None, None, :] + shade * v[:, :, None]).astype(np.float32)
        if k % 3 == 0:  # an ellipse
            mask = (u - 0.5) ** 2 + (v - 0.5) ** 2 < 0.25
        elif k % 3 == 1:  # a rectangle
            mask = np.ones_like(u, bool)
        else:  # a triangle
            mask = v > np.abs(u - 0.5) * 2
        img[ya:yb, xa:xb][mask] = grad[mask]
    img += rng.standard_normal((h, w, 3), dtype=np.float32) * 3.0
    out = np.clip(img + 0.5, 0, 255).astype(np.uint8)
    Image.fromarray(out, "RGB").save(path + ".part.png", "PNG")
    os.replace(path + ".part.png", path)
    return os.path.getsize(path)


def make_frames(folder, n, w, h, procs):
    os.makedirs(folder, exist_ok=True)
    want = [os.path.join(folder, "frame_%05d.png" % i) for i in range(n)]
    todo = [(p, i, w, h) for i, p in enumerate(want) if not os.path.exists(p)]
    # (frames of an earlier, longer run stay, left out of this job)
    t = time.perf_counter()
    if todo:
        with pool(procs) as p:
            list(p.map(make_frame, todo, chunksize=1))
    return want, time.perf_counter() - t, len(todo)


def pool(procs):
    """Worker processes, started fresh (not forked from a process that may
    hold PyTorch's threads)."""
    return concurrent.futures.ProcessPoolExecutor(procs, multiprocessing.get_context("spawn"))


def load_grey(path):
    with Image.open(path) as im:
        return np.asarray(im.convert("L") if im.mode != "L" else im)


def differ(args):
    a, b = args
    x, y = load_grey(a), load_grey(b)
    return int(x.size) if x.shape != y.shape else int(np.count_nonzero(x != y))


def compare(names, dir_a, dir_b, procs):
    pairs = [(os.path.join(dir_a, n), os.path.join(dir_b, n)) for n in names]
    with pool(procs) as p:
        return sum(p.map(differ, pairs, chunksize=4))


def floor_work(args):
    """Pillow on one core: decode a frame, encode a result (zlib level 1)."""
    inp, result = args
    y = load_grey(result)
    t = time.perf_counter()
    with Image.open(inp) as im:
        im.load()
    t1 = time.perf_counter()
    buf = io.BytesIO()
    Image.fromarray(y, "L").save(buf, "PNG", compress_level=1)
    return t1 - t, time.perf_counter() - t1


def kernel_split(haze, w, h):
    """Milliseconds per frame of haze's fast GPU kernel and of one frame's
    copies up and down (pageable), from bench_edge beside the haze tool
    (its 3840x2160 row), or None."""
    exe = os.path.join(os.path.dirname(os.path.abspath(haze)), "bench", "bench_edge")
    if (w, h) != (3840, 2160) or not os.access(exe, os.X_OK):
        return None
    try:
        p = subprocess.run([exe], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                           timeout=300)
    except subprocess.TimeoutExpired:
        return None
    for line in p.stdout.splitlines():
        if line.startswith("3840x2160"):
            cols = re.findall(r"(\d+(?:\.\d+)?) (us|ms)|\s(-)(?=\s)", line[len("3840x2160"):])
            ms = [None if c[2] else float(c[0]) / (1000.0 if c[1] == "us" else 1.0)
                  for c in cols]
            if len(ms) >= 4 and ms[1] is not None and ms[3] is not None:
                return ms[1], ms[3]
    return None


def fresh(folder):
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)


def timed(cmd, out, reps):
    """Runs cmd reps times into a fresh folder out: the best wall time and
    that run's stdout as JSON."""
    best, js = float("inf"), None
    for _ in range(reps):
        fresh(out)
        w, o = run(cmd)
        if w < best:
            best, js = w, json.loads(o)
    return best, js


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--haze", default="build/haze")
    ap.add_argument("--frames", type=int, default=200)
    ap.add_argument("--width", type=int, default=3840)
    ap.add_argument("--height", type=int, default=2160)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--dir", default="/tmp")
    ap.add_argument("--cupy", action="store_true", help="also time the script in CuPy")
    ap.add_argument("--no-cpu", action="store_true", help="leave out haze --backend cpu")
    a = ap.parse_args()
    n, thr = a.frames, a.threads
    root = os.path.join(a.dir, "haze_e2e_edge_%dx%d" % (a.width, a.height))
    frames, t_make, made = make_frames(os.path.join(root, "frames"), n, a.width, a.height, thr)
    in_bytes = sum(os.path.getsize(p) for p in frames)
    for p in frames:  # into the page cache
        with open(p, "rb") as f:
            while f.read(1 << 24):
                pass
    names = [os.path.splitext(os.path.basename(p))[0] + ".png" for p in frames]

    try:
        import torch

        has_torch, gpu = True, torch.cuda.is_available()
    except ImportError:
        has_torch, gpu = False, False
    bw, gpu_name = pinned_rate()
    info = json.loads(run([a.haze, "--quiet", "edge", frames[0], "-o",
                           os.path.join(root, "probe.png"), "--json"])[1])
    haze_gpu = info["backend"] == "cuda"

    tools = []  # (label, command, out folder)
    hz = [a.haze, "--quiet", "--threads", str(thr)]
    if haze_gpu:
        tools.append(("haze (GPU)", hz + ["edge"] + frames + ["-o", root + "/out_haze/", "--json"],
                      root + "/out_haze"))
    if not haze_gpu or not a.no_cpu:
        tools.append(("haze (CPU)", [a.haze, "--quiet", "--backend", "cpu", "--threads", str(thr),
                                     "edge"] + frames + ["-o", root + "/out_cpu/", "--json"],
                      root + "/out_cpu"))
    script = ([sys.executable, os.path.join(HERE, "edge_torch.py")] + frames
              + ["--threads", str(thr)])
    tools.append((("torch (GPU)" if gpu else "torch (CPU)") if has_torch else "numpy (no torch)",
                  script + ["--backend", "torch" if has_torch else "numpy", "-o",
                            root + "/out_torch/"], root + "/out_torch"))
    if a.cupy:
        tools.append(("cupy", script + ["--backend", "cupy", "-o", root + "/out_cupy/"],
                      root + "/out_cupy"))

    print("FIRE over files: %d frames %d x %d RGB PNG (%.1f MB a frame%s), default parameters, "
          "grey PNG out; %d threads; GPU: %s; pinned host-to-device %s; best of %d runs, frames "
          "in the page cache"
          % (n, a.width, a.height, in_bytes / n / 1e6,
             ", %d made in %.0f s" % (made, t_make) if made else "", thr,
             gpu_name or ("none" if not has_torch else "none (torch without CUDA)"),
             "%.1f GB/s" % (bw / 1e9) if bw else "-", a.reps))

    # the same pixels first (one run each), then the timed runs
    results = []
    for label, cmd, out in tools:
        results.append(timed(cmd, out, 1))
    ref = tools[0][2]
    for (label, cmd, out), _ in zip(tools[1:], results[1:]):
        bad = compare(names, ref, out, thr)
        print("%s against %s: %d of %d pixels differ (%s)"
              % (label, tools[0][0], bad, n * a.width * a.height, "agree" if not bad else
                 "DISAGREE"))
        if bad:
            return 1
    for k, (label, cmd, out) in enumerate(tools):
        if a.reps > 1:
            w, js = timed(cmd, out, a.reps - 1)
            if w < results[k][0]:
                results[k] = (w, js)

    # the floors: Pillow on every core (processes), haze's libpng per core
    sample = list(zip(frames, [os.path.join(ref, m) for m in names]))[:max(thr, min(n, 2 * thr))]
    with pool(thr) as p:
        list(p.map(floor_work, sample[:thr]))  # start and warm the workers
        t = time.perf_counter()
        list(p.map(floor_work, sample, chunksize=1))
        t_all = time.perf_counter() - t
    floor = t_all * n / len(sample)
    dec1 = min(floor_work(sample[0])[0] for _ in range(2))
    enc1 = min(floor_work(sample[0])[1] for _ in range(2))

    print("\n%-18s %8s %9s %8s %7s  %s" % ("job", "wall s", "frames/s", "vs haze", "GPU %",
                                           "split (s; decode/encode/write summed over threads)"))
    base = results[0][0]
    for (label, cmd, out), (w, js) in zip(tools, results):
        if label.startswith("haze"):
            tm = js["timings"]
            share = tm["detect"] / w if js["backend"] == "cuda" else float("nan")
            split = ("setup %.2f read %.2f detect+write %.2f commit %.2f | decode %.1f detect %.3f "
                     "encode+write %.1f" % (tm["setup"], tm["read"], tm["detect_write"],
                                            tm["commit"], tm["decode"], tm["detect"],
                                            tm["encode"]))
        else:
            tm = js["times"]
            dev = tm["upload"] + tm["kernel"] + tm["download"]
            share = dev / w if gpu else float("nan")
            split = " ".join("%s %.3f" % (k, v) for k, v in tm.items() if k != "total")
        pct = "-" if share != share else "%.1f" % (100 * share)
        print("%-18s %8.2f %9.2f %7.2fx %7s  %s" % (label, w, n / w, w / base, pct, split))
    split = kernel_split(a.haze, a.width, a.height) if haze_gpu else None
    if split:
        det = results[0][1]["timings"]["detect"] / n * 1000.0
        print("haze's detect a frame: %.2f ms = kernel %.3f ms + copies up and down %.2f ms "
              "(bench_edge, pageable) + the rest %.2f ms (allocation, launch, synchronisation)"
              % (det, split[0], split[1], det - split[0] - split[1]))
    h = results[0][1]["timings"]
    print("\nfloor: %d cores decoding a frame and encoding its result with Pillow (processes, "
          "no files): %.2f s for %d frames = %.1f frames/s"
          % (thr, floor, n, n / floor))
    print("per core: Pillow decode %.3f s + encode %.3f s a frame; haze (libpng) decode %.3f s + "
          "encode and write %.3f s a frame (from --json)"
          % (dec1, enc1, h["decode"] / n, h["encode"] / n))
    haze_cpu_floor = (h["decode"] + h["encode"]) / thr
    pcie = n * a.width * a.height * 2 / bw if bw else float("nan")
    print("haze's own CPU work over %d cores: %.2f s; PCIe (grey up and down): %.2f s"
          % (thr, haze_cpu_floor, pcie))
    print("wall / floor: %s; %s / haze's CPU work = %.2fx"
          % ("; ".join("%s %.2fx" % (t[0], r[0] / floor) for t, r in zip(tools, results)),
             tools[0][0], base / haze_cpu_floor))
    return 0


if __name__ == "__main__":
    sys.exit(main())
