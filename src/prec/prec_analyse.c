/*
 * src/prec/prec_analyse.c - the two engines of the analyser, run on one box
 * of input ranges.
 *
 * Every node n carries an enclosure V(n) of its value and E(n) of its error
 * val(n) - val(strip(n)), the difference to the same expression computed
 * exactly. Errors propagate with the rules that separate the new rounding
 * error from the propagated one (Gappa's rewriting; Linderman et al., CGO
 * 2010, Sec. 3.1-3.2):
 *   o(a)        : E = E(a) + (o(v) - v),  bounded from V(a) and the format,
 *                 zero when FIX/FLT facts prove the rounding exact
 *   a * b       : E = ia*Eb + ib*Ea + Ea*Eb                (ia = V(strip a))
 *                 met with ia*Eb + vb*Ea and va*Eb + ib*Ea  (vb = V(b)), Ea*(va+ia) for a square
 *   a / b       : E = (Ea - q*Eb) / vb                     (q = ia/ib)
 *   log(a)      : E = log(1 + Ea/ia)      (log(a) - log(b) -> log(1 + (a-b)/b))
 *   exp(a)      : E = exp(ia) * (exp(Ea) - 1)  (exp(a) - exp(b) -> exp(b)(exp(a-b) - 1))
 *   sqrt(a)     : E = Ea / (sqrt(va) + sqrt(ia))
 * The interval engine (IA) evaluates these with intervals. The affine engine
 * (AA, Sec. 3.3) keeps the error as an affine form sum c_i eps_i with one
 * noise symbol per rounding (c_i an interval enclosing the coefficient over
 * the box) so that one rounding reaching a result along several paths
 * cancels, and the exact values as affine forms over one symbol per input
 * (de Figueiredo and Stolfi, 1997), multiplication with the quadratic term
 * as a new symbol. "both" intersects the two enclosures at every node.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "prec/prec_affine.h"
#include "prec/prec_engine.h"

/* ---------------------------------------------------------------- state */

typedef struct nst {
    pint V, E;
    pint Rl;    /* relative error E / V(strip) when rel_ok */
    int rel_ok; /* Gappa's relative-error reasoning for floating point */
    aform A;    /* stripped nodes: the exact value */
    aform F;    /* rounded nodes: the error */
    int has_a, has_f, live;
} nst;

typedef struct run {
    haze_ctx *ctx;
    const haze_prec_script *s;
    int ia, aa;
    nst *st;
    int next_sym;
} run;

static int domain(run *R, const pnode *n, const char *what) {
    return haze__error(R->ctx, HAZE_ERR_DOMAIN, "%s:%d:%d: %s", R->s->name, n->line, n->col, what);
}

static int nomem(run *R) {
    return haze__error(R->ctx, HAZE_ERR_NOMEM, "out of memory");
}

/* The rounding error o(v) - v for v in va (Sec. 2.1, Eq. 1, and Gappa's
 * FIX/FLT exactness). */
