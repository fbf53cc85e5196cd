/*
 * src/fnn/fnn_cuda.cu - SONFIN training and inference on the GPU: the
 * training driver (the epoch on the device, its buffers, the per-context
 * tuning state) and prediction. The kernels live by family in
 * fnn_cuda_launch.cu, fnn_cuda_cluster.cu and fnn_cuda_reg.cu (see
 * fnn_cuda.cuh).
 *
 * The backend runs SONFIN with the
 * architecture-aware thread mapping (ATM) of seed 001, chapter 3, beside the
 * GPU-FNN baseline mapping it is compared with (Juang and Chen; one block
 * per rule, one thread per input).
 *
 * Partition (section 3.2, Fig. 10): Gaussian membership and firing strengths
 * (layers 2-3), the output layer and the parameter update run on the GPU.
 * Unlike the thesis, the rule-creation decision runs there too (one block,
 * the same test as the CPU's): a device-to-host round trip per sample would
 * cost more than the whole step, so the host only reads the rule count back
 * now and then (see epoch()).
 * Task matrix (3.3): rules x inputs; layout (3.4): parameters rule-major and
 * contiguous along the input dimension, so neighbouring threads read
 * neighbouring inputs (coalesced).
 * Coarsening (3.5): column-based, a group of G lanes per rule where each lane
 * takes the inputs j, j+G, j+2G... (G = 32 is one task per lane per warp
 * row; smaller G coarsens more inputs into one thread); row-based, one warp
 * takes N rules k, k+p, ..., k+(N-1)p (p = ceil(R/N)) and reads each input
 * once for all of them; for few rules and many inputs, a block of T threads
 * per rule, and the GPU-FNN kernel itself. A configuration search times
 * every candidate on the actual device and caches the fastest per (inputs,
 * rules rounded up to a power of two, samples), skipping coarsenings that
 * leave fewer tasks than the device has cores (the thesis's bound on n); the
 * centre/width update is chosen the same way.
 * Binding (3.6): the block size is the smallest that gives full occupancy
 * according to the device's own limits (cudaOccupancy*), found at run time.
 * Online training of small networks (every parameter fits the shared memory
 * of a cluster of SMs) does not launch per step at all: one thread-block
 * cluster runs the whole run of samples (fnn_cuda_cluster.cu), which
 * beats two or three launches per step there.
 *
 * Arithmetic is double, like the CPU reference, so both backends train the
 * same network: only the order of the sums differs.
 */
#include "fnn/fnn_cuda.cuh"

/* ------------------------------------------------- the tuning state */

static void state_destroy(void *p) {
    haze__fnn_state *S = (haze__fnn_state *)p;
    free(S->fire_cache.e);
    free(S->ms_cache.e);
}

haze__fnn_state *haze__fnn_state_block(haze_ctx *ctx) {
    return (haze__fnn_state *)haze__ctx_state(ctx, HAZE__STATE_FNN, sizeof(haze__fnn_state),
                                              state_destroy);
}

int haze__fnn_state_of(haze_ctx *ctx, haze__fnn_state **out) {
    haze__fnn_state *S = haze__fnn_state_block(ctx);
    if (!S) return haze__error(ctx, HAZE_ERR_NOMEM, "fnn: out of memory");
    if (!__atomic_load_n(&S->sms, __ATOMIC_ACQUIRE)) { /* read already: no lock per step */
        const cudaDeviceProp *dp = haze__cuda_props(ctx->device);
        if (!dp)
            return haze__error(ctx, HAZE_ERR_CUDA, "CUDA: the properties of device %d",
                               ctx->device);
        haze__fnn_lock(&S->lock);
        if (!S->sms) {
            S->threads_per_sm = dp->maxThreadsPerMultiProcessor;
            __atomic_store_n(&S->sms, dp->multiProcessorCount, __ATOMIC_RELEASE);
        }
        haze__fnn_unlock(&S->lock);
    }
    *out = S;
    return HAZE_OK;
}

void haze__fnn_cache_add(search_cache *c, search_entry e) {
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 16;
        search_entry *n = (search_entry *)realloc(c->e, cap * sizeof *n);
        if (n) c->e = n, c->cap = cap;
    }
    if (c->n < c->cap) {
        c->e[c->n++] = e;
    } else if (c->cap) { /* no memory to grow: the oldest entry goes */
        c->e[c->next] = e;
        c->next = (c->next + 1) % c->cap;
    }
}

/* ------------------------------------------------------- device memory */

