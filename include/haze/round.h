/*
 * haze/round.h - exact directed rounding for binary32 and binary64, on the
 * host and inside CUDA kernels, without touching the FPU rounding mode.
 *
 * haze_rd_<op>(a, b) returns RD(a op b), the largest float <= the exact
 * result; haze_ru_<op> returns RU, the smallest float >= it; the f-suffixed
 * versions work on float. Operations: add, sub, mul, div, sqrt. haze_rn_<op>
 * are plain round-to-nearest operations that a compiler may not fuse into an
 * fma (so the host and the device give the same bits).
 *
 * Threads: as haze/core.h says ("Threads"); these are pure functions on
 * values, so any calls may overlap.
 *
 * On the device the CUDA rounding intrinsics (__dadd_rd, __fmul_ru, ...) do
 * the work. On the host the result is the round-to-nearest result corrected
 * by one step when an error-free transformation says the exact value lies
 * beyond it:
 *   - add/sub: TwoSum (Knuth, TAOCP vol. 2, 4.2.2) gives the exact error;
 *   - mul: the error a*b - p = fma(a, b, -p) (FMA-based TwoProduct), exact
 *     when the product does not underflow; tiny products are recomputed on
 *     normalised significands and rounded once (haze__round_scaled);
 *   - div: the residual a - q*b = fma(-q, b, a) has the sign of a/b - q
 *     whenever a is not tiny (Markstein; Boldo and Daumas 2003);
 *   - sqrt: the residual a - s*s = fma(-s, s, a), tiny inputs scaled by an
 *     even power of two first;
 *   - float operations are computed in double (products exactly; sums,
 *     quotients and roots with their error sign) and then rounded once.
 * Overflow follows IEEE 754: RU of a finite result beyond the largest float
 * is +inf while RD gives the largest float (and symmetrically). Exact zeros
 * of a sum are -0 under RD and +0 under RU, as IEEE 754 section 6.3 says, so
 * host and device agree on the bits of every result, signed zeros included.
 *
 * Requirements: IEEE arithmetic with subnormals (never compile code that uses
 * this header with fast-math or flush-to-zero, on the host or with nvcc's
 * -ftz=true), round-to-nearest as the current FPU mode, and fma() correctly
 * rounded (C99 requires it; glibc uses the FMA instruction where the CPU has
 * it and an exact software path otherwise).
 */
#ifndef HAZE_ROUND_H
#define HAZE_ROUND_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* HAZE_HD marks header functions callable from host code and CUDA kernels. */
#if defined(__CUDACC__)
#define HAZE_HD       static inline __host__ __device__
#define HAZE_HOSTONLY static inline __host__
#else
#define HAZE_HD       static inline
#define HAZE_HOSTONLY static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ host helpers */
#if !defined(__CUDA_ARCH__)

/* Next double above x (x not NaN); +0 and -0 both go to the smallest subnormal. */
HAZE_HOSTONLY double haze__nextup(double x) {
    uint64_t u;
    if (x == 0) return 0x1p-1074;
    if (x == (double)INFINITY) return x;
    memcpy(&u, &x, sizeof u);
    if (x > 0)
        u++;
    else
        u--;
    memcpy(&x, &u, sizeof u);
    return x;
}
HAZE_HOSTONLY double haze__nextdown(double x) {
    return -haze__nextup(-x);
}

HAZE_HOSTONLY float haze__nextupf(float x) {
    uint32_t u;
    if (x == 0) return 0x1p-149f;
    if (x == (float)INFINITY) return x;
    memcpy(&u, &x, sizeof u);
    if (x > 0)
        u++;
    else
        u--;
    memcpy(&x, &u, sizeof u);
    return x;
}
HAZE_HOSTONLY float haze__nextdownf(float x) {
    return -haze__nextupf(-x);
}

