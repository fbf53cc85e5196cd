/*
 * src/prec/pint.c - intervals of MPFR numbers for the analyser's own
 * arithmetic (Moore, "Interval Analysis", 1966). Lower bounds are rounded
 * down and upper bounds up, so every result encloses the exact one; this is
 * what makes the analyser's bounds sound. Also: exact rounding of one real to
 * a fixed- or floating-point format, shared by the analyser and the point
 * evaluator that the soundness tests use.
 */
#include "prec/prec_pint.h"

void haze__pi_init(pint *x) {
    mpfr_custom_init_set(x->lo, MPFR_ZERO_KIND, 0, PREC_BITS, x->llo);
    mpfr_custom_init_set(x->hi, MPFR_ZERO_KIND, 0, PREC_BITS, x->lhi);
}

void haze__pi_clear(pint *x) {
    (void)x;
}

void haze__pi_fixup(pint *x) {
    mpfr_custom_move(x->lo, x->llo);
    mpfr_custom_move(x->hi, x->lhi);
}

void haze__pi_set(pint *r, const pint *a) {
    if (r == a) return;
    mpfr_set(r->lo, a->lo, MPFR_RNDD);
    mpfr_set(r->hi, a->hi, MPFR_RNDU);
}

void haze__pi_set_d(pint *r, double lo, double hi) {
    mpfr_set_d(r->lo, lo, MPFR_RNDD);
    mpfr_set_d(r->hi, hi, MPFR_RNDU);
}

void haze__pi_set_zero(pint *r) {
    mpfr_set_zero(r->lo, 1);
    mpfr_set_zero(r->hi, 1);
}

void haze__pi_set_entire(pint *r) {
    mpfr_set_inf(r->lo, -1);
    mpfr_set_inf(r->hi, 1);
}

int haze__pi_is_point(const pint *a) {
    return mpfr_equal_p(a->lo, a->hi);
}

int haze__pi_is_bounded(const pint *a) {
    return mpfr_number_p(a->lo) && mpfr_number_p(a->hi);
}

int haze__pi_has_zero(const pint *a) {
    return mpfr_sgn(a->lo) <= 0 && mpfr_sgn(a->hi) >= 0;
}

/* NaN can only come from inf - inf or 0 * inf: the honest answer is "anything". */
static void fix_nan(pint *r) {
    if (mpfr_nan_p(r->lo) || mpfr_nan_p(r->hi)) haze__pi_set_entire(r);
}

void haze__pi_neg(pint *r, const pint *a) {
    PREC_TMP(t);
    mpfr_neg(t, a->lo, MPFR_RNDU);
    mpfr_neg(r->lo, a->hi, MPFR_RNDD);
    mpfr_set(r->hi, t, MPFR_RNDU);
}

void haze__pi_add(pint *r, const pint *a, const pint *b) {
    mpfr_add(r->lo, a->lo, b->lo, MPFR_RNDD);
    mpfr_add(r->hi, a->hi, b->hi, MPFR_RNDU);
    fix_nan(r);
}

void haze__pi_sub(pint *r, const pint *a, const pint *b) {
    PREC_TMP(t);
    mpfr_sub(t, a->hi, b->lo, MPFR_RNDU);
    mpfr_sub(r->lo, a->lo, b->hi, MPFR_RNDD);
    mpfr_set(r->hi, t, MPFR_RNDU);
    fix_nan(r);
}

/* The general case: all four products. */
static void mul_general(pint *r, const pint *a, const pint *b) {
    PREC_TMP(lo);
    PREC_TMP(hi);
    PREC_TMP(t);
    mpfr_set_inf(lo, 1);
    mpfr_set_inf(hi, -1);
    mpfr_srcptr xa[2] = {a->lo, a->hi}, xb[2] = {b->lo, b->hi};
    int nan = 0;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            /* 0 * inf is 0 here: the bound is attained only in the limit. */
            if (mpfr_zero_p(xa[i]) || mpfr_zero_p(xb[j])) {
                mpfr_set_zero(t, 1);
                mpfr_min(lo, lo, t, MPFR_RNDD);
                mpfr_max(hi, hi, t, MPFR_RNDU);
                continue;
            }
            mpfr_mul(t, xa[i], xb[j], MPFR_RNDD);
            if (mpfr_nan_p(t)) nan = 1;
            mpfr_min(lo, lo, t, MPFR_RNDD);
            mpfr_mul(t, xa[i], xb[j], MPFR_RNDU);
            mpfr_max(hi, hi, t, MPFR_RNDU);
        }
    mpfr_set(r->lo, lo, MPFR_RNDD);
    mpfr_set(r->hi, hi, MPFR_RNDU);
    if (nan) haze__pi_set_entire(r);
}

