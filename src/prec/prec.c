/*
 * src/prec/prec.c - the rounding-error analyser's public entry points:
 * loading a script, bisecting its input box over CPU threads (Gappa's "$ x in
 * N" hint; Linderman et al., CGO 2010, Sec. 4.3), joining the enclosures of
 * the sub-boxes, and printing bounds in decimal and exact dyadic form. Also
 * the exact point evaluator that the soundness tests sample with.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "haze/io.h"
#include "prec/prec_box_internal.h"
#include "prec/prec_internal.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* Refuse more sub-boxes than this (the product of the bisection counts). */
#define MAX_BOXES 100000000L

static int is_fpcore(const char *t) {
    for (;;) {
        while (isspace((unsigned char)*t)) t++;
        if (*t == ';' || *t == '#') { /* comments of either language */
            while (*t && *t != '\n') t++;
            continue;
        }
        return *t == '(';
    }
}

/* Every input a goal depends on needs a range. */
static int check_ranges(haze_ctx *ctx, const haze_prec_script *s) {
    if (s->n_goals == 0)
        return haze__error(ctx, HAZE_ERR_PARSE, "%s: the script has no goal", s->name);
    char *need = calloc((size_t)s->n_nodes + 1, 1);
    if (!need) return haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
    for (int g = 0; g < s->n_goals; g++) need[s->goals[g].node] = 1;
    int rc = 0;
    for (int i = s->n_nodes - 1; i >= 0 && !rc; i--) {
        if (!need[i]) continue;
        const pnode *n = &s->nodes[i];
        need[n->strip] = 1;
        if (n->a >= 0) need[n->a] = 1;
        if (n->b >= 0) need[n->b] = 1;
        if (n->c >= 0) need[n->c] = 1;
        if (n->op == OP_VAR && !s->vars[n->var].has_range) {
            const pvar *v = &s->vars[n->var];
            rc = haze__error(ctx, HAZE_ERR_PARSE,
                             "%s:%d:%d: undefined variable '%s' (no definition and no range; "
                             "add '%s in [a,b]' to the hypotheses)",
                             s->name, v->line, v->col, v->name, v->name);
        }
    }
    free(need);
    return rc;
}

typedef struct parse_job {
    haze_ctx *ctx;
    haze_prec_script *s;
    const char *text;
    long unroll, max_ops;
} parse_job;

static int parse_run(void *arg) {
    parse_job *j = arg;
    int rc = is_fpcore(j->text)
                 ? haze__prec_parse_fpcore(j->ctx, j->s, j->text, j->unroll, j->max_ops)
                 : haze__prec_parse_gappa(j->ctx, j->s, j->text);
    return rc ? rc : check_ranges(j->ctx, j->s);
}

int haze_prec_parse(haze_ctx *ctx, const char *text, const char *name, haze_prec_script **out) {
    return haze_prec_parse_ex(ctx, text, name, NULL, out);
}

int haze_prec_parse_ex(haze_ctx *ctx, const char *text, const char *name,
                       const haze_prec_parse_options *opt, haze_prec_script **out) {
    if (!text || !out) return haze__error(ctx, HAZE_ERR_INVALID, "haze_prec_parse: NULL argument");
    long unroll = opt ? opt->unroll : 0, max_ops = opt ? opt->max_ops : 0;
    if (unroll < 0) return haze__error(ctx, HAZE_ERR_INVALID, "haze_prec_parse: unroll < 0");
    if (max_ops < 0) return haze__error(ctx, HAZE_ERR_INVALID, "haze_prec_parse: max_ops < 0");
    *out = NULL;
    haze_prec_script *s = haze__prec_script_new(name);
    if (!s) return haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
    /* the script holds no GMP memory (its numbers keep their digits inside,
     * prec_internal.h): after an unwinding it is whole and can be freed; the
     * parser's own buffers are lost */
    parse_job j = {ctx, s, text, unroll, max_ops};
    int rc = haze__mp_run(ctx, parse_run, &j);
    if (rc) {
        haze_prec_free(s);
        return rc;
    }
    *out = s;
    return HAZE_OK;
}

int haze_prec_load(haze_ctx *ctx, const char *path, haze_prec_script **out) {
    return haze_prec_load_ex(ctx, path, NULL, out);
}

