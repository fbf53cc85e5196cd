/*
 * src/fcm/fcm_cuda.h - what the CUDA translation units of fuzzy c-means
 * share: the tiling of the points (which fixes the summation order, see
 * fcm_cuda.cu), the launch arguments of the plain and fast pass kernels
 * (fcm_cuda_plain.cu, fcm_cuda_fast.cu), the end of a warp's share of a
 * group, and the entry points of the kernel families: plain, fast,
 * fixed-shape float32 (fcm_cuda_shape.cu) and k-means++ seeding
 * (fcm_cuda_seed.cu). Not installed.
 */
#ifndef HAZE_FCM_CUDA_H
#define HAZE_FCM_CUDA_H

#include <cuda_runtime.h>
#include <stddef.h>

#include "fcm/fcm_internal.h"
#include "core/cuda.h"

#define HAZE__FCM_TILE 128                  /* points per tile = threads per block */
#define HAZE__FCM_WPTS 32                   /* points per warp run: a tile is four runs */
#define HAZE__FCM_TS   (HAZE__FCM_TILE + 1) /* the plain kernel's shared-memory row stride */
#define HAZE__FCM_SCRATCH_BLOCKS                                                                   \
    256 /* the plain kernel's blocks when its tile is in global memory */

/* What a pass of the plain or fast kernel computes. */
enum { HAZE__FCM_MODE_CENTRES = 0, HAZE__FCM_MODE_FULL = 1, HAZE__FCM_MODE_COV = 2 };

#ifdef __cplusplus
/* The launch arguments of the plain and fast kernels (T: float or double). */
template <typename T> struct haze__fcm_args {
    const T *x;      /* this chunk's points */
    size_t i0, np;   /* global index of the chunk's first point, points in the chunk */
    size_t g0, ngrp; /* global index of the chunk's first group, groups in the chunk */
    int d, c, G, mode, src, use_smem, indices, vec;
    int want_du, use_vp; /* fast kernel: compute the change; the previous centres are read */
    double m;
    T e; /* 1 / (m - 1) */
    const T *v, *a, *vp, *ap;
    uint64_t seed;
    const double *u0; /* chunk-relative n x c, SRC_MEMORY */
    double *u_out;    /* chunk-relative n x c, or NULL */
    /* Fast kernel, data resident: the memberships kept on the device between
     * iterations, tile by tile (c x TILE per tile, column j of a tile
     * contiguous). u_keep receives U(k) of this pass; with u_prev set, U(k-1)
     * is read from it instead of being recomputed from vp. Same array. */
    T *u_keep;
    const T *u_prev;
    double *rows; /* ngroups x stride */
    size_t stride;
    T *scratch; /* per-block global scratch when shared memory is too small */
};
#endif

/*
 * One Euclidean iteration pass in float32, m = 2, with the centres V(k) (and the
 * previous ones V(k-1), when U(k-1) is recomputed) known at launch: the
 * arguments of the fixed-shape kernel. Same partial-sum rows as the other
 * kernels: per group of G tiles, c*d sums of u^m x, c sums of u^m, then the
 * scalars J, DU2, PC (0), PE (0), JSELF; J and DU2 only with want_du.
 */
typedef struct haze__fcm_shape_args {
    const float *x;  /* this chunk's points */
    size_t i0, np;   /* global index of the chunk's first point, points in the chunk */
    size_t g0, ngrp; /* global index of the chunk's first group, groups in the chunk */
    int d, c, G;
    int want_du;          /* compute U(k-1): for the change and J(U(k-1), V(k)) */
    int keep8;            /* groups with global index mod 8 < keep8 keep U(k) in u_keep and, with
                             u_prev, read U(k-1) from it; the others recompute U(k-1) */
    const double *v, *vp; /* direct form (d <= 8): c x d centres V(k), and V(k-1) (read when
                             want_du and U(k-1) is recomputed somewhere) */
    const void *tab;      /* expanded form (d > 8): the tables haze__fcm_shape_tables or
                             haze__fcm_shape_next built in device memory */
    float *u_keep;        /* U(k) kept for the next pass (tile by tile, c x TILE), or NULL */
    const float *u_prev;  /* U(k-1) kept by the previous pass (its groups of the share), or NULL */
    double *rows;
    size_t stride;
} haze__fcm_shape_args;

#ifdef __CUDACC__
/* The end of a warp's share of a group: its J, change and JSELF summed over
 * the lanes by shuffles in a fixed order, and stored by lane 0 in column wp
 * of red (HAZE__FCM_NSCALAR rows of nwarp), the other scalars 0. */
static __device__ inline void haze__fcm_warp_scalars(double *red, int nwarp, int wp, int lane,
                                                     double j, double du, double js) {
    for (int off = 16; off > 0; off >>= 1) {
        j += __shfl_down_sync(0xffffffffu, j, off);
        du += __shfl_down_sync(0xffffffffu, du, off);
        js += __shfl_down_sync(0xffffffffu, js, off);
    }
    if (lane == 0) {
        for (int q = 0; q < HAZE__FCM_NSCALAR; q++) red[q * nwarp + wp] = 0;
        red[HAZE__FCM_J * nwarp + wp] = j;
        red[HAZE__FCM_DU2 * nwarp + wp] = du;
        red[HAZE__FCM_JSELF * nwarp + wp] = js;
    }
}

