/*
 * fnn.c - the fnn functions of haze._ext: the SONFIN network (haze/fnn.h)
 * for haze/fnn.py's estimators.
 *
 * A network is a "haze.fnn" capsule. Training releases the GIL; the
 * progress callback takes it back for each epoch to hand the epoch's record
 * to a Python callable and to look for signals (Ctrl-C), and stops training
 * when either raises: the network is left as the library leaves it on an
 * early stop (at its best epoch), and the exception propagates once
 * training has returned.
 *
 * Every shape is checked here before the library sees a pointer.
 */
#include "hazepy.h"

#include <string.h>

#define FNN_CAPSULE "haze.fnn"

static void fnn_destroy(void *p) {
    haze_fnn_free(p);
}

static haze_fnn *get_net(PyObject *cap) {
    return hpy_unwrap(cap, FNN_CAPSULE);
}

/* A str as UTF-8 that lives as long as `obj` (no NUL inside: the library
 * takes C strings). NULL with an exception otherwise. */
static const char *utf8_of(PyObject *obj, const char *what) {
    if (!PyUnicode_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be a str", what);
        return NULL;
    }
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(obj, &n);
    if (s && (size_t)n != strlen(s)) {
        PyErr_Format(PyExc_ValueError, "%s cannot hold a NUL character", what);
        return NULL;
    }
    return s;
}

static PyObject *str_or_none(const char *s) {
    if (!s) Py_RETURN_NONE;
    return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace");
}

/* A list of the strings of a sequence (kept alive by the sequence's items,
 * which `keep` holds), or NULL with an exception. */
static const char **strings_of(PyObject *seq, size_t n, const char *what, PyObject **keep) {
    *keep = PySequence_Tuple(seq);
    if (!*keep) return NULL;
    if ((size_t)PyTuple_Size(*keep) != n) {
        PyErr_Format(PyExc_ValueError, "expected %zu %s, got %zd", n, what, PyTuple_Size(*keep));
        Py_CLEAR(*keep);
        return NULL;
    }
    const char **v = PyMem_Calloc(n ? n : 1, sizeof *v);
    if (!v) {
        Py_CLEAR(*keep);
        PyErr_NoMemory();
        return NULL;
    }
    for (size_t j = 0; j < n; j++) {
        PyObject *it = PyTuple_GetItem(*keep, (Py_ssize_t)j);
        if (it == Py_None) continue;
        if (!(v[j] = utf8_of(it, what))) {
            PyMem_Free(v);
            Py_CLEAR(*keep);
            return NULL;
        }
    }
    return v;
}

/* -------------------------------------------------------------- options */

/* fnn_defaults() -> dict of haze_fnn_options_default(), in the C names */
static PyObject *py_fnn_defaults(PyObject *self, PyObject *unused) {
    haze_fnn_options o = haze_fnn_options_default();
    return Py_BuildValue("{s:i,s:d,s:d,s:d,s:d,s:d,s:d,s:n,s:n,s:K,s:i,s:i,s:d}", "epochs",
                         o.epochs, "threshold", o.threshold, "decay", o.decay, "beta", o.beta,
                         "width", o.width, "sigma0", o.sigma0, "rate", o.rate, "batch",
                         (Py_ssize_t)o.batch, "max_rules", (Py_ssize_t)o.max_rules, "seed",
                         (unsigned long long)o.seed, "shuffle", o.shuffle, "scaling", o.scaling,
                         "validation", o.validation);
}

static int opt_double(PyObject *d, const char *key, double *out) {
    PyObject *v = PyDict_GetItemString(d, key); /* borrowed */
    if (!v) return 0;
    double x = PyFloat_AsDouble(v);
    if (x == -1.0 && PyErr_Occurred()) return -1;
    *out = x;
    return 0;
}

static int opt_count(PyObject *d, const char *key, long long lo, long long hi, long long *out) {
    PyObject *v = PyDict_GetItemString(d, key);
    if (!v) return 0;
    long long x = PyLong_AsLongLong(v);
    if (x == -1 && PyErr_Occurred()) return -1;
    if (x < lo || x > hi) {
        PyErr_Format(PyExc_ValueError, "%s must lie in [%lld, %lld], got %lld", key, lo, hi, x);
        return -1;
    }
    *out = x;
    return 0;
}

