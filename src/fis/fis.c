/*
 * src/fis/fis.c - evaluation of Mamdani and Sugeno fuzzy inference systems on
 * the CPU: the reference that the CUDA path (fis_cuda.cu) is tested against.
 *
 * The steps are those of MATLAB's evalfis (Fuzzy Logic Toolbox
 * documentation, "Fuzzy Inference Process"): fuzzify, combine antecedents
 * with the AND/OR method, multiply by the rule weight, imply (min or prod),
 * aggregate over rules on N points of the output range, defuzzify. Sugeno
 * outputs are the weighted average (or sum) of the rule outputs. The OCTAVE
 * mode reproduces fuzzy-logic-toolkit 0.4.6 (defuzz.m uses trapz, and
 * aggregate_output_sugeno.m merges equal rule outputs): see docs/fis.md.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/internal.h"
#include "fis/fis_internal.h"
#include "fis/fis_row.h"

const char *const haze__mf_names[HAZE__MF_COUNT] = {
    "trimf", "trapmf", "gaussmf", "gauss2mf", "gbellmf", "sigmf", "dsigmf", "psigmf", "pimf", "smf",
    "zmf", "linsmf", "linzmf", "constant", "linear",
    /* fuzzylite's class names */
    "Triangle", "Trapezoid", "Gaussian", "GaussianProduct", "Bell", "Sigmoid", "SigmoidDifference",
    "SigmoidProduct", "SShape", "ZShape", "PiShape", "Ramp", "Rectangle", "Cosine", "Concave",
    "Spike", "Binary", "Discrete", "Function"};
/* parameters without the height; -1: variable */
const int haze__mf_nparams[HAZE__MF_COUNT] = {3, 4, 2, 4, 3, 2, 4, 4, 4, 2, 2, 2, 2, 1, -1, 3,  4,
                                              2, 4, 3, 2, 4, 4, 2, 2, 4, 2, 2, 2, 2, 2, 2,  -1, -1};
const char *const haze__norm_names[HAZE__N_COUNT] = {"min",
                                                     "prod",
                                                     "bounded_difference",
                                                     "drastic_product",
                                                     "einstein_product",
                                                     "hamacher_product",
                                                     "nilpotent_minimum",
                                                     "max",
                                                     "probor",
                                                     "bounded_sum",
                                                     "drastic_sum",
                                                     "einstein_sum",
                                                     "hamacher_sum",
                                                     "nilpotent_maximum",
                                                     "sum"};
const char *const haze__defuzz_names[HAZE__D_COUNT] = {"centroid", "bisector", "mom",  "som",
                                                       "lom",      "wtaver",   "wtsum"};
const char *const haze__hedge_names[HAZE__H_ANY + 1] = {"",       "not",       "very", "somewhat",
                                                        "seldom", "extremely", "any"};

void haze__warn(haze__warns *w, const char *file, int line, const char *fmt, ...) {
    char msg[1024];
    int k = snprintf(msg, sizeof msg, "%s:%d: ", file, line);
    va_list ap;
    va_start(ap, fmt);
    if (k >= 0 && (size_t)k < sizeof msg) haze__vsnprintf(msg + k, sizeof msg - (size_t)k, fmt, ap);
    va_end(ap);
    if (w->n == w->cap) {
        int cap = w->cap ? 2 * w->cap : 4;
        char **m = realloc(w->msg, sizeof(char *) * (size_t)cap);
        if (!m) return;
        w->msg = m;
        w->cap = cap;
    }
    char *c = malloc(strlen(msg) + 1);
    if (!c) return;
    strcpy(c, msg);
    w->msg[w->n++] = c;
}

void haze__warns_free(haze__warns *w) {
    for (int i = 0; i < w->n; i++) free(w->msg[i]);
    free(w->msg);
    memset(w, 0, sizeof *w);
}

int haze_fis_num_warnings(const haze_fis *fis) {
    return fis ? fis->warns.n : 0;
}
const char *haze_fis_warning(const haze_fis *fis, int i) {
    return fis && i >= 0 && i < fis->warns.n ? fis->warns.msg[i] : NULL;
}