int haze_prec_load_ex(haze_ctx *ctx, const char *path, const haze_prec_parse_options *opt,
                      haze_prec_script **out) {
    if (!path || !out) return haze__error(ctx, HAZE_ERR_INVALID, "haze_prec_load: NULL argument");
    char *text = NULL;
    int rc = haze_file_read_all(ctx, path, &text, NULL);
    if (rc) return rc;
    rc = haze_prec_parse_ex(ctx, text, path, opt, out);
    free(text);
    return rc;
}

size_t haze_prec_goal_count(const haze_prec_script *s) {
    return s ? (size_t)s->n_goals : 0;
}
size_t haze_prec_var_count(const haze_prec_script *s) {
    return s ? (size_t)s->n_vars : 0;
}

const char *haze_prec_var_name(const haze_prec_script *s, size_t i) {
    return s && i < (size_t)s->n_vars ? s->vars[i].name : NULL;
}

int haze_prec_var_range(const haze_prec_script *s, size_t i, double *lo, double *hi) {
    if (!s || i >= (size_t)s->n_vars || !lo || !hi) return HAZE_ERR_INVALID;
    *lo = mpfr_get_d(s->vars[i].range.lo, MPFR_RNDU); /* inside the range */
    *hi = mpfr_get_d(s->vars[i].range.hi, MPFR_RNDD);
    return HAZE_OK;
}

int haze_prec_set_bisect(haze_ctx *ctx, haze_prec_script *s, const char *var, long n) {
    if (!s || !var)
        return haze__error(ctx, HAZE_ERR_INVALID, "haze_prec_set_bisect: NULL argument");
    int i = haze__prec_find_var(s, var);
    if (i < 0)
        return haze__error(ctx, HAZE_ERR_INVALID, "no input variable '%s' in %s", var, s->name);
    if (n < 1 || n > MAX_BOXES)
        return haze__error(ctx, HAZE_ERR_INVALID, "bisection count for '%s' must be from 1 to %ld",
                           var, MAX_BOXES);
    s->vars[i].bisect = n;
    return HAZE_OK;
}

int haze_prec_set_refine(haze_ctx *ctx, haze_prec_script *s, long analyses) {
    if (!s) return haze__error(ctx, HAZE_ERR_INVALID, "haze_prec_set_refine: NULL script");
    if (analyses < HAZE_PREC_REFINE_AUTO || analyses > MAX_BOXES)
        return haze__error(ctx, HAZE_ERR_INVALID,
                           "refinement budget must be -1 (automatic) or from 0 to %ld", MAX_BOXES);
    s->refine = analyses;
    return HAZE_OK;
}

const char *haze_prec_engine_name(haze_prec_engine e) {
    return e == HAZE_PREC_IA ? "ia" : e == HAZE_PREC_AA ? "aa" : "both";
}

int haze_prec_engine_parse(const char *str, haze_prec_engine *out) {
    if (!str || !out) return HAZE_ERR_INVALID;
    if (!strcmp(str, "ia"))
        *out = HAZE_PREC_IA;
    else if (!strcmp(str, "aa"))
        *out = HAZE_PREC_AA;
    else if (!strcmp(str, "both"))
        *out = HAZE_PREC_BOTH;
    else
        return HAZE_ERR_INVALID;
    return HAZE_OK;
}

void haze_prec_result_free(haze_prec_result *r) {
    if (!r) return;
    for (size_t i = 0; i < r->n_goals; i++) {
        free(r->goals[i].lo_exact);
        free(r->goals[i].hi_exact);
        free(r->goals[i].lo_decimal);
        free(r->goals[i].hi_decimal);
    }
    free(r->goals);
    free(r);
}

/* "m b e" with m odd, Gappa's dyadic notation ("-9b-5" is -9 * 2^-5). */
static char *dyadic(const mpfr_t x) {
    if (mpfr_inf_p(x)) return strdup(mpfr_sgn(x) > 0 ? "inf" : "-inf");
    if (mpfr_zero_p(x)) return strdup("0");
    mpz_t m;
    mpz_init(m);
    long e = mpfr_get_z_2exp(m, x);
    unsigned long tz = mpz_scan1(m, 0);
    mpz_fdiv_q_2exp(m, m, tz);
    e += (long)tz;
    size_t n = mpz_sizeinbase(m, 10) + 32;
    char *r = malloc(n);
    if (r) {
        mpz_get_str(r, 10, m);
        if (e) snprintf(r + strlen(r), n - strlen(r), "b%ld", e);
    }
    mpz_clear(m);
    return r;
}

