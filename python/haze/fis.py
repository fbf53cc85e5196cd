"""Fuzzy inference systems: Mamdani and Sugeno models from MATLAB/Octave
``.fis`` files and fuzzylite ``.fll`` engines, or built in code, evaluated in
batches on the CPU or the GPU.

>>> import haze
>>> tipper = haze.FIS.load("tipper.fis")
>>> tipper.eval([[2, 1], [7, 8]])          # one row per sample
array([[ 7.01...],
       [20.34...]])

A system built in code is written as MATLAB ``.fis`` text and read by the
library's own reader, so it means exactly what the same file means:

>>> fis = haze.FIS("tipper")
>>> service = fis.add_input("service", (0, 10))
>>> service.add_term("poor", "gaussmf", [1.5, 0])
...
>>> fis.add_rule("if service is poor or food is rancid then tip is cheap")

The evaluation follows MATLAB's ``evalfis`` by default (``mode="matlab"``,
101 points of the output range); ``mode`` and ``points`` change it
(``"octave"``, ``"fuzzylite"``, ``"exact"``: see the library's docs/fis.md).
"""

import math
import numbers
import os
import re
import tempfile
import threading
from contextlib import contextmanager
from collections import namedtuple
from collections.abc import Mapping

import numpy as np

from . import _ext
from ._core import (HazeError, MismatchError, ParseError, UnsupportedError, _as_matrix, _ctx,
                    _fspath)

__all__ = ["FIS", "Variable", "Term", "RuleFiring"]

MODES = ("matlab", "octave", "fuzzylite", "exact")


class Term(namedtuple("Term", "name type params")):
    """A membership function (term) of a variable: its name, type (MATLAB's
    name such as ``"trimf"``, or fuzzylite's such as ``"Triangle"``) and
    parameters (a tuple, in the file's order)."""

    __slots__ = ()

    def __repr__(self):
        return f"Term({self.name!r}, {self.type!r}, {list(self.params)!r})"


class RuleFiring(namedtuple("RuleFiring", "inputs firing ys implied aggregate value")):
    """One inference step by step (:meth:`FIS.explain`), like MATLAB's ruleview.

    ``firing[r]``: degree of rule r after its weight; for a Mamdani output,
    ``implied[r]`` the set rule r implies over the points ``ys`` of the
    output range and ``aggregate`` their aggregation (None for a Sugeno
    output); ``value``: the output as :meth:`FIS.eval` computes it.
    """

    __slots__ = ()

    def __repr__(self):
        f = np.array2string(self.firing, precision=4, separator=", ")
        return (f"RuleFiring(inputs={list(self.inputs)}, firing={f}, value={self.value!r}"
                + (f", {len(self.ys)} points" if self.ys is not None else "") + ")")


_HEDGES = {"very": 2, "extremely": 3}


class Variable:
    """An input or output variable of a :class:`FIS`.

    A view: it reads the system each time, so it follows the system's
    changes. ``name``, ``range`` (lo, hi), ``terms`` (a list of :class:`Term`);
    :meth:`add_term` adds a membership function.
    """

    def __init__(self, fis, is_output, index):
        self._fis = fis
        self.is_output = bool(is_output)
        self.index = int(index)

    def _data(self):
        return self._fis._var_data(self.is_output, self.index)

    @property
    def name(self):
        return self._data()[0]

    @property
    def range(self):
        d = self._data()
        return (d[1], d[2])

    @property
    def terms(self):
        return list(self._data()[3])

    def term(self, name):
        """The term called ``name``, or number ``name`` (0-based)."""
        terms = self.terms
        if isinstance(name, numbers.Integral):
            return terms[name]
        for t in terms:
            if t.name == name:
                return t
        raise KeyError(f"{self.name} has no term {name!r} (it has "
                       f"{', '.join(t.name for t in terms) or 'none'})")

    def add_term(self, name, type, params):
        """Adds a membership function, e.g. ``add_term("poor", "trimf", [0, 0, 5])``.

        ``type`` is a MATLAB membership function (trimf, trapmf, gaussmf,
        gauss2mf, gbellmf, sigmf, dsigmf, psigmf, smf, zmf, pimf, linsmf,
        linzmf; constant and linear for Sugeno outputs); the library checks it
        and the number of parameters when the system is next used.
        Returns the variable (so calls chain).
        """
        self._fis._add_term(self.is_output, self.index, name, type, params)
        return self

    def membership(self, term, x):
        """Degrees of membership of the points ``x`` in ``term`` (a name or a
        0-based number), computed by the library as the evaluation does (like
        MATLAB's evalmf)."""
        terms = self.terms
        if isinstance(term, numbers.Integral):
            k = int(term)
            if not 0 <= k < len(terms):
                raise IndexError(f"{self.name} has no term {k} (it has {len(terms)})")
        else:
            k = terms.index(self.term(term))
        xs = np.ascontiguousarray(np.asarray(x, dtype=np.float64).reshape(-1))
        mu = np.empty_like(xs)
        f = self._fis
        h = f._handle()
        with f._reading():
            _ext.fis_mf_eval(f._default_ctx()._h, h, int(self.is_output), self.index, k, xs, mu)
        return mu.reshape(np.shape(x))

    def __repr__(self):
        name, lo, hi, terms = self._data()
        kind = "output" if self.is_output else "input"
        ts = ", ".join(t.name for t in terms)
        return f"haze.fis.Variable({kind} {name!r}, range=[{lo:g}, {hi:g}], terms=[{ts}])"


