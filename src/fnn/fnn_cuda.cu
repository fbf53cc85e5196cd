/*
 * src/fnn/fnn_cuda.cu - SONFIN training and inference on the GPU with the
 * architecture-aware thread mapping (ATM) of seed 001, chapter 3, beside the
 * GPU-FNN baseline mapping it is compared with (Juang and Chen; one block
 * per rule, one thread per input).
 *
 * Partition (section 3.2, Fig. 10): Gaussian membership and firing strengths
 * (layers 2-3), the output layer and the parameter update run on the GPU;
 * the rule-creation decision stays on the CPU, which reads back only the
 * strongest firing per sample.
 * Task matrix (3.3): rules x inputs; layout (3.4): parameters rule-major and
 * contiguous along the input dimension, so neighbouring threads read
 * neighbouring inputs (coalesced).
 * Coarsening (3.5): column-based, a group of G lanes per rule where each lane
 * takes the inputs j, j+G, j+2G... (G = 32 is one task per lane per warp
 * row; smaller G coarsens more inputs into one thread); row-based, one warp
 * takes N rules k, k+p, ..., k+(N-1)p (p = ceil(R/N)) and reads each input
 * once for all of them. A configuration search times every candidate on the
 * actual device and caches the fastest per (inputs, rules rounded up to a
 * power of two, samples), skipping coarsenings that leave fewer tasks than
 * the device has cores (the thesis's bound on n).
 * Binding (3.6): the block size is the smallest that gives full occupancy
 * according to the device's own limits (cudaOccupancy*), found at run time.
 *
 * Arithmetic is double, like the CPU reference, so both backends train the
 * same network: only the order of the sums differs.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "fnn/fnn_internal.h"

static int g_mapping = HAZE__FNN_MAP_ATM;

void haze__fnn_cuda_set_mapping(int mapping) {
    g_mapping = mapping == HAZE__FNN_MAP_GPUFNN ? HAZE__FNN_MAP_GPUFNN : HAZE__FNN_MAP_ATM;
}

/* ---------------------------------------------------------------- kernels */

/* Column-based coarsening: G lanes per (sample, rule) row. */
template <int G>
__global__ void k_fire_col(const double *__restrict__ z, const int *__restrict__ idx, int B,
                           const double *__restrict__ m, const double *__restrict__ s, int R, int D,
                           double *__restrict__ lm) {
    long long gt = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long row = gt / G;
    int lane = (int)(gt % G);
    bool active = row < (long long)B * R;
    double acc = 0.0;
    if (active) {
        int i = (int)(row / R), k = (int)(row % R);
        const double *zi = z + (size_t)(idx ? idx[i] : i) * D;
        const double *mk = m + (size_t)k * D, *sk = s + (size_t)k * D;
        for (int j = lane; j < D; j += G) {
            double t = (zi[j] - mk[j]) / sk[j];
            acc += t * t;
        }
    }
    /* every lane of the warp reaches the shuffles (no early return) */
    for (int off = G / 2; off > 0; off >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, off, G);
    if (active && lane == 0) lm[row] = -acc;
}

/* Row-based coarsening: one warp per sample and N rules k0, k0+p, ... */
template <int N>
__global__ void k_fire_row(const double *__restrict__ z, const int *__restrict__ idx, int B,
                           const double *__restrict__ m, const double *__restrict__ s, int R, int D,
                           double *__restrict__ lm) {
    long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x & 31;
    int p = (R + N - 1) / N;
    bool active = warp < (long long)B * p;
    int i = active ? (int)(warp / p) : 0, k0 = active ? (int)(warp % p) : 0;
    double acc[N];
#pragma unroll
    for (int r = 0; r < N; r++) acc[r] = 0.0;
    if (active) {
        const double *zi = z + (size_t)(idx ? idx[i] : i) * D;
        for (int j = lane; j < D; j += 32) {
            double x = zi[j]; /* the common computation, done once for N rules */
#pragma unroll
            for (int r = 0; r < N; r++) {
                int k = k0 + r * p;
                if (k < R) {
                    double t = (x - m[(size_t)k * D + j]) / s[(size_t)k * D + j];
                    acc[r] += t * t;
                }
            }
        }
    }
#pragma unroll
    for (int r = 0; r < N; r++) {
        double a = acc[r];
        for (int off = 16; off > 0; off >>= 1) a += __shfl_down_sync(0xffffffffu, a, off);
        int k = k0 + r * p;
        if (active && lane == 0 && k < R) lm[(size_t)i * R + k] = -a;
    }
}

