/*
 * fcm.c - the fcm functions of haze._ext: fuzzy c-means fits (Euclidean or
 * Gustafson-Kessel), models made from centres, predictions and hard labels
 * (include/haze/fcm.h). The estimator around them is haze/cluster.py.
 *
 * A result (fit or model) is a "haze.fcm" capsule. Arrays go out through
 * buffers the Python side allocates with NumPy (fcm_read, fcm_predict,
 * fcm_labels): the only copy is the one into the caller's array.
 *
 * A fit runs without the GIL; after each iteration it takes the GIL back
 * just long enough to check for signals (Ctrl-C in a terminal or a
 * notebook's interrupt), which stops the fit and raises KeyboardInterrupt.
 */
#include "hazepy.h"

#include <string.h>

#define FCM_CAPSULE "haze.fcm"

static void fcm_destroy(void *p) {
    haze_fcm_result_free(p);
}

static haze_fcm_result *fcm_handle(PyObject *cap) {
    return hpy_unwrap(cap, FCM_CAPSULE);
}

/* ---- the memberships of a fit, lent to NumPy without a copy
 *
 * A small object exporting the result's n x c memberships through the
 * buffer protocol (as bytes: numpy.frombuffer(...).reshape(n, c) views them)
 * and keeping the result alive while any view of it lives. The buffer is
 * writable: the fit's result is not read again after fcm_fit returns (the
 * Python side predicts with a model made from the centres), so the caller
 * owns these numbers as it would own a copy. */
typedef struct fcm_view {
    PyObject ob_base; /* PyObject_HEAD */
    PyObject *owner;  /* the "haze.fcm" capsule */
    void *buf;
    Py_ssize_t len;
} fcm_view;

static int view_getbuffer(PyObject *self, Py_buffer *view, int flags) {
    fcm_view *v = (fcm_view *)self;
    return PyBuffer_FillInfo(view, self, v->buf, v->len, 0, flags);
}

static void view_dealloc(PyObject *self) {
    PyTypeObject *tp = Py_TYPE(self);
    Py_XDECREF(((fcm_view *)self)->owner);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self);
    Py_DECREF(tp);
}

static PyType_Slot view_slots[] = {
    {Py_bf_getbuffer, (void *)view_getbuffer}, {Py_tp_dealloc, (void *)view_dealloc}, {0, NULL}};

static PyType_Spec view_spec = {"haze._ext.FcmMemberships", (int)sizeof(fcm_view), 0,
                                Py_TPFLAGS_DEFAULT, view_slots};

static PyObject *g_view_type; /* made on first use, kept for the process */

/* fcm_memberships(result) -> an object with the result's n x c float64
 * memberships as a writable buffer of bytes (no copy) */
static PyObject *py_fcm_memberships(PyObject *self, PyObject *cap) {
    haze_fcm_result *r = fcm_handle(cap);
    if (!r) return NULL;
    const double *u = haze_fcm_result_memberships(r);
    if (!u) return hpy_raise_msg(HAZE_ERR_INVALID, "this result has no memberships");
    if (!g_view_type && !(g_view_type = PyType_FromSpec(&view_spec))) return NULL;
    allocfunc alloc = (allocfunc)PyType_GetSlot((PyTypeObject *)g_view_type, Py_tp_alloc);
    fcm_view *v = (fcm_view *)alloc((PyTypeObject *)g_view_type, 0);
    if (!v) return NULL;
    Py_INCREF(cap);
    v->owner = cap;
    v->buf = (void *)u;
    v->len = (Py_ssize_t)(haze_fcm_result_point_count(r) * haze_fcm_result_cluster_count(r) *
                          sizeof(double));
    return (PyObject *)v;
}

/* The progress hook: stops the fit when a signal handler raised. */
typedef struct fit_state {
    int interrupted;
} fit_state;

static int fit_progress(void *arg, int iter, double objective, double change) {
    (void)iter, (void)objective, (void)change;
    fit_state *s = arg;
    PyGILState_STATE g = PyGILState_Ensure();
    if (PyErr_CheckSignals() < 0) s->interrupted = 1; /* the exception stays set on this thread */
    PyGILState_Release(g);
    return s->interrupted;
}

/*
 * fcm_fit(ctx, X (n x d float64 or float32), clusters, m, metric, init,
 *         init_data (float64, c x d centres or n x c memberships) or None,
 *         stop, tol, max_iter, seed, precision, gk_reg) -> result
 */
