"""The static rounding-error analyser: Gappa and FPCore scripts.

A script defines exact and rounded expressions, the ranges of its inputs
and goals such as ``y_float - y_exact in ?``; the analyser encloses every
goal with bounds rounded outward, so that no real execution can leave them
(``haze prec`` on the command line; docs/prec.md for the language).

    >>> import haze
    >>> r = haze.analyse("examples/prec/fixed_point.g")
    >>> r.goals[0].bound
    (-0.21875, 0.21875)

A script is given as text or as a file (a path, or a string naming an
existing file or ending in ``.g``/``.gappa``/``.fpcore``); its language is
told by its first token, as the library does (FPCore starts with ``(``).
"""

import math
import os
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from . import _ext
from ._core import _ctx

__all__ = ["PrecScript", "PrecResult", "PrecGoal", "PrecBoxes", "analyse", "analyze"]

_ENGINES = {"ia": "ia", "interval": "ia", "intervals": "ia", "gappa": "ia",
            "aa": "aa", "affine": "aa", "both": "both"}
_SCRIPT_EXTS = (".g", ".gappa", ".fpcore")


def _engine(e):
    try:
        return _ENGINES[str(e).lower()]
    except KeyError:
        raise ValueError(f"engine must be 'interval' ('ia'), 'affine' ('aa') or 'both', "
                         f"not {e!r}") from None


def _detect(text):
    """'fpcore' when the first token after comments of either language is '(',
    else 'gappa' (the library's rule)."""
    for line in text.splitlines():
        s = line.strip()
        if not s or s[0] in "#;":
            continue
        return "fpcore" if s[0] == "(" else "gappa"
    return "gappa"


def _dyadic(s):
    """Gappa's dyadic notation ("-9b-5" is -9 * 2^-5) as a Fraction (or +-inf)."""
    if s in ("inf", "-inf"):
        return math.inf if s == "inf" else -math.inf
    m, _, e = s.partition("b")
    return Fraction(int(m)) * (Fraction(2) ** int(e or 0))


@dataclass(frozen=True)
class PrecGoal:
    """One goal of an analysis.

    Attributes
    ----------
    text : str
        The goal as written, e.g. ``"o_fx - o_m in ?"``.
    lo, hi : float
        The enclosure, rounded outward to double (+-inf when unbounded).
    lo_exact, hi_exact : str
        Its bounds exactly, in Gappa's dyadic notation (``"-7b-5"``).
    lo_decimal, hi_decimal : str
        Its bounds in decimal, rounded outward (10 digits), as ``haze prec``
        prints them.
    has_bound : bool
        Whether the goal states bounds to prove.
    proved : bool or None
        With a stated bound: whether the enclosure lies inside it.
    want : tuple or None
        The stated bound (rounded inward), when there is one.
    relative, absolute : bool
        A relative-error goal (``a -/ b``), a goal on ``|e|``.
    """

    text: str
    lo: float
    hi: float
    lo_exact: str
    hi_exact: str
    lo_decimal: str
    hi_decimal: str
    has_bound: bool
    proved: object
    want: object
    relative: bool
    absolute: bool

    @property
    def name(self):
        """The goal's text (its name in tables)."""
        return self.text

    @property
    def bound(self):
        """``(lo, hi)``: the enclosure rounded outward to doubles."""
        return self.lo, self.hi

    @property
    def exact(self):
        """``(lo, hi)`` exactly, as :class:`fractions.Fraction` (or +-inf)."""
        return _dyadic(self.lo_exact), _dyadic(self.hi_exact)

    @property
    def magnitude(self):
        """``max(|lo|, |hi|)``: the error bound as one number."""
        return max(abs(self.lo), abs(self.hi))

    @classmethod
    def _from(cls, d):
        hb = bool(d["has_bound"])
        return cls(d["text"], d["lo"], d["hi"], d["lo_exact"], d["hi_exact"], d["lo_decimal"],
                   d["hi_decimal"], hb, bool(d["proved"]) if hb else None,
                   (d["want_lo"], d["want_hi"]) if hb else None, bool(d["relative"]),
                   bool(d["absolute"]))


