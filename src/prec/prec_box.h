/*
 * src/prec/prec_box.h - the interval engine on one sub-box, in double
 * precision with directed rounding (haze/interval.h), for bisection on the
 * GPU. The same inline code is compiled for the host and the device, so the
 * CPU twin (haze__prec_boxes_host) and the kernel give identical bits.
 *
 * It is the "ia" engine of prec_analyse.c restricted to what double
 * intervals can do exactly: + - * / sqrt |x| fma and roundings (no exp/log:
 * haze/interval.h has no certified exp or log, such scripts stay on the CPU),
 * absolute errors only (no relative-error reasoning), rounding errors bounded
 * from the magnitude of the argument (Linderman et al., CGO 2010, Eq. 1) with
 * Gappa's FIX/FLT exactness. Bounds are as sound as the MPFR engine's, a
 * little wider.
 */
#ifndef HAZE_PREC_BOX_H
#define HAZE_PREC_BOX_H

#include <limits.h>
#include <math.h>

#include "core/hd.h"
#include "haze/interval.h"
#include "prec/prec_op.h"

#define PBOX_MAX_NODES   256
#define PBOX_FIX_UNKNOWN INT_MIN
#define PBOX_FLT_UNKNOWN INT_MAX

/* One node of the compiled program; children are earlier indices. */
typedef struct pbox_ins {
    int op; /* OP_* (prec_op.h) */
    int a, b, c, strip;
    int var;
    int fixed, dir, ftz, extra_ulps, has_emin, has_emax;
    int lsb, prec, emin, emax, extra_abs; /* extra_abs: INT_MIN none */
    int fix, flt;                         /* of the argument of a rounding */
    double klo, khi;                      /* OP_CONST */
} pbox_ins;

HAZE__HD haze_ivd pbox_meet(haze_ivd a, haze_ivd b) {
    if (a.hi < b.lo || b.hi < a.lo) return a;
    return haze_ivd_make(a.lo > b.lo ? a.lo : b.lo, a.hi < b.hi ? a.hi : b.hi);
}

HAZE__HD double pbox_mag(haze_ivd a) {
    return fabs(a.lo) > fabs(a.hi) ? fabs(a.lo) : fabs(a.hi);
}

HAZE__HD double pbox_pow2(int e) {
    if (e < -1074) e = -1074; /* a larger bound is still a bound */
    return ldexp(1.0, e);
}

HAZE__HD haze_ivd pbox_sym(double m) {
    return haze_ivd_make(-m, m);
}

/* The rounding error o(v) - v for v in va (prec_analyse.c: round_error). */
HAZE__HD haze_ivd pbox_round_error(const pbox_ins *f, haze_ivd va) {
    if (!haze_ivd_is_finite(va)) return haze_ivd_entire();
    double M = pbox_mag(va);
    int q, e = 0;
    int plain = f->extra_ulps == 0 && f->extra_abs == INT_MIN;
    if (f->fixed) {
        if (f->fix != PBOX_FIX_UNKNOWN && f->fix >= f->lsb) return haze_ivd_make(0, 0);
        q = f->lsb;
    } else {
        if (f->has_emax) {
            double mx = ldexp(2.0 - ldexp(1.0, 1 - f->prec), f->emax);
            if (M > mx) return haze_ivd_entire();
        }
        if (M == 0) return haze_ivd_make(0, 0);
        frexp(M, &e); /* M < 2^e */
        if (plain) {
            int emin_exact = f->ftz ? -126 : f->emin;
            int grid = !f->has_emin || (f->fix != PBOX_FIX_UNKNOWN && f->fix >= emin_exact);
            int bits = f->flt <= f->prec ||
                       (f->fix != PBOX_FIX_UNKNOWN && (long)e <= (long)f->fix + f->prec);
            if (grid && bits) return haze_ivd_make(0, 0);
        }
        q = e - f->prec;
        if (f->has_emin && q < f->emin) q = f->emin;
    }
    double u = pbox_pow2(q);
    int pos = va.lo >= 0, neg = va.hi <= 0;
    haze_ivd d;
    switch (f->dir) {
    case DIR_NE:
    case DIR_NA: {
        double h = pbox_pow2(q - 1);
        if (!f->fixed) {
            int qlo = e - 1 - f->prec;
            if (f->has_emin && qlo < f->emin) qlo = f->emin;
            double b1 = pbox_pow2(qlo - 1);
            double b2 = M - ldexp(1.0, e - 1); /* exact (Sterbenz) */
            if (b2 > h) b2 = h;
            h = b1 > b2 ? b1 : b2;
        }
        d = pbox_sym(h);
        break;
    }
    case DIR_UP:
        d = haze_ivd_make(0, u);
        break;
    case DIR_DN:
        d = haze_ivd_make(-u, 0);
        break;
    case DIR_ZR:
        d = haze_ivd_make(neg ? 0 : -u, pos ? 0 : u);
        break;
    default:
        d = haze_ivd_make(pos ? 0 : -u, neg ? 0 : u);
        break;
    }
    if (!f->fixed && f->ftz) {
        double mig = haze_ivd_contains(va, 0) ? 0 : (va.lo > 0 ? va.lo : -va.hi);
        if (mig < 0x1p-126) d = haze_ivd_hull(d, pbox_sym(0x1p-126));
    }
    if (!f->fixed && !plain) {
        int qe = e + 1 - f->prec;
        if (f->has_emin && qe < f->emin) qe = f->emin;
        double x = haze_ru_mul((double)f->extra_ulps, pbox_pow2(qe));
        if (f->extra_abs != INT_MIN && x < pbox_pow2(f->extra_abs)) x = pbox_pow2(f->extra_abs);
        d = haze_ivd_add(d, pbox_sym(x));
    }
    return d;
}

