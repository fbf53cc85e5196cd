/*
 * src/fcm/fcm_result.h - the layout of haze_fcm_result, opaque in the public
 * API (haze/fcm.h).
 */
#ifndef HAZE_FCM_RESULT_H
#define HAZE_FCM_RESULT_H

#include <stddef.h>

#include "haze/fcm.h"

struct haze_fcm_result {
    size_t n, d, c;
    double m;
    haze_fcm_metric metric;
    double *centers;     /* c x d, row-major: V(K) of the last iteration K */
    double *norms;       /* GK only: c x d x d norm-inducing matrices A_j; else NULL */
    double *memberships; /* n x c memberships U(K) of these centres, or NULL if not asked */
    double *objective;   /* iterations values J(U(k-1), V(k)) */
    double *change;      /* iterations values ||U(k) - U(k-1)||_F; with the objective's
                            stopping rule the CUDA backend leaves them NaN (not computed) */
    int iterations;      /* iterations run (>= 1) */
    int converged;       /* 1 if the stopping rule was met before max_iter */
    double partition_coefficient; /* (1/n) sum u^2 of U(K), Bezdek */
    double partition_entropy;     /* -(1/n) sum u ln u of U(K), Bezdek */
    double xie_beni;              /* sum u^m d / (n min_{j!=l} |v_j - v_l|^2), Xie & Beni 1991 */
    int degenerate;               /* 0, or HAZE_FCM_DEGENERATE_* bits of U(K), V(K) */
    double timings[HAZE_FCM_TIME_COUNT]; /* seconds, by HAZE_FCM_TIME_* */
};

#endif
