/*
 * haze/core.h - status codes, the execution context and device probing.
 *
 * Every haze computation runs in a context (haze_ctx) that says where it runs
 * (the CPU with N threads, one CUDA device, or a set of devices of one host),
 * how much device memory it may take, and that keeps, for each thread, the message of the last
 * error for a person to read. This header is the same whether or not haze was built with CUDA.
 *
 * Conventions of the whole API (every header follows them):
 *  - names are haze_<module>_<verb> (or haze_<type>_<verb> for a type of the
 *    module: haze_table_read in io, haze_fuzzy_array_new in fuzzy); counts
 *    are haze_<module>_<thing>_count; the spelling is British (centres,
 *    analyse, standardise);
 *  - the context comes first and out-parameters come last; every call that
 *    can fail returns a status and takes a context, whose message says why.
 *    The calls that only check their arguments (the name parsers,
 *    haze_device_query, the read-outs such as haze_fuzzy_get_cut or
 *    haze_fis_var_range) accept a NULL context, for use before one exists:
 *    the status alone then tells;
 *  - a call is extended through an options struct, never a second function:
 *    every struct a caller passes in starts with `size_t size`, the size the
 *    caller was compiled with, so that fields can be appended in later
 *    versions and older callers keep working (the library takes the fields
 *    that `size` covers and its defaults for the rest; a size of 0 is
 *    refused with HAZE_ERR_INVALID, and so are set fields it does not know).
 *    haze_<x>_options_default() (inline, so it is the caller's size) returns
 *    the defaults with the size set; it calls the exported
 *    haze_<x>_options_init(opt, size), which bindings call themselves. The
 *    structs the library fills in for the caller (haze_device_info,
 *    haze_fis_stats) carry the size the same way (haze_<x>_init(), inline):
 *    the library writes no more than `size` bytes. A struct is never
 *    returned by value from the library;
 *  - the element type of numbers (and the precision of a computation) is one
 *    enum, haze_precision, never a _f32 twin of a function or an int flag;
 *  - the results the library makes (tables, fuzzy arrays, clusterings,
 *    analyses) are opaque handles read through accessors, so their layout is
 *    not part of the ABI; the plain value types (haze_ivd, haze_image, ...)
 *    are fixed and will not change.
 * The rule on threads is stated once, below ("Threads"); each header
 * refers to it and says only where its own objects differ.
 */
#ifndef HAZE_CORE_H
#define HAZE_CORE_H

#include <stddef.h>
#include <string.h>

#include "haze/version.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && defined(HAZE_SHARED_BUILD)
#define HAZE_API __declspec(dllexport)
#elif defined(__GNUC__)
#define HAZE_API __attribute__((visibility("default")))
#else
#define HAZE_API
#endif

/*
 * Status codes: HAZE_OK (0) or a negative error. One table gives the code, its
 * value and its message; haze_status_message() and haze_status_name() read it.
 */
#define HAZE_STATUS_MAP(X)                                                                         \
    X(OK, 0, "success")                                                                            \
    X(ERR_INVALID, -1, "invalid argument")                                                         \
    X(ERR_NOMEM, -2, "out of memory")                                                              \
    X(ERR_IO, -3, "input/output error")                                                            \
    X(ERR_PARSE, -4, "parse error")                                                                \
    X(ERR_CUDA, -5, "CUDA error")                                                                  \
    X(ERR_UNSUPPORTED, -6, "operation not supported")                                              \
    X(ERR_NODEVICE, -7, "no CUDA device available")                                                \
    X(ERR_DOMAIN, -8, "argument outside the domain of the operation")                              \
    X(ERR_RANGE, -9, "result out of range")                                                        \
    X(ERR_MISMATCH, -10, "operands do not match (shape, encoding or size)")                        \
    X(ERR_VERSION, -11, "unsupported file version")                                                \
    X(ERR_INTERNAL, -12, "internal error")

typedef enum haze_status {
#define HAZE__STATUS_ENUM(name, value, msg) HAZE_##name = value,
    HAZE_STATUS_MAP(HAZE__STATUS_ENUM)
#undef HAZE__STATUS_ENUM
} haze_status;

