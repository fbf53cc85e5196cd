/*
 * haze/interval.h - certified intervals in float and double, usable in host
 * code and inside CUDA kernels (all functions are header inline, marked
 * __host__ __device__ under nvcc).
 *
 * Two encodings, after Definitions 4 and 5 of the paper that haze's fuzzy
 * arithmetic follows (see docs/fuzzy.md):
 *   haze_ivd / haze_ivf   lower-upper [lo, hi]
 *   haze_mrd / haze_mrf   midpoint-radius <mid, rad> = [mid - rad, mid + rad]
 *
 * Every operation returns an interval that contains the exact result for
 * all points of the operands (inclusion isotonicity). Lower-upper +, -, *,
 * /, recip, sqr, sqrt are optimal: each bound is the exact bound rounded
 * outward (haze/round.h), so the CPU and the GPU give the same bits.
 *
 * Special results, never silent garbage:
 *   - the empty set has NaN bounds (haze_ivd_is_empty); sqrt of [lo, hi] with
 *     hi < 0 and division by [0, 0] give it;
 *   - division by an interval containing 0 gives the IEEE 1788 hull
 *     (a half-line or the whole line, haze_ivd_is_finite() says 0);
 *   - midpoint-radius results whose midpoint would overflow, and 1/<m, rho>
 *     with |m| <= rho, are the whole line <0, +inf>.
 * Operands are expected finite; infinite bounds are accepted by add, sub,
 * recip, div, sqr, sqrt (with IEEE 1788 results) but mul is only defined
 * for finite operands (0 * inf is NaN).
 *
 * Functions: haze_iv{d,f}_{make, empty, entire, is_empty, is_finite,
 * contains, subset, neg, add, sub, mul, recip, div, sqr, sqrt, hull, to_mr}
 * and haze_mr{d,f}_{make, entire, empty, is_empty, is_finite, mid_err, neg,
 * add, sub, mul, recip, div, sqr, sqrt, to_iv}.
 *
 * Threads: as haze/core.h says ("Threads"); these are pure functions on
 * values, so any calls may overlap.
 */
#ifndef HAZE_INTERVAL_H
#define HAZE_INTERVAL_H

#include "haze/round.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct haze_ivd {
    double lo, hi;
} haze_ivd;
typedef struct haze_ivf {
    float lo, hi;
} haze_ivf;
typedef struct haze_mrd {
    double mid, rad;
} haze_mrd;
typedef struct haze_mrf {
    float mid, rad;
} haze_mrf;

/* Unit roundoff u = eps/2 and the smallest subnormal eta of each format. */
#define HAZE_U_DOUBLE   0x1p-53
#define HAZE_ETA_DOUBLE 0x1p-1074
#define HAZE_U_FLOAT    0x1p-24f
#define HAZE_ETA_FLOAT  0x1p-149f

#define HAZE__P d
#define HAZE__S
#define HAZE__T   double
#define HAZE__U   HAZE_U_DOUBLE
#define HAZE__ETA HAZE_ETA_DOUBLE
#define HAZE__INF ((double)INFINITY)
#define HAZE__NAN ((double)NAN)
#include "haze/interval_impl.h"
#undef HAZE__P
#undef HAZE__S
#undef HAZE__T
#undef HAZE__U
#undef HAZE__ETA
#undef HAZE__INF
#undef HAZE__NAN

#define HAZE__P   f
#define HAZE__S   f
#define HAZE__T   float
#define HAZE__U   HAZE_U_FLOAT
#define HAZE__ETA HAZE_ETA_FLOAT
#define HAZE__INF ((float)INFINITY)
#define HAZE__NAN ((float)NAN)
#include "haze/interval_impl.h"
#undef HAZE__P
#undef HAZE__S
#undef HAZE__T
#undef HAZE__U
#undef HAZE__ETA
#undef HAZE__INF
#undef HAZE__NAN

#ifdef __cplusplus
}
#endif

#endif /* HAZE_INTERVAL_H */
