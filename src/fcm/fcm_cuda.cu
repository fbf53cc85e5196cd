/*
 * src/fcm/fcm_cuda.cu - the fuzzy c-means pass on a CUDA device: the
 * device state of one fit, the choice among the kernel families for each
 * pass, the reduction tree, streaming, and the passes queued ahead.
 *
 * Anderson, Luke and Keller (IEEE TFS 16(4), 2008, Sec. IV) ran six GPU
 * programs per iteration (distances, memberships, u^q x, two reductions and
 * a division) because 2008 shaders could not do more. Here one kernel reads
 * each point once per iteration and computes its distances, its previous
 * (recomputed, or read back from the device copy that the fast kernels keep
 * when the data is resident) and new memberships (max-rescaled equation
 * (1)), its share of the objective, and adds u^m x and u^m into per-group
 * partial sums; a tree of fixed shape then reduces the groups. The
 * partial-sum layout (tiles of TILE points, groups of G tiles, reduction
 * fan-in RFAN in runs of RRUN) depends only on n, d and c, never on the grid
 * size, the chunking or the device, so the result is the same on every run.
 *
 * Three kernel families compute this pass, each in its own file: the plain
 * one (fcm_cuda_plain.cu: any d, Gustafson-Kessel, the covariance pass, the
 * final pass with memberships and indices) rounds exactly as the CPU; the
 * fast one (fcm_cuda_fast.cu: Euclidean iterations, d <= 32) keeps each
 * point in registers, uses FMAs and sums float runs of 32 products before
 * going to double (docs/fcm.md, "Three GPU kernels"); the fixed-shape one
 * (fcm_cuda_shape.cu) takes the steady float32 iterations with m = 2 of the
 * shapes it covers. The k-means++ seeding is fcm_cuda_seed.cu. The
 * context's fuzzy c-means tuning (fcm_internal.h) can force another choice,
 * for tests and benchmarks.
 *
 * Data larger than the device budget (haze__cuda_budget) is streamed in
 * chunks of whole groups through two device buffers: the copy of chunk q+1
 * on a copy stream overlaps the kernel of chunk q on the compute stream,
 * the host data being page-locked in place for the duration of the fit.
 * Device memory comes from the context's allocator (haze__dev_alloc), which
 * holds the fit to the context's device memory limit.
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fcm/fcm_cuda.h"
#include "fcm/fcm_internal.h"

#define TILE           HAZE__FCM_TILE /* points per tile = threads per block */
#define TS             HAZE__FCM_TS   /* the plain kernel's shared-memory row stride */
#define RFAN           256            /* rows summed into one in each level of the reduction tree */
#define SCRATCH_BLOCKS HAZE__FCM_SCRATCH_BLOCKS
#define MODE_CENTRES   HAZE__FCM_MODE_CENTRES
#define MODE_FULL      HAZE__FCM_MODE_FULL
#define MODE_COV       HAZE__FCM_MODE_COV

/* One level of the reduction tree: out[q] = the sum of rows q*RFAN ... of
 * in, as RFAN/16 runs of 16 rows, each run summed in order, then the runs
 * summed in order (an order fixed by nrows alone). A block takes 16
 * entries of one q, a thread one run of one entry. */
#define RRUN 16
static __global__ void __launch_bounds__(256)
    reduce_level(const double *in, double *out, size_t nrows, size_t stride) {
    __shared__ double part[RFAN / RRUN][RRUN];
    const size_t nb = (stride + RRUN - 1) / RRUN;
    const size_t q = blockIdx.x / nb, e = (blockIdx.x - q * nb) * RRUN + (threadIdx.x % RRUN);
    const int r = (int)(threadIdx.x / RRUN);
    const size_t g0 = q * RFAN + (size_t)r * RRUN,
                 gq = (q + 1) * RFAN < nrows ? (q + 1) * RFAN : nrows;
    const size_t g1 = g0 + RRUN < gq ? g0 + RRUN : gq;
    double s = 0;
    if (e < stride && g0 < g1) {
        if (g1 - g0 == RRUN) {
            double t[RRUN];
#pragma unroll
            for (int i = 0; i < RRUN; i++) t[i] = in[(g0 + i) * stride + e];
#pragma unroll
            for (int i = 0; i < RRUN; i++) s += t[i];
        } else {
            for (size_t g = g0; g < g1; g++) s += in[g * stride + e];
        }
    }
    part[r][threadIdx.x % RRUN] = s;
    __syncthreads();
    if (r == 0 && e < stride) {
        double tot = 0;
        for (int k = 0; k < RFAN / RRUN; k++) tot += part[k][threadIdx.x];
        out[q * stride + e] = tot;
    }
}