static void round_error(pint *d, const pformat *f, const pint *va, const pnode *a) {
    if (!haze__pi_is_bounded(va)) {
        haze__pi_set_entire(d);
        return;
    }
    int plain = f->extra_ulps == 0 && f->extra_abs == LONG_MIN;
    if (plain && haze__pi_is_point(va)) {
        mpfr_t r;
        mpfr_init2(r, PREC_BITS + 8);
        int ovf = haze__prec_round_point(f, r, va->lo);
        if (ovf) {
            haze__pi_set_entire(d);
        } else {
            mpfr_sub(d->lo, r, va->lo, MPFR_RNDD);
            mpfr_sub(d->hi, r, va->lo, MPFR_RNDU);
        }
        mpfr_clear(r);
        return;
    }
    mpfr_t M, u;
    mpfr_inits2(PREC_BITS, M, u, (mpfr_ptr)0);
    haze__pi_mag(M, va);
    long q, e_m = 0;
    int done = 0;
    if (f->fixed) {
        if (a->fix != FIX_UNKNOWN && a->fix >= f->lsb) {
            haze__pi_set_zero(d);
            done = 1;
        }
        q = f->lsb;
    } else {
        if (f->emax != LONG_MAX) {
            mpfr_t mx;
            mpfr_init2(mx, PREC_BITS);
            mpfr_set_ui_2exp(mx, 1, (mpfr_exp_t)(1 - f->prec), MPFR_RNDN);
            mpfr_ui_sub(mx, 2, mx, MPFR_RNDN);
            mpfr_mul_2si(mx, mx, f->emax, MPFR_RNDN);
            int over = mpfr_cmp(M, mx) > 0;
            mpfr_clear(mx);
            if (over) {
                haze__pi_set_entire(d);
                mpfr_clears(M, u, (mpfr_ptr)0);
                return;
            }
        }
        if (mpfr_zero_p(M)) {
            haze__pi_set_zero(d);
            mpfr_clears(M, u, (mpfr_ptr)0);
            return;
        }
        long e = mpfr_get_exp(M); /* M < 2^e */
        if (plain) {
            long emin_exact = f->ftz ? -126 : f->emin;
            int grid = f->emin == LONG_MIN || (a->fix != FIX_UNKNOWN && a->fix >= emin_exact);
            int bits = a->flt <= f->prec || (a->fix != FIX_UNKNOWN && e <= a->fix + f->prec);
            if (grid && bits) {
                haze__pi_set_zero(d);
                done = 1;
            }
        }
        q = e - f->prec;
        if (f->emin != LONG_MIN && q < f->emin) q = f->emin;
        e_m = e;
    }
    if (!done) {
        mpfr_set_ui_2exp(u, 1, (mpfr_exp_t)q, MPFR_RNDN);
        int neg_only = mpfr_sgn(va->hi) <= 0, pos_only = mpfr_sgn(va->lo) >= 0;
        switch (f->dir) {
        case DIR_NE:
        case DIR_NA:
            mpfr_div_2ui(u, u, 1, MPFR_RNDN);
            if (!f->fixed) {
                /* only |x| in [P, M] (P = 2^(e-1)) has the larger ulp, and there
                 * the error is also at most x - P <= M - P */
                long qlo = e_m - 1 - f->prec;
                if (f->emin != LONG_MIN && qlo < f->emin) qlo = f->emin;
                mpfr_t b1, b2;
                mpfr_inits2(PREC_BITS, b1, b2, (mpfr_ptr)0);
                mpfr_set_ui_2exp(b1, 1, (mpfr_exp_t)(qlo - 1), MPFR_RNDN);
                mpfr_set_ui_2exp(b2, 1, (mpfr_exp_t)(e_m - 1), MPFR_RNDN);
                mpfr_sub(b2, M, b2, MPFR_RNDU);
                mpfr_min(b2, b2, u, MPFR_RNDU);
                mpfr_max(u, b1, b2, MPFR_RNDU);
                mpfr_clears(b1, b2, (mpfr_ptr)0);
            }
            haze__pi_sym(d, u);
            break;
        case DIR_UP:
            mpfr_set_zero(d->lo, 1);
            mpfr_set(d->hi, u, MPFR_RNDU);
            break;
        case DIR_DN:
            mpfr_neg(d->lo, u, MPFR_RNDD);
            mpfr_set_zero(d->hi, 1);
            break;
        case DIR_ZR:
            haze__pi_sym(d, u);
            if (pos_only) mpfr_set_zero(d->hi, 1);
            if (neg_only) mpfr_set_zero(d->lo, 1);
            break;
        default: /* aw */
            haze__pi_sym(d, u);
            if (pos_only) mpfr_set_zero(d->lo, 1);
            if (neg_only) mpfr_set_zero(d->hi, 1);
            break;
        }
        if (!f->fixed && f->ftz) {
            /* results below 2^-126 are flushed to zero: an error below 2^-126 */
            mpfr_t mg;
            mpfr_init2(mg, PREC_BITS);
            haze__pi_mig(mg, va);
            if (mpfr_cmp_si_2exp(mg, 1, -126) < 0) {
                mpfr_set_ui_2exp(u, 1, -126, MPFR_RNDN);
                pint z;
                haze__pi_init(&z);
                haze__pi_sym(&z, u);
                haze__pi_hull(d, d, &z);
                haze__pi_clear(&z);
            }
            mpfr_clear(mg);
        }
        if (!f->fixed && !plain) {
            /* documented error of a fast intrinsic, in ulps of the result
             * (|result| <= 2^e, so its ulp is at most 2^(e+1-p)) or absolute */
            long e = mpfr_get_exp(M), qe = e + 1 - f->prec;
            if (f->emin != LONG_MIN && qe < f->emin) qe = f->emin;
            mpfr_set_ui_2exp(u, (unsigned long)f->extra_ulps, (mpfr_exp_t)qe, MPFR_RNDU);
            if (f->extra_abs != LONG_MIN && mpfr_cmp_si_2exp(u, 1, f->extra_abs) < 0)
                mpfr_set_ui_2exp(u, 1, (mpfr_exp_t)f->extra_abs, MPFR_RNDU);
            pint z;
            haze__pi_init(&z);
            haze__pi_sym(&z, u);
            haze__pi_add(d, d, &z);
            haze__pi_clear(&z);
        }
    }
    mpfr_clears(M, u, (mpfr_ptr)0);
}

/* Relative error o(v)/v - 1 for v in va when va stays in the normal range
 * (Eq. 1 of the paper: |rho| <= 2^-p to nearest, 2^(1-p) directed). */
static int round_rel(pint *rho, const pformat *f, const pint *va, const pint *d) {
    if (haze__pi_is_point(d) && mpfr_zero_p(d->lo)) {
        haze__pi_set_zero(rho);
        return 1;
    }
    if (f->fixed || f->extra_abs != LONG_MIN || !haze__pi_is_bounded(d)) return 0;
    mpfr_t m;
    mpfr_init2(m, PREC_BITS);
    haze__pi_mig(m, va);
    long emin = f->ftz ? -126 - f->prec + 1 : f->emin;
    int ok =
        !mpfr_zero_p(m) && (emin == LONG_MIN || mpfr_cmp_si_2exp(m, 1, emin + f->prec - 1) >= 0);
    mpfr_clear(m);
    if (!ok) return 0;
    int nearest = f->dir == DIR_NE || f->dir == DIR_NA;
    mpfr_set_si_2exp(rho->hi, 1, nearest ? -f->prec : 1 - f->prec, MPFR_RNDU);
    if (f->extra_ulps) {
        /* k ulps of the result y: at most k 2^(1-p) |y| <= k 2^(1-p) (1 + 2^-p) |v| */
        mpfr_t k;
        mpfr_init2(k, PREC_BITS);
        mpfr_set_si_2exp(k, 1, -f->prec, MPFR_RNDU);
        mpfr_add_ui(k, k, 1, MPFR_RNDU);
        mpfr_mul_si(k, k, f->extra_ulps, MPFR_RNDU);
        mpfr_mul_2si(k, k, 1 - f->prec, MPFR_RNDU);
        mpfr_add(rho->hi, rho->hi, k, MPFR_RNDU);
        mpfr_clear(k);
    }
    mpfr_neg(rho->lo, rho->hi, MPFR_RNDD);
    return 1;
}

