"""Certified fuzzy arithmetic: fuzzy numbers as nested alpha-cuts.

A fuzzy number is held by its cuts at ``n`` levels ``1 = a_1 > ... > a_n``
(by default ``1, (n-1)/n, ..., 1/n``) in one of three encodings:
``"lu"`` (lower-upper: any shape), ``"mr"`` (midpoint-radius) or ``"mi"``
(midpoint-increment), both for symmetric numbers, in double or single
precision. Every cut of a result contains the exact result of the interval
operation on the operands' cuts: the bounds are rounded outward, and the
CPU and the GPU give the same bits.

Scalars::

    >>> import haze
    >>> a = haze.tri("0.2", "0.3", "0.4")      # decimals, enclosed exactly
    >>> b = a * 2 + haze.crisp("0.1")
    >>> b.cut(0)                                # the kernel (level 1)
    (0.7, 0.7000000000000002)

Parameters given as ``str`` are read as exact decimals (or C99 hex floats)
and enclosed by their outward double rounding, as the command line reads
them, so that every cut contains the cut of the membership function of the
decimal parameters; a Python ``float`` is a double and is taken as it is
(``0.1`` is the double nearest to 1/10, not 1/10). ``int``,
:class:`decimal.Decimal` and :class:`fractions.Fraction` are exact as well;
a pair ``(lo, hi)`` of doubles is a parameter known only as an enclosure.

Arrays (:class:`FuzzyArray`) hold many numbers of one shape, on the CPU or
in the memory of the context's GPU, with element-wise operations, the AXPY
series (:func:`axpy`) and sort-by-key.

Division by a number whose cuts contain 0 raises :class:`haze.DomainError`;
``div_zero="hull"`` (the :meth:`FuzzyNumber.div` argument, or
``with haze.fuzzy_options(div_zero="hull"):`` for the operators) gives the
IEEE 1788 hull instead (unbounded cuts). An overflow gives unbounded cuts
(still an enclosure) and a :class:`FuzzyOverflowWarning`.
"""

import contextlib
import fractions
import math
import numbers
import threading
import warnings
from decimal import Decimal

import numpy as np

from . import _ext
from ._core import DomainError, ParseError, _ctx, default_context

__all__ = [
    "FuzzyNumber", "FuzzyArray", "FuzzyOverflowWarning", "tri", "trap", "gauss", "crisp",
    "interval", "axpy", "fuzzy_options", "parse_number",
]

MAX_CUTS = 64

_ADD, _SUB, _MUL, _DIV, _NEG, _RECIP, _SQR, _SQRT = range(8)
_ST_DOMAIN, _ST_RANGE = -8, -9
_ENCODINGS = ("lu", "mr", "mi")
_PRECISIONS = {"double": _ext.F64, "float64": _ext.F64, "f64": _ext.F64,
               "single": _ext.F32, "float32": _ext.F32, "f32": _ext.F32, "float": _ext.F32}
_MF = {"tri": 0, "trap": 1, "gauss": 2}


class FuzzyOverflowWarning(RuntimeWarning):
    """An operation on bounded operands gave unbounded cuts (an overflow of
    the precision): the result is still an enclosure."""


# ----------------------------------------------------------------- options

_local = threading.local()


def _div_hull(div_zero=None):
    if div_zero is None:
        div_zero = getattr(_local, "div_zero", "error")
    if div_zero not in ("error", "hull"):
        raise ValueError(f"div_zero must be 'error' or 'hull', not {div_zero!r}")
    return div_zero == "hull"


@contextlib.contextmanager
def fuzzy_options(div_zero="error"):
    """Options of the fuzzy operators in a ``with`` block (this thread only).

    Parameters
    ----------
    div_zero : {"error", "hull"}
        Division by a number whose cuts contain 0: :class:`haze.DomainError`
        (the default), or the IEEE 1788 hull (half-lines or the whole line).
    """
    _div_hull(div_zero)
    old = getattr(_local, "div_zero", "error")
    _local.div_zero = div_zero
    try:
        yield
    finally:
        _local.div_zero = old


# --------------------------------------------------------------- numbers


def parse_number(text):
    """The tightest double enclosure ``(lo, hi)`` of a decimal or C99
    hex-float number given as text, read exactly (``lo == hi`` when the
    number is a double). Raises :class:`haze.ParseError` for anything else."""
    s = str(text)
    lo, hi, end = _ext.fuzzy_parse_number(s)
    if s.encode()[end:].strip():
        raise ParseError(f"not a number: {s!r}", -4)
    return lo, hi


def _fraction_enclosure(fr):
    f = float(fr)  # correctly rounded
    if not math.isfinite(f):
        raise OverflowError(f"{fr} is beyond the range of double")
    exact = fractions.Fraction(f)
    if exact == fr:
        return f, f
    if exact < fr:
        return f, math.nextafter(f, math.inf)
    return math.nextafter(f, -math.inf), f


