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
 * locations merged by the aggregation method). FUZZYLITE mode and engines
 * read from .fll follow fuzzylite 6.0 (fl/Engine.cpp, fl/rule/,
 * fl/defuzzifier/): midpoint cells, per-output defuzzifier, hedges,
 * a rule fires when its degree exceeds 1e-6 (Op::isGt), Tsukamoto outputs.
 */
#ifndef HAZE_FIS_ROW_H
#define HAZE_FIS_ROW_H

#include "fis/fis_exact.h"
#include "fis/fis_math.h"
#include "fis/fis_plan.h"

/* Doubles of scratch one row needs. */
HAZE__HD size_t haze__fis_scratch(const struct haze_fis *f) {
    return 4 * (size_t)f->nr + (size_t)f->ni + (size_t)f->no + 1 + (size_t)f->nmfs;
}
/* The same for haze__fis_eval_row_plain. */
HAZE__HD size_t haze__fis_scratch_plain(const struct haze_fis *f) {
    return 2 * (size_t)f->nr + (size_t)f->ni + (size_t)f->no + 1 + (size_t)f->nmfs;
}
HAZE__HD int haze__oagg(const struct haze_fis *f, int o) {
    return f->fl ? (f->out[o].agg >= 0 ? f->out[o].agg : HAZE__N_MAX) : f->agg_m;
}
HAZE__HD int haze__odefuzz(const struct haze_fis *f, int o) {
    return f->fl ? f->out[o].defuzz : f->defuzz_m;
}
/* Does rule degree w fire? fuzzylite triggers a rule only when its degree
 * is greater than 0 by more than its tolerance (General.cpp, Op::isGt):
 * for its engines and for any model evaluated in FUZZYLITE mode. */
HAZE__HD int haze__fires(const struct haze_fis *f, double w) {
    return f->fl || f->mode == HAZE_FIS_MODE_FUZZYLITE ? haze__fl_gt(w, 0.0) : w != 0.0;
}

/* fuzzylite's activation degree of term t (1-based) of output o after the
 * rules triggered before r (Aggregated::activationDegree: the output's
 * aggregation, or the sum without one, over the conclusions on that term so
 * far). Rules run in order, or in reverse order with activation Last;
 * Highest, Lowest and Proportional compute every rule's degree before they
 * trigger any, so there the degree is 0. */
HAZE__HD double haze__fl_out_degree(const struct haze_fis *f, int o, int t, int r,
                                    const double *w) {
    const int agg = f->out[o].agg;
    double acc = 0.0;
    if (f->act == HAZE__ACT_HIGHEST || f->act == HAZE__ACT_LOWEST ||
        f->act == HAZE__ACT_PROPORTIONAL)
        return 0.0;
    const int last = f->act == HAZE__ACT_LAST;
    for (int q = last ? r + 1 : 0; q < (last ? f->nr : r); q++) {
        if (f->cons[q * f->no + o] != t || !haze__fires(f, w[q])) continue;
        double d = haze__fl_hedges(f->cons_fl[q * f->no + o], w[q]);
        acc = agg >= 0 ? haze__norm(agg, acc, d) : acc + d;
    }
    return acc;
}

/* Firing strength (before the weight) of rule r of a model whose rules are
 * a table of antecedents (no fuzzylite propositions), from the input MFs'
 * degrees that haze__fis_eval_row memoises after the variables in x. */
HAZE__HD double haze__rule_firing_table(const struct haze_fis *f, int r, const double *x) {
    const int op = f->conn[r] == 2 ? f->or_m : f->and_m;
    double acc = 0.0;
    int first = 1;
    for (int j = 0; j < f->ni; j++) {
        int code = f->ante[r * f->ni + j];
        if (code == 0) continue;
        int neg = code < 0;
        int k = (neg ? -code : code) - 1;
        double mu = x[f->ni + f->no + 1 + f->in[j].mf0 + k];
        if (f->ante_fl)
            mu = haze__fl_hedges(f->ante_fl[r * f->ni + j], mu);
        else
            mu = haze__hedge_not(mu, f->ante_hedge[r * f->ni + j], neg);
        acc = first ? mu : haze__norm(op, acc, mu);
        first = 0;
    }
    return first ? 0.0 : acc;
}

/* Does haze__rule_degrees keep the activation degrees of the output terms
 * (haze__fl_out_degree) up to date as it goes, in x after the variables?
 * The slots are those of the memoised MF degrees, which rules with
 * propositions do not use. Going over all the rules before each one would
 * make a chained engine quadratic in its rules. The activations that run
 * the rules in order only: Last runs them backwards, and its degrees keep
 * fuzzylite's order of the rules through haze__fl_out_degree. */
HAZE__HD int haze__fl_deg_running(const struct haze_fis *f) {
    return f->act == HAZE__ACT_GENERAL || f->act == HAZE__ACT_FIRST ||
           f->act == HAZE__ACT_THRESHOLD;
}

/* Firing strength (before the weight) of rule r for input vector x; w holds
 * the degrees of the rules before r (for chained fuzzylite engines), x
 * after the variables the degrees of the output terms (see above). */
