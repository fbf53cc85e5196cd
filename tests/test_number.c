/*
 * tests/test_number.c - the table readers' number parser (src/io/number.h)
 * against strtod in the C locale, bit for bit, on millions of random and
 * hard decimal strings: exact halfway points between neighbouring doubles
 * (the hard cases of correct rounding) and their near misses, subnormals,
 * underflow and overflow, long digit strings, and the forms the fast path
 * must leave to strtod (blanks, '+', hex, inf, nan, stray characters).
 */
#include <float.h>
#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/number.h"
#include "test_util.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15u;

static uint64_t rnd(void) { /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717u;
}

static size_t checked, mismatches;

/* n cases, or a tenth of them when HAZE_TEST_QUICK is set (sanitizer runs). */
static int ncases(int n) {
    return getenv("HAZE_TEST_QUICK") ? n / 10 : n;
}

/* s as a whole field and as the start of a longer text, against strtod. */
static void check(const char *s) {
    size_t n = strlen(s);
    char *end;
    double ref = strtod(s, &end);
    int ref_ok = n > 0 && end == s + n;
    double v = 0;
    int ok = haze__number_field(s, n, &v);
    checked++;
    if (ok != ref_ok || (ok && memcmp(&v, &ref, sizeof v) != 0)) {
        if (mismatches++ < 10)
            print_error("field \"%.80s\": got %d %a, strtod %d %a\n", s, ok, v, ref_ok, ref);
    }
    double w = 0;
    const char *q = haze__number_fast(s, s + n, &w);
    if (q && (q != end || memcmp(&w, &ref, sizeof w) != 0)) {
        if (mismatches++ < 10)
            print_error("fast \"%.80s\": stopped at %td with %a, strtod at %td with %a\n", s, q - s,
                        w, end - s, ref);
    }
}

static double random_double(void) {
    uint64_t b = rnd();
    double d;
    memcpy(&d, &b, sizeof d);
    return isfinite(d) ? d : 1.0;
}

/* Random doubles printed the ways files hold them. */
static void test_printed(void **state) {
    (void)state;
    mismatches = 0;
    char s[64];
    static const char *fmts[] = {"%.17g", "%.16g", "%.15g", "%.9g", "%.6e", "%.3f", "%.20e", "%g"};
    for (int i = 0; i < ncases(400000); i++) {
        double d = random_double();
        if (i & 1) d = ldexp(d, -(int)(rnd() % 1100)) + 0.0 * d; /* toward subnormals */
        for (size_t f = 0; f < sizeof fmts / sizeof *fmts; f++) {
            snprintf(s, sizeof s, fmts[f], d);
            check(s);
        }
        /* data-like numbers: a few digits around the decimal point */
        snprintf(s, sizeof s, "%.*f", (int)(rnd() % 8),
                 (double)(int64_t)(rnd() % 2000001) / 1000.0 - 1000.0);
        check(s);
    }
    assert_int_equal(mismatches, 0);
}

/* Random digit strings: up to 40 digits, a point anywhere, any exponent. */
static void test_random_digits(void **state) {
    (void)state;
    mismatches = 0;
    char s[128];
    for (int i = 0; i < ncases(1500000); i++) {
        size_t k = 0;
        if (rnd() & 1) s[k++] = '-';
        int nd = 1 + (int)(rnd() % 40), point = (int)(rnd() % (unsigned)(nd + 2)) - 1;
        int lz = rnd() % 4 == 0 ? (int)(rnd() % 5) : 0;
        for (int z = 0; z < lz; z++) s[k++] = '0';
        for (int j = 0; j < nd; j++) {
            if (j == point) s[k++] = '.';
            s[k++] = (char)('0' + (j == 0 && rnd() % 3 ? 1 + rnd() % 9 : rnd() % 10));
        }
        if (point == nd) s[k++] = '.';
        if (rnd() % 3) {
            s[k++] = rnd() & 1 ? 'e' : 'E';
            unsigned r = (unsigned)(rnd() % 4);
            if (r == 1) s[k++] = '-';
            if (r == 2) s[k++] = '+';
            k += (size_t)sprintf(s + k, "%d", (int)(rnd() % 700) - (r == 1 ? 0 : 350));
        }
        s[k] = '\0';
        check(s);
    }
    assert_int_equal(mismatches, 0);
}

/* s, then s with the digit at last one up and one down (where it can go). */
static void check_nudged(char *s, char *last) {
    check(s);
    if (*last < '9') {
        (*last)++;
        check(s);
        (*last)--;
    }
    if (*last > '0') {
        (*last)--;
        check(s);
        (*last)++;
    }
}

