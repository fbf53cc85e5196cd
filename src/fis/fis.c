/*
 * src/fis/fis.c - the public API of fuzzy inference systems (haze/fis.h):
 * loading and saving by file name, the settings, describing a model, and
 * evaluation, which checks its arguments, gets the model's plan
 * (fis_plan.h) and hands both to the CPU driver (fis_cpu.c) or the CUDA
 * driver (fis_cuda.cu). The inference itself (MATLAB's evalfis, Octave's
 * fuzzy-logic-toolkit 0.4.6, fuzzylite 6.0: docs/fis.md) is fis_row.h's.
 * Nothing below this file calls back into it.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "core/text.h"
#include "core/sized.h"
#include "fis/fis_eval.h"
#include "fis/fis_read.h"
#include "haze/io.h"

/* ------------------------------------------------ reading and writing */

/* Reads text with reader `read` (which modifies its copy). */
static int parse_copy(haze_ctx *ctx, const char *text, const char *name, haze_fis **out,
                      int (*read)(haze_ctx *, char *, const char *, haze_fis **)) {
    *out = NULL;
    size_t n = strlen(text);
    char *buf = malloc(n + 1);
    if (!buf) return haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
    memcpy(buf, text, n + 1);
    int st = read(ctx, buf, name ? name : "<string>", out);
    free(buf);
    return st;
}

int haze_fis_parse(haze_ctx *ctx, const char *text, const char *name, haze_fis **out) {
    if (!text || !out) return haze__error(ctx, HAZE_ERR_INVALID, "haze_fis_parse: NULL argument");
    return parse_copy(ctx, text, name, out, haze__fis_read);
}

int haze_fis_parse_fll(haze_ctx *ctx, const char *text, const char *name, haze_fis **out) {
    if (!text || !out)
        return haze__error(ctx, HAZE_ERR_INVALID, "haze_fis_parse_fll: NULL argument");
    return parse_copy(ctx, text, name, out, haze__fll_read);
}

void haze_fis_free(haze_fis *fis) {
    haze__fis_free(fis);
}

int haze_fis_load(haze_ctx *ctx, const char *path, haze_fis **out) {
    if (!path || !out) return haze__error(ctx, HAZE_ERR_INVALID, "haze_fis_load: NULL argument");
    *out = NULL;
    char *buf = NULL;
    int st = haze_io_read_file(ctx, path, &buf, NULL);
    if (st) return st;
    st = haze__text_ends_with(path, ".fll", 0) ? haze__fll_read(ctx, buf, path, out)
                                               : haze__fis_read(ctx, buf, path, out);
    free(buf);
    return st;
}

int haze_fis_save(haze_ctx *ctx, const haze_fis *f, const char *path) {
    if (!f || !path) return haze__error(ctx, HAZE_ERR_INVALID, "haze_fis_save: NULL argument");
    return haze__text_ends_with(path, ".fll", 0) ? haze__fll_write(ctx, f, path)
                                                 : haze__fis_write(ctx, f, path);
}

/* ------------------------------------------------ settings */

int haze_fis_warning_count(const haze_fis *fis) {
    return fis ? fis->warns.n : 0;
}
const char *haze_fis_warning(const haze_fis *fis, int i) {
    return fis && i >= 0 && i < fis->warns.n ? fis->warns.msg[i] : NULL;
}

