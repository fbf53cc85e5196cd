/*
 * src/prec/prec_result.h - the layout of haze_prec_result, opaque in the
 * public API (haze/prec.h).
 */
#ifndef HAZE_PREC_RESULT_H
#define HAZE_PREC_RESULT_H

#include <stddef.h>

#include "haze/prec.h"

struct haze_prec_result {
    size_t n_goals;
    haze_prec_goal *goals;
    size_t boxes;   /* sub-boxes analysed (the bisection grid plus refinement) */
    double seconds; /* wall time of the analysis */
    int all_proved; /* 1 if every goal with a stated bound is proved */
};

#endif
