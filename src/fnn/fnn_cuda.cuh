/*
 * src/fnn/fnn_cuda.cuh - what the CUDA files of the SONFIN backend share.
 *
 * Why a header: the backend is four files by kernel family (below), and they
 * need the same short-latency device arithmetic, the same block reductions,
 * the kernels' argument blocks, the device buffers of a run and the
 * context's tuning state. Everything on the device here is static (each .cu
 * file compiles its own copy); no kernel or device helper of the backend
 * has external linkage, and the host functions the files call one another
 * through are named haze__fnn_*.
 *
 *   fnn_cuda.cu          the training driver (the epoch loop on the device,
 *                        its buffers) and prediction
 *   fnn_cuda_launch.cu   the kernels launched per step (firing, structure,
 *                        layer 4, updates) and the configuration search
 *   fnn_cuda_cluster.cu  online training in one thread-block cluster with
 *                        the parameters in shared memory (Hopper and later)
 *   fnn_cuda_reg.cu      the same with every parameter in registers
 *
 * The development library (dev/fnn_dev.cu: timing probes, forced
 * configurations, ULP probes) reaches the engine through this header and
 * the tuning state below; libhaze holds none of it.
 */
#ifndef HAZE_FNN_CUDA_CUH
#define HAZE_FNN_CUDA_CUH

#include <cooperative_groups.h>
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/cuda.h"
#include "core/internal.h"
#include "fnn/fnn_internal.h"

namespace cg = cooperative_groups;

/* ------------------------------------------------ short-latency arithmetic */

/*
 * An online step is a chain of dependent phases with little work in each,
 * so the latency of one double division (about 140 ns on an H100) or one
 * exp (about 200 ns) is paid several times per step; inside the firing loop
 * a division per input also blocks the overlap of the inputs. The two
 * functions below return the same values to a few ulps (the IEEE division
 * and exp round once) in about a quarter of the dependent latency. The CPU
 * keeps the plain division and exp; the comparison tests' tolerance (1e-6
 * relative) is many orders above the difference.
 */

/* 1/s for a normal s: the hardware's approximate reciprocal r, then one
 * third-order step r += r (e + e^2) with e = 1 - s r, which cubes the
 * relative error (three dependent FMAs where two Newton steps take four). */
static __device__ __forceinline__ double fnn_rcp(double s) {
    double r;
    asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(s));
    double e = fma(-s, r, 1.0);
    return fma(r, fma(e, e, e), r);
}

/* e^u for u <= 0 (0 below -700): u = n ln 2 + r with |r| <= ln 2 / 2 (ln 2
 * in two parts), e^r by its Taylor polynomial of degree 12 (truncation
 * below 2e-16) in Estrin's scheme, times 2^n. */
static __device__ __forceinline__ double fnn_exp(double u) {
    if (u < -700.0) return 0.0;
    const double shift = 0x1.8p52;
    double t = fma(u, 0x1.71547652b82fep0, shift); /* n + shift: n = rint(u / ln 2) */
    double n = t - shift;
    double r = fma(n, -0x1.62e42fefa39efp-1, u);
    r = fma(n, -0x1.abc9e3b39803fp-56, r);
    double r2 = r * r, r4 = r2 * r2, r8 = r4 * r4;
    double p01 = fma(r, 1.0, 1.0), p23 = fma(r, 1.0 / 6, 0.5);
    double p45 = fma(r, 1.0 / 120, 1.0 / 24), p67 = fma(r, 1.0 / 5040, 1.0 / 720);
    double p89 = fma(r, 1.0 / 362880, 1.0 / 40320);
    double p1011 = fma(r, 1.0 / 39916800, 1.0 / 3628800);
    double q03 = fma(r2, p23, p01), q47 = fma(r2, p67, p45), q811 = fma(r2, p1011, p89);
    double q07 = fma(r4, q47, q03), q812 = fma(r4, 1.0 / 479001600, q811);
    double e = fma(r8, q812, q07);
    int ni = __double2loint(t); /* n, two's complement in the low word */
    return e * __hiloint2double((ni + 1023) << 20, 0);
}

/* ------------------------------------------------------ block reductions */

/* Block-wide sum; every thread gets the result. Any blockDim that is a
 * multiple of 32, up to 1024. */
static __device__ inline double block_sum(double v) {
    __shared__ double sh[32];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    __syncthreads(); /* sh may still be read by a previous call */
    if (lane == 0) sh[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < nw ? sh[lane] : 0.0;
        for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
        if (lane == 0) sh[0] = v;
    }
    __syncthreads();
    return sh[0];
}

