/*
 * src/fnn/fnn_cuda_launch.cu - the SONFIN kernels launched per step and the
 * choice among them.
 *
 * Why this file: every shape the cluster kernels do not take (mini-batches,
 * prediction, networks too large for one cluster, devices before Hopper,
 * the GPU-FNN baseline) runs on these kernels, a few launches per step, and
 * the choice among their variants is made here by timing them on the
 * actual device (the configuration search below); the training driver
 * (fnn_cuda.cu) calls them through haze__fnn_fire, haze__fnn_online_step,
 * haze__fnn_batch_step and haze__fnn_outputs.
 *
 * Coarsening (seed 001, 3.5): column-based, a group of G lanes per rule
 * where each lane takes the inputs j, j+G, j+2G... (G = 32 is one task per
 * lane per warp row; smaller G coarsens more inputs into one thread);
 * row-based, one warp takes N rules k, k+p, ..., k+(N-1)p (p = ceil(R/N))
 * and reads each input once for all of them; for few rules and many
 * inputs, a block of threads per rule. The search times every candidate
 * on the context's device and keeps the fastest per (inputs, rules rounded
 * up to a power of two, samples) in the context, skipping coarsenings that
 * leave fewer tasks than the device has cores (the thesis's bound on n).
 * The candidates for a shape add in one order (below), so the timing
 * decides the speed and never the bits: a model predicts the same numbers
 * in every process. (The GPU-FNN kernel has an order of its own and runs
 * only as its own mapping.) The centre/width update is chosen the same
 * way. Binding (3.6): the block size is the smallest that gives full
 * occupancy according to the device's own limits (cudaOccupancy*).
 */
#include "fnn/fnn_cuda.cuh"

/* ------------------------------------------------------- firing kernels */

/*
 * All firing kernels compute lm[i * stride + k] = log mu_k(z_idx[i]) for the
 * samples i < B and rules k < Rg (the grid's rule count, an upper bound the
 * host knows); rules at or beyond the device's rule counter *nR (when given)
 * do not exist yet and are skipped, so the host need not wait for the
 * device to learn how many rules structure learning made.
 */
#define FIRE_PARAMS                                                                                \
    const double *__restrict__ z, const int *__restrict__ idx, int B,                              \
        const double *__restrict__ m, const double *__restrict__ s, int Rg, size_t stride, int D,  \
        double *__restrict__ lm, const int *__restrict__ nR

/*
 * Every firing variant the search picks from adds the squares in one order,
 * so that the choice (made by timing, which varies from run to run and
 * process to process) never changes a bit of the result. The order depends
 * on D alone: P = fire_partials(D) partial sums, partial v taking the
 * inputs j = v, v + P, v + 2P, ... in that order, then the halving tree
 * over them (offsets P/2, P/4, ..., 1: a[v] += a[v + off] for v < off),
 * whose last five levels are a warp's shuffle-down reduction. A variant is
 * a candidate for D only where it keeps that order: the row variants and
 * the column variants with fewer than 32 lanes for P = 32, the 32-lane
 * column variant keeping P / 32 partials a lane, and the block variant of
 * P threads.
 */
static __host__ __device__ inline int fire_partials(int D) {
    int p = 32; /* up to 256 inputs; then about an eighth of D, a power of two */
    while (p < 1024 && p * 8 < D) p *= 2;
    return p;
}

/* Column-based coarsening: G lanes per (sample, rule) row, each keeping Q
 * of the P = G * Q partials (v = lane, lane + G, ...) and taking the tree's
 * levels whose two partials are both its own. */
template <int G, int Q> static __global__ void k_fire_col(FIRE_PARAMS) {
    constexpr int P = G * Q;
    long long gt = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long row = gt / G;
    int lane = (int)(gt % G);
    int Rn = nR ? *nR : Rg;
    int i = (int)(row / Rg), k = (int)(row % Rg);
    bool active = row < (long long)B * Rg && k < Rn;
    double acc[Q];
#pragma unroll
    for (int q = 0; q < Q; q++) acc[q] = 0.0;
    if (active) {
        const double *zi = z + (size_t)(idx ? idx[i] : i) * D;
        const double *mk = m + (size_t)k * D, *sk = s + (size_t)k * D;
        for (int j0 = 0; j0 < D; j0 += P) {
#pragma unroll
            for (int q = 0; q < Q; q++) {
                const int j = j0 + lane + q * G;
                if (j < D) {
                    double t = (zi[j] - mk[j]) * fnn_rcp(sk[j]);
                    acc[q] = fma(t, t, acc[q]);
                }
            }
        }
    }
#pragma unroll
    for (int off = P / 2; off >= G; off >>= 1)
#pragma unroll
        for (int q = 0; q < off / G; q++) acc[q] += acc[q + off / G];
    /* every lane of the warp reaches the shuffles (no early return) */
    double a = acc[0];
    for (int off = G / 2; off > 0; off >>= 1) a += __shfl_down_sync(0xffffffffu, a, off, G);
    if (active && lane == 0) lm[(size_t)i * stride + k] = -a;
}