int haze_fis_num_inputs(const haze_fis *fis) {
    return fis ? fis->ni : 0;
}
int haze_fis_num_outputs(const haze_fis *fis) {
    return fis ? fis->no : 0;
}
int haze_fis_num_rules(const haze_fis *fis) {
    return fis ? fis->nr : 0;
}
const char *haze_fis_name(const haze_fis *fis) {
    return fis ? fis->name : "";
}
int haze_fis_is_sugeno(const haze_fis *fis) {
    return fis ? fis->sugeno : 0;
}
const char *haze_fis_var_name(const haze_fis *fis, int is_output, int i) {
    if (!fis || i < 0 || i >= (is_output ? fis->no : fis->ni)) return NULL;
    return is_output ? fis->out[i].name : fis->in[i].name;
}
int haze_fis_var_range(const haze_fis *fis, int is_output, int i, double *lo, double *hi) {
    if (!fis || i < 0 || i >= (is_output ? fis->no : fis->ni)) return HAZE_ERR_INVALID;
    const haze__var *v = is_output ? &fis->out[i] : &fis->in[i];
    if (lo) *lo = v->lo;
    if (hi) *hi = v->hi;
    return HAZE_OK;
}

int haze_fis_set_mode(haze_fis *fis, haze_fis_mode mode) {
    if (!fis || (mode != HAZE_FIS_MODE_MATLAB && mode != HAZE_FIS_MODE_OCTAVE &&
                 mode != HAZE_FIS_MODE_FUZZYLITE && mode != HAZE_FIS_MODE_EXACT))
        return HAZE_ERR_INVALID;
    fis->mode = (int)mode;
    return HAZE_OK;
}
haze_fis_mode haze_fis_get_mode(const haze_fis *fis) {
    return fis ? (haze_fis_mode)fis->mode : HAZE_FIS_MODE_MATLAB;
}
int haze_fis_set_points(haze_fis *fis, int points) {
    if (!fis || points < 2 || points > 1000000) return HAZE_ERR_INVALID;
    fis->points = points;
    for (int o = 0; o < fis->no; o++) fis->out[o].res = 0; /* overrides .fll resolutions */
    return HAZE_OK;
}
int haze_fis_get_points(const haze_fis *fis) {
    return fis ? fis->points : 0;
}
void haze_fis_set_nan_if_no_rule(haze_fis *fis, int on) {
    if (fis) fis->nan_if_no_rule = on != 0;
}
int haze_fis_mode_parse(const char *s, haze_fis_mode *out) {
    if (!s) return HAZE_ERR_INVALID;
    if (strcmp(s, "matlab") == 0)
        *out = HAZE_FIS_MODE_MATLAB;
    else if (strcmp(s, "octave") == 0)
        *out = HAZE_FIS_MODE_OCTAVE;
    else if (strcmp(s, "fuzzylite") == 0)
        *out = HAZE_FIS_MODE_FUZZYLITE;
    else if (strcmp(s, "exact") == 0)
        *out = HAZE_FIS_MODE_EXACT;
    else
        return HAZE_ERR_INVALID;
    return HAZE_OK;
}

size_t haze__fis_grid_len(const haze_fis *f) {
    return (size_t)f->nmfs * ((size_t)haze__fis_gstride(f) + 2);
}

int haze__fis_gstride(const haze_fis *f) {
    int n = 0;
    for (int o = 0; o < f->no; o++)
        if (haze__npoints(f, o) > n) n = haze__npoints(f, o);
    return n;
}

double *haze__fis_grid(const haze_fis *f) {
    int mamdani = 0;
    for (int o = 0; o < f->no; o++) mamdani |= !(f->fl ? f->out[o].wtd : f->sugeno);
    const size_t n = (size_t)haze__fis_gstride(f);
    /* EXACT mode samples nothing */
    if (!mamdani || f->mode == HAZE_FIS_MODE_EXACT || (size_t)f->nmfs * n > ((size_t)1 << 23))
        return NULL;
    double *g = calloc(haze__fis_grid_len(f), sizeof(double));
    if (!g) return NULL; /* the evaluation then computes the MFs itself */
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
    return g;
}