/* Block-wide maximum with the lowest index among equal values (the CPU's
 * first argmax); every thread gets both. */
static __device__ inline void block_maxarg(double *v, int *k) {
    __shared__ double sv[32];
    __shared__ int sk[32];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;
    double a = *v;
    int ka = *k;
    for (int off = 16; off > 0; off >>= 1) {
        double b = __shfl_down_sync(0xffffffffu, a, off);
        int kb = __shfl_down_sync(0xffffffffu, ka, off);
        if (b > a || (b == a && kb < ka)) a = b, ka = kb;
    }
    __syncthreads();
    if (lane == 0) sv[warp] = a, sk[warp] = ka;
    __syncthreads();
    if (warp == 0) {
        a = lane < nw ? sv[lane] : -INFINITY;
        ka = lane < nw ? sk[lane] : 0x7fffffff;
        for (int off = 16; off > 0; off >>= 1) {
            double b = __shfl_down_sync(0xffffffffu, a, off);
            int kb = __shfl_down_sync(0xffffffffu, ka, off);
            if (b > a || (b == a && kb < ka)) a = b, ka = kb;
        }
        if (lane == 0) sv[0] = a, sk[0] = ka;
    }
    __syncthreads();
    *v = sv[0];
    *k = sk[0];
}

/* ------------------------------------------------ the kernels' arguments */

/* What the per-sample kernels need; passed by value. */
typedef struct {
    const double *z, *d; /* standardised inputs (n x D), targets (n x L) */
    const int *idx;      /* sample of each batch position (NULL: position = sample) */
    double *m, *s, *w;   /* parameters, room for `limit` rules */
    int *nR;             /* the device's rule counter (NULL: Rfix rules) */
    int Rfix;
    int D, L;
    int limit; /* no rule is made at or beyond this count (capacity, max_rules) */
    double log_th, beta, sigma0, width; /* width > 0: fixed width of new rules */
} step_args;

/* The online kernels' arguments (cluster and register kernels). */
typedef struct {
    const double *z, *d; /* standardised inputs, targets */
    const int *idx;      /* sample of each step */
    int n;               /* steps */
    double *m, *s, *w;   /* parameters in device memory, room for the limit */
    int *nR, *pos;       /* rule count (in and out); steps done (out) */
    double *e;           /* n x L: y - d of each step, before its update */
    int D, L, G;         /* G: lanes per rule, a power of two <= 32 */
    int limit, grow;     /* no rule at or beyond limit; grow: stop there instead */
    int Qtot, Qs;        /* slots per block; slots with parameters in shared memory */
    double log_th, beta, sigma0, width, step;
    int xasync; /* the kernel whose exchange is by st.async on transaction barriers (1) or at the
                   cluster's barrier (0) */
} res_args;

/* The device buffers of one training or prediction run (haze__fnn_dev_*). */
typedef struct {
    double *z, *d, *m, *s, *w, *lm, *e, *g;
    int *order, *nR, *pos;
    size_t cap, lm_cap;
    size_t mD, wL;         /* widths of the cap rows of m and s, and of w */
    size_t zn, dn, en, on; /* elements of z, d, e and order (for haze__dev_free) */
} dev_state;

/* ------------------------------------------- the context's tuning state */

/* Thread mapping and online path (haze_dev_fnn_set_* force them per context). */
#define RES_THREADS      512  /* threads per block of the cluster kernel */
#define RES_THREADS_WIDE 1024 /* with many inputs per rule */
#define RES_MAX_CLUSTER  16

#define MAX_FIRE_VARIANTS 24
/* The firing variants in the order of the launch file's table (their names
 * for the development library's report of the search's choice). */
#define HAZE__FNN_N_VARIANTS 20
static inline const char *haze__fnn_variant_name(int v) {
    static const char *const names[HAZE__FNN_N_VARIANTS] = {
        "column G=32",       "column G=16",        "column G=8",        "column G=4",
        "column G=2",        "column G=1",         "row N=2",           "row N=4",
        "row N=8",           "column G=32 P=64",   "column G=32 P=128", "column G=32 P=256",
        "column G=32 P=512", "column G=32 P=1024", "block T=64",        "block T=128",
        "block T=256",       "block T=512",        "block T=1024",      "GPU-FNN"};
    return v >= 0 && v < HAZE__FNN_N_VARIANTS ? names[v] : NULL;
}

