/*
 * fuzzy.c - the fuzzy functions of haze._ext: arrays of fuzzy numbers
 * (haze/fuzzy.h) as "haze.fuzzy_array" capsules, their construction from
 * membership functions (decimal parameters enclosed by the library, as the
 * command line does), element-wise operations, AXPY, sort-by-key and the
 * read-out of cuts. haze/fuzzy.py wraps them in FuzzyNumber and FuzzyArray.
 *
 * Construction and read-out take host arrays in the library; device arrays
 * (haze_fuzzy_array_new_device) go through a host copy here, so that the
 * Python side may treat both alike.
 */
#include "hazepy.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define FZ_CAPSULE "haze.fuzzy_array"

static void fz_destroy(void *p) {
    haze_fuzzy_array_free(p);
}

static haze_fuzzy_array *fz_arg(PyObject *cap) {
    return hpy_unwrap(cap, FZ_CAPSULE);
}

static size_t fz_elem(const haze_fuzzy_array *a) {
    return haze_fuzzy_array_precision(a) == HAZE_PRECISION_F32 ? sizeof(float) : sizeof(double);
}

static size_t fz_bytes(const haze_fuzzy_array *a) {
    return haze_fuzzy_array_count(a) * haze_fuzzy_array_stride(a) * fz_elem(a);
}

/* A new host array shaped as `a` (same encoding, precision, levels, count). */
static int fz_host_like(haze_ctx *ctx, const haze_fuzzy_array *a, haze_fuzzy_array **out) {
    return haze_fuzzy_array_new(ctx, haze_fuzzy_array_encoding(a), haze_fuzzy_array_precision(a),
                                haze_fuzzy_array_cut_count(a), haze_fuzzy_array_count(a),
                                haze_fuzzy_array_alphas(a), out);
}

/*
 * The host array to read `a` from: `a` itself, or a host copy of a device
 * array in *tmp (freed by the caller). Returns a status.
 */
static int fz_host_view(haze_ctx *ctx, const haze_fuzzy_array *a, const haze_fuzzy_array **host,
                        haze_fuzzy_array **tmp) {
    *tmp = NULL;
    *host = a;
    if (!haze_fuzzy_array_on_device(a)) return HAZE_OK;
    int st = fz_host_like(ctx, a, tmp);
    if (!st) st = haze_fuzzy_array_copy(ctx, *tmp, a);
    if (st) {
        haze_fuzzy_array_free(*tmp);
        *tmp = NULL;
        return st;
    }
    *host = *tmp;
    return HAZE_OK;
}

/* Raises for status st of a call on ctx, freeing `tmp` after reading the message. */
static PyObject *fz_fail(haze_ctx *ctx, int st, haze_fuzzy_array *tmp) {
    hpy_raise(ctx, st);
    haze_fuzzy_array_free(tmp);
    return NULL;
}

