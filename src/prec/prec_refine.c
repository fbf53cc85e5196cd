/*
 * src/prec/prec_refine.c - adaptive refinement of the bisection's sub-boxes,
 * and the guarded analysis of one sub-box on a worker thread.
 *
 * Refinement keeps every sub-box ("leaf") with its enclosures. The leaf that
 * decides a goal's bound (the largest magnitude) is split at the midpoint of
 * one input; the input is the one whose halves give the lowest bound, tried
 * in parallel. This is the branch-and-bound of global optimisation (what
 * FPTaylor does for its error model), applied to the whole analysis: the
 * engines' overestimation shrinks with the width of the box (first order for
 * intervals, second order for affine forms), and only where it matters.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "prec/prec_driver.h"

typedef struct box_job {
    haze_ctx *ctx;
    const haze_prec_script *s;
    const pint *box;
    haze_prec_engine engine;
    pint *res;
} box_job;

static int box_run(void *arg) {
    box_job *j = arg;
    return haze__prec_analyse_box(j->ctx, j->s, j->box, j->engine, j->res);
}

int haze__prec_analyse_box_guarded(haze_ctx *local, const haze_prec_script *s, const pint *box,
                                   haze_prec_engine engine, pint *res) {
    box_job j = {local, s, box, engine, res};
    return haze__mp_run(local, box_run, &j);
}

/* Inputs tried per split, at most (the widest relative to their range). */
#define REFINE_DIMS 8
/* A leaf whose last splits in a row did not lower its bound is left alone:
 * its bound is (nearly) attained, or the engines cannot do better there. A
 * few non-improving splits are allowed because a maximum near a midpoint, or
 * a dependency between two inputs, needs several before the bound drops. */
#define REFINE_STALL 5

static double mag_d(const pint *x) {
    PREC_TMP(m);
    haze__pi_mag(m, x);
    return mpfr_get_d(m, MPFR_RNDU);
}

void haze__prec_leaf_free(pleaf *l, int nv, int ng) {
    if (!l) return;
    if (l->box)
        for (int i = 0; i < nv; i++) haze__pi_clear(&l->box[i]);
    if (l->res)
        for (int g = 0; g < ng; g++) haze__pi_clear(&l->res[g]);
    free(l->box);
    free(l->res);
    l->box = l->res = NULL;
}

int haze__prec_leaf_alloc(pleaf *l, int nv, int ng) {
    l->stall = 0;
    l->root = 0;
    l->box = malloc((size_t)(nv ? nv : 1) * sizeof *l->box);
    l->res = malloc((size_t)ng * sizeof *l->res);
    if (!l->box || !l->res) {
        free(l->box);
        free(l->res);
        l->box = l->res = NULL;
        return HAZE_ERR_NOMEM;
    }
    for (int i = 0; i < nv; i++) haze__pi_init(&l->box[i]);
    for (int g = 0; g < ng; g++) haze__pi_init(&l->res[g]);
    return 0;
}

/* Score of an enclosure set: max over goals of mag / M (M: the current bound). */
static double score_of(const pint *res, const double *M, int ng) {
    double sc = 0;
    for (int g = 0; g < ng; g++) {
        if (!(M[g] > 0)) continue;
        double m = mag_d(&res[g]);
        double r = isinf(M[g]) ? (isinf(m) ? 1 : 0) : m / M[g];
        if (r > sc) sc = r;
    }
    return sc;
}

