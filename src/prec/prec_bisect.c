/*
 * src/prec/prec_bisect.c - bisection of the input box: the script's grid of
 * sub-boxes (Gappa's "$ x in N" hint; Linderman et al., CGO 2010, Sec. 4.3)
 * analysed over CPU threads, or on the GPU (prec_gpu.c), their enclosures
 * joined; then adaptive refinement (prec_refine.c) from the grid's leaves.
 */
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

int haze__prec_bisect(haze_ctx *ctx, const haze_prec_script *s, haze_prec_engine engine, pint *acc,
                      long *boxes_out) {
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
    rc = haze__prec_enclose_gpu(ctx, s, engine, acc, &on_gpu);
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
        for (long b = 0; b < boxes && !rc; b++, n_leaves++)
            if (haze__prec_leaf_alloc(&leaves[b], nv, ng))
                rc = haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
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
            final_boxes = n_leaves;
        }
    }
    if (leaves) {
        for (long i = 0; i < n_leaves; i++) haze__prec_leaf_free(&leaves[i], nv, ng);
        haze__mp_free(leaves);
    }
    haze__mp_free(split);
    if (rc) return haze__error(ctx, rc, "%s", errmsg);
    *boxes_out = final_boxes;
    return HAZE_OK;
}
