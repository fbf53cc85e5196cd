/*
 * tests/test_interval.c - haze/interval.h against two references:
 *
 * 1. The IEEE 1788 test library file libieeep1788_elem.itl (tests/data/itl):
 *    every add, sub, mul, div, recip, sqr and sqrt case with finite non-empty
 *    inputs and result. Double lower-upper must equal the expected interval;
 *    float lower-upper (inputs rounded outward to float) must contain it, and
 *    equal its outward float rounding when the inputs are floats; double and
 *    float midpoint-radius must contain it.
 * 2. MPFR on random hard operands (tests/fp_gen.h): lower-upper bounds equal
 *    the exact bounds rounded outward; midpoint-radius results contain the
 *    exact range (checked exactly) and their radius is at most the value of
 *    the Definition 5 formula times (1 + 2u)^k plus k*eta, k the number of
 *    rounded operations: the bound docs/fuzzy.md derives.
 */
#include <float.h>
#include <mpfr.h>
#include <string.h>

#include "test_util.h"
#include "fp_gen.h"
#include "haze/interval.h"

enum op { OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_RECIP, OP_SQR, OP_SQRT, OP_COUNT };
static const char *op_name[] = {"add", "sub", "mul", "div", "recip", "sqr", "sqrt"};
static int op_arity(enum op op) {
    return op <= OP_DIV ? 2 : 1;
}

/* ---------------------------------------------------------- evaluation */

static haze_ivd lu_double(enum op op, haze_ivd x, haze_ivd y) {
    switch (op) {
    case OP_ADD:
        return haze_ivd_add(x, y);
    case OP_SUB:
        return haze_ivd_sub(x, y);
    case OP_MUL:
        return haze_ivd_mul(x, y);
    case OP_DIV:
        return haze_ivd_div(x, y);
    case OP_RECIP:
        return haze_ivd_recip(x);
    case OP_SQR:
        return haze_ivd_sqr(x);
    default:
        return haze_ivd_sqrt(x);
    }
}
static haze_ivf lu_float(enum op op, haze_ivf x, haze_ivf y) {
    switch (op) {
    case OP_ADD:
        return haze_ivf_add(x, y);
    case OP_SUB:
        return haze_ivf_sub(x, y);
    case OP_MUL:
        return haze_ivf_mul(x, y);
    case OP_DIV:
        return haze_ivf_div(x, y);
    case OP_RECIP:
        return haze_ivf_recip(x);
    case OP_SQR:
        return haze_ivf_sqr(x);
    default:
        return haze_ivf_sqrt(x);
    }
}
static haze_mrd mr_double(enum op op, haze_mrd x, haze_mrd y) {
    switch (op) {
    case OP_ADD:
        return haze_mrd_add(x, y);
    case OP_SUB:
        return haze_mrd_sub(x, y);
    case OP_MUL:
        return haze_mrd_mul(x, y);
    case OP_DIV:
        return haze_mrd_div(x, y);
    case OP_RECIP:
        return haze_mrd_recip(x);
    case OP_SQR:
        return haze_mrd_sqr(x);
    default:
        return haze_mrd_sqrt(x);
    }
}
static haze_mrf mr_float(enum op op, haze_mrf x, haze_mrf y) {
    switch (op) {
    case OP_ADD:
        return haze_mrf_add(x, y);
    case OP_SUB:
        return haze_mrf_sub(x, y);
    case OP_MUL:
        return haze_mrf_mul(x, y);
    case OP_DIV:
        return haze_mrf_div(x, y);
    case OP_RECIP:
        return haze_mrf_recip(x);
    case OP_SQR:
        return haze_mrf_sqr(x);
    default:
        return haze_mrf_sqrt(x);
    }
}

/*
 * Exact range of op over [xl, xh] (op) [yl, yh] (finite, 0 not in y for div
 * and recip), as MPFR bounds: lo rounded down and hi rounded up at `prec` bits
 * (exact for add, sub, mul, sqr at the precisions used).
 */
