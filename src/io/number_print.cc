/*
 * src/io/number_print.cc - numbers as text for the table writers, through
 * {fmt}.
 *
 * The writers print every value as printf's "%.17g" (or "%.9g" for float
 * data): 17 (9) significant digits, correctly rounded, enough to read back
 * the same bits. glibc's printf makes them with big-integer arithmetic at
 * about 400 ns a value, which made writing a CSV file slower than reading
 * it. {fmt} (Debian's libfmt-dev, used header-only here) formats the same
 * precision in about half the time, and its bytes are printf's:
 * tests/test_number.c compares the two on millions of random values of
 * every magnitude, subnormals, zeros, infinities and NaN included. {fmt}
 * does not look at the locale, which the writers want anyway.
 *
 * Built without {fmt} (HAZE_HAVE_FMT undefined), snprintf makes the text;
 * the caller then holds the C numeric locale (haze__numeric_begin).
 */
#include "io/number.h"

#include <stdio.h>

#ifdef HAZE_HAVE_FMT
#include <fmt/format.h>
#endif

extern "C" size_t haze__number_print(char *buf, double v, int f32) {
#ifdef HAZE_HAVE_FMT
    fmt::format_to_n_result<char *> r =
        f32 ? fmt::format_to_n(buf, 31, "{:.9g}", v) : fmt::format_to_n(buf, 31, "{:.17g}", v);
    buf[r.size] = '\0';
    return r.size;
#else
    return (size_t)snprintf(buf, 32, f32 ? "%.9g" : "%.17g", v);
#endif
}
