/*
 * src/prec/prec_share.c - roundings shared by both sides of a goal.
 *
 * A goal "y - y_m" whose two sides are built on the same rounded values (the
 * filter of Linderman et al., CGO 2010, Sec. 3.3: both filters read the same
 * quantised inputs xq = fixed<-16,ne>(x)) has a value that depends on the
 * inputs only through those values. The interval engine compares each side
 * with its fully exact twin (rounding errors of xq included), so the
 * quantisation of xq is counted once in E(y) and once in E(y_m), and the
 * difference E(y) - E(y_m) cannot cancel it. Gappa avoids this by rewriting
 * y - y_m against y_m's own structure (its "o(a) - b -> (o(a) - a) + (a - b)"
 * with b the other side).
 *
 * haze does the equivalent on the graph: every rounding node that both sides
 * reach is replaced by a fresh exact input that ranges over an enclosure of
 * the node's values (computed by a first interval analysis of the script).
 * Replacing a sub-expression by a variable ranging over a superset of its
 * values can only enlarge the set of values of the goal, so the second
 * analysis is sound; its enclosure is intersected with the first one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prec/prec_driver.h"

/* The two sides of a goal: a - b, (a - b) / b, |a - b| (-1 if none). */
static void goal_sides(const haze_prec_script *s, const pgoal *g, int *a, int *b) {
    *a = *b = -1;
    int n = g->node;
    const pnode *x = &s->nodes[n];
    if ((x->op == OP_DIV || x->op == OP_ABS) && s->nodes[x->a].op == OP_SUB) x = &s->nodes[x->a];
    if (x->op != OP_SUB) return;
    *a = x->a;
    *b = x->b;
}

/* mark[i] |= bit for every node reachable from root (through a, b, c). */
static void reach(const haze_prec_script *s, int root, unsigned char *mark, unsigned char bit) {
    if (root < 0) return;
    mark[root] |= bit;
    for (int i = root; i >= 0; i--) {
        if (!(mark[i] & bit)) continue;
        const pnode *n = &s->nodes[i];
        if (n->a >= 0) mark[n->a] |= bit;
        if (n->b >= 0) mark[n->b] |= bit;
        if (n->c >= 0) mark[n->c] |= bit;
    }
}

/*
 * A copy of s restricted to what its goals (and, with extra >= 0 entries,
 * the extra nodes as additional value goals) need. Nodes with subst[i] set
 * become fresh inputs ranging over range[i]. Returns NULL when out of memory.
 */
static haze_prec_script *clone(const haze_prec_script *s, const unsigned char *subst,
                               const pint *range, const int *extra, int n_extra) {
    haze_prec_script *c = haze__prec_script_new(s->name);
    int *map = malloc((size_t)(s->n_nodes ? s->n_nodes : 1) * sizeof *map);
    int *fmap = malloc((size_t)(s->n_fmts ? s->n_fmts : 1) * sizeof *fmap);
    unsigned char *need = calloc((size_t)s->n_nodes + 1, 1);
    int ok = c && map && fmap && need;
    if (ok) c->refine = 0, c->no_share = 1;
    for (int i = 0; ok && i < s->n_fmts; i++)
        ok = (fmap[i] = haze__prec_add_format(c, &s->fmts[i])) >= 0;
    for (int i = 0; ok && i < s->n_vars; i++) {
        int v = haze__prec_add_var(c, s->vars[i].name, s->vars[i].line, s->vars[i].col);
        ok = v == i;
        if (ok) {
            c->vars[v].has_range = s->vars[v].has_range;
            haze__pi_set(&c->vars[v].range, &s->vars[v].range);
            c->vars[v].bisect = s->vars[v].bisect;
        }
    }
    /* what the goals need, not descending into substituted nodes */
    for (int g = 0; ok && g < s->n_goals; g++) need[s->goals[g].node] = 1;
    for (int k = 0; ok && k < n_extra; k++) need[extra[k]] = 1;
    for (int i = s->n_nodes - 1; ok && i >= 0; i--) {
        if (!need[i] || (subst && subst[i])) continue;
        const pnode *n = &s->nodes[i];
        if (n->a >= 0) need[n->a] = 1;
        if (n->b >= 0) need[n->b] = 1;
        if (n->c >= 0) need[n->c] = 1;
    }
    for (int i = 0; ok && i < s->n_nodes; i++) {
        map[i] = -1;
        if (!need[i]) continue;
        const pnode *n = &s->nodes[i];
        if (subst && subst[i]) {
            char name[64];
            snprintf(name, sizeof name, "<rounding at %d:%d #%d>", n->line, n->col, i);
            int v = haze__prec_add_var(c, name, n->line, n->col);
            ok = v >= 0;
            if (ok) {
                c->vars[v].has_range = 1;
                haze__pi_set(&c->vars[v].range, &range[i]);
                map[i] = haze__prec_var(c, v, n->line, n->col);
            }
        } else if (n->op == OP_CONST) {
            map[i] = haze__prec_const(c, &n->k, n->line, n->col);
        } else if (n->op == OP_VAR) {
            map[i] = haze__prec_var(c, n->var, n->line, n->col);
        } else {
            map[i] = haze__prec_node(c, n->op, n->a >= 0 ? map[n->a] : -1,
                                     n->b >= 0 ? map[n->b] : -1, n->c >= 0 ? map[n->c] : -1,
                                     n->op == OP_RND ? fmap[n->fmt] : -1, n->line, n->col);
        }
        ok = ok && map[i] >= 0;
    }
    /* inputs the copy no longer reads are neither bisected nor refined */
    unsigned char *used = ok ? calloc((size_t)c->n_vars + 1, 1) : NULL;
    ok = ok && used;
    for (int i = 0; ok && i < c->n_nodes; i++)
        if (c->nodes[i].op == OP_VAR) used[c->nodes[i].var] = 1;
    for (int v = 0; ok && v < c->n_vars; v++)
        if (!used[v]) {
            c->vars[v].has_range = 0;
            c->vars[v].bisect = 1;
            haze__pi_set_zero(&c->vars[v].range);
        }
    free(used);
    for (int g = 0; ok && g < s->n_goals + n_extra; g++) {
        if (c->n_goals == c->cap_goals) {
            int cap = c->cap_goals ? 2 * c->cap_goals : 8;
            pgoal *ng = realloc(c->goals, (size_t)cap * sizeof *ng);
            if (!(ok = ng != NULL)) break;
            c->goals = ng;
            for (int k = 0; k < c->n_goals; k++) haze__pi_fixup(&ng[k].want);
            c->cap_goals = cap;
        }
        pgoal *d = &c->goals[c->n_goals];
        memset(d, 0, sizeof *d);
        haze__pi_init(&d->want);
        c->n_goals++;
        if (g < s->n_goals) {
            const pgoal *o = &s->goals[g];
            d->node = map[o->node];
            d->kind = o->kind;
            d->has_lo = o->has_lo;
            d->has_hi = o->has_hi;
            haze__pi_set(&d->want, &o->want);
            d->text = strdup(o->text ? o->text : "");
        } else {
            d->node = map[extra[g - s->n_goals]];
            d->kind = GOAL_VALUE;
            haze__pi_set_entire(&d->want);
            d->text = strdup("");
        }
        ok = d->text != NULL;
    }
    free(map);
    free(fmap);
    free(need);
    if (!ok) {
        haze__prec_script_free(c);
        return NULL;
    }
    return c;
}

