/*
 * src/fuzzy/fuzzy_internal.h - what fuzzy.c and fuzzy_cuda.cu share: the
 * CUDA entry points (defined only in CUDA builds) and the packed-number
 * helpers. Not installed.
 */
#ifndef HAZE_FUZZY_INTERNAL_H
#define HAZE_FUZZY_INTERNAL_H

#include "haze/fuzzy.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Size in bytes of one value of the array's precision. */
static inline size_t haze__fuzzy_elem_size(const haze_fuzzy_array *a) {
    return a->precision == HAZE_FUZZY_FLOAT ? sizeof(float) : sizeof(double);
}

/*
 * GPU versions of haze_fuzzy_op / _axpy / _sort_by_key, inputs already
 * validated. op: *first_bad is set to the smallest index whose element hit
 * a domain problem, or to SIZE_MAX.
 */
int haze__fuzzy_op_cuda(haze_ctx *ctx, haze_fuzzy_opcode op, const haze_fuzzy_array *a,
                        const haze_fuzzy_array *b, haze_fuzzy_array *c, size_t *first_bad);
int haze__fuzzy_axpy_cuda(haze_ctx *ctx, const haze_fuzzy_array *a, const haze_fuzzy_array *b,
                          int iters, haze_fuzzy_array *y);
int haze__fuzzy_sort_cuda(haze_ctx *ctx, uint32_t *keys, haze_fuzzy_array *a);

/*
 * For benchmarks and tests: the same GPU work, with the kernels alone timed
 * by CUDA events (*kernel_s, seconds; host-device copies excluded), so the
 * device-resident rate can be read. axpy: soa = 1 runs the
 * structure-of-arrays kernel (the host arrays are transposed before and after,
 * outside the timed part); the kernel is launched reps times and *kernel_s is
 * the mean. sort: the timed part is iota + CUB radix sort + gather.
 */
int haze__fuzzy_axpy_cuda_ex(haze_ctx *ctx, const haze_fuzzy_array *a, const haze_fuzzy_array *b,
                             int iters, haze_fuzzy_array *y, int soa, int reps, double *kernel_s);
int haze__fuzzy_sort_cuda_ex(haze_ctx *ctx, uint32_t *keys, haze_fuzzy_array *a, double *kernel_s);
/* Peak SM clock of a CUDA device in kHz (0 if unknown). */
int haze__fuzzy_cuda_clock_khz(int device);

/* The CPU worker for one element (shared by the op loop and tests). */
int haze__fuzzy_apply(haze_fuzzy_encoding enc, haze_fuzzy_precision prec, haze_fuzzy_opcode op,
                      int n, void *c, const void *a, const void *b);

#ifdef __cplusplus
}
#endif

#endif
