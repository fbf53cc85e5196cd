/*
 * src/prec/prec_internal.h - the analyser's shared types: the hash-consed
 * expression graph a script is compiled to (prec_graph.c), with its inputs,
 * rounding formats and goals. Every other part of the analyser sits on it:
 *
 *   front ends (prec_front.h: Gappa, FPCore)
 *     -> graph (this header; on prec_pint.h and prec_op.h)
 *     -> engines (prec_engine.h: MPFR interval and affine, point evaluation;
 *        prec_box_internal.h: double-interval boxes on the CPU and the GPU)
 *     -> driver (prec_driver.h: bisection, refinement, GPU dispatch, shared roundings)
 *     -> report (prec_report.h) -> API (prec.c)
 *
 * Each arrow is "is read by": a header includes only headers to its left.
 */
#ifndef HAZE_PREC_INTERNAL_H
#define HAZE_PREC_INTERNAL_H

#include <limits.h>

#include "core/internal.h"
#include "haze/prec.h"
#include "prec/prec_result.h"
#include "prec/prec_pint.h"

/* ---------------------------------------------------------------- graph */

#define FIX_UNKNOWN LONG_MIN
#define FLT_UNKNOWN LONG_MAX

typedef struct pnode {
    int op;
    int a, b, c; /* children (-1 if none); always smaller ids than the node */
    int strip;   /* the same expression with every rounding removed (self if none) */
    int fmt;     /* OP_RND: index into the script's formats */
    int var;     /* OP_VAR: input index */
    int line, col;
    long fix; /* the value is a multiple of 2^fix (FIX_UNKNOWN if not known) */
    long flt; /* the value has at most flt significant bits (FLT_UNKNOWN) */
    pint k;   /* OP_CONST: an enclosure of the constant (a point when dyadic) */
} pnode;

enum { GOAL_VALUE, GOAL_ABS, GOAL_REL, GOAL_ABSREL };

typedef struct pgoal {
    int node; /* the expression (for relative goals: (a - b) / b) */
    int kind; /* GOAL_* */
    int has_lo, has_hi;
    pint want; /* stated bounds */
    char *text;
} pgoal;

typedef struct pvar {
    char *name;
    int has_range;
    pint range;
    long bisect; /* sub-ranges (1: none) */
    int line, col;
} pvar;

struct haze_prec_script {
    char *name;
    pnode *nodes;
    int n_nodes, cap_nodes;
    int *hash; /* open addressing over node ids, -1 empty */
    int hash_cap;
    pformat *fmts;
    int n_fmts, cap_fmts;
    pvar *vars;
    int n_vars, cap_vars;
    pgoal *goals;
    int n_goals, cap_goals;
    long refine;  /* analyses allowed for adaptive refinement (-1: automatic) */
    int no_share; /* 1: no second pass for roundings shared by a goal's sides */
    int fpcore;   /* 1: read from FPCore (the messages name its words) */
    char **notes; /* what the parser read but does not use (haze_prec_note) */
    int n_notes;
    haze_prec_progress_fn progress; /* haze_prec_set_progress; NULL in copies */
    void *progress_arg;
};

/* Node constructors (hash-consed; simplify x - x to 0 and fold exact constants). */
int haze__prec_node(haze_prec_script *s, int op, int a, int b, int c, int fmt, int line, int col);
int haze__prec_const(haze_prec_script *s, const pint *k, int line, int col);
int haze__prec_var(haze_prec_script *s, int var, int line, int col);
int haze__prec_add_format(haze_prec_script *s, const pformat *f);
int haze__prec_add_var(haze_prec_script *s, const char *name, int line, int col);
int haze__prec_find_var(const haze_prec_script *s, const char *name);

haze_prec_script *haze__prec_script_new(const char *name);
/* Adds a note for haze_prec_note(); HAZE_ERR_NOMEM if it cannot. */
int haze__prec_add_note(haze_prec_script *s, const char *text);

/* Frees a script and everything it holds (s may be NULL). */
void haze__prec_script_free(haze_prec_script *s);
/* Every input a goal depends on has a range, and there is a goal; else
 * HAZE_ERR_PARSE with the place of the first input without one. */
int haze__prec_check_ranges(haze_ctx *ctx, const haze_prec_script *s);

#endif