/* Direct enclosure of o(v) for v in va: rounding is monotone. */
static void round_value(pint *r, const pformat *f, const pint *va, const pint *d) {
    pint t;
    haze__pi_init(&t);
    haze__pi_add(&t, va, d);
    if (f->extra_ulps == 0 && f->extra_abs == LONG_MIN && haze__pi_is_bounded(va)) {
        mpfr_t lo, hi;
        mpfr_inits2(PREC_BITS + 8, lo, hi, (mpfr_ptr)0);
        int o1 = haze__prec_round_point(f, lo, va->lo), o2 = haze__prec_round_point(f, hi, va->hi);
        if (!o1 && !o2) {
            pint m;
            haze__pi_init(&m);
            mpfr_set(m.lo, lo, MPFR_RNDD);
            mpfr_set(m.hi, hi, MPFR_RNDU);
            haze__pi_meet(&t, &t, &m);
            haze__pi_clear(&m);
        }
        mpfr_clears(lo, hi, (mpfr_ptr)0);
    }
    haze__pi_set(r, &t);
    haze__pi_clear(&t);
}

/* ------------------------------------------------------------ node rules */

static int is_stripped(const haze_prec_script *s, int id) {
    return s->nodes[id].strip == id;
}

/* f(x) and f'(x) enclosed, for the min-range approximation. */
static void fun_d(int op, pint *f, pint *df, const pint *x) {
    pint one;
    haze__pi_init(&one);
    haze__pi_set_d(&one, 1, 1);
    switch (op) {
    case OP_EXP:
        haze__pi_exp(f, x);
        haze__pi_set(df, f);
        break;
    case OP_LOG:
        haze__pi_log(f, x);
        haze__pi_div(df, &one, x);
        break;
    case OP_SQRT:
        haze__pi_sqrt(f, x);
        haze__pi_add(df, f, f);
        haze__pi_div(df, &one, df);
        break;
    default: /* 1/x */
        haze__pi_div(f, &one, x);
        haze__pi_sqr(df, f);
        haze__pi_neg(df, df);
        break;
    }
}

/*
 * Min-range linear approximation (de Figueiredo and Stolfi, 1997, Sec. 3.8)
 * of a monotone convex or concave f over [l, h] not containing a
 * singularity: f(x) = alpha x + d(x), alpha the slope at the end where |f'|
 * is smallest, so d is monotone. alpha is a point near the enclosure A' of
 * that slope, and d(x) = (f(x) - a' x) + (a' - alpha) x is bounded by the
 * hull of its values at l and h plus (A' - alpha)[l, h]. Result alpha X + D.
 */
static int minrange(run *R, int op, aform *out, const aform *X, const pint *xr) {
    pint l, h, fl, fh, dl, dh, slope, t, D;
    haze__pi_init(&l), haze__pi_init(&h), haze__pi_init(&fl), haze__pi_init(&fh),
        haze__pi_init(&dl), haze__pi_init(&dh);
    haze__pi_init(&slope), haze__pi_init(&t), haze__pi_init(&D);
    mpfr_set(l.lo, xr->lo, MPFR_RNDD);
    mpfr_set(l.hi, xr->lo, MPFR_RNDU);
    mpfr_set(h.lo, xr->hi, MPFR_RNDD);
    mpfr_set(h.hi, xr->hi, MPFR_RNDU);
    fun_d(op, &fl, &dl, &l);
    fun_d(op, &fh, &dh, &h);
    PREC_TMP(ml);
    PREC_TMP(mh);
    haze__pi_mig(ml, &dl);
    haze__pi_mig(mh, &dh);
    haze__pi_set(&slope, mpfr_cmp(ml, mh) <= 0 ? &dl : &dh);
    pint alpha;
    haze__pi_init(&alpha);
    mpfr_set(alpha.lo, slope.lo, MPFR_RNDN);
    mpfr_set(alpha.hi, alpha.lo, MPFR_RNDN);
    haze__pi_mul(&t, &slope, &l);
    haze__pi_sub(&dl, &fl, &t);
    haze__pi_mul(&t, &slope, &h);
    haze__pi_sub(&dh, &fh, &t);
    haze__pi_hull(&D, &dl, &dh);
    haze__pi_sub(&t, &slope, &alpha);
    haze__pi_mul(&t, &t, xr);
    haze__pi_add(&D, &D, &t);
    int st = haze__af_lin(out, X, &alpha, NULL, NULL, &R->next_sym);
    if (!st) st = haze__af_add_interval(out, &D, &R->next_sym);
    return st;
}