/* Static English message for a status; never NULL ("unknown status" for others). */
HAZE_API const char *haze_status_message(int status);
/* Symbolic name without the prefix ("ERR_PARSE"); never NULL. */
HAZE_API const char *haze_status_name(int status);

/* Version of the library that is linked (may differ from HAZE_VERSION_STRING). */
HAZE_API const char *haze_version(void);

/*
 * Element type of an array of numbers, and the precision a computation runs
 * in: one enum for every module (the values are those of the former
 * haze_fuzzy_precision).
 */
typedef enum haze_precision {
    HAZE_PRECISION_F64 = 0, /* double */
    HAZE_PRECISION_F32 = 1  /* float */
} haze_precision;

typedef struct haze_ctx haze_ctx;

/* ---------------------------------------------------------------- backends */

typedef enum haze_backend {
    HAZE_BACKEND_AUTO = 0, /* CUDA if built and a device is present, else CPU */
    HAZE_BACKEND_CPU = 1,
    HAZE_BACKEND_CUDA = 2
} haze_backend;

/* "auto", "cpu", "cuda". */
HAZE_API const char *haze_backend_name(haze_backend b);
/* Parses "auto|cpu|cuda" (case-insensitive, "gpu" accepted for cuda);
 * HAZE_ERR_INVALID for another name. ctx may be NULL. */
HAZE_API int haze_backend_parse(haze_ctx *ctx, const char *s, haze_backend *out);

/* 1 if this build of haze contains CUDA code, else 0. */
HAZE_API int haze_build_has_cuda(void);
/* 1 if this build uses OpenMP for CPU threads, else 0. */
HAZE_API int haze_build_has_openmp(void);
/* Number of usable CUDA devices; 0 without CUDA support, driver or device. */
HAZE_API int haze_device_count(void);

typedef struct haze_device_info {
    size_t size; /* set by the caller: sizeof(haze_device_info) (haze_device_info_init) */
    char name[256];
    int id;
    int cc_major, cc_minor; /* compute capability */
    int sm_count;           /* streaming multiprocessors */
    size_t total_mem;       /* bytes of device memory */
    size_t free_mem;        /* bytes free at the time of the call */
    int max_threads_per_sm;
    int max_threads_per_block;
    int regs_per_sm;
    size_t smem_per_sm;    /* shared memory per multiprocessor, bytes */
    size_t smem_per_block; /* opt-in maximum per block, bytes */
    int warp_size;
    int mem_bus_width;     /* bits */
    double peak_bandwidth; /* theoretical, bytes per second (0 if unknown) */
    int runtime_version;   /* CUDA runtime, e.g. 13000 */
    int driver_version;
} haze_device_info;

/* A zeroed haze_device_info with its size set, for haze_device_query. */
static inline haze_device_info haze_device_info_init(void) {
    haze_device_info info;
    memset(&info, 0, sizeof info);
    info.size = sizeof info;
    return info;
}
/*
 * Fills *info (no more than info->size bytes) for CUDA device `device`.
 * Returns HAZE_ERR_NODEVICE when the build has no CUDA or no such device
 * exists, HAZE_ERR_INVALID when info is NULL or info->size is 0. ctx may be
 * NULL (device queries are often made before choosing a context's device).
 */
HAZE_API int haze_device_query(haze_ctx *ctx, int device, haze_device_info *info);

/* ----------------------------------------------------------------- context */

/* Number of CPU threads a context uses by default (OpenMP's, or the core count). */
HAZE_API int haze_ctx_default_threads(void);

typedef struct haze_ctx_options {
    size_t size;                /* sizeof(haze_ctx_options): set by haze_ctx_options_default() */
    haze_backend backend;       /* AUTO: the HAZE_BACKEND environment variable, if set, decides */
    int device;                 /* CUDA device id; -1: HAZE_DEVICE if set, else 0 */
    int threads;                /* CPU threads; 0: all (HAZE_THREADS or OpenMP's default) */
    size_t device_memory_limit; /* bytes the library may allocate on the device; 0: no limit */
    /* A context over several CUDA devices of one host ("Several devices",
     * below): device_count > 1, or a list of one (devices non-NULL), names
     * the set, devices[k] (devices NULL: 0 .. device_count - 1); `device`
     * must then be -1 or devices[0]. 0 (the default): the one device above. */
    const int *devices;
    int device_count;
} haze_ctx_options;

