/*
 * src/prec/prec_eval.c - exact point evaluation: the goals' values at one
 * point, each operation with MPFR at a precision wide enough for exact sums
 * and products of the formats involved, each rounding exactly to its format.
 * The soundness tests sample the analyser's enclosures with it.
 */
#include <stdlib.h>

#include "prec/prec_engine.h"

int haze__prec_eval_point(haze_ctx *ctx, const haze_prec_script *s, const double *x, long prec_bits,
                          double *out) {
    int nn = s->n_nodes;
    mpfr_t *v = haze__mp_malloc(((size_t)nn + 1) * sizeof *v);
    if (!v) return haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
    /* wide enough for exact sums and products of the formats involved */
    mpfr_prec_t p = (mpfr_prec_t)prec_bits;
    int rc = 0;
    int i;
    for (i = 0; i < nn; i++) {
        const pnode *n = &s->nodes[i];
        mpfr_init2(v[i], p);
        mpfr_srcptr a = n->a >= 0 ? v[n->a] : NULL, b = n->b >= 0 ? v[n->b] : NULL;
        switch (n->op) {
        case OP_CONST:
            if (haze__pi_is_point(&n->k)) {
                mpfr_set_prec(v[i], mpfr_get_prec(n->k.lo));
                mpfr_set(v[i], n->k.lo, MPFR_RNDN);
            } else {
                mpfr_add(v[i], n->k.lo, n->k.hi, MPFR_RNDN);
                mpfr_div_2ui(v[i], v[i], 1, MPFR_RNDN);
            }
            break;
        case OP_VAR:
            mpfr_set_d(v[i], x[n->var], MPFR_RNDN);
            break;
        case OP_NEG:
            mpfr_neg(v[i], a, MPFR_RNDN);
            break;
        case OP_ADD:
            mpfr_add(v[i], a, b, MPFR_RNDN);
            break;
        case OP_SUB:
            mpfr_sub(v[i], a, b, MPFR_RNDN);
            break;
        case OP_MUL:
            mpfr_mul(v[i], a, b, MPFR_RNDN);
            break;
        case OP_FMA:
            mpfr_fma(v[i], a, b, v[n->c], MPFR_RNDN);
            break;
        case OP_DIV:
            mpfr_div(v[i], a, b, MPFR_RNDN);
            break;
        case OP_ABS:
            mpfr_abs(v[i], a, MPFR_RNDN);
            break;
        case OP_SQRT:
            mpfr_sqrt(v[i], a, MPFR_RNDN);
            break;
        case OP_EXP:
            mpfr_exp(v[i], a, MPFR_RNDN);
            break;
        case OP_EXP2:
            mpfr_exp2(v[i], a, MPFR_RNDN);
            break;
        case OP_LOG:
            mpfr_log(v[i], a, MPFR_RNDN);
            break;
        case OP_LOG2:
            mpfr_log2(v[i], a, MPFR_RNDN);
            break;
        default:
            haze__prec_round_point(&s->fmts[n->fmt], v[i], a);
            break;
        }
    }
    for (int g = 0; g < s->n_goals && !rc; g++) out[g] = mpfr_get_d(v[s->goals[g].node], MPFR_RNDN);
    for (i = 0; i < nn; i++) mpfr_clear(v[i]);
    haze__mp_free(v);
    mpfr_free_cache();
    return rc;
}
