/*
 * src/fis/fis_row.h - evaluation of one input vector, shared word for word
 * by the CPU (fis.c) and the GPU (fis_cuda.cu) so that both compute the same
 * function.
 *
 * Steps of MATLAB's evalfis (Fuzzy Logic Toolbox, "Fuzzy Inference
 * Process"): clamp, fuzzify, AND/OR, rule weight, implication, aggregation on
 * linspace(lo, hi, N), defuzzification. The aggregated output set is never
 * stored: each defuzzifier walks the N points once or twice and recomputes
 * it, so a GPU thread needs no per-point memory. OCTAVE mode follows
 * fuzzy-logic-toolkit 0.4.6 (trapz centroid; Sugeno outputs with equal
 * locations merged by the aggregation method).
 */
#ifndef HAZE_FIS_ROW_H
#define HAZE_FIS_ROW_H

#include "fis/fis_internal.h"

/* Doubles of scratch one row needs. */
HAZE__HD size_t haze__fis_scratch(const struct haze_fis *f) {
    return 3 * (size_t)f->nr + (size_t)f->ni + 1;
}

/* The k-th of N points of linspace(lo, hi, N) as MATLAB computes it. */
HAZE__HD double haze__linpoint(double lo, double hi, int k, int n) {
    if (k == n - 1) return hi;
    return lo + k * ((hi - lo) / (n - 1));
}

/* Firing strength (before the weight) of rule r for input vector x. */
HAZE__HD double haze__rule_firing(const struct haze_fis *f, int r, const double *x) {
    int op = f->conn[r] == 2 ? f->or_m : f->and_m;
    double acc = 0.0;
    int first = 1;
    for (int j = 0; j < f->ni; j++) {
        int code = f->ante[r * f->ni + j];
        if (code == 0) continue;
        int neg = code < 0;
        int k = (neg ? -code : code) - 1;
        const haze__mf *m = &f->mfs[f->in[j].mf0 + k];
        double mu = haze__mf_eval(m->type, f->params + m->poff, x[j]);
        mu = haze__hedge_not(mu, f->ante_hedge[r * f->ni + j], neg);
        acc = first ? mu : haze__norm(op, acc, mu);
        first = 0;
    }
    return first ? 0.0 : acc;
}

/* Lists in fr (as doubles, exact) the rules that take part in output o:
 * a consequent for o and a non-zero firing (a rule with w = 0 adds
 * imp(0, mu) = 0, the identity of every s-norm). Returns their count. */
HAZE__HD int haze__fired(const struct haze_fis *f, int o, const double *w, double *fr) {
    int c = 0;
    for (int r = 0; r < f->nr; r++)
        if (f->cons[r * f->no + o] != 0 && w[r] != 0.0) fr[c++] = (double)r;
    return c;
}

/* Aggregated membership of output o at point k (x = xk) over the fired
 * rules fr[0..cnt). The output MFs' values at the points come from f->grid
 * when the caller has tabulated them (haze__fis_grid), else are computed. */
HAZE__HD double haze__agg_at(const struct haze_fis *f, int o, const double *w, const double *fr,
                             int cnt, int k, double xk) {
    const haze__var *ov = &f->out[o];
    double agg = 0.0;
    for (int i = 0; i < cnt; i++) {
        int r = (int)fr[i];
        int code = f->cons[r * f->no + o];
        int neg = code < 0;
        int mi = ov->mf0 + (neg ? -code : code) - 1;
        double mu = f->grid ? f->grid[(size_t)mi * (size_t)f->points + (size_t)k]
                            : haze__mf_eval(f->mfs[mi].type, f->params + f->mfs[mi].poff, xk);
        double hg = f->cons_hedge[r * f->no + o];
        if (neg || hg != 0.0) mu = haze__hedge_not(mu, hg, neg);
        double v =
            f->imp_m == HAZE__N_MIN ? (w[r] < mu ? w[r] : mu) : haze__norm(f->imp_m, w[r], mu);
        agg = f->agg_m == HAZE__N_MAX ? (agg > v ? agg : v) : haze__norm(f->agg_m, agg, v);
    }
    return agg;
}

/* The common case on its own, as a plain loop over the tabulated output
 * MFs: centroid, implication min or prod, aggregation max, no hedge or NOT
 * in the fired consequents, at most 16 of them. The operations and their
 * order are those of haze__agg_at and the general centroid below, so the
 * result is the same to the bit. Returns 0 when the case does not apply. */