def _param(x, name="parameter"):
    """A parameter as ("text", exact text) or ("iv", (lo, hi))."""
    if isinstance(x, (bool, np.bool_)):
        raise TypeError(f"{name} must be a number, not a bool")
    if isinstance(x, str):
        s = x.strip()
        parse_number(s)  # a ParseError names the bad text
        return "text", s
    if isinstance(x, (numbers.Integral, np.integer)):
        return "text", str(int(x))
    if isinstance(x, (float, np.floating)):
        f = float(x)
        if not math.isfinite(f):
            raise ValueError(f"{name} must be finite, not {f}")
        return "text", f.hex()
    if isinstance(x, Decimal):
        if not x.is_finite():
            raise ValueError(f"{name} must be finite, not {x}")
        return "text", format(x, "e")
    if isinstance(x, fractions.Fraction):
        d = x.denominator
        for p in (2, 5):
            while d % p == 0:
                d //= p
        if d == 1:  # a finite decimal: exact as text
            return "text", _fraction_text(x)
        return "iv", _fraction_enclosure(x)
    if isinstance(x, (tuple, list)) and len(x) == 2:
        lo, hi = float(x[0]), float(x[1])
        if not (math.isfinite(lo) and math.isfinite(hi)) or lo > hi:
            raise ValueError(f"{name}: an enclosure (lo, hi) needs finite lo <= hi, got {x!r}")
        return "iv", (lo, hi)
    if isinstance(x, numbers.Real):
        return _param(float(x), name)
    raise TypeError(f"{name} must be a number (int, float, str, Decimal, Fraction or a pair "
                    f"(lo, hi)), not {type(x).__name__}")


def _fraction_text(fr):
    """A fraction whose denominator is 2^a 5^b as its exact decimal text."""
    num, den = fr.numerator, fr.denominator
    k = 0
    while den != 1:  # multiply by 10 until the denominator goes
        num *= 10
        k += 1
        g = math.gcd(num, den)
        num //= g
        den //= g
    return f"{num}e-{k}"


def _enclosure(kind, v):
    if kind == "iv":
        return v
    return parse_number(v)


def _encoding(e):
    e = str(e).lower()
    if e not in _ENCODINGS:
        raise ValueError(f"encoding must be 'lu', 'mr' or 'mi', not {e!r}")
    return e


def _precision(p):
    if p in (np.float64, np.dtype(np.float64)):
        return _ext.F64
    if p in (np.float32, np.dtype(np.float32)):
        return _ext.F32
    try:
        return _PRECISIONS[str(p).lower()]
    except KeyError:
        raise ValueError(f"precision must be 'double' or 'single', not {p!r}") from None


def _alphas(alphas, cuts):
    if alphas is None:
        if not 1 <= int(cuts) <= MAX_CUTS:
            raise ValueError(f"cuts must be 1 to {MAX_CUTS}, not {cuts}")
        return None, int(cuts)
    a = np.ascontiguousarray(np.asarray(alphas, dtype=np.float64).reshape(-1))
    return a, len(a)


class _Shape:
    """Encoding, precision and levels shared by the operands of a call."""

    __slots__ = ("enc", "prec", "ncuts", "alphas")

    def __init__(self, enc, prec, ncuts, alphas):
        self.enc, self.prec, self.ncuts, self.alphas = enc, prec, ncuts, alphas

    @classmethod
    def of(cls, h):
        enc, prec, ncuts, _, _, _, alphas = _ext.fuzzy_info(h)
        return cls(enc, prec, ncuts, np.array(alphas, dtype=np.float64))

    def new(self, ctx, count, device=False):
        return _ext.fuzzy_new(ctx._h, self.enc, self.prec, self.ncuts, int(count), self.alphas,
                              bool(device))


def _scalar_ctx(ctx, backend):
    # a single number gains nothing from a GPU: scalars compute on the CPU
    # unless a context or backend is asked for
    if ctx is None and backend is None:
        return default_context("cpu")
    return _ctx(ctx, backend)


def _new_number(cuts, encoding, precision, alphas, ctx, backend):
    c = _scalar_ctx(ctx, backend)
    al, n = _alphas(alphas, cuts)
    enc = _ext.fuzzy_encoding_parse(_encoding(encoding))
    h = _ext.fuzzy_new(c._h, enc, _precision(precision), n, 1, al, False)
    return FuzzyNumber._wrap(h, c)


def _set_mf(c, h, i, kind, params):
    ps = [_param(p, f"parameter {k + 1} of {kind}") for k, p in enumerate(params)]
    if all(k == "text" for k, _ in ps):
        # the command line's reading: exact parameters, checked exactly
        _ext.fuzzy_set_membership(c._h, h, i, f"{kind}({', '.join(v for _, v in ps)})")
    else:
        _ext.fuzzy_set_iv(c._h, h, i, _MF[kind], [_enclosure(k, v) for k, v in ps])


def tri(l, m, u, *, cuts=4, encoding="lu", precision="double", alphas=None, ctx=None,
        backend=None):
    """The triangular fuzzy number of support ``[l, u]`` and kernel ``m``.

    Parameters
    ----------
    l, m, u : str, int, float, Decimal, Fraction or (lo, hi)
        ``l <= m <= u``. Text is read as an exact decimal or hex float; the
        cuts then contain those of the function of the exact parameters.
    cuts : int
        Number of alpha-cuts (1 to 64), at levels ``1, (n-1)/n, ..., 1/n``.
    encoding : {"lu", "mr", "mi"}
    precision : {"double", "single"}
    alphas : array_like, optional
        The levels, strictly decreasing in (0, 1] (replaces ``cuts``).
    ctx, backend
        Where the number computes (the CPU by default for scalars).
    """
    x = _new_number(cuts, encoding, precision, alphas, ctx, backend)
    _set_mf(x._ctx, x._h, 0, "tri", (l, m, u))
    return x


def trap(a, b, c, d, *, cuts=4, encoding="lu", precision="double", alphas=None, ctx=None,
         backend=None):
    """The trapezoidal fuzzy number of support ``[a, d]`` and kernel
    ``[b, c]`` (``a <= b <= c <= d``); the other arguments as :func:`tri`."""
    x = _new_number(cuts, encoding, precision, alphas, ctx, backend)
    _set_mf(x._ctx, x._h, 0, "trap", (a, b, c, d))
    return x