void haze__pi_mul(pint *r, const pint *a, const pint *b) {
    /* the common case in affine forms: finite operands of one sign each,
     * two products instead of eight */
    if (r != a && r != b && mpfr_regular_p(a->lo) && mpfr_regular_p(a->hi) &&
        mpfr_regular_p(b->lo) && mpfr_regular_p(b->hi)) {
        int sa = mpfr_sgn(a->lo) > 0 ? 1 : mpfr_sgn(a->hi) < 0 ? -1 : 0;
        int sb = mpfr_sgn(b->lo) > 0 ? 1 : mpfr_sgn(b->hi) < 0 ? -1 : 0;
        if (sa && sb) {
            mpfr_srcptr l1, l2, h1, h2;
            if (sa > 0 && sb > 0)
                l1 = a->lo, l2 = b->lo, h1 = a->hi, h2 = b->hi;
            else if (sa > 0)
                l1 = a->hi, l2 = b->lo, h1 = a->lo, h2 = b->hi;
            else if (sb > 0)
                l1 = a->lo, l2 = b->hi, h1 = a->hi, h2 = b->lo;
            else
                l1 = a->hi, l2 = b->hi, h1 = a->lo, h2 = b->lo;
            mpfr_mul(r->lo, l1, l2, MPFR_RNDD);
            mpfr_mul(r->hi, h1, h2, MPFR_RNDU);
            return;
        }
    }
    mul_general(r, a, b);
}

void haze__pi_sqr(pint *r, const pint *a) {
    PREC_TMP(m);
    haze__pi_mag(m, a);
    haze__pi_mig(r->lo, a);
    mpfr_sqr(r->lo, r->lo, MPFR_RNDD);
    mpfr_sqr(r->hi, m, MPFR_RNDU);
}

void haze__pi_div(pint *r, const pint *a, const pint *b) {
    if (haze__pi_has_zero(b)) {
        haze__pi_set_entire(r);
        return;
    }
    pint inv;
    haze__pi_init(&inv);
    mpfr_ui_div(inv.lo, 1, b->hi, MPFR_RNDD);
    mpfr_ui_div(inv.hi, 1, b->lo, MPFR_RNDU);
    haze__pi_mul(r, a, &inv);
    haze__pi_clear(&inv);
}

void haze__pi_sqrt(pint *r, const pint *a) {
    if (mpfr_sgn(a->lo) < 0)
        mpfr_set_zero(r->lo, 1);
    else
        mpfr_sqrt(r->lo, a->lo, MPFR_RNDD);
    mpfr_sqrt(r->hi, a->hi, MPFR_RNDU);
    fix_nan(r);
}

void haze__pi_abs(pint *r, const pint *a) {
    PREC_TMP(m);
    haze__pi_mag(m, a);
    haze__pi_mig(r->lo, a);
    mpfr_set(r->hi, m, MPFR_RNDU);
}

typedef int (*mfun)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t);

/* Monotone increasing functions: apply at both ends. */
static void mono(pint *r, const pint *a, mfun f) {
    f(r->lo, a->lo, MPFR_RNDD);
    f(r->hi, a->hi, MPFR_RNDU);
    fix_nan(r);
}

void haze__pi_exp(pint *r, const pint *a) {
    mono(r, a, mpfr_exp);
}
void haze__pi_exp2(pint *r, const pint *a) {
    mono(r, a, mpfr_exp2);
}
void haze__pi_expm1(pint *r, const pint *a) {
    mono(r, a, mpfr_expm1);
}
void haze__pi_log(pint *r, const pint *a) {
    mono(r, a, mpfr_log);
}
void haze__pi_log2(pint *r, const pint *a) {
    mono(r, a, mpfr_log2);
}
void haze__pi_log1p(pint *r, const pint *a) {
    mono(r, a, mpfr_log1p);
}

/* 2^x - 1 = expm1(x ln 2); MPFR has no exp2m1 before 4.2, so enclose x ln 2. */
void haze__pi_exp2m1(pint *r, const pint *a) {
    pint ln2;
    haze__pi_init(&ln2);
    mpfr_const_log2(ln2.lo, MPFR_RNDD);
    mpfr_const_log2(ln2.hi, MPFR_RNDU);
    haze__pi_mul(r, a, &ln2);
    haze__pi_expm1(r, r);
    haze__pi_clear(&ln2);
}

/* log2(1 + x) = log1p(x) / ln 2. */
void haze__pi_log2_1p(pint *r, const pint *a) {
    pint ln2;
    haze__pi_init(&ln2);
    mpfr_const_log2(ln2.lo, MPFR_RNDD);
    mpfr_const_log2(ln2.hi, MPFR_RNDU);
    haze__pi_log1p(r, a);
    haze__pi_div(r, r, &ln2);
    haze__pi_clear(&ln2);
}