/* A random plain decimal of 1 to 19 digits, the point anywhere (before,
 * between or after them), a '-' ahead where minus; its length. */
static size_t short_decimal(char *s, int minus) {
    int nd = 1 + (int)(rnd() % 19), point = (int)(rnd() % (unsigned)(nd + 1));
    size_t k = 0;
    if (minus) s[k++] = '-';
    for (int j = 0; j < nd; j++) {
        if (j == point) s[k++] = '.';
        s[k++] = (char)('0' + rnd() % 10);
    }
    s[k] = '\0';
    return k;
}

/* The exact decimal value of the point halfway between two neighbouring
 * doubles (a long double holds it exactly; glibc prints it exactly), and
 * the same cut short or nudged by one in its last digit. */
static void test_halfway(void **state) {
    (void)state;
    mismatches = 0;
    static char s[1200], t[1200];
    for (int i = 0; i < ncases(60000); i++) {
        double d = fabs(random_double());
        if (i % 3 == 0) d = ldexp(d, -(int)(rnd() % 1075));
        if (i % 5 == 0) d = (double)(rnd() >> (rnd() % 64)); /* integers */
        double up = nextafter(d, INFINITY);
        if (!isfinite(up)) continue;
        long double mid = ((long double)d + (long double)up) / 2;
        int n = snprintf(s, sizeof s, "%.1100Le", mid);
        if (n <= 0 || (size_t)n >= sizeof s) continue;
        /* trailing zeros off the mantissa */
        char *e = strchr(s, 'e');
        char *z = e;
        while (z[-1] == '0') z--;
        memmove(z, e, strlen(e) + 1);
        check(s);
        /* shortened to 17..40 significant digits, and the last digit +-1 */
        e = strchr(s, 'e');
        for (int digits = 17; digits <= 40 && digits + 1 < e - s; digits += 1 + (int)(rnd() % 6)) {
            snprintf(t, sizeof t, "%.*s%s", digits + 1, s, e);
            check_nudged(t, t + digits);
        }
    }
    assert_int_equal(mismatches, 0);
    print_message("%zu strings checked against strtod\n", checked);
}

/*
 * Plain decimals of at most 19 digits (no exponent), which the fast path
 * reads into one exact integer and a count of decimals: the points halfway
 * between neighbouring doubles where they are that short (doubles from 2^53
 * up, whose halfway points are integers or end in .5; each also with its
 * last digit nudged by one), and random short decimals (test_plain_rounding
 * reads such decimals in the other rounding modes).
 */
static void plain_cases(void) {
    char s[64];
    for (int i = 0; i < ncases(200000); i++) {
        double d = ldexp(1.0 + (double)(rnd() >> 12) / 4503599627370496.0, 53 + (int)(rnd() % 11));
        long double mid = ((long double)d + (long double)nextafter(d, INFINITY)) / 2;
        snprintf(s, sizeof s, "%s%.1Lf", rnd() & 1 ? "-" : "", mid);
        if (strlen(s) > 21) continue; /* past 19 digits: fast_float's */
        char *dot = strchr(s, '.');
        if (dot[1] == '0') *dot = '\0'; /* an integer: "9007199254740993" */
        check_nudged(s, s + strlen(s) - 1);
        short_decimal(s, 0);
        check(s);
    }
}

static void test_plain(void **state) {
    (void)state;
    mismatches = 0;
    plain_cases();
    assert_int_equal(mismatches, 0);
}

static void test_plain_rounding(void **state) {
    (void)state;
    mismatches = 0;
    static const int modes[] = {FE_UPWARD, FE_TOWARDZERO, FE_DOWNWARD};
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        /* strtod (the reference) rounds as the thread does: it runs in round
         * to nearest, haze__number_fast in the mode under test */
        char s[64];
        for (int i = 0; i < ncases(100000); i++) {
            const size_t k = short_decimal(s, (int)(rnd() & 1));
            double ref = strtod(s, NULL), v = 0;
            fesetround(modes[m]);
            const char *q = haze__number_fast(s, s + k, &v);
            fesetround(FE_TONEAREST);
            if (!q || memcmp(&v, &ref, sizeof v) != 0) {
                if (mismatches++ < 10)
                    print_error("\"%s\" rounding mode %d: %a, nearest %a\n", s, modes[m], v, ref);
            }
        }
    }
    assert_int_equal(mismatches, 0);
}