def gauss(mu, sigma, k=3, *, cuts=4, encoding="lu", precision="double", alphas=None, ctx=None,
          backend=None):
    """The Gaussian fuzzy number of mean ``mu`` and deviation ``sigma > 0``,
    truncated at ``mu -+ k sigma``: its cut at level a is
    ``mu -+ sigma * min(sqrt(-2 ln a), k)``; the other arguments as
    :func:`tri`."""
    x = _new_number(cuts, encoding, precision, alphas, ctx, backend)
    _set_mf(x._ctx, x._h, 0, "gauss", (mu, sigma, k))
    return x


def crisp(x, *, cuts=4, encoding="lu", precision="double", alphas=None, ctx=None, backend=None):
    """The crisp number ``x``: text is enclosed (``crisp("0.1")`` is
    ``[RD(0.1), RU(0.1)]`` at every level), a float is exact."""
    kind, v = _param(x, "x")
    lo, hi = _enclosure(kind, v)
    n = _new_number(cuts, encoding, precision, alphas, ctx, backend)
    _ext.fuzzy_set_crisp(n._ctx._h, n._h, 0, lo, hi)
    return n


def interval(lo, hi, *, cuts=4, encoding="lu", precision="double", alphas=None, ctx=None,
             backend=None):
    """The crisp interval ``[lo, hi]`` at every level (the command line's
    ``[lo, hi]``: ``trap(lo, lo, hi, hi)``, its ends compared exactly)."""
    return trap(lo, lo, hi, hi, cuts=cuts, encoding=encoding, precision=precision,
                alphas=alphas, ctx=ctx, backend=backend)


# ------------------------------------------------------------- operations


def _raise_or_warn(st, msg, op, hull):
    if st == _ST_DOMAIN:
        if op in (_DIV, _RECIP) and not hull:
            msg += " (div_zero='hull' gives the IEEE 1788 hull)"
        raise DomainError(msg, st)
    if st == _ST_RANGE:
        warnings.warn(msg, FuzzyOverflowWarning, stacklevel=4)


def _run(ctx, op, a, b, c, div_zero=None):
    hull = _div_hull(div_zero)
    st, msg = _ext.fuzzy_op(ctx._h, op, a, b, hull, c)
    if st:
        _raise_or_warn(st, msg, op, hull)


def _number_like(x, shape, ctx):
    """A Python number as a crisp fuzzy number of `shape` (one element)."""
    kind, v = _param(x, "operand")
    lo, hi = _enclosure(kind, v)
    h = shape.new(ctx, 1)
    _ext.fuzzy_set_crisp(ctx._h, h, 0, lo, hi)
    return h


def _is_scalar(x):
    return isinstance(x, (numbers.Real, str, Decimal, np.integer, np.floating)) and \
        not isinstance(x, (bool, np.bool_))


class _FuzzyBase:
    """What numbers and arrays share: the handle, the context, the shape."""

    __slots__ = ("_h", "_ctx", "__weakref__")
    __array_ufunc__ = None  # numpy defers to our (reflected) operators

    @property
    def encoding(self):
        """``"lu"``, ``"mr"`` or ``"mi"``."""
        return _ENCODINGS[_ext.fuzzy_info(self._h)[0]]

    @property
    def precision(self):
        """``"double"`` or ``"single"``."""
        return "single" if _ext.fuzzy_info(self._h)[1] == _ext.F32 else "double"

    @property
    def dtype(self):
        """The storage type: numpy.float64 or numpy.float32."""
        return np.dtype(np.float32 if _ext.fuzzy_info(self._h)[1] == _ext.F32 else np.float64)

    @property
    def ncuts(self):
        """Number of alpha-cuts."""
        return _ext.fuzzy_info(self._h)[2]

    @property
    def alphas(self):
        """The levels, strictly decreasing in (0, 1] (NumPy array)."""
        return np.array(_ext.fuzzy_info(self._h)[6], dtype=np.float64)

    @property
    def ctx(self):
        """The :class:`haze.Context` the operations run on."""
        return self._ctx

    def _shape(self):
        return _Shape.of(self._h)

    # operators: the subclasses' _binary does the work
    def __add__(self, o):
        return self._binary(o, _ADD, False)

    def __radd__(self, o):
        return self._binary(o, _ADD, True)

    def __sub__(self, o):
        return self._binary(o, _SUB, False)

    def __rsub__(self, o):
        return self._binary(o, _SUB, True)

    def __mul__(self, o):
        return self._binary(o, _MUL, False)

    def __rmul__(self, o):
        return self._binary(o, _MUL, True)

    def __truediv__(self, o):
        return self._binary(o, _DIV, False)

    def __rtruediv__(self, o):
        return self._binary(o, _DIV, True)

    def __neg__(self):
        return self._unary(_NEG)

    def __pos__(self):
        return self

    def div(self, other, div_zero=None):
        """``self / other`` with ``div_zero="error"`` or ``"hull"`` (see
        :func:`fuzzy_options`)."""
        return self._binary(other, _DIV, False, div_zero)

    def recip(self, div_zero=None):
        """``1 / self``, certified (``div_zero`` as :meth:`div`)."""
        return self._unary(_RECIP, div_zero)

    def sqr(self):
        """``self ** 2`` (tighter than ``self * self``: the operands are the same number)."""
        return self._unary(_SQR)

    def sqrt(self):
        """The square root; :class:`haze.DomainError` where a cut reaches below 0."""
        return self._unary(_SQRT)

    def __pow__(self, p):
        if isinstance(p, numbers.Integral) and p == 2:
            return self.sqr()
        if isinstance(p, numbers.Real) and p == 0.5:
            return self.sqrt()
        return NotImplemented


