"""haze.fuzzy: fuzzy numbers and arrays against the command line's results
(bit for bit), the enclosure of decimal parameters, encodings and
precisions, arrays against scalars, errors and plots."""

import io
import math
import os
import subprocess
import warnings
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

import haze
from haze.fuzzy import (FuzzyArray, FuzzyNumber, FuzzyOverflowWarning, axpy, crisp, fuzzy_options,
                        gauss, interval, parse_number, trap, tri)

from conftest import CLI, ROOT, needs_cli


def cli_csv(expr, encoding="lu", precision="double", cuts=4, extra=()):
    r = subprocess.run([CLI, "fuzzy", "eval", "--exact", "--format", "csv", "--encoding", encoding,
                        "--precision", precision, "--cuts", str(cuts), *extra, "--", expr],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout


# (the CLI's expression, the same in Python given the shape's keyword arguments)
EXPRESSIONS = [
    ("tri(0.2,0.3,0.4)*2", lambda k: tri("0.2", "0.3", "0.4", **k) * 2),
    ("tri(1,2,3)+trap(0.1,0.2,0.3,0.4)",
     lambda k: tri(1, 2, 3, **k) + trap("0.1", "0.2", "0.3", "0.4", **k)),
    ("gauss(0.5,0.1,3)-tri(-1,0,1)", lambda k: gauss("0.5", "0.1", 3, **k) - tri(-1, 0, 1, **k)),
    ("tri(1,2,3)/trap(1,2,3,4)", lambda k: tri(1, 2, 3, **k) / trap(1, 2, 3, 4, **k)),
    ("-tri(1,2,4)*[0.5,1.5]", lambda k: -tri(1, 2, 4, **k) * interval("0.5", "1.5", **k)),
    ("2-tri(1,2,3)", lambda k: 2 - tri(1, 2, 3, **k)),
    ("0.1+tri(1,2,3)", lambda k: crisp("0.1", **k) + tri(1, 2, 3, **k)),
    ("1/tri(1,2,3)", lambda k: 1 / tri(1, 2, 3, **k)),
    ("sqrt(tri(1,2,3))", lambda k: tri(1, 2, 3, **k).sqrt()),
    ("sqr(tri(-1,2,3))", lambda k: tri(-1, 2, 3, **k).sqr()),
    ("(tri(0.1,0.2,0.3)+0.7)*tri(2,3,5)/3",
     lambda k: (tri("0.1", "0.2", "0.3", **k) + crisp("0.7", **k)) * tri(2, 3, 5, **k) / 3),
    # a Python float is the double it holds: the CLI reads it back from its hex form
    ("tri(0x1.999999999999ap-4,0x1.999999999999ap-3,0x1.3333333333333p-2)*1.5",
     lambda k: tri(0.1, 0.2, 0.3, **k) * 1.5),
    ("gauss(-2.5e-3,1e-3,2)*gauss(1,0.25,3)",
     lambda k: gauss(Decimal("-2.5e-3"), "1e-3", 2, **k) * gauss(1, Fraction(1, 4), 3, **k)),
]

SHAPES = [("lu", "double", 4), ("mr", "double", 4), ("mi", "double", 7), ("lu", "single", 5),
          ("mr", "single", 3), ("mi", "single", 1)]


@needs_cli
@pytest.mark.parametrize("shape", SHAPES, ids=["-".join(map(str, s)) for s in SHAPES])
@pytest.mark.parametrize("expr,make", EXPRESSIONS, ids=[e for e, _ in EXPRESSIONS])
def test_operators_match_the_cli_bit_for_bit(expr, make, shape):
    enc, prec, cuts = shape
    x = make(dict(encoding=enc, precision=prec, cuts=cuts))
    assert isinstance(x, FuzzyNumber)
    assert x.to_csv(exact=True) == cli_csv(expr, enc, prec, cuts)


@needs_cli
def test_decimal_text_output_matches_the_cli():
    x = tri("0.2", "0.3", "0.4") * 2
    r = subprocess.run([CLI, "fuzzy", "eval", "--format", "csv", "tri(0.2,0.3,0.4)*2"],
                       capture_output=True, text=True, timeout=60)
    assert x.to_csv() == r.stdout


@needs_cli
def test_the_readme_examples_twins():
    # haze fuzzy eval "(a*b + c)/d" --let "a=tri(1,2,3)" --let "b=gauss(5,0.5,3)"
    #      --let "c=trap(0,1,2,3)" --let d=4 --cuts 4 --encoding mr
    k = dict(cuts=4, encoding="mr")
    a, b, c = tri(1, 2, 3, **k), gauss(5, "0.5", 3, **k), trap(0, 1, 2, 3, **k)
    r = subprocess.run([CLI, "fuzzy", "eval", "(a*b + c)/d", "--let", "a=tri(1,2,3)", "--let",
                        "b=gauss(5,0.5,3)", "--let", "c=trap(0,1,2,3)", "--let", "d=4", "--cuts",
                        "4", "--encoding", "mr", "--exact", "--format", "csv"],
                       capture_output=True, text=True, timeout=60)
    assert ((a * b + c) / 4).to_csv(exact=True) == r.stdout
    # haze fuzzy eval "1/x - x" --let "x=tri(0.9,1,1.1)" --exact --format csv
    x = tri("0.9", 1, "1.1")
    assert (1 / x - x).to_csv(exact=True) == cli_csv("1/x - x", extra=("--let", "x=tri(0.9,1,1.1)"))
    # echo 'a=tri(1,2,3); b=[2,2.5]; sqrt(a*b)' | haze fuzzy eval --batch -
    y = (tri(1, 2, 3) * interval(2, "2.5")).sqrt()
    assert y.to_csv(exact=True) == cli_csv("sqrt(tri(1,2,3)*[2,2.5])")


@needs_cli
def test_division_hull_matches_the_cli():
    x = interval(1, 2).div(interval(-1, 1), div_zero="hull")
    assert x.to_csv(exact=True) == cli_csv("[1,2]/[-1,1]", extra=("--div-zero", "hull"))
    with fuzzy_options(div_zero="hull"):
        y = interval(1, 2) / interval("-0.5", 1)
    assert y.to_csv(exact=True) == cli_csv("[1,2]/[-0.5,1]", extra=("--div-zero", "hull"))
    with pytest.raises(haze.DomainError, match="contains 0"):
        interval(1, 2) / interval(-1, 1)


# ------------------------------------------------------------ enclosures


def _exact(h):
    return Fraction(float.fromhex(h))


@pytest.mark.parametrize("precision", ["double", "single"])
def test_decimal_parameters_are_enclosed(precision):
    l, m, u = Fraction("0.2"), Fraction("0.3"), Fraction("0.4")
    x = tri("0.2", "0.3", "0.4", cuts=8, precision=precision)
    for a, (lo, hi) in zip(x.alphas, x.hex()):
        a = Fraction(a)
        want_lo, want_hi = l + a * (m - l), u - a * (u - m)
        assert _exact(lo) <= want_lo and want_hi <= _exact(hi), (a, lo, hi)
    klo, khi = x.hex()[0]
    assert _exact(klo) < Fraction(3, 10) < _exact(khi)  # 0.3 is no double: strictly inside
    # a Python float is exact: the kernel is the double itself
    y = tri(0.2, 0.3, 0.4)
    assert y.kernel == (0.3, 0.3)
    assert Fraction(y.kernel[0]) != Fraction(3, 10)


def test_results_contain_the_exact_decimal_result():
    x = tri("0.2", "0.3", "0.4") * crisp("0.1") + crisp("0.7")
    lo, hi = (_exact(h) for h in x.hex()[0])
    assert lo <= Fraction("0.73") <= hi
    c = crisp("0.1")
    assert _exact(c.hex()[0][0]) < Fraction(1, 10) < _exact(c.hex()[0][1])
    assert crisp("0.5").kernel == (0.5, 0.5)


def test_parameter_kinds():
    assert parse_number("0.1") == (0.09999999999999999, 0.1)
    assert parse_number(" 0x1p-2 ") == (0.25, 0.25)
    with pytest.raises(haze.ParseError):
        parse_number("0.1x")
    # exact values of every kind give the same number
    ref = tri("0.25", "0.5", "1.5")
    for args in [(0.25, 0.5, 1.5), (Fraction(1, 4), Fraction(1, 2), Fraction(3, 2)),
                 (Decimal("0.25"), Decimal("0.5"), Decimal("1.5")), ("0x1p-2", "0.5", "1.5"),
                 (np.float32(0.25), np.float64(0.5), 1.5)]:
        assert tri(*args).same_bits(ref), args
    # a fraction that is no finite decimal is enclosed
    t = tri(Fraction(1, 3), Fraction(1, 2), 1)
    lo, hi = (_exact(h) for h in t.hex()[-1])
    assert lo <= Fraction(1, 3) + Fraction(1, 4) * Fraction(1, 6)
    # an enclosure parameter (lo, hi)
    w = tri(1, (2, 2.5), 3)
    assert w.kernel == (2.0, 2.5)


# ------------------------------------------------------ encodings, shapes


def test_encodings_precisions_and_levels():
    x = tri(1, 2, 4, encoding="mr")
    assert x.encoding == "mr" and x.precision == "double" and x.ncuts == 4
    np.testing.assert_array_equal(x.alphas, [1, 0.75, 0.5, 0.25])
    # a symmetric encoding takes the symmetric envelope around the kernel
    assert x.midpoint == 2.0 and x.radii[0] == 0.0
    lo, hi = x.cuts
    np.testing.assert_array_equal(hi - 2, 2 - lo)
    s = tri(1, 2, 3, precision="single", alphas=[1, 0.5, 0.1])
    assert s.precision == "single" and s.dtype == np.float32
    np.testing.assert_array_equal(s.alphas, [1, 0.5, 0.1])
    assert s.data.dtype == np.float32 and s.data.shape == (6,)
    # convert: outward, and back contains the original
    for enc in ("lu", "mr", "mi"):
        for prec in ("double", "single"):
            y = tri("0.1", "0.2", "0.4").convert(enc, prec)
            assert (y.encoding, y.precision) == (enc, prec)
            ylo, yhi = y.cuts
            xlo, xhi = tri("0.1", "0.2", "0.4").cuts
            assert np.all(ylo <= xlo) and np.all(yhi >= xhi)
    assert tri(1, 2, 3).hull(0.6) == tri(1, 2, 3).cut(2)
    with pytest.raises(haze.DomainError):
        tri(1, 2, 3).hull(0.1)
    assert tri(1, 2, 3).centroid() == 2.0
    assert tri(1, 2, 3).support == (1.25, 2.75)


def test_hex_and_repr():
    x = tri(1, 2, 3, cuts=2)
    assert x.hex() == [("0x1p+1", "0x1p+1"), ("0x1.8p+0", "0x1.4p+1")]
    assert "FuzzyNumber(lu, double, 2 cuts" in repr(x)
    assert "alpha" in str(x)
    assert repr(FuzzyArray(3, backend="cpu")).startswith("haze.FuzzyArray(3 numbers")


def test_errors_raise_haze_exceptions():
    with pytest.raises(haze.InvalidArgumentError, match="ordered"):
        tri("0.3", "0.2", "0.4")
    with pytest.raises(haze.ParseError):
        tri("zero", 1, 2)
    with pytest.raises(haze.RangeError):
        tri("1e999999", "2e999999", "3e999999")
    with pytest.raises(haze.InvalidArgumentError):
        gauss(0, 0, 3)
    with pytest.raises(ValueError):
        tri(1, 2, 3, cuts=0)
    with pytest.raises(ValueError):
        tri(1, 2, 3, cuts=65)
    with pytest.raises(ValueError):
        tri(1, 2, 3, encoding="xy")
    with pytest.raises(haze.InvalidArgumentError):
        tri(1, 2, 3, alphas=[0.5, 1])  # not decreasing
    with pytest.raises(haze.MismatchError):
        tri(1, 2, 3) + tri(1, 2, 3, encoding="mr")
    with pytest.raises(haze.MismatchError):
        tri(1, 2, 3) + tri(1, 2, 3, cuts=5)
    with pytest.raises(haze.DomainError, match="square root"):
        tri(-3, -2, -1).sqrt()
    with pytest.raises(TypeError):
        tri(1, 2, 3) + None
    with pytest.raises(TypeError):
        FuzzyNumber()
    with pytest.raises(ValueError):
        tri(1, 2, float("nan"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(FuzzyOverflowWarning):
            crisp(1e308) * 10
    with pytest.warns(FuzzyOverflowWarning):
        y = crisp(1e308) * 10
    assert y.kernel == (1.7976931348623157e308, math.inf)


# ---------------------------------------------------------------- arrays


def _numbers(k):
    return [tri("0.1", "0.2", "0.3", **k), trap(-1, 0, "0.5", 2, **k), gauss("1.5", "0.5", 2, **k),
            crisp("0.7", **k), tri(2, 3, 7, **k)]


@pytest.mark.parametrize("shape", SHAPES[:4], ids=["-".join(map(str, s)) for s in SHAPES[:4]])
def test_arrays_agree_with_scalars(shape, ctx):
    enc, prec, cuts = shape
    k = dict(encoding=enc, precision=prec, cuts=cuts)
    xs, ys = _numbers(k), [tri(1, 2, 3, **k), tri(2, 3, 4, **k), crisp(3, **k), tri(4, 5, 6, **k),
                           trap(1, 2, 3, 4, **k)]
    a, b = FuzzyArray.from_numbers(xs, ctx=ctx), FuzzyArray.from_numbers(ys, ctx=ctx)
    assert len(a) == 5 and a.on_device == (ctx.backend == "cuda")
    for got, want in [(a + b, [x + y for x, y in zip(xs, ys)]),
                      (a - b, [x - y for x, y in zip(xs, ys)]),
                      (a * b, [x * y for x, y in zip(xs, ys)]),
                      (a / b, [x / y for x, y in zip(xs, ys)]),
                      (-a, [-x for x in xs]),
                      (a * 2, [x * 2 for x in xs]),
                      (3 - a, [3 - x for x in xs]),
                      (1 / b, [1 / y for y in ys]),
                      (a + ys[0], [x + ys[0] for x in xs]),
                      (ys[0] * a, [ys[0] * x for x in xs]),
                      (a * crisp("0.1", **k), [x * crisp("0.1", **k) for x in xs])]:
        assert isinstance(got, FuzzyArray) and len(got) == 5
        for i, w in enumerate(want):
            assert got[i].same_bits(w), (i, got[i], w)
    # the read-out: lower/upper are the cuts of each element
    lo, hi = a.lower, a.upper
    assert lo.shape == (5, cuts) and lo.dtype == np.float64
    for i, x in enumerate(xs):
        np.testing.assert_array_equal(lo[i], x.cuts[0])
        np.testing.assert_array_equal(hi[i], x.cuts[1])
    np.testing.assert_array_equal(a.centroid(), [x.centroid() for x in xs])


def test_array_construction(ctx):
    lo = np.array([[1.0, 0.5, 0.0], [2.0, 1.0, 0.0]])
    hi = np.array([[1.0, 1.5, 2.0], [2.0, 3.0, 4.0]])
    a = FuzzyArray.from_cuts(lo, hi, alphas=[1, 0.6, 0.2], ctx=ctx)
    np.testing.assert_array_equal(a.lower, lo)
    np.testing.assert_array_equal(a.upper, hi)
    np.testing.assert_array_equal(a.alphas, [1, 0.6, 0.2])
    np.testing.assert_array_equal(a.cut(1)[1], [1.5, 3.0])
    # float32 and Fortran-ordered input: converted once
    b = FuzzyArray.from_cuts(np.asfortranarray(lo).astype(np.float32), hi, alphas=[1, 0.6, 0.2],
                             ctx=ctx)
    np.testing.assert_array_equal(b.lower, lo)
    with pytest.raises(haze.InvalidArgumentError):
        FuzzyArray.from_cuts(hi, lo, ctx=ctx)  # inverted
    t = FuzzyArray.tri([0.1, 1], [0.2, 2], [0.3, 3], cuts=6, ctx=ctx)
    assert t[0].same_bits(tri(0.1, 0.2, 0.3, cuts=6)) and t[1].same_bits(tri(1, 2, 3, cuts=6))
    g = FuzzyArray.gauss(0, [1, 2], cuts=3, ctx=ctx)
    assert g[1].same_bits(gauss(0, 2, 3, cuts=3))
    z = FuzzyArray.trap(0, 1, 2, [3, 4, 5], ctx=ctx)
    assert len(z) == 3 and z[2].same_bits(trap(0, 1, 2, 5))
    c = FuzzyArray.crisp([1, 2, 3], encoding="mi", ctx=ctx)
    assert c[1].same_bits(crisp(2, encoding="mi"))
    zeros = FuzzyArray(4, cuts=2, ctx=ctx)
    np.testing.assert_array_equal(zeros.lower, np.zeros((4, 2)))
    zeros[1] = tri(1, 2, 3, cuts=2)
    zeros[-1] = 5
    assert zeros[1].same_bits(tri(1, 2, 3, cuts=2)) and zeros[3].kernel == (5.0, 5.0)
    s = t[::-1]
    assert isinstance(s, FuzzyArray) and s[0].same_bits(t[1])
    assert [x.kernel for x in c] == [(1.0, 1.0), (2.0, 2.0), (3.0, 3.0)]
    d = c.data
    assert d.shape == (3, 2) or d.shape == (3, 5)
    c2 = FuzzyArray(3, encoding="mi", ctx=ctx)
    c2.data = d
    assert c2[2].same_bits(c[2])
    with pytest.raises(IndexError):
        t[2]
    with pytest.raises(haze.MismatchError):
        t + FuzzyArray.crisp([1, 2, 3], cuts=6, ctx=ctx)


def test_axpy_and_sort_by_key(ctx):
    xs = [tri(1, 2, 3), tri("0.5", "0.6", "0.7"), crisp("-0.3"), trap(0, 1, 2, 3)]
    a = FuzzyArray.from_numbers(xs, ctx=ctx)
    b = tri("0.1", "0.2", "0.3")
    y = axpy(a, b, iters=5)
    for i, x in enumerate(xs):
        w = crisp(0)
        for _ in range(5):
            w = x * w + b
        assert y[i].same_bits(w), i
    out = FuzzyArray(4, ctx=ctx)
    assert axpy(a, 2, 3, out=out) is out
    keys = np.array([7, 3, 7, 1], dtype=np.int64)
    s = a.copy()
    sk = s.sort_by_key(keys)
    order = np.argsort(keys, kind="stable")
    np.testing.assert_array_equal(sk, keys[order])
    assert sk.dtype == np.uint32
    for j, i in enumerate(order):
        assert s[j].same_bits(xs[i])
    np.testing.assert_array_equal(keys, [7, 3, 7, 1])  # the caller's keys stay
    with pytest.raises(ValueError):
        s.sort_by_key([1, 2])


def test_array_convert_and_device_copies(ctx):
    a = FuzzyArray.tri([1, 2], [2, 3], [3, 5], ctx=ctx)
    m = a.convert("mr", "single")
    assert (m.encoding, m.precision) == ("mr", "single")
    assert m[1].same_bits(tri(2, 3, 5).convert("mr", "single"))
    h = a.to_host()
    assert not h.on_device and h[0].same_bits(a[0])
    if ctx.backend == "cuda":
        d = h.to_device()
        assert d.on_device and (d * 2)[1].same_bits(h[1] * 2)


def test_division_by_zero_in_arrays(ctx):
    a = FuzzyArray.crisp([1, 2], ctx=ctx)
    b = FuzzyArray.from_numbers([interval(-1, 1), crisp(2)], ctx=ctx)
    with pytest.raises(haze.DomainError, match="element 0"):
        a / b
    r = a.div(b, div_zero="hull")
    assert r[0].kernel == (-math.inf, math.inf) and r[1].kernel == (1.0, 1.0)


def test_broadcasting_numpy_scalars_and_empty_arrays(ctx):
    a = FuzzyArray.crisp([1, 2, 3], ctx=ctx)
    one = a[0:1]
    np.testing.assert_array_equal((one + a).lower[:, 0], [2, 3, 4])
    np.testing.assert_array_equal((a + one).lower[:, 0], [2, 3, 4])
    np.testing.assert_array_equal((one - a).lower[:, 0], [0, -1, -2])
    with pytest.raises(haze.MismatchError):
        a + a[0:2]
    np.testing.assert_array_equal((np.float64(2) * a).lower[:, 0], [2, 4, 6])
    x = tri(1, 2, 3)
    assert (np.float64(2) * x).same_bits(2 * x) and (x - np.int32(1)).same_bits(x - 1)
    with pytest.raises(TypeError):
        a * np.array([1.0, 2.0, 3.0])  # an ndarray is no fuzzy number
    e = FuzzyArray(0, ctx=ctx)
    assert len(e) == 0 and e.lower.shape == (0, 4) and len(e + 1) == 0
    assert e.centroid().shape == (0,)


def test_pickle(ctx):
    import pickle
    x = tri("0.1", "0.2", "0.3", encoding="mi", precision="single", alphas=[1, 0.7, 0.2])
    y = pickle.loads(pickle.dumps(x))
    assert isinstance(y, FuzzyNumber) and y.same_bits(x)
    a = FuzzyArray.from_numbers([x, crisp(2, encoding="mi", precision="single",
                                              alphas=[1, 0.7, 0.2])], ctx=ctx)
    b = pickle.loads(pickle.dumps(a))
    assert isinstance(b, FuzzyArray) and len(b) == 2
    assert b[0].same_bits(x) and b[1].same_bits(a[1])


def test_the_private_functions_check_their_arguments():
    from haze import _ext
    c = haze.default_context("cpu")._h
    a = FuzzyArray.crisp([1, 2, 3], backend="cpu")
    with pytest.raises(TypeError):
        _ext.fuzzy_info(None)
    with pytest.raises(TypeError):
        _ext.fuzzy_info(c)  # a context is no array
    with pytest.raises(TypeError):
        _ext.fuzzy_get_cuts(c, a._h, np.zeros((3, 4), np.float32), np.zeros((3, 4)))
    with pytest.raises(ValueError):
        _ext.fuzzy_get_cuts(c, a._h, np.zeros((3, 3)), np.zeros((3, 4)))
    with pytest.raises(haze.InvalidArgumentError):
        _ext.fuzzy_op(c, 99, a._h, None, False, a._h)
    with pytest.raises(haze.InvalidArgumentError):
        _ext.fuzzy_op(c, 0, a._h, None, False, a._h)
    with pytest.raises(IndexError):
        _ext.fuzzy_take(a._h, 5, a._h, 0)
    with pytest.raises((TypeError, haze.MismatchError)):
        _ext.fuzzy_set_data(c, a._h, b"abcdefgh")
    with pytest.raises(ValueError):
        _ext.fuzzy_sort_by_key(c, np.zeros(2, np.uint32), a._h)
    with pytest.raises(TypeError):
        _ext.fuzzy_set_iv(c, a._h, 0, 0, [(1, 2), (2, "a"), (3, 4)])
    with pytest.raises(haze.InvalidArgumentError):
        _ext.fuzzy_set_iv(c, a._h, 0, 0, [(1, 2), (2, 3)])
    with pytest.raises(haze.InvalidArgumentError):
        _ext.fuzzy_new(c, 7, _ext.F64, 4, 1, None, False)
    with pytest.raises(haze.InvalidArgumentError):
        _ext.fuzzy_new(c, 0, _ext.F64, 4, -1, None, False)


def test_large_arrays(ctx):
    n = 200_000
    rng = np.random.default_rng(1)
    m = rng.uniform(1, 2, n)
    a = FuzzyArray.tri(m - 0.5, m, m + 0.5, ctx=ctx)
    b = a * a + 1
    assert len(b) == n
    i = 12345
    assert b[i].same_bits(a[i] * a[i] + 1)


# ------------------------------------------------------------------ plot


def test_plot_png_is_not_blank(tmp_path):
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(4, 3), dpi=80)
    x = tri("0.2", "0.3", "0.4", cuts=6)
    assert x.plot(ax=ax, label="x", color="red") is ax
    (x * 2).plot(ax=ax, label="2x", color="blue")
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    buf.seek(0)
    img = plt.imread(buf)
    assert img.shape[:2] == (240, 320)
    rgb = img[..., :3]
    assert (rgb.std(axis=(0, 1)) > 0.01).any()  # not one colour
    red = (rgb[..., 0] > 0.8) & (rgb[..., 1] < 0.3) & (rgb[..., 2] < 0.3)
    blue = (rgb[..., 2] > 0.8) & (rgb[..., 0] < 0.3) & (rgb[..., 1] < 0.3)
    assert red.sum() > 20 and blue.sum() > 20