size_t haze__fis_plain_len(const haze_fis *f) {
    size_t n = (size_t)f->nr + 1 + (size_t)f->no;
    for (size_t k = 0; k < (size_t)f->nr * (size_t)f->ni; k++) n += f->ante[k] != 0;
    return n;
}

int *haze__fis_plain(const haze_fis *f, const double *grid) {
    if (!grid || f->fl || f->props || f->ante_fl || f->cons_fl || f->sugeno ||
        (f->mode != HAZE_FIS_MODE_MATLAB && f->mode != HAZE_FIS_MODE_OCTAVE) ||
        f->defuzz_m != HAZE__D_CENTROID || f->agg_m != HAZE__N_MAX ||
        (f->imp_m != HAZE__N_MIN && f->imp_m != HAZE__N_PROD))
        return NULL;
    for (int k = 0; k < f->nmfs; k++)
        if (f->mfs[k].type > HAZE__MF_CONSTANT) return NULL;
    for (int o = 0; o < f->no; o++)
        if (f->out[o].nmf > HAZE__FAST_RULES) return NULL;
    for (size_t k = 0; k < (size_t)f->nr * (size_t)f->no; k++)
        if (f->cons[k] < 0 || f->cons_hedge[k] != 0.0) return NULL;
    for (size_t k = 0; k < (size_t)f->nr * (size_t)f->ni; k++)
        if (f->ante_hedge[k] != 0.0) return NULL;
    /* the walk over every set of an output relies on memberships >= 0 */
    const size_t gs = (size_t)haze__fis_gstride(f);
    for (int o = 0; o < f->no; o++)
        for (size_t k = (size_t)f->out[o].mf0 * gs;
             k < (size_t)(f->out[o].mf0 + f->out[o].nmf) * gs; k++)
            if (!(grid[k] >= 0.0)) return NULL;
    int *p = malloc(sizeof(int) * haze__fis_plain_len(f));
    if (!p) return NULL;
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
    return p;
}

static int eval_cpu(haze_ctx *ctx, const haze_fis *model, const double *inputs, size_t n,
                    double *outputs, haze_fis_stats *stats) {
    /* a copy that carries the tabulated output MFs for this call */
    haze_fis copy = *model;
    double *grid = n >= 4 ? haze__fis_grid(model) : NULL;
    copy.grid = grid;
    copy.gstride = haze__fis_gstride(model);
    const haze_fis *f = &copy;
    int *plain = haze__fis_plain(f, grid);
    copy.plain = plain;
    size_t wl = haze__fis_scratch(f);
    int nt = haze__threads(ctx);
    double *work = malloc(sizeof(double) * wl * (size_t)nt);
    if (!work) {
        free(plain);
        free(grid);
        return haze__error(ctx, HAZE_ERR_NOMEM, "fis: out of memory for %zu doubles", wl);
    }
    /* rows where a lock-previous output needs the rows before it */
    unsigned char *held = f->lockprev ? calloc(n, 1) : NULL;
    if (f->lockprev && !held) {
        free(work);
        free(plain);
        free(grid);
        return haze__error(ctx, HAZE_ERR_NOMEM, "fis: out of memory for %zu row flags", n);
    }
    size_t clamped = 0, no_rule = 0;
#ifdef _OPENMP
#pragma omp parallel num_threads(nt) reduction(+ : clamped, no_rule)
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
                haze__fis_eval_row_plain(f, inputs + i * (size_t)f->ni, outputs + i * (size_t)f->no,
                                         wk, &c, &nr);
            else
                haze__fis_eval_row(f, inputs + i * (size_t)f->ni, outputs + i * (size_t)f->no, wk,
                                   &c, &nr, NULL, &h);
            clamped += (size_t)c;
            no_rule += (size_t)nr;
            if (held) held[i] = (unsigned char)h;
        }
    }
    int st = held ? haze__fis_hold(ctx, f, inputs, n, outputs, held, work) : HAZE_OK;
    free(held);
    free(work);
    free(plain);
    free(grid);
    if (st) return st;
    if (stats) {
        stats->clamped = clamped;
        stats->no_rule = no_rule;
    }
    return HAZE_OK;
}