/* Block per (sample, rule) row with T = P threads, thread t the partial t:
 * for few rows (few rules, one sample) and many inputs. */
template <int T> static __global__ void k_fire_blk(FIRE_PARAMS) {
    __shared__ double sh[T];
    long long row = blockIdx.x;
    int i = (int)(row / Rg), k = (int)(row % Rg);
    int Rn = nR ? *nR : Rg;
    if (k >= Rn) return; /* uniform over the block */
    const double *zi = z + (size_t)(idx ? idx[i] : i) * D;
    const double *mk = m + (size_t)k * D, *sk = s + (size_t)k * D;
    double acc = 0.0;
    for (int j = threadIdx.x; j < D; j += T) {
        double t = (zi[j] - mk[j]) * fnn_rcp(sk[j]);
        acc = fma(t, t, acc);
    }
    sh[threadIdx.x] = acc;
    __syncthreads();
    for (int off = T / 2; off >= 32; off >>= 1) {
        if ((int)threadIdx.x < off) sh[threadIdx.x] += sh[threadIdx.x + off];
        __syncthreads();
    }
    if (threadIdx.x < 32) {
        double a = sh[threadIdx.x];
        for (int off = 16; off > 0; off >>= 1) a += __shfl_down_sync(0xffffffffu, a, off);
        if (threadIdx.x == 0) lm[(size_t)i * stride + k] = -a;
    }
}

/* Row-based coarsening: one warp per sample and N rules k0, k0+p, ...
 * (P = 32: a lane per partial). */
template <int N> static __global__ void k_fire_row(FIRE_PARAMS) {
    long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x & 31;
    int Rn = nR ? *nR : Rg;
    int p = (Rg + N - 1) / N;
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
                if (k < Rn) {
                    double t = (x - m[(size_t)k * D + j]) * fnn_rcp(s[(size_t)k * D + j]);
                    acc[r] = fma(t, t, acc[r]);
                }
            }
        }
    }
#pragma unroll
    for (int r = 0; r < N; r++) {
        double a = acc[r];
        for (int off = 16; off > 0; off >>= 1) a += __shfl_down_sync(0xffffffffu, a, off);
        int k = k0 + r * p;
        if (active && lane == 0 && k < Rn) lm[(size_t)i * stride + k] = -a;
    }
}

/* GPU-FNN baseline: block (k, i), one thread per input, shared-memory tree sum. */
static __global__ void k_fire_base(FIRE_PARAMS) {
    extern __shared__ double sh[];
    int k = blockIdx.x, i = blockIdx.y, j = threadIdx.x;
    int Rn = nR ? *nR : Rg;
    if (k >= Rn || i >= B) return; /* uniform over the block */
    const double *zi = z + (size_t)(idx ? idx[i] : i) * D;
    double t = (zi[j] - m[(size_t)k * D + j]) * fnn_rcp(s[(size_t)k * D + j]);
    sh[j] = t * t;
    __syncthreads();
    for (int st = 1; st < D; st *= 2) {
        if (j % (2 * st) == 0 && j + st < D) sh[j] += sh[j + st];
        __syncthreads();
    }
    if (j == 0) lm[(size_t)i * stride + k] = -sh[0];
}

/* ------------------------------------------ structure and output layer */

/* log mu_k of one sample, block-wide. */
static __device__ double block_log_firing(const double *zi, const double *mk, const double *sk,
                                          int D) {
    double acc = 0.0;
    for (int j = threadIdx.x; j < D; j += blockDim.x) {
        double t = (zi[j] - mk[j]) * fnn_rcp(sk[j]);
        acc += t * t;
    }
    return -block_sum(acc);
}

/*
 * Structure learning for the B samples of a step, in order, by one block
 * (section 2.2, Fig. 6; the same decisions as haze__fnn_add_rule on the
 * CPU): rules made for earlier samples of the step count for later ones.
 * Then the firing of the new rules for every sample of the step fills in
 * their columns of lm.
 */
