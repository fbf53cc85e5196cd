"""FIRE fuzzy edge detection (Russo and Ramponi's Fuzzy Inference Ruled by
Else-action, as haze runs it on the CPU and the GPU), and 8-bit grey images
in and out.

>>> import haze
>>> img = haze.load_image("camera.png")      # uint8, height x width
>>> e = haze.edges(img)                        # edges dark on light
>>> haze.save_image("camera_edges.png", e)

Images are NumPy arrays of height x width pixels:

* 2-D ``uint8`` (C order) is used as it is, without a copy;
* 2-D floating point is taken as 0..255, or as 0..1 when its largest value is
  at most 1 (as scikit-image makes them), rounded to the nearest byte and
  clipped; other integer types are clipped to 0..255;
* 3-D ``(height, width, 3)`` RGB or ``(height, width, 4)`` RGBA (alpha
  dropped) becomes luminance as the command line's image reader makes it:
  ITU-R BT.601, ``Y = (299 R + 587 G + 114 B + 500) // 1000`` on bytes (a
  float colour image is first turned into bytes as above).

The result is a new ``uint8`` array of the same height and width.
"""

import numbers

import numpy as np

from . import _ext
from ._core import _ctx, _fspath

__all__ = ["edges", "EdgeDetector", "load_image", "save_image", "to_gray",
           "plot_side_by_side"]


def _to_bytes(a):
    """Any array of pixel values as uint8: floats as 0..255 (0..1 when at most
    1), rounded half up and clipped; integers clipped."""
    if a.dtype == np.uint8:
        return a
    if a.dtype == np.bool_:
        return a.astype(np.uint8) * 255
    if a.dtype.kind in "iu":
        return np.clip(a, 0, 255).astype(np.uint8)
    if a.dtype.kind != "f":
        raise TypeError(f"an image must hold numbers, not {a.dtype}")
    f = a.astype(np.float64)
    if not np.isfinite(f).all():
        raise ValueError("an image must not hold NaN or infinities")
    if f.size and f.max() <= 1.0:
        f = f * 255.0
    return np.clip(np.floor(f + 0.5), 0, 255).astype(np.uint8)


def to_gray(image):
    """``image`` as a C-ordered 2-D uint8 array (see the module's notes):
    no copy for a C-ordered 2-D uint8 array."""
    a = np.asarray(image)
    if a.ndim == 3:
        if a.shape[2] not in (3, 4):
            raise ValueError(f"a colour image is height x width x 3 (RGB) or 4 (RGBA), "
                             f"got {a.shape}")
        c = _to_bytes(a[:, :, :3]).astype(np.uint32)
        y = (299 * c[:, :, 0] + 587 * c[:, :, 1] + 114 * c[:, :, 2] + 500) // 1000
        return np.ascontiguousarray(y.astype(np.uint8))
    if a.ndim != 2:
        raise ValueError(f"an image is a 2-D (grey) or 3-D (colour) array, got {a.ndim}-D")
    if a.shape[0] < 1 or a.shape[1] < 1:
        raise ValueError(f"an empty image ({a.shape[0]} x {a.shape[1]})")
    return np.ascontiguousarray(_to_bytes(a))


def load_image(path, ctx=None):
    """Reads a PNG, JPEG, PGM or PPM file (by its magic bytes) as a 2-D uint8
    array of luminance (colour: BT.601; alpha dropped; 16-bit samples
    rounded to 8 bits). An unreadable or corrupt file raises
    :class:`haze.HazeIOError` or :class:`haze.ParseError` naming it."""
    c = _ctx(ctx)
    buf, w, h = _ext.image_load(c._h, _fspath(path))
    return np.frombuffer(buf, dtype=np.uint8).reshape(h, w)


def save_image(path, image, ctx=None):
    """Writes a grey image in the format the extension says (.png, .jpg/.jpeg,
    .pgm, .ppm; PNG without one); the file is replaced only once complete.
    ``image`` is converted as :func:`to_gray` does."""
    c = _ctx(ctx)
    _ext.image_save(c._h, to_gray(image), _fspath(path))