static void exact_range(mpfr_t lo, mpfr_t hi, enum op op, mpfr_t xl, mpfr_t xh, mpfr_t yl,
                        mpfr_t yh) {
    mpfr_prec_t p = mpfr_get_prec(lo);
    mpfr_t t;
    mpfr_init2(t, p);
    switch (op) {
    case OP_ADD:
        mpfr_add(lo, xl, yl, MPFR_RNDD);
        mpfr_add(hi, xh, yh, MPFR_RNDU);
        break;
    case OP_SUB:
        mpfr_sub(lo, xl, yh, MPFR_RNDD);
        mpfr_sub(hi, xh, yl, MPFR_RNDU);
        break;
    case OP_MUL:
    case OP_DIV: {
        mpfr_ptr a[2] = {xl, xh}, b[2] = {yl, yh};
        for (int i = 0; i < 4; i++) {
            for (int up = 0; up < 2; up++) {
                mpfr_rnd_t r = up ? MPFR_RNDU : MPFR_RNDD;
                if (op == OP_MUL)
                    mpfr_mul(t, a[i / 2], b[i % 2], r);
                else
                    mpfr_div(t, a[i / 2], b[i % 2], r);
                if (!up && (i == 0 || mpfr_less_p(t, lo))) mpfr_set(lo, t, MPFR_RNDN);
                if (up && (i == 0 || mpfr_greater_p(t, hi))) mpfr_set(hi, t, MPFR_RNDN);
            }
        }
        break;
    }
    case OP_RECIP:
        mpfr_ui_div(lo, 1, xh, MPFR_RNDD);
        mpfr_ui_div(hi, 1, xl, MPFR_RNDU);
        break;
    case OP_SQR:
        if (mpfr_sgn(xl) >= 0) {
            mpfr_sqr(lo, xl, MPFR_RNDD);
            mpfr_sqr(hi, xh, MPFR_RNDU);
        } else if (mpfr_sgn(xh) <= 0) {
            mpfr_sqr(lo, xh, MPFR_RNDD);
            mpfr_sqr(hi, xl, MPFR_RNDU);
        } else {
            mpfr_set_zero(lo, 1);
            mpfr_sqr(hi, xl, MPFR_RNDU);
            mpfr_sqr(t, xh, MPFR_RNDU);
            if (mpfr_greater_p(t, hi)) mpfr_set(hi, t, MPFR_RNDN);
        }
        break;
    default:
        if (mpfr_sgn(xl) <= 0)
            mpfr_set_zero(lo, 1);
        else
            mpfr_sqrt(lo, xl, MPFR_RNDD);
        mpfr_sqrt(hi, xh, MPFR_RNDU);
        break;
    }
    mpfr_clear(t);
}

/* ------------------------------------------------------------- ITL file */

typedef struct itl_case {
    enum op op;
    int line;
    char text[256];
    mpfr_t in[4]; /* x.lo x.hi y.lo y.hi, 256 bits, rounded outward */
    mpfr_t out[2];
} itl_case;

/* Parses "[a,b]" at *s; returns 0 unless both bounds are finite numbers. */
static int itl_interval(const char **s, mpfr_t lo, mpfr_t hi) {
    const char *p = *s;
    while (*p == ' ') p++;
    if (*p != '[') return 0;
    p++;
    char *end;
    while (*p == ' ') p++;
    if (mpfr_strtofr(lo, p, &end, 0, MPFR_RNDD) != 0 && 0) return 0;
    if (end == p || !mpfr_number_p(lo)) return 0;
    p = end;
    while (*p == ' ') p++;
    if (*p != ',') return 0;
    p++;
    while (*p == ' ') p++;
    mpfr_strtofr(hi, p, &end, 0, MPFR_RNDU);
    if (end == p || !mpfr_number_p(hi)) return 0;
    p = end;
    while (*p == ' ') p++;
    if (*p != ']') return 0;
    *s = p + 1;
    return 1;
}

