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
 * validated. op: of the bits an element's scalar function returns, those in
 * `keep` count; first[0] is set to the smallest index with the domain bit,
 * first[1] to the smallest with the overflow bit (SIZE_MAX: none).
 */
int haze__fuzzy_op_cuda(haze_ctx *ctx, haze_fuzzy_opcode op, const haze_fuzzy_array *a,
                        const haze_fuzzy_array *b, haze_fuzzy_array *c, int keep, size_t first[2]);
int haze__fuzzy_axpy_cuda(haze_ctx *ctx, const haze_fuzzy_array *a, const haze_fuzzy_array *b,
                          int iters, haze_fuzzy_array *y);
int haze__fuzzy_sort_cuda(haze_ctx *ctx, uint32_t *keys, haze_fuzzy_array *a);
/* Device memory of device-resident arrays (haze_fuzzy_array_new_device). */
int haze__fuzzy_cuda_alloc(haze_ctx *ctx, size_t bytes, void **p);
void haze__fuzzy_cuda_free(void *p);
int haze__fuzzy_cuda_copy(haze_ctx *ctx, void *dst, const void *src, size_t bytes);

/*
 * For benchmarks and tests: the same GPU work, with the kernels alone timed
 * by CUDA events (*kernel_s, seconds; host-device copies excluded), so the
 * device-resident rate can be read. axpy: soa = 1 runs the
 * structure-of-arrays kernel (the host arrays are transposed before and after,
 * outside the timed part); the kernel is launched reps times and *kernel_s is
 * the mean.
 */
int haze__fuzzy_axpy_cuda_ex(haze_ctx *ctx, const haze_fuzzy_array *a, const haze_fuzzy_array *b,
                             int iters, haze_fuzzy_array *y, int soa, int reps, double *kernel_s);

/*
 * How the GPU sort moves the numbers (docs/fuzzy.md, "Sort-by-key"):
 * GATHER sorts (key, index) pairs and gathers each number once; RECORDS
 * sorts the numbers themselves as CUB values (records of 8, 12 or 16 bytes
 * only); AUTO picks the faster one for the record size.
 */
typedef enum { HAZE__SORT_AUTO, HAZE__SORT_GATHER, HAZE__SORT_RECORDS } haze__sort_method;

/* What one GPU sort did (for tests and benchmarks). */
typedef struct {
    double kernel_s;   /* device time of the sort's kernels (CUDA events), copies excluded */
    double bytes;      /* device memory bytes the method moves (docs/fuzzy.md), per call */
    double dram_bytes; /* the same with the gather's random reads as the whole 64-byte
                        * segments DRAM delivers (docs/fuzzy.md) */
    int method;        /* the method used (GATHER or RECORDS) */
    int begin_bit;     /* key bits sorted: [begin_bit, end_bit), after the OR/AND pre-pass */
    int end_bit;
    int passes; /* radix digit passes (8-bit digits) */
} haze__sort_stats;

/*
 * The GPU sort with the method chosen by the caller (AUTO: the library's
 * choice); *stats (may be NULL) says what was done. Same result as
 * haze_fuzzy_sort_by_key for every method.
 */
int haze__fuzzy_sort_cuda_ex(haze_ctx *ctx, uint32_t *keys, haze_fuzzy_array *a,
                             haze__sort_method method, haze__sort_stats *stats);

/*
 * Device-to-device copy bandwidth of ctx's GPU (read + write bytes per
 * second; best of a few cudaMemcpy of `bytes` bytes), the measured bound
 * the sort benchmark compares with.
 */
int haze__fuzzy_cuda_copy_bw(haze_ctx *ctx, size_t bytes, double *bytes_per_s);
/* Peak SM clock of a CUDA device in kHz (0 if unknown). */
int haze__fuzzy_cuda_clock_khz(int device);

/* The CPU worker for one element (shared by the op loop and tests). */
int haze__fuzzy_apply(haze_fuzzy_encoding enc, haze_fuzzy_precision prec, haze_fuzzy_opcode op,
                      int n, void *c, const void *a, const void *b);

#ifdef __cplusplus
}
#endif

#endif
