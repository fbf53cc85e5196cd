/*
 * src/fis/fis_math.h - the membership functions, norms and hedges of a
 * fuzzy inference system, and where an output's points lie: pure functions
 * that the CPU (fis_cpu.c) and the GPU (fis_cuda.cu) share word for word,
 * so that both evaluate the same formulas. Above the model (fis_model.h),
 * below the plan and the row evaluator.
 *
 * Membership functions follow the definitions of MATLAB's Fuzzy Logic Toolbox
 * (trimf.m, trapmf.m, ... as documented by MathWorks) including their
 * treatment of degenerate parameters; docs/fis.md lists them. fuzzylite's
 * terms, hedges and Function expressions follow fuzzylite 6.0 (fl/term/,
 * fl/hedge/, fl/term/Function.cpp).
 */
#ifndef HAZE_FIS_MATH_H
#define HAZE_FIS_MATH_H

#include <math.h>
#include <stddef.h>

#include "core/hd.h"
#include "fis/fis_model.h"

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

/* fuzzylite's tolerant comparisons (Op::isEq and friends, macheps 1e-6). */
#define HAZE__FL_EPS 1e-6
HAZE__HD int haze__fl_eq(double a, double b) {
    return a == b || fabs(a - b) < HAZE__FL_EPS;
}
HAZE__HD int haze__fl_gt(double a, double b) {
    return !haze__fl_eq(a, b) && a > b;
}

/* Points of output o, and the x of point k: MATLAB's linspace (the last
 * point exactly hi, the others lo + k (hi - lo) / (N - 1), as MATLAB
 * computes them), or the midpoints of fuzzylite's cells (Centroid.cpp:
 * min + (i + 0.5) dx). Walks over the points compute the spacing once
 * (haze__xstep; a division per point costs tens of instructions on a GPU)
 * and pass it to haze__xpoint_s. */
HAZE__HD int haze__npoints(const struct haze_fis *f, int o) {
    return f->fl && f->out[o].res > 0 ? f->out[o].res : f->points;
}
HAZE__HD double haze__xstep(const struct haze_fis *f, const haze__var *ov, int n) {
    return f->mode == HAZE_FIS_MODE_FUZZYLITE ? (ov->hi - ov->lo) / n : (ov->hi - ov->lo) / (n - 1);
}
HAZE__HD double haze__xpoint_s(const struct haze_fis *f, const haze__var *ov, int k, int n,
                               double step) {
    if (f->mode == HAZE_FIS_MODE_FUZZYLITE) return ov->lo + (k + 0.5) * step;
    return k == n - 1 ? ov->hi : ov->lo + k * step;
}
HAZE__HD double haze__xpoint(const struct haze_fis *f, const haze__var *ov, int k, int n) {
    return haze__xpoint_s(f, ov, k, n, haze__xstep(f, ov, n));
}

#endif