#define HAZE__FAST_RULES 16
HAZE__HD int haze__centroid_fast(const struct haze_fis *f, int o, const double *w, const double *fr,
                                 int cnt, double *res) {
    if (!f->grid || cnt > HAZE__FAST_RULES || f->agg_m != HAZE__N_MAX ||
        (f->imp_m != HAZE__N_MIN && f->imp_m != HAZE__N_PROD))
        return 0;
    const haze__var *ov = &f->out[o];
    const double *rows[HAZE__FAST_RULES];
    double ws[HAZE__FAST_RULES];
    for (int i = 0; i < cnt; i++) {
        int r = (int)fr[i];
        int code = f->cons[r * f->no + o];
        if (code < 0 || f->cons_hedge[r * f->no + o] != 0.0) return 0;
        rows[i] = f->grid + (size_t)(ov->mf0 + code - 1) * (size_t)f->points;
        ws[i] = w[r];
    }
    const int n = f->points, octave = f->mode == HAZE_FIS_MODE_OCTAVE,
              prod = f->imp_m == HAZE__N_PROD;
    double num = 0.0, den = 0.0, xp = 0.0, yp = 0.0;
    for (int k = 0; k < n; k++) {
        double agg = 0.0;
        for (int i = 0; i < cnt; i++) {
            double mu = rows[i][k];
            double v = prod ? ws[i] * mu : (ws[i] < mu ? ws[i] : mu);
            agg = agg > v ? agg : v;
        }
        double xk = haze__linpoint(ov->lo, ov->hi, k, n);
        if (octave) {
            if (k > 0) {
                double h = xk - xp;
                num += h * (xp * yp + xk * agg) / 2.0;
                den += h * (yp + agg) / 2.0;
            }
            xp = xk;
            yp = agg;
        } else {
            num += xk * agg;
            den += agg;
        }
    }
    *res = den != 0.0 ? num / den : NAN;
    return 1;
}

/* Defuzzified Mamdani output o; NaN when the aggregate is zero everywhere. */
HAZE__HD double haze__defuzz_mamdani(const struct haze_fis *f, int o, const double *w, double *fr) {
    const haze__var *ov = &f->out[o];
    const int cnt = haze__fired(f, o, w, fr);
    if (cnt == 0) return NAN;
    const int n = f->points, octave = f->mode == HAZE_FIS_MODE_OCTAVE;
    const double lo = ov->lo, hi = ov->hi;
    double num = 0.0, den = 0.0;
    switch (f->defuzz_m) {
    case HAZE__D_CENTROID:
        if (haze__centroid_fast(f, o, w, fr, cnt, &num)) return num;
        if (octave) {
            /* trapz(x, x.*y) / trapz(x, y), term by term as Octave's trapz */
            double xp = haze__linpoint(lo, hi, 0, n), yp = haze__agg_at(f, o, w, fr, cnt, 0, xp);
            for (int k = 1; k < n; k++) {
                double xk = haze__linpoint(lo, hi, k, n),
                       yk = haze__agg_at(f, o, w, fr, cnt, k, xk);
                double h = xk - xp;
                num += h * (xp * yp + xk * yk) / 2.0;
                den += h * (yp + yk) / 2.0;
                xp = xk;
                yp = yk;
            }
        } else {
            for (int k = 0; k < n; k++) {
                double xk = haze__linpoint(lo, hi, k, n),
                       yk = haze__agg_at(f, o, w, fr, cnt, k, xk);
                num += xk * yk;
                den += yk;
            }
        }
        return den != 0.0 ? num / den : NAN;
    case HAZE__D_BISECTOR: {
        /* MATLAB: the first point where the running sum reaches half */
        for (int k = 0; k < n; k++)
            den += haze__agg_at(f, o, w, fr, cnt, k, haze__linpoint(lo, hi, k, n));
        if (den == 0.0) return NAN;
        double run = 0.0;
        for (int k = 0; k < n; k++) {
            double xk = haze__linpoint(lo, hi, k, n);
            run += haze__agg_at(f, o, w, fr, cnt, k, xk);
            if (run >= den / 2.0) return xk;
        }
        return hi;
    }
    default: { /* mom, som, lom */
        double m = 0.0;
        for (int k = 0; k < n; k++) {
            double yk = haze__agg_at(f, o, w, fr, cnt, k, haze__linpoint(lo, hi, k, n));
            if (yk > m) m = yk;
        }
        if (m == 0.0) return NAN;
        double sum = 0.0, best = 0.0;
        int nmax = 0;
        for (int k = 0; k < n; k++) {
            double xk = haze__linpoint(lo, hi, k, n);
            if (haze__agg_at(f, o, w, fr, cnt, k, xk) != m) continue;
            sum += xk;
            /* MATLAB's som/lom pick the maximiser smallest/largest in
             * magnitude; Octave's the smallest/largest x */
            if (nmax == 0)
                best = xk;
            else if (f->defuzz_m == HAZE__D_SOM)
                best = (octave ? xk < best : fabs(xk) < fabs(best)) ? xk : best;
            else if (f->defuzz_m == HAZE__D_LOM)
                best = (octave ? xk > best : fabs(xk) >= fabs(best)) ? xk : best;
            nmax++;
        }
        return f->defuzz_m == HAZE__D_MOM ? sum / nmax : best;
    }
    }
}

