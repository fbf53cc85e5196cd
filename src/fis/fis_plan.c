/*
 * src/fis/fis_plan.c - the evaluation plan of a model (fis_plan.h): its
 * output MFs tabulated at their points, and the rules of a model in the
 * common class as a flat program; one malloc'd block, built once per
 * model, mode and points and published into the model atomically.
 */
#include <stdlib.h>
#include <string.h>

#include "fis/fis_math.h"
#include "fis/fis_plan.h"

/* The row length of the table: the most points of any output. */
static int grid_stride(const haze_fis *f) {
    int n = 0;
    for (int o = 0; o < f->no; o++)
        if (haze__npoints(f, o) > n) n = haze__npoints(f, o);
    return n;
}

/* Doubles of the table of f with row length n (0: none; Sugeno, EXACT
 * mode, which samples nothing, or too large). */
static size_t grid_len(const haze_fis *f, size_t n) {
    int mamdani = 0;
    for (int o = 0; o < f->no; o++) mamdani |= !(f->fl ? f->out[o].wtd : f->sugeno);
    if (!mamdani || f->mode == HAZE_FIS_MODE_EXACT || (size_t)f->nmfs * n > ((size_t)1 << 23))
        return 0;
    return (size_t)f->nmfs * (n + 2);
}

/* Tabulates every output MF of a Mamdani output at its output's points into
 * g (zeroed, grid_len doubles), then each MF's support. */
static void grid_fill(const haze_fis *f, double *g, size_t n) {
    for (int o = 0; o < f->no; o++) {
        const haze__var *v = &f->out[o];
        const int np = haze__npoints(f, o);
        if (f->fl ? v->wtd : f->sugeno) continue;
        for (int m = v->mf0; m < v->mf0 + v->nmf; m++)
            for (int k = 0; k < np; k++)
                g[(size_t)m * n + (size_t)k] = haze__mf_eval(
                    f->mfs[m].type, f->params + f->mfs[m].poff, haze__xpoint(f, v, k, np));
    }
    /* after the table: each MF's support, the first and last point where it
     * is not 0 (n and -1 if none), for the centroid's fast path */
    double *sup = g + (size_t)f->nmfs * n;
    for (int m = 0; m < f->nmfs; m++) {
        int a = (int)n, b = -1;
        for (int k = 0; k < (int)n; k++)
            if (g[(size_t)m * n + (size_t)k] != 0.0) {
                if (a > k) a = k;
                b = k;
            }
        sup[2 * m] = a;
        sup[2 * m + 1] = b;
    }
}

static size_t plain_len(const haze_fis *f) {
    size_t n = (size_t)f->nr + 1 + (size_t)f->no;
    for (size_t k = 0; k < (size_t)f->nr * (size_t)f->ni; k++) n += f->ante[k] != 0;
    return n;
}

/* Is f, with its output MFs tabulated in grid (row length gs), in the
 * common class that haze__fis_eval_row_plain evaluates? */
static int plain_class(const haze_fis *f, const double *grid, size_t gs) {
    if (!grid || f->fl || f->props || f->ante_fl || f->cons_fl || f->sugeno ||
        (f->mode != HAZE_FIS_MODE_MATLAB && f->mode != HAZE_FIS_MODE_OCTAVE) ||
        f->defuzz_m != HAZE__D_CENTROID || f->agg_m != HAZE__N_MAX ||
        (f->imp_m != HAZE__N_MIN && f->imp_m != HAZE__N_PROD))
        return 0;
    for (int k = 0; k < f->nmfs; k++)
        if (f->mfs[k].type > HAZE__MF_CONSTANT) return 0;
    for (int o = 0; o < f->no; o++)
        if (f->out[o].nmf > HAZE__FAST_RULES) return 0;
    for (size_t k = 0; k < (size_t)f->nr * (size_t)f->no; k++)
        if (f->cons[k] < 0 || f->cons_hedge[k] != 0.0) return 0;
    for (size_t k = 0; k < (size_t)f->nr * (size_t)f->ni; k++)
        if (f->ante_hedge[k] != 0.0) return 0;
    /* the walk over every set of an output relies on memberships >= 0 */
    for (int o = 0; o < f->no; o++)
        for (size_t k = (size_t)f->out[o].mf0 * gs;
             k < (size_t)(f->out[o].mf0 + f->out[o].nmf) * gs; k++)
            if (!(grid[k] >= 0.0)) return 0;
    return 1;
}

/* The rule program (fis_plan.h, haze__fis_tabs.plain) into p. */
static void plain_fill(const haze_fis *f, const double *grid, size_t gs, int *p) {
    /* per output: are the supports of its sets pairwise disjoint? */
    const double *sup = grid + (size_t)f->nmfs * gs;
    for (int o = 0; o < f->no; o++) {
        int dis = 1;
        for (int a = f->out[o].mf0; a < f->out[o].mf0 + f->out[o].nmf; a++)
            for (int b = f->out[o].mf0; b < a; b++)
                if (sup[2 * a] <= sup[2 * b + 1] && sup[2 * b] <= sup[2 * a + 1]) dis = 0;
        p[f->nr + 1 + o] = dis;
    }
    int *e = p + f->nr + 1 + f->no, n = 0;
    for (int r = 0; r < f->nr; r++) {
        p[r] = n;
        for (int j = 0; j < f->ni; j++) {
            const int code = f->ante[r * f->ni + j];
            if (code == 0) continue;
            const int m = f->in[j].mf0 + (code < 0 ? -code : code) - 1;
            e[n++] = code < 0 ? -1 - m : m;
        }
    }
    p[f->nr] = n;
}

/* The plan, its tables after it in the same block. */
static haze__fis_plan *plan_build(const haze_fis *f) {
    const size_t gs = (size_t)grid_stride(f), gl = grid_len(f, gs);
    const size_t pl = gl ? plain_len(f) : 0;
    const size_t head = (sizeof(haze__fis_plan) + 15) & ~(size_t)15;
    haze__fis_plan *p = calloc(1, head + sizeof(double) * gl + sizeof(int) * pl);
    if (!p) return NULL;
    static unsigned long long serials;
    p->serial = __atomic_add_fetch(&serials, 1, __ATOMIC_RELAXED);
    p->mode = f->mode;
    p->points = f->points;
    p->t.gstride = (int)gs;
    if (gl) {
        double *g = (double *)((char *)p + head);
        grid_fill(f, g, gs);
        p->t.grid = g;
        p->grid_len = gl;
        if (plain_class(f, g, gs)) {
            int *q = (int *)(g + gl);
            plain_fill(f, g, gs, q);
            p->t.plain = q;
            p->plain_len = pl;
        }
    }
    return p;
}

const haze__fis_plan *haze__fis_plan_get(const haze_fis *f) {
    /* the cache is the one field of a model that evaluations write; they
     * may race for it, hence the atomic publication */
    haze__fis_plan **slot = &((haze_fis *)f)->plan;
    haze__fis_plan *p = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (p) return p;
    p = plan_build(f);
    if (!p) return NULL;
    haze__fis_plan *seen = NULL;
    if (!__atomic_compare_exchange_n(slot, &seen, p, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        free(p); /* another thread's plan is the same */
        return seen;
    }
    return p;
}
