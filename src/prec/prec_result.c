/*
 * src/prec/prec_result.c - the accessors of haze_prec_result (haze/prec.h).
 */
#include "prec/prec_result.h"

size_t haze_prec_result_goal_count(const haze_prec_result *r) {
    return r ? r->n_goals : 0;
}

const haze_prec_goal *haze_prec_result_goal(const haze_prec_result *r, size_t i) {
    return r && i < r->n_goals ? &r->goals[i] : NULL;
}

size_t haze_prec_result_boxes(const haze_prec_result *r) {
    return r ? r->boxes : 0;
}

double haze_prec_result_seconds(const haze_prec_result *r) {
    return r ? r->seconds : 0.0;
}

int haze_prec_result_all_proved(const haze_prec_result *r) {
    return r ? r->all_proved : 0;
}