/* Device blocks a fit holds at most (haze__fcm_gpu.blk). */
#define MAX_BLOCKS 24

struct haze__fcm_gpu {
    haze_ctx *ctx;
    haze__fcm_tuning *tune; /* the context's switches and counts (fcm_internal.h) */
    /* every device block of the fit, with its size, for haze__dev_free */
    struct {
        void *p;
        size_t bytes;
    } blk[MAX_BLOCKS];
    int nblk;
    const void *hx;
    size_t n, d, c, ts;
    int single, gk, registered, resident, use_smem;
    size_t G, gpts, ngroups, chunk, stride_max, smem;
    void *dx[2];
    double *du0[2], *duout;
    size_t du0_pts, duout_pts;
    size_t u_cols; /* doubles of memberships a point may need (budget) */
    double *rows, *tree[2];
    void *dv, *dvp, *da, *dap;
    void *scratch;
    void *stage;   /* page-locked staging of the centres and norms: uploads without a sync */
    double *hsums; /* page-locked landing of a pass's sums (stride_max): a direct copy */
    int fast_dr;
    size_t fast_smem_sz;
    int shape; /* the fixed-shape float32 kernel (fcm_cuda_shape.cu) runs the steady iterations */
    double *shift; /* d values: its fixed shift (the mean of the first centres it sees), */
    int shift_set; /* so that a recomputed U(k-1) has the bits the previous pass computed */
    /* Memberships kept between the fast passes (resident data only, when the
     * budget allows): dkeep holds U of the centres keep_v (c x d) with the
     * fuzzifier keep_m, valid when keep_ok. */
    void *dkeep;
    double *keep_v, keep_m;
    int keep_ok;
    int keep8; /* the share of the groups, in eighths, that keep U (the shape kernel) */
    int kept8; /* the share the last keeping pass wrote */
    /* The expanded form of the shape kernel (d > 8) reads its centres from
     * tables in device memory: dtab[b] built from dcv[b] (V) and dcv[1 - b]
     * (the previous V), b = cur for the pass last queued. With the data
     * resident, each such pass also queues the step to the next centres on
     * the device (haze__fcm_shape_next: sums to dsout[b], V' to dcv[1 - b],
     * the next tables to dtab[1 - b]; both come back to hsp[b] on the copy
     * stream) and then the next pass itself, before the host has its sums:
     * the pass the host asks for next is that one when its centres are the
     * bits the device formed (spec; checked), else it is dropped. */
    size_t tab_bytes;
    void *dtab[2];
    double *dcv[2], *dsout[2], *dshift;
    double *hsp[2]; /* page-locked: stride_max sums, then c x d next centres */
    double *hvst;   /* page-locked staging of V and V(k-1) for a pass not queued ahead */
    double *pipe_v; /* the centres of the pass that queued the speculative one */
    cudaEvent_t ev_next[2], ev_back[2];
    int tab_ready, pipe, cur, spec, spec_du;
    int no_queue; /* one part of a fit over several (haze__fcm_cuda_part): the next centres
                     come from every part's sums, so no pass is queued ahead */
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
        if (g->have_ev) {
            cudaEventDestroy(g->copied[b]);
            cudaEventDestroy(g->freed[b]);
        }
        cudaFreeHost(g->hsp[b]);
        if (g->ev_next[b]) cudaEventDestroy(g->ev_next[b]);
        if (g->ev_back[b]) cudaEventDestroy(g->ev_back[b]);
    }
    for (int k = 0; k < g->nblk; k++) haze__dev_free(g->ctx, g->blk[k].p, g->blk[k].bytes);
    free(g->keep_v);
    free(g->shift);
    cudaFreeHost(g->stage);
    cudaFreeHost(g->hsums);
    cudaFreeHost(g->hvst);
    free(g->pipe_v);
    if (g->have_copy) cudaStreamDestroy(g->copy);
    if (g->registered) cudaHostUnregister((void *)g->hx);
    cudaGetLastError(); /* the errors of a cleanup are not the caller's */
    free(g);
}

