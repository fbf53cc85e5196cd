/*
 * haze/fuzzy_impl.h - the body of the scalar fuzzy-number functions of
 * haze/fuzzy.h, written once and included for double (HAZE__P d) and float
 * (HAZE__P f). Do not include it directly.
 * Threads: as haze/core.h says (pure functions).
 *
 * Packed layouts (T = double or float, n alpha-cuts, level 1 = highest alpha):
 *   lower-upper        T x[2n]:  x[2i] = lo_i, x[2i+1] = hi_i
 *   midpoint-radius    T x[n+1]: x[0] = kernel, x[1+i] = radius_i
 *   midpoint-increment T x[n+1]: x[0] = kernel, x[1+i] = increment_i, the
 *                      radius of cut i being the exact sum of increments 1..i
 * The output may alias an input. Every function returns 0 or a set of
 * HAZE_FUZZY_DOMAIN_BIT (a divisor's cut contains 0, or a square root's cut
 * lies below 0: the result is the enclosure the interval functions define,
 * a half-line, the whole line or empty) and HAZE_FUZZY_OVERFLOW_BIT (bounded
 * operands gave an unbounded cut: an overflow, the result still encloses).
 * The symmetric encodings report only the domain bit when both apply.
 */
#define HAZE__CAT3_(a, b, c) a##b##c
#define HAZE__CAT3(a, b, c)  HAZE__CAT3_(a, b, c)
#define HAZE__IV             HAZE__CAT3(haze_iv, HAZE__P, )
#define HAZE__MR             HAZE__CAT3(haze_mr, HAZE__P, )
#define HAZE__IVF(name)      HAZE__CAT3(haze_iv, HAZE__P, _##name)
#define HAZE__MRF(name)      HAZE__CAT3(haze_mr, HAZE__P, _##name)
#define HAZE__LU(name)       HAZE__CAT3(haze_fzlu, HAZE__P, _##name)
#define HAZE__FMR(name)      HAZE__CAT3(haze_fzmr, HAZE__P, _##name)
#define HAZE__FMI(name)      HAZE__CAT3(haze_fzmi, HAZE__P, _##name)
#define HAZE__R(name)        HAZE__CAT3(haze_##name, HAZE__S, )
/* fabs/fabsf: a free operand modifier on the GPU, where a compare and select cost 2 instructions */
#define HAZE__ABS(x) HAZE__CAT3(fabs, HAZE__S, )(x)
/*
 * Radii of a product are NaN only for 0 * inf (an infinite radius meets a
 * zero): such radii become +inf (the whole line). One NaN test on the sum of
 * the radii replaces a test per cut (NaN propagates through the sum; the
 * sum's rounding does not matter), so the common path costs N - 1 additions.
 */
/* Overflow bit: the widest radius (mr: the last; mi: the sum of the increments) of the result is
 * unbounded while the operands' were bounded. */
#define HAZE__RSUM(n, x, s)                                                                        \
    do {                                                                                           \
        s = 0;                                                                                     \
        HAZE__PRAGMA_UNROLL                                                                        \
        for (int i_ = 1; i_ <= (n); i_++) s += (x)[i_];                                            \
    } while (0)
#define HAZE__FIX_NAN(n, c)                                                                        \
    do {                                                                                           \
        HAZE__T s_ = 0;                                                                            \
        HAZE__PRAGMA_UNROLL                                                                        \
        for (int i_ = 1; i_ <= (n); i_++) s_ += (c)[i_];                                           \
        if (s_ != s_)                                                                              \
            for (int i_ = 1; i_ <= (n); i_++)                                                      \
                if ((c)[i_] != (c)[i_]) (c)[i_] = HAZE__INF;                                       \
    } while (0)

/* ------------------------------------------------------------ lower-upper */

/*
 * Per cut: the domain bit when `dom` holds for the divisor (or the root's
 * argument) y, else the overflow bit when the cut is unbounded (or empty)
 * while the operands' cuts were bounded.
 */