/* Options from a dict with the C names (keys missing: the defaults). */
static int options_of(PyObject *d, haze_fnn_options *o) {
    *o = haze_fnn_options_default();
    if (d == Py_None) return 0;
    if (!PyDict_Check(d)) {
        PyErr_SetString(PyExc_TypeError, "options must be a dict");
        return -1;
    }
    long long epochs = o->epochs, batch = (long long)o->batch, maxr = (long long)o->max_rules;
    long long seed = (long long)o->seed, shuffle = o->shuffle, scaling = o->scaling;
    if (opt_count(d, "epochs", 0, 1000000000, &epochs) < 0 ||
        opt_double(d, "threshold", &o->threshold) < 0 || opt_double(d, "decay", &o->decay) < 0 ||
        opt_double(d, "beta", &o->beta) < 0 || opt_double(d, "width", &o->width) < 0 ||
        opt_double(d, "sigma0", &o->sigma0) < 0 || opt_double(d, "rate", &o->rate) < 0 ||
        opt_double(d, "validation", &o->validation) < 0 ||
        opt_count(d, "batch", 1, (long long)1 << 40, &batch) < 0 ||
        opt_count(d, "max_rules", 0, (long long)1 << 40, &maxr) < 0 ||
        opt_count(d, "seed", 0, 0x7fffffffffffffffLL, &seed) < 0 ||
        opt_count(d, "shuffle", 0, 1, &shuffle) < 0 || opt_count(d, "scaling", 0, 1, &scaling) < 0)
        return -1;
    o->epochs = (int)epochs;
    o->batch = (size_t)batch;
    o->max_rules = (size_t)maxr;
    o->seed = (uint64_t)seed;
    o->shuffle = (int)shuffle;
    o->scaling = (int)scaling;
    return 0;
}

/* ------------------------------------------------------------- networks */