void haze__pi_hull(pint *r, const pint *a, const pint *b) {
    mpfr_min(r->lo, a->lo, b->lo, MPFR_RNDD);
    mpfr_max(r->hi, a->hi, b->hi, MPFR_RNDU);
}

void haze__pi_meet(pint *r, const pint *a, const pint *b) {
    if (mpfr_cmp(a->hi, b->lo) < 0 || mpfr_cmp(b->hi, a->lo) < 0) {
        haze__pi_set(r, a);
        return;
    }
    PREC_TMP(lo);
    mpfr_max(lo, a->lo, b->lo, MPFR_RNDD);
    mpfr_min(r->hi, a->hi, b->hi, MPFR_RNDU);
    mpfr_set(r->lo, lo, MPFR_RNDD);
}

void haze__pi_mag(mpfr_t m, const pint *a) {
    PREC_TMP(t);
    mpfr_abs(t, a->lo, MPFR_RNDU);
    mpfr_abs(m, a->hi, MPFR_RNDU);
    mpfr_max(m, m, t, MPFR_RNDU);
}

void haze__pi_mig(mpfr_t m, const pint *a) {
    if (haze__pi_has_zero(a))
        mpfr_set_zero(m, 1);
    else if (mpfr_sgn(a->lo) > 0)
        mpfr_set(m, a->lo, MPFR_RNDD);
    else
        mpfr_neg(m, a->hi, MPFR_RNDD);
}

void haze__pi_sym(pint *r, const mpfr_t m) {
    mpfr_neg(r->lo, m, MPFR_RNDD);
    mpfr_set(r->hi, m, MPFR_RNDU);
}

void haze__pi_mul_2si(pint *r, const pint *a, long e) {
    mpfr_mul_2si(r->lo, a->lo, e, MPFR_RNDD);
    mpfr_mul_2si(r->hi, a->hi, e, MPFR_RNDU);
}

void haze__pi_midrad(pint *mid, mpfr_t rad, const pint *a) {
    /* mid: the midpoint enclosed; rad: upper bound of the half width */
    pint t;
    haze__pi_init(&t);
    haze__pi_set(&t, a);
    mpfr_add(mid->lo, t.lo, t.hi, MPFR_RNDD);
    mpfr_add(mid->hi, t.lo, t.hi, MPFR_RNDU);
    mpfr_div_2ui(mid->lo, mid->lo, 1, MPFR_RNDD);
    mpfr_div_2ui(mid->hi, mid->hi, 1, MPFR_RNDU);
    mpfr_sub(rad, t.hi, t.lo, MPFR_RNDU);
    mpfr_div_2ui(rad, rad, 1, MPFR_RNDU);
    haze__pi_clear(&t);
}

/* ------------------------------------------------------ exact rounding */

int haze__prec_round_point(const pformat *f, mpfr_t r, const mpfr_t x) {
    if (mpfr_zero_p(x) || !mpfr_number_p(x)) {
        mpfr_set(r, x, MPFR_RNDN);
        return 0;
    }
    long q; /* weight of the last bit at x's magnitude */
    if (f->fixed) {
        q = f->lsb;
    } else {
        long e = mpfr_get_exp(x); /* x = m 2^e, 1/2 <= |m| < 1 */
        q = e - f->prec;
        if (f->emin != LONG_MIN && q < f->emin) q = f->emin;
    }
    mpfr_t t;
    mpfr_init2(t, mpfr_get_prec(x) + 64);
    mpfr_mul_2si(t, x, -q, MPFR_RNDN); /* exact: a power of two */
    switch (f->dir) {
    case DIR_NE:
        mpfr_rint(t, t, MPFR_RNDN);
        break;
    case DIR_NA:
        mpfr_round(t, t);
        break;
    case DIR_ZR:
        mpfr_rint(t, t, MPFR_RNDZ);
        break;
    case DIR_AW:
        mpfr_rint(t, t, MPFR_RNDA);
        break;
    case DIR_UP:
        mpfr_rint(t, t, MPFR_RNDU);
        break;
    default:
        mpfr_rint(t, t, MPFR_RNDD);
        break;
    }
    mpfr_mul_2si(t, t, q, MPFR_RNDN);
    int ovf = 0;
    if (!f->fixed && f->ftz && !mpfr_zero_p(t) && mpfr_get_exp(t) - 1 < -126) {
        mpfr_set_zero(t, mpfr_sgn(t));
    }
    if (!f->fixed && f->emax != LONG_MAX && !mpfr_zero_p(t) && mpfr_get_exp(t) - 1 > f->emax) {
        mpfr_set_inf(t, mpfr_sgn(t));
        ovf = -1;
    }
    mpfr_set(r, t, MPFR_RNDN);
    mpfr_clear(t);
    return ovf;
}
