"""Contexts, errors and the table reader."""

import os
import threading

import numpy as np
import pytest

import haze


def test_version_and_build():
    info = haze.build_info()
    assert haze.__version__ == info["version"]
    assert set(info) == {"version", "cuda", "openmp", "devices"}


def test_context_cpu():
    c = haze.Context("cpu", threads=1)
    assert c.backend == "cpu"
    assert c.threads == 1
    c.threads = 2
    assert c.threads == 2
    assert "cpu" in repr(c)


def test_context_bad_backend():
    with pytest.raises(haze.InvalidArgumentError, match="unknown backend 'tpu'"):
        haze.Context("tpu")


def test_context_cuda_without_device():
    if haze.build_info()["devices"] > 0:
        assert haze.Context("cuda").backend == "cuda"
    else:
        with pytest.raises(haze.NoDeviceError):
            haze.Context("cuda")


def test_ctx_and_backend_exclusive(tmp_path):
    p = tmp_path / "a.csv"
    p.write_text("1,2\n")
    with pytest.raises(TypeError):
        haze.read_table(p, ctx=haze.Context("cpu"), backend="cpu")
    with pytest.raises(TypeError):
        haze.read_table(p, ctx="cpu")


def test_read_table_header_and_labels(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text("a,b,label\n1.5,2,x y\n3,4e-1,\"p, q\"\n")
    t = haze.read_table(p, text_column="label")
    assert t.columns == ["a", "b", "label"]
    assert t.labels == ["x y", "p, q"]
    assert t.data.shape == (2, 3)
    np.testing.assert_array_equal(t.data[:, :2], [[1.5, 2.0], [3.0, 0.4]])


def test_read_table_columns_and_drop(tmp_path):
    p = tmp_path / "sel.csv"
    p.write_text("id,a,b,species\nr1,1,2,setosa\nr2,3,4,virginica\n")
    t = haze.read_table(p, drop=["id", "species"])
    assert t.columns == ["a", "b"]
    np.testing.assert_array_equal(t.data, [[1, 2], [3, 4]])
    t = haze.read_table(p, columns=["b", 1])  # names and 0-based numbers, in that order
    assert t.columns == ["b", "a"]
    np.testing.assert_array_equal(t.data, [[2, 1], [4, 3]])
    assert haze.read_table(p, columns="1-2").columns == ["a", "b"]  # the tool's list
    t = haze.read_table(p, drop=0, text_column="species")
    assert t.labels == ["setosa", "virginica"] and t.label_column == 2
    blocks = list(haze.read_table_blocks(p, block_bytes=8, drop=["id", "species"]))
    np.testing.assert_array_equal(np.vstack([b.data for b in blocks]), [[1, 2], [3, 4]])
    with pytest.raises(haze.ParseError, match="no column 'c' to keep"):
        haze.read_table(p, columns=["a", "c"])
    with pytest.raises(TypeError, match="text_column must be one column"):
        haze.read_table(p, text_column=["species", "id"])
    with pytest.raises(TypeError, match="column names"):
        haze.read_table(p, drop=[1.5])
    with pytest.raises(ValueError, match="count from 0"):
        haze.read_table(p, drop=[-1])
    m = tmp_path / "na.csv"
    m.write_text("a,b\n1,\nNA,3\n4,5\n")
    with pytest.raises(haze.ParseError, match='expected a number, found ""'):
        haze.read_table(m)
    t = haze.read_table(m, missing=True)
    assert np.isnan(t.data[0, 1]) and np.isnan(t.data[1, 0]) and t.data[2, 1] == 5
    # a .npy file: numbers only; integers are read as NumPy's astype(float64)
    q = tmp_path / "i.npy"
    np.save(q, np.arange(12, dtype=np.int32).reshape(4, 3))
    t = haze.read_table(q, columns=[2, 0])
    assert t.data.dtype == np.float64
    np.testing.assert_array_equal(t.data, np.arange(12).reshape(4, 3)[:, [2, 0]])


def test_read_table_error_names_line_and_column(tmp_path):
    p = tmp_path / "bad.csv"
    p.write_text("1,2\n3,zz\n")
    with pytest.raises(haze.ParseError) as e:
        haze.read_table(p)
    msg = str(e.value)
    assert "bad.csv:2:" in msg, msg
    assert e.value.code == "ERR_PARSE" and e.value.status == -4


def test_read_table_missing_file(tmp_path):
    with pytest.raises(haze.HazeIOError) as e:
        haze.read_table(tmp_path / "nothing.csv")
    assert isinstance(e.value, OSError)
    assert "nothing.csv" in str(e.value)


def test_npy_float32_kept(tmp_path):
    x = np.arange(12, dtype=np.float32).reshape(4, 3) / 7
    p = tmp_path / "x.npy"
    np.save(p, x)
    t = haze.read_table(p, keep_float32=True)
    assert t.data.dtype == np.float32
    np.testing.assert_array_equal(t.data, x)
    t = haze.read_table(p)
    assert t.data.dtype == np.float64
    np.testing.assert_array_equal(t.data, x.astype(np.float64))


def test_write_read_roundtrip(tmp_path):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((50, 4)) * 10.0 ** rng.integers(-300, 300, (50, 4))
    p = tmp_path / "w.csv"
    haze.write_table(p, x, columns=["a", "b", "c", "d"])
    t = haze.read_table(p)
    assert t.columns == ["a", "b", "c", "d"]
    np.testing.assert_array_equal(t.data, x)  # bit for bit


def test_write_table_bad_names(tmp_path):
    with pytest.raises(ValueError):
        haze.write_table(tmp_path / "w.csv", np.zeros((2, 2)), columns=["a"])


def test_threads_keep_their_own_errors(tmp_path):
    """Threads sharing a context each see their own error message."""
    ctx = haze.Context("cpu")
    paths = []
    for i in range(4):
        p = tmp_path / f"bad{i}.csv"
        p.write_text("1\n" * (i + 1) + "x\n")
        paths.append(p)
    errors = []

    def work(i):
        for _ in range(50):
            try:
                haze.read_table(paths[i], ctx=ctx)
            except haze.ParseError as e:
                if f"bad{i}.csv:{i + 2}:" not in str(e):
                    errors.append(str(e))

    ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert errors == []


def test_wrong_handle_is_type_error():
    from haze import _ext
    with pytest.raises(TypeError):
        _ext.ctx_info(object())
    with pytest.raises(TypeError):
        _ext.table_read(object(), "x", -1, None, False, False)


def test_demo_runs(capsys):
    haze.demo()
    out = capsys.readouterr().out
    for part in ("[fuzzy]", "[fis]", "[edge]", "[fcm]", "[fnn]", "[prec]"):
        assert part in out
    assert "tips [7.0169, 14.4585" in out  # the tipper built in code


# --- a context over several GPUs (Context(devices=...)) ----------------------

def test_context_devices_refused():
    assert haze.Context("cpu").devices == ()
    with pytest.raises(haze.InvalidArgumentError):
        haze.Context("cpu", devices=[0, 1])  # a set is CUDA's
    with pytest.raises(haze.InvalidArgumentError):
        haze.Context(devices=[0, 0])  # twice, refused before the host is asked
    with pytest.raises(ValueError):
        haze.Context(devices=0)
    with pytest.raises(ValueError):
        haze.Context(devices="some")
    with pytest.raises(TypeError):
        haze.Context(devices=True)
    with pytest.raises((TypeError, ValueError)):
        haze.Context(devices=["a"])
    n = haze.build_info()["devices"]
    with pytest.raises(haze.NoDeviceError, match=f"device {n} "):
        haze.Context(devices=list(range(n + 1)))
    if n == 0:
        with pytest.raises(haze.NoDeviceError):
            haze.Context(devices="all")


@pytest.mark.skipif(haze.build_info()["devices"] < 1, reason="needs a CUDA device")
def test_context_devices_fis_fcm(data_dir):
    n = haze.build_info()["devices"]
    every = haze.Context(devices="all")
    assert every.devices == tuple(range(n)) and every.backend == "cuda"
    assert haze.Context(devices=[n - 1]).devices == (n - 1,)
    one = haze.Context("cuda", device=0)
    assert one.devices == (0,)
    fis = haze.FIS.load(os.path.join(data_dir, "fis", "tipper.fis"))
    rng = np.random.default_rng(3)
    X = rng.uniform(-1, 11, size=(100003, 2))
    # the rows shared over the GPUs: one GPU's bits
    np.testing.assert_array_equal(fis.eval(X, ctx=every), fis.eval(X, ctx=one))
    pts = np.concatenate([rng.normal(c, 0.3, size=(20000, 4)) for c in (0, 3, 6)])
    a = haze.FCM(3, random_state=1, ctx=every).fit(pts)
    b = haze.FCM(3, random_state=1, ctx=one).fit(pts)
    np.testing.assert_allclose(np.sort(a.cluster_centers_, axis=0),
                               np.sort(b.cluster_centers_, axis=0), rtol=1e-9, atol=1e-9)


def test_table_blocks(tmp_path):
    # a CSV read in blocks of a few hundred bytes: the rows of the whole read,
    # in order, each block a Table with the header's names
    rng = np.random.default_rng(4)
    x = np.round(rng.uniform(0, 10, (997, 3)), 3)
    path = str(tmp_path / "in.csv")
    haze.write_table(path, x, columns=["a", "b", "c"])
    whole = haze.read_table(path)
    blocks = list(haze.read_table_blocks(path, block_bytes=500))
    assert len(blocks) > 10
    assert all(b.columns == ["a", "b", "c"] and len(b.data) > 0 for b in blocks)
    assert np.array_equal(np.concatenate([b.data for b in blocks]), whole.data)
    assert len(list(haze.read_table_blocks(path))) == 1  # 64 MiB blocks: one
    # an error in a late block names its line; the blocks before it came first
    lines = open(path).read().splitlines()
    lines[900] = "1,2,x"
    bad = str(tmp_path / "bad.csv")
    with open(bad, "w") as f:
        f.write("\n".join(lines) + "\n")
    got = []
    with pytest.raises(haze.ParseError, match=r"bad\.csv:901: column 3 \(c\)"):
        for b in haze.read_table_blocks(bad, block_bytes=500):
            got.append(b)
    assert got and sum(len(b.data) for b in got) < 899


def test_table_writer(tmp_path):
    # written in blocks: the bytes of write_table; nothing before the commit,
    # nothing after an abort or an exception
    rng = np.random.default_rng(5)
    x = rng.normal(size=(1000, 2))
    want, got = str(tmp_path / "want.csv"), str(tmp_path / "got.csv")
    haze.write_table(want, x, columns=["u", "v"])
    with haze.TableWriter(got, columns=["u", "v"]) as w:
        for k in range(0, 1000, 300):
            w.append(x[k:k + 300])
            assert not os.path.exists(got)
    assert open(got, "rb").read() == open(want, "rb").read()
    gone = str(tmp_path / "gone.csv")
    with pytest.raises(RuntimeError):
        with haze.TableWriter(gone, ncols=2) as w:
            w.append(x)
            raise RuntimeError("stop")
    assert not os.path.exists(gone)
    w = haze.TableWriter(gone, ncols=1)
    w.append(x[:, 0])  # one column: a 1-D array is its rows
    w.abort()
    assert not os.path.exists(gone)
    with pytest.raises(ValueError):
        haze.TableWriter(gone, ncols=3).append(x)
    with pytest.raises(haze.UnsupportedError):
        haze.TableWriter(str(tmp_path / "x.npy"), ncols=2)
