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
 * TILE points, groups of G tiles, reduction fan-in RFAN in runs of RRUN) depends only on
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

#include "fcm/fcm_cuda.h"
#include "fcm/fcm_internal.h"

#define TILE           HAZE__FCM_TILE /* points per tile = threads per block */
#define TS             (TILE + 1)     /* shared-memory row stride: no bank conflicts in phase 2 */
#define RFAN           256            /* rows summed into one in each level of the reduction tree */
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
 * The fast pass for the Euclidean distance with d <= DR (4, 8, 16 or 32).
 * Each warp works alone on runs of 32 points (a quarter of a tile): it
 * copies them to its own shared-memory rows, computes in phase 1 one point
 * per lane (the point in registers, the centres V(k) in shared memory padded
 * with zeros to DR columns, the distance (x - v)^2 summed with FMAs, the
 * max-rescaled memberships), and in phase 2 adds u^m x into accumulators of
 * 4 clusters x 4 coordinates per lane (one 16-byte load of four memberships
 * and one of four coordinates per 16 FMAs). The products of the 32 points
 * are summed in T, then added to double accumulators that the warp keeps in
 * shared memory for the whole group; the block combines its four warps in
 * a fixed order once per group. No barrier is needed between the warps
 * inside a group, so the loads of one warp overlap the arithmetic of the
 * others.
 *
 * What the pass leaves out when it can:
 * - U(k-1) is needed only by the membership change (want_du) and, in the
 *   first iteration, by J(U(k-1), V(k)) when U(0) is random or given. In the
 *   other iterations J(U(k-1), V(k)) follows from the previous pass by the
 *   parallel-axis identity, J = JSELF(k-1) - sum_j S0_j |V(k)_j - V(k-1)_j|^2
 *   (fcm.c), so the pass reads or recomputes no previous memberships.
 * - JSELF = sum_j u_j^m d_j of the point is d_min f^(m-1) in closed form
 *   (u_j = w_j f, w_j = (d_min / d_j)^(1/(m-1)), f = 1 / sum w), one value
 *   per point instead of c products.
 */
#define WPTS HAZE__FCM_WPTS /* points per warp run */
#define DS   33             /* stride of the distance columns: conflict-free per lane */

/* Row stride of the memberships u^m (point-major, c rounded up to 4 columns):
 * an odd number of 16-byte chunks, as for the points. */
__host__ __device__ constexpr int p_stride(int c4, int ts) {
    return ts == 4 ? ((c4 / 4) % 2 ? c4 : c4 + 4) : c4 + 2;
}

template <typename T> __device__ inline T fmaT(T a, T b, T c);
template <> __device__ inline float fmaT<float>(float a, float b, float c) {
    return __fmaf_rn(a, b, c);
}
template <> __device__ inline double fmaT<double>(double a, double b, double c) {
    return __fma_rn(a, b, c);
}

