#!/usr/bin/env python3
"""Writes the small example inputs that README.md's commands use.

Run from the repository root: python3 examples/data/make_examples.py
Everything is generated here (no outside data), with the Python standard
library only, so the files can be remade anywhere. Licence: as haze (MIT).
"""
import math
import os
import random
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))


def write(name, text):
    with open(os.path.join(HERE, name), "w", newline="\n") as f:
        f.write(text)


def png_grey(path, width, height, pixel):
    """An 8-bit greyscale PNG; pixel(x, y) gives 0..255."""
    rows = b"".join(b"\x00" + bytes(pixel(x, y) for x in range(width)) for y in range(height))

    def chunk(kind, data):
        c = struct.pack(">I", len(data)) + kind + data
        return c + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(rows, 9)) +
                chunk(b"IEND", b""))


def npy_f32(path, rows):
    """A C-order float32 .npy (format 1.0)."""
    n, d = len(rows), len(rows[0])
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }" % (n, d)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        f.write(b"".join(struct.pack("<%df" % d, *r) for r in rows))


def main():
    rng = random.Random(20261126)

    # Inputs of the tipper (data/tipper.fis): service and food on 0..10.
    lines = ["service,food"]
    for _ in range(12):
        lines.append("%.1f,%.1f" % (rng.uniform(0, 10), rng.uniform(0, 10)))
    write("tipper_inputs.csv", "\n".join(lines) + "\n")

    # New points for `fcm predict` after a fit on data/iris.csv (same four features).
    lines = ["sepal_length,sepal_width,petal_length,petal_width"]
    for c in ((5.0, 3.4, 1.5, 0.2), (5.9, 2.8, 4.3, 1.3), (6.6, 3.0, 5.6, 2.0)):
        for _ in range(4):
            lines.append(",".join("%.1f" % (v + rng.gauss(0, 0.2)) for v in c))
    write("iris_new.csv", "\n".join(lines) + "\n")

    # Three starting centres for iris (K x d).
    write("iris_start.csv", "5.0,3.4,1.5,0.2\n5.9,2.8,4.3,1.3\n6.6,3.0,5.6,2.0\n")

    # 16 Gaussian blobs in 32 dimensions, 4000 float32 points.
    centres = [[rng.uniform(-10, 10) for _ in range(32)] for _ in range(16)]
    pts = [[v + rng.gauss(0, 1) for v in centres[i % 16]] for i in range(4000)]
    npy_f32(os.path.join(HERE, "blobs32.npy"), pts)

    # Three frames of a bright disc moving over a gradient, 160 x 120.
    os.makedirs(os.path.join(HERE, "frames"), exist_ok=True)
    for k in range(3):
        cx, cy = 50 + 30 * k, 60

        def pixel(x, y, cx=cx, cy=cy):
            if (x - cx) ** 2 + (y - cy) ** 2 < 25 ** 2:
                return 220
            return int(40 + 60 * x / 160)

        png_grey(os.path.join(HERE, "frames", "frame%d.png" % (k + 1)), 160, 120, pixel)


if __name__ == "__main__":
    main()
