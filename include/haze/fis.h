/*
 * haze/fis.h - fuzzy inference systems: Mamdani and Sugeno models read from
 * MATLAB/Octave .fis files and evaluated in batches on the CPU or the GPU.
 *
 * The engine follows the Mamdani/Sugeno inference of MATLAB's Fuzzy Logic
 * Toolbox (evalfis) and of Octave's fuzzy-logic-toolkit: the generalised
 * Mamdani inference that the GPU FIRE edge detector (haze/edge.h) runs for
 * a user's own rule base. docs/fis.md gives the formulas, the sampling modes
 * and every place where MATLAB, Octave and fuzzylite disagree.
 *
 * Threads: as haze/core.h says ("Threads"). A system is read-only in
 * haze_fis_eval; the set_ calls change it and must not overlap with any
 * other call on it.
 */
#ifndef HAZE_FIS_H
#define HAZE_FIS_H

#include <stddef.h>

#include "haze/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct haze_fis haze_fis;

/*
 * How the output universe of a Mamdani system is sampled and integrated.
 *  MATLAB:    linspace(min, max, N) with discrete sums (evalfis, default N 101);
 *             inputs outside their range are clamped; if no rule fires the
 *             output is the middle of its range (counted as a warning).
 *  OCTAVE:    Octave's fuzzy-logic-toolkit 0.4.6: same points, but centroid by
 *             trapz, no clamping, Sugeno outputs with equal locations merged
 *             by the aggregation method, and NaN when no rule fires.
 *  FUZZYLITE: fuzzylite 6: midpoints of N cells (default for .fll engines).
 *  EXACT:     closed-form integrals of the aggregated output set, which is
 *             piecewise linear when the Mamdani output MFs are (trimf, trapmf,
 *             linsmf, linzmf), the implication min or prod and the
 *             aggregation max or sum; the limit of the sampling modes as N
 *             grows. Otherwise as MATLAB (clamping, mid-range, Sugeno). Other
 *             MFs or methods, and .fll engines: haze_fis_eval fails with
 *             HAZE_ERR_UNSUPPORTED naming what (docs/fis.md).
 */
typedef enum haze_fis_mode {
    HAZE_FIS_MODE_MATLAB = 0,
    HAZE_FIS_MODE_OCTAVE = 1,
    HAZE_FIS_MODE_FUZZYLITE = 2,
    HAZE_FIS_MODE_EXACT = 3
} haze_fis_mode;

/*
 * Reads a MATLAB/Octave .fis file. Tolerant as MATLAB is: "%" and "#"
 * comments, keys in any order, defaults for missing keys, parameter lists
 * padded with zeros (only the first n parameters of a type are used), rule
 * codes with hedges (2.3: MF 2 with hedge exponent 3, Octave's convention),
 * MF lines and variable sections by their position in the file, ranges and
 * parameters written as MATLAB expressions ([-pi/4 pi/4]); what is odd
 * warns (haze_fis_warning).
 * A path ending in ".fll" is read as a fuzzylite 6 engine (its terms with
 * Function expressions, hedges, norms, activation methods, per-output
 * defuzzifiers and resolutions, lock-previous carried over the rows of one
 * evaluation in order, mixed Mamdani / Takagi-Sugeno / Tsukamoto outputs)
 * and evaluated in FUZZYLITE mode; docs/fis.md lists what of fuzzylite is not supported (refused
 * with HAZE_ERR_UNSUPPORTED, naming the line). Errors name file, line and what was expected.
 *
 * Ownership: *out is new, freed with haze_fis_free().
 */
HAZE_API int haze_fis_load(haze_ctx *ctx, const char *path, haze_fis **out);
/* The same from a NUL-terminated buffer; `name` is used in messages. */
HAZE_API int haze_fis_parse(haze_ctx *ctx, const char *text, const char *name, haze_fis **out);
/* A fuzzylite .fll engine from a NUL-terminated buffer (haze_fis_load picks
 * this for paths ending in ".fll"). */
