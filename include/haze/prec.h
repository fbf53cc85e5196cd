/*
 * haze/prec.h - static rounding-error analysis of straight-line numerical
 * code, in the style of Gappa extended with an affine-arithmetic engine
 * (Linderman, Ho, Dill, Meng, Nolan: "Towards Program Optimization through
 * Automated Analysis of Numerical Precision", CGO 2010, "Gappa++").
 *
 * A script (Gappa's language, or FPBench's FPCore) defines exact and rounded
 * expressions, hypotheses on the input ranges and goals such as
 * "y_float - y_exact in ?". The analyser encloses every goal with bounds that
 * are rounded outward (the analyser computes with MPFR intervals), so a real
 * execution can never leave them. See docs/prec.md for the language, the
 * engines and the rounding models.
 *
 * Threads: as haze/core.h says ("Threads"). A script is read-only in
 * haze_prec_analyse and haze_prec_eval; the set_ calls change it and must
 * not overlap with any other call on it. A result is read-only.
 */
#ifndef HAZE_PREC_H
#define HAZE_PREC_H

#include <stddef.h>

#include "haze/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct haze_prec_script haze_prec_script;

/*
 * Parses a script held in `text` (NUL-terminated). `name` is used in messages
 * ("name:line:col: ..."). A text whose first non-blank, non-comment character
 * is '(' is read as FPCore, anything else as Gappa's language. Syntax errors,
 * unsupported constructs, undefined names and empty or inverted ranges return
 * HAZE_ERR_PARSE (or HAZE_ERR_UNSUPPORTED) with line and column in the message.
 *
 * Ownership: on success *out is new and freed with haze_prec_free(); the
 * script does not keep `text` or `name`.
 */
typedef struct haze_prec_parse_options {
    size_t size; /* sizeof(haze_prec_parse_options): set by haze_prec_parse_options_default() */
    /* FPCore while / while* loops: 0 rejects them; N > 0 unrolls them (at most
     * N iterations each), which needs loop conditions that do not depend on
     * the inputs and that the rounded and the exact execution decide alike. */
    long unroll;
    /* FPCore: at most this many operations once loops are unrolled (nested
     * loops multiply their iterations); more is HAZE_ERR_UNSUPPORTED. 0: the
     * default, 10^6. */
    long max_ops;
} haze_prec_parse_options;

/* Fills the first `size` bytes of *opt with the defaults (all 0) and sets
 * opt->size (haze/core.h); HAZE_ERR_INVALID when size < sizeof(size_t). */
HAZE_API int haze_prec_parse_options_init(haze_prec_parse_options *opt, size_t size);
static inline haze_prec_parse_options haze_prec_parse_options_default(void) {
    haze_prec_parse_options opt;
    haze_prec_parse_options_init(&opt, sizeof opt);
    return opt;
}

/* `opt` may be NULL (the defaults). */
HAZE_API int haze_prec_parse(haze_ctx *ctx, const char *text, const char *name,
                             const haze_prec_parse_options *opt, haze_prec_script **out);
/* The same for a file ("-" reads standard input). */
HAZE_API int haze_prec_load(haze_ctx *ctx, const char *path, const haze_prec_parse_options *opt,
                            haze_prec_script **out);
/* Frees a script; NULL is a no-op. */
HAZE_API void haze_prec_free(haze_prec_script *s);

/* Number of goals of the script, and the number of input variables. */
HAZE_API size_t haze_prec_goal_count(const haze_prec_script *s);
HAZE_API size_t haze_prec_var_count(const haze_prec_script *s);
/* Name of input variable i (valid while the script lives). */
HAZE_API const char *haze_prec_var_name(const haze_prec_script *s, size_t i);
/*
 * Notes the parser left: parts of the script it read but does not use, such
 * as an FPCore :pre conjunct that is not a range of one argument
 * ((> (+ a b) c) is dropped; the bounds then hold for the whole box). A
 * program should show them as warnings. Note i from 0, NULL past the last;
 * valid while the script lives.
 */
HAZE_API size_t haze_prec_note_count(const haze_prec_script *s);
HAZE_API const char *haze_prec_note(const haze_prec_script *s, size_t i);

/*
 * Sets the number of equal sub-ranges the input variable `var` is bisected
 * into (1: none), replacing the script's "$ var in N;" hint.
 * HAZE_ERR_INVALID if there is no such input or n < 1.
 */
HAZE_API int haze_prec_set_bisect(haze_ctx *ctx, haze_prec_script *s, const char *var, long n);

/*
 * Adaptive refinement: after the bisection grid, the sub-box whose enclosure
 * decides a goal's bound is split in two (along the input whose split lowers
 * the bound most) and analysed again, up to `analyses` extra box analyses;
 * the result is the hull of the final sub-boxes (sound: they cover the
 * box). 0 turns it off; HAZE_PREC_REFINE_AUTO (the default of a parsed
 * script) allows HAZE_PREC_REFINE_DEFAULT analyses for scripts of at most
 * 512 graph nodes and none for larger ones. HAZE_ERR_INVALID if analyses <
 * -1.
 */
#define HAZE_PREC_REFINE_AUTO    (-1L)
#define HAZE_PREC_REFINE_DEFAULT 256L
HAZE_API int haze_prec_set_refine(haze_ctx *ctx, haze_prec_script *s, long analyses);

