/*
 * src/prec/prec_box.c - compiles a script into the flat program of
 * prec_box.h (the double-interval "ia" engine that bisection runs on the GPU)
 * and runs it on the CPU: the reference the GPU kernel is compared with, bit
 * for bit, in tests/test_prec_cuda.c.
 */
#include <stdlib.h>
#include <string.h>

#include "prec/prec_box_internal.h"

int haze__prec_box_compile(haze_ctx *ctx, const haze_prec_script *s, pbox_prog *out) {
    memset(out, 0, sizeof *out);
    if (s->n_vars > PBOX_MAX_VARS)
        return haze__error(ctx, HAZE_ERR_UNSUPPORTED, "GPU bisection: more than %d inputs",
                           PBOX_MAX_VARS);
    int nn = s->n_nodes;
    char *need = calloc((size_t)nn + 1, 1);
    int *map = malloc(((size_t)nn + 1) * sizeof *map);
    if (!need || !map) {
        free(need);
        free(map);
        return haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
    }
    for (int g = 0; g < s->n_goals; g++) need[s->goals[g].node] = 1;
    int count = 0;
    for (int i = nn - 1; i >= 0; i--) {
        if (!need[i]) continue;
        const pnode *n = &s->nodes[i];
        need[n->strip] = 1;
        if (n->a >= 0) need[n->a] = 1;
        if (n->b >= 0) need[n->b] = 1;
        if (n->c >= 0) need[n->c] = 1;
    }
    int rc = 0;
    for (int i = 0; i < nn; i++) {
        map[i] = -1;
        if (!need[i]) continue;
        const pnode *n = &s->nodes[i];
        if (n->op == OP_EXP || n->op == OP_LOG || n->op == OP_EXP2 || n->op == OP_LOG2) {
            rc = haze__error(ctx, HAZE_ERR_UNSUPPORTED,
                             "GPU bisection: no certified exp/log in double");
            break;
        }
        if (n->op == OP_RND) {
            const pformat *f = &s->fmts[n->fmt];
            if (!f->fixed && (f->emax != LONG_MAX && f->emax > 1023)) {
                rc = haze__error(ctx, HAZE_ERR_UNSUPPORTED,
                                 "GPU bisection: format wider than double");
                break;
            }
        }
        map[i] = count++;
    }
    if (!rc && count > PBOX_MAX_PROGRAM)
        rc = haze__error(ctx, HAZE_ERR_UNSUPPORTED, "GPU bisection: more than %d nodes",
                         PBOX_MAX_PROGRAM);
    pbox_ins *P = rc ? NULL : calloc((size_t)count + 1, sizeof *P);
    int *node_of = rc ? NULL : calloc((size_t)count + 1, sizeof *node_of);
    if (!rc && (!P || !node_of)) rc = haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
    for (int i = 0; !rc && i < nn; i++) {
        if (map[i] < 0) continue;
        const pnode *n = &s->nodes[i];
        pbox_ins *I = &P[map[i]];
        node_of[map[i]] = i;
        I->op = n->op;
        I->a = n->a >= 0 ? map[n->a] : -1;
        I->b = n->b >= 0 ? map[n->b] : -1;
        I->c = n->c >= 0 ? map[n->c] : -1;
        I->strip = map[n->strip];
        I->var = n->var;
        I->extra_abs = INT_MIN;
        if (n->op == OP_CONST) {
            I->klo = mpfr_get_d(n->k.lo, MPFR_RNDD);
            I->khi = mpfr_get_d(n->k.hi, MPFR_RNDU);
        }
        if (n->op == OP_RND) {
            const pformat *f = &s->fmts[n->fmt];
            const pnode *a = &s->nodes[n->a];
            I->fixed = f->fixed;
            I->dir = f->dir;
            I->ftz = f->ftz;
            I->extra_ulps = f->extra_ulps;
            I->lsb = (int)(f->fixed ? f->lsb : 0);
            I->prec = (int)f->prec;
            I->has_emin = f->emin != LONG_MIN;
            I->emin = I->has_emin ? (int)f->emin : 0;
            I->has_emax = f->emax != LONG_MAX;
            I->emax = I->has_emax ? (int)f->emax : 0;
            I->extra_abs = f->extra_abs == LONG_MIN ? INT_MIN : (int)f->extra_abs;
            I->fix = a->fix == FIX_UNKNOWN || a->fix < INT_MIN / 2 ? PBOX_FIX_UNKNOWN
                     : a->fix > INT_MAX / 2                        ? INT_MAX / 2
                                                                   : (int)a->fix;
            I->flt = a->flt == FLT_UNKNOWN || a->flt > INT_MAX / 2 ? PBOX_FLT_UNKNOWN : (int)a->flt;
        }
    }
    if (!rc) {
        out->ins = P;
        out->node_of = node_of;
        out->n = count;
        out->ng = s->n_goals;
        out->nv = s->n_vars;
        for (int g = 0; g < s->n_goals; g++)
            out->goal[g < PBOX_MAX_GOALS ? g : 0] = map[s->goals[g].node];
        if (s->n_goals > PBOX_MAX_GOALS)
            rc = haze__error(ctx, HAZE_ERR_UNSUPPORTED, "GPU bisection: more than %d goals",
                             PBOX_MAX_GOALS);
        out->boxes = 1;
        for (int v = 0; v < s->n_vars; v++) {
            out->lo[v] = mpfr_get_d(s->vars[v].range.lo, MPFR_RNDD);
            out->hi[v] = mpfr_get_d(s->vars[v].range.hi, MPFR_RNDU);
            out->split[v] = s->vars[v].bisect;
            out->boxes *= s->vars[v].bisect;
        }
    }
    if (rc) {
        free(P);
        free(node_of);
        memset(out, 0, sizeof *out);
    }
    free(need);
    free(map);
    return rc;
}

void haze__prec_box_free(pbox_prog *p) {
    free(p->ins);
    free(p->node_of);
    memset(p, 0, sizeof *p);
}

int haze__prec_boxes_host(const pbox_prog *p, long first, long count, double *out, int *err) {
    haze_ivd Vs[PBOX_MAX_NODES], Es[PBOX_MAX_NODES], *V = Vs, *E = Es, *heap = NULL;
    if (p->n > PBOX_MAX_NODES) { /* long programs: their values on the heap */
        heap = malloc((size_t)p->n * 2 * sizeof *heap);
        if (!heap) return HAZE_ERR_NOMEM;
        V = heap;
        E = heap + p->n;
    }
    for (long t = 0; t < count; t++) {
        haze_ivd box[PBOX_MAX_VARS];
        pbox_box(p, first + t, box);
        int e = pbox_run(p->ins, p->n, box, V, E);
        err[t] = e;
        for (int g = 0; g < p->ng; g++) {
            out[(t * p->ng + g) * 2] = e ? 0 : V[p->goal[g]].lo;
            out[(t * p->ng + g) * 2 + 1] = e ? 0 : V[p->goal[g]].hi;
        }
    }
    free(heap);
    return 0;
}
