/*
 * dev/fnn_dev.cu - the SONFIN GPU backend's development interface
 * (dev/fnn_dev.h): the switches set the context's tuning state
 * (src/fnn/fnn_cuda.cuh), the probes run the library's own kernels through
 * its internal entry points (haze__fnn_fire, haze__fnn_online_step,
 * haze__fnn_res_run) on random networks, and the ULP probe runs the
 * kernels' device arithmetic in a kernel of its own.
 */
#include "fnn_dev.h"

#include "core/rng.h"
#include "fnn/fnn_cuda.cuh"

#define TRY(call)                                                                                  \
    do {                                                                                           \
        if ((s = (call)) != HAZE_OK) goto out;                                                     \
    } while (0)
#define CTRY(call) HAZE_CUDA_GOTO(ctx, s, out, call)

static int state(haze_ctx *ctx, haze__fnn_state **S) {
    *S = haze__fnn_state_block(ctx);
    return *S ? HAZE_OK : haze__error(ctx, HAZE_ERR_NOMEM, "fnn: out of memory");
}

int haze_dev_fnn_set_mapping(haze_ctx *ctx, int mapping) {
    haze__fnn_state *S = NULL;
    int s = state(ctx, &S);
    if (s) return s;
    if (mapping != HAZE_DEV_FNN_MAP_ATM && mapping != HAZE_DEV_FNN_MAP_GPUFNN)
        return haze__error(ctx, HAZE_ERR_INVALID, "fnn: no mapping %d", mapping);
    S->mapping = mapping == HAZE_DEV_FNN_MAP_GPUFNN ? HAZE__FNN_MAP_GPUFNN : HAZE__FNN_MAP_ATM;
    return HAZE_OK;
}

int haze_dev_fnn_set_online(haze_ctx *ctx, int mode) {
    haze__fnn_state *S = NULL;
    int s = state(ctx, &S);
    if (s) return s;
    if (mode < HAZE_DEV_FNN_ONLINE_AUTO || mode > HAZE_DEV_FNN_ONLINE_REGISTER)
        return haze__error(ctx, HAZE_ERR_INVALID, "fnn: no online mode %d", mode);
    static_assert((int)HAZE_DEV_FNN_ONLINE_REGISTER == (int)HAZE__FNN_ONLINE_REGISTER &&
                      (int)HAZE_DEV_FNN_ONLINE_CLUSTER == (int)HAZE__FNN_ONLINE_CLUSTER &&
                      (int)HAZE_DEV_FNN_ONLINE_LAUNCH == (int)HAZE__FNN_ONLINE_LAUNCH,
                  "online modes");
    S->online = mode;
    return HAZE_OK;
}

int haze_dev_fnn_set_register_config(haze_ctx *ctx, int C, int NW) {
    haze__fnn_state *S = NULL;
    int s = state(ctx, &S);
    if (s) return s;
    if (C < 0 || NW < 0 || (C > 0) != (NW > 0))
        return haze__error(ctx, HAZE_ERR_INVALID, "fnn: register configuration %d x %d", C, NW);
    S->reg_C = C, S->reg_NW = NW;
    return HAZE_OK;
}

int haze_dev_fnn_set_cluster_threads(haze_ctx *ctx, int threads) {
    haze__fnn_state *S = NULL;
    int s = state(ctx, &S);
    if (s) return s;
    if (threads != 0 && threads != RES_THREADS && threads != RES_THREADS_WIDE)
        return haze__error(ctx, HAZE_ERR_INVALID, "fnn: cluster block size %d", threads);
    S->cluster_threads = threads;
    return HAZE_OK;
}

int haze_dev_fnn_set_exchange(haze_ctx *ctx, int how) {
    haze__fnn_state *S = NULL;
    int s = state(ctx, &S);
    if (s) return s;
    if (how != HAZE_DEV_FNN_XCHG_AUTO && how != HAZE_DEV_FNN_XCHG_ASYNC &&
        how != HAZE_DEV_FNN_XCHG_BARRIER)
        return haze__error(ctx, HAZE_ERR_INVALID, "fnn: exchange %d", how);
    static_assert((int)HAZE_DEV_FNN_XCHG_ASYNC == (int)HAZE__FNN_XCHG_ASYNC &&
                      (int)HAZE_DEV_FNN_XCHG_BARRIER == (int)HAZE__FNN_XCHG_BARRIER,
                  "the development library's exchange names the library's");
    S->exchange = how;
    return HAZE_OK;
}