/* Exact values of the non-linear operations as affine forms. */
static int nonlinear(run *R, const pnode *n, nst *S, const nst *A, const nst *B) {
    int ok = haze__pi_is_bounded(&A->V) && A->has_a;
    int st;
    switch (n->op) {
    case OP_EXP:
        if (ok) return minrange(R, OP_EXP, &S->A, &A->A, &A->V);
        break;
    case OP_LOG:
    case OP_SQRT:
        if (ok && mpfr_sgn(A->V.lo) > 0) return minrange(R, n->op, &S->A, &A->A, &A->V);
        break;
    case OP_DIV:
        /* a / b = a * (1 / b) */
        if (B && B->has_a && haze__pi_is_bounded(&B->V) && !haze__pi_has_zero(&B->V) && ok) {
            aform inv;
            haze__af_init(&inv);
            st = minrange(R, OP_DIV, &inv, &B->A, &B->V);
            if (!st) st = haze__af_mul(&S->A, &A->A, &inv, &R->next_sym);
            haze__af_free(&inv);
            return st;
        }
        break;
    default:
        break;
    }
    /* other functions: a fresh symbol for the enclosure */
    return haze__af_add_interval(&S->A, &S->V, &R->next_sym);
}

/* Value of a node without roundings. */
static int eval_exact(run *R, int id, const pint *box) {
    const haze_prec_script *s = R->s;
    const pnode *n = &s->nodes[id];
    nst *S = &R->st[id];
    nst *A = n->a >= 0 ? &R->st[n->a] : NULL, *B = n->b >= 0 ? &R->st[n->b] : NULL;
    nst *C = n->c >= 0 ? &R->st[n->c] : NULL;
    pint t;
    haze__pi_init(&t);
    int st = 0, linear = 1;
    switch (n->op) {
    case OP_CONST:
        haze__pi_set(&S->V, &n->k);
        break;
    case OP_VAR:
        haze__pi_set(&S->V, &box[n->var]);
        break;
    case OP_NEG:
        haze__pi_neg(&S->V, &A->V);
        break;
    case OP_ADD:
        haze__pi_add(&S->V, &A->V, &B->V);
        break;
    case OP_SUB:
        haze__pi_sub(&S->V, &A->V, &B->V);
        break;
    case OP_MUL:
        if (n->a == n->b)
            haze__pi_sqr(&S->V, &A->V);
        else
            haze__pi_mul(&S->V, &A->V, &B->V);
        break;
    case OP_FMA:
        haze__pi_mul(&t, &A->V, &B->V);
        haze__pi_add(&S->V, &t, &C->V);
        break;
    case OP_DIV:
        linear = 0;
        if (haze__pi_has_zero(&B->V))
            st = domain(R, n, "division by a range that contains zero");
        else
            haze__pi_div(&S->V, &A->V, &B->V);
        break;
    case OP_ABS:
        linear = 0;
        haze__pi_abs(&S->V, &A->V);
        break;
    case OP_SQRT:
        linear = 0;
        if (mpfr_sgn(A->V.lo) < 0)
            st = domain(R, n, "square root of a range that reaches below zero");
        else
            haze__pi_sqrt(&S->V, &A->V);
        break;
    case OP_EXP:
        linear = 0, haze__pi_exp(&S->V, &A->V);
        break;
    case OP_EXP2:
        linear = 0, haze__pi_exp2(&S->V, &A->V);
        break;
    case OP_LOG:
    case OP_LOG2:
        linear = 0;
        if (mpfr_sgn(A->V.lo) <= 0)
            st = domain(R, n, "logarithm of a range that reaches zero or below");
        else if (n->op == OP_LOG)
            haze__pi_log(&S->V, &A->V);
        else
            haze__pi_log2(&S->V, &A->V);
        break;
    default:
        st = haze__error(R->ctx, HAZE_ERR_INTERNAL, "prec: unexpected node");
        break;
    }
    haze__pi_set_zero(&S->E);
    haze__pi_set_zero(&S->Rl);
    S->rel_ok = 1;
    if (!st && R->aa) {
        haze__af_init(&S->A);
        S->has_a = 1;
        if (n->op == OP_CONST) {
            haze__pi_set(&S->A.c0, &n->k);
        } else if (n->op == OP_VAR) {
            pint mid, r;
            haze__pi_init(&mid);
            haze__pi_init(&r);
            haze__pi_midrad(&mid, r.hi, &box[n->var]);
            mpfr_set(r.lo, r.hi, MPFR_RNDD);
            haze__pi_set(&S->A.c0, &mid);
            if (!mpfr_zero_p(r.hi)) st = haze__af_push(&S->A, n->var, &r);
            haze__pi_clear(&mid);
            haze__pi_clear(&r);
        } else if (linear && A->has_a && (!B || B->has_a) && (!C || C->has_a)) {
            pint m1;
            haze__pi_init(&m1);
            mpfr_set_si(m1.lo, -1, MPFR_RNDN);
            mpfr_set_si(m1.hi, -1, MPFR_RNDN);
            if (n->op == OP_NEG)
                st = haze__af_lin(&S->A, &A->A, &m1, NULL, NULL, &R->next_sym);
            else if (n->op == OP_ADD)
                st = haze__af_lin(&S->A, &A->A, NULL, &B->A, NULL, &R->next_sym);
            else if (n->op == OP_SUB)
                st = haze__af_lin(&S->A, &A->A, NULL, &B->A, &m1, &R->next_sym);
            else if (n->op == OP_MUL)
                st = haze__af_mul(&S->A, &A->A, &B->A, &R->next_sym);
            else {
                aform p;
                haze__af_init(&p);
                st = haze__af_mul(&p, &A->A, &B->A, &R->next_sym);
                if (!st) st = haze__af_lin(&S->A, &p, NULL, &C->A, NULL, &R->next_sym);
                haze__af_free(&p);
            }
            haze__pi_clear(&m1);
            if (!st) {
                /* exact values: the tighter of both enclosures in every mode */
                haze__af_range(&t, &S->A);
                haze__pi_meet(&S->V, &S->V, &t);
            }
        } else {
            st = nonlinear(R, n, S, A, B);
            if (!st) {
                haze__af_range(&t, &S->A);
                haze__pi_meet(&S->V, &S->V, &t);
            }
        }
        if (st > 0) st = nomem(R);
    }
    haze__pi_clear(&t);
    return st;
}

