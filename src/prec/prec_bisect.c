/*
 * src/prec/prec_bisect.c - bisection of the input box: the script's grid of
 * sub-boxes (Gappa's "$ x in N" hint; Linderman et al., CGO 2010, Sec. 4.3)
 * analysed over CPU threads, or on the GPU (prec_gpu.c), their enclosures
 * joined; then adaptive refinement (prec_refine.c) from the grid's leaves.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prec/prec_driver.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* Sub-range k of n of [lo, hi], rounded outward so that the parts cover it. */
static void sub_range(pint *r, const pint *full, long k, long n) {
    PREC_TMP(w);
    mpfr_sub(w, full->hi, full->lo, MPFR_RNDN);
    mpfr_mul_si(r->lo, w, k, MPFR_RNDD);
    mpfr_div_si(r->lo, r->lo, n, MPFR_RNDD);
    mpfr_add(r->lo, r->lo, full->lo, MPFR_RNDD);
    mpfr_mul_si(r->hi, w, k + 1, MPFR_RNDU);
    mpfr_div_si(r->hi, r->hi, n, MPFR_RNDU);
    mpfr_add(r->hi, r->hi, full->lo, MPFR_RNDU);
    if (k == 0) mpfr_set(r->lo, full->lo, MPFR_RNDD);
    if (k == n - 1) mpfr_set(r->hi, full->hi, MPFR_RNDU);
    mpfr_free_cache();
}

prec_boxrec *haze__prec_boxrec_new(const haze_prec_script *s) {
    prec_boxrec *b = haze__mp_calloc(1, sizeof *b);
    if (!b) return NULL;
    int nv = s->n_vars, ng = s->n_goals;
    b->nv = nv;
    b->ng = ng;
    size_t n = 1, subs = 0, limit = (size_t)HAZE_PREC_MAX_BOX_RECORDS / (size_t)(ng ? ng : 1);
    for (int v = 0; v < nv && n; v++) {
        size_t k = (size_t)s->vars[v].bisect;
        n = k <= limit / n ? n * k : 0;
        subs += k;
    }
    if (!n) return b; /* too many: none kept */
    b->split = haze__mp_malloc((size_t)(nv ? nv : 1) * sizeof *b->split);
    b->off = haze__mp_malloc((size_t)(nv ? nv : 1) * sizeof *b->off);
    b->sub_lo = haze__mp_malloc((subs ? subs : 1) * sizeof *b->sub_lo);
    b->sub_hi = haze__mp_malloc((subs ? subs : 1) * sizeof *b->sub_hi);
    b->lo = haze__mp_malloc(n * (size_t)ng * sizeof *b->lo);
    b->hi = haze__mp_malloc(n * (size_t)ng * sizeof *b->hi);
    if (!b->split || !b->off || !b->sub_lo || !b->sub_hi || !b->lo || !b->hi) {
        haze__prec_boxrec_free(b);
        return NULL;
    }
    subs = 0;
    for (int v = 0; v < nv; v++) {
        b->split[v] = s->vars[v].bisect;
        b->off[v] = subs;
        subs += (size_t)s->vars[v].bisect;
    }
    for (size_t i = 0; i < n * (size_t)ng; i++) b->lo[i] = INFINITY, b->hi[i] = -INFINITY;
    b->n_box = n;
    return b;
}

/* The inputs' sub-ranges as the CPU (MPFR, sub_range) or the GPU (double,
 * pbox_sub_range) analyses them, rounded outward to double. */
static void record_sub_ranges(const haze_prec_script *s, prec_boxrec *rec, int on_gpu) {
    pint r;
    haze__pi_init(&r);
    for (int v = 0; v < rec->nv; v++) {
        const pvar *x = &s->vars[v];
        long n = rec->split[v];
        double lo = mpfr_get_d(x->range.lo, MPFR_RNDD), hi = mpfr_get_d(x->range.hi, MPFR_RNDU);
        for (long k = 0; k < n; k++) {
            double a = lo, b = hi;
            if (on_gpu) {
                haze_ivd c = pbox_sub_range(lo, hi, k, n);
                a = c.lo;
                b = c.hi;
            } else if (n > 1 && x->has_range) {
                sub_range(&r, &x->range, k, n);
                a = mpfr_get_d(r.lo, MPFR_RNDD);
                b = mpfr_get_d(r.hi, MPFR_RNDU);
            }
            if (a == 0) a = 0; /* -0, from a sum rounded down */
            if (b == 0) b = 0;
            rec->sub_lo[rec->off[v] + (size_t)k] = a;
            rec->sub_hi[rec->off[v] + (size_t)k] = b;
        }
    }
    haze__pi_clear(&r);
}