#define HAZE__LU_BINARY(name, dom)                                                                 \
    HAZE_HD int HAZE__LU(name)(int n, HAZE__T *c, const HAZE__T *a, const HAZE__T *b) {            \
        int f = 0;                                                                                 \
        HAZE__PRAGMA_UNROLL                                                                        \
        for (int i = 0; i < n; i++) {                                                              \
            HAZE__IV x = HAZE__IVF(make)(a[2 * i], a[2 * i + 1]);                                  \
            HAZE__IV y = HAZE__IVF(make)(b[2 * i], b[2 * i + 1]);                                  \
            HAZE__IV z = HAZE__IVF(name)(x, y);                                                    \
            if (dom)                                                                               \
                f |= HAZE_FUZZY_DOMAIN_BIT;                                                        \
            else if (!HAZE__IVF(is_finite)(z) && HAZE__IVF(is_finite)(x) &&                        \
                     HAZE__IVF(is_finite)(y))                                                      \
                f |= HAZE_FUZZY_OVERFLOW_BIT;                                                      \
            c[2 * i] = z.lo;                                                                       \
            c[2 * i + 1] = z.hi;                                                                   \
        }                                                                                          \
        return f;                                                                                  \
    }
#define HAZE__LU_UNARY(name, dom)                                                                  \
    HAZE_HD int HAZE__LU(name)(int n, HAZE__T *c, const HAZE__T *a) {                              \
        int f = 0;                                                                                 \
        HAZE__PRAGMA_UNROLL                                                                        \
        for (int i = 0; i < n; i++) {                                                              \
            HAZE__IV y = HAZE__IVF(make)(a[2 * i], a[2 * i + 1]);                                  \
            HAZE__IV z = HAZE__IVF(name)(y);                                                       \
            if (dom)                                                                               \
                f |= HAZE_FUZZY_DOMAIN_BIT;                                                        \
            else if (!HAZE__IVF(is_finite)(z) && HAZE__IVF(is_finite)(y))                          \
                f |= HAZE_FUZZY_OVERFLOW_BIT;                                                      \
            c[2 * i] = z.lo;                                                                       \
            c[2 * i + 1] = z.hi;                                                                   \
        }                                                                                          \
        return f;                                                                                  \
    }
#define HAZE__HAS_0(y) ((y).lo <= 0 && (y).hi >= 0)
HAZE__LU_BINARY(add, 0)
HAZE__LU_BINARY(sub, 0)
HAZE__LU_BINARY(mul, 0)
HAZE__LU_BINARY(div, HAZE__HAS_0(y))
HAZE__LU_UNARY(neg, 0)
HAZE__LU_UNARY(recip, HAZE__HAS_0(y))
HAZE__LU_UNARY(sqr, 0)
HAZE__LU_UNARY(sqrt, y.hi < 0)
#undef HAZE__HAS_0
#undef HAZE__LU_BINARY
#undef HAZE__LU_UNARY

/* ---------------------------------------------------- midpoint-radius (Alg. 1) */

/* (5a) per cut, one kernel for all. */
HAZE_HD int HAZE__FMR(add)(int n, HAZE__T *c, const HAZE__T *a, const HAZE__T *b) {
    int ovf = a[n] < HAZE__INF && b[n] < HAZE__INF; /* before c overwrites an operand */
    HAZE__T m = HAZE__R(rn_add)(a[0], b[0]);
    HAZE__T e = HAZE__MRF(mid_err)(m, 0);
    if (!(HAZE__ABS(m) < HAZE__INF)) m = 0, e = HAZE__INF; /* overflow: whole line */
    HAZE__PRAGMA_UNROLL
    for (int i = 1; i <= n; i++) c[i] = HAZE__R(ru_add)(HAZE__R(ru_add)(e, a[i]), b[i]);
    c[0] = m;
    return ovf && !(c[n] < HAZE__INF) ? HAZE_FUZZY_OVERFLOW_BIT : 0;
}

