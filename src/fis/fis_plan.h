/*
 * src/fis/fis_plan.h - what an evaluation of a model precomputes: the output
 * MFs tabulated at their points (with each MF's support) and, for the
 * common class of Mamdani systems, the rules as a flat program. A plan
 * depends on the model, its mode and its points only; it is built once and
 * cached in the model (haze__fis_plan_get), and haze_fis_set_mode and
 * haze_fis_set_points drop it. The row evaluator (fis_row.h) reads its
 * tables through haze__fis_tabs, which the CUDA driver points at device
 * copies.
 */
#ifndef HAZE_FIS_PLAN_H
#define HAZE_FIS_PLAN_H

#include <stddef.h>

#include "fis/fis_model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Most distinct output sets the centroid's fast walks handle (fis_row.h),
 * and so most sets per output of a model in the common class. */
#define HAZE__FAST_RULES 16

/* The tables the row evaluator reads; a pointer NULL when there is none.
 *  grid:  nmfs x gstride doubles, output MF m at point k of its output at
 *         grid[m * gstride + k] (Mamdani outputs only), then each MF's
 *         support: the first and last point where it is not 0 (gstride and
 *         -1 when none);
 *  plain: for a model in the common class (haze__fis_eval_row_plain), its
 *         rules: for rule r, its antecedents are entries plain[r] ..
 *         plain[r + 1] - 1 of the list at plain + nr + 1 + no, each the
 *         index of the input MF among the memoised degrees, or -1 - that
 *         index for NOT; plain[nr + 1 + o] is 1 where the supports of
 *         output o's sets are pairwise disjoint. */
typedef struct haze__fis_tabs {
    const double *grid;
    const int *plain;
    int gstride; /* the most points of any output */
} haze__fis_tabs;

typedef struct haze__fis_plan {
    int mode, points; /* what it was built for */
    /* never the same for two plans of the process (a model changed since
     * has another plan): names the model's device images (fis_cuda.cu) */
    unsigned long long serial;
    haze__fis_tabs t;
    size_t grid_len;  /* doubles at t.grid (0: none) */
    size_t plain_len; /* ints at t.plain (0: none) */
} haze__fis_plan;

/* The plan of f for its current mode and points, built on first use and
 * cached in f: threads that share f may call this at once (the first plan
 * published wins; the others are freed). It stays valid until the mode or
 * the points change or f is freed. NULL only when out of memory: the
 * evaluation then computes every MF itself (haze__fis_tabs all NULL),
 * which gives the same results. */
const haze__fis_plan *haze__fis_plan_get(const haze_fis *f);

#ifdef __cplusplus
}
#endif

#endif
