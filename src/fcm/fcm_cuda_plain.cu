/*
 * src/fcm/fcm_cuda_plain.cu - the plain pass kernel of fuzzy c-means: any
 * number of features, float or double, the Euclidean and the
 * Gustafson-Kessel distance, the covariance pass, and the final pass that
 * writes the memberships and sums the validity indices.
 *
 * Why a kernel of its own: it rounds every distance, membership and product
 * exactly as the CPU's pass (fcm_cpu_impl.h) does, correctly rounded
 * operations that the compiler may not contract into FMAs, so that only the
 * summation order of the reductions differs from the CPU; the fast kernels
 * (fcm_cuda_fast.cu, fcm_cuda_shape.cu) trade that for speed in the
 * Euclidean iterations. One block computes a tile of TILE points at a time
 * (the points and their memberships in shared memory, or in a per-block
 * global scratch when they do not fit) and adds each tile's sums, summed
 * over its points in order, into its group's row.
 */
#include <cuda_runtime.h>
#include <math.h>

#include "fcm/fcm_cuda_pass.h"

#define TILE HAZE__FCM_TILE /* points per tile = threads per block */
#define TS   HAZE__FCM_TS   /* shared-memory row stride: no bank conflicts in phase 2 */

/* Sums that the compiler may not contract into FMAs (see mul). */
static __device__ inline float add(float a, float b) {
    return __fadd_rn(a, b);
}
static __device__ inline double add(double a, double b) {
    return __dadd_rn(a, b);
}

/* Squared distance of the point in column p of xs to centre j (Euclidean or GK). */
template <typename T>
static __device__ T dist(const T *xs, int p, const T *v, const T *a, int j, int d) {
    const T *vj = v + (size_t)j * d;
    T s = 0;
    if (!a) {
        for (int k = 0; k < d; k++) {
            T t = xs[k * TS + p] - vj[k];
            s = add(s, mul(t, t));
        }
        return s;
    }
    const T *aj = a + (size_t)j * d * d;
    for (int k = 0; k < d; k++) {
        T r = 0;
        for (int l = 0; l < d; l++) r = add(r, mul(aj[(size_t)k * d + l], xs[l * TS + p] - vj[l]));
        s = add(s, mul(xs[k * TS + p] - vj[k], r));
    }
    return s > 0 ? s : 0;
}

/* Distances into D (column p), and what u_j = memb_u(...) needs: d_min, the
 * number of zero distances and the sum of the rescaled weights. Written to
 * round exactly as the CPU's memb() in fcm_cpu_impl.h. */
template <typename T> struct memb_state {
    T dmin, sum;
    int nz;
};

template <typename T>
static __device__ memb_state<T> memb_prep(const T *xs, int p, const T *v, const T *a, int d, int c,
                                          double m, T e, T *D) {
    memb_state<T> s;
    s.dmin = 0;
    for (int j = 0; j < c; j++) {
        T dj = dist(xs, p, v, a, j, d);
        D[j * TS + p] = dj;
        if (j == 0 || dj < s.dmin) s.dmin = dj;
    }
    s.nz = 0;
    s.sum = 0;
    if (s.dmin == 0) {
        for (int j = 0; j < c; j++) s.nz += D[j * TS + p] == 0;
    } else {
        for (int j = 0; j < c; j++) {
            T w = s.dmin / D[j * TS + p];
            s.sum += m == 2.0 ? w : powT(w, e);
        }
    }
    return s;
}

template <typename T>
static __device__ inline T memb_u(const memb_state<T> &s, T dj, double m, T e) {
    if (s.dmin == 0) return dj == 0 ? (T)1 / (T)s.nz : (T)0;
    T w = s.dmin / dj;
    return (m == 2.0 ? w : powT(w, e)) / s.sum;
}

