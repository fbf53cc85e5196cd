/*
 * src/fcm/fcm_cuda.cu - the fuzzy c-means pass on a CUDA device.
 *
 * Anderson, Luke and Keller (IEEE TFS 16(4), 2008, Sec. IV) ran six GPU
 * programs per iteration (distances, memberships, u^q x, two reductions and
 * a division) because 2008 shaders could not do more. Here one kernel reads
 * each point once per iteration and computes its distances, its previous
 * (recomputed, or read back from the device copy that the fast kernel keeps
 * when the data is resident) and new memberships (max-rescaled equation
 * (1)), its share of the
 * objective, and adds u^m x and u^m into per-group partial sums; a tree of
 * fixed shape then reduces the groups. The partial-sum layout (tiles of
 * TILE points, groups of G tiles, reduction fan-in RFAN) depends only on
 * n, d and c, never on the grid size, the chunking or the device, so the
 * result is the same on every run.
 *
 * Two kernels compute this pass: the plain one (any d, Gustafson-Kessel,
 * the covariance pass, the final pass with memberships and indices) rounds
 * exactly as the CPU; the fast one (Euclidean iterations, d <= 32) keeps
 * each point in registers, uses FMAs and sums float runs of 32 products
 * before going to double (docs/fcm.md, "Two GPU kernels").
 *
 * Data larger than the device budget (haze__cuda_budget) is streamed in
 * chunks of whole groups through two device buffers: the copy of chunk q+1
 * on a copy stream overlaps the kernel of chunk q on the compute stream,
 * the host data being page-locked in place for the duration of the fit.
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fcm/fcm_internal.h"

#define TILE           128        /* points per tile = threads per block */
#define TS             (TILE + 1) /* shared-memory row stride: no bank conflicts in phase 2 */
#define RFAN           256 /* groups summed by one thread in each level of the reduction tree */
#define SCRATCH_BLOCKS 256

/* The fast kernel's tile of points in shared memory is point-major: point p
 * at xs + p * SP, coordinates padded to DR and beyond to a row of SP values
 * whose length in 16-byte chunks is odd, so that the 16-byte loads of eight
 * consecutive points (a quarter warp) hit distinct banks. */
__host__ __device__ constexpr int xs_stride(int dr, int ts) {
    return ts == 4 ? (dr == 4 ? 12 : dr + 4) : dr + 2;
}

enum { MODE_CENTRES = 0, MODE_FULL = 1, MODE_COV = 2 };

