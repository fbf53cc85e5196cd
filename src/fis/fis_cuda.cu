/*
 * src/fis/fis_cuda.cu - batch evaluation of a fuzzy inference system on the
 * GPU: one thread per input vector, running the same row evaluator as the
 * CPU (fis_row.h), so both compute the same function.
 *
 * This is the generalised Mamdani inference of seed paper 002 ("Extension of
 * system") in its simplest data-parallel form: rule firings, implication,
 * aggregation and defuzzification per thread, with the model in read-only
 * global memory (cached by L1) instead of texture memory. The aggregated set
 * is recomputed point by point rather than stored, so per-thread memory is
 * only 3 R + n doubles.
 */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "fis/fis_eval.h"
#include "fis/fis_row.h"

static __global__ void fis_eval_kernel(haze_fis f, haze__fis_tabs tb, const double *in, double *out,
                                       double *scratch, size_t n, unsigned long long *counts,
                                       unsigned char *held) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int c = 0, nr = 0, h = 0;
    haze__fis_eval_row(&f, &tb, in + i * (size_t)f.ni, out + i * (size_t)f.no,
                       scratch + i * haze__fis_scratch(&f), &c, &nr, NULL, &h);
    if (c) atomicAdd(&counts[0], (unsigned long long)c);
    if (nr) atomicAdd(&counts[1], (unsigned long long)nr);
    if (held) held[i] = (unsigned char)h;
}

/* The same with the per-row scratch in thread-local memory, which the
 * hardware interleaves across a warp (coalesced), for models whose scratch
 * fits in L doubles. The tabulated output MFs (glen doubles, 0 if none or
 * too many) are first copied into shared memory: the centroid's inner loop
 * reads them at every point. PLAIN: the model is in the common class of
 * haze__fis_eval_row_plain, and the kernel holds only that path. */
template <int L, bool PLAIN>
static __global__ void fis_eval_kernel_local(haze_fis f, haze__fis_tabs tb, const double *in,
                                             double *out, size_t n, unsigned long long *counts,
                                             unsigned char *held, int glen) {
    extern __shared__ double s_grid[];
    if (glen > 0) {
        for (int k = threadIdx.x; k < glen; k += blockDim.x) s_grid[k] = tb.grid[k];
        __syncthreads();
        tb.grid = s_grid;
    }
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double scratch[L];
    int c = 0, nr = 0, h = 0;
    if (PLAIN)
        haze__fis_eval_row_plain(&f, &tb, in + i * (size_t)f.ni, out + i * (size_t)f.no, scratch,
                                 &c, &nr);
    else
        haze__fis_eval_row(&f, &tb, in + i * (size_t)f.ni, out + i * (size_t)f.no, scratch, &c, &nr,
                           NULL, &h);
    if (c) atomicAdd(&counts[0], (unsigned long long)c);
    if (nr) atomicAdd(&counts[1], (unsigned long long)nr);
    if (!PLAIN && held) held[i] = (unsigned char)h;
}

/* Shared memory for the tabulated MFs: up to the default 48 KiB per block. */
#define FIS_SGRID_MAX (48 * 1024)

/* Launches the evaluation of m rows already on the device; held (NULL
 * without lock-previous outputs) gets each row's flag. dm and dt hold
 * device pointers; gl is the length of the tabulated MFs (0 if none). */
