/*
 * src/fcm/fcm_cuda_shape.cu - the Euclidean fuzzy c-means iteration in
 * float32 with the fuzzifier m = 2, compiled for a fixed shape: d <= DR
 * features (4, 8, 16 or 32) and c <= CP clusters (4, 8 or 16).
 *
 * It computes what the fast kernel of fcm_cuda.cu computes in the steady
 * iterations (source: the previous centres), with the same tiles, groups,
 * runs of 32 points per warp and partial-sum rows, but with every loop over
 * clusters and features unrolled, a lane's distances and memberships in
 * registers, and what U(k-1) needs (nothing, the kept copy, or a
 * recomputation from the previous centres) chosen at compile time.
 *
 * Distances (docs/fcm.md, "The fixed-shape kernel"). With d <= 8 they are
 * summed directly, (x_k - v_jk)^2, the centres read from the kernel
 * parameters. With 16 or 32 features they are expanded about a shift s
 * fixed for the fit (the mean of the first centres): d_j = (|x'|^2 +
 * |v'_j|^2) + x' . (-2 v'_j), x' = x - s, v' = v - s (v', -2 v' and |v'|^2
 * in tables that the device builds from the centres in double, so that the
 * host can queue a pass before it knows them), the dot products of a
 * run's 32 points with the centres being one small product on the tensor
 * cores (TF32, both operands split into a high part rounded to nearest and
 * a low part: each product within about 1.2e-6 of its value). That form has
 * an absolute error of a few units of 1e-6 (|x'|^2 + |v'_j|^2), so any
 * d_j < (|x'|^2 + |v'_j|^2) / 2 (the nearest centre of almost every point,
 * every centre that may cancel, NaN) is recomputed directly from the
 * unshifted point and centre, as the CPU does. Every other d_j keeps a
 * relative error below about 1e-5 (1e-6 typically), and enters the
 * memberships only through w_j = d_min / d_j of a centre that is not the
 * nearest.
 *
 * Centre sums u^m x. With d <= 8: four clusters x four coordinates per lane
 * by FMA, as in the fast kernel. With 16 or 32 features on the tensor
 * cores: per run the (c x 32) by (32 x d) product of the memberships u^m and
 * the shifted points, in TF32 with both operands split into a high and a low
 * part (a = a_hi + a_lo; a_hi b_hi + a_hi b_lo + a_lo b_hi, the products of
 * about float precision), accumulated in float over the run's 32 points and
 * then in double. The shift comes back on the host: sum u^m x = sum u^m x'
 * + s sum u^m.
 *
 * Padded centres (c <= j < CP) get the weight 0 and change nothing.
 *
 * Why a kernel of its own: the shapes it covers are the common ones of the
 * steady iterations, where the fast kernel (fcm_cuda_fast.cu), with its
 * loops over runtime d and c, spends more instructions per point than the
 * memory system needs; this one is compiled per shape. Its tensor-core
 * instructions need compute capability 8.0: for the architectures before
 * it the kernel and the helpers only it calls are compiled out (SHAPE_TC)
 * and the host runs the fast kernel instead (haze__fcm_shape_covers).
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include "fcm/fcm_cuda.h"
#include "fcm/fcm_internal.h"

#define TILE  HAZE__FCM_TILE
#define WPTS  HAZE__FCM_WPTS
#define NWARP (TILE / 32)

/* 1 where the kernel's device code is compiled: the host pass and the
 * device passes for compute capability 8.0 on (TF32 mma.sync). */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define SHAPE_TC 0
#else
#define SHAPE_TC 1
#endif

/* What a pass needs of U(k-1): nothing (the objective's stopping rule), the
 * copy kept on the device by the previous pass, or a mix: the kept copy in a
 * fixed share of the groups (the first keep8 of every 8, by global group
 * index), a recomputation from the previous centres in the others. The mix
 * runs groups that load the kept U (DRAM-bound) beside groups that
 * recompute it (arithmetic-bound) on the same multiprocessors; both give
 * the same bits. */
enum { PREV_NONE = 0, PREV_KEPT = 1, PREV_MIXED = 2 };

/* The expanded distances and the tensor-core sums from 16 features on. */
static __host__ __device__ constexpr bool expanded(int dr) {
    return dr >= 16;
}

/* Row strides in floats. Point rows (xs) and centre rows: an odd number of
 * 16-byte chunks, so that one row per lane of a quarter warp hits distinct
 * banks, and so do the tensor-core fragment loads (rows g, columns t of an
 * 8 x 4 block). Membership and dot-product rows (P, D) of the tensor-core
 * path: 8 or 24 modulo 32, for the 8-byte fragment accesses (rows t or g of
 * 4, column pairs). */
static __host__ __device__ constexpr int odd_chunks(int n) {
    return (n / 4) % 2 ? n : n + 4;
}
static __host__ __device__ constexpr int x_stride(int dr) {
    return odd_chunks(dr);
}
static __host__ __device__ constexpr int p_stride(int dr, int cp) {
    return expanded(dr) ? (cp == 16 ? 24 : 8) : odd_chunks(cp);
}

/* What a pass computes from V(k) and V(k-1) (double) before it starts,
 * rounded to float: in the kernel parameters for the direct form, in device
 * memory for the expanded form (built there by tables_kernel, so that a pass
 * can be queued before its centres reach the host). */
template <int DR, int CP> struct shape_tables {
    float s[DR];         /* the shift (expanded form) */
    float v[2][CP * DR]; /* V(k), V(k-1): zero-padded to CP x DR */
    float w[2][CP * DR]; /* -2 (v - s) (expanded form) */
    float nv[2][CP];     /* |v - s|^2 (expanded form) */
    float pad[CP];       /* 0 for a centre, +inf for the padding */
};

