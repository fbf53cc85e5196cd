/*
 * src/fcm/fcm_cuda_fast.cu - the fast pass kernel of fuzzy c-means: the
 * Euclidean iterations with d <= 32 features, float or double, any m.
 *
 * Why a kernel of its own: the iterations read every point once per pass
 * and are bound by memory bandwidth when each point costs few instructions;
 * the plain kernel (fcm_cuda_plain.cu), which rounds as the CPU does and
 * stages whole tiles through shared memory with barriers, is not. This one
 * keeps each point in registers, uses FMAs and sums float runs of 32
 * products before going to double (docs/fcm.md, "Three GPU kernels"); the
 * fixed-shape kernel (fcm_cuda_shape.cu) goes further for float32, m = 2 and
 * up to 16 clusters on compute capability 8.0 and later, and leaves the
 * other steady iterations to this one.
 *
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
#include <cuda_runtime.h>
#include <math.h>

#include "fcm/fcm_cuda_pass.h"

#define TILE  HAZE__FCM_TILE /* points per tile = threads per block */
#define WPTS  HAZE__FCM_WPTS /* points per warp run */
#define DS    33             /* stride of the distance columns: conflict-free per lane */
#define NWARP (TILE / 32)

/* The fast kernel's tile of points in shared memory is point-major: point p
 * at xs + p * SP, coordinates padded to DR and beyond to a row of SP values
 * whose length in 16-byte chunks is odd, so that the 16-byte loads of eight
 * consecutive points (a quarter warp) hit distinct banks. */
static __host__ __device__ constexpr int xs_stride(int dr, int ts) {
    return ts == 4 ? (dr == 4 ? 12 : dr + 4) : dr + 2;
}

/* Row stride of the memberships u^m (point-major, c rounded up to 4 columns):
 * an odd number of 16-byte chunks, as for the points. */
static __host__ __device__ constexpr int p_stride(int c4, int ts) {
    return ts == 4 ? ((c4 / 4) % 2 ? c4 : c4 + 4) : c4 + 2;
}

template <typename T> static __device__ inline T fmaT(T a, T b, T c);
template <> __device__ inline float fmaT<float>(float a, float b, float c) {
    return __fmaf_rn(a, b, c);
}
template <> __device__ inline double fmaT<double>(double a, double b, double c) {
    return __fma_rn(a, b, c);
}

/* Four consecutive values of a 16-byte aligned shared array. */
static __device__ inline void ld4(const float *q, float (&o)[4]) {
    const float4 t = *(const float4 *)q;
    o[0] = t.x, o[1] = t.y, o[2] = t.z, o[3] = t.w;
}
static __device__ inline void ld4(const double *q, double (&o)[4]) {
    const double2 a = *(const double2 *)q, b = *(const double2 *)(q + 2);
    o[0] = a.x, o[1] = a.y, o[2] = b.x, o[3] = b.y;
}
static __device__ inline void st4(float *q, const float (&o)[4]) {
    *(float4 *)q = make_float4(o[0], o[1], o[2], o[3]);
}
static __device__ inline void st4(double *q, const double (&o)[4]) {
    *(double2 *)q = make_double2(o[0], o[1]);
    *(double2 *)(q + 2) = make_double2(o[2], o[3]);
}

/* Squared distance of the point xr (registers) to the padded centre vj;
 * two partial sums (even and odd coordinates) to halve the FMA chain. */
template <typename T, int DR> static __device__ inline T dist_reg(const T (&xr)[DR], const T *vj) {
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
static __device__ inline float ratio(float dmin, float dj, bool fast) {
    return fast ? __fdividef(dmin, dj) : dmin / dj;
}
static __device__ inline double ratio(double dmin, double dj, bool) {
    return dmin / dj;
}

/* Distances of the point xr to the padded centres vs into column p of D,
 * then the rescaled weights w_j = (d_min / d_j)^(1/(m-1)) over them; returns
 * f = 1 / sum w (u_j = w_j f) and d_min. A point on z centres gets weights
 * 1/z or 0 and f = 1. With Pm (U(k-1) of the point, stride 1) set, *jp gets
 * sum_j Pm[j]^m d_j. */
template <typename T, int DR>
static __device__ T memb_w(const T (&xr)[DR], const T *vs, int c, double m, T e, T *D, int p,
                           const T *Pm, T *jp, T *dminp) {
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
template <typename T> static __device__ inline double jself(T dmin, T f, double m) {
    return (double)(dmin * (m == 2.0 ? f : powT(f, (T)(m - 1.0))));
}

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
static __host__ __device__ inline fast_layout fast_lay(int c, int dr, int ts) {
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

/* Register caps (minimum blocks per SM). */
#define FAST_MINB(T, DR) (sizeof(T) == 8 && DR == 32 ? 3 : 4)
template <typename T, int DR>
static __global__ void __launch_bounds__(TILE, FAST_MINB(T, DR)) fast_kernel(haze__fcm_args<T> A) {
    extern __shared__ __align__(16) double smem_f[];
    const int tid = threadIdx.x, lane = tid & 31, wp = tid >> 5, d = A.d, c = A.c;
    const fast_layout L = fast_lay(c, DR, sizeof(T));
    constexpr int nkb = DR / 4;
    const int full = A.mode == HAZE__FCM_MODE_FULL, use_vp = A.use_vp;
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
                        const haze__fcm_args<T> &A) {
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

size_t haze__fcm_fast_smem(size_t c, size_t dr, size_t ts, int with_vp) {
    const fast_layout L = fast_lay((int)c, (int)dr, (int)ts);
    return L.dbl * sizeof(double) + ((with_vp ? 2 : 1) * c * dr + NWARP * L.wsz) * ts;
}

int haze__fcm_fast_prepare(haze_ctx *ctx, int single, int dr, size_t smem) {
    if (single)
        HAZE_CUDA_TRY(ctx, fast_attr<float>(dr, (int)smem));
    else
        HAZE_CUDA_TRY(ctx, fast_attr<double>(dr, (int)smem));
    return HAZE_OK;
}

void haze__fcm_fast_launch(const haze__fcm_args<float> &A, int dr, unsigned blocks, size_t smem,
                           cudaStream_t st) {
    fast_launch<float>(dr, blocks, smem, st, A);
}

void haze__fcm_fast_launch(const haze__fcm_args<double> &A, int dr, unsigned blocks, size_t smem,
                           cudaStream_t st) {
    fast_launch<double>(dr, blocks, smem, st, A);
}