/* Reads the wanted cases of the ITL file; returns their number. */
static int itl_read(itl_case **out) {
    const char *path = HAZE_TEST_DATA "/itl/libieeep1788_elem.itl";
    FILE *f = fopen(path, "r");
    if (!f) fail_msg("cannot open %s", path);
    char line[1024], block[64] = "";
    int n = 0, cap = 0, lineno = 0;
    itl_case *c = NULL;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (sscanf(line, "testcase %63s", block) == 1) continue;
        int op = -1;
        for (int k = 0; k < OP_COUNT; k++) {
            char want[64];
            snprintf(want, sizeof want, "minimal_%s_test", op_name[k]);
            if (strcmp(block, want) == 0) op = k;
        }
        if (op < 0) continue;
        const char *s = line;
        while (*s == ' ') s++;
        size_t len = strlen(op_name[op]);
        if (strncmp(s, op_name[op], len) != 0 || s[len] != ' ') continue;
        s += len;
        if (n == cap) {
            cap = cap ? 2 * cap : 256;
            c = realloc(c, (size_t)cap * sizeof *c);
        }
        itl_case *k = &c[n];
        for (int i = 0; i < 4; i++) mpfr_init2(k->in[i], 256);
        mpfr_inits2(256, k->out[0], k->out[1], (mpfr_ptr)0);
        int ok = itl_interval(&s, k->in[0], k->in[1]);
        if (ok && op_arity((enum op)op) == 2) ok = itl_interval(&s, k->in[2], k->in[3]);
        while (ok && *s == ' ') s++;
        if (ok && *s++ != '=') ok = 0;
        if (ok) ok = itl_interval(&s, k->out[0], k->out[1]);
        if (!ok) { /* empty, entire, infinite or decorated: not in scope */
            for (int i = 0; i < 4; i++) mpfr_clear(k->in[i]);
            mpfr_clears(k->out[0], k->out[1], (mpfr_ptr)0);
            continue;
        }
        if (op_arity((enum op)op) == 1) {
            mpfr_set_zero(k->in[2], 1);
            mpfr_set_zero(k->in[3], 1);
        }
        k->op = (enum op)op;
        k->line = lineno;
        snprintf(k->text, sizeof k->text, "%.200s", line);
        n++;
    }
    fclose(f);
    *out = c;
    return n;
}

static int contains_mpfr(double lo, double hi, mpfr_t wlo, mpfr_t whi) {
    return mpfr_cmp_d(wlo, lo) >= 0 && mpfr_cmp_d(whi, hi) <= 0;
}

static void test_itl(void **state) {
    (void)state;
    itl_case *c;
    int n = itl_read(&c), bad = 0, per_op[OP_COUNT] = {0}, float_tight = 0;
    for (int i = 0; i < n; i++) {
        itl_case *k = &c[i];
        per_op[k->op]++;
        haze_ivd x = {mpfr_get_d(k->in[0], MPFR_RNDD), mpfr_get_d(k->in[1], MPFR_RNDU)};
        haze_ivd y = {mpfr_get_d(k->in[2], MPFR_RNDD), mpfr_get_d(k->in[3], MPFR_RNDU)};
        double wlo = mpfr_get_d(k->out[0], MPFR_RNDD), whi = mpfr_get_d(k->out[1], MPFR_RNDU);
        haze_ivd r = lu_double(k->op, x, y);
        if (!(r.lo == wlo && r.hi == whi) && bad++ < 10)
            print_error("line %d: double lu gives [%a, %a]: %s", k->line, r.lo, r.hi, k->text);
        /* float lower-upper */
        haze_ivf xf = {mpfr_get_flt(k->in[0], MPFR_RNDD), mpfr_get_flt(k->in[1], MPFR_RNDU)};
        haze_ivf yf = {mpfr_get_flt(k->in[2], MPFR_RNDD), mpfr_get_flt(k->in[3], MPFR_RNDU)};
        int exact_in = mpfr_cmp_d(k->in[0], xf.lo) == 0 && mpfr_cmp_d(k->in[1], xf.hi) == 0 &&
                       mpfr_cmp_d(k->in[2], yf.lo) == 0 && mpfr_cmp_d(k->in[3], yf.hi) == 0;
        haze_ivf rf = lu_float(k->op, xf, yf);
        if (!contains_mpfr(rf.lo, rf.hi, k->out[0], k->out[1]) && bad++ < 10)
            print_error("line %d: float lu [%a, %a] misses: %s", k->line, (double)rf.lo,
                        (double)rf.hi, k->text);
        if (exact_in) {
            float_tight++;
            float tlo = mpfr_get_flt(k->out[0], MPFR_RNDD),
                  thi = mpfr_get_flt(k->out[1], MPFR_RNDU);
            if (!(rf.lo == tlo && rf.hi == thi) && bad++ < 10)
                print_error("line %d: float lu [%a, %a] not tight [%a, %a]: %s", k->line,
                            (double)rf.lo, (double)rf.hi, (double)tlo, (double)thi, k->text);
        }
        /* midpoint-radius, through an outward conversion */
        int mr_ok = !((k->op == OP_DIV || k->op == OP_RECIP) && haze_ivd_contains(y, 0) &&
                      k->op == OP_DIV) &&
                    !(k->op == OP_RECIP && haze_ivd_contains(x, 0));
        if (k->op == OP_DIV && haze_ivd_contains(y, 0)) mr_ok = 0; /* needs the 1788 hull */
        if (mr_ok) {
            haze_ivd rm = haze_mrd_to_iv(mr_double(k->op, haze_ivd_to_mr(x), haze_ivd_to_mr(y)));
            if (!contains_mpfr(rm.lo, rm.hi, k->out[0], k->out[1]) && bad++ < 10)
                print_error("line %d: double mr [%a, %a] misses: %s", k->line, rm.lo, rm.hi,
                            k->text);
            haze_ivf rmf = haze_mrf_to_iv(mr_float(k->op, haze_ivf_to_mr(xf), haze_ivf_to_mr(yf)));
            if (!contains_mpfr(rmf.lo, rmf.hi, k->out[0], k->out[1]) && bad++ < 10)
                print_error("line %d: float mr [%a, %a] misses: %s", k->line, (double)rmf.lo,
                            (double)rmf.hi, k->text);
        }
        for (int j = 0; j < 4; j++) mpfr_clear(k->in[j]);
        mpfr_clears(k->out[0], k->out[1], (mpfr_ptr)0);
    }
    free(c);
    print_message("ITL: %d cases (add %d sub %d mul %d div %d recip %d sqr %d sqrt %d), %d with "
                  "float inputs\n",
                  n, per_op[0], per_op[1], per_op[2], per_op[3], per_op[4], per_op[5], per_op[6],
                  float_tight);
    for (int k = 0; k < OP_COUNT; k++) assert_true(per_op[k] > 0);
    if (bad) fail_msg("%d ITL mismatches", bad);
}

