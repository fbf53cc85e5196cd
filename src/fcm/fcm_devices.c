/*
 * src/fcm/fcm_devices.c - one fuzzy c-means fit over several devices of one
 * host in one call (haze_fcm_options.devices, device_count; docs/fcm.md,
 * "Several GPUs").
 *
 * The fit over several parts (fcm_parts.c) with the parts in one process: a
 * part per device, each with a context of its own on its device and a
 * thread of its own (the calling thread runs part 0, so the progress
 * callback is called there), over contiguous slices of the rows on tile
 * boundaries (haze_fcm_part_rows). The all-gather the parts exchange
 * through is made here: every part posts its bytes, a barrier over the
 * threads, then each copies every part's bytes in part order, and a second
 * barrier before the slots are reused; where the library was built with
 * NCCL and the parts run on GPUs, the bytes go between the devices by
 * ncclAllGather instead (fcm_nccl.cu), the barrier carrying only the
 * counts. A hook's failure on one part is every part's (the barrier
 * carries a flag), as the library's protocol needs. Part 0's thread gathers
 * every part's memberships into its result.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "fcm/fcm_internal.h"

/* The parts' meeting point: a barrier of `parts` threads that also ORs a
 * flag over them, and the slots of one exchange. */
typedef struct group {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t parts, arrived;
    unsigned long gen;
    int acc, result;
    int broken; /* a part never started: every wait fails */
    const void **mine;
    size_t *count;
#ifdef HAZE_HAVE_NCCL
    haze__fcm_nccl *nccl; /* NULL: host memory */
#endif
} group;

/* One part's job. */
typedef struct part {
    group *g;
    size_t rank;
    haze_ctx *ctx;
    const void *x;
    haze_precision type;
    size_t first, n, d;
    haze_fcm_options opt;
    int st;
    char msg[1024];
    haze_fcm_result *r;
    void *stage; /* NCCL: the receive side in host memory */
    size_t stage_bytes;
} part;

/* Waits for every part; returns the OR of their flags, or -1 when the
 * group is broken. */
static int group_wait(group *g, int flag) {
    pthread_mutex_lock(&g->mu);
    if (g->broken) {
        pthread_mutex_unlock(&g->mu);
        return -1;
    }
    const unsigned long gen = g->gen;
    g->acc |= flag;
    if (++g->arrived == g->parts) {
        g->arrived = 0;
        g->result = g->acc;
        g->acc = 0;
        g->gen++;
        pthread_cond_broadcast(&g->cv);
    } else {
        while (g->gen == gen && !g->broken) pthread_cond_wait(&g->cv, &g->mu);
    }
    const int r = g->gen == gen ? -1 : g->result; /* (its round cannot end before ours is read) */
    pthread_mutex_unlock(&g->mu);
    return r;
}

