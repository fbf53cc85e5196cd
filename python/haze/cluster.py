"""Fuzzy c-means clustering: a scikit-learn-style estimator and scikit-fuzzy's functions.

:class:`FCM` is Bezdek's fuzzy c-means, with the Euclidean distance or the
Gustafson-Kessel norm (one volume-normalised covariance per cluster, for
elongated clusters), on the CPU or a CUDA device. It follows scikit-learn's
estimator conventions (parameters stored as given, ``get_params`` /
``set_params``, ``fit`` returning the estimator, fitted attributes ending in
an underscore), so it works with ``sklearn.base.clone``, pipelines and model
selection where scikit-learn is installed, and without scikit-learn too.

:func:`cmeans` and :func:`cmeans_predict` take and return what
``skfuzzy.cluster.cmeans`` and ``cmeans_predict`` do (data as features x
points, memberships as clusters x points), so that a scikit-fuzzy program
moves to haze by changing its import.

The algorithm, its stopping rules, initialisations and validity indices are
those of the C library's ``haze_fcm_fit`` (docs/fcm.md).
"""

import math
import numbers
import warnings

import numpy as np

from . import _ext
from ._core import Context, DomainError, _ctx

__all__ = ["FCM", "cmeans", "cmeans_predict", "DegenerateClusteringWarning"]

try:  # scikit-learn's base classes where it is installed: clone, pipelines, HTML repr
    from sklearn.base import BaseEstimator as _Base
    from sklearn.base import ClusterMixin as _ClusterMixin
    from sklearn.base import TransformerMixin as _TransformerMixin  # transform: memberships
    _HAVE_SKLEARN = True
except ImportError:  # pragma: no cover - exercised where scikit-learn is missing
    _HAVE_SKLEARN = False

    class _Base:
        """What scikit-learn's BaseEstimator offers that FCM needs: parameters
        read from ``__init__``'s signature, ``get_params`` and ``set_params``."""

        @classmethod
        def _get_param_names(cls):
            import inspect
            sig = inspect.signature(cls.__init__)
            return sorted(p.name for p in sig.parameters.values()
                          if p.name != "self" and p.kind != p.VAR_KEYWORD)

        def get_params(self, deep=True):
            """The estimator's parameters as a dict (``deep`` is accepted for
            scikit-learn's signature; FCM has no sub-estimators)."""
            return {k: getattr(self, k) for k in self._get_param_names()}

        def set_params(self, **params):
            """Sets parameters by name; returns the estimator."""
            valid = self._get_param_names()
            for k, v in params.items():
                if k not in valid:
                    raise ValueError(f"invalid parameter {k!r} for estimator "
                                     f"{type(self).__name__}; valid parameters: {valid}")
                setattr(self, k, v)
            return self

    class _TransformerMixin:
        pass

    class _ClusterMixin:
        _estimator_type = "clusterer"

        def fit_predict(self, X, y=None, **kwargs):
            """Fits and returns the hard labels of X (``labels_``)."""
            self.fit(X, **kwargs)
            return self.labels_


class DegenerateClusteringWarning(UserWarning):
    """A fit whose partition says little about the data: two centres that
    coincide, memberships all near 1/c, or an empty cluster (``FCM.degenerate_``
    names the reasons). A fuzzifier closer to 1 (1.1 to 1.3 for data of many
    features), fewer clusters or another ``random_state`` usually helps."""


_METRICS = {"euclidean": 0, "gk": 1, "gustafson-kessel": 1}
_INITS = {"random": 0, "kmeans++": 1, "k-means++": 1}
_STOPS = {"membership": 0, "objective": 1}
_DEGENERATE = ("coincident_centres", "uniform_memberships", "empty_cluster")
_DEFAULT_TOL = 1e-5
_DEFAULT_MAX_ITER = 300


def _is_int(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_))


def _is_real(v):
    return isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))


def _precision_of(p, name="precision"):
    """None, or F64 / F32 for the ways of naming a precision."""
    if p is None:
        return None
    if isinstance(p, str):
        key = p.lower()
        if key in ("double", "float64", "f64"):
            return _ext.F64
        if key in ("single", "float32", "f32"):
            return _ext.F32
    else:
        try:
            dt = np.dtype(p)
        except TypeError:
            dt = None
        if dt == np.float64:
            return _ext.F64
        if dt == np.float32:
            return _ext.F32
    raise ValueError(f"{name} must be None, 'double' (float64) or 'single' (float32), got {p!r}")