/* Fills the first `size` bytes of *opt with the defaults (AUTO backend, device
 * -1, threads 0, no memory limit, no set of devices) and sets opt->size = size;
 * HAZE_ERR_INVALID when size is less than sizeof(size_t). */
HAZE_API int haze_ctx_options_init(haze_ctx_options *opt, size_t size);
/* The defaults, sized for the caller. */
static inline haze_ctx_options haze_ctx_options_default(void) {
    haze_ctx_options opt;
    haze_ctx_options_init(&opt, sizeof opt);
    return opt;
}

/*
 * Creates a context. `opt` may be NULL for the defaults.
 *
 * The backend is resolved once: AUTO becomes CUDA when the build has it and a
 * device answers, otherwise CPU. Asking for CUDA where there is none is an
 * error (HAZE_ERR_NODEVICE), never a silent fallback. The environment
 * variable HAZE_BACKEND (auto|cpu|cuda) replaces an AUTO request only, so a
 * program's explicit choice wins over the environment.
 *
 * Starting CUDA takes the driver 0.1-0.3 s, and making the device's context
 * as long again. An AUTO context returns at once: a thread of its own looks
 * for the device and makes its context while the program goes on (reading
 * its data, say), and the first call that needs the answer
 * (haze_ctx_backend, or any computation) waits for that thread. A CUDA
 * request checks the device before it returns (so that it can fail), and
 * makes the context on such a thread too. A child forked before the AUTO
 * backend is settled settles it on the CPU (CUDA does not carry over a
 * fork).
 *
 * The first context also replaces GMP's memory functions (which MPFR uses)
 * with ones that allocate as GMP's do, so that an allocation that fails
 * inside MPFR during a haze call is reported as HAZE_ERR_NOMEM instead of
 * aborting; outside haze calls they still abort, as GMP's do. A program that
 * installed its own GMP memory functions before keeps them.
 *
 * Ownership: on success *out is a new context that the caller frees with
 * haze_ctx_free(). On failure other than HAZE_ERR_NOMEM, *out is still set to
 * a context that holds the reason (haze_ctx_errmsg); use it for nothing else
 * and free it. On HAZE_ERR_NOMEM *out is NULL.
 *
 * With the CUDA backend the context owns one CUDA stream. It is an ordinary
 * (blocking) stream, so its work is ordered after what the program queued
 * on the legacy default stream (cudaMemcpy and friends): device arrays
 * filled that way may be handed to haze at once (not in a program built
 * with nvcc --default-stream per-thread, whose default stream is not the
 * legacy one: synchronise first there). Every haze call that takes device
 * pointers has finished with them when it returns.
 */
HAZE_API int haze_ctx_new(const haze_ctx_options *opt, haze_ctx **out);

/* Frees the context and its scratch memory (with a set of devices, every
 * device's part); NULL, or a part of a context (haze_ctx_part), is a no-op. */
HAZE_API void haze_ctx_free(haze_ctx *ctx);

/* The resolved backend: HAZE_BACKEND_CPU or HAZE_BACKEND_CUDA. */
HAZE_API haze_backend haze_ctx_backend(const haze_ctx *ctx);
/* CUDA device id in use (meaningful with the CUDA backend); with a set of
 * devices, the first of the set. */
HAZE_API int haze_ctx_device(const haze_ctx *ctx);
/*
 * Several devices. A context made with haze_ctx_options.devices /
 * device_count runs on a set of CUDA devices of one host. Its own device
 * (haze_ctx_device) is the first of the set; for each of the others it
 * holds a part, a context on that device made and freed with it: the same
 * backend and device memory limit (which applies on each device: every
 * part keeps its own account), haze_ctx_threads / device_count CPU threads
 * (at least 1; the context itself keeps the threads asked for, for the work
 * it runs alone). The calls that split their work over the set say so
 * (haze_fcm_fit, haze_fis_eval); every other call runs on the first device,
 * as on a context of one device. haze_ctx_new checks the set: a device
 * listed twice (or a negative id), a set on the CPU backend:
 * HAZE_ERR_INVALID; a device the host does not have, or a build without
 * CUDA: HAZE_ERR_NODEVICE, the message naming it and how many the host has.
 * With a set, an AUTO backend means CUDA (HAZE_BACKEND is not read: the set
 * is the program's choice). haze_ctx_set_threads and
 * haze_ctx_set_device_memory_limit on the context set its parts too.
 */
