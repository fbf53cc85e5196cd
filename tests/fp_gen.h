/*
 * tests/fp_gen.h - random floating-point operands for the certified
 * arithmetic tests: random bit patterns, subnormals, huge and tiny values,
 * powers of two and their neighbours, signed zeros, and operand pairs that
 * cancel. Shared by test_round.c, test_interval.c and test_fuzzy*.c.
 */
#ifndef HAZE_TEST_FP_GEN_H
#define HAZE_TEST_FP_GEN_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"

/* Number of random cases: `full`, or a tenth of it when HAZE_TEST_QUICK is set. */
static inline long fp_gen_cases(long full) {
    const char *q = getenv("HAZE_TEST_QUICK");
    return q && *q && *q != '0' ? full / 10 : full;
}

static inline double fp_from_bits(uint64_t u) {
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* A finite double drawn from a mix of hard cases. */
static inline double fp_gen_double(haze__rng *r) {
    uint64_t u = haze__rng_next(r);
    uint64_t sign = u & 0x8000000000000000ull, mant = haze__rng_next(r) & 0xFFFFFFFFFFFFFull;
    uint64_t e;
    switch (haze__rng_below(r, 9)) {
    case 0:
        e = haze__rng_below(r, 2047);
        break; /* any finite exponent */
    case 1:
        e = 0;
        break; /* subnormal */
    case 2:
        e = 2046 - haze__rng_below(r, 30);
        break; /* huge */
    case 3:
        e = 1 + haze__rng_below(r, 60);
        break; /* tiny normal */
    case 4:
        e = 1023 - 8 + haze__rng_below(r, 16);
        break; /* moderate */
    case 5:    /* power of two or a neighbour */
        e = 1023 - 40 + haze__rng_below(r, 80);
        mant = haze__rng_below(r, 2) ? haze__rng_below(r, 3)
                                     : 0xFFFFFFFFFFFFFull - haze__rng_below(r, 3);
        break;
    case 6:
        return (double)((int64_t)haze__rng_below(r, 2001) - 1000); /* small integers */
    case 7:
        return sign ? -0.0 : 0.0;
    default:
        e = 1023 - 2 + haze__rng_below(r, 4);
        mant &= ~0xFFFFFFull;
        break; /* few bits */
    }
    return fp_from_bits(sign | e << 52 | mant);
}

/* A second operand: independent, or close to +-a so that the operation cancels. */
static inline double fp_gen_partner(haze__rng *r, double a) {
    if (haze__rng_below(r, 4) != 0 || !isfinite(a)) return fp_gen_double(r);
    uint64_t u;
    memcpy(&u, &a, sizeof u);
    u += haze__rng_below(r, 7) - 3; /* a few ulps away */
    double b = fp_from_bits(u);
    if (!isfinite(b)) b = a;
    return haze__rng_below(r, 2) ? -b : b;
}

static inline float fp_gen_float(haze__rng *r) {
    uint32_t u = (uint32_t)haze__rng_next(r);
    uint32_t sign = u & 0x80000000u, mant = (uint32_t)haze__rng_next(r) & 0x7FFFFFu, e;
    float x;
    switch (haze__rng_below(r, 9)) {
    case 0:
        e = (uint32_t)haze__rng_below(r, 255);
        break;
    case 1:
        e = 0;
        break;
    case 2:
        e = 254 - (uint32_t)haze__rng_below(r, 10);
        break;
    case 3:
        e = 1 + (uint32_t)haze__rng_below(r, 20);
        break;
    case 4:
        e = 127 - 8 + (uint32_t)haze__rng_below(r, 16);
        break;
    case 5:
        e = 127 - 20 + (uint32_t)haze__rng_below(r, 40);
        mant = haze__rng_below(r, 2) ? (uint32_t)haze__rng_below(r, 3)
                                     : 0x7FFFFFu - (uint32_t)haze__rng_below(r, 3);
        break;
    case 6:
        return (float)((int)haze__rng_below(r, 2001) - 1000);
    case 7:
        return sign ? -0.0f : 0.0f;
    default:
        e = 127 - 2 + (uint32_t)haze__rng_below(r, 4);
        mant &= ~0xFFFFu;
        break;
    }
    u = sign | e << 23 | mant;
    memcpy(&x, &u, sizeof x);
    return x;
}

static inline float fp_gen_partnerf(haze__rng *r, float a) {
    if (haze__rng_below(r, 4) != 0 || !isfinite(a)) return fp_gen_float(r);
    uint32_t u;
    memcpy(&u, &a, sizeof u);
    u += (uint32_t)haze__rng_below(r, 7) - 3u;
    float b;
    memcpy(&b, &u, sizeof b);
    if (!isfinite(b)) b = a;
    return haze__rng_below(r, 2) ? -b : b;
}

#endif
