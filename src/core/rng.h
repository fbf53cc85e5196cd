/*
 * src/core/rng.h - the library's seeded random numbers: SplitMix64 for
 * seeding and xoshiro256** for streams (Blackman and Vigna, 2018). The same
 * seed gives the same sequence on every platform and backend.
 */
#ifndef HAZE_CORE_RNG_H
#define HAZE_CORE_RNG_H

#include <stdint.h>

typedef struct haze__rng {
    uint64_t s[4];
} haze__rng;

static inline uint64_t haze__splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline void haze__rng_seed(haze__rng *r, uint64_t seed) {
    for (int i = 0; i < 4; i++) r->s[i] = haze__splitmix64(&seed);
}

static inline uint64_t haze__rng_next(haze__rng *r) {
    uint64_t *s = r->s;
    uint64_t x = s[1] * 5;
    uint64_t result = ((x << 7) | (x >> 57)) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = (s[3] << 45) | (s[3] >> 19);
    return result;
}

/* Uniform double in [0, 1) with 53 random bits. */
static inline double haze__rng_uniform(haze__rng *r) {
    return (double)(haze__rng_next(r) >> 11) * 0x1.0p-53;
}

/* Uniform integer in [0, n) without modulo bias (Lemire's method). */
static inline uint64_t haze__rng_below(haze__rng *r, uint64_t n) {
    uint64_t x = haze__rng_next(r);
    __uint128_t m = (__uint128_t)x * n;
    uint64_t l = (uint64_t)m;
    if (l < n) {
        uint64_t t = -n % n;
        while (l < t) {
            x = haze__rng_next(r);
            m = (__uint128_t)x * n;
            l = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

#endif