template <typename T> struct pass_args {
    const T *x;      /* this chunk's points */
    size_t i0, np;   /* global index of the chunk's first point, points in the chunk */
    size_t g0, ngrp; /* global index of the chunk's first group, groups in the chunk */
    int d, c, G, mode, src, use_smem, indices, nsplit, vec;
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

/* Products and sums that the compiler may not contract into FMAs, so that
 * distances and memberships round exactly as on the CPU (built with
 * -ffp-contract=off); only the summation order of the reductions differs. */
__device__ inline float mul(float a, float b) {
    return __fmul_rn(a, b);
}
__device__ inline double mul(double a, double b) {
    return __dmul_rn(a, b);
}
__device__ inline float add(float a, float b) {
    return __fadd_rn(a, b);
}
__device__ inline double add(double a, double b) {
    return __dadd_rn(a, b);
}

__device__ inline float powT(float a, float b) {
    return powf(a, b);
}
__device__ inline double powT(double a, double b) {
    return pow(a, b);
}
template <typename T> __device__ inline T powm(T u, double m) {
    return m == 2.0 ? mul(u, u) : powT(u, (T)m);
}

/* Squared distance of the point in column p of xs to centre j (Euclidean or GK). */
template <typename T> __device__ T dist(const T *xs, int p, const T *v, const T *a, int j, int d) {
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
__device__ memb_state<T> memb_prep(const T *xs, int p, const T *v, const T *a, int d, int c,
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

template <typename T> __device__ inline T memb_u(const memb_state<T> &s, T dj, double m, T e) {
    if (s.dmin == 0) return dj == 0 ? (T)1 / (T)s.nz : (T)0;
    T w = s.dmin / dj;
    return (m == 2.0 ? w : powT(w, e)) / s.sum;
}

__device__ inline double rand_u(uint64_t seed, uint64_t i, uint64_t j, uint64_t c) {
    return haze__fcm_rand(seed, i, j, c);
}

template <typename T> __global__ void __launch_bounds__(TILE) pass_kernel(pass_args<T> A) {
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
    const size_t nent = A.mode == MODE_COV ? nv * d + c : nv + c;
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
                if (A.mode != MODE_FULL) {
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
            if (A.mode == MODE_FULL) {
                for (int s = 0; s < HAZE__FCM_NSCALAR; s++) red[s * TILE + tid] = sc[s];
            }
            __syncthreads();
            if (A.mode == MODE_FULL) { /* fixed-shape tree over the tile's points */
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
                if (A.mode == MODE_COV && e < nv * d) {
                    int j = (int)(e / ((size_t)d * d)), r = (int)(e % ((size_t)d * d));
                    int k = r / d, l = r % d;
                    T vk = A.v[(size_t)j * d + k], vl = A.v[(size_t)j * d + l];
                    for (int p = 0; p < np; p++)
                        acc = add(acc, (double)mul(mul(P[j * TS + p], xs[k * TS + p] - vk),
                                                   xs[l * TS + p] - vl));
                } else if (A.mode != MODE_COV && e < nv) {
                    int j = (int)(e / d), k = (int)(e % d);
                    for (int p = 0; p < np; p++)
                        acc = add(acc, (double)mul(P[j * TS + p], xs[k * TS + p]));
                } else {
                    int j = (int)(e - (A.mode == MODE_COV ? nv * d : nv));
                    for (int p = 0; p < np; p++) acc += (double)P[j * TS + p];
                }
                row[e] += acc;
            }
            __syncthreads();
        }
    }
}

/*
 * The fast pass for the Euclidean distance with d <= DR (4, 8, 16 or 32):
 * each thread keeps its point in registers, the centres V(k) and V(k-1) sit
 * in shared memory padded with zeros to DR columns (a padded column adds
 * (0 - 0)^2 = 0 exactly), and the distance is (x - v)^2 summed with FMAs.
 * Per point the weights w_j = (d_min / d_j)^(1/(m-1)) cost one division
 * each and the memberships one reciprocal of their sum. Phase 2 is
 * register-blocked (2 clusters x 4 coordinates per thread) and, for small
 * c*d, splits the tile's points over up to four threads per block of
 * entries; in float32 the products are summed in float over runs of SUBF
 * points and the runs in double, which removes the float-to-double
 * conversion of every product (the bottleneck of the plain version).
 */
#define SUBF 32

template <typename T> __device__ inline T fmaT(T a, T b, T c);
template <> __device__ inline float fmaT<float>(float a, float b, float c) {
    return __fmaf_rn(a, b, c);
}
template <> __device__ inline double fmaT<double>(double a, double b, double c) {
    return __fma_rn(a, b, c);
}

/* Four consecutive values of a 16-byte aligned shared array (one or two
 * vector loads; every thread reads the same address, a broadcast). */
__device__ inline void ld4(const float *q, float (&o)[4]) {
    const float4 t = *(const float4 *)q;
    o[0] = t.x, o[1] = t.y, o[2] = t.z, o[3] = t.w;
}
__device__ inline void ld4(const double *q, double (&o)[4]) {
    const double2 a = *(const double2 *)q, b = *(const double2 *)(q + 2);
    o[0] = a.x, o[1] = a.y, o[2] = b.x, o[3] = b.y;
}

/* Squared distance of the point xr (registers) to the padded centre vj;
 * two partial sums (even and odd coordinates) to halve the FMA chain. */
template <typename T, int DR> __device__ inline T dist_reg(const T (&xr)[DR], const T *vj) {
    T s0 = 0, s1 = 0;
#pragma unroll
    for (int k = 0; k < DR; k += 4) {
        T v[4];
        ld4(vj + k, v);
        const T t0 = xr[k] - v[0], t1 = xr[k + 1] - v[1], t2 = xr[k + 2] - v[2],
                t3 = xr[k + 3] - v[3];
        s0 = fmaT(t0, t0, s0);
        s1 = fmaT(t1, t1, s1);
        s0 = fmaT(t2, t2, s0);
        s1 = fmaT(t3, t3, s1);
    }
    return s0 + s1;
}

/* Memberships of the point xr for the padded centres vs, max-rescaled (1):
 * the distances go to D, then the weights w_j = d_min / d_j over them; the
 * memberships are w_j times the returned factor 1 / sum w (the caller
 * multiplies, fused with its own use of u_j). A point on z centres gets
 * exact memberships 1/z or 0 in D and the factor 1. With Pm set, *jp gets
 * sum_j Pm[j]^m d_j (the objective term of the previous memberships). */
template <typename T, int DR>
__device__ T memb_reg(const T (&xr)[DR], const T *vs, int c, double m, T e, T *D, const T *Pm,
                      T *jp, int p) {
    T dmin = 0, J = 0;
    for (int j = 0; j < c; j++) {
        T dj = dist_reg<T, DR>(xr, vs + j * DR);
        D[j * TS + p] = dj;
        if (Pm) J = fmaT(powm(Pm[j * TS + p], m), dj, J);
        if (j == 0 || dj < dmin) dmin = dj;
    }
    if (Pm) *jp = J;
    if (dmin == 0) {
        int nz = 0;
        for (int j = 0; j < c; j++) nz += D[j * TS + p] == 0;
        T inv = (T)1 / (T)nz;
        for (int j = 0; j < c; j++) D[j * TS + p] = D[j * TS + p] == 0 ? inv : (T)0;
        return (T)1;
    }
    T sum = 0;
    if (m == 2.0) {
        for (int j = 0; j < c; j++) {
            T w = dmin / D[j * TS + p];
            D[j * TS + p] = w;
            sum += w;
        }
    } else {
        for (int j = 0; j < c; j++) {
            T w = powT(dmin / D[j * TS + p], e);
            D[j * TS + p] = w;
            sum += w;
        }
    }
    return (T)1 / sum;
}

/* Phase 2 for the Euclidean modes: row += sums over this tile of P[j][p] x[k][p]
 * (c*d entries) and of P[j][p] (c entries), in an order fixed by n, d, c.
 * Each thread owns a block of JB = 2 clusters x 4 coordinates (two shared
 * loads and one 16-byte load of the point's four coordinates for 8 FMAs;
 * 4 x 4 needs more registers and leaves fewer threads busy, which
 * measured slower; 16-byte loads of 4 points each measured slower too: they
 * take as many shared-memory wavefronts and conflict on banks). With few
 * blocks, split s of nsplit takes the points p = s mod nsplit (interleaved,
 * so that the splits read different banks). The rows of a block are read at
 * fixed offsets from one pointer: rows past c - 1 or d - 1 lie inside the
 * shared arrays (P follows xs, D follows P) and their sums are dropped. */
#define JB 2
template <typename T, int SP>
__device__ void tile_sums(const T *xs, const T *P, int np, int d, int c, int nsplit, double *row,
                          double *part, int tid) {
    const int SUB = sizeof(T) == 4 ? SUBF : TILE;
    const int nkb = (d + 3) >> 2, njb = (c + JB - 1) / JB, neb = njb * nkb;
    for (int it = tid; it < neb * nsplit; it += TILE) {
        const int eb = it % neb, sp = it / neb;
        const int j0 = (eb / nkb) * JB, k0 = (eb % nkb) * 4;
        const T *pj = P + j0 * TS, *xk = xs + k0;
        double dacc[JB * 4];
#pragma unroll
        for (int r = 0; r < JB * 4; r++) dacc[r] = 0;
        /* the split's points sp, sp + nsplit, ...: runs of SUB of them in T */
        for (int s0 = sp; s0 < np; s0 += SUB * nsplit) {
            const int s1 = min(s0 + SUB * nsplit, np);
            T acc[JB * 4];
#pragma unroll
            for (int r = 0; r < JB * 4; r++) acc[r] = 0;
#pragma unroll 4
            for (int q = s0; q < s1; q += nsplit) {
                T a[JB], x[4];
#pragma unroll
                for (int u = 0; u < JB; u++) a[u] = pj[u * TS + q];
                ld4(xk + q * SP, x);
#pragma unroll
                for (int u = 0; u < JB; u++)
#pragma unroll
                    for (int r = 0; r < 4; r++) acc[u * 4 + r] = fmaT(a[u], x[r], acc[u * 4 + r]);
            }
#pragma unroll
            for (int r = 0; r < JB * 4; r++) dacc[r] += (double)acc[r];
        }
        if (nsplit == 1) {
#pragma unroll
            for (int r = 0; r < JB * 4; r++)
                if (j0 + r / 4 < c && k0 + (r & 3) < d)
                    row[(size_t)(j0 + r / 4) * d + k0 + (r & 3)] += dacc[r];
        } else {
#pragma unroll
            for (int r = 0; r < JB * 4; r++) part[(size_t)(sp * neb + eb) * (JB * 4) + r] = dacc[r];
        }
    }
    const size_t nv = (size_t)c * d;
    for (int j = tid; j < c; j += TILE) {
        const T *Pj = P + j * TS;
        double dacc = 0;
        for (int s0 = 0; s0 < np; s0 += SUB) {
            const int s1 = min(s0 + SUB, np);
            T a0 = 0, a1 = 0, a2 = 0, a3 = 0; /* four chains: the adds do not wait on each other */
            int q = s0;
            for (; q + 3 < s1; q += 4) {
                a0 += Pj[q];
                a1 += Pj[q + 1];
                a2 += Pj[q + 2];
                a3 += Pj[q + 3];
            }
            for (; q < s1; q++) a0 += Pj[q];
            dacc += (double)((a0 + a1) + (a2 + a3));
        }
        row[nv + j] += dacc;
    }
    if (nsplit > 1) {
        __syncthreads();
        for (int e = tid; e < neb * JB * 4; e += TILE) {
            const int eb = e / (JB * 4), r = e % (JB * 4);
            const int j = (eb / nkb) * JB + r / 4, k = (eb % nkb) * 4 + (r & 3);
            if (j < c && k < d) {
                double s = 0;
                for (int sp = 0; sp < nsplit; sp++)
                    s += part[(size_t)(sp * neb + eb) * (JB * 4) + r];
                row[(size_t)j * d + k] += s;
            }
        }
    }
}

/* The tile's points into xs (point p at xs + p * SP), 16-byte copies when
 * possible. */
template <typename T, int SP>
__device__ inline void load_tile(const T *x, int np, int d, int vec, T *xs) {
    const int tid = threadIdx.x;
    if (sizeof(T) == 4 && vec) {
        const float4 *x4 = (const float4 *)x;
        const int n4 = np * d / 4, d4 = d / 4;
        for (int i = tid; i < n4; i += TILE) {
            const int pp = i / d4, k = 4 * (i - pp * d4);
            *(float4 *)(xs + pp * SP + k) = x4[i];
        }
        return;
    }
    for (int idx = tid; idx < np * d; idx += TILE) {
        const int pp = idx / d, k = idx - pp * d;
        xs[pp * SP + k] = x[idx];
    }
}

/* Fixed-order sum of a scalar over the block: shuffles within each warp,
 * then the warps in order (by the caller). */
__device__ inline double warp_sum(double v) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    return v;
}

#define NWARP (TILE / 32)

/* Register caps (minimum blocks per SM): float d <= 8 at most 64 registers,
 * float d <= 32 at most 80 so that 6 blocks fit an SM as the shared memory of
 * d = 32, c = 16 allows without the previous centres; double as compiled
 * without a cap. */
#define FAST_MINB(T, DR) (sizeof(T) == 4 ? (DR <= 8 ? 8 : 6) : DR <= 8 ? 6 : DR == 16 ? 5 : 4)
template <typename T, int DR>
__global__ void __launch_bounds__(TILE, FAST_MINB(T, DR)) fast_kernel(pass_args<T> A) {
    extern __shared__ __align__(16) double smem_f[];
    double *smem_d = smem_f;
    const int tid = threadIdx.x, d = A.d, c = A.c;
    /* red | vs | vps (only to recompute U(k-1)) | xs | P | D, and over D (dead
     * by then) phase 2's split sums part: fast_smem() gives the size. */
    const int use_vp = A.src == HAZE__FCM_SRC_CENTERS && !A.u_prev;
    double *red = smem_d;                           /* HAZE__FCM_NSCALAR x NWARP */
    T *vs = (T *)(red + HAZE__FCM_NSCALAR * NWARP); /* c x DR */
    T *vps = vs + (size_t)c * DR;                   /* c x DR */
    constexpr int SP = xs_stride(DR, sizeof(T));
    T *xs = vps + (use_vp ? (size_t)c * DR : 0), *P = xs + (size_t)TILE * SP;
    T *D = (T *)(((uintptr_t)(P + (size_t)TS * c) + 15) & ~(uintptr_t)15);
    double *part = (double *)D; /* nsplit x neb x JB*4 when nsplit > 1 */
    for (int idx = tid; idx < c * DR; idx += TILE) {
        const int j = idx / DR, k = idx - j * DR;
        vs[idx] = A.v && k < d ? A.v[(size_t)j * d + k] : (T)0;
        if (use_vp) vps[idx] = A.vp && k < d ? A.vp[(size_t)j * d + k] : (T)0;
    }
    __syncthreads();
    const size_t nv = (size_t)c * d;
    const int full = A.mode == MODE_FULL;
    for (size_t grp = blockIdx.x; grp < A.ngrp; grp += gridDim.x) {
        double *row = A.rows + (A.g0 + grp) * A.stride;
        for (int t = 0; t < A.G; t++) {
            const size_t p0 = (grp * A.G + t) * TILE; /* chunk-relative */
            if (p0 >= A.np) break;
            const int np = A.np - p0 < TILE ? (int)(A.np - p0) : TILE;
            load_tile<T, SP>(A.x + p0 * d, np, d, A.vec, xs);
            __syncthreads();
            T jp = 0, du = 0;
            if (tid < np) {
                const int p = tid;
                const size_t i = A.i0 + p0 + p;
                T xr[DR];
#pragma unroll
                for (int k = 0; k < DR; k += 4) {
                    if (sizeof(T) == 4) { /* one 16-byte load per 4 coordinates */
                        T v[4];
                        ld4(xs + p * SP + k, v);
#pragma unroll
                        for (int r = 0; r < 4; r++) xr[k + r] = k + r < d ? v[r] : (T)0;
                    } else { /* double: 8-byte loads, none past d (fewer registers live) */
#pragma unroll
                        for (int r = 0; r < 4; r++)
                            xr[k + r] = k + r < d ? xs[p * SP + k + r] : (T)0;
                    }
                }
                /* U(k-1) of this point into P */
                if (A.src == HAZE__FCM_SRC_RANDOM) {
                    double tot = 0;
                    for (int j = 0; j < c; j++) tot += rand_u(A.seed, i, j, c);
                    for (int j = 0; j < c; j++) P[j * TS + p] = (T)(rand_u(A.seed, i, j, c) / tot);
                } else if (A.src == HAZE__FCM_SRC_MEMORY) {
                    for (int j = 0; j < c; j++) P[j * TS + p] = (T)A.u0[(p0 + p) * c + j];
                } else if (A.u_prev) { /* kept by the previous pass: the same bits */
                    const T *up = A.u_prev + (A.i0 + p0) * c + p;
                    for (int j = 0; j < c; j++) P[j * TS + p] = up[(size_t)j * TILE];
                } else {
                    const T f =
                        memb_reg<T, DR>(xr, vps, c, A.m, A.e, D, (const T *)NULL, (T *)NULL, p);
                    for (int j = 0; j < c; j++) P[j * TS + p] = D[j * TS + p] * f;
                }
                if (!full) {
                    for (int j = 0; j < c; j++) P[j * TS + p] = powm(P[j * TS + p], A.m);
                } else {
                    /* the weights of U(k) into D, the objective term of U(k-1)
                     * on the way; then U(k), the change, and P = U(k)^m. */
                    const T f = memb_reg<T, DR>(xr, vs, c, A.m, A.e, D, P, &jp, p);
                    T *uk = A.u_keep ? A.u_keep + (A.i0 + p0) * c + p : NULL;
                    for (int j = 0; j < c; j++) {
                        const T u = D[j * TS + p] * f, dd = u - P[j * TS + p];
                        du = fmaT(dd, dd, du);
                        P[j * TS + p] = powm(u, A.m);
                        if (uk) uk[(size_t)j * TILE] = u;
                    }
                }
            }
            if (full) { /* fixed order: shuffles within each warp, then the warps in order */
                const double vj = warp_sum((double)jp), vd = warp_sum((double)du);
                if ((tid & 31) == 0) {
                    red[HAZE__FCM_J * NWARP + (tid >> 5)] = vj;
                    red[HAZE__FCM_DU2 * NWARP + (tid >> 5)] = vd;
                }
            }
            __syncthreads();
            if (full && tid <= HAZE__FCM_DU2) {
                double v = 0;
                for (int w = 0; w < NWARP; w++) v += red[tid * NWARP + w];
                row[nv + c + tid] += v;
            }
            tile_sums<T, SP>(xs, P, np, d, c, A.nsplit, row, part, tid);
            __syncthreads();
        }
    }
}

/* Shared memory of the fast kernel. */
/* Shared memory of the fast kernel (the layout at the top of fast_kernel);
 * with_vp: room for the previous centres. */
static size_t fast_smem(size_t d, size_t c, size_t dr, size_t ts, int nsplit, int with_vp) {
    size_t neb = ((c + JB - 1) / JB) * ((d + 3) / 4);
    size_t part = nsplit > 1 ? nsplit * neb * JB * 4 * sizeof(double) : 0, dd = TS * c * ts;
    size_t head =
        HAZE__FCM_NSCALAR * NWARP * sizeof(double) +
        ((with_vp ? 2 : 1) * c * dr + (size_t)TILE * xs_stride((int)dr, (int)ts) + (size_t)TS * c) *
            ts;
    return (head + 15) / 16 * 16 + (part > dd ? part : dd);
}

template <typename T> static cudaError_t fast_attr(int dr, int smem) {
    const cudaFuncAttribute at = cudaFuncAttributeMaxDynamicSharedMemorySize;
    switch (dr) {
    case 4:
        return cudaFuncSetAttribute(fast_kernel<T, 4>, at, smem);
    case 8:
        return cudaFuncSetAttribute(fast_kernel<T, 8>, at, smem);
    case 16:
        return cudaFuncSetAttribute(fast_kernel<T, 16>, at, smem);
    default:
        return cudaFuncSetAttribute(fast_kernel<T, 32>, at, smem);
    }
}

template <typename T>
static void fast_launch(int dr, unsigned blocks, size_t smem, cudaStream_t st,
                        const pass_args<T> &A) {
    switch (dr) {
    case 4:
        fast_kernel<T, 4><<<blocks, TILE, smem, st>>>(A);
        break;
    case 8:
        fast_kernel<T, 8><<<blocks, TILE, smem, st>>>(A);
        break;
    case 16:
        fast_kernel<T, 16><<<blocks, TILE, smem, st>>>(A);
        break;
    default:
        fast_kernel<T, 32><<<blocks, TILE, smem, st>>>(A);
        break;
    }
}

/* One level of the reduction tree: out[q] = sum of in[q*RFAN ...] in order. */
__global__ void reduce_level(const double *in, double *out, size_t nrows, size_t stride) {
    size_t nq = (nrows + RFAN - 1) / RFAN;
    size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= nq * stride) return;
    size_t q = idx / stride, e = idx % stride;
    size_t g1 = (q + 1) * RFAN < nrows ? (q + 1) * RFAN : nrows;
    double s = 0;
    for (size_t g = q * RFAN; g < g1; g++) s += in[g * stride + e];
    out[idx] = s;
}

