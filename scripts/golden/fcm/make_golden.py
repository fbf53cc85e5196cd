#!/usr/bin/env python3
"""scripts/golden/fcm/make_golden.py SKFUZZY_DIR [OUT_DIR]

Writes the fuzzy c-means reference outputs of scikit-fuzzy's cmeans (the
peer) for tests/test_fcm.c: from fixed initial memberships U(0), the centres
V(K), memberships U(K), the objective history J(U(k-1), V(k)) and the
iteration count, on iris and on synthetic blobs, plus memberships of new
points for fixed centres (cmeans_predict, one step).

SKFUZZY_DIR is a folder that contains the `skfuzzy` package (scikit-fuzzy
0.4.x or 0.5.x, pure Python; it needs numpy and scipy). Iris comes from
scikit-learn (load_iris). Also writes data/iris.csv, the demo data set.
"""
import os
import sys

import numpy as np

if len(sys.argv) < 2:
    sys.exit(__doc__)
sys.path.insert(0, sys.argv[1])
import skfuzzy  # noqa: E402
from sklearn.datasets import load_iris, make_blobs  # noqa: E402

root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(root, "tests", "data", "fcm")
os.makedirs(out, exist_ok=True)


def save(name, a, header=None):
    a = np.atleast_2d(np.asarray(a, dtype=np.float64))
    with open(os.path.join(out, name), "w") as f:
        if header:
            f.write(",".join(header) + "\n")
        for row in a:
            f.write(",".join(repr(float(v)) for v in row) + "\n")


def case(name, x, c, m, tol, maxiter, seed):
    """maxiter is haze's max_iter; scikit-fuzzy runs at most maxiter - 1."""
    rng = np.random.RandomState(seed)
    u0 = rng.rand(c, x.shape[0])
    u0 = u0 / u0.sum(axis=0, keepdims=True)
    cntr, u, _, d, jm, p, fpc = skfuzzy.cmeans(x.T, c, m, tol, maxiter + 1, init=u0.copy())
    save(name + "_data.csv", x)
    save(name + "_u0.csv", u0.T)
    save(name + "_centers.csv", cntr)
    save(name + "_u.csv", u.T)
    save(name + "_objective.csv", jm.reshape(-1, 1))
    pe = -np.sum(u * np.log(u)) / x.shape[0]
    save(name + "_meta.csv", [[c, m, tol, maxiter, p, fpc, pe]],
         ["c", "m", "tol", "max_iter", "iterations", "partition_coefficient",
          "partition_entropy"])
    return cntr


iris = load_iris().data.astype(np.float64)
with open(os.path.join(root, "data", "iris.csv"), "w") as f:
    f.write("sepal_length,sepal_width,petal_length,petal_width\n")
    for row in iris:
        f.write(",".join("%g" % v for v in row) + "\n")
case("iris", iris, 3, 2.0, 1e-9, 200, 5)
xb, _ = make_blobs(n_samples=600, n_features=5, centers=4, cluster_std=1.5, random_state=11)
cb = case("blobs", xb, 4, 1.7, 1e-9, 300, 7)
# predict: memberships of new points for the blob centres (one step of cmeans_predict)
xn, _ = make_blobs(n_samples=50, n_features=5, centers=4, cluster_std=2.0, random_state=12)
un, _, _, _, _, _ = skfuzzy.cmeans_predict(xn.T, cb, 1.7, 0.0, 2, init=np.full((4, 50), 0.25))
save("predict_data.csv", xn)
save("predict_centers.csv", cb)
save("predict_u.csv", un.T)
