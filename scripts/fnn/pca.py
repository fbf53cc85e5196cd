#!/usr/bin/env python3
"""scripts/fnn/pca.py - principal-component features for the SONFIN quality runs.

  pca.py K TRAIN.npy TEST.npy OUT-TRAIN.npy OUT-TEST.npy

TRAIN and TEST hold one sample per row with the label in the last column
(as scripts/fnn/convert.py writes them). The principal axes are fitted on
TRAIN only (mean-centred covariance, eigenvectors of the K largest
eigenvalues); both sets are projected onto them and written as float32 with
the label last. 784 MNIST pixels become K features, so a training set small
enough to take to another machine and a network that trains faster; the
choice and its effect are reported in docs/fnn.md.
"""
import sys

import numpy as np


def main():
    if len(sys.argv) != 6:
        raise SystemExit(__doc__)
    k = int(sys.argv[1])
    train, test = np.load(sys.argv[2]), np.load(sys.argv[3])
    xtr, ytr = train[:, :-1].astype(np.float64), train[:, -1:]
    xte, yte = test[:, :-1].astype(np.float64), test[:, -1:]
    mean = xtr.mean(axis=0)
    cov = (xtr - mean).T @ (xtr - mean) / len(xtr)
    vals, vecs = np.linalg.eigh(cov)
    axes = vecs[:, np.argsort(vals)[::-1][:k]]
    for x, y, out in ((xtr, ytr, sys.argv[4]), (xte, yte, sys.argv[5])):
        np.save(out, np.hstack([(x - mean) @ axes, y]).astype(np.float32))
        print(f"{out}: {len(x)} rows, {k} features + label (column {k})")
    kept = vals[np.argsort(vals)[::-1][:k]].sum() / vals.sum()
    print(f"variance kept: {100 * kept:.1f}%")


if __name__ == "__main__":
    main()
