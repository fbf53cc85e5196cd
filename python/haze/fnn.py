"""SONFIN, the self-constructing neural fuzzy inference network, as
scikit-learn estimators.

:class:`SONFINClassifier` and :class:`SONFINRegressor` train haze's SONFIN
network (zero-order Takagi-Sugeno: a Gaussian membership per rule and input,
product rules, weighted-average outputs; rules are created while training and
every parameter is tuned by gradient descent; ``docs/fnn.md`` gives the
formulas). They follow scikit-learn's conventions: parameters are stored as
given by ``__init__``, ``fit`` returns the estimator, fitted attributes end
in ``_``; with scikit-learn installed they are real scikit-learn estimators
(pipelines, ``clone``, ``cross_val_score``, grid search), and without it
they keep the same methods.

Training does what ``haze fnn train`` does, with the same defaults: inputs
(and regression targets) are standardised from the training data and the
scaling is stored in the model; a share of the rows
(``validation_fraction``) is held out and the epoch that does best on it is
kept; the learning rate is halved after an epoch whose loss rose. The model
files are those of the command line: a model saved here is read by
``haze fnn predict`` and the other way round, and both predict the same
numbers bit for bit.

Arrays: X is converted once to C-ordered float64 when it is anything else
(float32 included: the network computes in double); a float64 C-ordered
array is used without a copy.

Example
-------
>>> import haze
>>> clf = haze.SONFINClassifier(epochs=10).fit(X_train, y_train)
>>> clf.score(X_test, y_test), clf.n_rules_
>>> clf.save("model.fnn")        # haze fnn predict model.fnn data.csv
"""

import inspect
import os
import tempfile
import warnings

import numpy as np

from . import _ext
from ._core import Context, DomainError, _as_matrix, _ctx, _fspath, default_context

__all__ = ["SONFINClassifier", "SONFINRegressor", "load"]

try:  # scikit-learn is optional: the estimators are its own kind when present
    from sklearn.base import BaseEstimator as _BaseEstimator
    from sklearn.base import ClassifierMixin as _ClassifierMixin
    from sklearn.base import RegressorMixin as _RegressorMixin
    from sklearn.exceptions import DataConversionWarning, NotFittedError
except ImportError:  # pragma: no cover - exercised where sklearn is missing

    class DataConversionWarning(UserWarning):
        """Input converted to the shape expected (scikit-learn's class when
        scikit-learn is installed)."""

    class NotFittedError(ValueError, AttributeError):
        """The estimator is used before ``fit`` (scikit-learn's class when
        scikit-learn is installed)."""

    def _same(a, b):
        try:
            return bool(a is b or a == b)
        except Exception:  # noqa: BLE001 - arrays and odd types compare as different
            return False

    class _BaseEstimator:
        """What scikit-learn's BaseEstimator gives, for use without it."""

        @classmethod
        def _get_param_names(cls):
            sig = inspect.signature(cls.__init__)
            return sorted(p.name for p in sig.parameters.values()
                          if p.name != "self" and p.kind == p.POSITIONAL_OR_KEYWORD)

        def get_params(self, deep=True):
            """The parameters given to ``__init__`` (or set since), by name."""
            return {k: getattr(self, k) for k in self._get_param_names()}

        def set_params(self, **params):
            """Sets parameters by name; returns the estimator."""
            valid = self._get_param_names()
            for k, v in params.items():
                if k not in valid:
                    raise ValueError(f"Invalid parameter {k!r} for estimator "
                                     f"{type(self).__name__}. Valid parameters are: {valid!r}.")
                setattr(self, k, v)
            return self

        def __repr__(self):
            sig = inspect.signature(type(self).__init__).parameters
            changed = [f"{k}={v!r}" for k, v in self.get_params().items()
                       if not _same(v, sig[k].default)]
            return f"{type(self).__name__}({', '.join(changed)})"

    class _ClassifierMixin:
        _estimator_type = "classifier"

        def score(self, X, y, sample_weight=None):
            """Mean accuracy of ``predict(X)`` against ``y``."""
            hit = (self.predict(X) == np.asarray(y)).astype(np.float64)
            return float(np.average(hit, weights=sample_weight))

    class _RegressorMixin:
        _estimator_type = "regressor"

        def score(self, X, y, sample_weight=None):
            """Coefficient of determination R^2 of ``predict(X)`` (averaged
            over outputs)."""
            y = np.asarray(y, dtype=np.float64)
            p = np.asarray(self.predict(X), dtype=np.float64).reshape(y.shape)
            y2, p2 = y.reshape(len(y), -1), p.reshape(len(p), -1)
            w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
            res = np.average((y2 - p2) ** 2, axis=0, weights=w)
            tot = np.average((y2 - np.average(y2, axis=0, weights=w)) ** 2, axis=0, weights=w)
            r2 = np.where(tot > 0, 1.0 - res / np.where(tot > 0, tot, 1.0),
                          np.where(res > 0, 0.0, 1.0))
            return float(np.mean(r2))