# ------------------------------------------------------------ FuzzyNumber


class FuzzyNumber(_FuzzyBase):
    """One fuzzy number: its alpha-cuts, certified.

    Made by :func:`tri`, :func:`trap`, :func:`gauss`, :func:`crisp`,
    :func:`interval`, by operations (``a * b + c``; Python numbers are
    promoted to crisp numbers of the same shape) and by indexing a
    :class:`FuzzyArray`. Operands must share encoding, precision and levels
    (:class:`haze.MismatchError` otherwise; see :meth:`convert`).
    """

    __slots__ = ()

    def __init__(self, *args, **kwargs):
        raise TypeError("make fuzzy numbers with haze.tri, trap, gauss, crisp or interval")

    @classmethod
    def _wrap(cls, h, ctx):
        x = object.__new__(cls)
        x._h = h
        x._ctx = ctx
        return x

    def _binary(self, o, op, reflected, div_zero=None):
        if isinstance(o, FuzzyArray):
            return NotImplemented  # FuzzyArray's reflected operator
        shape = self._shape()
        if isinstance(o, FuzzyNumber):
            oh = o._h
        elif _is_scalar(o):
            oh = _number_like(o, shape, self._ctx)
        else:
            return NotImplemented
        a, b = (oh, self._h) if reflected else (self._h, oh)
        c = shape.new(self._ctx, 1)
        _run(self._ctx, op, a, b, c, div_zero)
        return FuzzyNumber._wrap(c, self._ctx)

    def _unary(self, op, div_zero=None):
        c = self._shape().new(self._ctx, 1)
        _run(self._ctx, op, self._h, None, c, div_zero)
        return FuzzyNumber._wrap(c, self._ctx)

    # ---- read-out
    @property
    def cuts(self):
        """``(lo, hi)``: the cuts' bounds from the highest level down, as
        float64 arrays (exact: single-precision values widen exactly)."""
        n = self.ncuts
        lo, hi = np.empty((1, n)), np.empty((1, n))
        _ext.fuzzy_get_cuts(self._ctx._h, self._h, lo, hi)
        return lo[0], hi[0]

    def cut(self, k):
        """Cut ``k`` (0: the highest level, the kernel; -1: the lowest) as
        ``(lo, hi)`` floats."""
        lo, hi = self.cuts
        return float(lo[k]), float(hi[k])

    @property
    def kernel(self):
        """The cut at the highest level, ``(lo, hi)``."""
        return self.cut(0)

    @property
    def support(self):
        """The cut at the lowest level, ``(lo, hi)``: it contains every other."""
        return self.cut(-1)

    def hull(self, alpha):
        """An interval that contains the cut at any level ``alpha`` in (0, 1]:
        the cut of the highest stored level ``<= alpha``
        (:class:`haze.DomainError` below the lowest level)."""
        return _ext.fuzzy_hull(self._ctx._h, self._h, 0, float(alpha))

    def centroid(self):
        """The centroid of the staircase membership function the cuts define
        (plain double arithmetic, not certified)."""
        out = np.empty(1)
        _ext.fuzzy_centroid(self._ctx._h, self._h, out)
        return float(out[0])

    @property
    def midpoint(self):
        """The midpoint of a symmetric number (``"mr"``, ``"mi"``), as stored."""
        return _ext.fuzzy_mid_rad(self._h, 0)[0]

    @property
    def radii(self):
        """The radius of each cut of a symmetric number (``"mr"``, ``"mi"``;
        for increments, their sum rounded upward), as the command line prints."""
        return np.array(_ext.fuzzy_mid_rad(self._h, 0)[1])

    @property
    def data(self):
        """The stored values (a copy): ``2 * ncuts`` bounds ``lo, hi`` per cut
        for ``"lu"``, the midpoint then ``ncuts`` radii (``"mr"``) or
        increments (``"mi"``)."""
        info = _ext.fuzzy_info(self._h)
        out = np.empty(info[4], dtype=self.dtype)
        _ext.fuzzy_get_data(self._ctx._h, self._h, out)
        return out

    def hex(self):
        """The cuts exactly, as C99 hex floats (``%a``, as ``haze fuzzy eval
        --exact`` prints them): a list of ``(lo, hi)`` strings, highest level
        first."""
        lo, hi = self.cuts
        return [(_ext.fuzzy_hex(float(a)), _ext.fuzzy_hex(float(b))) for a, b in zip(lo, hi)]

    def to_csv(self, exact=False):
        """The number as ``haze fuzzy eval --format csv [--exact]`` writes it:
        ``alpha,lower,upper`` (with ``midpoint,radius`` for the symmetric
        encodings), bounds as ``%.17g`` rounded outward (a lower bound's 17
        digits never above it, an upper bound's never below) or, exact, as
        hex floats."""
        sym = self.encoding != "lu"
        lo, hi = self.cuts
        if sym:
            mid, rads = _ext.fuzzy_mid_rad(self._h, 0)

        def num(x, way):
            if math.isnan(x):
                return "nan"
            if math.isinf(x):
                return "inf" if x > 0 else "-inf"
            if exact:
                return _ext.fuzzy_hex(x)
            t = "%.17g" % x
            if way:  # the 17 digits on the wrong side of x: the next double outward's
                a, b, _ = _ext.fuzzy_parse_number(t)
                if a != b and (a == x if way < 0 else b == x):
                    t = "%.17g" % math.nextafter(x, -math.inf if way < 0 else math.inf)
            return t

        lines = ["alpha,lower,upper" + (",midpoint,radius" if sym else "")]
        for k, a in enumerate(self.alphas):
            vals = [lo[k], hi[k]] + ([mid, rads[k]] if sym else [])
            ways = (-1, 1, 0, 1)
            lines.append(",".join(["%.17g" % a] + [num(float(v), w) for v, w in zip(vals, ways)]))
        return "\n".join(lines) + "\n"

    def convert(self, encoding=None, precision=None):
        """This number in another encoding and/or precision (outward; to the
        symmetric encodings by the outward symmetric envelope)."""
        s = self._shape()
        enc = s.enc if encoding is None else _ext.fuzzy_encoding_parse(_encoding(encoding))
        prec = s.prec if precision is None else _precision(precision)
        h = _Shape(enc, prec, s.ncuts, s.alphas).new(self._ctx, 1)
        _ext.fuzzy_convert(self._ctx._h, self._h, h)
        return FuzzyNumber._wrap(h, self._ctx)

    def same_bits(self, other):
        """True when ``other`` is stored with exactly the same values (and shape)."""
        return (isinstance(other, FuzzyNumber) and self.encoding == other.encoding
                and self.precision == other.precision
                and np.array_equal(self.alphas, other.alphas)
                and self.data.tobytes() == other.data.tobytes())

    def __reduce__(self):
        # pickled by value: shape and stored bits (computed again on the CPU)
        return (_restore_number, (self.encoding, self.precision, tuple(self.alphas),
                                  self.data.tobytes()))

    def plot(self, ax=None, label=None, color=None, **kwargs):
        """Draws the number: each alpha-cut as a horizontal interval at its
        level (nested intervals), joined into the outline of the membership
        function. Needs matplotlib; returns the Axes."""
        return _plot_number(self, ax, label, color, **kwargs)

    def __repr__(self):
        lo, hi = self.cuts
        return (f"haze.FuzzyNumber({self.encoding}, {self.precision}, {self.ncuts} cuts, "
                f"kernel [{float(lo[0])!r}, {float(hi[0])!r}], "
                f"support [{float(lo[-1])!r}, {float(hi[-1])!r}])")

    def __str__(self):
        lo, hi = self.cuts
        rows = [f"{'alpha':<8} {'lower':<24} {'upper':<24}"]
        rows += [f"{a:<8.6g} {float(l)!r:<24} {float(h)!r:<24}".rstrip()
                 for a, l, h in zip(self.alphas, lo, hi)]
        return repr(self) + "\n" + "\n".join(rows)