/* Launch arguments. */
template <int DR, int CP> struct shape_params {
    const float *x;
    size_t i0, np, g0, ngrp;
    int d, c, G, vec, cmask;
    int keep8; /* PREV_MIXED: groups g with g mod 8 < keep8 keep U (u_keep), and read it (u_prev) */
    float *u_keep;
    const float *u_prev;
    double *rows;
    size_t stride;
    const shape_tables<DR, CP> *tab;                              /* expanded form */
    shape_tables<expanded(DR) ? 1 : DR, expanded(DR) ? 1 : CP> t; /* direct form */
};

/* The block's copy of the centres in shared memory, read one row per lane by
 * the direct recomputation of an expanded distance. */
template <int DR, int CP, int NSET> struct shape_consts {
    static constexpr int SV = odd_chunks(DR);
    static constexpr int KS = DR / 8 > 0 ? DR / 8 : 1, NN = (CP + 7) / 8;
    float v[NSET][CP * SV];
    float s[DR];        /* the shift */
    float nv[NSET][CP]; /* |v - s|^2 */
    float pad[CP];
    /* expanded form: -2 v' as B fragments of the tensor-core dot products,
     * per (n tile, k step) and lane the TF32 pairs (hi0, hi1, lo0, lo1) */
    uint4 wf[NSET][expanded(DR) ? NN * KS * 32 : 1];
};

#if SHAPE_TC
static __device__ __forceinline__ float4 ld4(const float *p) {
    return *(const float4 *)p;
}

/* Squared distance of a point row to one centre row, summed directly in the
 * order of the coordinates (both 16-byte aligned, DR floats); two chunks at
 * a time, which keeps few registers live where it is called per point. */
template <int DR> static __device__ __forceinline__ float direct(const float *xr, const float *vr) {
    float s = 0.f;
#pragma unroll 2
    for (int q = 0; q < DR / 4; q++) {
        const float4 a = ld4(xr + 4 * q), b = ld4(vr + 4 * q);
        float t = a.x - b.x;
        s = __fmaf_rn(t, t, s);
        t = a.y - b.y;
        s = __fmaf_rn(t, t, s);
        t = a.z - b.z;
        s = __fmaf_rn(t, t, s);
        t = a.w - b.w;
        s = __fmaf_rn(t, t, s);
    }
    return s;
}

/* The distances dd (unpadded) of the point in row xr to the centre set OLD
 * (0: V(k), 1: V(k-1)). Direct: the centres are read from the kernel
 * parameters, two per uniform load. Expanded: from the dot products in row
 * drow and |x'|^2 = nx that frag_dots left in shared memory. */
template <int DR, int CP, int OLD, int NSET>
static __device__ __forceinline__ void
distances(const shape_params<DR, CP> &A, const shape_consts<DR, CP, NSET> &K, const float *xr,
          const float *drow, float nx, float (&dd)[CP]) {
    constexpr int SV = shape_consts<DR, CP, NSET>::SV;
    if constexpr (!expanded(DR)) {
#pragma unroll
        for (int j = 0; j < CP; j++) dd[j] = 0.f;
#pragma unroll
        for (int q = 0; q < DR / 4; q++) {
            const float4 x4 = ld4(xr + 4 * q);
            const float xv[4] = {x4.x, x4.y, x4.z, x4.w};
#pragma unroll
            for (int j = 0; j < CP; j++)
#pragma unroll
                for (int r = 0; r < 4; r++) {
                    const float t = xv[r] - A.t.v[OLD][j * DR + 4 * q + r];
                    dd[j] = __fmaf_rn(t, t, dd[j]);
                }
        }
    } else {
        /* expanded: the dot products x' . (-2 v'_j) and |x'|^2 from the tensor
         * cores (frag_dots), then d_j = (|x'|^2 + |v'_j|^2) + dot_j; those that
         * may cancel (NaN included) recomputed directly */
        float dot[CP];
#pragma unroll
        for (int q = 0; q < CP / 4; q++) {
            const float4 t4 = ld4(drow + 4 * q);
            dot[4 * q] = t4.x, dot[4 * q + 1] = t4.y, dot[4 * q + 2] = t4.z, dot[4 * q + 3] = t4.w;
        }
        unsigned redo = 0;
#pragma unroll
        for (int j = 0; j < CP; j++) {
            const float base = nx + K.nv[OLD][j];
            dd[j] = base + dot[j];
            if (!(dd[j] >= 0.5f * base)) redo |= 1u << j;
        }
        redo &= (unsigned)A.cmask;
        while (redo) {
            const int j = __ffs(redo) - 1;
            redo &= redo - 1;
            const float e = direct<DR>(xr, K.v[OLD] + j * SV);
#pragma unroll
            for (int i = 0; i < CP; i++) dd[i] = i == j ? e : dd[i];
        }
    }
}

/* The max-rescaled memberships for m = 2 of the distances dd: u_j = w_j f
 * with w_j = d_min / d'_j, d'_j = d_j + pad_j (the padding at +inf gets
 * w = 0) and f = 1 / sum w; a point on z centres gets u = 1/z there and 0
 * elsewhere. Returns d_min. Rounds as the fast kernel's memb_w: w by one
 * reciprocal and a product (within 2 ulps) where d_min and d_max are normal
 * and below 2^126 (d_max taken over the unpadded distances, which only makes
 * the test stricter), else by the division. Every product and sum is
 * rounded on its own (no FMA), so that U(k-1) recomputed for V(k-1) and U(k)
 * kept by the previous pass are the same bits whatever the compiler fuses
 * around the two calls. */
template <int CP>
static __device__ __forceinline__ float memberships(const float (&pad)[CP], const float (&dd)[CP],
                                                    float (&u)[CP], float &f) {
    float dp[CP];
#pragma unroll
    for (int j = 0; j < CP; j++) dp[j] = dd[j] + pad[j];
    float dmin = dp[0], dmax = dd[0];
#pragma unroll
    for (int j = 1; j < CP; j++) {
        dmin = dp[j] < dmin ? dp[j] : dmin;
        dmax = dd[j] > dmax ? dd[j] : dmax;
    }
    if (dmin == 0.f) {
        float nz = 0.f;
#pragma unroll
        for (int j = 0; j < CP; j++) nz += dp[j] == 0.f ? 1.f : 0.f;
        const float inv = 1.f / nz;
#pragma unroll
        for (int j = 0; j < CP; j++) u[j] = dp[j] == 0.f ? inv : 0.f;
        f = 1.f;
        return 0.f;
    }
    float sum = 0.f;
    if (dmin >= 0x1p-126f && dmax <= 0x1p+126f) {
#pragma unroll
        for (int j = 0; j < CP; j++) {
            float r;
            asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(dp[j]));
            u[j] = __fmul_rn(dmin, r);
        }
    } else {
#pragma unroll
        for (int j = 0; j < CP; j++) u[j] = dmin / dp[j];
    }