int haze__fis_hold(haze_ctx *ctx, const haze_fis *f, const double *in, size_t n, double *out,
                   const unsigned char *held, double *scratch) {
    const size_t ni = (size_t)f->ni, no = (size_t)f->no;
    double *prev = malloc(sizeof(double) * no);
    if (!prev) return haze__error(ctx, HAZE_ERR_NOMEM, "fis: out of memory");
    for (size_t o = 0; o < no; o++) prev[o] = NAN; /* a new engine has none */
    for (size_t i = 0; i < n; i++) {
        if (held[i]) {
            /* the counts were taken in the first pass */
            int c = 0, nr = 0, h = 0;
            haze__fis_eval_row(f, in + i * ni, out + i * no, scratch, &c, &nr, prev, &h);
        }
        /* OutputVariable::defuzzify keeps the last finite value */
        for (size_t o = 0; o < no; o++)
            if (isfinite(out[i * no + o])) prev[o] = out[i * no + o];
    }
    free(prev);
    return HAZE_OK;
}

/* EXACT mode needs a piecewise-linear aggregate (see fis_row.h): refuses,
 * naming what, a system where it is not. */
static int exact_check(haze_ctx *ctx, const haze_fis *f) {
    static const char *const why = "has no closed-form exact mode";
    if (f->mode != HAZE_FIS_MODE_EXACT) return HAZE_OK;
    if (f->fl)
        return haze__error(ctx, HAZE_ERR_UNSUPPORTED,
                           "%s: exact mode: fuzzylite engines (.fll) %s; use fuzzylite mode",
                           f->name, why);
    if (f->sugeno) return HAZE_OK; /* a weighted average is exact already */
    if (f->imp_m != HAZE__N_MIN && f->imp_m != HAZE__N_PROD)
        return haze__error(ctx, HAZE_ERR_UNSUPPORTED,
                           "%s: exact mode: implication other than min or prod %s", f->name, why);
    if (f->agg_m != HAZE__N_MAX && f->agg_m != HAZE__N_SUM)
        return haze__error(ctx, HAZE_ERR_UNSUPPORTED,
                           "%s: exact mode: aggregation '%s' is not piecewise linear (max and sum "
                           "are)",
                           f->name, f->agg_m == HAZE__N_PROBOR ? "probor" : "other than max/sum");
    if (f->defuzz_m > HAZE__D_LOM)
        return haze__error(ctx, HAZE_ERR_UNSUPPORTED, "%s: exact mode: defuzzification %s", f->name,
                           why);
    for (int o = 0; o < f->no; o++) {
        const haze__var *v = &f->out[o];
        for (int k = 0; k < v->nmf; k++) {
            const haze__mf *m = &f->mfs[v->mf0 + k];
            const double *p = f->params + m->poff;
            int ok = m->type == HAZE__MF_TRI || m->type == HAZE__MF_TRAP ||
                     m->type == HAZE__MF_LINS || m->type == HAZE__MF_LINZ;
            if (!ok)
                return haze__error(ctx, HAZE_ERR_UNSUPPORTED,
                                   "%s: exact mode: output '%s' MF '%s' is %s, not piecewise "
                                   "linear",
                                   f->name, v->name, m->name, haze__mf_names[m->type]);
            int sorted = p[0] <= p[1];
            if (m->type == HAZE__MF_TRI || m->type == HAZE__MF_TRAP) sorted &= p[1] <= p[2];
            if (m->type == HAZE__MF_TRAP) sorted &= p[2] <= p[3];
            if (!sorted)
                return haze__error(ctx, HAZE_ERR_UNSUPPORTED,
                                   "%s: exact mode: output '%s' MF '%s' has unsorted parameters",
                                   f->name, v->name, m->name);
        }
    }
    for (int i = 0; i < f->nr * f->no; i++)
        if (f->cons_hedge[i] != 0.0)
            return haze__error(ctx, HAZE_ERR_UNSUPPORTED,
                               "%s: exact mode: hedged consequent in rule %d %s", f->name,
                               i / f->no + 1, why);
    return HAZE_OK;
}

