/*
 * prec.c - the rounding-error analyser in haze._ext (haze/prec.h): scripts
 * as "haze.prec_script" capsules, parsed from text or loaded from a file,
 * their inputs, ranges and notes, the analysis (its goals copied into
 * Python objects, so no result handle outlives the call) and the point
 * evaluation. haze/prec.py wraps them in PrecScript and PrecResult.
 */
#include "hazepy.h"

#include <string.h>

#define PS_CAPSULE "haze.prec_script"

static void ps_destroy(void *p) {
    haze_prec_free(p);
}

static haze_prec_script *ps_arg(PyObject *cap) {
    return hpy_unwrap(cap, PS_CAPSULE);
}

static int parse_opts(long unroll, long max_ops, haze_prec_parse_options *opt) {
    *opt = haze_prec_parse_options_default();
    if (unroll < 0 || max_ops < 0) {
        hpy_raise_msg(HAZE_ERR_INVALID, "unroll and max_ops must be >= 0");
        return -1;
    }
    opt->unroll = unroll;
    opt->max_ops = max_ops;
    return 0;
}

/* parse(ctx, text, name, unroll, max_ops) -> script */
static PyObject *py_parse(PyObject *self, PyObject *args) {
    PyObject *cap;
    const char *name;
    PyObject *textobj;
    long unroll, max_ops;
    if (!PyArg_ParseTuple(args, "OUsll", &cap, &textobj, &name, &unroll, &max_ops)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    if (!ctx) return NULL;
    Py_ssize_t n;
    const char *text = PyUnicode_AsUTF8AndSize(textobj, &n);
    if (!text) return NULL;
    if ((Py_ssize_t)strlen(text) != n)
        return hpy_raise_msg(HAZE_ERR_PARSE, "%s: the script holds a NUL character", name);
    haze_prec_parse_options opt;
    if (parse_opts(unroll, max_ops, &opt) < 0) return NULL;
    haze_prec_script *s = NULL;
    int st;
    HPY_NOGIL(st = haze_prec_parse(ctx, text, name, &opt, &s));
    if (st < 0) return hpy_raise(ctx, st);
    return hpy_wrap(s, PS_CAPSULE, ps_destroy, NULL);
}

/* load(ctx, path, unroll, max_ops) -> script */
static PyObject *py_load(PyObject *self, PyObject *args) {
    PyObject *cap, *pathobj;
    long unroll, max_ops;
    if (!PyArg_ParseTuple(args, "OOll", &cap, &pathobj, &unroll, &max_ops)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    if (!ctx) return NULL;
    haze_prec_parse_options opt;
    if (parse_opts(unroll, max_ops, &opt) < 0) return NULL;
    PyObject *path = hpy_path(pathobj);
    if (!path) return NULL;
    haze_prec_script *s = NULL;
    int st;
    const char *p = PyBytes_AsString(path);
    HPY_NOGIL(st = haze_prec_load(ctx, p, &opt, &s));
    Py_DECREF(path);
    if (st < 0) return hpy_raise(ctx, st);
    return hpy_wrap(s, PS_CAPSULE, ps_destroy, NULL);
}

static PyObject *str_or_empty(const char *s) {
    return PyUnicode_FromString(s ? s : "");
}

/* info(ctx, script) -> ([(name, lo, hi)] of the inputs, goal count, [notes]) */
static PyObject *py_info(PyObject *self, PyObject *args) {
    PyObject *cap, *scap;
    if (!PyArg_ParseTuple(args, "OO", &cap, &scap)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    haze_prec_script *s = ctx ? ps_arg(scap) : NULL;
    if (!s) return NULL;
    size_t nv = haze_prec_var_count(s), nn = haze_prec_note_count(s);
    PyObject *vars = PyList_New((Py_ssize_t)nv), *notes = vars ? PyList_New((Py_ssize_t)nn) : NULL;
    if (!notes) {
        Py_XDECREF(vars);
        return NULL;
    }
    for (size_t i = 0; i < nv; i++) {
        double lo = 0, hi = 0;
        int st = haze_prec_var_range(ctx, s, i, &lo, &hi);
        if (st < 0) {
            Py_DECREF(vars);
            Py_DECREF(notes);
            return hpy_raise(ctx, st);
        }
        PyObject *t = Py_BuildValue("(Ndd)", str_or_empty(haze_prec_var_name(s, i)), lo, hi);
        if (!t) {
            Py_DECREF(vars);
            Py_DECREF(notes);
            return NULL;
        }
        PyList_SetItem(vars, (Py_ssize_t)i, t);
    }
    for (size_t i = 0; i < nn; i++) {
        PyObject *t = str_or_empty(haze_prec_note(s, i));
        if (!t) {
            Py_DECREF(vars);
            Py_DECREF(notes);
            return NULL;
        }
        PyList_SetItem(notes, (Py_ssize_t)i, t);
    }
    return Py_BuildValue("(NnN)", vars, (Py_ssize_t)haze_prec_goal_count(s), notes);
}

/* set_bisect(ctx, script, var, n); set_refine(ctx, script, analyses) */
static PyObject *py_set_bisect(PyObject *self, PyObject *args) {
    PyObject *cap, *scap;
    const char *var;
    long n;
    if (!PyArg_ParseTuple(args, "OOsl", &cap, &scap, &var, &n)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    haze_prec_script *s = ctx ? ps_arg(scap) : NULL;
    if (!s) return NULL;
    int st = haze_prec_set_bisect(ctx, s, var, n);
    if (st < 0) return hpy_raise(ctx, st);
    Py_RETURN_NONE;
}

static PyObject *py_set_refine(PyObject *self, PyObject *args) {
    PyObject *cap, *scap;
    long n;
    if (!PyArg_ParseTuple(args, "OOl", &cap, &scap, &n)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    haze_prec_script *s = ctx ? ps_arg(scap) : NULL;
    if (!s) return NULL;
    int st = haze_prec_set_refine(ctx, s, n);
    if (st < 0) return hpy_raise(ctx, st);
    Py_RETURN_NONE;
}

/* One goal as a dict of the haze_prec_goal fields. */
static PyObject *goal_dict(const haze_prec_goal *g) {
    return Py_BuildValue(
        "{s:N,s:O,s:O,s:O,s:O,s:d,s:d,s:N,s:N,s:N,s:N,s:d,s:d}", "text", str_or_empty(g->text),
        "has_bound", g->has_bound ? Py_True : Py_False, "proved", g->proved ? Py_True : Py_False,
        "relative", g->relative ? Py_True : Py_False, "absolute", g->absolute ? Py_True : Py_False,
        "lo", g->lo, "hi", g->hi, "lo_exact", str_or_empty(g->lo_exact), "hi_exact",
        str_or_empty(g->hi_exact), "lo_decimal", str_or_empty(g->lo_decimal), "hi_decimal",
        str_or_empty(g->hi_decimal), "want_lo", g->want_lo, "want_hi", g->want_hi);
}

/*
 * analyse(ctx, script, engine) -> (engine name, boxes, seconds, all_proved,
 * [goal dicts]). engine: "ia", "aa" or "both". The GIL is released for the
 * analysis.
 */
/* The boxes of the bisection grid (haze_prec_result_box): (count, [sub-ranges
 * of each input], var_lo, var_hi as bytes of count x var_count doubles, lo,
 * hi as bytes of count x goal_count doubles). */
static PyObject *box_tuple(const haze_prec_script *s, const haze_prec_result *r) {
    size_t nb = haze_prec_result_box_count(r), nv = haze_prec_var_count(s);
    size_t ng = haze_prec_result_goal_count(r);
    PyObject *splits = PyList_New((Py_ssize_t)nv);
    PyObject *b[4] = {PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(nb * nv * sizeof(double))),
                      PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(nb * nv * sizeof(double))),
                      PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(nb * ng * sizeof(double))),
                      PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(nb * ng * sizeof(double)))};
    int ok = splits && b[0] && b[1] && b[2] && b[3];
    for (size_t v = 0; ok && v < nv; v++) {
        PyObject *n = PyLong_FromLong(haze_prec_var_bisect(s, v));
        ok = n != NULL;
        if (ok) PyList_SetItem(splits, (Py_ssize_t)v, n);
    }
    if (ok) {
        double *vlo = (double *)PyBytes_AsString(b[0]), *vhi = (double *)PyBytes_AsString(b[1]);
        double *lo = (double *)PyBytes_AsString(b[2]), *hi = (double *)PyBytes_AsString(b[3]);
        for (size_t k = 0; k < nb; k++)
            for (size_t g = 0; g < ng; g++)
                haze_prec_result_box(NULL, r, k, g, g ? NULL : vlo + k * nv,
                                     g ? NULL : vhi + k * nv, lo + k * ng + g, hi + k * ng + g);
    }
    if (!ok) {
        Py_XDECREF(splits);
        for (int i = 0; i < 4; i++) Py_XDECREF(b[i]);
        return NULL;
    }
    return Py_BuildValue("(nNNNNN)", (Py_ssize_t)nb, splits, b[0], b[1], b[2], b[3]);
}

static PyObject *py_analyse(PyObject *self, PyObject *args) {
    PyObject *cap, *scap;
    const char *ename;
    if (!PyArg_ParseTuple(args, "OOs", &cap, &scap, &ename)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    haze_prec_script *s = ctx ? ps_arg(scap) : NULL;
    if (!s) return NULL;
    haze_prec_engine e;
    if (haze_prec_engine_parse(NULL, ename, &e) < 0)
        return hpy_raise_msg(HAZE_ERR_INVALID, "unknown engine '%.40s' (expected ia, aa or both)",
                             ename);
    haze_prec_result *r = NULL;
    int st;
    HPY_NOGIL(st = haze_prec_analyse(ctx, s, e, &r));
    if (st < 0) return hpy_raise(ctx, st);
    size_t ng = haze_prec_result_goal_count(r);
    PyObject *goals = PyList_New((Py_ssize_t)ng);
    for (size_t i = 0; goals && i < ng; i++) {
        const haze_prec_goal *g = haze_prec_result_goal(r, i);
        PyObject *d = g ? goal_dict(g) : NULL;
        if (!d) {
            if (!PyErr_Occurred())
                hpy_raise_msg(HAZE_ERR_INTERNAL, "prec: goal %zu missing from the result", i);
            Py_CLEAR(goals);
            break;
        }
        PyList_SetItem(goals, (Py_ssize_t)i, d);
    }
    PyObject *boxes = goals ? box_tuple(s, r) : NULL;
    if (!boxes) Py_CLEAR(goals);
    PyObject *out = NULL;
    if (goals)
        out = Py_BuildValue("(sndONN)", haze_prec_engine_name(e),
                            (Py_ssize_t)haze_prec_result_boxes(r), haze_prec_result_seconds(r),
                            haze_prec_result_all_proved(r) ? Py_True : Py_False, goals, boxes);
    else
        Py_XDECREF(boxes);
    haze_prec_result_free(r);
    return out;
}

/*
 * eval(ctx, script, x, prec_bits, out): x float64 rows x var_count, out
 * float64 rows x goal_count (writable): each row executed at its point
 * (haze_prec_eval), without the GIL.
 */
static PyObject *py_eval(PyObject *self, PyObject *args) {
    PyObject *cap, *scap, *xobj, *oobj;
    long bits;
    if (!PyArg_ParseTuple(args, "OOOlO", &cap, &scap, &xobj, &bits, &oobj)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    haze_prec_script *s = ctx ? ps_arg(scap) : NULL;
    if (!s) return NULL;
    Py_buffer x, o;
    if (hpy_buffer(xobj, &x, "d", 2, 0) < 0) return NULL;
    if (hpy_buffer(oobj, &o, "d", 2, 1) < 0) {
        PyBuffer_Release(&x);
        return NULL;
    }
    size_t nv = haze_prec_var_count(s), ng = haze_prec_goal_count(s);
    if ((size_t)x.shape[1] != nv || (size_t)o.shape[1] != ng || o.shape[0] != x.shape[0]) {
        PyErr_Format(PyExc_ValueError,
                     "expected points of %zu inputs and room for %zu goals per point (got %zd x "
                     "%zd and %zd x %zd)",
                     nv, ng, x.shape[0], x.shape[1], o.shape[0], o.shape[1]);
        PyBuffer_Release(&x);
        PyBuffer_Release(&o);
        return NULL;
    }
    int st = HAZE_OK;
    size_t rows = (size_t)x.shape[0];
    Py_BEGIN_ALLOW_THREADS;
    for (size_t i = 0; !st && i < rows; i++)
        st = haze_prec_eval(ctx, s, (const double *)x.buf + i * nv, bits, (double *)o.buf + i * ng);
    Py_END_ALLOW_THREADS;
    PyBuffer_Release(&x);
    PyBuffer_Release(&o);
    if (st < 0) return hpy_raise(ctx, st);
    Py_RETURN_NONE;
}

PyMethodDef hpy_prec_methods[] = {
    {"prec_parse", py_parse, METH_VARARGS, "prec_parse(ctx, text, name, unroll, max_ops)"},
    {"prec_load", py_load, METH_VARARGS, "prec_load(ctx, path, unroll, max_ops)"},
    {"prec_info", py_info, METH_VARARGS, "prec_info(ctx, script) -> (vars, goals, notes)"},
    {"prec_set_bisect", py_set_bisect, METH_VARARGS, NULL},
    {"prec_set_refine", py_set_refine, METH_VARARGS, NULL},
    {"prec_analyse", py_analyse, METH_VARARGS,
     "prec_analyse(ctx, script, engine) -> (engine, boxes, seconds, all_proved, goals, "
     "(box_count, splits, var_lo, var_hi, lo, hi))"},
    {"prec_eval", py_eval, METH_VARARGS, "prec_eval(ctx, script, x, prec_bits, out)"},
    {NULL, NULL, 0, NULL}};
