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
 * as numbers and their values are strtod's. tests/test_number.c checks it
 * against strtod on millions of random and hard decimal strings.
 *
 * Built without fast_float (HAZE_HAVE_FAST_FLOAT undefined), the fast path
 * says no to everything and all numbers go through strtod.
 */
#include "io/number.h"

#include <stdint.h>
#include <stdlib.h>

#ifdef HAZE_HAVE_FAST_FLOAT
#include <fast_float/fast_float.h>
#endif

#include "core/text.h"

static inline bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

/*
 * The commonest text, [-]digits[.digits] with at most 15 digits in all and
 * no exponent, read as w / 10^k: w (the digits as an integer, below 2^53)
 * and 10^k (k <= 15) are exact doubles, so the one division, rounded to
 * nearest, is the correctly rounded value of the decimal (Clinger's fast
 * path), strtod's bits. Anything else (more digits, an exponent, a hex
 * float, no digit) is left to fast_float: nullptr.
 */
static const char *short_decimal(const char *s, const char *end, double *out) {
    static const double pow10[16] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
    const char *p = s;
    const bool neg = *p == '-';
    if (neg) p++;
    uint64_t w = 0;
    int digits = 0, frac = 0;
    for (; p < end && is_digit(*p); p++, digits++) w = w * 10 + (uint64_t)(*p - '0');
    if (p < end && *p == '.')
        for (p++; p < end && is_digit(*p); p++, digits++, frac++) w = w * 10 + (uint64_t)(*p - '0');
    if (digits == 0 || digits > 15) return nullptr; /* (15 digits: w < 10^15 < 2^53) */
    if (p < end && ((*p | 0x20) == 'e' || (*p | 0x20) == 'x')) return nullptr;
    const double v = (double)w / pow10[frac];
    *out = neg ? -v : v;
    return p;
}

extern "C" const char *haze__number_fast(const char *s, const char *end, double *out) {
#ifdef HAZE_HAVE_FAST_FLOAT
    if (s == end) return nullptr;
    const char *p = s;
    if (*p == '-' && ++p == end) return nullptr;
    if (!is_digit(*p) && *p != '.') return nullptr; /* "inf", "nan", "-+1": strtod's */
    const char *q = short_decimal(s, end, out);
    if (q) return q;
    double v;
    fast_float::from_chars_result r = fast_float::from_chars(s, end, v);
    /* overflow gives inf with success, as strtod gives HUGE_VAL */
    if (r.ec != std::errc()) return nullptr;
    /* "0x1p3": fast_float reads the "0", strtod the hex float */
    if (r.ptr != end && (*r.ptr == 'x' || *r.ptr == 'X')) return nullptr;
    *out = v;
    return r.ptr;
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
