/*
 * src/fcm/fcm_internal.h - what the CPU and CUDA halves of fuzzy c-means
 * share: the description of one pass over the data, the seeded random
 * initial memberships (a pure function of seed, row and column so that both
 * backends draw the same ones without storing them), and the CUDA entry
 * points. Not installed.
 */
#ifndef HAZE_FCM_INTERNAL_H
#define HAZE_FCM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"
#include "haze/fcm.h"

#ifdef __CUDACC__
#define HAZE__HD __host__ __device__
#else
#define HAZE__HD
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Where the memberships U(k-1) of a pass come from. */
enum { HAZE__FCM_SRC_RANDOM = 0, HAZE__FCM_SRC_MEMORY = 1, HAZE__FCM_SRC_CENTERS = 2 };

/* Scalars a pass accumulates, after the c*d sums of u^m x and the c sums of u^m. */
enum {
    HAZE__FCM_J = 0, /* sum u_prev^m d: J(U(k-1), V(k)) */
    HAZE__FCM_DU2,   /* sum (u - u_prev)^2 */
    HAZE__FCM_PC,    /* sum u^2 */
    HAZE__FCM_PE,    /* -sum u ln u */
    HAZE__FCM_JSELF, /* sum u^m d: J(U(k), V(k)), for Xie-Beni */
    HAZE__FCM_NSCALAR
};

/* Doubles in the sums of a pass. */
static inline size_t haze__fcm_stride(size_t c, size_t d, int cov) {
    return cov ? c * d * d + c : c * d + c + HAZE__FCM_NSCALAR;
}

/*
 * One pass over the data. With v == NULL it only accumulates the sums of
 * u^m x and u^m of the source memberships (the first centre update). With v
 * set it computes distances to v (Euclidean, or with the norm matrices a),
 * the new memberships, the scalars above and the sums for the next centres.
 * All matrices are row-major doubles; the pass rounds them to float itself
 * in single precision.
 */
typedef struct haze__fcm_pass {
    const void *x; /* n x d data: float when single, else double */
    size_t n, d, c;
    double m;
    int single;
    const double *v, *a;   /* centres V(k) (c x d) and GK norms (c x d x d) or NULL */
    int src;               /* HAZE__FCM_SRC_* for U(k-1) */
    uint64_t seed;         /* SRC_RANDOM */
    const double *u0;      /* SRC_MEMORY: n x c, rows summing to 1 */
    const double *vp, *ap; /* SRC_CENTERS: the previous centres and norms (ap may be NULL) */
    double *u_out;         /* n x c memberships of v, or NULL */
    int indices;           /* 1: the pass must fill PC, PE and JSELF; 0: a backend may leave them
                              0 (the GPU skips them, and their logarithms, during the iteration) */
    int want_du;           /* 0: a backend may leave DU2 as NaN, and, with src CENTERS, J as NaN
                              (fcm.c then takes J(U(k-1), V(k)) from the previous pass's JSELF and
                              S0 by the parallel-axis identity); JSELF must then be filled */
    int cov;               /* 1: accumulate sum u^m (x - v_j)(x - v_j)^T (c*d*d) and sum u^m (c)
                              of the source memberships about the centres v instead */
    double *sums;          /* out: c*d + c + HAZE__FCM_NSCALAR doubles, or c*d*d + c for cov */
    int last;              /* 1: no pass with the next centres follows (a backend need not prepare
                              one) */
} haze__fcm_pass;

/* Uniform in (0, 1] for row i, column j: SplitMix64 of a counter (reproducible anywhere). */
static inline HAZE__HD double haze__fcm_rand(uint64_t seed, uint64_t i, uint64_t j, uint64_t c) {
    uint64_t z = seed * 0x9e3779b97f4a7c15ULL + (i * c + j + 1) * 0xd1b54a32d192ed03ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return ((double)(z >> 11) + 1.0) * 0x1.0p-53;
}

/* The CPU pass (OpenMP over the context's threads). */
int haze__fcm_pass_cpu(haze_ctx *ctx, haze__fcm_pass *p);

#ifdef HAZE_HAVE_CUDA
typedef struct haze__fcm_gpu haze__fcm_gpu;
/* Device state of one fit: the data stays resident when it fits the budget,
 * else it is streamed through in chunks at every pass. */
int haze__fcm_cuda_begin(haze_ctx *ctx, const void *x, size_t n, size_t d, size_t c, int single,
                         int gk, haze__fcm_gpu **out);
/* The pass on the device; same contract as the CPU pass. */
int haze__fcm_pass_cuda(haze_ctx *ctx, haze__fcm_gpu *g, haze__fcm_pass *p);
/* Passes queued ahead (fcm_cuda.cu) that fits used and that they dropped,
 * counted over the program: for the tests. */
void haze__fcm_cuda_queue_counts(unsigned long *used, unsigned long *dropped);
void haze__fcm_cuda_end(haze__fcm_gpu *g);
#endif

#ifdef __cplusplus
}
#endif

#endif