static char *decimal(const mpfr_t x, mpfr_rnd_t rnd) {
    char *buf = NULL;
    if (mpfr_inf_p(x)) return strdup(mpfr_sgn(x) > 0 ? "inf" : "-inf");
    locale_t lc = haze__numeric_begin(); /* MPFR writes localeconv()'s point */
    int n = mpfr_asprintf(&buf, rnd == MPFR_RNDD ? "%.10RDg" : "%.10RUg", x);
    haze__numeric_end(lc);
    if (n < 0) return NULL;
    char *r = strdup(buf);
    mpfr_free_str(buf);
    return r;
}

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

/* One box's analysis on a worker thread, under that thread's own guard
 * against out of memory inside MPFR (a longjmp cannot cross threads). */
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

static int analyse_box_guarded(haze_ctx *local, const haze_prec_script *s, const pint *box,
                               haze_prec_engine engine, pint *res) {
    box_job j = {local, s, box, engine, res};
    return haze__mp_run(local, box_run, &j);
}

/* ------------------------------------------------------------ adaptive refinement */

/* Refinement keeps every sub-box ("leaf") with its enclosures. The leaf that
 * decides a goal's bound (the largest magnitude) is split at the midpoint of
 * one input; the input is the one whose halves give the lowest bound, tried
 * in parallel. This is the branch-and-bound of global optimisation (what
 * FPTaylor does for its error model), applied to the whole analysis: the
 * engines' overestimation shrinks with the width of the box (first order for
 * intervals, second order for affine forms), and only where it matters. */
typedef struct leaf {
    pint *box; /* n_vars */
    pint *res; /* n_goals */
    int stall; /* splits in a row, up to this leaf, that did not lower the bound */
} leaf;

/* Inputs tried per split, at most (the widest relative to their range). */
#define REFINE_DIMS 8
/* A leaf whose last splits in a row did not lower its bound is left alone:
 * its bound is (nearly) attained, or the engines cannot do better there. A
 * few non-improving splits are allowed because a maximum near a midpoint, or
 * a dependency between two inputs, needs several before the bound drops. */
#define REFINE_STALL 5
/* Inputs halved before refinement when the script has no bisection. */
#define REFINE_AUTO_DIMS 6
/* Refinement needs the grid's results in memory: not beyond this many boxes. */
#define REFINE_MAX_GRID 65536L

static double mag_d(const pint *x) {
    PREC_TMP(m);
    pi_mag(m, x);
    return mpfr_get_d(m, MPFR_RNDU);
}

static void leaf_free(leaf *l, int nv, int ng) {
    if (!l) return;
    if (l->box)
        for (int i = 0; i < nv; i++) pi_clear(&l->box[i]);
    if (l->res)
        for (int g = 0; g < ng; g++) pi_clear(&l->res[g]);
    free(l->box);
    free(l->res);
    l->box = l->res = NULL;
}

