"""haze.edge: FIRE edges of NumPy images, the user's own rule base, images
in and out; the same bytes as the C library and `haze edge`."""

import os
import subprocess

import numpy as np
import pytest

import haze
from haze import _ext
from haze.edge import EdgeDetector, edges, load_image, plot_side_by_side, save_image, to_gray
from haze.fis import FIS

from conftest import CLI, needs_cli


@pytest.fixture(scope="module")
def edge_dir(data_dir):
    return os.path.join(data_dir, "edge")


@pytest.fixture(scope="module")
def rules_path(data_dir):
    # examples/data/edge_rules.fis: an 8-input Mamdani rule base
    return os.path.join(os.path.dirname(os.path.dirname(data_dir)), "examples", "data",
                        "edge_rules.fis")


def read_pnm(path):
    """A binary PGM/PPM read here, independently of haze: (height, width[, 3]) uint8."""
    with open(path, "rb") as fp:
        data = fp.read()
    fields, pos = [], 0
    while len(fields) < 4:
        while data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b"#":
            pos = data.index(b"\n", pos) + 1
            continue
        end = pos
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[pos:end])
        pos = end
    pos += 1
    magic, w, h = fields[0], int(fields[1]), int(fields[2])
    ch = 3 if magic == b"P6" else 1
    a = np.frombuffer(data[pos:pos + w * h * ch], dtype=np.uint8)
    return a.reshape(h, w, 3) if ch == 3 else a.reshape(h, w)


def test_fire_matches_reference_images(edge_dir, ctx):
    """The independent NumPy FIRE images of tests/data/edge, byte for byte."""
    for name, ref, opts in (("camera.png", "camera_fire.pgm", {}),
                            ("coins.ppm", "coins_fire.pgm", {}),
                            ("coins.ppm", "coins_fire_t32_w64.pgm",
                             {"spread": 32, "black_width": 64})):
        img = load_image(os.path.join(edge_dir, name))
        want = read_pnm(os.path.join(edge_dir, ref))
        for kernel in ("fast", "reference"):
            got = edges(img, ctx=ctx, kernel=kernel, **opts)
            assert got.dtype == np.uint8 and got.shape == img.shape
            assert np.array_equal(got, want), (name, ref, kernel)


@needs_cli
@pytest.mark.parametrize("name", ["camera.png", "astronaut.png", "hubble.jpg"])
def test_fire_matches_cli(edge_dir, name, tmp_path):
    src = os.path.join(edge_dir, name)
    out = tmp_path / "cli.pgm"
    r = subprocess.run([CLI, "edge", src, "-o", str(out), "--spread", "40", "--scale", "3"],
                       capture_output=True, text=True, env=dict(os.environ, HAZE_BACKEND="cpu"))
    assert r.returncode == 0, r.stderr
    want = read_pnm(out)
    got = edges(src, backend="cpu", spread=40, scale=3)
    assert np.array_equal(got, want)
    # the same through an array and a reusable detector
    det = EdgeDetector(spread=40, scale=3, backend="cpu")
    assert np.array_equal(det(load_image(src)), want)
    assert np.array_equal(det.detect(load_image(src)), want)


@needs_cli
def test_user_rules_match_cli(edge_dir, rules_path, tmp_path, ctx):
    src = os.path.join(edge_dir, "camera.png")
    out = tmp_path / "rules.pgm"
    # the CLI on the backend of ctx: the rule base's values may differ in
    # the last bits between the CPU and the GPU
    r = subprocess.run([CLI, "edge", src, "-o", str(out), "--rules", rules_path],
                       capture_output=True, text=True,
                       env=dict(os.environ, HAZE_BACKEND=ctx.backend))
    assert r.returncode == 0, r.stderr
    want = read_pnm(out)
    img = load_image(src)
    assert np.array_equal(edges(img, rules=rules_path, ctx=ctx), want)
    fis = FIS.load(rules_path)
    det = EdgeDetector(rules=fis, ctx=ctx)
    assert np.array_equal(det(img), want) and "edge_rules" in repr(det)
    # the rule base is an ordinary system: its value at each pixel's
    # differences, rounded and clipped, is the edge image
    p = np.pad(img.astype(np.float64), 1, mode="edge")
    h, w = img.shape
    c = p[1:-1, 1:-1]
    d = [p[1 + dy:1 + dy + h, 1 + dx:1 + dx + w] - c
         for dy, dx in ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))]
    y = fis.eval(np.stack([x.ravel() for x in d], axis=1), ctx=ctx)[:, 0]
    y = np.where(np.isnan(y), 255, np.clip(np.floor(y + 0.5), 0, 255)).reshape(h, w)
    assert np.array_equal(y.astype(np.uint8), want)