/* n doubles (ints) of device memory through the core's allocator; *count
 * (when given) gets n for haze__fnn_dev_free. */
int haze__fnn_dev_alloc(haze_ctx *ctx, double **p, size_t *count, size_t n, const char *what) {
    void *q = NULL;
    int s = haze__dev_alloc(ctx, &q, (n ? n : 1) * sizeof(double), what);
    *p = (double *)q;
    if (count) *count = s ? 0 : n;
    return s;
}

int haze__fnn_dev_alloc_int(haze_ctx *ctx, int **p, size_t *count, size_t n, const char *what) {
    void *q = NULL;
    int s = haze__dev_alloc(ctx, &q, (n ? n : 1) * sizeof(int), what);
    *p = (int *)q;
    if (count) *count = s ? 0 : n;
    return s;
}

void haze__fnn_dev_free(haze_ctx *ctx, dev_state *ds) {
    const size_t B = sizeof(double);
    haze__dev_free(ctx, ds->z, (ds->zn ? ds->zn : 1) * B);
    haze__dev_free(ctx, ds->d, (ds->dn ? ds->dn : 1) * B);
    haze__dev_free(ctx, ds->e, (ds->en ? ds->en : 1) * B);
    haze__dev_free(ctx, ds->order, (ds->on ? ds->on : 1) * sizeof(int));
    haze__dev_free(ctx, ds->m, ds->cap * ds->mD * B);
    haze__dev_free(ctx, ds->s, ds->cap * ds->mD * B);
    haze__dev_free(ctx, ds->w, ds->cap * ds->wL * B);
    haze__dev_free(ctx, ds->lm, ds->lm_cap * B);
    haze__dev_free(ctx, ds->g, ds->lm_cap * B);
    haze__dev_free(ctx, ds->nR, sizeof(int));
    haze__dev_free(ctx, ds->pos, sizeof(int));
    memset(ds, 0, sizeof *ds);
}

/* Room for `rules` rules on the device, keeping the first `keep`. */
int haze__fnn_dev_reserve(haze_ctx *ctx, dev_state *ds, size_t rules, size_t keep, size_t D,
                          size_t L) {
    if (rules <= ds->cap) return HAZE_OK;
    size_t cap = ds->cap ? ds->cap : 64;
    while (cap < rules) cap *= 2;
    double *p[3] = {ds->m, ds->s, ds->w};
    size_t width[3] = {D, D, L};
    const char *what[3] = {"fnn: rule centres", "fnn: rule widths", "fnn: consequents"};
    double *n[3] = {NULL, NULL, NULL};
    int s = HAZE_OK;
    for (int a = 0; a < 3 && s == HAZE_OK; a++) {
        s = haze__fnn_dev_alloc(ctx, &n[a], NULL, cap * width[a], what[a]);
        if (s == HAZE_OK && keep && p[a])
            HAZE_CUDA_GOTO(ctx, s, fail,
                           cudaMemcpyAsync(n[a], p[a], keep * width[a] * sizeof(double),
                                           cudaMemcpyDeviceToDevice, haze__stream(ctx)));
    }
    if (s == HAZE_OK && keep)
        HAZE_CUDA_GOTO(ctx, s, fail, cudaStreamSynchronize(haze__stream(ctx)));
    if (s) goto fail;
    for (int a = 0; a < 3; a++) haze__dev_free(ctx, p[a], ds->cap * width[a] * sizeof(double));
    ds->m = n[0], ds->s = n[1], ds->w = n[2];
    ds->cap = cap, ds->mD = D, ds->wL = L;
    return HAZE_OK;
fail:
    for (int a = 0; a < 3; a++) haze__dev_free(ctx, n[a], cap * width[a] * sizeof(double));
    return s;
}

/* Scratch for B x stride firing strengths and g values. */
int haze__fnn_dev_scratch(haze_ctx *ctx, dev_state *ds, size_t B, size_t stride) {
    size_t need = B * (stride ? stride : 1);
    if (need <= ds->lm_cap) return HAZE_OK;
    size_t cap = ds->lm_cap ? ds->lm_cap : 1024;
    while (cap < need) cap *= 2;
    /* queued kernels may still use the old scratch */
    if (ds->lm) HAZE_CUDA_TRY(ctx, cudaStreamSynchronize(haze__stream(ctx)));
    haze__dev_free(ctx, ds->lm, ds->lm_cap * sizeof(double));
    haze__dev_free(ctx, ds->g, ds->lm_cap * sizeof(double));
    ds->lm = ds->g = NULL;
    ds->lm_cap = 0;
    int s = haze__fnn_dev_alloc(ctx, &ds->lm, NULL, cap, "fnn: firing strengths");
    if (s == HAZE_OK) s = haze__fnn_dev_alloc(ctx, &ds->g, NULL, cap, "fnn: gradients");
    if (s) {
        haze__dev_free(ctx, ds->lm, cap * sizeof(double));
        ds->lm = NULL;
        return s;
    }
    ds->lm_cap = cap;
    return HAZE_OK;
}