/* The record of grid box rb, goal enclosures res[0..ng-1] joined in. */
static void record_box(prec_boxrec *rec, size_t rb, const pint *res) {
    for (int g = 0; g < rec->ng; g++) {
        double lo = mpfr_get_d(res[g].lo, MPFR_RNDD), hi = mpfr_get_d(res[g].hi, MPFR_RNDU);
        double *L = &rec->lo[rb * (size_t)rec->ng + (size_t)g];
        double *H = &rec->hi[rb * (size_t)rec->ng + (size_t)g];
        if (lo < *L) *L = lo;
        if (hi > *H) *H = hi;
    }
}

int haze__prec_bisect(haze_ctx *ctx, const haze_prec_script *s, haze_prec_engine engine, pint *acc,
                      prec_boxrec *rec, long *boxes_out) {
    long boxes = 1;
    for (int i = 0; i < s->n_vars; i++) {
        if (s->vars[i].bisect > PREC_MAX_BOXES / boxes)
            return haze__error(ctx, HAZE_ERR_INVALID, "more than %ld sub-boxes requested",
                               PREC_MAX_BOXES);
        boxes *= s->vars[i].bisect;
    }
    int ng = s->n_goals, nv = s->n_vars;
    int rc = 0, on_gpu = 0;
    char errmsg[HAZE__ERRMSG_MAX] = "";
    /* a thread for every PREC_PAR_COST of work: small grids run on one */
    const double box_cost = haze__prec_box_cost(s, engine);
    int threads = haze__threads_for(ctx, (double)boxes * box_cost, PREC_PAR_COST);
    if (boxes < threads) threads = (int)boxes;
    /* the interval engine bisects on the GPU when the script allows it
     * (no exp/log); otherwise, and for the affine engine, the CPU does */
    if (rec && !rec->n_box) rec = NULL; /* too many boxes to keep */
    rc = haze__prec_enclose_gpu(ctx, s, engine, acc, rec, &on_gpu);
    if (rec && !rc) record_sub_ranges(s, rec, on_gpu);
    if (rc) snprintf(errmsg, sizeof errmsg, "%s", haze_ctx_errmsg(ctx));
    if (on_gpu) threads = 0;
    /* adaptive refinement keeps every grid box with its enclosures */
    long budget = s->refine;
    if (budget < 0) budget = s->n_nodes <= 512 ? HAZE_PREC_REFINE_DEFAULT : 0;
    long *split = haze__mp_malloc((size_t)(nv ? nv : 1) * sizeof *split);
    if (!split && !rc) {
        rc = haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
        snprintf(errmsg, sizeof errmsg, "%s", haze_ctx_errmsg(ctx));
    }
    for (int i = 0; split && i < nv; i++) split[i] = s->vars[i].bisect;
    if (split && budget > 0 && !on_gpu && boxes == 1) {
        /* Without a grid, refinement starts from the box halved along every
         * input (up to PREC_REFINE_AUTO_DIMS of them): bisecting one input at a
         * time often cannot lower the bound until the others are split too
         * (doppler1: the dependency is between T and u). */
        int k = 0;
        for (int i = 0; i < nv; i++)
            if (s->vars[i].has_range && !haze__pi_is_point(&s->vars[i].range)) k++;
        if (k >= 1 && k <= PREC_REFINE_AUTO_DIMS) {
            for (int i = 0; i < nv; i++)
                if (s->vars[i].has_range && !haze__pi_is_point(&s->vars[i].range)) split[i] = 2;
            boxes = 1L << k;
            budget = budget > boxes ? budget - boxes : 0;
            threads = haze__threads_for(ctx, (double)boxes * box_cost, PREC_PAR_COST);
            if (boxes < threads) threads = (int)boxes;
        }
    }
    pleaf *leaves = NULL;
    long n_leaves = 0, cap_leaves = 0;
    if (budget > 0 && !on_gpu && !rc && boxes <= PREC_REFINE_MAX_GRID) {
        cap_leaves = boxes + 16;
        leaves = haze__mp_calloc((size_t)cap_leaves, sizeof *leaves);
        if (!leaves) rc = haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
        for (long b = 0; b < boxes && !rc; b++, n_leaves++) {
            if (haze__prec_leaf_alloc(&leaves[b], nv, ng))
                rc = haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
            leaves[b].root = b;
        }
        if (rc) snprintf(errmsg, sizeof errmsg, "%s", haze_ctx_errmsg(ctx));
    }
    long n_done = 0; /* grid boxes analysed, for s->progress */
    if (s->progress && !on_gpu && !rc) s->progress(s->progress_arg, HAZE_PREC_STAGE_GRID, 0, boxes);
#pragma omp parallel num_threads(threads > 0 ? threads : 1) if (threads > 1)
    {
        pint *box = malloc((size_t)(nv ? nv : 1) * sizeof *box);
        pint *res = malloc((size_t)ng * sizeof *res);
        pint *mine = malloc((size_t)ng * sizeof *mine);
        struct haze_ctx local;
        haze__ctx_init_local(&local);
        int myrc = (!box || !res || !mine) ? HAZE_ERR_NOMEM : 0;
        if (!myrc) {
            for (int i = 0; i < nv; i++) haze__pi_init(&box[i]);
            for (int g = 0; g < ng; g++) {
                haze__pi_init(&res[g]);
                haze__pi_init(&mine[g]);
                mpfr_set_inf(mine[g].lo, 1);
                mpfr_set_inf(mine[g].hi, -1);
            }
        }
#pragma omp for schedule(dynamic, 1)
        for (long b = 0; b < (on_gpu ? 0 : boxes); b++) {
            int stop;
#pragma omp atomic read
            stop = rc;
            if (myrc || stop) continue;
            long rest = b;
            for (int i = 0; i < nv; i++) {
                long n = split[i];
                if (n > 1 && s->vars[i].has_range)
                    sub_range(&box[i], &s->vars[i].range, rest % n, n);
                else
                    haze__pi_set(&box[i], &s->vars[i].range);
                rest /= n;
            }
            myrc = haze__prec_analyse_box_guarded(&local, s, box, engine, res);
            if (!myrc)
                for (int g = 0; g < ng; g++) haze__pi_hull(&mine[g], &mine[g], &res[g]);
            /* a grid of more than one box is the script's: box b is record b */
            if (!myrc && rec && rec->n_box > 1 && !leaves) record_box(rec, (size_t)b, res);
            if (!myrc && leaves) {
                for (int i = 0; i < nv; i++) haze__pi_set(&leaves[b].box[i], &box[i]);
                for (int g = 0; g < ng; g++) haze__pi_set(&leaves[b].res[g], &res[g]);
            }
            if (s->progress) {
                long d;
#pragma omp atomic capture
                d = ++n_done;
#ifdef _OPENMP
                /* the callback runs on the calling thread only */
                if (omp_get_thread_num() == 0)
#endif
                    s->progress(s->progress_arg, HAZE_PREC_STAGE_GRID, d, boxes);
            }
        }
/* unnamed: a named critical section is a global symbol of the library */
#pragma omp critical
        {
            if (myrc && !rc) {
#pragma omp atomic write
                rc = myrc;
                const char *m = haze_ctx_errmsg(&local);
                snprintf(errmsg, sizeof errmsg, "%s", m[0] ? m : "out of memory");
            }
            if (!myrc && mine)
                for (int g = 0; g < ng; g++) haze__pi_hull(&acc[g], &acc[g], &mine[g]);
        }
        haze_ctx_clear_error(&local);
        if (box && res && mine) {
            for (int i = 0; i < nv; i++) haze__pi_clear(&box[i]);
            for (int g = 0; g < ng; g++) {
                haze__pi_clear(&res[g]);
                haze__pi_clear(&mine[g]);
            }
        }
        free(box);
        free(res);
        free(mine);
        mpfr_free_cache();
    }
    if (s->progress && !on_gpu && !rc) /* the last box may have been another thread's */
        s->progress(s->progress_arg, HAZE_PREC_STAGE_GRID, n_done, boxes);
    long final_boxes = boxes;
    if (!rc && leaves) {
        long used = 0;
        int rr = haze__prec_refine(s, engine, haze__threads(ctx), &leaves, &n_leaves, &cap_leaves,
                                   budget, &used);
        if (rr) {
            rc = rr;
            snprintf(errmsg, sizeof errmsg, "out of memory");
        } else {
            /* the leaves cover the box; the grid's hull is sound as well */
            for (int g = 0; g < ng; g++) {
                pint h;
                haze__pi_init(&h);
                mpfr_set_inf(h.lo, 1);
                mpfr_set_inf(h.hi, -1);
                for (long i = 0; i < n_leaves; i++) haze__pi_hull(&h, &h, &leaves[i].res[g]);
                haze__pi_meet(&acc[g], &acc[g], &h);
                haze__pi_clear(&h);
            }
            /* each grid box: the hull of its leaves */
            for (long i = 0; rec && rec->n_box > 1 && i < n_leaves; i++)
                record_box(rec, (size_t)leaves[i].root, leaves[i].res);
            final_boxes = n_leaves;
        }
    }
    if (leaves) {
        for (long i = 0; i < n_leaves; i++) haze__prec_leaf_free(&leaves[i], nv, ng);
        haze__mp_free(leaves);
    }
    haze__mp_free(split);
    if (rc) return haze__error(ctx, rc, "%s", errmsg);
    /* the script's grid of one box (perhaps halved automatically): the whole */
    if (rec && rec->n_box == 1) record_box(rec, 0, acc);
    *boxes_out = final_boxes;
    return HAZE_OK;
}