HAZE__HD double haze__rule_firing(const struct haze_fis *f, int r, const double *x,
                                  const double *w) {
    if (f->props) {
        /* the postfix antecedent on a stack; a chain of one connective is
         * ((p1 op p2) op p3) ..., as the table path below computes it */
        double st[HAZE__FL_STACK];
        int sp = 0;
        for (int k = f->prop_off[r]; k < f->prop_off[r + 1]; k++) {
            const int v = f->props[3 * k], t = f->props[3 * k + 1], chain = f->props[3 * k + 2];
            if (v < 0) {
                const double b = st[--sp], a = st[sp - 1];
                st[sp - 1] = haze__norm(v == HAZE__FL_AND ? f->and_m : f->or_m, a, b);
                continue;
            }
            double mu;
            if (t == 0) { /* "is any": the hedges alone decide */
                mu = 0.0;
            } else if (v < f->ni) {
                const haze__mf *m = &f->mfs[f->in[v].mf0 + t - 1];
                mu = haze__mf_eval_v(m->type, f->params + m->poff, x[v], x);
            } else if (haze__fl_deg_running(f)) {
                mu = x[f->ni + f->no + 1 + f->out[v - f->ni].mf0 + t - 1];
            } else {
                mu = haze__fl_out_degree(f, v - f->ni, t, r, w);
            }
            st[sp++] = haze__fl_hedges(chain, mu);
        }
        return sp ? st[0] : 0.0;
    }
    return haze__rule_firing_table(f, r, x);
}

/* The order of libstdc++'s std::priority_queue (push_heap / pop_heap), which
 * fuzzylite's Highest and Lowest use: the rules they trigger at equal
 * degrees depend on it. hp holds rule numbers; `low` orders by the lowest
 * degree first. */
HAZE__HD int haze__heap_before(const double *w, int low, double a, double b) {
    return low ? w[(int)a] > w[(int)b] : w[(int)a] < w[(int)b];
}
HAZE__HD void haze__heap_up(double *hp, int hole, int top, double v, const double *w, int low) {
    int parent = (hole - 1) / 2;
    while (hole > top && haze__heap_before(w, low, hp[parent], v)) {
        hp[hole] = hp[parent];
        hole = parent;
        parent = (hole - 1) / 2;
    }
    hp[hole] = v;
}
HAZE__HD void haze__heap_pop(double *hp, int len, const double *w, int low) {
    if (len < 2) return;
    const double v = hp[len - 1];
    hp[len - 1] = hp[0];
    len--;
    int hole = 0, second = 0;
    while (second < (len - 1) / 2) {
        second = 2 * (second + 1);
        if (haze__heap_before(w, low, hp[second], hp[second - 1])) second--;
        hp[hole] = hp[second];
        hole = second;
    }
    if ((len & 1) == 0 && second == (len - 2) / 2) {
        second = 2 * (second + 1);
        hp[hole] = hp[second - 1];
        hole = second - 1;
    }
    haze__heap_up(hp, hole, 0, v, w, low);
}

/* Does degree d pass Threshold's comparison with fuzzylite's tolerance? */
HAZE__HD int haze__act_cmp(int cmp, double d, double t) {
    const int eq = haze__fl_eq(d, t);
    switch (cmp) {
    case HAZE__CMP_LT:
        return !eq && d < t;
    case HAZE__CMP_LE:
        return eq || d < t;
    case HAZE__CMP_EQ:
        return eq;
    case HAZE__CMP_NE:
        return !eq;
    case HAZE__CMP_GE:
        return eq || d > t;
    default:
        return !eq && d > t;
    }
}

/* The degree of every rule (weight included) after the activation method:
 * a rule that the method does not trigger gets 0, so that no output and no
 * chained proposition sees it (General leaves every degree, and a rule
 * fires when its degree exceeds 0 by more than 1e-6, haze__fires).
 * fuzzylite 6.0, fl/activation/: First and Last trigger the first / last
 * act_n rules whose degree is > 0 and >= act_thr; Highest and Lowest the
 * act_n of highest / lowest degree among those > 0; Proportional divides
 * each degree by their sum; Threshold triggers the rules whose degree
 * compares as asked with act_thr. hp, mark: nr doubles each. */
