"""Bounding rounding errors with haze's static analyser: a Gappa or FPCore
script in, certified enclosures of its errors out, as objects. The Python
twin of `haze prec`.

Run it from anywhere: it finds the repository's scripts through
HAZE_EXAMPLES_DIR (the examples/ folder) or its own location, and writes its
picture (when matplotlib is installed) into the current folder.
"""
import os

import numpy as np

from haze.prec import PrecScript, analyse

EXAMPLES = os.environ.get("HAZE_EXAMPLES_DIR",
                          os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# %% `haze prec examples/prec/fixed_point.g`: the fixed-point example of
# Linderman et al. (CGO 2010). Plain intervals (Gappa's engine) bound the
# error by 0.28125, affine forms by 0.21875, which is tight.
path = os.path.join(EXAMPLES, "prec", "fixed_point.g")
for engine in ("interval", "affine"):
    r = analyse(path, engine)
    g = r.goals[0]
    print(f"{engine:>8}: {g.text}  in [{g.lo_decimal}, {g.hi_decimal}]  exactly {g.exact[1]}")

# %% A script as text: the error of x*x - y*y against the exact value, for
# binary64 inputs in [1, 2]; the bound is proved
script = """
@rnd = float<ieee_64,ne>;
x = rnd(xr);  y = rnd(yr);
z rnd= x*x - y*y;
zm = xr*xr - yr*yr;
{ xr in [1,2] /\\ yr in [1,2] -> |z - zm| <= 1b-49 }
"""
r = analyse(script, name="squares.g")
print(r)
print("all proved:", r.all_proved)

# %% Parse once, analyse several ways: bisecting the input range tightens
# the bound; the script can also be executed at points (exact arithmetic for
# the ideal values), and the errors found there must stay inside the bounds
taylor = """
@rnd = float<ieee_64,ne>;
x = rnd(xm);
p rnd= x - x*x*x/6 + x*x*x*x*x/120;
pm = xm - xm*xm*xm/6 + xm*xm*xm*xm*xm/120;
{ xm in [-1.5, 1.5] -> p - pm in ? }
"""
s = PrecScript(taylor, name="taylor.g")
print(s)
for n in (1, 4, 16):
    r = s.analyse("both", bisect={"xm": n}, refine=0)
    print(f"  {n:>2} sub-ranges: error within +-{r.goals[0].magnitude:.3e} ({r.boxes} boxes)")
lo, hi = s.ranges["xm"]
errors = s.eval(np.linspace(lo, hi, 201).reshape(-1, 1))[:, 0]
print(f"  sampled errors: largest {np.abs(errors).max():.3e}")
assert np.all(np.abs(errors) <= r.goals[0].magnitude)

# %% FPCore works the same; a loop is analysed unrolled
fp = """(FPCore (a) :name "newton-sqrt" :pre (<= 1 a 4) :precision binary64
 (while (< i 5) ([i 0 (+ i 1)] [x 1.5 (* 0.5 (+ x (/ a x)))]) x))"""
print(analyse(fp, unroll=100))

# %% A picture of the error bounds of a ten-step IIR filter
try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    r = analyse(os.path.join(EXAMPLES, "prec", "iir_stable_10.g"))
    fig, ax = plt.subplots(figsize=(6, 3))
    r.plot(ax=ax)
    fig.tight_layout()
    fig.savefig("rounding.png")
    print("wrote rounding.png")
except ImportError:
    print("matplotlib is not installed: no picture")