/* Sugeno output o: weighted average (or sum) of the rule outputs. */
HAZE__HD double haze__defuzz_sugeno(const struct haze_fis *f, int o, const double *w,
                                    const double *x, double *zs, double *hs) {
    const int octave = f->mode == HAZE_FIS_MODE_OCTAVE;
    double num = 0.0, den = 0.0;
    int used = 0;
    for (int r = 0; r < f->nr; r++) {
        int code = f->cons[r * f->no + o];
        if (code == 0) continue;
        if (w[r] == 0.0 && octave) continue;
        int neg = code < 0;
        const haze__mf *m = &f->mfs[f->out[o].mf0 + (neg ? -code : code) - 1];
        const double *p = f->params + m->poff;
        double z = p[0];
        if (m->type == HAZE__MF_LINEAR) {
            z = p[f->ni];
            for (int j = 0; j < f->ni; j++) z += p[j] * x[j];
        }
        double h = w[r];
        double hg = f->cons_hedge[r * f->no + o];
        if (hg != 0.0) h = pow(h, 1.0 / hg);
        if (neg) h = 1.0 - h;
        if (octave) {
            int s = 0;
            while (s < used && zs[s] != z) s++;
            if (s < used) {
                hs[s] = haze__norm(f->agg_m, hs[s], h);
            } else {
                zs[used] = z;
                hs[used++] = h;
            }
        } else {
            num += h * z;
            den += h;
        }
    }
    for (int s = 0; s < used; s++) {
        num += hs[s] * zs[s];
        den += hs[s];
    }
    if (f->defuzz_m == HAZE__D_WTSUM) return den != 0.0 ? num : NAN;
    return den != 0.0 ? num / den : NAN;
}

/* Evaluates one row: in (ni values) to out (no values). scratch holds
 * haze__fis_scratch(f) doubles. Adds the clamped inputs and the outputs for
 * which no rule fired to *clamped and *no_rule. */
HAZE__HD void haze__fis_eval_row(const struct haze_fis *f, const double *in, double *out,
                                 double *scratch, int *clamped, int *no_rule) {
    const int octave = f->mode == HAZE_FIS_MODE_OCTAVE;
    double *w = scratch, *zs = scratch + f->nr, *hs = zs + f->nr, *x = hs + f->nr;
    for (int j = 0; j < f->ni; j++) {
        double v = in[j];
        if (!octave && v < f->in[j].lo) {
            v = f->in[j].lo;
            (*clamped)++;
        } else if (!octave && v > f->in[j].hi) {
            v = f->in[j].hi;
            (*clamped)++;
        }
        x[j] = v;
    }
    for (int r = 0; r < f->nr; r++) w[r] = f->weight[r] * haze__rule_firing(f, r, x);
    for (int o = 0; o < f->no; o++) {
        double res =
            f->sugeno ? haze__defuzz_sugeno(f, o, w, x, zs, hs) : haze__defuzz_mamdani(f, o, w, zs);
        if (isnan(res)) {
            (*no_rule)++;
            if (!octave && !f->nan_if_no_rule) res = (f->out[o].lo + f->out[o].hi) / 2.0;
        }
        out[o] = res;
    }
}

#endif
