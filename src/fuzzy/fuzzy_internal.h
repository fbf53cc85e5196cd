/*
 * src/fuzzy/fuzzy_internal.h - what fuzzy.c and fuzzy_cuda.cu share: the
 * CUDA entry points (defined only in CUDA builds) and the packed-number
 * helpers. Not installed.
 */
#ifndef HAZE_FUZZY_INTERNAL_H
#define HAZE_FUZZY_INTERNAL_H

#include "core/internal.h"
#include "haze/fuzzy.h"
#include "fuzzy/fuzzy_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Size in bytes of one value of the array's precision. */
/* The default level k (0-based) of n: (n - k)/n rounded down (fuzzy.c). */
double haze__fuzzy_level(int n, int k);

static inline size_t haze__fuzzy_elem_size(const haze_fuzzy_array *a) {
    return a->precision == HAZE_PRECISION_F32 ? sizeof(float) : sizeof(double);
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
/*
 * Device memory of device-resident arrays (haze_fuzzy_array_new_device):
 * zeroed, counted in ctx's account. The array outlives the call, so it
 * keeps a reference to the account and the device, and frees with them.
 */
int haze__fuzzy_cuda_alloc(haze_ctx *ctx, size_t bytes, void **p);
void haze__fuzzy_cuda_free(haze__dev_acct *acct, int device, void *p, size_t bytes);
int haze__fuzzy_cuda_copy(haze_ctx *ctx, void *dst, const void *src, size_t bytes);

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
 * The module's state in a context (haze__ctx_state, HAZE__STATE_FUZZY):
 * choices the development library forces for one call (dev/fuzzy_dev.h)
 * and what it measured. All zero, the library's own choices.
 */
typedef struct haze__fuzzy_state {
    haze__sort_method sort_method; /* the GPU sort's method (AUTO: the library's) */
    int axpy_soa;                  /* 1: the structure-of-arrays AXPY kernel (host arrays) */
    int axpy_reps;                 /* AXPY kernel launches, timed together (< 1: one) */
    int timing;                    /* 1: fill the two below */
    haze__sort_stats sort_stats;   /* the last GPU sort */
    double axpy_kernel_s;          /* the last GPU AXPY: seconds per launch (CUDA events) */
} haze__fuzzy_state;

/* The context's fuzzy state, made on first use; NULL without memory (then
 * the defaults hold). */
haze__fuzzy_state *haze__fuzzy_state_of(haze_ctx *ctx);

/* The CPU worker for one element (shared by the op loop and tests). */
int haze__fuzzy_apply(haze_fuzzy_encoding enc, haze_precision prec, haze_fuzzy_opcode op, int n,
                      void *c, const void *a, const void *b);

#ifdef __cplusplus
}
#endif

#endif