/* GPU-FNN baseline: block (k, i), one thread per input, shared-memory sum. */
__global__ void k_fire_base(const double *__restrict__ z, const int *__restrict__ idx,
                            const double *__restrict__ m, const double *__restrict__ s, int R,
                            int D, double *__restrict__ lm) {
    extern __shared__ double sh[];
    int k = blockIdx.x, i = blockIdx.y, j = threadIdx.x;
    const double *zi = z + (size_t)(idx ? idx[i] : i) * D;
    double t = (zi[j] - m[(size_t)k * D + j]) / s[(size_t)k * D + j];
    sh[j] = t * t;
    __syncthreads();
    for (int stride = 1; stride < D; stride *= 2) {
        if (j % (2 * stride) == 0 && j + stride < D) sh[j] += sh[j + stride];
        __syncthreads();
    }
    if (j == 0) lm[(size_t)i * R + k] = -sh[0];
}

#define RED_THREADS 256

/* Block-wide max with the lowest index among equal values (the CPU's argmax). */
__device__ void block_argmax(double *v, int *ix) {
    int t = threadIdx.x;
    for (int off = RED_THREADS / 2; off > 0; off >>= 1) {
        __syncthreads();
        if (t < off) {
            double a = v[t], b = v[t + off];
            if (b > a || (b == a && ix[t + off] < ix[t])) v[t] = b, ix[t] = ix[t + off];
        }
    }
    __syncthreads();
}

__device__ double block_sum(double *v) {
    int t = threadIdx.x;
    for (int off = RED_THREADS / 2; off > 0; off >>= 1) {
        __syncthreads();
        if (t < off) v[t] += v[t + off];
    }
    __syncthreads();
    double r = v[0];
    __syncthreads();
    return r;
}

/* Strongest rule per sample: best[i] = max_k lm, bestk[i] its index. */
__global__ void k_best(const double *__restrict__ lm, int R, double *best, int *bestk) {
    __shared__ double v[RED_THREADS];
    __shared__ int ix[RED_THREADS];
    int i = blockIdx.x;
    double b = -INFINITY;
    int bk = 0x7fffffff;
    for (int k = threadIdx.x; k < R; k += RED_THREADS) {
        double x = lm[(size_t)i * R + k];
        if (x > b) b = x, bk = k; /* k rises per thread: the first max is kept */
    }
    v[threadIdx.x] = b;
    ix[threadIdx.x] = bk;
    block_argmax(v, ix);
    if (threadIdx.x == 0) best[i] = v[0], bestk[i] = ix[0] == 0x7fffffff ? 0 : ix[0];
}

/* Layer 4 per sample: lm row -> phi (in place), out = y - d (d may be NULL). */
__global__ void k_normalise(double *__restrict__ lm, int R, const double *__restrict__ w, int L,
                            const double *__restrict__ d, const int *__restrict__ idx,
                            double *__restrict__ out) {
    __shared__ double v[RED_THREADS];
    __shared__ int ix[RED_THREADS];
    int i = blockIdx.x;
    double *row = lm + (size_t)i * R;
    double b = -INFINITY;
    for (int k = threadIdx.x; k < R; k += RED_THREADS) b = fmax(b, row[k]);
    v[threadIdx.x] = b;
    ix[threadIdx.x] = 0;
    block_argmax(v, ix);
    double mx = v[0];
    __syncthreads();
    double sum = 0.0;
    for (int k = threadIdx.x; k < R; k += RED_THREADS) {
        double t = row[k] - mx;
        double e = t < HAZE__FNN_LOG_CUTOFF ? 0.0 : exp(t);
        row[k] = e;
        sum += e;
    }
    v[threadIdx.x] = sum;
    sum = block_sum(v);
    for (int k = threadIdx.x; k < R; k += RED_THREADS) row[k] /= sum;
    __syncthreads();
    const double *di = d ? d + (size_t)(idx ? idx[i] : i) * L : NULL;
    for (int l = 0; l < L; l++) {
        double acc = 0.0;
        for (int k = threadIdx.x; k < R; k += RED_THREADS) acc += row[k] * w[(size_t)k * L + l];
        v[threadIdx.x] = acc;
        double y = block_sum(v);
        if (threadIdx.x == 0) out[(size_t)i * L + l] = di ? y - di[l] : y;
    }
}

/* g[i, k] = phi_ik sum_l e_il (w_kl - y_il), y = e + d. */
__global__ void k_g(const double *__restrict__ phi, const double *__restrict__ e,
                    const double *__restrict__ d, const int *__restrict__ idx,
                    const double *__restrict__ w, int B, int R, int L, double *__restrict__ g) {
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (long long)B * R) return;
    int i = (int)(t / R), k = (int)(t % R);
    const double *ei = e + (size_t)i * L, *di = d + (size_t)idx[i] * L, *wk = w + (size_t)k * L;
    double acc = 0.0;
    for (int l = 0; l < L; l++) acc += ei[l] * (wk[l] - (ei[l] + di[l]));
    g[t] = phi[t] * acc;
}