static PyObject *py_fcm_fit(PyObject *self, PyObject *args) {
    PyObject *cap, *xobj, *initobj;
    int clusters, metric, init, stop, max_iter, precision;
    double m, tol, gk_reg;
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "OOidiiOidiKid", &cap, &xobj, &clusters, &m, &metric, &init,
                          &initobj, &stop, &tol, &max_iter, &seed, &precision, &gk_reg))
        return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    if (!ctx) return NULL;
    if (metric != HAZE_FCM_EUCLIDEAN && metric != HAZE_FCM_GK)
        return hpy_raise_msg(HAZE_ERR_INVALID, "unknown metric %d", metric);
    if (init < HAZE_FCM_INIT_RANDOM || init > HAZE_FCM_INIT_MEMBERSHIPS)
        return hpy_raise_msg(HAZE_ERR_INVALID, "unknown init %d", init);
    if (stop != HAZE_FCM_STOP_MEMBERSHIP && stop != HAZE_FCM_STOP_OBJECTIVE)
        return hpy_raise_msg(HAZE_ERR_INVALID, "unknown stopping rule %d", stop);
    if (precision != HAZE_PRECISION_F64 && precision != HAZE_PRECISION_F32)
        return hpy_raise_msg(HAZE_ERR_INVALID, "unknown precision %d", precision);
    if (clusters < 2)
        return hpy_raise_msg(HAZE_ERR_INVALID, "n_clusters = %d: fuzzy c-means needs at least 2",
                             clusters);
    int given = init == HAZE_FCM_INIT_CENTRES || init == HAZE_FCM_INIT_MEMBERSHIPS;
    if (given != (initobj != Py_None))
        return hpy_raise_msg(HAZE_ERR_INVALID, given ? "this init needs its array"
                                                     : "an init array with a seeded init");
    Py_buffer xv, iv;
    if (hpy_buffer(xobj, &xv, "df", 2, 0) < 0) return NULL;
    size_t n = (size_t)xv.shape[0], d = (size_t)xv.shape[1];
    if (given) {
        if (hpy_buffer(initobj, &iv, "d", 2, 0) < 0) {
            PyBuffer_Release(&xv);
            return NULL;
        }
        size_t rows = init == HAZE_FCM_INIT_CENTRES ? (size_t)clusters : n;
        size_t cols = init == HAZE_FCM_INIT_CENTRES ? d : (size_t)clusters;
        if ((size_t)iv.shape[0] != rows || (size_t)iv.shape[1] != cols) {
            PyBuffer_Release(&iv);
            PyBuffer_Release(&xv);
            return hpy_raise_msg(HAZE_ERR_MISMATCH, "init %s: %zd x %zd where %zu x %zu are needed",
                                 init == HAZE_FCM_INIT_CENTRES ? "centres" : "memberships",
                                 iv.shape[0], iv.shape[1], rows, cols);
        }
    }
    haze_fcm_options o = haze_fcm_options_default();
    o.clusters = clusters;
    o.m = m;
    o.metric = (haze_fcm_metric)metric;
    o.init = (haze_fcm_init)init;
    o.init_data = given ? iv.buf : NULL;
    o.stop = (haze_fcm_stop)stop;
    o.tol = tol;
    o.max_iter = max_iter;
    o.seed = (uint64_t)seed;
    o.precision = (haze_precision)precision;
    o.want_memberships = 1;
    o.gk_reg = gk_reg;
    fit_state s = {0};
    o.progress = fit_progress;
    o.progress_arg = &s;
    haze_fcm_result *r = NULL;
    haze_precision type = hpy_buffer_precision(&xv);
    int st;
    HPY_NOGIL(st = haze_fcm_fit(ctx, xv.buf, type, n, d, &o, &r));
    if (given) PyBuffer_Release(&iv);
    PyBuffer_Release(&xv);
    if (st < 0) return hpy_raise(ctx, st);
    if (s.interrupted || PyErr_Occurred()) {
        haze_fcm_result_free(r);
        if (!PyErr_Occurred()) PyErr_SetNone(PyExc_KeyboardInterrupt);
        return NULL;
    }
    return hpy_wrap(r, FCM_CAPSULE, fcm_destroy, NULL);
}

/*
 * fcm_info(result) -> (n, d, c, m, metric, iterations, converged,
 *   partition coefficient, partition entropy, Xie-Beni, degenerate bits,
 *   has memberships, has norms)
 */
static PyObject *py_fcm_info(PyObject *self, PyObject *cap) {
    haze_fcm_result *r = fcm_handle(cap);
    if (!r) return NULL;
    return Py_BuildValue("(nnndiiidddiii)", (Py_ssize_t)haze_fcm_result_point_count(r),
                         (Py_ssize_t)haze_fcm_result_feature_count(r),
                         (Py_ssize_t)haze_fcm_result_cluster_count(r), haze_fcm_result_fuzzifier(r),
                         (int)haze_fcm_result_metric(r), haze_fcm_result_iterations(r),
                         haze_fcm_result_converged(r), haze_fcm_result_partition_coefficient(r),
                         haze_fcm_result_partition_entropy(r), haze_fcm_result_xie_beni(r),
                         haze_fcm_result_degenerate(r), haze_fcm_result_memberships(r) != NULL,
                         haze_fcm_result_norms(r) != NULL);
}