/* fnn_new(ctx, inputs, outputs) -> net */
static PyObject *py_fnn_new(PyObject *self, PyObject *args) {
    PyObject *cap;
    Py_ssize_t inputs, outputs;
    if (!PyArg_ParseTuple(args, "Onn", &cap, &inputs, &outputs)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    if (!ctx) return NULL;
    if (inputs < 1 || outputs < 1)
        return hpy_raise_msg(HAZE_ERR_INVALID,
                             "fnn: a network needs at least one input and one "
                             "output (got %zd and %zd)",
                             inputs, outputs);
    haze_fnn *net = NULL;
    int st = haze_fnn_new(ctx, (size_t)inputs, (size_t)outputs, &net);
    if (st < 0) return hpy_raise(ctx, st);
    return hpy_wrap(net, FNN_CAPSULE, fnn_destroy, NULL);
}

/* fnn_set_classes(ctx, net, names) */
static PyObject *py_fnn_set_classes(PyObject *self, PyObject *args) {
    PyObject *cap, *ncap, *seq, *keep = NULL;
    if (!PyArg_ParseTuple(args, "OOO", &cap, &ncap, &seq)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    haze_fnn *net = ctx ? get_net(ncap) : NULL;
    if (!net) return NULL;
    size_t L = haze_fnn_output_count(net);
    const char **names = strings_of(seq, L, "class names", &keep);
    if (!names) return NULL;
    for (size_t k = 0; k < L; k++)
        if (!names[k]) {
            PyMem_Free(names);
            Py_DECREF(keep);
            PyErr_SetString(PyExc_TypeError, "class names must be str");
            return NULL;
        }
    int st = haze_fnn_set_classes(ctx, net, names, L);
    PyMem_Free(names);
    Py_DECREF(keep);
    if (st < 0) return hpy_raise(ctx, st);
    Py_RETURN_NONE;
}

/* fnn_set_names(ctx, net, inputs or None, target or None) */
static PyObject *py_fnn_set_names(PyObject *self, PyObject *args) {
    PyObject *cap, *ncap, *seq, *tobj, *keep = NULL;
    if (!PyArg_ParseTuple(args, "OOOO", &cap, &ncap, &seq, &tobj)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    haze_fnn *net = ctx ? get_net(ncap) : NULL;
    if (!net) return NULL;
    const char *target = NULL;
    if (tobj != Py_None && !(target = utf8_of(tobj, "the target name"))) return NULL;
    const char **names = NULL;
    if (seq != Py_None &&
        !(names = strings_of(seq, haze_fnn_input_count(net), "input names", &keep)))
        return NULL;
    int st = haze_fnn_set_names(ctx, net, names, target);
    PyMem_Free(names);
    Py_XDECREF(keep);
    if (st < 0) return hpy_raise(ctx, st);
    Py_RETURN_NONE;
}

/* fnn_info(net) -> dict: inputs, outputs, rules, classifier, version,
 * classes (list or None), names (list, None for unnamed), target */
static PyObject *py_fnn_info(PyObject *self, PyObject *ncap) {
    haze_fnn *net = get_net(ncap);
    if (!net) return NULL;
    size_t D = haze_fnn_input_count(net), L = haze_fnn_output_count(net);
    int cls = haze_fnn_is_classifier(net);
    PyObject *classes = Py_None, *names = PyList_New((Py_ssize_t)D);
    Py_INCREF(classes);
    for (size_t j = 0; names && j < D; j++) {
        PyObject *s = str_or_none(haze_fnn_input_name(net, j));
        if (!s) {
            Py_CLEAR(names);
            break;
        }
        PyList_SetItem(names, (Py_ssize_t)j, s);
    }
    if (names && cls) {
        Py_DECREF(classes);
        classes = PyList_New((Py_ssize_t)L);
        for (size_t k = 0; classes && k < L; k++) {
            const char *c = haze_fnn_class_name(net, k);
            PyObject *s =
                PyUnicode_DecodeUTF8(c ? c : "", c ? (Py_ssize_t)strlen(c) : 0, "replace");
            if (!s) {
                Py_CLEAR(classes);
                break;
            }
            PyList_SetItem(classes, (Py_ssize_t)k, s);
        }
    }
    PyObject *target = names && classes ? str_or_none(haze_fnn_target_name(net)) : NULL;
    if (!names || !classes || !target) {
        Py_XDECREF(names);
        Py_XDECREF(classes);
        Py_XDECREF(target);
        return NULL;
    }
    return Py_BuildValue("{s:n,s:n,s:n,s:O,s:i,s:N,s:N,s:N}", "inputs", (Py_ssize_t)D, "outputs",
                         (Py_ssize_t)L, "rules", (Py_ssize_t)haze_fnn_rule_count(net), "classifier",
                         cls ? Py_True : Py_False, "version", haze_fnn_file_version(net), "classes",
                         classes, "names", names, "target", target);
}

static PyObject *doubles(const double *v, size_t n) {
    PyObject *b = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(n * sizeof(double)));
    if (b && n) memcpy(PyByteArray_AsString(b), v, n * sizeof(double));
    return b;
}

/* fnn_params(net) -> (centres, widths, weights, mean, scale, tmean, tscale)
 * as bytearrays of doubles (copies: the network may be trained again) */
static PyObject *py_fnn_params(PyObject *self, PyObject *ncap) {
    haze_fnn *net = get_net(ncap);
    if (!net) return NULL;
    size_t D = haze_fnn_input_count(net), L = haze_fnn_output_count(net);
    size_t R = haze_fnn_rule_count(net);
    return Py_BuildValue("(NNNNNNN)", doubles(haze_fnn_centres(net), R * D),
                         doubles(haze_fnn_widths(net), R * D),
                         doubles(haze_fnn_weights(net), R * L), doubles(haze_fnn_mean(net), D),
                         doubles(haze_fnn_scale(net), D), doubles(haze_fnn_target_mean(net), L),
                         doubles(haze_fnn_target_scale(net), L));
}

/* ------------------------------------------------------------- training */

typedef struct {
    PyObject *fn; /* called with each epoch's dict; may be NULL */
    int raised;   /* an exception is set on this thread: training stopped for it */
} progress_state;

static PyObject *epoch_dict(const haze_fnn_epoch *e) {
    return Py_BuildValue("{s:i,s:n,s:d,s:d,s:d,s:d,s:d,s:d,s:d,s:i,s:n,s:n}", "epoch", e->epoch,
                         "rules", (Py_ssize_t)e->rules, "loss", e->loss, "accuracy", e->accuracy,
                         "seconds", e->seconds, "threshold", e->threshold, "rate", e->rate,
                         "val_loss", e->val_loss, "val_accuracy", e->val_accuracy, "best_epoch",
                         e->best_epoch, "train_samples", (Py_ssize_t)e->train_samples,
                         "val_samples", (Py_ssize_t)e->val_samples);
}

/* Runs without the GIL around it: takes it for the Python side of the
 * epoch. A raised exception (Ctrl-C included) stays set on this thread and
 * stops training; py_fnn_train reports it after the library returns. */
static int on_epoch(void *arg, const haze_fnn_epoch *e) {
    progress_state *p = arg;
    PyGILState_STATE g = PyGILState_Ensure();
    int stop = 0;
    if (PyErr_CheckSignals() < 0) {
        stop = 1;
    } else if (p->fn) {
        PyObject *d = epoch_dict(e), *r = NULL;
        if (d) r = PyObject_CallFunctionObjArgs(p->fn, d, NULL);
        Py_XDECREF(d);
        if (!r) {
            stop = 1;
        } else {
            stop = PyObject_IsTrue(r);
            Py_DECREF(r);
            if (stop < 0) stop = 1;
        }
    }
    if (stop && PyErr_Occurred()) p->raised = 1;
    PyGILState_Release(g);
    return stop;
}

/*
 * fnn_train(ctx, net, x, targets, labels, options, progress) -> None.
 * x: n x inputs float64; targets: n x outputs float64 (labels false) or n
 * int32 class indices (labels true); options: dict of haze_fnn_options
 * fields by their C names or None; progress: callable(dict) or None, whose
 * true result stops training.
 */
static PyObject *py_fnn_train(PyObject *self, PyObject *args) {
    PyObject *cap, *ncap, *xobj, *tobj, *oobj, *fn;
    int labels;
    if (!PyArg_ParseTuple(args, "OOOOpOO", &cap, &ncap, &xobj, &tobj, &labels, &oobj, &fn))
        return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    haze_fnn *net = ctx ? get_net(ncap) : NULL;
    if (!net) return NULL;
    if (fn != Py_None && !PyCallable_Check(fn)) {
        PyErr_SetString(PyExc_TypeError, "progress must be callable or None");
        return NULL;
    }
    haze_fnn_options o;
    if (options_of(oobj, &o) < 0) return NULL;
    size_t D = haze_fnn_input_count(net), L = haze_fnn_output_count(net);
    Py_buffer xv, tv;
    if (hpy_buffer(xobj, &xv, "d", 2, 0) < 0) return NULL;
    size_t n = (size_t)xv.shape[0];
    if ((size_t)xv.shape[1] != D) {
        PyBuffer_Release(&xv);
        return hpy_raise_msg(HAZE_ERR_MISMATCH,
                             "fnn train: x has %zd columns, the network %zu inputs", xv.shape[1],
                             D);
    }
    if (labels ? hpy_buffer_raw(tobj, &tv, (Py_ssize_t)sizeof(int), 0)
               : hpy_buffer(tobj, &tv, "d", 2, 0)) {
        PyBuffer_Release(&xv);
        return NULL;
    }
    int bad = labels ? tv.itemsize != (Py_ssize_t)sizeof(int) || (size_t)tv.len != n * sizeof(int)
                     : (size_t)tv.shape[0] != n || (size_t)tv.shape[1] != L;
    if (bad) {
        PyBuffer_Release(&xv);
        PyBuffer_Release(&tv);
        return hpy_raise_msg(HAZE_ERR_MISMATCH,
                             labels ? "fnn train: expected %zu int32 labels, one per row of x"
                                    : "fnn train: expected %zu x %zu targets",
                             n, L);
    }
    if (labels && !haze_fnn_is_classifier(net) && haze_fnn_rule_count(net)) {
        PyBuffer_Release(&xv);
        PyBuffer_Release(&tv);
        return hpy_raise_msg(HAZE_ERR_INVALID, "fnn train: class labels for a regression network");
    }
    progress_state ps = {fn == Py_None ? NULL : fn, 0};
    o.progress = on_epoch;
    o.progress_arg = &ps;
    int st;
    if (labels)
        HPY_NOGIL(st = haze_fnn_train_classes(ctx, net, xv.buf, tv.buf, n, &o));
    else
        HPY_NOGIL(st = haze_fnn_train(ctx, net, xv.buf, tv.buf, n, &o));
    PyBuffer_Release(&xv);
    PyBuffer_Release(&tv);
    if (ps.raised && PyErr_Occurred()) return NULL;
    if (st < 0) return hpy_raise(ctx, st);
    Py_RETURN_NONE;
}

/* fnn_predict(ctx, net, x, y): y (n x outputs float64, writable) gets the
 * network's outputs for x (n x inputs float64) */
static PyObject *py_fnn_predict(PyObject *self, PyObject *args) {
    PyObject *cap, *ncap, *xobj, *yobj;
    if (!PyArg_ParseTuple(args, "OOOO", &cap, &ncap, &xobj, &yobj)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    haze_fnn *net = ctx ? get_net(ncap) : NULL;
    if (!net) return NULL;
    size_t D = haze_fnn_input_count(net), L = haze_fnn_output_count(net);
    Py_buffer xv, yv;
    if (hpy_buffer(xobj, &xv, "d", 2, 0) < 0) return NULL;
    if (hpy_buffer(yobj, &yv, "d", 2, 1) < 0) {
        PyBuffer_Release(&xv);
        return NULL;
    }
    size_t n = (size_t)xv.shape[0];
    int st;
    if ((size_t)xv.shape[1] != D || (size_t)yv.shape[0] != n || (size_t)yv.shape[1] != L) {
        PyBuffer_Release(&xv);
        PyBuffer_Release(&yv);
        return hpy_raise_msg(HAZE_ERR_MISMATCH,
                             "fnn predict: x must be n x %zu and y n x %zu (got %zd x %zd and "
                             "%zd x %zd)",
                             D, L, xv.shape[0], xv.shape[1], yv.shape[0], yv.shape[1]);
    }
    HPY_NOGIL(st = haze_fnn_predict(ctx, net, xv.buf, n, yv.buf));
    PyBuffer_Release(&xv);
    PyBuffer_Release(&yv);
    if (st < 0) return hpy_raise(ctx, st);
    Py_RETURN_NONE;
}

/* ---------------------------------------------------------------- files */

typedef int (*net_path_fn)(haze_ctx *, const haze_fnn *, const char *);

static PyObject *net_to_path(PyObject *args, net_path_fn f) {
    PyObject *cap, *ncap, *pobj;
    if (!PyArg_ParseTuple(args, "OOO", &cap, &ncap, &pobj)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    haze_fnn *net = ctx ? get_net(ncap) : NULL;
    if (!net) return NULL;
    PyObject *path = hpy_path(pobj);
    if (!path) return NULL;
    int st;
    const char *p = PyBytes_AsString(path);
    HPY_NOGIL(st = f(ctx, net, p));
    Py_DECREF(path);
    if (st < 0) return hpy_raise(ctx, st);
    Py_RETURN_NONE;
}

/* fnn_save(ctx, net, path) */
static PyObject *py_fnn_save(PyObject *self, PyObject *args) {
    return net_to_path(args, haze_fnn_save);
}

/* fnn_export_fis(ctx, net, path) */
static PyObject *py_fnn_export_fis(PyObject *self, PyObject *args) {
    return net_to_path(args, haze_fnn_export_fis);
}

/* fnn_load(ctx, path) -> net */
static PyObject *py_fnn_load(PyObject *self, PyObject *args) {
    PyObject *cap, *pobj;
    if (!PyArg_ParseTuple(args, "OO", &cap, &pobj)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    if (!ctx) return NULL;
    PyObject *path = hpy_path(pobj);
    if (!path) return NULL;
    haze_fnn *net = NULL;
    int st;
    const char *p = PyBytes_AsString(path);
    HPY_NOGIL(st = haze_fnn_load(ctx, p, &net));
    Py_DECREF(path);
    if (st < 0) return hpy_raise(ctx, st);
    return hpy_wrap(net, FNN_CAPSULE, fnn_destroy, NULL);
}

PyMethodDef hpy_fnn_methods[] = {
    {"fnn_defaults", py_fnn_defaults, METH_NOARGS, "fnn_defaults() -> haze_fnn_options_default()"},
    {"fnn_new", py_fnn_new, METH_VARARGS, "fnn_new(ctx, inputs, outputs) -> net"},
    {"fnn_set_classes", py_fnn_set_classes, METH_VARARGS, "fnn_set_classes(ctx, net, names)"},
    {"fnn_set_names", py_fnn_set_names, METH_VARARGS,
     "fnn_set_names(ctx, net, inputs or None, target or None)"},
    {"fnn_info", py_fnn_info, METH_O, "fnn_info(net) -> dict"},
    {"fnn_params", py_fnn_params, METH_O,
     "fnn_params(net) -> (centres, widths, weights, mean, scale, tmean, tscale)"},
    {"fnn_train", py_fnn_train, METH_VARARGS,
     "fnn_train(ctx, net, x, targets, labels, options, progress)"},
    {"fnn_predict", py_fnn_predict, METH_VARARGS, "fnn_predict(ctx, net, x, y)"},
    {"fnn_save", py_fnn_save, METH_VARARGS, "fnn_save(ctx, net, path)"},
    {"fnn_load", py_fnn_load, METH_VARARGS, "fnn_load(ctx, path) -> net"},
    {"fnn_export_fis", py_fnn_export_fis, METH_VARARGS, "fnn_export_fis(ctx, net, path)"},
    {NULL, NULL, 0, NULL}};