#pragma unroll
    for (int j = 0; j < CP; j++) sum = __fadd_rn(sum, u[j]);
    f = 1.f / sum;
#pragma unroll
    for (int j = 0; j < CP; j++) u[j] = __fmul_rn(u[j], f);
    return dmin;
}

/* a = hi + lo exactly, hi = a rounded to the nearest TF32 value (ties away
 * from zero; a finite); the tensor cores read lo as TF32 too, dropping its
 * last 13 bits: a relative error below 2^-21 of a. */
static __device__ __forceinline__ void split_tf32(float a, uint32_t &hi, uint32_t &lo) {
    hi = (__float_as_uint(a) + 0x1000u) & 0xffffe000u;
    lo = __float_as_uint(a - __uint_as_float(hi));
}

/* c += a b for one 16 x 8 x 8 TF32 tile. */
static __device__ __forceinline__ void mma_tf32(float (&c)[4], const uint32_t (&a)[4], uint32_t b0,
                                                uint32_t b1) {
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, "
                 "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/* The expanded form's dot products of the run's 32 points with the CP
 * centres of set SET (0: V(k), 1: V(k-1)), x' . (-2 v'_j), on the tensor
 * cores (M = points in two tiles of 16, N = centres, K = features; both
 * operands split into TF32 pairs), into the 32 rows of SD of D, and |x'|^2
 * of each point into nx. x' = x - s is formed from the unshifted rows of
 * xs. The whole warp calls it. */
