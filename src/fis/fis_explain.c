/*
 * src/fis/fis_explain.c - what pictures of a model ask of it: membership
 * values of one term over points (plotmf), and one input row's inference
 * rule by rule -- each rule's firing and implied set, and the aggregate that
 * the defuzzifier sees (ruleview). The steps are the row evaluator's own
 * (fis_row.h), so the aggregate defuzzifies to the value haze_fis_eval gives.
 */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "fis/fis_row.h"

int haze_fis_mf_eval(haze_ctx *ctx, const haze_fis *fis, int is_output, int i, int k,
                     const double *x, size_t n, double *mu) {
    if (!fis || (n && (!x || !mu)))
        return haze__error(ctx, HAZE_ERR_INVALID, "haze_fis_mf_eval: NULL argument");
    if (i < 0 || i >= (is_output ? fis->no : fis->ni))
        return haze__error(ctx, HAZE_ERR_INVALID, "%s: no %s %d (it has %d)", fis->name,
                           is_output ? "output" : "input", i + 1, is_output ? fis->no : fis->ni);
    const haze__var *v = is_output ? &fis->out[i] : &fis->in[i];
    if (k < 0 || k >= v->nmf)
        return haze__error(ctx, HAZE_ERR_INVALID, "%s: variable '%s' has no MF %d (it has %d)",
                           fis->name, v->name, k + 1, v->nmf);
    const haze__mf *m = &fis->mfs[v->mf0 + k];
    if (m->type == HAZE__MF_CONSTANT || m->type == HAZE__MF_LINEAR ||
        m->type == HAZE__MF_FL_FUNCTION)
        return haze__error(ctx, HAZE_ERR_UNSUPPORTED,
                           "%s: MF '%s' of '%s' is not a function of its variable alone", fis->name,
                           m->name, v->name);
    for (size_t j = 0; j < n; j++) mu[j] = haze__mf_eval(m->type, fis->params + m->poff, x[j]);
    return HAZE_OK;
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
    const haze__fis_tabs none = {0}; /* no plan: every output MF computed */
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
                fires ? haze__agg_at(f, &none, o, wv, fr, 1, k, ys[k]) : 0.0;
    }
    for (int k = 0; k < n; k++) aggregate[k] = haze__agg_at(f, &none, o, wv, all, cnt, k, ys[k]);
    free(x);
    return HAZE_OK;
}