static int has_f(const nst *x) {
    return x && x->has_f;
}

/* F = kx * Fx + ky * Fy where an absent form is zero. */
static int lin_f(run *R, aform *r, const nst *x, const pint *kx, const nst *y, const pint *ky) {
    return haze__af_lin(r, has_f(x) ? &x->F : NULL, kx, has_f(y) ? &y->F : NULL, ky, &R->next_sym);
}

/* Mean-value scaling: F = Fa * k. */
static int scale_f(run *R, aform *r, const nst *a, const pint *k) {
    return lin_f(R, r, a, k, NULL, NULL);
}

/* Relative errors compose multiplicatively through roundings, products and
 * quotients: (1 + ra)(1 + rb) - 1 and (1 + ra)/(1 + rb) - 1. Gappa reasons the
 * same way; it is much tighter than absolute errors when ranges are wide. */
static void relative(run *R, const pnode *n, nst *S, const nst *A, const nst *B, const pint *rho,
                     int rho_ok) {
    const pint *Z = &R->st[n->strip].V;
    pint one, x, y;
    haze__pi_init(&one);
    haze__pi_init(&x);
    haze__pi_init(&y);
    haze__pi_set_d(&one, 1, 1);
    int ok = 0;
    switch (n->op) {
    case OP_RND:
        if (A->rel_ok && rho_ok) {
            haze__pi_add(&x, &one, &A->Rl);
            haze__pi_add(&y, &one, rho);
            haze__pi_mul(&x, &x, &y);
            ok = 1;
        }
        break;
    case OP_NEG:
        if (A->rel_ok) {
            haze__pi_add(&x, &one, &A->Rl);
            ok = 1;
        }
        break;
    case OP_MUL:
    case OP_DIV:
        if (A->rel_ok && B->rel_ok) {
            haze__pi_add(&x, &one, &A->Rl);
            haze__pi_add(&y, &one, &B->Rl);
            if (n->op == OP_MUL) {
                if (n->a == n->b)
                    haze__pi_sqr(&x, &x);
                else
                    haze__pi_mul(&x, &x, &y);
                ok = 1;
            } else if (!haze__pi_has_zero(&y)) {
                haze__pi_div(&x, &x, &y);
                ok = 1;
            }
        }
        break;
    case OP_ADD:
    case OP_SUB:
        /* a sum of two terms of one sign: the relative error is a weighted
         * mean of theirs (E = Ra ia + Rb ib over ia + ib) */
        if (A->rel_ok && B->rel_ok) {
            const pint *ia = &R->st[R->s->nodes[n->a].strip].V;
            const pint *ib = &R->st[R->s->nodes[n->b].strip].V;
            int pa = mpfr_sgn(ia->lo) >= 0, na = mpfr_sgn(ia->hi) <= 0;
            int pb = mpfr_sgn(ib->lo) >= 0, nb = mpfr_sgn(ib->hi) <= 0;
            int same = n->op == OP_ADD ? ((pa && pb) || (na && nb)) : ((pa && nb) || (na && pb));
            if (same) {
                haze__pi_hull(&x, &A->Rl, &B->Rl);
                haze__pi_add(&x, &x, &one);
                ok = 1;
            }
        }
        break;
    case OP_EXP:
    case OP_EXP2:
        /* exp(v) / exp(i) = exp(v - i) */
        if (n->op == OP_EXP)
            haze__pi_exp(&x, &A->E);
        else
            haze__pi_exp2(&x, &A->E);
        ok = haze__pi_is_bounded(&x);
        break;
    case OP_SQRT:
        if (A->rel_ok) {
            haze__pi_add(&x, &one, &A->Rl);
            if (mpfr_sgn(x.lo) >= 0) {
                haze__pi_sqrt(&x, &x);
                ok = 1;
            }
        }
        break;
    default:
        break;
    }
    if (ok) {
        haze__pi_sub(&S->Rl, &x, &one);
        haze__pi_mul(&x, &S->Rl, Z);
        /* the affine engine alone keeps its own errors; values use both */
        if (R->ia) haze__pi_meet(&S->E, &S->E, &x);
    }
    if (haze__pi_is_bounded(Z) && !haze__pi_has_zero(Z) && haze__pi_is_bounded(&S->E)) {
        haze__pi_div(&x, &S->E, Z);
        if (ok)
            haze__pi_meet(&S->Rl, &S->Rl, &x);
        else
            haze__pi_set(&S->Rl, &x);
        ok = 1;
    }
    S->rel_ok = ok;
    haze__pi_clear(&one);
    haze__pi_clear(&x);
    haze__pi_clear(&y);
}

