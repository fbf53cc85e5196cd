/*
 * module.c - the extension module haze._ext: handles, errors, buffers, the
 * context and the table reader. The other files add the functions of one
 * module of the library each (fuzzy.c, fis.c, edge.c, fcm.c, fnn.c, prec.c).
 */
#include "hazepy.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------ handles */

static void capsule_destroy(PyObject *capsule) {
    const char *name = PyCapsule_GetName(capsule);
    void *ptr = PyCapsule_GetPointer(capsule, name);
    void (*destroy)(void *) = NULL;
    PyObject *owner = NULL;
    /* the context slot holds a small record: the destructor and the owner */
    void **rec = PyCapsule_GetContext(capsule);
    if (rec) {
        destroy = (void (*)(void *))rec[0];
        owner = (PyObject *)rec[1];
        PyMem_Free(rec);
    }
    if (destroy && ptr) destroy(ptr);
    Py_XDECREF(owner);
}

PyObject *hpy_wrap(void *ptr, const char *name, void (*destroy)(void *), PyObject *owner) {
    void **rec = PyMem_Malloc(2 * sizeof(void *));
    if (!rec) {
        if (destroy && ptr) destroy(ptr);
        return PyErr_NoMemory();
    }
    PyObject *cap = PyCapsule_New(ptr, name, capsule_destroy);
    if (!cap) {
        PyMem_Free(rec);
        if (destroy && ptr) destroy(ptr);
        return NULL;
    }
    rec[0] = (void *)destroy;
    rec[1] = owner;
    Py_XINCREF(owner);
    PyCapsule_SetContext(cap, rec);
    return cap;
}

void *hpy_unwrap(PyObject *capsule, const char *name) {
    if (!PyCapsule_IsValid(capsule, name)) {
        PyErr_Format(PyExc_TypeError, "expected a %s handle", name);
        return NULL;
    }
    return PyCapsule_GetPointer(capsule, name);
}

haze_ctx *hpy_ctx(PyObject *capsule) {
    return hpy_unwrap(capsule, "haze.ctx");
}

/* ------------------------------------------------------------------- errors */

/* status (negative) -> exception class, filled by _register_errors */
static PyObject *g_errors; /* dict int -> class */

static PyObject *error_class(int st) {
    if (g_errors) {
        PyObject *key = PyLong_FromLong(st);
        if (key) {
            PyObject *cls = PyDict_GetItemWithError(g_errors, key);
            Py_DECREF(key);
            if (cls) return cls;
        }
        PyErr_Clear();
    }
    return PyExc_RuntimeError;
}

static PyObject *raise_text(int st, const char *text) {
    PyObject *cls = error_class(st);
    /* haze.HazeError(message, status): the class keeps both */
    PyObject *args = Py_BuildValue("(si)", text, st);
    if (!args) return NULL;
    PyErr_SetObject(cls, args);
    Py_DECREF(args);
    return NULL;
}

PyObject *hpy_raise(haze_ctx *ctx, int st) {
    if (PyErr_Occurred()) return NULL;
    const char *msg = ctx ? haze_ctx_errmsg(ctx) : "";
    if (!msg || !*msg) msg = haze_status_message(st);
    return raise_text(st, msg);
}

PyObject *hpy_raise_msg(int st, const char *fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return raise_text(st, buf);
}

/* ------------------------------------------------------------------- arrays */

