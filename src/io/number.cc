/*
 * src/io/number.cc - the fast path of number.h, through fast_float.
 *
 * fast_float (Debian's libfast-float-dev; D. Lemire, "Number Parsing at a
 * Gigabyte per Second", Software: Practice and Experience 51(8), 2021) reads
 * a decimal number with the Eisel-Lemire algorithm and falls back to big
 * integer arithmetic for the hard cases, so its result is the correctly
 * rounded double, as glibc's strtod gives, at about 1 GB/s; strtod itself
 * reads about 50 MB/s. It knows neither locales nor white space nor hex,
 * which is what a fast path wants: haze__number_fast takes only text that
 * starts with a digit, '.' or '-' and a digit or '.', and everything else
 * is left to strtod in the C locale (haze__text_number), so the set of texts read
 * as numbers and their values are strtod's. Short plain decimals, most of
 * what tables hold, are read in one pass ahead of fast_float with its own
 * two exact steps (below). tests/test_number.c checks it against strtod on
 * millions of random and hard decimal strings, in every rounding mode.
 *
 * Built without fast_float (HAZE_HAVE_FAST_FLOAT undefined), the fast path
 * says no to everything and all numbers go through strtod.
 */
#include "io/number.h"

#include <fenv.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

#ifdef HAZE_HAVE_FAST_FLOAT
#include <fast_float/fast_float.h>
#endif

#include "core/text.h"

static inline bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

#ifdef HAZE_HAVE_FAST_FLOAT
/* fast_float's whole parser, for what the short path below leaves to it. */
static const char *number_full(const char *s, const char *end, double *out) {
    double v;
    fast_float::from_chars_result r = fast_float::from_chars(s, end, v);
    /* overflow gives inf with success, as strtod gives HUGE_VAL */
    if (r.ec != std::errc()) return nullptr;
    /* "0x1p3": fast_float reads the "0", strtod the hex float */
    if (r.ptr != end && (*r.ptr == 'x' || *r.ptr == 'X')) return nullptr;
    /* a zero keeps the text's sign: built by Clang, fast_float gives +0 for
     * "-0e5" when the thread does not round to nearest (fuzz_number) */
    if (v == 0) v = *s == '-' ? -0.0 : 0.0;
    *out = v;
    return r.ptr;
}

/* Whether this thread rounds to nearest (SSE's control word, where the
 * doubles are computed; the C library otherwise). */
static inline bool rounds_to_nearest() {
#if defined(__SSE2__)
    return (_mm_getcsr() & 0x6000u) == 0;
#else
    return fegetround() == FE_TONEAREST;
#endif
}

/* 8 bytes of text as a word, the first character in its low byte (as
 * fast_float's eight-digit steps take it). */
static inline uint64_t load8(const char *p) {
    uint64_t x;
    memcpy(&x, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    x = __builtin_bswap64(x);
#endif
    return x;
}
#endif

/*
 * The numbers a table holds are mostly short and without an exponent
 * ("4.7457", "-0.125", "12"), where fast_float's general parser (options,
 * exponents, more than 19 digits) is most of the time of a read. Such a
 * number of at most 19 digits (zeros ahead of the first other digit do not
 * count) is read here in one pass, its decimals 8 at a time where there
 * are 8, into its exact integer w and the count of its decimals k, and its
 * value is w / 10^k rounded once: by one division where w < 2^53 and
 * k <= 22 (both exact: Clinger's fast path, as fast_float takes it) when
 * the thread rounds to nearest, else by fast_float's own Eisel-Lemire step
 * on (w, -k), which uses no floating-point arithmetic. Where that step cannot decide, and for
 * exponents and longer numbers, fast_float reads the text from its start.
 * The value is fast_float's (the correctly rounded one) in every case.
 */
extern "C" const char *haze__number_fast(const char *s, const char *end, double *out) {
#ifdef HAZE_HAVE_FAST_FLOAT
    if (s == end) return nullptr;
    const char *p = s;
    bool neg = false;
    if (*p == '-') {
        neg = true;
        if (++p == end) return nullptr;
    }
    if (!is_digit(*p) && *p != '.') return nullptr; /* "inf", "nan", "-+1": strtod's */
    uint64_t w = 0;
    const char *d = p;
    while (p < end && is_digit(*p)) w = 10 * w + (uint64_t)(*p++ - '0');
    size_t nd = (size_t)(p - d), k = 0;
    if (p < end && *p == '.') {
        const char *f = ++p;
        /* the decimals 8 at a time while there are 8 (w's digits past 19
         * wrap it; such a number goes to the general parser below) */
        uint64_t x;
        while (end - p >= 8 && fast_float::is_made_of_eight_digits_fast(x = load8(p))) {
            w = 100000000u * w + fast_float::parse_eight_digits_unrolled(x);
            p += 8;
        }
        while (p < end && is_digit(*p)) w = 10 * w + (uint64_t)(*p++ - '0');
        k = (size_t)(p - f);
        nd += k;
    }
    /* no digit ("." "-."), an exponent or a hex float next: the general
     * parser */
    if (nd == 0 || (p < end && (*p == 'e' || *p == 'E' || *p == 'x' || *p == 'X')))
        return number_full(s, end, out);
    if (nd > 19) {
        /* zeros ahead of the first other digit ("-0.0022559138014912605")
         * do not count: w holds 19 digits exactly */
        for (const char *q = d; q < p && (*q == '0' || *q == '.'); q++) nd -= *q == '0';
        if (nd > 19) return number_full(s, end, out);
    }
    double v;
    typedef fast_float::binary_format<double> f64;
    if (w <= f64::max_mantissa_fast_path() && -(int64_t)k >= f64::min_exponent_fast_path() &&
        rounds_to_nearest()) {
        v = (double)w / f64::exact_power_of_ten((int64_t)k);
        *out = neg ? -v : v;
        return p;
    }
    fast_float::adjusted_mantissa am = fast_float::compute_float<f64>(-(int64_t)k, w);
    if (am.power2 < 0) return number_full(s, end, out);
    fast_float::to_float(neg, am, v);
    *out = v;
    return p;
#else
    (void)s, (void)end, (void)out;
    return nullptr;
#endif
}

extern "C" int haze__number_field(const char *s, size_t n, double *out) {
    if (n == 0) return 0;
    const char *q = haze__number_fast(s, s + n, out);
    if (q == s + n) return 1;
    /* the general path: leading white space, '+', hex, inf, nan, and texts
     * the fast path stops inside ("1e", "0x1p3") */
    const char *e;
    double v;
    if (haze__text_number(s, &e, &v) != HAZE_OK || e != s + n) return 0;
    *out = v;
    return 1;
}
