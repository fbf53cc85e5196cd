"""SONFIN estimators (haze.fnn): scikit-learn behaviour, the command line's
model files and predictions bit for bit, errors instead of crashes."""

import csv
import inspect
import os
import pickle
import signal
import subprocess
import sys

import numpy as np
import pytest

import haze
from haze import _ext
from haze.fnn import SONFINClassifier, SONFINRegressor

from conftest import CLI

# the spelling of labels the tests use: blanks, a comma, a quote
LABELS = np.array(["iris setosa", "versicolor, maybe", 'virginica "v"'])


def _cli():
    if CLI is None:
        pytest.skip("the haze command line is not built")
    return CLI


def _blobs(n=90, d=4, k=3, seed=0):
    """Three well apart Gaussian blobs: a classification set that needs no
    download."""
    rs = np.random.RandomState(seed)
    centres = rs.uniform(-4, 4, size=(k, d))
    y = np.arange(n) % k
    X = centres[y] + rs.normal(scale=0.9, size=(n, d))
    return X, y


def _iris_or_blobs():
    try:
        from sklearn.datasets import load_iris
    except ImportError:
        return _blobs()
    return load_iris(return_X_y=True)


class _Frame:
    """The least of a pandas DataFrame / Series: values with column names
    (or a name)."""

    def __init__(self, a, columns=None, name=None):
        self.a, self.columns, self.name = np.asarray(a), columns, name

    def __array__(self, dtype=None):
        return self.a if dtype is None else self.a.astype(dtype)

    def __len__(self):
        return len(self.a)


def _write_csv(path, X, target=None, target_name="label", header=True):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        cols = [f"x{j + 1}" for j in range(X.shape[1])]
        if header:
            w.writerow(cols + ([target_name] if target is not None else []))
        for i, row in enumerate(X):
            w.writerow([repr(float(v)) for v in row] + ([target[i]] if target is not None else []))


def _read_column(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0][0], [r[0] for r in rows[1:]]


def _run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stderr}"
    return r


def _model_lines(path):
    with open(path) as f:
        return [ln for ln in f.read().splitlines() if not ln.startswith("#")]


# --------------------------------------------------------------- defaults


def test_defaults_are_the_library_defaults():
    d = _ext.fnn_defaults()
    p = {k: v.default for k, v in inspect.signature(SONFINClassifier.__init__).parameters.items()}
    assert p["epochs"] == d["epochs"]
    assert p["threshold"] == d["threshold"]
    assert p["decay"] == d["decay"]
    assert p["width"] == d["width"]
    assert p["beta"] == d["beta"]
    assert p["sigma0"] == d["sigma0"]
    assert p["learning_rate"] == d["rate"]
    assert p["batch_size"] == d["batch"]
    assert p["max_rules"] == d["max_rules"]
    assert p["validation_fraction"] == d["validation"]
    assert p["random_state"] == d["seed"]
    assert p["shuffle"] == bool(d["shuffle"])
    assert p["scaling"] == "input" and d["scaling"] == 0
    assert SONFINRegressor().get_params() == SONFINClassifier().get_params()


def test_init_stores_parameters_as_given():
    c = SONFINClassifier(epochs=3, threshold=0.7, random_state=None, max_rules=None)
    assert c.epochs == 3 and c.threshold == 0.7 and c.random_state is None
    assert c.max_rules is None
    assert c.get_params()["epochs"] == 3
    assert c.set_params(epochs=4) is c and c.epochs == 4
    with pytest.raises(ValueError):
        c.set_params(no_such=1)
    assert repr(c) == "SONFINClassifier(epochs=4, max_rules=None, random_state=None, threshold=0.7)"
    assert repr(SONFINRegressor()) == "SONFINRegressor()"


# ------------------------------------------------------------ fit, predict