def _num(v):
    """A finite number written so that it reads back as the same double."""
    v = float(v)
    if not math.isfinite(v):
        raise ValueError(f"{v!r}: parameters and ranges must be finite")
    return repr(v)


def _check_name(s, what):
    s = str(s)
    if not s or any(c in s for c in "'\n\r\0") or s != s.strip():
        raise ValueError(f"{what} {s!r}: a name must be non-empty, without quotes, line breaks "
                         "or surrounding blanks")
    return s


class FIS:
    """A fuzzy inference system.

    ``FIS(name, type="mamdani", ...)`` starts an empty system to build in
    code (:meth:`add_input`, :meth:`add_output`, :meth:`add_rule`);
    :meth:`load` and :meth:`parse` read ``.fis`` / ``.fll`` models.

    Parameters
    ----------
    name : str
        The system's name.
    type : {"mamdani", "sugeno"}
    and_method, or_method : str
        AND and OR operators (``"min"``, ``"prod"``; ``"max"``, ``"probor"``).
    imp_method, agg_method : str
        Implication (``"min"``, ``"prod"``) and aggregation (``"max"``,
        ``"sum"``, ``"probor"``).
    defuzz : str
        Defuzzification: ``"centroid"``, ``"bisector"``, ``"mom"``, ``"som"``,
        ``"lom"`` (Mamdani), ``"wtaver"``, ``"wtsum"`` (Sugeno). The default is
        centroid for Mamdani and wtaver for Sugeno.
    mode : {"matlab", "octave", "fuzzylite", "exact"} or None
        Sampling mode of the evaluation (None: the library's default).
    points : int or None
        Points of a Mamdani output's range (None: the default, 101).
    ctx : Context, optional
        Context used for messages when reading and building (evaluation
        takes its own ``ctx=``/``backend=``).

    Notes
    -----
    A system may be evaluated by several threads at once; changing it
    (``mode``, ``points``, ``add_*``) must not overlap with other calls on it.
    """

    def __init__(self, name="fis", type="mamdani", and_method="min", or_method="max",
                 imp_method=None, agg_method=None, defuzz=None, mode=None, points=None,
                 ctx=None):
        t = str(type).lower()
        if t not in ("mamdani", "sugeno"):
            raise ValueError(f"type must be 'mamdani' or 'sugeno', not {type!r}")
        sugeno = t == "sugeno"
        self._h = None
        self._ctx = ctx
        self._spec = {
            "name": _check_name(name, "system name"),
            "type": t,
            "methods": [str(and_method), str(or_method),
                        str(imp_method or ("prod" if sugeno else "min")),
                        str(agg_method or ("sum" if sugeno else "max")),
                        str(defuzz or ("wtaver" if sugeno else "centroid"))],
            "vars": [[], []],
            "rules": [],
        }
        self._mode = None
        self._points = None
        self._nan = False
        self._lock = threading.Lock()
        self._busy = 0
        self._source = None
        if mode is not None:
            self.mode = mode
        if points is not None:
            self.points = points

    # ------------------------------------------------------------ reading

    @classmethod
    def _from_handle(cls, h, ctx, source=None):
        self = cls.__new__(cls)
        self._h = h
        self._ctx = ctx
        self._spec = None
        self._mode = None
        self._points = None
        self._nan = False
        self._lock = threading.Lock()
        self._busy = 0
        self._source = source
        return self

    @classmethod
    def load(cls, path, ctx=None):
        """Reads a MATLAB/Octave ``.fis`` file or (by the extension) a
        fuzzylite ``.fll`` engine. A malformed file raises
        :class:`haze.ParseError` naming file, line and column; what the
        reader accepted but found odd is in :attr:`warnings`."""
        c = _ctx(ctx)
        path = _fspath(path)
        return cls._from_handle(_ext.fis_load(c._h, path), ctx, path)

    @classmethod
    def parse(cls, text, format="fis", name=None, ctx=None):
        """Reads a model from text: ``format="fis"`` (MATLAB) or ``"fll"``
        (fuzzylite). ``name`` is used in messages (default ``"<text>.fis"``)."""
        fmt = str(format).lower().lstrip(".")
        if fmt not in ("fis", "fll"):
            raise ValueError(f"format must be 'fis' or 'fll', not {format!r}")
        if isinstance(text, bytes):
            text = text.decode("utf-8")
        c = _ctx(ctx)
        nm = str(name) if name is not None else f"<text>.{fmt}"
        return cls._from_handle(_ext.fis_parse(c._h, str(text), nm, fmt == "fll"), ctx,
                                "x." + fmt)

    def save(self, path):
        """Writes the system: a fuzzylite ``.fll`` engine when ``path`` ends in
        ``.fll`` (Mamdani resolution: :attr:`points`), MATLAB ``.fis``
        otherwise. The file is replaced only once complete; what the format
        cannot say raises :class:`haze.UnsupportedError`."""
        h = self._handle()
        with self._reading():
            _ext.fis_save(self._default_ctx()._h, h, _fspath(path))

    def to_text(self, format="fis"):
        """The system as ``.fis`` (or ``format="fll"``) text."""
        fmt = str(format).lower().lstrip(".")
        if fmt not in ("fis", "fll"):
            raise ValueError(f"format must be 'fis' or 'fll', not {format!r}")
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "model." + fmt)
            try:
                self.save(p)
            except HazeError as e:  # name the system, not the scratch file
                raise type(e)(str(e).replace(p, f"{self.name}.{fmt}"), e.status) from None
            with open(p, encoding="utf-8") as fp:
                return fp.read()

    # -------------------------------------------------------- the handle

    def _default_ctx(self):
        return _ctx(self._ctx)

    def _handle(self):
        """The library's system, made from the specification built in code
        when it changed."""
        if self._h is None:
            text = self._fis_text()
            c = self._default_ctx()
            name = self._spec["name"] + ".fis"
            try:
                h = _ext.fis_parse(c._h, text, name, False)
            except HazeError as e:
                raise _explain_built(e, name, text) from None
            self._apply_settings(h)
            self._h = h
        return self._h

    @contextmanager
    def _reading(self):
        """Marks a call that reads the library's system without the GIL (an
        evaluation): the settings cannot change under it."""
        with self._lock:
            self._busy += 1
        try:
            yield
        finally:
            with self._lock:
                self._busy -= 1

    def _change(self, fn):
        """Runs fn, which changes the library's system in place, when no other
        thread reads it (the library's rule: a change must not overlap)."""
        with self._lock:
            if self._busy:
                raise RuntimeError(f"{self.name}: the system is in use by another thread; "
                                   "change it when no evaluation runs")
            fn()

    def _apply_settings(self, h):
        c = self._default_ctx()
        if self._mode is not None:
            _ext.fis_set_mode(c._h, h, self._mode)
        if self._points is not None:
            _ext.fis_set_points(c._h, h, self._points)
        _ext.fis_set_nan(h, self._nan)

    def _edit(self):
        """The specification to change (read from the library's system, by
        way of its .fis text, for a system that was read)."""
        if self._spec is None:
            if self._is_fll():
                raise UnsupportedError(
                    f"{self.name}: a fuzzylite engine is not edited in code (its .fis text "
                    "would not keep its resolutions and activation); edit its text, "
                    "fis.to_text('fll'), and read it with FIS.parse(text, format='fll')")
            spec = _read_fis_text(self.to_text("fis"))
            # keep what the loaded system had for its own evaluation
            _, _, _, _, _, mode, points = _ext.fis_info(self._h)
            if self._mode is None:
                self._mode = mode
            if self._points is None:
                self._points = points
            self._spec = spec
        self._h = None
        return self._spec

    def _is_fll(self):
        return self._source is not None and str(self._source).lower().endswith(".fll")

    def _fis_text(self):
        s = self._spec
        vin, vout = s["vars"]
        lines = ["[System]", f"Name='{s['name']}'", f"Type='{s['type']}'", "Version=2.0",
                 f"NumInputs={len(vin)}", f"NumOutputs={len(vout)}",
                 f"NumRules={len(s['rules'])}"]
        for key, m in zip(("AndMethod", "OrMethod", "ImpMethod", "AggMethod", "DefuzzMethod"),
                          s["methods"]):
            lines.append(f"{key}='{m}'")
        for io, vs in enumerate((vin, vout)):
            for i, v in enumerate(vs):
                lines += ["", f"[{'Output' if io else 'Input'}{i + 1}]", f"Name='{v['name']}'",
                          f"Range=[{_num(v['range'][0])} {_num(v['range'][1])}]",
                          f"NumMFs={len(v['terms'])}"]
                for k, t in enumerate(v["terms"]):
                    ps = " ".join(_num(p) for p in t.params)
                    lines.append(f"MF{k + 1}='{t.name}':'{t.type}',[{ps}]")
        lines += ["", "[Rules]"]
        for ante, cons, w, conn in s["rules"]:
            a = " ".join(_code(c) for c in ante)
            b = " ".join(_code(c) for c in cons)
            lines.append(f"{a}, {b} ({_num(w)}) : {conn}")
        return "\n".join(lines) + "\n"

    def _var_data(self, io, i):
        if self._spec is not None:
            v = self._spec["vars"][io][i]
            return v["name"], float(v["range"][0]), float(v["range"][1]), list(v["terms"])
        name, lo, hi, terms = _ext.fis_var(self._default_ctx()._h, self._h, int(io), int(i))
        return name, lo, hi, [Term(n, t, tuple(p)) for n, t, p in terms]

    # ------------------------------------------------------- properties

    @property
    def name(self):
        """The system's name."""
        if self._spec is not None:
            return self._spec["name"]
        return _ext.fis_info(self._h)[0]

    @name.setter
    def name(self, value):
        self._edit()["name"] = _check_name(value, "system name")

    @property
    def type(self):
        """``"mamdani"`` or ``"sugeno"``."""
        if self._spec is not None:
            return self._spec["type"]
        return "sugeno" if _ext.fis_info(self._h)[1] else "mamdani"

    def _count(self, io):
        if self._spec is not None:
            return len(self._spec["vars"][io])
        return _ext.fis_info(self._h)[2 + io]

    @property
    def inputs(self):
        """The input variables (a list of :class:`Variable`)."""
        return [Variable(self, 0, i) for i in range(self._count(0))]

    @property
    def outputs(self):
        """The output variables (a list of :class:`Variable`)."""
        return [Variable(self, 1, i) for i in range(self._count(1))]

    @property
    def input_names(self):
        return [v.name for v in self.inputs]

    @property
    def output_names(self):
        return [v.name for v in self.outputs]

    def variable(self, name):
        """An input or output by name, or as ``"in1"``, ``"out2"``."""
        if isinstance(name, Variable):
            return name
        for io in (0, 1):
            for i in range(self._count(io)):
                if self._var_data(io, i)[0] == name:
                    return Variable(self, io, i)
        m = re.fullmatch(r"(in|out)(\d+)", str(name))
        if m:
            io, i = (m.group(1) == "out"), int(m.group(2)) - 1
            if 0 <= i < self._count(io):
                return Variable(self, io, i)
        raise KeyError(f"{self.name} has no variable {name!r} (inputs "
                       f"{', '.join(self.input_names)}; outputs {', '.join(self.output_names)})")

    @property
    def rules(self):
        """The rules in words, as MATLAB's showrule writes them:
        ``"If (service is poor) or (food is rancid) then (tip is cheap) (1)"``."""
        h = self._handle()
        c = self._default_ctx()
        return [_ext.fis_rule(c._h, h, r)[0] for r in range(_ext.fis_info(h)[4])]

    def rule_terms(self, r):
        """Rule ``r``'s terms: ``(inputs, outputs)``, each a tuple with k + 1
        for term k, -(k + 1) for NOT and 0 where the rule does not name the
        variable."""
        _, a, b = _ext.fis_rule(self._default_ctx()._h, self._handle(), int(r))
        return a, b

    @property
    def methods(self):
        """The operators: ``{"and", "or", "imp", "agg", "defuzz"}`` (the first
        output's aggregation and defuzzification for a fuzzylite engine)."""
        m = _ext.fis_methods(self._handle(), 0)
        return dict(zip(("and", "or", "imp", "agg", "defuzz"), m))

    @property
    def warnings(self):
        """The reader's warnings (``"FILE:LINE: text"``): what it accepted, as
        MATLAB or fuzzylite do, but found odd."""
        return list(_ext.fis_warnings(self._handle()))

    @property
    def mode(self):
        """Sampling mode: ``"matlab"`` (default for .fis), ``"octave"``,
        ``"fuzzylite"`` (default for .fll) or ``"exact"``."""
        return _ext.fis_info(self._handle())[5]

    @mode.setter
    def mode(self, value):
        v = str(value).lower()
        if v not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, not {value!r}")
        if self._h is not None:
            self._change(lambda: _ext.fis_set_mode(self._default_ctx()._h, self._h, v))
        self._mode = v

    @property
    def points(self):
        """Points of a Mamdani output's range (>= 2; default 101)."""
        return _ext.fis_info(self._handle())[6]

    @points.setter
    def points(self, value):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise TypeError(f"points must be an integer, not {type(value).__name__}")
        n = int(value)
        if self._h is not None:
            self._change(lambda: _ext.fis_set_points(self._default_ctx()._h, self._h, n))
        elif not 2 <= n <= 1000000:
            raise ValueError(f"points: expected 2 to 1000000, got {n}")
        self._points = n

    @property
    def nan_if_no_rule(self):
        """True: an output for which no rule fired is NaN (instead of the
        middle of its range)."""
        return self._nan

    @nan_if_no_rule.setter
    def nan_if_no_rule(self, on):
        v = bool(on)
        if self._h is not None:
            self._change(lambda: _ext.fis_set_nan(self._h, v))
        self._nan = v

    # ------------------------------------------------------- building

    def _add_var(self, io, name, range, terms):
        s = self._edit()
        name = _check_name(name, "variable name")
        if any(v["name"] == name for v in s["vars"][0] + s["vars"][1]):
            raise ValueError(f"{self.name} already has a variable {name!r}")
        lo, hi = (float(x) for x in range)
        _num(lo), _num(hi)
        if not lo < hi:
            raise ValueError(f"{name}: range [{lo:g}, {hi:g}] is empty")
        s["vars"][io].append({"name": name, "range": (lo, hi), "terms": []})
        # rules so far do not name the new variable
        for r in s["rules"]:
            r[io].append((0, 0))
        var = Variable(self, io, len(s["vars"][io]) - 1)
        if terms:
            items = terms.items() if isinstance(terms, Mapping) else terms
            for t in items:
                if isinstance(t, Mapping):
                    var.add_term(t["name"], t["type"], t["params"])
                elif len(t) == 2:
                    var.add_term(t[0], *t[1])
                else:
                    var.add_term(*t)
        return var

    def add_input(self, name, range, terms=None):
        """Adds an input over ``range`` = (lo, hi) and returns it
        (:class:`Variable`). ``terms``: optional list of ``(name, type,
        params)`` or dict ``{name: (type, params)}``."""
        return self._add_var(0, name, range, terms)

    def add_output(self, name, range, terms=None):
        """Adds an output over ``range`` = (lo, hi) and returns it; as
        :meth:`add_input`."""
        return self._add_var(1, name, range, terms)

    def _add_term(self, io, i, name, type, params):
        s = self._edit()
        v = s["vars"][io][i]
        name = _check_name(name, "term name")
        if any(t.name == name for t in v["terms"]):
            raise ValueError(f"{v['name']} already has a term {name!r}")
        ps = tuple(float(p) for p in np.asarray(params, dtype=np.float64).reshape(-1))
        for p in ps:
            _num(p)
        v["terms"].append(Term(name, _check_name(type, "membership function type"), ps))

    def add_rule(self, rule, then=None, weight=None, connective=None):
        """Adds a rule and returns the system (calls chain).

        ``rule`` is one of:

        * text: ``"if service is poor or food is rancid then tip is cheap"``
          (also as MATLAB's showrule writes it, with parentheses and the
          weight last, ``"... then (tip is cheap) (0.5)"``); ``is not`` and
          the hedges ``very`` and ``extremely`` are understood; a rule uses
          one connective (``and`` or ``or``) throughout;
        * a mapping ``{"service": "poor", "food": "rancid"}`` with ``then``
          ``{"tip": "cheap"}`` (terms by name or 1-based number, ``"not
          poor"`` or a negative number for NOT);
        * a tuple ``(if, then[, weight[, connective]])`` of such mappings;
        * MATLAB's rule row: a code per input and output, then the weight and
          the connective (1 and, 2 or), e.g. ``[1, 1, 1, 1, 2]``.

        ``weight`` (default 1) and ``connective`` (``"and"`` default, or
        ``"or"``) override what the rule says.
        """
        s = self._edit()
        vin, vout = s["vars"]
        w, conn = 1.0, None
        if isinstance(rule, str):
            ante, cons, w, conn = self._parse_rule(rule)
        elif isinstance(rule, Mapping):
            if then is None:
                raise TypeError("a rule given as a mapping needs then= (the conclusions)")
            ante = self._clauses(0, rule)
            cons = self._clauses(1, then)
        elif isinstance(rule, tuple) and rule and isinstance(rule[0], Mapping):
            if not 2 <= len(rule) <= 4:
                raise ValueError("a rule tuple is (if, then[, weight[, connective]])")
            ante = self._clauses(0, rule[0])
            cons = self._clauses(1, rule[1])
            if len(rule) > 2:
                w = float(rule[2])
            if len(rule) > 3:
                conn = rule[3]
        else:
            codes = [float(c) for c in rule]
            ni, no = len(vin), len(vout)
            if len(codes) not in (ni + no, ni + no + 2):
                raise MismatchError(
                    f"a rule row of {len(codes)} numbers for a system of {ni} input(s) and "
                    f"{no} output(s): expected {ni + no} codes, then the weight and the "
                    "connective")
            ante = [self._code_check(0, j, c) for j, c in enumerate(codes[:ni])]
            cons = [self._code_check(1, j, c) for j, c in enumerate(codes[ni:ni + no])]
            if len(codes) == ni + no + 2:
                w = codes[ni + no]
                conn = {1.0: "and", 2.0: "or"}.get(codes[ni + no + 1], codes[ni + no + 1])
        if weight is not None:
            w = float(weight)
        if connective is not None:
            conn = connective
        conn = "and" if conn is None else str(conn).lower()
        if conn not in ("and", "or"):
            raise ValueError(f"connective must be 'and' or 'or', not {conn!r}")
        if not (0.0 <= w <= 1.0):
            raise ValueError(f"rule weight {w:g} outside [0, 1]")
        if all(c[0] == 0 for c in cons):
            raise ValueError("a rule needs at least one conclusion")
        s["rules"].append((list(ante), list(cons), w, 1 if conn == "and" else 2))
        return self

    def _code_check(self, io, j, c):
        v = self._spec["vars"][io][j]
        k = int(abs(c))
        hedge = int(round((abs(c) - k) * 10))
        if k > len(v["terms"]):
            raise ValueError(f"{v['name']} has no term {k} (it has {len(v['terms'])})")
        return (-k if c < 0 else k, hedge)

    def _term_code(self, io, var, term):
        """(signed 1-based term, hedge) for a term given as a name or number."""
        vs = self._spec["vars"][io]
        names = [v["name"] for v in vs]
        if var not in names:
            raise ValueError(f"{self.name} has no {'output' if io else 'input'} {var!r} "
                             f"({', '.join(names) or 'none yet'})")
        v = vs[names.index(var)]
        if isinstance(term, numbers.Real) and not isinstance(term, bool):
            return self._code_check(io, names.index(var), term)
        words = str(term).split()
        neg = False
        hedge = 0
        while len(words) > 1 and words[0].lower() in ("not", "very", "extremely"):
            w0 = words.pop(0).lower()
            if w0 == "not":
                neg = not neg
            elif hedge:
                hedge = 4 if (hedge, w0) == (2, "very") else -1
            else:
                hedge = _HEDGES[w0]
            if hedge < 0:
                raise ValueError(f"{term!r}: hedges that a .fis rule cannot write")
        tname = " ".join(words)
        tnames = [t.name for t in v["terms"]]
        if tname not in tnames:
            raise ValueError(f"{var} has no term {tname!r} ({', '.join(tnames) or 'none yet'})")
        k = tnames.index(tname) + 1
        return (-k if neg else k, hedge)

    def _clauses(self, io, mapping):
        codes = [(0, 0)] * len(self._spec["vars"][io])
        names = [v["name"] for v in self._spec["vars"][io]]
        if not isinstance(mapping, Mapping):
            raise TypeError("rule parts are mappings {variable: term}")
        for var, term in mapping.items():
            code = self._term_code(io, var, term)
            codes[names.index(var)] = code
        return codes

    def _parse_rule(self, text):
        t = text.strip()
        m = re.fullmatch(r"(?is)\s*if\s+(.*?)\s+then\s+(.*?)\s*", t)
        if not m:
            raise ParseError(f"rule {text!r}: expected 'if ... then ...'")
        ante_s, cons_s = m.group(1), m.group(2)
        w = 1.0
        mw = re.search(r"(?i)(?:\s+with\s+([0-9.eE+-]+)|\s*\(\s*([0-9.eE+-]+)\s*\))\s*$", cons_s)
        if mw:
            try:
                w = float(mw.group(1) or mw.group(2))
            except ValueError:
                raise ParseError(f"rule {text!r}: bad weight") from None
            cons_s = cons_s[:mw.start()]
        parts = re.split(r"(?i)\s+(and|or)\s+", ante_s)
        clauses, conns = parts[0::2], {p.lower() for p in parts[1::2]}
        if len(conns) > 1:
            raise ParseError(f"rule {text!r}: a .fis rule uses one connective, 'and' or 'or', "
                             "throughout")
        conn = conns.pop() if conns else None
        ante = [(0, 0)] * len(self._spec["vars"][0])
        cons = [(0, 0)] * len(self._spec["vars"][1])
        for io, items, codes in ((0, clauses, ante),
                                 (1, re.split(r"(?i)\s+and\s+|\s*,\s*", cons_s), cons)):
            names = [v["name"] for v in self._spec["vars"][io]]
            for c in items:
                c = c.strip()
                while c.startswith("(") and c.endswith(")"):
                    c = c[1:-1].strip()
                mc = re.fullmatch(r"(?s)(\S+)\s+is\s+(.+)", c)
                if not mc:
                    raise ParseError(f"rule {text!r}: expected 'VARIABLE is TERM', got {c!r}")
                var = mc.group(1)
                if var not in names:
                    raise ValueError(f"rule {text!r}: {self.name} has no "
                                     f"{'output' if io else 'input'} {var!r} "
                                     f"({', '.join(names) or 'none yet'})")
                j = names.index(var)
                if codes[j] != (0, 0):
                    raise ValueError(f"rule {text!r}: {var} is named twice")
                codes[j] = self._term_code(io, var, mc.group(2).strip())
        return ante, cons, w, conn

    # ------------------------------------------------------- evaluation

    def _matrix(self, X, ignore_extra=False):
        """X as a C-ordered float64 (rows x inputs) array, and whether it was
        one sample."""
        names = self.input_names
        ni = len(names)
        if isinstance(X, Mapping) or (hasattr(X, "keys") and hasattr(X, "__getitem__")
                                      and not isinstance(X, np.ndarray)):
            keys = [str(k) for k in X.keys()]
            missing = [n for n in names if n not in keys]
            unknown = [] if ignore_extra else [k for k in keys if k not in names]
            if missing or unknown:
                msg = []
                if missing:
                    msg.append(f"missing input(s) {', '.join(missing)}")
                if unknown:
                    msg.append(f"unknown name(s) {', '.join(unknown)}")
                raise MismatchError(f"{self.name}: {'; '.join(msg)} (the inputs are "
                                    f"{', '.join(names)})")
            cols = [np.asarray(X[n], dtype=np.float64) for n in names]
            one = all(c.ndim == 0 for c in cols)
            cols = np.broadcast_arrays(*[c.reshape(-1) for c in cols])
            a = np.ascontiguousarray(np.stack(cols, axis=1)) if cols else np.empty((1, 0))
            return a, one
        a = np.asarray(X)
        one = a.ndim == 0 or (a.ndim == 1 and (a.shape[0] == ni or ni != 1))
        if a.ndim == 0:
            a = a.reshape(1, 1)
        elif a.ndim == 1:
            a = a.reshape(1, -1) if one else a.reshape(-1, 1)
        if a.ndim != 2:
            raise ValueError(f"X must be a 2-D array (rows x inputs), got {a.ndim}-D")
        if a.shape[1] != ni:
            raise MismatchError(f"{self.name} has {ni} input(s) ({', '.join(names)}); X has "
                                f"{a.shape[1]} column(s)")
        return _as_matrix(a, (np.float64,), "X"), one

    def eval(self, X, ctx=None, backend=None, out=None, return_stats=False,
             ignore_extra=False):
        """Evaluates the system on every row of ``X``.

        Parameters
        ----------
        X : array_like or mapping
            Rows x inputs (float64 C order is used without a copy; anything
            else is converted once). A 1-D array is one sample (for a
            one-input system, a 1-D array of several values is one sample per
            value). A mapping (a dict, or anything with ``keys()`` such as a
            DataFrame) of input name -> values gives the columns by name;
            missing and unknown names raise :class:`haze.MismatchError`
            (unknown ones are left out with ``ignore_extra=True``).
        ctx, backend :
            Where to compute (see :class:`haze.Context`).
        out : ndarray, optional
            A C-ordered float64 (rows x outputs) array to write into.
        return_stats : bool
            Also return ``{"clamped": ..., "no_rule": ...}``: input values
            moved into their range and (row, output) pairs where no rule fired.

        Returns
        -------
        ndarray
            Rows x outputs (float64); one sample gives a 1-D array of outputs.
        """
        c = _ctx(ctx, backend)
        h = self._handle()
        x, one = self._matrix(X, ignore_extra)
        no = self._count(1)
        if out is None:
            y = np.empty((x.shape[0], no), dtype=np.float64)
        else:
            y = out
            if (not isinstance(y, np.ndarray) or y.dtype != np.float64 or y.shape != (
                    x.shape[0], no) or not y.flags.c_contiguous or not y.flags.writeable):
                raise ValueError(f"out must be a writable C-ordered float64 array of shape "
                                 f"({x.shape[0]}, {no})")
        with self._reading():
            clamped, no_rule = _ext.fis_eval(c._h, h, x, y)
        r = y[0] if one and out is None else y
        if return_stats:
            return r, {"clamped": clamped, "no_rule": no_rule}
        return r

    __call__ = eval

    def explain(self, x, output=0, points=None, ctx=None, backend=None):
        """One inference at the input vector ``x`` step by step (like MATLAB's
        ruleview): a :class:`RuleFiring` with each rule's firing degree and,
        for a Mamdani output, each rule's implied set and their aggregate over
        ``points`` points (default :attr:`points`) of the output's range."""
        c = _ctx(ctx, backend)
        h = self._handle()
        xv, _ = self._matrix(np.asarray(x, dtype=np.float64).reshape(1, -1)
                             if not isinstance(x, Mapping) else x)
        if xv.shape[0] != 1:
            raise ValueError("explain takes one input vector")
        if isinstance(output, (str, Variable)):
            v = self.variable(output)
            if not v.is_output:
                raise ValueError(f"{v.name} is an input, not an output")
            o = v.index
        else:
            o = int(output)
        n = int(points) if points is not None else self.points
        nr = _ext.fis_info(h)[4]
        firing = np.zeros(nr)
        ys = np.zeros(max(n, 2))
        implied = np.zeros((nr, ys.shape[0]))
        agg = np.zeros(ys.shape[0])
        with self._reading():
            st = _ext.fis_explain(c._h, h, np.ascontiguousarray(xv[0]), o, firing, ys, implied,
                                  agg)
        value = self.eval(xv, ctx=c)[0, o]
        if st < 0:
            return RuleFiring(xv[0].copy(), firing, None, None, None, value)
        return RuleFiring(xv[0].copy(), firing, ys, implied, agg, value)

    # ------------------------------------------------------------ plots

    def plot_mfs(self, var=None, ax=None, points=201):
        """Draws the membership functions of variable ``var`` (a name,
        ``"in1"``/``"out1"`` or a :class:`Variable`), or of every variable in a
        panel each when None, like MATLAB's plotmf. A Sugeno output's
        constants are stems at their values; linear terms are named in the
        legend only. Returns the matplotlib Axes (a list for all variables).
        Needs matplotlib."""
        plt = _pyplot()
        if var is None:
            vs = self.inputs + self.outputs
            if ax is None:
                fig, axes = plt.subplots(len(vs), 1, figsize=(6, 2.2 * len(vs)), squeeze=False)
                axes = list(axes[:, 0])
            else:
                axes = list(np.ravel(ax))
                if len(axes) != len(vs):
                    raise ValueError(f"{len(vs)} axes are needed, one per variable")
            for v, a in zip(vs, axes):
                self._plot_var(v, a, points)
            if ax is None:
                import warnings
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # many panels: it does what it can
                    fig.tight_layout()
            return axes
        v = self.variable(var)
        if ax is None:
            _, ax = plt.subplots(figsize=(6, 3))
        self._plot_var(v, ax, points)
        return ax

    def _plot_var(self, v, ax, points):
        lo, hi = v.range
        xs = np.linspace(lo, hi, int(points))
        for k, t in enumerate(v.terms):
            try:
                ax.plot(xs, v.membership(k, xs), label=t.name)
            except HazeError:
                if t.type.lower() == "constant" and t.params:
                    ax.vlines(t.params[0], 0, 1, colors=f"C{k % 10}", label=t.name)
                    ax.plot([t.params[0]], [1], "o", color=f"C{k % 10}")
                else:
                    ax.plot([], [], color=f"C{k % 10}", label=f"{t.name} ({t.type})")
        ax.set_xlim(lo, hi)
        ax.set_ylim(-0.02, 1.05)
        ax.set_xlabel(v.name)
        ax.set_ylabel("degree of membership")
        if v.terms:
            ax.legend(loc="best", fontsize="small")

    def surface(self, inputs=(0, 1), hold=None, grid=15, ctx=None, backend=None):
        """Evaluates a grid of ``grid`` x ``grid`` points over the ranges of two
        inputs, like MATLAB's gensurf and ``haze fis surface``.

        ``inputs``: the two inputs, by number or name; ``hold``: values of the
        other inputs (a mapping name -> value; default the middle of their
        range). Returns ``(xs, ys, Z)``: the points of each axis and
        ``Z[j, i, o]``, output o at ``xs[i]``, ``ys[j]``."""
        names = self.input_names
        if len(names) < 2:
            raise ValueError(f"{self.name} has {len(names)} input: a surface needs two")
        idx = [names.index(i) if isinstance(i, str) and i in names else i for i in inputs]
        if (len(idx) != 2 or not all(isinstance(i, numbers.Integral) for i in idx)
                or idx[0] == idx[1] or not all(0 <= i < len(names) for i in idx)):
            raise ValueError(f"inputs must be two different inputs of {names}, not {inputs!r}")
        n = int(grid)
        if n < 2:
            raise ValueError(f"grid: at least 2 points per axis, got {n}")
        vals = [sum(v.range) / 2 for v in self.inputs]
        for k, val in (hold or {}).items():
            if k not in names:
                raise KeyError(f"hold: no input {k!r} ({', '.join(names)})")
            vals[names.index(k)] = float(val)
        (x0, x1), (y0, y1) = self.inputs[idx[0]].range, self.inputs[idx[1]].range
        xs, ys = np.linspace(x0, x1, n), np.linspace(y0, y1, n)
        gx, gy = np.meshgrid(xs, ys)
        X = np.tile(np.asarray(vals, dtype=np.float64), (gx.size, 1))
        X[:, idx[0]] = gx.ravel()
        X[:, idx[1]] = gy.ravel()
        Z = self.eval(X, ctx=ctx, backend=backend).reshape(n, n, -1)
        return xs, ys, Z

    def plot_surface(self, inputs=(0, 1), output=0, hold=None, grid=41, ax=None, ctx=None,
                     backend=None):
        """Draws output ``output`` over a grid of two inputs as a heat map with
        contours, like MATLAB's gensurf (see :meth:`surface` for ``inputs``,
        ``hold`` and ``grid``). Returns ``(ax, (xs, ys, Z))`` with Z of that
        output alone. Needs matplotlib."""
        plt = _pyplot()
        names = self.input_names
        xs, ys, Z = self.surface(inputs, hold, grid, ctx=ctx, backend=backend)
        idx = [names.index(i) if isinstance(i, str) else i for i in inputs]
        o = self.output_names.index(output) if isinstance(output, str) else int(output)
        Z = Z[:, :, o]
        if ax is None:
            _, ax = plt.subplots(figsize=(6, 4.5))
        mesh = ax.pcolormesh(xs, ys, Z, shading="gouraud", cmap="viridis")
        if np.isfinite(Z).any() and np.nanmax(Z) > np.nanmin(Z):
            cs = ax.contour(xs, ys, Z, colors="k", linewidths=0.6)
            ax.clabel(cs, fontsize="x-small")
        ax.figure.colorbar(mesh, ax=ax, label=self.output_names[o])
        ax.set_xlabel(names[idx[0]])
        ax.set_ylabel(names[idx[1]])
        ax.set_title(f"{self.name}: {self.output_names[o]}")
        return ax, (xs, ys, Z)

    # ------------------------------------------------------------ other

    def copy(self):
        """An independent copy (by way of its .fis text, or its .fll text for a
        fuzzylite engine)."""
        if self._spec is not None:
            new = FIS._from_handle(None, self._ctx)
            new._spec = {"name": self._spec["name"], "type": self._spec["type"],
                         "methods": list(self._spec["methods"]),
                         "vars": [[dict(v, terms=list(v["terms"])) for v in vs]
                                  for vs in self._spec["vars"]],
                         "rules": [(list(a), list(b), w, c) for a, b, w, c in
                                   self._spec["rules"]]}
        else:
            fll = self._is_fll()
            new = FIS.parse(self.to_text("fll" if fll else "fis"), "fll" if fll else "fis",
                            name=self.name, ctx=self._ctx)
        new._mode, new._points, new._nan = self._mode, self._points, self._nan
        if new._h is not None:
            # the mode as it is; the points only where set (setting them drops
            # a .fll engine's own resolutions)
            new._mode = self.mode
            new._apply_settings(new._h)
        return new

    def __repr__(self):
        ins = ", ".join(self.input_names)
        outs = ", ".join(self.output_names)
        nr = len(self._spec["rules"]) if self._spec is not None else _ext.fis_info(self._h)[4]
        ni, no = self._count(0), self._count(1)
        return (f"haze.FIS({self.name!r}, {self.type}, {ni} input{'s' * (ni != 1)} ({ins}), "
                f"{no} output{'s' * (no != 1)} ({outs}), {nr} rule{'s' * (nr != 1)})")


