/*
 * src/prec/prec_driver.h - the driver: runs the engines over the script's
 * input box. Bisection over CPU threads or on the GPU (prec_bisect.c,
 * prec_gpu.c), adaptive refinement of the sub-boxes that decide a bound
 * (prec_refine.c), the second pass for roundings that both sides of a goal
 * share (prec_share.c), and the whole of it (prec_driver.c).
 */
#ifndef HAZE_PREC_DRIVER_H
#define HAZE_PREC_DRIVER_H

#include "prec/prec_box_internal.h"
#include "prec/prec_engine.h"

/* Refuse more sub-boxes than this (the product of the bisection counts). */
#define PREC_MAX_BOXES 100000000L

/* Inputs halved before refinement when the script has no bisection. */
#define PREC_REFINE_AUTO_DIMS 6
/* Refinement needs the grid's results in memory: not beyond this many boxes. */
#define PREC_REFINE_MAX_GRID 65536L

/* The cost of one box analysis, in the units of haze__threads_for: the
 * script's graph nodes, PREC_AA_COST times as many with affine forms; a
 * thread gets PREC_PAR_COST of them at least (about 100 us on one core;
 * docs/benchmarks.md, "CPU threads"). */
#define PREC_AA_COST  4
#define PREC_PAR_COST 200
static inline double haze__prec_box_cost(const haze_prec_script *s, haze_prec_engine engine) {
    double n = s->n_nodes > 1 ? (double)s->n_nodes : 1;
    return engine & HAZE_PREC_AA ? n * (1 + PREC_AA_COST) : n;
}

/* A sub-box kept for refinement ("leaf") with its enclosures. */
typedef struct pleaf {
    pint *box; /* n_vars */
    pint *res; /* n_goals */
    int stall; /* splits in a row, up to this leaf, that did not lower the bound */
    long root; /* the box of the bisection grid it comes from */
} pleaf;

int haze__prec_leaf_alloc(pleaf *l, int nv, int ng);
void haze__prec_leaf_free(pleaf *l, int nv, int ng);

/* haze__prec_analyse_box on a worker thread, under that thread's own guard
 * against out of memory inside MPFR (a longjmp cannot cross threads). */
int haze__prec_analyse_box_guarded(haze_ctx *local, const haze_prec_script *s, const pint *box,
                                   haze_prec_engine engine, pint *res);

/* Splits leaves until `budget` analyses are spent or every leaf that decides
 * a bound cannot be improved, on up to `threads` threads (fewer for a small
 * script: PREC_PAR_COST). leaves/n/cap are updated; *used counts the
 * analyses. Returns a status (only out of memory stops it: a sub-box whose
 * analysis fails is simply not split that way). */
int haze__prec_refine(const haze_prec_script *s, haze_prec_engine engine, int threads,
                      pleaf **leaves, long *n_leaves, long *cap, long budget, long *used);

/* The whole box on the GPU when the context uses it, the engine is the
 * interval one and the script suits the double-interval engine: *done = 1
 * and acc[g] the joined enclosures (or the GPU's error returned). *done = 0
 * and HAZE_OK otherwise (the CPU does it). */
int haze__prec_enclose_gpu(haze_ctx *ctx, const haze_prec_script *s, haze_prec_engine engine,
                           pint *acc, prec_boxrec *rec, int *done);

/* The records of the boxes of s's bisection grid (haze_prec_result_box),
 * each enclosure empty and each input's sub-ranges not yet set; n_box 0
 * when the grid times the goals is more than HAZE_PREC_MAX_BOX_RECORDS.
 * NULL when out of memory. Freed by haze__prec_boxrec_free (prec_result.h). */
prec_boxrec *haze__prec_boxrec_new(const haze_prec_script *s);

/* Bisection (the script's grid, or an automatic one for refinement) and
 * refinement: acc[g] (initialised by the caller) receives each goal's
 * enclosure, *boxes the number of sub-boxes analysed last, and rec (NULL:
 * none) each grid box's enclosures (the hull of its refined leaves) and the
 * inputs' sub-ranges. Runs under the caller's haze__mp_run guard. */
int haze__prec_bisect(haze_ctx *ctx, const haze_prec_script *s, haze_prec_engine engine, pint *acc,
                      prec_boxrec *rec, long *boxes);

/* Second analysis with the rounding nodes that both sides of a goal share
 * replaced by exact inputs; intersects acc[goal] with its enclosures.
 * Returns a status (the caller ignores all but out of memory). */
int haze__prec_share_pass(haze_ctx *ctx, const haze_prec_script *s, pint *acc);

/* Bisection, refinement and the shared-rounding pass: acc[g] (initialised
 * by the caller) the enclosure of goal g, *boxes the number of sub-boxes.
 * Runs under the caller's haze__mp_run guard. */
int haze__prec_enclose(haze_ctx *ctx, const haze_prec_script *s, haze_prec_engine engine, pint *acc,
                       prec_boxrec *rec, long *boxes);

#endif
