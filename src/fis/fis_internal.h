/*
 * src/fis/fis_internal.h - the layout of a fuzzy inference system inside
 * haze, and the membership functions, norms and inference steps that the CPU
 * code (fis.c) and the CUDA code (fis_cuda.cu) share, so both evaluate the
 * same formulas.
 *
 * Membership functions follow the definitions of MATLAB's Fuzzy Logic Toolbox
 * (trimf.m, trapmf.m, ... as documented by MathWorks) including their
 * treatment of degenerate parameters; docs/fis.md lists them.
 */
#ifndef HAZE_FIS_INTERNAL_H
#define HAZE_FIS_INTERNAL_H

#include <math.h>
#include <stddef.h>

#include "haze/fis.h"

#ifdef __CUDACC__
#define HAZE__HD __host__ __device__ static inline
/* Rarely taken, large: compiled once on the device instead of inlined into
 * every kernel (keeps the kernels' registers and the build time down). */
#define HAZE__HD_COLD __host__ __device__ static __noinline__
#else
#define HAZE__HD      static inline
#define HAZE__HD_COLD static inline
#endif

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
    /* during an evaluation only (on a copy of the struct): the output MFs
     * tabulated at the points, nmfs x gstride, or NULL */
    const double *grid;
    int gstride;
    /* during an evaluation only: for a model that haze__fis_plain accepts,
     * its rules as a program (see there), or NULL */
    const int *plain;
    /* what the reader accepted with a warning (host only) */
    haze__warns warns;
};

extern const char *const haze__mf_names[HAZE__MF_COUNT];
extern const int haze__mf_nparams[HAZE__MF_COUNT]; /* -1: variable (linear) */
extern const char *const haze__norm_names[HAZE__N_COUNT];
extern const char *const haze__defuzz_names[HAZE__D_COUNT];
/* fuzzylite's hedge words by HAZE__H_* code ("" for none) */
extern const char *const haze__hedge_names[HAZE__H_ANY + 1];

HAZE__HD double haze__clamp01(double v) {
    return v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v);
}

HAZE__HD double haze__smf(double x, double a, double b) {
    if (a >= b) return x >= (a + b) / 2.0 ? 1.0 : 0.0;
    if (x <= a) return 0.0;
    if (x >= b) return 1.0;
    double t;
    if (x <= (a + b) / 2.0) {
        t = (x - a) / (b - a);
        return 2.0 * t * t;
    }
    t = (x - b) / (b - a);
    return 1.0 - 2.0 * t * t;
}

HAZE__HD double haze__zmf(double x, double a, double b) {
    if (a >= b) return x <= (a + b) / 2.0 ? 1.0 : 0.0;
    if (x <= a) return 1.0;
    if (x >= b) return 0.0;
    double t;
    if (x <= (a + b) / 2.0) {
        t = (x - a) / (b - a);
        return 1.0 - 2.0 * t * t;
    }
    t = (x - b) / (b - a);
    return 2.0 * t * t;
}

HAZE__HD double haze__sigmf(double x, double a, double c) {
    return 1.0 / (1.0 + exp(-a * (x - c)));
}

HAZE__HD double haze__gauss(double x, double s, double c) {
    if (s == 0.0) return x == c ? 1.0 : 0.0; /* the limit of a shrinking bell */
    double t = (x - c) / s;
    return exp(-(t * t) / 2.0);
}

HAZE__HD double haze__fl_sig(double x, double infl, double slope) {
    return 1.0 / (1.0 + exp(-slope * (x - infl)));
}

/* fuzzylite's comparisons for Function terms (Op::isEq: equal within 1e-6,
 * or both NaN) */
HAZE__HD int haze__fn_eq(double a, double b) {
    return a == b || fabs(a - b) < 1e-6 || (a != a && b != b);
}

/* Unary function k of a Function term (fuzzylite's FunctionFactory). */
HAZE__HD double haze__fn1(int k, double a) {
    switch (k) {
    case 0:
        return acos(a);
    case 1:
        return asin(a);
    case 2:
        return atan(a);
    case 3:
        return ceil(a);
    case 4:
        return cos(a);
    case 5:
        return cosh(a);
    case 6:
        return exp(a);
    case 7: /* abs */
    case 8:
        return fabs(a);
    case 9:
        return floor(a);
    case 10:
        return log(a);
    case 11:
        return log10(a);
    case 12: /* Op::round: half away from zero, as floor(x + 0.5) */
        return a > 0.0 ? floor(a + 0.5) : ceil(a - 0.5);
    case 13:
        return sin(a);
    case 14:
        return sinh(a);
    case 15:
        return sqrt(a);
    case 16:
        return tan(a);
    case 17:
        return tanh(a);
    case 18:
        return log1p(a);
    case 19:
        return acosh(a);
    case 20:
        return asinh(a);
    default:
        return atanh(a);
    }
}