template <int SET, int DR, int CP, int NSET>
static __device__ __forceinline__ void frag_dots(const shape_consts<DR, CP, NSET> &K,
                                                 const float *xs, float *D, float *nx, int lane) {
    static_assert(SET < NSET, "frag_dots: a centre set the block does not hold");
    constexpr int KS = DR / 8, NN = (CP + 7) / 8, SX = x_stride(DR), SD = p_stride(DR, CP);
    const int g = lane >> 2, t = lane & 3;
    float acc[2][NN][4], nxp[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
    for (int mt = 0; mt < 2; mt++)
#pragma unroll
        for (int nt = 0; nt < NN; nt++)
#pragma unroll
            for (int i = 0; i < 4; i++) acc[mt][nt][i] = 0.f;
#pragma unroll
    for (int ks = 0; ks < KS; ks++) {
        uint4 b[NN];
#pragma unroll
        for (int nt = 0; nt < NN; nt++) b[nt] = K.wf[SET][(nt * KS + ks) * 32 + lane];
        const float s0 = K.s[8 * ks + t], s1 = K.s[8 * ks + t + 4];
#pragma unroll
        for (int mt = 0; mt < 2; mt++) {
            const float *r0 = xs + (16 * mt + g) * SX + 8 * ks + t, *r1 = r0 + 8 * SX;
            const float a[4] = {r0[0] - s0, r1[0] - s0, r0[4] - s1, r1[4] - s1};
            nxp[2 * mt] = __fmaf_rn(a[2], a[2], __fmaf_rn(a[0], a[0], nxp[2 * mt]));
            nxp[2 * mt + 1] = __fmaf_rn(a[3], a[3], __fmaf_rn(a[1], a[1], nxp[2 * mt + 1]));
            uint32_t ah[4], al[4];
#pragma unroll
            for (int i = 0; i < 4; i++) split_tf32(a[i], ah[i], al[i]);
#pragma unroll
            for (int nt = 0; nt < NN; nt++) {
                mma_tf32(acc[mt][nt], al, b[nt].x, b[nt].y);
                mma_tf32(acc[mt][nt], ah, b[nt].z, b[nt].w);
                mma_tf32(acc[mt][nt], ah, b[nt].x, b[nt].y);
            }
        }
    }
#pragma unroll
    for (int mt = 0; mt < 2; mt++)
#pragma unroll
        for (int nt = 0; nt < NN; nt++) {
            float *d0 = D + (16 * mt + g) * SD + 8 * nt + 2 * t;
            *(float2 *)d0 = make_float2(acc[mt][nt][0], acc[mt][nt][1]);
            *(float2 *)(d0 + 8 * SD) = make_float2(acc[mt][nt][2], acc[mt][nt][3]);
        }
#pragma unroll
    for (int i = 0; i < 4; i++) {
        float v = nxp[i];
        v += __shfl_xor_sync(0xffffffffu, v, 1);
        v += __shfl_xor_sync(0xffffffffu, v, 2);
        if (t == 0) nx[16 * (i >> 1) + 8 * (i & 1) + g] = v;
    }
}

#endif /* SHAPE_TC */

/* Bytes of shared memory per warp: its run of points, its u^m rows (which
 * hold the dot products of the expanded form until the memberships are
 * known) and (expanded form) |x'|^2; or, at the end of a group, its 16 x 32
 * double accumulators and 32 column sums, whichever is larger. */
static __host__ __device__ constexpr size_t run_bytes(int dr, int cp) {
    return (size_t)WPTS * (x_stride(dr) + p_stride(dr, cp) + (expanded(dr) ? 1 : 0)) * 4;
}
static __host__ __device__ constexpr size_t warp_bytes(int dr, int cp) {
    return run_bytes(dr, cp) > (16 * 32 + 32) * 8 ? run_bytes(dr, cp) : (size_t)(16 * 32 + 32) * 8;
}
template <int DR, int CP, int PREV> static __host__ __device__ constexpr size_t consts_bytes() {
    return (sizeof(shape_consts < DR, CP, PREV == PREV_MIXED ? 2 : 1 >) + 15) / 16 * 16;
}
template <int DR, int CP, int PREV> static __host__ __device__ constexpr size_t smem_bytes() {
    return consts_bytes<DR, CP, PREV>() + HAZE__FCM_NSCALAR * NWARP * 8 +
           NWARP * warp_bytes(DR, CP);
}

/* Column of cluster j in a membership row: with 16 clusters on the tensor
 * cores, j and j + 8 side by side (one 8-byte load per fragment pair). */
template <int DR, int CP> static __device__ __forceinline__ constexpr int p_col(int j) {
    return expanded(DR) && CP == 16 ? 2 * (j & 7) + (j >> 3) : j;
}

template <int DR, int CP, int PREV>
static __global__ void __launch_bounds__(TILE, PREV == PREV_NONE && !expanded(DR) ? 5 : 4)
    shape_kernel(const __grid_constant__ shape_params<DR, CP> A) {
#if !SHAPE_TC
    /* TF32 tensor-core products start with Ampere: before it the host takes
     * the fast kernel instead (haze__fcm_shape_covers) */
    (void)A;
    __trap();
#else
    extern __shared__ __align__(16) double smem_s[];
    constexpr bool EXP = expanded(DR);
    constexpr int NCX = DR / 4, NCP = CP / 4;
    constexpr int NSET = PREV == PREV_MIXED ? 2 : 1; /* centre sets in shared memory */
    constexpr size_t WB = warp_bytes(DR, CP);
    using consts = shape_consts<DR, CP, NSET>;
    constexpr int SX = x_stride(DR), SP = p_stride(DR, CP), SV = consts::SV;
    constexpr int NEB = NCX * NCP;           /* FMA sums: 4 x 4 entry blocks of the c x d sums */
    constexpr int NS = 32 / NEB;             /* lanes per entry block, splitting the points */
    constexpr int NSC = 32 / CP;             /* lanes per column sum */
    constexpr int NT = DR >= 8 ? DR / 8 : 1; /* tensor-core sums: n tiles of 8 features */
    const int tid = threadIdx.x, lane = tid & 31, wp = tid >> 5, d = A.d, c = A.c;

    /* the block's constants (expanded form; the direct form reads the
     * kernel parameters) */
    consts &K = *(consts *)smem_s;
    if constexpr (EXP) {
        const shape_tables<DR, CP> &T = *A.tab;
        for (int i = tid; i < CP * DR; i += TILE) {
            const int j = i / DR, k = i - j * DR;
#pragma unroll
            for (int o = 0; o < NSET; o++) K.v[o][j * SV + k] = T.v[o][i];
        }
        if (tid < DR) K.s[tid] = T.s[tid];
        if (tid < CP) {
            K.pad[tid] = T.pad[tid];
#pragma unroll
            for (int o = 0; o < NSET; o++) K.nv[o][tid] = T.nv[o][tid];
        }
        /* B fragments: b0 = w[8 nt + g][8 ks + t], b1 = w[8 nt + g][8 ks + t + 4] */
        constexpr int KS = consts::KS, NN = consts::NN;
        for (int i = tid; i < NSET * NN * KS * 32; i += TILE) {
            const int o = i / (NN * KS * 32), r = i - o * NN * KS * 32, ln = r & 31;
            const int nt = r / (KS * 32), ks = (r >> 5) - nt * KS, j = 8 * nt + (ln >> 2);
            const int k0 = 8 * ks + (ln & 3);
            const float w0 = j < CP ? T.w[o][j * DR + k0] : 0.f;
            const float w1 = j < CP ? T.w[o][j * DR + k0 + 4] : 0.f;
            uint32_t h0, l0, h1, l1;
            split_tf32(w0, h0, l0);
            split_tf32(w1, h1, l1);
            K.wf[o][r] = make_uint4(h0, h1, l0, l1);
        }
    }
    double *red = (double *)((char *)smem_s + consts_bytes<DR, CP, PREV>()); /* NSCALAR x NWARP */
    char *wbase = (char *)(red + HAZE__FCM_NSCALAR * NWARP);
    float *xs = (float *)(wbase + (size_t)wp * WB); /* WPTS x SX */
    float *P = xs + WPTS * SX;                      /* WPTS x SP: u^m */
    float *nxs = P + WPTS * SP;                     /* WPTS: |x'|^2 (expanded form) */
    __syncthreads();

    /* per-lane bases of the fixed access patterns */
    float *const xrow = xs + lane * SX, *const prow = P + lane * SP;
    float *const xst = xs + (lane / NCX) * SX + 4 * (lane % NCX); /* staging, + r (32/NCX) SX */
    const int eb = lane % NEB, sl = lane / NEB, jb = eb / NCX, kb = eb % NCX;
    const float *const pa = P + sl * SP + 4 * jb, *const xa = xs + sl * SX + 4 * kb;
    const int g = lane >> 2, t4 = lane & 3; /* tensor-core fragment coordinates */
    const float *const pc = P + (lane / CP) * SP + p_col<DR, CP>(lane % CP);
    const size_t nv = (size_t)c * d;

    for (size_t grp = blockIdx.x; grp < A.ngrp; grp += gridDim.x) {
        /* where this group's U(k-1) comes from, and whether it keeps U(k) */
        const bool share =
            PREV == PREV_KEPT || (PREV == PREV_MIXED && (int)((A.g0 + grp) & 7) < A.keep8);
        const bool from_keep = PREV == PREV_KEPT || (share && A.u_prev);
        float *const u_keep = share ? A.u_keep : nullptr;
        double dacc[16], colacc = 0, jacc = 0, duacc = 0, jsacc = 0;
        float accf[16];
#pragma unroll
        for (int r = 0; r < 16; r++) dacc[r] = 0, accf[r] = 0.f;
        int nrun = 0;
        size_t tile0 = grp * A.G * TILE; /* chunk-relative */
        for (int t = 0; t < A.G; t++, tile0 += TILE) {
            if (tile0 >= A.np) break;
            const size_t p0 = tile0 + (size_t)wp * WPTS;
            const int npw = p0 >= A.np ? 0 : A.np - p0 < WPTS ? (int)(A.np - p0) : WPTS;
            if (npw == 0) continue;
            /* the run's points into xs; zero rows past npw */
            if (A.vec && npw == WPTS) {
                const float4 *x4 = (const float4 *)(A.x + p0 * DR) + lane;
                float4 tmp[NCX];
#pragma unroll
                for (int r = 0; r < NCX; r++) tmp[r] = x4[32 * r];
#pragma unroll
                for (int r = 0; r < NCX; r++) *(float4 *)(xst + r * (32 / NCX) * SX) = tmp[r];
            } else {
                const float *xg = A.x + p0 * d;
                for (int idx = lane; idx < WPTS * DR; idx += 32) {
                    const int pp = idx / DR, k = idx - pp * DR;
                    xs[pp * SX + k] = pp < npw && k < d ? xg[(size_t)pp * d + k] : 0.f;
                }
            }
            /* the warp's next run (at most 32 x 128 bytes) and its kept
             * memberships into L2 */
            if (t + 1 < A.G && p0 + TILE < A.np) {
                const size_t p1 = p0 + TILE, left = A.np - p1;
                if ((size_t)lane * 128 < (left < WPTS ? left : WPTS) * d * sizeof(float))
                    asm volatile("prefetch.global.L2 [%0];" ::"l"(A.x + p1 * d + lane * 32));
                if (from_keep && lane < c)
                    asm volatile("prefetch.global.L2 [%0];" ::"l"(
                        A.u_prev + (A.i0 + tile0 + TILE) * c + (size_t)lane * TILE + wp * WPTS));
            }
            __syncwarp();

            /* phase 1: U(k-1) of the lane's point, from the kept copy (on its way
             * while the dot products are taken) or recomputed from V(k-1) (its
             * dot products first, through the rows of P); then the distances
             * to V(k) */
            float pm[CP];
            if (from_keep) {
                const float *up = A.u_prev + (A.i0 + tile0) * c + wp * WPTS + lane;
#pragma unroll
                for (int j = 0; j < CP; j++)
                    pm[j] = lane < npw && A.cmask >> j & 1 ? up[(size_t)j * TILE] : 0.f;
            }
            if constexpr (PREV == PREV_MIXED) {
                if (!from_keep) {
                    if constexpr (EXP) {
                        frag_dots<1>(K, xs, P, nxs, lane);
                        __syncwarp();
                    }
                    if (lane < npw) {
                        float d0[CP], f0;
                        distances<DR, CP, 1>(A, K, xrow, prow, EXP ? nxs[lane] : 0.f, d0);
                        if constexpr (EXP)
                            memberships<CP>(K.pad, d0, pm, f0);
                        else
                            memberships<CP>(A.t.pad, d0, pm, f0);
                    }
                    __syncwarp();
                }
            }
            if constexpr (EXP) {
                frag_dots<0>(K, xs, P, nxs, lane);
                __syncwarp();
            }
            /* then the lane's point */
            float um[CP];
            if (lane < npw) {
                float dd[CP], u[CP], f;
                distances<DR, CP, 0>(A, K, xrow, prow, EXP ? nxs[lane] : 0.f, dd);
                if (PREV != PREV_NONE) { /* J(U(k-1), V(k)) of the point */
                    float jp = 0.f;
#pragma unroll
                    for (int j = 0; j < CP; j++) jp = __fmaf_rn(pm[j] * pm[j], dd[j], jp);
                    jacc += (double)jp;
                }
                float dmin;
                if constexpr (EXP)
                    dmin = memberships<CP>(K.pad, dd, u, f);
                else
                    dmin = memberships<CP>(A.t.pad, dd, u, f);
                jsacc += (double)(dmin * f);
                if (PREV != PREV_NONE) {
                    float du = 0.f;
#pragma unroll
                    for (int j = 0; j < CP; j++) {
                        const float e = u[j] - pm[j];
                        du = __fmaf_rn(e, e, du);
                    }
                    duacc += (double)du;
                }
                if (u_keep) {
                    float *uk = u_keep + (A.i0 + tile0) * c + wp * WPTS + lane;
#pragma unroll
                    for (int j = 0; j < CP; j++)
                        if (A.cmask >> j & 1) uk[(size_t)j * TILE] = u[j];
                }
#pragma unroll
                for (int j = 0; j < CP; j++) um[j] = u[j] * u[j];
            } else {
#pragma unroll
                for (int j = 0; j < CP; j++) um[j] = 0.f;
            }
            __syncwarp(); /* every lane done with the rows of P (dot products) */
            {
                float row[CP];
#pragma unroll
                for (int j = 0; j < CP; j++) row[p_col<DR, CP>(j)] = um[j];
#pragma unroll
                for (int q = 0; q < NCP; q++)
                    *(float4 *)(prow + 4 * q) =
                        make_float4(row[4 * q], row[4 * q + 1], row[4 * q + 2], row[4 * q + 3]);
            }
            __syncwarp();

            if constexpr (EXP) {
                /* phase 2 on the tensor cores: S[j][k] += sum_p u^m[p][j] x'[p][k],
                 * M = clusters (16, rows g and g + 8), N = features, K = points */
                float acc[NT][4], sg[NT]; /* sg: the shift of the lane's feature per n tile */
#pragma unroll
                for (int nt = 0; nt < NT; nt++) sg[nt] = K.s[8 * nt + g];
#pragma unroll
                for (int nt = 0; nt < NT; nt++)
#pragma unroll
                    for (int i = 0; i < 4; i++) acc[nt][i] = 0.f;
#pragma unroll 1
                for (int ks = 0; ks < WPTS / 8; ks++) {
                    const float *r0 = P + (8 * ks + t4) * SP, *r1 = r0 + 4 * SP;
                    float av[4];
                    if (CP == 16) {
                        const float2 lo = *(const float2 *)(r0 + 2 * g),
                                     hi = *(const float2 *)(r1 + 2 * g);
                        av[0] = lo.x, av[1] = lo.y, av[2] = hi.x, av[3] = hi.y;
                    } else {
                        const bool in = CP == 8 || g < CP;
                        av[0] = in ? r0[g] : 0.f, av[2] = in ? r1[g] : 0.f;
                        av[1] = av[3] = 0.f;
                    }
                    uint32_t ah[4], al[4];
#pragma unroll
                    for (int i = 0; i < 4; i++) split_tf32(av[i], ah[i], al[i]);
                    const float *x0 = xs + (8 * ks + t4) * SX + g, *x1 = x0 + 4 * SX;
#pragma unroll
                    for (int nt = 0; nt < NT; nt++) {
                        uint32_t bh0, bl0, bh1, bl1;
                        split_tf32(x0[8 * nt] - sg[nt], bh0, bl0);
                        split_tf32(x1[8 * nt] - sg[nt], bh1, bl1);
                        mma_tf32(acc[nt], al, bh0, bh1);
                        mma_tf32(acc[nt], ah, bl0, bl1);
                        mma_tf32(acc[nt], ah, bh0, bh1);
                    }
                }
#pragma unroll
                for (int nt = 0; nt < NT; nt++)
#pragma unroll
                    for (int i = 0; i < 4; i++) dacc[nt * 4 + i] += (double)acc[nt][i];
            } else {
                /* phase 2 by FMA: 4 clusters x 4 coordinates per lane, NS lanes
                 * per entry block splitting the points */
#pragma unroll
                for (int i = 0; i < WPTS / NS; i++) {
                    const float4 a4 = ld4(pa + i * NS * SP), x4 = ld4(xa + i * NS * SX);
                    const float a[4] = {a4.x, a4.y, a4.z, a4.w}, x[4] = {x4.x, x4.y, x4.z, x4.w};
#pragma unroll
                    for (int u = 0; u < 4; u++)
#pragma unroll
                        for (int r = 0; r < 4; r++)
                            accf[u * 4 + r] = __fmaf_rn(a[u], x[r], accf[u * 4 + r]);
                }
                /* to double after 32 products per lane */
                if (++nrun == NS) {
#pragma unroll
                    for (int r = 0; r < 16; r++) dacc[r] += (double)accf[r], accf[r] = 0.f;
                    nrun = 0;
                }
            }
            /* the column sums of u^m, NSC lanes per column */
            {
                float s = 0.f;
#pragma unroll
                for (int i = 0; i < WPTS / NSC; i++) s += pc[i * NSC * SP];
                colacc += (double)s;
            }
            __syncwarp();
        }
        /* the group's sums: the warps in order, through their (now dead) rows */
        {
            double *stg = (double *)(wbase + (size_t)wp * WB);
#pragma unroll
            for (int r = 0; r < 16; r++) stg[r * 32 + lane] = dacc[r] + (double)accf[r];
            stg[16 * 32 + lane] = colacc;
            haze__fcm_warp_scalars(red, NWARP, wp, lane, jacc, duacc, jsacc);
        }
        __syncthreads();
        double *row = A.rows + (A.g0 + grp) * A.stride;
        for (size_t e = tid; e < nv; e += TILE) {
            const int j = (int)(e / d), k = (int)(e - (size_t)j * d);
            double s = 0;
            if (EXP) { /* the accumulator fragment that holds (j, k) */
                const int n = k & 7;
                const int r = (k >> 3) * 4 + (j >> 3) * 2 + (n & 1), ln = (j & 7) * 4 + (n >> 1);
#pragma unroll
                for (int w = 0; w < NWARP; w++)
                    s += ((const double *)(wbase + (size_t)w * WB))[r * 32 + ln];
            } else {
                const int b = (j >> 2) * NCX + (k >> 2), r = (j & 3) * 4 + (k & 3);
#pragma unroll
                for (int w = 0; w < NWARP; w++) {
                    const double *stg = (const double *)(wbase + (size_t)w * WB);
#pragma unroll
                    for (int q = 0; q < NS; q++) s += stg[r * 32 + q * NEB + b];
                }
            }
            row[e] = s;
        }
        if (tid < c) {
            double s = 0;
#pragma unroll
            for (int w = 0; w < NWARP; w++) {
                const double *stg = (const double *)(wbase + (size_t)w * WB);
#pragma unroll
                for (int q = 0; q < NSC; q++) s += stg[16 * 32 + q * CP + tid];
            }
            row[nv + tid] = s;
        }
        haze__fcm_group_scalars(row + nv + c, red, NWARP, tid);
        __syncthreads();
    }
#endif
}

/* The expanded form's tables from V (c x d doubles), Vp (the previous
 * centres, or NULL: zeros) and the shift (d doubles, each a float), by the
 * block that calls it (blockDim.x threads): v' = v - s, -2 v' and |v'|^2 in
 * double, each rounded once to float, every operation written out so that
 * no FMA contracts it. The inputs are staged in shared memory first (sv:
 * 2 CP DR + DR doubles), so that the serial sums of |v'|^2 wait on no
 * global load. */
template <int DR, int CP>
static __device__ void build_tables(shape_tables<DR, CP> *__restrict__ T, const double *v,
                                    const double *vp, const double *shift, int d, int c,
                                    double *sv) {
    double *ss = sv + 2 * CP * DR;
    for (int i = threadIdx.x; i < 2 * CP * DR; i += blockDim.x) {
        const int o = i / (CP * DR), r = i - o * CP * DR, j = r / DR, k = r - j * DR;
        const double *vv = o == 0 ? v : vp;
        sv[i] = vv && j < c && k < d ? vv[j * d + k] : 0.0;
    }
    for (int k = threadIdx.x; k < DR; k += blockDim.x)
        ss[k] = k < d ? (double)(float)shift[k] : 0.0;
    __syncthreads();
    for (int i = threadIdx.x; i < 2 * CP * DR; i += blockDim.x) {
        const int o = i / (CP * DR), r = i - o * CP * DR, j = r / DR, k = r - j * DR;
        const bool in = (o == 0 ? v : vp) && j < c && k < d;
        const double vs = in ? __dsub_rn(sv[i], ss[k]) : 0.0;
        T->v[o][r] = (float)sv[i];
        T->w[o][r] = (float)__dmul_rn(-2.0, vs);
    }
    for (int k = threadIdx.x; k < DR; k += blockDim.x) T->s[k] = (float)ss[k];
    for (int i = threadIdx.x; i < 2 * CP; i += blockDim.x) {
        const int o = i / CP, j = i - o * CP;
        const bool in = (o == 0 ? v : vp) && j < c;
        double n2 = 0;
        for (int k = 0; k < DR; k++) {
            const double vs = in && k < d ? __dsub_rn(sv[o * CP * DR + j * DR + k], ss[k]) : 0.0;
            n2 = __dadd_rn(n2, __dmul_rn(vs, vs));
        }
        T->nv[o][j] = (float)n2;
        if (o == 0) T->pad[j] = j < c ? 0.f : INFINITY;
    }
}

template <int DR, int CP>
static __global__ void tables_kernel(shape_tables<DR, CP> *T, const double *v, const double *vp,
                                     const double *shift, int d, int c) {
    __shared__ double sv[2 * CP * DR + DR];
    build_tables(T, v, vp, shift, d, c, sv);
}

/* The step between two passes on the device: the sums of the pass (stride
 * doubles, those of u^m x taken about the shift) copied to out, the next
 * centres v_next = (S1 + s S0) / S0 as the host forms them (fcm_cuda.cu adds
 * the shift back, fcm.c divides), then the tables of the next pass from
 * v_next and v (its previous centres). One block. */
template <int DR, int CP>
static __global__ void next_kernel(shape_tables<DR, CP> *T, double *v_next, double *out,
                                   const double *sums, const double *v, const double *shift, int d,
                                   int c, size_t stride) {
    __shared__ double sv[2 * CP * DR + DR];
    const size_t nv = (size_t)c * d;
    for (size_t e = threadIdx.x; e < stride; e += blockDim.x) {
        const double x = sums[e];
        out[e] = x;
        if (e < nv) {
            const int j = (int)(e / d), k = (int)(e - (size_t)j * d);
            const double w = sums[nv + j];
            v_next[e] = __ddiv_rn(__dadd_rn(x, __dmul_rn(shift[k], w)), w);
        }
    }
    __syncthreads(); /* v_next written by this block: visible to it after the barrier */
    build_tables(T, v_next, v, shift, d, c, sv);
}

template <int DR, int CP> static size_t tables_bytes_t() {
    return expanded(DR) ? sizeof(shape_tables<DR, CP>) : 0;
}
template <int DR, int CP>
static cudaError_t tables_t(void *T, const double *v, const double *vp, const double *shift, int d,
                            int c, cudaStream_t st) {
    if constexpr (!expanded(DR)) {
        return cudaErrorInvalidValue;
    } else {
        tables_kernel<DR, CP><<<1, 128, 0, st>>>((shape_tables<DR, CP> *)T, v, vp, shift, d, c);
        return cudaGetLastError();
    }
}
template <int DR, int CP>
static cudaError_t next_t(void *T, double *v_next, double *out, const double *sums, const double *v,
                          const double *shift, int d, int c, size_t stride, cudaStream_t st) {
    if constexpr (!expanded(DR)) {
        return cudaErrorInvalidValue;
    } else {
        next_kernel<DR, CP><<<1, 256, 0, st>>>((shape_tables<DR, CP> *)T, v_next, out, sums, v,
                                               shift, d, c, stride);
        return cudaGetLastError();
    }
}

static int shape_dr(size_t d) {
    return d <= 4 ? 4 : d <= 8 ? 8 : d <= 16 ? 16 : d <= 32 ? 32 : 0;
}
static int shape_cp(size_t c) {
    return c <= 4 ? 4 : c <= 8 ? 8 : c <= 16 ? 16 : 0;
}

/* One instance: its shared-memory limit, or its launch. */
template <int DR, int CP, int PREV> static cudaError_t prepare_prev() {
    return cudaFuncSetAttribute(shape_kernel<DR, CP, PREV>,
                                cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)smem_bytes<DR, CP, PREV>());
}
template <int DR, int CP, int PREV>
static void launch_prev(const shape_params<DR, CP> &A, unsigned blocks, cudaStream_t st) {
    shape_kernel<DR, CP, PREV><<<blocks, TILE, smem_bytes<DR, CP, PREV>(), st>>>(A);
}