static int upload_rules(haze_ctx *ctx, dev_state *ds, const haze_fnn *net, size_t k0, size_t k1) {
    size_t D = net->D, L = net->L;
    cudaStream_t st = haze__stream(ctx);
    if (k1 <= k0) return HAZE_OK;
    HAZE_CUDA_TRY(ctx, cudaMemcpyAsync(ds->m + k0 * D, net->m + k0 * D,
                                       (k1 - k0) * D * sizeof(double), cudaMemcpyHostToDevice, st));
    HAZE_CUDA_TRY(ctx, cudaMemcpyAsync(ds->s + k0 * D, net->s + k0 * D,
                                       (k1 - k0) * D * sizeof(double), cudaMemcpyHostToDevice, st));
    HAZE_CUDA_TRY(ctx, cudaMemcpyAsync(ds->w + k0 * L, net->w + k0 * L,
                                       (k1 - k0) * L * sizeof(double), cudaMemcpyHostToDevice, st));
    HAZE_CUDA_TRY(ctx, cudaStreamSynchronize(st));
    return HAZE_OK;
}

int haze__fnn_set_rule_count(haze_ctx *ctx, dev_state *ds, int R) {
    int s;
    if (!ds->nR && (s = haze__fnn_dev_alloc_int(ctx, &ds->nR, NULL, 1, "fnn: the rule count")))
        return s;
    /* on the library's stream, like every copy (a plain cudaMemcpy here once
     * raced the first kernel while that stream was non-blocking) */
    cudaStream_t st = haze__stream(ctx);
    HAZE_CUDA_TRY(ctx, cudaMemcpyAsync(ds->nR, &R, sizeof(int), cudaMemcpyHostToDevice, st));
    HAZE_CUDA_TRY(ctx, cudaStreamSynchronize(st));
    return HAZE_OK;
}

/* ---------------------------------------------------------------- epoch */

/*
 * The whole epoch is queued without waiting for the device: structure
 * learning runs on the device (k_step1 / k_structure), which keeps the rule
 * count. The host keeps an upper bound Rhi of it (each step makes at most
 * B rules) and sizes the grids by it; kernels skip rules that do not exist.
 * Only when the bound runs more than `slack` rules ahead of the last count
 * read back, or the capacity runs out, does the host wait and read the
 * count. Errors per sample come back once, at the end of the epoch.
 */