/* Binary function k (pow atan2 fmod min max gt ge eq neq le lt). */
HAZE__HD double haze__fn2(int k, double a, double b) {
    switch (k) {
    case 0:
        return pow(a, b);
    case 1:
        return atan2(a, b);
    case 2:
        return fmod(a, b);
    case 3: /* Op::min and Op::max ignore a NaN */
        return a != a ? b : (b != b ? a : (a < b ? a : b));
    case 4:
        return a != a ? b : (b != b ? a : (a > b ? a : b));
    case 5:
        return !haze__fn_eq(a, b) && a > b ? 1.0 : 0.0;
    case 6:
        return haze__fn_eq(a, b) || a > b ? 1.0 : 0.0;
    case 7:
        return haze__fn_eq(a, b) ? 1.0 : 0.0;
    case 8:
        return haze__fn_eq(a, b) ? 0.0 : 1.0;
    case 9:
        return haze__fn_eq(a, b) || a < b ? 1.0 : 0.0;
    default:
        return !haze__fn_eq(a, b) && a < b ? 1.0 : 0.0;
    }
}

/* Runs the program of a Function term (p as described at HAZE__OP_NUM)
 * with argument x and the variables' values (NULL: none may be named). The
 * compiler checked the stack depth, so the program cannot overflow st. */
HAZE__HD_COLD double haze__fn_eval(const double *p, double x, const double *vars) {
    const int n = (int)p[0];
    const double *c = p + 1;
    double st[HAZE__FN_STACK];
    int sp = 0;
    for (int i = 0; i < n; i++) {
        const int op = (int)c[i];
        if (op == HAZE__OP_NUM) {
            st[sp++] = c[++i];
            continue;
        }
        if (op == HAZE__OP_VAR) {
            const int v = (int)c[++i];
            st[sp++] = vars ? vars[v] : NAN;
            continue;
        }
        if (op == HAZE__OP_X) {
            st[sp++] = x;
            continue;
        }
        if (op == HAZE__OP_NEG || op == HAZE__OP_NOT || (op >= HAZE__OP_F1 && op < HAZE__OP_F2)) {
            double a = st[sp - 1];
            st[sp - 1] = op == HAZE__OP_NEG   ? -a
                         : op == HAZE__OP_NOT ? (haze__fn_eq(a, 1.0) ? 0.0 : 1.0)
                                              : haze__fn1(op - HAZE__OP_F1, a);
            continue;
        }
        const double b = st[--sp], a = st[sp - 1];
        double r;
        switch (op) {
        case HAZE__OP_ADD:
            r = a + b;
            break;
        case HAZE__OP_SUB:
            r = a - b;
            break;
        case HAZE__OP_MUL:
            r = a * b;
            break;
        case HAZE__OP_DIV:
            r = a / b;
            break;
        case HAZE__OP_MOD:
            r = fmod(a, b);
            break;
        case HAZE__OP_POW:
            r = pow(a, b);
            break;
        case HAZE__OP_AND:
            r = haze__fn_eq(a, 1.0) && haze__fn_eq(b, 1.0) ? 1.0 : 0.0;
            break;
        case HAZE__OP_OR:
            r = haze__fn_eq(a, 1.0) || haze__fn_eq(b, 1.0) ? 1.0 : 0.0;
            break;
        default:
            r = haze__fn2(op - HAZE__OP_F2, a, b);
            break;
        }
        st[sp - 1] = r;
    }
    return sp == 1 ? st[0] : NAN;
}

/* fuzzylite's S and Z shapes (SShape.cpp, ZShape.cpp), without height. */
HAZE__HD double haze__fl_s(double x, double s, double e) {
    if (x <= s) return 0.0;
    if (x <= 0.5 * (s + e)) {
        double t = (x - s) / (e - s);
        return 2.0 * t * t;
    }
    if (x < e) {
        double t = (x - e) / (e - s);
        return 1.0 - 2.0 * t * t;
    }
    return 1.0;
}
HAZE__HD double haze__fl_z(double x, double s, double e) {
    if (x <= s) return 1.0;
    if (x <= 0.5 * (s + e)) {
        double t = (x - s) / (e - s);
        return 1.0 - 2.0 * t * t;
    }
    if (x < e) {
        double t = (x - e) / (e - s);
        return 2.0 * t * t;
    }
    return 0.0;
}