/* ------------------------------------------------------- random vs MPFR */

/* A random finite interval of doubles (or of floats if fl), some of zero width. */
static void gen_lu(haze__rng *r, int fl, double *lo, double *hi) {
    double a = fl ? fp_gen_float(r) : fp_gen_double(r);
    double b = haze__rng_below(r, 5) == 0 ? a
               : fl                       ? fp_gen_partnerf(r, (float)a)
                                          : fp_gen_partner(r, a);
    if (haze__rng_below(r, 3) == 0) /* narrow: a few ulps */
        b = fl ? (double)nextafterf((float)a, INFINITY) : nextafter(a, INFINITY);
    if (!isfinite(b)) b = a;
    *lo = a < b ? a : b;
    *hi = a < b ? b : a;
}

static void gen_mr(haze__rng *r, int fl, double *m, double *rho) {
    *m = fl ? fp_gen_float(r) : fp_gen_double(r);
    switch (haze__rng_below(r, 4)) {
    case 0:
        *rho = 0;
        break;
    case 1:
        *rho = fabs(*m) * (fl ? 0x1p-20 : 0x1p-45) * (double)haze__rng_below(r, 9);
        break;
    case 2:
        *rho = fabs(*m) * haze__rng_uniform(r);
        break;
    default:
        *rho = fabs(fl ? fp_gen_float(r) : fp_gen_double(r));
        break;
    }
    if (fl) *rho = (double)haze_ru_mulf((float)*rho, 1.0f);
    if (!isfinite(*rho)) *rho = 0;
}