def test_fit_predict_classifier(backend):
    X, y = _iris_or_blobs()
    clf = SONFINClassifier(epochs=5, backend=backend)
    assert clf.fit(X, y) is clf
    assert clf.n_features_in_ == X.shape[1]
    assert list(clf.classes_) == [0, 1, 2] and clf.classes_.dtype.kind == "i"
    assert clf.n_rules_ >= 3
    assert len(clf.history_) == 5
    h = clf.history_[-1]
    assert h["epoch"] == 4 and h["rules"] >= clf.n_rules_
    assert h["train_samples"] + h["val_samples"] == len(X) and h["val_samples"] == len(X) // 10
    assert 0 <= clf.best_epoch_ < 5
    pred = clf.predict(X)
    assert pred.dtype == clf.classes_.dtype and pred.shape == (len(X),)
    assert clf.score(X, y) >= 0.9
    p = clf.predict_proba(X)
    assert p.shape == (len(X), 3)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    assert (p >= 0).all()
    np.testing.assert_array_equal(clf.classes_[p.argmax(axis=1)], pred)
    assert clf.decision_function(X).shape == (len(X), 3)
    assert clf.centers_.shape == clf.widths_.shape == (clf.n_rules_, X.shape[1])
    assert clf.weights_.shape == (clf.n_rules_, 3)
    np.testing.assert_allclose(clf.input_mean_, X.mean(axis=0))


def test_float32_and_lists_give_the_same_predictions():
    X, y = _blobs()
    X = X.astype(np.float32)
    a = SONFINClassifier(epochs=2).fit(X, y)
    b = SONFINClassifier(epochs=2).fit(X.astype(np.float64).tolist(), list(y))
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X.astype(np.float64)))


def test_history_and_verbose(capsys):
    X, y = _blobs()
    SONFINClassifier(epochs=2, verbose=True).fit(X, y)
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and out[0].startswith("epoch   1  rules") and "accuracy" in out[0]


def test_binary_decision_function_and_random_state():
    X, y = _blobs(k=2)
    clf = SONFINClassifier(epochs=2, random_state=np.random.RandomState(3)).fit(X, y == 1)
    assert list(clf.classes_) == [False, True]
    d = clf.decision_function(X)
    assert d.shape == (len(X),)
    np.testing.assert_array_equal(clf.predict(X), d > 0)
    SONFINClassifier(epochs=1, random_state=None).fit(X, y)
    with pytest.raises(ValueError):
        SONFINClassifier(epochs=1, random_state=-1).fit(X, y)


def test_regressor_diabetes_beats_the_mean():
    pytest.importorskip("sklearn")
    from sklearn.datasets import load_diabetes
    from sklearn.model_selection import train_test_split
    X, y = load_diabetes(return_X_y=True)
    Xa, Xb, ya, yb = train_test_split(X, y, test_size=0.25, random_state=0)
    reg = SONFINRegressor(epochs=8).fit(Xa, ya)
    p = reg.predict(Xb)
    assert p.shape == yb.shape and reg.n_outputs_ == 1
    rmse = np.sqrt(np.mean((p - yb) ** 2))
    mean_rmse = np.sqrt(np.mean((ya.mean() - yb) ** 2))
    assert rmse < mean_rmse, (rmse, mean_rmse)
    assert reg.score(Xb, yb) > 0
    assert np.isnan(reg.history_[0]["accuracy"])


def test_regressor_several_outputs():
    rs = np.random.RandomState(1)
    X = rs.uniform(-1, 1, size=(80, 2))
    Y = np.column_stack([np.sin(2 * X[:, 0]), 100 + 50 * X[:, 0] * X[:, 1]])
    reg = SONFINRegressor(epochs=6, validation_fraction=0).fit(X, Y)
    assert reg.n_outputs_ == 2 and reg.predict(X).shape == (80, 2)
    assert reg.score(X, Y) > 0.5
    one = SONFINRegressor(epochs=1).fit(X, Y[:, :1])
    assert one.predict(X).shape == (80, 1)


# --------------------------------------------------------------- labels