template <typename T>
static __global__ void __launch_bounds__(TILE) pass_kernel(haze__fcm_args<T> A) {
    extern __shared__ double smem_d[];
    const int tid = threadIdx.x, d = A.d, c = A.c;
    double *red = smem_d; /* HAZE__FCM_NSCALAR x TILE */
    T *xs, *P, *D;
    if (A.use_smem) {
        xs = (T *)(red + HAZE__FCM_NSCALAR * TILE);
    } else {
        xs = A.scratch + (size_t)blockIdx.x * TS * (d + 2 * c);
    }
    P = xs + (size_t)TS * d;
    D = P + (size_t)TS * c;
    const size_t nv = (size_t)c * d;
    const size_t nent = A.mode == HAZE__FCM_MODE_COV ? nv * d + c : nv + c;
    for (size_t grp = blockIdx.x; grp < A.ngrp; grp += gridDim.x) {
        double *row = A.rows + (A.g0 + grp) * A.stride;
        for (int t = 0; t < A.G; t++) {
            size_t p0 = (grp * A.G + t) * TILE; /* chunk-relative */
            if (p0 >= A.np) break;
            int np = A.np - p0 < TILE ? (int)(A.np - p0) : TILE;
            for (int idx = tid; idx < np * d; idx += TILE) {
                int p = idx / d, k = idx % d;
                xs[k * TS + p] = A.x[(p0 + p) * d + k];
            }
            __syncthreads();
            double sc[HAZE__FCM_NSCALAR] = {0, 0, 0, 0, 0};
            if (tid < np) {
                const int p = tid;
                const size_t i = A.i0 + p0 + p;
                /* U(k-1) of this point into P */
                if (A.src == HAZE__FCM_SRC_RANDOM) {
                    double tot = 0;
                    for (int j = 0; j < c; j++) tot += rand_u(A.seed, i, j, c);
                    for (int j = 0; j < c; j++) P[j * TS + p] = (T)(rand_u(A.seed, i, j, c) / tot);
                } else if (A.src == HAZE__FCM_SRC_MEMORY) {
                    for (int j = 0; j < c; j++) P[j * TS + p] = (T)A.u0[(p0 + p) * c + j];
                } else {
                    memb_state<T> s = memb_prep(xs, p, A.vp, A.ap, d, c, A.m, A.e, D);
                    for (int j = 0; j < c; j++) P[j * TS + p] = memb_u(s, D[j * TS + p], A.m, A.e);
                }
                if (A.mode != HAZE__FCM_MODE_FULL) {
                    for (int j = 0; j < c; j++) P[j * TS + p] = powm(P[j * TS + p], A.m);
                } else {
                    memb_state<T> s = memb_prep(xs, p, A.v, A.a, d, c, A.m, A.e, D);
                    for (int j = 0; j < c; j++) {
                        T dj = D[j * TS + p], up = P[j * TS + p];
                        T u = memb_u(s, dj, A.m, A.e);
                        T um = powm(u, A.m);
                        sc[HAZE__FCM_J] = add(sc[HAZE__FCM_J], (double)mul(powm(up, A.m), dj));
                        sc[HAZE__FCM_JSELF] = add(sc[HAZE__FCM_JSELF], (double)mul(um, dj));
                        double dd = (double)u - (double)up;
                        sc[HAZE__FCM_DU2] = add(sc[HAZE__FCM_DU2], mul(dd, dd));
                        if (A.indices) {
                            sc[HAZE__FCM_PC] = add(sc[HAZE__FCM_PC], mul((double)u, (double)u));
                            if (u > 0)
                                sc[HAZE__FCM_PE] =
                                    add(sc[HAZE__FCM_PE], -mul((double)u, log((double)u)));
                        }
                        P[j * TS + p] = um;
                        if (A.u_out) A.u_out[(p0 + p) * c + j] = (double)u;
                    }
                }
            }
            if (A.mode == HAZE__FCM_MODE_FULL) {
                for (int s = 0; s < HAZE__FCM_NSCALAR; s++) red[s * TILE + tid] = sc[s];
            }
            __syncthreads();
            if (A.mode == HAZE__FCM_MODE_FULL) { /* fixed-shape tree over the tile's points */
                for (int h = TILE / 2; h > 0; h >>= 1) {
                    if (tid < h)
                        for (int s = 0; s < HAZE__FCM_NSCALAR; s++)
                            red[s * TILE + tid] += red[s * TILE + tid + h];
                    __syncthreads();
                }
                if (tid < HAZE__FCM_NSCALAR) row[nv + c + tid] += red[tid * TILE];
            }
            /* Phase 2: this tile's sums, each entry over the points in order. */
            for (size_t e = tid; e < nent; e += TILE) {
                double acc = 0;
                if (A.mode == HAZE__FCM_MODE_COV && e < nv * d) {
                    int j = (int)(e / ((size_t)d * d)), r = (int)(e % ((size_t)d * d));
                    int k = r / d, l = r % d;
                    T vk = A.v[(size_t)j * d + k], vl = A.v[(size_t)j * d + l];
                    for (int p = 0; p < np; p++)
                        acc = add(acc, (double)mul(mul(P[j * TS + p], xs[k * TS + p] - vk),
                                                   xs[l * TS + p] - vl));
                } else if (A.mode != HAZE__FCM_MODE_COV && e < nv) {
                    int j = (int)(e / d), k = (int)(e % d);
                    for (int p = 0; p < np; p++)
                        acc = add(acc, (double)mul(P[j * TS + p], xs[k * TS + p]));
                } else {
                    int j = (int)(e - (A.mode == HAZE__FCM_MODE_COV ? nv * d : nv));
                    for (int p = 0; p < np; p++) acc += (double)P[j * TS + p];
                }
                row[e] += acc;
            }
            __syncthreads();
        }
    }
}

int haze__fcm_plain_prepare(haze_ctx *ctx, int single, size_t smem) {
    const cudaFuncAttribute at = cudaFuncAttributeMaxDynamicSharedMemorySize;
    if (single)
        HAZE_CUDA_TRY(ctx, cudaFuncSetAttribute(pass_kernel<float>, at, (int)smem));
    else
        HAZE_CUDA_TRY(ctx, cudaFuncSetAttribute(pass_kernel<double>, at, (int)smem));
    return HAZE_OK;
}

void haze__fcm_plain_launch(const haze__fcm_args<float> &A, unsigned blocks, size_t smem,
                            cudaStream_t st) {
    pass_kernel<float><<<blocks, TILE, smem, st>>>(A);
}

void haze__fcm_plain_launch(const haze__fcm_args<double> &A, unsigned blocks, size_t smem,
                            cudaStream_t st) {
    pass_kernel<double><<<blocks, TILE, smem, st>>>(A);
}