/*
 * Progress of haze_prec_analyse on the CPU, for a progress display: fn is
 * called on the calling thread with arg, the stage, and how many of the
 * stage's sub-box analyses are done of total (grid: the boxes of the
 * bisection grid, reported after each box the calling thread analyses;
 * refinement: the analyses used of the budget, which it may stop short
 * of). Not called for a grid that runs on the GPU. NULL fn turns it off.
 */
enum { HAZE_PREC_STAGE_GRID = 0, HAZE_PREC_STAGE_REFINE = 1 };
typedef void (*haze_prec_progress_fn)(void *arg, int stage, long done, long total);
HAZE_API int haze_prec_set_progress(haze_ctx *ctx, haze_prec_script *s, haze_prec_progress_fn fn,
                                    void *arg);

typedef enum haze_prec_engine {
    HAZE_PREC_IA = 1,  /* intervals with Gappa's rewriting and FIX/FLT reasoning */
    HAZE_PREC_AA = 2,  /* affine forms: one noise symbol per input and per rounding */
    HAZE_PREC_BOTH = 3 /* both, keeping the tighter enclosure at every node */
} haze_prec_engine;

/* "ia", "aa", "both" (parse: ctx may be NULL). */
HAZE_API const char *haze_prec_engine_name(haze_prec_engine e);
HAZE_API int haze_prec_engine_parse(haze_ctx *ctx, const char *s, haze_prec_engine *out);

/* One goal of a result (haze_prec_result_goal): made by the library and
 * reached by pointer only; size is the size of the struct it filled, so a
 * caller built against a later header checks it before reading a field
 * added later. */
typedef struct haze_prec_goal {
    size_t size;      /* sizeof(haze_prec_goal) of the library */
    const char *text; /* the goal as written, e.g. "o_fx - o_m in ?" */
    int has_bound;    /* 1 if the goal states bounds to prove */
    int proved;       /* with a stated bound: 1 if the enclosure lies inside it */
    int relative;     /* 1 for a relative-error goal (a -/ b) */
    int absolute;     /* 1 for a goal on |e| */
    double lo, hi;    /* the enclosure, rounded outward to double (+-inf if unbounded) */
    char *lo_exact;   /* the enclosure's bounds exactly, as "m*2^e" dyadic strings */
    char *hi_exact;
    char *lo_decimal; /* the bounds in decimal, rounded outward (10 digits) */
    char *hi_decimal;
    double want_lo, want_hi; /* the stated bound (when has_bound), rounded inward */
} haze_prec_goal;

/* The result of an analysis: an opaque handle, read through the accessors below. */
typedef struct haze_prec_result haze_prec_result;

/*
 * Analyses the script with engine `engine`, bisecting the inputs as the
 * script's hints and haze_prec_set_bisect() say; the sub-boxes are analysed
 * in parallel over the context's CPU threads, or on the GPU where the CUDA
 * backend supports the script (see docs/prec.md), and the enclosures are
 * joined. Division by a range that contains zero, the logarithm or square
 * root of a range reaching below zero return HAZE_ERR_DOMAIN naming the line
 * and column of the operation.
 *
 * Ownership: on success *out is new and freed with haze_prec_result_free().
 */
HAZE_API int haze_prec_analyse(haze_ctx *ctx, const haze_prec_script *s, haze_prec_engine engine,
                               haze_prec_result **out);
/* Frees a result; NULL is a no-op. */
HAZE_API void haze_prec_result_free(haze_prec_result *r);
/* Number of goals, and goal i (NULL past the last; valid while r lives). */
HAZE_API size_t haze_prec_result_goal_count(const haze_prec_result *r);
HAZE_API const haze_prec_goal *haze_prec_result_goal(const haze_prec_result *r, size_t i);
/* Sub-boxes analysed (the bisection grid plus refinement). */
HAZE_API size_t haze_prec_result_boxes(const haze_prec_result *r);
/* Wall time of the analysis, seconds. */
HAZE_API double haze_prec_result_seconds(const haze_prec_result *r);
/* 1 if every goal with a stated bound is proved. */
HAZE_API int haze_prec_result_all_proved(const haze_prec_result *r);

/*
 * Executes the script's arithmetic at one point: inputs x[0..var_count-1]
 * (in the order of haze_prec_var_name), every rounding operator applied
 * exactly as the format and direction say, exact operations with `prec_bits`
 * bits of MPFR (at least 64; sqrt, exp, log and division are the only inexact
 * ones). Writes the value of each goal's expression (for relative goals the
 * relative error, for |e| goals |e|) to out[0..goal_count-1], rounded to
 * nearest double. This is the reference the soundness tests sample against.
 * prec_bits may be at most HAZE_PREC_EVAL_MAX_BITS, and the script's numbers
 * at that precision at most HAZE_PREC_EVAL_MAX_BYTES together; more is
 * HAZE_ERR_INVALID.
 */
#define HAZE_PREC_EVAL_MAX_BITS  (1L << 24)
#define HAZE_PREC_EVAL_MAX_BYTES (1024.0 * 1048576.0)
HAZE_API int haze_prec_eval(haze_ctx *ctx, const haze_prec_script *s, const double *x,
                            long prec_bits, double *out);

/* Range [lo, hi] of input variable i from the hypotheses. */
HAZE_API int haze_prec_var_range(haze_ctx *ctx, const haze_prec_script *s, size_t i, double *lo,
                                 double *hi);

#ifdef __cplusplus
}
#endif

#endif /* HAZE_PREC_H */