static __device__ void structure(const step_args &p, double *lm, size_t stride, int B) {
    int R0 = *p.nR, R = R0;
    for (int i = 0; i < B; i++) {
        int si = p.idx ? p.idx[i] : i;
        const double *zi = p.z + (size_t)si * p.D, *di = p.d + (size_t)si * p.L;
        const double *row = lm + (size_t)i * stride;
        double best = -INFINITY;
        int K = 0x7fffffff;
        for (int k = threadIdx.x; k < R0; k += blockDim.x)
            if (row[k] > best) best = row[k], K = k; /* k rises per thread: first max kept */
        block_maxarg(&best, &K);
        if (K == 0x7fffffff) K = 0;
        for (int k = R0; k < R; k++) {
            double v = block_log_firing(zi, p.m + (size_t)k * p.D, p.s + (size_t)k * p.D, p.D);
            if (v > best) best = v, K = k;
        }
        if ((R == 0 || best / (double)p.D <= p.log_th) && R < p.limit) {
            double width = p.width > 0.0 ? p.width : p.sigma0;
            if (R > 0 && !(p.width > 0.0)) { /* uniform over the block: block_sum is safe */
                const double *mK = p.m + (size_t)K * p.D;
                double acc = 0.0;
                for (int j = threadIdx.x; j < p.D; j += blockDim.x)
                    acc += (zi[j] - mK[j]) * (zi[j] - mK[j]);
                width = p.beta * sqrt(block_sum(acc) / (double)p.D);
            }
            if (!(width >= HAZE__FNN_SIGMA_MIN)) width = HAZE__FNN_SIGMA_MIN;
            for (int j = threadIdx.x; j < p.D; j += blockDim.x) {
                p.m[(size_t)R * p.D + j] = zi[j];
                p.s[(size_t)R * p.D + j] = width;
            }
            for (int l = threadIdx.x; l < p.L; l += blockDim.x) p.w[(size_t)R * p.L + l] = di[l];
            R++;
            __syncthreads(); /* the new rule is read by the next sample */
        }
    }
    for (int k = R0; k < R; k++)
        for (int i = 0; i < B; i++) {
            int si = p.idx ? p.idx[i] : i;
            double v = block_log_firing(p.z + (size_t)si * p.D, p.m + (size_t)k * p.D,
                                        p.s + (size_t)k * p.D, p.D);
            if (threadIdx.x == 0) lm[(size_t)i * stride + k] = v;
        }
    __syncthreads(); /* every thread has read *nR */
    if (threadIdx.x == 0) *p.nR = R;
    __syncthreads();
}

#define OUT_CHUNK 32
#define L_SHARED  256 /* outputs kept in shared memory (beyond: read from global) */

/*
 * Layer 4 for sample i by one block: the log firings of row turn into phi
 * (in place, max-shifted); out gets y - d (training) or y (d == NULL). With
 * g, g_k = phi_k sum_l e_l (w_kl - y_l); with step > 0 (online, one sample)
 * the consequents are updated here too, w_kl -= step e_l phi_k, after every
 * g_k has read the old w.
 */
static __device__ void layer4(const step_args &p, int si, double *row, int R, double *out,
                              double *g, double step) {
    __shared__ double part[OUT_CHUNK * 32];
    __shared__ double es[L_SHARED], ys[L_SHARED];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;
    int L = p.L;
    double mx = -INFINITY;
    int K = 0;
    for (int k = threadIdx.x; k < R; k += blockDim.x) mx = fmax(mx, row[k]);
    block_maxarg(&mx, &K);
    double sum = 0.0;
    for (int k = threadIdx.x; k < R; k += blockDim.x) {
        double t = row[k] - mx;
        double e = t < HAZE__FNN_LOG_CUTOFF ? 0.0 : fnn_exp(t);
        row[k] = e;
        sum += e;
    }
    sum = block_sum(sum);
    double inv_sum = fnn_rcp(sum);
    for (int k = threadIdx.x; k < R; k += blockDim.x) row[k] *= inv_sum; /* own k: no sync */
    const double *di = p.d ? p.d + (size_t)si * L : NULL;
    for (int l0 = 0; l0 < L; l0 += OUT_CHUNK) {
        int nl = L - l0 < OUT_CHUNK ? L - l0 : OUT_CHUNK;
        for (int c = 0; c < nl; c++) {
            double acc = 0.0;
            for (int k = threadIdx.x; k < R; k += blockDim.x)
                acc += row[k] * p.w[(size_t)k * L + l0 + c];
            for (int off = 16; off > 0; off >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, off);
            if (lane == 0) part[c * 32 + warp] = acc;
        }
        __syncthreads();
        if ((int)threadIdx.x < nl) {
            int l = l0 + threadIdx.x;
            double y = 0.0;
            for (int q = 0; q < nw; q++) y += part[threadIdx.x * 32 + q];
            double e = di ? y - di[l] : y;
            out[l] = e;
            if (l < L_SHARED) es[l] = e, ys[l] = y;
        }
        __syncthreads();
    }
    if (!g) return;
    for (int k = threadIdx.x; k < R; k += blockDim.x) {
        const double *wk = p.w + (size_t)k * L;
        double acc = 0.0;
        if (L <= L_SHARED)
            for (int l = 0; l < L; l++) acc += es[l] * (wk[l] - ys[l]);
        else
            for (int l = 0; l < L; l++) acc += out[l] * (wk[l] - (out[l] + di[l]));
        g[k] = row[k] * acc;
    }
    if (step > 0.0) {
        __syncthreads(); /* every g_k has read the old w */
        for (int t = threadIdx.x; t < R * L; t += blockDim.x) {
            int k = t / L, l = t - k * L;
            double e = l < L_SHARED ? es[l] : out[l];
            p.w[t] -= step * (e * row[k]);
        }
    }
}