static cudaError_t launch(const haze_fis *dm, const haze__fis_tabs *dt, const double *din,
                          double *dout, double *dscr, size_t m, unsigned long long *dcnt,
                          unsigned char *held, cudaStream_t s, size_t gl) {
    const int plain = dt->plain != NULL;
    const size_t wl = haze__fis_scratch(dm), wp = haze__fis_scratch_plain(dm);
    unsigned threads = 128, blocks = (unsigned)((m + threads - 1) / threads);
    const int glen = gl * sizeof(double) <= FIS_SGRID_MAX ? (int)gl : 0;
    const size_t sh = sizeof(double) * (size_t)glen;
#define FIS_LAUNCH(L, P)                                                                           \
    fis_eval_kernel_local<L, P>                                                                    \
        <<<blocks, threads, sh, s>>>(*dm, *dt, din, dout, m, dcnt, held, glen)
    if (plain && wp <= 32)
        FIS_LAUNCH(32, true);
    else if (plain && wp <= 128)
        FIS_LAUNCH(128, true);
    else if (plain && wp <= 512)
        FIS_LAUNCH(512, true);
    else if (wl <= 32)
        FIS_LAUNCH(32, false);
    else if (wl <= 128)
        FIS_LAUNCH(128, false);
    else if (wl <= 512)
        FIS_LAUNCH(512, false);
    else
        fis_eval_kernel<<<blocks, threads, 0, s>>>(*dm, *dt, din, dout, dscr, m, dcnt, held);
#undef FIS_LAUNCH
    return cudaGetLastError();
}

static size_t align16(size_t v) {
    return (v + 15) & ~(size_t)15;
}

/* A device allocation of one call, freed with its size. */
typedef struct dbuf {
    void *p;
    size_t bytes;
} dbuf;

static int dbuf_alloc(haze_ctx *ctx, dbuf *b, size_t bytes, const char *what) {
    int st = haze__dev_alloc(ctx, &b->p, bytes, what);
    b->bytes = st ? 0 : bytes;
    return st;
}

/*
 * The device images of the models a context evaluated last (its state
 * block HAZE__STATE_FIS_DEV). An image is the model's arrays, its
 * tabulated output MFs and the call's two counters in one device block,
 * named by the serial of the plan it was made from (a model changed since
 * has a new plan, so a new serial). A call takes its model's image for
 * itself (busy) and gives it back when its stream is done, so two threads
 * never share one: the second makes an image of its own. Repeated calls
 * then skip the allocations, their frees (each a wait for the device) and
 * the model's copies: most of the fixed cost of a small batch, or of one
 * device's share of a batch split over several (docs/benchmarks.md).
 * The images count against the context's device memory limit while held
 * and go with the context.
 */
enum { DEV_SLOTS = 4 };
#define DEV_IMAGE_MAX ((size_t)4 << 20) /* larger images are made per call */
typedef struct dev_slot {
    unsigned long long serial; /* 0: empty */
    void *p;
    size_t bytes;
    unsigned long long used; /* the cache's clock at its last use */
    int busy;                /* a call holds the slot */
} dev_slot;
typedef struct dev_cache {
    int device;
    haze__dev_acct *acct; /* a reference: the images' bytes go back to it */
    unsigned long long clock;
    dev_slot slot[DEV_SLOTS];
} dev_cache;

static void dev_cache_free(void *arg) {
    dev_cache *c = (dev_cache *)arg;
    for (int k = 0; k < DEV_SLOTS; k++) {
        haze__dev_free_held(c->acct, c->device, c->slot[k].p, c->slot[k].bytes);
        c->slot[k].p = NULL;
    }
    haze__dev_acct_drop(c->acct);
}

