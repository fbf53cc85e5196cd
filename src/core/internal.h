/*
 * src/core/internal.h - what the modules share inside the library: the
 * context's layout, error raising, and CUDA error checking. Not installed.
 */
#ifndef HAZE_CORE_INTERNAL_H
#define HAZE_CORE_INTERNAL_H

#include <locale.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include "haze/core.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HAZE__ERRMSG_MAX 1024

struct haze_ctx {
    haze_backend backend; /* resolved: CPU or CUDA */
    int device;
    int threads;
    size_t device_memory_limit;
    int errcode;
    char errmsg[HAZE__ERRMSG_MAX];
    void *stream; /* cudaStream_t, created on first use by the CUDA backend */
    /* the open output group (src/io/outfile.c), or NULL */
    struct haze__outgroup *outgroup;
};

/*
 * Records an error in the context (if not NULL) and returns `status`, so a
 * failing path reads `return haze__error(ctx, HAZE_ERR_PARSE, "%s:%d: ...", ...)`.
 */
int haze__error(haze_ctx *ctx, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
int haze__verror(haze_ctx *ctx, int status, const char *fmt, va_list ap);

/*
 * Numbers in files and messages are read and written in the "C" locale,
 * whatever the host program set with setlocale (src/core/locale.c). Use
 * haze__strtod and haze__fprintf / haze__snprintf instead of strtod and
 * fprintf / snprintf wherever a floating-point number is read or written;
 * around other locale-dependent calls (MPFR's mpfr_strtofr, mpfr_asprintf)
 * or a loop of many, bracket with begin/end: begin switches the calling
 * thread to the C locale and returns what to give end to switch it back.
 */
locale_t haze__numeric_begin(void);
void haze__numeric_end(locale_t prev);
double haze__strtod(const char *s, char **end);
int haze__fprintf(FILE *fp, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
int haze__vfprintf(FILE *fp, const char *fmt, va_list ap);
int haze__snprintf(char *buf, size_t cap, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
int haze__vsnprintf(char *buf, size_t cap, const char *fmt, va_list ap);

/* Removes the context's open output group, if any, with its temporaries. */
void haze__outgroup_release(haze_ctx *ctx);

/* Threads for a CPU kernel on this context (>= 1). */
static inline int haze__threads(const haze_ctx *ctx) {
    return ctx && ctx->threads > 0 ? ctx->threads : 1;
}

/* 1 when a computation on this context should run on the GPU. */
static inline int haze__use_cuda(const haze_ctx *ctx) {
    return ctx && ctx->backend == HAZE_BACKEND_CUDA;
}

/* Device-side helpers (defined in core_cuda.cu; only with CUDA). */
int haze__cuda_probe(int device, haze_device_info *info, char *why, size_t why_len);
int haze__cuda_count(void);
void haze__cuda_ctx_release(haze_ctx *ctx);
/*
 * Makes the context's device current and creates its stream on first use.
 * Every CUDA entry point of a module calls this first.
 */
int haze__cuda_begin(haze_ctx *ctx);
/*
 * Bytes of device memory a computation may allocate now: the free memory
 * (less a small reserve) capped by the context's device_memory_limit.
 * Streaming paths size their chunks from this.
 */
size_t haze__cuda_budget(haze_ctx *ctx);

#ifdef __cplusplus
}
#endif

#ifdef __CUDACC__
#include <cuda_runtime.h>
/*
 * Checks a CUDA runtime call; on failure records "file:line: call: message"
 * in ctx and returns HAZE_ERR_CUDA from the enclosing function.
 */
#define HAZE_CUDA_TRY(ctx, call)                                                                   \
    do {                                                                                           \
        cudaError_t haze__e = (call);                                                              \
        if (haze__e != cudaSuccess)                                                                \
            return haze__error((ctx), HAZE_ERR_CUDA, "CUDA: %s: %s (%s:%d)", #call,                \
                               cudaGetErrorString(haze__e), __FILE__, __LINE__);                   \
    } while (0)
/* Checks the last kernel launch the same way. */
#define HAZE_CUDA_TRY_LAUNCH(ctx) HAZE_CUDA_TRY(ctx, cudaGetLastError())
/* The context's stream (created on first use). */
static inline cudaStream_t haze__stream(haze_ctx *ctx) {
    return (cudaStream_t)ctx->stream;
}
#endif

#endif