/* Centres and widths of rule k, input j from the g of B samples. */
static __device__ __forceinline__ void
update_one(const double *__restrict__ z, const int *__restrict__ idx, const double *__restrict__ g,
           int B, size_t stride, int D, double step, double *__restrict__ m, double *__restrict__ s,
           long long t, int k, int j) {
    double mj = m[t], sj = s[t], inv = fnn_rcp(sj), gm = 0.0, gs = 0.0;
    for (int i = 0; i < B; i++) {
        double diff = z[(size_t)(idx ? idx[i] : i) * D + j] - mj;
        double q = 2.0 * g[(size_t)i * stride + k] * diff * inv * inv;
        gm += q;
        gs += q * diff * inv;
    }
    m[t] = mj - step * gm;
    double ns = sj - step * gs;
    s[t] = ns >= HAZE__FNN_SIGMA_MIN ? ns : HAZE__FNN_SIGMA_MIN;
}

/* One online step after the firing kernel: structure learning, layer 4,
 * g and the consequent update, all by one block (no host round trip); for
 * a small task matrix (fuse_ms) the centres and widths too, which saves a
 * launch where launches cost more than the work. */
static __global__ void k_step1(step_args p, double *lm, double *g, double *e, double step,
                               int fuse_ms) {
    structure(p, lm, 0, 1);
    int si = p.idx ? p.idx[0] : 0;
    int R = *p.nR;
    layer4(p, si, lm, R, e, g, step);
    if (!fuse_ms) return;
    __syncthreads(); /* g of every rule is written */
    long long total = (long long)R * p.D;
    for (long long t = threadIdx.x; t < total; t += blockDim.x) {
        int k = (int)(t / p.D), j = (int)(t - (long long)k * p.D);
        update_one(p.z, p.idx, g, 1, 0, p.D, step, p.m, p.s, t, k, j);
    }
}

/* Mini-batch: structure learning of the whole batch by one block. */
static __global__ void k_structure(step_args p, double *lm, size_t stride, int B) {
    structure(p, lm, stride, B);
}

/* Mini-batch (and prediction): layer 4 and g, one block per sample. */
static __global__ void k_layer4(step_args p, double *lm, size_t stride, double *out, double *g) {
    int i = blockIdx.x;
    int R = p.nR ? *p.nR : p.Rfix;
    int si = p.idx ? p.idx[i] : i;
    layer4(p, si, lm + (size_t)i * stride, R, out + (size_t)i * p.L,
           g ? g + (size_t)i * stride : NULL, 0.0);
}

/* ------------------------------------------------------- update kernels */

/* Centres and widths: one task per (rule, input), coalesced along inputs;
 * tasks of rules that do not exist (k >= *nR) do nothing. */
static __global__ void k_update_ms(const double *__restrict__ z, const int *__restrict__ idx,
                                   const double *__restrict__ g, int B, int Rg, size_t stride,
                                   int D, double step, double *__restrict__ m,
                                   double *__restrict__ s, const int *__restrict__ nR) {
    long long total = (long long)Rg * D;
    int Rn = *nR;
    for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < total;
         t += (long long)gridDim.x * blockDim.x) {
        int k = (int)(t / D), j = (int)(t % D);
        if (k >= Rn) break; /* t only grows */
        update_one(z, idx, g, B, stride, D, step, m, s, t, k, j);
    }
}

/* GPU-FNN baseline update: block per rule, thread per input. */
static __global__ void k_update_ms_base(const double *__restrict__ z, const int *__restrict__ idx,
                                        const double *__restrict__ g, int B, int Rg, size_t stride,
                                        int D, double step, double *__restrict__ m,
                                        double *__restrict__ s, const int *__restrict__ nR) {
    int k = blockIdx.x, j = threadIdx.x;
    if (k >= *nR) return;
    update_one(z, idx, g, B, stride, D, step, m, s, (long long)k * D + j, k, j);
    (void)Rg;
}