def _seed_of(random_state):
    """haze's 64-bit seed for a scikit-learn random_state: an int is the seed
    itself (as ``haze fcm --seed``); None draws one from NumPy's global
    generator, a RandomState or Generator draws one from itself."""
    if random_state is None:
        return int(np.random.randint(0, 2**63, dtype=np.int64))
    if _is_int(random_state):
        s = int(random_state)
        if not 0 <= s < 2**64:
            raise ValueError(f"random_state must be in [0, 2**64), got {s}")
        return s
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**63, dtype=np.int64))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2**64, dtype=np.uint64))
    raise TypeError("random_state must be None, an int, a numpy RandomState or Generator, "
                    f"not {type(random_state).__name__}")


def _data(X, dtypes, name="X"):
    """X as a C-ordered 2-D float array of one of dtypes: no copy when it
    already is one, else one conversion (to the first)."""
    if hasattr(X, "toarray") or hasattr(X, "tocsr"):
        raise TypeError(f"{name} is a sparse matrix, and sparse input is not supported: "
                        f"pass {name}.toarray()")
    if hasattr(X, "__array__") or isinstance(X, (list, tuple)):
        a = np.asarray(X)
    else:
        raise TypeError(f"{name} must be an array of numbers, not {type(X).__name__}")
    if a.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array (samples x features), got a "
                         f"{a.ndim}-D array; reshape 1-D data with X.reshape(-1, 1)")
    if a.dtype not in dtypes:
        if a.dtype.kind == "c":
            raise ValueError(f"{name}: Complex data not supported")
        try:
            a = a.astype(dtypes[0])
        except (TypeError, ValueError) as e:
            raise type(e)(f"{name} must hold numbers, not {a.dtype}: {e}") from None
    for k, what in ((0, "sample"), (1, "feature")):
        if a.shape[k] < 1:
            raise ValueError(f"{name}: found an array with 0 {what}(s) (shape={a.shape}) while a "
                             "minimum of 1 is required.")
    return np.ascontiguousarray(a)


def _check_finite_after(err, X, name="X"):
    """Names NaN or infinity in X (looked for only once the library has
    refused the data: no pass over large data on the way in)."""
    bad = ~np.isfinite(X)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        what = "NaN" if np.isnan(X[i, j]) else "infinity"
        # (the library's message counts rows and columns from 1, as the tool
        # does; an array is indexed from 0)
        raise type(err)(f"{name} contains NaN or infinity: {what} at {name}[{i}, {j}]",
                        err.status) from None
    raise err


