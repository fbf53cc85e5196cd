/*
 * fis.c - the fis functions of haze._ext: fuzzy inference systems (haze/fis.h).
 *
 * A system is a "haze.fis" capsule. It belongs to no context (the library
 * takes a context only for messages and for where to compute), so none is
 * kept alive with it. The Python side (haze/fis.py) builds systems in code by
 * writing MATLAB .fis text and parsing it here: one way into the library.
 */
#include "hazepy.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static void fis_destroy(void *p) {
    haze_fis_free(p);
}

static haze_fis *get_fis(PyObject *cap) {
    return hpy_unwrap(cap, "haze.fis");
}

/* fis_load(ctx, path) -> fis */
static PyObject *py_fis_load(PyObject *self, PyObject *args) {
    PyObject *cap, *pathobj;
    if (!PyArg_ParseTuple(args, "OO", &cap, &pathobj)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    if (!ctx) return NULL;
    PyObject *path = hpy_path(pathobj);
    if (!path) return NULL;
    haze_fis *f = NULL;
    int st;
    const char *p = PyBytes_AsString(path);
    HPY_NOGIL(st = haze_fis_load(ctx, p, &f));
    Py_DECREF(path);
    if (st < 0) return hpy_raise(ctx, st);
    return hpy_wrap(f, "haze.fis", fis_destroy, NULL);
}

/* fis_parse(ctx, text, name, fll: bool) -> fis */
static PyObject *py_fis_parse(PyObject *self, PyObject *args) {
    PyObject *cap;
    const char *text, *name;
    Py_ssize_t len;
    int fll;
    if (!PyArg_ParseTuple(args, "Os#sp", &cap, &text, &len, &name, &fll)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    if (!ctx) return NULL;
    if ((size_t)len != strlen(text))
        return hpy_raise_msg(HAZE_ERR_PARSE, "%s: the text holds a NUL character", name);
    haze_fis *f = NULL;
    int st;
    HPY_NOGIL(st = fll ? haze_fis_parse_fll(ctx, text, name, &f)
                       : haze_fis_parse(ctx, text, name, &f));
    if (st < 0) return hpy_raise(ctx, st);
    return hpy_wrap(f, "haze.fis", fis_destroy, NULL);
}

static const char *mode_name(haze_fis_mode m) {
    switch (m) {
    case HAZE_FIS_MODE_OCTAVE:
        return "octave";
    case HAZE_FIS_MODE_FUZZYLITE:
        return "fuzzylite";
    case HAZE_FIS_MODE_EXACT:
        return "exact";
    default:
        return "matlab";
    }
}

/* fis_info(fis) -> (name, sugeno, inputs, outputs, rules, mode, points) */
static PyObject *py_fis_info(PyObject *self, PyObject *cap) {
    haze_fis *f = get_fis(cap);
    if (!f) return NULL;
    const char *name = haze_fis_name(f);
    return Py_BuildValue(
        "(Niiiisi)", PyUnicode_DecodeUTF8(name, (Py_ssize_t)strlen(name), "replace"),
        haze_fis_is_sugeno(f), haze_fis_input_count(f), haze_fis_output_count(f),
        haze_fis_rule_count(f), mode_name(haze_fis_get_mode(f)), haze_fis_get_points(f));
}

static PyObject *str_or_none(const char *s) {
    if (!s) Py_RETURN_NONE;
    return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace");
}

static int check_var(const haze_fis *f, int io, int i) {
    int n = io ? haze_fis_output_count(f) : haze_fis_input_count(f);
    if (io < 0 || io > 1 || i < 0 || i >= n) {
        PyErr_Format(PyExc_IndexError, "no %s %d (the system has %d)", io ? "output" : "input",
                     i + 1, n);
        return -1;
    }
    return 0;
}

/* fis_var(ctx, fis, is_output, i) -> (name, lo, hi, [(name, type, (params...)), ...]) */
static PyObject *py_fis_var(PyObject *self, PyObject *args) {
    PyObject *cap, *fcap;
    int io, i;
    if (!PyArg_ParseTuple(args, "OOii", &cap, &fcap, &io, &i)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    haze_fis *f = ctx ? get_fis(fcap) : NULL;
    if (!f || check_var(f, io, i) < 0) return NULL;
    double lo, hi;
    int st = haze_fis_var_range(ctx, f, io, i, &lo, &hi);
    if (st < 0) return hpy_raise(ctx, st);
    int nmf = haze_fis_mf_count(f, io, i);
    PyObject *terms = PyList_New(nmf > 0 ? nmf : 0);
    if (!terms) return NULL;
    for (int k = 0; k < nmf; k++) {
        const char *name, *type;
        const double *p;
        int np;
        st = haze_fis_mf(ctx, f, io, i, k, &name, &type, &p, &np);
        if (st < 0) {
            Py_DECREF(terms);
            return hpy_raise(ctx, st);
        }
        PyObject *params = PyTuple_New(np > 0 ? np : 0);
        for (int q = 0; params && q < np; q++) {
            PyObject *v = PyFloat_FromDouble(p[q]);
            if (!v) {
                Py_CLEAR(params);
                break;
            }
            PyTuple_SetItem(params, q, v);
        }
        PyObject *t =
            params ? Py_BuildValue("(NNN)", str_or_none(name), str_or_none(type), params) : NULL;
        if (!t) {
            Py_DECREF(terms);
            return NULL;
        }
        PyList_SetItem(terms, k, t);
    }
    return Py_BuildValue("(NddN)", str_or_none(haze_fis_var_name(f, io, i)), lo, hi, terms);
}

/* fis_methods(fis, output) -> (and, or, imp, agg, defuzz), None where unknown */
static PyObject *py_fis_methods(PyObject *self, PyObject *args) {
    PyObject *fcap;
    int o;
    if (!PyArg_ParseTuple(args, "Oi", &fcap, &o)) return NULL;
    haze_fis *f = get_fis(fcap);
    if (!f) return NULL;
    return Py_BuildValue(
        "(NNNNN)", str_or_none(haze_fis_method(f, "and", o)),
        str_or_none(haze_fis_method(f, "or", o)), str_or_none(haze_fis_method(f, "imp", o)),
        str_or_none(haze_fis_method(f, "agg", o)), str_or_none(haze_fis_method(f, "defuzz", o)));
}

/* fis_rule(ctx, fis, r) -> (text, (input terms...), (output terms...)) */
static PyObject *py_fis_rule(PyObject *self, PyObject *args) {
    PyObject *cap, *fcap;
    int r;
    if (!PyArg_ParseTuple(args, "OOi", &cap, &fcap, &r)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    haze_fis *f = ctx ? get_fis(fcap) : NULL;
    if (!f) return NULL;
    if (r < 0 || r >= haze_fis_rule_count(f)) {
        PyErr_Format(PyExc_IndexError, "no rule %d (the system has %d)", r + 1,
                     haze_fis_rule_count(f));
        return NULL;
    }
    char small[512];
    int len = haze_fis_rule_text(ctx, f, r, small, sizeof small);
    if (len < 0) return hpy_raise(ctx, len);
    PyObject *text;
    if ((size_t)len < sizeof small) {
        text = PyUnicode_DecodeUTF8(small, len, "replace");
    } else {
        char *big = PyMem_Malloc((size_t)len + 1);
        if (!big) return PyErr_NoMemory();
        int l2 = haze_fis_rule_text(ctx, f, r, big, (size_t)len + 1);
        text = l2 == len ? PyUnicode_DecodeUTF8(big, len, "replace") : NULL;
        PyMem_Free(big);
        if (l2 < 0) return hpy_raise(ctx, l2);
        if (!text && !PyErr_Occurred())
            return hpy_raise_msg(HAZE_ERR_INTERNAL, "rule %d: its text changed length", r + 1);
    }
    if (!text) return NULL;
    PyObject *codes[2] = {NULL, NULL};
    for (int io = 0; io < 2; io++) {
        int n = io ? haze_fis_output_count(f) : haze_fis_input_count(f);
        codes[io] = PyTuple_New(n);
        for (int i = 0; codes[io] && i < n; i++) {
            PyObject *v = PyLong_FromLong(haze_fis_rule_term(f, r, io, i));
            if (!v) {
                Py_CLEAR(codes[io]);
                break;
            }
            PyTuple_SetItem(codes[io], i, v);
        }
    }
    if (!codes[0] || !codes[1]) {
        Py_DECREF(text);
        Py_XDECREF(codes[0]);
        Py_XDECREF(codes[1]);
        return NULL;
    }
    return Py_BuildValue("(NNN)", text, codes[0], codes[1]);
}

/* fis_warnings(fis) -> [str] */
static PyObject *py_fis_warnings(PyObject *self, PyObject *fcap) {
    haze_fis *f = get_fis(fcap);
    if (!f) return NULL;
    int n = haze_fis_warning_count(f);
    PyObject *list = PyList_New(n > 0 ? n : 0);
    for (int i = 0; list && i < n; i++) {
        PyObject *s = str_or_none(haze_fis_warning(f, i));
        if (!s) {
            Py_CLEAR(list);
            break;
        }
        PyList_SetItem(list, i, s);
    }
    return list;
}

/* fis_set_mode(ctx, fis, "matlab"|"octave"|"fuzzylite"|"exact") */
static PyObject *py_fis_set_mode(PyObject *self, PyObject *args) {
    PyObject *cap, *fcap;
    const char *s;
    if (!PyArg_ParseTuple(args, "OOs", &cap, &fcap, &s)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    haze_fis *f = ctx ? get_fis(fcap) : NULL;
    if (!f) return NULL;
    haze_fis_mode m;
    int st = haze_fis_mode_parse(ctx, s, &m);
    if (st >= 0) st = haze_fis_set_mode(ctx, f, m);
    if (st < 0) return hpy_raise(ctx, st);
    Py_RETURN_NONE;
}

/* fis_set_points(ctx, fis, n) */
static PyObject *py_fis_set_points(PyObject *self, PyObject *args) {
    PyObject *cap, *fcap;
    int n;
    if (!PyArg_ParseTuple(args, "OOi", &cap, &fcap, &n)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    haze_fis *f = ctx ? get_fis(fcap) : NULL;
    if (!f) return NULL;
    int st = haze_fis_set_points(ctx, f, n);
    if (st < 0) return hpy_raise(ctx, st);
    Py_RETURN_NONE;
}

/* fis_set_nan(fis, on) */
static PyObject *py_fis_set_nan(PyObject *self, PyObject *args) {
    PyObject *fcap;
    int on;
    if (!PyArg_ParseTuple(args, "Op", &fcap, &on)) return NULL;
    haze_fis *f = get_fis(fcap);
    if (!f) return NULL;
    haze_fis_set_nan_if_no_rule(f, on);
    Py_RETURN_NONE;
}

/* fis_eval(ctx, fis, X (n x inputs float64), Y (n x outputs float64, writable))
 * -> (clamped, no_rule). Y is the caller's array, written in place. */
static PyObject *py_fis_eval(PyObject *self, PyObject *args) {
    PyObject *cap, *fcap, *xo, *yo;
    if (!PyArg_ParseTuple(args, "OOOO", &cap, &fcap, &xo, &yo)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    haze_fis *f = ctx ? get_fis(fcap) : NULL;
    if (!f) return NULL;
    Py_buffer x, y;
    if (hpy_buffer(xo, &x, "d", 2, 0) < 0) return NULL;
    if (hpy_buffer(yo, &y, "d", 2, 1) < 0) {
        PyBuffer_Release(&x);
        return NULL;
    }
    const Py_ssize_t ni = haze_fis_input_count(f), no = haze_fis_output_count(f);
    if (x.shape[1] != ni || y.shape[1] != no || x.shape[0] != y.shape[0]) {
        hpy_raise_msg(HAZE_ERR_MISMATCH,
                      "%s: %zd x %zd inputs and %zd x %zd outputs for a system of %zd input(s) "
                      "and %zd output(s)",
                      haze_fis_name(f), x.shape[0], x.shape[1], y.shape[0], y.shape[1], ni, no);
        PyBuffer_Release(&x);
        PyBuffer_Release(&y);
        return NULL;
    }
    haze_fis_stats stats = haze_fis_stats_init();
    int st = HAZE_OK;
    size_t n = (size_t)x.shape[0];
    const double *in = x.buf;
    double *out = y.buf;
    if (n) HPY_NOGIL(st = haze_fis_eval(ctx, f, in, n, out, &stats));
    PyBuffer_Release(&x);
    PyBuffer_Release(&y);
    if (st < 0) return hpy_raise(ctx, st);
    return Py_BuildValue("(nn)", (Py_ssize_t)stats.clamped, (Py_ssize_t)stats.no_rule);
}

/* fis_save(ctx, fis, path) */
static PyObject *py_fis_save(PyObject *self, PyObject *args) {
    PyObject *cap, *fcap, *pathobj;
    if (!PyArg_ParseTuple(args, "OOO", &cap, &fcap, &pathobj)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    haze_fis *f = ctx ? get_fis(fcap) : NULL;
    if (!f) return NULL;
    PyObject *path = hpy_path(pathobj);
    if (!path) return NULL;
    int st;
    const char *p = PyBytes_AsString(path);
    HPY_NOGIL(st = haze_fis_save(ctx, f, p));
    Py_DECREF(path);
    if (st < 0) return hpy_raise(ctx, st);
    Py_RETURN_NONE;
}

/* fis_mf_eval(ctx, fis, is_output, i, k, x (1-D float64), mu (1-D float64, writable)) */
static PyObject *py_fis_mf_eval(PyObject *self, PyObject *args) {
    PyObject *cap, *fcap, *xo, *mo;
    int io, i, k;
    if (!PyArg_ParseTuple(args, "OOiiiOO", &cap, &fcap, &io, &i, &k, &xo, &mo)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    haze_fis *f = ctx ? get_fis(fcap) : NULL;
    if (!f || check_var(f, io, i) < 0) return NULL;
    Py_buffer x, mu;
    if (hpy_buffer(xo, &x, "d", 1, 0) < 0) return NULL;
    if (hpy_buffer(mo, &mu, "d", 1, 1) < 0) {
        PyBuffer_Release(&x);
        return NULL;
    }
    int st = HAZE_OK;
    if (x.shape[0] != mu.shape[0]) {
        PyBuffer_Release(&x);
        PyBuffer_Release(&mu);
        return hpy_raise_msg(HAZE_ERR_MISMATCH, "mf_eval: %zd points but %zd results", x.shape[0],
                             mu.shape[0]);
    }
    const double *xp = x.buf;
    double *mp = mu.buf;
    size_t n = (size_t)x.shape[0];
    HPY_NOGIL(st = haze_fis_mf_eval(ctx, f, io, i, k, xp, n, mp));
    PyBuffer_Release(&x);
    PyBuffer_Release(&mu);
    if (st < 0) return hpy_raise(ctx, st);
    Py_RETURN_NONE;
}

/*
 * fis_explain(ctx, fis, x (inputs), o, firing (rules), ys (n), implied
 * (rules x n), aggregate (n)) -> status (0, or HAZE_ERR_UNSUPPORTED where only
 * the firing degrees are filled: a Sugeno or weighted output). Arrays are
 * float64, the last four writable; n is the length of ys.
 */
static PyObject *py_fis_explain(PyObject *self, PyObject *args) {
    PyObject *cap, *fcap, *xo, *fo, *yo, *io_, *ao;
    int o;
    if (!PyArg_ParseTuple(args, "OOOiOOOO", &cap, &fcap, &xo, &o, &fo, &yo, &io_, &ao)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    haze_fis *f = ctx ? get_fis(fcap) : NULL;
    if (!f) return NULL;
    Py_buffer v[5];
    PyObject *objs[5] = {xo, fo, yo, io_, ao};
    int ndims[5] = {1, 1, 1, 2, 1};
    int got = 0;
    for (; got < 5; got++)
        if (hpy_buffer(objs[got], &v[got], "d", ndims[got], got > 0) < 0) break;
    int st = HAZE_OK;
    if (got == 5) {
        const Py_ssize_t ni = haze_fis_input_count(f), nr = haze_fis_rule_count(f),
                         n = v[2].shape[0];
        if (o < 0 || o >= haze_fis_output_count(f)) {
            PyErr_Format(PyExc_IndexError, "no output %d", o + 1);
        } else if (v[0].shape[0] != ni || v[1].shape[0] != nr || n < 2 || n > INT_MAX ||
                   v[3].shape[0] != nr || v[3].shape[1] != n || v[4].shape[0] != n) {
            hpy_raise_msg(HAZE_ERR_MISMATCH, "explain: arrays of the wrong sizes");
        } else {
            const double *in = v[0].buf;
            double *firing = v[1].buf, *ys = v[2].buf, *imp = v[3].buf, *agg = v[4].buf;
            HPY_NOGIL(st = haze_fis_explain(ctx, f, in, o, (int)n, firing, ys, imp, agg));
            if (st < 0 && st != HAZE_ERR_UNSUPPORTED) hpy_raise(ctx, st);
        }
    }
    for (int k = 0; k < got; k++) PyBuffer_Release(&v[k]);
    if (PyErr_Occurred()) return NULL;
    return PyLong_FromLong(st);
}

PyMethodDef hpy_fis_methods[] = {
    {"fis_load", py_fis_load, METH_VARARGS, "fis_load(ctx, path) -> fis"},
    {"fis_parse", py_fis_parse, METH_VARARGS, "fis_parse(ctx, text, name, fll) -> fis"},
    {"fis_info", py_fis_info, METH_O,
     "fis_info(fis) -> (name, sugeno, inputs, outputs, rules, mode, points)"},
    {"fis_var", py_fis_var, METH_VARARGS,
     "fis_var(ctx, fis, is_output, i) -> (name, lo, hi, terms)"},
    {"fis_methods", py_fis_methods, METH_VARARGS,
     "fis_methods(fis, output) -> (and, or, imp, agg, defuzz)"},
    {"fis_rule", py_fis_rule, METH_VARARGS, "fis_rule(ctx, fis, r) -> (text, inputs, outputs)"},
    {"fis_warnings", py_fis_warnings, METH_O, "fis_warnings(fis) -> [str]"},
    {"fis_set_mode", py_fis_set_mode, METH_VARARGS, "fis_set_mode(ctx, fis, mode)"},
    {"fis_set_points", py_fis_set_points, METH_VARARGS, "fis_set_points(ctx, fis, n)"},
    {"fis_set_nan", py_fis_set_nan, METH_VARARGS, "fis_set_nan(fis, on)"},
    {"fis_eval", py_fis_eval, METH_VARARGS, "fis_eval(ctx, fis, X, Y) -> (clamped, no_rule)"},
    {"fis_save", py_fis_save, METH_VARARGS, "fis_save(ctx, fis, path)"},
    {"fis_mf_eval", py_fis_mf_eval, METH_VARARGS, "fis_mf_eval(ctx, fis, io, i, k, x, mu)"},
    {"fis_explain", py_fis_explain, METH_VARARGS,
     "fis_explain(ctx, fis, x, o, firing, ys, implied, aggregate) -> status"},
    {NULL, NULL, 0, NULL}};