def _code(c):
    k, hedge = c
    return f"{k}.{hedge}" if hedge else f"{k}"


def _explain_built(err, name, text):
    """A reader's error on a system built in code, with the generated line."""
    m = re.search(re.escape(name) + r":(\d+)", str(err))
    if m:
        lines = text.split("\n")
        ln = int(m.group(1))
        if 1 <= ln <= len(lines):
            msg = f"{err} (in the system built in code: {lines[ln - 1].strip()})"
            new = type(err)(msg, err.status)
            return new
    return err


def _read_fis_text(text):
    """The specification of a system from the .fis text haze_fis_save writes."""
    spec = {"name": "fis", "type": "mamdani", "methods": ["min", "max", "min", "max",
                                                          "centroid"],
            "vars": [[], []], "rules": []}
    keys = {"AndMethod": 0, "OrMethod": 1, "ImpMethod": 2, "AggMethod": 3, "DefuzzMethod": 4}
    section, cur = None, None
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line.startswith("["):
            section = line
            cur = None
            if line.startswith("[Input") or line.startswith("[Output"):
                cur = {"name": "", "range": (0.0, 1.0), "terms": []}
                spec["vars"][1 if line.startswith("[Output") else 0].append(cur)
            continue
        if section == "[Rules]":
            m = re.fullmatch(r"([^,]*),([^(]*)\(([^)]*)\)\s*:\s*(\d+)", line)
            if not m:
                raise ParseError(f"cannot read the rule line {line!r}")

            def codes(s):
                out = []
                for tok in s.split():
                    neg = tok.startswith("-")
                    k, _, h = tok.lstrip("-").partition(".")
                    out.append((-int(k) if neg else int(k), int(h) if h else 0))
                return out

            spec["rules"].append((codes(m.group(1)), codes(m.group(2)), float(m.group(3)),
                                  int(m.group(4))))
            continue
        key, _, val = line.partition("=")
        key = key.strip()
        val = val.strip()
        if section == "[System]":
            if key == "Name":
                spec["name"] = val.strip("'")
            elif key == "Type":
                spec["type"] = val.strip("'")
            elif key in keys:
                spec["methods"][keys[key]] = val.strip("'")
        elif cur is not None:
            if key == "Name":
                cur["name"] = val.strip("'")
            elif key == "Range":
                lo, hi = val.strip("[]").split()
                cur["range"] = (float(lo), float(hi))
            elif key.startswith("MF"):
                m = re.fullmatch(r"'(.*)':'(.*)',\[(.*)\]", val)
                if not m:
                    raise ParseError(f"cannot read the MF line {line!r}")
                cur["terms"].append(Term(m.group(1), m.group(2),
                                         tuple(float(p) for p in m.group(3).split())))
    return spec


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError("haze's plots need matplotlib (Debian: python3-matplotlib; "
                          "pip install matplotlib)") from None
    return plt