int hpy_buffer(PyObject *obj, Py_buffer *view, const char *fmt, int ndim, int writable) {
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) < 0) return -1;
    const char *f = view->format ? view->format : "B";
    if (*f == '<' || *f == '=' || *f == '@') f++;
    int ok =
        f[0] && !f[1] && strchr(fmt, f[0]) &&
        view->itemsize == (f[0] == 'd' ? (Py_ssize_t)sizeof(double) : (Py_ssize_t)sizeof(float));
    if (!ok) {
        PyErr_Format(PyExc_TypeError, "expected an array of %s, got format '%s'",
                     strchr(fmt, 'f') ? (strchr(fmt, 'd') ? "float64 or float32" : "float32")
                                      : "float64",
                     view->format ? view->format : "B");
        PyBuffer_Release(view);
        return -1;
    }
    if (ndim && view->ndim != ndim) {
        PyErr_Format(PyExc_ValueError, "expected a %d-D array, got %d-D", ndim, view->ndim);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

haze_precision hpy_buffer_precision(const Py_buffer *view) {
    return view->itemsize == (Py_ssize_t)sizeof(float) ? HAZE_PRECISION_F32 : HAZE_PRECISION_F64;
}

int hpy_buffer_raw(PyObject *obj, Py_buffer *view, Py_ssize_t itemsize, int writable) {
    int flags = PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) < 0) return -1;
    if (view->itemsize != itemsize && view->len % itemsize) {
        PyErr_Format(PyExc_TypeError, "expected items of %zd bytes", itemsize);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

PyObject *hpy_path(PyObject *obj) {
    PyObject *b = NULL;
    if (!PyUnicode_FSConverter(obj, &b)) return NULL;
    return b;
}

/* ------------------------------------------------------------------ context */

static void ctx_destroy(void *p) {
    haze_ctx_free(p);
}

/* ctx_new(backend: str, device: int, threads: int, memory_limit: int,
 *         devices: sequence of int or None) */
static PyObject *py_ctx_new(PyObject *self, PyObject *args) {
    const char *backend;
    int device, threads;
    unsigned long long limit;
    PyObject *devs = Py_None;
    if (!PyArg_ParseTuple(args, "siiK|O", &backend, &device, &threads, &limit, &devs)) return NULL;
    haze_ctx_options opt = haze_ctx_options_default();
    int st = haze_backend_parse(NULL, backend, &opt.backend);
    if (st < 0)
        return hpy_raise_msg(st, "unknown backend '%s' (expected auto, cpu or cuda)", backend);
    opt.device = device;
    opt.threads = threads;
    opt.device_memory_limit = (size_t)limit;
    int *ids = NULL;
    if (devs != Py_None) {
        const Py_ssize_t n = PySequence_Size(devs);
        if (n < 0) return NULL;
        if (n < 1 || n > 1024)
            return hpy_raise_msg(HAZE_ERR_INVALID, "devices: %zd ids (expected 1 to 1024)", n);
        ids = PyMem_Malloc((size_t)n * sizeof *ids);
        if (!ids) return PyErr_NoMemory();
        for (Py_ssize_t k = 0; k < n; k++) {
            PyObject *item = PySequence_GetItem(devs, k);
            long v = item ? PyLong_AsLong(item) : -1;
            Py_XDECREF(item);
            if (v == -1 && PyErr_Occurred()) {
                PyMem_Free(ids);
                return NULL;
            }
            if (v < -1 || v > 1 << 20) {
                PyMem_Free(ids);
                return hpy_raise_msg(HAZE_ERR_INVALID, "devices: no device %ld", v);
            }
            ids[k] = (int)v;
        }
        opt.devices = ids;
        opt.device_count = (int)n;
    }
    haze_ctx *ctx = NULL;
    HPY_NOGIL(st = haze_ctx_new(&opt, &ctx));
    PyMem_Free(ids);
    if (st < 0) {
        if (!ctx) return PyErr_NoMemory();
        hpy_raise(ctx, st);
        haze_ctx_free(ctx);
        return NULL;
    }
    return hpy_wrap(ctx, "haze.ctx", ctx_destroy, NULL);
}

/* ctx_devices(ctx) -> tuple of the context's CUDA device ids (empty on the CPU) */
static PyObject *py_ctx_devices(PyObject *self, PyObject *cap) {
    haze_ctx *ctx = hpy_ctx(cap);
    if (!ctx) return NULL;
    const int n = haze_ctx_device_count(ctx);
    PyObject *t = PyTuple_New(n > 0 ? n : 0);
    if (!t || n <= 0) return t;
    int *ids = PyMem_Malloc((size_t)n * sizeof *ids);
    if (!ids) {
        Py_DECREF(t);
        return PyErr_NoMemory();
    }
    haze_ctx_devices(ctx, ids, n);
    for (int k = 0; k < n; k++) {
        PyObject *v = PyLong_FromLong(ids[k]);
        if (!v) {
            PyMem_Free(ids);
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SetItem(t, k, v); /* steals v */
    }
    PyMem_Free(ids);
    return t;
}

/* ctx_info(ctx) -> (backend name, device, threads, memory limit) */
static PyObject *py_ctx_info(PyObject *self, PyObject *cap) {
    haze_ctx *ctx = hpy_ctx(cap);
    if (!ctx) return NULL;
    return Py_BuildValue("(siiK)", haze_backend_name(haze_ctx_backend(ctx)), haze_ctx_device(ctx),
                         haze_ctx_threads(ctx),
                         (unsigned long long)haze_ctx_device_memory_limit(ctx));
}

static PyObject *py_ctx_set_threads(PyObject *self, PyObject *args) {
    PyObject *cap;
    int threads;
    if (!PyArg_ParseTuple(args, "Oi", &cap, &threads)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    if (!ctx) return NULL;
    int st = haze_ctx_set_threads(ctx, threads);
    if (st < 0) return hpy_raise(ctx, st);
    Py_RETURN_NONE;
}

static PyObject *py_ctx_set_memory_limit(PyObject *self, PyObject *args) {
    PyObject *cap;
    unsigned long long bytes;
    if (!PyArg_ParseTuple(args, "OK", &cap, &bytes)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    if (!ctx) return NULL;
    int st = haze_ctx_set_device_memory_limit(ctx, (size_t)bytes);
    if (st < 0) return hpy_raise(ctx, st);
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------- build */

static PyObject *py_build_info(PyObject *self, PyObject *unused) {
    return Py_BuildValue("{s:s,s:O,s:O,s:i}", "version", haze_version(), "cuda",
                         haze_build_has_cuda() ? Py_True : Py_False, "openmp",
                         haze_build_has_openmp() ? Py_True : Py_False, "devices",
                         haze_device_count());
}

/* device_info(ctx, device) -> dict */
static PyObject *py_device_info(PyObject *self, PyObject *args) {
    PyObject *cap;
    int device;
    if (!PyArg_ParseTuple(args, "Oi", &cap, &device)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    if (!ctx) return NULL;
    haze_device_info info = haze_device_info_init();
    int st;
    HPY_NOGIL(st = haze_device_query(ctx, device, &info));
    if (st < 0) return hpy_raise(ctx, st);
    return Py_BuildValue(
        "{s:s,s:(ii),s:i,s:K,s:K,s:K,s:K,s:i,s:d,s:i}", "name", info.name, "compute_capability",
        info.cc_major, info.cc_minor, "sm_count", info.sm_count, "total_memory",
        (unsigned long long)info.total_mem, "free_memory", (unsigned long long)info.free_mem,
        "smem_per_sm", (unsigned long long)info.smem_per_sm, "smem_per_block",
        (unsigned long long)info.smem_per_block, "memory_bus_width", info.mem_bus_width,
        "peak_bandwidth", info.peak_bandwidth, "runtime_version", info.runtime_version);
}

static PyObject *py_status_name(PyObject *self, PyObject *arg) {
    long st = PyLong_AsLong(arg);
    if (st == -1 && PyErr_Occurred()) return NULL;
    return Py_BuildValue("(ss)", haze_status_name((int)st), haze_status_message((int)st));
}

static PyObject *py_register_errors(PyObject *self, PyObject *dict) {
    if (!PyDict_Check(dict)) {
        PyErr_SetString(PyExc_TypeError, "expected a dict");
        return NULL;
    }
    Py_XDECREF(g_errors);
    Py_INCREF(dict);
    g_errors = dict;
    Py_RETURN_NONE;
}

/* -------------------------------------------------------------------- table */

static PyObject *new_bytes_array(const void *src, size_t nbytes) {
    /* a bytearray the Python side views with numpy.frombuffer (no NumPy C API:
     * the stable ABI has none) */
    PyObject *b = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)nbytes);
    if (b && nbytes) memcpy(PyByteArray_AsString(b), src, nbytes);
    return b;
}

/* The reader's options from table_read's arguments (the text column's
 * name and the lists of columns live as long as their objects); -1 with a
 * Python error. */
static int table_options(int header, PyObject *textcol, int nonfinite, int keep32,
                         PyObject *columns, PyObject *drop, int missing, haze_table_options *opt) {
    *opt = haze_table_options_default();
    opt->missing = missing;
    opt->header = header;
    opt->allow_nonfinite = nonfinite;
    opt->keep_float32 = keep32;
    if (textcol != Py_None && !(opt->text_column = PyUnicode_AsUTF8AndSize(textcol, NULL)))
        return -1;
    if (columns != Py_None && !(opt->columns = PyUnicode_AsUTF8AndSize(columns, NULL))) return -1;
    if (drop != Py_None && !(opt->drop = PyUnicode_AsUTF8AndSize(drop, NULL))) return -1;
    return 0;
}

/* A table as (bytes, precision, rows, cols, names or None, text or None,
 * text column); t is freed. */
static PyObject *table_tuple(haze_table *t) {
    size_t rows = haze_table_row_count(t), cols = haze_table_column_count(t);
    haze_precision prec = haze_table_precision(t);
    size_t item = prec == HAZE_PRECISION_F32 ? sizeof(float) : sizeof(double);
    PyObject *data = new_bytes_array(haze_table_values(t), rows * cols * item);
    PyObject *names = Py_None, *text = Py_None;
    Py_INCREF(names);
    Py_INCREF(text);
    const char *const *nm = haze_table_names(t);
    if (data && nm) {
        Py_DECREF(names);
        names = PyList_New((Py_ssize_t)cols);
        for (size_t j = 0; names && j < cols; j++) {
            PyObject *s = PyUnicode_DecodeUTF8(nm[j], (Py_ssize_t)strlen(nm[j]), "replace");
            if (!s) {
                Py_CLEAR(names);
                break;
            }
            PyList_SetItem(names, (Py_ssize_t)j, s);
        }
    }
    const char *const *tx = haze_table_text(t);
    if (data && names && tx) {
        Py_DECREF(text);
        text = PyList_New((Py_ssize_t)rows);
        for (size_t i = 0; text && i < rows; i++) {
            const char *v = tx[i] ? tx[i] : "";
            PyObject *s = PyUnicode_DecodeUTF8(v, (Py_ssize_t)strlen(v), "replace");
            if (!s) {
                Py_CLEAR(text);
                break;
            }
            PyList_SetItem(text, (Py_ssize_t)i, s);
        }
    }
    int textcolumn = haze_table_text_column(t);
    haze_table_free(t);
    if (!data || !names || !text) {
        Py_XDECREF(data);
        Py_XDECREF(names);
        Py_XDECREF(text);
        return NULL;
    }
    return Py_BuildValue("(NinnNNi)", data, (int)prec, (Py_ssize_t)rows, (Py_ssize_t)cols, names,
                         text, textcolumn);
}

/*
 * table_read(ctx, path, header, text_column or None, allow_nonfinite,
 *            keep_float32) -> (bytes, precision, rows, cols, names or None,
 *            text or None)
 */
static PyObject *py_table_read(PyObject *self, PyObject *args) {
    PyObject *cap, *pathobj, *textcol, *columns = Py_None, *drop = Py_None;
    int header, nonfinite, keep32, missing = 0;
    if (!PyArg_ParseTuple(args, "OOiOpp|OOp", &cap, &pathobj, &header, &textcol, &nonfinite,
                          &keep32, &columns, &drop, &missing))
        return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    if (!ctx) return NULL;
    PyObject *path = hpy_path(pathobj);
    if (!path) return NULL;
    haze_table_options opt;
    if (table_options(header, textcol, nonfinite, keep32, columns, drop, missing, &opt) < 0) {
        Py_DECREF(path);
        return NULL;
    }
    haze_table *t = NULL;
    int st;
    const char *p = PyBytes_AsString(path);
    HPY_NOGIL(st = haze_table_read(ctx, p, &opt, &t));
    Py_DECREF(path);
    if (st < 0) return hpy_raise(ctx, st);
    return table_tuple(t);
}

/* The sequence of cols names as UTF-8 strings (kept alive by it) in *out
 * (PyMem_Free it; NULL for None); -1 with a Python error. */
static int names_list(PyObject *namesobj, size_t cols, const char ***out) {
    *out = NULL;
    if (namesobj == Py_None) return 0;
    Py_ssize_t k = PySequence_Size(namesobj);
    if (k < 0 || (size_t)k != cols) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "one name per column is needed");
        return -1;
    }
    const char **names = PyMem_Calloc(cols ? cols : 1, sizeof *names);
    if (!names) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t j = 0; j < cols; j++) {
        PyObject *it = PySequence_GetItem(namesobj, (Py_ssize_t)j);
        if (!it) {
            PyMem_Free(names);
            return -1;
        }
        names[j] = PyUnicode_AsUTF8AndSize(it, NULL); /* kept alive by the sequence */
        Py_DECREF(it);
        if (!names[j]) {
            PyMem_Free(names);
            return -1;
        }
    }
    *out = names;
    return 0;
}

/*
 * table_write(ctx, path, data (2-D float64), names or None) -> None.
 * Written as CSV by the library (locale-free, shortest round-trip numbers,
 * the file replaced only when complete).
 */
static PyObject *py_table_write(PyObject *self, PyObject *args) {
    PyObject *cap, *pathobj, *dataobj, *namesobj;
    if (!PyArg_ParseTuple(args, "OOOO", &cap, &pathobj, &dataobj, &namesobj)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    if (!ctx) return NULL;
    Py_buffer v;
    if (hpy_buffer(dataobj, &v, "d", 2, 0) < 0) return NULL;
    PyObject *path = hpy_path(pathobj);
    if (!path) {
        PyBuffer_Release(&v);
        return NULL;
    }
    size_t rows = (size_t)v.shape[0], cols = (size_t)v.shape[1];
    const char **names = NULL;
    if (names_list(namesobj, cols, &names) < 0) goto fail;
    int st;
    const char *p = PyBytes_AsString(path);
    HPY_NOGIL(st = haze_table_write(ctx, p, v.buf, HAZE_PRECISION_F64, rows, cols,
                                    (const char *const *)names));
    PyMem_Free(names);
    Py_DECREF(path);
    PyBuffer_Release(&v);
    if (st < 0) return hpy_raise(ctx, st);
    Py_RETURN_NONE;
fail:
    PyMem_Free(names);
    Py_DECREF(path);
    PyBuffer_Release(&v);
    return NULL;
}

/*
 * table_reader_open(ctx, path, header, text_column or None, allow_nonfinite,
 * block_bytes) -> "haze.table_reader"; table_reader_next(ctx, reader) ->
 * the next block as table_read's tuple, or None after the last;
 * table_reader_progress(reader) -> the fraction of the file given.
 */
static void reader_close(void *p) {
    haze_table_reader_close(p);
}

static PyObject *py_table_reader_open(PyObject *self, PyObject *args) {
    PyObject *cap, *pathobj, *textcol, *columns = Py_None, *drop = Py_None;
    int header, nonfinite, missing = 0;
    Py_ssize_t block;
    if (!PyArg_ParseTuple(args, "OOiOpn|OOp", &cap, &pathobj, &header, &textcol, &nonfinite, &block,
                          &columns, &drop, &missing))
        return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    if (!ctx) return NULL;
    if (block < 0) {
        PyErr_SetString(PyExc_ValueError, "block_bytes must not be negative");
        return NULL;
    }
    haze_table_options opt;
    if (table_options(header, textcol, nonfinite, 0, columns, drop, missing, &opt) < 0) return NULL;
    PyObject *path = hpy_path(pathobj);
    if (!path) return NULL;
    haze_table_reader *r = NULL;
    int st;
    const char *p = PyBytes_AsString(path);
    HPY_NOGIL(st = haze_table_reader_open(ctx, p, &opt, (size_t)block, &r));
    Py_DECREF(path);
    if (st < 0) return hpy_raise(ctx, st);
    return hpy_wrap(r, "haze.table_reader", reader_close, NULL);
}

static PyObject *py_table_reader_next(PyObject *self, PyObject *args) {
    PyObject *cap, *rcap;
    if (!PyArg_ParseTuple(args, "OO", &cap, &rcap)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    haze_table_reader *r = ctx ? hpy_unwrap(rcap, "haze.table_reader") : NULL;
    if (!r) return NULL;
    haze_table *t = NULL;
    int st;
    HPY_NOGIL(st = haze_table_reader_next(ctx, r, &t));
    if (st < 0) return hpy_raise(ctx, st);
    if (!t) Py_RETURN_NONE;
    return table_tuple(t);
}

static PyObject *py_table_reader_progress(PyObject *self, PyObject *rcap) {
    haze_table_reader *r = hpy_unwrap(rcap, "haze.table_reader");
    if (!r) return NULL;
    return PyFloat_FromDouble(haze_table_reader_progress(r));
}

/*
 * table_writer_open(ctx, path, cols, names or None) -> "haze.table_writer";
 * table_writer_append(ctx, writer, data (2-D float64)); table_writer_commit(
 * ctx, writer); table_writer_abort(writer). A writer dropped before its
 * commit is aborted (nothing under its path).
 */
typedef struct {
    haze_table_writer *w;
} writer_box;

static void writer_drop(void *p) {
    writer_box *b = p;
    haze_table_writer_abort(&b->w);
    PyMem_Free(b);
}

static PyObject *py_table_writer_open(PyObject *self, PyObject *args) {
    PyObject *cap, *pathobj, *namesobj;
    Py_ssize_t cols;
    if (!PyArg_ParseTuple(args, "OOnO", &cap, &pathobj, &cols, &namesobj)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    if (!ctx) return NULL;
    if (cols < 1) {
        PyErr_SetString(PyExc_ValueError, "a table needs at least one column");
        return NULL;
    }
    const char **names = NULL;
    if (names_list(namesobj, (size_t)cols, &names) < 0) return NULL;
    PyObject *path = hpy_path(pathobj);
    writer_box *b = path ? PyMem_Calloc(1, sizeof *b) : NULL;
    if (!b) {
        if (path) PyErr_NoMemory();
        Py_XDECREF(path);
        PyMem_Free(names);
        return NULL;
    }
    int st;
    const char *p = PyBytes_AsString(path);
    HPY_NOGIL(st = haze_table_writer_open(ctx, p, HAZE_PRECISION_F64, (size_t)cols,
                                          (const char *const *)names, &b->w));
    Py_DECREF(path);
    PyMem_Free(names);
    if (st < 0) {
        PyMem_Free(b);
        return hpy_raise(ctx, st);
    }
    return hpy_wrap(b, "haze.table_writer", writer_drop, NULL);
}

/* The writer of a "haze.table_writer" handle not yet committed or aborted,
 * or NULL with a Python error. */
static writer_box *open_writer(PyObject *wcap) {
    writer_box *b = hpy_unwrap(wcap, "haze.table_writer");
    if (b && !b->w) {
        PyErr_SetString(PyExc_ValueError, "the writer was committed or aborted");
        return NULL;
    }
    return b;
}

static PyObject *py_table_writer_append(PyObject *self, PyObject *args) {
    PyObject *cap, *wcap, *dataobj;
    if (!PyArg_ParseTuple(args, "OOO", &cap, &wcap, &dataobj)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    writer_box *b = ctx ? open_writer(wcap) : NULL;
    if (!b) return NULL;
    Py_buffer v;
    if (hpy_buffer(dataobj, &v, "d", 2, 0) < 0) return NULL;
    int st;
    HPY_NOGIL(st = haze_table_writer_append(ctx, b->w, v.buf, (size_t)v.shape[0]));
    PyBuffer_Release(&v);
    if (st < 0) return hpy_raise(ctx, st);
    Py_RETURN_NONE;
}

static PyObject *py_table_writer_commit(PyObject *self, PyObject *args) {
    PyObject *cap, *wcap;
    if (!PyArg_ParseTuple(args, "OO", &cap, &wcap)) return NULL;
    haze_ctx *ctx = hpy_ctx(cap);
    writer_box *b = ctx ? open_writer(wcap) : NULL;
    if (!b) return NULL;
    int st;
    HPY_NOGIL(st = haze_table_writer_commit(ctx, &b->w));
    if (st < 0) return hpy_raise(ctx, st);
    Py_RETURN_NONE;
}

static PyObject *py_table_writer_abort(PyObject *self, PyObject *wcap) {
    writer_box *b = hpy_unwrap(wcap, "haze.table_writer");
    if (!b) return NULL;
    haze_table_writer_abort(&b->w);
    Py_RETURN_NONE;
}

PyMethodDef hpy_core_methods[] = {
    {"ctx_new", py_ctx_new, METH_VARARGS,
     "ctx_new(backend, device, threads, memory_limit, devices=None)"},
    {"ctx_devices", py_ctx_devices, METH_O, "ctx_devices(ctx) -> tuple of device ids"},
    {"ctx_info", py_ctx_info, METH_O, "ctx_info(ctx) -> (backend, device, threads, limit)"},
    {"ctx_set_threads", py_ctx_set_threads, METH_VARARGS, NULL},
    {"ctx_set_memory_limit", py_ctx_set_memory_limit, METH_VARARGS, NULL},
    {"build_info", py_build_info, METH_NOARGS, "version, CUDA, OpenMP and device count"},
    {"device_info", py_device_info, METH_VARARGS, "device_info(ctx, device) -> dict"},
    {"status_name", py_status_name, METH_O, "status_name(status) -> (name, message)"},
    {"_register_errors", py_register_errors, METH_O, NULL},
    {"table_read", py_table_read, METH_VARARGS, NULL},
    {"table_write", py_table_write, METH_VARARGS, NULL},
    {"table_reader_open", py_table_reader_open, METH_VARARGS, NULL},
    {"table_reader_next", py_table_reader_next, METH_VARARGS, NULL},
    {"table_reader_progress", py_table_reader_progress, METH_O, NULL},
    {"table_writer_open", py_table_writer_open, METH_VARARGS, NULL},
    {"table_writer_append", py_table_writer_append, METH_VARARGS, NULL},
    {"table_writer_commit", py_table_writer_commit, METH_VARARGS, NULL},
    {"table_writer_abort", py_table_writer_abort, METH_O, NULL},
    {NULL, NULL, 0, NULL}};

/* ------------------------------------------------------------------- module */

static PyMethodDef *const g_parts[] = {hpy_core_methods, hpy_fuzzy_methods, hpy_fis_methods,
                                       hpy_edge_methods, hpy_fcm_methods,   hpy_fnn_methods,
                                       hpy_prec_methods};

static int ext_exec(PyObject *m) {
    for (size_t i = 0; i < sizeof g_parts / sizeof g_parts[0]; i++)
        if (PyModule_AddFunctions(m, g_parts[i]) < 0) return -1;
    if (PyModule_AddIntConstant(m, "F64", HAZE_PRECISION_F64) < 0 ||
        PyModule_AddIntConstant(m, "F32", HAZE_PRECISION_F32) < 0)
        return -1;
    return 0;
}

static PyModuleDef_Slot ext_slots[] = {{Py_mod_exec, ext_exec}, {0, NULL}};

static struct PyModuleDef ext_module = {PyModuleDef_HEAD_INIT,
                                        "haze._ext",
                                        "haze's C library, as the package's Python code calls it",
                                        0,
                                        NULL,
                                        ext_slots,
                                        NULL,
                                        NULL,
                                        NULL};

PyMODINIT_FUNC PyInit__ext(void) {
    return PyModuleDef_Init(&ext_module);
}
