/*
 * src/fis/fis_exact.h - EXACT mode's defuzzification (host and device): the
 * aggregate of piecewise-linear output MFs, walked piece by piece and
 * integrated in closed form instead of sampled. Called by the row
 * evaluator (fis_row.h) for Mamdani outputs in EXACT mode; haze_fis_eval
 * refuses the models where it does not apply (fis.c, exact_check).
 */
#ifndef HAZE_FIS_EXACT_H
#define HAZE_FIS_EXACT_H

#include "fis/fis_math.h"

/* EXACT mode: the aggregate of piecewise-linear output MFs (trimf, trapmf,
 * linsmf, linzmf) under implication min or prod and aggregation max or sum
 * is itself piecewise linear; it is walked piece by piece and each piece
 * (x0, y0)-(x1, y1) is integrated in closed form. No per-point memory: the
 * breakpoints are found by scanning for the next one each time.
 *  - knots: the MFs' parameters and the range ends; between two knots every
 *    fired consequent is one line;
 *  - inside a knot interval the kinks of max/min of lines are among the
 *    crossings of the lines {mu_i} and the constants {w_i} (min) or of
 *    {w_i mu_i} (prod), so the next breakpoint is the nearest crossing.
 * A line's ends are extrapolated from two interior points so that the jumps
 * of degenerate MFs (a == b) at a knot do not bend it. */
HAZE__HD int haze__exact_knots(const haze__mf *m, const double *p, double *k) {
    (void)p;
    switch (m->type) {
    case HAZE__MF_TRI:
        k[0] = p[0], k[1] = p[1], k[2] = p[2];
        return 3;
    case HAZE__MF_TRAP:
        k[0] = p[0], k[1] = p[1], k[2] = p[2], k[3] = p[3];
        return 4;
    default: /* linsmf, linzmf */
        k[0] = p[0], k[1] = p[1];
        return 2;
    }
}

/* Accumulator of one walk over the pieces; `pass` says what it gathers. */
enum { HAZE__XP_AREA = 0, HAZE__XP_BIS, HAZE__XP_MAX, HAZE__XP_TOP };
typedef struct haze__xacc {
    int pass;
    double area, mom1;     /* AREA: integral of f and of x f; BIS: running area */
    double target, res;    /* BIS: the half area, the bisector once found */
    int found;             /* BIS: res is set; TOP: som is set */
    double ymax;           /* MAX: the maximum; TOP: the maximum (input) */
    double len, mid;       /* TOP: plateau measure, integral of x over it */
    double psum, som, lom; /* TOP: sum of isolated maximisers; extremes */
    int pcount;
} haze__xacc;

/* Is y the maximum m (pieces' ends are computed in different ways, so a
 * relative tolerance of a few roundings applies)? */
HAZE__HD int haze__xtop(double y, double m) {
    return y >= m - 1e-12 * m;
}

HAZE__HD void haze__exact_piece(haze__xacc *a, double x0, double x1, double y0, double y1) {
    const double h = x1 - x0;
    if (!(h > 0.0)) return;
    switch (a->pass) {
    case HAZE__XP_AREA:
        /* f = y0 + (y1 - y0) t, x = x0 + h t, t in [0, 1] */
        a->area += h * (y0 + y1) / 2.0;
        a->mom1 += h * (x0 * (y0 + y1) / 2.0 + h * (y0 + 2.0 * y1) / 6.0);
        break;
    case HAZE__XP_BIS: {
        double pa = h * (y0 + y1) / 2.0;
        if (!a->found && a->area + pa >= a->target && pa > 0.0) {
            /* area from x0 to x0 + s: y0 s + (y1 - y0) s^2 / (2h) = need */
            double need = a->target - a->area, g = (y1 - y0) / h, s;
            if (need < 0.0) need = 0.0;
            if (g == 0.0) {
                s = need / y0;
            } else {
                /* g s^2 / 2 + y0 s - need = 0, the root in [0, h], in the
                 * form without cancellation */
                double disc = y0 * y0 + 2.0 * g * need;
                s = 2.0 * need / (y0 + sqrt(disc > 0.0 ? disc : 0.0));
            }
            a->res = x0 + (s < h ? s : h);
            a->found = 1;
        }
        a->area += pa;
        break;
    }
    case HAZE__XP_MAX:
        if (y0 > a->ymax) a->ymax = y0;
        if (y1 > a->ymax) a->ymax = y1;
        break;
    default: { /* TOP */
        const int t0 = haze__xtop(y0, a->ymax), t1 = haze__xtop(y1, a->ymax);
        if (t0 && t1) {
            a->len += h;
            a->mid += h * (x0 + x1) / 2.0;
        } else if (t1) {
            a->psum += x1;
            a->pcount++;
        } else if (t0 && !a->found) {
            a->psum += x0; /* a maximum at the left end of the range */
            a->pcount++;
        }
        if (t0 || t1) {
            if (!a->found) a->som = t0 ? x0 : x1;
            a->found = 1;
            a->lom = t1 ? x1 : x0;
        }
        break;
    }
    }
}

/* Value at x of line i of the set L in knot interval [k0, k1] (A, B: the
 * consequents' values at its ends; lines cnt.. are the constants w_i). */
HAZE__HD double haze__xline(int i, int cnt, const double *A, const double *B, const double *w,
                            const double *fr, double k0, double k1, double x) {
    if (i >= cnt) return w[(int)fr[i - cnt]];
    double t = (x - k0) / (k1 - k0);
    return A[i] + (B[i] - A[i]) * t;
}