struct haze__fcm_gpu {
    haze_ctx *ctx;
    const void *hx;
    size_t n, d, c, ts;
    int single, gk, registered, resident, use_smem;
    size_t G, gpts, ngroups, chunk, stride_max, smem;
    void *dx[2];
    double *du0[2], *duout;
    size_t du0_pts, duout_pts;
    double *rows, *tree[2];
    void *dv, *dvp, *da, *dap;
    void *scratch;
    void *stage; /* page-locked staging of the centres and norms: uploads without a sync */
    int fast_dr, nsplit;
    size_t fast_smem_sz;
    /* Memberships kept between the fast passes (resident data only, when the
     * budget allows): dkeep holds U of the centres keep_v (c x d) with the
     * fuzzifier keep_m, valid when keep_ok. */
    void *dkeep;
    double *keep_v, keep_m;
    int keep_ok;
    cudaStream_t copy;
    cudaEvent_t copied[2], freed[2];
    int have_copy, have_ev;
};

extern "C" void haze__fcm_cuda_end(haze__fcm_gpu *g) {
    if (!g) return;
    cudaStream_t st = haze__stream(g->ctx);
    if (st) cudaStreamSynchronize(st);
    if (g->have_copy) cudaStreamSynchronize(g->copy);
    for (int b = 0; b < 2; b++) {
        cudaFree(g->dx[b]);
        cudaFree(g->du0[b]);
        if (g->have_ev) {
            cudaEventDestroy(g->copied[b]);
            cudaEventDestroy(g->freed[b]);
        }
        cudaFree(g->tree[b]);
    }
    cudaFree(g->duout);
    cudaFree(g->dkeep);
    free(g->keep_v);
    cudaFree(g->rows);
    cudaFree(g->dv);
    cudaFree(g->dvp);
    cudaFree(g->da);
    cudaFree(g->dap);
    cudaFree(g->scratch);
    cudaFreeHost(g->stage);
    if (g->have_copy) cudaStreamDestroy(g->copy);
    if (g->registered) cudaHostUnregister((void *)g->hx);
    cudaGetLastError(); /* the errors of a cleanup are not the caller's */
    free(g);
}

