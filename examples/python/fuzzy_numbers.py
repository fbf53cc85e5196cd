"""Certified fuzzy arithmetic with haze: fuzzy numbers as nested alpha-cuts
whose bounds are rounded outward, so every cut of a result contains the
exact result. The Python twin of `haze fuzzy eval`.

Run it from anywhere; it writes its picture (when matplotlib is installed)
into the current folder.
"""
from fractions import Fraction

import numpy as np

from haze.fuzzy import FuzzyArray, axpy, crisp, fuzzy_options, gauss, interval, trap, tri

# %% A triangular fuzzy number: "about 0.3", from 0.2 to 0.4.
# Parameters given as text are exact decimals: 0.3 is no double, so the
# library encloses it and cuts outward (the command line reads them the same way).
a = tri("0.2", "0.3", "0.4")
print(a)

# `haze fuzzy eval "tri(0.2,0.3,0.4)*2 + 0.1"` in Python: numbers are
# promoted to crisp numbers; crisp("0.1") is the decimal 0.1, enclosed
b = a * 2 + crisp("0.1")
lo, hi = b.kernel
print("kernel of 2a + 0.1:", lo, hi)

# %% Exact read-out: the bounds as C99 hex floats (`--exact`), and a proof
# with Python's fractions that the kernel contains 0.7 exactly
for level, (l, h) in zip(b.alphas, b.hex()):
    print(f"  alpha {level:<5} [{l}, {h}]")
klo, khi = (Fraction(float.fromhex(x)) for x in b.hex()[0])
assert klo <= Fraction("0.7") <= khi
print("0.7 lies in the kernel:", klo <= Fraction("0.7") <= khi)

# A Python float is a double and is taken as it is: tri(0.2, 0.3, 0.4) has
# the double nearest to 0.3 as its kernel, a point
print("float parameters:", tri(0.2, 0.3, 0.4).kernel)

# %% More cuts, other encodings and single precision
g = gauss("1.5", "0.25", 3, cuts=8, encoding="mr")        # midpoint-radius
print(g)
print("midpoint", g.midpoint, "radii", g.radii)
print("single precision:", tri(1, 2, 3, precision="single").to_csv(exact=True), sep="\n")

# %% Division by a number whose cuts contain 0 is an error, unless the IEEE
# 1788 hull (unbounded cuts) is asked for
with fuzzy_options(div_zero="hull"):
    print("1 / [-1, 1] =", (1 / interval(-1, 1)).kernel)

# %% Arrays of fuzzy numbers: element-wise operations on the CPU or the GPU
# (the context's backend; device arrays stay in GPU memory between calls)
rng = np.random.default_rng(0)
m = rng.uniform(1, 2, 100_000)
x = FuzzyArray.tri(m - 0.1, m, m + 0.1, cuts=4)
y = x * x + trap(0, "0.5", 1, 2)
print(y, "first centroids:", np.round(y.centroid()[:3], 4))
print("lower bounds, first number:", y.lower[0])

# The AXPY series of the paper (x <- a x + b, five steps) and sort-by-key
s = axpy(FuzzyArray.from_numbers([tri("0.1", "0.2", "0.3"), tri("0.5", "0.6", "0.7")]),
         crisp(1), iters=5)
print("1 + a + ... + a^4 for a ~ 0.2 and 0.6:", s.cut(0))
keys = s.sort_by_key([2, 1])
print("sorted by key:", keys, s.cut(0)[0])

# %% A picture: the cuts as nested intervals
try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    a.plot(ax=ax, label="a = tri(0.2, 0.3, 0.4)")
    b.plot(ax=ax, label="2a + 0.1")
    (a * a).plot(ax=ax, label="a * a")
    ax.set_title("alpha-cuts of certified fuzzy numbers")
    fig.tight_layout()
    fig.savefig("fuzzy_numbers.png")
    print("wrote fuzzy_numbers.png")
except ImportError:
    print("matplotlib is not installed: no picture")