/* fuzzylite 6.0's terms (fl/term/<Name>.cpp), height excluded. fuzzylite
 * compares with a tolerance of 1e-6 (Op::isEq); haze compares exactly, which
 * moves a value only within 1e-6 of a corner. Divisions are guarded where
 * fuzzylite's would divide by zero. */
HAZE__HD double haze__fl_shape(int type, const double *p, double x) {
    switch (type) {
    case HAZE__MF_FL_TRIANGLE: {
        double a = p[0], b = p[1], c = p[2];
        if (x < a || x > c) return 0.0;
        if (x == b) return 1.0;
        if (x < b) return a == -INFINITY ? 1.0 : (x - a) / (b - a);
        return c == INFINITY ? 1.0 : (c - x) / (c - b);
    }
    case HAZE__MF_FL_TRAPEZOID: {
        double a = p[0], b = p[1], c = p[2], d = p[3];
        if (x < a || x > d) return 0.0;
        if (x < b) {
            if (a == -INFINITY) return 1.0;
            double v = (x - a) / (b - a);
            return v < 1.0 ? v : 1.0;
        }
        if (x <= c) return 1.0;
        if (x < d) return d == INFINITY ? 1.0 : (d - x) / (d - c);
        return d == INFINITY ? 1.0 : 0.0;
    }
    case HAZE__MF_FL_GAUSSIAN: {
        double t = x - p[0];
        return exp(-(t * t) / (2.0 * p[1] * p[1]));
    }
    case HAZE__MF_FL_GAUSSPROD: {
        double a = 1.0, b = 1.0;
        if (x < p[0]) {
            double t = x - p[0];
            a = exp(-(t * t) / (2.0 * p[1] * p[1]));
        }
        if (x > p[2]) {
            double t = x - p[2];
            b = exp(-(t * t) / (2.0 * p[3] * p[3]));
        }
        return a * b;
    }
    case HAZE__MF_FL_BELL:
        return 1.0 / (1.0 + pow(fabs((x - p[0]) / p[1]), 2.0 * p[2]));
    case HAZE__MF_FL_SIGMOID:
        return haze__fl_sig(x, p[0], p[1]);
    case HAZE__MF_FL_SIGDIFF:
        return fabs(haze__fl_sig(x, p[0], p[1]) - haze__fl_sig(x, p[3], p[2]));
    case HAZE__MF_FL_SIGPROD:
        return haze__fl_sig(x, p[0], p[1]) * haze__fl_sig(x, p[3], p[2]);
    case HAZE__MF_FL_SSHAPE:
        return haze__fl_s(x, p[0], p[1]);
    case HAZE__MF_FL_ZSHAPE:
        return haze__fl_z(x, p[0], p[1]);
    case HAZE__MF_FL_PISHAPE:
        return haze__fl_s(x, p[0], p[1]) * haze__fl_z(x, p[2], p[3]);
    case HAZE__MF_FL_RAMP: {
        double s = p[0], e = p[1];
        if (s == e) return 0.0;
        if (s < e) {
            if (x <= s) return 0.0;
            if (x >= e) return 1.0;
            return (x - s) / (e - s);
        }
        if (x >= s) return 0.0;
        if (x <= e) return 1.0;
        return (s - x) / (s - e);
    }
    case HAZE__MF_FL_RECT:
        return (x < p[0] || x > p[1]) ? 0.0 : 1.0;
    case HAZE__MF_FL_COSINE: {
        double c = p[0], w = p[1];
        if (x < c - 0.5 * w || x > c + 0.5 * w) return 0.0;
        const double pi = 4.0 * atan(1.0);
        return 0.5 * (1.0 + cos(2.0 / w * pi * (x - c)));
    }
    case HAZE__MF_FL_CONCAVE: {
        double i = p[0], e = p[1];
        if (i <= e) {
            if (x < e) return (e - i) / (2.0 * e - i - x);
        } else if (x > e) {
            return (i - e) / (i - 2.0 * e + x);
        }
        return 1.0;
    }
    case HAZE__MF_FL_SPIKE:
        return exp(-fabs(10.0 / p[1] * (x - p[0])));
    case HAZE__MF_FL_BINARY:
        if (p[1] > p[0] && x >= p[0]) return 1.0;
        if (p[1] < p[0] && x <= p[0]) return 1.0;
        return 0.0;
    case HAZE__MF_FL_DISCRETE: {
        /* p[0] pairs sorted by x; flat outside, linear in between */
        int n = (int)p[0];
        const double *xy = p + 1;
        if (x <= xy[0]) return xy[1];
        if (x >= xy[2 * (n - 1)]) return xy[2 * (n - 1) + 1];
        int lo = 0, hi = n - 1; /* xy[lo] < x < xy[hi] */
        while (hi - lo > 1) {
            int mid = (lo + hi) / 2;
            if (xy[2 * mid] < x)
                lo = mid;
            else
                hi = mid;
        }
        if (x == xy[2 * hi]) return xy[2 * hi + 1];
        double x0 = xy[2 * lo], y0 = xy[2 * lo + 1], x1 = xy[2 * hi], y1 = xy[2 * hi + 1];
        return (y1 - y0) / (x1 - x0) * (x - x0) + y0;
    }
    case HAZE__MF_FL_FUNCTION: /* only x: the parser refuses variables here */
        return haze__fn_eval(p, x, NULL);
    default:
        return 0.0;
    }
}

/* Index of the height parameter of a fuzzylite term. */
HAZE__HD int haze__fl_hidx(int type, const double *p) {
    switch (type) {
    case HAZE__MF_FL_GAUSSIAN:
    case HAZE__MF_FL_SIGMOID:
    case HAZE__MF_FL_SSHAPE:
    case HAZE__MF_FL_ZSHAPE:
    case HAZE__MF_FL_RAMP:
    case HAZE__MF_FL_RECT:
    case HAZE__MF_FL_COSINE:
    case HAZE__MF_FL_CONCAVE:
    case HAZE__MF_FL_SPIKE:
    case HAZE__MF_FL_BINARY:
        return 2;
    case HAZE__MF_FL_TRIANGLE:
    case HAZE__MF_FL_BELL:
        return 3;
    case HAZE__MF_FL_DISCRETE:
        return 1 + 2 * (int)p[0];
    case HAZE__MF_FL_FUNCTION:
        return 1 + (int)p[0];
    default:
        return 4;
    }
}

HAZE__HD double haze__fl_mf(int type, const double *p, double x) {
    return p[haze__fl_hidx(type, p)] * haze__fl_shape(type, p, x);
}

/* One fuzzylite hedge (fl/hedge/NAME.cpp). */
HAZE__HD double haze__fl_hedge1(int h, double x) {
    switch (h) {
    case HAZE__H_NOT:
        return 1.0 - x;
    case HAZE__H_VERY:
        return x * x;
    case HAZE__H_SOMEWHAT:
        return sqrt(x);
    case HAZE__H_SELDOM:
        return x <= 0.5 ? sqrt(0.5 * x) : 1.0 - sqrt(0.5 * (1.0 - x));
    case HAZE__H_EXTREMELY:
        return x <= 0.5 ? 2.0 * x * x : 1.0 - 2.0 * (1.0 - x) * (1.0 - x);
    case HAZE__H_ANY:
        return 1.0;
    default:
        return x;
    }
}

/* Applies a packed chain of hedges, lowest 3 bits first. */
HAZE__HD double haze__fl_hedges(int chain, double x) {
    while (chain) {
        x = haze__fl_hedge1(chain & 7, x);
        chain >>= 3;
    }
    return x;
}

/* Membership of x in an MF of one of MATLAB's types (HAZE__MF_TRI ..
 * HAZE__MF_CONSTANT; 0 for the others). */
HAZE__HD double haze__mf_eval_ml(int type, const double *p, double x) {
    switch (type) {
    case HAZE__MF_TRI: {
        double a = p[0], b = p[1], c = p[2];
        if (x == b) return 1.0;
        if (x <= a || x >= c) return 0.0;
        if (x < b) return a != b ? (x - a) / (b - a) : 1.0;
        return b != c ? (c - x) / (c - b) : 1.0;
    }
    case HAZE__MF_TRAP: {
        double a = p[0], b = p[1], c = p[2], d = p[3];
        double y1 = 1.0, y2 = 1.0;
        if (x < a)
            y1 = 0.0;
        else if (x < b)
            y1 = a != b ? (x - a) / (b - a) : 1.0;
        if (x > d)
            y2 = 0.0;
        else if (x > c)
            y2 = c != d ? (d - x) / (d - c) : 1.0;
        return y1 < y2 ? y1 : y2;
    }
    case HAZE__MF_GAUSS:
        return haze__gauss(x, p[0], p[1]);
    case HAZE__MF_GAUSS2: {
        double y1 = x <= p[1] ? haze__gauss(x, p[0], p[1]) : 1.0;
        double y2 = x >= p[3] ? haze__gauss(x, p[2], p[3]) : 1.0;
        return y1 * y2;
    }
    case HAZE__MF_GBELL: {
        double a = p[0], b = p[1], c = p[2];
        if (a == 0.0) return x == c ? 1.0 : 0.0;
        double t = (x - c) / a;
        return 1.0 / (1.0 + pow(t * t, b));
    }
    case HAZE__MF_SIG:
        return haze__sigmf(x, p[0], p[1]);
    case HAZE__MF_DSIG:
        return fabs(haze__sigmf(x, p[0], p[1]) - haze__sigmf(x, p[2], p[3]));
    case HAZE__MF_PSIG:
        return haze__sigmf(x, p[0], p[1]) * haze__sigmf(x, p[2], p[3]);
    case HAZE__MF_PI:
        return haze__smf(x, p[0], p[1]) * haze__zmf(x, p[2], p[3]);
    case HAZE__MF_S:
        return haze__smf(x, p[0], p[1]);
    case HAZE__MF_Z:
        return haze__zmf(x, p[0], p[1]);
    case HAZE__MF_LINS: {
        double a = p[0], b = p[1];
        if (x < a) return 0.0;
        if (x >= b) return 1.0;
        return (x - a) / (b - a); /* a < x < b here, so b > a */
    }
    case HAZE__MF_LINZ: {
        double a = p[0], b = p[1];
        if (x <= a) return 1.0;
        if (x > b) return 0.0;
        return (b - x) / (b - a); /* a < x <= b, so b > a */
    }
    case HAZE__MF_CONSTANT:
        /* as a fuzzy set: the singleton at p[0] */
        return x == p[0] ? 1.0 : 0.0;
    default:
        return 0.0;
    }
}

/* Membership of x in an MF of type `type` with parameters p. Only input and
 * Mamdani output types: constant/linear are Sugeno outputs (see below). */
HAZE__HD double haze__mf_eval(int type, const double *p, double x) {
    return type > HAZE__MF_LINEAR ? haze__fl_mf(type, p, x) : haze__mf_eval_ml(type, p, x);
}

/* The same for a term that may name variables (a Function term of an
 * input): vars holds the inputs' values, then the outputs'. */
HAZE__HD double haze__mf_eval_v(int type, const double *p, double x, const double *vars) {
    return type == HAZE__MF_FL_FUNCTION ? haze__fn_eval(p, x, vars) : haze__mf_eval(type, p, x);
}

/* Applies an Octave-style hedge (power) and NOT to a membership degree. */
HAZE__HD double haze__hedge_not(double mu, double hedge, int neg) {
    if (hedge != 0.0) mu = pow(mu, hedge);
    return neg ? 1.0 - mu : mu;
}

/* A binary t-norm / s-norm / aggregation. */
HAZE__HD double haze__norm(int op, double a, double b) {
    switch (op) {
    case HAZE__N_MIN:
        return a < b ? a : b;
    case HAZE__N_PROD:
        return a * b;
    case HAZE__N_BDIFF: {
        double v = a + b - 1.0;
        return v > 0.0 ? v : 0.0;
    }
    case HAZE__N_DPROD:
        return a == 1.0 ? b : (b == 1.0 ? a : 0.0);
    case HAZE__N_EPROD:
        return (a * b) / (2.0 - (a + b - a * b));
    case HAZE__N_HPROD:
        return (a == 0.0 && b == 0.0) ? 0.0 : (a * b) / (a + b - a * b);
    case HAZE__N_NMIN:
        return a + b > 1.0 ? (a < b ? a : b) : 0.0;
    case HAZE__N_MAX:
        return a > b ? a : b;
    case HAZE__N_PROBOR:
        return a + b - a * b;
    case HAZE__N_BSUM: {
        double v = a + b;
        return v < 1.0 ? v : 1.0;
    }
    case HAZE__N_DSUM:
        return a == 0.0 ? b : (b == 0.0 ? a : 1.0);
    case HAZE__N_ESUM:
        return (a + b) / (1.0 + a * b);
    case HAZE__N_HSUM: {
        /* (a + b - 2ab) / (1 - ab) written as 1 - (1-a)(1-b) / (1-ab): the
         * textbook form cancels catastrophically near a = 1 (a one-ulp
         * change of b moved hamacher_sum(1, b) between 0.91 and 1.2), this
         * one is exact at a = 1 and stays in [0, 1]. fl(ab) <= min(a, b),
         * so the divisor is positive unless a = b = 1. */
        double ab = a * b;
        if (ab == 1.0) return 1.0;
        return 1.0 - ((1.0 - a) * (1.0 - b)) / (1.0 - ab);
    }
    case HAZE__N_NMAX:
        return a + b < 1.0 ? (a > b ? a : b) : 1.0;
    case HAZE__N_SUM:
        return a + b;
    default:
        return 0.0;
    }
}

/* Tabulates every output MF of a Mamdani system at its output's points:
 * a malloc'd nmfs x points array, or NULL (Sugeno, or too large). */
double *haze__fis_grid(const haze_fis *f);
/* The row length of that table: the most points of any output. */
int haze__fis_gstride(const haze_fis *f);
/* Doubles in that table: nmfs x gstride values, then each MF's support
 * (first and last point where it is not 0). */
size_t haze__fis_grid_len(const haze_fis *f);
/* Function terms (fis_expr.c): the names of the unary and binary functions,
 * and the compiler. names[0..nnames) are the variables an expression may
 * name (HAZE__OP_VAR k reads vars[k]); "x" is the argument. The program goes
 * to p as described at HAZE__OP_NUM (at most cap doubles); *maxvar is the
 * largest variable index named (-1: none). Returns 0, or the 1-based column
 * in text of the error described in err. */
extern const char *const haze__fn1_names[HAZE__FN1_COUNT];
extern const char *const haze__fn2_names[HAZE__FN2_COUNT];
int haze__fn_compile(const char *text, const char *const *names, int nnames, double *p, int cap,
                     int *maxvar, char *err, size_t errcap);
/* The same with the names looked up by lookup(ud, name): a variable's
 * index, or -1 (a reader of many variables keeps them hashed: a linear
 * search per name in every expression would be quadratic). */
typedef int (*haze__fn_lookup)(const void *ud, const char *name);
int haze__fn_compile_lookup(const char *text, haze__fn_lookup lookup, const void *ud, double *p,
                            int cap, int *maxvar, char *err, size_t errcap);
/* For a model that haze__fis_eval_row_plain evaluates (fis.c; grid: its
 * output MFs as tabulated for the evaluation, haze__fis_grid), its rules as a
 * malloc'd program of haze__fis_plain_len(f) ints: for rule r, its
 * antecedents are entries plain[r] .. plain[r + 1] - 1 of the list at
 * plain + nr + 1 + no, each the index of the input MF among the memoised
 * degrees, or -1 - that index for NOT; plain[nr + 1 + o] is 1 where the
 * supports of output o's sets are pairwise disjoint. NULL for any other model (or out of memory:
 * the general evaluator then serves). */
int *haze__fis_plain(const haze_fis *f, const double *grid);
size_t haze__fis_plain_len(const haze_fis *f);
/* lock-previous over a batch (fis.c): rows flagged in held had an output
 * with lock-previous and no rule fired; they are evaluated again, in order,
 * with the last finite value of each output before them. f carries the grid
 * of the evaluation; scratch holds haze__fis_scratch(f) doubles. */
int haze__fis_hold(haze_ctx *ctx, const haze_fis *f, const double *in, size_t n, double *out,
                   const unsigned char *held, double *scratch);
/* Adds a warning "FILE:LINE: text" (fis.c); out of memory drops it. */
void haze__warn(haze__warns *w, const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
void haze__warns_free(haze__warns *w);
/* Writes f as a fuzzylite .fll engine (fis_fll.c; haze_fis_save for a
 * path ending in ".fll"); HAZE_ERR_UNSUPPORTED for what fuzzylite cannot
 * say with the same meaning. */
int haze__fll_save(haze_ctx *ctx, const haze_fis *f, const char *path);
/* Reads a fuzzylite .fll engine (fis_fll.c); buf is modified. */
int haze__fll_parse(haze_ctx *ctx, char *buf, const char *file, haze_fis **out);

#ifdef HAZE_HAVE_CUDA
int haze__fis_eval_cuda(haze_ctx *ctx, const haze_fis *fis, const double *inputs, size_t n,
                        double *outputs, haze_fis_stats *stats, int on_device);
#endif

#ifdef __cplusplus
}
#endif

#endif
