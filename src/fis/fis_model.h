/*
 * src/fis/fis_model.h - a fuzzy inference system as haze holds it: the
 * codes of membership functions, hedges, norms and defuzzifiers, the layout
 * of struct haze_fis, and the warnings a reader attaches to it. The bottom
 * layer of the module: every other fis file builds on it, and it knows
 * nothing of reading, planning or evaluating.
 *
 *   fis_model.h   the model (this file; fis_model.c: name tables, freeing)
 *   fis_math.h    membership functions, norms, hedges (host and device)
 *   fis_read.h    the readers fis_file.c (.fis), fis_fll.c (.fll) and
 *                 fis_expr.c (Function expressions), the writers fis_write.c
 *   fis_plan.h    what an evaluation precomputes once per model, mode and
 *                 points (fis_plan.c), cached in the model
 *   fis_row.h     one input row over the plan's tables (host and device),
 *                 with fis_exact.h for EXACT mode
 *   fis_eval.h    the drivers fis_cpu.c and fis_cuda.cu
 *   fis.c         the public API (haze/fis.h), the only caller of the drivers
 * Each depends only on those above it.
 */
#ifndef HAZE_FIS_MODEL_H
#define HAZE_FIS_MODEL_H

#include <stddef.h>

#include "haze/fis.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Membership function types. */
enum {
    HAZE__MF_TRI = 0,
    HAZE__MF_TRAP,
    HAZE__MF_GAUSS,
    HAZE__MF_GAUSS2,
    HAZE__MF_GBELL,
    HAZE__MF_SIG,
    HAZE__MF_DSIG,
    HAZE__MF_PSIG,
    HAZE__MF_PI,
    HAZE__MF_S,
    HAZE__MF_Z,
    HAZE__MF_LINS,
    HAZE__MF_LINZ,
    HAZE__MF_CONSTANT,
    HAZE__MF_LINEAR,
    /* fuzzylite's terms (fl/term/NAME.cpp of fuzzylite 6.0), parameters in
     * fuzzylite's order with the height last (1 when the file omits it) */
    HAZE__MF_FL_TRIANGLE,  /* a b c h */
    HAZE__MF_FL_TRAPEZOID, /* a b c d h */
    HAZE__MF_FL_GAUSSIAN,  /* mean sd h */
    HAZE__MF_FL_GAUSSPROD, /* meanA sdA meanB sdB h */
    HAZE__MF_FL_BELL,      /* center width slope h */
    HAZE__MF_FL_SIGMOID,   /* inflection slope h */
    HAZE__MF_FL_SIGDIFF,   /* left rising falling right h */
    HAZE__MF_FL_SIGPROD,   /* left rising falling right h */
    HAZE__MF_FL_SSHAPE,    /* start end h */
    HAZE__MF_FL_ZSHAPE,    /* start end h */
    HAZE__MF_FL_PISHAPE,   /* bottomLeft topLeft topRight bottomRight h */
    HAZE__MF_FL_RAMP,      /* start end h */
    HAZE__MF_FL_RECT,      /* start end h */
    HAZE__MF_FL_COSINE,    /* center width h */
    HAZE__MF_FL_CONCAVE,   /* inflection end h */
    HAZE__MF_FL_SPIKE,     /* center width h */
    HAZE__MF_FL_BINARY,    /* start direction h */
    HAZE__MF_FL_DISCRETE,  /* n x1 y1 .. xn yn h */
    HAZE__MF_FL_FUNCTION,  /* n code_1 .. code_n 1: an expression (fis_expr.c) */
    HAZE__MF_COUNT
};

/* fuzzylite's hedges; a chain of them is packed 3 bits per hedge, the
 * first to apply in the lowest bits (at most 10). */
enum {
    HAZE__H_NONE = 0,
    HAZE__H_NOT,
    HAZE__H_VERY,
    HAZE__H_SOMEWHAT,
    HAZE__H_SELDOM,
    HAZE__H_EXTREMELY,
    HAZE__H_ANY
};
#define HAZE__H_MAX 10
/* the operators of a postfix antecedent, and its deepest stack */
#define HAZE__FL_AND   (-1)
#define HAZE__FL_OR    (-2)
#define HAZE__FL_STACK 16
/* most parameters of one fuzzylite term (a Discrete term: 2 per point) */
#define HAZE__FL_MAXP 512