/* Four consecutive values of a 16-byte aligned shared array. */
__device__ inline void ld4(const float *q, float (&o)[4]) {
    const float4 t = *(const float4 *)q;
    o[0] = t.x, o[1] = t.y, o[2] = t.z, o[3] = t.w;
}
__device__ inline void ld4(const double *q, double (&o)[4]) {
    const double2 a = *(const double2 *)q, b = *(const double2 *)(q + 2);
    o[0] = a.x, o[1] = a.y, o[2] = b.x, o[3] = b.y;
}
__device__ inline void st4(float *q, const float (&o)[4]) {
    *(float4 *)q = make_float4(o[0], o[1], o[2], o[3]);
}
__device__ inline void st4(double *q, const double (&o)[4]) {
    *(double2 *)q = make_double2(o[0], o[1]);
    *(double2 *)(q + 2) = make_double2(o[2], o[3]);
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

/* w = dmin / dj: in float one reciprocal and a product (within 2 ulps) where
 * both are normal and below 2^126, else the division. */
__device__ inline float ratio(float dmin, float dj, bool fast) {
    return fast ? __fdividef(dmin, dj) : dmin / dj;
}
__device__ inline double ratio(double dmin, double dj, bool) {
    return dmin / dj;
}

/* Distances of the point xr to the padded centres vs into column p of D,
 * then the rescaled weights w_j = (d_min / d_j)^(1/(m-1)) over them; returns
 * f = 1 / sum w (u_j = w_j f) and d_min. A point on z centres gets weights
 * 1/z or 0 and f = 1. With Pm (U(k-1) of the point, stride 1) set, *jp gets
 * sum_j Pm[j]^m d_j. */
template <typename T, int DR>
__device__ T memb_w(const T (&xr)[DR], const T *vs, int c, double m, T e, T *D, int p, const T *Pm,
                    T *jp, T *dminp) {
    T dmin = 0, dmax = 0, J = 0;
    for (int j = 0; j < c; j++) {
        const T dj = dist_reg<T, DR>(xr, vs + j * DR);
        D[j * DS + p] = dj;
        if (Pm) J = fmaT(powm(Pm[j], m), dj, J);
        dmin = j == 0 || dj < dmin ? dj : dmin;
        dmax = dj > dmax ? dj : dmax;
    }
    if (Pm) *jp = J;
    *dminp = dmin;
    if (dmin == 0) {
        int nz = 0;
        for (int j = 0; j < c; j++) nz += D[j * DS + p] == 0;
        const T inv = (T)1 / (T)nz;
        for (int j = 0; j < c; j++) D[j * DS + p] = D[j * DS + p] == 0 ? inv : (T)0;
        return (T)1;
    }
    const bool fast = dmin >= (T)0x1p-126 && dmax <= (T)0x1p+126;
    T sum = 0;
    if (m == 2.0) {
        for (int j = 0; j < c; j++) {
            const T w = ratio(dmin, D[j * DS + p], fast);
            D[j * DS + p] = w;
            sum += w;
        }
    } else {
        for (int j = 0; j < c; j++) {
            const T w = powT(dmin / D[j * DS + p], e);
            D[j * DS + p] = w;
            sum += w;
        }
    }
    return (T)1 / sum;
}

/* sum_j u_j^m d_j of a point in closed form, d_min f^(m-1) (see above). */
template <typename T> __device__ inline double jself(T dmin, T f, double m) {
    return (double)(dmin * (m == 2.0 ? f : powT(f, (T)(m - 1.0))));
}

#define NWARP (TILE / 32)

/* Shared memory of the fast kernel, in bytes, and its parts (in elements):
 * doubles first (scalars, the column sums and the 4 x 4 accumulators of each
 * warp's entry blocks past the first, whose accumulators are registers), then
 * in T the centres (and the previous ones with use_vp), then per warp its
 * points, its u^m rows and its distance columns, room that the warp's
 * register accumulators (16 x 32 doubles) go through at the end of a group. */
struct fast_layout {
    int c4, njb, nkb, neb, nbl, ncb, cps, sp;
    int ns, nsc;     /* lanes per entry block (points split between them), per column sum */
    size_t dbl, wsz; /* doubles before the T part; T elements per warp */
};
__host__ __device__ inline fast_layout fast_lay(int c, int dr, int ts) {
    fast_layout L;
    L.c4 = (c + 3) & ~3;
    L.njb = L.c4 / 4;
    L.nkb = dr / 4;
    L.neb = L.njb * L.nkb;
    L.nbl = (L.neb + 31) / 32;
    L.ncb = (c + 31) / 32;
    for (L.ns = 1; 2 * L.ns * L.neb <= 32;) L.ns *= 2;
    for (L.nsc = 1; 2 * L.nsc * c <= 32;) L.nsc *= 2;
    L.cps = p_stride(L.c4, ts);
    L.sp = xs_stride(dr, ts);
    L.dbl = HAZE__FCM_NSCALAR * NWARP + (size_t)NWARP * 32 * (L.ncb + 16 * (L.nbl - 1));
    size_t wt = (size_t)WPTS * (L.sp + L.cps) + (size_t)c * DS;
    if (wt * ts < 16 * 32 * sizeof(double)) wt = 16 * 32 * sizeof(double) / ts;
    L.wsz = (wt * ts + 15) / 16 * 16 / ts; /* 16-byte aligned per warp */
    return L;
}
static size_t fast_smem(size_t c, size_t dr, size_t ts, int with_vp) {
    const fast_layout L = fast_lay((int)c, (int)dr, (int)ts);
    return L.dbl * sizeof(double) + ((with_vp ? 2 : 1) * c * dr + NWARP * L.wsz) * ts;
}

/* Register caps (minimum blocks per SM). */
#define FAST_MINB(T, DR) (sizeof(T) == 8 && DR == 32 ? 3 : 4)
template <typename T, int DR>
__global__ void __launch_bounds__(TILE, FAST_MINB(T, DR)) fast_kernel(pass_args<T> A) {
    extern __shared__ __align__(16) double smem_f[];
    const int tid = threadIdx.x, lane = tid & 31, wp = tid >> 5, d = A.d, c = A.c;
    const fast_layout L = fast_lay(c, DR, sizeof(T));
    constexpr int nkb = DR / 4;
    const int full = A.mode == MODE_FULL, use_vp = A.use_vp;
    /* U(k-1) of each point: for the sums of the first pass, for the change,
     * and for J when it is computed directly (U(0) random or given). */
    const int need_prev = !full || A.src != HAZE__FCM_SRC_CENTERS || A.want_du;
    double *red = smem_f;                                                 /* NSCALAR x NWARP */
    double *colw = red + HAZE__FCM_NSCALAR * NWARP + wp * 32 * L.ncb;     /* ncb x 32 */
    double *accw = red + HAZE__FCM_NSCALAR * NWARP + NWARP * 32 * L.ncb + /* nbl-1 x 16 x 32 */
                   (size_t)wp * 32 * 16 * (L.nbl - 1);
    T *vs = (T *)(smem_f + L.dbl);                                    /* c x DR */
    T *vps = vs + (size_t)c * DR;                                     /* c x DR, with use_vp */
    T *xs = vps + (use_vp ? (size_t)c * DR : 0) + (size_t)wp * L.wsz; /* WPTS x sp */
    T *P = xs + WPTS * L.sp;                                          /* WPTS x cps */
    T *D = P + WPTS * L.cps;                                          /* c x DS */
    for (int idx = tid; idx < c * DR; idx += TILE) {
        const int j = idx / DR, k = idx - j * DR;
        vs[idx] = A.v && k < d ? A.v[(size_t)j * d + k] : (T)0;
        if (use_vp) vps[idx] = A.vp && k < d ? A.vp[(size_t)j * d + k] : (T)0;
    }
    __syncthreads();
    const size_t nv = (size_t)c * d;
    const int sp = L.sp, cps = L.cps;
    for (size_t grp = blockIdx.x; grp < A.ngrp; grp += gridDim.x) {
        double *row = A.rows + (A.g0 + grp) * A.stride;
        for (int q = lane; q < 32 * L.ncb; q += 32) colw[q] = 0;
        for (int q = lane; q < 32 * 16 * (L.nbl - 1); q += 32) accw[q] = 0;
        double jpd = 0, dud = 0, jsd = 0, accr[16];
        /* With d <= 16 the float products of a lane run over several runs of
         * 32 points (SPLIT: 32 products per lane before going to double); with
         * d <= 8 the next run's points are loaded into registers while this one
         * is computed (PF), since one run's load is too short to hide its
         * latency. */
        constexpr bool SPLIT = sizeof(T) == 4 && DR <= 16, PF = sizeof(T) == 4 && DR <= 8;
        T accf[16];
        float4 nxt[PF ? nkb : 1];
        bool have_nxt = false;
        int nrun = 0;
#pragma unroll
        for (int r = 0; r < 16; r++) accr[r] = 0, accf[r] = 0;
        for (int t = 0; t < A.G; t++) {
            const size_t tile0 = (grp * A.G + t) * TILE; /* chunk-relative */
            if (tile0 >= A.np) break;
            const size_t p0 = tile0 + (size_t)wp * WPTS;
            const int npw = p0 >= A.np ? 0 : A.np - p0 < WPTS ? (int)(A.np - p0) : WPTS;
            if (npw == 0) continue;
            /* the run's points into xs (zero rows past npw) */
            if (sizeof(T) == 4 && A.vec && npw == WPTS && d == DR) {
                const float4 *x4 = (const float4 *)(A.x + p0 * d);
                float4 tmp[nkb];
#pragma unroll
                for (int r = 0; r < nkb; r++)
                    tmp[r] = PF && have_nxt ? nxt[PF ? r : 0] : x4[lane + 32 * r];
#pragma unroll
                for (int r = 0; r < nkb; r++) {
                    const int i = lane + 32 * r, pp = i / nkb, k = 4 * (i - pp * nkb);
                    *(float4 *)(xs + pp * sp + k) = tmp[r];
                }
            } else {
                const T *xg = A.x + p0 * d;
                for (int idx = lane; idx < WPTS * d; idx += 32) {
                    const int pp = idx / d, k = idx - pp * d;
                    xs[pp * sp + k] = pp < npw ? xg[idx] : (T)0;
                }
            }
            if (!PF && t + 1 < A.G) { /* the warp's next run into L2 */
                const size_t p1 = (grp * A.G + t + 1) * TILE + (size_t)wp * WPTS;
                if (p1 < A.np) {
                    const size_t nb = (A.np - p1 < WPTS ? A.np - p1 : WPTS) * d * sizeof(T);
                    const char *b = (const char *)(A.x + p1 * d);
                    for (size_t o = (size_t)lane * 128; o < nb; o += 32 * 128)
                        asm volatile("prefetch.global.L2 [%0];" ::"l"(b + o));
                }
            }
            if (A.u_prev && t + 1 < A.G && lane < c) { /* its kept memberships into L2 */
                const size_t t1 = (grp * A.G + t + 1) * TILE;
                if (t1 + (size_t)wp * WPTS < A.np)
                    asm volatile("prefetch.global.L2 [%0];" ::"l"(A.u_prev + (A.i0 + t1) * c +
                                                                  (size_t)lane * TILE + wp * WPTS));
            }
            if (PF) { /* the warp's next run, if whole */
                const size_t p1 = (grp * A.G + t + 1) * TILE + (size_t)wp * WPTS;
                have_nxt = A.vec && d == DR && t + 1 < A.G && p1 + WPTS <= A.np;
                if (have_nxt) {
                    const float4 *x4 = (const float4 *)(A.x + p1 * d);
#pragma unroll
                    for (int r = 0; r < (PF ? nkb : 1); r++) nxt[r] = x4[lane + 32 * r];
                }
            }
            __syncwarp();
            /* phase 1: the lane's point */
            const int p = lane;
            const bool valid = p < npw;
            T *Pp = P + p * cps;
            T xr[DR];
#pragma unroll
            for (int k = 0; k < DR; k += 4) {
                T v[4];
                ld4(xs + p * sp + k, v);
#pragma unroll
                for (int r = 0; r < 4; r++) xr[k + r] = k + r < d ? v[r] : (T)0;
            }
            if (valid && need_prev) { /* U(k-1) of the point into its row of P */
                const size_t i = A.i0 + p0 + p;
                if (A.src == HAZE__FCM_SRC_RANDOM) {
                    double tot = 0;
                    for (int j = 0; j < c; j++) tot += rand_u(A.seed, i, j, c);
                    for (int j = 0; j < c; j++) Pp[j] = (T)(rand_u(A.seed, i, j, c) / tot);
                } else if (A.src == HAZE__FCM_SRC_MEMORY) {
                    for (int j = 0; j < c; j++) Pp[j] = (T)A.u0[(p0 + p) * c + j];
                } else if (A.u_prev) { /* kept by the previous pass: the same bits */
                    const T *up = A.u_prev + (A.i0 + tile0) * c + wp * WPTS + p;
                    for (int j = 0; j < c; j++) Pp[j] = up[(size_t)j * TILE];
                } else {
                    T dmin;
                    const T f = memb_w<T, DR>(xr, vps, c, A.m, A.e, D, p, (const T *)NULL,
                                              (T *)NULL, &dmin);
                    for (int j = 0; j < c; j++) Pp[j] = D[j * DS + p] * f;
                    if (!full) /* JSELF of U(0) about V(0), for J of the first iteration */
                        jsd += jself(dmin, f, A.m);
                }
            }
            if (!full) {
                for (int j = 0; j < L.c4; j++) Pp[j] = valid && j < c ? powm(Pp[j], A.m) : (T)0;
            } else {
                T f = 0, dmin = 0, jp = 0;
                if (valid) {
                    f = memb_w<T, DR>(xr, vs, c, A.m, A.e, D, p, need_prev ? Pp : (const T *)NULL,
                                      &jp, &dmin);
                    jpd += (double)jp;
                    jsd += jself(dmin, f, A.m);
                }
                T *uk = A.u_keep ? A.u_keep + (A.i0 + tile0) * c + wp * WPTS + p : NULL;
                T du = 0;
                for (int j = 0; j < L.c4; j += 4) {
                    T pm[4];
#pragma unroll
                    for (int r = 0; r < 4; r++) {
                        const int jj = j + r;
                        const bool in = valid && jj < c;
                        const T u = in ? D[jj * DS + p] * f : (T)0;
                        if (in && A.want_du) {
                            const T dd = u - Pp[jj];
                            du = fmaT(dd, dd, du);
                        }
                        if (in && uk) uk[(size_t)jj * TILE] = u;
                        pm[r] = powm(u, A.m);
                    }
                    st4(Pp + j, pm);
                }
                dud += (double)du;
            }
            __syncwarp();
            /* phase 2: u^m x over the run's 32 points, 4 x 4 entries per lane;
             * with few entry blocks, L.ns lanes per block split the points */
            for (int bl = 0; bl < L.nbl; bl++) {
                const int ebl = bl == 0 ? lane % L.neb : lane + 32 * bl, sl = lane / L.neb;
                if (bl == 0 ? sl >= L.ns : ebl >= L.neb) break;
                const int eb = ebl, jb = eb / nkb, kb = eb - jb * nkb;
                const T *pa = P + 4 * jb, *xa = xs + 4 * kb;
                T acc[16];
#pragma unroll
                for (int r = 0; r < 16; r++) acc[r] = SPLIT && bl == 0 ? accf[r] : (T)0;
#pragma unroll 8
                for (int q = bl == 0 ? sl : 0; q < WPTS; q += bl == 0 ? L.ns : 1) {
                    T a[4], x[4];
                    ld4(pa + q * cps, a);
                    ld4(xa + q * sp, x);
#pragma unroll
                    for (int u = 0; u < 4; u++)
#pragma unroll
                        for (int r = 0; r < 4; r++)
                            acc[u * 4 + r] = fmaT(a[u], x[r], acc[u * 4 + r]);
                }
                if (bl == 0) {
                    if (SPLIT && nrun + 1 < L.ns) {
#pragma unroll
                        for (int r = 0; r < 16; r++) accf[r] = acc[r];
                    } else {
#pragma unroll
                        for (int r = 0; r < 16; r++) accr[r] += (double)acc[r], accf[r] = 0;
                    }
                } else {
                    double *ab = accw + (size_t)(bl - 1) * 16 * 32 + lane;
#pragma unroll
                    for (int r = 0; r < 16; r++) ab[r * 32] += (double)acc[r];
                }
            }
            nrun = nrun + 1 < L.ns ? nrun + 1 : 0;
            /* the column sums of u^m, L.nsc lanes per column when c <= 16 */
            for (int cb = 0; cb < L.ncb; cb++) {
                const int j = L.nsc > 1 ? lane % c : lane + 32 * cb, sc = L.nsc > 1 ? lane / c : 0;
                if (j >= c || sc >= L.nsc) break;
                T s0 = 0, s1 = 0;
                for (int q = sc; q < WPTS; q += 2 * L.nsc) {
                    s0 += P[q * cps + j];
                    s1 += P[(q + L.nsc) * cps + j];
                }
                colw[cb * 32 + lane] += (double)(s0 + s1);
            }
            __syncwarp();
        }
        /* the group's sums: the warps in order; the register accumulators
         * through the warp's (now dead) rows */
        {
            double *stg = (double *)xs;
#pragma unroll
            for (int r = 0; r < 16; r++) stg[r * 32 + lane] = accr[r] + (double)accf[r];
            haze__fcm_warp_scalars(red, NWARP, wp, lane, jpd, dud, jsd);
        }
        __syncthreads();
        const double *col0 = red + HAZE__FCM_NSCALAR * NWARP;
        const double *acc0 = col0 + NWARP * 32 * L.ncb;
        const size_t wstride = (size_t)32 * 16 * (L.nbl - 1);
        const T *xs0 = vps + (use_vp ? (size_t)c * DR : 0);
        for (size_t e = tid; e < nv; e += TILE) {
            const int j = (int)(e / d), k = (int)(e - (size_t)j * d);
            const int eb = (j >> 2) * nkb + (k >> 2), r = (j & 3) * 4 + (k & 3);
            double s = 0;
            if (eb < 32) {
                for (int w = 0; w < NWARP; w++)
                    for (int sl = 0; sl < L.ns; sl++)
                        s += ((const double *)(xs0 + w * L.wsz))[r * 32 + sl * L.neb + eb];
            } else {
                const size_t o = ((size_t)((eb >> 5) - 1) * 16 + r) * 32 + (eb & 31);
                for (int w = 0; w < NWARP; w++) s += acc0[w * wstride + o];
            }
            row[e] = s;
        }
        for (int j = tid; j < c; j += TILE) {
            const size_t o = (size_t)(j >> 5) * 32 + (j & 31);
            double s = 0;
            for (int w = 0; w < NWARP; w++)
                for (int sc = 0; sc < L.nsc; sc++) s += col0[w * 32 * L.ncb + o + sc * c];
            row[nv + j] = s;
        }
        haze__fcm_group_scalars(row + nv + c, red, NWARP, tid);
        __syncthreads();
    }
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

/* One level of the reduction tree: out[q] = the sum of rows q*RFAN ... of
 * in, as RFAN/16 runs of 16 rows, each run summed in order, then the runs
 * summed in order (an order fixed by nrows alone). A block takes 16
 * entries of one q, a thread one run of one entry. */
#define RRUN 16
__global__ void __launch_bounds__(256)
    reduce_level(const double *in, double *out, size_t nrows, size_t stride) {
    __shared__ double part[RFAN / RRUN][RRUN];
    const size_t nb = (stride + RRUN - 1) / RRUN;
    const size_t q = blockIdx.x / nb, e = (blockIdx.x - q * nb) * RRUN + (threadIdx.x % RRUN);
    const int r = (int)(threadIdx.x / RRUN);
    const size_t g0 = q * RFAN + (size_t)r * RRUN,
                 gq = (q + 1) * RFAN < nrows ? (q + 1) * RFAN : nrows;
    const size_t g1 = g0 + RRUN < gq ? g0 + RRUN : gq;
    double s = 0;
    if (e < stride && g0 < g1) {
        if (g1 - g0 == RRUN) {
            double t[RRUN];
#pragma unroll
            for (int i = 0; i < RRUN; i++) t[i] = in[(g0 + i) * stride + e];
#pragma unroll
            for (int i = 0; i < RRUN; i++) s += t[i];
        } else {
            for (size_t g = g0; g < g1; g++) s += in[g * stride + e];
        }
    }
    part[r][threadIdx.x % RRUN] = s;
    __syncthreads();
    if (r == 0 && e < stride) {
        double tot = 0;
        for (int k = 0; k < RFAN / RRUN; k++) tot += part[k][threadIdx.x];
        out[q * stride + e] = tot;
    }
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
    void *stage;   /* page-locked staging of the centres and norms: uploads without a sync */
    double *hsums; /* page-locked landing of a pass's sums (stride_max): a direct copy */
    int fast_dr;
    size_t fast_smem_sz;
    int shape; /* the fixed-shape float32 kernel (fcm_cuda_shape.cu) runs the steady iterations */
    double *shift; /* d values: its fixed shift (the mean of the first centres it sees), */
    int shift_set; /* so that a recomputed U(k-1) has the bits the previous pass computed */
    /* Memberships kept between the fast passes (resident data only, when the
     * budget allows): dkeep holds U of the centres keep_v (c x d) with the
     * fuzzifier keep_m, valid when keep_ok. */
    void *dkeep;
    double *keep_v, keep_m;
    int keep_ok;
    int keep8; /* the share of the groups, in eighths, that keep U (the shape kernel) */
    int kept8; /* the share the last keeping pass wrote */
    /* The expanded form of the shape kernel (d > 8) reads its centres from
     * tables in device memory: dtab[b] built from dcv[b] (V) and dcv[1 - b]
     * (the previous V), b = cur for the pass last queued. With the data
     * resident, each such pass also queues the step to the next centres on
     * the device (haze__fcm_shape_next: sums to dsout[b], V' to dcv[1 - b],
     * the next tables to dtab[1 - b]; both come back to hsp[b] on the copy
     * stream) and then the next pass itself, before the host has its sums:
     * the pass the host asks for next is that one when its centres are the
     * bits the device formed (spec; checked), else it is dropped. */
    size_t tab_bytes;
    void *dtab[2];
    double *dcv[2], *dsout[2], *dshift;
    double *hsp[2]; /* page-locked: stride_max sums, then c x d next centres */
    double *hvst;   /* page-locked staging of V and V(k-1) for a pass not queued ahead */
    double *pipe_v; /* the centres of the pass that queued the speculative one */
    cudaEvent_t ev_next[2], ev_back[2];
    int tab_ready, pipe, cur, spec, spec_du;
    cudaStream_t copy;
    cudaEvent_t copied[2], freed[2];
    int have_copy, have_ev;
    size_t used; /* device bytes of the data, its buffers and the sums (setup) */
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
    free(g->shift);
    cudaFree(g->rows);
    cudaFree(g->dv);
    cudaFree(g->dvp);
    cudaFree(g->da);
    cudaFree(g->dap);
    cudaFree(g->scratch);
    cudaFreeHost(g->stage);
    cudaFreeHost(g->hsums);
    for (int b = 0; b < 2; b++) {
        cudaFree(g->dtab[b]);
        cudaFree(g->dcv[b]);
        cudaFree(g->dsout[b]);
        cudaFreeHost(g->hsp[b]);
        if (g->ev_next[b]) cudaEventDestroy(g->ev_next[b]);
        if (g->ev_back[b]) cudaEventDestroy(g->ev_back[b]);
    }
    cudaFree(g->dshift);
    cudaFreeHost(g->hvst);
    free(g->pipe_v);
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
    /* a few tiles per group once there are enough tiles: the fast kernel
     * combines its warps' sums once per group */
    size_t gfew = ntiles / 512 < 4 ? ntiles / 512 : 4;
    if (G < gfew) G = gfew;
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
    if (!g->gk && d <= 32) {
        int dr = d <= 4 ? 4 : d <= 8 ? 8 : d <= 16 ? 16 : 32;
        size_t fs = fast_smem(c, (size_t)dr, ts, 1);
        if (fs <= (size_t)smem_optin) {
            g->fast_dr = dr;
            g->fast_smem_sz = fs;
            if (g->single)
                TRY(fast_attr<float>(dr, (int)fs));
            else
                TRY(fast_attr<double>(dr, (int)fs));
        }
    }
    if (g->fast_dr && g->single && haze__fcm_shape_covers(d, c) && !getenv("HAZE_FCM_NO_SHAPE")) {
        TRY(haze__fcm_shape_prepare(d, c));
        if (!(g->shift = (double *)malloc(d * sizeof(double))))
            return haze__error(g->ctx, HAZE_ERR_NOMEM, "fcm: out of memory");
        g->shape = 1;
        g->tab_bytes = haze__fcm_shape_tables_bytes(d, c);
        g->keep8 = haze__fcm_shape_keep8(d, c);
        const char *ke = getenv("HAZE_FCM_KEEP_EIGHTHS");
        if (ke && *ke >= '0' && *ke <= '8' && !ke[1]) g->keep8 = *ke - '0';
    } else {
        g->keep8 = 8;
    }
    TRY(cudaMallocHost(&g->stage, (2 * c * d + (g->gk ? 2 * c * d * d : 0)) * ts));
    TRY(cudaMallocHost(&g->hsums, g->stride_max * sizeof(double)));

    size_t nq = (g->ngroups + RFAN - 1) / RFAN;
    /* (+ the shape kernel's tables and the buffers of passes queued ahead) */
    size_t fixed = g->ngroups * g->stride_max * 8 + 2 * nq * g->stride_max * 8 + 2 * g->tab_bytes +
                   (4 * c * d + 2 * g->stride_max + d) * sizeof(double) +
                   (2 * c * d + (g->gk ? 2 * c * d * d : 0)) * ts;
    if (!g->use_smem) fixed += (size_t)SCRATCH_BLOCKS * TS * (d + 2 * c) * ts;
    size_t per_pt = d * ts + 2 * c * sizeof(double);
    size_t budget = haze__cuda_budget(g->ctx);
    /* U kept between iterations: c values per point, tile by tile. */
    const size_t keep = g->fast_dr && g->keep8 > 0 ? ntiles * TILE * c * ts : 0;
    if (fixed + n * per_pt <= budget) {
        g->resident = 1;
        g->chunk = g->ngroups * g->gpts;
        g->used = fixed + n * per_pt;
        if (keep && fixed + n * per_pt + keep <= budget) {
            g->used += keep;
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

extern "C" int haze__fcm_seed_cuda(haze_ctx *ctx, haze__fcm_gpu *g, size_t trials,
                                   const size_t *idx, const double *u, double *v) {
    /* Resident data only (streaming it twice per centre would cost more
     * than the CPU's passes over host memory), and room for the distances
     * and block sums. HAZE_FCM_CPU_SEED=1 seeds on the CPU (for timing). */
    const size_t nb = (g->n + HAZE__FCM_PP_BLOCK - 1) / HAZE__FCM_PP_BLOCK;
    const size_t need = haze__fcm_seed_bytes(g->n, g->d, g->c, trials);
    const char *cpu = getenv("HAZE_FCM_CPU_SEED");
    if (!g->resident || g->used + need > haze__cuda_budget(ctx) || (cpu && *cpu == '1') ||
        nb > 0x7fffffffu)
        return 1;
    return haze__fcm_seed_run(ctx, g->dx[0], g->single, g->n, g->d, g->c, trials, idx, u, v,
                              haze__stream(ctx));
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

/* Counts of the passes queued ahead that a fit used and that it dropped,
 * over the program (fcm_internal.h). */
static unsigned long queued_used, queued_dropped;

extern "C" void haze__fcm_cuda_queue_counts(unsigned long *used, unsigned long *dropped) {
    *used = __atomic_load_n(&queued_used, __ATOMIC_RELAXED);
    *dropped = __atomic_load_n(&queued_dropped, __ATOMIC_RELAXED);
}

/* What queueing passes ahead needs, beyond the tables: 0, or a CUDA error
 * (the fit then runs without it). */
static cudaError_t queue_setup(haze__fcm_gpu *g) {
    const size_t d = g->d, c = g->c;
    cudaError_t e = cudaSuccess;
    if (!(g->pipe_v = (double *)malloc(c * d * sizeof(double)))) return cudaErrorMemoryAllocation;
    for (int b = 0; b < 2 && e == cudaSuccess; b++) {
        e = cudaMalloc(&g->dsout[b], g->stride_max * sizeof(double));
        if (e == cudaSuccess)
            e = cudaMallocHost(&g->hsp[b], (g->stride_max + c * d) * sizeof(double));
        if (e == cudaSuccess) e = cudaEventCreateWithFlags(&g->ev_next[b], cudaEventDisableTiming);
        if (e == cudaSuccess) e = cudaEventCreateWithFlags(&g->ev_back[b], cudaEventDisableTiming);
    }
    if (e == cudaSuccess && !g->have_copy) {
        e = cudaStreamCreateWithFlags(&g->copy, cudaStreamNonBlocking);
        if (e == cudaSuccess) g->have_copy = 1;
    }
    return e;
}

/* The device tables of the expanded-form shape kernel and, with the data
 * resident, what queueing passes ahead needs: at the fit's first pass that
 * uses them (a prediction never does). Queueing ahead is only a speed-up:
 * where its buffers cannot be had, the fit goes on without it. */
static int tables_setup(haze__fcm_gpu *g) {
    const size_t d = g->d, c = g->c;
    for (int b = 0; b < 2; b++) {
        TRY(cudaMalloc(&g->dtab[b], g->tab_bytes));
        TRY(cudaMalloc(&g->dcv[b], c * d * sizeof(double)));
    }
    TRY(cudaMalloc(&g->dshift, d * sizeof(double)));
    TRY(cudaMallocHost(&g->hvst, 2 * c * d * sizeof(double)));
    /* resident data only (a streamed pass is long and its chunks' copies
     * share the copy stream) */
    if (g->resident && !getenv("HAZE_FCM_NO_PIPELINE")) {
        if (queue_setup(g) == cudaSuccess) {
            g->pipe = 1;
        } else {
            cudaGetLastError(); /* not the caller's error: the buffers stay until the end */
            g->pipe = 0;
        }
    }
    g->tab_ready = 1;
    return HAZE_OK;
}

/* The tree over the group rows of a pass (fan-in RFAN per level), queued
 * on st when queue is set (else it is on the stream already): where its
 * total is. */
static const double *reduce_tree(haze__fcm_gpu *g, size_t stride, cudaStream_t st, int queue) {
    const double *in = g->rows;
    for (size_t nrows = g->ngroups, lvl = 0; nrows > 1; nrows = (nrows + RFAN - 1) / RFAN, lvl++) {
        double *outb = g->tree[lvl & 1];
        if (queue)
            reduce_level<<<(unsigned)((nrows + RFAN - 1) / RFAN * ((stride + RRUN - 1) / RRUN)),
                           (RFAN / RRUN) * RRUN, 0, st>>>(in, outb, nrows, stride);
        in = outb;
    }
    return in;
}

/* One launch of the fixed-shape kernel over a chunk. */
static int shape_launch(haze__fcm_gpu *g, const haze__fcm_pass *p, const void *x, size_t i0,
                        size_t np, int share, float *u_keep, const float *u_prev, const void *tab,
                        cudaStream_t st) {
    haze__fcm_shape_args sa;
    memset(&sa, 0, sizeof sa);
    sa.x = (const float *)x, sa.i0 = i0, sa.np = np, sa.g0 = i0 / g->gpts;
    sa.ngrp = (np + g->gpts - 1) / g->gpts;
    sa.d = (int)g->d, sa.c = (int)g->c, sa.G = (int)g->G, sa.want_du = p->want_du;
    sa.keep8 = share;
    sa.v = p->v, sa.vp = p->vp, sa.tab = tab;
    sa.u_keep = u_keep, sa.u_prev = u_prev;
    sa.rows = g->rows, sa.stride = haze__fcm_stride(g->c, g->d, 0);
    TRY(haze__fcm_shape_launch(&sa, st));
    return HAZE_OK;
}

template <typename T> static int pass_t(haze__fcm_gpu *g, haze__fcm_pass *p) {
    const size_t n = g->n, d = g->d, c = g->c, ts = sizeof(T);
    const int mode = p->cov ? MODE_COV : p->v ? MODE_FULL : MODE_CENTRES;
    const size_t stride = haze__fcm_stride(c, d, p->cov);
    cudaStream_t st = haze__stream(g->ctx);
    int rc;
    /* The fast kernel computes what the iteration needs (J, the change, the
     * centre sums); the indices and the membership output come from the
     * plain kernel, in the one extra pass at the end of a fit. */
    const int fast = g->fast_dr && mode != MODE_COV && !p->a && !p->indices && !p->u_out &&
                     !(p->src == HAZE__FCM_SRC_CENTERS && p->ap);
    /* The steady iterations (source: the previous centres) in float32 of a
     * covered shape: the fixed-shape kernel, its centres passed at launch
     * (d <= 8) or in device tables (tab). */
    const int shape =
        fast && g->shape && mode == MODE_FULL && p->src == HAZE__FCM_SRC_CENTERS && p->m == 2.0;
    const int tab = shape && g->tab_bytes > 0;
    if (tab && !g->tab_ready && (rc = tables_setup(g))) return rc;
    /* A pass queued ahead by the previous one (see the struct): this one when
     * its centres are the ones the device formed, bit for bit; else it is
     * left to end unused, having overwritten the kept memberships. */
    int queued = 0;
    if (g->spec) {
        g->spec = 0;
        queued = tab && g->pipe && p->want_du == g->spec_du &&
                 memcmp(p->vp, g->pipe_v, c * d * sizeof(double)) == 0 &&
                 memcmp(p->v, g->hsp[1 - g->cur] + g->stride_max, c * d * sizeof(double)) == 0;
        __atomic_fetch_add(queued ? &queued_used : &queued_dropped, 1ul, __ATOMIC_RELAXED);
        if (!queued) {
            TRY(cudaStreamSynchronize(st));
            g->keep_ok = 0;
            /* a steady pass the device did not foresee: the host rounds the
             * centres differently; no more passes ahead in this fit */
            if (tab) g->pipe = 0;
        }
    }
    const int pipe = tab && g->pipe && !p->last; /* (no pass follows the last) */
    /* U(k-1) from the previous pass's memberships when they are those of vp
     * (same centres, same m) and that pass kept the groups this one reads
     * (all of them, or the shape kernel's share); U(k) kept for the next
     * pass. The kept values are the ones the recomputation would give (same
     * code, same centres), so keeping them changes no result. */
    const int share = shape ? g->keep8 : 8;
    const int keep = fast && g->dkeep && mode == MODE_FULL && p->want_du;
    const int reuse = keep && g->keep_ok && g->kept8 >= share && p->src == HAZE__FCM_SRC_CENTERS &&
                      !p->ap && g->keep_m == p->m &&
                      memcmp(g->keep_v, p->vp, c * d * sizeof(double)) == 0;
    if (keep) g->keep_ok = 0; /* until this pass has completed */
    if (shape && !g->shift_set) {
        for (size_t k = 0; k < d; k++) {
            double m = 0;
            for (size_t j = 0; j < c; j++) m += p->v[j * d + k];
            g->shift[k] = (float)(m / (double)c);
        }
        if (tab)
            TRY(cudaMemcpyAsync(g->dshift, g->shift, d * sizeof(double), cudaMemcpyHostToDevice,
                                st));
        g->shift_set = 1;
    }
    if (!shape) { /* (the shape kernel takes its centres at launch or from its tables) */
        if (p->v && (rc = upload<T>(g, g->dv, p->v, c * d, 0))) return rc;
        if (p->a && (rc = upload<T>(g, g->da, p->a, c * d * d, 2 * c * d))) return rc;
        if (p->src == HAZE__FCM_SRC_CENTERS) {
            if ((rc = upload<T>(g, g->dvp, p->vp, c * d, c * d))) return rc;
            if (p->ap && (rc = upload<T>(g, g->dap, p->ap, c * d * d, 2 * c * d + c * d * d)))
                return rc;
        }
    } else if (tab && !queued) { /* the tables from V and V(k-1) in double */
        const int b = g->cur ^= 1;
        memcpy(g->hvst, p->v, c * d * sizeof(double));
        memcpy(g->hvst + c * d, p->vp, c * d * sizeof(double));
        TRY(cudaMemcpyAsync(g->dcv[b], g->hvst, c * d * sizeof(double), cudaMemcpyHostToDevice,
                            st));
        TRY(cudaMemcpyAsync(g->dcv[1 - b], g->hvst + c * d, c * d * sizeof(double),
                            cudaMemcpyHostToDevice, st));
        TRY(haze__fcm_shape_tables(g->dtab[b], g->dcv[b], g->dcv[1 - b], g->dshift, d, c, st));
    }
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
    /* the plain kernel adds into its rows; the others write every entry */
    if (!fast) TRY(cudaMemsetAsync(g->rows, 0, g->ngroups * stride * sizeof(double), st));

    pass_args<T> A;
    memset(&A, 0, sizeof A);
    A.d = (int)d, A.c = (int)c, A.G = (int)g->G, A.mode = mode, A.src = p->src;
    A.use_smem = g->use_smem;
    A.indices = p->indices;
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
    A.want_du = p->want_du;
    A.use_vp = p->src == HAZE__FCM_SRC_CENTERS && !reuse && (mode != MODE_FULL || p->want_du);

    size_t nch = g->resident ? 1 : (n + g->chunk - 1) / g->chunk;
    for (size_t q = 0; q < nch && !queued; q++) {
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
        if (shape) {
            if ((rc = shape_launch(g, p, A.x, i0, np, share, (float *)A.u_keep,
                                   (const float *)A.u_prev, tab ? g->dtab[g->cur] : NULL, st)))
                return rc;
        } else if (fast) {
            /* without the previous centres when they are not read: less shared
             * memory, more blocks per SM */
            fast_launch<T>(g->fast_dr, (unsigned)blocks,
                           A.use_vp ? g->fast_smem_sz : fast_smem(c, g->fast_dr, ts, 0), st, A);
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
    const double *in = reduce_tree(g, stride, st, !queued);
    HAZE_CUDA_TRY_LAUNCH(g->ctx);
    if (pipe) {
        /* The step to the next centres on the device, then the next pass
         * (same flags; it reads the U(k) this pass keeps), queued before
         * this pass's sums come back to the host. */
        const int b = g->cur;
        TRY(haze__fcm_shape_next(g->dtab[1 - b], g->dcv[1 - b], g->dsout[b], in, g->dcv[b],
                                 g->dshift, d, c, stride, st));
        TRY(cudaEventRecord(g->ev_next[b], st));
        TRY(cudaStreamWaitEvent(g->copy, g->ev_next[b], 0));
        TRY(cudaMemcpyAsync(g->hsp[b], g->dsout[b], stride * sizeof(double), cudaMemcpyDeviceToHost,
                            g->copy));
        TRY(cudaMemcpyAsync(g->hsp[b] + g->stride_max, g->dcv[1 - b], c * d * sizeof(double),
                            cudaMemcpyDeviceToHost, g->copy));
        TRY(cudaEventRecord(g->ev_back[b], g->copy));
        g->cur = 1 - b;
        if ((rc = shape_launch(g, p, g->dx[0], 0, n, share, (float *)A.u_keep,
                               (const float *)A.u_keep, g->dtab[1 - b], st)))
            return rc;
        reduce_tree(g, stride, st, 1);
        HAZE_CUDA_TRY_LAUNCH(g->ctx);
        g->spec = 1;
        g->spec_du = p->want_du;
        memcpy(g->pipe_v, p->v, c * d * sizeof(double));
        TRY(cudaEventSynchronize(g->ev_back[b]));
        memcpy(p->sums, g->hsp[b], stride * sizeof(double));
    } else {
        TRY(cudaMemcpyAsync(g->hsums, in, stride * sizeof(double), cudaMemcpyDeviceToHost, st));
        TRY(cudaStreamSynchronize(st));
        memcpy(p->sums, g->hsums, stride * sizeof(double));
    }
    if (shape && haze__fcm_shape_shifts(d)) /* the shape kernel summed u^m (x - s) */
        for (size_t j = 0; j < c; j++)
            for (size_t k = 0; k < d; k++) p->sums[j * d + k] += g->shift[k] * p->sums[c * d + j];
    if (fast && mode == MODE_FULL) { /* left out by the fast kernel: fcm.c knows */
        if (p->src == HAZE__FCM_SRC_CENTERS && !p->want_du) p->sums[c * d + c + HAZE__FCM_J] = NAN;
        if (!p->want_du) p->sums[c * d + c + HAZE__FCM_DU2] = NAN;
    }
    if (keep) {
        memcpy(g->keep_v, p->v, c * d * sizeof(double));
        g->keep_m = p->m;
        g->kept8 = share;
        g->keep_ok = 1;
    }
    return HAZE_OK;
}

extern "C" int haze__fcm_pass_cuda(haze_ctx *ctx, haze__fcm_gpu *g, haze__fcm_pass *p) {
    (void)ctx;
    return g->single ? pass_t<float>(g, p) : pass_t<double>(g, p);
}