static void check_lu_random(enum op op, int fl, uint64_t seed) {
    haze__rng rng;
    haze__rng_seed(&rng, seed);
    mpfr_t xl, xh, yl, yh, lo, hi;
    mpfr_inits2(256, xl, xh, yl, yh, lo, hi, (mpfr_ptr)0);
    long n = fp_gen_cases(1000000), bad = 0;
    for (long i = 0; i < n; i++) {
        double a, b, c = 0, d = 0;
        gen_lu(&rng, fl, &a, &b);
        if (op_arity(op) == 2) gen_lu(&rng, fl, &c, &d);
        if (op == OP_SQRT && b < 0) { /* empty result: tested in test_special */
            double t = -a;
            a = -b;
            b = t;
        }
        if ((op == OP_DIV && c <= 0 && d >= 0) || (op == OP_RECIP && a <= 0 && b >= 0)) {
            i--;
            continue; /* zero in the divisor: tested separately */
        }
        mpfr_set_d(xl, a, MPFR_RNDN);
        mpfr_set_d(xh, b, MPFR_RNDN);
        mpfr_set_d(yl, c, MPFR_RNDN);
        mpfr_set_d(yh, d, MPFR_RNDN);
        exact_range(lo, hi, op, xl, xh, yl, yh);
        double glo, ghi, wlo, whi;
        if (fl) {
            haze_ivf r =
                lu_float(op, haze_ivf_make((float)a, (float)b), haze_ivf_make((float)c, (float)d));
            glo = r.lo, ghi = r.hi;
            wlo = mpfr_get_flt(lo, MPFR_RNDD), whi = mpfr_get_flt(hi, MPFR_RNDU);
        } else {
            haze_ivd r = lu_double(op, haze_ivd_make(a, b), haze_ivd_make(c, d));
            glo = r.lo, ghi = r.hi;
            wlo = mpfr_get_d(lo, MPFR_RNDD), whi = mpfr_get_d(hi, MPFR_RNDU);
        }
        if (!(glo == wlo && ghi == whi) && bad++ < 10)
            print_error("%s lu %s [%a,%a] [%a,%a] = [%a,%a], want [%a,%a]\n",
                        fl ? "float" : "double", op_name[op], a, b, c, d, glo, ghi, wlo, whi);
    }
    mpfr_clears(xl, xh, yl, yh, lo, hi, (mpfr_ptr)0);
    if (bad)
        fail_msg("%ld of %ld %s lu %s results not optimal", bad, n, fl ? "float" : "double",
                 op_name[op]);
}

/*
 * Midpoint-radius: containment, and the radius against the Definition 5
 * formula evaluated exactly, F: rad <= F (1 + 2u)^6 + 6 eta (at most six
 * upward roundings, each within a factor 1 + 2u or eta of its exact value).
 * Containment is checked at 256 bits, soundly: the operands' endpoints are
 * rounded outward, the exact range then outward again, and the result's
 * endpoints inward, so a reported miss is real (and a real miss by less than
 * 2^-250 relative could only pass unseen).
 */
