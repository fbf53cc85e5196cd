/*
 * src/fcm/fcm_cuda.cu - the fuzzy c-means pass on a CUDA device.
 *
 * Anderson, Luke and Keller (IEEE TFS 16(4), 2008, Sec. IV) ran six GPU
 * programs per iteration (distances, memberships, u^q x, two reductions and
 * a division) because 2008 shaders could not do more. Here one kernel reads
 * each point once per iteration and computes its distances, its previous
 * and new memberships (max-rescaled equation (1)), its share of the
 * objective, and adds u^m x and u^m into per-group partial sums; a tree of
 * fixed shape then reduces the groups. The partial-sum layout (tiles of
 * TILE points, groups of G tiles, reduction fan-in RFAN) depends only on
 * n, d and c, never on the grid size, the chunking or the device, so the
 * result is the same on every run.
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

enum { MODE_CENTRES = 0, MODE_FULL = 1, MODE_COV = 2 };

template <typename T> struct pass_args {
    const T *x;      /* this chunk's points */
    size_t i0, np;   /* global index of the chunk's first point, points in the chunk */
    size_t g0, ngrp; /* global index of the chunk's first group, groups in the chunk */
    int d, c, G, mode, src, use_smem;
    double m;
    T e; /* 1 / (m - 1) */
    const T *v, *a, *vp, *ap;
    uint64_t seed;
    const double *u0; /* chunk-relative n x c, SRC_MEMORY */
    double *u_out;    /* chunk-relative n x c, or NULL */
    double *rows;     /* ngroups x stride */
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
                        sc[HAZE__FCM_PC] = add(sc[HAZE__FCM_PC], mul((double)u, (double)u));
                        if (u > 0)
                            sc[HAZE__FCM_PE] =
                                add(sc[HAZE__FCM_PE], -mul((double)u, log((double)u)));
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
    cudaFree(g->rows);
    cudaFree(g->dv);
    cudaFree(g->dvp);
    cudaFree(g->da);
    cudaFree(g->dap);
    cudaFree(g->scratch);
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
    size_t G = ntiles / 2048;
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

    size_t nq = (g->ngroups + RFAN - 1) / RFAN;
    size_t fixed = g->ngroups * g->stride_max * 8 + 2 * nq * g->stride_max * 8 +
                   (2 * c * d + (g->gk ? 2 * c * d * d : 0)) * ts;
    if (!g->use_smem) fixed += (size_t)SCRATCH_BLOCKS * TS * (d + 2 * c) * ts;
    size_t per_pt = d * ts + 2 * c * sizeof(double);
    size_t budget = haze__cuda_budget(g->ctx);
    if (fixed + n * per_pt <= budget) {
        g->resident = 1;
        g->chunk = g->ngroups * g->gpts;
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

/* Copies a double matrix to the device in T. */
template <typename T> static int upload(haze__fcm_gpu *g, void *dst, const double *src, size_t k) {
    T *tmp = (T *)malloc(k * sizeof(T));
    if (!tmp) return haze__error(g->ctx, HAZE_ERR_NOMEM, "fcm: out of memory");
    for (size_t i = 0; i < k; i++) tmp[i] = (T)src[i];
    cudaError_t e =
        cudaMemcpyAsync(dst, tmp, k * sizeof(T), cudaMemcpyHostToDevice, haze__stream(g->ctx));
    if (e == cudaSuccess) e = cudaStreamSynchronize(haze__stream(g->ctx));
    free(tmp);
    if (e != cudaSuccess)
        return haze__error(g->ctx, HAZE_ERR_CUDA, "CUDA: upload of centres: %s",
                           cudaGetErrorString(e));
    return HAZE_OK;
}

template <typename T> static int pass_t(haze__fcm_gpu *g, haze__fcm_pass *p) {
    const size_t n = g->n, d = g->d, c = g->c, ts = sizeof(T);
    const int mode = p->cov ? MODE_COV : p->v ? MODE_FULL : MODE_CENTRES;
    const size_t stride = haze__fcm_stride(c, d, p->cov);
    cudaStream_t st = haze__stream(g->ctx);
    int rc;
    if (p->v && (rc = upload<T>(g, g->dv, p->v, c * d))) return rc;
    if (p->a && (rc = upload<T>(g, g->da, p->a, c * d * d))) return rc;
    if (p->src == HAZE__FCM_SRC_CENTERS) {
        if ((rc = upload<T>(g, g->dvp, p->vp, c * d))) return rc;
        if (p->ap && (rc = upload<T>(g, g->dap, p->ap, c * d * d))) return rc;
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
    TRY(cudaMemsetAsync(g->rows, 0, g->ngroups * stride * sizeof(double), st));

    pass_args<T> A;
    memset(&A, 0, sizeof A);
    A.d = (int)d, A.c = (int)c, A.G = (int)g->G, A.mode = mode, A.src = p->src;
    A.use_smem = g->use_smem;
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
        if (!g->use_smem && blocks > SCRATCH_BLOCKS) blocks = SCRATCH_BLOCKS;
        pass_kernel<T><<<(unsigned)blocks, TILE, g->smem, st>>>(A);
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
    return HAZE_OK;
}

extern "C" int haze__fcm_pass_cuda(haze_ctx *ctx, haze__fcm_gpu *g, haze__fcm_pass *p) {
    (void)ctx;
    return g->single ? pass_t<float>(g, p) : pass_t<double>(g, p);
}