/* The bytecode of a fuzzylite Function term (compiled by fis_expr.c): a
 * postfix program over a stack of doubles, stored in the term's parameters
 * as p[0] = n words, p[1..n] the program, p[n + 1] = 1 (the height slot, which
 * fuzzylite's Function ignores). Every word is a double holding a small
 * integer, except the operand after HAZE__OP_NUM. */
enum {
    HAZE__OP_NUM = 1, /* push the next word */
    HAZE__OP_VAR,     /* push vars[next word]: inputs, then outputs */
    HAZE__OP_X,       /* push the argument x */
    HAZE__OP_NEG,     /* unary: ~ (and -) */
    HAZE__OP_NOT,     /* unary: ! */
    HAZE__OP_ADD,     /* binary operators */
    HAZE__OP_SUB,
    HAZE__OP_MUL,
    HAZE__OP_DIV,
    HAZE__OP_MOD,
    HAZE__OP_POW,
    HAZE__OP_AND,
    HAZE__OP_OR,
    HAZE__OP_F1,                   /* first unary function (haze__fn1_names order) */
    HAZE__OP_F2 = HAZE__OP_F1 + 22 /* first binary function (haze__fn2_names order) */
};
#define HAZE__FN1_COUNT 22
#define HAZE__FN2_COUNT 11
/* deepest stack a Function program may need */
#define HAZE__FN_STACK 32

/* Norms (t-norms, s-norms, aggregations), by code. */
enum {
    HAZE__N_MIN = 0,
    HAZE__N_PROD,
    HAZE__N_BDIFF, /* bounded difference (Lukasiewicz) */
    HAZE__N_DPROD, /* drastic product */
    HAZE__N_EPROD, /* Einstein product */
    HAZE__N_HPROD, /* Hamacher product */
    HAZE__N_NMIN,  /* nilpotent minimum */
    HAZE__N_MAX,
    HAZE__N_PROBOR, /* algebraic sum */
    HAZE__N_BSUM,   /* bounded sum */
    HAZE__N_DSUM,   /* drastic sum */
    HAZE__N_ESUM,   /* Einstein sum */
    HAZE__N_HSUM,   /* Hamacher sum */
    HAZE__N_NMAX,   /* nilpotent maximum */
    HAZE__N_SUM,    /* plain sum (aggregation only) */
    HAZE__N_COUNT
};

enum {
    HAZE__D_CENTROID = 0,
    HAZE__D_BISECTOR,
    HAZE__D_MOM,
    HAZE__D_SOM,
    HAZE__D_LOM,
    HAZE__D_WTAVER,
    HAZE__D_WTSUM,
    HAZE__D_COUNT
};

#define HAZE__NAME_MAX 64

/* Warnings found while reading a model (host only): each message is
 * "FILE:LINE: text", malloc'd; see haze_fis_warning. */
typedef struct haze__warns {
    char **msg;
    int n, cap;
} haze__warns;

typedef struct haze__mf {
    char name[HAZE__NAME_MAX];
    int type;
    int np;   /* parameters used */
    int poff; /* offset into fis->params */
} haze__mf;

typedef struct haze__var {
    char name[HAZE__NAME_MAX];
    double lo, hi;
    int nmf;
    int mf0; /* index of its first MF in fis->mfs */
    /* per-variable settings of a fuzzylite engine (used when fis->fl):
     * lock: clamp the value to the range (inputs and outputs);
     * outputs: wtd (weighted average/sum instead of a Mamdani set), their
     * defuzzifier, aggregation and resolution (0: fis->points) and the value
     * when no rule fired (dflt, NaN allowed) */
    int lock, wtd, defuzz, agg, res;
    double dflt;
    /* lock-previous (outputs of a fuzzylite engine): when no rule fired,
     * the last finite value of the rows before (fis.c, haze__fis_hold) */
    int lockprev;
} haze__var;