/* fcm_timings(result) -> (check, setup, seeding, iterations, finish) seconds */
static PyObject *py_fcm_timings(PyObject *self, PyObject *cap) {
    haze_fcm_result *r = fcm_handle(cap);
    if (!r) return NULL;
    const double *t = haze_fcm_result_timings(r);
    return Py_BuildValue("(ddddd)", t[HAZE_FCM_TIME_CHECK], t[HAZE_FCM_TIME_SETUP],
                         t[HAZE_FCM_TIME_SEEDING], t[HAZE_FCM_TIME_ITERATIONS],
                         t[HAZE_FCM_TIME_FINISH]);
}

/*
 * fcm_read(result, what, out): copies one of the result's arrays into the
 * writable float64 buffer `out`, which must hold exactly its values.
 * what: "centres" (c x d), "norms" (c x d x d, GK), "memberships" (n x c),
 * "objective" and "change" (one per iteration).
 */
static PyObject *py_fcm_read(PyObject *self, PyObject *args) {
    PyObject *cap, *outobj;
    const char *what;
    if (!PyArg_ParseTuple(args, "OsO", &cap, &what, &outobj)) return NULL;
    haze_fcm_result *r = fcm_handle(cap);
    if (!r) return NULL;
    size_t n = haze_fcm_result_point_count(r), d = haze_fcm_result_feature_count(r);
    size_t c = haze_fcm_result_cluster_count(r), it = (size_t)haze_fcm_result_iterations(r);
    const double *src;
    size_t count;
    if (strcmp(what, "centres") == 0)
        src = haze_fcm_result_centres(r), count = c * d;
    else if (strcmp(what, "norms") == 0)
        src = haze_fcm_result_norms(r), count = c * d * d;
    else if (strcmp(what, "memberships") == 0)
        src = haze_fcm_result_memberships(r), count = n * c;
    else if (strcmp(what, "objective") == 0)
        src = haze_fcm_result_objective(r), count = it;
    else if (strcmp(what, "change") == 0)
        src = haze_fcm_result_change(r), count = it;
    else
        return hpy_raise_msg(HAZE_ERR_INVALID, "unknown array '%s'", what);
    if (!src && count) return hpy_raise_msg(HAZE_ERR_INVALID, "this result has no %s", what);
    Py_buffer ov;
    if (hpy_buffer(outobj, &ov, "d", 0, 1) < 0) return NULL;
    if ((size_t)ov.len != count * sizeof(double)) {
        PyBuffer_Release(&ov);
        return hpy_raise_msg(HAZE_ERR_MISMATCH, "%s: %zu values, the buffer holds %zd", what, count,
                             ov.len / (Py_ssize_t)sizeof(double));
    }
    if (count) memcpy(ov.buf, src, count * sizeof(double));
    PyBuffer_Release(&ov);
    Py_RETURN_NONE;
}