/* Consequents of a mini-batch: one task per (rule, output). */
static __global__ void k_update_w(const double *__restrict__ phi, const double *__restrict__ e,
                                  int B, int Rg, size_t stride, int L, double step,
                                  double *__restrict__ w, const int *__restrict__ nR) {
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (long long)Rg * L) return;
    int k = (int)(t / L), l = (int)(t % L);
    if (k >= *nR) return;
    double gw = 0.0;
    for (int i = 0; i < B; i++) gw += e[(size_t)i * L + l] * phi[(size_t)i * stride + k];
    w[t] -= step * gw;
}

/* ------------------------------------------------ binding and the search */

/* Smallest block size with full occupancy for a kernel on a device of
 * maxt threads per SM (section 3.6). */
static int bind_threads(const void *kernel, int maxt) {
    int best = 256, best_occ = 0;
    for (int nt = 64; nt <= 1024; nt *= 2) {
        int blocks = 0;
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, nt, 0) != cudaSuccess)
            continue;
        int occ = blocks * nt;
        if (occ > best_occ) best = nt, best_occ = occ;
        if (occ >= maxt) return nt;
    }
    cudaGetLastError(); /* clear a failed query */
    return best;
}

/* The block size bind_threads finds for kernel on the context's device,
 * kept in *slot (a field of S): bound on first use under the lock, read
 * without it afterwards (a step takes a few microseconds). */
static int bound_threads(haze__fnn_state *S, int *slot, const void *kernel) {
    int nt = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (nt) return nt;
    haze__fnn_lock(&S->lock);
    if (!*slot) __atomic_store_n(slot, bind_threads(kernel, S->threads_per_sm), __ATOMIC_RELEASE);
    nt = *slot;
    haze__fnn_unlock(&S->lock);
    return nt;
}

typedef void (*fire_fn)(const double *, const int *, int, const double *, const double *, int,
                        size_t, int, double *, const int *);

enum { V_COL, V_ROW, V_BLK, V_BASE };

typedef struct {
    fire_fn fn;
    int kind;
    int lanes_per_row; /* column: G; row: 32 lanes for N rules; block: T */
    int rules_per_row; /* row: N; others 1 */
    int threads;       /* block size: fixed (block variants), else 0: bound per device */
    int partials;      /* the P of the order it keeps: a candidate where fire_partials(D) = P */
} fire_variant;

static fire_variant g_variants[] = {
    {k_fire_col<32, 1>, V_COL, 32, 1, 0, 32},
    {k_fire_col<16, 2>, V_COL, 16, 1, 0, 32},
    {k_fire_col<8, 4>, V_COL, 8, 1, 0, 32},
    {k_fire_col<4, 8>, V_COL, 4, 1, 0, 32},
    {k_fire_col<2, 16>, V_COL, 2, 1, 0, 32},
    {k_fire_col<1, 32>, V_COL, 1, 1, 0, 32},
    {k_fire_row<2>, V_ROW, 32, 2, 0, 32},
    {k_fire_row<4>, V_ROW, 32, 4, 0, 32},
    {k_fire_row<8>, V_ROW, 32, 8, 0, 32},
    {k_fire_col<32, 2>, V_COL, 32, 1, 0, 64},
    {k_fire_col<32, 4>, V_COL, 32, 1, 0, 128},
    {k_fire_col<32, 8>, V_COL, 32, 1, 0, 256},
    {k_fire_col<32, 16>, V_COL, 32, 1, 0, 512},
    {k_fire_col<32, 32>, V_COL, 32, 1, 0, 1024},
    {k_fire_blk<64>, V_BLK, 64, 1, 64, 64},
    {k_fire_blk<128>, V_BLK, 128, 1, 128, 128},
    {k_fire_blk<256>, V_BLK, 256, 1, 256, 256},
    {k_fire_blk<512>, V_BLK, 512, 1, 512, 512},
    {k_fire_blk<1024>, V_BLK, 1024, 1, 1024, 1024},
    /* the GPU-FNN mapping itself, its own order: never a candidate */
    {k_fire_base, V_BASE, 0, 1, 0, 0},
};
#define N_VARIANTS ((int)(sizeof g_variants / sizeof *g_variants))
#define V_BASELINE (N_VARIANTS - 1)
#define N_SEARCHED V_BASELINE /* the candidates: every variant before the baseline */
static_assert(sizeof g_variants / sizeof *g_variants <= MAX_FIRE_VARIANTS, "haze__fnn_state");
static_assert(sizeof g_variants / sizeof *g_variants == HAZE__FNN_N_VARIANTS,
              "haze__fnn_variant_name");