/* A node with roundings below it. */
static int eval_rounded(run *R, int id) {
    const haze_prec_script *s = R->s;
    const pnode *n = &s->nodes[id];
    nst *S = &R->st[id], *Z = &R->st[n->strip];
    nst *A = &R->st[n->a], *B = n->b >= 0 ? &R->st[n->b] : NULL;
    nst *C = n->c >= 0 ? &R->st[n->c] : NULL;
    const pint *ia = &R->st[s->nodes[n->a].strip].V;
    const pint *ib = n->b >= 0 ? &R->st[s->nodes[n->b].strip].V : NULL;
    pint t, u, w, direct;
    haze__pi_init(&t);
    haze__pi_init(&u);
    haze__pi_init(&w);
    haze__pi_init(&direct);
    int st = 0;
    if (R->aa) {
        haze__af_init(&S->F);
        S->has_f = 1;
    }
    pint m1, rho;
    haze__pi_init(&m1);
    haze__pi_init(&rho);
    int rho_ok = 0;
    mpfr_set_si(m1.lo, -1, MPFR_RNDN);
    mpfr_set_si(m1.hi, -1, MPFR_RNDN);
    switch (n->op) {
    case OP_RND: {
        const pformat *f = &s->fmts[n->fmt];
        round_error(&t, f, &A->V, &s->nodes[n->a]);
        rho_ok = round_rel(&rho, f, &A->V, &t);
        haze__pi_add(&S->E, &A->E, &t);
        round_value(&direct, f, &A->V, &t);
        if (R->aa) {
            st = lin_f(R, &S->F, A, NULL, NULL, NULL);
            if (!st) st = haze__af_add_interval(&S->F, &t, &R->next_sym);
        }
        break;
    }
    case OP_NEG:
        haze__pi_neg(&S->E, &A->E);
        haze__pi_neg(&direct, &A->V);
        if (R->aa) st = lin_f(R, &S->F, A, &m1, NULL, NULL);
        break;
    case OP_ADD:
    case OP_SUB:
        if (n->op == OP_ADD) {
            haze__pi_add(&S->E, &A->E, &B->E);
            haze__pi_add(&direct, &A->V, &B->V);
        } else {
            haze__pi_sub(&S->E, &A->E, &B->E);
            haze__pi_sub(&direct, &A->V, &B->V);
        }
        if (R->aa) st = lin_f(R, &S->F, A, NULL, B, n->op == OP_SUB ? &m1 : NULL);
        break;
    case OP_MUL:
    case OP_FMA:
        /* a b - ia ib = ia Eb + ib Ea + Ea Eb */
        haze__pi_mul(&t, ia, &B->E);
        haze__pi_mul(&u, ib, &A->E);
        haze__pi_add(&t, &t, &u);
        haze__pi_mul(&u, &A->E, &B->E);
        haze__pi_add(&S->E, &t, &u);
        {
            /* the same difference without the second-order term, using the
             * rounded factor's own range (a b - a'b' = Ea b + a' Eb, and for
             * a square Ea (a + a')): rounding keeps that range on the
             * format's numbers, so it is often no wider than ia, and Gappa's
             * bound on squares (himmilbeau) is met exactly */
            pint alt, alt2;
            haze__pi_init(&alt);
            haze__pi_init(&alt2);
            if (n->a == n->b) {
                haze__pi_add(&alt, &A->V, ia);
                haze__pi_mul(&alt, &alt, &A->E);
                haze__pi_meet(&S->E, &S->E, &alt);
            } else {
                haze__pi_mul(&alt, ia, &B->E);
                haze__pi_mul(&alt2, &B->V, &A->E);
                haze__pi_add(&alt, &alt, &alt2);
                haze__pi_meet(&S->E, &S->E, &alt);
                haze__pi_mul(&alt, &A->V, &B->E);
                haze__pi_mul(&alt2, ib, &A->E);
                haze__pi_add(&alt, &alt, &alt2);
                haze__pi_meet(&S->E, &S->E, &alt);
            }
            haze__pi_clear(&alt);
            haze__pi_clear(&alt2);
        }
        if (n->a == n->b)
            haze__pi_sqr(&direct, &A->V);
        else
            haze__pi_mul(&direct, &A->V, &B->V);
        if (n->op == OP_FMA) {
            haze__pi_add(&S->E, &S->E, &C->E);
            haze__pi_add(&direct, &direct, &C->V);
        }
        if (R->aa) {
            aform p;
            haze__af_init(&p);
            st = lin_f(R, &p, B, ia, A, ib);
            if (!st && has_f(A) && has_f(B)) {
                haze__af_range(&t, &A->F);
                haze__af_range(&w, &B->F);
                haze__pi_mul(&t, &t, &w);
                st = haze__af_add_interval(&p, &t, &R->next_sym);
            }
            if (!st) {
                if (n->op == OP_FMA)
                    st = haze__af_lin(&S->F, &p, NULL, has_f(C) ? &C->F : NULL, NULL, &R->next_sym);
                else
                    st = haze__af_lin(&S->F, &p, NULL, NULL, NULL, &R->next_sym);
            }
            haze__af_free(&p);
        }
        break;
    case OP_DIV: {
        if (haze__pi_has_zero(&B->V)) {
            st = domain(R, n, "division by a range that contains zero");
            break;
        }
        /* a/b - ia/ib = (Ea - q Eb) / vb with q = ia/ib */
        const pint *q = &Z->V;
        haze__pi_mul(&t, q, &B->E);
        haze__pi_sub(&t, &A->E, &t);
        haze__pi_div(&S->E, &t, &B->V);
        haze__pi_div(&direct, &A->V, &B->V);
        {
            /* a relative error goal (x - y) / y with x, y of one exact twin:
             * x / y - 1 = (1 + rx) / (1 + ry) - 1 */
            const pnode *an = &s->nodes[n->a];
            if (an->op == OP_SUB && an->b == n->b &&
                s->nodes[an->a].strip == s->nodes[an->b].strip && R->st[an->a].rel_ok &&
                R->st[an->b].rel_ok) {
                haze__pi_set_d(&w, 1, 1);
                haze__pi_add(&t, &w, &R->st[an->a].Rl);
                haze__pi_add(&u, &w, &R->st[an->b].Rl);
                if (!haze__pi_has_zero(&u)) {
                    haze__pi_div(&t, &t, &u);
                    haze__pi_sub(&t, &t, &w);
                    haze__pi_meet(&S->E, &S->E, &t);
                }
            }
        }
        if (R->aa) {
            pint inv, one;
            haze__pi_init(&inv);
            haze__pi_init(&one);
            mpfr_set_ui(one.lo, 1, MPFR_RNDN);
            mpfr_set_ui(one.hi, 1, MPFR_RNDN);
            haze__pi_div(&inv, &one, &B->V);
            haze__pi_neg(&u, q);
            haze__pi_mul(&u, &u, &inv);
            st = lin_f(R, &S->F, A, &inv, B, &u);
            haze__pi_clear(&inv);
            haze__pi_clear(&one);
        }
        break;
    }
    case OP_ABS:
        haze__pi_abs(&direct, &A->V);
        haze__pi_mag(t.hi, &A->E);
        haze__pi_sym(&S->E, t.hi);
        if (R->aa) {
            if (mpfr_sgn(ia->lo) > 0 && mpfr_sgn(A->V.lo) > 0)
                st = lin_f(R, &S->F, A, NULL, NULL, NULL);
            else if (mpfr_sgn(ia->hi) < 0 && mpfr_sgn(A->V.hi) < 0)
                st = lin_f(R, &S->F, A, &m1, NULL, NULL);
            else
                st = haze__af_add_interval(&S->F, &S->E, &R->next_sym);
        }
        break;
    case OP_SQRT:
        if (mpfr_sgn(A->V.lo) < 0) {
            st = domain(R, n, "square root of a range that reaches below zero");
            break;
        }
        haze__pi_sqrt(&direct, &A->V);
        haze__pi_sqrt(&t, ia);
        haze__pi_add(&t, &t, &direct);
        if (haze__pi_has_zero(&t)) {
            haze__pi_sub(&S->E, &direct, &Z->V);
            if (R->aa) st = haze__af_add_interval(&S->F, &S->E, &R->next_sym);
        } else {
            haze__pi_div(&S->E, &A->E, &t);
            if (R->aa) {
                haze__pi_set_d(&u, 1, 1);
                haze__pi_div(&u, &u, &t);
                st = scale_f(R, &S->F, A, &u);
            }
        }
        break;
    case OP_EXP:
    case OP_EXP2:
        if (n->op == OP_EXP) {
            haze__pi_expm1(&t, &A->E);
            haze__pi_exp(&u, ia);
            haze__pi_exp(&direct, &A->V);
        } else {
            haze__pi_exp2m1(&t, &A->E);
            haze__pi_exp2(&u, ia);
            haze__pi_exp2(&direct, &A->V);
        }
        haze__pi_mul(&S->E, &u, &t);
        if (R->aa) { /* exp(v) - exp(i) = exp(xi) (v - i), xi between */
            haze__pi_hull(&w, ia, &A->V);
            if (n->op == OP_EXP) {
                haze__pi_exp(&u, &w);
            } else {
                haze__pi_exp2(&u, &w);
                pint ln2;
                haze__pi_init(&ln2);
                mpfr_const_log2(ln2.lo, MPFR_RNDD);
                mpfr_const_log2(ln2.hi, MPFR_RNDU);
                haze__pi_mul(&u, &u, &ln2);
                haze__pi_clear(&ln2);
            }
            st = scale_f(R, &S->F, A, &u);
        }
        break;
    case OP_LOG:
    case OP_LOG2:
        if (mpfr_sgn(A->V.lo) <= 0 || mpfr_sgn(ia->lo) <= 0) {
            st = domain(R, n, "logarithm of a range that reaches zero or below");
            break;
        }
        haze__pi_div(&t, &A->E, ia);
        /* log(v) - log(i) = log(1 + (v - i)/i): the relative error of the argument */
        if (A->rel_ok) haze__pi_meet(&t, &t, &A->Rl);
        if (n->op == OP_LOG) {
            haze__pi_log1p(&S->E, &t);
            haze__pi_log(&direct, &A->V);
        } else {
            haze__pi_log2_1p(&S->E, &t);
            haze__pi_log2(&direct, &A->V);
        }
        if (R->aa) {
            haze__pi_hull(&w, ia, &A->V);
            if (n->op == OP_LOG2) {
                pint ln2;
                haze__pi_init(&ln2);
                mpfr_const_log2(ln2.lo, MPFR_RNDD);
                mpfr_const_log2(ln2.hi, MPFR_RNDU);
                haze__pi_mul(&w, &w, &ln2);
                haze__pi_clear(&ln2);
            }
            haze__pi_set_d(&u, 1, 1);
            haze__pi_div(&u, &u, &w);
            st = scale_f(R, &S->F, A, &u);
        }
        break;
    default:
        st = haze__error(R->ctx, HAZE_ERR_INTERNAL, "prec: unexpected node");
        break;
    }
    if (st > 0) st = nomem(R);
    if (!st) {
        if (R->aa) {
            haze__af_range(&t, &S->F);
            if (R->ia)
                haze__pi_meet(&S->E, &S->E, &t);
            else
                haze__pi_set(&S->E, &t);
        }
        relative(R, n, S, A, B, &rho, rho_ok);
        /* V = direct evaluation, met with exact value plus error */
        haze__pi_add(&t, &Z->V, &S->E);
        haze__pi_meet(&S->V, &direct, &t);
        if (S->rel_ok) { /* v = i (1 + r): keeps the sign of i */
            haze__pi_set_d(&u, 1, 1);
            haze__pi_add(&u, &u, &S->Rl);
            haze__pi_mul(&t, &Z->V, &u);
            haze__pi_meet(&S->V, &S->V, &t);
        }
    }
    haze__pi_clear(&m1);
    haze__pi_clear(&rho);
    haze__pi_clear(&t);
    haze__pi_clear(&u);
    haze__pi_clear(&w);
    haze__pi_clear(&direct);
    return st;
}