def _restore_number(encoding, precision, alphas, raw):
    x = _new_number(len(alphas), encoding, precision, alphas, None, None)
    _ext.fuzzy_set_data(x._ctx._h, x._h, raw)
    return x


def _restore_array(encoding, precision, alphas, count, raw, device):
    a = FuzzyArray(count, cuts=len(alphas), encoding=encoding, precision=precision,
                   alphas=alphas, device=device and default_context().backend == "cuda")
    _ext.fuzzy_set_data(a._ctx._h, a._h, raw)
    return a


def _plot_number(x, ax, label, color, **kwargs):
    try:
        import matplotlib.pyplot as plt
    except ImportError as e:  # pragma: no cover - depends on the machine
        raise ImportError("FuzzyNumber.plot needs matplotlib (pip install matplotlib)") from e
    if ax is None:
        _, ax = plt.subplots()
    lo, hi = x.cuts
    al = x.alphas
    finite = np.isfinite(lo) & np.isfinite(hi)
    if not finite.any():
        raise ValueError("no cut is bounded: nothing to draw")
    lo, hi, al = lo[finite], hi[finite], al[finite]
    # the outline: up the left ends from the lowest level, down the right ends
    xs = np.concatenate([lo[::-1], hi])
    ys = np.concatenate([al[::-1], al])
    line, = ax.plot(xs, ys, color=color, label=label, **kwargs)
    c = line.get_color()
    ax.hlines(al, lo, hi, colors=c, linewidth=2.5, alpha=0.8)
    ax.vlines(np.concatenate([lo, hi]), 0, np.concatenate([al, al]), colors=c, linewidth=0.6,
              alpha=0.4, linestyles="dotted")
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("membership (alpha)")
    if label is not None:
        ax.legend()
    return ax


# ------------------------------------------------------------- FuzzyArray


def _as_keys(keys, n):
    k = np.asarray(keys)
    if k.ndim != 1 or len(k) != n:
        raise ValueError(f"expected {n} keys, got shape {k.shape}")
    if k.dtype.kind not in "iu":
        raise TypeError(f"keys must be integers, not {k.dtype}")
    if k.size and (k.min() < 0 or k.max() > 0xFFFFFFFF):
        raise ValueError("keys must fit 32 bits unsigned")
    return np.array(k, dtype=np.uint32, order="C")  # a copy: sorted along