int haze_fis_input_count(const haze_fis *fis) {
    return fis ? fis->ni : 0;
}
int haze_fis_output_count(const haze_fis *fis) {
    return fis ? fis->no : 0;
}
int haze_fis_rule_count(const haze_fis *fis) {
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
int haze_fis_var_range(haze_ctx *ctx, const haze_fis *fis, int is_output, int i, double *lo,
                       double *hi) {
    if (!fis) return haze__error(ctx, HAZE_ERR_INVALID, "fis: NULL system");
    if (i < 0 || i >= (is_output ? fis->no : fis->ni))
        return haze__error(ctx, HAZE_ERR_INVALID, "%s: no %s %d (it has %d)", fis->name,
                           is_output ? "output" : "input", i + 1, is_output ? fis->no : fis->ni);
    const haze__var *v = is_output ? &fis->out[i] : &fis->in[i];
    if (lo) *lo = v->lo;
    if (hi) *hi = v->hi;
    return HAZE_OK;
}

int haze_fis_set_mode(haze_ctx *ctx, haze_fis *fis, haze_fis_mode mode) {
    if (!fis || (mode != HAZE_FIS_MODE_MATLAB && mode != HAZE_FIS_MODE_OCTAVE &&
                 mode != HAZE_FIS_MODE_FUZZYLITE && mode != HAZE_FIS_MODE_EXACT))
        return haze__error(ctx, HAZE_ERR_INVALID, "fis: %s", fis ? "unknown mode" : "NULL system");
    if (fis->mode != (int)mode) haze__fis_plan_forget(fis);
    fis->mode = (int)mode;
    return HAZE_OK;
}
haze_fis_mode haze_fis_get_mode(const haze_fis *fis) {
    return fis ? (haze_fis_mode)fis->mode : HAZE_FIS_MODE_MATLAB;
}
int haze_fis_set_points(haze_ctx *ctx, haze_fis *fis, int points) {
    if (!fis) return haze__error(ctx, HAZE_ERR_INVALID, "fis: NULL system");
    if (points < 2 || points > 1000000)
        return haze__error(ctx, HAZE_ERR_INVALID, "fis: %d points: expected 2 to 1000000", points);
    haze__fis_plan_forget(fis); /* also when equal: .fll resolutions go */
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
int haze_fis_mode_parse(haze_ctx *ctx, const char *s, haze_fis_mode *out) {
    if (!s || !out) return haze__error(ctx, HAZE_ERR_INVALID, "fis: no mode name or no output");
    if (strcmp(s, "matlab") == 0)
        *out = HAZE_FIS_MODE_MATLAB;
    else if (strcmp(s, "octave") == 0)
        *out = HAZE_FIS_MODE_OCTAVE;
    else if (strcmp(s, "fuzzylite") == 0)
        *out = HAZE_FIS_MODE_FUZZYLITE;
    else if (strcmp(s, "exact") == 0)
        *out = HAZE_FIS_MODE_EXACT;
    else
        return haze__error(ctx, HAZE_ERR_INVALID,
                           "unknown mode '%s': expected matlab, octave, fuzzylite or exact", s);
    return HAZE_OK;
}

/* EXACT mode needs a piecewise-linear aggregate (see fis_exact.h): refuses,
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

static int fis_eval(haze_ctx *ctx, const haze_fis *fis, const double *inputs, size_t n,
                    double *outputs, haze_fis_stats *stats) {
    if (stats) memset(stats, 0, sizeof *stats);
    if (!fis) return haze__error(ctx, HAZE_ERR_INVALID, "haze_fis_eval: fis is NULL");
    if (n == 0) return HAZE_OK;
    if (!inputs || !outputs)
        return haze__error(ctx, HAZE_ERR_INVALID, "haze_fis_eval: inputs or outputs is NULL");
    int est = exact_check(ctx, fis);
    if (est != HAZE_OK) return est;
#ifdef HAZE_HAVE_CUDA
    if (haze__use_cuda(ctx)) /* (over the context's devices where it has several) */
        return haze__fis_eval_devices(ctx, fis, haze__fis_plan_get(fis), inputs, n, outputs, stats);
#endif
    /* a batch of a few rows computes its MFs itself rather than build the
     * tables (the results are the same) */
    const haze__fis_plan *plan = n >= 4 ? haze__fis_plan_get(fis) : NULL;
    const haze__fis_tabs none = {NULL, NULL, 0};
    return haze__fis_eval_cpu(ctx, fis, plan ? &plan->t : &none, inputs, n, outputs, stats);
}

static int fis_eval_device(haze_ctx *ctx, const haze_fis *fis, const double *d_inputs, size_t n,
                           double *d_outputs, haze_fis_stats *stats) {
    if (stats) memset(stats, 0, sizeof *stats);
    if (!fis) return haze__error(ctx, HAZE_ERR_INVALID, "haze_fis_eval_device: fis is NULL");
    if (n == 0) return HAZE_OK;
    if (!d_inputs || !d_outputs)
        return haze__error(ctx, HAZE_ERR_INVALID, "haze_fis_eval_device: NULL buffer");
    int est = exact_check(ctx, fis);
    if (est != HAZE_OK) return est;
#ifdef HAZE_HAVE_CUDA
    if (haze__use_cuda(ctx))
        return haze__fis_eval_cuda(ctx, fis, haze__fis_plan_get(fis), d_inputs, n, d_outputs, stats,
                                   1);
#endif
    return haze__error(ctx, HAZE_ERR_UNSUPPORTED,
                       "haze_fis_eval_device: the context's backend is not CUDA");
}

/* The caller's stats carry their size: the counts go through a full local copy. */
int haze_fis_eval(haze_ctx *ctx, const haze_fis *fis, const double *inputs, size_t n,
                  double *outputs, haze_fis_stats *stats) {
    haze_fis_stats full;
    memset(&full, 0, sizeof full);
    int st = haze__sized_give(ctx, stats, &full, sizeof full, "haze_fis_stats");
    if (st) return st;
    st = fis_eval(ctx, fis, inputs, n, outputs, stats ? &full : NULL);
    haze__sized_give(ctx, stats, &full, sizeof full, "haze_fis_stats");
    return st;
}

int haze_fis_eval_device(haze_ctx *ctx, const haze_fis *fis, const double *d_inputs, size_t n,
                         double *d_outputs, haze_fis_stats *stats) {
    haze_fis_stats full;
    memset(&full, 0, sizeof full);
    int st = haze__sized_give(ctx, stats, &full, sizeof full, "haze_fis_stats");
    if (st) return st;
    st = fis_eval_device(ctx, fis, d_inputs, n, d_outputs, stats ? &full : NULL);
    haze__sized_give(ctx, stats, &full, sizeof full, "haze_fis_stats");
    return st;
}

/* ------------------------------------------------ describing a model */

int haze_fis_mf_count(const haze_fis *fis, int is_output, int i) {
    if (!fis || i < 0 || i >= (is_output ? fis->no : fis->ni)) return 0;
    return is_output ? fis->out[i].nmf : fis->in[i].nmf;
}

int haze_fis_mf(haze_ctx *ctx, const haze_fis *fis, int is_output, int i, int k, const char **name,
                const char **type, const double **params, int *nparams) {
    if (!fis) return haze__error(ctx, HAZE_ERR_INVALID, "fis: NULL system");
    if (i < 0 || i >= (is_output ? fis->no : fis->ni))
        return haze__error(ctx, HAZE_ERR_INVALID, "%s: no %s %d (it has %d)", fis->name,
                           is_output ? "output" : "input", i + 1, is_output ? fis->no : fis->ni);
    const haze__var *v = is_output ? &fis->out[i] : &fis->in[i];
    if (k < 0 || k >= v->nmf)
        return haze__error(ctx, HAZE_ERR_INVALID, "%s: variable '%s' has no MF %d (it has %d)",
                           fis->name, v->name, k + 1, v->nmf);
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

int haze_fis_rule_term(const haze_fis *fis, int r, int is_output, int i) {
    if (!fis || r < 0 || r >= fis->nr || i < 0 || i >= (is_output ? fis->no : fis->ni)) return 0;
    if (is_output) return fis->cons[r * fis->no + i];
    return fis->props ? 0 : fis->ante[r * fis->ni + i];
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

int haze_fis_rule_text(haze_ctx *ctx, const haze_fis *f, int r, char *buf, size_t cap) {
    if (!f || (!buf && cap)) return haze__error(ctx, HAZE_ERR_INVALID, "fis: NULL argument");
    if (r < 0 || r >= f->nr)
        return haze__error(ctx, HAZE_ERR_INVALID, "%s: no rule %d (it has %d)", f->name, r + 1,
                           f->nr);
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