/*
 * The exact value x = (q + t) * 2^S, where q > 0 is a double near 1 and t a
 * tail whose sign is sigma, rounded up (up != 0) or down. Used where the
 * result may be subnormal or overflow, so that q * 2^S is not exact.
 * r = RN(q * 2^S) (ldexp rounds once); d = q - r * 2^-S is exact (scaling up
 * is exact, and Sterbenz's lemma holds because r is within a factor 2 of
 * q * 2^S or zero), so sign(x - r) is sign(d), or sigma when d is zero.
 */
HAZE_HOSTONLY double haze__round_scaled(double q, int S, int sigma, int up) {
    double r = ldexp(q, S);
    if (r == (double)INFINITY) return up ? r : DBL_MAX;
    double d = q - ldexp(r, -S);
    int s = d > 0 ? 1 : d < 0 ? -1 : sigma;
    if (up && s > 0) r = haze__nextup(r);
    if (!up && s < 0) r = haze__nextdown(r);
    return r;
}

/* Directed product of finite nonzero a, b whose product is tiny (|ab| < 2^-968). */
HAZE_HOSTONLY double haze__mul_tiny(double a, double b, int up) {
    int ea, eb;
    double ma = frexp(fabs(a), &ea), mb = frexp(fabs(b), &eb);
    double p = ma * mb;         /* in [0.25, 1): no underflow */
    double e = fma(ma, mb, -p); /* exact */
    int neg = signbit(a) != signbit(b);
    double r = haze__round_scaled(p, ea + eb, e > 0 ? 1 : e < 0 ? -1 : 0, up != neg);
    return neg ? -r : r;
}

/* Directed quotient of finite nonzero a, b with tiny |a| (< 2^-960). */
HAZE_HOSTONLY double haze__div_tiny(double a, double b, int up) {
    int ea, eb;
    double ma = frexp(fabs(a), &ea), mb = frexp(fabs(b), &eb);
    double q = ma / mb;           /* in (0.5, 2) */
    double rem = fma(-q, mb, ma); /* exact: all operands near 1 */
    int neg = signbit(a) != signbit(b);
    double r = haze__round_scaled(q, ea - eb, rem > 0 ? 1 : rem < 0 ? -1 : 0, up != neg);
    return neg ? -r : r;
}

HAZE_HOSTONLY double haze__add_dir(double a, double b, int up) {
    double s = a + b;
    if (!isfinite(s)) {
        if (isfinite(a) && isfinite(b)) /* overflow: exact value beyond DBL_MAX */
            return s > 0 ? (up ? s : DBL_MAX) : (up ? -DBL_MAX : s);
        return s;
    }
    double bb = s - a;
    double e = (a - (s - bb)) + (b - bb); /* TwoSum: a + b = s + e exactly */
    if (up) return e > 0 ? haze__nextup(s) : s;
    if (e < 0) return haze__nextdown(s);
    if (s == 0 && !(a == 0 && b == 0 && !signbit(a) && !signbit(b))) return -0.0;
    return s;
}

HAZE_HOSTONLY double haze__mul_dir(double a, double b, int up) {
    double p = a * b;
    if (!isfinite(p)) {
        if (isfinite(a) && isfinite(b)) return p > 0 ? (up ? p : DBL_MAX) : (up ? -DBL_MAX : p);
        return p;
    }
    if (a == 0 || b == 0) return p; /* exact zero, sign by the usual rule */
    if (fabs(p) >= 0x1p-968) {
        /* e_a + e_b >= emin + 52: the product's error is a double, fma gives it */
        double e = fma(a, b, -p);
        if (up) return e > 0 ? haze__nextup(p) : p;
        return e < 0 ? haze__nextdown(p) : p;
    }
    return haze__mul_tiny(a, b, up);
}

HAZE_HOSTONLY double haze__div_dir(double a, double b, int up) {
    double q = a / b;
    if (a == 0 || b == 0 || !isfinite(a) || !isfinite(b)) return q; /* exact or invalid */
    if (isinf(q)) return q > 0 ? (up ? q : DBL_MAX) : (up ? -DBL_MAX : q);
    if (fabs(a) >= 0x1p-960) {
        /* a nonzero residual is a multiple of >= 2^-1065, so fma cannot flush it to 0 */
        double rem = fma(-q, b, a);
        int s = rem > 0 ? 1 : rem < 0 ? -1 : 0;
        if (b < 0) s = -s; /* sign(a/b - q) */
        if (up) return s > 0 ? haze__nextup(q) : q;
        return s < 0 ? haze__nextdown(q) : q;
    }
    return haze__div_tiny(a, b, up);
}