/* *nt: the block size of variant v on the context's device (section 3.6),
 * bound on first use there. */
static int variant_threads(haze_ctx *ctx, int v, int *nt) {
    if ((*nt = g_variants[v].threads) > 0) return HAZE_OK;
    haze__fnn_state *S = NULL;
    int e = haze__fnn_state_of(ctx, &S);
    if (e) return e;
    *nt = bound_threads(S, &S->fire_threads[v], (const void *)g_variants[v].fn);
    return HAZE_OK;
}

static int variant_launch(haze_ctx *ctx, int v, const double *z, const int *idx, int B,
                          const double *m, const double *s, int Rg, size_t stride, int D,
                          double *lm, const int *nR) {
    fire_variant *fv = &g_variants[v];
    cudaStream_t st = haze__stream(ctx);
    if (fv->kind == V_BASE) {
        dim3 grid((unsigned)Rg, (unsigned)B);
        k_fire_base<<<grid, D, (size_t)D * sizeof(double), st>>>(z, idx, B, m, s, Rg, stride, D, lm,
                                                                 nR);
    } else if (fv->kind == V_BLK) {
        fv->fn<<<(unsigned)((long long)B * Rg), fv->threads, 0, st>>>(z, idx, B, m, s, Rg, stride,
                                                                      D, lm, nR);
    } else {
        int nt = 0, e = variant_threads(ctx, v, &nt);
        if (e) return e;
        long long rows = (long long)B * ((Rg + fv->rules_per_row - 1) / fv->rules_per_row);
        long long threads = rows * fv->lanes_per_row;
        long long blocks = (threads + nt - 1) / nt;
        fv->fn<<<(unsigned)blocks, nt, 0, st>>>(z, idx, B, m, s, Rg, stride, D, lm, nR);
    }
    HAZE_CUDA_TRY_LAUNCH(ctx);
    return HAZE_OK;
}

int haze__fnn_fire_variant(haze_ctx *ctx, int v, const double *z, int B, const double *m,
                           const double *s, int Rg, int D, double *lm) {
    if (v < 0 || v >= N_VARIANTS || B < 1 || Rg < 1 || D < 1)
        return haze__error(ctx, HAZE_ERR_INVALID, "fnn: no firing variant %d", v);
    if (v == V_BASELINE ? D > 1024 : g_variants[v].partials != fire_partials(D))
        return haze__error(ctx, HAZE_ERR_UNSUPPORTED,
                           "fnn: firing variant %d is not one for %d inputs", v, D);
    return variant_launch(ctx, v, z, NULL, B, m, s, Rg, (size_t)Rg, D, lm, NULL);
}

/* Coarsening configuration search (section 3.5): times each candidate;
 * the choice per shape is kept in the context (S->fire_cache, under
 * S->search_lock). */