int haze_fis_eval_stats(haze_ctx *ctx, const haze_fis *fis, const double *inputs, size_t n,
                        double *outputs, haze_fis_stats *stats) {
    if (stats) memset(stats, 0, sizeof *stats);
    if (!fis) return haze__error(ctx, HAZE_ERR_INVALID, "haze_fis_eval: fis is NULL");
    if (n == 0) return HAZE_OK;
    if (!inputs || !outputs)
        return haze__error(ctx, HAZE_ERR_INVALID, "haze_fis_eval: inputs or outputs is NULL");
    int est = exact_check(ctx, fis);
    if (est != HAZE_OK) return est;
#ifdef HAZE_HAVE_CUDA
    if (haze__use_cuda(ctx)) return haze__fis_eval_cuda(ctx, fis, inputs, n, outputs, stats, 0);
#endif
    return eval_cpu(ctx, fis, inputs, n, outputs, stats);
}

int haze_fis_eval_device(haze_ctx *ctx, const haze_fis *fis, const double *d_inputs, size_t n,
                         double *d_outputs, haze_fis_stats *stats) {
    if (stats) memset(stats, 0, sizeof *stats);
    if (!fis) return haze__error(ctx, HAZE_ERR_INVALID, "haze_fis_eval_device: fis is NULL");
    if (n == 0) return HAZE_OK;
    if (!d_inputs || !d_outputs)
        return haze__error(ctx, HAZE_ERR_INVALID, "haze_fis_eval_device: NULL buffer");
    int est = exact_check(ctx, fis);
    if (est != HAZE_OK) return est;
#ifdef HAZE_HAVE_CUDA
    if (haze__use_cuda(ctx)) return haze__fis_eval_cuda(ctx, fis, d_inputs, n, d_outputs, stats, 1);
#endif
    return haze__error(ctx, HAZE_ERR_UNSUPPORTED,
                       "haze_fis_eval_device: the context's backend is not CUDA");
}

int haze_fis_eval(haze_ctx *ctx, const haze_fis *fis, const double *inputs, size_t n,
                  double *outputs) {
    return haze_fis_eval_stats(ctx, fis, inputs, n, outputs, NULL);
}

/* ------------------------------------------------ describing a model */

int haze_fis_num_mfs(const haze_fis *fis, int is_output, int i) {
    if (!fis || i < 0 || i >= (is_output ? fis->no : fis->ni)) return 0;
    return is_output ? fis->out[i].nmf : fis->in[i].nmf;
}

int haze_fis_mf(const haze_fis *fis, int is_output, int i, int k, const char **name,
                const char **type, const double **params, int *nparams) {
    if (!fis || i < 0 || i >= (is_output ? fis->no : fis->ni)) return HAZE_ERR_INVALID;
    const haze__var *v = is_output ? &fis->out[i] : &fis->in[i];
    if (k < 0 || k >= v->nmf) return HAZE_ERR_INVALID;
    const haze__mf *m = &fis->mfs[v->mf0 + k];
    const double *p = fis->params + m->poff;
    int np = m->np;
    if (m->type == HAZE__MF_FL_FUNCTION) { /* a compiled program: nothing to show */
        p = NULL;
        np = 0;
    }
    if (name) *name = m->name;
    if (type) *type = haze__mf_names[m->type];
    if (params) *params = p;
    if (nparams) *nparams = np;
    return HAZE_OK;
}

