/*
 * haze/core.h - status codes, the execution context and device probing.
 *
 * Every haze computation runs in a context (haze_ctx) that says where it runs
 * (the CPU with N threads, or one CUDA device), how much device memory it may
 * take, and that keeps, for each thread, the message of the last error for a
 * person to read.
 * This header is the same whether or not haze was built with CUDA.
 */
#ifndef HAZE_CORE_H
#define HAZE_CORE_H

#include <stddef.h>

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
 * value and its message; haze_strerror() and haze_status_name() read it.
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
HAZE_API const char *haze_strerror(int status);
/* Symbolic name without the prefix ("ERR_PARSE"); never NULL. */
HAZE_API const char *haze_status_name(int status);

/* Version of the library that is linked (may differ from HAZE_VERSION_STRING). */
HAZE_API const char *haze_version(void);

/* ---------------------------------------------------------------- backends */

typedef enum haze_backend {
    HAZE_BACKEND_AUTO = 0, /* CUDA if built and a device is present, else CPU */
    HAZE_BACKEND_CPU = 1,
    HAZE_BACKEND_CUDA = 2
} haze_backend;

/* "auto", "cpu", "cuda". */
HAZE_API const char *haze_backend_name(haze_backend b);
/* Parses "auto|cpu|cuda" (case-insensitive, "gpu" accepted for cuda). */
HAZE_API int haze_backend_parse(const char *s, haze_backend *out);

/* 1 if this build of haze contains CUDA code, else 0. */
HAZE_API int haze_has_cuda(void);
/* 1 if this build uses OpenMP for CPU threads, else 0. */
HAZE_API int haze_has_openmp(void);
/* Number of usable CUDA devices; 0 without CUDA support, driver or device. */
HAZE_API int haze_cuda_device_count(void);

typedef struct haze_device_info {
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

/*
 * Fills *info for CUDA device `device`. Returns HAZE_ERR_NODEVICE when the
 * build has no CUDA or no such device exists.
 */
HAZE_API int haze_device_query(int device, haze_device_info *info);

/* Number of CPU threads haze uses by default (OpenMP's, or the core count). */
HAZE_API int haze_cpu_threads(void);

/* ----------------------------------------------------------------- context */

typedef struct haze_ctx haze_ctx;

typedef struct haze_ctx_options {
    haze_backend backend;       /* AUTO: the HAZE_BACKEND environment variable, if set, decides */
    int device;                 /* CUDA device id; -1: HAZE_DEVICE if set, else 0 */
    int threads;                /* CPU threads; 0: all (HAZE_THREADS or OpenMP's default) */
    size_t device_memory_limit; /* bytes the library may allocate on the device; 0: no limit */
} haze_ctx_options;

/* The defaults: AUTO backend, device -1, threads 0, no memory limit. */
HAZE_API haze_ctx_options haze_ctx_options_default(void);

/*
 * Creates a context. `opt` may be NULL for the defaults.
 *
 * The backend is resolved here, once: AUTO becomes CUDA when the build has it
 * and a device answers, otherwise CPU. Asking for CUDA where there is none is
 * an error (HAZE_ERR_NODEVICE), never a silent fallback. The environment
 * variable HAZE_BACKEND (auto|cpu|cuda) replaces an AUTO request only, so a
 * program's explicit choice wins over the environment.
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
HAZE_API int haze_ctx_new(haze_ctx **out, const haze_ctx_options *opt);

/* Frees the context and its scratch memory; NULL is a no-op. */
HAZE_API void haze_ctx_free(haze_ctx *ctx);

/* The resolved backend: HAZE_BACKEND_CPU or HAZE_BACKEND_CUDA. */
HAZE_API haze_backend haze_ctx_backend(const haze_ctx *ctx);
/* CUDA device id in use (meaningful with the CUDA backend). */
HAZE_API int haze_ctx_device(const haze_ctx *ctx);
/* CPU threads used by CPU kernels (always >= 1). */
HAZE_API int haze_ctx_threads(const haze_ctx *ctx);
/* Sets the CPU thread count; 0 restores the default. */
HAZE_API int haze_ctx_set_threads(haze_ctx *ctx, int threads);
/* Limit on the device memory haze may allocate (0: none). */
HAZE_API size_t haze_ctx_device_memory_limit(const haze_ctx *ctx);
HAZE_API int haze_ctx_set_device_memory_limit(haze_ctx *ctx, size_t bytes);

/*
 * Threads. A context may be shared by threads: computations on one context
 * may run at the same time on several threads, and each thread reads its own
 * last error (below), as it reads its own errno. What must not overlap with
 * any other call on the context is changing it (haze_ctx_set_threads,
 * haze_ctx_set_device_memory_limit) and freeing it. Objects made from a
 * context (a loaded model, a script) are read-only in computations and may be
 * shared the same way unless their header says otherwise; a call that
 * changes one must not overlap with others on it. With the CUDA backend the
 * threads' work goes to the context's one stream, in turn: one context per
 * thread lets it overlap.
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
