/*
 * haze/interval_impl.h - the body of haze/interval.h, written once and
 * included twice: for double (HAZE__P d) and for float (HAZE__P f). Do not
 * include it directly. Threads: as haze/core.h says (pure functions).
 *
 * Lower-upper operations: Definition 4 of Marin, Defour and Milano, "An
 * efficient midpoint-radius representation format to deal with symmetric
 * fuzzy numbers" (docs/fuzzy.md), made optimal as IEEE 1788 asks: each
 * bound is the directed rounding of the exact bound. Midpoint-radius
 * operations: Definition 5 (5a-5c), after Rump, "Fast and parallel interval
 * arithmetic" (BIT 1999), with u = eps/2 the unit roundoff and eta the
 * smallest subnormal.
 */
#define HAZE__CAT3_(a, b, c) a##b##c
#define HAZE__CAT3(a, b, c)  HAZE__CAT3_(a, b, c)
#define HAZE__IV             HAZE__CAT3(haze_iv, HAZE__P, )
#define HAZE__MR             HAZE__CAT3(haze_mr, HAZE__P, )
#define HAZE__IVF(name)      HAZE__CAT3(haze_iv, HAZE__P, _##name)
#define HAZE__MRF(name)      HAZE__CAT3(haze_mr, HAZE__P, _##name)
#define HAZE__R(name)        HAZE__CAT3(haze_##name, HAZE__S, )

/* ------------------------------------------------------------ lower-upper */

HAZE_HD HAZE__IV HAZE__IVF(make)(HAZE__T lo, HAZE__T hi) {
    HAZE__IV r;
    r.lo = lo;
    r.hi = hi;
    return r;
}
/* The empty set: both bounds NaN. */
HAZE_HD HAZE__IV HAZE__IVF(empty)(void) {
    return HAZE__IVF(make)(HAZE__NAN, HAZE__NAN);
}
HAZE_HD HAZE__IV HAZE__IVF(entire)(void) {
    return HAZE__IVF(make)(-HAZE__INF, HAZE__INF);
}
HAZE_HD int HAZE__IVF(is_empty)(HAZE__IV x) {
    return !(x.lo <= x.hi);
}
/* 1 if x is a valid non-empty interval with finite bounds lo <= hi. */
HAZE_HD int HAZE__IVF(is_finite)(HAZE__IV x) {
    return x.lo <= x.hi && x.lo > -HAZE__INF && x.hi < HAZE__INF;
}
HAZE_HD int HAZE__IVF(contains)(HAZE__IV x, HAZE__T v) {
    return x.lo <= v && v <= x.hi;
}
HAZE_HD int HAZE__IVF(subset)(HAZE__IV x, HAZE__IV y) {
    return y.lo <= x.lo && x.hi <= y.hi;
}

HAZE_HD HAZE__IV HAZE__IVF(neg)(HAZE__IV x) {
    return HAZE__IVF(make)(-x.hi, -x.lo);
}

HAZE_HD HAZE__IV HAZE__IVF(add)(HAZE__IV x, HAZE__IV y) {
    return HAZE__IVF(make)(HAZE__R(rd_add)(x.lo, y.lo), HAZE__R(ru_add)(x.hi, y.hi));
}

HAZE_HD HAZE__IV HAZE__IVF(sub)(HAZE__IV x, HAZE__IV y) {
    return HAZE__IVF(make)(HAZE__R(rd_sub)(x.lo, y.hi), HAZE__R(ru_sub)(x.hi, y.lo));
}