_SCALING = {"input": 0, "global": 1}


def _io_ctx(ctx):
    """The context for file work: the given one, else the CPU's (reading
    and writing a model needs no device)."""
    return _ctx(ctx) if ctx is not None else default_context("cpu")


def _label_name(c):
    """The text a class label is stored under in the model file."""
    if isinstance(c, (bytes, np.bytes_)):
        return bytes(c).decode("utf-8", "replace")
    if isinstance(c, (float, np.floating)):
        return repr(float(c))
    return str(c)


def _labels_from_names(names):
    """Class labels of a model read from a file: ints or floats where every
    name is one written in its usual form (``"3"``, ``"1.5"``), else the
    names as strings."""
    try:
        ints = [int(s) for s in names]
        if all(str(v) == s for v, s in zip(ints, names)):
            return np.asarray(ints)
    except ValueError:
        pass
    try:
        flts = [float(s) for s in names]
        if all(np.isfinite(v) and (repr(v) == s or f"{v:.17g}" == s)
               for v, s in zip(flts, names)):
            return np.asarray(flts)
    except ValueError:
        pass
    return np.asarray(names)


def _seed_of(random_state):
    """The library's seed (a non-negative int) from an int, None (a seed
    drawn from NumPy's global generator), a RandomState or a Generator."""
    if random_state is None:
        return int(np.random.randint(0, 2**31 - 1))
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**31 - 1))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2**31 - 1))
    if isinstance(random_state, (bool, np.bool_)) or not isinstance(
            random_state, (int, np.integer)):
        raise TypeError(f"random_state must be an int, None, a RandomState or a Generator, "
                        f"not {type(random_state).__name__}")
    if random_state < 0:
        raise ValueError(f"random_state must be >= 0, got {random_state}")
    return int(random_state)


def _check_y(y, X):
    """y as an array (not None, one entry per row of X) and its name (a
    pandas Series's), or None."""
    if y is None:
        raise ValueError("this estimator requires y to be passed, but the target y is None")
    name = getattr(y, "name", None)
    y = np.asarray(y)
    if y.ndim == 0:
        raise ValueError("y should be a 1d array (one target per sample), got a scalar")
    if len(y) != X.shape[0]:
        raise ValueError(f"X has {X.shape[0]} samples and y {len(y)}: they must match")
    return y, name if isinstance(name, str) else None