static int leaf_alloc(leaf *l, int nv, int ng) {
    l->stall = 0;
    l->box = malloc((size_t)(nv ? nv : 1) * sizeof *l->box);
    l->res = malloc((size_t)ng * sizeof *l->res);
    if (!l->box || !l->res) {
        free(l->box);
        free(l->res);
        l->box = l->res = NULL;
        return HAZE_ERR_NOMEM;
    }
    for (int i = 0; i < nv; i++) pi_init(&l->box[i]);
    for (int g = 0; g < ng; g++) pi_init(&l->res[g]);
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

/* Splits leaves until `budget` analyses are spent or every leaf that decides
 * a bound cannot be improved. leaves/n/cap are updated; *used counts the
 * analyses. Returns a status (only out of memory stops it: a sub-box whose
 * analysis fails is simply not split that way). */
static int refine(const haze_prec_script *s, haze_prec_engine engine, int threads, leaf **leaves,
                  long *n_leaves, long *cap, long budget, long *used) {
    int nv = s->n_vars, ng = s->n_goals;
    double *M = malloc((size_t)ng * sizeof *M);
    long *arg = malloc((size_t)ng * sizeof *arg);
    int *dims = malloc((size_t)(nv ? nv : 1) * sizeof *dims);
    /* candidate halves: 2 per tried input */
    leaf cand[2 * REFINE_DIMS];
    int cand_ok[2 * REFINE_DIMS];
    int nomem = 0;
    memset(cand, 0, sizeof cand);
    int rc = (!M || !arg || !dims) ? HAZE_ERR_NOMEM : 0;
    for (int k = 0; k < 2 * REFINE_DIMS && !rc; k++) rc = leaf_alloc(&cand[k], nv, ng);
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
        leaf *L = &(*leaves)[pick];
        double s0 = score_of(L->res, M, ng);
        /* inputs to try: widest relative to their whole range */
        int nd = 0;
        for (int i = 0; i < nv; i++)
            if (s->vars[i].has_range && !pi_is_point(&L->box[i])) dims[nd++] = i;
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
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads > 1 ? threads : 1)
        for (int k = 0; k < nc; k++) {
            leaf *C = &cand[k];
            int d = dims[k / 2];
            for (int i = 0; i < nv; i++) pi_set(&C->box[i], &L->box[i]);
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
            int st = analyse_box_guarded(&local, s, C->box, engine, C->res);
            cand_ok[k] = st == 0;
            if (st == HAZE_ERR_NOMEM) {
#pragma omp atomic write
                nomem = 1;
            }
            haze_ctx_clear_error(&local); /* frees this thread's slot for it */
            /* a sub-box's values lie in the parent's enclosure too */
            if (cand_ok[k])
                for (int g = 0; g < ng; g++) pi_meet(&C->res[g], &C->res[g], &L->res[g]);
            mpfr_free_cache();
        }
        if (nomem) {
            rc = HAZE_ERR_NOMEM;
            break;
        }
        *used += nc;
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
            leaf *nl = haze__mp_realloc(*leaves, (size_t)nc2 * sizeof *nl);
            if (!nl) {
                rc = HAZE_ERR_NOMEM;
                break;
            }
            /* the pints live in separately allocated arrays: no fixup needed */
            *leaves = nl;
            *cap = nc2;
            L = &(*leaves)[pick];
        }
        leaf *R = &(*leaves)[*n_leaves];
        rc = leaf_alloc(R, nv, ng);
        if (rc) break;
        (*n_leaves)++;
        for (int i = 0; i < nv; i++) {
            pi_set(&L->box[i], &cand[2 * best].box[i]);
            pi_set(&R->box[i], &cand[2 * best + 1].box[i]);
        }
        for (int g = 0; g < ng; g++) {
            pi_set(&L->res[g], &cand[2 * best].res[g]);
            pi_set(&R->res[g], &cand[2 * best + 1].res[g]);
        }
        L->stall = R->stall = stall;
    }
    for (int k = 0; k < 2 * REFINE_DIMS; k++) leaf_free(&cand[k], nv, ng);
    free(M);
    free(arg);
    free(dims);
    return rc;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int analyse(haze_ctx *ctx, const haze_prec_script *s, haze_prec_engine engine,
                   haze_prec_result **out);

typedef struct analyse_job {
    haze_ctx *ctx;
    const haze_prec_script *s;
    haze_prec_engine engine;
    haze_prec_result **out;
} analyse_job;

static int analyse_run(void *arg) {
    analyse_job *j = arg;
    return analyse(j->ctx, j->s, j->engine, j->out);
}

int haze_prec_analyse(haze_ctx *ctx, const haze_prec_script *s, haze_prec_engine engine,
                      haze_prec_result **out) {
    if (!s || !out) return haze__error(ctx, HAZE_ERR_INVALID, "haze_prec_analyse: NULL argument");
    *out = NULL;
    analyse_job j = {ctx, s, engine, out};
    return haze__mp_run(ctx, analyse_run, &j);
}