HAZE_HD int HAZE__FMR(sub)(int n, HAZE__T *c, const HAZE__T *a, const HAZE__T *b) {
    int ovf = a[n] < HAZE__INF && b[n] < HAZE__INF;
    HAZE__T m = HAZE__R(rn_sub)(a[0], b[0]);
    HAZE__T e = HAZE__MRF(mid_err)(m, 0);
    if (!(HAZE__ABS(m) < HAZE__INF)) m = 0, e = HAZE__INF;
    HAZE__PRAGMA_UNROLL
    for (int i = 1; i <= n; i++) c[i] = HAZE__R(ru_add)(HAZE__R(ru_add)(e, a[i]), b[i]);
    c[0] = m;
    return ovf && !(c[n] < HAZE__INF) ? HAZE_FUZZY_OVERFLOW_BIT : 0;
}

HAZE_HD int HAZE__FMR(neg)(int n, HAZE__T *c, const HAZE__T *a) {
    c[0] = -a[0];
    HAZE__PRAGMA_UNROLL
    for (int i = 1; i <= n; i++) c[i] = a[i];
    return 0;
}

/* Algorithm 1: rho_C,i = RU(eta + u|m_C| + (|m_A| + rho_A,i) rho_B,i + |m_B| rho_A,i). */
HAZE_HD int HAZE__FMR(mul)(int n, HAZE__T *c, const HAZE__T *a, const HAZE__T *b) {
    int ovf = a[n] < HAZE__INF && b[n] < HAZE__INF; /* before c overwrites an operand */
    HAZE__T ma = HAZE__ABS(a[0]), mb = HAZE__ABS(b[0]);
    HAZE__T m = HAZE__R(rn_mul)(a[0], b[0]);
    HAZE__T e = HAZE__MRF(mid_err)(m, 1);
    if (!(HAZE__ABS(m) < HAZE__INF)) m = 0, e = HAZE__INF;
    HAZE__PRAGMA_UNROLL
    for (int i = 1; i <= n; i++) {
        HAZE__T ra = a[i], rb = b[i];
        HAZE__T r = HAZE__R(ru_mul)(HAZE__R(ru_add)(ma, ra), rb);
        r = HAZE__R(ru_add)(e, r);
        c[i] = HAZE__R(ru_add)(r, HAZE__R(ru_mul)(mb, ra));
    }
    HAZE__FIX_NAN(n, c);
    c[0] = m;
    return ovf && !(c[n] < HAZE__INF) ? HAZE_FUZZY_OVERFLOW_BIT : 0;
}

/* (5c) per cut; the widest cut decides whether 0 is excluded. */
HAZE_HD int HAZE__FMR(recip)(int n, HAZE__T *c, const HAZE__T *a) {
    HAZE__T am = HAZE__ABS(a[0]);
    int dom = !(am > a[n]), ovf = !dom && a[n] < HAZE__INF;
    HAZE__T m = HAZE__R(rn_div)((HAZE__T)1, a[0]);
    HAZE__T e = HAZE__MRF(mid_err)(m, 1);
    if (!(HAZE__ABS(m) < HAZE__INF)) m = 0, e = HAZE__INF;
    HAZE__PRAGMA_UNROLL
    for (int i = 1; i <= n; i++) {
        HAZE__T ra = a[i], r;
        if (!(am > ra))
            r = HAZE__INF;
        else if (ra == 0)
            r = e;
        else {
            HAZE__T t = HAZE__R(ru_div)(ra, am);
            r = HAZE__R(ru_add)(e, HAZE__R(ru_div)(-t, HAZE__R(ru_sub)(ra, am)));
        }
        c[i] = r;
    }
    c[0] = m;
    return dom ? HAZE_FUZZY_DOMAIN_BIT : ovf && !(c[n] < HAZE__INF) ? HAZE_FUZZY_OVERFLOW_BIT : 0;
}

/* ----------------------------------------- midpoint-increment (Alg. 2-4) */