int haze__prec_analyse_box(haze_ctx *ctx, const haze_prec_script *s, const pint *box,
                           haze_prec_engine engine, pint *out) {
    int nn = s->n_nodes;
    char *need = haze__mp_calloc((size_t)nn + 1, 1);
    int *last = haze__mp_malloc(((size_t)nn + 1) * sizeof *last);
    nst *st = haze__mp_calloc((size_t)nn + 1, sizeof *st);
    if (!need || !last || !st) {
        haze__mp_free(need);
        haze__mp_free(last);
        haze__mp_free(st);
        return haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
    }
    for (int g = 0; g < s->n_goals; g++) need[s->goals[g].node] = 1;
    for (int i = nn - 1; i >= 0; i--) {
        last[i] = -1;
        if (!need[i]) continue;
        const pnode *n = &s->nodes[i];
        need[n->strip] = 1;
        if (n->a >= 0) need[n->a] = 1;
        if (n->b >= 0) need[n->b] = 1;
        if (n->c >= 0) need[n->c] = 1;
    }
    /* last use of each node's forms, to free them early (long unrolled loops) */
    for (int i = 0; i < nn; i++) {
        if (!need[i]) continue;
        const pnode *n = &s->nodes[i];
        int kids[4] = {n->a, n->b, n->c, n->strip};
        for (int k = 0; k < 4; k++)
            if (kids[k] >= 0 && kids[k] != i) last[kids[k]] = i;
    }
    for (int g = 0; g < s->n_goals; g++) last[s->goals[g].node] = INT_MAX;
    run R = {ctx, s, (engine & HAZE_PREC_IA) != 0, (engine & HAZE_PREC_AA) != 0, st, s->n_vars};
    int rc = 0;
    for (int i = 0; i < nn && !rc; i++) {
        if (!need[i]) continue;
        haze__pi_init(&st[i].V);
        haze__pi_init(&st[i].E);
        haze__pi_init(&st[i].Rl);
        st[i].live = 1;
        rc = is_stripped(s, i) ? eval_exact(&R, i, box) : eval_rounded(&R, i);
        /* free the forms that nobody reads any more */
        const pnode *n = &s->nodes[i];
        int kids[4] = {n->a, n->b, n->c, n->strip};
        for (int k = 0; k < 4; k++) {
            int c = kids[k];
            if (c < 0 || c == i || last[c] != i) continue;
            if (st[c].has_a) haze__af_free(&st[c].A), st[c].has_a = 0;
            if (st[c].has_f) haze__af_free(&st[c].F), st[c].has_f = 0;
        }
    }
    if (!rc)
        for (int g = 0; g < s->n_goals; g++) haze__pi_set(&out[g], &st[s->goals[g].node].V);
    for (int i = 0; i < nn; i++) {
        if (!st[i].live) continue;
        if (st[i].has_a) haze__af_free(&st[i].A);
        if (st[i].has_f) haze__af_free(&st[i].F);
        haze__pi_clear(&st[i].V);
        haze__pi_clear(&st[i].E);
        haze__pi_clear(&st[i].Rl);
    }
    haze__mp_free(need);
    haze__mp_free(last);
    haze__mp_free(st);
    return rc;
}