static int analyse(haze_ctx *ctx, const haze_prec_script *s, haze_prec_engine engine,
                   haze_prec_result **out) {
    if (engine < HAZE_PREC_IA || engine > HAZE_PREC_BOTH)
        return haze__error(ctx, HAZE_ERR_INVALID, "haze_prec_analyse: unknown engine %d",
                           (int)engine);
    *out = NULL;
    double t0 = now();
    long boxes = 1;
    for (int i = 0; i < s->n_vars; i++) {
        if (s->vars[i].bisect > MAX_BOXES / boxes)
            return haze__error(ctx, HAZE_ERR_INVALID, "more than %ld sub-boxes requested",
                               MAX_BOXES);
        boxes *= s->vars[i].bisect;
    }
    int ng = s->n_goals, nv = s->n_vars;
    pint *acc = haze__mp_malloc((size_t)ng * sizeof *acc);
    if (!acc) return haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
    for (int g = 0; g < ng; g++) {
        pi_init(&acc[g]);
        mpfr_set_inf(acc[g].lo, 1);
        mpfr_set_inf(acc[g].hi, -1);
    }
    int rc = 0, on_gpu = 0;
    char errmsg[HAZE__ERRMSG_MAX] = "";
    int threads = haze__threads(ctx);
    if (boxes < threads) threads = (int)boxes;
#ifdef HAZE_HAVE_CUDA
    /* the interval engine bisects on the GPU when the script allows it
     * (no exp/log); otherwise, and for the affine engine, the CPU does */
    if (haze__use_cuda(ctx) && engine == HAZE_PREC_IA) {
        int g = haze__prec_analyse_cuda(ctx, s, acc);
        if (g == HAZE_OK)
            on_gpu = 1;
        else if (g != HAZE_ERR_UNSUPPORTED)
            rc = g, on_gpu = 1;
        else
            haze_ctx_clear_error(ctx);
        if (rc) snprintf(errmsg, sizeof errmsg, "%s", haze_ctx_errmsg(ctx));
    }
#endif
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
         * input (up to REFINE_AUTO_DIMS of them): bisecting one input at a
         * time often cannot lower the bound until the others are split too
         * (doppler1: the dependency is between T and u). */
        int k = 0;
        for (int i = 0; i < nv; i++)
            if (s->vars[i].has_range && !pi_is_point(&s->vars[i].range)) k++;
        if (k >= 1 && k <= REFINE_AUTO_DIMS) {
            for (int i = 0; i < nv; i++)
                if (s->vars[i].has_range && !pi_is_point(&s->vars[i].range)) split[i] = 2;
            boxes = 1L << k;
            budget = budget > boxes ? budget - boxes : 0;
            threads = haze__threads(ctx);
            if (boxes < threads) threads = (int)boxes;
        }
    }
    leaf *leaves = NULL;
    long n_leaves = 0, cap_leaves = 0;
    if (budget > 0 && !on_gpu && !rc && boxes <= REFINE_MAX_GRID) {
        cap_leaves = boxes + 16;
        leaves = haze__mp_calloc((size_t)cap_leaves, sizeof *leaves);
        if (!leaves) rc = haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
        for (long b = 0; b < boxes && !rc; b++, n_leaves++)
            if (leaf_alloc(&leaves[b], nv, ng))
                rc = haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
        if (rc) snprintf(errmsg, sizeof errmsg, "%s", haze_ctx_errmsg(ctx));
    }
    int n_threads = threads;