int haze_fis_mf_eval(const haze_fis *fis, int is_output, int i, int k, const double *x, size_t n,
                     double *mu) {
    if (!fis || i < 0 || i >= (is_output ? fis->no : fis->ni) || (n && (!x || !mu)))
        return HAZE_ERR_INVALID;
    const haze__var *v = is_output ? &fis->out[i] : &fis->in[i];
    if (k < 0 || k >= v->nmf) return HAZE_ERR_INVALID;
    const haze__mf *m = &fis->mfs[v->mf0 + k];
    if (m->type == HAZE__MF_CONSTANT || m->type == HAZE__MF_LINEAR ||
        m->type == HAZE__MF_FL_FUNCTION)
        return HAZE_ERR_UNSUPPORTED;
    for (size_t j = 0; j < n; j++) mu[j] = haze__mf_eval(m->type, fis->params + m->poff, x[j]);
    return HAZE_OK;
}

int haze_fis_rule_term(const haze_fis *fis, int r, int is_output, int i) {
    if (!fis || r < 0 || r >= fis->nr || i < 0 || i >= (is_output ? fis->no : fis->ni)) return 0;
    if (is_output) return fis->cons[r * fis->no + i];
    return fis->props ? 0 : fis->ante[r * fis->ni + i];
}

int haze_fis_explain(haze_ctx *ctx, const haze_fis *fis, const double *in, int o, int n,
                     double *firing, double *ys, double *implied, double *aggregate) {
    if (!fis || !in || !firing || o < 0 || o >= fis->no || n < 2 || !ys || !implied || !aggregate)
        return haze__error(ctx, HAZE_ERR_INVALID, "fis explain: bad argument");
    const haze_fis *f = fis;
    const size_t nx = (size_t)f->ni + (size_t)f->no + 1 + (size_t)f->nmfs;
    double *x = calloc(nx + 4 * (size_t)f->nr + 1, sizeof(double));
    if (!x) return haze__error(ctx, HAZE_ERR_NOMEM, "fis explain: out of memory");
    double *w = x + nx, *hp = w + f->nr, *mark = hp + f->nr, *wv = mark + f->nr;
    /* the steps of haze__fis_eval_row up to the rule degrees */
    for (int j = 0; j < f->ni; j++) {
        double v = in[j];
        int lock = f->mode == HAZE_FIS_MODE_MATLAB || f->mode == HAZE_FIS_MODE_EXACT ||
                   (f->mode == HAZE_FIS_MODE_FUZZYLITE && f->fl && f->in[j].lock);
        if (lock) v = v < f->in[j].lo ? f->in[j].lo : v > f->in[j].hi ? f->in[j].hi : v;
        x[j] = v;
    }
    if (!f->props)
        for (int j = 0; j < f->ni; j++)
            for (int k = f->in[j].mf0; k < f->in[j].mf0 + f->in[j].nmf; k++)
                x[f->ni + f->no + 1 + k] =
                    haze__mf_eval_v(f->mfs[k].type, f->params + f->mfs[k].poff, x[j], x);
    if (f->fl)
        haze__rule_degrees(f, x, w, hp, mark);
    else
        for (int r = 0; r < f->nr; r++) w[r] = f->weight[r] * haze__rule_firing(f, r, x, w);
    memcpy(firing, w, sizeof(double) * (size_t)f->nr);
    const haze__var *ov = &f->out[o];
    if (f->fl ? ov->wtd : f->sugeno) {
        free(x);
        return haze__error(ctx, HAZE_ERR_UNSUPPORTED,
                           "fis explain: output '%s' is weighted (Sugeno): it has no sets",
                           ov->name);
    }
    for (int r = 0; r < f->nr; r++)
        wv[r] = f->cons_fl ? haze__fl_hedges(f->cons_fl[r * f->no + o], w[r]) : w[r];
    double fr[1];
    for (int k = 0; k < n; k++) {
        double t = (double)k / (double)(n - 1);
        ys[k] = k == n - 1 ? ov->hi : ov->lo * (1.0 - t) + ov->hi * t;
    }
    /* each rule's implied set alone, then all fired rules together, through
     * the aggregation of the evaluation (haze__agg_at over the fired list) */
    double *all = hp; /* nr doubles: the fired rules */
    int cnt = haze__fired(f, o, w, all);
    for (int r = 0; r < f->nr; r++) {
        int fires = f->cons[r * f->no + o] != 0 && haze__fires(f, w[r]);
        fr[0] = (double)r;
        for (int k = 0; k < n; k++)
            implied[(size_t)r * (size_t)n + (size_t)k] =
                fires ? haze__agg_at(f, o, wv, fr, 1, k, ys[k]) : 0.0;
    }
    for (int k = 0; k < n; k++) aggregate[k] = haze__agg_at(f, o, wv, all, cnt, k, ys[k]);
    free(x);
    return HAZE_OK;
}

