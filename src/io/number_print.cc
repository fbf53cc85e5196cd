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
 * on 64-bit targets); the digits are made 8 at a time in the lanes of a
 * 64-bit word and stored whole into the text. Every other double (and
 * float data) goes to {fmt}.
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

/* The 8 decimal digits of x (below 10^8), most significant first, as the
 * bytes 0..9 of a little-endian word: x split into halves of 4 digits,
 * each into 2 and 1, all halves at once in the word's lanes (divisions by
 * 100 and 10 as a product and a shift, exact for lanes below 43,699 and
 * 179). One word instead of 8 stores of characters that the copy into the
 * text would then load again. */
inline uint64_t digits8(uint32_t x) {
    uint64_t v = (uint64_t)(x / 10000u) | ((uint64_t)(x % 10000u) << 32);
    const uint64_t h2 = ((v * 10486u) >> 20) & 0x0000007F0000007Full;
    v = h2 | ((v - h2 * 100u) << 16);
    const uint64_t h1 = ((v * 103u) >> 10) & 0x000F000F000F000Full;
    return h1 | ((v - h1 * 10u) << 8);
}

const uint64_t ascii0 = 0x3030303030303030ull;

inline void store8(char *p, uint64_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v); /* the first character in the first byte */
#endif
    memcpy(p, &v, 8);
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
    /* the 17 digits: one, then two words of 8 (characters in hc, lc);
     * nd of them without the trailing zeros %g drops */
    const uint64_t d0 = n / e16, r = n - d0 * e16;
    const uint64_t h = digits8((uint32_t)(r / 100000000u)), l = digits8((uint32_t)(r % 100000000u));
    const int nd = l ? 17 - __builtin_clzll(l) / 8 : h ? 9 - __builtin_clzll(h) / 8 : 1;
    const uint64_t hc = h + ascii0, lc = l + ascii0;
    const char c0 = (char)('0' + d0);
    /* the words are stored whole, past the text's end where it is shorter
     * (buf has 32 bytes), and the next store or the NUL goes over them */
    char *p = buf;
    if (bits >> 63) *p++ = '-';
    if (k >= 0) { /* %f: ni = k + 1 digits before the point */
        const int ni = k + 1;
        p[0] = c0;
        store8(p + 1, hc);
        store8(p + 9, lc);
        if (nd > ni) {
            p[ni] = '.';
            /* the digits after the point: those of the words past the first ni */
            if (ni == 1) {
                store8(p + 2, hc);
                store8(p + 10, lc);
            } else if (ni < 9) {
                const int sh = 8 * (ni - 1);
                store8(p + ni + 1, (hc >> sh) | (lc << (64 - sh)));
                store8(p + ni + 9, lc >> sh);
            } else if (ni == 9) {
                store8(p + 10, lc);
            } else {
                store8(p + ni + 1, lc >> (8 * (ni - 9)));
            }
            p += nd + 1;
        } else {
            p += ni;
        }
    } else if (k >= -4) {                 /* %f: 0.000ddd */
        store8(p, 0x3030303030302e30ull); /* "0.000000" */
        p += 2 + (-k - 1);
        p[0] = c0;
        store8(p + 1, hc);
        store8(p + 9, lc);
        p += nd;
    } else { /* %e: d.ddde-XX */
        p[0] = c0;
        p[1] = '.';
        store8(p + 2, hc);
        store8(p + 10, lc);
        p += nd > 1 ? nd + 1 : 1;
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
