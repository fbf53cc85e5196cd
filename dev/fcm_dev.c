/*
 * dev/fcm_dev.c - the fuzzy c-means switches and probes of dev/fcm_dev.h,
 * through the module's private header and the context's tuning block.
 */
#include "fcm_dev.h"

#include "fcm/fcm_internal.h"

/* The context's block, or HAZE_ERR_NOMEM recorded in it. */
static haze__fcm_tuning *tuning(haze_ctx *ctx, int *st) {
    haze__fcm_tuning *t = ctx ? haze__fcm_tuning_of(ctx) : NULL;
    *st = t     ? HAZE_OK
          : ctx ? haze__error(ctx, HAZE_ERR_NOMEM, "fcm: out of memory for the tuning state")
                : HAZE_ERR_INVALID;
    return t;
}

int haze_dev_fcm_set_shape(haze_ctx *ctx, int on) {
    int st;
    haze__fcm_tuning *t = tuning(ctx, &st);
    if (t) t->no_shape = !on;
    return st;
}

int haze_dev_fcm_set_keep_eighths(haze_ctx *ctx, int eighths) {
    if (eighths < -1 || eighths > 8)
        return haze__error(ctx, HAZE_ERR_INVALID, "fcm: kept share %d: expected 0 to 8 or -1",
                           eighths);
    int st;
    haze__fcm_tuning *t = tuning(ctx, &st);
    if (t) t->keep8 = eighths + 1;
    return st;
}

int haze_dev_fcm_set_pipeline(haze_ctx *ctx, int on) {
    int st;
    haze__fcm_tuning *t = tuning(ctx, &st);
    if (t) t->no_pipeline = !on;
    return st;
}

int haze_dev_fcm_set_cpu_seed(haze_ctx *ctx, int on) {
    int st;
    haze__fcm_tuning *t = tuning(ctx, &st);
    if (t) t->cpu_seed = !!on;
    return st;
}

int haze_dev_fcm_set_seed_lean(haze_ctx *ctx, int on) {
    int st;
    haze__fcm_tuning *t = tuning(ctx, &st);
    if (t) t->seed_lean = !!on;
    return st;
}

void haze_dev_fcm_queue_counts(haze_ctx *ctx, unsigned long *used, unsigned long *dropped) {
    int st;
    haze__fcm_tuning *t = tuning(ctx, &st);
    *used = t ? __atomic_load_n(&t->queued_used, __ATOMIC_RELAXED) : 0;
    *dropped = t ? __atomic_load_n(&t->queued_dropped, __ATOMIC_RELAXED) : 0;
}

void haze_dev_fcm_exchange_seconds(haze_ctx *ctx, unsigned long *calls, double *most,
                                   double *least) {
    int st;
    haze__fcm_tuning *t = tuning(ctx, &st);
    *calls = t ? t->exchange_calls : 0;
    *most = t ? t->exchange_most : 0;
    *least = t ? t->exchange_least : 0;
}

size_t haze_dev_fcm_pp_trials(size_t c) {
    return haze__fcm_pp_trials(c);
}

int haze_dev_fcm_kmeanspp(haze_ctx *ctx, const void *x, int single, size_t n, size_t d, size_t c,
                          uint64_t seed, double *v) {
    return haze__fcm_kmeanspp(ctx, NULL, x, single, n, d, c, seed, v);
}

int haze_dev_fcm_seed_cpu(haze_ctx *ctx, const void *x, int single, size_t n, size_t d, size_t c,
                          size_t trials, const size_t *idx, const double *u, double *v) {
    return haze__fcm_seed_cpu(ctx, x, single, n, d, c, trials, idx, u, v);
}

int haze_dev_fcm_seed_device(haze_ctx *ctx, const void *x, int single, size_t n, size_t d, size_t c,
                             size_t trials, const size_t *idx, const double *u, double *v) {
#ifdef HAZE_HAVE_CUDA
    haze__fcm_gpu *g = NULL;
    int st = haze__fcm_cuda_begin(ctx, x, n, d, c, single, 0, 0, &g);
    if (st) return st;
    st = haze__fcm_seed_cuda(ctx, g, trials, idx, u, v);
    haze__fcm_cuda_end(g);
    return st;
#else
    (void)x, (void)single, (void)n, (void)d, (void)c, (void)trials, (void)idx, (void)u, (void)v;
    return haze__error(ctx, HAZE_ERR_UNSUPPORTED, "fcm: built without CUDA");
#endif
}