static void group_break(group *g) {
    pthread_mutex_lock(&g->mu);
    g->broken = 1;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

#ifdef HAZE_HAVE_NCCL
/* The bytes through NCCL: room on every device (agreed), then the
 * collective into host slots of the largest count, compacted into b. */
static int nccl_exchange(part *p, size_t total, size_t most, unsigned char *b) {
    group *g = p->g;
    const size_t R = g->parts, slot = most ? (most + 7) / 8 * 8 : 8;
    int bad = haze__fcm_nccl_reserve(g->nccl, (int)p->rank, p->ctx, slot) != HAZE_OK;
    if (!bad && p->stage_bytes < R * slot) {
        free(p->stage);
        p->stage = malloc(R * slot);
        p->stage_bytes = p->stage ? R * slot : 0;
        bad = !p->stage;
    }
    if (group_wait(g, bad) != 0) return 1; /* no part calls NCCL unless every part can */
    if (haze__fcm_nccl_gather(g->nccl, (int)p->rank, p->ctx, g->mine[p->rank], g->count[p->rank],
                              slot, p->stage) != HAZE_OK)
        return 1;
    if (!b) return 1; /* (it took part all the same) */
    size_t o = 0;
    for (size_t k = 0; k < R; k++) {
        memcpy(b + o, (unsigned char *)p->stage + k * slot, g->count[k]);
        o += g->count[k];
    }
    return o != total;
}
#endif

/* haze_fcm_options.allgather between the threads of one process. */
static int allgather(void *arg, const void *mine, size_t count, void **all, size_t *total) {
    part *p = arg;
    group *g = p->g;
    *all = NULL;
    *total = 0;
    g->mine[p->rank] = mine;
    g->count[p->rank] = count;
    if (group_wait(g, 0) != 0) return 1;
    size_t t = 0, most = 0;
    for (size_t k = 0; k < g->parts; k++) {
        t += g->count[k];
        if (g->count[k] > most) most = g->count[k];
    }
    unsigned char *b = malloc(t ? t : 1);
    int bad = !b;
#ifdef HAZE_HAVE_NCCL
    if (g->nccl) {
        /* every part takes the NCCL steps, even one without memory here */
        bad |= nccl_exchange(p, t, most, b);
    } else
#endif
        if (b) {
        size_t o = 0;
        for (size_t k = 0; k < g->parts; k++) {
            if (g->count[k]) memcpy(b + o, g->mine[k], g->count[k]);
            o += g->count[k];
        }
    }
    /* the slots stay until every part has read them; a failure anywhere is
     * every part's */
    if (group_wait(g, bad) != 0) {
        free(b);
        return 1;
    }
    *all = b;
    *total = t;
    return 0;
}

static void run_part(part *p) {
    haze_fcm_options o = p->opt;
    o.allgather = allgather;
    o.allgather_arg = p;
    o.devices = NULL;
    o.device_count = 0;
    p->st = haze__fcm_fit_one(p->ctx, p->x, p->type, p->n, p->d, &o, &p->r);
    if (p->st) haze__snprintf(p->msg, sizeof p->msg, "%s", haze_ctx_errmsg(p->ctx));
#ifdef HAZE_HAVE_NCCL
    if (p->g->nccl) haze__fcm_nccl_release(p->g->nccl, (int)p->rank, p->ctx);
#endif
    free(p->stage);
    p->stage = NULL;
}

static void *part_thread(void *arg) {
    run_part(arg);
    return NULL;
}

/* A context like the caller's on `device` with `threads` CPU threads, and
 * the caller's fuzzy c-means switches. */
static int part_ctx(haze_ctx *ctx, int device, int threads, haze_ctx **out) {
    haze_ctx_options co = haze_ctx_options_default();
    co.backend = haze_ctx_backend(ctx);
    co.device = device;
    co.threads = threads;
    co.device_memory_limit = haze_ctx_device_memory_limit(ctx);
    int st = haze_ctx_new(&co, out);
    if (st) {
        const int r = haze__error(ctx, st, "fcm: device %d: %s", device, haze_ctx_errmsg(*out));
        haze_ctx_free(*out);
        *out = NULL;
        return r;
    }
    const haze__fcm_tuning *from = haze__fcm_tuning_of(ctx);
    haze__fcm_tuning *to = haze__fcm_tuning_of(*out);
    if (!from || !to) {
        haze_ctx_free(*out);
        *out = NULL;
        return haze__error(ctx, HAZE_ERR_NOMEM, "fcm: out of memory");
    }
    to->no_shape = from->no_shape;
    to->keep8 = from->keep8;
    to->no_pipeline = from->no_pipeline;
    to->cpu_seed = from->cpu_seed;
    to->host_exchange = from->host_exchange;
    to->part_totals = from->part_totals;
    return HAZE_OK;
}

/* The device list: present, each once. */
static int check_devices(haze_ctx *ctx, const haze_fcm_options *opt, int *dev) {
    const int R = opt->device_count, cuda = haze_ctx_backend(ctx) == HAZE_BACKEND_CUDA;
    if (opt->devices && !cuda)
        return haze__error(ctx, HAZE_ERR_INVALID,
                           "fcm: a list of devices needs a context on the CUDA backend");
    const int have = cuda ? haze_device_count() : 0;
    for (int k = 0; k < R; k++) {
        dev[k] = opt->devices ? opt->devices[k] : cuda ? k : -1;
        if (cuda && (dev[k] < 0 || dev[k] >= have))
            return haze__error(ctx, HAZE_ERR_NODEVICE,
                               "fcm: CUDA device %d is not present (this host has %d: 0 to %d)",
                               dev[k], have, have - 1);
        for (int j = 0; j < k && cuda; j++)
            if (dev[j] == dev[k])
                return haze__error(ctx, HAZE_ERR_INVALID, "fcm: CUDA device %d is listed twice",
                                   dev[k]);
    }
    return HAZE_OK;
}

/* The memberships of every part into part 0's result, which becomes the
 * whole fit's. */
static int gather(haze_ctx *ctx, part *parts, size_t R, size_t n, haze_fcm_result **out) {
    haze_fcm_result *r = parts[0].r;
    const size_t c = r->c;
    if (r->memberships) {
        double *u = realloc(r->memberships, (n ? n * c : 1) * sizeof *u);
        if (!u)
            return haze__error(ctx, HAZE_ERR_NOMEM, "fcm: out of memory for %zu x %zu memberships",
                               n, c);
        r->memberships = u;
        for (size_t k = 1; k < R; k++) {
            if (parts[k].n) /* part 0 starts at row 0: its rows are in place */
                memcpy(u + parts[k].first * c, parts[k].r->memberships, parts[k].n * c * sizeof *u);
            free(parts[k].r->memberships);
            parts[k].r->memberships = NULL;
        }
    }
    r->n = n;
    parts[0].r = NULL;
    *out = r;
    return HAZE_OK;
}

int haze__fcm_fit_devices(haze_ctx *ctx, const void *x, haze_precision type, size_t n, size_t d,
                          const haze_fcm_options *opt, haze_fcm_result **out) {
    *out = NULL;
    if (!ctx) return haze__error(ctx, HAZE_ERR_INVALID, "fcm: NULL argument");
    if (opt->allgather)
        return haze__error(ctx, HAZE_ERR_UNSUPPORTED,
                           "fcm: a part of a fit over several processes runs on one device");
    int st = haze__fcm_validate(ctx, x, type, n, d, opt);
    if (st) return st;
    const size_t R = (size_t)opt->device_count;
    int *dev = malloc(R * sizeof *dev);
    part *parts = calloc(R, sizeof *parts);
    group g;
    memset(&g, 0, sizeof g);
    g.parts = R;
    g.mine = calloc(R, sizeof *g.mine);
    g.count = calloc(R, sizeof *g.count);
    size_t made, started = 0;
    int have_sync = 0;
    if (!dev || !parts || !g.mine || !g.count) {
        st = haze__error(ctx, HAZE_ERR_NOMEM, "fcm: out of memory");
        goto done;
    }
    if ((st = check_devices(ctx, opt, dev))) goto done;
    if (R == 1) { /* one device: the plain fit there */
        if (dev[0] == haze_ctx_device(ctx)) {
            haze_fcm_options o = *opt;
            o.devices = NULL;
            o.device_count = 0;
            st = haze__fcm_fit_one(ctx, x, type, n, d, &o, out);
            goto done;
        }
    }
    int threads = haze_ctx_threads(ctx) / (int)R;
    if (threads < 1) threads = 1;
    const size_t es = type == HAZE_PRECISION_F32 ? sizeof(float) : sizeof(double);
    for (made = 0; made < R; made++) {
        part *p = &parts[made];
        p->g = &g, p->rank = made, p->type = type, p->d = d, p->opt = *opt;
        if ((st = part_ctx(ctx, dev[made], threads, &p->ctx))) goto done;
        if (R == 1) break;
        if ((st = haze_fcm_part_rows(ctx, opt, n, d, made, R, &p->first, &p->n))) goto done;
        p->x = p->n ? (const char *)x + p->first * d * es : NULL;
        p->opt.total_rows = n;
        p->opt.first_row = p->first;
        if (opt->init == HAZE_FCM_INIT_MEMBERSHIPS && opt->init_data)
            p->opt.init_data = opt->init_data + p->first * (size_t)opt->clusters;
        if (made > 0) p->opt.progress = NULL, p->opt.progress_arg = NULL; /* part 0's thread */
    }
    if (R == 1) { /* one device other than the context's */
        parts[0].x = x, parts[0].n = n;
        parts[0].opt.devices = NULL;
        parts[0].opt.device_count = 0;
        st = haze__fcm_fit_one(parts[0].ctx, x, type, n, d, &parts[0].opt, out);
        if (st) st = haze__error(ctx, st, "%s", haze_ctx_errmsg(parts[0].ctx));
        goto done;
    }
    if (pthread_mutex_init(&g.mu, NULL)) {
        st = haze__error(ctx, HAZE_ERR_NOMEM, "fcm: cannot make a mutex");
        goto done;
    }
    if (pthread_cond_init(&g.cv, NULL)) {
        pthread_mutex_destroy(&g.mu);
        st = haze__error(ctx, HAZE_ERR_NOMEM, "fcm: cannot make a condition variable");
        goto done;
    }
    have_sync = 1;
#ifdef HAZE_HAVE_NCCL
    {
        const haze__fcm_tuning *t = haze__fcm_tuning_of(ctx);
        /* without NCCL's communicators (a failure to start them is not the
         * fit's), through host memory */
        if (haze_ctx_backend(ctx) == HAZE_BACKEND_CUDA && !(t && t->host_exchange) &&
            haze__fcm_nccl_new(ctx, dev, (int)R, &g.nccl) != HAZE_OK) {
            g.nccl = NULL;
            haze_ctx_clear_error(ctx);
        }
    }
#endif
    pthread_t th[64], *tp = R <= 64 ? th : malloc(R * sizeof *tp);
    if (!tp) {
        st = haze__error(ctx, HAZE_ERR_NOMEM, "fcm: out of memory");
        goto done;
    }
    const haze__fcm_tuning *tune = haze__fcm_tuning_of(ctx);
    for (started = 1; started < R; started++)
        if ((tune && tune->fail_thread == (int)started + 1) ||
            pthread_create(&tp[started], NULL, part_thread, &parts[started]))
            break;
    if (started < R) {
        group_break(&g); /* the parts started wait for one that never comes: they fail */
        st = haze__error(ctx, HAZE_ERR_NOMEM, "fcm: cannot start a thread for device %d",
                         dev[started]);
    } else {
        run_part(&parts[0]);
    }
    for (size_t k = 1; k < started; k++) pthread_join(tp[k], NULL);
    if (tp != th) free(tp);
    if (started < R) goto done;
    /* every part has the same status and message */
    if ((st = parts[0].st)) {
        st = haze__error(ctx, st, "%s", parts[0].msg);
        goto done;
    }
    for (size_t k = 1; k < R && !st; k++)
        if (parts[k].st) st = haze__error(ctx, parts[k].st, "%s", parts[k].msg);
    if (!st) st = gather(ctx, parts, R, n, out);
done:
    for (size_t k = 0; parts && k < R; k++) { /* (the parts not made hold NULL) */
        haze_fcm_result_free(parts[k].r);
        haze_ctx_free(parts[k].ctx);
    }
#ifdef HAZE_HAVE_NCCL
    if (g.nccl) haze__fcm_nccl_free(g.nccl);
#endif
    if (have_sync) {
        pthread_cond_destroy(&g.cv);
        pthread_mutex_destroy(&g.mu);
    }
    free(g.mine);
    free(g.count);
    free(parts);
    free(dev);
    return st;
}
