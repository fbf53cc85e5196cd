/*
 * src/fcm/fcm_cuda_shape.cu - the Euclidean fuzzy c-means iteration in
 * float32 with the fuzzifier m = 2, compiled for a fixed shape: d <= DR
 * features (4, 8, 16 or 32) and c <= CP clusters (4, 8 or 16).
 *
 * It computes what the fast kernel of fcm_cuda.cu computes in the steady
 * iterations (source: the previous centres), with the same tiles, groups and
 * partial-sum rows, but with every loop over clusters and features unrolled:
 *
 * - the centres V(k) (and V(k-1)) are kernel parameters, so the distance
 *   terms (x_k - v_jk)^2 read them straight from the constant bank as FADD
 *   operands: two instructions per term, no load;
 * - a lane's distances, weights and memberships stay in registers, and its
 *   point is read four coordinates at a time, once, for all c distances;
 * - the run's points and its u^m are staged in shared memory in rows of an
 *   odd number of 16-byte chunks, so that the lane-per-point accesses of
 *   phase 1 and the entry-per-lane reads of phase 2 (one row, distinct
 *   chunks) are free of bank conflicts, at addresses fixed per lane;
 * - what U(k-1) needs (nothing, the kept copy, or a recomputation from the
 *   previous centres) is a template parameter, so each instance holds only
 *   its own code.
 *
 * Padded centres (c <= j < CP) get the distance +inf (weight 0): they change
 * no membership and no sum.
 */
#include <cuda_runtime.h>
#include <math.h>

#include "fcm/fcm_cuda.h"
#include "fcm/fcm_internal.h"

#define TILE HAZE__FCM_TILE
#define WPTS HAZE__FCM_WPTS
#define NWARP (TILE / 32)

namespace {

/* What a pass needs of U(k-1): nothing (the objective's stopping rule), the
 * copy kept on the device by the previous pass, or a recomputation from the
 * previous centres. */
enum { PREV_NONE = 0, PREV_KEPT = 1, PREV_RECOMPUTE = 2 };

template <int DR, int CP> struct shape_params {
    const float *x;
    size_t i0, np, g0, ngrp;
    int d, c, G, vec;
    float *u_keep;
    const float *u_prev;
    double *rows;
    size_t stride;
    float pad[CP];     /* 0 for a centre, +inf for the padding: d_j + pad_j */
    float v[CP * DR];  /* V(k), zero-padded to CP x DR */
    float vp[CP * DR]; /* V(k-1), with PREV_RECOMPUTE */
};

/* Row strides in shared memory: a whole number of 16-byte chunks, and an odd
 * one, so that the 16-byte accesses of eight consecutive rows (a quarter
 * warp, one row per lane) hit distinct banks. */
__host__ __device__ constexpr int odd_chunks(int n) {
    return (n / 4) % 2 ? n : n + 4;
}

/* Squared distances of the point in row p of xs (row stride SX) to the CP
 * centres in the constant bank (V = A.v, or A.vp with OLD), accumulated in
 * order of the coordinates. */
template <int DR, int CP, bool OLD>
__device__ __forceinline__ void distances(const shape_params<DR, CP> &A, const float *xrow,
                                          float (&dd)[CP]) {
#pragma unroll
    for (int j = 0; j < CP; j++) dd[j] = 0.f;
#pragma unroll
    for (int q = 0; q < DR / 4; q++) {
        const float4 x4 = *(const float4 *)(xrow + 4 * q);
        const float xv[4] = {x4.x, x4.y, x4.z, x4.w};
#pragma unroll
        for (int j = 0; j < CP; j++)
#pragma unroll
            for (int r = 0; r < 4; r++) {
                const float t = xv[r] - (OLD ? A.vp : A.v)[j * DR + 4 * q + r];
                dd[j] = __fmaf_rn(t, t, dd[j]);
            }
    }
}

/* The max-rescaled memberships for m = 2 of the distances dd (padding
 * included): u_j = w_j f with w_j = d_min / d'_j, d'_j = d_j + pad_j (the
 * padding at +inf gets w = 0) and f = 1 / sum w; a point on z centres gets
 * u = 1/z there and 0 elsewhere. Returns d_min. Rounds as the fast kernel's
 * memb_w: w by one reciprocal and a product (within 2 ulps) where d_min and
 * d_max are normal and below 2^126 (d_max taken over the unpadded distances,
 * which only makes the test stricter), else by the division. */
template <int DR, int CP>
__device__ __forceinline__ float memberships(const shape_params<DR, CP> &A, const float (&dd)[CP],
                                             float (&u)[CP], float &f) {
    float dp[CP];
#pragma unroll
    for (int j = 0; j < CP; j++) dp[j] = dd[j] + A.pad[j];
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
        for (int j = 0; j < CP; j++) u[j] = __fdividef(dmin, dp[j]);
    } else {
#pragma unroll
        for (int j = 0; j < CP; j++) u[j] = dmin / dp[j];
    }
#pragma unroll
    for (int j = 0; j < CP; j++) sum += u[j];
    f = 1.f / sum;
#pragma unroll
    for (int j = 0; j < CP; j++) u[j] *= f;
    return dmin;
}

