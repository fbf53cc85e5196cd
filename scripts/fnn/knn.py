#!/usr/bin/env python3
"""scripts/fnn/knn.py TRAIN TEST [--target COL] [--head N] [--tail N] - the
1-nearest-neighbour baseline (Euclidean, on z-scores computed from the
training set, like haze's SONFIN inputs) next to which SONFIN's accuracy is
reported. TRAIN and TEST are CSV (header, target named by --target, default
the last column) or .npy (target = last column); --scale global uses one
mean and deviation for all inputs (haze's --scale global); TEST may be the same file
as TRAIN with --head for training rows and --tail for test rows, e.g. Letter:
  knn.py data/letter-recognition.csv data/letter-recognition.csv --target lettr --head 16000 --tail 4000
"""
import argparse
import csv

import numpy as np


def load(path, target):
    if path.endswith(".npy"):
        t = np.load(path).astype(np.float64)
        return t[:, :-1], t[:, -1].astype(str)
    with open(path) as f:
        rows = list(csv.reader(f))
    head, body = rows[0], rows[1:]
    col = head.index(target) if target else len(head) - 1
    y = np.array([r[col] for r in body])
    x = np.array([[float(v) for i, v in enumerate(r) if i != col] for r in body])
    return x, y


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("train")
    ap.add_argument("test")
    ap.add_argument("--target")
    ap.add_argument("--head", type=int)
    ap.add_argument("--tail", type=int)
    ap.add_argument("--scale", choices=["input", "global"], default="input",
                    help="z-scores per input (default) or one mean and deviation for all inputs")
    a = ap.parse_args()
    xtr, ytr = load(a.train, a.target)
    xte, yte = load(a.test, a.target)
    if a.head:
        xtr, ytr = xtr[:a.head], ytr[:a.head]
    if a.tail:
        xte, yte = xte[-a.tail:], yte[-a.tail:]
    mu, sd = xtr.mean(0), xtr.std(0)
    if a.scale == "global":
        mu, sd = np.full_like(mu, xtr.mean()), np.full_like(sd, xtr.std())
    sd[sd == 0] = 1
    xtr, xte = (xtr - mu) / sd, (xte - mu) / sd
    hits = 0
    sq = (xtr ** 2).sum(1)
    for i0 in range(0, len(xte), 500):
        b = xte[i0:i0 + 500]
        d = sq[None, :] - 2 * b @ xtr.T
        hits += int((ytr[d.argmin(1)] == yte[i0:i0 + 500]).sum())
    print(f"1-NN: {len(xtr)} train, {len(xte)} test, accuracy {100.0 * hits / len(xte):.2f}%")


if __name__ == "__main__":
    main()
