/*
 * src/prec/prec_report.c - the result of an analysis: each goal's enclosure
 * rounded outward to doubles, printed in decimal (10 significant digits,
 * rounded outward) and exactly in Gappa's dyadic notation, and whether it
 * proves the bounds the script states.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prec/prec_report.h"

void haze__prec_result_free(haze_prec_result *r) {
    if (!r) return;
    haze__prec_boxrec_free(r->rec);
    for (size_t i = 0; i < r->n_goals; i++) {
        haze__mp_free(r->goals[i].lo_exact);
        haze__mp_free(r->goals[i].hi_exact);
        haze__mp_free(r->goals[i].lo_decimal);
        haze__mp_free(r->goals[i].hi_decimal);
    }
    haze__mp_free(r->goals);
    haze__mp_free(r);
}

static char *copy(const char *s) {
    size_t n = strlen(s) + 1;
    char *r = haze__mp_malloc(n);
    if (r) memcpy(r, s, n);
    return r;
}

/* "m b e" with m odd, Gappa's dyadic notation ("-9b-5" is -9 * 2^-5). */
static char *dyadic(const mpfr_t x) {
    if (mpfr_inf_p(x)) return copy(mpfr_sgn(x) > 0 ? "inf" : "-inf");
    if (mpfr_zero_p(x)) return copy("0"); /* (a bound of -0 reads as 0) */
    if (mpfr_zero_p(x)) return copy("0");
    mpz_t m;
    mpz_init(m);
    long e = mpfr_get_z_2exp(m, x);
    unsigned long tz = mpz_scan1(m, 0);
    mpz_fdiv_q_2exp(m, m, tz);
    e += (long)tz;
    size_t n = mpz_sizeinbase(m, 10) + 32;
    char *r = haze__mp_malloc(n);
    if (r) {
        mpz_get_str(r, 10, m);
        if (e) snprintf(r + strlen(r), n - strlen(r), "b%ld", e);
    }
    mpz_clear(m);
    return r;
}

static char *decimal(const mpfr_t x, mpfr_rnd_t rnd) {
    char *buf = NULL;
    if (mpfr_inf_p(x)) return copy(mpfr_sgn(x) > 0 ? "inf" : "-inf");
    if (mpfr_zero_p(x)) return copy("0"); /* (a bound of -0 reads as 0) */
    locale_t lc = haze__numeric_begin();  /* MPFR writes localeconv()'s point */
    int n = mpfr_asprintf(&buf, rnd == MPFR_RNDD ? "%.10RDg" : "%.10RUg", x);
    haze__numeric_end(lc);
    if (n < 0) return NULL;
    char *r = copy(buf);
    mpfr_free_str(buf);
    return r;
}

int haze__prec_report(haze_ctx *ctx, const haze_prec_script *s, const pint *acc, long boxes,
                      prec_boxrec *rec, haze_prec_result **out) {
    int ng = s->n_goals;
    *out = NULL;
    haze_prec_result *r = haze__mp_calloc(1, sizeof *r);
    if (r) r->goals = haze__mp_calloc((size_t)ng, sizeof *r->goals);
    if (r)
        r->rec = rec;
    else
        haze__prec_boxrec_free(rec);
    if (!r || !r->goals) {
        haze__prec_result_free(r);
        return haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
    }
    int rc = 0;
    r->n_goals = (size_t)ng;
    r->boxes = (size_t)boxes;
    r->all_proved = 1;
    for (int g = 0; g < ng; g++) {
        const pgoal *pg = &s->goals[g];
        haze_prec_goal *o = &r->goals[g];
        o->size = sizeof *o;
        o->text = pg->text;
        o->relative = pg->kind == GOAL_REL || pg->kind == GOAL_ABSREL;
        o->absolute = pg->kind == GOAL_ABS || pg->kind == GOAL_ABSREL;
        o->lo = mpfr_get_d(acc[g].lo, MPFR_RNDD);
        o->hi = mpfr_get_d(acc[g].hi, MPFR_RNDU);
        o->lo_exact = dyadic(acc[g].lo);
        o->hi_exact = dyadic(acc[g].hi);
        o->lo_decimal = decimal(acc[g].lo, MPFR_RNDD);
        o->hi_decimal = decimal(acc[g].hi, MPFR_RNDU);
        o->has_bound = pg->has_lo || pg->has_hi;
        o->want_lo = pg->has_lo ? mpfr_get_d(pg->want.lo, MPFR_RNDU) : -HUGE_VAL;
        o->want_hi = pg->has_hi ? mpfr_get_d(pg->want.hi, MPFR_RNDD) : HUGE_VAL;
        if (o->has_bound) {
            o->proved = (!pg->has_lo || mpfr_cmp(acc[g].lo, pg->want.lo) >= 0) &&
                        (!pg->has_hi || mpfr_cmp(acc[g].hi, pg->want.hi) <= 0);
            if (!o->proved) r->all_proved = 0;
        }
        /* each box within the goal's enclosure: as the boxes' hull contains
         * it, their join is then the enclosure exactly (max and min commute
         * with the join) */
        for (size_t b = 0; rec && b < rec->n_box; b++) {
            double *L = &rec->lo[b * (size_t)ng + (size_t)g],
                   *H = &rec->hi[b * (size_t)ng + (size_t)g];
            if (*L <= o->lo) *L = o->lo; /* equal: the goal's bits (the sign of a 0) */
            if (*H >= o->hi) *H = o->hi;
        }
        if (!o->lo_exact || !o->hi_exact || !o->lo_decimal || !o->hi_decimal)
            rc = haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
    }
    if (rc) {
        haze__prec_result_free(r);
        return rc;
    }
    *out = r;
    return HAZE_OK;
}