class FuzzyArray(_FuzzyBase):
    """An array of fuzzy numbers of one shape (encoding, precision, levels),
    on the CPU or in the memory of the context's GPU.

    Parameters
    ----------
    count : int
        Number of elements, all crisp 0.
    cuts, encoding, precision, alphas
        As :func:`tri`.
    device : bool or None
        Keep the numbers in GPU memory (needs the CUDA backend); None: where
        the context computes (``backend="auto"`` takes the GPU when there is
        one). Operations then run without host transfers; reading the values
        copies them to the host.
    ctx, backend
        Where the operations run.

    Element-wise ``+ - * /`` take another array of the same length, a
    :class:`FuzzyNumber` or a Python number (broadcast), and the GIL is
    released while they run. ``a[i]`` is a :class:`FuzzyNumber`,
    ``lower``/``upper`` are NumPy arrays (count x cuts, one copy).
    """

    __slots__ = ("_cache",)

    def __init__(self, count=0, *, cuts=4, encoding="lu", precision="double", alphas=None,
                 device=None, ctx=None, backend=None):
        c = _ctx(ctx, backend)
        al, n = _alphas(alphas, cuts)
        enc = _ext.fuzzy_encoding_parse(_encoding(encoding))
        if device is None:
            device = c.backend == "cuda"
        self._h = _ext.fuzzy_new(c._h, enc, _precision(precision), n, int(count), al,
                                 bool(device))
        self._ctx = c
        self._cache = None

    @classmethod
    def _wrap(cls, h, ctx):
        x = object.__new__(cls)
        x._h = h
        x._ctx = ctx
        x._cache = None
        return x

    def _like(self, count=None, device=None):
        n = len(self) if count is None else count
        dev = self.on_device if device is None else device
        return FuzzyArray._wrap(self._shape().new(self._ctx, n, dev), self._ctx)

    def _host(self):
        """A handle on the host holding these numbers (self's own when it is there)."""
        if not self.on_device:
            return self._h
        h = self._shape().new(self._ctx, len(self), False)
        _ext.fuzzy_copy(self._ctx._h, h, self._h)
        return h

    def _changed(self):
        self._cache = None

    # ---- construction
    @classmethod
    def _from_host(cls, h, ctx, device):
        if device is None:
            device = ctx.backend == "cuda"
        if not device:
            return cls._wrap(h, ctx)
        s = _Shape.of(h)
        d = s.new(ctx, _ext.fuzzy_info(h)[3], True)
        _ext.fuzzy_copy(ctx._h, d, h)
        return cls._wrap(d, ctx)

    @classmethod
    def from_cuts(cls, lo, hi, *, alphas=None, encoding="lu", precision="double", device=None,
                  ctx=None, backend=None):
        """Numbers from their cuts' bounds: ``lo`` and ``hi`` (count x cuts,
        or one row per number's cuts for 1-D input: a single number), cut 0
        the highest level; finite, ``lo <= hi``, nested. Converted once to
        C-ordered float64 where they are not; rounded outward to the
        precision (the symmetric encodings take the outward symmetric
        envelope)."""
        c = _ctx(ctx, backend)
        lo = np.ascontiguousarray(np.asarray(lo, dtype=np.float64))
        hi = np.ascontiguousarray(np.asarray(hi, dtype=np.float64))
        if lo.ndim == 1:
            lo, hi = lo.reshape(1, -1), hi.reshape(1, -1)
        if lo.ndim != 2 or lo.shape != hi.shape:
            raise ValueError(f"lo and hi must be 2-D arrays of one shape (count x cuts), got "
                             f"{lo.shape} and {hi.shape}")
        al, n = _alphas(alphas, lo.shape[1])
        if n != lo.shape[1]:
            raise ValueError(f"{n} levels for {lo.shape[1]} cuts")
        enc = _ext.fuzzy_encoding_parse(_encoding(encoding))
        h = _ext.fuzzy_new(c._h, enc, _precision(precision), n, lo.shape[0], al, False)
        _ext.fuzzy_set_cuts(c._h, h, lo, hi)
        return cls._from_host(h, c, device)

    @classmethod
    def _from_params(cls, kind, params, cuts, encoding, precision, alphas, device, ctx,
                     backend):
        c = _ctx(ctx, backend)
        cols = np.broadcast_arrays(*[np.asarray(p, dtype=np.float64) for p in params])
        p = np.ascontiguousarray(np.stack([x.reshape(-1) for x in cols], axis=1))
        al, n = _alphas(alphas, cuts)
        enc = _ext.fuzzy_encoding_parse(_encoding(encoding))
        h = _ext.fuzzy_new(c._h, enc, _precision(precision), n, p.shape[0], al, False)
        _ext.fuzzy_set_mf(c._h, h, _MF[kind], p)
        return cls._from_host(h, c, device)

    @classmethod
    def tri(cls, l, m, u, *, cuts=4, encoding="lu", precision="double", alphas=None,
            device=None, ctx=None, backend=None):
        """Triangular numbers from arrays (broadcast) of doubles ``l <= m <= u``,
        each exact as given (for decimal parameters, build numbers with
        :func:`haze.tri` and :meth:`from_numbers`)."""
        return cls._from_params("tri", (l, m, u), cuts, encoding, precision, alphas, device,
                                ctx, backend)

    @classmethod
    def trap(cls, a, b, c, d, *, cuts=4, encoding="lu", precision="double", alphas=None,
             device=None, ctx=None, backend=None):
        """Trapezoidal numbers from arrays of doubles (see :meth:`tri`)."""
        return cls._from_params("trap", (a, b, c, d), cuts, encoding, precision, alphas, device,
                                ctx, backend)

    @classmethod
    def gauss(cls, mu, sigma, k=3, *, cuts=4, encoding="lu", precision="double", alphas=None,
              device=None, ctx=None, backend=None):
        """Gaussian numbers from arrays of doubles (see :meth:`tri`, :func:`haze.gauss`)."""
        return cls._from_params("gauss", (mu, sigma, k), cuts, encoding, precision, alphas,
                                device, ctx, backend)

    @classmethod
    def crisp(cls, values, *, cuts=4, encoding="lu", precision="double", alphas=None,
              device=None, ctx=None, backend=None):
        """Crisp numbers from an array of doubles (each exact)."""
        v = np.asarray(values, dtype=np.float64).reshape(-1, 1)
        al, n = _alphas(alphas, cuts)
        lo = np.ascontiguousarray(np.repeat(v, n, axis=1))
        return cls.from_cuts(lo, lo, alphas=al, encoding=encoding, precision=precision,
                             device=device, ctx=ctx, backend=backend)

    @classmethod
    def from_numbers(cls, numbers_, *, device=None, ctx=None, backend=None):
        """An array of the given :class:`FuzzyNumber` objects (one shape)."""
        nums = list(numbers_)
        if not nums:
            raise ValueError("from_numbers needs at least one number")
        for x in nums:
            if not isinstance(x, FuzzyNumber):
                raise TypeError(f"expected FuzzyNumber items, not {type(x).__name__}")
        c = _ctx(ctx, backend)
        h = nums[0]._shape().new(c, len(nums), False)
        for i, x in enumerate(nums):
            _ext.fuzzy_take(h, i, x._h, 0)
        return cls._from_host(h, c, device)

    # ---- shape
    def __len__(self):
        return _ext.fuzzy_info(self._h)[3]

    @property
    def on_device(self):
        """True when the numbers are in GPU memory."""
        return bool(_ext.fuzzy_info(self._h)[5])

    def to_device(self):
        """A copy in the memory of the context's GPU (itself if already there)."""
        if self.on_device:
            return self
        d = self._like(device=True)
        _ext.fuzzy_copy(self._ctx._h, d._h, self._h)
        return d

    def to_host(self):
        """A copy in host memory (itself if already there)."""
        if not self.on_device:
            return self
        return FuzzyArray._wrap(self._host(), self._ctx)

    def copy(self):
        """A copy (same place)."""
        d = self._like()
        _ext.fuzzy_copy(self._ctx._h, d._h, self._h)
        return d

    # ---- read-out
    def _cuts(self):
        if self._cache is None:
            n, k = len(self), self.ncuts
            lo, hi = np.empty((n, k)), np.empty((n, k))
            _ext.fuzzy_get_cuts(self._ctx._h, self._h, lo, hi)
            lo.flags.writeable = False
            hi.flags.writeable = False
            self._cache = (lo, hi)
        return self._cache

    @property
    def lower(self):
        """Lower bounds of the cuts, float64 count x cuts (read-only; one copy,
        shared with :attr:`upper`)."""
        return self._cuts()[0]

    @property
    def upper(self):
        """Upper bounds of the cuts, float64 count x cuts (read-only)."""
        return self._cuts()[1]

    @property
    def cuts(self):
        """``(lower, upper)``."""
        return self._cuts()

    def cut(self, k):
        """Cut ``k`` of every number as ``(lo, hi)`` arrays (0: highest level)."""
        lo, hi = self._cuts()
        return lo[:, k], hi[:, k]

    def hull(self, alpha):
        """Per number, an interval containing its cut at level ``alpha``
        (see :meth:`FuzzyNumber.hull`), as ``(lo, hi)`` arrays."""
        al = self.alphas
        ok = np.nonzero(al <= float(alpha))[0]
        if not 0 < float(alpha) <= 1 or len(ok) == 0:
            raise DomainError(f"fuzzy: level {alpha} is outside (0, 1] or below the lowest "
                              f"level {al[-1]}", _ST_DOMAIN)
        return self.cut(int(ok[0]))

    def centroid(self):
        """Every number's centroid (float64 array; see :meth:`FuzzyNumber.centroid`)."""
        out = np.empty(len(self))
        _ext.fuzzy_centroid(self._ctx._h, self._h, out)
        return out

    @property
    def data(self):
        """The stored values, count x stride (float64 or float32; a copy; see
        :attr:`FuzzyNumber.data`). Assigning writes them back (the
        encoding's invariants are then the caller's duty)."""
        info = _ext.fuzzy_info(self._h)
        out = np.empty((info[3], info[4]), dtype=self.dtype)
        _ext.fuzzy_get_data(self._ctx._h, self._h, out)
        return out

    @data.setter
    def data(self, values):
        info = _ext.fuzzy_info(self._h)
        v = np.ascontiguousarray(np.asarray(values, dtype=self.dtype).reshape(info[3], info[4]))
        _ext.fuzzy_set_data(self._ctx._h, self._h, v)
        self._changed()

    def __getitem__(self, i):
        n = len(self)
        if isinstance(i, slice):
            idx = range(n)[i]
            src = self._host()
            h = self._shape().new(self._ctx, len(idx), False)
            for j, k in enumerate(idx):
                _ext.fuzzy_take(h, j, src, k)
            return FuzzyArray._from_host(h, self._ctx, self.on_device)
        i = _index(i, n)
        src = self._host()
        h = self._shape().new(self._ctx, 1, False)
        _ext.fuzzy_take(h, 0, src, i)
        return FuzzyNumber._wrap(h, self._ctx)

    def __setitem__(self, i, x):
        i = _index(i, len(self))
        shape = self._shape()
        if isinstance(x, FuzzyNumber):
            xh = x._h
        elif _is_scalar(x):
            xh = _number_like(x, shape, self._ctx)
        else:
            raise TypeError(f"cannot store a {type(x).__name__} in a FuzzyArray")
        if self.on_device:
            h = self._host()
            _ext.fuzzy_take(h, i, xh, 0)
            _ext.fuzzy_copy(self._ctx._h, self._h, h)
        else:
            _ext.fuzzy_take(self._h, i, xh, 0)
        self._changed()

    def __iter__(self):
        src = self.to_host()
        for i in range(len(src)):
            yield src[i]

    # ---- operations
    def _operand(self, o):
        """o as a handle of self's shape and place: (handle, count) or None."""
        if isinstance(o, FuzzyArray):
            if o.on_device == self.on_device:
                return o._h, len(o)
            h = self._shape().new(self._ctx, len(o), self.on_device)
            _ext.fuzzy_copy(self._ctx._h, h, o._h)
            return h, len(o)
        if isinstance(o, FuzzyNumber):
            h = o._h
        elif _is_scalar(o):
            h = _number_like(o, self._shape(), self._ctx)
        else:
            return None
        if self.on_device:
            d = self._shape().new(self._ctx, 1, True)
            _ext.fuzzy_copy(self._ctx._h, d, h)
            h = d
        return h, 1

    def _expand(self, h, n):
        """A one-number handle repeated n times (same place as self)."""
        s = self._shape()
        one = h
        if _ext.fuzzy_info(h)[5]:  # on the device: read it back
            one = s.new(self._ctx, 1, False)
            _ext.fuzzy_copy(self._ctx._h, one, h)
        info = _ext.fuzzy_info(one)
        v = np.empty(info[4], dtype=self.dtype)
        _ext.fuzzy_get_data(self._ctx._h, one, v)
        r = s.new(self._ctx, n, self.on_device)
        _ext.fuzzy_set_data(self._ctx._h, r, np.ascontiguousarray(np.tile(v, n)))
        return r

    def _binary(self, o, op, reflected, div_zero=None):
        got = self._operand(o)
        if got is None:
            return NotImplemented
        oh, on = got
        n = len(self)
        if reflected:  # o op self, o a number (an array's own operator goes first)
            if on not in (1, n):
                raise _mismatch(on, n)
            a, b = (oh if on == n else self._expand(oh, n)), self._h
        elif on in (1, n):
            a, b = self._h, oh
        elif n == 1:  # a one-number array against a longer one: broadcast
            a, b, n = self._expand(self._h, on), oh, on
        else:
            raise _mismatch(n, on)
        c = self._shape().new(self._ctx, n, self.on_device)
        _run(self._ctx, op, a, b, c, div_zero)
        return FuzzyArray._wrap(c, self._ctx)

    def _unary(self, op, div_zero=None):
        c = self._like()
        _run(self._ctx, op, self._h, None, c._h, div_zero)
        return c

    def sort_by_key(self, keys):
        """Sorts the numbers by 32-bit unsigned ``keys`` in place, stably
        (CUB's radix sort on the GPU); returns the sorted keys (a new
        uint32 array: ``keys`` is not changed). A device array is sorted
        through a host copy."""
        k = _as_keys(keys, len(self))
        _ext.fuzzy_sort_by_key(self._ctx._h, k, self._h)
        self._changed()
        return k

    def convert(self, encoding=None, precision=None):
        """A copy in another encoding and/or precision (see
        :meth:`FuzzyNumber.convert`), in the same place."""
        s = self._shape()
        enc = s.enc if encoding is None else _ext.fuzzy_encoding_parse(_encoding(encoding))
        prec = s.prec if precision is None else _precision(precision)
        d = FuzzyArray._wrap(_Shape(enc, prec, s.ncuts, s.alphas).new(self._ctx, len(self),
                                                                      self.on_device), self._ctx)
        _ext.fuzzy_convert(self._ctx._h, self._h, d._h)
        return d

    def __reduce__(self):
        # pickled by value; unpickled on the default context (in GPU memory
        # again only when it was there and the default context has a GPU)
        return (_restore_array, (self.encoding, self.precision, tuple(self.alphas), len(self),
                                 self.data.tobytes(), self.on_device))

    def __repr__(self):
        where = "device" if self.on_device else "host"
        return (f"haze.FuzzyArray({len(self)} numbers, {self.encoding}, {self.precision}, "
                f"{self.ncuts} cuts, {where})")