HAZE__HD void haze__rule_degrees(const struct haze_fis *f, double *x, double *w, double *hp,
                                 double *mark) {
    const int nr = f->nr, act = f->act;
    if (act == HAZE__ACT_HIGHEST || act == HAZE__ACT_LOWEST || act == HAZE__ACT_PROPORTIONAL) {
        double sum = 0.0;
        for (int r = 0; r < nr; r++) {
            w[r] = f->weight[r] * haze__rule_firing(f, r, x, w);
            sum += w[r];
        }
        if (act == HAZE__ACT_PROPORTIONAL) {
            for (int r = 0; r < nr; r++) w[r] = w[r] / sum;
            return;
        }
        const int low = act == HAZE__ACT_LOWEST;
        int len = 0;
        for (int r = 0; r < nr; r++) {
            mark[r] = 0.0;
            if (haze__fl_gt(w[r], 0.0)) {
                hp[len++] = (double)r;
                haze__heap_up(hp, len - 1, 0, hp[len - 1], w, low);
            }
        }
        for (int k = 0; k < f->act_n && len > 0; k++) {
            mark[(int)hp[0]] = 1.0;
            haze__heap_pop(hp, len--, w, low);
        }
        for (int r = 0; r < nr; r++)
            if (mark[r] == 0.0) w[r] = 0.0;
        return;
    }
    int used = 0;
    const int running = f->props && haze__fl_deg_running(f);
    double *deg = x + f->ni + f->no + 1;
    if (running)
        for (int o = 0; o < f->no; o++)
            for (int m = f->out[o].mf0; m < f->out[o].mf0 + f->out[o].nmf; m++) deg[m] = 0.0;
    for (int k = 0; k < nr; k++) {
        const int r = act == HAZE__ACT_LAST ? nr - 1 - k : k;
        double d = f->weight[r] * haze__rule_firing(f, r, x, w);
        if (act == HAZE__ACT_FIRST || act == HAZE__ACT_LAST) {
            if (used < f->act_n && haze__fl_gt(d, 0.0) &&
                haze__act_cmp(HAZE__CMP_GE, d, f->act_thr))
                used++;
            else
                d = 0.0;
        } else if (act == HAZE__ACT_THRESHOLD && !haze__act_cmp(f->act_cmp, d, f->act_thr)) {
            d = 0.0;
        }
        w[r] = d;
        if (running && haze__fires(f, d))
            for (int o = 0; o < f->no; o++) {
                /* haze__fl_out_degree's step for rule r */
                const int t = f->cons[r * f->no + o], agg = f->out[o].agg;
                if (t <= 0) continue;
                double *acc = &deg[f->out[o].mf0 + t - 1];
                const double h = haze__fl_hedges(f->cons_fl[r * f->no + o], d);
                *acc = agg >= 0 ? haze__norm(agg, *acc, h) : *acc + h;
            }
    }
}

/* Lists in fr (as doubles, exact) the rules that take part in output o:
 * a consequent for o and a non-zero firing (a rule with w = 0 adds
 * imp(0, mu) = 0, the identity of every s-norm). Returns their count. */
HAZE__HD int haze__fired(const struct haze_fis *f, int o, const double *w, double *fr) {
    int c = 0;
    for (int r = 0; r < f->nr; r++)
        if (f->cons[r * f->no + o] != 0 && haze__fires(f, w[r])) fr[c++] = (double)r;
    return c;
}

/* Aggregated membership of output o at point k (x = xk) over the fired
 * rules fr[0..cnt). The output MFs' values at the points come from the
 * plan's table when there is one (tb->grid), else are computed. */
HAZE__HD double haze__agg_at(const struct haze_fis *f, const haze__fis_tabs *tb, int o,
                             const double *w, const double *fr, int cnt, int k, double xk) {
    const haze__var *ov = &f->out[o];
    const int aggm = haze__oagg(f, o);
    double agg = 0.0;
    for (int i = 0; i < cnt; i++) {
        int r = (int)fr[i];
        int code = f->cons[r * f->no + o];
        int neg = code < 0;
        int mi = ov->mf0 + (neg ? -code : code) - 1;
        double mu = tb->grid ? tb->grid[(size_t)mi * (size_t)tb->gstride + (size_t)k]
                             : haze__mf_eval(f->mfs[mi].type, f->params + f->mfs[mi].poff, xk);
        double hg = f->cons_hedge[r * f->no + o];
        if (neg || hg != 0.0) mu = haze__hedge_not(mu, hg, neg);
        double v =
            f->imp_m == HAZE__N_MIN ? (w[r] < mu ? w[r] : mu) : haze__norm(f->imp_m, w[r], mu);
        agg = aggm == HAZE__N_MAX ? (agg > v ? agg : v) : haze__norm(aggm, agg, v);
    }
    return agg;
}

/* The common case on its own, as a plain loop over the tabulated output
 * MFs: centroid, implication min or prod, aggregation max, no hedge or NOT
 * in the fired consequents, at most 16 distinct MFs. The operations and their
 * order are those of haze__agg_at and the general centroid below, so the
 * result is the same to the bit. Returns 0 when the case does not apply.
 *
 * The walk over the points is instantiated for each count of fired rules
 * up to 8 (haze__cwalk_N), and once for a count given at run time
 * (haze__cwalk_n, up to HAZE__FAST_RULES): with the count known at compile
 * time the rule loop unrolls and the rows' pointers and degrees stay in
 * registers, which on a GPU thread avoids local-memory traffic in the
 * inner loop. A walk adds to sum[0] (the numerator) and sum[1] (the
 * denominator), so consecutive walks continue one sum (trapz, whose terms
 * join neighbouring points, is only ever done in one walk). */

#define HAZE__CWALK_DEF(NAME, LEN, CNT)                                                            \
    HAZE__HD void haze__cwalk_##NAME(const struct haze_fis *f, const haze__var *ov,                \
                                     const double *const *rows_in, const double *ws_in, int cnt,   \
                                     int ks, int ke, int n, int octave, int prod, double *sum) {   \
        const double *rows[LEN];                                                                   \
        double ws[LEN];                                                                            \
        (void)cnt;                                                                                 \
        for (int i = 0; i < (CNT); i++) {                                                          \
            rows[i] = rows_in[i];                                                                  \
            ws[i] = ws_in[i];                                                                      \
        }                                                                                          \
        double num = sum[0], den = sum[1], xp = 0.0, yp = 0.0;                                     \
        const double step = haze__xstep(f, ov, n);                                                 \
        for (int k = ks; k <= ke; k++) {                                                           \
            double agg = 0.0;                                                                      \
            for (int i = 0; i < (CNT); i++) {                                                      \
                double mu = rows[i][k];                                                            \
                double v = prod ? ws[i] * mu : (ws[i] < mu ? ws[i] : mu);                          \
                agg = agg > v ? agg : v;                                                           \
            }                                                                                      \
            double xk = haze__xpoint_s(f, ov, k, n, step);                                         \
            if (octave) {                                                                          \
                if (k > ks) {                                                                      \
                    double h = xk - xp;                                                            \
                    num += h * (xp * yp + xk * agg) / 2.0;                                         \
                    den += h * (yp + agg) / 2.0;                                                   \
                }                                                                                  \
                xp = xk;                                                                           \
                yp = agg;                                                                          \
            } else {                                                                               \
                num += xk * agg;                                                                   \
                den += agg;                                                                        \
            }                                                                                      \
        }                                                                                          \
        sum[0] = num;                                                                              \
        sum[1] = den;                                                                              \
    }
