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

#include <stdlib.h>

#ifdef HAZE_HAVE_FAST_FLOAT
#include <fast_float/fast_float.h>
#endif

#include "core/text.h"

static inline bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

extern "C" const char *haze__number_fast(const char *s, const char *end, double *out) {
#ifdef HAZE_HAVE_FAST_FLOAT
    if (s == end) return nullptr;
    const char *p = s;
    if (*p == '-' && ++p == end) return nullptr;
    if (!is_digit(*p) && *p != '.') return nullptr; /* "inf", "nan", "-+1": strtod's */
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