HAZE_API int haze_fis_parse_fll(haze_ctx *ctx, const char *text, const char *name, haze_fis **out);
/*
 * Warnings of the reader: what it accepted as MATLAB or fuzzylite do but
 * that is odd enough to say (MF lines or sections out of order or repeated,
 * taken by their position as MATLAB's readfis takes them; duplicate term
 * names in .fll, where fuzzylite takes the first; a negated Sugeno
 * consequent, which has no MATLAB meaning). Each message is "FILE:LINE:
 * text", valid while fis lives; the library never prints them.
 */
HAZE_API int haze_fis_warning_count(const haze_fis *fis);
HAZE_API const char *haze_fis_warning(const haze_fis *fis, int i);
/* Frees a system; NULL is a no-op. */
HAZE_API void haze_fis_free(haze_fis *fis);

/*
 * Writes the system as a MATLAB .fis file (through haze_outfile: whole or
 * not at all; "-" for standard output). It reads back identical. A system
 * read from .fll is written where .fis can say the same (fuzzylite terms
 * with a MATLAB twin, one defuzzifier and aggregation for all outputs, ...);
 * anything else is HAZE_ERR_UNSUPPORTED with a message saying what.
 * A path ending in ".fll" gets a fuzzylite 6 engine (FuzzyLite Language)
 * with the meaning the model has in FUZZYLITE mode (Mamdani resolution:
 * the points setting); what fuzzylite cannot say is HAZE_ERR_UNSUPPORTED,
 * saying what (docs/fis.md).
 */
HAZE_API int haze_fis_save(haze_ctx *ctx, const haze_fis *fis, const char *path);

HAZE_API int haze_fis_input_count(const haze_fis *fis);
HAZE_API int haze_fis_output_count(const haze_fis *fis);
HAZE_API int haze_fis_rule_count(const haze_fis *fis);
/* Name of the system; valid while fis lives. */
HAZE_API const char *haze_fis_name(const haze_fis *fis);
/* 1 for a Sugeno system, 0 for Mamdani. */
HAZE_API int haze_fis_is_sugeno(const haze_fis *fis);
/* Name and range of input (is_output 0) or output (1) number i (0-based). */
HAZE_API const char *haze_fis_var_name(const haze_fis *fis, int is_output, int i);
HAZE_API int haze_fis_var_range(haze_ctx *ctx, const haze_fis *fis, int is_output, int i,
                                double *lo, double *hi);

/* The membership functions (terms) of input (is_output 0) or output (1)
 * number i: their count, and function k's name, type (MATLAB's name such as
 * "trimf", or fuzzylite's such as "Triangle") and parameters (in the file's
 * order; a fuzzylite term's height last; none for a Function term). The
 * strings and parameters are valid while fis lives. */
HAZE_API int haze_fis_mf_count(const haze_fis *fis, int is_output, int i);
HAZE_API int haze_fis_mf(haze_ctx *ctx, const haze_fis *fis, int is_output, int i, int k,
                         const char **name, const char **type, const double **params, int *nparams);
/* The degrees of membership mu[j] of x[j], j < n, in that function (for
 * plots, like MATLAB's evalmf). HAZE_ERR_UNSUPPORTED for a term that is not
 * a function of its variable alone (a Sugeno output's constant or linear
 * term, a fuzzylite Function); HAZE_ERR_INVALID for a bad index. */
HAZE_API int haze_fis_mf_eval(haze_ctx *ctx, const haze_fis *fis, int is_output, int i, int k,
                              const double *x, size_t n, double *mu);
/* The term of input (is_output 0) or output (1) variable i in rule r: k + 1
 * for its membership function k, -(k + 1) for NOT, 0 when the rule does not
 * name the variable or names it in a way a term number cannot say (a
 * fuzzylite rule with parentheses or chained outputs), and 0 for an index
 * out of range. */
HAZE_API int haze_fis_rule_term(const haze_fis *fis, int r, int is_output, int i);
/*
 * One inference step by step, for a picture like MATLAB's ruleview: at the
 * input vector in (input_count values, clamped as the evaluation clamps
 * them), firing[r] is the degree of rule r after its weight (and fuzzylite's
 * activation), as the evaluation uses it. For output o, at n >= 2 points
 * ys[0..n) evenly over its range, implied[r n + k] is the set that rule r
 * implies (0 where the rule does not fire or does not conclude on o) and
 * aggregate[k] their aggregation: the set the defuzzifier reads (on its own
 * points). HAZE_ERR_UNSUPPORTED for a Sugeno output or a fuzzylite weighted
 * one (firing is still filled); the value itself comes from haze_fis_eval.
 * All arrays are the caller's.
 */
