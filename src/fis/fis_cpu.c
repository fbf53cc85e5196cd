/*
 * src/fis/fis_cpu.c - batch evaluation of a fuzzy inference system on the
 * CPU: the reference that the CUDA driver (fis_cuda.cu) is tested against.
 * The rows are shared among OpenMP threads, each with its own scratch, and
 * each row runs the row evaluator (fis_row.h) over the plan's tables.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/internal.h"
#include "fis/fis_eval.h"
#include "fis/fis_row.h"

/* CPU threads: one per this many rule terms (rows x rules x variables). */
#define FIS_PAR_WORK 32768

int haze__fis_eval_cpu(haze_ctx *ctx, const haze_fis *f, const haze__fis_tabs *tb,
                       const double *inputs, size_t n, double *outputs, haze_fis_stats *stats) {
    const size_t wl = haze__fis_scratch(f);
    /* a thread per FIS_PAR_WORK rule terms at least (about 100 us) */
    const double row = (double)f->nr * (double)(f->ni + f->no) + 1;
    const int plain = tb->plain != NULL, nt = haze__threads_for(ctx, (double)n * row, FIS_PAR_WORK);
    double *work = malloc(sizeof(double) * wl * (size_t)nt);
    if (!work) return haze__error(ctx, HAZE_ERR_NOMEM, "fis: out of memory for %zu doubles", wl);
    /* rows where a lock-previous output needs the rows before it */
    unsigned char *held = f->lockprev ? calloc(n, 1) : NULL;
    if (f->lockprev && !held) {
        free(work);
        return haze__error(ctx, HAZE_ERR_NOMEM, "fis: out of memory for %zu row flags", n);
    }
    size_t clamped = 0, no_rule = 0;
#ifdef _OPENMP
#pragma omp parallel num_threads(nt) reduction(+ : clamped, no_rule) if (nt > 1)
#endif
    {
        int t = 0;
#ifdef _OPENMP
        t = omp_get_thread_num();
#endif
        double *wk = work + wl * (size_t)t;
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
        for (size_t i = 0; i < n; i++) {
            int c = 0, nr = 0, h = 0;
            if (plain)
                haze__fis_eval_row_plain(f, tb, inputs + i * (size_t)f->ni,
                                         outputs + i * (size_t)f->no, wk, &c, &nr);
            else
                haze__fis_eval_row(f, tb, inputs + i * (size_t)f->ni, outputs + i * (size_t)f->no,
                                   wk, &c, &nr, NULL, &h);
            clamped += (size_t)c;
            no_rule += (size_t)nr;
            if (held) held[i] = (unsigned char)h;
        }
    }
    int st = held ? haze__fis_hold(ctx, f, tb, inputs, n, outputs, held, work) : HAZE_OK;
    free(held);
    free(work);
    if (st) return st;
    if (stats) {
        stats->clamped = clamped;
        stats->no_rule = no_rule;
    }
    return HAZE_OK;
}

int haze__fis_hold(haze_ctx *ctx, const haze_fis *f, const haze__fis_tabs *tb, const double *in,
                   size_t n, double *out, const unsigned char *held, double *scratch) {
    const size_t ni = (size_t)f->ni, no = (size_t)f->no;
    double *prev = malloc(sizeof(double) * no);
    if (!prev) return haze__error(ctx, HAZE_ERR_NOMEM, "fis: out of memory");
    for (size_t o = 0; o < no; o++) prev[o] = NAN; /* a new engine has none */
    for (size_t i = 0; i < n; i++) {
        if (held[i]) {
            /* the counts were taken in the first pass */
            int c = 0, nr = 0, h = 0;
            haze__fis_eval_row(f, tb, in + i * ni, out + i * no, scratch, &c, &nr, prev, &h);
        }
        /* OutputVariable::defuzzify keeps the last finite value */
        for (size_t o = 0; o < no; o++)
            if (isfinite(out[i * no + o])) prev[o] = out[i * no + o];
    }
    free(prev);
    return HAZE_OK;
}