template <int DR, int CP> static cudaError_t prepare_t() {
    cudaError_t e = prepare_prev<DR, CP, PREV_NONE>();
    if (e == cudaSuccess) e = prepare_prev<DR, CP, PREV_KEPT>();
    if (e == cudaSuccess) e = prepare_prev<DR, CP, PREV_MIXED>();
    return e;
}

template <int DR, int CP>
static cudaError_t launch_t(const haze__fcm_shape_args *a, cudaStream_t st) {
    shape_params<DR, CP> A;
    const int d = a->d, c = a->c;
    A.x = a->x, A.i0 = a->i0, A.np = a->np, A.g0 = a->g0, A.ngrp = a->ngrp;
    A.d = d, A.c = c, A.G = a->G;
    A.vec = d == DR && ((size_t)a->x & 15) == 0;
    A.cmask = (int)((1u << c) - 1u);
    A.keep8 = a->u_keep ? a->keep8 : 0;
    A.u_keep = a->u_keep;
    A.u_prev = a->u_prev;
    A.rows = a->rows;
    A.stride = a->stride;
    const int prev = !a->want_du ? PREV_NONE : a->u_prev && A.keep8 >= 8 ? PREV_KEPT : PREV_MIXED;
    if constexpr (expanded(DR)) {
        A.tab = (const shape_tables<DR, CP> *)a->tab;
    } else { /* the direct form reads the centres (float) and the padding only */
        A.tab = NULL;
        for (int o = 0; o < 2; o++) {
            const double *v = o == 0 ? a->v : prev == PREV_MIXED ? a->vp : NULL;
            for (int j = 0; j < CP; j++)
                for (int k = 0; k < DR; k++) {
                    const int in = v && j < c && k < d;
                    A.t.v[o][j * DR + k] = in ? (float)v[j * d + k] : 0.f;
                }
        }
        for (int j = 0; j < CP; j++) A.t.pad[j] = j < c ? 0.f : INFINITY;
    }
    const unsigned blocks = (unsigned)a->ngrp;
    if (prev == PREV_NONE)
        launch_prev<DR, CP, PREV_NONE>(A, blocks, st);
    else if (prev == PREV_KEPT)
        launch_prev<DR, CP, PREV_KEPT>(A, blocks, st);
    else
        launch_prev<DR, CP, PREV_MIXED>(A, blocks, st);
    return cudaGetLastError();
}