def test_colour_as_the_cli_reads_it(edge_dir):
    """A 3-D RGB array becomes BT.601 luminance exactly as haze's image
    reader makes it (coins.ppm read here by hand vs load_image)."""
    rgb = read_pnm(os.path.join(edge_dir, "coins.ppm"))
    assert rgb.ndim == 3
    grey = load_image(os.path.join(edge_dir, "coins.ppm"))
    assert np.array_equal(to_gray(rgb), grey)
    rgba = np.concatenate([rgb, np.full(rgb.shape[:2] + (1,), 7, np.uint8)], axis=2)
    assert np.array_equal(to_gray(rgba), grey)
    assert np.array_equal(edges(rgb), edges(grey))
    # floats in 0..1 (scikit-image's convention) and 0..255, other integers
    assert np.array_equal(to_gray(grey / 255.0), grey)
    assert np.array_equal(to_gray(grey.astype(np.float32)), grey)
    assert np.array_equal(to_gray(grey.astype(np.int64) + 0), grey)
    assert np.array_equal(to_gray(np.array([[-5, 300]])), np.array([[0, 255]], np.uint8))
    # a C-ordered uint8 array is used as it is
    assert to_gray(grey) is grey or np.shares_memory(to_gray(grey), grey)


def test_images_in_and_out(edge_dir, tmp_path):
    img = load_image(os.path.join(edge_dir, "camera.png"))
    assert img.dtype == np.uint8 and img.shape == (96, 120)
    for ext in ("png", "pgm"):
        p = tmp_path / f"c.{ext}"
        save_image(p, img)
        assert np.array_equal(load_image(p), img)
    with pytest.raises(haze.UnsupportedError):
        save_image(tmp_path / "c.bmp", img)
    assert not (tmp_path / "c.bmp").exists()
    with pytest.raises(haze.HazeError, match="none.png"):
        load_image(tmp_path / "none.png")
    (tmp_path / "bad.png").write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    with pytest.raises(haze.HazeError, match="bad.png"):
        load_image(tmp_path / "bad.png")


def test_bad_arguments_raise(rules_path, data_dir):
    img = np.zeros((4, 5), np.uint8)
    for bad in (np.zeros((2, 2, 2)), np.zeros(5), np.zeros((0, 3)), [["a"]]):
        with pytest.raises((ValueError, TypeError)):
            edges(bad)
    for opt in ({"spread": 0}, {"black_width": 256}, {"scale": 9}):
        with pytest.raises(haze.InvalidArgumentError):
            edges(img, **opt)
    with pytest.raises(TypeError):
        EdgeDetector(spread=1.5)
    with pytest.raises(ValueError):
        EdgeDetector(kernel="slow")
    with pytest.raises(haze.MismatchError, match="8 inputs"):
        EdgeDetector(rules=os.path.join(data_dir, "fis", "tipper.fis"))
    with pytest.raises(TypeError, match="spread"):
        EdgeDetector(rules=rules_path, spread=10)
    det = EdgeDetector()
    with pytest.raises(ValueError):
        det(img, out=np.zeros((5, 4), np.uint8))
    out = np.zeros((4, 5), np.uint8)
    assert det(img, out=out) is out
    # the extension checks shapes, types and handles itself
    c = haze.default_context()._h
    with pytest.raises(haze.MismatchError):
        _ext.edge_run(c, det._h, False, img, np.zeros((5, 4), np.uint8))
    with pytest.raises(TypeError):
        _ext.edge_run(c, det._h, False, img.astype(np.float64), out)
    with pytest.raises(TypeError):
        _ext.edge_run(c, c, False, img, out)
    with pytest.raises(TypeError):
        _ext.edge_run_fis(c, det._h, img, out)
    with pytest.raises(ValueError):
        _ext.edge_run(c, det._h, False, np.zeros(5, np.uint8), out)
    with pytest.raises((TypeError, BufferError, ValueError)):
        _ext.edge_run(c, det._h, False, img, np.zeros((4, 5), np.uint8)[:, ::-1])


def test_plot_side_by_side(edge_dir, tmp_path):
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    import matplotlib.pyplot as plt
    img = load_image(os.path.join(edge_dir, "camera.png"))
    axes = plot_side_by_side(img, edges(img))
    assert len(axes) == 2 and axes[1].get_title() == "edges"
    p = tmp_path / "side.png"
    axes[0].figure.savefig(p, dpi=60)
    plt.close(axes[0].figure)
    pic = plt.imread(p)[:, :, :3]
    assert pic.shape[1] > 200 and pic.std() > 0.05
    # grey only: every pixel has equal channels
    assert np.abs(pic[:, :, 0] - pic[:, :, 2]).max() < 0.02
    fig, ax = plt.subplots(1, 2)
    assert plot_side_by_side(img, img, ax=ax)[0] is ax[0]
    plt.close(fig)