HAZE__CWALK_DEF(1, 1, 1)
HAZE__CWALK_DEF(2, 2, 2)
HAZE__CWALK_DEF(3, 3, 3)
HAZE__CWALK_DEF(4, 4, 4)
HAZE__CWALK_DEF(5, 5, 5)
HAZE__CWALK_DEF(6, 6, 6)
HAZE__CWALK_DEF(7, 7, 7)
HAZE__CWALK_DEF(8, 8, 8)
HAZE__CWALK_DEF(n, HAZE__FAST_RULES, cnt)
#undef HAZE__CWALK_DEF

/* The centroid of cnt terms walked together over [k0, k1], the union of
 * their supports: outside it the aggregate is 0 and every term added is a
 * zero, which leaves the sums unchanged to the bit (one more point on each
 * side for trapz, whose terms join neighbours). NaN for a zero area. */
HAZE__HD double haze__cwalk_union(const struct haze_fis *f, const haze__var *ov,
                                  const double *const *rows, const double *ws, int cnt, int k0,
                                  int k1, int n, int octave, int prod) {
    int ks = k0, ke = k1;
    if (octave) {
        ks = k0 > 0 ? k0 - 1 : 0;
        ke = k1 + 1 < n ? k1 + 1 : n - 1;
    }
    double sum[2] = {0.0, 0.0};
    switch (cnt) {
#define HAZE__CWALK_CASE(CNT)                                                                      \
    case CNT:                                                                                      \
        haze__cwalk_##CNT(f, ov, rows, ws, cnt, ks, ke, n, octave, prod, sum);                     \
        break;
        HAZE__CWALK_CASE(1)
        HAZE__CWALK_CASE(2)
        HAZE__CWALK_CASE(3)
        HAZE__CWALK_CASE(4)
        HAZE__CWALK_CASE(5)
        HAZE__CWALK_CASE(6)
        HAZE__CWALK_CASE(7)
        HAZE__CWALK_CASE(8)
#undef HAZE__CWALK_CASE
    default:
        haze__cwalk_n(f, ov, rows, ws, cnt, ks, ke, n, octave, prod, sum);
        break;
    }
    return sum[1] != 0.0 ? sum[0] / sum[1] : NAN;
}

HAZE__HD int haze__centroid_fast(const struct haze_fis *f, const haze__fis_tabs *tb, int o,
                                 const double *w, const double *fr, int cnt, double *res) {
    if (!tb->grid || haze__oagg(f, o) != HAZE__N_MAX ||
        (f->imp_m != HAZE__N_MIN && f->imp_m != HAZE__N_PROD))
        return 0;
    const haze__var *ov = &f->out[o];
    const double *rows[HAZE__FAST_RULES];
    const double *sup = tb->grid + (size_t)f->nmfs * (size_t)tb->gstride;
    double ws[HAZE__FAST_RULES];
    int mid[HAZE__FAST_RULES];
    const int n = haze__npoints(f, o), octave = f->mode == HAZE_FIS_MODE_OCTAVE,
              prod = f->imp_m == HAZE__N_PROD;
    int k0 = n, k1 = -1, nm = 0;
    /* Fired rules that conclude the same MF merge into one term of degree
     * max(w): max(min(w1, mu), min(w2, mu)) = min(max(w1, w2), mu) exactly,
     * and max(w1 mu, w2 mu) = max(w1, w2) mu exactly too, rounding being
     * monotonic; max is exact and commutative, so the order of the terms
     * does not matter either. cnt becomes the number of distinct MFs. */
    for (int i = 0; i < cnt; i++) {
        int r = (int)fr[i];
        int code = f->cons[r * f->no + o];
        if (code < 0 || f->cons_hedge[r * f->no + o] != 0.0) return 0;
        int m = ov->mf0 + code - 1, j = 0;
        while (j < nm && mid[j] != m) j++;
        if (j < nm) {
            ws[j] = ws[j] > w[r] ? ws[j] : w[r];
            continue;
        }
        if (nm == HAZE__FAST_RULES) return 0;
        mid[nm] = m;
        rows[nm] = tb->grid + (size_t)m * (size_t)tb->gstride;
        ws[nm++] = w[r];
        if ((int)sup[2 * m] < k0) k0 = (int)sup[2 * m];
        if ((int)sup[2 * m + 1] > k1) k1 = (int)sup[2 * m + 1];
    }
    cnt = nm;
    /* Disjoint supports (output sets that do not overlap, as the tipper's):
     * at each point at most one term is non-zero, so walking each term over
     * its own support in the order of the supports adds the same non-zero
     * terms in the same order as the walk over all points below, which
     * adds only zeros besides. Not for trapz, whose terms join neighbours. */
    if (!octave && cnt > 1) {
        int ord[HAZE__FAST_RULES], disjoint = 1;
        for (int i = 0; i < cnt; i++) { /* insertion sort by support start */
            int j = i;
            while (j > 0 && sup[2 * mid[ord[j - 1]]] > sup[2 * mid[i]]) {
                ord[j] = ord[j - 1];
                j--;
            }
            ord[j] = i;
        }
        for (int i = 0; i + 1 < cnt && disjoint; i++)
            disjoint = sup[2 * mid[ord[i]] + 1] < sup[2 * mid[ord[i + 1]]];
        if (disjoint) {
            double sum[2] = {0.0, 0.0};
            for (int i = 0; i < cnt; i++) {
                const int t = ord[i];
                haze__cwalk_1(f, ov, &rows[t], &ws[t], 1, (int)sup[2 * mid[t]],
                              (int)sup[2 * mid[t] + 1], n, 0, prod, sum);
            }
            *res = sum[1] != 0.0 ? sum[0] / sum[1] : NAN;
            return 1;
        }
    }
    *res = haze__cwalk_union(f, ov, rows, ws, cnt, k0, k1, n, octave, prod);
    return 1;
}

