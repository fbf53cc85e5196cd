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

__all__ = ["PrecScript", "PrecResult", "PrecGoal", "analyse", "analyze"]

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


class PrecResult:
    """The result of an analysis: ``goals`` (:class:`PrecGoal`), whether all
    stated bounds are ``all_proved``, the sub-``boxes`` analysed, the wall
    time in ``seconds``, the parser's ``notes`` (parts of the script not
    used: show them as warnings), the ``engine`` and the ``script``'s name.

    :meth:`plot` draws the goals' bounds (the C library gives the joined
    enclosure of every goal, not that of each sub-box).
    """

    def __init__(self, script, engine, boxes, seconds, all_proved, goals, notes):
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
        hi, lo_exact, hi_exact and, for stated bounds, proved)."""
        goals = []
        for g in self.goals:
            d = {"goal": g.text, "lo": g.lo_decimal, "hi": g.hi_decimal, "lo_exact": g.lo_exact,
                 "hi_exact": g.hi_exact}
            if g.has_bound:
                d["proved"] = g.proved
            goals.append(d)
        return {"script": self.script, "engine": self.engine, "boxes": self.boxes,
                "seconds": self.seconds, "all_proved": self.all_proved,
                "warnings": list(self.notes), "goals": goals}

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

        The C library gives the joined enclosure of every goal, not the
        enclosure of each sub-box of a bisected run, so there is no plot of
        the bound per sub-range."""
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
        eng, boxes, seconds, proved, goals = _ext.prec_analyse(self._ctx._h, h, e)
        return PrecResult(self.name, eng, boxes, seconds, bool(proved),
                          [PrecGoal._from(g) for g in goals], self.notes)

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
