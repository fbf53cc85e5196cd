/*
 * src/prec/prec_pint.h - the analyser's own certified arithmetic: closed
 * intervals of MPFR numbers rounded outward (pint.c), and the rounding
 * formats with the exact rounding of one real to a format. The bottom layer
 * of the analyser: it knows nothing of scripts.
 */
#ifndef HAZE_PREC_PINT_H
#define HAZE_PREC_PINT_H

#include <limits.h>
#include <mpfr.h>

#include "prec/prec_op.h"

/* Bits of the analyser's own arithmetic: far below every error it bounds. */
#define PREC_BITS 160

/* ------------------------------------------------------------ intervals */

#define PREC_LIMBS ((PREC_BITS + GMP_NUMB_BITS - 1) / GMP_NUMB_BITS)

/* A closed interval [lo, hi] of MPFR numbers; every operation rounds outward.
 * The significands live inside the struct (MPFR's custom interface): the
 * analyser makes millions of coefficients and malloc would dominate. A pint
 * that was moved (realloc) must be repaired with haze__pi_fixup(). */
typedef struct pint {
    mpfr_t lo, hi;
    mp_limb_t llo[PREC_LIMBS], lhi[PREC_LIMBS];
} pint;

/* A temporary MPFR number on the stack, of PREC_BITS bits (no clear needed). */
#define PREC_TMP(name)                                                                             \
    mp_limb_t name##_limbs[PREC_LIMBS];                                                            \
    mpfr_t name;                                                                                   \
    mpfr_custom_init_set(name, MPFR_ZERO_KIND, 0, PREC_BITS, name##_limbs)

void haze__pi_init(pint *x);
void haze__pi_clear(pint *x);
void haze__pi_fixup(pint *x);
void haze__pi_set(pint *r, const pint *a);
void haze__pi_set_d(pint *r, double lo, double hi);
void haze__pi_set_zero(pint *r);
void haze__pi_set_entire(pint *r);
int haze__pi_is_point(const pint *a);
int haze__pi_is_bounded(const pint *a);
int haze__pi_has_zero(const pint *a);
void haze__pi_neg(pint *r, const pint *a);
void haze__pi_add(pint *r, const pint *a, const pint *b);
void haze__pi_sub(pint *r, const pint *a, const pint *b);
void haze__pi_mul(pint *r, const pint *a, const pint *b);
/* a * a: never negative (the dependency plain multiplication loses). */
void haze__pi_sqr(pint *r, const pint *a);
/* b must not contain 0 (callers check). */
void haze__pi_div(pint *r, const pint *a, const pint *b);
void haze__pi_sqrt(pint *r, const pint *a); /* a >= 0 */
void haze__pi_abs(pint *r, const pint *a);
void haze__pi_exp(pint *r, const pint *a);
void haze__pi_exp2(pint *r, const pint *a);
void haze__pi_expm1(pint *r, const pint *a);
void haze__pi_exp2m1(pint *r, const pint *a);
void haze__pi_log(pint *r, const pint *a);  /* a > 0 */
void haze__pi_log2(pint *r, const pint *a); /* a > 0 */
void haze__pi_log1p(pint *r, const pint *a);
void haze__pi_log2_1p(pint *r, const pint *a);
void haze__pi_hull(pint *r, const pint *a, const pint *b);
/* r = a intersected with b when they meet (else r = a: never empty). */
void haze__pi_meet(pint *r, const pint *a, const pint *b);
/* Upper bound of max |x|. */
void haze__pi_mag(mpfr_t m, const pint *a);
/* Lower bound of min |x|. */
void haze__pi_mig(mpfr_t m, const pint *a);
/* [-m, m] */
void haze__pi_sym(pint *r, const mpfr_t m);
/* r = a * 2^e (exact). */
void haze__pi_mul_2si(pint *r, const pint *a, long e);
/* Midpoint and radius such that a is inside mid + [-rad, rad] (mid an interval). */
void haze__pi_midrad(pint *mid, mpfr_t rad, const pint *a);

/* --------------------------------------------------------------- formats */

typedef struct pformat {
    int fixed;      /* 1: fixed point with lsb weight 2^lsb; 0: floating point */
    long lsb;       /* fixed */
    long prec;      /* float: significand bits */
    long emin;      /* float: exponent of the smallest subnormal (LONG_MIN: none) */
    long emax;      /* float: largest finite is (2 - 2^(1-prec)) * 2^emax (LONG_MAX: none) */
    int ftz;        /* float: subnormal results flushed to zero (cuda_32) */
    int dir;        /* DIR_* */
    int extra_ulps; /* fast intrinsics: result further off by this many ulps */
    long extra_abs; /* ... or by 2^extra_abs absolutely, whichever is larger (LONG_MIN: none) */
} pformat;

/* Rounds x to the format exactly (r may be x). Returns 0, or -1 on overflow (r = +-inf). */
int haze__prec_round_point(const pformat *f, mpfr_t r, const mpfr_t x);

#endif
