"""haze.prec: the rounding-error analyser against `haze prec` on the scripts
of examples/prec and tests/data/prec, scripts as text and files, engines and
bisection, point evaluation, errors with file:line:col, the plot."""

import glob
import io
import json
import os
import re
import subprocess
from fractions import Fraction

import numpy as np
import pytest

import haze
from haze.prec import PrecGoal, PrecResult, PrecScript, analyse

from conftest import CLI, ROOT, needs_cli

DATA = os.environ.get("HAZE_TEST_DATA", os.path.join(ROOT, "tests", "data"))
SCRIPTS = sorted(glob.glob(os.path.join(ROOT, "examples", "prec", "*.g"))
                 + glob.glob(os.path.join(DATA, "prec", "bench", "*.g"))
                 + glob.glob(os.path.join(DATA, "prec", "fpcore", "*.fpcore"))
                 + glob.glob(os.path.join(DATA, "prec", "long", "*.g")))
# the scripts whose loops are analysed unrolled (haze prec --unroll)
UNROLL = {"newton.fpcore"}


def cli(path, *args):
    r = subprocess.run([CLI, "prec", path, *args], capture_output=True, text=True, timeout=300)
    return r


def _no_header(text):
    return "\n".join(l for l in text.splitlines() if not l.startswith("# ")) + "\n"


@needs_cli
@pytest.mark.parametrize("path", SCRIPTS, ids=[os.path.basename(p) for p in SCRIPTS])
def test_results_equal_the_cli(path):
    unroll = os.path.basename(path) in UNROLL
    r = analyse(path, unroll=10000 if unroll else 0)
    c = cli(path, "--json", *(["--unroll"] if unroll else []))
    assert c.returncode in (0, 4), c.stderr
    j = json.loads(c.stdout)
    assert r.engine == j["engine"] == "both"
    mine = r.to_dict()
    for k in ("seconds", "script"):
        del mine[k], j[k]
    assert mine == j
    assert r.boxes == j["boxes"]
    assert r.all_proved == j["all_proved"]
    assert r.notes == j["warnings"]
    assert len(r.goals) == len(j["goals"])
    for g, w in zip(r.goals, j["goals"]):
        assert g.text == w["goal"]
        assert (g.lo_decimal, g.hi_decimal) == (w["lo"], w["hi"])
        assert (g.lo_exact, g.hi_exact) == (w["lo_exact"], w["hi_exact"])
        assert g.proved == w.get("proved")
        # the double bounds enclose the exact ones
        lo, hi = g.exact
        assert g.lo <= lo and hi <= g.hi
    # and the text output, line for line (the header has the time)
    t = cli(path, *(["--unroll"] if unroll else []))
    assert _no_header(t.stdout) == r.to_text(seconds=False)
    assert (c.returncode == 0) == r.all_proved


@needs_cli
@pytest.mark.parametrize("engine,cli_engine", [("interval", "ia"), ("affine", "aa"),
                                               ("both", "both"), ("ia", "ia")])
def test_engines_and_bisection_equal_the_cli(engine, cli_engine):
    path = os.path.join(DATA, "prec", "bench", "sine.g")
    r = analyse(path, engine, bisect={"x_m": 4}, refine=8)
    j = json.loads(cli(path, "--json", "--engine", cli_engine, "--bisect", "x_m=4",
                       "--refine", "8").stdout)
    assert r.engine == cli_engine and r.boxes == j["boxes"]
    assert [(g.lo_exact, g.hi_exact) for g in r.goals] == \
        [(g["lo_exact"], g["hi_exact"]) for g in j["goals"]]


def test_text_and_file_agree(tmp_path):
    path = os.path.join(ROOT, "examples", "prec", "fixed_point.g")
    with open(path) as f:
        text = f.read()
    a, b = analyse(path), analyse(text, name="fixed_point.g")
    assert a.to_text(seconds=False) == b.to_text(seconds=False)
    assert b.script == "fixed_point.g" and a.script == path
    # the engines as the module documents them: affine is tighter here
    ia, aa = analyse(text, "interval"), analyse(text, "affine")
    assert aa.goals[0].magnitude < ia.goals[0].magnitude
    assert aa.goals[0].exact == (Fraction(-7, 32), Fraction(7, 32))
    # a pathlib path
    import pathlib
    assert analyse(pathlib.Path(path)).goals[0].bound == a.goals[0].bound