static void check_mr_random(enum op op, int fl, uint64_t seed) {
    haze__rng rng;
    haze__rng_seed(&rng, seed);
    mpfr_t xl, xh, yl, yh, lo, hi, t, f, g;
    /* sums of doubles are exact at 2200 bits: tight results must not look like misses */
    mpfr_prec_t prec = op == OP_ADD || op == OP_SUB ? 2200 : 256;
    mpfr_inits2(prec, xl, xh, yl, yh, t, f, g, lo, hi, (mpfr_ptr)0);
    long n = fp_gen_cases(1000000), bad = 0, entire = 0;
    double u = fl ? 0x1p-24 : 0x1p-53, eta = fl ? 0x1p-149 : 0x1p-1074;
    for (long i = 0; i < n; i++) {
        double m1, r1, m2 = 0, r2 = 0;
        gen_mr(&rng, fl, &m1, &r1);
        if (op_arity(op) == 2) gen_mr(&rng, fl, &m2, &r2);
        if (op == OP_SQRT) m1 = fabs(m1); /* negative parts: test_special */
        if ((op == OP_DIV && !(fabs(m2) > r2)) || (op == OP_RECIP && !(fabs(m1) > r1))) {
            i--;
            continue;
        }
        double gm, gr;
        if (fl) {
            haze_mrf z = mr_float(op, haze_mrf_make((float)m1, (float)r1),
                                  haze_mrf_make((float)m2, (float)r2));
            gm = z.mid, gr = z.rad;
        } else {
            haze_mrd z = mr_double(op, haze_mrd_make(m1, r1), haze_mrd_make(m2, r2));
            gm = z.mid, gr = z.rad;
        }
        if (!(gr >= 0)) {
            if (bad++ < 10)
                print_error("%s mr %s: radius %a\n", fl ? "float" : "double", op_name[op], gr);
            continue;
        }
        if (isinf(gr)) { /* the whole line: contains everything */
            entire++;
            continue;
        }
        mpfr_set_d(t, m1, MPFR_RNDN);
        mpfr_sub_d(xl, t, r1, MPFR_RNDD);
        mpfr_add_d(xh, t, r1, MPFR_RNDU);
        mpfr_set_d(t, m2, MPFR_RNDN);
        mpfr_sub_d(yl, t, r2, MPFR_RNDD);
        mpfr_add_d(yh, t, r2, MPFR_RNDU);
        if (op == OP_DIV && mpfr_sgn(yl) <= 0 && mpfr_sgn(yh) >= 0) continue;
        if (op == OP_RECIP && mpfr_sgn(xl) <= 0 && mpfr_sgn(xh) >= 0) continue;
        exact_range(lo, hi, op, xl, xh, yl, yh);
        mpfr_set_d(t, gm, MPFR_RNDN);
        mpfr_sub_d(f, t, gr, MPFR_RNDU);
        mpfr_add_d(g, t, gr, MPFR_RNDD);
        if ((mpfr_greater_p(f, lo) || mpfr_less_p(g, hi)) && bad++ < 10)
            print_error("%s mr %s <%a,%a> <%a,%a> = <%a,%a> misses the exact range\n",
                        fl ? "float" : "double", op_name[op], m1, r1, m2, r2, gm, gr);
        /* the formula's value, rounded upward */
        if (op == OP_ADD || op == OP_SUB || op == OP_MUL || op == OP_SQR || op == OP_RECIP) {
            double am = fabs(gm);
            mpfr_set_d(f, am, MPFR_RNDN);
            mpfr_mul_d(f, f, u, MPFR_RNDU);
            if (op == OP_ADD || op == OP_SUB) {
                mpfr_add_d(f, f, r1, MPFR_RNDU);
                mpfr_add_d(f, f, r2, MPFR_RNDU);
            } else if (op == OP_MUL) {
                mpfr_add_d(f, f, eta, MPFR_RNDU);
                mpfr_set_d(t, fabs(m1), MPFR_RNDN);
                mpfr_add_d(t, t, r1, MPFR_RNDU);
                mpfr_mul_d(t, t, r2, MPFR_RNDU);
                mpfr_add(f, f, t, MPFR_RNDU);
                mpfr_set_d(t, fabs(m2), MPFR_RNDN);
                mpfr_mul_d(t, t, r1, MPFR_RNDU);
                mpfr_add(f, f, t, MPFR_RNDU);
            } else if (op == OP_SQR) {
                mpfr_add_d(f, f, eta, MPFR_RNDU);
                mpfr_set_d(t, 2 * fabs(m1), MPFR_RNDN);
                mpfr_add_d(t, t, r1, MPFR_RNDU);
                mpfr_mul_d(t, t, r1, MPFR_RNDU);
                mpfr_add(f, f, t, MPFR_RNDU);
            } else { /* recip: rho / (|m| (|m| - rho)) */
                mpfr_add_d(f, f, eta, MPFR_RNDU);
                mpfr_set_d(t, fabs(m1), MPFR_RNDN);
                mpfr_sub_d(t, t, r1, MPFR_RNDD);
                mpfr_mul_d(t, t, fabs(m1), MPFR_RNDD);
                mpfr_d_div(t, r1, t, MPFR_RNDU);
                mpfr_add(f, f, t, MPFR_RNDU);
            }
            mpfr_mul_d(f, f, (1 + 2 * u) * (1 + 2 * u) * (1 + 2 * u), MPFR_RNDU);
            mpfr_mul_d(f, f, (1 + 2 * u) * (1 + 2 * u) * (1 + 2 * u), MPFR_RNDU);
            mpfr_add_d(f, f, 6 * eta, MPFR_RNDU);
            if (mpfr_cmp_d(f, gr) < 0 && bad++ < 10)
                print_error("%s mr %s <%a,%a> <%a,%a>: radius %a above the bound %a\n",
                            fl ? "float" : "double", op_name[op], m1, r1, m2, r2, gr,
                            mpfr_get_d(f, MPFR_RNDU));
        }
    }
    mpfr_clears(xl, xh, yl, yh, t, f, g, lo, hi, (mpfr_ptr)0);
    if (bad)
        fail_msg("%ld of %ld %s mr %s results wrong", bad, n, fl ? "float" : "double", op_name[op]);
    if (entire > n / 4)
        fail_msg("%s mr %s: %ld of %ld results unbounded", fl ? "float" : "double", op_name[op],
                 entire, n);
}