class FCM(_TransformerMixin, _ClusterMixin, _Base):
    """Fuzzy c-means clustering (Bezdek), Euclidean or Gustafson-Kessel.

    Every point gets a membership in [0, 1] in each of ``n_clusters`` clusters
    (a row of ``u_`` sums to 1); the fit minimises J = sum_i sum_j u_ij^m
    d(x_i, v_j), with d the squared Euclidean distance or, for
    ``metric="gk"``, the squared Gustafson-Kessel norm.

    Parameters
    ----------
    n_clusters : int, default 3
        Number of clusters c (2 <= c <= number of samples).
    m : float, default 2.0
        Fuzzifier, > 1. Closer to 1 (1.1 to 1.3) for data of many features,
        where m = 2 tends to make every membership near 1/c.
    max_iter : int, default 300
        Most iterations run.
    tol : float, default 1e-5
        Stopping tolerance of ``stop``'s rule; 0 runs ``max_iter`` iterations.
    init : {"kmeans++", "random"} or array, default "kmeans++"
        ``"kmeans++"``: greedy k-means++ seeding of the centres.
        ``"random"``: seeded random memberships, the start of scikit-fuzzy and
        MATLAB (it collapses on data of more than about 8 features). An array:
        c x n_features initial centres, or n_samples x c initial memberships
        (rows are normalised to sum 1); told apart by shape, centres first.
    metric : {"euclidean", "gk"}, default "euclidean"
        ``"gk"``: Gustafson-Kessel, one norm-inducing matrix per cluster
        (``norms_``), for elongated or differently oriented clusters.
    stop : {"membership", "objective"}, default "membership"
        ``"membership"``: stop when ||U(k) - U(k-1)||_F < tol (scikit-fuzzy);
        ``"objective"``: when |J(k) - J(k-1)| < tol (MATLAB's fcm).
    random_state : None, int, numpy RandomState or Generator, default None
        Seeds ``"kmeans++"`` and ``"random"``. An int is haze's seed itself,
        so ``FCM(random_state=7)`` starts where ``haze fcm --seed 7`` does;
        None draws a seed from NumPy's global generator (scikit-learn's rule).
    precision : None, "double" or "single", default None
        Arithmetic of the fit. None: float32 data is clustered in float32
        (no float64 copy) and anything else in float64. ``"single"`` rounds
        float64 data to float inside the library; ``"double"`` converts
        float32 data to float64 once.
    gk_reg : float, default 1e-10
        Gustafson-Kessel: ridge added to each covariance, relative to its
        trace / n_features.
    backend : {"auto", "cpu", "cuda"}, default "auto"
        Where the fit runs (ignored when ``ctx`` is given).
    ctx : haze.Context or None
        The context to run on (its backend, device and threads).

    Attributes
    ----------
    cluster_centers_ : ndarray (n_clusters, n_features)
        Centres V(K) of the last iteration.
    u_ : ndarray (n_samples, n_clusters)
        Memberships of the training points to those centres.
    labels_ : ndarray (n_samples,)
        Index of each point's largest membership (the first on ties).
    n_iter_ : int
        Iterations run.
    objective_ : ndarray (n_iter_,)
        J(U(k-1), V(k)) at each iteration k (scikit-fuzzy's ``jm``).
    change_ : ndarray (n_iter_,)
        ||U(k) - U(k-1)||_F at each iteration (NaN where the CUDA backend did
        not compute it: ``stop="objective"``).
    converged_ : bool
        Whether the stopping rule was met before ``max_iter``.
    partition_coefficient_, partition_entropy_, xie_beni_ : float
        Validity indices of the result (Bezdek; Xie and Beni).
    degenerate_ : tuple of str
        Why the result is degenerate ("coincident_centres",
        "uniform_memberships", "empty_cluster"); empty when it is not. A
        degenerate fit also warns (:class:`DegenerateClusteringWarning`).
    norms_ : ndarray (n_clusters, n_features, n_features) or None
        Gustafson-Kessel: the norm-inducing matrices A_j; None for Euclidean.
    n_features_in_ : int
        Features seen by ``fit``.
    precision_ : str
        ``"float64"`` or ``"float32"``: the arithmetic the fit used (and
        ``predict`` uses).
    backend_ : str
        The backend the fit ran on.
    fit_timings_ : dict
        Seconds the fit spent checking the data, setting up (with a GPU: its
        context and the upload), seeding, iterating and finishing (the
        memberships) (``haze_fcm_result_timings``).

    Examples
    --------
    >>> import numpy as np, haze
    >>> X = np.r_[np.random.randn(100, 2), np.random.randn(100, 2) + 5]
    >>> fcm = haze.FCM(n_clusters=2, random_state=0).fit(X)
    >>> fcm.cluster_centers_.shape, fcm.u_.shape
    ((2, 2), (200, 2))
    """

    def __init__(self, n_clusters=3, m=2.0, max_iter=_DEFAULT_MAX_ITER, tol=_DEFAULT_TOL,
                 init="kmeans++", metric="euclidean", stop="membership", random_state=None,
                 precision=None, gk_reg=1e-10, backend="auto", ctx=None):
        self.n_clusters = n_clusters
        self.m = m
        self.max_iter = max_iter
        self.tol = tol
        self.init = init
        self.metric = metric
        self.stop = stop
        self.random_state = random_state
        self.precision = precision
        self.gk_reg = gk_reg
        self.backend = backend
        self.ctx = ctx

    # ------------------------------------------------------------ checking

    def _context(self):
        if self.ctx is not None:
            if not isinstance(self.ctx, Context):
                raise TypeError(f"ctx must be a haze.Context or None, not "
                                f"{type(self.ctx).__name__}")
            if self.backend not in (None, "auto"):
                raise ValueError("give ctx= or backend=, not both (the context has a backend)")
            return self.ctx
        if not isinstance(self.backend, str) and self.backend is not None:
            raise TypeError(f"backend must be 'auto', 'cpu' or 'cuda', not {self.backend!r}")
        return _ctx(None, self.backend)

    def _check_params(self, n_samples, n_features):
        c = self.n_clusters
        if not _is_int(c) or c < 2:
            raise ValueError(f"n_clusters must be an int >= 2, got {c!r}")
        if c > n_samples:
            raise ValueError(f"n_clusters = {c} is more than the {n_samples} samples of X")
        if not _is_real(self.m) or not (1 < self.m < math.inf):
            raise ValueError(f"m (the fuzzifier) must be a finite number > 1, got {self.m!r}")
        if not _is_int(self.max_iter) or not 1 <= self.max_iter <= 2**31 - 1:
            raise ValueError(f"max_iter must be an int >= 1, got {self.max_iter!r}")
        if not _is_real(self.tol) or not (0 <= self.tol < math.inf):
            raise ValueError(f"tol must be a finite number >= 0, got {self.tol!r}")
        if not isinstance(self.metric, str) or self.metric.lower() not in _METRICS:
            raise ValueError(f"metric must be 'euclidean' or 'gk' (Gustafson-Kessel), "
                             f"got {self.metric!r}")
        if not isinstance(self.stop, str) or self.stop.lower() not in _STOPS:
            raise ValueError(f"stop must be 'membership' or 'objective', got {self.stop!r}")
        if not _is_real(self.gk_reg) or not (0 <= self.gk_reg < math.inf):
            raise ValueError(f"gk_reg must be a finite number >= 0, got {self.gk_reg!r}")
        prec = _precision_of(self.precision)
        if isinstance(self.init, str):
            key = self.init.lower()
            if key not in _INITS:
                raise ValueError(f"init must be 'kmeans++', 'random' or an array of centres or "
                                 f"memberships, got {self.init!r}")
            kind, data = _INITS[key], None
        else:
            data = np.asarray(self.init)
            if data.dtype.kind not in "fiu" or data.ndim != 2:
                raise ValueError("init as an array must be 2-D numbers: n_clusters x n_features "
                                 f"centres or n_samples x n_clusters memberships, got "
                                 f"{data.ndim}-D {data.dtype}")
            if data.shape == (c, n_features):
                kind = 2
            elif data.shape == (n_samples, c):
                kind = 3
            else:
                raise ValueError(f"init has shape {data.shape}: neither {c} centres of "
                                 f"{n_features} features ({c}, {n_features}) nor memberships "
                                 f"of {n_samples} samples in {c} clusters ({n_samples}, {c})")
            data = np.ascontiguousarray(data, dtype=np.float64)
        return kind, data, prec

    # ---------------------------------------------------------------- fit

    def fit(self, X, y=None):
        """Clusters X (n_samples x n_features; float64 or float32 in C order
        are used as they are, anything else is converted once).

        The fit runs without the GIL (other Python threads go on); Ctrl-C
        stops it with KeyboardInterrupt. ``y`` is ignored. Returns self.
        """
        X = _data(X, (np.float64, np.float32))
        n, d = X.shape
        kind, init_data, prec = self._check_params(n, d)
        # a refit lets the previous result go first (its n x c memberships
        # can be the largest array there is)
        for name in ("u_", "_result", "_labels"):
            self.__dict__.pop(name, None)
        if prec is None:
            prec = _ext.F32 if X.dtype == np.float32 else _ext.F64
        if prec == _ext.F64 and X.dtype == np.float32:
            X = X.astype(np.float64)  # float data would compute in float
        seed = _seed_of(self.random_state) if kind in (0, 1) else 0
        ctx = self._context()
        metric = _METRICS[self.metric.lower()]
        try:
            r = _ext.fcm_fit(ctx._h, X, int(self.n_clusters), float(self.m), metric, kind,
                             init_data, _STOPS[self.stop.lower()], float(self.tol),
                             int(self.max_iter), seed, prec, float(self.gk_reg))
        except DomainError as e:
            _check_finite_after(e, X)
        self._set_result(r, ctx, prec)
        if self.degenerate_:
            warnings.warn(
                f"fuzzy c-means: degenerate result ({', '.join(self.degenerate_)}): the "
                f"partition says little about the data; try a fuzzifier m closer to 1 "
                f"(now {self.m}; 1.1 to 1.3 for data of many features, here {d}), fewer "
                "clusters" + (", init='kmeans++'" if kind == 0 else "") +
                " or another random_state", DegenerateClusteringWarning, stacklevel=2)
        return self

    def _set_result(self, r, ctx, prec):
        (n, d, c, m, metric, iters, conv, pc, pe, xb, degen, has_u, has_norms) = \
            _ext.fcm_info(r)
        self.cluster_centers_ = np.empty((c, d))
        _ext.fcm_read(r, "centres", self.cluster_centers_)
        # the memberships as the library wrote them: no copy (n x c can be
        # the largest array of a fit)
        self.u_ = np.frombuffer(_ext.fcm_memberships(r), dtype=np.float64).reshape(n, c)
        self.objective_ = np.empty(iters)
        _ext.fcm_read(r, "objective", self.objective_)
        self.change_ = np.empty(iters)
        _ext.fcm_read(r, "change", self.change_)
        if has_norms:
            self.norms_ = np.empty((c, d, d))
            _ext.fcm_read(r, "norms", self.norms_)
        else:
            self.norms_ = None
        self._labels = None  # labels_ is computed on first use
        self.n_iter_ = int(iters)
        self.fit_timings_ = dict(zip(("check", "setup", "seeding", "iterations", "finish"),
                                     _ext.fcm_timings(r)))
        self.converged_ = bool(conv)
        self.partition_coefficient_ = float(pc)
        self.partition_entropy_ = float(pe)
        self.xie_beni_ = float(xb)
        self.degenerate_ = tuple(w for b, w in enumerate(_DEGENERATE) if degen & (1 << b))
        self.n_features_in_ = int(d)
        self.precision_ = "float32" if prec == _ext.F32 else "float64"
        self.backend_ = ctx.backend
        self.fuzzifier_ = float(m)
        # predictions use a model made from the centres and norms (the same
        # numbers): the fit's result, with its n x c memberships, is let go
        self._result = _ext.fcm_model_new(ctx._h, self.cluster_centers_, float(m),
                                          self.norms_)

    @property
    def labels_(self):
        """Index of each training point's largest membership (the first on
        ties); computed from ``u_`` on first use."""
        lab = self.__dict__.get("_labels")
        if lab is None:
            u = self.__dict__.get("u_")
            if u is None:
                raise AttributeError(f"{type(self).__name__} has no labels_: it is not fitted"
                                     " (or was made by from_centres, with no training points)")
            lab = np.empty(u.shape[0], dtype=np.intc)
            _ext.fcm_labels(self._context()._h, np.ascontiguousarray(u), lab)
            self._labels = lab
        return lab

    @classmethod
    def from_centres(cls, centres, m=2.0, norms=None, precision="double", **params):
        """A model for :meth:`predict` and :meth:`predict_proba` from known
        centres (n_clusters x n_features), such as those ``haze fcm -o``
        writes, with the fuzzifier ``m`` and, for a Gustafson-Kessel model,
        the ``norms`` (n_clusters x n_features x n_features, as ``haze fcm
        --norms`` writes them, one matrix per row). Other parameters as
        :class:`FCM`'s. It has no training attributes (``u_``, ``labels_``).
        """
        v = np.array(centres, dtype=np.float64, order="C")
        if v.ndim != 2:
            raise ValueError(f"centres must be 2-D (n_clusters x n_features), got {v.ndim}-D")
        c, d = v.shape
        a = None
        if norms is not None:
            a = np.array(norms, dtype=np.float64, order="C")
            if a.size != c * d * d:
                raise ValueError(f"norms has {a.size} values where {c} matrices of {d} x {d} "
                                 "are needed")
            a = a.reshape(c, d, d)
        prec = _precision_of(precision) or _ext.F64
        est = cls(n_clusters=c, m=m, metric="gk" if a is not None else "euclidean",
                  precision=precision, **params)
        if not _is_real(m) or not (1 < m < math.inf):
            raise ValueError(f"m (the fuzzifier) must be a finite number > 1, got {m!r}")
        est._result = _ext.fcm_model_new(est._context()._h, v, float(m), a)
        est.cluster_centers_, est.norms_, est.fuzzifier_ = v, a, float(m)
        est.n_features_in_ = d
        est.precision_ = "float32" if prec == _ext.F32 else "float64"
        est.n_iter_ = 0
        return est

    # ------------------------------------------------------------ predict

    def _check_fitted(self):
        if not hasattr(self, "cluster_centers_"):
            msg = (f"This {type(self).__name__} instance is not fitted yet: call fit first")
            try:
                from sklearn.exceptions import NotFittedError
            except ImportError:
                raise AttributeError(msg) from None
            raise NotFittedError(msg)

    def _model(self):
        r = self.__dict__.get("_result")
        if r is None:  # unpickled: a model from the centres
            r = _ext.fcm_model_new(self._context()._h,
                                   np.ascontiguousarray(self.cluster_centers_, dtype=np.float64),
                                   float(self.fuzzifier_),
                                   None if self.norms_ is None else
                                   np.ascontiguousarray(self.norms_, dtype=np.float64))
            self._result = r
        return r

    def predict_proba(self, X):
        """Memberships (n_samples x n_clusters) of the points X to the fitted
        centres (with the fit's metric, norms, m and precision). X is used as
        it is when float64 in C order, else converted once to float64."""
        self._check_fitted()
        X = _data(X, (np.float64,))
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but {type(self).__name__} is "
                             f"expecting {self.n_features_in_} features as input")
        u = np.empty((X.shape[0], self.cluster_centers_.shape[0]))
        ctx = self._context()
        prec = _ext.F32 if self.precision_ == "float32" else _ext.F64
        try:
            _ext.fcm_predict(ctx._h, self._model(), X, prec, u)
        except DomainError as e:
            _check_finite_after(e, X)
        return u

    def transform(self, X):
        """Memberships of X, as :meth:`predict_proba` (a pipeline step that
        turns points into their cluster memberships)."""
        return self.predict_proba(X)

    def fit_transform(self, X, y=None):
        """Fits and returns ``u_``."""
        return self.fit(X).u_

    def predict(self, X):
        """Hard labels of X: the cluster of each point's largest membership."""
        u = self.predict_proba(X)
        labels = np.empty(u.shape[0], dtype=np.intc)
        _ext.fcm_labels(self._context()._h, u, labels)
        return labels

    # ------------------------------------------------------------- plots

    def plot(self, X, ax=None, max_points=100_000):
        """Draws the points of X coloured by the cluster of their largest
        membership, its size as opacity, and the centres as crosses; data of
        more than two features on its first two principal components.

        Needs matplotlib. ``max_points``: at most this many points are drawn
        (an even subsample). Returns the matplotlib Axes.
        """
        self._check_fitted()
        plt = _pyplot()
        X = _data(X, (np.float64, np.float32))
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but {type(self).__name__} is "
                             f"expecting {self.n_features_in_} features as input")
        if max_points and X.shape[0] > max_points:
            X = X[:: -(-X.shape[0] // int(max_points))]
        u = self.predict_proba(X)
        lab = u.argmax(axis=1)
        top = u[np.arange(u.shape[0]), lab]
        X = X.astype(np.float64, copy=False)
        V = self.cluster_centers_
        d = X.shape[1]
        if d > 2:  # principal components of X, centres projected alike
            mean = X.mean(axis=0)
            _, _, vt = np.linalg.svd(X - mean, full_matrices=False)
            P, Q = (X - mean) @ vt[:2].T, (V - mean) @ vt[:2].T
            xlabel, ylabel = "first principal component", "second principal component"
        elif d == 2:
            P, Q = X, V
            xlabel, ylabel = "feature 0", "feature 1"
        else:
            P = np.c_[X[:, 0], top]
            Q = np.c_[V[:, 0], np.ones(len(V))]
            xlabel, ylabel = "feature 0", "largest membership"
        if ax is None:
            _, ax = plt.subplots()
        colours = _colours(len(V))
        rgba = colours[lab % len(colours)].copy()
        rgba[:, 3] = np.clip(top, 0.05, 1.0)
        ax.scatter(P[:, 0], P[:, 1], c=rgba, s=12, linewidths=0)
        ax.scatter(Q[:, 0], Q[:, 1], c=colours[np.arange(len(V)) % len(colours)], marker="X",
                   s=220, edgecolors="black", linewidths=1.5, zorder=3)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        metric = "Gustafson-Kessel" if self.norms_ is not None else "fuzzy c-means"
        ax.set_title(f"{metric}: {len(V)} clusters, m = {self.fuzzifier_:g}, "
                     f"PC = {self.partition_coefficient_:.3f}")
        return ax

    def plot_objective(self, ax=None):
        """Draws the objective J per iteration (``objective_``). Needs
        matplotlib; returns the Axes."""
        self._check_fitted()
        plt = _pyplot()
        if ax is None:
            _, ax = plt.subplots()
        ax.plot(np.arange(1, self.n_iter_ + 1), self.objective_, marker="o", markersize=3)
        ax.set_xlabel("iteration")
        ax.set_ylabel("objective J")
        ax.set_title(f"fuzzy c-means: {self.n_iter_} iterations"
                     + (", converged" if self.converged_ else ", not converged"))
        return ax

    # -------------------------------------------------------------- misc

    def __getstate__(self):
        # the handle is rebuilt from the centres and norms on first use
        state = super().__getstate__() if hasattr(super(), "__getstate__") else self.__dict__
        state = dict(state)
        state.pop("_result", None)
        return state

    def __setstate__(self, state):
        if hasattr(super(), "__setstate__"):
            super().__setstate__(state)
        else:  # pragma: no cover
            self.__dict__.update(state)

    def __repr__(self, N_CHAR_MAX=700):
        defaults = FCM().get_params() if type(self) is FCM else {}
        parts = []
        for k, v in self.get_params(deep=False).items():
            dv = defaults.get(k, object())
            same = False
            try:
                same = v is dv or (type(v) is type(dv) and bool(v == dv))
            except (ValueError, TypeError):  # arrays
                same = False
            if not same:
                r = repr(v)
                if isinstance(v, np.ndarray):
                    r = f"<array {v.shape[0]}x{v.shape[1] if v.ndim > 1 else ''}>"
                parts.append(f"{k}={r}")
        return f"{type(self).__name__}({', '.join(parts)})"

    def _more_tags(self):  # scikit-learn before 1.6
        return {"X_types": ["2darray"]}

    def __sklearn_tags__(self):  # scikit-learn 1.6 on: 2-D arrays, its default
        return super().__sklearn_tags__()


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise ImportError("FCM.plot needs matplotlib (pip install matplotlib, or apt install "
                          "python3-matplotlib)") from e
    return plt


def _colours(k):
    """k RGBA colours: matplotlib's tab10 cycle (tab20 beyond 10 clusters)."""
    from matplotlib import colormaps
    cmap = colormaps["tab10" if k <= 10 else "tab20"]
    return np.array([cmap(i % cmap.N) for i in range(min(k, cmap.N))])


# ---------------------------------------------------------------- scikit-fuzzy

def _skfuzzy_u0(c, n, seed):
    """scikit-fuzzy's random start: c x n uniform numbers from NumPy's legacy
    generator (seeded by ``seed`` when given, as ``np.random.seed(seed)`` then
    ``np.random.rand(c, n)``, without touching the global generator; the
    global one when None), columns normalised to sum 1."""
    r = np.random.rand(c, n) if seed is None else np.random.RandomState(seed).rand(c, n)
    return r / r.sum(axis=0, keepdims=True)


def _split_metric_init(metric, init):
    # scikit-fuzzy before 0.4.2 had init as the 6th argument, later ones metric
    if metric is not None and not isinstance(metric, str):
        if init is not None:
            raise TypeError("init given twice (6th argument and init=)")
        metric, init = "euclidean", metric
    metric = "euclidean" if metric is None else metric
    if metric != "euclidean":
        raise ValueError(f"metric {metric!r}: haze.cmeans computes Euclidean distances; for "
                         "Gustafson-Kessel use haze.FCM(metric='gk')")
    return init


def _distances(x, cntr):
    """c x n Euclidean distances, floored at eps as scikit-fuzzy floors them."""
    d = np.empty((cntr.shape[0], x.shape[0]))
    for j in range(cntr.shape[0]):
        d[j] = np.sqrt(((x - cntr[j]) ** 2).sum(axis=1))
    return np.fmax(d, np.finfo(np.float64).eps)


def _data_T(data):
    a = np.asarray(data)
    if a.ndim != 2:
        raise ValueError(f"data must be a 2-D array (features x points, as scikit-fuzzy takes "
                         f"it), got {a.ndim}-D")
    if a.dtype.kind not in "fiub":
        raise TypeError(f"data must hold numbers, not {a.dtype}")
    return np.ascontiguousarray(a.T, dtype=np.float64)


def cmeans(data, c, m, error, maxiter, metric="euclidean", init=None, seed=None, *, ctx=None,
           backend=None):
    """Fuzzy c-means with scikit-fuzzy's signature and results.

    ``skfuzzy.cluster.cmeans(data, c, m, error, maxiter, init=None, seed=None)``
    becomes ``haze.cmeans(...)`` with the same arguments: a scikit-fuzzy
    program moves to haze by changing its import. The 6th argument may be
    scikit-fuzzy 0.4.2's ``metric`` ("euclidean") or the older ``init``.

    Parameters
    ----------
    data : array (S, N)
        N points of S features, one point per *column* (scikit-fuzzy's
        layout; transposed into haze's points x features with one copy).
        Computed in float64.
    c : int
        Number of clusters.
    m : float
        Fuzzifier (> 1).
    error : float
        Stop when ||U(k) - U(k-1)||_F < error.
    maxiter : int
        As scikit-fuzzy: at most ``maxiter - 1`` iterations run (>= 2).
    init : array (c, N) or None
        Initial memberships. None: scikit-fuzzy's random start, drawn as it
        draws it (NumPy's legacy generator, seeded by ``seed``), so that the
        same seed starts from the same memberships.
    seed : int or None
        Seed of the random start.
    ctx, backend
        Where haze computes (keyword only).

    Returns
    -------
    cntr : array (c, S)
        Cluster centres.
    u : array (c, N)
        Final memberships.
    u0 : array (c, N)
        Initial memberships.
    d : array (c, N)
        Euclidean distances of each point to each final centre.
    jm : array (p,)
        Objective per iteration.
    p : int
        Iterations run.
    fpc : float
        Fuzzy partition coefficient of u.

    See Also
    --------
    FCM : the estimator, with k-means++ starts, Gustafson-Kessel, float32,
        validity indices and plots.
    """
    init = _split_metric_init(metric, init)
    x = _data_T(data)
    n = x.shape[0]
    if not _is_int(c) or c < 2:
        raise ValueError(f"c must be an int >= 2, got {c!r}")
    if not _is_int(maxiter) or maxiter < 2:
        raise ValueError(f"maxiter must be an int >= 2 (scikit-fuzzy runs maxiter - 1 "
                         f"iterations), got {maxiter!r}")
    if init is None:
        u0 = _skfuzzy_u0(int(c), n, seed)
    else:
        u0 = np.asarray(init)
        if u0.shape != (c, n):
            raise ValueError(f"init has shape {u0.shape}, where c x N = ({c}, {n}) "
                             "memberships are needed")
    fcm = FCM(n_clusters=int(c), m=m, max_iter=int(maxiter) - 1, tol=error,
              init=np.ascontiguousarray(u0.T, dtype=np.float64), precision="double",
              backend="auto" if backend is None else backend, ctx=ctx)
    with warnings.catch_warnings():  # scikit-fuzzy does not warn; fpc tells
        warnings.simplefilter("ignore", DegenerateClusteringWarning)
        fcm.fit(x)
    cntr = fcm.cluster_centers_
    return (cntr, fcm.u_.T, u0, _distances(x, cntr), fcm.objective_, fcm.n_iter_,
            fcm.partition_coefficient_)


def cmeans_predict(test_data, cntr_trained, m, error, maxiter, metric="euclidean", init=None,
                   seed=None, *, ctx=None, backend=None):
    """Memberships of new points for trained centres, with scikit-fuzzy's
    ``cmeans_predict`` signature and results: ``u, u0, d, jm, p, fpc``.

    test_data is S x N (features x points), cntr_trained c x S. The centres
    stay fixed, so the memberships are those of one step (scikit-fuzzy
    iterates, and stops at its second iteration, when they no longer
    change); ``jm`` and ``p`` are what its loop reports from the same start
    (``init``, or its random start from ``seed``).
    """
    init = _split_metric_init(metric, init)
    x = _data_T(test_data)
    cntr = np.ascontiguousarray(cntr_trained, dtype=np.float64)
    if cntr.ndim != 2 or cntr.shape[1] != x.shape[1]:
        raise ValueError(f"cntr_trained must be c x S = (c, {x.shape[1]}), got {cntr.shape}")
    c, n = cntr.shape[0], x.shape[0]
    if not _is_int(maxiter) or maxiter < 2:
        raise ValueError(f"maxiter must be an int >= 2, got {maxiter!r}")
    if not _is_real(m) or not (1 < m < math.inf):
        raise ValueError(f"m must be a finite number > 1, got {m!r}")
    u0 = _skfuzzy_u0(c, n, seed) if init is None else np.asarray(init, dtype=np.float64)
    if u0.shape != (c, n):
        raise ValueError(f"init has shape {u0.shape}, where ({c}, {n}) is needed")
    h = _ctx(ctx, backend)
    model = _ext.fcm_model_new(h._h, cntr, float(m), None)
    u = np.empty((n, c))
    _ext.fcm_predict(h._h, model, x, _ext.F64, u)
    d = _distances(x, cntr)
    eps = np.finfo(np.float64).eps
    start = np.fmax(u0 / u0.sum(axis=0, keepdims=True), eps)
    jm = [((start ** m) * d ** 2).sum()]
    p = 1
    if np.linalg.norm(u.T - start) >= error and maxiter - 1 >= 2:
        jm.append(((np.fmax(u.T, eps) ** m) * d ** 2).sum())
        p = 2
    fpc = float((u * u).sum() / n)
    return u.T, u0, d, np.array(jm), p, fpc