/* The group's scalars from the warps' columns of red, in warp order, into
 * out (HAZE__FCM_NSCALAR doubles), by threads 0 .. HAZE__FCM_NSCALAR - 1. */
static __device__ inline void haze__fcm_group_scalars(double *out, const double *red, int nwarp,
                                                      int tid) {
    if (tid < HAZE__FCM_NSCALAR) {
        double s = 0;
        for (int w = 0; w < nwarp; w++) s += red[tid * nwarp + w];
        out[tid] = s;
    }
}
#endif

#ifdef __cplusplus
/* The plain kernel (fcm_cuda_plain.cu): its shared-memory limit (smem bytes,
 * with the tile in shared memory) once per fit, and one launch. */
int haze__fcm_plain_prepare(haze_ctx *ctx, int single, size_t smem);
void haze__fcm_plain_launch(const haze__fcm_args<float> &A, unsigned blocks, size_t smem,
                            cudaStream_t st);
void haze__fcm_plain_launch(const haze__fcm_args<double> &A, unsigned blocks, size_t smem,
                            cudaStream_t st);
/* The fast kernel (fcm_cuda_fast.cu) for d <= dr (4, 8, 16 or 32): its
 * shared memory for c clusters, ts-byte values and (with_vp) the previous
 * centres; its limit once per fit; one launch. */
size_t haze__fcm_fast_smem(size_t c, size_t dr, size_t ts, int with_vp);
int haze__fcm_fast_prepare(haze_ctx *ctx, int single, int dr, size_t smem);
void haze__fcm_fast_launch(const haze__fcm_args<float> &A, int dr, unsigned blocks, size_t smem,
                           cudaStream_t st);
void haze__fcm_fast_launch(const haze__fcm_args<double> &A, int dr, unsigned blocks, size_t smem,
                           cudaStream_t st);

extern "C" {
#endif
/* 1 when a fixed-shape kernel covers d features and c clusters (with m = 2)
 * on a device of these properties. */
int haze__fcm_shape_covers(const cudaDeviceProp *prop, size_t d, size_t c);
/* Prepares the kernel for d, c (shared-memory limit); once per fit. */
int haze__fcm_shape_prepare(haze_ctx *ctx, size_t d, size_t c);
/* The share of the groups, in eighths, that keep U between the passes
 * with the membership rule when the budget has room (the rest recompute
 * it): the one that measured fastest for the shape. */
int haze__fcm_shape_keep8(size_t d, size_t c);
/* Bytes of the device tables that the kernel for d features and c clusters
 * reads (the expanded form, d > 8), 0 when it takes its centres as launch
 * parameters (d <= 8): then it cannot be queued before they are known. */
size_t haze__fcm_shape_tables_bytes(size_t d, size_t c);
/* The tables (tab: device, haze__fcm_shape_tables_bytes) from the device
 * arrays v (c x d doubles, V(k)), vp (V(k-1), or NULL) and shift (d doubles,
 * each a float), on stream st. */
int haze__fcm_shape_tables(haze_ctx *ctx, void *tab, const double *v, const double *vp,
                           const double *shift, size_t d, size_t c, cudaStream_t st);
/* Between two passes, on the device (stream st): copies the reduced sums of
 * a pass (stride doubles, u^m x taken about the shift) to sums_out, forms
 * the next centres v_next = (S1 + shift S0) / S0 bit for bit as the host
 * does, and builds the tables of the next pass from v_next and v (the
 * centres of the pass that made the sums). */
int haze__fcm_shape_next(haze_ctx *ctx, void *tab, double *v_next, double *sums_out,
                         const double *sums, const double *v, const double *shift, size_t d,
                         size_t c, size_t stride, cudaStream_t st);
/* 1 when the kernel for d features expands the distances about a.shift and
 * sums u^m (x - shift): the caller then adds shift_k sum u^m to entry (j, k)
 * once the pass is done. */
int haze__fcm_shape_shifts(size_t d);
/* Launches the pass over a.ngrp groups on stream st. */
int haze__fcm_shape_launch(haze_ctx *ctx, const haze__fcm_shape_args *a, cudaStream_t st);
/* k-means++ (fcm_internal.h) on the n x d resident data dx (float when
 * single) on stream st: fcm_cuda_seed.cu. keep: every candidate's
 * distances are kept for the next round (one pass over the data a round;
 * without the room for them it recomputes them, as with keep 0). Returns 1
 * when it cannot have its device memory (the caller then seeds on the
 * CPU). */
int haze__fcm_seed_run(haze_ctx *ctx, const void *dx, int single, size_t n, size_t d, size_t c,
                       size_t trials, const size_t *idx, const double *u, double *v,
                       cudaStream_t st, int keep);
/* The device memory it allocates. */
size_t haze__fcm_seed_bytes(size_t n, size_t d, size_t c, size_t trials, int keep);
#ifdef __cplusplus
}
#endif

#endif