/* One result of the configuration search: variant v for (device, inputs,
 * rules rounded up to a power of two, samples per step). */
typedef struct {
    int dev, D, Rb, B, v;
} search_entry;

/* The search's results. It grows as shapes come; where memory for that runs
 * out it replaces its oldest entry (it never stops caching). */
typedef struct {
    search_entry *e;
    size_t n, cap, next; /* next: the entry replaced when it cannot grow */
} search_cache;

/*
 * Per context (haze__ctx_state, HAZE__STATE_FNN): the switches the
 * development library sets, what the context's device gives the kernels
 * (read and bound on first use; a context has one device), and the
 * search's results. The switches are set while nothing runs on the context
 * (like haze_ctx_set_threads); the rest changes under the locks and the
 * device fields are read with acquire loads where a step cannot afford the
 * lock.
 */
typedef struct {
    int lock;        /* spin lock (zero: free) of the device fields */
    int search_lock; /* another of the caches: a search binds block sizes under `lock` */
    /* switches (0: the library's choice) */
    int mapping;         /* HAZE__FNN_MAP_* */
    int online;          /* HAZE__FNN_ONLINE_* */
    int reg_C, reg_NW;   /* register kernel: cluster size and warps per block forced */
    int cluster_threads; /* cluster kernel: block size forced (RES_THREADS[_WIDE]) */
    int exchange;        /* HAZE__FNN_XCHG_*: how the online kernels' blocks exchange */
    /* the device */
    int sms, threads_per_sm;             /* sms 0: not read yet */
    int t_ms;                            /* block size of the centre/width update, 0: not bound */
    int fire_threads[MAX_FIRE_VARIANTS]; /* bound block size per firing variant */
    int res_read;                        /* the online kernels' fields below are set */
    int res_cluster;                     /* cluster size of the cluster kernel, 0: no clusters */
    size_t res_smem;                     /* dynamic shared memory per block of the cluster kernel */
    int reg_cluster;                     /* largest cluster of the register kernel, 0: none */
    search_cache fire_cache, ms_cache;
} haze__fnn_state;

static inline void haze__fnn_lock(int *lock) {
    while (__atomic_exchange_n(lock, 1, __ATOMIC_ACQUIRE)) sched_yield();
}

static inline void haze__fnn_unlock(int *lock) {
    __atomic_store_n(lock, 0, __ATOMIC_RELEASE);
}

static inline int next_pow2(int r) {
    int p = 1;
    while (p < r) p *= 2;
    return p;
}

/* The entry for a shape, or NULL (under the state's lock). */
static inline const search_entry *haze__fnn_cache_find(const search_cache *c, int dev, int D,
                                                       int Rb, int B) {
    for (size_t i = 0; i < c->n; i++)
        if (c->e[i].dev == dev && c->e[i].D == D && c->e[i].Rb == Rb && c->e[i].B == B)
            return &c->e[i];
    return NULL;
}

/* The context's state block as it is (NULL: out of memory). */
haze__fnn_state *haze__fnn_state_block(haze_ctx *ctx);
/* The context's state, its device's numbers read (HAZE_ERR_NOMEM or
 * HAZE_ERR_CUDA recorded in ctx otherwise). */
int haze__fnn_state_of(haze_ctx *ctx, haze__fnn_state **out);
/* Records a search result (under the lock). */
void haze__fnn_cache_add(search_cache *c, search_entry e);

/* --------------------------------------------- internal entry points */

/* Device buffers (fnn_cuda.cu). */
void haze__fnn_dev_free(haze_ctx *ctx, dev_state *ds);
int haze__fnn_dev_reserve(haze_ctx *ctx, dev_state *ds, size_t rules, size_t keep, size_t D,
                          size_t L);
int haze__fnn_dev_scratch(haze_ctx *ctx, dev_state *ds, size_t B, size_t stride);
int haze__fnn_dev_alloc(haze_ctx *ctx, double **p, size_t *count, size_t n, const char *what);
int haze__fnn_dev_alloc_int(haze_ctx *ctx, int **p, size_t *count, size_t n, const char *what);
int haze__fnn_set_rule_count(haze_ctx *ctx, dev_state *ds, int R);

/* Kernels launched per step (fnn_cuda_launch.cu). */
/* Firing variant v (0 .. HAZE__FNN_N_VARIANTS - 1, the last the GPU-FNN
 * kernel, which needs D <= 1024) launched as it stands, without the search
 * (the development library's check that the candidates agree). */