/* fuzzylite's Bisector and Smallest/Mean/Largest of Maximum (their .cpp
 * files in fl/defuzzifier/ of fuzzylite 6.0) over the cell midpoints. */
HAZE__HD double haze__defuzz_fl(const struct haze_fis *f, const haze__fis_tabs *tb, int o,
                                const double *w, const double *fr, int cnt, int dm) {
    const haze__var *ov = &f->out[o];
    const int n = haze__npoints(f, o);
    const double lo = ov->lo, hi = ov->hi, dx = (hi - lo) / n;
    if (dm == HAZE__D_BISECTOR) {
        /* areas grown from both ends, the smaller one first */
        int left = 0, right = 0;
        double la = 0.0, ra = 0.0, xl = lo, xr = hi;
        for (int c = n; c > 0; c--) {
            if (haze__fl_eq(la, ra) || la < ra) {
                xl = lo + (left + 0.5) * dx;
                la += haze__agg_at(f, tb, o, w, fr, cnt, left, xl);
                left++;
            } else {
                xr = hi - (right + 0.5) * dx;
                right++;
                ra += haze__agg_at(f, tb, o, w, fr, cnt, n - right, xr);
            }
        }
        return (la * xr + ra * xl) / (la + ra);
    }
    double ymax = -1.0, xs = lo, xl = hi;
    int plateau = 0;
    for (int k = 0; k < n; k++) {
        double x = lo + (k + 0.5) * dx, y = haze__agg_at(f, tb, o, w, fr, cnt, k, x);
        if (dm == HAZE__D_SOM) {
            if (haze__fl_gt(y, ymax)) {
                xs = x;
                ymax = y;
            }
        } else if (dm == HAZE__D_LOM) {
            if (haze__fl_eq(y, ymax) || y > ymax) {
                xl = x;
                ymax = y;
            }
        } else { /* mom: the middle of the first plateau of the maximum */
            if (haze__fl_gt(y, ymax)) {
                ymax = y;
                xs = x;
                xl = x;
                plateau = 1;
            } else if (haze__fl_eq(y, ymax) && plateau) {
                xl = x;
            } else if (!haze__fl_eq(y, ymax) && y < ymax) {
                plateau = 0;
            }
        }
    }
    return dm == HAZE__D_SOM ? xs : (dm == HAZE__D_LOM ? xl : (xl + xs) / 2.0);
}

/* Defuzzified Mamdani output o (w: the rule degrees as this output sees
 * them); NaN when the aggregate is zero everywhere. */
