/*
 * src/prec/prec_affine.c - affine forms with interval coefficients for the AA
 * engine of prec_analyse.c (prec_affine.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "prec/prec_affine.h"

void haze__af_init(aform *a) {
    memset(a, 0, sizeof *a);
    haze__pi_init(&a->c0);
}

void haze__af_free(aform *a) {
    for (int i = 0; i < a->n; i++) haze__pi_clear(&a->c[i]);
    haze__mp_free(a->sym);
    haze__mp_free(a->c);
    haze__pi_clear(&a->c0);
    memset(a, 0, sizeof *a);
}

/* The affine-form helpers return 0, or 1 when out of memory (their callers
 * turn it into HAZE_ERR_NOMEM; a negative value would read as a haze status). */
static int af_reserve(aform *a, int n) {
    if (n <= a->cap) return 0;
    int cap = a->cap ? a->cap : 4;
    while (cap < n) cap *= 2;
    int *ns = haze__mp_realloc(a->sym, (size_t)cap * sizeof *ns);
    if (!ns) return 1;
    a->sym = ns;
    pint *nc = haze__mp_realloc(a->c, (size_t)cap * sizeof *nc);
    if (!nc) return 1;
    a->c = nc;
    for (int i = 0; i < a->n; i++) haze__pi_fixup(&a->c[i]);
    a->cap = cap;
    return 0;
}

/* Appends coefficient k on a symbol larger than all present. */
int haze__af_push(aform *a, int sym, const pint *k) {
    if (af_reserve(a, a->n + 1)) return 1;
    a->sym[a->n] = sym;
    haze__pi_init(&a->c[a->n]);
    haze__pi_set(&a->c[a->n], k);
    a->n++;
    return 0;
}

/* Adds a new noise symbol for the interval d: mid(d) to the centre, rad(d) on sym. */
int haze__af_add_interval(aform *a, const pint *d, int *next_sym) {
    if (haze__pi_is_point(d)) {
        haze__pi_add(&a->c0, &a->c0, d);
        return 0;
    }
    if (!haze__pi_is_bounded(d)) {
        haze__pi_set_entire(&a->c0);
        return 0;
    }
    pint mid, r;
    haze__pi_init(&mid);
    haze__pi_init(&r);
    haze__pi_midrad(&mid, r.hi, d);
    mpfr_set(r.lo, r.hi, MPFR_RNDD);
    haze__pi_add(&a->c0, &a->c0, &mid);
    int st = haze__af_push(a, (*next_sym)++, &r);
    haze__pi_clear(&mid);
    haze__pi_clear(&r);
    return st;
}

/* Sum of |c_i| (upper bound). */
static void af_rad(mpfr_t r, const aform *a) {
    PREC_TMP(m);
    mpfr_set_zero(r, 1);
    for (int i = 0; i < a->n; i++) {
        haze__pi_mag(m, &a->c[i]);
        mpfr_add(r, r, m, MPFR_RNDU);
    }
}

void haze__af_range(pint *out, const aform *a) {
    pint s;
    haze__pi_init(&s);
    af_rad(s.hi, a);
    mpfr_neg(s.lo, s.hi, MPFR_RNDD);
    haze__pi_add(out, &a->c0, &s);
    haze__pi_clear(&s);
}

/*
 * Terms an affine form keeps. Every rounding adds a noise symbol, so without
 * a bound the forms grow with the script: an unrolled loop of n iterations
 * made forms of n terms and took time n^2. Beyond AF_MAX_TERMS terms the
 * smallest are folded into one fresh symbol (de Figueiredo and Stolfi's
 * condensation, Sec. 3.12): sound, since the fresh symbol's coefficient is
 * the sum of their magnitudes and it is shared with no other form; only
 * correlations through the folded symbols, all among the smallest, are lost.
 * An operation then costs O(AF_MAX_TERMS), and the analysis time is bounded
 * by the number of operations (the parse limit max_ops) times that.
 */
#define AF_MAX_TERMS 256