#define TRY(call) HAZE_CUDA_TRY(g->ctx, call)

/* Bytes of device memory for *p from the context's allocator, listed in g
 * (haze__fcm_cuda_end frees them); what names them in the message of a
 * refusal. */
static int dalloc(haze__fcm_gpu *g, void *p, size_t bytes, const char *what) {
    void **pp = (void **)p;
    if (g->nblk == MAX_BLOCKS) /* (a bug: every block is counted above) */
        return haze__error(g->ctx, HAZE_ERR_NOMEM, "fcm: too many device blocks");
    int st = haze__dev_alloc(g->ctx, pp, bytes, what);
    if (st) return st;
    g->blk[g->nblk].p = *pp;
    g->blk[g->nblk++].bytes = bytes;
    return HAZE_OK;
}
#define DALLOC(p, bytes, what)                                                                     \
    do {                                                                                           \
        int dalloc_st = dalloc(g, (p), (bytes), (what));                                           \
        if (dalloc_st) return dalloc_st;                                                           \
    } while (0)

static int setup(haze__fcm_gpu *g) {
    const size_t n = g->n, d = g->d, c = g->c, ts = g->ts;
    size_t ntiles = (n + TILE - 1) / TILE;
    g->stride_max = haze__fcm_stride(c, d, 0);
    if (g->gk && haze__fcm_stride(c, d, 1) > g->stride_max)
        g->stride_max = haze__fcm_stride(c, d, 1);
    /* Groups: enough of them to fill a large GPU, few enough that their
     * partial sums stay small; a function of n, d, c only. */
    size_t G = ntiles / 4096;
    /* a few tiles per group once there are enough tiles: the fast kernel
     * combines its warps' sums once per group */
    size_t gfew = ntiles / 512 < 4 ? ntiles / 512 : 4;
    if (G < gfew) G = gfew;
    size_t gmin =
        (ntiles * g->stride_max * sizeof(double) + ((size_t)256 << 20) - 1) / ((size_t)256 << 20);
    if (G < gmin) G = gmin;
    if (G < 1) G = 1;
    if (G > 256 && gmin <= 256) G = 256;
    if (G > ntiles) G = ntiles;
    g->G = G;
    g->gpts = G * TILE;
    g->ngroups = (n + g->gpts - 1) / g->gpts;

    const cudaDeviceProp *prop = haze__cuda_props(g->ctx->device);
    if (!prop)
        return haze__error(g->ctx, HAZE_ERR_CUDA, "fcm: the properties of device %d are unknown",
                           g->ctx->device);
    const size_t smem_optin = prop->sharedMemPerBlockOptin;
    int rc;
    size_t smem_full = HAZE__FCM_NSCALAR * TILE * sizeof(double) + (size_t)TS * (d + 2 * c) * ts;
    g->use_smem = smem_full <= smem_optin;
    g->smem = g->use_smem ? smem_full : HAZE__FCM_NSCALAR * TILE * sizeof(double);
    /* The fast Euclidean kernel for d <= 32 when its shared memory fits. */
    if (!g->gk && d <= 32) {
        int dr = d <= 4 ? 4 : d <= 8 ? 8 : d <= 16 ? 16 : 32;
        size_t fs = haze__fcm_fast_smem(c, (size_t)dr, ts, 1);
        if (fs <= smem_optin) {
            g->fast_dr = dr;
            g->fast_smem_sz = fs;
            if ((rc = haze__fcm_fast_prepare(g->ctx, g->single, dr, fs))) return rc;
        }
    }
    if (g->fast_dr && g->single && haze__fcm_shape_covers(prop, d, c) && !g->tune->no_shape) {
        if ((rc = haze__fcm_shape_prepare(g->ctx, d, c))) return rc;
        if (!(g->shift = (double *)malloc(d * sizeof(double))))
            return haze__error(g->ctx, HAZE_ERR_NOMEM, "fcm: out of memory");
        g->shape = 1;
        g->tab_bytes = haze__fcm_shape_tables_bytes(d, c);
        g->keep8 = g->tune->keep8 ? g->tune->keep8 - 1 : haze__fcm_shape_keep8(d, c);
    } else {
        g->keep8 = 8;
    }
    TRY(cudaMallocHost(&g->stage, (2 * c * d + (g->gk ? 2 * c * d * d : 0)) * ts));
    TRY(cudaMallocHost(&g->hsums, g->stride_max * sizeof(double)));

    size_t nq = (g->ngroups + RFAN - 1) / RFAN;
    /* (+ the shape kernel's tables and the buffers of passes queued ahead) */
    size_t fixed = g->ngroups * g->stride_max * 8 + 2 * nq * g->stride_max * 8 + 2 * g->tab_bytes +
                   (4 * c * d + 2 * g->stride_max + d) * sizeof(double) +
                   (2 * c * d + (g->gk ? 2 * c * d * d : 0)) * ts;
    if (!g->use_smem) fixed += (size_t)SCRATCH_BLOCKS * TS * (d + 2 * c) * ts;
    /* a point's data and the memberships its passes read or write (none in
     * most fits: counting them always kept 4e8 x 32 float points, 51 GB,
     * off an 80 GB device) */
    size_t per_pt = d * ts + g->u_cols * sizeof(double);
    size_t budget = haze__cuda_budget(g->ctx);
    /* U kept between iterations: c values per point, tile by tile. */
    const size_t keep = g->fast_dr && g->keep8 > 0 ? ntiles * TILE * c * ts : 0;
    if (fixed + n * per_pt <= budget) {
        g->resident = 1;
        g->chunk = g->ngroups * g->gpts;
        if (keep && fixed + n * per_pt + keep <= budget) {
            DALLOC(&g->dkeep, keep, "fcm: the kept memberships");
            if (!(g->keep_v = (double *)malloc(c * d * sizeof(double))))
                return haze__error(g->ctx, HAZE_ERR_NOMEM, "fcm: out of memory");
        }
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

    DALLOC(&g->rows, g->ngroups * g->stride_max * 8, "fcm: the partial sums");
    if (g->ngroups > 1) {
        DALLOC(&g->tree[0], nq * g->stride_max * 8, "fcm: the reduction tree");
        DALLOC(&g->tree[1], nq * g->stride_max * 8, "fcm: the reduction tree");
    }
    DALLOC(&g->dv, c * d * ts, "fcm: the centres");
    DALLOC(&g->dvp, c * d * ts, "fcm: the centres");
    if (g->gk) {
        DALLOC(&g->da, c * d * d * ts, "fcm: the norm matrices");
        DALLOC(&g->dap, c * d * d * ts, "fcm: the norm matrices");
    }
    if (!g->use_smem)
        DALLOC(&g->scratch, (size_t)SCRATCH_BLOCKS * TS * (d + 2 * c) * ts, "fcm: the scratch");
    cudaStream_t st = haze__stream(g->ctx);
    if (g->resident) {
        DALLOC(&g->dx[0], n * d * ts, "fcm: the data");
        if ((rc = haze__cuda_upload(g->ctx, g->dx[0], g->hx, n * d * ts))) return rc;
    } else {
        for (int b = 0; b < 2; b++)
            DALLOC(&g->dx[b], g->chunk * d * ts, "fcm: a chunk of the data");
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
    if (g->use_smem && (rc = haze__fcm_plain_prepare(g->ctx, g->single, g->smem))) return rc;
    return HAZE_OK;
}

extern "C" int haze__fcm_cuda_begin(haze_ctx *ctx, const void *x, size_t n, size_t d, size_t c,
                                    int single, int gk, size_t u_cols, haze__fcm_gpu **out) {
    *out = NULL;
    int st = haze__cuda_begin(ctx);
    if (st) return st;
    haze__fcm_gpu *g = (haze__fcm_gpu *)calloc(1, sizeof *g);
    if (!g) return haze__error(ctx, HAZE_ERR_NOMEM, "fcm: out of memory");
    g->ctx = ctx, g->hx = x, g->n = n, g->d = d, g->c = c, g->single = single, g->gk = gk;
    g->u_cols = u_cols;
    g->ts = single ? sizeof(float) : sizeof(double);
    if (!(g->tune = haze__fcm_tuning_of(ctx))) {
        free(g);
        return haze__error(ctx, HAZE_ERR_NOMEM, "fcm: out of memory");
    }
    if ((st = setup(g))) {
        haze__fcm_cuda_end(g);
        return st;
    }
    *out = g;
    return HAZE_OK;
}

extern "C" void haze__fcm_cuda_part(haze__fcm_gpu *g) {
    g->no_queue = 1;
}

extern "C" int haze__fcm_seed_cuda(haze_ctx *ctx, haze__fcm_gpu *g, size_t trials,
                                   const size_t *idx, const double *u, double *v) {
    /* Resident data only (streaming it twice per centre would cost more
     * than the CPU's passes over host memory), and room for the distances
     * and block sums; every candidate's distances kept where there is room
     * for them too. The context's cpu_seed switch seeds on the CPU (for
     * timing), its seed_lean switch never keeps the distances (tests). */
    const size_t nb = (g->n + HAZE__FCM_PP_BLOCK - 1) / HAZE__FCM_PP_BLOCK;
    const size_t need = haze__fcm_seed_bytes(g->n, g->d, g->c, trials, 0);
    const size_t budget = haze__cuda_budget(ctx);
    if (!g->resident || need > budget || g->tune->cpu_seed || nb > 0x7fffffffu) return 1;
    const int keep =
        !g->tune->seed_lean && haze__fcm_seed_bytes(g->n, g->d, g->c, trials, 1) <= budget;
    return haze__fcm_seed_run(ctx, g->dx[0], g->single, g->n, g->d, g->c, trials, idx, u, v,
                              haze__stream(ctx), keep);
}

/* Copies a double matrix to the device in T through the page-locked staging
 * area at element offset off: no synchronisation, since every pass ends with
 * one before the staging area is written again. */
template <typename T>
static int upload(haze__fcm_gpu *g, void *dst, const double *src, size_t k, size_t off) {
    T *tmp = (T *)g->stage + off;
    for (size_t i = 0; i < k; i++) tmp[i] = (T)src[i];
    TRY(cudaMemcpyAsync(dst, tmp, k * sizeof(T), cudaMemcpyHostToDevice, haze__stream(g->ctx)));
    return HAZE_OK;
}

/* What queueing passes ahead needs, beyond the tables: HAZE_OK, or the
 * status of what could not be had (the fit then runs without it). */
static int queue_setup(haze__fcm_gpu *g) {
    const size_t d = g->d, c = g->c;
    if (!(g->pipe_v = (double *)malloc(c * d * sizeof(double))))
        return haze__error(g->ctx, HAZE_ERR_NOMEM, "fcm: out of memory");
    for (int b = 0; b < 2; b++) {
        DALLOC(&g->dsout[b], g->stride_max * sizeof(double), "fcm: the sums of a queued pass");
        TRY(cudaMallocHost(&g->hsp[b], (g->stride_max + c * d) * sizeof(double)));
        TRY(cudaEventCreateWithFlags(&g->ev_next[b], cudaEventDisableTiming));
        TRY(cudaEventCreateWithFlags(&g->ev_back[b], cudaEventDisableTiming));
    }
    if (!g->have_copy) {
        TRY(cudaStreamCreateWithFlags(&g->copy, cudaStreamNonBlocking));
        g->have_copy = 1;
    }
    return HAZE_OK;
}

/* The device tables of the expanded-form shape kernel and, with the data
 * resident, what queueing passes ahead needs: at the fit's first pass that
 * uses them (a prediction never does). Queueing ahead is only a speed-up:
 * where its buffers cannot be had, the fit goes on without it. */
static int tables_setup(haze__fcm_gpu *g) {
    const size_t d = g->d, c = g->c;
    for (int b = 0; b < 2; b++) {
        DALLOC(&g->dtab[b], g->tab_bytes, "fcm: the tables of the fixed-shape kernel");
        DALLOC(&g->dcv[b], c * d * sizeof(double), "fcm: the centres");
    }
    DALLOC(&g->dshift, d * sizeof(double), "fcm: the shift");
    TRY(cudaMallocHost(&g->hvst, 2 * c * d * sizeof(double)));
    /* resident data only (a streamed pass is long and its chunks' copies
     * share the copy stream); not with the context's no_pipeline switch */
    if (g->resident && !g->tune->no_pipeline && !g->no_queue) {
        if (queue_setup(g) == HAZE_OK) {
            g->pipe = 1;
        } else {
            cudaGetLastError(); /* not the caller's error: the buffers stay until the end */
            g->pipe = 0;
        }
    }
    g->tab_ready = 1;
    return HAZE_OK;
}

/* The tree over the group rows of a pass (fan-in RFAN per level), queued
 * on st when queue is set (else it is on the stream already): where its
 * total is. */
static const double *reduce_tree(haze__fcm_gpu *g, size_t stride, cudaStream_t st, int queue) {
    const double *in = g->rows;
    for (size_t nrows = g->ngroups, lvl = 0; nrows > 1; nrows = (nrows + RFAN - 1) / RFAN, lvl++) {
        double *outb = g->tree[lvl & 1];
        if (queue)
            reduce_level<<<(unsigned)((nrows + RFAN - 1) / RFAN * ((stride + RRUN - 1) / RRUN)),
                           (RFAN / RRUN) * RRUN, 0, st>>>(in, outb, nrows, stride);
        in = outb;
    }
    return in;
}

/* One launch of the fixed-shape kernel over a chunk. */
static int shape_launch(haze__fcm_gpu *g, const haze__fcm_pass *p, const void *x, size_t i0,
                        size_t np, int share, float *u_keep, const float *u_prev, const void *tab,
                        cudaStream_t st) {
    haze__fcm_shape_args sa;
    memset(&sa, 0, sizeof sa);
    sa.x = (const float *)x, sa.i0 = i0, sa.np = np, sa.g0 = i0 / g->gpts;
    sa.ngrp = (np + g->gpts - 1) / g->gpts;
    sa.d = (int)g->d, sa.c = (int)g->c, sa.G = (int)g->G, sa.want_du = p->want_du;
    sa.keep8 = share;
    sa.v = p->v, sa.vp = p->vp, sa.tab = tab;
    sa.u_keep = u_keep, sa.u_prev = u_prev;
    sa.rows = g->rows, sa.stride = haze__fcm_stride(g->c, g->d, 0);
    return haze__fcm_shape_launch(g->ctx, &sa, st);
}

template <typename T> static int pass_t(haze__fcm_gpu *g, haze__fcm_pass *p) {
    const size_t n = g->n, d = g->d, c = g->c, ts = sizeof(T);
    const int mode = p->cov ? MODE_COV : p->v ? MODE_FULL : MODE_CENTRES;
    const size_t stride = haze__fcm_stride(c, d, p->cov);
    cudaStream_t st = haze__stream(g->ctx);
    int rc;
    /* The fast kernel computes what the iteration needs (J, the change, the
     * centre sums); the indices and the membership output come from the
     * plain kernel, in the one extra pass at the end of a fit. */
    const int fast = g->fast_dr && mode != MODE_COV && !p->a && !p->indices && !p->u_out &&
                     !(p->src == HAZE__FCM_SRC_CENTERS && p->ap);
    /* The steady iterations (source: the previous centres) in float32 of a
     * covered shape: the fixed-shape kernel, its centres passed at launch
     * (d <= 8) or in device tables (tab). */
    const int shape =
        fast && g->shape && mode == MODE_FULL && p->src == HAZE__FCM_SRC_CENTERS && p->m == 2.0;
    const int tab = shape && g->tab_bytes > 0;
    if (tab && !g->tab_ready && (rc = tables_setup(g))) return rc;
    /* A pass queued ahead by the previous one (see the struct): this one when
     * its centres are the ones the device formed, bit for bit; else it is
     * left to end unused, having overwritten the kept memberships. */
    int queued = 0;
    if (g->spec) {
        g->spec = 0;
        queued = tab && g->pipe && p->want_du == g->spec_du &&
                 memcmp(p->vp, g->pipe_v, c * d * sizeof(double)) == 0 &&
                 memcmp(p->v, g->hsp[1 - g->cur] + g->stride_max, c * d * sizeof(double)) == 0;
        __atomic_fetch_add(queued ? &g->tune->queued_used : &g->tune->queued_dropped, 1ul,
                           __ATOMIC_RELAXED);
        if (!queued) {
            TRY(cudaStreamSynchronize(st));
            g->keep_ok = 0;
            /* a steady pass the device did not foresee: the host rounds the
             * centres differently; no more passes ahead in this fit */
            if (tab) g->pipe = 0;
        }
    }
    const int pipe = tab && g->pipe && !p->last; /* (no pass follows the last) */
    /* U(k-1) from the previous pass's memberships when they are those of vp
     * (same centres, same m) and that pass kept the groups this one reads
     * (all of them, or the shape kernel's share); U(k) kept for the next
     * pass. The kept values are the ones the recomputation would give (same
     * code, same centres), so keeping them changes no result. */
    const int share = shape ? g->keep8 : 8;
    const int keep = fast && g->dkeep && mode == MODE_FULL && p->want_du;
    const int reuse = keep && g->keep_ok && g->kept8 >= share && p->src == HAZE__FCM_SRC_CENTERS &&
                      !p->ap && g->keep_m == p->m &&
                      memcmp(g->keep_v, p->vp, c * d * sizeof(double)) == 0;
    if (keep) g->keep_ok = 0; /* until this pass has completed */
    if (shape && !g->shift_set) {
        for (size_t k = 0; k < d; k++) {
            double m = 0;
            for (size_t j = 0; j < c; j++) m += p->v[j * d + k];
            g->shift[k] = (float)(m / (double)c);
        }
        if (tab)
            TRY(cudaMemcpyAsync(g->dshift, g->shift, d * sizeof(double), cudaMemcpyHostToDevice,
                                st));
        g->shift_set = 1;
    }
    if (!shape) { /* (the shape kernel takes its centres at launch or from its tables) */
        if (p->v && (rc = upload<T>(g, g->dv, p->v, c * d, 0))) return rc;
        if (p->a && (rc = upload<T>(g, g->da, p->a, c * d * d, 2 * c * d))) return rc;
        if (p->src == HAZE__FCM_SRC_CENTERS) {
            if ((rc = upload<T>(g, g->dvp, p->vp, c * d, c * d))) return rc;
            if (p->ap && (rc = upload<T>(g, g->dap, p->ap, c * d * d, 2 * c * d + c * d * d)))
                return rc;
        }
    } else if (tab && !queued) { /* the tables from V and V(k-1) in double */
        const int b = g->cur ^= 1;
        memcpy(g->hvst, p->v, c * d * sizeof(double));
        memcpy(g->hvst + c * d, p->vp, c * d * sizeof(double));
        TRY(cudaMemcpyAsync(g->dcv[b], g->hvst, c * d * sizeof(double), cudaMemcpyHostToDevice,
                            st));
        TRY(cudaMemcpyAsync(g->dcv[1 - b], g->hvst + c * d, c * d * sizeof(double),
                            cudaMemcpyHostToDevice, st));
        if ((rc = haze__fcm_shape_tables(g->ctx, g->dtab[b], g->dcv[b], g->dcv[1 - b], g->dshift, d,
                                         c, st)))
            return rc;
    }
    size_t cpts = g->resident ? n : g->chunk;
    if (p->src == HAZE__FCM_SRC_MEMORY && g->du0_pts < cpts) {
        for (int b = 0; b < (g->resident ? 1 : 2); b++)
            DALLOC(&g->du0[b], cpts * c * sizeof(double), "fcm: the starting memberships");
        g->du0_pts = cpts;
    }
    if (p->u_out && g->duout_pts < cpts) {
        DALLOC(&g->duout, cpts * c * sizeof(double), "fcm: the memberships");
        g->duout_pts = cpts;
    }
    /* the plain kernel adds into its rows; the others write every entry */
    if (!fast) TRY(cudaMemsetAsync(g->rows, 0, g->ngroups * stride * sizeof(double), st));

    haze__fcm_args<T> A;
    memset(&A, 0, sizeof A);
    A.d = (int)d, A.c = (int)c, A.G = (int)g->G, A.mode = mode, A.src = p->src;
    A.use_smem = g->use_smem;
    A.indices = p->indices;
    A.vec = g->single && d % 4 == 0;
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
    A.u_keep = keep ? (T *)g->dkeep : NULL;
    A.u_prev = reuse ? (const T *)g->dkeep : NULL;
    A.want_du = p->want_du;
    A.use_vp = p->src == HAZE__FCM_SRC_CENTERS && !reuse && (mode != MODE_FULL || p->want_du);

    size_t nch = g->resident ? 1 : (n + g->chunk - 1) / g->chunk;
    for (size_t q = 0; q < nch && !queued; q++) {
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
        if (shape) {
            if ((rc = shape_launch(g, p, A.x, i0, np, share, (float *)A.u_keep,
                                   (const float *)A.u_prev, tab ? g->dtab[g->cur] : NULL, st)))
                return rc;
        } else if (fast) {
            /* without the previous centres when they are not read: less shared
             * memory, more blocks per SM */
            haze__fcm_fast_launch(
                A, g->fast_dr, (unsigned)blocks,
                A.use_vp ? g->fast_smem_sz : haze__fcm_fast_smem(c, g->fast_dr, ts, 0), st);
        } else {
            if (!g->use_smem && blocks > SCRATCH_BLOCKS) blocks = SCRATCH_BLOCKS;
            haze__fcm_plain_launch(A, (unsigned)blocks, g->smem, st);
        }
        HAZE_CUDA_TRY_LAUNCH(g->ctx);
        if (p->u_out)
            TRY(cudaMemcpyAsync(p->u_out + i0 * c, g->duout, np * c * sizeof(double),
                                cudaMemcpyDeviceToHost, st));
        if (!g->resident) TRY(cudaEventRecord(g->freed[b], st));
    }
    const double *in = reduce_tree(g, stride, st, !queued);
    HAZE_CUDA_TRY_LAUNCH(g->ctx);
    if (pipe) {
        /* The step to the next centres on the device, then the next pass
         * (same flags; it reads the U(k) this pass keeps), queued before
         * this pass's sums come back to the host. */
        const int b = g->cur;
        if ((rc = haze__fcm_shape_next(g->ctx, g->dtab[1 - b], g->dcv[1 - b], g->dsout[b], in,
                                       g->dcv[b], g->dshift, d, c, stride, st)))
            return rc;
        TRY(cudaEventRecord(g->ev_next[b], st));
        TRY(cudaStreamWaitEvent(g->copy, g->ev_next[b], 0));
        TRY(cudaMemcpyAsync(g->hsp[b], g->dsout[b], stride * sizeof(double), cudaMemcpyDeviceToHost,
                            g->copy));
        TRY(cudaMemcpyAsync(g->hsp[b] + g->stride_max, g->dcv[1 - b], c * d * sizeof(double),
                            cudaMemcpyDeviceToHost, g->copy));
        TRY(cudaEventRecord(g->ev_back[b], g->copy));
        g->cur = 1 - b;
        if ((rc = shape_launch(g, p, g->dx[0], 0, n, share, (float *)A.u_keep,
                               (const float *)A.u_keep, g->dtab[1 - b], st)))
            return rc;
        reduce_tree(g, stride, st, 1);
        HAZE_CUDA_TRY_LAUNCH(g->ctx);
        g->spec = 1;
        g->spec_du = p->want_du;
        memcpy(g->pipe_v, p->v, c * d * sizeof(double));
        TRY(cudaEventSynchronize(g->ev_back[b]));
        memcpy(p->sums, g->hsp[b], stride * sizeof(double));
    } else {
        TRY(cudaMemcpyAsync(g->hsums, in, stride * sizeof(double), cudaMemcpyDeviceToHost, st));
        TRY(cudaStreamSynchronize(st));
        memcpy(p->sums, g->hsums, stride * sizeof(double));
    }
    if (shape && haze__fcm_shape_shifts(d)) /* the shape kernel summed u^m (x - s) */
        for (size_t j = 0; j < c; j++)
            for (size_t k = 0; k < d; k++) p->sums[j * d + k] += g->shift[k] * p->sums[c * d + j];
    if (fast && mode == MODE_FULL) { /* left out by the fast kernel: fcm.c knows */
        if (p->src == HAZE__FCM_SRC_CENTERS && !p->want_du) p->sums[c * d + c + HAZE__FCM_J] = NAN;
        if (!p->want_du) p->sums[c * d + c + HAZE__FCM_DU2] = NAN;
    }
    if (keep) {
        memcpy(g->keep_v, p->v, c * d * sizeof(double));
        g->keep_m = p->m;
        g->kept8 = share;
        g->keep_ok = 1;
    }
    return HAZE_OK;
}

extern "C" int haze__fcm_pass_cuda(haze_ctx *ctx, haze__fcm_gpu *g, haze__fcm_pass *p) {
    (void)ctx;
    return g->single ? pass_t<float>(g, p) : pass_t<double>(g, p);
}