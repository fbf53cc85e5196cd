/*
 * src/io/number.c - a number in text as the tightest interval of doubles
 * around it: MPFR reads it at 256 bits (every double exactly) and rounds
 * each way, so "0.1" gives the two doubles around one tenth and a number
 * that is a double gives a point.
 */
#include <ctype.h>
#include <math.h>
#include <mpfr.h>

#include "core/internal.h"
#include "haze/io.h"

typedef struct enclose_job {
    const char *s;
    const char *end;
    double lo, hi;
    int ok;
} enclose_job;

static int enclose_run(void *arg) {
    enclose_job *j = arg;
    const char *s = j->s;
    if (!(*s == '+' || *s == '-' || isdigit((unsigned char)*s) || *s == '.')) return HAZE_OK;
    mpfr_t x;
    mpfr_init2(x, 256);
    char *end;
    mpfr_strtofr(x, s, &end, 0, MPFR_RNDN);
    if (end != s && mpfr_number_p(x)) {
        mpfr_strtofr(x, s, &end, 0, MPFR_RNDD);
        j->lo = mpfr_get_d(x, MPFR_RNDD);
        mpfr_strtofr(x, s, &end, 0, MPFR_RNDU);
        j->hi = mpfr_get_d(x, MPFR_RNDU);
        j->ok = isfinite(j->lo) && isfinite(j->hi);
        j->end = end;
    }
    mpfr_clear(x);
    mpfr_free_cache();
    return HAZE_OK;
}

int haze_number_enclose(haze_ctx *ctx, const char *s, const char **end, double *lo, double *hi) {
    if (!s || !lo || !hi)
        return haze__error(ctx, HAZE_ERR_INVALID, "haze_number_enclose: NULL argument");
    enclose_job j = {s, s, 0, 0, 0};
    int st = haze__mp_run(ctx, enclose_run, &j);
    if (st) return st;
    if (!j.ok) return haze__error(ctx, HAZE_ERR_PARSE, "expected a finite number");
    *lo = j.lo;
    *hi = j.hi;
    if (end) *end = j.end;
    return HAZE_OK;
}