HAZE__HD double haze__defuzz_mamdani(const struct haze_fis *f, const haze__fis_tabs *tb, int o,
                                     const double *wraw, const double *w, double *fr) {
    const haze__var *ov = &f->out[o];
    const int cnt = haze__fired(f, o, wraw, fr);
    if (cnt == 0) return NAN;
    const int n = haze__npoints(f, o), octave = f->mode == HAZE_FIS_MODE_OCTAVE,
              dm = haze__odefuzz(f, o);
    const double hi = ov->hi, step = haze__xstep(f, ov, n);
    double num = 0.0, den = 0.0;
    if (f->mode == HAZE_FIS_MODE_FUZZYLITE && dm != HAZE__D_CENTROID)
        return haze__defuzz_fl(f, tb, o, w, fr, cnt, dm);
    switch (dm) {
    case HAZE__D_CENTROID:
        if (haze__centroid_fast(f, tb, o, w, fr, cnt, &num)) return num;
        if (octave) {
            /* trapz(x, x.*y) / trapz(x, y), term by term as Octave's trapz */
            double xp = haze__xpoint(f, ov, 0, n), yp = haze__agg_at(f, tb, o, w, fr, cnt, 0, xp);
            for (int k = 1; k < n; k++) {
                double xk = haze__xpoint_s(f, ov, k, n, step),
                       yk = haze__agg_at(f, tb, o, w, fr, cnt, k, xk);
                double h = xk - xp;
                num += h * (xp * yp + xk * yk) / 2.0;
                den += h * (yp + yk) / 2.0;
                xp = xk;
                yp = yk;
            }
        } else {
            for (int k = 0; k < n; k++) {
                double xk = haze__xpoint_s(f, ov, k, n, step),
                       yk = haze__agg_at(f, tb, o, w, fr, cnt, k, xk);
                num += xk * yk;
                den += yk;
            }
        }
        return den != 0.0 ? num / den : NAN;
    case HAZE__D_BISECTOR: {
        /* MATLAB: the first point where the running sum reaches half */
        for (int k = 0; k < n; k++)
            den += haze__agg_at(f, tb, o, w, fr, cnt, k, haze__xpoint_s(f, ov, k, n, step));
        if (den == 0.0) return NAN;
        double run = 0.0;
        for (int k = 0; k < n; k++) {
            double xk = haze__xpoint_s(f, ov, k, n, step);
            run += haze__agg_at(f, tb, o, w, fr, cnt, k, xk);
            if (run >= den / 2.0) return xk;
        }
        return hi;
    }
    default: { /* mom, som, lom */
        double m = 0.0;
        for (int k = 0; k < n; k++) {
            double yk = haze__agg_at(f, tb, o, w, fr, cnt, k, haze__xpoint_s(f, ov, k, n, step));
            if (yk > m) m = yk;
        }
        if (m == 0.0) return NAN;
        double sum = 0.0, best = 0.0;
        int nmax = 0;
        for (int k = 0; k < n; k++) {
            double xk = haze__xpoint_s(f, ov, k, n, step);
            if (haze__agg_at(f, tb, o, w, fr, cnt, k, xk) != m) continue;
            sum += xk;
            /* MATLAB's som/lom pick the maximiser smallest/largest in
             * magnitude; Octave's the smallest/largest x */
            if (nmax == 0)
                best = xk;
            else if (dm == HAZE__D_SOM)
                best = (octave ? xk < best : fabs(xk) < fabs(best)) ? xk : best;
            else if (dm == HAZE__D_LOM)
                best = (octave ? xk > best : fabs(xk) >= fabs(best)) ? xk : best;
            nmax++;
        }
        return dm == HAZE__D_MOM ? sum / nmax : best;
    }
    }
}

/* The value z of a weighted output's term at degree w (fuzzylite 6.0,
 * WeightedAverage.cpp: Term::tsukamoto, which is the membership at w for
 * terms that are not monotonic; Ramp.cpp, Sigmoid.cpp, SShape.cpp,
 * ZShape.cpp, Concave.cpp for the monotonic ones, reproduced as they are). */
HAZE__HD double haze__fl_tsukamoto(const haze__mf *m, const double *p, double w, double lo,
                                   double hi, int membership) {
    double h = p[haze__fl_hidx(m->type, p)];
    switch (membership ? -1 : m->type) {
    case HAZE__MF_FL_RAMP:
        return (p[1] - p[0]) * w + p[0];
    case HAZE__MF_FL_SIGMOID:
        if (haze__fl_eq(w, 1.0)) return p[1] >= 0.0 || haze__fl_eq(p[1], 0.0) ? hi : lo;
        if (haze__fl_eq(w, 0.0)) return p[1] >= 0.0 || haze__fl_eq(p[1], 0.0) ? lo : hi;
        return p[0] + log(1.0 / w - 1.0) / -p[1];
    case HAZE__MF_FL_SSHAPE:
    case HAZE__MF_FL_ZSHAPE: {
        double d = p[1] - p[0], a, b;
        if (m->type == HAZE__MF_FL_SSHAPE) {
            a = p[0] + sqrt(0.5 * w * d * d);
            b = p[1] + sqrt(-0.5 * (w - 1.0) * d * d);
        } else {
            a = p[0] + sqrt(-0.5 * (w - 1.0) * d * d);
            b = p[1] + sqrt(0.5 * w * d * d);
        }
        return fabs(w - haze__fl_mf(m->type, p, a)) < fabs(w - haze__fl_mf(m->type, p, b)) ? a : b;
    }
    case HAZE__MF_FL_CONCAVE:
        return (p[0] - p[1]) / haze__fl_mf(m->type, p, w) + 2.0 * p[1] - p[0];
    default:
        return h * haze__fl_shape(m->type, p, w);
    }
}

/* Sugeno output o: weighted average (or sum) of the rule outputs. wraw are
 * the rule degrees, w the degrees as this output sees them. */