/* Centres and widths: one task per (rule, input), coalesced along inputs. */
__global__ void k_update_ms(const double *__restrict__ z, const int *__restrict__ idx,
                            const double *__restrict__ g, int B, int R, int D, double step,
                            double *__restrict__ m, double *__restrict__ s) {
    long long total = (long long)R * D;
    for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < total;
         t += (long long)gridDim.x * blockDim.x) {
        int k = (int)(t / D), j = (int)(t % D);
        double mj = m[t], sj = s[t], inv = 1.0 / sj, gm = 0.0, gs = 0.0;
        for (int i = 0; i < B; i++) {
            double diff = z[(size_t)idx[i] * D + j] - mj;
            double q = 2.0 * g[(size_t)i * R + k] * diff * inv * inv;
            gm += q;
            gs += q * diff * inv;
        }
        m[t] = mj - step * gm;
        double ns = sj - step * gs;
        s[t] = ns >= HAZE__FNN_SIGMA_MIN ? ns : HAZE__FNN_SIGMA_MIN;
    }
}

/* GPU-FNN baseline update: block per rule, thread per input. */
__global__ void k_update_ms_base(const double *__restrict__ z, const int *__restrict__ idx,
                                 const double *__restrict__ g, int B, int R, int D, double step,
                                 double *__restrict__ m, double *__restrict__ s) {
    int k = blockIdx.x, j = threadIdx.x;
    size_t t = (size_t)k * D + j;
    double mj = m[t], sj = s[t], inv = 1.0 / sj, gm = 0.0, gs = 0.0;
    for (int i = 0; i < B; i++) {
        double diff = z[(size_t)idx[i] * D + j] - mj;
        double q = 2.0 * g[(size_t)i * R + k] * diff * inv * inv;
        gm += q;
        gs += q * diff * inv;
    }
    m[t] = mj - step * gm;
    double ns = sj - step * gs;
    s[t] = ns >= HAZE__FNN_SIGMA_MIN ? ns : HAZE__FNN_SIGMA_MIN;
}

/* Consequents: one task per (rule, output). */
__global__ void k_update_w(const double *__restrict__ phi, const double *__restrict__ e, int B,
                           int R, int L, double step, double *__restrict__ w) {
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (long long)R * L) return;
    int k = (int)(t / L), l = (int)(t % L);
    double gw = 0.0;
    for (int i = 0; i < B; i++) gw += e[(size_t)i * L + l] * phi[(size_t)i * R + k];
    w[t] -= step * gw;
}

/* ------------------------------------------------ binding and the search */

/* Smallest block size with full occupancy for a kernel (section 3.6). */
static int bind_threads(const void *kernel, size_t smem) {
    int dev = 0, maxt = 2048;
    if (cudaGetDevice(&dev) == cudaSuccess)
        cudaDeviceGetAttribute(&maxt, cudaDevAttrMaxThreadsPerMultiProcessor, dev);
    int best = 256, best_occ = 0;
    for (int nt = 64; nt <= 1024; nt *= 2) {
        int blocks = 0;
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, nt, smem) != cudaSuccess)
            continue;
        int occ = blocks * nt;
        if (occ > best_occ) best = nt, best_occ = occ;
        if (occ >= maxt) return nt;
    }
    cudaGetLastError(); /* clear a failed query */
    return best;
}

typedef void (*fire_fn)(const double *, const int *, int, const double *, const double *, int, int,
                        double *);

typedef struct {
    fire_fn fn;
    int lanes_per_row; /* column: G; row: 32 lanes for N rules */
    int rules_per_row; /* row: N; column: 1 */
    const char *name;
    int threads; /* bound block size, 0 until computed */
} fire_variant;

static fire_variant g_variants[] = {
    {k_fire_col<32>, 32, 1, "column G=32", 0}, {k_fire_col<16>, 16, 1, "column G=16", 0},
    {k_fire_col<8>, 8, 1, "column G=8", 0},    {k_fire_col<4>, 4, 1, "column G=4", 0},
    {k_fire_col<2>, 2, 1, "column G=2", 0},    {k_fire_col<1>, 1, 1, "column G=1", 0},
    {k_fire_row<2>, 32, 2, "row N=2", 0},      {k_fire_row<4>, 32, 4, "row N=4", 0},
    {k_fire_row<8>, 32, 8, "row N=8", 0},
};
#define N_VARIANTS ((int)(sizeof g_variants / sizeof *g_variants))

static int variant_launch(haze_ctx *ctx, int v, const double *z, const int *idx, int B,
                          const double *m, const double *s, int R, int D, double *lm) {
    fire_variant *fv = &g_variants[v];
    if (!fv->threads) fv->threads = bind_threads((const void *)fv->fn, 0);
    long long rows = (long long)B * ((R + fv->rules_per_row - 1) / fv->rules_per_row);
    long long threads = rows * fv->lanes_per_row;
    long long blocks = (threads + fv->threads - 1) / fv->threads;
    fv->fn<<<(unsigned)blocks, fv->threads, 0, haze__stream(ctx)>>>(z, idx, B, m, s, R, D, lm);
    HAZE_CUDA_TRY_LAUNCH(ctx);
    return HAZE_OK;
}