__device__ inline double warp_sum(double v) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    return v;
}

/* Bytes of shared memory per warp: its run of points and its u^m rows, or,
 * at the end of a group, its 16 x 32 double accumulators and 32 column sums,
 * whichever is larger. */
__host__ __device__ constexpr size_t warp_bytes(int dr, int cp) {
    return (size_t)WPTS * (odd_chunks(dr) + odd_chunks(cp)) * 4 > (16 * 32 + 32) * 8
               ? (size_t)WPTS * (odd_chunks(dr) + odd_chunks(cp)) * 4
               : (size_t)(16 * 32 + 32) * 8;
}
__host__ __device__ constexpr size_t smem_bytes(int dr, int cp) {
    return HAZE__FCM_NSCALAR * NWARP * 8 + NWARP * warp_bytes(dr, cp);
}

template <int DR, int CP, int PREV>
__global__ void __launch_bounds__(TILE)
    shape_kernel(const __grid_constant__ shape_params<DR, CP> A) {
    extern __shared__ __align__(16) double smem_s[];
    constexpr int NCX = DR / 4, NCP = CP / 4;
    constexpr int SX = odd_chunks(DR), SP = odd_chunks(CP);
    constexpr int NEB = NCX * NCP; /* 4 x 4 entry blocks of the c x d sums */
    constexpr int NS = 32 / NEB;   /* lanes per entry block, splitting the points */
    constexpr int NSC = 32 / CP;   /* lanes per column sum */
    const int tid = threadIdx.x, lane = tid & 31, wp = tid >> 5, d = A.d, c = A.c;
    double *red = smem_s; /* NSCALAR x NWARP */
    char *wbase = (char *)(red + HAZE__FCM_NSCALAR * NWARP);
    float *xs = (float *)(wbase + (size_t)wp * warp_bytes(DR, CP)); /* WPTS x SX */
    float *P = xs + WPTS * SX;                                         /* WPTS x SP: u^m */
    const int eb = lane % NEB, sl = lane / NEB, jb = eb / NCX, kb = eb % NCX;
    /* per-lane bases of the fixed access patterns */
    float *const xrow = xs + lane * SX, *const prow = P + lane * SP;
    float *const xst = xs + (lane / NCX) * SX + 4 * (lane % NCX); /* staging, + r (32/NCX) SX */
    const float *const pa = P + sl * SP + 4 * jb, *const xa = xs + sl * SX + 4 * kb;
    const float *const pc = P + (lane / CP) * SP + (lane % CP);
    const size_t nv = (size_t)c * d;

    for (size_t grp = blockIdx.x; grp < A.ngrp; grp += gridDim.x) {
        double dacc[16], colacc = 0, jacc = 0, duacc = 0, jsacc = 0;
        float accf[16];
#pragma unroll
        for (int r = 0; r < 16; r++) dacc[r] = 0, accf[r] = 0.f;
        int nrun = 0;
        for (int t = 0; t < A.G; t++) {
            const size_t tile0 = (grp * A.G + t) * TILE; /* chunk-relative */
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
            if (t + 1 < A.G) { /* the warp's next run, and its kept memberships, into L2 */
                const size_t t1 = (grp * A.G + t + 1) * TILE, p1 = t1 + (size_t)wp * WPTS;
                if (p1 < A.np) {
                    const size_t nb = (A.np - p1 < WPTS ? A.np - p1 : WPTS) * d * sizeof(float);
                    const char *b = (const char *)(A.x + p1 * d);
                    for (size_t o = (size_t)lane * 128; o < nb; o += 32 * 128)
                        asm volatile("prefetch.global.L2 [%0];" ::"l"(b + o));
                    if (PREV == PREV_KEPT && lane < c)
                        asm volatile("prefetch.global.L2 [%0];" ::"l"(
                            A.u_prev + (A.i0 + t1) * c + (size_t)lane * TILE + wp * WPTS));
                }
            }
            __syncwarp();

            /* phase 1: the lane's point */
            float um[CP];
            if (lane < npw) {
                float dd[CP], u[CP], f;
                distances<DR, CP, false>(A, xrow, dd);
                float pm[CP];
                if (PREV != PREV_NONE) { /* U(k-1) of the point */
                    if (PREV == PREV_KEPT) {
                        const float *up = A.u_prev + (A.i0 + tile0) * c + wp * WPTS + lane;
#pragma unroll
                        for (int j = 0; j < CP; j++) pm[j] = j < c ? up[(size_t)j * TILE] : 0.f;
                    } else {
                        float d0[CP], f0;
                        distances<DR, CP, true>(A, xrow, d0);
                        memberships<DR, CP>(A, d0, pm, f0);
                    }
                    float jp = 0.f;
#pragma unroll
                    for (int j = 0; j < CP; j++) jp = __fmaf_rn(pm[j] * pm[j], dd[j], jp);
                    jacc += (double)jp;
                }
                const float dmin = memberships<DR, CP>(A, dd, u, f);
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
                if (A.u_keep) {
                    float *uk = A.u_keep + (A.i0 + tile0) * c + wp * WPTS + lane;
#pragma unroll
                    for (int j = 0; j < CP; j++)
                        if (j < c) uk[(size_t)j * TILE] = u[j];
                }
#pragma unroll
                for (int j = 0; j < CP; j++) um[j] = u[j] * u[j];
            } else {
#pragma unroll
                for (int j = 0; j < CP; j++) um[j] = 0.f;
            }
#pragma unroll
            for (int q = 0; q < NCP; q++)
                *(float4 *)(prow + 4 * q) =
                    make_float4(um[4 * q], um[4 * q + 1], um[4 * q + 2], um[4 * q + 3]);
            __syncwarp();

            /* phase 2: u^m x over the run, 4 clusters x 4 coordinates per lane,
             * NS lanes per entry block splitting the points */
#pragma unroll
            for (int i = 0; i < WPTS / NS; i++) {
                const float4 a4 = *(const float4 *)(pa + i * NS * SP);
                const float4 x4 = *(const float4 *)(xa + i * NS * SX);
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
            double *stg = (double *)(wbase + (size_t)wp * warp_bytes(DR, CP));
#pragma unroll
            for (int r = 0; r < 16; r++) stg[r * 32 + lane] = dacc[r] + (double)accf[r];
            stg[16 * 32 + lane] = colacc;
            const double a = warp_sum(jacc), b = warp_sum(duacc), s = warp_sum(jsacc);
            if (lane == 0) {
                for (int q = 0; q < HAZE__FCM_NSCALAR; q++) red[q * NWARP + wp] = 0;
                red[HAZE__FCM_J * NWARP + wp] = a;
                red[HAZE__FCM_DU2 * NWARP + wp] = b;
                red[HAZE__FCM_JSELF * NWARP + wp] = s;
            }
        }
        __syncthreads();
        double *row = A.rows + (A.g0 + grp) * A.stride;
        for (size_t e = tid; e < nv; e += TILE) {
            const int j = (int)(e / d), k = (int)(e - (size_t)j * d);
            const int b = (j >> 2) * NCX + (k >> 2), r = (j & 3) * 4 + (k & 3);
            double s = 0;
#pragma unroll
            for (int w = 0; w < NWARP; w++) {
                const double *stg = (const double *)(wbase + (size_t)w * warp_bytes(DR, CP));
#pragma unroll
                for (int q = 0; q < NS; q++) s += stg[r * 32 + q * NEB + b];
            }
            row[e] = s;
        }
        if (tid < c) {
            double s = 0;
#pragma unroll
            for (int w = 0; w < NWARP; w++) {
                const double *stg = (const double *)(wbase + (size_t)w * warp_bytes(DR, CP));
#pragma unroll
                for (int q = 0; q < NSC; q++) s += stg[16 * 32 + q * CP + tid];
            }
            row[nv + tid] = s;
        }
        if (tid < HAZE__FCM_NSCALAR) {
            double s = 0;
            for (int w = 0; w < NWARP; w++) s += red[tid * NWARP + w];
            row[nv + c + tid] = s;
        }
        __syncthreads();
    }
}

int shape_dr(size_t d) {
    return d <= 4 ? 4 : d <= 8 ? 8 : d <= 16 ? 16 : d <= 32 ? 32 : 0;
}
int shape_cp(size_t c) {
    return c <= 4 ? 4 : c <= 8 ? 8 : c <= 16 ? 16 : 0;
}

template <int DR, int CP> cudaError_t prepare_t() {
    const cudaFuncAttribute at = cudaFuncAttributeMaxDynamicSharedMemorySize;
    const int sm = (int)smem_bytes(DR, CP);
    cudaError_t e = cudaFuncSetAttribute(shape_kernel<DR, CP, PREV_NONE>, at, sm);
    if (e == cudaSuccess) e = cudaFuncSetAttribute(shape_kernel<DR, CP, PREV_KEPT>, at, sm);
    if (e == cudaSuccess) e = cudaFuncSetAttribute(shape_kernel<DR, CP, PREV_RECOMPUTE>, at, sm);
    return e;
}

template <int DR, int CP>
cudaError_t launch_t(const haze__fcm_shape_args *a, cudaStream_t st) {
    shape_params<DR, CP> A;
    A.x = a->x, A.i0 = a->i0, A.np = a->np, A.g0 = a->g0, A.ngrp = a->ngrp;
    A.d = a->d, A.c = a->c, A.G = a->G;
    A.vec = a->d == DR && ((size_t)a->x & 15) == 0;
    A.u_keep = a->u_keep;
    A.u_prev = a->u_prev;
    A.rows = a->rows;
    A.stride = a->stride;
    const int prev = !a->want_du ? PREV_NONE : a->u_prev ? PREV_KEPT : PREV_RECOMPUTE;
    for (int j = 0; j < CP; j++) {
        A.pad[j] = j < a->c ? 0.f : INFINITY;
        for (int k = 0; k < DR; k++) {
            const int in = j < a->c && k < a->d;
            A.v[j * DR + k] = in ? (float)a->v[j * a->d + k] : 0.f;
            A.vp[j * DR + k] = in && prev == PREV_RECOMPUTE ? (float)a->vp[j * a->d + k] : 0.f;
        }
    }
    const dim3 grid((unsigned)a->ngrp), block(TILE);
    const size_t sm = smem_bytes(DR, CP);
    if (prev == PREV_NONE)
        shape_kernel<DR, CP, PREV_NONE><<<grid, block, sm, st>>>(A);
    else if (prev == PREV_KEPT)
        shape_kernel<DR, CP, PREV_KEPT><<<grid, block, sm, st>>>(A);
    else
        shape_kernel<DR, CP, PREV_RECOMPUTE><<<grid, block, sm, st>>>(A);
    return cudaGetLastError();
}

/* Every (DR, CP) instance through one switch: F<DR, CP>(args...). */
#define SHAPE_DISPATCH(dr, cp, CALL)                                                               \
    switch ((dr) * 100 + (cp)) {                                                                   \
    case 404: return CALL(4, 4);                                                                   \
    case 408: return CALL(4, 8);                                                                   \
    case 416: return CALL(4, 16);                                                                  \
    case 804: return CALL(8, 4);                                                                   \
    case 808: return CALL(8, 8);                                                                   \
    case 816: return CALL(8, 16);                                                                  \
    case 1604: return CALL(16, 4);                                                                 \
    case 1608: return CALL(16, 8);                                                                 \
    case 1616: return CALL(16, 16);                                                                \
    case 3204: return CALL(32, 4);                                                                 \
    case 3208: return CALL(32, 8);                                                                 \
    case 3216: return CALL(32, 16);                                                                \
    default: return cudaErrorInvalidValue;                                                         \
    }

} // namespace

extern "C" int haze__fcm_shape_covers(size_t d, size_t c) {
    return shape_dr(d) && shape_cp(c);
}

extern "C" cudaError_t haze__fcm_shape_prepare(size_t d, size_t c) {
#define PREP(dr, cp) prepare_t<dr, cp>()
    SHAPE_DISPATCH(shape_dr(d), shape_cp(c), PREP)
#undef PREP
}

extern "C" cudaError_t haze__fcm_shape_launch(const haze__fcm_shape_args *a, cudaStream_t st) {
#define LAUNCH(dr, cp) launch_t<dr, cp>(a, st)
    SHAPE_DISPATCH(shape_dr((size_t)a->d), shape_cp((size_t)a->c), LAUNCH)
#undef LAUNCH
}