static void test_lu_double(void **state) {
    (void)state;
    for (int op = 0; op < OP_COUNT; op++) check_lu_random((enum op)op, 0, 300 + (uint64_t)op);
}
static void test_lu_float(void **state) {
    (void)state;
    for (int op = 0; op < OP_COUNT; op++) check_lu_random((enum op)op, 1, 400 + (uint64_t)op);
}
static void test_mr_double(void **state) {
    (void)state;
    for (int op = 0; op < OP_COUNT; op++) check_mr_random((enum op)op, 0, 500 + (uint64_t)op);
}
static void test_mr_float(void **state) {
    (void)state;
    for (int op = 0; op < OP_COUNT; op++) check_mr_random((enum op)op, 1, 600 + (uint64_t)op);
}

/* Invalid operands give defined results. */
static void test_special(void **state) {
    (void)state;
    haze_ivd z = haze_ivd_make(0, 0), one = haze_ivd_make(1, 2), s = haze_ivd_make(-1, 1);
    assert_true(haze_ivd_is_empty(haze_ivd_div(one, z)));
    assert_true(haze_ivd_is_empty(haze_ivd_recip(z)));
    haze_ivd h = haze_ivd_div(one, s);
    assert_true(h.lo == -INFINITY && h.hi == INFINITY && !haze_ivd_is_finite(h));
    h = haze_ivd_div(one, haze_ivd_make(0, 4));
    assert_true(h.lo == 0.25 && h.hi == INFINITY);
    h = haze_ivd_div(z, s);
    assert_true(h.lo == 0 && h.hi == 0);
    assert_true(haze_ivd_is_empty(haze_ivd_sqrt(haze_ivd_make(-2, -1))));
    h = haze_ivd_sqrt(haze_ivd_make(-2, 4));
    assert_true(h.lo == 0 && h.hi == 2);
    haze_mrd e = haze_mrd_recip(haze_mrd_make(1, 1));
    assert_true(e.mid == 0 && e.rad == INFINITY);
    e = haze_mrd_mul(haze_mrd_make(DBL_MAX, 0), haze_mrd_make(2, 0));
    assert_true(e.rad == INFINITY);
    e = haze_mrd_mul(haze_mrd_make(0, 0), haze_mrd_entire());
    assert_true(e.rad == INFINITY && !haze_mrd_is_empty(e));
    /* unbounded operands whose corner quotient is inf / inf (a divisor that
     * excludes 0): the hull of the other corners, never a NaN (an empty
     * cut), in every sign */
    const double M = DBL_MAX;
    const haze_ivd big = haze_ivd_make(M, INFINITY), nbig = haze_ivd_make(-INFINITY, -M);
    h = haze_ivd_div(nbig, big); /* holds -1: -1e309 / 1e309 */
    assert_true(h.lo == -INFINITY && h.hi == 0);
    h = haze_ivd_div(big, big);
    assert_true(h.lo == 0 && h.hi == INFINITY);
    h = haze_ivd_div(big, nbig);
    assert_true(h.lo == -INFINITY && h.hi == 0);
    h = haze_ivd_div(haze_ivd_entire(), big);
    assert_true(h.lo == -INFINITY && h.hi == INFINITY);
    h = haze_ivd_div(haze_ivd_make(INFINITY, INFINITY), haze_ivd_make(INFINITY, INFINITY));
    assert_true(h.lo == -INFINITY && h.hi == INFINITY); /* every corner inf / inf */
    haze_ivf f = haze_ivf_div(haze_ivf_make(-INFINITY, -FLT_MAX), haze_ivf_make(FLT_MAX, INFINITY));
    assert_true(f.lo == -INFINITY && f.hi == 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_special),   cmocka_unit_test(test_itl),
        cmocka_unit_test(test_lu_double), cmocka_unit_test(test_lu_float),
        cmocka_unit_test(test_mr_double), cmocka_unit_test(test_mr_float),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