int haze__prec_refine(const haze_prec_script *s, haze_prec_engine engine, int threads,
                      pleaf **leaves, long *n_leaves, long *cap, long budget, long *used) {
    int nv = s->n_vars, ng = s->n_goals;
    const double box_cost = haze__prec_box_cost(s, engine);
    double *M = malloc((size_t)ng * sizeof *M);
    long *arg = malloc((size_t)ng * sizeof *arg);
    int *dims = malloc((size_t)(nv ? nv : 1) * sizeof *dims);
    /* candidate halves: 2 per tried input */
    pleaf cand[2 * REFINE_DIMS];
    int cand_ok[2 * REFINE_DIMS];
    int nomem = 0;
    memset(cand, 0, sizeof cand);
    int rc = (!M || !arg || !dims) ? HAZE_ERR_NOMEM : 0;
    for (int k = 0; k < 2 * REFINE_DIMS && !rc; k++) rc = haze__prec_leaf_alloc(&cand[k], nv, ng);
    while (!rc && *used < budget) {
        /* the leaf deciding each goal's bound */
        for (int g = 0; g < ng; g++) {
            M[g] = -1;
            arg[g] = -1;
            for (long i = 0; i < *n_leaves; i++) {
                double m = mag_d(&(*leaves)[i].res[g]);
                if (m > M[g]) M[g] = m, arg[g] = i;
            }
        }
        long pick = -1;
        for (int g = 0; g < ng && pick < 0; g++)
            if (arg[g] >= 0 && M[g] > 0 && (*leaves)[arg[g]].stall < REFINE_STALL) pick = arg[g];
        if (pick < 0) break;
        pleaf *L = &(*leaves)[pick];
        double s0 = score_of(L->res, M, ng);
        /* inputs to try: widest relative to their whole range */
        int nd = 0;
        for (int i = 0; i < nv; i++)
            if (s->vars[i].has_range && !haze__pi_is_point(&L->box[i])) dims[nd++] = i;
        double *rel = malloc((size_t)(nd ? nd : 1) * sizeof *rel);
        if (!rel) {
            rc = HAZE_ERR_NOMEM;
            break;
        }
        for (int k = 0; k < nd; k++) {
            const pint *b = &L->box[dims[k]], *r = &s->vars[dims[k]].range;
            double w = mpfr_get_d(b->hi, MPFR_RNDN) - mpfr_get_d(b->lo, MPFR_RNDN);
            double W = mpfr_get_d(r->hi, MPFR_RNDN) - mpfr_get_d(r->lo, MPFR_RNDN);
            rel[k] = W > 0 ? w / W : 0;
        }
        for (int a = 1; a < nd; a++) /* insertion sort, widest first, stable */
            for (int b = a; b > 0 && rel[b] > rel[b - 1]; b--) {
                double tr = rel[b];
                rel[b] = rel[b - 1];
                rel[b - 1] = tr;
                int td = dims[b];
                dims[b] = dims[b - 1];
                dims[b - 1] = td;
            }
        free(rel);
        if (nd > REFINE_DIMS) nd = REFINE_DIMS;
        if (nd == 0) {
            L->stall = REFINE_STALL;
            continue;
        }
        int nc = 2 * nd;
        const int nt = haze__threads_cap(threads, nc * box_cost, PREC_PAR_COST);
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt) if (nt > 1)
        for (int k = 0; k < nc; k++) {
            pleaf *C = &cand[k];
            int d = dims[k / 2];
            for (int i = 0; i < nv; i++) haze__pi_set(&C->box[i], &L->box[i]);
            /* both halves share the same midpoint, so they cover the box */
            PREC_TMP(mid);
            mpfr_add(mid, L->box[d].lo, L->box[d].hi, MPFR_RNDN);
            mpfr_div_2ui(mid, mid, 1, MPFR_RNDN);
            if (k % 2 == 0)
                mpfr_set(C->box[d].hi, mid, MPFR_RNDU);
            else
                mpfr_set(C->box[d].lo, mid, MPFR_RNDD);
            struct haze_ctx local;
            haze__ctx_init_local(&local);
            int st = haze__prec_analyse_box_guarded(&local, s, C->box, engine, C->res);
            cand_ok[k] = st == 0;
            if (st == HAZE_ERR_NOMEM) {
#pragma omp atomic write
                nomem = 1;
            }
            haze_ctx_clear_error(&local); /* frees this thread's slot for it */
            /* a sub-box's values lie in the parent's enclosure too */
            if (cand_ok[k])
                for (int g = 0; g < ng; g++) haze__pi_meet(&C->res[g], &C->res[g], &L->res[g]);
            mpfr_free_cache();
        }
        if (nomem) {
            rc = HAZE_ERR_NOMEM;
            break;
        }
        *used += nc;
        if (s->progress)
            s->progress(s->progress_arg, HAZE_PREC_STAGE_REFINE, *used < budget ? *used : budget,
                        budget);
        int best = -1;
        double best_sc = HUGE_VAL, best_lo = HUGE_VAL;
        for (int k = 0; k < nd; k++) {
            if (!cand_ok[2 * k] || !cand_ok[2 * k + 1]) continue;
            double a = score_of(cand[2 * k].res, M, ng), b = score_of(cand[2 * k + 1].res, M, ng);
            double sc = a > b ? a : b, lo = a > b ? b : a;
            /* the lower maximum, then the lower other half: when the maximum
             * stays, the split that shrinks the rest of the box helps later */
            if (sc < best_sc || (sc == best_sc && lo < best_lo))
                best_sc = sc, best_lo = lo, best = k;
        }
        if (best < 0) {
            L->stall = REFINE_STALL;
            continue;
        }
        int stall = best_sc < s0 * (1 - 1e-4) ? 0 : L->stall + 1; /* a real gain */
        if (*n_leaves == *cap) {
            long nc2 = *cap * 2;
            pleaf *nl = haze__mp_realloc(*leaves, (size_t)nc2 * sizeof *nl);
            if (!nl) {
                rc = HAZE_ERR_NOMEM;
                break;
            }
            /* the pints live in separately allocated arrays: no fixup needed */
            *leaves = nl;
            *cap = nc2;
            L = &(*leaves)[pick];
        }
        pleaf *R = &(*leaves)[*n_leaves];
        rc = haze__prec_leaf_alloc(R, nv, ng);
        if (rc) break;
        (*n_leaves)++;
        for (int i = 0; i < nv; i++) {
            haze__pi_set(&L->box[i], &cand[2 * best].box[i]);
            haze__pi_set(&R->box[i], &cand[2 * best + 1].box[i]);
        }
        for (int g = 0; g < ng; g++) {
            haze__pi_set(&L->res[g], &cand[2 * best].res[g]);
            haze__pi_set(&R->res[g], &cand[2 * best + 1].res[g]);
        }
        L->stall = R->stall = stall;
        R->root = L->root;
    }
    for (int k = 0; k < 2 * REFINE_DIMS; k++) haze__prec_leaf_free(&cand[k], nv, ng);
    free(M);
    free(arg);
    free(dims);
    return rc;
}