def test_string_labels_with_blanks_round_trip(tmp_path):
    X, y = _blobs()
    labels = LABELS[y]
    clf = SONFINClassifier(epochs=3).fit(X, labels)
    assert list(clf.classes_) == sorted(LABELS)
    pred = clf.predict(X)
    assert set(pred) <= set(LABELS) and (pred == labels).mean() > 0.9
    clf.save(tmp_path / "m.fnn")
    back = SONFINClassifier.load(tmp_path / "m.fnn")
    assert list(back.classes_) == list(clf.classes_)
    np.testing.assert_array_equal(back.predict(X), pred)
    copy = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(copy.predict(X), pred)


def test_int_labels_come_back_as_ints_from_a_file(tmp_path):
    X, y = _blobs()
    clf = SONFINClassifier(epochs=2).fit(X, y * 10 - 7)
    clf.save(tmp_path / "m.fnn")
    back = haze.fnn.load(tmp_path / "m.fnn")
    assert isinstance(back, SONFINClassifier)
    assert back.classes_.dtype.kind == "i" and list(back.classes_) == [-7, 3, 13]
    np.testing.assert_array_equal(back.predict(X), clf.predict(X))


# ------------------------------------------------- files, pickling, clone


def test_save_load_pickle_bit_for_bit(tmp_path):
    X, y = _blobs()
    reg = SONFINRegressor(epochs=3).fit(X, X[:, 0] * 3 + y)
    reg.save(tmp_path / "r.fnn")
    for other in (haze.fnn.load(tmp_path / "r.fnn"), SONFINRegressor.load(tmp_path / "r.fnn"),
                  pickle.loads(pickle.dumps(reg))):
        assert other.n_rules_ == reg.n_rules_
        np.testing.assert_array_equal(other.predict(X), reg.predict(X))
    h = pickle.loads(pickle.dumps(reg)).history_
    assert [r["loss"] for r in h] == [r["loss"] for r in reg.history_]
    with pytest.raises(ValueError, match="regression model"):
        SONFINClassifier.load(tmp_path / "r.fnn")
    unfitted = pickle.loads(pickle.dumps(SONFINRegressor(epochs=2)))
    assert unfitted.get_params() == SONFINRegressor(epochs=2).get_params()
    # a context is not pickled: the copy runs on the backend parameter
    ctx_est = SONFINRegressor(epochs=1, ctx=haze.Context("cpu")).fit(X, y)
    copy = pickle.loads(pickle.dumps(ctx_est))
    assert copy.ctx is None
    # (the copy runs on the default backend: a GPU's sums may differ in the last bits)
    np.testing.assert_allclose(copy.predict(X), ctx_est.predict(X), rtol=1e-12, atol=1e-12)


def test_export_fis_evaluates_as_the_network(tmp_path):
    cli = _cli()
    X, y = _blobs(d=3)
    reg = SONFINRegressor(epochs=3).fit(X, X[:, 0] - 2 * X[:, 1] + y)
    reg.export_fis(tmp_path / "r.fis")
    text = (tmp_path / "r.fis").read_text()
    assert "Type='sugeno'" in text and "gaussmf" in text
    _write_csv(tmp_path / "in.csv", X[:20], header=False)
    _run([cli, "--backend", "cpu", "fis", "eval", str(tmp_path / "r.fis"),
          str(tmp_path / "in.csv"), "-o", str(tmp_path / "out.csv")])
    with open(tmp_path / "out.csv") as f:
        rows = [r for r in csv.reader(f)]
    got = np.array([float(r[0]) for r in rows[1:]])
    np.testing.assert_allclose(got, reg.predict(X[:20]), rtol=1e-9, atol=1e-9)


def test_clone():
    pytest.importorskip("sklearn")
    from sklearn.base import clone
    X, y = _blobs()
    clf = SONFINClassifier(epochs=2, threshold=0.75).fit(X, y)
    c = clone(clf)
    assert c.get_params() == clf.get_params()
    assert not hasattr(c, "classes_") and not hasattr(c, "n_rules_")
    assert c.fit(X, y).n_rules_ == clf.n_rules_