def test_script_object():
    path = os.path.join(DATA, "prec", "bench", "sine.g")
    s = PrecScript(path)
    assert s.variables == ["x_m"] and s.goal_count == 1 and s.format == "gappa"
    lo, hi = s.ranges["x_m"]
    assert lo < -1.5707 and hi > 1.5707
    assert "sine.g" in repr(s)
    # evaluation at points stays inside the enclosure (the soundness check)
    r = s.analyse()
    xs = np.linspace(lo, hi, 101)
    e = s.eval(xs.reshape(-1, 1))
    assert e.shape == (101, 1)
    g = r.goals[0]
    assert np.all(e[:, 0] >= g.lo) and np.all(e[:, 0] <= g.hi)
    assert s.eval([0.5]).shape == (1,)
    assert s.eval({"x_m": 0.5})[0] == s.eval([0.5])[0]
    with pytest.raises(ValueError):
        s.eval([0.5, 1.0])
    # analyse(bisect=...) is for one analysis: the script keeps its settings
    b = s.analyse("aa", bisect={"x_m": 3}, refine=0)
    assert b.boxes == 3
    assert s.analyse().boxes == r.boxes
    assert isinstance(r, PrecResult) and isinstance(r.goals[0], PrecGoal)
    assert r[0] is r.goals[0] and r[g.text] is g and len(r) == 1


def test_fpcore_text_and_notes():
    text = """(FPCore (a b)
 :name "sum"
 :pre (and (<= 1 a 2) (<= 0 b 1) (> (+ a b) 1.5))
 :precision binary64
 (+ a b))"""
    s = PrecScript(text)
    assert s.format == "fpcore" and s.variables == ["a", "b"]
    assert s.notes  # the conjunct on a + b is not used
    r = s.analyse()
    assert r.notes == s.notes and "warning" in repr(r)
    assert r.goals[0].hi > 0
    with pytest.raises(ValueError, match="fpcore"):
        PrecScript(text, format="gappa")


def test_parse_errors_name_file_line_and_column(tmp_path):
    bad = tmp_path / "bad.g"
    bad.write_text("x = float<ieee_64,ne>(y);\n{ y in [1,2] -> x - y in ? ")
    with pytest.raises(haze.ParseError) as e:
        analyse(str(bad))
    assert re.search(r"bad\.g:2:\d+: ", str(e.value)), str(e.value)
    if CLI:
        msg = cli(str(bad)).stderr.strip()
        assert msg.endswith(str(e.value))
    with pytest.raises(haze.ParseError, match=r"^my\.g:1:\d+:"):
        analyse("x = float<ieee_64,ne>(y;", name="my.g")
    with pytest.raises(haze.HazeError, match=r"<script>:2:\d+"):
        PrecScript("@rnd = float<ieee_64,ne>;\nx rnd= sin(y);\n{ y in [0,1] -> x in ? }")
    with pytest.raises(haze.HazeIOError):
        analyse(str(tmp_path / "missing.g"))
    # a loop without unroll is unsupported, with where it is
    with pytest.raises(haze.HazeError, match=r"newton\.fpcore:\d+:\d+"):
        analyse(os.path.join(DATA, "prec", "fpcore", "newton.fpcore"))
    # a division by a range containing zero: a domain error at the operation
    with pytest.raises(haze.DomainError, match=r"<script>:2:\d+"):
        analyse("@rnd = float<ieee_64,ne>;\nx rnd= 1 / y;\n{ y in [-1,2] -> x in ? }")
    with pytest.raises(ValueError):
        analyse("x = 1;", engine="exact")
    with pytest.raises(haze.InvalidArgumentError):
        analyse(os.path.join(DATA, "prec", "bench", "sine.g"), bisect={"nope": 2})


