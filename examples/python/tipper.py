"""Fuzzy inference with haze: the tipping problem, read from a file and built
in code, evaluated on NumPy arrays, inspected and drawn.

Run it from anywhere: it finds the repository's data through
HAZE_EXAMPLES_DIR (the examples/ folder) or its own location, and writes
its pictures into the current folder.
"""
import os

import numpy as np

import haze
from haze.fis import FIS

EXAMPLES = os.environ.get("HAZE_EXAMPLES_DIR",
                          os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROOT = os.path.dirname(os.path.abspath(EXAMPLES))

# %% A model from a file
# MATLAB's tipper: service (0..10) and food (0..10) decide the tip (0..30 %).
# `FIS.load` reads MATLAB/Octave .fis files and fuzzylite .fll engines.
tipper = FIS.load(os.path.join(ROOT, "data", "tipper.fis"))
print(tipper)
for var in tipper.inputs + tipper.outputs:
    print(" ", var)
for rule in tipper.rules:
    print("  ", rule)

# %% Evaluate a batch: one row per sample, one column per input
X = np.array([[2, 1], [4, 5], [7, 8], [1, 2]], dtype=float)
print("tips:", tipper.eval(X)[:, 0].round(4))          # 7.0169 14.4585 20.3414 5.5586
print("one sample:", tipper([3.5, 9.0]))

# Columns by name, from a table with a header (or a dict, or a DataFrame)
table = haze.read_table(os.path.join(EXAMPLES, "data", "tipper_inputs.csv"))
named = dict(zip(table.columns, table.data.T))
tips = tipper.eval(named)
print(f"{len(tips)} rows from tipper_inputs.csv, mean tip {tips.mean():.3f}")

# %% Sampling: MATLAB's 101 points by default; Octave's trapz, fuzzylite's
# midpoints or the exact closed form on request
for mode in ("matlab", "octave", "exact"):
    tipper.mode = mode
    print(f"{mode:7s} tip at (1, 2): {tipper([1, 2])[0]:.6f}")
tipper.mode = "matlab"

# %% Why: each rule's firing at one input vector (like MATLAB's ruleview)
why = tipper.explain([2, 1])
for rule, degree in zip(tipper.rules, why.firing):
    print(f"  {degree:.4f}  {rule}")

# %% The same system built in code: haze writes it as .fis text and reads it
# with the library's own reader, so it evaluates identically
fis = FIS("tipper")
service = fis.add_input("service", (0, 10))
service.add_term("poor", "gaussmf", [1.5, 0])
service.add_term("good", "gaussmf", [1.5, 5])
service.add_term("excellent", "gaussmf", [1.5, 10])
fis.add_input("food", (0, 10), [("rancid", "trapmf", [0, 0, 1, 3]),
                                ("delicious", "trapmf", [7, 9, 10, 10])])
fis.add_output("tip", (0, 30), [("cheap", "trimf", [0, 5, 10]),
                                ("average", "trimf", [10, 15, 20]),
                                ("generous", "trimf", [20, 25, 30])])
fis.add_rule("if service is poor or food is rancid then tip is cheap")
fis.add_rule("if service is good then tip is average")
fis.add_rule("if service is excellent or food is delicious then tip is generous")
grid = np.random.default_rng(0).uniform(0, 10, (10000, 2))
print("built == loaded, bit for bit:", np.array_equal(fis.eval(grid), tipper.eval(grid)))
fis.save("my_tipper.fis")      # MATLAB .fis
fis.save("my_tipper.fll")      # fuzzylite's language
print("saved my_tipper.fis and my_tipper.fll")

# %% Pictures (with matplotlib): membership functions and the control surface
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("matplotlib is not installed: no pictures")
else:
    axes = tipper.plot_mfs()
    axes[0].figure.savefig("tipper_mfs.png", dpi=80)
    ax, _ = tipper.plot_surface(grid=31)
    ax.figure.savefig("tipper_surface.png", dpi=80)
    plt.close("all")
    print("wrote tipper_mfs.png and tipper_surface.png")