def test_pipeline_and_cross_validation():
    pytest.importorskip("sklearn")
    from sklearn.model_selection import cross_val_score
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler
    X, y = _iris_or_blobs()
    pipe = Pipeline([("scale", StandardScaler()), ("sonfin", SONFINClassifier(epochs=3))])
    s = cross_val_score(pipe, X, y, cv=3)
    assert s.shape == (3,) and s.mean() > 0.8
    # in worker processes: the estimator is pickled there and back
    s2 = cross_val_score(SONFINClassifier(epochs=3), X, y, cv=3, n_jobs=2)
    assert s2.mean() > 0.8


def test_grid_search_sets_parameters():
    pytest.importorskip("sklearn")
    from sklearn.model_selection import GridSearchCV
    X, y = _blobs()
    g = GridSearchCV(SONFINClassifier(epochs=2), {"width": [1.0, 1.5]}, cv=2).fit(X, y)
    assert g.best_params_["width"] in (1.0, 1.5)
    assert g.best_estimator_.n_rules_ >= 1


@pytest.mark.parametrize("cls", [SONFINClassifier, SONFINRegressor])
def test_sklearn_check_estimator(cls):
    """scikit-learn's own checks of an estimator's conventions."""
    pytest.importorskip("sklearn")
    import warnings

    from sklearn.utils.estimator_checks import check_estimator
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_estimator(cls(epochs=3))