static int epoch(haze_ctx *ctx, haze_fnn *net, haze__fnn_train_args *a, dev_state *ds) {
    const haze_fnn_options *o = a->opt;
    size_t D = net->D, L = net->L, n = a->n;
    size_t B = o->batch ? o->batch : 1;
    if (B > n) B = n;
    cudaStream_t st = haze__stream(ctx);
    int s = HAZE_OK;
    size_t max_rules = o->max_rules ? o->max_rules : (size_t)0x7fffffff - 1;
    if ((s = haze__fnn_dev_alloc(ctx, &ds->z, &ds->zn, n * D, "fnn train: the inputs")) ||
        (s = haze__fnn_dev_alloc(ctx, &ds->d, &ds->dn, n * L, "fnn train: the targets")) ||
        (s = haze__fnn_dev_alloc_int(ctx, &ds->order, &ds->on, n, "fnn train: the order")) ||
        (s = haze__fnn_dev_alloc(ctx, &ds->e, &ds->en, n * L, "fnn train: the errors")))
        return s;
    int *order = (int *)malloc(n * sizeof(int));
    double *e = (double *)malloc(n * L * sizeof(double));
    if (!order || !e) {
        free(order), free(e);
        return haze__error(ctx, HAZE_ERR_NOMEM, "fnn train: out of memory");
    }
    for (size_t i = 0; i < n; i++) order[i] = (int)a->order[i];
#define TRY(call)                                                                                  \
    do {                                                                                           \
        if ((s = (call)) != HAZE_OK) goto out;                                                     \
    } while (0)
#define CTRY(call) HAZE_CUDA_GOTO(ctx, s, out, call)
    {
        CTRY(cudaMemcpyAsync(ds->z, a->z, n * D * sizeof(double), cudaMemcpyHostToDevice, st));
        CTRY(cudaMemcpyAsync(ds->d, a->d, n * L * sizeof(double), cudaMemcpyHostToDevice, st));
        CTRY(cudaMemcpyAsync(ds->order, order, n * sizeof(int), cudaMemcpyHostToDevice, st));
        size_t Rk = net->R; /* rule count last read from the device */
        size_t Rhi = Rk;    /* upper bound of the device's count */
        /* with threshold 0 an existing network cannot grow (log 0 = -inf) */
        int grows = a->log_th > -INFINITY || Rk == 0;
        TRY(haze__fnn_dev_reserve(ctx, ds, Rk + 64 + B, 0, D, L));
        TRY(upload_rules(ctx, ds, net, 0, Rk));
        TRY(haze__fnn_set_rule_count(ctx, ds, (int)Rk));
        /* online: runs of steps in one cluster while the network is small */
        size_t start = 0;
        if (B == 1 && haze__fnn_res_wanted(ctx, D, L, Rk)) {
            while (start < n) {
                TRY(haze__fnn_dev_reserve(ctx, ds, Rk + (Rk / 4 > 64 ? Rk / 4 : 64), Rk, D, L));
                int qt = 0, qs = 0;
                const haze__fnn_state *P = NULL;
                TRY(haze__fnn_res_device(ctx, &P));
                if (!haze__fnn_res_layout(P, (int)D, (int)L, ds->cap, P->res_cluster, &qt, &qs))
                    break;
                size_t lim = ds->cap < max_rules ? ds->cap : max_rules;
                int done = 0, r = 0;
                TRY(haze__fnn_res_run(ctx, ds, ds->order + start, (int)(n - start),
                                      ds->e + start * L, (int)D, (int)L, (int)Rk, (int)lim,
                                      ds->cap < max_rules, a, o->rate, 0, &done, &r));
                haze__fnn_step_report(a, start, start + (size_t)done);
                start += (size_t)done;
                Rk = Rhi = (size_t)r;
                if (start < n && !haze__fnn_res_wanted(ctx, D, L, Rk)) break;
            }
            grows = a->log_th > -INFINITY || Rk == 0;
        }
        for (size_t i0 = start; i0 < n; i0 += B) {
            size_t b = n - i0 < B ? n - i0 : B;
            size_t slack = Rk / 4 > 64 ? Rk / 4 : 64;
            size_t add = grows ? b : 0;
            if (Rhi + add > max_rules) add = max_rules > Rhi ? max_rules - Rhi : 0;
            if (Rhi + add > ds->cap || Rhi + add > Rk + slack + B) {
                int r = 0;
                CTRY(cudaMemcpyAsync(&r, ds->nR, sizeof(int), cudaMemcpyDeviceToHost, st));
                CTRY(cudaStreamSynchronize(st));
                Rk = Rhi = (size_t)r;
                grows = a->log_th > -INFINITY || Rk == 0;
                add = grows ? b : 0;
                if (Rhi + add > max_rules) add = max_rules > Rhi ? max_rules - Rhi : 0;
                slack = Rk / 4 > 64 ? Rk / 4 : 64;
                TRY(haze__fnn_dev_reserve(ctx, ds, Rk + slack + 2 * B, Rk, D, L));
            }
            size_t limit = Rhi + add, stride = limit;
            TRY(haze__fnn_dev_scratch(ctx, ds, b, stride));
            const int *didx = ds->order + i0;
            if (Rhi)
                TRY(haze__fnn_fire(ctx, ds->z, didx, (int)b, ds->m, ds->s, (int)Rhi, stride, (int)D,
                                   ds->lm, ds->nR));
            step_args p = {ds->z,  ds->d,  didx,       ds->m,     ds->s,   ds->w,     ds->nR,  0,
                           (int)D, (int)L, (int)limit, a->log_th, o->beta, o->sigma0, o->width};
            double step = o->rate / (double)b;
            if (b == 1) {
                TRY(haze__fnn_online_step(ctx, p, (int)limit, ds->lm, ds->g, ds->e + i0 * L, step));
            } else {
                TRY(haze__fnn_batch_step(ctx, p, (int)limit, stride, (int)b, ds->lm, ds->g,
                                         ds->e + i0 * L, step));
            }
            Rhi = limit;
            haze__fnn_step_report(a, i0, i0 + b);
        }
        /* the rules and the errors back to the host */
        int r = 0;
        CTRY(cudaMemcpyAsync(&r, ds->nR, sizeof(int), cudaMemcpyDeviceToHost, st));
        CTRY(cudaMemcpyAsync(e, ds->e, n * L * sizeof(double), cudaMemcpyDeviceToHost, st));
        CTRY(cudaStreamSynchronize(st));
        size_t R = (size_t)r;
        TRY(haze__fnn_reserve(ctx, net, R));
        if (R) {
            CTRY(
                cudaMemcpyAsync(net->m, ds->m, R * D * sizeof(double), cudaMemcpyDeviceToHost, st));
            CTRY(
                cudaMemcpyAsync(net->s, ds->s, R * D * sizeof(double), cudaMemcpyDeviceToHost, st));
            CTRY(
                cudaMemcpyAsync(net->w, ds->w, R * L * sizeof(double), cudaMemcpyDeviceToHost, st));
            CTRY(cudaStreamSynchronize(st));
        }
        net->R = R;
        for (size_t i = 0; i < n; i++) {
            const double *ei = e + i * L, *d = a->d + a->order[i] * L;
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
out:
    free(order), free(e);
    return s;
}

int haze__fnn_epoch_cuda(haze_ctx *ctx, haze_fnn *net, haze__fnn_train_args *a) {
    int s = haze__cuda_begin(ctx);
    if (s) return s;
    haze__fnn_state *S = NULL;
    if ((s = haze__fnn_state_of(ctx, &S)) != HAZE_OK) return s;
    if (S->mapping == HAZE__FNN_MAP_GPUFNN && net->D > 1024)
        return haze__error(ctx, HAZE_ERR_UNSUPPORTED,
                           "fnn: the GPU-FNN mapping supports at most 1024 inputs (got %zu)",
                           net->D);
    if (a->n > 0x7fffffff || net->D > 0x7fffffff)
        return haze__error(ctx, HAZE_ERR_UNSUPPORTED, "fnn: too many samples for the GPU path");
    dev_state ds;
    memset(&ds, 0, sizeof ds);
    s = epoch(ctx, net, a, &ds);
    haze__fnn_dev_free(ctx, &ds);
    return s;
}

int haze__fnn_forward_cuda(haze_ctx *ctx, const haze_fnn *net, const double *z, size_t n,
                           double *y) {
    int s = haze__cuda_begin(ctx);
    if (s) return s;
    size_t D = net->D, L = net->L, R = net->R;
    /* samples per chunk: the firing matrix takes at most a quarter of the budget */
    size_t budget = haze__cuda_budget(ctx) / 4, per = (2 * R + D + L) * sizeof(double);
    size_t chunk = budget / per;
    if (chunk > 65535) chunk = 65535;
    if (chunk > n) chunk = n;
    if (chunk == 0)
        return haze__error(ctx, HAZE_ERR_NOMEM, "fnn predict: not enough device memory");
    dev_state ds;
    memset(&ds, 0, sizeof ds);
    cudaStream_t st = haze__stream(ctx);
    TRY(haze__fnn_dev_alloc(ctx, &ds.z, &ds.zn, chunk * D, "fnn predict: the inputs"));
    TRY(haze__fnn_dev_alloc(ctx, &ds.e, &ds.en, chunk * L, "fnn predict: the outputs"));
    TRY(haze__fnn_dev_reserve(ctx, &ds, R, 0, D, L));
    TRY(upload_rules(ctx, &ds, net, 0, R));
    TRY(haze__fnn_dev_scratch(ctx, &ds, chunk, R));
    for (size_t i0 = 0; i0 < n; i0 += chunk) {
        size_t b = n - i0 < chunk ? n - i0 : chunk;
        CTRY(cudaMemcpyAsync(ds.z, z + i0 * D, b * D * sizeof(double), cudaMemcpyHostToDevice, st));
        TRY(haze__fnn_fire(ctx, ds.z, NULL, (int)b, ds.m, ds.s, (int)R, R, (int)D, ds.lm, NULL));
        step_args p = {ds.z,   NULL,   NULL,   ds.m,      ds.s, ds.w, NULL, (int)R,
                       (int)D, (int)L, (int)R, -INFINITY, 0.0,  0.0,  0.0};
        TRY(haze__fnn_outputs(ctx, p, ds.lm, R, (int)b, ds.e));
        CTRY(cudaMemcpyAsync(y + i0 * L, ds.e, b * L * sizeof(double), cudaMemcpyDeviceToHost, st));
        CTRY(cudaStreamSynchronize(st));
    }
out:
    haze__fnn_dev_free(ctx, &ds);
    return s;
}