static int cmp_desc(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

static int af_condense(aform *r, int *next_sym) {
    if (r->n <= AF_MAX_TERMS || !next_sym) return 0;
    const int keep = AF_MAX_TERMS / 2; /* then many operations before the next */
    double *mag = haze__mp_malloc((size_t)r->n * 2 * sizeof *mag);
    if (!mag) return 1;
    double *sorted = mag + r->n;
    for (int i = 0; i < r->n; i++) {
        PREC_TMP(m);
        haze__pi_mag(m, &r->c[i]);
        double d = mpfr_get_d(m, MPFR_RNDU);
        mag[i] = sorted[i] = isnan(d) ? HUGE_VAL : d;
    }
    qsort(sorted, (size_t)r->n, sizeof *sorted, cmp_desc);
    const double thr = sorted[keep - 1];
    PREC_TMP(folded);
    mpfr_set_zero(folded, 1);
    int w = 0;
    for (int i = 0; i < r->n; i++) {
        if (mag[i] > thr || (mag[i] == thr && w < keep)) {
            if (w != i) {
                r->sym[w] = r->sym[i];
                r->c[w] = r->c[i];
                haze__pi_fixup(&r->c[w]);
            }
            w++;
        } else {
            PREC_TMP(m);
            haze__pi_mag(m, &r->c[i]);
            mpfr_add(folded, folded, m, MPFR_RNDU);
            haze__pi_clear(&r->c[i]);
        }
    }
    haze__mp_free(mag);
    r->n = w;
    pint f;
    haze__pi_init(&f);
    mpfr_set(f.lo, folded, MPFR_RNDD);
    mpfr_set(f.hi, folded, MPFR_RNDU);
    int st = haze__af_push(r, (*next_sym)++, &f);
    haze__pi_clear(&f);
    return st;
}

/* r = kx*x + ky*y (kx, ky intervals; NULL means 1; y may be NULL). r is new. */
int haze__af_lin(aform *r, const aform *x, const pint *kx, const aform *y, const pint *ky,
                 int *next_sym) {
    PREC_TMP(junk); /* coefficient widths moved to a fresh symbol */
    pint t;
    haze__pi_init(&t);
    int i = 0, j = 0, st = 0;
    haze__pi_set_zero(&r->c0);
    if (x) {
        if (kx)
            haze__pi_mul(&r->c0, &x->c0, kx);
        else
            haze__pi_set(&r->c0, &x->c0);
    }
    if (y) {
        if (ky)
            haze__pi_mul(&t, &y->c0, ky);
        else
            haze__pi_set(&t, &y->c0);
        haze__pi_add(&r->c0, &r->c0, &t);
    }
    int nx = x ? x->n : 0, ny = y ? y->n : 0;
    /* room for every term and the junk symbol: terms are built in place */
    if (af_reserve(r, r->n + nx + ny + 1)) return 1;
    while (!st && (i < nx || j < ny)) {
        int sx = i < nx ? x->sym[i] : INT_MAX, sy = j < ny ? y->sym[j] : INT_MAX;
        pint *up = &r->c[r->n];
        haze__pi_init(up);
        int sym = sx < sy ? sx : sy;
        if (sx == sym) {
            if (kx)
                haze__pi_mul(up, &x->c[i], kx);
            else
                haze__pi_set(up, &x->c[i]);
            i++;
        }
        if (sy == sym) {
            if (ky)
                haze__pi_mul(&t, &y->c[j], ky);
            else
                haze__pi_set(&t, &y->c[j]);
            haze__pi_add(up, up, &t);
            j++;
        }
        /* a coefficient that rounding has made slightly wide: keep its
         * midpoint and move the width to a fresh symbol, shared by later
         * operations. Widths otherwise grow like interval bounds (in long
         * recurrences, exponentially); input-dependent wide coefficients
         * stay intervals, where this would change nothing. */
        if (next_sym && !haze__pi_is_point(up) && mpfr_regular_p(up->lo) &&
            mpfr_regular_p(up->hi) && mpfr_sgn(up->lo) == mpfr_sgn(up->hi)) {
            PREC_TMP(w);
            mpfr_sub(w, up->hi, up->lo, MPFR_RNDU);
            /* relative width between about 2^-80 and 2^-30, read off the exponents */
            long gap = mpfr_zero_p(w) ? LONG_MAX : (long)(mpfr_get_exp(up->lo) - mpfr_get_exp(w));
            if (gap > 30 && gap < PREC_BITS / 2) {
                mpfr_set(up->hi, up->lo, MPFR_RNDN);
                mpfr_add(junk, junk, w, MPFR_RNDU); /* |c - m| <= w for c in u */
            }
        }
        if (!(haze__pi_is_point(up) && mpfr_zero_p(up->lo))) r->sym[r->n++] = sym;
    }
    haze__pi_clear(&t);
    if (!st && !mpfr_zero_p(junk)) {
        pint jk;
        haze__pi_init(&jk);
        mpfr_set(jk.lo, junk, MPFR_RNDD);
        mpfr_set(jk.hi, junk, MPFR_RNDU);
        st = haze__af_push(r, (*next_sym)++, &jk);
    }
    if (!st) st = af_condense(r, next_sym);
    return st;
}

/* Standard affine product (de Figueiredo and Stolfi, Sec. 3.10): the
 * quadratic remainder, bounded by rad(x) rad(y), becomes a new symbol. */
int haze__af_mul(aform *r, const aform *x, const aform *y, int *next_sym) {
    int st = haze__af_lin(r, x, &y->c0, y, &x->c0, next_sym);
    if (st) return st;
    /* the centre product was counted twice: c0 = x0*y0 + y0*x0, take one off */
    pint p;
    haze__pi_init(&p);
    haze__pi_mul(&p, &x->c0, &y->c0);
    haze__pi_sub(&r->c0, &r->c0, &p);
    pint q;
    haze__pi_init(&q);
    af_rad(q.hi, x);
    af_rad(p.hi, y);
    mpfr_mul(q.hi, q.hi, p.hi, MPFR_RNDU);
    mpfr_neg(q.lo, q.hi, MPFR_RNDD);
    if (!mpfr_zero_p(q.hi)) st = haze__af_add_interval(r, &q, next_sym);
    haze__pi_clear(&p);
    haze__pi_clear(&q);
    return st;
}