const char *haze_dev_fnn_choice(haze_ctx *ctx, size_t D, size_t R, size_t B) {
    haze__fnn_state *S = haze__fnn_state_block(ctx);
    if (!S) return NULL;
    haze__fnn_lock(&S->search_lock);
    const search_entry *e =
        haze__fnn_cache_find(&S->fire_cache, ctx->device, (int)D, next_pow2((int)R), (int)B);
    const char *name = e ? haze__fnn_variant_name(e->v) : NULL;
    haze__fnn_unlock(&S->search_lock);
    return name;
}

int haze_dev_fnn_variants(void) {
    return HAZE__FNN_N_VARIANTS;
}

int haze_dev_fnn_fire_variant(haze_ctx *ctx, int v, const double *z, size_t B, const double *m,
                              const double *s, size_t R, size_t D, double *lm) {
    int st = haze__cuda_begin(ctx);
    if (st) return st;
    if (!z || !m || !s || !lm || B == 0 || R == 0 || D == 0 || B > 65535 || R > 65535 || D > 65535)
        return haze__error(ctx, HAZE_ERR_INVALID, "fnn: firing variant: bad arguments");
    double *d = NULL;
    const size_t nz = B * D, nm = R * D, nl = B * R;
    if ((st = haze__fnn_dev_alloc(ctx, &d, NULL, nz + 2 * nm + nl, "fnn firing check")) != HAZE_OK)
        return st;
    cudaStream_t cs = haze__stream(ctx);
    cudaError_t ce = cudaMemcpyAsync(d, z, nz * sizeof(double), cudaMemcpyHostToDevice, cs);
    if (ce == cudaSuccess)
        ce = cudaMemcpyAsync(d + nz, m, nm * sizeof(double), cudaMemcpyHostToDevice, cs);
    if (ce == cudaSuccess)
        ce = cudaMemcpyAsync(d + nz + nm, s, nm * sizeof(double), cudaMemcpyHostToDevice, cs);
    if (ce == cudaSuccess) {
        st = haze__fnn_fire_variant(ctx, v, d, (int)B, d + nz, d + nz + nm, (int)R, (int)D,
                                    d + nz + 2 * nm);
        if (st == HAZE_OK)
            ce = cudaMemcpyAsync(lm, d + nz + 2 * nm, nl * sizeof(double), cudaMemcpyDeviceToHost,
                                 cs);
        if (st == HAZE_OK && ce == cudaSuccess) ce = cudaStreamSynchronize(cs);
    }
    haze__dev_free(ctx, d, (nz + 2 * nm + nl) * sizeof(double));
    if (st == HAZE_OK && ce != cudaSuccess)
        st = haze__error(ctx, HAZE_ERR_CUDA, "CUDA: firing check: %s", cudaGetErrorString(ce));
    return st;
}

size_t haze_dev_fnn_cached(haze_ctx *ctx) {
    haze__fnn_state *S = haze__fnn_state_block(ctx);
    if (!S) return 0;
    haze__fnn_lock(&S->search_lock);
    size_t n = S->fire_cache.n + S->ms_cache.n;
    haze__fnn_unlock(&S->search_lock);
    return n;
}

static __global__ void k_fill(double *p, size_t n, double lo, double hi, unsigned long long seed) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long x = (i + 1) * 0x9e3779b97f4a7c15ULL ^ seed;
    x ^= x >> 31;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 29;
    p[i] = lo + (hi - lo) * (double)(x >> 11) * 0x1.0p-53;
}

/* A network of R random rules on D inputs, L outputs and one sample for
 * the step timings (ds has room for R rules). */
static int bench_network(haze_ctx *ctx, dev_state *ds, size_t D, size_t R, size_t L) {
    cudaStream_t st = haze__stream(ctx);
    k_fill<<<(unsigned)((D + 255) / 256), 256, 0, st>>>(ds->z, D, -1, 1, 1);
    k_fill<<<(unsigned)((R * D + 255) / 256), 256, 0, st>>>(ds->m, R * D, -1, 1, 2);
    k_fill<<<(unsigned)((R * D + 255) / 256), 256, 0, st>>>(ds->s, R * D, 0.5 * sqrt((double)D),
                                                            sqrt((double)D), 3);
    k_fill<<<(unsigned)((R * L + 255) / 256), 256, 0, st>>>(ds->w, R * L, 0, 1, 4);
    k_fill<<<1, 256, 0, st>>>(ds->d, L, 0, 1, 5);
    HAZE_CUDA_TRY_LAUNCH(ctx);
    return HAZE_OK;
}

