/*
 * src/fcm/fcm_result.c - the accessors of haze_fcm_result and models made
 * from centres (haze/fcm.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fcm/fcm_internal.h"

int haze_fcm_result_new(haze_ctx *ctx, size_t c, size_t d, const double *centres, double m,
                        const double *norms, haze_fcm_result **out) {
    if (!out) return haze__error(ctx, HAZE_ERR_INVALID, "fcm model: NULL argument");
    *out = NULL;
    if (!centres) return haze__error(ctx, HAZE_ERR_INVALID, "fcm model: no centres");
    if (c < 1 || d < 1)
        return haze__error(ctx, HAZE_ERR_INVALID, "fcm model: %zu centres of %zu features", c, d);
    if (norms && c > ((size_t)-1 / sizeof(double)) / d / d)
        return haze__error(ctx, HAZE_ERR_NOMEM, "fcm model: out of memory");
    haze_fcm_result *r = calloc(1, sizeof *r);
    if (!r) return haze__error(ctx, HAZE_ERR_NOMEM, "fcm model: out of memory");
    r->c = c, r->d = d, r->m = m;
    r->metric = norms ? HAZE_FCM_GK : HAZE_FCM_EUCLIDEAN;
    r->centers = malloc(c * d * sizeof *r->centers);
    if (norms) r->norms = malloc(c * d * d * sizeof *r->norms);
    if (!r->centers || (norms && !r->norms)) {
        haze_fcm_result_free(r);
        return haze__error(ctx, HAZE_ERR_NOMEM, "fcm model: out of memory");
    }
    memcpy(r->centers, centres, c * d * sizeof *r->centers);
    if (norms) memcpy(r->norms, norms, c * d * d * sizeof *r->norms);
    *out = r;
    return HAZE_OK;
}

size_t haze_fcm_result_point_count(const haze_fcm_result *r) {
    return r ? r->n : 0;
}

size_t haze_fcm_result_feature_count(const haze_fcm_result *r) {
    return r ? r->d : 0;
}

size_t haze_fcm_result_cluster_count(const haze_fcm_result *r) {
    return r ? r->c : 0;
}

double haze_fcm_result_fuzzifier(const haze_fcm_result *r) {
    return r ? r->m : NAN;
}

haze_fcm_metric haze_fcm_result_metric(const haze_fcm_result *r) {
    return r ? r->metric : HAZE_FCM_EUCLIDEAN;
}

const double *haze_fcm_result_centres(const haze_fcm_result *r) {
    return r ? r->centers : NULL;
}

const double *haze_fcm_result_norms(const haze_fcm_result *r) {
    return r ? r->norms : NULL;
}

const double *haze_fcm_result_memberships(const haze_fcm_result *r) {
    return r ? r->memberships : NULL;
}

const double *haze_fcm_result_objective(const haze_fcm_result *r) {
    return r ? r->objective : NULL;
}

const double *haze_fcm_result_change(const haze_fcm_result *r) {
    return r ? r->change : NULL;
}

int haze_fcm_result_iterations(const haze_fcm_result *r) {
    return r ? r->iterations : 0;
}

int haze_fcm_result_converged(const haze_fcm_result *r) {
    return r ? r->converged : 0;
}

double haze_fcm_result_partition_coefficient(const haze_fcm_result *r) {
    return r ? r->partition_coefficient : NAN;
}

double haze_fcm_result_partition_entropy(const haze_fcm_result *r) {
    return r ? r->partition_entropy : NAN;
}

double haze_fcm_result_xie_beni(const haze_fcm_result *r) {
    return r ? r->xie_beni : NAN;
}

int haze_fcm_result_degenerate(const haze_fcm_result *r) {
    return r ? r->degenerate : 0;
}

const double *haze_fcm_result_timings(const haze_fcm_result *r) {
    return r ? r->timings : NULL;
}