HAZE__HD haze_ivd pbox_abs(haze_ivd a) {
    if (a.lo >= 0) return a;
    if (a.hi <= 0) return haze_ivd_neg(a);
    return haze_ivd_make(0, pbox_mag(a));
}

/*
 * Runs the program on one box (box[v] for input v). V and E receive every
 * node's value and error enclosures. Returns 0, or 1 + the index of a node
 * whose operation is undefined on the box (division by a range containing 0,
 * square root below 0).
 */
HAZE__HD int pbox_run(const pbox_ins *P, int n, const haze_ivd *box, haze_ivd *V, haze_ivd *E) {
    for (int i = 0; i < n; i++) {
        const pbox_ins *I = &P[i];
        haze_ivd A = I->a >= 0 ? V[I->a] : haze_ivd_make(0, 0);
        haze_ivd B = I->b >= 0 ? V[I->b] : haze_ivd_make(0, 0);
        haze_ivd d, v;
        switch (I->op) {
        case OP_CONST:
            v = haze_ivd_make(I->klo, I->khi);
            break;
        case OP_VAR:
            v = box[I->var];
            break;
        case OP_NEG:
            v = haze_ivd_neg(A);
            break;
        case OP_ADD:
            v = haze_ivd_add(A, B);
            break;
        case OP_SUB:
            v = haze_ivd_sub(A, B);
            break;
        case OP_MUL:
            v = I->a == I->b ? haze_ivd_sqr(A) : haze_ivd_mul(A, B);
            break;
        case OP_FMA:
            v = haze_ivd_add(haze_ivd_mul(A, B), V[I->c]);
            break;
        case OP_DIV:
            if (haze_ivd_contains(B, 0)) return i + 1;
            v = haze_ivd_div(A, B);
            break;
        case OP_ABS:
            v = pbox_abs(A);
            break;
        case OP_SQRT:
            if (A.lo < 0) return i + 1;
            v = haze_ivd_sqrt(A);
            break;
        case OP_RND:
            d = pbox_round_error(I, A);
            v = haze_ivd_add(A, d);
            break;
        default:
            return i + 1;
        }
        if (I->strip == i) { /* exact node */
            V[i] = v;
            E[i] = haze_ivd_make(0, 0);
            continue;
        }
        haze_ivd Ea = I->a >= 0 ? E[I->a] : haze_ivd_make(0, 0);
        haze_ivd Eb = I->b >= 0 ? E[I->b] : haze_ivd_make(0, 0);
        haze_ivd ia = I->a >= 0 ? V[P[I->a].strip] : haze_ivd_make(0, 0);
        haze_ivd ib = I->b >= 0 ? V[P[I->b].strip] : haze_ivd_make(0, 0);
        haze_ivd e;
        switch (I->op) {
        case OP_RND:
            e = haze_ivd_add(Ea, d);
            break;
        case OP_NEG:
            e = haze_ivd_neg(Ea);
            break;
        case OP_ADD:
            e = haze_ivd_add(Ea, Eb);
            break;
        case OP_SUB:
            e = haze_ivd_sub(Ea, Eb);
            break;
        case OP_MUL:
        case OP_FMA:
            e = haze_ivd_add(haze_ivd_add(haze_ivd_mul(ia, Eb), haze_ivd_mul(ib, Ea)),
                             haze_ivd_mul(Ea, Eb));
            if (I->op == OP_FMA) e = haze_ivd_add(e, E[I->c]);
            break;
        case OP_DIV:
            e = haze_ivd_div(haze_ivd_sub(Ea, haze_ivd_mul(V[I->strip], Eb)), B);
            break;
        case OP_ABS:
            e = pbox_sym(pbox_mag(Ea));
            break;
        default: { /* sqrt */
            haze_ivd den = haze_ivd_add(haze_ivd_sqrt(A), haze_ivd_sqrt(ia));
            e = haze_ivd_contains(den, 0) ? haze_ivd_sub(v, V[I->strip]) : haze_ivd_div(Ea, den);
            break;
        }
        }
        E[i] = e;
        V[i] = pbox_meet(v, haze_ivd_add(V[I->strip], e));
    }
    return 0;
}

/* Bounds of sub-range k of n of [lo, hi], rounded outward so the parts cover it. */
HAZE__HD haze_ivd pbox_sub_range(double lo, double hi, long k, long n) {
    if (n <= 1) return haze_ivd_make(lo, hi);
    double w = haze_ru_sub(hi, lo);
    double a = k == 0 ? lo : haze_rd_add(lo, haze_rd_div(haze_rd_mul(w, (double)k), (double)n));
    double b =
        k == n - 1 ? hi : haze_ru_add(lo, haze_ru_div(haze_ru_mul(w, (double)(k + 1)), (double)n));
    return haze_ivd_make(a, b);
}

#endif