int haze_dev_fnn_step_time(haze_ctx *ctx, size_t D, size_t R, size_t L, int mapping, int reps,
                           double *fire_us, double *update_us) {
    int s = haze__cuda_begin(ctx);
    if (s) return s;
    if (reps <= 0) return haze__error(ctx, HAZE_ERR_INVALID, "fnn step time: reps must be > 0");
    if (mapping == HAZE_DEV_FNN_MAP_GPUFNN && D > 1024)
        return haze__error(ctx, HAZE_ERR_UNSUPPORTED, "GPU-FNN: at most 1024 inputs");
    haze__fnn_state *S = NULL;
    if ((s = haze__fnn_state_of(ctx, &S)) != HAZE_OK) return s;
    const int keep = S->mapping;
    S->mapping = mapping == HAZE_DEV_FNN_MAP_GPUFNN ? HAZE__FNN_MAP_GPUFNN : HAZE__FNN_MAP_ATM;
    dev_state ds;
    memset(&ds, 0, sizeof ds);
    cudaStream_t st = haze__stream(ctx);
    cudaEvent_t e0 = NULL, e1 = NULL, e2 = NULL;
    float f_ms = 0, u_ms = 0;
    TRY(haze__fnn_dev_alloc(ctx, &ds.z, &ds.zn, D, "fnn step time"));
    TRY(haze__fnn_dev_alloc(ctx, &ds.d, &ds.dn, L, "fnn step time"));
    TRY(haze__fnn_dev_alloc(ctx, &ds.e, &ds.en, L, "fnn step time"));
    TRY(haze__fnn_dev_alloc_int(ctx, &ds.order, &ds.on, 1, "fnn step time"));
    CTRY(cudaMemsetAsync(ds.order, 0, sizeof(int), st));
    TRY(haze__fnn_dev_reserve(ctx, &ds, R, 0, D, L));
    TRY(haze__fnn_dev_scratch(ctx, &ds, 1, R));
    TRY(haze__fnn_set_rule_count(ctx, &ds, (int)R));
    TRY(bench_network(ctx, &ds, D, R, L));
    CTRY(cudaEventCreate(&e0));
    CTRY(cudaEventCreate(&e1));
    CTRY(cudaEventCreate(&e2));
    {
        /* a training step with threshold 0 and the network full (limit = R):
         * structure learning looks but makes no rule, as in the thesis's
         * parameter-learning phase; a tiny rate keeps the network stable */
        step_args p = {ds.z,   ds.d,   ds.order, ds.m,      ds.s, ds.w, ds.nR, 0,
                       (int)D, (int)L, (int)R,   -INFINITY, 0.5,  1.0,  0.0};
        /* warm-up (and, for ATM, the configuration search) */
        TRY(haze__fnn_fire(ctx, ds.z, ds.order, 1, ds.m, ds.s, (int)R, R, (int)D, ds.lm, ds.nR));
        TRY(haze__fnn_online_step(ctx, p, (int)R, ds.lm, ds.g, ds.e, 1e-9));
        /* steps queued back to back, as in training: the firing kernel
         * alone, then whole steps; the rest of the step is the difference.
         * The best of three trials of each: a trial the host or another
         * process held up measures that, not the kernels. */
        float best_f = INFINITY, best_t = INFINITY;
        for (int trial = 0; trial < 3; trial++) {
            float t_ms = 0;
            CTRY(cudaEventRecord(e0, st));
            for (int r = 0; r < reps; r++)
                TRY(haze__fnn_fire(ctx, ds.z, ds.order, 1, ds.m, ds.s, (int)R, R, (int)D, ds.lm,
                                   ds.nR));
            CTRY(cudaEventRecord(e1, st));
            for (int r = 0; r < reps; r++) {
                TRY(haze__fnn_fire(ctx, ds.z, ds.order, 1, ds.m, ds.s, (int)R, R, (int)D, ds.lm,
                                   ds.nR));
                TRY(haze__fnn_online_step(ctx, p, (int)R, ds.lm, ds.g, ds.e, 1e-9));
            }
            CTRY(cudaEventRecord(e2, st));
            CTRY(cudaEventSynchronize(e2));
            CTRY(cudaEventElapsedTime(&f_ms, e0, e1));
            CTRY(cudaEventElapsedTime(&t_ms, e1, e2));
            if (f_ms < best_f) best_f = f_ms;
            if (t_ms < best_t) best_t = t_ms;
        }
        f_ms = best_f;
        u_ms = best_t - best_f;
        if (u_ms < 0) u_ms = 0;
    }
    *fire_us = 1000.0 * f_ms / reps;
    *update_us = 1000.0 * u_ms / reps;
out:
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    if (e2) cudaEventDestroy(e2);
    haze__fnn_dev_free(ctx, &ds);
    S->mapping = keep;
    return s;
}

