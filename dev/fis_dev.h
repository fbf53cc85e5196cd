/*
 * dev/fis_dev.h - what the tests and benchmarks need from inside the fis
 * engine: unit probes of its norms, hedges and Function expressions, and
 * which path an evaluation of a model takes. Not part of libhaze.
 */
#ifndef HAZE_DEV_FIS_DEV_H
#define HAZE_DEV_FIS_DEV_H

#include <stddef.h>

#include "haze/fis.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Most doubles of a compiled Function program (a term's parameters). */
#define HAZE_DEV_FIS_FN_MAXP 512

/* The name of norm k (0, 1, ...): the t-norms, then the s-norms, as a .fis
 * file names them ("min" .. "nilpotent_maximum"); NULL past the last (the
 * aggregation "sum" is not among them). */
const char *haze_dev_fis_norm_name(int k);
/* The norm named `name` (any of the above, or "sum") at (a, b); NaN for an
 * unknown name. */
double haze_dev_fis_norm(const char *name, double a, double b);
/* fuzzylite's hedges as written before a term ("not very": very applies
 * first), applied to x; NaN for an unknown word or more than 10 hedges. */
double haze_dev_fis_hedges(const char *words, double x);
/* Compiles a fuzzylite Function expression over the variables
 * names[0..nnames) and the argument x into p (at most cap doubles; p[0] is
 * the program's length n, p[1..n] the program, p[n + 1] = 1); *maxvar is
 * the largest variable index named (-1: none). 0, or the 1-based column of
 * the error described in err. */
int haze_dev_fis_fn_compile(const char *text, const char *const *names, int nnames, double *p,
                            int cap, int *maxvar, char *err, size_t errcap);
/* Runs a compiled program with argument x and the variables' values (NULL:
 * none may be named; a name then reads NaN). */
double haze_dev_fis_fn_eval(const double *p, double x, const double *vars);
/* 1 when a batch evaluation of f (at its mode and points, on the CPU) takes
 * the common-class path (haze__fis_eval_row_plain), else 0; -1 when out of
 * memory. */
int haze_dev_fis_plain(const haze_fis *f);
/* The plan f holds now (fis_plan.h), without building one: NULL when none
 * is cached. Only to compare with what it gives another time. */
const void *haze_dev_fis_plan_cached(const haze_fis *f);
/* The points of output o that an evaluation samples (the model's points,
 * or a .fll resolution); 0 for no such output. */
int haze_dev_fis_output_points(const haze_fis *f, int o);

#ifdef __cplusplus
}
#endif

#endif