#define TRY(call) HAZE_CUDA_TRY(g->ctx, call)

static int setup(haze__fcm_gpu *g) {
    const size_t n = g->n, d = g->d, c = g->c, ts = g->ts;
    size_t ntiles = (n + TILE - 1) / TILE;
    g->stride_max = haze__fcm_stride(c, d, 0);
    if (g->gk && haze__fcm_stride(c, d, 1) > g->stride_max)
        g->stride_max = haze__fcm_stride(c, d, 1);
    /* Groups: enough of them to fill a large GPU, few enough that their
     * partial sums stay small; a function of n, d, c only. */
    size_t G = ntiles / 4096;
    size_t gmin =
        (ntiles * g->stride_max * sizeof(double) + ((size_t)256 << 20) - 1) / ((size_t)256 << 20);
    if (G < gmin) G = gmin;
    if (G < 1) G = 1;
    if (G > 256 && gmin <= 256) G = 256;
    if (G > ntiles) G = ntiles;
    g->G = G;
    g->gpts = G * TILE;
    g->ngroups = (n + g->gpts - 1) / g->gpts;

    int dev = 0, smem_optin = 0;
    TRY(cudaGetDevice(&dev));
    TRY(cudaDeviceGetAttribute(&smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    size_t smem_full = HAZE__FCM_NSCALAR * TILE * sizeof(double) + (size_t)TS * (d + 2 * c) * ts;
    g->use_smem = smem_full <= (size_t)smem_optin;
    g->smem = g->use_smem ? smem_full : HAZE__FCM_NSCALAR * TILE * sizeof(double);
    /* The fast Euclidean kernel for d <= 32 when its shared memory fits. */
    size_t neb = ((c + JB - 1) / JB) * ((d + 3) / 4);
    g->nsplit = neb <= 32 ? 4 : neb <= 64 ? 2 : 1;
    if (!g->gk && d <= 32) {
        int dr = d <= 4 ? 4 : d <= 8 ? 8 : d <= 16 ? 16 : 32;
        size_t fs = fast_smem(d, c, (size_t)dr, ts, g->nsplit, 1);
        if (fs <= (size_t)smem_optin) {
            g->fast_dr = dr;
            g->fast_smem_sz = fs;
            if (g->single)
                TRY(fast_attr<float>(dr, (int)fs));
            else
                TRY(fast_attr<double>(dr, (int)fs));
        }
    }
    TRY(cudaMallocHost(&g->stage, (2 * c * d + (g->gk ? 2 * c * d * d : 0)) * ts));

    size_t nq = (g->ngroups + RFAN - 1) / RFAN;
    size_t fixed = g->ngroups * g->stride_max * 8 + 2 * nq * g->stride_max * 8 +
                   (2 * c * d + (g->gk ? 2 * c * d * d : 0)) * ts;
    if (!g->use_smem) fixed += (size_t)SCRATCH_BLOCKS * TS * (d + 2 * c) * ts;
    size_t per_pt = d * ts + 2 * c * sizeof(double);
    size_t budget = haze__cuda_budget(g->ctx);
    /* U kept between iterations: c values per point, tile by tile. */
    const size_t keep = g->fast_dr ? ntiles * TILE * c * ts : 0;
    if (fixed + n * per_pt <= budget) {
        g->resident = 1;
        g->chunk = g->ngroups * g->gpts;
        if (keep && fixed + n * per_pt + keep <= budget) {
            TRY(cudaMalloc(&g->dkeep, keep));
            if (!(g->keep_v = (double *)malloc(c * d * sizeof(double))))
                return haze__error(g->ctx, HAZE_ERR_NOMEM, "fcm: out of memory");
        }
    } else {
        size_t room = budget > fixed ? budget - fixed : 0;
        size_t ch = room / (2 * per_pt);
        ch -= ch % g->gpts;
        if (ch == 0)
            return haze__error(g->ctx, HAZE_ERR_NOMEM,
                               "fcm: the device memory budget (%zu bytes) is too small: %zu "
                               "bytes of sums and buffers for %zu points per chunk",
                               budget, fixed + 2 * g->gpts * per_pt, g->gpts);
        g->chunk = ch;
    }

    TRY(cudaMalloc(&g->rows, g->ngroups * g->stride_max * 8));
    if (g->ngroups > 1) {
        TRY(cudaMalloc(&g->tree[0], nq * g->stride_max * 8));
        TRY(cudaMalloc(&g->tree[1], nq * g->stride_max * 8));
    }
    TRY(cudaMalloc(&g->dv, c * d * ts));
    TRY(cudaMalloc(&g->dvp, c * d * ts));
    if (g->gk) {
        TRY(cudaMalloc(&g->da, c * d * d * ts));
        TRY(cudaMalloc(&g->dap, c * d * d * ts));
    }
    if (!g->use_smem) TRY(cudaMalloc(&g->scratch, (size_t)SCRATCH_BLOCKS * TS * (d + 2 * c) * ts));
    cudaStream_t st = haze__stream(g->ctx);
    if (g->resident) {
        TRY(cudaMalloc(&g->dx[0], n * d * ts));
        TRY(cudaMemcpyAsync(g->dx[0], g->hx, n * d * ts, cudaMemcpyHostToDevice, st));
    } else {
        for (int b = 0; b < 2; b++) TRY(cudaMalloc(&g->dx[b], g->chunk * d * ts));
        /* Page-lock the host data in place so that chunk copies are true DMA
         * that overlaps the kernels; without it the copies are still correct. */
        if (cudaHostRegister((void *)g->hx, n * d * ts, cudaHostRegisterReadOnly) == cudaSuccess)
            g->registered = 1;
        else
            cudaGetLastError();
        TRY(cudaStreamCreateWithFlags(&g->copy, cudaStreamNonBlocking));
        g->have_copy = 1;
        for (int b = 0; b < 2; b++) {
            TRY(cudaEventCreateWithFlags(&g->copied[b], cudaEventDisableTiming));
            TRY(cudaEventCreateWithFlags(&g->freed[b], cudaEventDisableTiming));
        }
        g->have_ev = 1;
        for (int b = 0; b < 2; b++) TRY(cudaEventRecord(g->freed[b], st));
    }
    if (g->use_smem) {
        if (g->single)
            TRY(cudaFuncSetAttribute(pass_kernel<float>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, (int)g->smem));
        else
            TRY(cudaFuncSetAttribute(pass_kernel<double>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, (int)g->smem));
    }
    return HAZE_OK;
}

extern "C" int haze__fcm_cuda_begin(haze_ctx *ctx, const void *x, size_t n, size_t d, size_t c,
                                    int single, int gk, haze__fcm_gpu **out) {
    *out = NULL;
    int st = haze__cuda_begin(ctx);
    if (st) return st;
    haze__fcm_gpu *g = (haze__fcm_gpu *)calloc(1, sizeof *g);
    if (!g) return haze__error(ctx, HAZE_ERR_NOMEM, "fcm: out of memory");
    g->ctx = ctx, g->hx = x, g->n = n, g->d = d, g->c = c, g->single = single, g->gk = gk;
    g->ts = single ? sizeof(float) : sizeof(double);
    if ((st = setup(g))) {
        haze__fcm_cuda_end(g);
        return st;
    }
    *out = g;
    return HAZE_OK;
}

/* Copies a double matrix to the device in T through the page-locked staging
 * area at element offset off: no synchronisation, since every pass ends with
 * one before the staging area is written again. */
template <typename T>
static int upload(haze__fcm_gpu *g, void *dst, const double *src, size_t k, size_t off) {
    T *tmp = (T *)g->stage + off;
    for (size_t i = 0; i < k; i++) tmp[i] = (T)src[i];
    TRY(cudaMemcpyAsync(dst, tmp, k * sizeof(T), cudaMemcpyHostToDevice, haze__stream(g->ctx)));
    return HAZE_OK;
}

template <typename T> static int pass_t(haze__fcm_gpu *g, haze__fcm_pass *p) {
    const size_t n = g->n, d = g->d, c = g->c, ts = sizeof(T);
    const int mode = p->cov ? MODE_COV : p->v ? MODE_FULL : MODE_CENTRES;
    const size_t stride = haze__fcm_stride(c, d, p->cov);
    cudaStream_t st = haze__stream(g->ctx);
    int rc;
    if (p->v && (rc = upload<T>(g, g->dv, p->v, c * d, 0))) return rc;
    if (p->a && (rc = upload<T>(g, g->da, p->a, c * d * d, 2 * c * d))) return rc;
    if (p->src == HAZE__FCM_SRC_CENTERS) {
        if ((rc = upload<T>(g, g->dvp, p->vp, c * d, c * d))) return rc;
        if (p->ap && (rc = upload<T>(g, g->dap, p->ap, c * d * d, 2 * c * d + c * d * d)))
            return rc;
    }
    /* The fast kernel computes what the iteration needs (J, the change, the
     * centre sums); the indices and the membership output come from the
     * plain kernel, in the one extra pass at the end of a fit. */
    const int fast = g->fast_dr && mode != MODE_COV && !p->a && !p->indices && !p->u_out &&
                     !(p->src == HAZE__FCM_SRC_CENTERS && p->ap);
    /* U(k-1) from the previous pass's memberships when they are those of vp
     * (same centres, same m); U(k) kept for the next pass. The kept values are
     * the ones the recomputation would give (same code, same centres), so
     * keeping them changes no result. */
    const int keep = fast && g->dkeep && mode == MODE_FULL;
    const int reuse = keep && g->keep_ok && p->src == HAZE__FCM_SRC_CENTERS && !p->ap &&
                      g->keep_m == p->m && memcmp(g->keep_v, p->vp, c * d * sizeof(double)) == 0;
    if (keep) g->keep_ok = 0; /* until this pass has completed */
    size_t cpts = g->resident ? n : g->chunk;
    if (p->src == HAZE__FCM_SRC_MEMORY && g->du0_pts < cpts) {
        for (int b = 0; b < (g->resident ? 1 : 2); b++)
            TRY(cudaMalloc(&g->du0[b], cpts * c * sizeof(double)));
        g->du0_pts = cpts;
    }
    if (p->u_out && g->duout_pts < cpts) {
        TRY(cudaMalloc(&g->duout, cpts * c * sizeof(double)));
        g->duout_pts = cpts;
    }
    TRY(cudaMemsetAsync(g->rows, 0, g->ngroups * stride * sizeof(double), st));

    pass_args<T> A;
    memset(&A, 0, sizeof A);
    A.d = (int)d, A.c = (int)c, A.G = (int)g->G, A.mode = mode, A.src = p->src;
    A.use_smem = g->use_smem;
    A.indices = p->indices;
    A.nsplit = g->nsplit;
    A.vec = g->single && d % 4 == 0;
    A.m = p->m;
    A.e = (T)(1.0 / (p->m - 1.0));
    A.v = p->v ? (const T *)g->dv : NULL;
    A.a = p->a ? (const T *)g->da : NULL;
    A.vp = p->src == HAZE__FCM_SRC_CENTERS ? (const T *)g->dvp : NULL;
    A.ap = p->src == HAZE__FCM_SRC_CENTERS && p->ap ? (const T *)g->dap : NULL;
    A.seed = p->seed;
    A.rows = g->rows;
    A.stride = stride;
    A.scratch = (T *)g->scratch;
    A.u_keep = keep ? (T *)g->dkeep : NULL;
    A.u_prev = reuse ? (const T *)g->dkeep : NULL;

    size_t nch = g->resident ? 1 : (n + g->chunk - 1) / g->chunk;
    for (size_t q = 0; q < nch; q++) {
        int b = (int)(q & 1);
        size_t i0 = q * g->chunk, np = n - i0 < g->chunk ? n - i0 : g->chunk;
        if (g->resident) np = n;
        if (!g->resident) {
            TRY(cudaStreamWaitEvent(g->copy, g->freed[b], 0));
            TRY(cudaMemcpyAsync(g->dx[b], (const char *)g->hx + i0 * d * ts, np * d * ts,
                                cudaMemcpyHostToDevice, g->copy));
            if (p->src == HAZE__FCM_SRC_MEMORY)
                TRY(cudaMemcpyAsync(g->du0[b], p->u0 + i0 * c, np * c * sizeof(double),
                                    cudaMemcpyHostToDevice, g->copy));
            TRY(cudaEventRecord(g->copied[b], g->copy));
            TRY(cudaStreamWaitEvent(st, g->copied[b], 0));
        } else if (p->src == HAZE__FCM_SRC_MEMORY) {
            TRY(cudaMemcpyAsync(g->du0[0], p->u0, n * c * sizeof(double), cudaMemcpyHostToDevice,
                                st));
        }
        A.x = (const T *)g->dx[b];
        A.i0 = i0;
        A.np = np;
        A.g0 = i0 / g->gpts;
        A.ngrp = (np + g->gpts - 1) / g->gpts;
        A.u0 = p->src == HAZE__FCM_SRC_MEMORY ? g->du0[g->resident ? 0 : b] : NULL;
        A.u_out = p->u_out ? g->duout : NULL;
        size_t blocks = A.ngrp;
        if (fast) {
            /* without the previous centres when they are not read: less shared
             * memory, more blocks per SM */
            const int use_vp = p->src == HAZE__FCM_SRC_CENTERS && !reuse;
            fast_launch<T>(g->fast_dr, (unsigned)blocks,
                           use_vp ? g->fast_smem_sz : fast_smem(d, c, g->fast_dr, ts, g->nsplit, 0),
                           st, A);
        } else {
            if (!g->use_smem && blocks > SCRATCH_BLOCKS) blocks = SCRATCH_BLOCKS;
            pass_kernel<T><<<(unsigned)blocks, TILE, g->smem, st>>>(A);
        }
        HAZE_CUDA_TRY_LAUNCH(g->ctx);
        if (p->u_out)
            TRY(cudaMemcpyAsync(p->u_out + i0 * c, g->duout, np * c * sizeof(double),
                                cudaMemcpyDeviceToHost, st));
        if (!g->resident) TRY(cudaEventRecord(g->freed[b], st));
    }
    /* The tree over the groups. */
    const double *in = g->rows;
    size_t nrows = g->ngroups;
    int lvl = 0;
    while (nrows > 1) {
        size_t nq = (nrows + RFAN - 1) / RFAN, work = nq * stride;
        double *outb = g->tree[lvl & 1];
        reduce_level<<<(unsigned)((work + 255) / 256), 256, 0, st>>>(in, outb, nrows, stride);
        HAZE_CUDA_TRY_LAUNCH(g->ctx);
        in = outb;
        nrows = nq;
        lvl++;
    }
    TRY(cudaMemcpyAsync(p->sums, in, stride * sizeof(double), cudaMemcpyDeviceToHost, st));
    TRY(cudaStreamSynchronize(st));
    if (keep) {
        memcpy(g->keep_v, p->v, c * d * sizeof(double));
        g->keep_m = p->m;
        g->keep_ok = 1;
    }
    return HAZE_OK;
}

extern "C" int haze__fcm_pass_cuda(haze_ctx *ctx, haze__fcm_gpu *g, haze__fcm_pass *p) {
    (void)ctx;
    return g->single ? pass_t<float>(g, p) : pass_t<double>(g, p);
}