def test_releases_the_gil_for_threads():
    import threading
    path = os.path.join(ROOT, "examples", "prec", "iir_stable_30.g")
    s = PrecScript(path)
    out = [None] * 4

    def run(i):
        out[i] = s.analyse("aa").to_text(seconds=False)

    ts = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert len(set(out)) == 1 and out[0]


def test_plot_png_is_not_blank():
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    import matplotlib.pyplot as plt
    for path, log in [(os.path.join(ROOT, "examples", "prec", "bs_double.g"), True),
                      (os.path.join(ROOT, "examples", "prec", "fixed_point.g"), False)]:
        r = analyse(path, refine=0)
        fig, ax = plt.subplots(figsize=(5, 3), dpi=80)
        assert r.plot(ax=ax, log=log) is ax
        buf = io.BytesIO()
        fig.savefig(buf, format="png")
        plt.close(fig)
        buf.seek(0)
        img = plt.imread(buf)[..., :3]
        assert img.shape[:2] == (240, 400)
        assert (img.std(axis=(0, 1)) > 0.01).any()
        blue = (img[..., 2] > 0.6) & (img[..., 0] < 0.3)
        assert blue.sum() > 20
        if log:  # the stated bounds, proved: green marks
            green = (img[..., 1] > 0.5) & (img[..., 0] < 0.3) & (img[..., 2] < 0.3)
            assert green.sum() > 10


@needs_cli
def test_box_results_equal_the_cli_and_join_to_the_goal():
    path = os.path.join(ROOT, "examples", "prec", "fixed_point.g")
    r = analyse(path, "ia", bisect={"x1_m": 4, "x2_m": 2})
    b = r.box_results
    assert len(b) == 8 and b.splits == [4, 2] and b.variables == ["x1_m", "x2_m"]
    j = json.loads(cli(path, "--json", "--engine", "ia", "--bisect", "x1_m=4",
                       "--bisect", "x2_m=2").stdout)
    assert [[list(e) for e in zip(b.lo[k], b.hi[k])] for k in range(len(b))] == \
        [box["enclosures"] for box in j["box_results"]]
    assert [[b.var_lo[k, 0], b.var_hi[k, 0]] for k in range(len(b))] == \
        [box["ranges"]["x1_m"] for box in j["box_results"]]
    for g, goal in enumerate(r.goals):  # the join, exactly
        assert b.lo[:, g].min() == goal.lo and b.hi[:, g].max() == goal.hi
    xlo, xhi, lo, hi = b.along("x1_m")
    assert list(xlo) == [-10, -5, 0, 5] and list(xhi) == [-5, 0, 5, 10]
    assert lo.min() == r.goals[0].lo and hi.max() == r.goals[0].hi
    with pytest.raises(KeyError):
        b.along("q")
    one = analyse(path, "ia")  # no bisection: one box, the whole range
    assert len(one.box_results) == 1 and one.box_results.lo[0, 0] == one.goals[0].lo


def test_plot_boxes_png_is_not_blank():
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    import matplotlib.pyplot as plt
    cube = os.path.join(DATA, "plot", "cube_boxes.g")
    fixed = os.path.join(ROOT, "examples", "prec", "fixed_point.g")
    for path, var in [(cube, "x_m"), (fixed, "x1_m")]:
        r = analyse(path, "ia", bisect={var: 8})
        fig, ax = plt.subplots(figsize=(5, 3), dpi=80)
        assert r.plot_boxes(ax=ax) is ax
        assert ax.get_yscale() == ("log" if path == cube else "linear")
        buf = io.BytesIO()
        fig.savefig(buf, format="png")
        plt.close(fig)
        buf.seek(0)
        img = plt.imread(buf)[..., :3]
        blue = (img[..., 2] > 0.6) & (img[..., 0] < 0.3)
        assert blue.sum() > 20
    with pytest.raises(ValueError):  # a result without boxes
        PrecResult("x", "ia", 1, 0.0, True, [], []).plot_boxes()