/* Algorithm 2: the kernel's error goes into the first increment only. */
HAZE_HD int HAZE__FMI(add)(int n, HAZE__T *c, const HAZE__T *a, const HAZE__T *b) {
    HAZE__T sa, sb, sc;
    HAZE__RSUM(n, a, sa);
    HAZE__RSUM(n, b, sb);
    HAZE__T m = HAZE__R(rn_add)(a[0], b[0]);
    HAZE__T e = HAZE__MRF(mid_err)(m, 0);
    if (!(HAZE__ABS(m) < HAZE__INF)) m = 0, e = HAZE__INF;
    c[1] = HAZE__R(ru_add)(HAZE__R(ru_add)(e, a[1]), b[1]);
    HAZE__PRAGMA_UNROLL
    for (int i = 2; i <= n; i++) c[i] = HAZE__R(ru_add)(a[i], b[i]);
    c[0] = m;
    HAZE__RSUM(n, c, sc);
    return sa < HAZE__INF && sb < HAZE__INF && !(sc < HAZE__INF) ? HAZE_FUZZY_OVERFLOW_BIT : 0;
}

HAZE_HD int HAZE__FMI(sub)(int n, HAZE__T *c, const HAZE__T *a, const HAZE__T *b) {
    HAZE__T sa, sb, sc;
    HAZE__RSUM(n, a, sa);
    HAZE__RSUM(n, b, sb);
    HAZE__T m = HAZE__R(rn_sub)(a[0], b[0]);
    HAZE__T e = HAZE__MRF(mid_err)(m, 0);
    if (!(HAZE__ABS(m) < HAZE__INF)) m = 0, e = HAZE__INF;
    c[1] = HAZE__R(ru_add)(HAZE__R(ru_add)(e, a[1]), b[1]);
    HAZE__PRAGMA_UNROLL
    for (int i = 2; i <= n; i++) c[i] = HAZE__R(ru_add)(a[i], b[i]);
    c[0] = m;
    HAZE__RSUM(n, c, sc);
    return sa < HAZE__INF && sb < HAZE__INF && !(sc < HAZE__INF) ? HAZE_FUZZY_OVERFLOW_BIT : 0;
}

HAZE_HD int HAZE__FMI(neg)(int n, HAZE__T *c, const HAZE__T *a) {
    return HAZE__FMR(neg)(n, c, a);
}

/*
 * Algorithm 3. The increment of (|m_A| + rho_A,i) rho_B,i + |m_B| rho_A,i is
 * t_A,i d_B,i + t_B,i d_A,i with t_A,i = |m_A| + rho_A,i and
 * t_B,i = |m_B| + rho_B,i-1: the accumulator in B lags one level (the
 * paper's line 7 adds d_B,i, which is not an upper bound when d_B,1 > d_B,i).
 * Both accumulators are rounded up; the kernel's error goes into d_C,1 only.
 */
HAZE_HD int HAZE__FMI(mul)(int n, HAZE__T *c, const HAZE__T *a, const HAZE__T *b) {
    HAZE__T sa, sb, sc;
    HAZE__RSUM(n, a, sa);
    HAZE__RSUM(n, b, sb);
    HAZE__T m = HAZE__R(rn_mul)(a[0], b[0]);
    HAZE__T e = HAZE__MRF(mid_err)(m, 1);
    if (!(HAZE__ABS(m) < HAZE__INF)) m = 0, e = HAZE__INF;
    HAZE__T ta = HAZE__ABS(a[0]), tb = HAZE__ABS(b[0]), db_prev = 0;
    HAZE__PRAGMA_UNROLL
    for (int i = 1; i <= n; i++) {
        HAZE__T da = a[i], db = b[i];
        ta = HAZE__R(ru_add)(ta, da);
        tb = HAZE__R(ru_add)(tb, db_prev);
        HAZE__T r = HAZE__R(ru_add)(HAZE__R(ru_mul)(ta, db), HAZE__R(ru_mul)(tb, da));
        c[i] = i == 1 ? HAZE__R(ru_add)(e, r) : r;
        db_prev = db;
    }
    HAZE__FIX_NAN(n, c);
    c[0] = m;
    HAZE__RSUM(n, c, sc);
    return sa < HAZE__INF && sb < HAZE__INF && !(sc < HAZE__INF) ? HAZE_FUZZY_OVERFLOW_BIT : 0;
}