/* fcm_model_new(ctx, centres (c x d float64), m, norms (c x d x d) or None) -> result */
static PyObject *py_fcm_model_new(PyObject *self, PyObject *args) {
    PyObject *cap, *cobj, *nobj;
    double m;
    if (!PyArg_ParseTuple(args, "OOdO", &cap, &cobj, &m, &nobj)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    if (!ctx) return NULL;
    Py_buffer cv, nv;
    if (hpy_buffer(cobj, &cv, "d", 2, 0) < 0) return NULL;
    size_t c = (size_t)cv.shape[0], d = (size_t)cv.shape[1];
    if (nobj != Py_None) {
        if (hpy_buffer(nobj, &nv, "d", 3, 0) < 0) {
            PyBuffer_Release(&cv);
            return NULL;
        }
        if ((size_t)nv.shape[0] != c || (size_t)nv.shape[1] != d || (size_t)nv.shape[2] != d) {
            PyBuffer_Release(&nv);
            PyBuffer_Release(&cv);
            return hpy_raise_msg(HAZE_ERR_MISMATCH,
                                 "norms: %zd x %zd x %zd where %zu x %zu x %zu are needed",
                                 nv.shape[0], nv.shape[1], nv.shape[2], c, d, d);
        }
    }
    haze_fcm_result *r = NULL;
    int st = haze_fcm_result_new(ctx, c, d, cv.buf, m, nobj != Py_None ? nv.buf : NULL, &r);
    if (nobj != Py_None) PyBuffer_Release(&nv);
    PyBuffer_Release(&cv);
    if (st < 0) return hpy_raise(ctx, st);
    return hpy_wrap(r, FCM_CAPSULE, fcm_destroy, NULL);
}

/* fcm_predict(ctx, result, X (n x d float64), precision, out (n x c float64, writable)) */
static PyObject *py_fcm_predict(PyObject *self, PyObject *args) {
    PyObject *cap, *rcap, *xobj, *outobj;
    int precision;
    if (!PyArg_ParseTuple(args, "OOOiO", &cap, &rcap, &xobj, &precision, &outobj)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    if (!ctx) return NULL;
    haze_fcm_result *r = fcm_handle(rcap);
    if (!r) return NULL;
    if (precision != HAZE_PRECISION_F64 && precision != HAZE_PRECISION_F32)
        return hpy_raise_msg(HAZE_ERR_INVALID, "unknown precision %d", precision);
    Py_buffer xv, ov;
    if (hpy_buffer(xobj, &xv, "d", 2, 0) < 0) return NULL;
    if (hpy_buffer(outobj, &ov, "d", 2, 1) < 0) {
        PyBuffer_Release(&xv);
        return NULL;
    }
    size_t n = (size_t)xv.shape[0], d = (size_t)xv.shape[1], c = haze_fcm_result_cluster_count(r);
    if ((size_t)ov.shape[0] != n || (size_t)ov.shape[1] != c) {
        PyBuffer_Release(&ov);
        PyBuffer_Release(&xv);
        return hpy_raise_msg(HAZE_ERR_MISMATCH, "memberships: %zd x %zd where %zu x %zu are needed",
                             ov.shape[0], ov.shape[1], n, c);
    }
    /* the library checks d against the model (HAZE_ERR_MISMATCH) */
    int st;
    HPY_NOGIL(st = haze_fcm_predict(ctx, r, xv.buf, n, d, (haze_precision)precision, ov.buf));
    PyBuffer_Release(&ov);
    PyBuffer_Release(&xv);
    if (st < 0) return hpy_raise(ctx, st);
    Py_RETURN_NONE;
}

/* fcm_labels(ctx, u (n x c float64), out (n C ints, writable)) */
static PyObject *py_fcm_labels(PyObject *self, PyObject *args) {
    PyObject *cap, *uobj, *outobj;
    if (!PyArg_ParseTuple(args, "OOO", &cap, &uobj, &outobj)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    if (!ctx) return NULL;
    Py_buffer uv, ov;
    if (hpy_buffer(uobj, &uv, "d", 2, 0) < 0) return NULL;
    if (hpy_buffer_raw(outobj, &ov, (Py_ssize_t)sizeof(int), 1) < 0) {
        PyBuffer_Release(&uv);
        return NULL;
    }
    size_t n = (size_t)uv.shape[0], c = (size_t)uv.shape[1];
    if (ov.itemsize != (Py_ssize_t)sizeof(int) || (size_t)ov.len != n * sizeof(int)) {
        PyBuffer_Release(&ov);
        PyBuffer_Release(&uv);
        return hpy_raise_msg(HAZE_ERR_MISMATCH, "labels: a buffer of %zu C ints is needed", n);
    }
    int st = n ? haze_fcm_labels(ctx, uv.buf, n, c, ov.buf) : 0;
    PyBuffer_Release(&ov);
    PyBuffer_Release(&uv);
    if (st < 0) return hpy_raise(ctx, st);
    Py_RETURN_NONE;
}

PyMethodDef hpy_fcm_methods[] = {
    {"fcm_fit", py_fcm_fit, METH_VARARGS,
     "fcm_fit(ctx, X, clusters, m, metric, init, init_data, stop, tol, max_iter, seed, "
     "precision, gk_reg) -> result"},
    {"fcm_info", py_fcm_info, METH_O, "fcm_info(result) -> tuple of scalars"},
    {"fcm_timings", py_fcm_timings, METH_O,
     "fcm_timings(result) -> (check, setup, seeding, iterations, finish) seconds"},
    {"fcm_read", py_fcm_read, METH_VARARGS, "fcm_read(result, what, out)"},
    {"fcm_memberships", py_fcm_memberships, METH_O,
     "fcm_memberships(result) -> the n x c memberships as a buffer (no copy)"},
    {"fcm_model_new", py_fcm_model_new, METH_VARARGS, "fcm_model_new(ctx, centres, m, norms)"},
    {"fcm_predict", py_fcm_predict, METH_VARARGS, "fcm_predict(ctx, result, X, precision, out)"},
    {"fcm_labels", py_fcm_labels, METH_VARARGS, "fcm_labels(ctx, u, out)"},
    {NULL, NULL, 0, NULL}};