/* An index in 0..count-1 (negative indices are the Python side's business). */
static int fz_index(const haze_fuzzy_array *a, Py_ssize_t i) {
    if (i < 0 || (size_t)i >= haze_fuzzy_array_count(a)) {
        PyErr_Format(PyExc_IndexError, "index %zd out of range for %zu fuzzy numbers", i,
                     haze_fuzzy_array_count(a));
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------- numbers */

/* parse_number(text) -> (lo, hi, end): the tightest double enclosure of the
 * decimal or hex-float number at the start of text (after spaces), and the
 * number of characters read. */
static PyObject *py_parse_number(PyObject *self, PyObject *arg) {
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(arg, &n);
    if (!s) return NULL;
    if ((Py_ssize_t)strlen(s) != n)
        return hpy_raise_msg(HAZE_ERR_PARSE, "not a number: embedded NUL character");
    double lo, hi;
    const char *end = s;
    haze_ctx *none = NULL;
    int st = haze_fuzzy_parse_number(none, s, &end, &lo, &hi);
    if (st == HAZE_ERR_PARSE) return hpy_raise_msg(st, "not a number: '%.60s'", s);
    if (st == HAZE_ERR_RANGE) return hpy_raise_msg(st, "'%.60s': beyond the range of double", s);
    if (st) return hpy_raise_msg(st, "'%.60s': %s", s, haze_status_message(st));
    return Py_BuildValue("(ddn)", lo, hi, (Py_ssize_t)(end - s));
}

/* hex(x) -> str: x as C's %a prints it (the command line's --exact), with
 * "inf", "-inf" and "nan" for the values that are no numbers. */
static PyObject *py_hex(PyObject *self, PyObject *arg) {
    double x = PyFloat_AsDouble(arg);
    if (x == -1.0 && PyErr_Occurred()) return NULL;
    char buf[64];
    if (x != x)
        snprintf(buf, sizeof buf, "nan");
    else if (isinf(x))
        snprintf(buf, sizeof buf, "%s", x > 0 ? "inf" : "-inf");
    else
        snprintf(buf, sizeof buf, "%a", x);
    return PyUnicode_FromString(buf);
}

/* encoding_parse(name) -> int; encoding_name(int) -> str */
static PyObject *py_encoding_parse(PyObject *self, PyObject *arg) {
    const char *s = PyUnicode_AsUTF8AndSize(arg, NULL);
    if (!s) return NULL;
    haze_fuzzy_encoding e;
    if (haze_fuzzy_encoding_parse(NULL, s, &e) < 0)
        return hpy_raise_msg(HAZE_ERR_INVALID, "unknown encoding '%.40s' (expected lu, mr or mi)",
                             s);
    return PyLong_FromLong((long)e);
}

/* ------------------------------------------------------------- arrays */

/*
 * new(ctx, encoding, precision, ncuts, count, alphas or None, device) -> array.
 * device: the context's GPU memory (haze_fuzzy_array_new_device).
 */
static PyObject *py_new(PyObject *self, PyObject *args) {
    PyObject *cap, *alphas;
    int enc, prec, ncuts, device;
    Py_ssize_t count;
    if (!PyArg_ParseTuple(args, "OiiinOp", &cap, &enc, &prec, &ncuts, &count, &alphas, &device))
        return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    if (!ctx) return NULL;
    if (enc < HAZE_FUZZY_LU || enc > HAZE_FUZZY_MI)
        return hpy_raise_msg(HAZE_ERR_INVALID, "unknown encoding %d", enc);
    if (prec != HAZE_PRECISION_F64 && prec != HAZE_PRECISION_F32)
        return hpy_raise_msg(HAZE_ERR_INVALID, "unknown precision %d", prec);
    if (count < 0) return hpy_raise_msg(HAZE_ERR_INVALID, "negative count %zd", count);
    Py_buffer v;
    const double *al = NULL;
    int have = alphas != Py_None;
    if (have) {
        if (hpy_buffer(alphas, &v, "d", 1, 0) < 0) return NULL;
        if (v.shape[0] != ncuts) {
            PyBuffer_Release(&v);
            return hpy_raise_msg(HAZE_ERR_INVALID, "%zd levels for %d cuts", v.shape[0], ncuts);
        }
        al = v.buf;
    }
    haze_fuzzy_array *a = NULL;
    int st;
    if (device)
        HPY_NOGIL(st = haze_fuzzy_array_new_device(ctx, (haze_fuzzy_encoding)enc,
                                                   (haze_precision)prec, ncuts, (size_t)count, al,
                                                   &a));
    else
        HPY_NOGIL(st = haze_fuzzy_array_new(ctx, (haze_fuzzy_encoding)enc, (haze_precision)prec,
                                            ncuts, (size_t)count, al, &a));
    if (have) PyBuffer_Release(&v);
    if (st < 0) return hpy_raise(ctx, st);
    /* the context is kept alive: a device array's memory belongs to its device */
    return hpy_wrap(a, FZ_CAPSULE, fz_destroy, cap);
}

/* info(array) -> (encoding, precision, ncuts, count, stride, on_device, alphas) */
static PyObject *py_info(PyObject *self, PyObject *cap) {
    haze_fuzzy_array *a = fz_arg(cap);
    if (!a) return NULL;
    int n = haze_fuzzy_array_cut_count(a);
    PyObject *al = PyTuple_New(n);
    if (!al) return NULL;
    for (int k = 0; k < n; k++) {
        PyObject *x = PyFloat_FromDouble(haze_fuzzy_array_alphas(a)[k]);
        if (!x) {
            Py_DECREF(al);
            return NULL;
        }
        PyTuple_SetItem(al, k, x);
    }
    return Py_BuildValue("(iiinniN)", (int)haze_fuzzy_array_encoding(a),
                         (int)haze_fuzzy_array_precision(a), n,
                         (Py_ssize_t)haze_fuzzy_array_count(a),
                         (Py_ssize_t)haze_fuzzy_array_stride(a), haze_fuzzy_array_on_device(a), al);
}

/* copy(ctx, dst, src): host or device in any combination, same shapes. */
static PyObject *py_copy(PyObject *self, PyObject *args) {
    PyObject *cap, *dcap, *scap;
    if (!PyArg_ParseTuple(args, "OOO", &cap, &dcap, &scap)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    haze_fuzzy_array *d = ctx ? fz_arg(dcap) : NULL, *s = d ? fz_arg(scap) : NULL;
    if (!s) return NULL;
    int st;
    HPY_NOGIL(st = haze_fuzzy_array_copy(ctx, d, s));
    if (st < 0) return hpy_raise(ctx, st);
    Py_RETURN_NONE;
}

/* set_membership(ctx, array, i, spec): "tri(l, m, u)" etc. with decimal
 * parameters, each enclosed and the cuts rounded outward (the command
 * line's reading). */
static PyObject *py_set_membership(PyObject *self, PyObject *args) {
    PyObject *cap, *acap;
    Py_ssize_t i;
    const char *spec;
    if (!PyArg_ParseTuple(args, "OOns", &cap, &acap, &i, &spec)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    haze_fuzzy_array *a = ctx ? fz_arg(acap) : NULL;
    if (!a || fz_index(a, i) < 0) return NULL;
    if (haze_fuzzy_array_on_device(a))
        return hpy_raise_msg(HAZE_ERR_INVALID, "fuzzy: construction takes a host array");
    int st = haze_fuzzy_set_membership(ctx, a, (size_t)i, spec, NULL);
    if (st < 0) return hpy_raise(ctx, st);
    Py_RETURN_NONE;
}

/* set_iv(ctx, array, i, kind, ((lo, hi), ...)): kind 0 tri (3 parameters),
 * 1 trap (4), 2 gauss (3), each parameter an enclosure. */
static PyObject *py_set_iv(PyObject *self, PyObject *args) {
    PyObject *cap, *acap;
    Py_ssize_t i;
    int kind;
    PyObject *params;
    if (!PyArg_ParseTuple(args, "OOniO", &cap, &acap, &i, &kind, &params)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    haze_fuzzy_array *a = ctx ? fz_arg(acap) : NULL;
    if (!a || fz_index(a, i) < 0) return NULL;
    if (haze_fuzzy_array_on_device(a))
        return hpy_raise_msg(HAZE_ERR_INVALID, "fuzzy: construction takes a host array");
    if (kind < 0 || kind > 2)
        return hpy_raise_msg(HAZE_ERR_INVALID, "unknown membership function %d", kind);
    Py_ssize_t want = kind == 1 ? 4 : 3;
    haze_ivd v[4];
    Py_ssize_t n = PySequence_Size(params);
    if (n < 0) return NULL;
    if (n != want)
        return hpy_raise_msg(HAZE_ERR_INVALID, "%zd parameters where %zd are expected", n, want);
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *it = PySequence_GetItem(params, k);
        if (!it) return NULL;
        int ok = PyArg_ParseTuple(it, "dd", &v[k].lo, &v[k].hi);
        Py_DECREF(it);
        if (!ok) return NULL;
    }
    int st = kind == 0   ? haze_fuzzy_set_tri_iv(ctx, a, (size_t)i, v[0], v[1], v[2])
             : kind == 1 ? haze_fuzzy_set_trap_iv(ctx, a, (size_t)i, v[0], v[1], v[2], v[3])
                         : haze_fuzzy_set_gauss_iv(ctx, a, (size_t)i, v[0], v[1], v[2]);
    if (st < 0) return hpy_raise(ctx, st);
    Py_RETURN_NONE;
}

/* set_crisp(ctx, array, i, lo, hi) */
static PyObject *py_set_crisp(PyObject *self, PyObject *args) {
    PyObject *cap, *acap;
    Py_ssize_t i;
    double lo, hi;
    if (!PyArg_ParseTuple(args, "OOndd", &cap, &acap, &i, &lo, &hi)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    haze_fuzzy_array *a = ctx ? fz_arg(acap) : NULL;
    if (!a || fz_index(a, i) < 0) return NULL;
    if (haze_fuzzy_array_on_device(a))
        return hpy_raise_msg(HAZE_ERR_INVALID, "fuzzy: construction takes a host array");
    int st = haze_fuzzy_set_crisp(ctx, a, (size_t)i, lo, hi);
    if (st < 0) return hpy_raise(ctx, st);
    Py_RETURN_NONE;
}

/* Checks a 2-D float64 buffer of count x ncuts. */
static int fz_cut_buffer(const haze_fuzzy_array *a, PyObject *obj, Py_buffer *v, int writable) {
    if (hpy_buffer(obj, v, "d", 2, writable) < 0) return -1;
    if ((size_t)v->shape[0] != haze_fuzzy_array_count(a) ||
        v->shape[1] != haze_fuzzy_array_cut_count(a)) {
        PyErr_Format(PyExc_ValueError, "expected %zu x %d cut bounds, got %zd x %zd",
                     haze_fuzzy_array_count(a), haze_fuzzy_array_cut_count(a), v->shape[0],
                     v->shape[1]);
        PyBuffer_Release(v);
        return -1;
    }
    return 0;
}

/*
 * set_cuts(ctx, array, lo, hi) -> None: every number from its cuts, lo and
 * hi float64 (count x ncuts), row i the cuts of number i from the highest
 * level down. A device array is filled through a host copy.
 */
static PyObject *py_set_cuts(PyObject *self, PyObject *args) {
    PyObject *cap, *acap, *loobj, *hiobj;
    if (!PyArg_ParseTuple(args, "OOOO", &cap, &acap, &loobj, &hiobj)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    haze_fuzzy_array *a = ctx ? fz_arg(acap) : NULL;
    if (!a) return NULL;
    Py_buffer lo, hi;
    if (fz_cut_buffer(a, loobj, &lo, 0) < 0) return NULL;
    if (fz_cut_buffer(a, hiobj, &hi, 0) < 0) {
        PyBuffer_Release(&lo);
        return NULL;
    }
    haze_fuzzy_array *tmp = NULL, *dst = a;
    int st = HAZE_OK;
    size_t n = haze_fuzzy_array_count(a), nc = (size_t)haze_fuzzy_array_cut_count(a);
    Py_BEGIN_ALLOW_THREADS;
    if (haze_fuzzy_array_on_device(a)) {
        st = fz_host_like(ctx, a, &tmp);
        dst = tmp;
    }
    for (size_t i = 0; !st && i < n; i++)
        st = haze_fuzzy_set_cuts(ctx, dst, i, (const double *)lo.buf + i * nc,
                                 (const double *)hi.buf + i * nc);
    if (!st && tmp) st = haze_fuzzy_array_copy(ctx, a, tmp);
    Py_END_ALLOW_THREADS;
    PyBuffer_Release(&lo);
    PyBuffer_Release(&hi);
    if (st < 0) return fz_fail(ctx, st, tmp);
    haze_fuzzy_array_free(tmp);
    Py_RETURN_NONE;
}

/*
 * set_mf(ctx, array, kind, p) -> None: number i from membership function
 * `kind` (0 tri, 1 trap, 2 gauss) with the parameters of row i of p (a
 * float64 count x 3 or 4 buffer of doubles, each exact). Host arrays.
 */
static PyObject *py_set_mf(PyObject *self, PyObject *args) {
    PyObject *cap, *acap, *pobj;
    int kind;
    if (!PyArg_ParseTuple(args, "OOiO", &cap, &acap, &kind, &pobj)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    haze_fuzzy_array *a = ctx ? fz_arg(acap) : NULL;
    if (!a) return NULL;
    if (kind < 0 || kind > 2)
        return hpy_raise_msg(HAZE_ERR_INVALID, "unknown membership function %d", kind);
    if (haze_fuzzy_array_on_device(a))
        return hpy_raise_msg(HAZE_ERR_INVALID, "fuzzy: construction takes a host array");
    Py_buffer p;
    if (hpy_buffer(pobj, &p, "d", 2, 0) < 0) return NULL;
    Py_ssize_t np = kind == 1 ? 4 : 3;
    if ((size_t)p.shape[0] != haze_fuzzy_array_count(a) || p.shape[1] != np) {
        PyErr_Format(PyExc_ValueError, "expected %zu x %zd parameters, got %zd x %zd",
                     haze_fuzzy_array_count(a), np, p.shape[0], p.shape[1]);
        PyBuffer_Release(&p);
        return NULL;
    }
    int st = HAZE_OK;
    size_t n = haze_fuzzy_array_count(a);
    const double *x = p.buf;
    Py_BEGIN_ALLOW_THREADS;
    for (size_t i = 0; !st && i < n; i++, x += np)
        st = kind == 0   ? haze_fuzzy_set_tri(ctx, a, i, x[0], x[1], x[2])
             : kind == 1 ? haze_fuzzy_set_trap(ctx, a, i, x[0], x[1], x[2], x[3])
                         : haze_fuzzy_set_gauss(ctx, a, i, x[0], x[1], x[2]);
    Py_END_ALLOW_THREADS;
    PyBuffer_Release(&p);
    if (st < 0) return hpy_raise(ctx, st);
    Py_RETURN_NONE;
}

/*
 * get_cuts(ctx, array, lo, hi) -> None: writes the cuts of every number as
 * double intervals (exact from the storage) into lo and hi, float64
 * count x ncuts.
 */
static PyObject *py_get_cuts(PyObject *self, PyObject *args) {
    PyObject *cap, *acap, *loobj, *hiobj;
    if (!PyArg_ParseTuple(args, "OOOO", &cap, &acap, &loobj, &hiobj)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    haze_fuzzy_array *a = ctx ? fz_arg(acap) : NULL;
    if (!a) return NULL;
    Py_buffer lo, hi;
    if (fz_cut_buffer(a, loobj, &lo, 1) < 0) return NULL;
    if (fz_cut_buffer(a, hiobj, &hi, 1) < 0) {
        PyBuffer_Release(&lo);
        return NULL;
    }
    const haze_fuzzy_array *src;
    haze_fuzzy_array *tmp = NULL;
    int st;
    size_t n = haze_fuzzy_array_count(a);
    int nc = haze_fuzzy_array_cut_count(a);
    Py_BEGIN_ALLOW_THREADS;
    st = fz_host_view(ctx, a, &src, &tmp);
    double *pl = lo.buf, *ph = hi.buf;
    for (size_t i = 0; !st && i < n; i++)
        for (int k = 0; !st && k < nc; k++, pl++, ph++)
            st = haze_fuzzy_get_cut(ctx, src, i, k, pl, ph);
    Py_END_ALLOW_THREADS;
    PyBuffer_Release(&lo);
    PyBuffer_Release(&hi);
    if (st < 0) return fz_fail(ctx, st, tmp);
    haze_fuzzy_array_free(tmp);
    Py_RETURN_NONE;
}

/*
 * get_data(ctx, array, out) / set_data(ctx, array, in): the stored values
 * (count * stride of the precision's type, array of structures) copied out
 * of or into the array, through a host copy for a device array. The buffers
 * are raw bytes of exactly that size.
 */
static PyObject *data_io(PyObject *args, int write) {
    PyObject *cap, *acap, *bobj;
    if (!PyArg_ParseTuple(args, "OOO", &cap, &acap, &bobj)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    haze_fuzzy_array *a = ctx ? fz_arg(acap) : NULL;
    if (!a) return NULL;
    Py_buffer b;
    if (hpy_buffer_raw(bobj, &b, (Py_ssize_t)fz_elem(a), !write) < 0) return NULL;
    size_t bytes = fz_bytes(a);
    if ((size_t)b.len != bytes) {
        PyBuffer_Release(&b);
        return hpy_raise_msg(HAZE_ERR_MISMATCH, "fuzzy: %zd bytes for an array of %zu bytes", b.len,
                             bytes);
    }
    haze_fuzzy_array *tmp = NULL;
    int st = HAZE_OK;
    Py_BEGIN_ALLOW_THREADS;
    if (!haze_fuzzy_array_on_device(a)) {
        if (write)
            memcpy(haze_fuzzy_array_data(a), b.buf, bytes);
        else
            memcpy(b.buf, haze_fuzzy_array_data(a), bytes);
    } else {
        st = fz_host_like(ctx, a, &tmp);
        if (!st && !write) st = haze_fuzzy_array_copy(ctx, tmp, a);
        if (!st && !write) memcpy(b.buf, haze_fuzzy_array_data(tmp), bytes);
        if (!st && write) {
            memcpy(haze_fuzzy_array_data(tmp), b.buf, bytes);
            st = haze_fuzzy_array_copy(ctx, a, tmp);
        }
    }
    Py_END_ALLOW_THREADS;
    PyBuffer_Release(&b);
    if (st < 0) return fz_fail(ctx, st, tmp);
    haze_fuzzy_array_free(tmp);
    Py_RETURN_NONE;
}

static PyObject *py_get_data(PyObject *self, PyObject *args) {
    return data_io(args, 0);
}
static PyObject *py_set_data(PyObject *self, PyObject *args) {
    return data_io(args, 1);
}

/* take(dst, i, src, j): number j of host array src into number i of host
 * array dst (same encoding, precision and levels). */
static PyObject *py_take(PyObject *self, PyObject *args) {
    PyObject *dcap, *scap;
    Py_ssize_t i, j;
    if (!PyArg_ParseTuple(args, "OnOn", &dcap, &i, &scap, &j)) return NULL;
    haze_fuzzy_array *d = fz_arg(dcap), *s = d ? fz_arg(scap) : NULL;
    if (!s || fz_index(d, i) < 0 || fz_index(s, j) < 0) return NULL;
    if (haze_fuzzy_array_on_device(d) || haze_fuzzy_array_on_device(s))
        return hpy_raise_msg(HAZE_ERR_INVALID, "fuzzy: take copies between host arrays");
    int same = haze_fuzzy_array_encoding(d) == haze_fuzzy_array_encoding(s) &&
               haze_fuzzy_array_precision(d) == haze_fuzzy_array_precision(s) &&
               haze_fuzzy_array_cut_count(d) == haze_fuzzy_array_cut_count(s);
    for (int k = 0; same && k < haze_fuzzy_array_cut_count(d); k++)
        same = haze_fuzzy_array_alphas(d)[k] == haze_fuzzy_array_alphas(s)[k];
    if (!same)
        return hpy_raise_msg(HAZE_ERR_MISMATCH,
                             "fuzzy: the numbers differ in encoding, precision or levels");
    size_t es = haze_fuzzy_array_stride(d) * fz_elem(d);
    memmove((char *)haze_fuzzy_array_data(d) + (size_t)i * es,
            (const char *)haze_fuzzy_array_data(s) + (size_t)j * es, es);
    Py_RETURN_NONE;
}

/*
 * mid_rad(array, i) -> (midpoint, (radius per cut)) of a number of a host
 * array in a symmetric encoding, as the command line prints them: the
 * stored radius, or for increments their upward-rounded running sum.
 */
static PyObject *py_mid_rad(PyObject *self, PyObject *args) {
    PyObject *acap;
    Py_ssize_t i;
    if (!PyArg_ParseTuple(args, "On", &acap, &i)) return NULL;
    haze_fuzzy_array *a = fz_arg(acap);
    if (!a || fz_index(a, i) < 0) return NULL;
    if (haze_fuzzy_array_on_device(a))
        return hpy_raise_msg(HAZE_ERR_INVALID, "fuzzy: read-out takes a host array");
    haze_fuzzy_encoding enc = haze_fuzzy_array_encoding(a);
    if (enc == HAZE_FUZZY_LU)
        return hpy_raise_msg(HAZE_ERR_INVALID, "fuzzy: lower-upper numbers have no midpoint");
    int f32 = haze_fuzzy_array_precision(a) == HAZE_PRECISION_F32;
    int n = haze_fuzzy_array_cut_count(a);
    size_t base = (size_t)i * haze_fuzzy_array_stride(a);
    const double *xd = (const double *)haze_fuzzy_array_data(a) + base;
    const float *xf = (const float *)haze_fuzzy_array_data(a) + base;
    double mid = f32 ? xf[0] : xd[0], rsum = 0;
    PyObject *rads = PyTuple_New(n);
    if (!rads) return NULL;
    for (int k = 0; k < n; k++) {
        double x = f32 ? xf[1 + k] : xd[1 + k];
        if (enc == HAZE_FUZZY_MI)
            rsum = f32 ? (double)haze_ru_addf((float)rsum, (float)x) : haze_ru_add(rsum, x);
        else
            rsum = x;
        PyObject *r = PyFloat_FromDouble(rsum);
        if (!r) {
            Py_DECREF(rads);
            return NULL;
        }
        PyTuple_SetItem(rads, k, r);
    }
    return Py_BuildValue("(dN)", mid, rads);
}

/* hull(ctx, array, i, alpha) -> (lo, hi); centroid(ctx, array, out) fills
 * out (float64, count) with every number's centroid. */
static PyObject *py_hull(PyObject *self, PyObject *args) {
    PyObject *cap, *acap;
    Py_ssize_t i;
    double alpha, lo, hi;
    if (!PyArg_ParseTuple(args, "OOnd", &cap, &acap, &i, &alpha)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    haze_fuzzy_array *a = ctx ? fz_arg(acap) : NULL;
    if (!a || fz_index(a, i) < 0) return NULL;
    if (haze_fuzzy_array_on_device(a))
        return hpy_raise_msg(HAZE_ERR_INVALID, "fuzzy: read-out takes a host array");
    int st = haze_fuzzy_hull(ctx, a, (size_t)i, alpha, &lo, &hi);
    if (st < 0) return hpy_raise(ctx, st);
    return Py_BuildValue("(dd)", lo, hi);
}

static PyObject *py_centroid(PyObject *self, PyObject *args) {
    PyObject *cap, *acap, *outobj;
    if (!PyArg_ParseTuple(args, "OOO", &cap, &acap, &outobj)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    haze_fuzzy_array *a = ctx ? fz_arg(acap) : NULL;
    if (!a) return NULL;
    Py_buffer out;
    if (hpy_buffer(outobj, &out, "d", 1, 1) < 0) return NULL;
    size_t n = haze_fuzzy_array_count(a);
    if ((size_t)out.shape[0] != n) {
        PyBuffer_Release(&out);
        PyErr_Format(PyExc_ValueError, "expected %zu values, got %zd", n, out.shape[0]);
        return NULL;
    }
    const haze_fuzzy_array *src;
    haze_fuzzy_array *tmp = NULL;
    int st;
    Py_BEGIN_ALLOW_THREADS;
    st = fz_host_view(ctx, a, &src, &tmp);
    for (size_t i = 0; !st && i < n; i++)
        st = haze_fuzzy_centroid(ctx, src, i, (double *)out.buf + i);
    Py_END_ALLOW_THREADS;
    PyBuffer_Release(&out);
    if (st < 0) return fz_fail(ctx, st, tmp);
    haze_fuzzy_array_free(tmp);
    Py_RETURN_NONE;
}

/* convert(ctx, src, dst): any encodings and precisions (host arrays; device
 * arrays through host copies). */
static PyObject *py_convert(PyObject *self, PyObject *args) {
    PyObject *cap, *scap, *dcap;
    if (!PyArg_ParseTuple(args, "OOO", &cap, &scap, &dcap)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    haze_fuzzy_array *s = ctx ? fz_arg(scap) : NULL, *d = s ? fz_arg(dcap) : NULL;
    if (!d) return NULL;
    const haze_fuzzy_array *src;
    haze_fuzzy_array *tmp = NULL, *dtmp = NULL;
    int st;
    Py_BEGIN_ALLOW_THREADS;
    st = fz_host_view(ctx, s, &src, &tmp);
    if (!st && haze_fuzzy_array_on_device(d)) st = fz_host_like(ctx, d, &dtmp);
    if (!st) st = haze_fuzzy_convert(ctx, src, dtmp ? dtmp : d);
    if (!st && dtmp) st = haze_fuzzy_array_copy(ctx, d, dtmp);
    Py_END_ALLOW_THREADS;
    haze_fuzzy_array_free(dtmp);
    if (st < 0) return fz_fail(ctx, st, tmp);
    haze_fuzzy_array_free(tmp);
    Py_RETURN_NONE;
}

/* ---------------------------------------------------------- operations */

/*
 * op(ctx, opcode, a, b or None, div_hull, c) -> (status, message): c = a op b.
 * HAZE_ERR_DOMAIN and HAZE_ERR_RANGE leave c complete (an enclosure with
 * unbounded or empty cuts) and come back as a status with the library's
 * message, for the Python side to raise or warn; other failures raise.
 */
static PyObject *py_op(PyObject *self, PyObject *args) {
    PyObject *cap, *acap, *bcap, *ccap;
    int op, div_hull;
    if (!PyArg_ParseTuple(args, "OiOOpO", &cap, &op, &acap, &bcap, &div_hull, &ccap)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    haze_fuzzy_array *a = ctx ? fz_arg(acap) : NULL, *c = a ? fz_arg(ccap) : NULL, *b = NULL;
    if (!c) return NULL;
    if (op < HAZE_FUZZY_ADD || op > HAZE_FUZZY_SQRT)
        return hpy_raise_msg(HAZE_ERR_INVALID, "unknown operation %d", op);
    if (op <= HAZE_FUZZY_DIV) {
        if (bcap == Py_None)
            return hpy_raise_msg(HAZE_ERR_INVALID, "a binary operation needs two operands");
        if (!(b = fz_arg(bcap))) return NULL;
    }
    haze_fuzzy_op_options opt = haze_fuzzy_op_options_default();
    opt.div_hull = div_hull;
    int st;
    HPY_NOGIL(st = haze_fuzzy_op(ctx, (haze_fuzzy_opcode)op, a, b, &opt, c));
    if (st == HAZE_ERR_DOMAIN || st == HAZE_ERR_RANGE)
        return Py_BuildValue("(is)", st, haze_ctx_errmsg(ctx));
    if (st < 0) return hpy_raise(ctx, st);
    return Py_BuildValue("(is)", 0, "");
}

/* axpy(ctx, a, b, iters, y) */
static PyObject *py_axpy(PyObject *self, PyObject *args) {
    PyObject *cap, *acap, *bcap, *ycap;
    int iters;
    if (!PyArg_ParseTuple(args, "OOOiO", &cap, &acap, &bcap, &iters, &ycap)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    haze_fuzzy_array *a = ctx ? fz_arg(acap) : NULL, *b = a ? fz_arg(bcap) : NULL,
                     *y = b ? fz_arg(ycap) : NULL;
    if (!y) return NULL;
    int st;
    HPY_NOGIL(st = haze_fuzzy_axpy(ctx, a, b, iters, y));
    if (st < 0) return hpy_raise(ctx, st);
    Py_RETURN_NONE;
}

/*
 * sort_by_key(ctx, keys, array): keys a writable uint32 buffer of count
 * items, sorted along (stably). A device array is sorted through a host
 * copy (the library's device sort takes device keys).
 */
static PyObject *py_sort_by_key(PyObject *self, PyObject *args) {
    PyObject *cap, *kobj, *acap;
    if (!PyArg_ParseTuple(args, "OOO", &cap, &kobj, &acap)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    haze_fuzzy_array *a = ctx ? fz_arg(acap) : NULL;
    if (!a) return NULL;
    Py_buffer k;
    if (hpy_buffer_raw(kobj, &k, (Py_ssize_t)sizeof(uint32_t), 1) < 0) return NULL;
    if (k.itemsize != (Py_ssize_t)sizeof(uint32_t) ||
        (size_t)k.len != haze_fuzzy_array_count(a) * sizeof(uint32_t)) {
        PyBuffer_Release(&k);
        PyErr_Format(PyExc_ValueError, "expected %zu uint32 keys", haze_fuzzy_array_count(a));
        return NULL;
    }
    haze_fuzzy_array *tmp = NULL;
    int st = HAZE_OK;
    Py_BEGIN_ALLOW_THREADS;
    if (haze_fuzzy_array_on_device(a)) {
        st = fz_host_like(ctx, a, &tmp);
        if (!st) st = haze_fuzzy_array_copy(ctx, tmp, a);
    }
    if (!st) st = haze_fuzzy_sort_by_key(ctx, k.buf, tmp ? tmp : a);
    if (!st && tmp) st = haze_fuzzy_array_copy(ctx, a, tmp);
    Py_END_ALLOW_THREADS;
    PyBuffer_Release(&k);
    if (st < 0) return fz_fail(ctx, st, tmp);
    haze_fuzzy_array_free(tmp);
    Py_RETURN_NONE;
}

PyMethodDef hpy_fuzzy_methods[] = {
    {"fuzzy_parse_number", py_parse_number, METH_O, "fuzzy_parse_number(text) -> (lo, hi, end)"},
    {"fuzzy_hex", py_hex, METH_O, "fuzzy_hex(x) -> C99 hex float text"},
    {"fuzzy_encoding_parse", py_encoding_parse, METH_O, NULL},
    {"fuzzy_new", py_new, METH_VARARGS,
     "fuzzy_new(ctx, enc, prec, ncuts, count, alphas, device) -> array"},
    {"fuzzy_info", py_info, METH_O,
     "fuzzy_info(array) -> (enc, prec, ncuts, count, stride, "
     "on_device, alphas)"},
    {"fuzzy_copy", py_copy, METH_VARARGS, "fuzzy_copy(ctx, dst, src)"},
    {"fuzzy_set_membership", py_set_membership, METH_VARARGS, NULL},
    {"fuzzy_set_iv", py_set_iv, METH_VARARGS, NULL},
    {"fuzzy_set_crisp", py_set_crisp, METH_VARARGS, NULL},
    {"fuzzy_set_cuts", py_set_cuts, METH_VARARGS, NULL},
    {"fuzzy_set_mf", py_set_mf, METH_VARARGS, NULL},
    {"fuzzy_get_cuts", py_get_cuts, METH_VARARGS, NULL},
    {"fuzzy_get_data", py_get_data, METH_VARARGS, NULL},
    {"fuzzy_set_data", py_set_data, METH_VARARGS, NULL},
    {"fuzzy_take", py_take, METH_VARARGS, NULL},
    {"fuzzy_mid_rad", py_mid_rad, METH_VARARGS, NULL},
    {"fuzzy_hull", py_hull, METH_VARARGS, NULL},
    {"fuzzy_centroid", py_centroid, METH_VARARGS, NULL},
    {"fuzzy_convert", py_convert, METH_VARARGS, NULL},
    {"fuzzy_op", py_op, METH_VARARGS, "fuzzy_op(ctx, op, a, b, div_hull, c) -> (status, msg)"},
    {"fuzzy_axpy", py_axpy, METH_VARARGS, NULL},
    {"fuzzy_sort_by_key", py_sort_by_key, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};
