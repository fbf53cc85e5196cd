"""FIRE fuzzy edge detection with haze: an image array in, its edges out,
with FIRE's rules or your own rule base.

Run it from anywhere: it finds the repository's images through
HAZE_EXAMPLES_DIR (the examples/ folder) or its own location, and writes its
results into the current folder.
"""
import os

import numpy as np

from haze.edge import EdgeDetector, edges, load_image, save_image
from haze.fis import FIS

EXAMPLES = os.environ.get("HAZE_EXAMPLES_DIR",
                          os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROOT = os.path.dirname(os.path.abspath(EXAMPLES))

# %% An image as a NumPy array: 8-bit grey, height x width
# (colour files become BT.601 luminance, as `haze edge` reads them)
img = load_image(os.path.join(ROOT, "tests", "data", "edge", "hubble.jpg"))
print("image:", img.shape, img.dtype)

# %% FIRE with the paper's parameters: edges come out dark on a light
# background (255 where the image is flat, down to about 187 on a sharp edge)
e = edges(img)
print(f"edge pixels (below 240): {np.mean(e < 240):.1%}")
save_image("hubble_edges.png", e)

# Sharper or softer: the antecedents' spread and the consequents' width
soft = edges(img, spread=32, black_width=64)
print(f"with spread 32, black width 64: {np.mean(soft < 240):.1%}")

# %% A colour array works too: RGB (or RGBA) becomes luminance first
rng = np.random.default_rng(1)
rgb = np.zeros((60, 80, 3), dtype=np.uint8)
rgb[15:45, 20:60] = (200, 40, 40)                     # a red rectangle
rgb = np.clip(rgb + rng.integers(0, 8, rgb.shape), 0, 255).astype(np.uint8)
print("rectangle edge pixels:", int((edges(rgb) < 240).sum()))

# %% A detector kept for many frames (its tables are built once)
detector = EdgeDetector(spread=48, kernel="reference")
print(detector)
for name in sorted(os.listdir(os.path.join(EXAMPLES, "data", "frames"))):
    frame = load_image(os.path.join(EXAMPLES, "data", "frames", name))
    out = detector(frame)
    save_image("edges_" + name, out)
    print(f"  {name}: {np.mean(out < 240):.1%} edge pixels")

# %% Your own rule base: any system of 8 inputs (the differences to the
# neighbours NW, N, NE, W, E, SW, S, SE) and 1 output in 0..255
rules = FIS.load(os.path.join(EXAMPLES, "data", "edge_rules.fis"))
print(rules)
mine = edges(img, rules=rules)
save_image("hubble_rules.png", mine)
print(f"own rules: {np.mean(mine > 128):.1%} pixels marked as edges (white)")

# %% Picture: the image beside its edges (with matplotlib)
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from haze.edge import plot_side_by_side
except ImportError:
    print("matplotlib is not installed: no picture")
else:
    axes = plot_side_by_side(img, e, titles=("hubble.jpg", "FIRE edges"))
    axes[0].figure.savefig("hubble_side_by_side.png", dpi=80)
    plt.close("all")
    print("wrote hubble_side_by_side.png")
