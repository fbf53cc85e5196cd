#!/usr/bin/env python3
"""scripts/fnn/convert.py - converts data sets to tables haze reads.

  convert.py idx IMAGES LABELS OUT.npy   MNIST-style IDX files (optionally
                                         gzipped) -> float32 .npy, one row per
                                         image, pixels 0..255, label last
  convert.py sklearn NAME OUT.csv        a data set bundled with scikit-learn
                                         (iris, wine, breast_cancer, digits;
                                         diabetes, a regression target)
                                         -> CSV with header, label column last
"""
import gzip
import struct
import sys

import numpy as np


def read_idx(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    zero, dtype, ndim = struct.unpack(">HBB", data[:4])
    if zero != 0 or dtype != 0x08:
        raise SystemExit(f"{path}: not an unsigned-byte IDX file")
    shape = struct.unpack(">" + "I" * ndim, data[4:4 + 4 * ndim])
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim).reshape(shape)


def main():
    if len(sys.argv) != 5 and not (len(sys.argv) == 4 and sys.argv[1] == "sklearn"):
        raise SystemExit(__doc__)
    if sys.argv[1] == "idx":
        images, labels = read_idx(sys.argv[2]), read_idx(sys.argv[3])
        x = images.reshape(images.shape[0], -1).astype(np.float32)
        table = np.hstack([x, labels.reshape(-1, 1).astype(np.float32)])
        np.save(sys.argv[4], table)
        print(f"{sys.argv[4]}: {table.shape[0]} rows, {x.shape[1]} inputs + label (column {x.shape[1]})")
    elif sys.argv[1] == "sklearn":
        from sklearn import datasets
        name, out = sys.argv[2], sys.argv[3]
        d = getattr(datasets, "load_" + name)()
        names = [str(n).replace(" ", "_").replace(",", "_") for n in getattr(d, "feature_names", [])]
        if len(names) != d.data.shape[1]:
            names = [f"x{j}" for j in range(d.data.shape[1])]
        with open(out, "w") as f:
            f.write(",".join(names + ["label"]) + "\n")
            for row, y in zip(d.data, d.target):
                t = repr(float(y)) if name == "diabetes" else str(int(y))
                f.write(",".join(repr(float(v)) for v in row) + f",{t}\n")
        print(f"{out}: {d.data.shape[0]} rows, {d.data.shape[1]} inputs + label")
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