/* Every (DR, CP) instance through one switch: CALL(DR, CP). */
#define SHAPE_DISPATCH(dr, cp, CALL)                                                               \
    switch ((dr)*100 + (cp)) {                                                                     \
    case 404:                                                                                      \
        return CALL(4, 4);                                                                         \
    case 408:                                                                                      \
        return CALL(4, 8);                                                                         \
    case 416:                                                                                      \
        return CALL(4, 16);                                                                        \
    case 804:                                                                                      \
        return CALL(8, 4);                                                                         \
    case 808:                                                                                      \
        return CALL(8, 8);                                                                         \
    case 816:                                                                                      \
        return CALL(8, 16);                                                                        \
    case 1604:                                                                                     \
        return CALL(16, 4);                                                                        \
    case 1608:                                                                                     \
        return CALL(16, 8);                                                                        \
    case 1616:                                                                                     \
        return CALL(16, 16);                                                                       \
    case 3204:                                                                                     \
        return CALL(32, 4);                                                                        \
    case 3208:                                                                                     \
        return CALL(32, 8);                                                                        \
    case 3216:                                                                                     \
        return CALL(32, 16);                                                                       \
    default:                                                                                       \
        return cudaErrorInvalidValue;                                                              \
    }

static cudaError_t prepare_any(size_t d, size_t c) {
#define PREP(dr, cp) prepare_t<dr, cp>()
    SHAPE_DISPATCH(shape_dr(d), shape_cp(c), PREP)
#undef PREP
}