#pragma omp parallel num_threads(threads > 0 ? threads : 1) if (threads > 0)
    {
        pint *box = malloc((size_t)(nv ? nv : 1) * sizeof *box);
        pint *res = malloc((size_t)ng * sizeof *res);
        pint *mine = malloc((size_t)ng * sizeof *mine);
        struct haze_ctx local;
        haze__ctx_init_local(&local);
        int myrc = (!box || !res || !mine) ? HAZE_ERR_NOMEM : 0;
        if (!myrc) {
            for (int i = 0; i < nv; i++) pi_init(&box[i]);
            for (int g = 0; g < ng; g++) {
                pi_init(&res[g]);
                pi_init(&mine[g]);
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
                    pi_set(&box[i], &s->vars[i].range);
                rest /= n;
            }
            myrc = analyse_box_guarded(&local, s, box, engine, res);
            if (!myrc)
                for (int g = 0; g < ng; g++) pi_hull(&mine[g], &mine[g], &res[g]);
            if (!myrc && leaves) {
                for (int i = 0; i < nv; i++) pi_set(&leaves[b].box[i], &box[i]);
                for (int g = 0; g < ng; g++) pi_set(&leaves[b].res[g], &res[g]);
            }
        }
#pragma omp critical(haze_prec_join)
        {
            if (myrc && !rc) {
#pragma omp atomic write
                rc = myrc;
                const char *m = haze_ctx_errmsg(&local);
                snprintf(errmsg, sizeof errmsg, "%s", m[0] ? m : "out of memory");
            }
            if (!myrc && mine)
                for (int g = 0; g < ng; g++) pi_hull(&acc[g], &acc[g], &mine[g]);
        }
        haze_ctx_clear_error(&local);
        if (box && res && mine) {
            for (int i = 0; i < nv; i++) pi_clear(&box[i]);
            for (int g = 0; g < ng; g++) {
                pi_clear(&res[g]);
                pi_clear(&mine[g]);
            }
        }
        free(box);
        free(res);
        free(mine);
        mpfr_free_cache();
    }
    long final_boxes = boxes;
    if (!rc && leaves) {
        long used = 0;
        int rr = refine(s, engine, n_threads, &leaves, &n_leaves, &cap_leaves, budget, &used);
        if (rr) {
            rc = rr;
            snprintf(errmsg, sizeof errmsg, "out of memory");
        } else {
            /* the leaves cover the box; the grid's hull is sound as well */
            for (int g = 0; g < ng; g++) {
                pint h;
                pi_init(&h);
                mpfr_set_inf(h.lo, 1);
                mpfr_set_inf(h.hi, -1);
                for (long i = 0; i < n_leaves; i++) pi_hull(&h, &h, &leaves[i].res[g]);
                pi_meet(&acc[g], &acc[g], &h);
                pi_clear(&h);
            }
            final_boxes = n_leaves;
        }
    }
    if (leaves) {
        for (long i = 0; i < n_leaves; i++) leaf_free(&leaves[i], nv, ng);
        haze__mp_free(leaves);
    }
    haze__mp_free(split);
    /* roundings shared by both sides of a goal, counted once (prec_share.c);
     * the affine engine cancels them by itself */
    if (!rc && !s->no_share && engine != HAZE_PREC_AA) {
        int sr = haze__prec_share_pass(ctx, s, acc);
        if (sr == HAZE_ERR_NOMEM) {
            rc = sr;
            snprintf(errmsg, sizeof errmsg, "out of memory");
        } else if (sr) {
            haze_ctx_clear_error(ctx); /* e.g. a domain error once the values decouple */
        }
    }
    haze_prec_result *r = NULL;
    if (rc) {
        haze__error(ctx, rc, "%s", errmsg);
    } else {
        r = calloc(1, sizeof *r);
        if (r) r->goals = calloc((size_t)ng, sizeof *r->goals);
        if (!r || !r->goals) {
            rc = haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
        } else {
            r->n_goals = (size_t)ng;
            r->boxes = (size_t)final_boxes;
            r->all_proved = 1;
            for (int g = 0; g < ng; g++) {
                const pgoal *pg = &s->goals[g];
                haze_prec_goal *o = &r->goals[g];
                o->text = pg->text;
                o->relative = pg->kind == GOAL_REL || pg->kind == GOAL_ABSREL;
                o->absolute = pg->kind == GOAL_ABS || pg->kind == GOAL_ABSREL;
                o->lo = mpfr_get_d(acc[g].lo, MPFR_RNDD);
                o->hi = mpfr_get_d(acc[g].hi, MPFR_RNDU);
                o->lo_exact = dyadic(acc[g].lo);
                o->hi_exact = dyadic(acc[g].hi);
                o->lo_decimal = decimal(acc[g].lo, MPFR_RNDD);
                o->hi_decimal = decimal(acc[g].hi, MPFR_RNDU);
                o->has_bound = pg->has_lo || pg->has_hi;
                o->want_lo = pg->has_lo ? mpfr_get_d(pg->want.lo, MPFR_RNDU) : -HUGE_VAL;
                o->want_hi = pg->has_hi ? mpfr_get_d(pg->want.hi, MPFR_RNDD) : HUGE_VAL;
                if (o->has_bound) {
                    o->proved = (!pg->has_lo || mpfr_cmp(acc[g].lo, pg->want.lo) >= 0) &&
                                (!pg->has_hi || mpfr_cmp(acc[g].hi, pg->want.hi) <= 0);
                    if (!o->proved) r->all_proved = 0;
                }
                if (!o->lo_exact || !o->hi_exact || !o->lo_decimal || !o->hi_decimal)
                    rc = haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
            }
            r->seconds = now() - t0;
        }
    }
    if (!rc && s->capture)
        for (int g = 0; g < ng; g++) pi_set(&s->capture[g], &acc[g]);
    for (int g = 0; g < ng; g++) pi_clear(&acc[g]);
    haze__mp_free(acc);
    if (rc) {
        haze_prec_result_free(r);
        return rc;
    }
    *out = r;
    return HAZE_OK;
}

/* ------------------------------------------------------------ point evaluation */

typedef struct eval_job {
    haze_ctx *ctx;
    const haze_prec_script *s;
    const double *x;
    long prec_bits;
    double *out;
} eval_job;

static int eval_run(void *arg);