int haze_dev_fnn_uses_cluster(haze_ctx *ctx, size_t D, size_t L, size_t R) {
    const haze__fnn_state *P = NULL;
    if (haze__cuda_begin(ctx) || !haze__fnn_res_wanted(ctx, D, L, R) ||
        haze__fnn_res_device(ctx, &P))
        return 0;
    return haze__fnn_res_cluster_for(P, (int)D, (int)L, R);
}

int haze_dev_fnn_register_config(haze_ctx *ctx, size_t D, size_t L, size_t R, int *C, int *NW,
                                 int *G) {
    const haze__fnn_state *P = NULL;
    reg_cfg rc;
    if (haze__cuda_begin(ctx) || !haze__fnn_res_wanted(ctx, D, L, R) ||
        haze__fnn_res_device(ctx, &P) || !haze__fnn_reg_config(P, (int)D, (int)L, R, &rc))
        return 0;
    *C = rc.C, *NW = rc.NW, *G = rc.G;
    return 1;
}

static __global__ void k_math_check(const double *x, const double *y, double *e, double *r, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        e[i] = fnn_exp(x[i]);
        r[i] = fnn_rcp(y[i]);
    }
}

static double ulps_from(double a, double b) {
    double ub = nextafter(fabs(b), INFINITY) - fabs(b);
    return fabs(a - b) / ub;
}

int haze_dev_fnn_math_ulps(haze_ctx *ctx, size_t n, double *exp_ulps, double *rcp_ulps) {
    int s = haze__cuda_begin(ctx);
    if (s) return s;
    if (n < 4 || n > (1u << 26)) return haze__error(ctx, HAZE_ERR_INVALID, "fnn: n out of range");
    cudaStream_t st = haze__stream(ctx);
    double *h = (double *)malloc(4 * n * sizeof(double)), *d = NULL;
    if (!h) return haze__error(ctx, HAZE_ERR_NOMEM, "fnn: out of memory");
    double *x = h, *y = h + n, *e = h + 2 * n, *r = h + 3 * n;
    haze__rng rng;
    haze__rng_seed(&rng, 1);
    for (size_t i = 0; i < n; i++) /* the whole range, and near 0 finely */
        x[i] = -haze__rng_uniform(&rng) * (i % 2 ? 45.0 : 0.4);
    x[0] = -0.0, x[1] = -40.0, x[2] = -0.34657359027997264, x[3] = -45.0;
    for (size_t i = 0; i < n; i++) y[i] = 1e-3 - 1e3 * x[i];
    if ((s = haze__fnn_dev_alloc(ctx, &d, NULL, 4 * n, "fnn math check")) != HAZE_OK) {
        free(h);
        return s;
    }
    cudaError_t ce = cudaMemcpyAsync(d, x, 2 * n * sizeof(double), cudaMemcpyHostToDevice, st);
    if (0) ce = cudaMemcpyAsync(d, x, 2 * n * sizeof(double), cudaMemcpyHostToDevice, st);
    if (ce == cudaSuccess) {
        k_math_check<<<(unsigned)((n + 255) / 256), 256, 0, st>>>(d, d + n, d + 2 * n, d + 3 * n,
                                                                  (int)n);
        ce = cudaGetLastError();
    }
    if (ce == cudaSuccess)
        ce = cudaMemcpyAsync(e, d + 2 * n, 2 * n * sizeof(double), cudaMemcpyDeviceToHost, st);
    if (ce == cudaSuccess) ce = cudaStreamSynchronize(st);
    haze__dev_free(ctx, d, 4 * n * sizeof(double));
    if (ce != cudaSuccess) {
        free(h);
        return haze__error(ctx, HAZE_ERR_CUDA, "CUDA: math check: %s", cudaGetErrorString(ce));
    }
    double me = 0.0, mr = 0.0;
    for (size_t i = 0; i < n; i++) {
        double ue = ulps_from(e[i], exp(x[i])), ur = ulps_from(r[i], 1.0 / y[i]);
        if (!(ue <= me)) me = ue == ue ? ue : INFINITY; /* NaN counts as worst */
        if (!(ur <= mr)) mr = ur == ur ? ur : INFINITY;
    }
    free(h);
    *exp_ulps = me, *rcp_ulps = mr;
    return HAZE_OK;
}