HAZE_HOSTONLY double haze__sqrt_dir(double a, int up) {
    if (!(a > 0) || a == (double)INFINITY) return sqrt(a); /* +-0, inf: exact; <0, NaN */
    double scale = 1.0, x = a;
    if (a < 0x1p-960) { /* scale by 2^1100 (even) so the residual cannot underflow */
        x = a * 0x1p550 * 0x1p550;
        scale = 0x1p-550;
    }
    double s = sqrt(x);
    double rem = fma(-s, s, x);
    if (up && rem > 0) s = haze__nextup(s);
    if (!up && rem < 0) s = haze__nextdown(s);
    return s * scale; /* exact: sqrt of a double >= 2^-1074 is >= 2^-537 */
}

/* Float: the double result is exact (mul) or comes with its error sign. */
HAZE_HOSTONLY float haze__f_from_d(double x, int sigma, int up) {
    float f = (float)x; /* one of the two floats around the exact value */
    double fd = (double)f;
    int s = fd < x ? 1 : fd > x ? -1 : sigma; /* sign(exact - f) */
    if (up && s > 0) f = haze__nextupf(f);
    if (!up && s < 0) f = haze__nextdownf(f);
    return f;
}

HAZE_HOSTONLY float haze__addf_dir(float a, float b, int up) {
    double x = a, y = b;
    double s = x + y;
    if (!isfinite(s)) return (float)s; /* only with infinite or NaN operands */
    double bb = s - x;
    double e = (x - (s - bb)) + (y - bb);
    if (s == 0) { /* exact zero: IEEE sign rule for the rounding direction */
        if (up) return a + b;
        return (a == 0 && b == 0 && !signbit(a) && !signbit(b)) ? 0.0f : -0.0f;
    }
    return haze__f_from_d(s, e > 0 ? 1 : e < 0 ? -1 : 0, up);
}

HAZE_HOSTONLY float haze__mulf_dir(float a, float b, int up) {
    double p = (double)a * (double)b; /* exact: 48 bits, exponent within double's range */
    if (!isfinite(p) || p == 0) return (float)p;
    return haze__f_from_d(p, 0, up);
}

HAZE_HOSTONLY float haze__divf_dir(float a, float b, int up) {
    if (a == 0 || b == 0 || !isfinite(a) || !isfinite(b)) return a / b;
    double q = (double)a / (double)b;
    double rem = fma(-q, (double)b, (double)a);
    int s = rem > 0 ? 1 : rem < 0 ? -1 : 0;
    if (b < 0) s = -s;
    return haze__f_from_d(q, s, up);
}

HAZE_HOSTONLY float haze__sqrtf_dir(float a, int up) {
    if (!(a > 0) || a == (float)INFINITY) return sqrtf(a);
    double x = a;
    double s = sqrt(x);
    double rem = fma(-s, s, x);
    return haze__f_from_d(s, rem > 0 ? 1 : rem < 0 ? -1 : 0, up);
}

#endif /* host helpers */

/* ------------------------------------------------------- public operations */
#if defined(__CUDA_ARCH__)
#define HAZE__DIR2(dev, host, a, b) dev(a, b)
#define HAZE__DIR1(dev, host, a)    dev(a)
#else
#define HAZE__DIR2(dev, host, a, b) host
#define HAZE__DIR1(dev, host, a)    host
#endif