HAZE__HD double haze__defuzz_sugeno(const struct haze_fis *f, int o, const double *wraw,
                                    const double *w, const double *x, double *zs, double *hs) {
    const int octave = f->mode == HAZE_FIS_MODE_OCTAVE;
    double num = 0.0, den = 0.0;
    int used = 0, any = 0;
    for (int r = 0; r < f->nr; r++) {
        int code = f->cons[r * f->no + o];
        if (code == 0) continue;
        if (w[r] == 0.0 && octave) continue;
        if ((f->fl || f->mode == HAZE_FIS_MODE_FUZZYLITE) && !haze__fires(f, wraw[r])) continue;
        any = 1;
        int neg = code < 0;
        const haze__mf *m = &f->mfs[f->out[o].mf0 + (neg ? -code : code) - 1];
        const double *p = f->params + m->poff;
        double z = p[0];
        if (m->type == HAZE__MF_LINEAR) {
            z = p[f->ni];
            for (int j = 0; j < f->ni; j++) z += p[j] * x[j];
        } else if (m->type == HAZE__MF_FL_FUNCTION) {
            /* Term::tsukamoto and membership agree: the expression at w,
             * with the inputs and the outputs computed so far */
            z = haze__fn_eval(p, w[r], x);
        } else if (m->type > HAZE__MF_LINEAR) {
            /* wtd 2: declared TakagiSugeno, which takes the membership at w */
            z = haze__fl_tsukamoto(m, p, w[r], f->out[o].lo, f->out[o].hi, f->out[o].wtd == 2);
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
    if (f->fl) { /* fuzzylite: NaN only when no rule fired (0/0 otherwise) */
        if (!any) return NAN;
        return haze__odefuzz(f, o) == HAZE__D_WTSUM ? num : num / den;
    }
    if (f->defuzz_m == HAZE__D_WTSUM) return den != 0.0 ? num : NAN;
    return den != 0.0 ? num / den : NAN;
}

/* Evaluates one row: in (ni values) to out (no values). scratch holds
 * haze__fis_scratch(f) doubles. Adds the clamped inputs and the outputs for
 * which no rule fired to *clamped and *no_rule. prev: for lock-previous
 * outputs, the last finite value of each output in the rows before; NULL
 * when unknown (a parallel pass), where such an output with no rule fired
 * takes its default and sets *held (haze__fis_hold then evaluates the row
 * again with prev). */
HAZE__HD void haze__fis_eval_row(const struct haze_fis *f, const haze__fis_tabs *tb,
                                 const double *in, double *out, double *scratch, int *clamped,
                                 int *no_rule, const double *prev, int *held) {
    const int octave = f->mode == HAZE_FIS_MODE_OCTAVE;
    double *w = scratch, *zs = scratch + f->nr, *hs = zs + f->nr, *wo = hs + f->nr, *x = wo + f->nr;
    for (int j = 0; j < f->ni; j++) {
        double v = in[j];
        /* MATLAB clamps; Octave does not; fuzzylite where lock-range says */
        int lock = f->mode == HAZE_FIS_MODE_MATLAB || f->mode == HAZE_FIS_MODE_EXACT ||
                   (f->mode == HAZE_FIS_MODE_FUZZYLITE && f->fl && f->in[j].lock);
        if (lock && v < f->in[j].lo) {
            v = f->in[j].lo;
            (*clamped)++;
        } else if (lock && v > f->in[j].hi) {
            v = f->in[j].hi;
            (*clamped)++;
        }
        x[j] = v;
    }
    /* every input MF once, after the variables: rules share their antecedents */
    if (!f->props)
        for (int j = 0; j < f->ni; j++)
            for (int k = f->in[j].mf0; k < f->in[j].mf0 + f->in[j].nmf; k++)
                x[f->ni + f->no + 1 + k] =
                    haze__mf_eval_v(f->mfs[k].type, f->params + f->mfs[k].poff, x[j], x);
    if (f->fl)
        haze__rule_degrees(f, x, w, zs, hs);
    else
        for (int r = 0; r < f->nr; r++) w[r] = f->weight[r] * haze__rule_firing(f, r, x, w);
    for (int o = 0; o < f->no; o++) {
        const haze__var *ov = &f->out[o];
        const double *wv = w;
        if (f->cons_fl) {
            /* fuzzylite hedges a conclusion's degree (Consequent::modify) */
            for (int r = 0; r < f->nr; r++)
                wo[r] = haze__fl_hedges(f->cons_fl[r * f->no + o], w[r]);
            wv = wo;
        }
        int wtd = f->fl ? ov->wtd : f->sugeno;
        double res;
        if (wtd)
            res = haze__defuzz_sugeno(f, o, w, wv, x, zs, hs);
        else if (f->mode == HAZE_FIS_MODE_EXACT)
            res = haze__defuzz_exact(f, o, w, zs, haze__fired(f, o, w, zs), hs,
                                     wo); /* no .fll here: wo is free */
        else
            res = haze__defuzz_mamdani(f, tb, o, w, wv, zs);
        if (f->fl) {
            /* fuzzylite (OutputVariable::defuzzify): the default, or with
             * lock-previous the previous value, only when no rule fired; a
             * defuzzifier's NaN after a fired rule stays NaN */
            int fired = 0;
            for (int r = 0; r < f->nr && !fired; r++)
                fired = f->cons[r * f->no + o] != 0 && haze__fires(f, w[r]);
            if (!fired) {
                (*no_rule)++;
                if (f->nan_if_no_rule) {
                    res = NAN;
                } else if (ov->lockprev && prev && !isnan(prev[o])) {
                    res = prev[o];
                } else {
                    res = ov->dflt;
                    if (ov->lockprev && !prev) *held = 1;
                }
            }
            if (ov->lock && !isnan(res))
                res = res < ov->lo ? ov->lo : (res > ov->hi ? ov->hi : res);
            x[f->ni + o] = res; /* for the Function terms of the outputs after */
        } else if (isnan(res)) {
            (*no_rule)++;
            if (!octave && !f->nan_if_no_rule) /* MATLAB, EXACT */
                res = (ov->lo + ov->hi) / 2.0;
        }
        out[o] = res;
    }
}

/* The same for a model in the common class for which the plan has a rule
 * program (fis_plan.c: a MATLAB or Octave Mamdani system with centroid, max
 * aggregation, min or prod implication, MATLAB's MF types, no NOT or hedge
 * in the consequents, at most HAZE__FAST_RULES sets per output, its output
 * MFs tabulated): the steps that haze__fis_eval_row takes for such a model,
 * through the same functions, so the result is the same to the bit, without
 * the branches for everything else. On a GPU the kernel for these models
 * then holds the row in far fewer registers. scratch holds
 * haze__fis_scratch_plain(f) doubles. */
HAZE__HD void haze__fis_eval_row_plain(const struct haze_fis *f, const haze__fis_tabs *tb,
                                       const double *in, double *out, double *scratch, int *clamped,
                                       int *no_rule) {
    const int octave = f->mode == HAZE_FIS_MODE_OCTAVE;
    double *w = scratch, *fr = scratch + f->nr, *x = fr + f->nr;
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
    for (int j = 0; j < f->ni; j++)
        for (int k = f->in[j].mf0; k < f->in[j].mf0 + f->in[j].nmf; k++)
            x[f->ni + f->no + 1 + k] =
                haze__mf_eval_ml(f->mfs[k].type, f->params + f->mfs[k].poff, x[j]);
    /* haze__rule_firing_table over the rules' antecedents as tb->plain lists
     * them (no hedges in this class): the same operations in the same order */
    const double *mu_in = x + f->ni + f->no + 1;
    const int *pe = tb->plain + f->nr + 1 + f->no;
    for (int r = 0; r < f->nr; r++) {
        const int op = f->conn[r] == 2 ? f->or_m : f->and_m;
        const int e0 = tb->plain[r], e1 = tb->plain[r + 1];
        double acc = 0.0;
        if (e1 > e0) {
            const int c0 = pe[e0];
            acc = c0 < 0 ? 1.0 - mu_in[-1 - c0] : mu_in[c0];
        }
        if (op == HAZE__N_MIN) { /* haze__norm's min and max, without its switch */
            for (int e = e0 + 1; e < e1; e++) {
                const int c = pe[e];
                const double mu = c < 0 ? 1.0 - mu_in[-1 - c] : mu_in[c];
                acc = acc < mu ? acc : mu;
            }
        } else if (op == HAZE__N_MAX) {
            for (int e = e0 + 1; e < e1; e++) {
                const int c = pe[e];
                const double mu = c < 0 ? 1.0 - mu_in[-1 - c] : mu_in[c];
                acc = acc > mu ? acc : mu;
            }
        } else {
            for (int e = e0 + 1; e < e1; e++) {
                const int c = pe[e];
                const double mu = c < 0 ? 1.0 - mu_in[-1 - c] : mu_in[c];
                acc = haze__norm(op, acc, mu);
            }
        }
        w[r] = f->weight[r] * acc;
    }
    const double *sup = tb->grid + (size_t)f->nmfs * (size_t)tb->gstride;
    for (int o = 0; o < f->no; o++) {
        const haze__var *ov = &f->out[o];
        const int n = haze__npoints(f, o), nt = ov->nmf, prod = f->imp_m == HAZE__N_PROD;
        double res = NAN, ws[HAZE__FAST_RULES];
        const double *rows[HAZE__FAST_RULES];
        int k0 = n, k1 = -1, seen = 0, nan = 0;
        /* each set's degree: the max over the fired rules that conclude it,
         * as haze__centroid_fast merges them; 0 for the sets none concludes */
        for (int t = 0; t < nt; t++) {
            ws[t] = 0.0;
            rows[t] = tb->grid + (size_t)(ov->mf0 + t) * (size_t)tb->gstride;
        }
        for (int r = 0; r < f->nr; r++) {
            const int code = f->cons[r * f->no + o];
            if (code == 0 || w[r] == 0.0) continue;
            const int t = code - 1;
            nan |= isnan(w[r]);
            if (seen >> t & 1) {
                ws[t] = ws[t] > w[r] ? ws[t] : w[r];
                continue;
            }
            seen |= 1 << t;
            ws[t] = w[r];
            if ((int)sup[2 * (ov->mf0 + t)] < k0) k0 = (int)sup[2 * (ov->mf0 + t)];
            if ((int)sup[2 * (ov->mf0 + t) + 1] > k1) k1 = (int)sup[2 * (ov->mf0 + t) + 1];
        }
        if (seen && (nan || tb->plain[f->nr + 1 + o])) {
            /* the order of the terms matters with a NaN degree; disjoint
             * sets are each walked over their own support there: exactly as
             * the general row (always applies to such a model) */
            haze__centroid_fast(f, tb, o, w, fr, haze__fired(f, o, w, fr), &res);
        } else if (seen) {
            /* One walk over every set of the output, whichever fired: a
             * set no rule concludes adds min(0, mu) = 0 * mu = 0 (mu >= 0,
             * as the plan checked) to a max of terms >= 0, which changes
             * nothing, and max is exact and commutative, so the sums are
             * those of haze__centroid_fast to the bit. Every thread of a GPU
             * warp then takes the same walk, where the walks for each count
             * of fired sets would run one after another. */
            res = haze__cwalk_union(f, ov, rows, ws, nt, k0, k1, n, octave, prod);
        }
        if (isnan(res)) {
            (*no_rule)++;
            if (!octave && !f->nan_if_no_rule) res = (f->out[o].lo + f->out[o].hi) / 2.0;
        }
        out[o] = res;
    }
}

#endif