/* fuzzylite's activation methods (fl/activation/ of fuzzylite 6.0) and the
 * comparisons of Threshold */
enum {
    HAZE__ACT_GENERAL = 0,
    HAZE__ACT_FIRST,
    HAZE__ACT_LAST,
    HAZE__ACT_HIGHEST,
    HAZE__ACT_LOWEST,
    HAZE__ACT_PROPORTIONAL,
    HAZE__ACT_THRESHOLD
};
enum { HAZE__CMP_LT = 0, HAZE__CMP_LE, HAZE__CMP_EQ, HAZE__CMP_NE, HAZE__CMP_GE, HAZE__CMP_GT };

struct haze__fis_plan; /* fis_plan.h */

struct haze_fis {
    char name[HAZE__NAME_MAX];
    int sugeno;
    int and_m, or_m, imp_m, agg_m, defuzz_m;
    int ni, no, nr;
    haze__var *in, *out;
    haze__mf *mfs;
    int nmfs;
    double *params;
    int nparams;
    /* rules: nr x ni antecedent codes, nr x no consequent codes (signed MF
     * number, 1-based; 0: don't care; negative: NOT), hedge exponents (0:
     * none), weights and connections (1 AND, 2 OR). */
    int *ante, *cons;
    double *ante_hedge, *cons_hedge;
    double *weight;
    int *conn;
    /* fuzzylite engine (.fll): per-output settings in haze__var, the hedge
     * chains of each antecedent (nr x ni) and consequent (nr x no), packed
     * as HAZE__H_* codes; NULL for .fis systems */
    int fl;
    int *ante_fl, *cons_fl;
    /* fuzzylite rules that name an output variable (a chained engine) or a
     * variable twice, mix 'and' and 'or' or group with parentheses: each
     * rule's antecedent in postfix, rule r's at props[3 * prop_off[r] ..]:
     * propositions as (variable, term, hedge chain) triples, variables
     * numbered inputs first, then outputs, and the operators as
     * (HAZE__FL_AND or HAZE__FL_OR, 0, 0); NULL when ante says it all */
    int *props, *prop_off;
    /* fuzzylite: the activation method (HAZE__ACT_*), its number of rules,
     * comparison and threshold; lockprev: some output has lock-previous */
    int act, act_n, act_cmp;
    double act_thr;
    int lockprev;
    /* evaluation settings */
    int mode;
    int points;
    int nan_if_no_rule;
    /* the evaluation plan for mode and points (fis_plan.c), built on first
     * use and published atomically; one malloc'd block that
     * haze__fis_plan_forget frees. Read only through haze__fis_plan_get. */
    struct haze__fis_plan *plan;
    /* what the reader accepted with a warning (host only) */
    haze__warns warns;
};

extern const char *const haze__mf_names[HAZE__MF_COUNT];
extern const int haze__mf_nparams[HAZE__MF_COUNT]; /* -1: variable (linear) */
extern const char *const haze__norm_names[HAZE__N_COUNT];
extern const char *const haze__defuzz_names[HAZE__D_COUNT];
/* fuzzylite's hedge words by HAZE__H_* code ("" for none) */
extern const char *const haze__hedge_names[HAZE__H_ANY + 1];
/* fuzzylite's norm classes by name, with haze's code (the first with a code
 * is the name a writer uses) */
typedef struct haze__fl_norm {
    const char *name;
    int code;
} haze__fl_norm;
#define HAZE__FL_NORMS 16
extern const haze__fl_norm haze__fl_norms[HAZE__FL_NORMS];

/* Adds a warning "FILE:LINE: text"; out of memory drops it. */
void haze__warn(haze__warns *w, const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
void haze__warns_free(haze__warns *w);

/* Frees f and all it holds, also when half built (NULL: nothing); the one
 * way a model is freed (haze_fis_free, and every reader on failure). */
void haze__fis_free(haze_fis *f);
/* Drops the cached evaluation plan (after a change of mode or points). Not
 * to overlap with an evaluation of f: the rule for every change of a model. */
void haze__fis_plan_forget(haze_fis *f);

#ifdef __cplusplus
}
#endif

#endif