const char *haze_fis_method(const haze_fis *fis, const char *which, int output) {
    if (!fis || !which) return NULL;
    const int fl = fis->fl && output >= 0 && output < fis->no;
    if (strcmp(which, "and") == 0) return haze__norm_names[fis->and_m];
    if (strcmp(which, "or") == 0) return haze__norm_names[fis->or_m];
    if (strcmp(which, "imp") == 0) return haze__norm_names[fis->imp_m];
    if (strcmp(which, "agg") == 0) {
        if (fl && fis->out[output].agg < 0) return "none";
        return haze__norm_names[fl ? fis->out[output].agg : fis->agg_m];
    }
    if (strcmp(which, "defuzz") == 0)
        return haze__defuzz_names[fl ? fis->out[output].defuzz : fis->defuzz_m];
    return NULL;
}

/* A growing text in a caller's buffer, snprintf-style. */
typedef struct txt {
    char *buf;
    size_t cap, len;
} txt;

static void tput(txt *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void tput(txt *t, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *at = t->len < t->cap ? t->buf + t->len : NULL;
    int n = haze__vsnprintf(at, at ? t->cap - t->len : 0, fmt, ap);
    va_end(ap);
    if (n > 0) t->len += (size_t)n;
}

/* fuzzylite's hedges of a chain, as written (the last applied first). */
static void put_chain(txt *t, int chain) {
    int c[HAZE__H_MAX], n = 0;
    for (; chain && n < HAZE__H_MAX; chain >>= 3) c[n++] = chain & 7;
    while (n > 0) tput(t, "%s ", haze__hedge_names[c[--n]]);
}

/* Octave's hedge exponents by name (fuzzy-logic-toolkit's showrule). */
static void put_hedge(txt *t, double h) {
    if (h == 0.5)
        tput(t, "somewhat ");
    else if (h == 2.0)
        tput(t, "very ");
    else if (h == 3.0)
        tput(t, "extremely ");
    else if (h == 4.0)
        tput(t, "very very ");
    else if (h != 0.0)
        tput(t, "(hedge %g) ", h);
}

static void put_prop(txt *t, const haze_fis *f, int var, int term, int chain) {
    const haze__var *v = var < f->ni ? &f->in[var] : &f->out[var - f->ni];
    tput(t, "(%s is ", v->name);
    if (term > 0) {
        put_chain(t, chain);
        tput(t, "%s)", f->mfs[v->mf0 + term - 1].name);
    } else { /* "is [hedges] any": the chain ends with any, written last */
        put_chain(t, (chain & 7) == HAZE__H_ANY ? chain >> 3 : chain);
        tput(t, "any)");
    }
}

int haze_fis_rule_text(const haze_fis *f, int r, char *buf, size_t cap) {
    if (!f || r < 0 || r >= f->nr || (!buf && cap)) return -1;
    txt t = {buf, cap, 0};
    if (cap) buf[0] = '\0';
    tput(&t, "If ");
    if (f->props) {
        /* postfix to infix: each stack entry a malloc'd text */
        char *stack[HAZE__FL_STACK] = {0};
        int sp = 0, bad = 0;
        for (int e = f->prop_off[r]; e < f->prop_off[r + 1] && !bad; e++) {
            const int *q = f->props + 3 * e;
            char *s2 = NULL;
            if (q[0] == HAZE__FL_AND || q[0] == HAZE__FL_OR) {
                if (sp < 2) {
                    bad = 1;
                    break;
                }
                size_t n = strlen(stack[sp - 2]) + strlen(stack[sp - 1]) + 8;
                s2 = malloc(n);
                if (s2)
                    snprintf(s2, n, "(%s %s %s)", stack[sp - 2],
                             q[0] == HAZE__FL_AND ? "and" : "or", stack[sp - 1]);
                free(stack[sp - 2]);
                free(stack[sp - 1]);
                sp -= 2;
            } else if (sp < HAZE__FL_STACK) {
                txt u = {NULL, 0, 0};
                put_prop(&u, f, q[0], q[1], q[2]); /* measures */
                s2 = malloc(u.len + 1);
                if (s2) {
                    txt w = {s2, u.len + 1, 0};
                    put_prop(&w, f, q[0], q[1], q[2]);
                }
            }
            if (!s2)
                bad = 1;
            else
                stack[sp++] = s2;
        }
        tput(&t, "%s", !bad && sp == 1 ? stack[0] : "?");
        for (int i = 0; i < sp; i++) free(stack[i]);
    } else {
        const char *conn = f->conn[r] == 2 ? "or" : "and";
        int first = 1;
        for (int j = 0; j < f->ni; j++) {
            int code = f->ante[r * f->ni + j];
            if (code == 0) continue;
            if (!first) tput(&t, " %s ", conn);
            first = 0;
            const int neg = code < 0;
            const haze__mf *m = &f->mfs[f->in[j].mf0 + (neg ? -code : code) - 1];
            tput(&t, "(%s is ", f->in[j].name);
            if (f->ante_fl) {
                put_chain(&t, f->ante_fl[r * f->ni + j]);
            } else {
                if (neg) tput(&t, "not ");
                put_hedge(&t, f->ante_hedge[r * f->ni + j]);
            }
            tput(&t, "%s)", m->name);
        }
        if (first) tput(&t, "(nothing)");
    }
    tput(&t, " then ");
    /* fuzzylite hedges the conclusions cumulatively (cons_fl holds the
     * chain so far): written in order of growing chains, each with its own
     * hedges, which says the same */
    int done[64] = {0}, firstc = 1, prevlen = 0;
    for (int step = 0; step < f->no; step++) {
        int best = -1, bestlen = 0;
        for (int o = 0; o < f->no; o++) {
            if ((o < 64 && done[o]) || f->cons[r * f->no + o] == 0) continue;
            int len = 0;
            for (int c = f->cons_fl ? f->cons_fl[r * f->no + o] : 0; c; c >>= 3) len++;
            if (best < 0 || len < bestlen) {
                best = o;
                bestlen = len;
            }
        }
        if (best < 0) break;
        if (best < 64) done[best] = 1;
        const int code = f->cons[r * f->no + best], neg = code < 0;
        const haze__mf *m = &f->mfs[f->out[best].mf0 + (neg ? -code : code) - 1];
        if (!firstc) tput(&t, " and ");
        firstc = 0;
        tput(&t, "(%s is ", f->out[best].name);
        if (f->cons_fl) {
            put_chain(&t, f->cons_fl[r * f->no + best] >> (3 * prevlen));
            prevlen = bestlen;
        } else {
            if (neg) tput(&t, "not ");
            put_hedge(&t, f->cons_hedge[r * f->no + best]);
        }
        tput(&t, "%s)", m->name);
        if (best >= 64) break; /* beyond the bookkeeping: stop rather than repeat */
    }
    if (firstc) tput(&t, "(nothing)");
    tput(&t, " (%g)", f->weight[r]);
    return (int)t.len;
}