static void test_edges(void **state) {
    (void)state;
    static const char *cases[] = {"0",
                                  "-0",
                                  "0.0",
                                  "-0.0",
                                  ".5",
                                  "5.",
                                  "-.5",
                                  "-5.",
                                  ".",
                                  "-",
                                  "-.",
                                  "",
                                  "e5",
                                  "1e",
                                  "1e+",
                                  "1e-",
                                  "1E5",
                                  "1e+5",
                                  "1e-5",
                                  "+1",
                                  "+.5",
                                  " 1",
                                  "\t1",
                                  "\v1",
                                  "\f1",
                                  "\r1",
                                  "1 ",
                                  "1\r",
                                  "0x10",
                                  "0x1p-3",
                                  "-0x1.8p1",
                                  "0X1P3",
                                  "inf",
                                  "-inf",
                                  "INF",
                                  "infinity",
                                  "-Infinity",
                                  "nan",
                                  "-nan",
                                  "NaN",
                                  "nan(123)",
                                  "1,5",
                                  "1_000",
                                  "1..2",
                                  "1.2.3",
                                  "1e5e5",
                                  "--1",
                                  "-+1",
                                  "00000000000000000000000001",
                                  "0.000000000000000000000000000001e30",
                                  "1e400",
                                  "-1e400",
                                  "1e99999999999999999999",
                                  "1e-99999999999999999999",
                                  "0e99999999999999999999",
                                  "1.7976931348623157e308",
                                  "1.7976931348623158e308",
                                  "1.7976931348623159e308",
                                  "179769313486231580793728971405301e276",
                                  "2.2250738585072011e-308",
                                  "2.2250738585072012e-308",
                                  "2.2250738585072014e-308",
                                  "4.9406564584124654e-324",
                                  "2.4703282292062327e-324",
                                  "2.4703282292062328e-324",
                                  "1e-324",
                                  "5e-324",
                                  "3e-324",
                                  "9007199254740993",
                                  "9007199254740992.5",
                                  "9007199254740993.0000000000000000000000001",
                                  "18446744073709551615",
                                  "18446744073709551616",
                                  "184467440737095516150",
                                  "123456789012345678901234567890",
                                  "0.1",
                                  "0.2",
                                  "0.3",
                                  "1.1",
                                  "3.14159265358979323846264338327950288",
                                  "7.2057594037927933e16",
                                  "7.2057594037927933e+16",
                                  "1.00000000000000011102230246251565",
                                  "1.000000000000000111022302462515654042363166809082031250",
                                  "1.000000000000000111022302462515654042363166809082031251",
                                  "1.000000000000000111022302462515654042363166809082031249"};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) check(cases[i]);
    /* 800 digits, the halfway point of 1 and its neighbour padded with zeros */
    static char s[2000];
    strcpy(s, "1.00000000000000011102230246251565404236316680908203125");
    size_t k = strlen(s);
    for (int i = 0; i < 800; i++) s[k++] = '0';
    s[k] = '\0';
    check(s);
    s[k - 1] = '1';
    check(s);
    /* random bytes from the number alphabet and around it */
    static const char alpha[] = "0123456789.eE+-xXpPaAfFinINty \t\r";
    char r[24];
    for (int i = 0; i < ncases(500000); i++) {
        size_t n = rnd() % (sizeof r - 1);
        for (size_t j = 0; j < n; j++) r[j] = alpha[rnd() % (sizeof alpha - 1)];
        r[n] = '\0';
        check(r);
    }
    assert_int_equal(mismatches, 0);
}

/* The writers' numbers (haze__number_print) are printf's "%.17g" and "%.9g"
 * bytes: random bit patterns (subnormals included), values of every
 * magnitude, float values, and the special ones. */