def _index(i, n):
    if not isinstance(i, (numbers.Integral, np.integer)) or isinstance(i, bool):
        raise TypeError(f"indices must be integers or slices, not {type(i).__name__}")
    i = int(i)
    if i < 0:
        i += n
    if not 0 <= i < n:
        raise IndexError(f"index out of range for {n} fuzzy numbers")
    return i


def _mismatch(n, m):
    from ._core import MismatchError
    return MismatchError(f"fuzzy: {n} and {m} numbers", -10)


def axpy(a, b, iters=1, out=None):
    """The AXPY series of haze's paper (Fig. 2), element by element:
    ``y_j = x_iters`` with ``x_0 = 0`` and ``x_{k+1} = a_j * x_k + b``.

    Parameters
    ----------
    a : FuzzyArray
    b : FuzzyNumber, FuzzyArray of one number, or a Python number (crisp)
    iters : int
        Number of steps (>= 0).
    out : FuzzyArray, optional
        Where to write (same shape and place as ``a``); a new array otherwise.

    Returns
    -------
    FuzzyArray
    """
    if not isinstance(a, FuzzyArray):
        raise TypeError("axpy: a must be a FuzzyArray")
    got = a._operand(b)
    if got is None:
        raise TypeError(f"axpy: b must be a fuzzy number or a number, not {type(b).__name__}")
    bh, bn = got
    if bn != 1:
        raise _mismatch(1, bn)
    if out is None:
        out = a._like()
    elif not isinstance(out, FuzzyArray):
        raise TypeError("axpy: out must be a FuzzyArray")
    _ext.fuzzy_axpy(a._ctx._h, a._h, bh, int(iters), out._h)
    out._changed()
    return out
