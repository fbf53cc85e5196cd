/*
 * hazepy.h - what every file of the Python extension shares.
 *
 * The extension is thin: it turns Python objects into the C API's arguments
 * and back, and nothing else. Classes, keyword arguments, defaults and
 * documentation live in the pure-Python package (python/haze), which
 * calls the functions here with checked, converted arguments; the C side
 * checks again whatever could crash the interpreter (handle types, buffer
 * shapes and formats), because a private module can still be called by
 * anyone.
 *
 * Handles are capsules named "haze.<type>" (hpy_wrap / hpy_unwrap): a wrong
 * capsule is a TypeError, never a crash. A capsule may keep another object
 * alive (its owner: the context an object was made from), released after
 * the object is freed.
 *
 * Errors: a failing haze call becomes the exception class registered for
 * its status (haze/_core.py registers them), with the context's message for
 * the calling thread (file, line and column where a file is involved).
 *
 * Long calls release the GIL (HPY_NOGIL); the context's last error is per
 * thread, so it is read on the same thread after the call.
 */
#ifndef HAZEPY_H
#define HAZEPY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <haze/haze.h>

/* Runs `stmt` without the GIL. */
#define HPY_NOGIL(stmt)                                                                            \
    do {                                                                                           \
        Py_BEGIN_ALLOW_THREADS stmt;                                                               \
        Py_END_ALLOW_THREADS                                                                       \
    } while (0)

/* ---- handles */

/* A capsule named `name` holding `ptr`, freed by `destroy` (which may be
 * NULL: not owned); `owner` (may be NULL) is kept alive until then. On
 * failure destroys `ptr` and returns NULL with an exception set. */
PyObject *hpy_wrap(void *ptr, const char *name, void (*destroy)(void *), PyObject *owner);
/* The pointer in a capsule named `name`; NULL with TypeError otherwise. */
void *hpy_unwrap(PyObject *capsule, const char *name);

/* The context in a "haze.ctx" capsule. */
haze_ctx *hpy_ctx(PyObject *capsule);

/* ---- errors */

/* Raises the exception for a failed call on `ctx` (status `st` < 0) and
 * returns NULL. Reads the calling thread's message from the context. */
PyObject *hpy_raise(haze_ctx *ctx, int st);
/* Raises the exception for status `st` with a message of its own. */
PyObject *hpy_raise_msg(int st, const char *fmt, ...);

/* ---- arrays (the buffer protocol) */

/*
 * Takes a C-contiguous buffer of doubles ('d') or floats ('f') with `ndim`
 * dimensions (0: any) from `obj`, writable if asked. `fmt` is "d", "f" or
 * "df" (either). The Python side converts arrays before calling (one copy
 * at most, documented); this checks. Release with PyBuffer_Release.
 */
int hpy_buffer(PyObject *obj, Py_buffer *view, const char *fmt, int ndim, int writable);
/* Element type of a buffer taken by hpy_buffer. */
haze_precision hpy_buffer_precision(const Py_buffer *view);
/* A C-contiguous buffer of any format with items of `itemsize` bytes. */
int hpy_buffer_raw(PyObject *obj, Py_buffer *view, Py_ssize_t itemsize, int writable);

/* ---- small conversions */

/* A str or bytes path (os.fspath done by the caller) as a new bytes object. */
PyObject *hpy_path(PyObject *obj);

/* ---- the parts of the module: each file defines its table of functions */
extern PyMethodDef hpy_core_methods[];
extern PyMethodDef hpy_fuzzy_methods[];
extern PyMethodDef hpy_fis_methods[];
extern PyMethodDef hpy_edge_methods[];
extern PyMethodDef hpy_fcm_methods[];
extern PyMethodDef hpy_fnn_methods[];
extern PyMethodDef hpy_prec_methods[];

#endif /* HAZEPY_H */