/* Number of CUDA devices the context runs on: device_count for a set, 1 for
 * a context on one device, 0 on the CPU backend (or for NULL). */
HAZE_API int haze_ctx_device_count(const haze_ctx *ctx);
/* Writes the ids of the context's devices, in the set's order, to out (at
 * most max of them; out may be NULL when max is 0); returns their number
 * (haze_ctx_device_count), which may be more than max. */
HAZE_API int haze_ctx_devices(const haze_ctx *ctx, int *out, int max);
/*
 * The context for the k-th device of the set: k = 0 is ctx itself, k = 1 ..
 * haze_ctx_device_count(ctx) - 1 the parts (NULL for another k; ctx for 0
 * on every context). A part is an ordinary context on its one device, for
 * work a program places on that device itself (haze_fis_eval_device on the
 * rows resident there, say); it belongs to ctx: valid until ctx is freed,
 * never freed by the caller (haze_ctx_free ignores it), its last error read
 * from the part itself (haze_ctx_errmsg(part)). Threads: as ctx.
 */
HAZE_API haze_ctx *haze_ctx_part(haze_ctx *ctx, int k);
/* CPU threads used by CPU kernels (always >= 1). */
HAZE_API int haze_ctx_threads(const haze_ctx *ctx);
/* Sets the CPU thread count; 0 restores the default (with a set of
 * devices, each part gets threads / device_count, at least 1). */
HAZE_API int haze_ctx_set_threads(haze_ctx *ctx, int threads);
/* Limit on the device memory haze may allocate (0: none). */
HAZE_API size_t haze_ctx_device_memory_limit(const haze_ctx *ctx);
HAZE_API int haze_ctx_set_device_memory_limit(haze_ctx *ctx, size_t bytes);

/*
 * Threads (the rule for the whole API; every header refers here).
 *
 * A context may be shared by threads: computations on one context may run at
 * the same time on several threads, and each thread reads its own last error
 * (below), as it reads its own errno. So every call that takes a context may
 * overlap with any other such call on the same context, except these, which
 * must not overlap with any other call on the context: haze_ctx_set_threads,
 * haze_ctx_set_device_memory_limit and haze_ctx_free; and the output group
 * calls (haze_outgroup_*, io.h), which belong to one thread at a time while a
 * group is open. The calls without a context (the accessors, haze_version,
 * haze_status_message, ...) may overlap with anything.
 *
 * Objects made from a context (a loaded model, a script, a fuzzy array, a
 * result) are read-only in computations and may be shared the same way: any
 * number of calls that read one may overlap. A call that changes one (its
 * header says which: the set_ calls, training, an array that is the output
 * of an operation) must not overlap with any other call on that object.
 * With the CUDA backend the threads' work goes to the context's one stream,
 * in turn: one context per thread lets it overlap.
 *
 * Why per thread and not one context per thread: a library context is made
 * once and handed to a pool of workers; a message kept in the context would
 * be overwritten by another thread's failure before the first thread reads
 * its own, and a rule "one context per thread" is easy to break unnoticed.
 */

/*
 * Message of the last error raised in this context by the calling thread,
 * for a person: it names the file, line and column where one is involved.
 * Empty string if none. The pointer stays valid until this thread's next
 * haze call on this context, or until it ends.
 */
HAZE_API const char *haze_ctx_errmsg(const haze_ctx *ctx);
/* Status of the last error raised in this context by the calling thread
 * (HAZE_OK if none). */
HAZE_API int haze_ctx_errcode(const haze_ctx *ctx);
/* Forgets the calling thread's last error in this context. */
HAZE_API void haze_ctx_clear_error(haze_ctx *ctx);

#ifdef __cplusplus
}
#endif

#endif /* HAZE_CORE_H */