class EdgeDetector:
    """A reusable FIRE edge detector (it keeps its tables, and on the GPU
    their device copies, between images).

    Parameters
    ----------
    rules : FIS or path, optional
        The user's own rule base instead of FIRE's (the paper's
        generalisation): a Mamdani or Sugeno system with 8 inputs, the
        differences neighbour - centre in the order NW, N, NE, W, E, SW, S, SE
        (each in -255..255), and 1 output, rounded and clipped to 0..255 (NaN
        becomes 255). A path is read with :meth:`haze.FIS.load`.
    spread : int
        Antecedents: negative is the trapezoid [-256 -255 -spread spread],
        positive its mirror image (1..255, default 64).
    black_width : int
        Consequent black: the triangle from 1 at 0 to 0 at black_width; white
        its mirror image (1..255, default 128).
    scale : int
        The centroid times ``scale``, rounded and clipped (1..8, default 2).
    kernel : {"fast", "reference"}
        Which implementation; both give the same bytes.
        (spread, black_width, scale and kernel are FIRE's: with ``rules`` they
        are refused.)
    ctx, backend :
        Where to compute (see :class:`haze.Context`).

    Notes
    -----
    With the CUDA backend the first run copies the tables to the device; run
    the detector once before threads share it.
    """

    def __init__(self, rules=None, spread=None, black_width=None, scale=None, kernel=None,
                 ctx=None, backend=None):
        self._c = _ctx(ctx, backend)
        given = {n: v for n, v in (("spread", spread), ("black_width", black_width),
                                   ("scale", scale), ("kernel", kernel)) if v is not None}
        if rules is not None and given:
            raise TypeError(f"{', '.join(given)}: FIRE's options do not apply to a rule base "
                            "of your own (rules=)")
        spread = 64 if spread is None else spread
        black_width = 128 if black_width is None else black_width
        scale = 2 if scale is None else scale
        kernel = "fast" if kernel is None else kernel
        k = str(kernel).lower()
        if k not in ("fast", "reference"):
            raise ValueError(f"kernel must be 'fast' or 'reference', not {kernel!r}")
        self.kernel = k
        self.options = {"spread": spread, "black_width": black_width, "scale": scale}
        for name, v in self.options.items():
            if isinstance(v, bool) or not isinstance(v, numbers.Integral):
                raise TypeError(f"{name} must be an integer, not {type(v).__name__}")
        self.rules = None
        self._h = None
        if rules is not None:
            from .fis import FIS
            self.rules = rules if isinstance(rules, FIS) else FIS.load(rules, ctx=self._c)
            if len(self.rules.inputs) != 8 or len(self.rules.outputs) != 1:
                from ._core import MismatchError
                raise MismatchError(
                    f"edge rules: the model needs 8 inputs (neighbour differences NW, N, NE, W, "
                    f"E, SW, S, SE) and 1 output, {self.rules.name} has "
                    f"{len(self.rules.inputs)} and {len(self.rules.outputs)}")
        else:
            self._h = _ext.edge_new(self._c._h, int(spread), int(black_width), int(scale))

    def detect(self, image, out=None):
        """The edge image of ``image`` (a new uint8 array, or written into
        ``out``, a C-ordered uint8 array of the same shape)."""
        src = to_gray(image)
        if out is None:
            out = np.empty(src.shape, dtype=np.uint8)
        elif (not isinstance(out, np.ndarray) or out.dtype != np.uint8 or out.shape != src.shape
              or not out.flags.c_contiguous or not out.flags.writeable):
            raise ValueError(f"out must be a writable C-ordered uint8 array of shape {src.shape}")
        if self.rules is not None:
            h = self.rules._handle()
            with self.rules._reading():
                _ext.edge_run_fis(self._c._h, h, src, out)
        else:
            _ext.edge_run(self._c._h, self._h, self.kernel == "reference", src, out)
        return out

    __call__ = detect

    def __repr__(self):
        if self.rules is not None:
            return f"haze.EdgeDetector(rules={self.rules!r}, backend={self._c.backend!r})"
        o = self.options
        return (f"haze.EdgeDetector(spread={o['spread']}, black_width={o['black_width']}, "
                f"scale={o['scale']}, kernel={self.kernel!r}, backend={self._c.backend!r})")


def edges(image, rules=None, ctx=None, backend=None, **options):
    """FIRE edges of ``image``: dark edges on a light background, as
    ``haze edge`` writes them (the same bytes).

    ``image``: a 2-D grey or 3-D RGB(A) array (see the module's notes) or a
    file path (read with :func:`load_image`). ``rules``: the user's own rule
    base (a :class:`haze.FIS` or a path; see :class:`EdgeDetector`).
    ``options``: ``spread``, ``black_width``, ``scale``, ``kernel`` as for
    :class:`EdgeDetector`. Returns a uint8 array of the image's height and
    width."""
    if isinstance(image, (str, bytes)) or hasattr(image, "__fspath__"):
        c = _ctx(ctx, backend)
        image = load_image(image, ctx=c)
        ctx, backend = c, None
    return EdgeDetector(rules=rules, ctx=ctx, backend=backend, **options).detect(image)


def plot_side_by_side(image, edges, ax=None, titles=("image", "edges")):
    """Draws ``image`` and its ``edges`` side by side in grey (two Axes: pass
    a pair as ``ax`` or get a new figure). Returns the pair of Axes. Needs
    matplotlib."""
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError("haze's plots need matplotlib (Debian: python3-matplotlib; "
                          "pip install matplotlib)") from None
    a, e = to_gray(image), to_gray(edges)
    if ax is None:
        w = 10.0
        h = max(2.0, w / 2 * a.shape[0] / a.shape[1] + 0.6)
        _, ax = plt.subplots(1, 2, figsize=(w, h))
    axes = list(np.ravel(ax))
    if len(axes) != 2:
        raise ValueError("ax must be a pair of Axes")
    for x, img, title in zip(axes, (a, e), titles):
        x.imshow(img, cmap="gray", vmin=0, vmax=255, interpolation="nearest")
        x.set_title(title)
        x.set_axis_off()
    return axes