/* The aggregate at x in knot interval [k0, k1]. */
HAZE__HD double haze__xagg(const struct haze_fis *f, int cnt, const double *A, const double *B,
                           const double *w, const double *fr, double k0, double k1, double x) {
    double agg = 0.0;
    for (int i = 0; i < cnt; i++) {
        double v = haze__xline(i, cnt, A, B, w, fr, k0, k1, x);
        if (f->imp_m == HAZE__N_MIN) {
            double wi = w[(int)fr[i]];
            v = wi < v ? wi : v;
        }
        if (v < 0.0) v = 0.0;
        agg = f->agg_m == HAZE__N_MAX ? (agg > v ? agg : v) : agg + v;
    }
    return agg;
}

/* One walk over the pieces of the aggregate of output o into a. */
HAZE__HD void haze__exact_walk(const struct haze_fis *f, int o, const double *w, const double *fr,
                               int cnt, double *A, double *B, haze__xacc *a) {
    const haze__var *ov = &f->out[o];
    const int nl = f->imp_m == HAZE__N_MIN ? 2 * cnt : cnt;
    double x = ov->lo;
    while (x < ov->hi) {
        /* the next knot after x */
        double xn = ov->hi, kn[4];
        for (int i = 0; i < cnt; i++) {
            int r = (int)fr[i], code = f->cons[r * f->no + o];
            const haze__mf *m = &f->mfs[ov->mf0 + (code < 0 ? -code : code) - 1];
            int nk = haze__exact_knots(m, f->params + m->poff, kn);
            for (int j = 0; j < nk; j++)
                if (kn[j] > x && kn[j] < xn) xn = kn[j];
        }
        /* the lines of the consequents on (x, xn), from two interior points */
        const double q1 = x + (xn - x) / 4.0, q2 = x + 3.0 * (xn - x) / 4.0;
        for (int i = 0; i < cnt; i++) {
            int r = (int)fr[i], code = f->cons[r * f->no + o];
            const haze__mf *m = &f->mfs[ov->mf0 + (code < 0 ? -code : code) - 1];
            double m1 = haze__mf_eval(m->type, f->params + m->poff, q1);
            double m2 = haze__mf_eval(m->type, f->params + m->poff, q2);
            if (code < 0) m1 = 1.0 - m1, m2 = 1.0 - m2;
            if (f->imp_m == HAZE__N_PROD) m1 *= w[r], m2 *= w[r];
            A[i] = (3.0 * m1 - m2) / 2.0;
            B[i] = (3.0 * m2 - m1) / 2.0;
        }
        /* pieces between the crossings of the lines inside (x, xn) */
        double c = x, yc = haze__xagg(f, cnt, A, B, w, fr, x, xn, x);
        while (c < xn) {
            double cn = xn;
            for (int i = 0; i < nl; i++)
                for (int j = i + 1; j < nl; j++) {
                    if (i >= cnt && j >= cnt) continue; /* parallel constants */
                    double d0 = haze__xline(i, cnt, A, B, w, fr, x, xn, x) -
                                haze__xline(j, cnt, A, B, w, fr, x, xn, x);
                    double d1 = haze__xline(i, cnt, A, B, w, fr, x, xn, xn) -
                                haze__xline(j, cnt, A, B, w, fr, x, xn, xn);
                    if ((d0 < 0.0 && d1 > 0.0) || (d0 > 0.0 && d1 < 0.0)) {
                        double xc = x + (xn - x) * (d0 / (d0 - d1));
                        if (xc > c && xc < cn) cn = xc;
                    }
                }
            double yn = haze__xagg(f, cnt, A, B, w, fr, x, xn, cn);
            haze__exact_piece(a, c, cn, yc, yn);
            c = cn;
            yc = yn;
        }
        x = xn;
    }
}

/* Exact defuzzification of Mamdani output o; NaN when the aggregate has
 * zero area (or is zero everywhere for mom/som/lom). A and B hold cnt
 * doubles each; fr lists the cnt fired rules (haze__fired). som/lom: the smallest/largest
 * maximiser; mom: the mean of the maximisers (over the plateaus when they have length, else over
 * the isolated peaks). */
HAZE__HD double haze__defuzz_exact(const struct haze_fis *f, int o, const double *w, double *fr,
                                   int cnt, double *A, double *B) {
    const int dm = f->defuzz_m;
    if (cnt == 0) return NAN;
    haze__xacc a;
    a.area = a.mom1 = a.target = a.res = a.ymax = a.len = a.mid = a.psum = a.som = a.lom = 0.0;
    a.found = a.pcount = 0;
    if (dm == HAZE__D_CENTROID || dm == HAZE__D_BISECTOR) {
        a.pass = HAZE__XP_AREA;
        haze__exact_walk(f, o, w, fr, cnt, A, B, &a);
        if (!(a.area > 0.0)) return NAN;
        if (dm == HAZE__D_CENTROID) return a.mom1 / a.area;
        a.pass = HAZE__XP_BIS;
        a.target = a.area / 2.0;
        a.area = 0.0;
        haze__exact_walk(f, o, w, fr, cnt, A, B, &a);
        return a.found ? a.res : f->out[o].hi;
    }
    a.pass = HAZE__XP_MAX;
    haze__exact_walk(f, o, w, fr, cnt, A, B, &a);
    if (!(a.ymax > 0.0)) return NAN;
    a.pass = HAZE__XP_TOP;
    haze__exact_walk(f, o, w, fr, cnt, A, B, &a);
    if (dm == HAZE__D_SOM) return a.som;
    if (dm == HAZE__D_LOM) return a.lom;
    if (a.len > 0.0) return a.mid / a.len;
    return a.pcount > 0 ? a.psum / a.pcount : (a.som + a.lom) / 2.0;
}

#endif