HAZE_API int haze_fis_explain(haze_ctx *ctx, const haze_fis *fis, const double *in, int o, int n,
                              double *firing, double *ys, double *implied, double *aggregate);
/* A method's name: which is "and", "or", "imp", "agg" or "defuzz" (the
 * last two per output for a fuzzylite engine; output is ignored otherwise).
 * MATLAB's names (min, prod, probor, centroid, wtaver, ...); NULL if unknown. */
HAZE_API const char *haze_fis_method(const haze_fis *fis, const char *which, int output);
/* Rule r (0-based) in words, as MATLAB's showrule writes it:
 * "If (service is poor) or (food is rancid) then (tip is cheap) (1)", the
 * weight last. Like snprintf: writes at most cap bytes with the NUL and
 * returns the length of the whole text (HAZE_ERR_INVALID, negative, for a
 * bad argument). */
HAZE_API int haze_fis_rule_text(haze_ctx *ctx, const haze_fis *fis, int r, char *buf, size_t cap);

/* Sampling mode and number of points (N >= 2; default MATLAB, 101). */
HAZE_API int haze_fis_set_mode(haze_ctx *ctx, haze_fis *fis, haze_fis_mode mode);
HAZE_API haze_fis_mode haze_fis_get_mode(const haze_fis *fis);
HAZE_API int haze_fis_set_points(haze_ctx *ctx, haze_fis *fis, int points);
HAZE_API int haze_fis_get_points(const haze_fis *fis);
/* 1: an output for which no rule fired is NaN (instead of mid-range). */
HAZE_API void haze_fis_set_nan_if_no_rule(haze_fis *fis, int on);
/* Parses "matlab", "octave", "fuzzylite" or "exact" (ctx may be NULL). */
HAZE_API int haze_fis_mode_parse(haze_ctx *ctx, const char *s, haze_fis_mode *out);

/* Counts of one haze_fis_eval call; the caller sets size (haze_fis_stats_init). */
typedef struct haze_fis_stats {
    size_t size;    /* sizeof(haze_fis_stats), set by the caller */
    size_t clamped; /* input values moved into their range */
    size_t no_rule; /* (row, output) pairs where no rule fired */
} haze_fis_stats;

static inline haze_fis_stats haze_fis_stats_init(void) {
    haze_fis_stats s;
    memset(&s, 0, sizeof s);
    s.size = sizeof s;
    return s;
}

/*
 * Evaluates n input vectors: inputs is n x input_count, outputs n x
 * output_count, both row-major, caller-owned. Runs on the context's backend
 * (CPU threads or the GPU). `stats` may be NULL; otherwise its size must be
 * set (haze_fis_stats_init) and it receives this call's counts. On the GPU
 * a long batch streams through the device in chunks; page-locked arrays
 * (cudaHostAlloc, cudaHostRegister, a pinned tensor's memory) are copied
 * by the copy engines directly and so run at the bus rate, pageable ones
 * through the context's page-locked staging memory, copied in by the
 * context's threads.
 */
HAZE_API int haze_fis_eval(haze_ctx *ctx, const haze_fis *fis, const double *inputs, size_t n,
                           double *outputs, haze_fis_stats *stats);

/*
 * The same on inputs and outputs that already live in the GPU's memory
 * (device pointers from cudaMalloc, n x input_count and n x output_count,
 * row-major, caller-owned): no host transfers, for pipelines that keep their
 * data on the device. The context's backend must be CUDA, otherwise
 * HAZE_ERR_UNSUPPORTED. The work is ordered after what the program queued on
 * the legacy default stream (a cudaMemcpy that filled d_inputs, say; see
 * haze_ctx_new), and the call returns when the outputs are written.
 */
HAZE_API int haze_fis_eval_device(haze_ctx *ctx, const haze_fis *fis, const double *d_inputs,
                                  size_t n, double *d_outputs, haze_fis_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* HAZE_FIS_H */
