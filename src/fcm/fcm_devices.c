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
 *
 * A process of a fit over several processes (the caller's allgather) runs
 * its parts the same way (haze/fcm.h, "devices"): after the local gather,
 * part 0 sends the local parts' bytes through the caller's hook as one
 * process's, and every local part gets all the processes' bytes, so that to
 * the library's protocol the fit is one of every process's local parts in
 * process order. What cannot be gathered here (memory) goes out as a
 * failure of each local part, so the other processes fail at that step too.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "fcm/fcm_internal.h"

typedef struct part part;

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
    /* the caller's hook (a process of a fit over several), and what it
     * gave part 0 for the others to copy */
    int (*outer)(void *arg, const void *mine, size_t count, void **all, size_t *total);
    void *outer_arg;
    const void *gall;
    size_t gtotal;
    int fail_gather, gathers; /* tests: the tuning switch, part 1's count of all-gathers */
    part *list;               /* the parts, for the exchange's time */
    haze__fcm_tuning *tune;   /* the caller's, which shows that time as the fit runs */
#ifdef HAZE_HAVE_NCCL
    haze__fcm_nccl *nccl; /* NULL: host memory */
#endif
} group;

/* One part's job. */
struct part {
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
    unsigned long calls; /* the all-gathers, and the seconds inside them */
    double secs;
};

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

/* The local parts' bytes b (t of them; bad: some part could not make
 * them, and each local part's failure goes in their place) through the
 * caller's hook, on part 0; the other parts copy what it got. Returns
 * non-zero, on every part, when the hook failed or some part has no copy. */
static int outer_exchange(part *p, int bad, unsigned char *b, size_t t, void **all, size_t *total) {
    group *g = p->g;
    void *got = NULL;
    size_t gt = 0;
    int fail = 0;
    if (p->rank == 0) {
        /* the local parts' bytes, or in their place each local part's
         * failure: then every part of every process fails at this step */
        fail = bad ? haze__fcm_parts_send_failure(g->outer, g->outer_arg, g->parts, HAZE_ERR_NOMEM,
                                                  &got, &gt) != 0
                   : g->outer(g->outer_arg, b, t, &got, &gt) != 0;
        if (fail) {
            free(got);
            got = NULL;
        }
        g->gall = got;
        g->gtotal = gt;
    }
    if (group_wait(g, fail) != 0) { /* (part 0 has freed what it got) */
        return 1;
    }
    if (p->rank != 0) {
        gt = g->gtotal;
        got = malloc(gt ? gt : 1);
        if (got && gt) memcpy(got, g->gall, gt);
    }
    if (group_wait(g, !got) != 0) {
        /* some part has no copy: every local part fails here, and the other
         * processes at their next step, which part 0 fails for them */
        free(got);
        if (p->rank == 0)
            haze__fcm_parts_send_failure(g->outer, g->outer_arg, g->parts, HAZE_ERR_NOMEM, NULL,
                                         NULL);
        return 1;
    }
    *all = got;
    *total = gt;
    return 0;
}

/* haze_fcm_options.allgather between the threads of one process. */
static int allgather_local(void *arg, const void *mine, size_t count, void **all, size_t *total) {
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
    int bad = !b || (p->rank == 1 && g->fail_gather && ++g->gathers == g->fail_gather);
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
     * every part's (in a process of several, handed to the other processes
     * by part 0) */
    const int any = group_wait(g, bad);
    if (g->outer && any >= 0) {
        const int r = outer_exchange(p, any, b, t, all, total);
        free(b);
        return r;
    }
    if (any != 0) {
        free(b);
        return 1;
    }
    *all = b;
    *total = t;
    return 0;
}

/* The exchange's time so far into the caller's tuning block (under g->mu,
 * or after the parts are done): part 0's calls, the most and the least
 * seconds over the parts. */
static void publish(group *g) {
    haze__fcm_tuning *t = g->tune;
    t->exchange_calls = g->list[0].calls;
    t->exchange_most = t->exchange_least = g->list[0].secs;
    for (size_t k = 1; k < g->parts; k++) {
        if (g->list[k].secs > t->exchange_most) t->exchange_most = g->list[k].secs;
        if (g->list[k].secs < t->exchange_least) t->exchange_least = g->list[k].secs;
    }
}

/* The all-gather, timed: part 0 (the calling thread, where the progress
 * callback runs) shows the time after each of its calls (the others' may
 * lag by their last call). */