/* The chosen variant per shape (process-wide cache). */
typedef struct {
    int D, Rb, B, v;
} search_entry;
static search_entry g_cache[256];
static int g_cache_n = 0;

static int next_pow2(int r) {
    int p = 1;
    while (p < r) p *= 2;
    return p;
}

/* Coarsening configuration search (section 3.5): times each candidate. */
static int choose_variant_locked(haze_ctx *ctx, const double *z, const int *idx, int B,
                                 const double *m, const double *s, int R, int D, double *lm,
                                 int *out) {
    int Rb = next_pow2(R);
    for (int c = 0; c < g_cache_n; c++)
        if (g_cache[c].D == D && g_cache[c].Rb == Rb && g_cache[c].B == B) {
            *out = g_cache[c].v;
            return HAZE_OK;
        }
    int dev = 0, sms = 1;
    HAZE_CUDA_TRY(ctx, cudaGetDevice(&dev));
    HAZE_CUDA_TRY(ctx, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    long long cores = (long long)sms * 128; /* FP32 lanes per SM on sm_70 and later */
    long long tasks = (long long)B * R * D;
    cudaEvent_t e0, e1;
    HAZE_CUDA_TRY(ctx, cudaEventCreate(&e0));
    HAZE_CUDA_TRY(ctx, cudaEventCreate(&e1));
    int best = 0;
    float best_ms = INFINITY;
    int st = HAZE_OK;
    for (int v = 0; v < N_VARIANTS && st == HAZE_OK; v++) {
        /* coarsen number n: tasks per thread */
        long long n =
            (long long)((D + g_variants[v].lanes_per_row - 1) / g_variants[v].lanes_per_row) *
            g_variants[v].rules_per_row;
        if (v > 0 && tasks / n < cores) continue;               /* too little parallelism left */
        st = variant_launch(ctx, v, z, idx, B, m, s, R, D, lm); /* warm-up */
        if (st) break;
        if (cudaEventRecord(e0, haze__stream(ctx)) != cudaSuccess) st = HAZE_ERR_CUDA;
        for (int rep = 0; rep < 3 && st == HAZE_OK; rep++)
            st = variant_launch(ctx, v, z, idx, B, m, s, R, D, lm);
        float ms = 0;
        if (st == HAZE_OK && (cudaEventRecord(e1, haze__stream(ctx)) != cudaSuccess ||
                              cudaEventSynchronize(e1) != cudaSuccess ||
                              cudaEventElapsedTime(&ms, e0, e1) != cudaSuccess))
            st = haze__error(ctx, HAZE_ERR_CUDA, "fnn: timing the coarsening candidates failed");
        if (st == HAZE_OK && ms < best_ms) best_ms = ms, best = v;
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    if (st) return st;
    if (g_cache_n < (int)(sizeof g_cache / sizeof *g_cache))
        g_cache[g_cache_n++] = search_entry{D, Rb, B, best};
    *out = best;
    return HAZE_OK;
}

/* The cache is shared by all contexts of the process: one search at a time. */
static pthread_mutex_t g_cache_lock = PTHREAD_MUTEX_INITIALIZER;

static int choose_variant(haze_ctx *ctx, const double *z, const int *idx, int B, const double *m,
                          const double *s, int R, int D, double *lm, int *out) {
    pthread_mutex_lock(&g_cache_lock);
    int st = choose_variant_locked(ctx, z, idx, B, m, s, R, D, lm, out);
    pthread_mutex_unlock(&g_cache_lock);
    return st;
}

/* Layers 2-3 for B samples under the current mapping. */
static int fire(haze_ctx *ctx, const double *z, const int *idx, int B, const double *m,
                const double *s, int R, int D, double *lm) {
    if (g_mapping == HAZE__FNN_MAP_GPUFNN) {
        if (D > 1024)
            return haze__error(ctx, HAZE_ERR_UNSUPPORTED,
                               "fnn: the GPU-FNN mapping needs one thread per input, at most 1024 "
                               "inputs (got %d)",
                               D);
        dim3 grid((unsigned)R, (unsigned)B);
        k_fire_base<<<grid, D, (size_t)D * sizeof(double), haze__stream(ctx)>>>(z, idx, m, s, R, D,
                                                                                lm);
        HAZE_CUDA_TRY_LAUNCH(ctx);
        return HAZE_OK;
    }
    int v = 0;
    int st = choose_variant(ctx, z, idx, B, m, s, R, D, lm, &v);
    if (st) return st;
    return variant_launch(ctx, v, z, idx, B, m, s, R, D, lm);
}

static int update(haze_ctx *ctx, const double *z, const int *idx, const double *d, double *lm,
                  const double *e, double *g, int B, int R, int D, int L, double step, double *m,
                  double *s, double *w) {
    static int t_g = 0, t_ms = 0, t_w = 0;
    if (!t_g) t_g = bind_threads((const void *)k_g, 0);
    if (!t_ms) t_ms = bind_threads((const void *)k_update_ms, 0);
    if (!t_w) t_w = bind_threads((const void *)k_update_w, 0);
    cudaStream_t st = haze__stream(ctx);
    long long n = (long long)B * R;
    k_g<<<(unsigned)((n + t_g - 1) / t_g), t_g, 0, st>>>(lm, e, d, idx, w, B, R, L, g);
    HAZE_CUDA_TRY_LAUNCH(ctx);
    /* m and s before w: g already holds what the old w gave */
    if (g_mapping == HAZE__FNN_MAP_GPUFNN) {
        if (D > 1024)
            return haze__error(ctx, HAZE_ERR_UNSUPPORTED, "fnn: GPU-FNN needs <= 1024 inputs");
        k_update_ms_base<<<(unsigned)R, D, 0, st>>>(z, idx, g, B, R, D, step, m, s);
    } else {
        long long tasks = (long long)R * D;
        int dev = 0, sms = 1, per_sm = 2048;
        HAZE_CUDA_TRY(ctx, cudaGetDevice(&dev));
        HAZE_CUDA_TRY(ctx, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        HAZE_CUDA_TRY(ctx,
                      cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, dev));
        long long blocks = (tasks + t_ms - 1) / t_ms, full = (long long)sms * (per_sm / t_ms);
        if (blocks > full) blocks = full; /* grid-stride: one full wave of resident blocks */
        k_update_ms<<<(unsigned)blocks, t_ms, 0, st>>>(z, idx, g, B, R, D, step, m, s);
    }
    HAZE_CUDA_TRY_LAUNCH(ctx);
    long long nw = (long long)R * L;
    k_update_w<<<(unsigned)((nw + t_w - 1) / t_w), t_w, 0, st>>>(lm, e, B, R, L, step, w);
    HAZE_CUDA_TRY_LAUNCH(ctx);
    return HAZE_OK;
}

/* ------------------------------------------------------- device memory */

typedef struct {
    double *z, *d, *m, *s, *w, *lm, *e, *g, *best;
    int *order, *bestk;
    size_t cap, lm_cap;
} dev_state;

static void dev_free(dev_state *ds) {
    cudaFree(ds->z), cudaFree(ds->d), cudaFree(ds->m), cudaFree(ds->s), cudaFree(ds->w);
    cudaFree(ds->lm), cudaFree(ds->e), cudaFree(ds->g), cudaFree(ds->best);
    cudaFree(ds->order), cudaFree(ds->bestk);
    memset(ds, 0, sizeof *ds);
}

/* Room for `rules` rules on the device, keeping the first `keep`. */
static int dev_reserve(haze_ctx *ctx, dev_state *ds, size_t rules, size_t keep, size_t D,
                       size_t L) {
    if (rules <= ds->cap) return HAZE_OK;
    size_t cap = ds->cap ? ds->cap : 64;
    while (cap < rules) cap *= 2;
    double *p[3] = {ds->m, ds->s, ds->w};
    size_t width[3] = {D, D, L};
    for (int a = 0; a < 3; a++) {
        double *n = NULL;
        HAZE_CUDA_TRY(ctx, cudaMalloc((void **)&n, cap * width[a] * sizeof(double)));
        if (keep && p[a]) {
            cudaError_t e = cudaMemcpyAsync(n, p[a], keep * width[a] * sizeof(double),
                                            cudaMemcpyDeviceToDevice, haze__stream(ctx));
            if (e != cudaSuccess) {
                cudaFree(n);
                return haze__error(ctx, HAZE_ERR_CUDA, "CUDA: copy of parameters: %s",
                                   cudaGetErrorString(e));
            }
        }
        HAZE_CUDA_TRY(ctx, cudaStreamSynchronize(haze__stream(ctx)));
        cudaFree(p[a]);
        p[a] = n;
    }
    ds->m = p[0], ds->s = p[1], ds->w = p[2];
    ds->cap = cap;
    return HAZE_OK;
}

static int dev_scratch(haze_ctx *ctx, dev_state *ds, size_t B, size_t R) {
    if (B * R <= ds->lm_cap) return HAZE_OK;
    size_t cap = ds->lm_cap ? ds->lm_cap : 1024;
    while (cap < B * R) cap *= 2;
    cudaFree(ds->lm), cudaFree(ds->g);
    ds->lm = ds->g = NULL;
    HAZE_CUDA_TRY(ctx, cudaMalloc((void **)&ds->lm, cap * sizeof(double)));
    HAZE_CUDA_TRY(ctx, cudaMalloc((void **)&ds->g, cap * sizeof(double)));
    ds->lm_cap = cap;
    return HAZE_OK;
}

static int upload_rules(haze_ctx *ctx, dev_state *ds, const haze_fnn *net, size_t k0, size_t k1) {
    size_t D = net->D, L = net->L;
    cudaStream_t st = haze__stream(ctx);
    HAZE_CUDA_TRY(ctx, cudaMemcpyAsync(ds->m + k0 * D, net->m + k0 * D,
                                       (k1 - k0) * D * sizeof(double), cudaMemcpyHostToDevice, st));
    HAZE_CUDA_TRY(ctx, cudaMemcpyAsync(ds->s + k0 * D, net->s + k0 * D,
                                       (k1 - k0) * D * sizeof(double), cudaMemcpyHostToDevice, st));
    HAZE_CUDA_TRY(ctx, cudaMemcpyAsync(ds->w + k0 * L, net->w + k0 * L,
                                       (k1 - k0) * L * sizeof(double), cudaMemcpyHostToDevice, st));
    HAZE_CUDA_TRY(ctx, cudaStreamSynchronize(st));
    return HAZE_OK;
}

/* ---------------------------------------------------------------- epoch */

static int epoch(haze_ctx *ctx, haze_fnn *net, haze__fnn_train_args *a, dev_state *ds) {
    const haze_fnn_options *o = a->opt;
    size_t D = net->D, L = net->L, n = a->n;
    size_t B = o->batch ? o->batch : 1;
    if (B > n) B = n;
    cudaStream_t st = haze__stream(ctx);
    int s = HAZE_OK;
    HAZE_CUDA_TRY(ctx, cudaMalloc((void **)&ds->z, n * D * sizeof(double)));
    HAZE_CUDA_TRY(ctx, cudaMalloc((void **)&ds->d, n * L * sizeof(double)));
    HAZE_CUDA_TRY(ctx, cudaMalloc((void **)&ds->order, n * sizeof(int)));
    HAZE_CUDA_TRY(ctx, cudaMalloc((void **)&ds->e, B * L * sizeof(double)));
    HAZE_CUDA_TRY(ctx, cudaMalloc((void **)&ds->best, B * sizeof(double)));
    HAZE_CUDA_TRY(ctx, cudaMalloc((void **)&ds->bestk, B * sizeof(int)));
    int *order = (int *)malloc(n * sizeof(int));
    double *e = (double *)malloc(B * L * sizeof(double)),
           *best = (double *)malloc(B * sizeof(double));
    int *bestk = (int *)malloc(B * sizeof(int));
    if (!order || !e || !best || !bestk) {
        free(order), free(e), free(best), free(bestk);
        return haze__error(ctx, HAZE_ERR_NOMEM, "fnn train: out of memory");
    }
    for (size_t i = 0; i < n; i++) order[i] = (int)a->order[i];
#define TRY(call)                                                                                  \
    do {                                                                                           \
        if ((s = (call)) != HAZE_OK) goto out;                                                     \
    } while (0)
#define CTRY(call)                                                                                 \
    do {                                                                                           \
        cudaError_t ce_ = (call);                                                                  \
        if (ce_ != cudaSuccess) {                                                                  \
            s = haze__error(ctx, HAZE_ERR_CUDA, "CUDA: %s: %s (%s:%d)", #call,                     \
                            cudaGetErrorString(ce_), __FILE__, __LINE__);                          \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)
    CTRY(cudaMemcpyAsync(ds->z, a->z, n * D * sizeof(double), cudaMemcpyHostToDevice, st));
    CTRY(cudaMemcpyAsync(ds->d, a->d, n * L * sizeof(double), cudaMemcpyHostToDevice, st));
    CTRY(cudaMemcpyAsync(ds->order, order, n * sizeof(int), cudaMemcpyHostToDevice, st));
    TRY(dev_reserve(ctx, ds, net->R + 1, 0, D, L));
    if (net->R) TRY(upload_rules(ctx, ds, net, 0, net->R));
    for (size_t i0 = 0; i0 < n; i0 += B) {
        size_t b = n - i0 < B ? n - i0 : B;
        const size_t *hidx = a->order + i0;
        const int *didx = ds->order + i0;
        size_t R0 = net->R;
        /* structure learning: the strongest rule of each sample */
        if (R0) {
            TRY(dev_scratch(ctx, ds, b, R0));
            TRY(fire(ctx, ds->z, didx, (int)b, ds->m, ds->s, (int)R0, (int)D, ds->lm));
            k_best<<<(unsigned)b, RED_THREADS, 0, st>>>(ds->lm, (int)R0, ds->best, ds->bestk);
            CTRY(cudaGetLastError());
            CTRY(cudaMemcpyAsync(best, ds->best, b * sizeof(double), cudaMemcpyDeviceToHost, st));
            CTRY(cudaMemcpyAsync(bestk, ds->bestk, b * sizeof(int), cudaMemcpyDeviceToHost, st));
            CTRY(cudaStreamSynchronize(st));
        }
        for (size_t i = 0; i < b; i++) {
            const double *z = a->z + hidx[i] * D;
            double bv = R0 ? best[i] : -INFINITY;
            size_t K = R0 ? (size_t)bestk[i] : 0;
            for (size_t k = R0; k < net->R; k++) {
                double v = haze__fnn_log_firing(net, z, k);
                if (v > bv) bv = v, K = k;
            }
            if ((net->R == 0 || bv / (double)D <= a->log_th) &&
                (o->max_rules == 0 || net->R < o->max_rules)) {
                /* the host copy of rule K is stale during the epoch */
                if (K < R0)
                    CTRY(cudaMemcpy(net->m + K * D, ds->m + K * D, D * sizeof(double),
                                    cudaMemcpyDeviceToHost));
                TRY(haze__fnn_add_rule(ctx, net, z, a->d + hidx[i] * L, K, o));
            }
        }
        size_t R = net->R;
        if (R != R0) {
            TRY(dev_reserve(ctx, ds, R, R0, D, L));
            TRY(upload_rules(ctx, ds, net, R0, R));
        }
        TRY(dev_scratch(ctx, ds, b, R));
        if (R != R0 || R0 == 0)
            TRY(fire(ctx, ds->z, didx, (int)b, ds->m, ds->s, (int)R, (int)D, ds->lm));
        k_normalise<<<(unsigned)b, RED_THREADS, 0, st>>>(ds->lm, (int)R, ds->w, (int)L, ds->d, didx,
                                                         ds->e);
        CTRY(cudaGetLastError());
        TRY(update(ctx, ds->z, didx, ds->d, ds->lm, ds->e, ds->g, (int)b, (int)R, (int)D, (int)L,
                   o->rate / (double)b, ds->m, ds->s, ds->w));
        CTRY(cudaMemcpyAsync(e, ds->e, b * L * sizeof(double), cudaMemcpyDeviceToHost, st));
        CTRY(cudaStreamSynchronize(st));
        for (size_t i = 0; i < b; i++) {
            const double *ei = e + i * L, *d = a->d + hidx[i] * L;
            double e2 = 0.0;
            size_t yb = 0, db = 0;
            for (size_t l = 0; l < L; l++) {
                e2 += ei[l] * ei[l];
                if (ei[l] + d[l] > ei[yb] + d[yb]) yb = l;
                if (d[l] > d[db]) db = l;
            }
            a->loss_sum += 0.5 * e2;
            if (net->classifier && yb == db) a->correct++;
        }
    }
    /* the trained parameters back to the host */
    if (net->R) {
        size_t R = net->R;
        CTRY(cudaMemcpyAsync(net->m, ds->m, R * D * sizeof(double), cudaMemcpyDeviceToHost, st));
        CTRY(cudaMemcpyAsync(net->s, ds->s, R * D * sizeof(double), cudaMemcpyDeviceToHost, st));
        CTRY(cudaMemcpyAsync(net->w, ds->w, R * L * sizeof(double), cudaMemcpyDeviceToHost, st));
        CTRY(cudaStreamSynchronize(st));
    }
out:
    free(order), free(e), free(best), free(bestk);
    return s;
}

int haze__fnn_epoch_cuda(haze_ctx *ctx, haze_fnn *net, haze__fnn_train_args *a) {
    int s = haze__cuda_begin(ctx);
    if (s) return s;
    if (g_mapping == HAZE__FNN_MAP_GPUFNN && net->D > 1024)
        return haze__error(ctx, HAZE_ERR_UNSUPPORTED,
                           "fnn: the GPU-FNN mapping supports at most 1024 inputs (got %zu)",
                           net->D);
    dev_state ds;
    memset(&ds, 0, sizeof ds);
    s = epoch(ctx, net, a, &ds);
    dev_free(&ds);
    return s;
}

int haze__fnn_forward_cuda(haze_ctx *ctx, const haze_fnn *net, const double *z, size_t n,
                           double *y) {
    int s = haze__cuda_begin(ctx);
    if (s) return s;
    size_t D = net->D, L = net->L, R = net->R;
    /* samples per chunk: the firing matrix takes at most a quarter of the budget */
    size_t budget = haze__cuda_budget(ctx) / 4, per = (R + D + L) * sizeof(double);
    size_t chunk = budget / per;
    if (chunk > 65535) chunk = 65535; /* grid.x of the per-sample kernels */
    if (chunk > n) chunk = n;
    if (chunk == 0)
        return haze__error(ctx, HAZE_ERR_NOMEM, "fnn predict: not enough device memory");
    dev_state ds;
    memset(&ds, 0, sizeof ds);
    cudaStream_t st = haze__stream(ctx);
#undef TRY
#define TRY(call)                                                                                  \
    do {                                                                                           \
        if ((s = (call)) != HAZE_OK) goto out;                                                     \
    } while (0)
    CTRY(cudaMalloc((void **)&ds.z, chunk * D * sizeof(double)));
    CTRY(cudaMalloc((void **)&ds.e, chunk * L * sizeof(double)));
    TRY(dev_reserve(ctx, &ds, R, 0, D, L));
    TRY(upload_rules(ctx, &ds, net, 0, R));
    TRY(dev_scratch(ctx, &ds, chunk, R));
    for (size_t i0 = 0; i0 < n; i0 += chunk) {
        size_t b = n - i0 < chunk ? n - i0 : chunk;
        CTRY(cudaMemcpyAsync(ds.z, z + i0 * D, b * D * sizeof(double), cudaMemcpyHostToDevice, st));
        TRY(fire(ctx, ds.z, NULL, (int)b, ds.m, ds.s, (int)R, (int)D, ds.lm));
        k_normalise<<<(unsigned)b, RED_THREADS, 0, st>>>(ds.lm, (int)R, ds.w, (int)L, NULL, NULL,
                                                         ds.e);
        CTRY(cudaGetLastError());
        CTRY(cudaMemcpyAsync(y + i0 * L, ds.e, b * L * sizeof(double), cudaMemcpyDeviceToHost, st));
        CTRY(cudaStreamSynchronize(st));
    }
out:
    dev_free(&ds);
    return s;
}

/* -------------------------------------------------------------- benches */

__global__ void k_fill(double *p, size_t n, double lo, double hi, unsigned long long seed) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long x = (i + 1) * 0x9e3779b97f4a7c15ULL ^ seed;
    x ^= x >> 31;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 29;
    p[i] = lo + (hi - lo) * (double)(x >> 11) * 0x1.0p-53;
}

int haze__fnn_cuda_step_time(haze_ctx *ctx, size_t D, size_t R, size_t L, int mapping, int reps,
                             double *fire_us, double *update_us) {
    int s = haze__cuda_begin(ctx);
    if (s) return s;
    if (mapping == HAZE__FNN_MAP_GPUFNN && D > 1024)
        return haze__error(ctx, HAZE_ERR_UNSUPPORTED, "GPU-FNN: at most 1024 inputs");
    int keep = g_mapping;
    g_mapping = mapping;
    dev_state ds;
    memset(&ds, 0, sizeof ds);
    cudaStream_t st = haze__stream(ctx);
    cudaEvent_t e0 = NULL, e1 = NULL, e2 = NULL;
    int zero = 0;
    float f_ms = 0, u_ms = 0;
    CTRY(cudaMalloc((void **)&ds.z, D * sizeof(double)));
    CTRY(cudaMalloc((void **)&ds.d, L * sizeof(double)));
    CTRY(cudaMalloc((void **)&ds.e, L * sizeof(double)));
    CTRY(cudaMalloc((void **)&ds.order, sizeof(int)));
    CTRY(cudaMemcpy(ds.order, &zero, sizeof(int), cudaMemcpyHostToDevice));
    TRY(dev_reserve(ctx, &ds, R, 0, D, L));
    TRY(dev_scratch(ctx, &ds, 1, R));
    k_fill<<<(unsigned)((D + 255) / 256), 256, 0, st>>>(ds.z, D, -1, 1, 1);
    k_fill<<<(unsigned)((R * D + 255) / 256), 256, 0, st>>>(ds.m, R * D, -1, 1, 2);
    k_fill<<<(unsigned)((R * D + 255) / 256), 256, 0, st>>>(ds.s, R * D, 0.5 * sqrt((double)D),
                                                            sqrt((double)D), 3);
    k_fill<<<(unsigned)((R * L + 255) / 256), 256, 0, st>>>(ds.w, R * L, 0, 1, 4);
    k_fill<<<1, 256, 0, st>>>(ds.d, L, 0, 1, 5);
    CTRY(cudaGetLastError());
    CTRY(cudaEventCreate(&e0));
    CTRY(cudaEventCreate(&e1));
    CTRY(cudaEventCreate(&e2));
    /* warm-up (and, for ATM, the configuration search) */
    TRY(fire(ctx, ds.z, ds.order, 1, ds.m, ds.s, (int)R, (int)D, ds.lm));
    for (int r = 0; r < reps; r++) {
        float a = 0, b = 0;
        CTRY(cudaEventRecord(e0, st));
        TRY(fire(ctx, ds.z, ds.order, 1, ds.m, ds.s, (int)R, (int)D, ds.lm));
        CTRY(cudaEventRecord(e1, st));
        k_normalise<<<1, RED_THREADS, 0, st>>>(ds.lm, (int)R, ds.w, (int)L, ds.d, ds.order, ds.e);
        CTRY(cudaGetLastError());
        /* a tiny rate keeps the random network stable over the repetitions */
        TRY(update(ctx, ds.z, ds.order, ds.d, ds.lm, ds.e, ds.g, 1, (int)R, (int)D, (int)L, 1e-9,
                   ds.m, ds.s, ds.w));
        CTRY(cudaEventRecord(e2, st));
        CTRY(cudaEventSynchronize(e2));
        CTRY(cudaEventElapsedTime(&a, e0, e1));
        CTRY(cudaEventElapsedTime(&b, e1, e2));
        f_ms += a;
        u_ms += b;
    }
    *fire_us = 1000.0 * f_ms / reps;
    *update_us = 1000.0 * u_ms / reps;
out:
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    if (e2) cudaEventDestroy(e2);
    dev_free(&ds);
    g_mapping = keep;
    return s;
}