int haze__fnn_fire_variant(haze_ctx *ctx, int v, const double *z, int B, const double *m,
                           const double *s, int Rg, int D, double *lm);
int haze__fnn_fire(haze_ctx *ctx, const double *z, const int *idx, int B, const double *m,
                   const double *s, int Rg, size_t stride, int D, double *lm, const int *nR);
int haze__fnn_online_step(haze_ctx *ctx, const step_args &p, int Rg, double *lm, double *g,
                          double *e, double step);
int haze__fnn_batch_step(haze_ctx *ctx, const step_args &p, int Rg, size_t stride, int B,
                         double *lm, double *g, double *e, double step);
int haze__fnn_outputs(haze_ctx *ctx, const step_args &p, double *lm, size_t stride, int B,
                      double *y);

/* Online training in one cluster (fnn_cuda_cluster.cu, fnn_cuda_reg.cu). */
int haze__fnn_res_device(haze_ctx *ctx, const haze__fnn_state **out);
int haze__fnn_res_layout(const haze__fnn_state *P, int D, int L, size_t cap, int C, int *Qtot,
                         int *Qs);
int haze__fnn_res_cluster_for(const haze__fnn_state *P, int D, int L, size_t cap);
int haze__fnn_res_wanted(haze_ctx *ctx, size_t D, size_t L, size_t R);
int haze__fnn_res_run(haze_ctx *ctx, dev_state *ds, const int *didx, int n, double *e, int D, int L,
                      int r0, int limit, int grow, const haze__fnn_train_args *a, double rate,
                      int C, int *done, int *R);

/* The register kernel's configuration: C blocks of NW warps, G lanes per
 * rule, E inputs per lane at most. */
/*
 * The transaction barriers of the online kernels' st.async exchange (Hopper
 * on): each block's two barriers (by exchange parity), set up before the
 * cluster's first barrier; a block expects the bytes the cluster sends it,
 * the stores complete them, and its threads wait on the phase.
 */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
static __device__ __forceinline__ void fnn_xbar_init(uint64_t *bars) {
    for (int b = 0; b < 2; b++)
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(
            (uint32_t)__cvta_generic_to_shared(bars + b)));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

static __device__ __forceinline__ void fnn_xbar_expect(uint64_t *bar, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                 :
                 : "r"((uint32_t)__cvta_generic_to_shared(bar)), "r"(bytes)
                 : "memory");
}

static __device__ __forceinline__ void fnn_xbar_wait(uint64_t *bar, unsigned parity) {
    asm volatile("{\n\t.reg .pred done;\n"
                 "FNN_XBAR_WAIT:\n\t"
                 "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n\t"
                 "@!done bra FNN_XBAR_WAIT;\n}"
                 :
                 : "r"((uint32_t)__cvta_generic_to_shared(bar)), "r"(parity)
                 : "memory");
}
#endif

typedef struct {
    int C, NW, G, E;
} reg_cfg;
int haze__fnn_reg_config(const haze__fnn_state *P, int D, int L, size_t cap, reg_cfg *out);
int haze__fnn_reg_max_cluster(haze_ctx *ctx, int *out);
int haze__fnn_reg_launch(haze_ctx *ctx, cudaLaunchConfig_t *cfg, const reg_cfg *rc, res_args p);

/* The largest cluster kernel k runs in, with `threads` per block and `smem`
 * bytes of dynamic shared memory (attributes set for both); 0 where the
 * device has no clusters. */
static inline cudaError_t haze__fnn_max_cluster(const void *k, int threads, size_t smem, int *out) {
    *out = 0;
    cudaError_t e = cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    if (e == cudaSuccess)
        e = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e != cudaSuccess) return e;
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute at;
    at.id = cudaLaunchAttributeClusterDimension;
    at.val.clusterDim.x = RES_MAX_CLUSTER, at.val.clusterDim.y = 1, at.val.clusterDim.z = 1;
    cfg.gridDim = dim3(RES_MAX_CLUSTER), cfg.blockDim = dim3((unsigned)threads);
    cfg.dynamicSmemBytes = smem, cfg.attrs = &at, cfg.numAttrs = 1;
    if (cudaOccupancyMaxPotentialClusterSize(out, k, &cfg) != cudaSuccess) {
        cudaGetLastError(); /* no clusters here: the launch path stays */
        *out = 0;
    }
    return cudaSuccess;
}

#endif