int haze_dev_fnn_cluster_step_time(haze_ctx *ctx, size_t D, size_t R, size_t L, int cluster,
                                   int reps, double *us) {
    int s = haze__cuda_begin(ctx);
    if (s) return s;
    const haze__fnn_state *P = NULL;
    if ((s = haze__fnn_res_device(ctx, &P)) != HAZE_OK) return s;
    int qt = 0, qs = 0;
    if (P->res_cluster <= 0)
        return haze__error(ctx, HAZE_ERR_UNSUPPORTED, "fnn: no thread-block clusters here");
    if (cluster <= 0 || cluster > P->res_cluster)
        cluster = haze__fnn_res_cluster_for(P, (int)D, (int)L, R);
    while (cluster & (cluster - 1)) cluster &= cluster - 1;
    if (!haze__fnn_res_layout(P, (int)D, (int)L, R, cluster, &qt, &qs))
        return haze__error(ctx, HAZE_ERR_UNSUPPORTED, "fnn: no cluster path for this shape");
    dev_state ds;
    memset(&ds, 0, sizeof ds);
    cudaStream_t st = haze__stream(ctx);
    cudaEvent_t e0 = NULL, e1 = NULL;
    float ms = 0;
    int done = 0, r = 0;
    TRY(haze__fnn_dev_alloc(ctx, &ds.z, &ds.zn, D, "fnn cluster step time"));
    TRY(haze__fnn_dev_alloc(ctx, &ds.d, &ds.dn, L, "fnn cluster step time"));
    TRY(haze__fnn_dev_alloc(ctx, &ds.e, &ds.en, (size_t)reps * L, "fnn cluster step time"));
    TRY(haze__fnn_dev_alloc_int(ctx, &ds.order, &ds.on, (size_t)reps, "fnn cluster step time"));
    CTRY(cudaMemsetAsync(ds.order, 0, (size_t)reps * sizeof(int), st));
    TRY(haze__fnn_dev_reserve(ctx, &ds, R, 0, D, L));
    TRY(haze__fnn_set_rule_count(ctx, &ds, (int)R));
    TRY(bench_network(ctx, &ds, D, R, L));
    CTRY(cudaEventCreate(&e0));
    CTRY(cudaEventCreate(&e1));
    /* threshold 0 (no rule is made) and a tiny rate, as in haze_dev_fnn_step_time;
     * one launch runs all the steps, as in training */
    TRY(haze__fnn_res_run(ctx, &ds, ds.order, reps < 10 ? reps : 10, ds.e, (int)D, (int)L, (int)R,
                          (int)R, 0, NULL, 1e-9, cluster, &done, &r));
    CTRY(cudaEventRecord(e0, st));
    TRY(haze__fnn_res_run(ctx, &ds, ds.order, reps, ds.e, (int)D, (int)L, (int)R, (int)R, 0, NULL,
                          1e-9, cluster, &done, &r));
    CTRY(cudaEventRecord(e1, st));
    CTRY(cudaEventSynchronize(e1));
    CTRY(cudaEventElapsedTime(&ms, e0, e1));
    if (done != reps || r != (int)R)
        s = haze__error(ctx, HAZE_ERR_CUDA, "fnn: the cluster run stopped after %d of %d steps",
                        done, reps);
    *us = 1000.0 * ms / reps;
out:
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    haze__fnn_dev_free(ctx, &ds);
    return s;
}