static int allgather(void *arg, const void *mine, size_t count, void **all, size_t *total) {
    part *p = arg;
    group *g = p->g;
    const double t0 = haze__now();
    const int r = allgather_local(arg, mine, count, all, total);
    const double dt = haze__now() - t0;
    pthread_mutex_lock(&g->mu);
    p->calls++;
    p->secs += dt;
    if (p->rank == 0 && g->tune) publish(g);
    pthread_mutex_unlock(&g->mu);
    return r;
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
    to->seed_lean = from->seed_lean;
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

/* The rows of the R local parts: parts[k].first (from the start of this
 * call's x) and .n (haze/fcm.h, "part_first"). */
static int cut(haze_ctx *ctx, const haze_fcm_options *opt, size_t n, size_t d, part *parts,
               size_t R) {
    int st = HAZE_OK;
    if (!opt->allgather) { /* the whole data set */
        for (size_t k = 0; k < R && !st; k++)
            st = haze_fcm_part_rows(ctx, opt, n, d, k, R, &parts[k].first, &parts[k].n);
        return st;
    }
    const size_t total = opt->total_rows, row0 = opt->first_row;
    if (opt->part_count == 0) { /* the process's rows, in whole tiles from its first */
        const size_t tile =
            haze__fcm_part_align(total, d, (size_t)opt->clusters, opt->metric == HAZE_FCM_GK);
        const size_t nt = (n + tile - 1) / tile;
        for (size_t k = 0; k < R; k++) {
            const size_t a = (size_t)((unsigned long long)k * nt / R);
            const size_t b = (size_t)((unsigned long long)(k + 1) * nt / R);
            const size_t r0 = a * tile < n ? a * tile : n, r1 = b * tile < n ? b * tile : n;
            parts[k].first = r0;
            parts[k].n = r1 - r0;
        }
        return HAZE_OK;
    }
    if (opt->part_first > opt->part_count || R > opt->part_count - opt->part_first)
        return haze__error(ctx, HAZE_ERR_INVALID,
                           "fcm: parts %zu to %zu of %zu: a process's %zu devices are parts of "
                           "the whole fit (part_first, part_count)",
                           opt->part_first + 1, opt->part_first + R, opt->part_count, R);
    size_t f0 = 0, end = 0;
    for (size_t k = 0; k < R && !st; k++) {
        size_t f, c;
        st = haze_fcm_part_rows(ctx, opt, total, d, opt->part_first + k, opt->part_count, &f, &c);
        if (k == 0) f0 = f;
        parts[k].first = f - (f >= row0 ? row0 : f); /* (checked below) */
        parts[k].n = c;
        end = f + c;
    }
    if (!st && (f0 != row0 || end - f0 != n))
        st = haze__error(ctx, HAZE_ERR_INVALID,
                         "fcm: this process holds rows %zu to %zu of %zu, but its parts %zu to %zu "
                         "of %zu hold rows %zu to %zu (haze_fcm_part_rows)",
                         row0 + 1, row0 + n, total, opt->part_first + 1, opt->part_first + R,
                         opt->part_count, f0 + 1, end);
    return st;
}

int haze__fcm_fit_devices(haze_ctx *ctx, const void *x, haze_precision type, size_t n, size_t d,
                          const haze_fcm_options *opt, haze_fcm_result **out) {
    *out = NULL;
    if (!ctx) return haze__error(ctx, HAZE_ERR_INVALID, "fcm: NULL argument");
    int st = haze__fcm_validate(ctx, x, type, n, d, opt);
    const size_t R = (size_t)opt->device_count;
    int entered = 0; /* the parts have taken the library's first step */
    if (st) goto hand_on;
    int *dev = malloc(R * sizeof *dev);
    part *parts = calloc(R, sizeof *parts);
    group g;
    memset(&g, 0, sizeof g);
    g.parts = R;
    g.outer = opt->allgather;
    g.outer_arg = opt->allgather_arg;
    g.list = parts;
    g.mine = calloc(R, sizeof *g.mine);
    g.count = calloc(R, sizeof *g.count);
    size_t made, started = 0;
    int have_sync = 0;
    if (!dev || !parts || !g.mine || !g.count) {
        st = haze__error(ctx, HAZE_ERR_NOMEM, "fcm: out of memory");
        goto done;
    }
    if ((st = check_devices(ctx, opt, dev)) || (st = cut(ctx, opt, n, d, parts, R))) goto done;
    if (R == 1) { /* one device: the plain fit there */
        if (dev[0] == haze_ctx_device(ctx)) {
            haze_fcm_options o = *opt;
            o.devices = NULL;
            o.device_count = 0;
            entered = 1;
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
        p->x = p->n ? (const char *)x + p->first * d * es : NULL;
        p->opt.total_rows = opt->allgather ? opt->total_rows : n;
        p->opt.first_row = (opt->allgather ? opt->first_row : 0) + p->first;
        if (opt->init == HAZE_FCM_INIT_MEMBERSHIPS && opt->init_data)
            p->opt.init_data = opt->init_data + p->first * (size_t)opt->clusters;
        if (made > 0) p->opt.progress = NULL, p->opt.progress_arg = NULL; /* part 0's thread */
    }
    if (R == 1) { /* one device other than the context's */
        parts[0].x = x, parts[0].n = n;
        parts[0].opt.devices = NULL;
        parts[0].opt.device_count = 0;
        entered = 1;
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
    if ((g.tune = haze__fcm_tuning_of(ctx))) {
        g.fail_gather = g.tune->fail_gather;
        g.tune->exchange_calls = 0;
        g.tune->exchange_most = g.tune->exchange_least = 0;
    }
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
        entered = 1;
        run_part(&parts[0]);
    }
    for (size_t k = 1; k < started; k++) pthread_join(tp[k], NULL);
    if (tp != th) free(tp);
    if (g.tune) publish(&g); /* the exchange's time, final (dev/fcm_dev.h) */
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
hand_on:
    /* A process of a fit over several that fails before its parts take the
     * first step: the failure is that step, for every process. */
    if (st && opt->allgather && !entered) {
        haze__fcm_parts *pp = NULL;
        st = haze__fcm_parts_begin(ctx, st, opt, type == HAZE_PRECISION_F32, 0, n, d, &pp);
        haze__fcm_parts_free(pp);
    }
    return st;
}
