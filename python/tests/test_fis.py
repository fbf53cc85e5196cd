"""haze.FIS: reading, inspecting, building, evaluating and saving fuzzy
inference systems, bit for bit as the C library and the command line give."""

import glob
import os
import subprocess
import threading

import numpy as np
import pytest

import haze
from haze import _ext
from haze.fis import FIS, Term

from conftest import CLI, needs_cli


@pytest.fixture(scope="module")
def tipper_path(data_dir):
    return os.path.join(data_dir, "fis", "tipper.fis")


def build_tipper():
    """MATLAB's tipper (tests/data/fis/tipper.fis) built in code."""
    fis = FIS("tipper")
    service = fis.add_input("service", (0, 10))
    service.add_term("poor", "gaussmf", [1.5, 0])
    service.add_term("good", "gaussmf", [1.5, 5])
    service.add_term("excellent", "gaussmf", [1.5, 10])
    fis.add_input("food", (0, 10), [("rancid", "trapmf", [0, 0, 1, 3]),
                                    ("delicious", "trapmf", [7, 9, 10, 10])])
    fis.add_output("tip", (0, 30), {"cheap": ("trimf", [0, 5, 10]),
                                    "average": ("trimf", [10, 15, 20]),
                                    "generous": ("trimf", [20, 25, 30])})
    fis.add_rule("if service is poor or food is rancid then tip is cheap")
    fis.add_rule(({"service": "good"}, {"tip": "average"}))
    fis.add_rule([3, 2, 3, 1, 2])  # MATLAB's rule row: excellent or delicious -> generous
    return fis


def grid(fis, n=23):
    (a0, a1), (b0, b1) = fis.inputs[0].range, fis.inputs[1].range
    # a little outside the ranges too: clamping is part of the evaluation
    g = np.meshgrid(np.linspace(a0 - 1, a1 + 1, n), np.linspace(b0 - 1, b1 + 1, n))
    return np.column_stack([g[0].ravel(), g[1].ravel()])


def cli_eval(model, X, tmp_path, *args):
    """`haze fis eval MODEL X.csv` as an array (the CSV holds shortest
    round-trip numbers, so reading it back is exact)."""
    inp, outp = tmp_path / "in.csv", tmp_path / "out.csv"
    haze.write_table(inp, X)
    # on the CPU, as the Python side of each comparison (the GPU's exp and
    # pow may differ in the last bits)
    r = subprocess.run([CLI, "fis", "eval", str(model), str(inp), "-o", str(outp), *args],
                       capture_output=True, text=True, env=dict(os.environ, HAZE_BACKEND="cpu"))
    assert r.returncode == 0, r.stderr
    return haze.read_table(outp, allow_nonfinite=True).data


