#!/usr/bin/env python3
"""scripts/fnn/synthetic.py DIM OUT.npy [ROWS] [SEED] - a synthetic bench in
the manner of seed 001, Table III (a): inputs uniform on [0, 1) ("random
uniform generated benches"), here with a two-class label from a random
hyperplane through the centre so that there is something to learn. The
label is the last column. ROWS defaults to 2000 (the thesis does not give
its row counts)."""
import sys

import numpy as np


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    dim, out = int(sys.argv[1]), sys.argv[2]
    rows = int(sys.argv[3]) if len(sys.argv) > 3 else 2000
    rng = np.random.default_rng(int(sys.argv[4]) if len(sys.argv) > 4 else 1)
    x = rng.random((rows, dim), dtype=np.float64).astype(np.float32)
    normal = rng.standard_normal(dim)
    label = ((x - 0.5) @ normal > 0).astype(np.float32)
    np.save(out, np.hstack([x, label.reshape(-1, 1)]))
    print(f"{out}: {rows} rows, {dim} inputs + label (column {dim})")


if __name__ == "__main__":
    main()