/* (4c): the four corner products, each rounded both ways (finite operands). */
HAZE_HD HAZE__IV HAZE__IVF(mul)(HAZE__IV x, HAZE__IV y) {
    HAZE__T l1 = HAZE__R(rd_mul)(x.lo, y.lo), l2 = HAZE__R(rd_mul)(x.lo, y.hi);
    HAZE__T l3 = HAZE__R(rd_mul)(x.hi, y.lo), l4 = HAZE__R(rd_mul)(x.hi, y.hi);
    HAZE__T u1 = HAZE__R(ru_mul)(x.lo, y.lo), u2 = HAZE__R(ru_mul)(x.lo, y.hi);
    HAZE__T u3 = HAZE__R(ru_mul)(x.hi, y.lo), u4 = HAZE__R(ru_mul)(x.hi, y.hi);
    HAZE__T lo = l1 < l2 ? l1 : l2, hi = u1 > u2 ? u1 : u2;
    lo = l3 < lo ? l3 : lo;
    lo = l4 < lo ? l4 : lo;
    hi = u3 > hi ? u3 : hi;
    hi = u4 > hi ? u4 : hi;
    if (HAZE__IVF(is_empty)(x) || HAZE__IVF(is_empty)(y)) return HAZE__IVF(empty)();
    if (lo != lo || hi != hi) { /* 0 * inf at a corner: IEEE 1788 takes it as 0 */
        HAZE__T c[8] = {l1, l2, l3, l4, u1, u2, u3, u4};
        lo = HAZE__INF;
        hi = -HAZE__INF;
        for (int i = 0; i < 8; i++) {
            HAZE__T v = c[i] != c[i] ? (HAZE__T)0 : c[i];
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
    }
    return HAZE__IVF(make)(lo, hi);
}

/*
 * (4d) where 0 is not in y. Otherwise the IEEE 1788 hull: [0,0] gives the
 * empty set, a zero bound a half-line, a zero inside the whole line.
 */
HAZE_HD HAZE__IV HAZE__IVF(recip)(HAZE__IV y) {
    if (HAZE__IVF(is_empty)(y)) return y;
    if (y.lo > 0 || y.hi < 0)
        return HAZE__IVF(make)(HAZE__R(rd_div)(1, y.hi), HAZE__R(ru_div)(1, y.lo));
    if (y.lo == 0 && y.hi == 0) return HAZE__IVF(empty)();
    if (y.lo == 0) return HAZE__IVF(make)(HAZE__R(rd_div)(1, y.hi), HAZE__INF);
    if (y.hi == 0) return HAZE__IVF(make)(-HAZE__INF, HAZE__R(ru_div)(1, y.lo));
    return HAZE__IVF(entire)();
}

/* x / y, optimal when 0 is not in y; the IEEE 1788 hull otherwise. */
HAZE_HD HAZE__IV HAZE__IVF(div)(HAZE__IV x, HAZE__IV y) {
    if (HAZE__IVF(is_empty)(x) || HAZE__IVF(is_empty)(y)) return HAZE__IVF(empty)();
    if (y.lo > 0 || y.hi < 0) {
        HAZE__T l1 = HAZE__R(rd_div)(x.lo, y.lo), l2 = HAZE__R(rd_div)(x.lo, y.hi);
        HAZE__T l3 = HAZE__R(rd_div)(x.hi, y.lo), l4 = HAZE__R(rd_div)(x.hi, y.hi);
        HAZE__T u1 = HAZE__R(ru_div)(x.lo, y.lo), u2 = HAZE__R(ru_div)(x.lo, y.hi);
        HAZE__T u3 = HAZE__R(ru_div)(x.hi, y.lo), u4 = HAZE__R(ru_div)(x.hi, y.hi);
        HAZE__T lo = l1 < l2 ? l1 : l2, hi = u1 > u2 ? u1 : u2;
        lo = l3 < lo ? l3 : lo;
        lo = l4 < lo ? l4 : lo;
        hi = u3 > hi ? u3 : hi;
        hi = u4 > hi ? u4 : hi;
        if (lo != lo || hi != hi) {
            /* inf / inf at a corner (an unbounded x over an unbounded y that
             * excludes 0): the quotients near it lie between those of its
             * two neighbours, one infinite and one zero of the same sign,
             * so the hull of the other corners holds them; a NaN there had
             * made the cut empty (-1e309 / 1e309 gave no -1) */
            HAZE__T c[8] = {l1, l2, l3, l4, u1, u2, u3, u4};
            lo = HAZE__INF;
            hi = -HAZE__INF;
            for (int i = 0; i < 8; i++) {
                if (c[i] != c[i]) continue;
                lo = c[i] < lo ? c[i] : lo;
                hi = c[i] > hi ? c[i] : hi;
            }
            if (lo > hi) return HAZE__IVF(entire)(); /* every corner inf / inf */
        }
        return HAZE__IVF(make)(lo, hi);
    }
    if (y.lo == 0 && y.hi == 0) return HAZE__IVF(empty)();
    if (x.lo == 0 && x.hi == 0) return HAZE__IVF(make)(0, 0);
    if (x.lo > 0) { /* positive numerator */
        if (y.lo == 0) return HAZE__IVF(make)(HAZE__R(rd_div)(x.lo, y.hi), HAZE__INF);
        if (y.hi == 0) return HAZE__IVF(make)(-HAZE__INF, HAZE__R(ru_div)(x.lo, y.lo));
    } else if (x.hi < 0) { /* negative numerator */
        if (y.lo == 0) return HAZE__IVF(make)(-HAZE__INF, HAZE__R(ru_div)(x.hi, y.hi));
        if (y.hi == 0) return HAZE__IVF(make)(HAZE__R(rd_div)(x.hi, y.lo), HAZE__INF);
    }
    return HAZE__IVF(entire)();
}

HAZE_HD HAZE__IV HAZE__IVF(sqr)(HAZE__IV x) {
    if (HAZE__IVF(is_empty)(x)) return x;
    if (x.lo >= 0) return HAZE__IVF(make)(HAZE__R(rd_mul)(x.lo, x.lo), HAZE__R(ru_mul)(x.hi, x.hi));
    if (x.hi <= 0) return HAZE__IVF(make)(HAZE__R(rd_mul)(x.hi, x.hi), HAZE__R(ru_mul)(x.lo, x.lo));
    HAZE__T m = -x.lo > x.hi ? -x.lo : x.hi;
    return HAZE__IVF(make)(0, HAZE__R(ru_mul)(m, m));
}

/* Square root of the part of x at or above 0 (IEEE 1788); empty if x < 0. */
HAZE_HD HAZE__IV HAZE__IVF(sqrt)(HAZE__IV x) {
    if (HAZE__IVF(is_empty)(x) || x.hi < 0) return HAZE__IVF(empty)();
    HAZE__T lo = x.lo <= 0 ? (HAZE__T)0 : HAZE__R(rd_sqrt)(x.lo);
    return HAZE__IVF(make)(lo, HAZE__R(ru_sqrt)(x.hi));
}

/* Convex hull of x and y (outward: the bounds are exact). */
HAZE_HD HAZE__IV HAZE__IVF(hull)(HAZE__IV x, HAZE__IV y) {
    if (HAZE__IVF(is_empty)(x)) return y;
    if (HAZE__IVF(is_empty)(y)) return x;
    return HAZE__IVF(make)(x.lo < y.lo ? x.lo : y.lo, x.hi > y.hi ? x.hi : y.hi);
}

/* --------------------------------------------------------- midpoint-radius */

HAZE_HD HAZE__MR HAZE__MRF(make)(HAZE__T mid, HAZE__T rad) {
    HAZE__MR r;
    r.mid = mid;
    r.rad = rad;
    return r;
}
/* The whole line <0, +inf>: what an operation returns when its midpoint overflows. */
HAZE_HD HAZE__MR HAZE__MRF(entire)(void) {
    return HAZE__MRF(make)(0, HAZE__INF);
}
HAZE_HD HAZE__MR HAZE__MRF(empty)(void) {
    return HAZE__MRF(make)(HAZE__NAN, HAZE__NAN);
}
HAZE_HD int HAZE__MRF(is_empty)(HAZE__MR x) {
    return !(x.rad >= 0) || x.mid != x.mid;
}
HAZE_HD int HAZE__MRF(is_finite)(HAZE__MR x) {
    return x.rad >= 0 && x.rad < HAZE__INF && x.mid > -HAZE__INF && x.mid < HAZE__INF;
}

/* Rounding error bound of a midpoint m computed by one RN operation: u|m| (+ eta if a product). */
HAZE_HD HAZE__T HAZE__MRF(mid_err)(HAZE__T m, int with_eta) {
    HAZE__T e = HAZE__R(ru_mul)(HAZE__U, HAZE__CAT3(fabs, HAZE__S, )(m)); /* free |m| on GPU */
    return with_eta ? HAZE__R(ru_add)(e, HAZE__ETA) : e;
}

HAZE_HD HAZE__MR HAZE__MRF(neg)(HAZE__MR x) {
    return HAZE__MRF(make)(-x.mid, x.rad);
}

/* (5a) */
HAZE_HD HAZE__MR HAZE__MRF(add)(HAZE__MR x, HAZE__MR y) {
    HAZE__T m = HAZE__R(rn_add)(x.mid, y.mid);
    if (!(m > -HAZE__INF && m < HAZE__INF))
        return m != m ? HAZE__MRF(empty)() : HAZE__MRF(entire)();
    HAZE__T r = HAZE__R(ru_add)(HAZE__R(ru_add)(HAZE__MRF(mid_err)(m, 0), x.rad), y.rad);
    return HAZE__MRF(make)(m, r);
}

HAZE_HD HAZE__MR HAZE__MRF(sub)(HAZE__MR x, HAZE__MR y) {
    return HAZE__MRF(add)(x, HAZE__MRF(neg)(y));
}

/* (5b) */
HAZE_HD HAZE__MR HAZE__MRF(mul)(HAZE__MR x, HAZE__MR y) {
    HAZE__T m = HAZE__R(rn_mul)(x.mid, y.mid);
    if (!(m > -HAZE__INF && m < HAZE__INF))
        return m != m ? HAZE__MRF(empty)() : HAZE__MRF(entire)();
    HAZE__T ax = x.mid < 0 ? -x.mid : x.mid, ay = y.mid < 0 ? -y.mid : y.mid;
    HAZE__T r = HAZE__R(ru_mul)(HAZE__R(ru_add)(ax, x.rad), y.rad);
    r = HAZE__R(ru_add)(HAZE__MRF(mid_err)(m, 1), r);
    r = HAZE__R(ru_add)(r, HAZE__R(ru_mul)(ay, x.rad));
    if (r != r) return HAZE__MRF(entire)(); /* 0 * inf with an unbounded operand */
    return HAZE__MRF(make)(m, r);
}

/*
 * (5c), Neumaier's inverse: radius rho / (|m| (|m| - rho)), computed as
 * -(rho / |m|) / (rho - |m|) so that rounding every step upward bounds it
 * (the paper's sign trick) and |m| (|m| - rho) cannot overflow or underflow.
 * Requires |m| > rho; otherwise the result is the whole line.
 */
HAZE_HD HAZE__MR HAZE__MRF(recip)(HAZE__MR y) {
    HAZE__T ay = y.mid < 0 ? -y.mid : y.mid;
    if (HAZE__MRF(is_empty)(y)) return HAZE__MRF(empty)();
    if (!(ay > y.rad)) return HAZE__MRF(entire)();
    HAZE__T m = HAZE__R(rn_div)(1, y.mid);
    if (!(m > -HAZE__INF && m < HAZE__INF)) return HAZE__MRF(entire)();
    HAZE__T t = HAZE__R(ru_div)(y.rad, ay); /* >= rho / |m| */
    HAZE__T d = HAZE__R(ru_sub)(y.rad, ay); /* < 0, |d| <= |m| - rho */
    HAZE__T r = HAZE__R(ru_div)(-t, d);     /* >= t / (|m| - rho) */
    r = HAZE__R(ru_add)(HAZE__MRF(mid_err)(m, 1), r);
    return HAZE__MRF(make)(m, r);
}

/* x / y as x * (1 / y), as the paper does. */
HAZE_HD HAZE__MR HAZE__MRF(div)(HAZE__MR x, HAZE__MR y) {
    return HAZE__MRF(mul)(x, HAZE__MRF(recip)(y));
}

/* x^2 = m^2 + 2 m d + d^2 with |d| <= rho: radius rho (2|m| + rho). */
HAZE_HD HAZE__MR HAZE__MRF(sqr)(HAZE__MR x) {
    HAZE__T m = HAZE__R(rn_mul)(x.mid, x.mid);
    if (!(m < HAZE__INF)) return m != m ? HAZE__MRF(empty)() : HAZE__MRF(entire)();
    HAZE__T ax = x.mid < 0 ? -x.mid : x.mid;
    HAZE__T r = HAZE__R(ru_mul)(x.rad, HAZE__R(ru_add)(HAZE__R(ru_add)(ax, ax), x.rad));
    r = HAZE__R(ru_add)(HAZE__MRF(mid_err)(m, 1), r);
    return HAZE__MRF(make)(m, r);
}

/* ------------------------------------------------------------ conversions */

/* <m, rho> -> [RD(m - rho), RU(m + rho)]: outward. */
HAZE_HD HAZE__IV HAZE__MRF(to_iv)(HAZE__MR x) {
    if (HAZE__MRF(is_empty)(x)) return HAZE__IVF(empty)();
    return HAZE__IVF(make)(HAZE__R(rd_sub)(x.mid, x.rad), HAZE__R(ru_add)(x.mid, x.rad));
}

/*
 * [lo, hi] -> <m, rho> with m = RN(lo/2 + hi/2) (cannot overflow) and rho
 * rounded up to cover both bounds: outward whatever m is. Unbounded -> entire.
 */
HAZE_HD HAZE__MR HAZE__IVF(to_mr)(HAZE__IV x) {
    if (HAZE__IVF(is_empty)(x)) return HAZE__MRF(empty)();
    if (!(x.lo > -HAZE__INF && x.hi < HAZE__INF)) return HAZE__MRF(entire)();
    HAZE__T m =
        HAZE__R(rn_add)(HAZE__R(rn_mul)(x.lo, (HAZE__T)0.5), HAZE__R(rn_mul)(x.hi, (HAZE__T)0.5));
    if (m < x.lo) m = x.lo;
    if (m > x.hi) m = x.hi;
    HAZE__T r1 = HAZE__R(ru_sub)(x.hi, m), r2 = HAZE__R(ru_sub)(m, x.lo);
    return HAZE__MRF(make)(m, r1 > r2 ? r1 : r2);
}

/* Square root through the lower-upper form (the result is not symmetric). */
HAZE_HD HAZE__MR HAZE__MRF(sqrt)(HAZE__MR x) {
    return HAZE__IVF(to_mr)(HAZE__IVF(sqrt)(HAZE__MRF(to_iv)(x)));
}

#undef HAZE__IV
#undef HAZE__MR
#undef HAZE__IVF
#undef HAZE__MRF
#undef HAZE__R
#undef HAZE__CAT3
#undef HAZE__CAT3_
