#!/usr/bin/env python3
"""scripts/golden/fis/fire_images.py - regenerates tests/data/edge/.

Crops of photographs shipped with scikit-image (Debian python3-skimage) are
saved as small PNG/PPM/JPEG test inputs, and the FIRE edge images of the PNG
and PPM ones are computed here independently of haze, in NumPy, from the
same integer formulation (docs/edge.md): memberships in 1/1024 steps, rule
sums S, 256-point centroid, rounded after scaling by C = 2. Needs numpy,
Pillow and scikit-image; CI only reads the committed files.
"""
import os

import numpy as np
from PIL import Image
import skimage

Q = 1024
SRC = os.path.join(os.path.dirname(skimage.__file__), "data")
OUT = os.path.join(os.path.dirname(__file__), "..", "..", "..", "tests", "data", "edge")

# NW N NE W E SW S SE; 1 negative, 2 positive (docs/edge.md, Fig. 1 of the paper)
RULES = [
    [1, 1, 1, 0, 0, 2, 2, 2], [2, 2, 2, 0, 0, 1, 1, 1],
    [1, 0, 2, 1, 2, 1, 0, 2], [2, 0, 1, 2, 1, 2, 0, 1],
    [1, 1, 0, 1, 2, 0, 2, 2], [2, 2, 0, 2, 1, 0, 1, 1],
    [0, 1, 1, 2, 1, 2, 2, 0], [0, 2, 2, 1, 2, 1, 1, 0],
]
OFFS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]


def luma(rgb):
    rgb = rgb.astype(np.int64)
    return ((299 * rgb[..., 0] + 587 * rgb[..., 1] + 114 * rgb[..., 2] + 500) // 1000).astype(np.uint8)


def pos(d, t):
    return np.where(d <= -t, 0, np.where(d >= t, Q, ((d + t) * Q) // (2 * t)))


def fire(img, spread=64, width=128, scale=2):
    g = img.astype(np.int64)
    p = np.pad(g, 1, mode="edge")
    h, w = g.shape
    d = [p[1 + dy:1 + dy + h, 1 + dx:1 + dx + w] - g for dy, dx in OFFS]
    best = np.zeros_like(g)
    for r in RULES:
        s = np.zeros_like(g)
        for m, a in enumerate(r):
            if a == 1:
                s += pos(-d[m], spread)
            elif a == 2:
                s += pos(d[m], spread)
        best = np.maximum(best, s)
    k = np.arange(256)
    black = np.where(k >= width, 0, ((width - k) * Q) // width)
    white = black[::-1]
    s = best[..., None]
    agg = np.maximum(np.minimum(s, 6 * black), np.minimum(6 * Q - s, 6 * white))
    num = (agg * k).sum(axis=-1)
    den = agg.sum(axis=-1)
    v = (2 * scale * num + den) // (2 * den)
    return np.minimum(v, 255).astype(np.uint8)


def save_pgm(path, a):
    with open(path, "wb") as f:
        f.write(b"P5\n%d %d\n255\n" % (a.shape[1], a.shape[0]))
        f.write(a.tobytes())


def main():
    os.makedirs(OUT, exist_ok=True)
    cam = np.array(Image.open(os.path.join(SRC, "camera.png")).convert("L"))[60:156, 180:300]
    Image.fromarray(cam).save(os.path.join(OUT, "camera.png"))
    save_pgm(os.path.join(OUT, "camera_fire.pgm"), fire(cam))
    astro = np.array(Image.open(os.path.join(SRC, "astronaut.png")).convert("RGB"))[::4, ::4][:96, :112]
    Image.fromarray(astro).save(os.path.join(OUT, "astronaut.png"))
    save_pgm(os.path.join(OUT, "astronaut_fire.pgm"), fire(luma(astro)))
    coins = np.array(Image.open(os.path.join(SRC, "coins.png")).convert("L"))[100:180, 50:170]
    rgb = np.stack([coins, coins // 2, 255 - coins], axis=-1)
    with open(os.path.join(OUT, "coins.ppm"), "wb") as f:
        f.write(b"P6\n# a crop of scikit-image's coins.png, false colour\n%d %d\n255\n"
                % (rgb.shape[1], rgb.shape[0]))
        f.write(rgb.astype(np.uint8).tobytes())
    save_pgm(os.path.join(OUT, "coins_fire.pgm"), fire(luma(rgb)))
    save_pgm(os.path.join(OUT, "coins_fire_t32_w64.pgm"), fire(luma(rgb), spread=32, width=64))
    hub = Image.open(os.path.join(SRC, "hubble_deep_field.jpg")).convert("RGB").crop((0, 0, 96, 64))
    hub.save(os.path.join(OUT, "hubble.jpg"), quality=90)


if __name__ == "__main__":
    main()