class _SONFIN(_BaseEstimator):
    """The parts the classifier and the regressor share."""

    _kind = None  # "classification" or "regression"

    def __init__(self, epochs=20, threshold=0.8, decay=0.5, width=1.5, beta=0.5, sigma0=1.0,
                 learning_rate=0.05, batch_size=1, max_rules=0, validation_fraction=0.1,
                 scaling="input", shuffle=True, random_state=1, verbose=False, backend="auto",
                 ctx=None):
        self.epochs = epochs
        self.threshold = threshold
        self.decay = decay
        self.width = width
        self.beta = beta
        self.sigma0 = sigma0
        self.learning_rate = learning_rate
        self.batch_size = batch_size
        self.max_rules = max_rules
        self.validation_fraction = validation_fraction
        self.scaling = scaling
        self.shuffle = shuffle
        self.random_state = random_state
        self.verbose = verbose
        self.backend = backend
        self.ctx = ctx

    # ------------------------------------------------------------ helpers

    def _context(self):
        if self.ctx is not None:
            return _ctx(self.ctx)
        return _ctx(backend="auto" if self.backend is None else self.backend)

    def _options(self):
        """The parameters as haze_fnn_options fields (checked again by the
        library, whose messages name the option)."""
        if self.scaling not in _SCALING:
            raise ValueError(f"scaling must be 'input' or 'global', got {self.scaling!r}")
        for name in ("epochs", "batch_size"):
            v = getattr(self, name)
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
                raise TypeError(f"{name} must be an int, not {type(v).__name__}")
        max_rules = 0 if self.max_rules is None else self.max_rules
        if isinstance(max_rules, (bool, np.bool_)) or not isinstance(max_rules, (int, np.integer)):
            raise TypeError(f"max_rules must be an int or None, not {type(max_rules).__name__}")
        if self.epochs < 0:
            raise ValueError(f"epochs must be >= 0, got {self.epochs}")
        if self.batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {self.batch_size}")
        if max_rules < 0:
            raise ValueError(f"max_rules must be >= 0 (0 or None: no limit), got {max_rules}")
        return {
            "epochs": int(self.epochs), "threshold": float(self.threshold),
            "decay": float(self.decay), "width": float(self.width), "beta": float(self.beta),
            "sigma0": float(self.sigma0), "rate": float(self.learning_rate),
            "batch": int(self.batch_size), "max_rules": int(max_rules),
            "validation": float(self.validation_fraction), "scaling": _SCALING[self.scaling],
            "shuffle": int(bool(self.shuffle)), "seed": _seed_of(self.random_state),
        }

    def _check_X(self, X, reset):
        """X as a C-ordered float64 matrix of finite numbers with the fitted
        number of columns, and its column names (or None)."""
        if not reset:
            self._check_fitted()
        if type(X).__module__.startswith("scipy.sparse"):
            raise TypeError("sparse input is not supported: pass a dense array (X.toarray())")
        names = getattr(X, "columns", None)
        if names is not None:
            names = [str(c) for c in names] if all(isinstance(c, str) for c in names) else None
        a = np.asarray(X)
        if a.dtype == object:
            try:
                a = a.astype(np.float64)
            except ValueError as e:
                raise ValueError(f"X must hold numbers: {e}") from None
        if a.dtype.kind == "c":
            raise ValueError("Complex data not supported: X must hold real numbers")
        if a.dtype.kind not in "fiub":
            raise ValueError(f"X must hold real numbers, not {a.dtype}")
        if a.ndim != 2:
            raise ValueError(f"Expected a 2-D array X (samples x features), got {a.ndim}-D. "
                             "Reshape your data either using X.reshape(-1, 1) if it has a "
                             "single feature or X.reshape(1, -1) if it is a single sample.")
        if a.shape[1] < 1:
            raise ValueError(f"X has 0 feature(s) (shape={a.shape}) while a minimum of 1 is "
                             "required.")
        a = _as_matrix(a, (np.float64,), "X", columns=None if reset else self.n_features_in_,
                       owner=type(self).__name__)
        if not np.isfinite(a).all():
            r, c = np.argwhere(~np.isfinite(a))[0]
            raise DomainError(f"X holds NaN or inf (row {r + 1}, column {c + 1}): haze needs "
                              "finite inputs", -8)
        return a, names

    def _check_fitted(self):
        if getattr(self, "_net", None) is None:
            raise NotFittedError(f"This {type(self).__name__} instance is not fitted yet: call "
                                 "fit with appropriate arguments (or load a model) first.")

    def _progress(self, history):
        verbose = bool(self.verbose)

        def record(e):
            history.append(e)
            if verbose:
                line = f"epoch {e['epoch'] + 1:3d}  rules {e['rules']:5d}  loss {e['loss']:.6f}"
                if not np.isnan(e["accuracy"]):
                    line += f"  accuracy {100 * e['accuracy']:6.2f}%"
                if e["val_samples"]:
                    line += f"  held-out loss {e['val_loss']:.6f}"
                    if not np.isnan(e["val_accuracy"]):
                        line += f"  accuracy {100 * e['val_accuracy']:6.2f}%"
                print(line + f"  rate {e['rate']:.3g}", flush=True)
            return False

        return record

    def _train(self, X, names, targets, labels, outputs, classes=None, target_name=None,
               **fitted):
        """Makes a new network, trains it and, when training ends (or is
        interrupted with Ctrl-C after at least one epoch), takes it with the
        attributes `fitted`."""
        c = self._context()
        opts = self._options()
        net = _ext.fnn_new(c._h, X.shape[1], outputs)
        if classes is not None:
            _ext.fnn_set_classes(c._h, net, classes)
        if names is not None or target_name is not None:
            _ext.fnn_set_names(c._h, net, names, target_name)
        history = []
        try:
            _ext.fnn_train(c._h, net, X, targets, labels, opts, self._progress(history))
        except KeyboardInterrupt:
            # the library stopped at the end of an epoch and left the network
            # at its best epoch: keep it, then let the interrupt through
            if _ext.fnn_info(net)["rules"]:
                self._take(net, history, **fitted)
                if names is not None:
                    self.feature_names_in_ = np.asarray(names, dtype=object)
            raise
        self._take(net, history, **fitted)
        if names is not None:
            self.feature_names_in_ = np.asarray(names, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        return self

    def _take(self, net, history, **fitted):
        """Sets the fitted attributes from a network (and `fitted`)."""
        info = _ext.fnn_info(net)
        for k, v in fitted.items():
            setattr(self, k, v)
        self._net = net
        self.n_features_in_ = info["inputs"]
        self.n_rules_ = info["rules"]
        self.history_ = history
        self.best_epoch_ = history[-1]["best_epoch"] if history else None
        self.input_names_ = info["names"]
        self.target_name_ = info["target"]
        return info

    def _outputs(self, X):
        """The network's outputs for X (n x outputs float64)."""
        X, _ = self._check_X(X, reset=False)
        info = _ext.fnn_info(self._net)
        y = np.empty((X.shape[0], info["outputs"]), dtype=np.float64)
        _ext.fnn_predict(self._context()._h, self._net, X, y)
        return y

    # ------------------------------------------------------ fitted model

    @property
    def centers_(self):
        """Rule centres (rules x inputs), in standardised input units."""
        return self._params()[0]

    @property
    def widths_(self):
        """Rule widths sigma (rules x inputs), in standardised input units."""
        return self._params()[1]

    @property
    def weights_(self):
        """Consequents (rules x outputs); for a regressor in standardised
        target units."""
        return self._params()[2]

    @property
    def input_mean_(self):
        """The input standardisation: z = (x - input_mean_) / input_scale_."""
        return self._params()[3]

    @property
    def input_scale_(self):
        """The input standardisation: z = (x - input_mean_) / input_scale_."""
        return self._params()[4]

    def _params(self):
        self._check_fitted()
        info = _ext.fnn_info(self._net)
        R, D, L = info["rules"], info["inputs"], info["outputs"]
        m, s, w, mean, scale, tmean, tscale = (np.frombuffer(b, dtype=np.float64)
                                               for b in _ext.fnn_params(self._net))
        return (m.reshape(R, D), s.reshape(R, D), w.reshape(R, L), mean, scale, tmean, tscale)

    # --------------------------------------------------------------- files

    def save(self, path):
        """Writes the model as a haze ``.fnn`` file (text, atomic; what
        ``haze fnn train -o`` writes and ``haze fnn predict`` reads)."""
        self._check_fitted()
        _ext.fnn_save(_io_ctx(self.ctx)._h, self._net, _fspath(path))

    def export_fis(self, path):
        """Writes the network as a MATLAB/Octave Sugeno ``.fis`` file
        (``gaussmf`` inputs on the raw scale, constant outputs), which
        :func:`haze.fis.load`, MATLAB, Octave and fuzzylite read."""
        self._check_fitted()
        _ext.fnn_export_fis(_io_ctx(self.ctx)._h, self._net, _fspath(path))

    @classmethod
    def load(cls, path, ctx=None, backend="auto"):
        """Reads a ``.fnn`` model file (from :meth:`save` or ``haze fnn
        train``). Parameters other than ``ctx``/``backend`` keep their
        defaults: the file holds the network, not how it was trained."""
        est = load(path, ctx=ctx, backend=backend)
        if not isinstance(est, cls):
            raise ValueError(f"{_fspath(path)}: a {est._kind} model, not one for "
                             f"{cls.__name__}")
        return est

    def _model_bytes(self):
        with tempfile.TemporaryDirectory(prefix="haze-fnn-") as d:
            p = os.path.join(d, "model.fnn")
            _ext.fnn_save(default_context("cpu")._h, self._net, p)
            with open(p, "rb") as f:
                return f.read()

    @staticmethod
    def _net_from_bytes(data):
        with tempfile.TemporaryDirectory(prefix="haze-fnn-") as d:
            p = os.path.join(d, "model.fnn")
            with open(p, "wb") as f:
                f.write(data)
            return _ext.fnn_load(default_context("cpu")._h, p)

    def __getstate__(self):
        # the network travels as its model file (17 significant digits:
        # the copy predicts bit for bit what the original does); a Context
        # cannot be pickled and becomes None (the backend parameter stays)
        state = dict(self.__dict__)
        if state.get("_net") is not None:
            state["_net"] = self._model_bytes()
        if isinstance(state.get("ctx"), Context):
            state["ctx"] = None
        return state

    def __setstate__(self, state):
        state = dict(state)
        if isinstance(state.get("_net"), (bytes, bytearray)):
            state["_net"] = self._net_from_bytes(bytes(state["_net"]))
        self.__dict__.update(state)

    # -------------------------------------------------------------- plots

    def plot_history(self, ax=None):
        """Draws the training loss (and the held-out loss), the accuracy
        (classifiers) and the rule count per epoch, with the kept epoch
        marked. Needs matplotlib.

        Parameters
        ----------
        ax : matplotlib Axes or None
            Where to draw the loss; the accuracy and the rule count get
            twin axes on the right. None makes a new figure.

        Returns
        -------
        ax : the Axes of the loss.
        """
        try:
            from matplotlib.ticker import MaxNLocator
        except ImportError as e:
            raise ImportError("plot_history needs matplotlib (pip install matplotlib)") from e
        self._check_fitted()
        h = self.history_
        if not h:
            raise ValueError("no training history to plot (a model read from a file has none)")
        if ax is None:
            import matplotlib.pyplot as plt
            fig, ax = plt.subplots(figsize=(7.5, 4.2))
            fig.subplots_adjust(right=0.76 if self._kind == "classification" else 0.86)
        ep = np.array([r["epoch"] + 1 for r in h])
        col = {k: np.array([r[k] for r in h], dtype=np.float64) for k in h[0] if k != "epoch"}
        lines = ax.plot(ep, col["loss"], color="C0", marker="o", ms=3, label="training loss")
        if np.isfinite(col["val_loss"]).any():
            lines += ax.plot(ep, col["val_loss"], color="C0", ls="--", label="held-out loss")
        ax.set_xlabel("epoch")
        ax.set_ylabel("loss (mean E per sample)", color="C0")
        if self.best_epoch_ is not None and self.best_epoch_ >= 0:
            lines.append(ax.axvline(self.best_epoch_ + 1, color="0.5", ls=":", label="kept epoch"))
        if np.isfinite(col["accuracy"]).any():
            acc = ax.twinx()
            lines += acc.plot(ep, 100 * col["accuracy"], color="C1", marker="s", ms=3,
                              label="training accuracy")
            if np.isfinite(col["val_accuracy"]).any():
                lines += acc.plot(ep, 100 * col["val_accuracy"], color="C1", ls="--",
                                  label="held-out accuracy")
            acc.set_ylabel("accuracy (%)", color="C1")
        rules = ax.twinx()
        if np.isfinite(col["accuracy"]).any():
            rules.spines["right"].set_position(("axes", 1.14))
        lines += rules.plot(ep, col["rules"], color="C2", drawstyle="steps-mid", label="rules")
        rules.set_ylabel("rules", color="C2")
        rules.set_ylim(bottom=0, top=max(1.0, col["rules"].max()) * 1.08)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        rules.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.legend(lines, [ln.get_label() for ln in lines], loc="best", fontsize="small")
        ax.set_title(f"SONFIN training ({self._kind}, {self.n_rules_} rules)")
        return ax


class SONFINClassifier(_ClassifierMixin, _SONFIN):
    """SONFIN neuro-fuzzy classifier: one output per class, the argmax
    predicts.

    Parameters
    ----------
    epochs : int, default 20
        Passes over the data.
    threshold : float, default 0.8
        A rule is made for a sample whose best per-input firing
        ``max_k mu_k^(1/D)`` is at most this (in [0, 1]).
    decay : float, default 0.5
        The threshold of epoch e (0-based) is ``threshold * decay**e``.
    width : float, default 1.5
        > 0: every new rule gets this width (standardised units) on every
        input; 0: the distance rule (``beta``).
    beta : float, default 0.5
        With ``width=0``: a new rule's width is beta times the RMS distance
        per input to the strongest rule.
    sigma0 : float, default 1.0
        With ``width=0``: the width of the first rule.
    learning_rate : float, default 0.05
        Starting learning rate; halved after an epoch whose loss rose.
    batch_size : int, default 1
        1: online (sample by sample, as SONFIN is described); > 1:
        mini-batches with the mean gradient.
    max_rules : int or None, default 0
        No new rule beyond this many (0 or None: no limit).
    validation_fraction : float, default 0.1
        Share of the rows held out to choose the epoch whose parameters are
        kept (the best held-out accuracy; ties: lower loss). 0: none, the
        last epoch is kept.
    scaling : {"input", "global"}, default "input"
        Standardise each input on its own, or all inputs with one mean and
        deviation (pixel-like data).
    shuffle : bool, default True
        Shuffle the samples each epoch.
    random_state : int, RandomState, Generator or None, default 1
        Seed of the shuffles and of the held-out pick (None: drawn from
        NumPy's global generator).
    verbose : bool, default False
        Print one line per epoch (as ``haze fnn train`` does).
    backend : {"auto", "cpu", "cuda"}, default "auto"
        Where training and prediction run (when ``ctx`` is None).
    ctx : haze.Context or None
        The context to run on (not pickled: a copy falls back to
        ``backend``).

    Attributes
    ----------
    classes_ : ndarray
        The class labels, sorted (``numpy.unique`` of y), exactly as given.
    n_features_in_ : int
    n_rules_ : int
        Rules of the network kept.
    history_ : list of dict
        One record per epoch: ``epoch``, ``rules``, ``loss``, ``accuracy``,
        ``val_loss``, ``val_accuracy``, ``best_epoch``, ``rate``,
        ``threshold``, ``seconds``, ``train_samples``, ``val_samples``.
    best_epoch_ : int or None
        The (0-based) epoch whose parameters were kept.
    centers_, widths_, weights_ : ndarray
        The network's parameters (standardised units; see docs/fnn.md).

    Training can be stopped with Ctrl-C (KeyboardInterrupt) at the end of
    an epoch: the estimator keeps the network at its best epoch so far and
    the interrupt propagates.
    """

    _kind = "classification"

    def fit(self, X, y):
        """Trains a new network on X (samples x features) and the labels y
        (any hashable labels numpy can sort: strings, ints...). Returns self."""
        X, names = self._check_X(X, reset=True)
        y, target_name = _check_y(y, X)
        if y.ndim == 2 and y.shape[1] == 1:
            warnings.warn("A column-vector y was passed when a 1d array was expected: it is "
                          "read as y.ravel()", DataConversionWarning, stacklevel=2)
            y = y.ravel()
        if y.ndim != 1:
            raise ValueError(f"y must be 1-D (one label per sample), got shape {y.shape}")
        if y.dtype.kind in "fc":
            if not np.isfinite(y).all():
                raise ValueError("y holds NaN or inf: every sample needs a label")
            if (y != np.round(y)).any():
                raise ValueError("Unknown label type: continuous (y holds numbers that are not "
                                 "whole: use SONFINRegressor, or labels)")
        classes, idx = np.unique(y, return_inverse=True)
        if len(classes) < 2:
            raise ValueError(f"a classifier needs at least two classes; y has {len(classes)} "
                             f"class{'' if len(classes) == 1 else 'es'}")
        names_k = [_label_name(c) for c in classes]
        if len(set(names_k)) != len(names_k):
            raise ValueError("two class labels have the same text; the model file stores labels "
                             "as text")
        labels = np.ascontiguousarray(idx.reshape(-1), dtype=np.intc)
        return self._train(X, names, labels, True, len(classes), names_k, target_name,
                           classes_=classes)

    def decision_function(self, X):
        """The network's outputs: samples x classes (1-D for two classes:
        output of ``classes_[1]`` minus that of ``classes_[0]``)."""
        y = self._outputs(X)
        return y[:, 1] - y[:, 0] if y.shape[1] == 2 else y

    def predict(self, X):
        """The class of each row of X (argmax of the outputs; ties: the
        first class)."""
        y = self._outputs(X)
        return self.classes_[np.argmax(y, axis=1)]

    def predict_proba(self, X):
        """Class shares from the network's outputs: the outputs are
        weighted averages of consequents that start one-hot, so they are
        near class memberships but not bounded; negative outputs are cut to
        0 and each row divided by its sum (a row with no positive output
        gets the softmax of its outputs). The argmax is that of
        :meth:`predict`."""
        y = self._outputs(X)
        p = np.clip(y, 0.0, None)
        s = p.sum(axis=1, keepdims=True)
        bad = (s[:, 0] <= 0) | ~np.isfinite(s[:, 0])
        if bad.any():
            z = y[bad] - y[bad].max(axis=1, keepdims=True)
            e = np.exp(z)
            p[bad] = e
            s[bad] = e.sum(axis=1, keepdims=True)
        return p / s

    def predict_log_proba(self, X):
        """``log(predict_proba(X))``."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def _take(self, net, history, **fitted):
        info = super()._take(net, history, **fitted)
        if "classes_" not in fitted:
            self.classes_ = _labels_from_names(info["classes"])
        return info


class SONFINRegressor(_RegressorMixin, _SONFIN):
    """SONFIN neuro-fuzzy regressor (one output per target column).

    Targets are standardised like the inputs (the model stores the
    scaling), so one learning rate fits targets of any size. The
    parameters are those of :class:`SONFINClassifier`; the epoch kept is the
    one with the lowest held-out loss.

    Attributes
    ----------
    n_features_in_, n_rules_, history_, best_epoch_, centers_, widths_,
    weights_ : as for :class:`SONFINClassifier`.
    n_outputs_ : int
        Targets learnt (1 for a 1-D y).
    """

    _kind = "regression"

    def _more_tags(self):  # scikit-learn before 1.6
        return {"multioutput": True}

    def __sklearn_tags__(self):  # scikit-learn 1.6 on
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags

    def fit(self, X, y):
        """Trains a new network on X (samples x features) and y (samples, or
        samples x targets). Returns self."""
        X, names = self._check_X(X, reset=True)
        y, target_name = _check_y(y, X)
        if y.dtype.kind not in "fiub":
            try:
                y = y.astype(np.float64)
            except (TypeError, ValueError) as e:
                raise ValueError(f"y must hold numbers: {e}") from None
        if y.ndim not in (1, 2):
            raise ValueError(f"y must be 1-D or 2-D, got {y.ndim}-D")
        d = np.ascontiguousarray(y.reshape(len(y), -1), dtype=np.float64)
        if d.shape[1] < 1:
            raise ValueError("y has no columns")
        return self._train(X, names, d, False, d.shape[1], None, target_name,
                           _y_1d=y.ndim == 1)

    def predict(self, X):
        """The network's output for each row of X (1-D when y was 1-D)."""
        y = self._outputs(X)
        return y[:, 0] if getattr(self, "_y_1d", y.shape[1] == 1) else y

    def _take(self, net, history, **fitted):
        info = super()._take(net, history, **fitted)
        self.n_outputs_ = info["outputs"]
        return info


def load(path, ctx=None, backend="auto"):
    """Reads a ``.fnn`` model file: a fitted :class:`SONFINClassifier` or
    :class:`SONFINRegressor`, as the file's kind says (labels that all read
    as ints or floats come back as numbers, others as strings)."""
    net = _ext.fnn_load(_io_ctx(ctx)._h, _fspath(path))
    info = _ext.fnn_info(net)
    est = (SONFINClassifier if info["classifier"] else SONFINRegressor)(backend=backend, ctx=ctx)
    if info["classifier"]:
        est._take(net, [])
    else:
        est._take(net, [], _y_1d=info["outputs"] == 1)
    return est