static cudaError_t tables_any(void *tab, const double *v, const double *vp, const double *shift,
                              size_t d, size_t c, cudaStream_t st) {
#define TABLES(dr, cp) tables_t<dr, cp>(tab, v, vp, shift, (int)d, (int)c, st)
    SHAPE_DISPATCH(shape_dr(d), shape_cp(c), TABLES)
#undef TABLES
}

static cudaError_t next_any(void *tab, double *v_next, double *sums_out, const double *sums,
                            const double *v, const double *shift, size_t d, size_t c, size_t stride,
                            cudaStream_t st) {
#define NEXT(dr, cp)                                                                               \
    next_t<dr, cp>(tab, v_next, sums_out, sums, v, shift, (int)d, (int)c, stride, st)
    SHAPE_DISPATCH(shape_dr(d), shape_cp(c), NEXT)
#undef NEXT
}

static cudaError_t launch_any(const haze__fcm_shape_args *a, cudaStream_t st) {
#define LAUNCH(dr, cp) launch_t<dr, cp>(a, st)
    SHAPE_DISPATCH(shape_dr((size_t)a->d), shape_cp((size_t)a->c), LAUNCH)
#undef LAUNCH
}

extern "C" int haze__fcm_shape_covers(const cudaDeviceProp *prop, size_t d, size_t c) {
    /* the kernel's TF32 tensor-core products need compute capability 8.0 */
    return prop->major >= 8 && shape_dr(d) && shape_cp(c);
}