typedef struct copy_job {
    haze_ctx *ctx;
    const haze_prec_script *c;
    pint *acc;
} copy_job;

static int copy_run(void *arg) {
    copy_job *j = arg;
    long boxes;
    return haze__prec_bisect(j->ctx, j->c, HAZE_PREC_IA, j->acc, NULL, &boxes);
}

/* The interval engine's enclosure of each goal of the copy c into acc[g],
 * on the script's grid (a copy is neither refined nor shared again). Under
 * a guard of its own, so that out of memory inside MPFR returns here and the
 * pass frees what it holds. */
static int enclose_copy(haze_ctx *ctx, const haze_prec_script *c, pint *acc) {
    for (int g = 0; g < c->n_goals; g++) {
        mpfr_set_inf(acc[g].lo, 1);
        mpfr_set_inf(acc[g].hi, -1);
    }
    copy_job j = {ctx, c, acc};
    return haze__mp_run(ctx, copy_run, &j);
}

int haze__prec_share_pass(haze_ctx *ctx, const haze_prec_script *s, pint *acc) {
    int nn = s->n_nodes;
    unsigned char *mark = calloc((size_t)nn + 1, 1), *subst = calloc((size_t)nn + 1, 1);
    int *extra = malloc((size_t)(nn ? nn : 1) * sizeof *extra);
    pint *range = NULL;
    int rc = (!mark || !subst || !extra) ? HAZE_ERR_NOMEM : 0, n_extra = 0;
    /* the rounding nodes that both sides of some goal reach */
    for (int g = 0; !rc && g < s->n_goals; g++) {
        int a, b;
        goal_sides(s, &s->goals[g], &a, &b);
        if (a < 0) continue;
        memset(mark, 0, (size_t)nn);
        reach(s, a, mark, 1);
        reach(s, b, mark, 2);
        for (int i = 0; i < nn; i++)
            if (mark[i] == 3 && s->nodes[i].op == OP_RND) subst[i] = 1;
    }
    for (int i = 0; !rc && i < nn; i++)
        if (subst[i]) extra[n_extra++] = i;
    haze_prec_script *s1 = NULL, *s2 = NULL;
    int ncap = s->n_goals + n_extra;
    pint *cap = rc ? NULL : malloc((size_t)ncap * sizeof *cap);
    if (!rc && !cap) rc = HAZE_ERR_NOMEM;
    for (int g = 0; cap && g < ncap; g++) haze__pi_init(&cap[g]);
    if (!rc && n_extra > 0) {
        /* 1. enclosures of the shared values (interval engine, the script's grid) */
        s1 = clone(s, NULL, NULL, extra, n_extra);
        range = malloc((size_t)nn * sizeof *range);
        if (!s1 || !range) rc = HAZE_ERR_NOMEM;
        if (!rc) rc = enclose_copy(ctx, s1, cap);
        if (range)
            for (int i = 0; i < nn; i++) haze__pi_init(&range[i]);
        for (int k = 0; !rc && k < n_extra; k++) {
            haze__pi_set(&range[extra[k]], &cap[s->n_goals + k]);
            if (!haze__pi_is_bounded(&range[extra[k]])) subst[extra[k]] = 0;
        }
        /* 2. the script with the shared values as exact inputs */
        if (!rc) {
            s2 = clone(s, subst, range, NULL, 0);
            if (!s2) rc = HAZE_ERR_NOMEM;
        }
        if (!rc) rc = enclose_copy(ctx, s2, cap);
        for (int g = 0; !rc && g < s->n_goals; g++) haze__pi_meet(&acc[g], &acc[g], &cap[g]);
    }
    for (int g = 0; cap && g < ncap; g++) haze__pi_clear(&cap[g]);
    free(cap);
    if (range)
        for (int i = 0; i < nn; i++) haze__pi_clear(&range[i]);
    free(range);
    haze__prec_script_free(s1);
    haze__prec_script_free(s2);
    free(mark);
    free(subst);
    free(extra);
    return rc;
}
