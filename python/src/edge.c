/*
 * edge.c - the edge functions of haze._ext: FIRE edge detection (haze/edge.h)
 * and 8-bit grey images in and out (haze/image.h).
 *
 * Images cross as C-contiguous 2-D arrays of bytes (NumPy uint8, height x
 * width), wrapped in a haze_image view without a copy; the Python side
 * (haze/edge.py) makes them and allocates the outputs.
 */
#include "hazepy.h"

#include <limits.h>
#include <string.h>

static void edge_destroy(void *p) {
    haze_edge_free(p);
}

/* A 2-D C-contiguous byte buffer as a haze_image view (released by the caller). */
static int image_view(PyObject *obj, Py_buffer *view, int writable, haze_image *img) {
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) < 0) return -1;
    const char *f = view->format ? view->format : "B";
    if (*f == '<' || *f == '=' || *f == '@' || *f == '|') f++;
    if (view->itemsize != 1 || (f[0] != 'B' && f[0] != 'c') || f[1]) {
        PyErr_Format(PyExc_TypeError, "expected an image of bytes (uint8), got format '%s'",
                     view->format ? view->format : "B");
        PyBuffer_Release(view);
        return -1;
    }
    if (view->ndim != 2) {
        PyErr_Format(PyExc_ValueError, "expected a 2-D image (height x width), got %d-D",
                     view->ndim);
        PyBuffer_Release(view);
        return -1;
    }
    Py_ssize_t h = view->shape[0], w = view->shape[1];
    if (h < 1 || w < 1 || h > INT_MAX || w > INT_MAX || h > (Py_ssize_t)(INT_MAX / w)) {
        hpy_raise_msg(HAZE_ERR_INVALID, "an image of %zd x %zd pixels (1 to 2^31 - 1 pixels)", w,
                      h);
        PyBuffer_Release(view);
        return -1;
    }
    img->width = (int)w;
    img->height = (int)h;
    img->data = view->buf;
    return 0;
}

/* edge_new(ctx, spread, black_width, scale) -> detector (keeps ctx alive) */
static PyObject *py_edge_new(PyObject *self, PyObject *args) {
    PyObject *cap;
    int spread, black, scale;
    if (!PyArg_ParseTuple(args, "Oiii", &cap, &spread, &black, &scale)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    if (!ctx) return NULL;
    haze_edge_options opt = haze_edge_options_default();
    opt.spread = spread;
    opt.black_width = black;
    opt.scale = scale;
    haze_edge *e = NULL;
    int st;
    HPY_NOGIL(st = haze_edge_new(ctx, &opt, &e));
    if (st < 0) return hpy_raise(ctx, st);
    return hpy_wrap(e, "haze.edge", edge_destroy, cap);
}

/* edge_run(ctx, detector, reference: bool, in, out) */
static PyObject *py_edge_run(PyObject *self, PyObject *args) {
    PyObject *cap, *ecap, *io, *oo;
    int reference;
    if (!PyArg_ParseTuple(args, "OOpOO", &cap, &ecap, &reference, &io, &oo)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    haze_edge *e = ctx ? hpy_unwrap(ecap, "haze.edge") : NULL;
    if (!e) return NULL;
    Py_buffer vi, vo;
    haze_image in, out;
    if (image_view(io, &vi, 0, &in) < 0) return NULL;
    if (image_view(oo, &vo, 1, &out) < 0) {
        PyBuffer_Release(&vi);
        return NULL;
    }
    int st;
    haze_edge_kernel k = reference ? HAZE_EDGE_REFERENCE : HAZE_EDGE_FAST;
    HPY_NOGIL(st = haze_edge_run(ctx, e, k, &in, &out));
    PyBuffer_Release(&vi);
    PyBuffer_Release(&vo);
    if (st < 0) return hpy_raise(ctx, st);
    Py_RETURN_NONE;
}

/* edge_run_fis(ctx, fis, in, out): the user's rule base */
static PyObject *py_edge_run_fis(PyObject *self, PyObject *args) {
    PyObject *cap, *fcap, *io, *oo;
    if (!PyArg_ParseTuple(args, "OOOO", &cap, &fcap, &io, &oo)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    haze_fis *f = ctx ? hpy_unwrap(fcap, "haze.fis") : NULL;
    if (!f) return NULL;
    Py_buffer vi, vo;
    haze_image in, out;
    if (image_view(io, &vi, 0, &in) < 0) return NULL;
    if (image_view(oo, &vo, 1, &out) < 0) {
        PyBuffer_Release(&vi);
        return NULL;
    }
    int st;
    HPY_NOGIL(st = haze_edge_run_fis(ctx, f, &in, &out));
    PyBuffer_Release(&vi);
    PyBuffer_Release(&vo);
    if (st < 0) return hpy_raise(ctx, st);
    Py_RETURN_NONE;
}

/* image_load(ctx, path) -> (bytearray, width, height): luminance, row-major */
static PyObject *py_image_load(PyObject *self, PyObject *args) {
    PyObject *cap, *pathobj;
    if (!PyArg_ParseTuple(args, "OO", &cap, &pathobj)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    if (!ctx) return NULL;
    PyObject *path = hpy_path(pathobj);
    if (!path) return NULL;
    haze_image *img = NULL;
    int st;
    const char *p = PyBytes_AsString(path);
    HPY_NOGIL(st = haze_image_load(ctx, p, &img));
    Py_DECREF(path);
    if (st < 0) return hpy_raise(ctx, st);
    size_t n = (size_t)img->width * (size_t)img->height;
    PyObject *b = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)n);
    if (b) memcpy(PyByteArray_AsString(b), img->data, n);
    int w = img->width, h = img->height;
    haze_image_free(img);
    if (!b) return NULL;
    return Py_BuildValue("(Nii)", b, w, h);
}

/* image_save(ctx, image, path): format by the extension */
static PyObject *py_image_save(PyObject *self, PyObject *args) {
    PyObject *cap, *io, *pathobj;
    if (!PyArg_ParseTuple(args, "OOO", &cap, &io, &pathobj)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    if (!ctx) return NULL;
    Py_buffer vi;
    haze_image img;
    if (image_view(io, &vi, 0, &img) < 0) return NULL;
    PyObject *path = hpy_path(pathobj);
    if (!path) {
        PyBuffer_Release(&vi);
        return NULL;
    }
    int st;
    const char *p = PyBytes_AsString(path);
    HPY_NOGIL(st = haze_image_save(ctx, &img, p));
    Py_DECREF(path);
    PyBuffer_Release(&vi);
    if (st < 0) return hpy_raise(ctx, st);
    Py_RETURN_NONE;
}

PyMethodDef hpy_edge_methods[] = {
    {"edge_new", py_edge_new, METH_VARARGS, "edge_new(ctx, spread, black_width, scale) -> edge"},
    {"edge_run", py_edge_run, METH_VARARGS, "edge_run(ctx, edge, reference, in, out)"},
    {"edge_run_fis", py_edge_run_fis, METH_VARARGS, "edge_run_fis(ctx, fis, in, out)"},
    {"image_load", py_image_load, METH_VARARGS, "image_load(ctx, path) -> (bytes, width, height)"},
    {"image_save", py_image_save, METH_VARARGS, "image_save(ctx, image, path)"},
    {NULL, NULL, 0, NULL}};