extern "C" int haze__fcm_shape_prepare(haze_ctx *ctx, size_t d, size_t c) {
    HAZE_CUDA_TRY(ctx, prepare_any(d, c));
    return HAZE_OK;
}

/* Measured on an H100 (docs/fcm.md): 6 of 8 groups keeping U at 32 x 16, 5 at
 * 16 x 16 and 8 x 8 (each 10-20% faster than keeping all or none); 5 for
 * the shapes not measured. */
extern "C" int haze__fcm_shape_keep8(size_t d, size_t c) {
    return shape_dr(d) == 32 && shape_cp(c) == 16 ? 6 : 5;
}

extern "C" int haze__fcm_shape_shifts(size_t d) {
    return expanded(shape_dr(d));
}

extern "C" size_t haze__fcm_shape_tables_bytes(size_t d, size_t c) {
    if (!shape_dr(d) || !shape_cp(c)) return 0;
#define BYTES(dr, cp) tables_bytes_t<dr, cp>()
    SHAPE_DISPATCH(shape_dr(d), shape_cp(c), BYTES)
#undef BYTES
}

extern "C" int haze__fcm_shape_tables(haze_ctx *ctx, void *tab, const double *v, const double *vp,
                                      const double *shift, size_t d, size_t c, cudaStream_t st) {
    HAZE_CUDA_TRY(ctx, tables_any(tab, v, vp, shift, d, c, st));
    return HAZE_OK;
}

extern "C" int haze__fcm_shape_next(haze_ctx *ctx, void *tab, double *v_next, double *sums_out,
                                    const double *sums, const double *v, const double *shift,
                                    size_t d, size_t c, size_t stride, cudaStream_t st) {
    HAZE_CUDA_TRY(ctx, next_any(tab, v_next, sums_out, sums, v, shift, d, c, stride, st));
    return HAZE_OK;
}

extern "C" int haze__fcm_shape_launch(haze_ctx *ctx, const haze__fcm_shape_args *a,
                                      cudaStream_t st) {
    HAZE_CUDA_TRY(ctx, launch_any(a, st));
    return HAZE_OK;
}
