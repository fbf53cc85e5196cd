/*
 * dev/fuzzy_dev.h - what the fuzzy module's tests and benchmarks use from
 * inside its GPU code: a sort with its method forced and statistics of what
 * it did, the AXPY with its layout forced and its kernels timed, the
 * device's copy bandwidth and clock, and device scratch memory. CUDA builds
 * only (HAZE_HAVE_CUDA). Forced choices are set on the context (its fuzzy
 * state) for the one call and put back after it.
 */
#ifndef HAZE_DEV_FUZZY_DEV_H
#define HAZE_DEV_FUZZY_DEV_H

#include <stddef.h>
#include <stdint.h>

#include "fuzzy/fuzzy_internal.h"
#include "haze/fuzzy.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * haze_fuzzy_sort_by_key on a CUDA context with the method forced (AUTO:
 * the library's choice); *stats (may be NULL) says what the sort did,
 * its kernels timed by CUDA events. Same result for every method.
 */
int haze_dev_fuzzy_sort(haze_ctx *ctx, uint32_t *keys, haze_fuzzy_array *a,
                        haze__sort_method method, haze__sort_stats *stats);

/*
 * haze_fuzzy_axpy on a CUDA context: soa = 1 runs the structure-of-arrays
 * kernel (host arrays, transposed before and after outside the timed
 * part); the kernel is launched reps times and *kernel_s (may be NULL) is
 * the mean time of one launch (CUDA events, copies excluded).
 */
int haze_dev_fuzzy_axpy(haze_ctx *ctx, const haze_fuzzy_array *a, const haze_fuzzy_array *b,
                        int iters, haze_fuzzy_array *y, int soa, int reps, double *kernel_s);

/*
 * Device-to-device copy bandwidth of ctx's GPU (read + write bytes per
 * second; best of a few cudaMemcpy of `bytes` bytes), the measured bound
 * the sort benchmark compares with.
 */
int haze_dev_fuzzy_copy_bw(haze_ctx *ctx, size_t bytes, double *bytes_per_s);

/* Peak SM clock of a CUDA device in kHz (0 if unknown). */
int haze_dev_fuzzy_clock_khz(int device);

/* Device scratch memory on ctx's device (zeroed; counted in its limit),
 * freed with haze_dev_fuzzy_free(ctx, p, bytes); copies in any direction
 * on the context's stream, finished when the call returns. */
int haze_dev_fuzzy_alloc(haze_ctx *ctx, size_t bytes, void **p);
void haze_dev_fuzzy_free(haze_ctx *ctx, void *p, size_t bytes);
int haze_dev_fuzzy_copy(haze_ctx *ctx, void *dst, const void *src, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif
