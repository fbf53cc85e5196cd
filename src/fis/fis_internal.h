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
#else
#define HAZE__HD static inline
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
    HAZE__MF_COUNT
};

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
} haze__var;

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
    /* evaluation settings */
    int mode;
    int points;
    int nan_if_no_rule;
    /* during an evaluation only (on a copy of the struct): the output MFs
     * tabulated at the points, nmfs x points, or NULL */
    const double *grid;
};

extern const char *const haze__mf_names[HAZE__MF_COUNT];
extern const int haze__mf_nparams[HAZE__MF_COUNT]; /* -1: variable (linear) */
extern const char *const haze__norm_names[HAZE__N_COUNT];
extern const char *const haze__defuzz_names[HAZE__D_COUNT];

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

/* Membership of x in an MF of type `type` with parameters p. Only input and
 * Mamdani output types: constant/linear are Sugeno outputs (see below). */
HAZE__HD double haze__mf_eval(int type, const double *p, double x) {
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

#ifdef HAZE_HAVE_CUDA
int haze__fis_eval_cuda(haze_ctx *ctx, const haze_fis *fis, const double *inputs, size_t n,
                        double *outputs, haze_fis_stats *stats);
#endif

#ifdef __cplusplus
}
#endif

#endif