static dev_cache *dev_cache_get(haze_ctx *ctx) {
    dev_cache *c =
        (dev_cache *)haze__ctx_state(ctx, HAZE__STATE_FIS_DEV, sizeof(dev_cache), dev_cache_free);
    if (!c) return NULL;
    if (!__atomic_load_n(&c->acct, __ATOMIC_ACQUIRE)) {
        /* threads sharing the context may race here: one reference stays */
        haze__dev_acct *a = haze__dev_acct_hold(ctx), *none = NULL;
        c->device = ctx->device;
        if (a &&
            !__atomic_compare_exchange_n(&c->acct, &none, a, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            haze__dev_acct_drop(a);
    }
    return c;
}

static int slot_lock(dev_slot *sl) {
    int idle = 0;
    return __atomic_compare_exchange_n(&sl->busy, &idle, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}
static void slot_unlock(dev_slot *sl) {
    __atomic_store_n(&sl->busy, 0, __ATOMIC_RELEASE);
}

/* The slot holding plan `serial`'s image, now this call's, or -1. */
static int image_take(dev_cache *c, unsigned long long serial) {
    for (int k = 0; k < DEV_SLOTS; k++) {
        dev_slot *sl = &c->slot[k];
        if (__atomic_load_n(&sl->serial, __ATOMIC_ACQUIRE) != serial || !slot_lock(sl)) continue;
        if (sl->serial == serial) {
            sl->used = __atomic_add_fetch(&c->clock, 1, __ATOMIC_RELAXED);
            return k;
        }
        slot_unlock(sl);
    }
    return -1;
}

/* Keeps a new image (made by this call on ctx's device) in the empty or
 * least recently used slot that no call holds, freeing what that held; 0
 * when every slot is held (the caller frees the image). */
static int image_put(haze_ctx *ctx, dev_cache *c, unsigned long long serial, void *p,
                     size_t bytes) {
    int best = -1;
    for (int k = 0; k < DEV_SLOTS; k++) {
        if (!slot_lock(&c->slot[k])) continue;
        if (best < 0 || (c->slot[best].serial &&
                         (!c->slot[k].serial || c->slot[k].used < c->slot[best].used))) {
            if (best >= 0) slot_unlock(&c->slot[best]);
            best = k;
        } else {
            slot_unlock(&c->slot[k]);
        }
    }
    if (best < 0) return 0;
    dev_slot *sl = &c->slot[best];
    haze__dev_free(ctx, sl->p, sl->bytes);
    sl->p = p;
    sl->bytes = bytes;
    sl->used = __atomic_add_fetch(&c->clock, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&sl->serial, serial, __ATOMIC_RELEASE);
    slot_unlock(sl);
    return 1;
}

/*
 * Rows from host memory through the context's page-locked staging memory,
 * in NSET sets of buffers, each with its own stream: the host's threads
 * copy chunk k's inputs into set k % NSET while the copy engines and the
 * kernel work on the chunks before it, and take chunk k - NSET's outputs
 * out of it (both at once, with streaming stores: haze__copy_par2), so
 * that a long batch runs near the bus rate instead of the driver's
 * pageable copies (a third of it, measured). Caller memory that
 * is page-locked already (cudaHostAlloc, cudaHostRegister, a pinned
 * PyTorch tensor) needs no staging: the copy engines read the inputs and
 * write the outputs there directly, and the host's threads have nothing to
 * copy. The model is on the device (queued on the context's stream);
 * scr_row: doubles of global scratch per row (0: none). Every stream is
 * done when this returns.
 */
enum { NSET = 3 };
/* Rows per chunk of the staged path (3 x 24 MiB of staging for the tipper's
 * 24 bytes a row) and the fewest rows that take it. */
#define STAGED_CHUNK    ((size_t)1 << 20)
#define STAGED_MIN_ROWS ((size_t)1 << 16)
static int eval_staged(haze_ctx *ctx, const haze_fis *dm, const haze__fis_tabs *dt, size_t gl,
                       const double *inputs, size_t n, double *outputs, unsigned long long *dcnt,
                       size_t scr_row, size_t chunk) {
    const size_t ni = (size_t)dm->ni, no = (size_t)dm->no;
    cudaStream_t s = haze__stream(ctx), xs[NSET] = {NULL, NULL, NULL};
    cudaEvent_t ready = NULL, done_[NSET] = {NULL, NULL, NULL};
    dbuf din[NSET] = {}, dout[NSET] = {}, dscr[NSET] = {};
    size_t pend_i0[NSET] = {0, 0, 0}, pend_m[NSET] = {0, 0, 0};
    int pend[NSET] = {0, 0, 0}, st = HAZE_OK;
    double *stage = NULL, *hin[NSET], *hout[NSET];
    size_t k = 0;
    const int lin = haze__host_page_locked(inputs, sizeof(double) * n * ni),
              lout = haze__host_page_locked(outputs, sizeof(double) * n * no);
    const size_t per = (lin ? 0 : ni) + (lout ? 0 : no); /* staged doubles a row */
    if (per && (st = haze__cuda_staging(ctx, NSET * chunk * per * sizeof(double), (void **)&stage)))
        return st;
    for (int b = 0; b < NSET; b++) {
        hin[b] = lin ? NULL : stage + (size_t)b * chunk * per;
        hout[b] = lout ? NULL : stage + (size_t)b * chunk * per + (lin ? 0 : chunk * ni);
        if ((st = dbuf_alloc(ctx, &din[b], sizeof(double) * chunk * ni, "fis: the inputs")) ||
            (st = dbuf_alloc(ctx, &dout[b], sizeof(double) * chunk * no, "fis: the outputs")) ||
            (scr_row && (st = dbuf_alloc(ctx, &dscr[b], sizeof(double) * chunk * scr_row,
                                         "fis: the rows' scratch"))))
            goto done;
        HAZE_CUDA_GOTO(ctx, st, done, cudaStreamCreateWithFlags(&xs[b], cudaStreamNonBlocking));
        HAZE_CUDA_GOTO(ctx, st, done, cudaEventCreateWithFlags(&done_[b], cudaEventDisableTiming));
    }
    /* the model (and the zeroed counts) first */
    HAZE_CUDA_GOTO(ctx, st, done, cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
    HAZE_CUDA_GOTO(ctx, st, done, cudaEventRecord(ready, s));
    for (int b = 0; b < NSET; b++)
        HAZE_CUDA_GOTO(ctx, st, done, cudaStreamWaitEvent(xs[b], ready, 0));
    for (size_t i0 = 0; i0 < n; i0 += chunk, k++) {
        const int b = (int)(k % NSET);
        const size_t m = n - i0 < chunk ? n - i0 : chunk;
        /* chunk k - NSET's outputs out of set b and chunk k's inputs into
         * it, on the same threads at once */
        double *od = NULL, *os = NULL;
        size_t on = 0;
        if (pend[b]) {
            HAZE_CUDA_GOTO(ctx, st, done, cudaEventSynchronize(done_[b]));
            if (!lout) od = outputs + pend_i0[b] * no, os = hout[b], on = pend_m[b] * no;
            pend[b] = 0;
        }
        haze__copy_par2(ctx, hin[b], inputs + i0 * ni, lin ? 0 : sizeof(double) * m * ni, od, os,
                        sizeof(double) * on);
        HAZE_CUDA_GOTO(ctx, st, done,
                       cudaMemcpyAsync(din[b].p, lin ? inputs + i0 * ni : hin[b],
                                       sizeof(double) * m * ni, cudaMemcpyHostToDevice, xs[b]));
        HAZE_CUDA_GOTO(ctx, st, done,
                       launch(dm, dt, (const double *)din[b].p, (double *)dout[b].p,
                              (double *)dscr[b].p, m, dcnt, NULL, xs[b], gl));
        HAZE_CUDA_GOTO(ctx, st, done,
                       cudaMemcpyAsync(lout ? outputs + i0 * no : hout[b], dout[b].p,
                                       sizeof(double) * m * no, cudaMemcpyDeviceToHost, xs[b]));
        HAZE_CUDA_GOTO(ctx, st, done, cudaEventRecord(done_[b], xs[b]));
        pend[b] = 1, pend_i0[b] = i0, pend_m[b] = m;
    }
    for (int j = 0; j < NSET; j++, k++) { /* the last chunks, in the order they were queued */
        const int b = (int)(k % NSET);
        if (!pend[b]) continue;
        HAZE_CUDA_GOTO(ctx, st, done, cudaEventSynchronize(done_[b]));
        if (!lout)
            haze__copy_par(ctx, outputs + pend_i0[b] * no, hout[b],
                           sizeof(double) * pend_m[b] * no);
        pend[b] = 0;
    }
done:
    for (int b = 0; b < NSET; b++) {
        if (xs[b]) {
            cudaStreamSynchronize(xs[b]); /* (after a failure) nothing reads what is freed */
            cudaStreamDestroy(xs[b]);
        }
        if (done_[b]) cudaEventDestroy(done_[b]);
        haze__dev_free(ctx, din[b].p, din[b].bytes);
        haze__dev_free(ctx, dout[b].p, dout[b].bytes);
        haze__dev_free(ctx, dscr[b].p, dscr[b].bytes);
    }
    if (ready) cudaEventDestroy(ready);
    if (stage) haze__cuda_staging_release(ctx, stage);
    return st;
}

extern "C" int haze__fis_eval_cuda(haze_ctx *ctx, const haze_fis *fis, const haze__fis_plan *plan,
                                   const double *inputs, size_t n, double *outputs,
                                   haze_fis_stats *stats, int on_device) {
    int st = haze__cuda_begin(ctx);
    if (st) return st;
    cudaStream_t s = haze__stream(ctx);
    const int ni = fis->ni, no = fis->no, nr = fis->nr;
    /* the model in one device block */
    const size_t nrr = (size_t)nr, nprops = fis->props ? (size_t)fis->prop_off[nr] : 0;
    /* the plan's tables were made on the host: the GPU then uses the very
     * same values as the CPU for the output MFs */
    const haze__fis_tabs none = {NULL, NULL, 0};
    const haze__fis_tabs *ht = plan ? &plan->t : &none;
    enum { NB = 15 };
    const size_t sz[NB] = {sizeof(haze__var) * ni,
                           sizeof(haze__var) * no,
                           sizeof(haze__mf) * fis->nmfs,
                           sizeof(double) * fis->nparams,
                           sizeof(int) * nrr * ni,
                           sizeof(int) * nrr * no,
                           sizeof(double) * nrr * ni,
                           sizeof(double) * nrr * no,
                           sizeof(double) * nrr,
                           sizeof(int) * nrr,
                           sizeof(int) * (fis->ante_fl ? nrr * ni : 0),
                           sizeof(int) * (fis->cons_fl ? nrr * no : 0),
                           sizeof(int) * 3 * nprops,
                           sizeof(int) * (fis->prop_off ? nrr + 1 : 0),
                           sizeof(int) * (ht->plain ? plan->plain_len : 0)};
    const void *src[NB] = {fis->in,     fis->out,      fis->mfs,        fis->params,
                           fis->ante,   fis->cons,     fis->ante_hedge, fis->cons_hedge,
                           fis->weight, fis->conn,     fis->ante_fl,    fis->cons_fl,
                           fis->props,  fis->prop_off, ht->plain};
    size_t off[NB], total = 0;
    for (int k = 0; k < NB; k++) {
        off[k] = total;
        total += align16(sz[k] ? sz[k] : 16);
    }
    dbuf dimg = {NULL, 0}, din = {NULL, 0}, dout = {NULL, 0}, dscr = {NULL, 0}, dheld = {NULL, 0};
    /* lock-previous: per-row flags, brought back for the serial pass on the
     * host (haze__fis_hold), which needs the rows in order */
    unsigned char *hheld = NULL;
    double *hin = NULL, *hout = NULL, *hscr = NULL;
    int any_held = 0;
    unsigned long long hcnt[2] = {0, 0};
    /* the device image of the model (dimg: its arrays, then the tabulated
     * output MFs at goff, then the counters at coff), no plan */
    haze_fis dm = *fis;
    dm.plan = NULL;
    haze__fis_tabs dt = {NULL, NULL, ht->gstride};
    const size_t gb = ht->grid ? sizeof(double) * plan->grid_len : 0;
    total += gb;
    const int global_scratch = haze__fis_scratch(fis) > 512;
    size_t per_row = sizeof(double) * ((on_device ? 0 : (size_t)ni + no) +
                                       (global_scratch ? haze__fis_scratch(fis) : 0)) +
                     (fis->lockprev ? 1 : 0);
    if (per_row == 0) per_row = 1;
    size_t budget = haze__cuda_budget(ctx);
    size_t chunk = budget > total + 4096 ? (budget - total - 4096) / per_row : 0;
    if (chunk > n) chunk = n;
    if (chunk > ((size_t)1 << 22)) chunk = (size_t)1 << 22;
    if (fis->lockprev && !(hheld = (unsigned char *)calloc(n, 1)))
        return haze__error(ctx, HAZE_ERR_NOMEM, "fis: out of memory for %zu row flags", n);
    if (chunk == 0) {
        free(hheld);
        return haze__error(ctx, HAZE_ERR_NOMEM,
                           "fis: device memory limit too small for one row (%zu bytes)",
                           total + per_row);
    }
    const size_t goff = total - gb, coff = align16(total), img_bytes = coff + sizeof hcnt;
    dev_cache *cache = plan && img_bytes <= DEV_IMAGE_MAX ? dev_cache_get(ctx) : NULL;
    int slot = cache ? image_take(cache, plan->serial) : -1;
    char *dmb;
    if (slot >= 0) {
        dimg.p = cache->slot[slot].p;
        dimg.bytes = cache->slot[slot].bytes;
    } else {
        if ((st = dbuf_alloc(ctx, &dimg, img_bytes, "fis: the model"))) goto done;
        dmb = (char *)dimg.p;
        for (int k = 0; k < NB; k++)
            if (sz[k])
                HAZE_CUDA_GOTO(
                    ctx, st, done,
                    cudaMemcpyAsync(dmb + off[k], src[k], sz[k], cudaMemcpyHostToDevice, s));
        if (gb)
            HAZE_CUDA_GOTO(ctx, st, done,
                           cudaMemcpyAsync(dmb + goff, ht->grid, gb, cudaMemcpyHostToDevice, s));
    }
    dmb = (char *)dimg.p;
    dm.in = (haze__var *)(dmb + off[0]);
    dm.out = (haze__var *)(dmb + off[1]);
    dm.mfs = (haze__mf *)(dmb + off[2]);
    dm.params = (double *)(dmb + off[3]);
    dm.ante = (int *)(dmb + off[4]);
    dm.cons = (int *)(dmb + off[5]);
    dm.ante_hedge = (double *)(dmb + off[6]);
    dm.cons_hedge = (double *)(dmb + off[7]);
    dm.weight = (double *)(dmb + off[8]);
    dm.conn = (int *)(dmb + off[9]);
    dm.ante_fl = fis->ante_fl ? (int *)(dmb + off[10]) : NULL;
    dm.cons_fl = fis->cons_fl ? (int *)(dmb + off[11]) : NULL;
    dm.props = fis->props ? (int *)(dmb + off[12]) : NULL;
    dm.prop_off = fis->prop_off ? (int *)(dmb + off[13]) : NULL;
    dt.plain = ht->plain ? (const int *)(dmb + off[14]) : NULL;
    if (ht->grid) dt.grid = (const double *)(dmb + goff);
    unsigned long long *dcnt;
    dcnt = (unsigned long long *)(dmb + coff);
    HAZE_CUDA_GOTO(ctx, st, done, cudaMemsetAsync(dcnt, 0, sizeof hcnt, s));
    /* a long batch from host memory, without lock-previous outputs: staged */
    if (!on_device && !hheld && n >= STAGED_MIN_ROWS) {
        size_t sc = chunk / NSET < STAGED_CHUNK ? chunk / NSET : STAGED_CHUNK;
        if (sc == 0) sc = 1;
        if ((st = eval_staged(ctx, &dm, &dt, gb / sizeof(double), inputs, n, outputs, dcnt,
                              global_scratch ? haze__fis_scratch(fis) : 0, sc)))
            goto done;
        n = 0; /* every row done: the loop below has none */
    }
    if (!on_device && n > 0) {
        if ((st = dbuf_alloc(ctx, &din, sizeof(double) * chunk * ni, "fis: the inputs"))) goto done;
        if ((st = dbuf_alloc(ctx, &dout, sizeof(double) * chunk * no, "fis: the outputs")))
            goto done;
    }
    if (global_scratch && n > 0 &&
        (st = dbuf_alloc(ctx, &dscr, sizeof(double) * chunk * haze__fis_scratch(fis),
                         "fis: the rows' scratch")))
        goto done;
    if (hheld && (st = dbuf_alloc(ctx, &dheld, chunk, "fis: the row flags"))) goto done;
    for (size_t i0 = 0; i0 < n; i0 += chunk) {
        size_t m = n - i0 < chunk ? n - i0 : chunk;
        unsigned long long *cnt = dcnt;
        unsigned char *held = (unsigned char *)dheld.p;
        if (on_device) {
            HAZE_CUDA_GOTO(ctx, st, done,
                           launch(&dm, &dt, inputs + i0 * ni, outputs + i0 * no, (double *)dscr.p,
                                  m, cnt, held, s, gb / sizeof(double)));
        } else {
            HAZE_CUDA_GOTO(ctx, st, done,
                           cudaMemcpyAsync(din.p, inputs + i0 * ni, sizeof(double) * m * ni,
                                           cudaMemcpyHostToDevice, s));
            HAZE_CUDA_GOTO(ctx, st, done,
                           launch(&dm, &dt, (const double *)din.p, (double *)dout.p,
                                  (double *)dscr.p, m, cnt, held, s, gb / sizeof(double)));
            HAZE_CUDA_GOTO(ctx, st, done,
                           cudaMemcpyAsync(outputs + i0 * no, dout.p, sizeof(double) * m * no,
                                           cudaMemcpyDeviceToHost, s));
        }
        if (hheld)
            HAZE_CUDA_GOTO(ctx, st, done,
                           cudaMemcpyAsync(hheld + i0, held, m, cudaMemcpyDeviceToHost, s));
    }
    HAZE_CUDA_GOTO(ctx, st, done,
                   cudaMemcpyAsync(hcnt, dcnt, sizeof hcnt, cudaMemcpyDeviceToHost, s));
    HAZE_CUDA_GOTO(ctx, st, done, cudaStreamSynchronize(s));
    if (stats) {
        stats->clamped = (size_t)hcnt[0];
        stats->no_rule = (size_t)hcnt[1];
    }
    for (size_t i = 0; hheld && i < n && !any_held; i++) any_held = hheld[i];
    if (any_held) {
        /* the rows that wait for the rows before them, in order on the host
         * with the host's model and tables (the same row evaluator) */
        hscr = (double *)malloc(sizeof(double) * haze__fis_scratch(fis));
        if (on_device) {
            hin = (double *)malloc(sizeof(double) * n * ni);
            hout = (double *)malloc(sizeof(double) * n * no);
        }
        if (!hscr || (on_device && (!hin || !hout))) {
            st = haze__error(ctx, HAZE_ERR_NOMEM, "fis: out of memory for lock-previous");
            goto done;
        }
        if (on_device) {
            HAZE_CUDA_GOTO(
                ctx, st, done,
                cudaMemcpyAsync(hin, inputs, sizeof(double) * n * ni, cudaMemcpyDeviceToHost, s));
            HAZE_CUDA_GOTO(
                ctx, st, done,
                cudaMemcpyAsync(hout, outputs, sizeof(double) * n * no, cudaMemcpyDeviceToHost, s));
            HAZE_CUDA_GOTO(ctx, st, done, cudaStreamSynchronize(s));
        }
        st = haze__fis_hold(ctx, fis, ht, on_device ? hin : inputs, n, on_device ? hout : outputs,
                            hheld, hscr);
        if (st) goto done;
        if (on_device) {
            HAZE_CUDA_GOTO(
                ctx, st, done,
                cudaMemcpyAsync(outputs, hout, sizeof(double) * n * no, cudaMemcpyHostToDevice, s));
            HAZE_CUDA_GOTO(ctx, st, done, cudaStreamSynchronize(s));
        }
    }
done:
    if (st) cudaStreamSynchronize(s); /* before the host buffers go */
    free(hheld);
    free(hin);
    free(hout);
    free(hscr);
    haze__dev_free(ctx, dheld.p, dheld.bytes);
    /* the stream is done: the image goes back to the cache, or in it */
    if (slot >= 0)
        slot_unlock(&cache->slot[slot]);
    else if (!(st == HAZE_OK && cache && dimg.p &&
               image_put(ctx, cache, plan->serial, dimg.p, dimg.bytes)))
        haze__dev_free(ctx, dimg.p, dimg.bytes);
    haze__dev_free(ctx, din.p, din.bytes);
    haze__dev_free(ctx, dout.p, dout.bytes);
    haze__dev_free(ctx, dscr.p, dscr.bytes);
    return st;
}