class PrecBoxes:
    """The sub-boxes of a bisected analysis (``PrecResult.box_results``): box
    ``b`` has input ``v`` in ``[var_lo[b, v], var_hi[b, v]]`` (the whole
    range for inputs not bisected; bounds rounded outward, so that the boxes
    cover each range) and goal ``g`` in ``[lo[b, g], hi[b, g]]``. The boxes
    are numbered with the first input varying fastest (``splits[v]``
    sub-ranges of input ``v``); the join of the boxes' enclosures of a goal
    is the goal's enclosure exactly. Empty (``len`` 0) when the grid is too
    large to keep (more than 2^22 boxes times goals)."""

    def __init__(self, variables, goals, splits, var_lo, var_hi, lo, hi):
        self.variables = list(variables)
        self.goals = list(goals)
        self.splits = list(splits)
        self.var_lo, self.var_hi, self.lo, self.hi = var_lo, var_hi, lo, hi

    @classmethod
    def _from(cls, variables, goals, t):
        n, splits, vlo, vhi, lo, hi = t
        nv, ng = len(splits), len(goals)

        def arr(b, cols):
            return np.frombuffer(b, dtype=np.float64).reshape(n, cols).copy()
        return cls(variables, goals, splits, arr(vlo, nv), arr(vhi, nv), arr(lo, ng), arr(hi, ng))

    def __len__(self):
        return len(self.lo)

    def along(self, var=None, goal=0):
        """The enclosure of ``goal`` (index or text) over each sub-range of
        input ``var`` (name or index; default: the input with the most
        sub-ranges), the hull over the other inputs' sub-ranges: a tuple of
        arrays ``(var_lo, var_hi, lo, hi)``, one entry per sub-range."""
        if len(self) == 0:
            raise ValueError("the result keeps no sub-boxes")
        if var is None:
            v = int(np.argmax(self.splits))
        elif isinstance(var, str):
            if var not in self.variables:
                raise KeyError(f"no input {var!r} (the inputs: {', '.join(self.variables)})")
            v = self.variables.index(var)
        else:
            v = int(var)
        g = self.goals.index(goal) if isinstance(goal, str) else int(goal)
        n = self.splits[v]
        stride = int(np.prod(self.splits[:v], dtype=np.int64))
        k = (np.arange(len(self)) // stride) % n
        lo = np.full(n, np.inf)
        hi = np.full(n, -np.inf)
        np.minimum.at(lo, k, self.lo[:, g])
        np.maximum.at(hi, k, self.hi[:, g])
        first = np.arange(n) * stride
        return self.var_lo[first, v], self.var_hi[first, v], lo, hi

    def __repr__(self):
        return (f"haze.PrecBoxes({len(self)} boxes of "
                f"{' x '.join(f'{n} {v}' for v, n in zip(self.variables, self.splits) if n > 1) or 'one box'})")


class PrecResult:
    """The result of an analysis: ``goals`` (:class:`PrecGoal`), whether all
    stated bounds are ``all_proved``, the sub-``boxes`` analysed, the wall
    time in ``seconds``, the parser's ``notes`` (parts of the script not
    used: show them as warnings), the ``engine`` and the ``script``'s name.

    ``box_results`` (:class:`PrecBoxes`) holds the enclosure of every
    sub-box of the bisection grid. :meth:`plot` draws the goals' bounds,
    :meth:`plot_boxes` a goal's bound per sub-range of a bisected input.
    """

    def __init__(self, script, engine, boxes, seconds, all_proved, goals, notes,
                 box_results=None):
        self.box_results = box_results
        self.script = script
        self.engine = engine
        self.boxes = boxes
        self.seconds = seconds
        self.all_proved = all_proved
        self.goals = goals
        self.notes = notes

    def __iter__(self):
        return iter(self.goals)

    def __len__(self):
        return len(self.goals)

    def __getitem__(self, i):
        if isinstance(i, str):
            for g in self.goals:
                if g.text == i:
                    return g
            raise KeyError(i)
        return self.goals[i]

    def to_text(self, seconds=True):
        """The result as ``haze prec`` prints it (without the header line
        when ``seconds`` is False, so that two runs compare equal)."""
        lines = []
        if seconds:
            n = self.boxes
            lines.append(f"# {self.script}: engine {self.engine}, {n} sub-box"
                         f"{'' if n == 1 else 'es'}, {self.seconds:.3f} s")
        for g in self.goals:
            lines.append(g.text)
            lines.append(f"    in [{g.lo_decimal}, {g.hi_decimal}]")
            lines.append(f"    exact [{g.lo_exact}, {g.hi_exact}]")
            if g.has_bound:
                lines.append("    proved" if g.proved else "    NOT PROVED")
        return "\n".join(lines) + "\n"

    def to_dict(self):
        """The result as ``haze prec --json`` writes it (a dict: script,
        engine, boxes, seconds, all_proved, warnings, goals with goal, lo,
        hi, lo_exact, hi_exact and, for stated bounds, proved; when
        bisecting, box_results: each box's bisected ranges and enclosures)."""
        goals = []
        for g in self.goals:
            d = {"goal": g.text, "lo": g.lo_decimal, "hi": g.hi_decimal, "lo_exact": g.lo_exact,
                 "hi_exact": g.hi_exact}
            if g.has_bound:
                d["proved"] = g.proved
            goals.append(d)
        d = {"script": self.script, "engine": self.engine, "boxes": self.boxes,
             "seconds": self.seconds, "all_proved": self.all_proved,
             "warnings": list(self.notes), "goals": goals}
        b = self.box_results
        if b is not None and len(b) > 1:  # bisected: each box, as --json lists them

            def num(v):
                return float(v) if math.isfinite(v) else ("inf" if v > 0 else "-inf")
            cut = [v for v, n in enumerate(b.splits) if n > 1]
            d["box_results"] = [
                {"box": k,
                 "ranges": {b.variables[v]: [num(b.var_lo[k, v]), num(b.var_hi[k, v])]
                            for v in cut},
                 "enclosures": [[num(b.lo[k, g]), num(b.hi[k, g])] for g in range(len(b.goals))]}
                for k in range(len(b))]
        return d

    def __repr__(self):
        head = (f"haze.PrecResult({self.script}: engine {self.engine}, {self.boxes} sub-box"
                f"{'' if self.boxes == 1 else 'es'}, {self.seconds:.3f} s, "
                f"{'all proved' if self.all_proved else 'NOT all proved'})")
        w = max([4] + [len(g.text) for g in self.goals])
        w = min(w, 60)
        rows = [f"  {'goal':<{w}}  {'lower':>16}  {'upper':>16}  status"]
        for g in self.goals:
            t = g.text if len(g.text) <= w else g.text[:w - 3] + "..."
            st = "" if not g.has_bound else ("proved" if g.proved else "NOT PROVED")
            rows.append(f"  {t:<{w}}  {g.lo_decimal:>16}  {g.hi_decimal:>16}  {st}".rstrip())
        for n in self.notes:
            rows.append(f"  warning: {n}")
        return head + "\n" + "\n".join(rows)

    def plot(self, ax=None, log=True):
        """Draws each goal's bound: with ``log`` (the default) the error bound
        ``max(|lo|, |hi|)`` on a logarithmic axis, the stated bound (where
        there is one) marked green when proved and red otherwise; without,
        each goal's enclosure ``[lo, hi]`` as an interval. Needs matplotlib;
        returns the Axes.

        For the bound per sub-range of a bisected input see
        :meth:`plot_boxes`."""
        try:
            import matplotlib.pyplot as plt
        except ImportError as e:  # pragma: no cover - depends on the machine
            raise ImportError("PrecResult.plot needs matplotlib (pip install matplotlib)") from e
        if ax is None:
            _, ax = plt.subplots()
        goals = self.goals
        if not goals:
            raise ValueError("the result has no goal to draw")
        y = np.arange(len(goals))
        names = [g.text if len(g.text) <= 32 else g.text[:29] + "..." for g in goals]
        if log:
            mags = np.array([g.magnitude for g in goals])
            ok = np.isfinite(mags) & (mags > 0)
            wants = [_want_mag(g) for g in goals if g.has_bound]
            pos = [m for m in list(mags[ok]) + wants if np.isfinite(m) and m > 0]
            floor = min(pos) / 10 if pos else 1e-300
            ax.hlines(y[ok], floor, mags[ok], colors="tab:blue", linewidth=6)
            for i, g in enumerate(goals):
                if g.has_bound:
                    w = _want_mag(g)
                    if np.isfinite(w) and w > 0:
                        ax.plot([w], [i], "|", color="tab:green" if g.proved else "tab:red",
                                markersize=14, markeredgewidth=2)
            ax.set_xscale("log")
            ax.set_xlabel("error bound max(|lo|, |hi|)")
        else:
            lo = np.array([g.lo for g in goals])
            hi = np.array([g.hi for g in goals])
            ax.hlines(y, lo, hi, colors="tab:blue", linewidth=6)
            ax.axvline(0, color="0.6", linewidth=0.8)
            ax.set_xlabel("enclosure")
        ax.set_yticks(y)
        ax.set_yticklabels(names)
        ax.set_ylim(len(goals) - 0.5, -0.5)
        ax.set_title(f"{os.path.basename(str(self.script))} ({self.engine}, {self.boxes} boxes)")
        return ax


    def plot_boxes(self, goal=0, var=None, ax=None, log=None):
        """Draws the enclosure of ``goal`` over each sub-range of the bisected
        input ``var`` (default: the one with the most sub-ranges), as
        ``haze prec --bisect ... --plot`` does (the paper's Fig. 4): with
        ``log`` the bound ``max(|lo|, |hi|)`` as steps on a logarithmic axis,
        without it the enclosure as a bar per sub-range; ``log=None``
        chooses the log axis when the bound spans two decades or more.
        Needs matplotlib; returns the Axes."""
        try:
            import matplotlib.pyplot as plt
        except ImportError as e:  # pragma: no cover - depends on the machine
            raise ImportError("PrecResult.plot_boxes needs matplotlib") from e
        b = self.box_results
        if b is None or len(b) == 0:
            raise ValueError("the result keeps no sub-boxes to draw")
        xlo, xhi, lo, hi = b.along(var, goal)
        mag = np.maximum(np.abs(lo), np.abs(hi))
        if log is None:
            ok = np.all(np.isfinite(mag) & (mag > 0))
            log = bool(ok and mag.max() >= 100 * mag.min())
        if ax is None:
            _, ax = plt.subplots()
        if log:
            ax.stairs(mag, np.append(xlo, xhi[-1]), color="tab:blue", linewidth=2,
                      label=self.engine)
            ax.set_yscale("log")
            ax.set_ylabel("error bound max(|lo|, |hi|)")
        else:
            ax.bar(xlo, hi - lo, width=xhi - xlo, bottom=lo, align="edge",
                   color=(0.12, 0.47, 0.71, 0.3), edgecolor="tab:blue", linewidth=1.5,
                   label=self.engine)
            ax.set_ylabel("enclosure")
        v = b.variables[int(np.argmax(b.splits))] if var is None else (
            var if isinstance(var, str) else b.variables[var])
        g = self[goal] if isinstance(goal, str) else self.goals[goal]
        ax.set_xlabel(v)
        ax.set_title(f"{os.path.basename(str(self.script))}: {g.text}")
        return ax


def _want_mag(g):
    """The largest finite end of a goal's stated bound, in absolute value."""
    ends = [abs(v) for v in g.want if math.isfinite(v)]
    return max(ends) if ends else math.inf


def _is_path(script):
    if isinstance(script, os.PathLike):
        return True
    if isinstance(script, str) and "\n" not in script:
        if script.endswith(_SCRIPT_EXTS):
            return True
        return os.path.isfile(script)
    return False


class PrecScript:
    """A parsed script (parsed once; analyse it with several engines or
    settings, or execute it at points).

    Parameters
    ----------
    script : str or path
        The script's text, or its file (see the module's text).
    name : str, optional
        The name messages give for a text (``"<script>"`` by default).
    format : {"auto", "gappa", "fpcore"}
        The library reads the language from the first token; a named format
        that does not match it is a ValueError.
    unroll : int
        FPCore ``while`` loops: 0 rejects them, N unrolls them (at most N
        iterations each; ``haze prec --unroll`` uses 10000).
    max_ops : int
        At most this many operations once loops are unrolled (0: 10^6).
    bisect : dict, optional
        ``{"x": n}``: split input ``x`` into ``n`` equal sub-ranges
        (replaces the script's ``$ x in n;`` hint).
    refine : int, optional
        Adaptive refinement: at most this many extra box analyses (0: off;
        None: the library's default, 256 for scripts of at most 512 nodes).
    ctx, backend
        Where the analyses run (sub-boxes over the CPU threads, or the GPU
        where the CUDA backend supports the script).

    Raises :class:`haze.ParseError` (with file:line:col) for a bad script.
    """

    def __init__(self, script, *, name=None, format="auto", unroll=0, max_ops=0, bisect=None,
                 refine=None, ctx=None, backend=None):
        self._ctx = _ctx(ctx, backend)
        self._unroll, self._max_ops = int(unroll), int(max_ops)
        if _is_path(script):
            self.path = os.fspath(script)
            self.name = self.path
            self._text = None
            self._h = _ext.prec_load(self._ctx._h, self.path, self._unroll, self._max_ops)
            try:
                with open(self.path, encoding="utf-8", errors="replace") as f:
                    detected = _detect(f.read())
            except OSError:
                detected = "gappa"
        else:
            if isinstance(script, bytes):
                script = script.decode("utf-8")
            if not isinstance(script, str):
                raise TypeError(f"script must be text or a path, not {type(script).__name__}")
            self.path = None
            self.name = "<script>" if name is None else str(name)
            self._text = script
            self._h = _ext.prec_parse(self._ctx._h, script, self.name, self._unroll,
                                      self._max_ops)
            detected = _detect(script)
        fmt = str(format).lower()
        if fmt not in ("auto", "gappa", "fpcore"):
            raise ValueError(f"format must be 'auto', 'gappa' or 'fpcore', not {format!r}")
        if fmt != "auto" and fmt != detected:
            raise ValueError(f"{self.name}: format={format!r}, but the script reads as {detected} "
                             f"(FPCore starts with '(')")
        self.format = detected
        self._bisect = dict(bisect or {})
        self._refine = refine
        self._apply(self._h, self._bisect, refine)

    def _apply(self, h, bisect, refine):
        for var, n in bisect.items():
            _ext.prec_set_bisect(self._ctx._h, h, str(var), int(n))
        if refine is not None:
            _ext.prec_set_refine(self._ctx._h, h, int(refine))

    def _fresh(self):
        if self._text is None:
            return _ext.prec_load(self._ctx._h, self.path, self._unroll, self._max_ops)
        return _ext.prec_parse(self._ctx._h, self._text, self.name, self._unroll, self._max_ops)

    @property
    def variables(self):
        """Names of the inputs, in the order :meth:`eval` takes them."""
        return [v[0] for v in _ext.prec_info(self._ctx._h, self._h)[0]]

    @property
    def ranges(self):
        """``{input: (lo, hi)}`` from the hypotheses."""
        return {v[0]: (v[1], v[2]) for v in _ext.prec_info(self._ctx._h, self._h)[0]}

    @property
    def goal_count(self):
        """Number of goals."""
        return _ext.prec_info(self._ctx._h, self._h)[1]

    @property
    def notes(self):
        """Parts of the script the parser read but does not use (warnings)."""
        return list(_ext.prec_info(self._ctx._h, self._h)[2])

    def analyse(self, engine="both", *, bisect=None, refine=None):
        """Analyses the script.

        Parameters
        ----------
        engine : {"both", "interval" or "ia", "affine" or "aa"}
            Intervals with Gappa's rewriting, affine forms, or both (the
            tighter enclosure at every node; the command line's default).
        bisect, refine
            As the constructor's, for this analysis only (on top of the
            script's own settings).

        Returns
        -------
        PrecResult

        Raises :class:`haze.DomainError` (with line and column) for a division
        by a range containing zero and the like.
        """
        e = _engine(engine)
        h = self._h
        if bisect or refine is not None:
            h = self._fresh()
            self._apply(h, {**self._bisect, **dict(bisect or {})},
                        self._refine if refine is None else refine)
        eng, boxes, seconds, proved, goals, per_box = _ext.prec_analyse(self._ctx._h, h, e)
        goals = [PrecGoal._from(g) for g in goals]
        return PrecResult(self.name, eng, boxes, seconds, bool(proved), goals, self.notes,
                          PrecBoxes._from(self.variables, [g.text for g in goals], per_box))

    analyze = analyse

    def eval(self, x, prec_bits=256):
        """Executes the script's arithmetic at points: every rounding as the
        script says, exact operations with ``prec_bits`` bits (MPFR; at
        least 64). ``x``: one point (a sequence of the inputs in
        :attr:`variables` order, or a dict by name) or an array of points
        (rows). Returns each goal's value (relative error for relative goals,
        ``|e|`` for ``|e|`` goals) rounded to nearest: a 1-D array for one
        point, rows x goals otherwise."""
        names = self.variables
        if isinstance(x, dict):
            missing = [n for n in names if n not in x]
            if missing:
                raise ValueError(f"no value for the input(s) {', '.join(missing)}")
            x = [x[n] for n in names]
        a = np.asarray(x, dtype=np.float64)
        one = a.ndim <= 1
        a = np.ascontiguousarray(a.reshape(1, -1) if one else a)
        if a.ndim != 2 or a.shape[1] != len(names):
            raise ValueError(f"expected points of {len(names)} inputs ({', '.join(names)}), "
                             f"got shape {np.shape(x)}")
        out = np.empty((a.shape[0], self.goal_count))
        _ext.prec_eval(self._ctx._h, self._h, a, int(prec_bits), out)
        return out[0] if one else out

    def __repr__(self):
        r = self.ranges
        ins = ", ".join(f"{k} in [{lo!r}, {hi!r}]" for k, (lo, hi) in r.items())
        return (f"haze.PrecScript({self.name}: {self.format}, {len(r)} input(s): {ins}; "
                f"{self.goal_count} goal(s))")


def analyse(script, engine="both", *, bisect=None, refine=None, format="auto", unroll=0,
            max_ops=0, name=None, ctx=None, backend=None):
    """Analyses a Gappa or FPCore script (text or file) in one call:
    ``PrecScript(script, ...).analyse(engine)``; see :class:`PrecScript`.

    Returns
    -------
    PrecResult
    """
    s = PrecScript(script, name=name, format=format, unroll=unroll, max_ops=max_ops,
                   bisect=bisect, refine=refine, ctx=ctx, backend=backend)
    return s.analyse(engine)


analyze = analyse
