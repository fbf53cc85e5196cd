/*
 * src/prec/prec_internal.h - the rounding-error analyser's private types: MPFR
 * intervals (the analyser's own certified arithmetic), the hash-consed
 * expression graph a script is compiled to, rounding formats, and the affine
 * forms of the AA engine.
 */
#ifndef HAZE_PREC_INTERNAL_H
#define HAZE_PREC_INTERNAL_H

#include <limits.h>
#include <mpfr.h>

#include "core/internal.h"
#include "haze/prec.h"

/* Bits of the analyser's own arithmetic: far below every error it bounds. */
#define PREC_BITS 160

/* ------------------------------------------------------------ intervals */

#define PREC_LIMBS ((PREC_BITS + GMP_NUMB_BITS - 1) / GMP_NUMB_BITS)

/* A closed interval [lo, hi] of MPFR numbers; every operation rounds outward.
 * The significands live inside the struct (MPFR's custom interface): the
 * analyser makes millions of coefficients and malloc would dominate. A pint
 * that was moved (realloc) must be repaired with pi_fixup(). */
typedef struct pint {
    mpfr_t lo, hi;
    mp_limb_t llo[PREC_LIMBS], lhi[PREC_LIMBS];
} pint;

/* A temporary MPFR number on the stack, of PREC_BITS bits (no clear needed). */
#define PREC_TMP(name)                                                                             \
    mp_limb_t name##_limbs[PREC_LIMBS];                                                            \
    mpfr_t name;                                                                                   \
    mpfr_custom_init_set(name, MPFR_ZERO_KIND, 0, PREC_BITS, name##_limbs)

void pi_init(pint *x);
void pi_clear(pint *x);
void pi_fixup(pint *x);
void pi_set(pint *r, const pint *a);
void pi_set_d(pint *r, double lo, double hi);
void pi_set_zero(pint *r);
void pi_set_entire(pint *r);
int pi_is_point(const pint *a);
int pi_is_bounded(const pint *a);
int pi_has_zero(const pint *a);
void pi_neg(pint *r, const pint *a);
void pi_add(pint *r, const pint *a, const pint *b);
void pi_sub(pint *r, const pint *a, const pint *b);
void pi_mul(pint *r, const pint *a, const pint *b);
/* a * a: never negative (the dependency plain multiplication loses). */
void pi_sqr(pint *r, const pint *a);
/* b must not contain 0 (callers check). */
void pi_div(pint *r, const pint *a, const pint *b);
void pi_sqrt(pint *r, const pint *a); /* a >= 0 */
void pi_abs(pint *r, const pint *a);
void pi_exp(pint *r, const pint *a);
void pi_exp2(pint *r, const pint *a);
void pi_expm1(pint *r, const pint *a);
void pi_exp2m1(pint *r, const pint *a);
void pi_log(pint *r, const pint *a);  /* a > 0 */
void pi_log2(pint *r, const pint *a); /* a > 0 */
void pi_log1p(pint *r, const pint *a);
void pi_log2_1p(pint *r, const pint *a);
void pi_hull(pint *r, const pint *a, const pint *b);
/* r = a intersected with b when they meet (else r = a: never empty). */
void pi_meet(pint *r, const pint *a, const pint *b);
/* Upper bound of max |x|. */
void pi_mag(mpfr_t m, const pint *a);
/* Lower bound of min |x|. */
void pi_mig(mpfr_t m, const pint *a);
/* [-m, m] */
void pi_sym(pint *r, const mpfr_t m);
/* r = a * 2^e (exact). */
void pi_mul_2si(pint *r, const pint *a, long e);
/* Midpoint and radius such that a is inside mid + [-rad, rad] (mid an interval). */
void pi_midrad(pint *mid, mpfr_t rad, const pint *a);

/* --------------------------------------------------------------- formats */

enum { DIR_NE, DIR_NA, DIR_ZR, DIR_AW, DIR_UP, DIR_DN };

typedef struct pformat {
    int fixed;      /* 1: fixed point with lsb weight 2^lsb; 0: floating point */
    long lsb;       /* fixed */
    long prec;      /* float: significand bits */
    long emin;      /* float: exponent of the smallest subnormal (LONG_MIN: none) */
    long emax;      /* float: largest finite is (2 - 2^(1-prec)) * 2^emax (LONG_MAX: none) */
    int ftz;        /* float: subnormal results flushed to zero (cuda_32) */
    int dir;        /* DIR_* */
    int extra_ulps; /* fast intrinsics: result further off by this many ulps */
    long extra_abs; /* ... or by 2^extra_abs absolutely, whichever is larger (LONG_MIN: none) */
} pformat;

/* Rounds x to the format exactly (r may be x). Returns 0, or -1 on overflow (r = +-inf). */
int haze__prec_round_point(const pformat *f, mpfr_t r, const mpfr_t x);

/* ---------------------------------------------------------------- graph */

enum {
    OP_CONST,
    OP_VAR,
    OP_NEG,
    OP_ADD,
    OP_SUB,
    OP_MUL,
    OP_DIV,
    OP_FMA,
    OP_ABS,
    OP_SQRT,
    OP_EXP,
    OP_LOG,
    OP_EXP2,
    OP_LOG2,
    OP_RND
};

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
    long refine;   /* analyses allowed for adaptive refinement (-1: automatic) */
    int no_share;  /* 1: no second pass for roundings shared by a goal's sides */
    pint *capture; /* when set (the share pass's copies): receives each goal's
                    * enclosure exactly, before it is rounded to doubles */
    char **notes;  /* what the parser read but does not use (haze_prec_note) */
    int n_notes;
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

/* Parsers: fill an empty script. */
int haze__prec_parse_gappa(haze_ctx *ctx, haze_prec_script *s, const char *text);
int haze__prec_parse_fpcore(haze_ctx *ctx, haze_prec_script *s, const char *text, long unroll,
                            long max_ops);

/* One analysis of one box of inputs (box[i] for var i); writes the enclosure
 * of each goal into out[i] (initialised by the caller). */
int haze__prec_analyse_box(haze_ctx *ctx, const haze_prec_script *s, const pint *box,
                           haze_prec_engine engine, pint *out);

/* Second analysis with the rounding nodes that both sides of a goal share
 * replaced by exact inputs (prec_share.c); intersects acc[goal] with its
 * enclosures. Returns a status (the caller ignores all but out of memory). */
int haze__prec_share_pass(haze_ctx *ctx, const haze_prec_script *s, pint *acc);

#endif
