/*
 * src/fuzzy/fuzzy_decimal.c - numbers written in decimal (or as C99 hex
 * floats) read exactly, as M * 10^e or M * 2^e with an integer M (GMP), and
 * enclosed by their outward double roundings (MPFR's correctly rounded
 * conversions, RD then RU); membership functions given as text
 * ("tri(0.2, 0.3, 0.4)"), whose parameters are compared exactly and enclosed
 * for haze_fuzzy_set_*_iv. A decimal parameter is not a double: rounding it
 * to nearest and cutting the function of that double can miss the true cut
 * (the kernel of tri(0.2, 0.3, 0.4) would be RN(0.3) only, which is not
 * 0.3); enclosing each parameter and cutting outward cannot.
 */
#include <ctype.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <mpfr.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "fuzzy/fuzzy_internal.h"

/* Largest decimal (or binary) exponent read: 10^100000 is a 332 kbit integer. */
#define MAX_EXP 100000L

/* x = m * base^e exactly. */
typedef struct exact_num {
    mpz_t m;
    long e;
    int base; /* 10 or 2 */
} exact_num;

static int hexval(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    c = tolower(c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/*
 * Reads [+-] digits [. digits] [(e|E) [+-] digits] or the hex form
 * 0x hexdigits [. hexdigits] [(p|P) [+-] digits]; an exponent marker not
 * followed by digits ends the number before it (as strtod does).
 * Returns HAZE_OK, HAZE_ERR_PARSE or HAZE_ERR_RANGE; *end as documented.
 */
static int read_exact(const char *s, const char **end, exact_num *x) {
    const char *p = s;
    while (isspace((unsigned char)*p)) p++;
    int neg = 0;
    if (*p == '+' || *p == '-') neg = *p++ == '-';
    int hex =
        p[0] == '0' && (p[1] == 'x' || p[1] == 'X') &&
        (hexval((unsigned char)p[2]) >= 0 || (p[2] == '.' && hexval((unsigned char)p[3]) >= 0));
    int base = hex ? 16 : 10;
    if (hex) p += 2;
    const char *digits = p;
    long ndig = 0, nfrac = 0;
    int seen_point = 0;
    for (;; p++) {
        if (*p == '.' && !seen_point) {
            seen_point = 1;
            continue;
        }
        int v = hex ? hexval((unsigned char)*p) : (isdigit((unsigned char)*p) ? *p - '0' : -1);
        if (v < 0) break;
        ndig++;
        if (seen_point) nfrac++;
    }
    if (ndig == 0) {
        if (end) *end = s;
        return HAZE_ERR_PARSE;
    }
    const char *mant_end = p;
    long ex = 0;
    int ex_big = 0;
    char mark = hex ? 'p' : 'e';
    if (tolower((unsigned char)*p) == mark) {
        const char *q = p + 1;
        int eneg = 0;
        if (*q == '+' || *q == '-') eneg = *q++ == '-';
        if (isdigit((unsigned char)*q)) {
            for (; isdigit((unsigned char)*q); q++) {
                if (ex > 10 * MAX_EXP)
                    ex_big = 1;
                else
                    ex = 10 * ex + (*q - '0');
            }
            if (eneg) ex = -ex;
            p = q;
        }
    }
    if (end) *end = p;
    /* the digits as one integer, without the point */
    size_t len = (size_t)(mant_end - digits);
    char *buf = malloc(len + 2);
    if (!buf) return HAZE_ERR_NOMEM;
    size_t k = 0;
    if (neg) buf[k++] = '-';
    for (const char *q = digits; q < mant_end; q++)
        if (*q != '.') buf[k++] = *q;
    buf[k] = 0;
    mpz_set_str(x->m, buf, base);
    free(buf);
    if (mpz_sgn(x->m) == 0) { /* zero, whatever the exponent */
        x->e = 0;
        x->base = 10;
        return HAZE_OK;
    }
    if (hex) { /* 16^-nfrac = 2^-4 nfrac */
        x->base = 2;
        x->e = ex - 4 * nfrac;
    } else {
        x->base = 10;
        x->e = ex - nfrac;
    }
    if (ex_big || x->e > MAX_EXP || x->e < -MAX_EXP || nfrac > MAX_EXP) return HAZE_ERR_RANGE;
    return HAZE_OK;
}

/* num / den = x exactly (den > 0). */
static void to_fraction(const exact_num *x, mpz_t num, mpz_t den) {
    unsigned long k = (unsigned long)labs(x->e);
    mpz_set(num, x->m);
    mpz_set_ui(den, 1);
    if (x->base == 2) {
        mpz_mul_2exp(x->e > 0 ? num : den, x->e > 0 ? num : den, k);
    } else if (k) {
        mpz_t p;
        mpz_init(p);
        mpz_ui_pow_ui(p, 10, k);
        if (x->e > 0)
            mpz_mul(num, num, p);
        else
            mpz_set(den, p);
        mpz_clear(p);
    }
}

/*
 * |x| lies in [base^lo, base^hi) with lo = digits - 2 + e, hi = digits + e
 * (mpz_sizeinbase may count one digit too many in base 10; it is exact in
 * base 2), x != 0.
 */
static void magnitude(const exact_num *x, long *lo, long *hi) {
    long d = (long)mpz_sizeinbase(x->m, x->base);
    *lo = d - 2 + x->e;
    *hi = d + x->e;
}

/* -1, 0, 1 as a < b, a == b, a > b, exactly. */
static int cmp_exact(const exact_num *a, const exact_num *b) {
    int sa = mpz_sgn(a->m), sb = mpz_sgn(b->m);
    if (sa != sb || sa == 0) return (sa > sb) - (sa < sb);
    if (a->base == b->base) {
        long al, ah, bl, bh;
        magnitude(a, &al, &ah);
        magnitude(b, &bl, &bh);
        if (ah <= bl) return -sa; /* |a| < |b| */
        if (bh <= al) return sa;
        /* overlapping magnitudes: the exponents differ by little; align them */
        mpz_t x, y;
        mpz_inits(x, y, NULL);
        const exact_num *big = a->e >= b->e ? a : b, *small = big == a ? b : a;
        unsigned long k = (unsigned long)(big->e - small->e);
        if (big->base == 2)
            mpz_mul_2exp(x, big->m, k);
        else {
            mpz_ui_pow_ui(x, 10, k);
            mpz_mul(x, x, big->m);
        }
        int c = mpz_cmp(x, small->m);
        mpz_clears(x, y, NULL);
        c = (c > 0) - (c < 0);
        return big == a ? c : -c;
    }
    mpz_t an, ad, bn, bd;
    mpz_inits(an, ad, bn, bd, NULL);
    to_fraction(a, an, ad);
    to_fraction(b, bn, bd);
    mpz_mul(an, an, bd);
    mpz_mul(bn, bn, ad);
    int c = mpz_cmp(an, bn);
    mpz_clears(an, ad, bn, bd, NULL);
    return (c > 0) - (c < 0);
}

/* [RD(x), RU(x)] in double; HAZE_ERR_RANGE if either end is infinite. */
static int enclose(const exact_num *x, double *lo, double *hi) {
    int sg = mpz_sgn(x->m);
    if (sg == 0) {
        *lo = *hi = 0;
        return HAZE_OK;
    }
    /* far outside the doubles: no big powers needed (10^-330 < 2^-1075 < 10^-323) */
    long ml, mh;
    magnitude(x, &ml, &mh);
    if (x->base == 10 ? ml >= 309 : ml >= 1024) {
        *lo = sg > 0 ? DBL_MAX : -INFINITY;
        *hi = sg > 0 ? INFINITY : -DBL_MAX;
        return HAZE_ERR_RANGE;
    }
    if (x->base == 10 ? mh <= -330 : mh <= -1075) {
        *lo = sg > 0 ? 0 : -0x1p-1074;
        *hi = sg > 0 ? 0x1p-1074 : 0;
        return HAZE_OK;
    }
    mpz_t num, den;
    mpz_inits(num, den, NULL);
    to_fraction(x, num, den);
    size_t bits = mpz_sizeinbase(num, 2);
    mpfr_t n, q;
    mpfr_init2(n, (mpfr_prec_t)(bits < 64 ? 64 : bits)); /* holds num exactly */
    mpfr_init2(q, 64);
    mpfr_set_z(n, num, MPFR_RNDN);
    /* rounding to 64 bits, then to a double, both in one direction, is that rounding of x:
     * the doubles (subnormals included) are a subset of the 64-bit numbers */
    mpfr_div_z(q, n, den, MPFR_RNDD);
    *lo = mpfr_get_d(q, MPFR_RNDD);
    mpfr_div_z(q, n, den, MPFR_RNDU);
    *hi = mpfr_get_d(q, MPFR_RNDU);
    mpfr_clears(n, q, (mpfr_ptr)0);
    mpz_clears(num, den, NULL);
    if (*lo == 0) *lo = 0; /* no -0 */
    if (*hi == 0) *hi = 0;
    return isfinite(*lo) && isfinite(*hi) ? HAZE_OK : HAZE_ERR_RANGE;
}

static int parse_number_unguarded(const char *s, const char **end, double *lo, double *hi);

typedef struct parse_job {
    const char *s;
    const char **end;
    double *lo, *hi;
} parse_job;

static int parse_job_run(void *arg) {
    parse_job *j = arg;
    return parse_number_unguarded(j->s, j->end, j->lo, j->hi);
}

/* GMP's allocations fail as HAZE_ERR_NOMEM, not an abort (src/core/mp_guard.c) */
int haze_fuzzy_parse_number(haze_ctx *ctx, const char *s, const char **end, double *lo,
                            double *hi) {
    if (!s || !lo || !hi) return haze__error(ctx, HAZE_ERR_INVALID, "fuzzy: NULL argument");
    parse_job j = {s, end, lo, hi};
    int st = haze__mp_run(NULL, parse_job_run, &j);
    if (st == HAZE_ERR_PARSE) return haze__error(ctx, st, "not a number: '%.40s'", s);
    if (st == HAZE_ERR_RANGE) return haze__error(ctx, st, "'%.40s': beyond the range of double", s);
    if (st) return haze__error(ctx, st, "'%.40s': %s", s, haze_status_message(st));
    return HAZE_OK;
}

static int parse_number_unguarded(const char *s, const char **end, double *lo, double *hi) {
    exact_num x;
    mpz_init(x.m);
    int st = read_exact(s, end, &x);
    if (!st) st = enclose(&x, lo, hi);
    mpz_clear(x.m);
    return st;
}

static int set_membership_unguarded(haze_ctx *ctx, haze_fuzzy_array *a, size_t i, const char *spec,
                                    const char **end);

typedef struct membership_job {
    haze_ctx *ctx;
    haze_fuzzy_array *a;
    size_t i;
    const char *spec;
    const char **end;
} membership_job;

static int membership_job_run(void *arg) {
    membership_job *j = arg;
    return set_membership_unguarded(j->ctx, j->a, j->i, j->spec, j->end);
}

int haze_fuzzy_set_membership(haze_ctx *ctx, haze_fuzzy_array *a, size_t i, const char *spec,
                              const char **end) {
    membership_job j = {ctx, a, i, spec, end};
    return haze__mp_run(ctx, membership_job_run, &j);
}

static int set_membership_unguarded(haze_ctx *ctx, haze_fuzzy_array *a, size_t i, const char *spec,
                                    const char **end) {
    static const struct {
        const char *name;
        int nargs;
    } fns[] = {{"tri", 3}, {"trap", 4}, {"gauss", 3}};
    if (!a || !spec) return haze__error(ctx, HAZE_ERR_INVALID, "fuzzy: NULL argument");
    const char *p = spec, *dummy;
    if (!end) end = &dummy;
    *end = spec;
    while (isspace((unsigned char)*p)) p++;
    size_t len = 0;
    while (isalnum((unsigned char)p[len]) || p[len] == '_') len++;
    int f = -1;
    for (int k = 0; k < 3; k++)
        if (strlen(fns[k].name) == len && strncmp(p, fns[k].name, len) == 0) f = k;
    if (f < 0) {
        *end = p;
        return haze__error(ctx, HAZE_ERR_PARSE,
                           "fuzzy: expected a membership function: tri, trap or gauss");
    }
    const char *name = fns[f].name;
    p += len;
    while (isspace((unsigned char)*p)) p++;
    if (*p != '(') {
        *end = p;
        return haze__error(ctx, HAZE_ERR_PARSE, "fuzzy: %s: expected '('", name);
    }
    p++;
    exact_num x[4];
    haze_ivd v[4];
    int n = fns[f].nargs, got = 0, st = HAZE_OK;
    for (int k = 0; k < 4; k++) mpz_init(x[k].m);
    for (; got < n; got++) {
        while (isspace((unsigned char)*p)) p++;
        if (got) {
            if (*p != ',') {
                *end = p;
                st = haze__error(ctx, HAZE_ERR_PARSE, "fuzzy: %s: expected ',' (%d parameters)",
                                 name, n);
                goto done;
            }
            p++;
        }
        const char *q;
        st = read_exact(p, &q, &x[got]);
        if (!st) st = enclose(&x[got], &v[got].lo, &v[got].hi);
        if (st) {
            while (isspace((unsigned char)*p)) p++;
            *end = p;
            if (st == HAZE_ERR_PARSE)
                haze__error(ctx, st, "fuzzy: %s: expected a number", name);
            else if (st == HAZE_ERR_RANGE)
                haze__error(ctx, st,
                            "fuzzy: %s: parameter %d is out of range (beyond the doubles, or an "
                            "exponent beyond 100000)",
                            name, got + 1);
            else
                haze__error(ctx, st, "fuzzy: out of memory");
            goto done;
        }
        p = q;
    }
    while (isspace((unsigned char)*p)) p++;
    if (*p != ')') {
        *end = p;
        st = haze__error(ctx, HAZE_ERR_PARSE, "fuzzy: %s: expected ')' (%d parameters)", name, n);
        goto done;
    }
    p++;
    *end = p;
    if (end == &dummy) {
        while (isspace((unsigned char)*p)) p++;
        if (*p) {
            *end = p;
            st = haze__error(ctx, HAZE_ERR_PARSE, "fuzzy: %s: unexpected text after ')'", name);
            goto done;
        }
    }
    /* the exact parameters' order and signs, which their roundings may not show */
    if (f == 2) {
        if (mpz_sgn(x[1].m) <= 0 || mpz_sgn(x[2].m) <= 0) {
            st = haze__error(ctx, HAZE_ERR_INVALID,
                             "fuzzy: gauss needs sigma > 0 and a truncation k > 0");
            goto done;
        }
        st = haze_fuzzy_set_gauss_iv(ctx, a, i, v[0], v[1], v[2]);
    } else {
        for (int k = 1; k < n; k++)
            if (cmp_exact(&x[k - 1], &x[k]) > 0) {
                st = haze__error(ctx, HAZE_ERR_INVALID,
                                 "fuzzy: %s: parameters must be ordered (parameter %d > "
                                 "parameter %d)",
                                 name, k, k + 1);
                goto done;
            }
        st = f == 0 ? haze_fuzzy_set_tri_iv(ctx, a, i, v[0], v[1], v[2])
                    : haze_fuzzy_set_trap_iv(ctx, a, i, v[0], v[1], v[2], v[3]);
    }
done:
    for (int k = 0; k < 4; k++) mpz_clear(x[k].m);
    return st;
}
