/*
 * src/fis/fis_devices.c - a batch from host memory over the devices of a
 * context over several GPUs (haze/core.h, "Several devices"; haze/fis.h,
 * haze_fis_eval).
 *
 * The rows are cut into contiguous slices, one per device, each evaluated
 * by the one-device driver (fis_cuda.cu) on the device's part of the
 * context, on a thread of its own (the calling thread takes the first),
 * writing its outputs in place. Every row is evaluated alone, by the same
 * kernel the model picks on one device, with the same plan, so the outputs
 * are one device's bits; the counts are integers, added. A model with
 * lock-previous outputs is not split (a row may wait for the one before
 * it): it runs on the first device.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "fis/fis_eval.h"

#ifdef HAZE_HAVE_CUDA

/* The fewest rows a device takes: a smaller batch runs on fewer devices
 * (the model's upload and a thread's start cost tens of microseconds). */
#define FIS_PART_MIN_ROWS ((size_t)4096)

typedef struct fis_part {
    haze_ctx *ctx; /* the device's part of the caller's context */
    const haze_fis *fis;
    const haze__fis_plan *plan;
    const double *in;
    double *out;
    size_t first, n; /* its rows */
    haze_fis_stats stats;
    int st;
    char msg[HAZE__ERRMSG_MAX];
} fis_part;

static void part_run(fis_part *p) {
    memset(&p->stats, 0, sizeof p->stats);
    p->stats.size = sizeof p->stats;
    p->st = haze__fis_eval_cuda(p->ctx, p->fis, p->plan, p->in, p->n, p->out, &p->stats, 0);
    /* the part's message is this thread's: copied for the caller's */
    if (p->st) haze__snprintf(p->msg, sizeof p->msg, "%s", haze_ctx_errmsg(p->ctx));
}

static void *part_thread(void *arg) {
    part_run(arg);
    return NULL;
}

int haze__fis_eval_devices(haze_ctx *ctx, const haze_fis *fis, const haze__fis_plan *plan,
                           const double *inputs, size_t n, double *outputs, haze_fis_stats *stats) {
    size_t R = (size_t)haze__ctx_parts(ctx);
    if (R > n / FIS_PART_MIN_ROWS) R = n / FIS_PART_MIN_ROWS;
    if (R <= 1 || fis->lockprev)
        return haze__fis_eval_cuda(ctx, fis, plan, inputs, n, outputs, stats, 0);
    fis_part one[8], *parts = R <= 8 ? one : calloc(R, sizeof *parts);
    pthread_t th[8], *tp = R <= 8 ? th : calloc(R, sizeof *tp);
    unsigned char run_here[8], *here = R <= 8 ? run_here : calloc(R, 1);
    if (!parts || !tp || !here) {
        if (parts != one) free(parts);
        if (tp != th) free(tp);
        if (here != run_here) free(here);
        return haze__error(ctx, HAZE_ERR_NOMEM, "fis: out of memory for %zu devices", R);
    }
    const size_t ni = (size_t)fis->ni, no = (size_t)fis->no;
    for (size_t k = 0; k < R; k++) {
        /* rows [n k / R, n (k + 1) / R): contiguous, in order, none empty */
        const size_t a = n / R * k + n % R * k / R, e = n / R * (k + 1) + n % R * (k + 1) / R;
        fis_part *p = &parts[k];
        memset(p, 0, sizeof *p);
        p->ctx = haze__ctx_part(ctx, (int)k);
        p->fis = fis;
        p->plan = plan;
        p->in = inputs + a * ni;
        p->out = outputs + a * no;
        p->first = a;
        p->n = e - a;
        here[k] = 0;
    }
    /* a thread that cannot start: its slice runs here after the first's */
    for (size_t k = 1; k < R; k++)
        here[k] = pthread_create(&tp[k], NULL, part_thread, &parts[k]) != 0;
    /* the first slice's staging copies take its share of the host's
     * threads, as the other devices' parts do (haze/core.h): together the
     * parts copy on about as many threads as the context has, not twice */
    int share = haze_ctx_threads(ctx) / (int)R;
    haze__copy_par_cap(share > 0 ? share : 1);
    part_run(&parts[0]);
    haze__copy_par_cap(0);
    for (size_t k = 1; k < R; k++) {
        if (here[k])
            part_run(&parts[k]);
        else
            pthread_join(tp[k], NULL);
    }
    int st = HAZE_OK;
    if (stats) stats->clamped = stats->no_rule = 0;
    for (size_t k = 0; k < R; k++) {
        if (parts[k].st && !st) /* the first slice's failure, in row order */
            st = haze__error(ctx, parts[k].st, "CUDA device %d (rows %zu to %zu): %s",
                             parts[k].ctx->device, parts[k].first + 1, parts[k].first + parts[k].n,
                             parts[k].msg[0] ? parts[k].msg : haze_status_message(parts[k].st));
        if (stats) {
            stats->clamped += parts[k].stats.clamped;
            stats->no_rule += parts[k].stats.no_rule;
        }
    }
    if (parts != one) free(parts);
    if (tp != th) free(tp);
    if (here != run_here) free(here);
    return st;
}

#endif
