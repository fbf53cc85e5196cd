/*
 * src/io/number_print.cc - numbers as text for the table writers.
 *
 * The writers print every value as printf's "%.17g" (or "%.9g" for float
 * data): 17 (9) significant digits, correctly rounded, enough to read back
 * the same bits. glibc's printf makes them with big-integer arithmetic at
 * about 400 ns a value, which made writing a CSV file slower than reading
 * it; {fmt} (Debian's libfmt-dev, used header-only here) formats the same
 * precision in about half the time, and its bytes are printf's.
 *
 * A double of magnitude 1e-11 to 1e17 (the values results are made of)
 * takes a shorter path of its own, about a fifth of {fmt}'s time: with
 * v = m 2^e (m < 2^53) and 10^s = 5^s 2^s, v 10^s = (m 5^s) 2^(e+s) is a
 * 128-bit integer product and a shift for s = 16 - floor(log10 v) in
 * 0..27 (5^27 < 2^63), so the 17 digits and the remainder that decides
 * their rounding (to nearest, ties to even: printf's) are exact, with no
 * table of powers (where the compiler has 128-bit integers: GCC and Clang
 * on 64-bit targets). Every other double (and float data) goes to {fmt}.
 * tests/test_number.c compares the result with printf on millions of
 * random values of every magnitude, exact ties, subnormals, zeros,
 * infinities and NaN. Neither path looks at the locale, which the writers
 * want anyway.
 *
 * Built without {fmt} (HAZE_HAVE_FMT undefined), snprintf makes the text
 * outside the short path; the caller then holds the C numeric locale
 * (haze__numeric_begin).
 */
#include "io/number.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifdef HAZE_HAVE_FMT
#include <fmt/format.h>
#endif

namespace {

#ifdef __SIZEOF_INT128__ /* GCC and Clang on 64-bit targets */
#define HAZE_PRINT17_SHORT 1

typedef unsigned __int128 u128;

const uint64_t pow5[28] = {1ull,
                           5ull,
                           25ull,
                           125ull,
                           625ull,
                           3125ull,
                           15625ull,
                           78125ull,
                           390625ull,
                           1953125ull,
                           9765625ull,
                           48828125ull,
                           244140625ull,
                           1220703125ull,
                           6103515625ull,
                           30517578125ull,
                           152587890625ull,
                           762939453125ull,
                           3814697265625ull,
                           19073486328125ull,
                           95367431640625ull,
                           476837158203125ull,
                           2384185791015625ull,
                           11920928955078125ull,
                           59604644775390625ull,
                           298023223876953125ull,
                           1490116119384765625ull,
                           7450580596923828125ull};

const uint64_t e16 = 10000000000000000ull, e17 = 100000000000000000ull;

/* v 10^s rounded to an integer (to nearest, ties to even), for v = m 2^e
 * and 0 <= s <= 27; the value before rounding is below 2^64. */
uint64_t scaled(uint64_t m, int e, int s, uint64_t *floor_part) {
    const u128 p = (u128)m * pow5[s];
    const int t = e + s;
    if (t >= 0) {
        *floor_part = (uint64_t)(p << t);
        return *floor_part;
    }
    const int sh = -t; /* below 117: p < 2^116 and the result is at least 1 */
    const uint64_t n = (uint64_t)(p >> sh);
    const u128 rem = p - ((u128)n << sh), half = (u128)1 << (sh - 1);
    *floor_part = n;
    return n + (rem > half || (rem == half && (n & 1)));
}

const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536"
                     "37383940414243444546474849505152535455565758596061626364656667686970717273"
                     "7475767778798081828384858687888990919293949596979899";

/* The digits of n (below 10^8) as 8 characters, two at a time. */
void digits8(char *d, uint32_t n) {
    for (int i = 6; i >= 0; i -= 2) {
        memcpy(d + i, pairs + 2 * (n % 100), 2);
        n /= 100;
    }
}

/* "%.17g" of a double whose magnitude lies in [1e-11, 1e17), else 0 (the
 * caller formats it). */
size_t print17_short(char *buf, double v) {
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    const int be = (int)((bits >> 52) & 0x7ff);
    if (be == 0 || be == 0x7ff) return 0; /* zero, subnormal, inf, NaN */
    const uint64_t m = (bits & ((1ull << 52) - 1)) | (1ull << 52);
    const int e = be - 1075, e2 = be - 1023; /* |v| = m 2^e, 2^e2 <= |v| < 2^(e2+1) */
    if (e2 < -40 || e2 > 57) return 0;       /* far outside [1e-11, 1e17) */
    /* k = floor(log10 |v|): from an estimate (78913 / 2^18 is about
     * log10(2); e2 * 78913 stays far from overflow), made exact by the
     * product: |v| 10^(16-k) lies in [10^16, 10^17) */
    int k = (int)((e2 * 78913L) / (1L << 18));
    uint64_t lo = 0, n = 0;
    for (int tries = 0;; tries++) {
        if (tries == 4 || k < -11 || k > 16) return 0;
        n = scaled(m, e, 16 - k, &lo);
        if (lo >= e17)
            k++;
        else if (lo < e16)
            k--;
        else
            break;
    }
    if (n == e17) {            /* rounded up to the next power of ten */
        if (k == 16) return 0; /* "1e+17": %e, left to the caller */
        n = e16;
        k++;
    }
    char d[17];
    digits8(d + 9, (uint32_t)(n % 100000000u));
    const uint64_t hi = n / 100000000u;
    d[0] = (char)('0' + hi / 100000000u);
    digits8(d + 1, (uint32_t)(hi % 100000000u));
    int nd = 17;
    while (nd > 1 && d[nd - 1] == '0') nd--; /* %g drops trailing zeros */
    char *p = buf;
    if (bits >> 63) *p++ = '-';
    if (k >= 0) { /* %f: k + 1 digits before the point */
        const int ni = k + 1;
        memcpy(p, d, (size_t)ni);
        p += ni;
        if (nd > ni) {
            *p++ = '.';
            memcpy(p, d + ni, (size_t)(nd - ni));
            p += nd - ni;
        }
    } else if (k >= -4) { /* %f: 0.000ddd */
        *p++ = '0';
        *p++ = '.';
        for (int i = 0; i < -k - 1; i++) *p++ = '0';
        memcpy(p, d, (size_t)nd);
        p += nd;
    } else { /* %e: d.ddde-XX */
        *p++ = d[0];
        if (nd > 1) {
            *p++ = '.';
            memcpy(p, d + 1, (size_t)(nd - 1));
            p += nd - 1;
        }
        *p++ = 'e';
        *p++ = '-';
        *p++ = (char)('0' + (-k) / 10);
        *p++ = (char)('0' + (-k) % 10);
    }
    *p = '\0';
    return (size_t)(p - buf);
}

#endif /* __SIZEOF_INT128__ */

} // namespace

extern "C" size_t haze__number_print(char *buf, double v, int f32) {
#ifdef HAZE_PRINT17_SHORT
    if (!f32) {
        size_t n = print17_short(buf, v);
        if (n) return n;
    }
#endif
#ifdef HAZE_HAVE_FMT
    fmt::format_to_n_result<char *> r =
        f32 ? fmt::format_to_n(buf, 31, "{:.9g}", v) : fmt::format_to_n(buf, 31, "{:.17g}", v);
    buf[r.size] = '\0';
    return r.size;
#else
    return (size_t)snprintf(buf, 32, f32 ? "%.9g" : "%.17g", v);
#endif
}