def test_without_sklearn_the_same_methods():
    code = r"""
import sys
sys.modules["sklearn"] = None  # import sklearn fails
import numpy as np
from haze.fnn import SONFINClassifier, SONFINRegressor, NotFittedError
import haze.fnn
assert "sklearn" not in haze.fnn._BaseEstimator.__module__
c = SONFINClassifier(epochs=2, threshold=0.7)
assert repr(c) == "SONFINClassifier(epochs=2, threshold=0.7)", repr(c)
assert c.get_params()["threshold"] == 0.7 and c.set_params(epochs=3) is c and c.epochs == 3
try:
    c.predict(np.zeros((1, 2)))
    raise SystemExit("predict before fit")
except NotFittedError:
    pass
rs = np.random.RandomState(0)
X = np.r_[rs.normal(-3, 1, (30, 2)), rs.normal(3, 1, (30, 2))]
y = np.r_[np.zeros(30, int), np.ones(30, int)]
assert c.fit(X, y).score(X, y) > 0.9
r = SONFINRegressor(epochs=4).fit(X, X[:, 0] + X[:, 1])
assert 0.5 < r.score(X, X[:, 0] + X[:, 1]) <= 1.0
print("ok")
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


# ------------------------------------------------------ the command line


def test_cli_trains_python_predicts(tmp_path, backend):
    cli = _cli()
    X, y = _iris_or_blobs()
    _write_csv(tmp_path / "d.csv", X, LABELS[y])
    g = [cli, "--backend", backend, "--threads", "1", "--quiet"]
    _run(g + ["fnn", "train", str(tmp_path / "d.csv"), "--target", "label", "--classes",
              "--epochs", "4", "-o", str(tmp_path / "c.fnn")])
    _run(g + ["fnn", "predict", str(tmp_path / "c.fnn"), str(tmp_path / "d.csv"), "-o",
              str(tmp_path / "p.csv")])
    name, cli_pred = _read_column(tmp_path / "p.csv")
    clf = SONFINClassifier.load(tmp_path / "c.fnn", ctx=haze.Context(backend, threads=1))
    assert name == "label" == clf.target_name_
    assert clf.input_names_ == ["x1", "x2", "x3", "x4"][: X.shape[1]]
    assert list(clf.classes_) == sorted(LABELS)
    assert list(clf.predict(X)) == cli_pred
    # regression: the CLI prints 17 significant digits, which read back exactly
    t = X[:, 0] * 2.5 - X[:, 1]
    _write_csv(tmp_path / "r.csv", X, t, target_name="t")
    _run(g + ["fnn", "train", str(tmp_path / "r.csv"), "--target", "t", "--epochs", "3", "-o",
              str(tmp_path / "r.fnn")])
    _run(g + ["fnn", "predict", str(tmp_path / "r.fnn"), str(tmp_path / "r.csv"), "-o",
              str(tmp_path / "rp.csv")])
    _, vals = _read_column(tmp_path / "rp.csv")
    reg = haze.fnn.load(tmp_path / "r.fnn", ctx=haze.Context(backend, threads=1))
    np.testing.assert_array_equal(reg.predict(X), np.array([float(v) for v in vals]))


def test_python_trains_like_the_cli(tmp_path, backend):
    """The same data and options give the same model file, byte for byte,
    and the CLI predicts with a model saved here what Python does."""
    cli = _cli()
    X, y = _iris_or_blobs()
    _write_csv(tmp_path / "d.csv", X, LABELS[y])
    g = [cli, "--backend", backend, "--threads", "1", "--quiet"]
    _run(g + ["fnn", "train", str(tmp_path / "d.csv"), "--target", "label", "--classes",
              "--epochs", "4", "--seed", "5", "-o", str(tmp_path / "cli.fnn")])
    ctx = haze.Context(backend, threads=1)
    cols = [f"x{j + 1}" for j in range(X.shape[1])]
    clf = SONFINClassifier(epochs=4, random_state=5, ctx=ctx)
    clf.fit(_Frame(X, columns=cols), _Frame(LABELS[y], name="label"))
    assert list(clf.feature_names_in_) == cols
    clf.save(tmp_path / "py.fnn")
    assert _model_lines(tmp_path / "py.fnn") == _model_lines(tmp_path / "cli.fnn")
    # and without names: the CLI reads the columns in order
    plain = SONFINClassifier(epochs=4, random_state=5, ctx=ctx).fit(X, LABELS[y])
    assert not hasattr(plain, "feature_names_in_")
    plain.save(tmp_path / "plain.fnn")
    _write_csv(tmp_path / "x.csv", X, header=False)
    _run(g + ["fnn", "predict", str(tmp_path / "plain.fnn"), str(tmp_path / "x.csv"), "-o",
              str(tmp_path / "p.csv")])
    _, cli_pred = _read_column(tmp_path / "p.csv")
    assert list(plain.predict(X)) == cli_pred
    np.testing.assert_array_equal(plain.decision_function(X), clf.decision_function(X))


def test_python_regressor_trains_like_the_cli(tmp_path):
    cli = _cli()
    X, y = _blobs(n=60, d=3)
    t = 40 + 10 * X[:, 0] - 3 * X[:, 2] + y
    _write_csv(tmp_path / "r.csv", X, t, target_name="t")
    _run([cli, "--backend", "cpu", "--threads", "1", "--quiet", "fnn", "train",
          str(tmp_path / "r.csv"), "--target", "t", "--epochs", "3", "--width", "0", "--beta",
          "0.7", "--validation", "0.2", "-o", str(tmp_path / "cli.fnn")])
    reg = SONFINRegressor(epochs=3, width=0, beta=0.7, validation_fraction=0.2,
                          ctx=haze.Context("cpu", threads=1))
    reg.fit(_Frame(X, columns=["x1", "x2", "x3"]), _Frame(t, name="t")).save(tmp_path / "py.fnn")
    assert _model_lines(tmp_path / "py.fnn") == _model_lines(tmp_path / "cli.fnn")


# ---------------------------------------------------------- interruption


def test_keyboard_interrupt_stops_training_cleanly(monkeypatch):
    X, y = _blobs()
    clf = SONFINClassifier(epochs=50)
    real = clf._progress

    def progress(history):
        record = real(history)

        def hook(e):
            record(e)
            if e["epoch"] == 1:
                signal.raise_signal(signal.SIGINT)  # Ctrl-C during training
            return False

        return hook

    monkeypatch.setattr(clf, "_progress", progress)
    with pytest.raises(KeyboardInterrupt):
        clf.fit(X, y)
    # stopped after the second epoch, with the network kept at its best epoch
    assert len(clf.history_) == 2
    assert clf.n_rules_ >= 1 and clf.predict(X).shape == (len(X),)


def test_progress_callable_stops_and_raises():
    ctx = haze.default_context("cpu")
    X, y = _blobs()
    net = _ext.fnn_new(ctx._h, X.shape[1], 3)
    seen = []
    _ext.fnn_train(ctx._h, net, X, y.astype(np.intc), True, {"epochs": 9},
                   lambda e: seen.append(e) or len(seen) == 3)
    assert len(seen) == 3  # a true result stops training

    def boom(e):
        raise RuntimeError("from the callback")

    with pytest.raises(RuntimeError, match="from the callback"):
        _ext.fnn_train(ctx._h, net, X, y.astype(np.intc), True, {"epochs": 9}, boom)


# ------------------------------------------------------------- bad input


def test_bad_input_raises(tmp_path):
    X, y = _blobs()
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(haze.DomainError, match=r"NaN or inf \(row 4, column 2\)"):
        SONFINClassifier(epochs=1).fit(bad, y)
    with pytest.raises(ValueError, match="y is None"):
        SONFINClassifier(epochs=1).fit(X, None)
    with pytest.raises(ValueError, match="continuous"):
        SONFINClassifier(epochs=1).fit(X, X[:, 0])
    with pytest.raises(ValueError, match="not finite"):
        SONFINRegressor(epochs=1).fit(X, np.where(y == 1, np.inf, 0.0))
    clf = SONFINClassifier(epochs=1)
    with pytest.raises(haze.fnn.NotFittedError):
        clf.predict(X)
    clf.fit(X, y)
    with pytest.raises(ValueError, match="NaN or inf"):
        clf.predict(bad)
    with pytest.warns(UserWarning, match="column-vector y"):
        clf.fit(X, y[:, None])
    with pytest.raises(ValueError, match="features"):
        clf.predict(X[:, :3])
    with pytest.raises(ValueError, match="2-D"):
        clf.predict(X[0])
    with pytest.raises(ValueError):
        clf.fit(X, y[:-1])
    with pytest.raises(ValueError, match="two classes"):
        clf.fit(X, np.zeros(len(X)))
    with pytest.raises(ValueError, match="NaN"):
        clf.fit(X, np.where(y == 1, np.nan, y))
    with pytest.raises(ValueError):
        clf.fit(np.zeros((0, 4)), [])
    with pytest.raises(ValueError):
        clf.fit([["a", "b"], ["c", "d"]], [0, 1])
    with pytest.raises(haze.InvalidArgumentError, match="threshold"):
        SONFINClassifier(threshold=2.0).fit(X, y)
    with pytest.raises(haze.InvalidArgumentError, match="held-out"):
        SONFINClassifier(validation_fraction=1.0).fit(X, y)
    with pytest.raises(ValueError, match="scaling"):
        SONFINClassifier(scaling="per-column").fit(X, y)
    with pytest.raises(TypeError):
        SONFINClassifier(epochs=2.5).fit(X, y)
    with pytest.raises(haze.InvalidArgumentError, match="line break"):
        SONFINClassifier(epochs=1).fit(X, np.array(["a\nb", "c", "d"])[y])
    # a failed fit keeps the network of the last good one
    np.testing.assert_array_equal(clf.predict(X).shape, (len(X),))
    (tmp_path / "junk.fnn").write_text("haze-fnn 2\nkind classification\ninputs x\n")
    with pytest.raises(haze.ParseError, match="junk.fnn:3"):
        haze.fnn.load(tmp_path / "junk.fnn")
    with pytest.raises(haze.HazeIOError):
        haze.fnn.load(tmp_path / "none.fnn")
    (tmp_path / "v9.fnn").write_text("haze-fnn 9\n")
    with pytest.raises(haze.VersionError):
        haze.fnn.load(tmp_path / "v9.fnn")


def test_diverging_training_is_an_error():
    X, y = _blobs()
    with pytest.raises(haze.DomainError, match="diverged"):
        SONFINRegressor(epochs=2, learning_rate=1e308).fit(X, y * 1.0)


def test_extension_checks_what_it_is_given():
    ctx = haze.default_context("cpu")
    net = _ext.fnn_new(ctx._h, 2, 1)
    with pytest.raises(TypeError):
        _ext.fnn_info(ctx._h)  # a context is not a network
    with pytest.raises(TypeError):
        _ext.fnn_train(net, net, np.zeros((2, 2)), np.zeros((2, 1)), False, None, None)
    with pytest.raises(haze.MismatchError):
        _ext.fnn_train(ctx._h, net, np.zeros((2, 3)), np.zeros((2, 1)), False, None, None)
    with pytest.raises(haze.MismatchError):
        _ext.fnn_train(ctx._h, net, np.zeros((2, 2)), np.zeros((3, 1)), False, None, None)
    with pytest.raises(haze.MismatchError):
        _ext.fnn_train(ctx._h, net, np.zeros((2, 2)), np.zeros(3, np.intc), True, None, None)
    with pytest.raises(TypeError):
        _ext.fnn_train(ctx._h, net, np.zeros((2, 2), np.int64), np.zeros((2, 1)), False, None,
                       None)
    with pytest.raises(ValueError):
        _ext.fnn_train(ctx._h, net, np.zeros((2, 2)), np.zeros((2, 1)), False, {"epochs": -1},
                       None)
    with pytest.raises(haze.InvalidArgumentError, match="no rules"):
        _ext.fnn_predict(ctx._h, net, np.zeros((1, 2)), np.zeros((1, 1)))
    with pytest.raises(haze.MismatchError):
        _ext.fnn_predict(ctx._h, net, np.zeros((1, 2)), np.zeros((2, 1)))
    with pytest.raises(ValueError):
        _ext.fnn_set_classes(ctx._h, _ext.fnn_new(ctx._h, 2, 2), ["a"])
    with pytest.raises(ValueError, match="NUL"):
        _ext.fnn_set_classes(ctx._h, _ext.fnn_new(ctx._h, 2, 2), ["a", "b\0c"])
    with pytest.raises(haze.InvalidArgumentError):
        _ext.fnn_new(ctx._h, 0, 1)


# ------------------------------------------------------------------- plot


def test_plot_history_png(tmp_path):
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_rgb
    X, y = _blobs()
    clf = SONFINClassifier(epochs=4).fit(X, y)
    ax = clf.plot_history()
    assert ax.get_xlabel() == "epoch"
    fig = ax.figure
    fig.savefig(tmp_path / "h.png", dpi=60)
    plt.close(fig)
    img = plt.imread(tmp_path / "h.png")[..., :3]
    assert img.shape[0] > 100 and img.shape[1] > 100
    assert (img < 0.99).any(axis=2).mean() > 0.01  # not blank
    px = img.reshape(-1, 3)
    for c in ("C0", "C1", "C2"):  # loss, accuracy, rules
        assert (np.abs(px - np.array(to_rgb(c))).max(axis=1) < 0.06).sum() > 20, c
    # a regressor: loss and rules only; drawing into a given Axes
    reg = SONFINRegressor(epochs=2).fit(X, X[:, 0])
    fig, ax = plt.subplots()
    assert reg.plot_history(ax=ax) is ax
    plt.close(fig)
    with pytest.raises(ValueError, match="history"):
        clf.save(tmp_path / "m.fnn") or haze.fnn.load(tmp_path / "m.fnn").plot_history()
