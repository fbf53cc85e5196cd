/*
 * src/core/cuda.h - the one way the library talks to the CUDA runtime:
 * error checking, device memory that counts against the context's limit,
 * and the device properties read once. For CUDA sources (core/internal.h
 * includes it under nvcc); plain C may include it where the CUDA runtime
 * headers are on the include path (the GPU tests).
 */
#ifndef HAZE_CORE_CUDA_H
#define HAZE_CORE_CUDA_H

#include <stddef.h>

#include <cuda_runtime.h>

#include "core/internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Records "CUDA: CALL: MESSAGE (FILE:LINE)" in ctx for the failed runtime
 * call and returns HAZE_ERR_CUDA; the runtime's last error is cleared, so a
 * later launch check does not see this one again. The macros below use it.
 */
int haze__cuda_error(haze_ctx *ctx, cudaError_t e, const char *call, const char *file, int line);

/*
 * Allocates `bytes` (at least 1) on the context's device (current after
 * haze__cuda_begin). Refuses with HAZE_ERR_NOMEM and "out of device
 * memory: WHAT needs N bytes, ..." when the bytes this context holds
 * through this allocator would pass its device_memory_limit, or when the
 * device has no room. *p is NULL on failure.
 */
int haze__dev_alloc(haze_ctx *ctx, void **p, size_t bytes, const char *what);
/*
 * Frees what haze__dev_alloc gave (p may be NULL), on the context's device,
 * and returns the bytes to its count. ctx may be NULL (freed on the current
 * device, no count); objects that outlive their call use
 * haze__dev_free_held (internal.h) with the account and device they kept.
 */
void haze__dev_free(haze_ctx *ctx, void *p, size_t bytes);

/*
 * Copies `bytes` of host memory at src to dst on the context's device, on
 * the context's stream, and waits for the copy. Large copies from pageable
 * memory go through page-locked staging buffers: the context's threads copy
 * one chunk into a buffer while the copy engine moves the previous one,
 * where the driver's own pageable copy runs at a fraction of the bus rate
 * (measured on an H100 host: 5 GB/s pageable, 55 GB/s from page-locked
 * memory); page-locked src is copied directly.
 */
int haze__cuda_upload(haze_ctx *ctx, void *dst, const void *src, size_t bytes);

/* 1 when [p, p + bytes) is page-locked host memory (cudaHostAlloc,
 * cudaHostRegister), judged by its two ends: the copy engines can read and
 * write it directly. A wrong 0 or 1 only costs speed (the driver's copies
 * take pageable memory too). */
int haze__host_page_locked(const void *p, size_t bytes);

/*
 * A page-locked host buffer of at least `bytes` (*out) for copies between
 * pageable memory and the device at the bus rate, given back with
 * haze__cuda_staging_release once the copies that use it are done. The
 * context keeps one for its later calls (freed with it, or replaced by a
 * larger one); while a call holds it, a call on another thread sharing the
 * context gets a buffer of its own, freed at its release.
 */
int haze__cuda_staging(haze_ctx *ctx, size_t bytes, void **out);
void haze__cuda_staging_release(haze_ctx *ctx, void *p);

/* The device's properties, read once per device per process (thread-safe);
 * NULL for a device that cannot be read. */
const struct cudaDeviceProp *haze__cuda_props(int device);

#ifdef __cplusplus
}
#endif

/*
 * Checks a CUDA runtime call; on failure records "CUDA: call: message
 * (file:line)" in ctx and returns HAZE_ERR_CUDA from the enclosing function.
 */
#define HAZE_CUDA_TRY(ctx, call)                                                                   \
    do {                                                                                           \
        cudaError_t haze__e = (call);                                                              \
        if (haze__e != cudaSuccess)                                                                \
            return haze__cuda_error((ctx), haze__e, #call, __FILE__, __LINE__);                    \
    } while (0)
/* Checks the last kernel launch the same way. */
#define HAZE_CUDA_TRY_LAUNCH(ctx) HAZE_CUDA_TRY(ctx, cudaGetLastError())
/* The same for paths that must clean up: on failure st = the recorded
 * status, then goto label. */
#define HAZE_CUDA_GOTO(ctx, st, label, call)                                                       \
    do {                                                                                           \
        cudaError_t haze__e = (call);                                                              \
        if (haze__e != cudaSuccess) {                                                              \
            (st) = haze__cuda_error((ctx), haze__e, #call, __FILE__, __LINE__);                    \
            goto label;                                                                            \
        }                                                                                          \
    } while (0)

/* The context's stream (created on first use by haze__cuda_begin). */
static inline cudaStream_t haze__stream(haze_ctx *ctx) {
    return (cudaStream_t)ctx->stream;
}

#endif