HAZE_HD double haze_rd_add(double a, double b) {
    return HAZE__DIR2(__dadd_rd, haze__add_dir(a, b, 0), a, b);
}
HAZE_HD double haze_ru_add(double a, double b) {
    return HAZE__DIR2(__dadd_ru, haze__add_dir(a, b, 1), a, b);
}
HAZE_HD double haze_rd_sub(double a, double b) {
    return haze_rd_add(a, -b);
}
HAZE_HD double haze_ru_sub(double a, double b) {
    return haze_ru_add(a, -b);
}
HAZE_HD double haze_rd_mul(double a, double b) {
    return HAZE__DIR2(__dmul_rd, haze__mul_dir(a, b, 0), a, b);
}
HAZE_HD double haze_ru_mul(double a, double b) {
    return HAZE__DIR2(__dmul_ru, haze__mul_dir(a, b, 1), a, b);
}
HAZE_HD double haze_rd_div(double a, double b) {
    return HAZE__DIR2(__ddiv_rd, haze__div_dir(a, b, 0), a, b);
}
HAZE_HD double haze_ru_div(double a, double b) {
    return HAZE__DIR2(__ddiv_ru, haze__div_dir(a, b, 1), a, b);
}
HAZE_HD double haze_rd_sqrt(double a) {
    return HAZE__DIR1(__dsqrt_rd, haze__sqrt_dir(a, 0), a);
}
HAZE_HD double haze_ru_sqrt(double a) {
    return HAZE__DIR1(__dsqrt_ru, haze__sqrt_dir(a, 1), a);
}

HAZE_HD float haze_rd_addf(float a, float b) {
    return HAZE__DIR2(__fadd_rd, haze__addf_dir(a, b, 0), a, b);
}
HAZE_HD float haze_ru_addf(float a, float b) {
    return HAZE__DIR2(__fadd_ru, haze__addf_dir(a, b, 1), a, b);
}
HAZE_HD float haze_rd_subf(float a, float b) {
    return haze_rd_addf(a, -b);
}
HAZE_HD float haze_ru_subf(float a, float b) {
    return haze_ru_addf(a, -b);
}
HAZE_HD float haze_rd_mulf(float a, float b) {
    return HAZE__DIR2(__fmul_rd, haze__mulf_dir(a, b, 0), a, b);
}
HAZE_HD float haze_ru_mulf(float a, float b) {
    return HAZE__DIR2(__fmul_ru, haze__mulf_dir(a, b, 1), a, b);
}
HAZE_HD float haze_rd_divf(float a, float b) {
    return HAZE__DIR2(__fdiv_rd, haze__divf_dir(a, b, 0), a, b);
}
HAZE_HD float haze_ru_divf(float a, float b) {
    return HAZE__DIR2(__fdiv_ru, haze__divf_dir(a, b, 1), a, b);
}
HAZE_HD float haze_rd_sqrtf(float a) {
    return HAZE__DIR1(__fsqrt_rd, haze__sqrtf_dir(a, 0), a);
}
HAZE_HD float haze_ru_sqrtf(float a) {
    return HAZE__DIR1(__fsqrt_ru, haze__sqrtf_dir(a, 1), a);
}

/* Round to nearest, never contracted into an fma (nvcc contracts by default). */
HAZE_HD double haze_rn_add(double a, double b) {
    return HAZE__DIR2(__dadd_rn, a + b, a, b);
}
HAZE_HD double haze_rn_sub(double a, double b) {
    return HAZE__DIR2(__dadd_rn, a - b, a, -b);
}
HAZE_HD double haze_rn_mul(double a, double b) {
    return HAZE__DIR2(__dmul_rn, a * b, a, b);
}
HAZE_HD double haze_rn_div(double a, double b) {
    return HAZE__DIR2(__ddiv_rn, a / b, a, b);
}
HAZE_HD float haze_rn_addf(float a, float b) {
    return HAZE__DIR2(__fadd_rn, a + b, a, b);
}
HAZE_HD float haze_rn_subf(float a, float b) {
    return HAZE__DIR2(__fadd_rn, a - b, a, -b);
}
HAZE_HD float haze_rn_mulf(float a, float b) {
    return HAZE__DIR2(__fmul_rn, a * b, a, b);
}
HAZE_HD float haze_rn_divf(float a, float b) {
    return HAZE__DIR2(__fdiv_rn, a / b, a, b);
}

#ifdef __cplusplus
}
#endif

#endif /* HAZE_ROUND_H */