static void test_print(void **state) {
    (void)state;
    static const double special[] = {0.0,
                                     -0.0,
                                     1e20,
                                     1e-5,
                                     1e16,
                                     1e17,
                                     0.1,
                                     5e-324,
                                     DBL_MAX,
                                     DBL_MIN,
                                     -1.5,
                                     100.0,
                                     123456789012345678.0,
                                     INFINITY,
                                     -INFINITY,
                                     NAN,
                                     -NAN};
    char a[40], b[40];
    size_t bad = 0, n = (size_t)ncases(4000000);
    for (size_t i = 0; i < n + sizeof special / sizeof *special; i++) {
        double v;
        uint64_t r = rnd();
        if (i >= n)
            v = special[i - n];
        else if (i % 4 == 0)
            memcpy(&v, &r, sizeof v);
        else if (i % 4 == 1)
            v = ldexp((double)(r >> 11), (int)(r % 2200) - 1100);
        else if (i % 4 == 2)
            v = (double)(r >> 11) * 0x1p-53 * 100.0;
        else {
            uint32_t r32 = (uint32_t)r;
            float f;
            memcpy(&f, &r32, sizeof f);
            v = f;
        }
        for (int f32 = 0; f32 < 2; f32++) {
            int na = snprintf(a, sizeof a, f32 ? "%.9g" : "%.17g", v);
            size_t nb = haze__number_print(b, v, f32);
            if ((size_t)na != nb || strcmp(a, b) != 0) {
                if (bad++ < 10) print_error("%a: printf \"%s\", haze \"%s\"\n", v, a, b);
            }
        }
    }
    assert_int_equal(bad, 0);
}

/* s as printf's "%.17g" prints it, against haze__number_print; counts a
 * mismatch in *bad. */
static void check_print17(double v, size_t *bad) {
    char a[40], b[40];
    int na = snprintf(a, sizeof a, "%.17g", v);
    size_t nb = haze__number_print(b, v, 0);
    if ((size_t)na != nb || strcmp(a, b) != 0) {
        if ((*bad)++ < 10) print_error("%a: printf \"%s\", haze \"%s\"\n", v, a, b);
    }
}

/* The short path of "%.17g" (magnitudes 1e-11 to 1e17, exact integer
 * arithmetic): exact ties at the 18th digit (n 2^-j with n odd has j
 * decimals, the last a 5: 18 significant digits where n 5^j has 18),
 * rounded to even, and their neighbours; powers of ten and their
 * neighbours (the bounds of each decade, and of the path); values of
 * every decade in and around the path's range; data-like values. */
static void test_print_short(void **state) {
    (void)state;
    size_t bad = 0, n = (size_t)ncases(1000000);
    for (size_t i = 0; i < n; i++) {
        uint64_t r = rnd();
        int j = 1 + (int)(r % 40);
        double lo = 1e17 / pow(5.0, j), hi = 1e18 / pow(5.0, j);
        uint64_t m = (uint64_t)(lo + (hi - lo) * ((double)(rnd() >> 11) * 0x1p-53)) | 1;
        if (m >= (1ull << 53)) m = (1ull << 53) - 1;
        double v = ldexp((double)m, -j);
        check_print17(v, &bad);
        check_print17(-v, &bad);
        check_print17(nextafter(v, 0.0), &bad);
        check_print17(nextafter(v, INFINITY), &bad);
    }
    /* short values, whose 17 digits end in zeros that %g drops: integers of
     * 1 to 17 digits and their halves, quarters, ... (the point after any
     * digit, nothing after it, or zeros before the first digit) */
    for (size_t i = 0; i < n / 8; i++) {
        const int nd = 1 + (int)(rnd() % 17);
        double v = 1 + (double)(rnd() % 9);
        for (int d = 1; d < nd; d++) v = 10 * v + (double)(rnd() % 10);
        for (int j = 0; j <= 40; j += 1 + (int)(rnd() % 4)) {
            check_print17(ldexp(v, -j), &bad);
            check_print17(-ldexp(v, -j), &bad);
        }
    }
    for (int k = -15; k <= 20; k++) {
        double p = pow(10.0, k);
        double w = p;
        for (int step = 0; step < 4; step++) w = nextafter(w, 0.0);
        for (int step = 0; step < 9; step++, w = nextafter(w, INFINITY)) {
            check_print17(w, &bad);
            check_print17(-w, &bad);
        }
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t r = rnd();
        /* a random mantissa at a binary exponent from 2^-45 to 2^60 */
        double v = ldexp(1.0 + (double)(r >> 12) * 0x1p-52, (int)(rnd() % 106) - 45);
        check_print17(r & 1 ? -v : v, &bad);
        /* a few decimals, as measured data and results have them */
        check_print17((double)(int64_t)(rnd() % 20000001) / 1000.0 - 10000.0, &bad);
        check_print17((double)(rnd() >> 11) * 0x1p-53 * 30.0, &bad);
    }
    assert_int_equal(bad, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_edges),         cmocka_unit_test(test_print),
        cmocka_unit_test(test_print_short),   cmocka_unit_test(test_printed),
        cmocka_unit_test(test_random_digits), cmocka_unit_test(test_halfway),
        cmocka_unit_test(test_plain),         cmocka_unit_test(test_plain_rounding),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
