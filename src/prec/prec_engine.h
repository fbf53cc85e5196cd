/*
 * src/prec/prec_engine.h - the MPFR engines: one analysis of one box of
 * inputs with intervals, affine forms or both (prec_analyse.c, on the affine
 * forms of prec_affine.h), and the exact point evaluation the soundness
 * tests sample with (prec_eval.c).
 */
#ifndef HAZE_PREC_ENGINE_H
#define HAZE_PREC_ENGINE_H

#include "prec/prec_internal.h"

/* One analysis of one box of inputs (box[i] for var i); writes the enclosure
 * of each goal into out[i] (initialised by the caller). */
int haze__prec_analyse_box(haze_ctx *ctx, const haze_prec_script *s, const pint *box,
                           haze_prec_engine engine, pint *out);

/* The goals' values at point x (one double per input), computed with
 * prec_bits of precision, each rounded to the nearest double. Runs under the
 * caller's haze__mp_run guard; the arguments are checked by the caller. */
int haze__prec_eval_point(haze_ctx *ctx, const haze_prec_script *s, const double *x, long prec_bits,
                          double *out);

#endif
