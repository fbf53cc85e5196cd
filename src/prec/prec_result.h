/*
 * src/prec/prec_result.h - the layout of haze_prec_result, opaque in the
 * public API (haze/prec.h).
 */
#ifndef HAZE_PREC_RESULT_H
#define HAZE_PREC_RESULT_H

#include <stddef.h>

#include "haze/prec.h"

/* The enclosure of each box of the bisection grid (haze_prec_result_box).
 * Every block comes from haze__mp_* (prec_report.c, prec_bisect.c). */
typedef struct prec_boxrec {
    size_t n_box; /* the product of the bisection counts; 0: not kept */
    int nv, ng;
    long *split;             /* nv: sub-ranges of each input */
    size_t *off;             /* nv: the first of input v's sub-ranges in sub_lo, sub_hi */
    double *sub_lo, *sub_hi; /* each input's sub-ranges, rounded outward */
    double *lo, *hi;         /* n_box x ng: box b, goal g at b * ng + g */
} prec_boxrec;

/* Frees b and its blocks (NULL: nothing). */
void haze__prec_boxrec_free(prec_boxrec *b);

struct haze_prec_result {
    size_t n_goals;
    haze_prec_goal *goals;
    size_t boxes;     /* sub-boxes analysed (the bisection grid plus refinement) */
    double seconds;   /* wall time of the analysis */
    int all_proved;   /* 1 if every goal with a stated bound is proved */
    prec_boxrec *rec; /* per box of the grid (NULL: none kept) */
};

#endif