def same_bits(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return a.shape == b.shape and np.array_equal(a.view(np.uint64), b.view(np.uint64))


def same_as_text(a, b):
    """same_bits, but a NaN of either sign matches any NaN: a CSV holds "nan"
    for every NaN."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or not np.array_equal(np.isnan(a), np.isnan(b)):
        return False
    keep = ~np.isnan(a)
    return np.array_equal(a[keep].view(np.uint64), b[keep].view(np.uint64))


# --------------------------------------------------------------- reading


def test_load_inspect(tipper_path):
    f = FIS.load(tipper_path)
    assert f.name == "tipper" and f.type == "mamdani"
    assert f.input_names == ["service", "food"] and f.output_names == ["tip"]
    service = f.inputs[0]
    assert service.range == (0.0, 10.0)
    assert service.terms[1] == Term("good", "gaussmf", (1.5, 5.0))
    assert f.outputs[0].term("generous").params == (20.0, 25.0, 30.0)
    assert f.rules[0] == "If (service is poor) or (food is rancid) then (tip is cheap) (1)"
    assert f.rule_terms(1) == ((2, 0), (2,))
    assert f.methods == {"and": "min", "or": "max", "imp": "min", "agg": "max",
                         "defuzz": "centroid"}
    assert f.mode == "matlab" and f.points == 101 and f.warnings == []
    assert "tipper" in repr(f) and "3 rules" in repr(f)
    assert "service" in repr(service)
    assert f.variable("out1").name == "tip" and f.variable("food").index == 1
    with pytest.raises(KeyError):
        f.variable("wine")


def test_eval_known_values(tipper_path, ctx):
    f = FIS.load(tipper_path)
    y = f.eval([[2, 1], [4, 5], [7, 8], [1, 2]], ctx=ctx)
    assert y.shape == (4, 1) and y.dtype == np.float64
    # MathWorks' published values
    np.testing.assert_allclose(y[:, 0], [7.0169, 14.4585, 20.3414, 5.5586], atol=1e-4)
    one = f([2, 1], ctx=ctx)
    assert one.shape == (1,) and one[0] == y[0, 0]


def test_eval_shapes_and_columns(tipper_path):
    f = FIS.load(tipper_path)
    X = grid(f, 7)
    y = f.eval(X)
    # columns by name, in any order; scalars broadcast
    assert same_bits(f.eval({"food": X[:, 1], "service": X[:, 0]}), y)
    assert same_bits(f.eval({"service": X[:3, 0], "food": 5.0}),
                     f.eval(np.column_stack([X[:3, 0], [5.0] * 3])))
    assert f.eval({"service": 2, "food": 1}).shape == (1,)
    with pytest.raises(haze.MismatchError, match="missing input.*food"):
        f.eval({"service": [1, 2]})
    with pytest.raises(haze.MismatchError, match="unknown name.*wine"):
        f.eval({"service": [1], "food": [2], "wine": [3]})
    assert same_bits(f.eval({"service": [1], "food": [2], "wine": [3]}, ignore_extra=True),
                     f.eval([[1, 2]]))
    # float64 in C order goes to the library as it is (zero copy)
    assert X.flags.c_contiguous and f._matrix(X)[0] is X
    # float32, Fortran order and integers are converted once; same values
    assert same_bits(f.eval(np.asfortranarray(X)), y)
    assert same_bits(f.eval(X.astype(np.float32)), f.eval(X.astype(np.float32).astype(float)))
    assert same_bits(f.eval(X[::2]), y[::2])
    # zero copy into the caller's output
    out = np.empty((len(X), 1))
    assert f.eval(X, out=out) is out and same_bits(out, y)
    with pytest.raises(ValueError):
        f.eval(X, out=np.empty((len(X), 2)))
    # no rows
    assert f.eval(np.empty((0, 2))).shape == (0, 1)
    y2, stats = f.eval([[-5, 20]], return_stats=True)
    assert stats == {"clamped": 2, "no_rule": 0}


def test_wrong_columns_raise(tipper_path):
    f = FIS.load(tipper_path)
    for bad in ([[1, 2, 3]], np.zeros((4, 3)), [1.0], np.zeros((2, 2, 2))):
        with pytest.raises(ValueError):
            f.eval(bad)
    with pytest.raises(haze.MismatchError, match="2 input"):
        f.eval(np.zeros((5, 3)))
    with pytest.raises(TypeError):
        f.eval([["a", "b"]])
    # the extension checks again whatever the Python side passes
    with pytest.raises(haze.MismatchError):
        _ext.fis_eval(haze.default_context()._h, f._handle(), np.zeros((2, 3)), np.zeros((2, 1)))
    with pytest.raises(TypeError):
        _ext.fis_eval(haze.default_context()._h, f._handle(), np.zeros((2, 2), np.float32),
                      np.zeros((2, 1)))
    with pytest.raises(TypeError):
        _ext.fis_eval(haze.default_context()._h, haze.default_context()._h, np.zeros((2, 2)),
                      np.zeros((2, 1)))
    with pytest.raises(TypeError):
        _ext.fis_eval(haze.default_context()._h, f._handle(), np.zeros((2, 2)),
                      np.zeros((2, 1)).astype(np.float64)[::1].copy().view(np.int64))


def test_parse_errors_name_file_line(tmp_path):
    bad = tmp_path / "bad.fis"
    bad.write_text("[System]\nNumInputs=1\nNumOutputs=1\n[Input1]\nRange=[0 1]\n"
                   "MF1='a':'trimf',[0 x 1]\n")
    with pytest.raises(haze.ParseError, match=r"bad\.fis:6: "):
        FIS.load(bad)
    with pytest.raises(haze.ParseError, match=r"mine\.fis:6"):
        FIS.parse(bad.read_text(), name="mine.fis")
    with pytest.raises(haze.HazeIOError, match="none.fis"):
        FIS.load(tmp_path / "none.fis")
    with pytest.raises(haze.ParseError):
        FIS.parse("Engine: e\nInputVariable: x\n  range: 0 zz\n", format="fll")
    with pytest.raises(ValueError):
        FIS.parse("", format="xml")


# ------------------------------------------------------------- building


def test_built_tipper_matches_file_bit_for_bit(tipper_path, ctx):
    built, loaded = build_tipper(), FIS.load(tipper_path)
    assert built.rules == loaded.rules
    assert [v.terms for v in built.inputs] == [v.terms for v in loaded.inputs]
    X = grid(loaded)
    for mode in ("matlab", "octave", "exact"):
        built.mode = loaded.mode = mode
        assert same_bits(built.eval(X, ctx=ctx), loaded.eval(X, ctx=ctx)), mode


@needs_cli
def test_built_tipper_matches_cli(tipper_path, tmp_path):
    built = build_tipper()
    X = grid(built)
    assert same_bits(built.eval(X, backend="cpu"), cli_eval(tipper_path, X, tmp_path))
    built.mode, built.points = "octave", 257
    assert same_bits(built.eval(X, backend="cpu"),
                     cli_eval(tipper_path, X, tmp_path, "--mode", "octave", "--points", "257"))
    # and the system saved from Python reads the same in the CLI
    built.save(tmp_path / "built.fis")
    built.mode, built.points = "matlab", 101
    assert same_bits(built.eval(X, backend="cpu"), cli_eval(tmp_path / "built.fis", X, tmp_path))


def test_rule_forms():
    f = build_tipper()
    f.add_rule("if service is not poor and food is very delicious then tip is generous with 0.5")
    f.add_rule({"service": "excellent"}, then={"tip": "generous"}, weight=0.25)
    f.add_rule("if (food is rancid) then (tip is cheap) (0.75)")
    assert f.rules[3] == ("If (service is not poor) and (food is very delicious) then "
                          "(tip is generous) (0.5)")
    assert f.rules[4] == "If (service is excellent) then (tip is generous) (0.25)"
    assert f.rules[5] == "If (food is rancid) then (tip is cheap) (0.75)"
    assert f.rule_terms(3) == ((-1, 2), (3,))
    for bad in ("service is poor", "if service is poor and food is rancid or service is good "
                "then tip is cheap", "if service is lousy then tip is cheap",
                "if wine is red then tip is cheap", "if service is poor then tip is huge"):
        with pytest.raises(ValueError):
            f.add_rule(bad)
    with pytest.raises(haze.MismatchError):
        f.add_rule([1, 1])
    with pytest.raises(ValueError):
        f.add_rule("if service is poor then tip is cheap", weight=2)
    assert len(f.rules) == 6


def test_building_errors():
    f = FIS("t")
    with pytest.raises(ValueError):
        f.add_input("x", (1, 1))
    with pytest.raises(ValueError):
        f.add_input("it's", (0, 1))
    x = f.add_input("x", (0, 1))
    with pytest.raises(ValueError):
        f.add_input("x", (0, 2))
    x.add_term("a", "trimf", [0, 0.5, 1])
    with pytest.raises(ValueError):
        x.add_term("a", "trimf", [0, 0.5, 1])
    with pytest.raises(ValueError):
        x.add_term("b", "trimf", [0, float("nan"), 1])
    f.add_output("y", (0, 10)).add_term("lo", "trimff", [0, 5, 10])
    f.add_rule("if x is a then y is lo")
    # the library's reader refuses the unknown type, naming the generated line
    with pytest.raises(haze.HazeError, match="trimff"):
        f.eval([0.5])
    with pytest.raises(ValueError):
        FIS("t", type="tsukamoto")


def test_sugeno_built_and_saved(tmp_path):
    f = FIS("lin", type="sugeno")
    f.add_input("x", (0, 1), [("lo", "trimf", [-1, 0, 1]), ("hi", "trimf", [0, 1, 2])])
    f.add_output("y", (0, 10), [("a", "constant", [1]), ("b", "linear", [4, 2])])
    f.add_rule("if x is lo then y is a").add_rule("if x is hi then y is b")
    assert f.type == "sugeno" and f.methods["defuzz"] == "wtaver"
    xs = np.linspace(0, 1, 11)
    want = (1 - xs) * 1 + xs * (4 * xs + 2)
    np.testing.assert_allclose(f.eval(xs)[:, 0], want, rtol=1e-14, atol=1e-14)
    for ext in ("fis", "fll"):
        p = tmp_path / f"lin.{ext}"
        f.save(p)
        g = FIS.load(p)
        assert g.type == "sugeno"
        np.testing.assert_allclose(g.eval(xs)[:, 0], want, rtol=1e-12, atol=1e-12)


def test_save_round_trip_and_edit(tipper_path, tmp_path):
    f = FIS.load(tipper_path)
    X = grid(f)
    y = f.eval(X)
    f.save(tmp_path / "copy.fis")
    assert same_bits(FIS.load(tmp_path / "copy.fis").eval(X), y)
    assert "[Rules]" in f.to_text() and "Engine" in f.to_text("fll")
    # a read system is edited through its .fis text; the original file's
    # evaluation settings stay
    g = FIS.load(tipper_path)
    g.points = 201
    g.add_rule("if food is delicious then tip is generous")
    assert len(g.rules) == 4 and g.points == 201
    assert not same_bits(g.eval(X), y)
    g.name = "tipper2"
    assert g.name == "tipper2" and "tipper2" in repr(g)
    h = f.copy()
    h.mode = "exact"
    assert f.mode == "matlab" and same_bits(f.eval(X), y)
    # a fuzzylite engine .fis cannot express is refused, saying what, and
    # nothing is written
    chained = FIS.load(os.path.join(os.path.dirname(tipper_path), "fuzzylite",
                                    "mamdani_SimpleDimmerChained.fll"))
    with pytest.raises(haze.UnsupportedError, match="cannot be written as .fis"):
        chained.save(tmp_path / "x.fis")
    assert not (tmp_path / "x.fis").exists()
    # a fuzzylite engine is edited as .fll text, not in code (.fis would lose
    # its resolutions)
    with pytest.raises(haze.UnsupportedError, match="SimpleDimmerChained: a fuzzylite engine"):
        chained.add_rule("if Ambient is DARK then Power is HIGH")
    with pytest.raises(haze.UnsupportedError, match="^SimpleDimmerChained.fis: "):
        chained.to_text("fis")
    # a copy of a .fll engine stays one (lock-previous, activation, ...)
    dimmer = FIS.load(os.path.join(os.path.dirname(tipper_path), "fuzzylite",
                                   "mamdani_SimpleDimmerChained.fll"))
    for d in (dimmer.copy(), FIS.parse(dimmer.to_text("fll"), format="fll").copy()):
        xs = np.linspace(0, 1, 9)
        assert d.mode == "fuzzylite" and same_bits(d.eval(xs), dimmer.eval(xs))


def test_modes_and_points(tipper_path):
    f = FIS.load(tipper_path)
    f.mode = "exact"
    # the closed-form centroid at [1 2] (MATLAB's 101 points give 5.5586)
    assert abs(f([1, 2])[0] - 5.55394) < 1e-5
    f.mode = "matlab"
    f.points = 1001
    assert f.points == 1001 and abs(f([1, 2])[0] - 5.5539) < 1e-3
    with pytest.raises(ValueError):
        f.mode = "excel"
    with pytest.raises(haze.InvalidArgumentError):
        f.points = 1
    with pytest.raises(TypeError):
        f.points = 2.5
    b = build_tipper()
    with pytest.raises(ValueError):
        b.points = 10**7
    f.nan_if_no_rule = True
    assert f.nan_if_no_rule


def test_explain(tipper_path):
    f = FIS.load(tipper_path)
    r = f.explain([2, 1], points=51)
    assert r.firing.shape == (3,) and r.firing[0] == 1.0
    assert r.implied.shape == (3, 51) and r.aggregate.shape == (51,)
    np.testing.assert_array_equal(r.aggregate, r.implied.max(axis=0))
    assert r.value == f([2, 1])[0]
    r2 = f.explain({"service": 2, "food": 1}, output="tip", points=51)
    assert np.array_equal(r2.implied, r.implied) and r2.value == r.value
    with pytest.raises(ValueError):
        f.explain([2, 1], output="food")
    with pytest.raises(IndexError):
        f.explain([2, 1], output=1)
    s = FIS("s", type="sugeno")
    s.add_input("x", (0, 1), [("a", "trimf", [-1, 0, 1])])
    s.add_output("y", (0, 1), [("c", "constant", [0.5])])
    s.add_rule("if x is a then y is c")
    r = s.explain([0.25])
    assert r.firing[0] == 0.75 and r.implied is None and r.value == 0.5


def test_threads_share_a_system(tipper_path):
    f = FIS.load(tipper_path)
    X = np.random.default_rng(3).uniform(0, 10, (20000, 2))
    want = f.eval(X, backend="cpu")
    got = [None] * 4

    def work(i):
        got[i] = f.eval(X, backend="cpu")

    ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert all(same_bits(g, want) for g in got)


def test_no_change_while_evaluating(tipper_path):
    """Changing mode or points frees what a running evaluation reads: while
    one runs (without the GIL) in another thread, a change is refused."""
    f = FIS.load(tipper_path)
    with f._reading():  # as eval holds it around the library's call
        for change in (lambda: setattr(f, "mode", "exact"), lambda: setattr(f, "points", 51),
                       lambda: setattr(f, "nan_if_no_rule", True)):
            with pytest.raises(RuntimeError, match="in use by another thread"):
                change()
    assert (f.mode, f.points, f.nan_if_no_rule) == ("matlab", 101, False)
    f.mode = "exact"
    assert f.mode == "exact"


# ------------------------------------------------- fuzzylite conformance


def read_fld(path):
    with open(path) as fp:
        names = fp.readline().split()
        rows = [[float(v) for v in line.split()] for line in fp if line.strip()]
    return names, np.array(rows, dtype=np.float64)


FL_DIR = os.path.join(os.environ.get("HAZE_TEST_DATA", os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "tests",
    "data")), "fis")
FL_ENGINES = sorted(glob.glob(os.path.join(FL_DIR, "fuzzylite", "*.fll")))
OWN_ENGINES = sorted(glob.glob(os.path.join(FL_DIR, "fuzzylite-haze", "*.fll")))


def test_all_fuzzylite_examples_found():
    assert len(FL_ENGINES) == 18 and len(OWN_ENGINES) >= 19


@pytest.mark.parametrize("fll", FL_ENGINES + OWN_ENGINES,
                         ids=[os.path.basename(p)[:-4] for p in FL_ENGINES + OWN_ENGINES])
def test_fuzzylite_engines(fll, tmp_path):
    """The engines with fuzzylite's reference outputs: Python's values are the
    C library's (through the CLI) bit for bit, and fuzzylite's within the
    C tests' tolerances (1e-6 of the range; 2e-9 for haze's own engines)."""
    f = FIS.load(fll)
    assert f.mode == "fuzzylite"
    names, data = read_fld(fll[:-4] + ".fld")
    ni, no = len(f.inputs), len(f.outputs)
    assert data.shape[1] == ni + no
    X, want = np.ascontiguousarray(data[:, :ni]), data[:, ni:]
    got = f.eval(X, backend="cpu")  # all rows in one batch, as fuzzylite ran them
    own = "fuzzylite-haze" in fll
    for o in range(no):
        lo, hi = f.outputs[o].range
        tol = 2e-9 if own else 1e-6 * (hi - lo)
        w, h = want[:, o], got[:, o]
        both_nan = np.isnan(w) & np.isnan(h)
        assert np.all(both_nan | (np.abs(h - w) <= tol)), f"output {o}"
    # by name too
    assert same_bits(f.eval(dict(zip(f.input_names, X.T)), backend="cpu"), got)
    if CLI and np.isfinite(X).all():
        assert same_as_text(got, cli_eval(fll, X, tmp_path))


OCTAVE = sorted(glob.glob(os.path.join(FL_DIR, "octave", "*.fis")))


@needs_cli
@pytest.mark.parametrize("fis", OCTAVE, ids=[os.path.basename(p)[:-4] for p in OCTAVE])
@pytest.mark.parametrize("mode", ["matlab", "octave"])
def test_octave_examples_match_cli(fis, mode, tmp_path):
    """Octave's example systems (Mamdani and Sugeno, hedges, several
    outputs): Python and the CLI give the same bits in both modes."""
    f = FIS.load(fis)
    f.mode = mode
    lo = np.array([v.range[0] for v in f.inputs])
    hi = np.array([v.range[1] for v in f.inputs])
    X = lo + (hi - lo) * np.random.default_rng(5).uniform(-0.1, 1.1, (300, len(lo)))
    assert same_as_text(f.eval(X, backend="cpu"), cli_eval(fis, X, tmp_path, "--mode", mode))


@pytest.mark.parametrize("fis", OCTAVE, ids=[os.path.basename(p)[:-4] for p in OCTAVE])
def test_octave_examples_edit_round_trip(fis):
    """A read system that is edited goes through its .fis text and this
    package's reading of it: hedges, NOT, weights and several outputs come
    back; the evaluation is unchanged until the system is."""
    f, g = FIS.load(fis), FIS.load(fis)
    g.name = f.name + "_edited"
    assert g._spec is not None and g.rules == f.rules
    lo = np.array([v.range[0] for v in f.inputs])
    hi = np.array([v.range[1] for v in f.inputs])
    X = lo + (hi - lo) * np.random.default_rng(6).uniform(0, 1, (200, len(lo)))
    assert same_bits(g.eval(X), f.eval(X))


# ------------------------------------------------------------------ plots


def png_pixels(fig, tmp_path, name):
    plt = pytest.importorskip("matplotlib.pyplot")
    p = tmp_path / name
    fig.savefig(p, dpi=60)
    plt.close(fig)
    img = plt.imread(p)
    assert img.ndim == 3 and img.shape[0] > 50 and img.shape[1] > 50
    return img[:, :, :3]


def has_colour(img, rgb, tol=0.08):
    return bool((np.abs(img - np.asarray(rgb)).max(axis=2) < tol).any())


def test_plot_mfs(tipper_path, tmp_path):
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    f = FIS.load(tipper_path)
    ax = f.plot_mfs("service")
    img = png_pixels(ax.figure, tmp_path, "service.png")
    assert img.std() > 0.01  # not blank
    # the three terms in matplotlib's first three colours
    for c in ((0.12, 0.47, 0.71), (1.0, 0.5, 0.05), (0.17, 0.63, 0.17)):
        assert has_colour(img, c)
    s = FIS("s", type="sugeno")
    s.add_input("x", (0, 1), [("a", "trimf", [-1, 0, 1])])
    s.add_output("y", (0, 1), [("c", "constant", [0.5]), ("l", "linear", [1, 0])])
    ax = s.plot_mfs("y")  # a stem for the constant, the linear term named only
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["c", "l (linear)"]
    png_pixels(ax.figure, tmp_path, "sugeno.png")
    axes = f.plot_mfs()
    assert len(axes) == 3
    assert [a.get_xlabel() for a in axes] == ["service", "food", "tip"]
    png_pixels(axes[0].figure, tmp_path, "all.png")


def test_plot_surface(tipper_path, tmp_path):
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    f = FIS.load(tipper_path)
    ax, (xs, ys, Z) = f.plot_surface(grid=15)
    assert Z.shape == (15, 15)
    assert Z[0, 0] == f([0, 0])[0] and Z[3, 7] == f([xs[7], ys[3]])[0]
    img = png_pixels(ax.figure, tmp_path, "surface.png")
    # viridis runs from dark purple to yellow
    assert has_colour(img, (0.27, 0.0, 0.33), 0.1) and has_colour(img, (0.99, 0.91, 0.14), 0.1)
    xs2, ys2, Z2 = f.surface(inputs=("food", "service"), hold={}, grid=5)
    assert Z2.shape == (5, 5, 1) and Z2[1, 3, 0] == f({"food": xs2[3], "service": ys2[1]})[0]
    for bad in ((0, 0), (0, 2), ("food", "wine"), (0,)):
        with pytest.raises(ValueError):
            f.surface(inputs=bad)
    with pytest.raises(KeyError):
        f.surface(hold={"wine": 1})
    s = FIS("one")
    s.add_input("x", (0, 1), [("a", "trimf", [0, 0, 1])])
    s.add_output("y", (0, 1), [("b", "trimf", [0, 0, 1])])
    s.add_rule("if x is a then y is b")
    with pytest.raises(ValueError):
        s.plot_surface()


# ------------------------------------------------------------------ docs


def test_docs_tipper_port(capsys):
    """docs/python-fis.md: the haze half of the scikit-fuzzy tipper port runs
    and prints what the page says; the exact mode gives the closed form."""
    import re
    import types
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with open(os.path.join(root, "docs", "python-fis.md")) as fp:
        text = fp.read()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    code = next(b for b in blocks if "haze.FIS(" in b)
    skf = next(b for b in blocks if "skfuzzy" in b)
    lines = lambda b: len([ln for ln in b.splitlines() if ln.strip()])  # noqa: E731
    assert lines(code) == 12 and lines(skf) == 19  # as the page says
    ns = {"haze": types.SimpleNamespace(**{**vars(haze), "FIS": FIS})}
    exec(compile(code.replace("import haze\n", ""), "python-fis.md", "exec"), ns)
    assert capsys.readouterr().out.startswith("[19.95")
    tip = ns["tip"]
    tip.mode = "exact"
    assert round(float(tip({"quality": 6.5, "service": 9.8})[0]), 4) == 19.8578


def test_docs_cli_twins(tmp_path, monkeypatch):
    """docs/python-fis.md: the Python twins of the README's fis and edge
    commands run, from a folder that sees the repository's data."""
    pytest.importorskip("matplotlib").use("Agg")
    import re
    import types
    import matplotlib.pyplot as plt
    import haze.edge as edge_mod
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with open(os.path.join(root, "docs", "python-fis.md")) as fp:
        code = next(b for b in re.findall(r"```python\n(.*?)```", fp.read(), re.S)
                    if "haze fis info" in b)
    data = os.environ.get("HAZE_TEST_DATA", os.path.join(root, "tests", "data"))
    for d, src in (("data", os.path.join(root, "data")),
                   ("examples", os.path.join(root, "examples")),
                   ("tests", os.path.dirname(data))):
        os.symlink(src, tmp_path / d)
    monkeypatch.chdir(tmp_path)
    shim = types.SimpleNamespace(**{**vars(haze), "FIS": FIS, "edges": edge_mod.edges,
                                    "EdgeDetector": edge_mod.EdgeDetector,
                                    "load_image": edge_mod.load_image,
                                    "save_image": edge_mod.save_image, "edge": edge_mod})
    exec(compile(code.replace("import haze\n", ""), "python-fis.md", "exec"), {"haze": shim})
    plt.close("all")
    for f in ("outputs.csv", "clean.fis", "dimmer.fis", "edges.png", "outdir/frame1.png",
              "mfs.png", "food.svg", "surface.png", "both.png"):
        assert (tmp_path / f).stat().st_size > 0, f
    assert not (tmp_path / "hybrid.fis").exists()