int haze_prec_eval(haze_ctx *ctx, const haze_prec_script *s, const double *x, long prec_bits,
                   double *out) {
    if (!s || (!x && s->n_vars) || !out)
        return haze__error(ctx, HAZE_ERR_INVALID, "haze_prec_eval: NULL argument");
    if (prec_bits < 64) prec_bits = 64;
    int nn = s->n_nodes;
    /* MPFR aborts on a precision above its maximum; below it, the numbers
     * must still fit in memory together */
    if (prec_bits > HAZE_PREC_EVAL_MAX_BITS || prec_bits > MPFR_PREC_MAX)
        return haze__error(ctx, HAZE_ERR_INVALID,
                           "haze_prec_eval: %ld bits of precision: at most %ld are supported",
                           prec_bits, (long)HAZE_PREC_EVAL_MAX_BITS);
    if ((double)(nn + 1) * (double)(prec_bits / 8 + 32) > HAZE_PREC_EVAL_MAX_BYTES)
        return haze__error(ctx, HAZE_ERR_INVALID,
                           "haze_prec_eval: %d numbers of %ld bits need more than %.0f MiB", nn + 1,
                           prec_bits, HAZE_PREC_EVAL_MAX_BYTES / 1048576.0);
    eval_job j = {ctx, s, x, prec_bits, out};
    return haze__mp_run(ctx, eval_run, &j);
}

static int eval_run(void *arg) {
    eval_job *j = arg;
    haze_ctx *ctx = j->ctx;
    const haze_prec_script *s = j->s;
    const double *x = j->x;
    double *out = j->out;
    int nn = s->n_nodes;
    mpfr_t *v = haze__mp_malloc(((size_t)nn + 1) * sizeof *v);
    if (!v) return haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
    /* wide enough for exact sums and products of the formats involved */
    mpfr_prec_t p = (mpfr_prec_t)j->prec_bits;
    int rc = 0;
    int i;
    for (i = 0; i < nn; i++) {
        const pnode *n = &s->nodes[i];
        mpfr_init2(v[i], p);
        mpfr_srcptr a = n->a >= 0 ? v[n->a] : NULL, b = n->b >= 0 ? v[n->b] : NULL;
        switch (n->op) {
        case OP_CONST:
            if (pi_is_point(&n->k)) {
                mpfr_set_prec(v[i], mpfr_get_prec(n->k.lo));
                mpfr_set(v[i], n->k.lo, MPFR_RNDN);
            } else {
                mpfr_add(v[i], n->k.lo, n->k.hi, MPFR_RNDN);
                mpfr_div_2ui(v[i], v[i], 1, MPFR_RNDN);
            }
            break;
        case OP_VAR:
            mpfr_set_d(v[i], x[n->var], MPFR_RNDN);
            break;
        case OP_NEG:
            mpfr_neg(v[i], a, MPFR_RNDN);
            break;
        case OP_ADD:
            mpfr_add(v[i], a, b, MPFR_RNDN);
            break;
        case OP_SUB:
            mpfr_sub(v[i], a, b, MPFR_RNDN);
            break;
        case OP_MUL:
            mpfr_mul(v[i], a, b, MPFR_RNDN);
            break;
        case OP_FMA:
            mpfr_fma(v[i], a, b, v[n->c], MPFR_RNDN);
            break;
        case OP_DIV:
            mpfr_div(v[i], a, b, MPFR_RNDN);
            break;
        case OP_ABS:
            mpfr_abs(v[i], a, MPFR_RNDN);
            break;
        case OP_SQRT:
            mpfr_sqrt(v[i], a, MPFR_RNDN);
            break;
        case OP_EXP:
            mpfr_exp(v[i], a, MPFR_RNDN);
            break;
        case OP_EXP2:
            mpfr_exp2(v[i], a, MPFR_RNDN);
            break;
        case OP_LOG:
            mpfr_log(v[i], a, MPFR_RNDN);
            break;
        case OP_LOG2:
            mpfr_log2(v[i], a, MPFR_RNDN);
            break;
        default:
            haze__prec_round_point(&s->fmts[n->fmt], v[i], a);
            break;
        }
    }
    for (int g = 0; g < s->n_goals && !rc; g++) out[g] = mpfr_get_d(v[s->goals[g].node], MPFR_RNDN);
    for (i = 0; i < nn; i++) mpfr_clear(v[i]);
    haze__mp_free(v);
    mpfr_free_cache();
    return rc;
}