/*
 * Algorithm 4. d_C,i = d_i / (t_i (t_i - d_i)) with t_i = |m| - rho_i-1, the
 * exact increment of Neumaier's radius. t_i is a lower bound here, so it is
 * rounded down (the paper rounds it up, which can make d_C,i too small).
 * The quotient is computed as -(d_i / t_i) / (d_i - t_i), every step rounded
 * up, as the midpoint-radius (5c): the product t_i (t_i - d_i) would
 * underflow for t_i < 2^-537 (1/1e-162 gave the whole line) and overflow
 * for t_i > 2^512 (1/1e300 gave radii 10^290 times too wide).
 */
HAZE_HD int HAZE__FMI(recip)(int n, HAZE__T *c, const HAZE__T *a) {
    HAZE__T sa, sc;
    HAZE__RSUM(n, a, sa);
    HAZE__T m = HAZE__R(rn_div)((HAZE__T)1, a[0]);
    HAZE__T e = HAZE__MRF(mid_err)(m, 1);
    int dom = 0;
    if (!(HAZE__ABS(m) < HAZE__INF)) m = 0, e = HAZE__INF;
    HAZE__T t = HAZE__ABS(a[0]), d_prev = 0;
    HAZE__PRAGMA_UNROLL
    for (int i = 1; i <= n; i++) {
        HAZE__T d = a[i], r;
        t = HAZE__R(rd_sub)(t, d_prev);
        if (!(HAZE__R(rd_sub)(t, d) > 0)) {
            r = HAZE__INF;
            dom = 1;
        } else if (d == 0) {
            r = 0;
        } else {
            HAZE__T q = HAZE__R(ru_div)(d, t);              /* >= d / t */
            r = HAZE__R(ru_div)(-q, HAZE__R(ru_sub)(d, t)); /* >= q / (t - d) */
        }
        if (i == 1) r = HAZE__R(ru_add)(e, r);
        c[i] = r;
        d_prev = d;
    }
    c[0] = m;
    HAZE__RSUM(n, c, sc);
    return dom                                   ? HAZE_FUZZY_DOMAIN_BIT
           : sa < HAZE__INF && !(sc < HAZE__INF) ? HAZE_FUZZY_OVERFLOW_BIT
                                                 : 0;
}

/* Division as inversion then product (the paper's choice). */
HAZE_HD int HAZE__FMR(div)(int n, HAZE__T *c, const HAZE__T *a, const HAZE__T *b) {
    HAZE__T t[HAZE_FUZZY_MAX_CUTS + 1] = {0};
    int f = HAZE__FMR(recip)(n, t, b);
    f |= HAZE__FMR(mul)(n, c, a, t);
    return f & HAZE_FUZZY_DOMAIN_BIT ? HAZE_FUZZY_DOMAIN_BIT : f;
}
HAZE_HD int HAZE__FMI(div)(int n, HAZE__T *c, const HAZE__T *a, const HAZE__T *b) {
    HAZE__T t[HAZE_FUZZY_MAX_CUTS + 1] = {0};
    int f = HAZE__FMI(recip)(n, t, b);
    f |= HAZE__FMI(mul)(n, c, a, t);
    return f & HAZE_FUZZY_DOMAIN_BIT ? HAZE_FUZZY_DOMAIN_BIT : f;
}
HAZE_HD int HAZE__FMR(sqr)(int n, HAZE__T *c, const HAZE__T *a) {
    return HAZE__FMR(mul)(n, c, a, a);
}
HAZE_HD int HAZE__FMI(sqr)(int n, HAZE__T *c, const HAZE__T *a) {
    return HAZE__FMI(mul)(n, c, a, a);
}

/* ------------------------------------------------------------ conversions */

/*
 * Midpoint-radius -> midpoint-increment: d_i = RU(rho_i - rho_i-1) (the sum
 * telescopes up); after an infinite radius the increments are 0, not
 * inf - inf = NaN (the sum stays infinite instead of becoming an empty cut).
 */