static int choose_variant_locked(haze_ctx *ctx, haze__fnn_state *S, const double *z, const int *idx,
                                 int B, const double *m, const double *s, int Rg, size_t stride,
                                 int D, double *lm, const int *nR, int *out) {
    int Rb = next_pow2(Rg);
    const search_entry *hit = haze__fnn_cache_find(&S->fire_cache, ctx->device, D, Rb, B);
    if (hit) {
        *out = hit->v;
        return HAZE_OK;
    }
    int st = HAZE_OK;
    long long cores = (long long)S->sms * 128; /* FP32 lanes per SM on sm_70 and later */
    long long tasks = (long long)B * Rg * D;
    cudaEvent_t e0, e1;
    HAZE_CUDA_TRY(ctx, cudaEventCreate(&e0));
    HAZE_CUDA_TRY(ctx, cudaEventCreate(&e1));
    int best = 0;
    float best_ms = INFINITY;
    const int P = fire_partials(D);
    int first = 1; /* the first candidate of the order is timed whatever the bound says */
    for (int v = 0; v < N_SEARCHED && st == HAZE_OK; v++) {
        fire_variant *fv = &g_variants[v];
        if (fv->partials != P) continue; /* another order */
        /* coarsen number n: tasks per thread */
        long long n =
            (long long)((D + fv->lanes_per_row - 1) / fv->lanes_per_row) * fv->rules_per_row;
        if (!first && tasks / n < cores) continue; /* too little parallelism */
        if (first) best = v;
        first = 0;
        st = variant_launch(ctx, v, z, idx, B, m, s, Rg, stride, D, lm, nR); /* warm-up */
        if (st) break;
        if (cudaEventRecord(e0, haze__stream(ctx)) != cudaSuccess) st = HAZE_ERR_CUDA;
        for (int rep = 0; rep < 5 && st == HAZE_OK; rep++)
            st = variant_launch(ctx, v, z, idx, B, m, s, Rg, stride, D, lm, nR);
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
    haze__fnn_cache_add(&S->fire_cache, search_entry{ctx->device, D, Rb, B, best});
    *out = best;
    return HAZE_OK;
}

/* Layers 2-3 for B samples and rules < Rg under the context's mapping. */
int haze__fnn_fire(haze_ctx *ctx, const double *z, const int *idx, int B, const double *m,
                   const double *s, int Rg, size_t stride, int D, double *lm, const int *nR) {
    haze__fnn_state *S = NULL;
    int e = haze__fnn_state_of(ctx, &S);
    if (e) return e;
    if (S->mapping == HAZE__FNN_MAP_GPUFNN) {
        if (D > 1024)
            return haze__error(ctx, HAZE_ERR_UNSUPPORTED,
                               "fnn: the GPU-FNN mapping needs one thread per input, at most 1024 "
                               "inputs (got %d)",
                               D);
        return variant_launch(ctx, V_BASELINE, z, idx, B, m, s, Rg, stride, D, lm, nR);
    }
    int v = 0;
    haze__fnn_lock(&S->search_lock);
    int st = choose_variant_locked(ctx, S, z, idx, B, m, s, Rg, stride, D, lm, nR, &v);
    haze__fnn_unlock(&S->search_lock);
    if (st) return st;
    return variant_launch(ctx, v, z, idx, B, m, s, Rg, stride, D, lm, nR);
}

/* Block size of the per-sample kernels: enough threads for the rules and
 * their consequents (R x L products per sample). */
static int sample_threads(int R, int L) {
    long long work = (long long)R * (L + 2);
    return work <= 2048 ? 128 : work <= 16384 ? 256 : work <= 65536 ? 512 : 1024;
}

/* One launch of the centre/width update: variant 0 the grid-stride loop over
 * the task matrix, 1 the GPU-FNN layout (block per rule, thread per input). */
static int launch_ms(haze_ctx *ctx, int v, const double *z, const int *idx, const double *g, int B,
                     int Rg, size_t stride, int D, double step, double *m, double *s,
                     const int *nR) {
    cudaStream_t st = haze__stream(ctx);
    if (v == 1) {
        k_update_ms_base<<<(unsigned)Rg, D, 0, st>>>(z, idx, g, B, Rg, stride, D, step, m, s, nR);
    } else {
        haze__fnn_state *S = NULL;
        int e = haze__fnn_state_of(ctx, &S);
        if (e) return e;
        const int t_ms = bound_threads(S, &S->t_ms, (const void *)k_update_ms);
        long long tasks = (long long)Rg * D;
        long long blocks = (tasks + t_ms - 1) / t_ms,
                  full = (long long)S->sms * (S->threads_per_sm / t_ms);
        if (blocks > full) blocks = full; /* grid-stride: one full wave of resident blocks */
        k_update_ms<<<(unsigned)blocks, t_ms, 0, st>>>(z, idx, g, B, Rg, stride, D, step, m, s, nR);
    }
    HAZE_CUDA_TRY_LAUNCH(ctx);
    return HAZE_OK;
}

/* The update's layout per shape, timed like the firing candidates. The
 * candidates run with step 0, which leaves m and s unchanged
 * (m - 0 * gm = m), so the search has no effect on training. */
static int choose_ms_locked(haze_ctx *ctx, haze__fnn_state *S, const double *z, const int *idx,
                            const double *g, int B, int Rg, size_t stride, int D, double *m,
                            double *s, const int *nR, int *out) {
    int Rb = next_pow2(Rg);
    const search_entry *hit = haze__fnn_cache_find(&S->ms_cache, ctx->device, D, Rb, B);
    if (hit) {
        *out = hit->v;
        return HAZE_OK;
    }
    int best = 0, st = HAZE_OK;
    if (D <= 1024) {
        cudaEvent_t e0, e1;
        HAZE_CUDA_TRY(ctx, cudaEventCreate(&e0));
        HAZE_CUDA_TRY(ctx, cudaEventCreate(&e1));
        float best_ms = INFINITY;
        for (int v = 0; v < 2 && st == HAZE_OK; v++) {
            st = launch_ms(ctx, v, z, idx, g, B, Rg, stride, D, 0.0, m, s, nR);
            if (st == HAZE_OK && cudaEventRecord(e0, haze__stream(ctx)) != cudaSuccess)
                st = HAZE_ERR_CUDA;
            for (int rep = 0; rep < 5 && st == HAZE_OK; rep++)
                st = launch_ms(ctx, v, z, idx, g, B, Rg, stride, D, 0.0, m, s, nR);
            float ms = 0;
            if (st == HAZE_OK && (cudaEventRecord(e1, haze__stream(ctx)) != cudaSuccess ||
                                  cudaEventSynchronize(e1) != cudaSuccess ||
                                  cudaEventElapsedTime(&ms, e0, e1) != cudaSuccess))
                st = haze__error(ctx, HAZE_ERR_CUDA, "fnn: timing the update candidates failed");
            if (st == HAZE_OK && ms < best_ms) best_ms = ms, best = v;
        }
        cudaEventDestroy(e0);
        cudaEventDestroy(e1);
        if (st) return st;
    }
    haze__fnn_cache_add(&S->ms_cache, search_entry{ctx->device, D, Rb, B, best});
    *out = best;
    return HAZE_OK;
}

/* Centres and widths of rules < Rg (those below *nR exist). */
static int update_ms(haze_ctx *ctx, const double *z, const int *idx, const double *g, int B, int Rg,
                     size_t stride, int D, double step, double *m, double *s, const int *nR) {
    haze__fnn_state *S = NULL;
    int e = haze__fnn_state_of(ctx, &S);
    if (e) return e;
    if (S->mapping == HAZE__FNN_MAP_GPUFNN) {
        if (D > 1024)
            return haze__error(ctx, HAZE_ERR_UNSUPPORTED, "fnn: GPU-FNN needs <= 1024 inputs");
        return launch_ms(ctx, 1, z, idx, g, B, Rg, stride, D, step, m, s, nR);
    }
    int v = 0;
    haze__fnn_lock(&S->search_lock);
    int st = choose_ms_locked(ctx, S, z, idx, g, B, Rg, stride, D, m, s, nR, &v);
    haze__fnn_unlock(&S->search_lock);
    if (st) return st;
    return launch_ms(ctx, v, z, idx, g, B, Rg, stride, D, step, m, s, nR);
}

/* Task matrices up to this size are updated inside the step kernel. */
#define FUSE_MS_TASKS 2048

/* The online step after the firing kernel: k_step1, then the centres and
 * widths unless k_step1 did them. */
int haze__fnn_online_step(haze_ctx *ctx, const step_args &p, int Rg, double *lm, double *g,
                          double *e, double step) {
    haze__fnn_state *S = NULL;
    int st = haze__fnn_state_of(ctx, &S);
    if (st) return st;
    int fuse = S->mapping == HAZE__FNN_MAP_ATM && (long long)Rg * p.D <= FUSE_MS_TASKS;
    int nt = sample_threads(Rg, p.L);
    if (fuse && nt < 512) nt = 512;
    k_step1<<<1, nt, 0, haze__stream(ctx)>>>(p, lm, g, e, step, fuse);
    HAZE_CUDA_TRY_LAUNCH(ctx);
    if (fuse) return HAZE_OK;
    return update_ms(ctx, p.z, p.idx, g, 1, Rg, 0, p.D, step, p.m, p.s, p.nR);
}

/* A mini-batch step of B samples after the firing kernel: structure
 * learning of the batch by one block, layer 4 and g by one block per
 * sample, then the centres and widths and the consequents. */
int haze__fnn_batch_step(haze_ctx *ctx, const step_args &p, int Rg, size_t stride, int B,
                         double *lm, double *g, double *e, double step) {
    cudaStream_t st = haze__stream(ctx);
    int nt = sample_threads(Rg, p.L);
    k_structure<<<1, nt, 0, st>>>(p, lm, stride, B);
    HAZE_CUDA_TRY_LAUNCH(ctx);
    k_layer4<<<(unsigned)B, nt, 0, st>>>(p, lm, stride, e, g);
    HAZE_CUDA_TRY_LAUNCH(ctx);
    /* m and s, then w: g already holds what the old w gave */
    int s = update_ms(ctx, p.z, p.idx, g, B, Rg, stride, p.D, step, p.m, p.s, p.nR);
    if (s) return s;
    long long nw = (long long)Rg * p.L;
    k_update_w<<<(unsigned)((nw + 255) / 256), 256, 0, st>>>(lm, e, B, Rg, stride, p.L, step, p.w,
                                                             p.nR);
    HAZE_CUDA_TRY_LAUNCH(ctx);
    return HAZE_OK;
}

/* Prediction: layer 4 of B samples (p.Rfix rules) into y (B x L). */
int haze__fnn_outputs(haze_ctx *ctx, const step_args &p, double *lm, size_t stride, int B,
                      double *y) {
    k_layer4<<<(unsigned)B, sample_threads(p.Rfix, p.L), 0, haze__stream(ctx)>>>(p, lm, stride, y,
                                                                                 NULL);
    HAZE_CUDA_TRY_LAUNCH(ctx);
    return HAZE_OK;
}