HAZE_HD void HAZE__FMR(to_mi)(int n, HAZE__T *c, const HAZE__T *a) {
    HAZE__T prev = 0;
    c[0] = a[0];
    for (int i = 1; i <= n; i++) {
        HAZE__T r = a[i];
        c[i] = prev < HAZE__INF ? HAZE__R(ru_sub)(r, prev) : 0;
        prev = r;
    }
}
/* Midpoint-increment -> midpoint-radius: rho_i = RU(rho_i-1 + d_i). */
HAZE_HD void HAZE__FMI(to_mr)(int n, HAZE__T *c, const HAZE__T *a) {
    HAZE__T s = 0;
    c[0] = a[0];
    for (int i = 1; i <= n; i++) {
        s = HAZE__R(ru_add)(s, a[i]);
        c[i] = s;
    }
}
/* Midpoint-radius -> lower-upper, outward. */
HAZE_HD void HAZE__FMR(to_lu)(int n, HAZE__T *c, const HAZE__T *a) {
    HAZE__T m = a[0];
    for (int i = n - 1; i >= 0; i--) { /* backwards: c may alias a */
        HAZE__T r = a[1 + i];
        c[2 * i] = HAZE__R(rd_sub)(m, r);
        c[2 * i + 1] = HAZE__R(ru_add)(m, r);
    }
}
/*
 * Lower-upper -> midpoint-radius by the outward symmetric envelope: the
 * kernel is the midpoint of cut 1 and rho_i covers both bounds of cut i.
 * Exact when the cuts are symmetric around a representable kernel.
 */
HAZE_HD void HAZE__LU(to_mr)(int n, HAZE__T *c, const HAZE__T *a) {
    int top = 0; /* empty top cuts (a square root of negative values) stay radius 0 */
    while (top < n - 1 && !(a[2 * top] <= a[2 * top + 1])) top++;
    HAZE__T m = HAZE__IVF(to_mr)(HAZE__IVF(make)(a[2 * top], a[2 * top + 1])).mid;
    HAZE__T prev = 0;
    for (int i = 0; i < n; i++) {
        HAZE__T lo = a[2 * i], hi = a[2 * i + 1];
        if (!(lo <= hi)) lo = hi = m;
        HAZE__T r1 = HAZE__R(ru_sub)(hi, m), r2 = HAZE__R(ru_sub)(m, lo);
        HAZE__T r = r1 > r2 ? r1 : r2;
        r = r > prev ? r : prev; /* keep the cuts nested */
        c[1 + i] = r;
        prev = r;
    }
    c[0] = m;
}

/* Square roots of symmetric numbers: through lower-upper and back (envelope). */
HAZE_HD int HAZE__FMR(sqrt)(int n, HAZE__T *c, const HAZE__T *a) {
    HAZE__T t[2 * HAZE_FUZZY_MAX_CUTS] = {0};
    HAZE__FMR(to_lu)(n, t, a);
    int f = HAZE__LU(sqrt)(n, t, t);
    HAZE__LU(to_mr)(n, c, t);
    return f & HAZE_FUZZY_DOMAIN_BIT ? HAZE_FUZZY_DOMAIN_BIT : f;
}
HAZE_HD int HAZE__FMI(sqrt)(int n, HAZE__T *c, const HAZE__T *a) {
    HAZE__T t[HAZE_FUZZY_MAX_CUTS + 1] = {0};
    HAZE__FMI(to_mr)(n, t, a);
    int f = HAZE__FMR(sqrt)(n, t, t);
    HAZE__FMR(to_mi)(n, c, t);
    return f;
}

#undef HAZE__IV
#undef HAZE__MR
#undef HAZE__IVF
#undef HAZE__MRF
#undef HAZE__LU
#undef HAZE__FMR
#undef HAZE__FMI
#undef HAZE__R
#undef HAZE__ABS
#undef HAZE__FIX_NAN
#undef HAZE__RSUM
#undef HAZE__CAT3
#undef HAZE__CAT3_
